"""Start-up orchestration: the embedded sandbox, the listener and the API client, in the app's loop.

Nothing here is imported by the shell until it needs it: the server stack (FastAPI, uvicorn) is
imported in a thread while the shell is already on screen, so the first paint does not wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from payscope.app.launch import (
    DEFAULT_SEED,
    PORT_FILE,
    adopt_spawned,
    peek_settings,
    wanted_port,
)
from payscope.core import paths
from payscope.core.display import USER, DisplayPolicy
from payscope.core.paths import CONFIG_FILE, ENV_CONFIG_DIR, ENV_DATA_DIR

HOST = "127.0.0.1"
# How long a start waits for the background sandbox to serve: this long, plus as much per
# payment of a first run's seeding (about 1 ms each here: ten times that is room for a slow
# machine). Fixed once known, never reset, so a stalled daemon is reported, not waited on.
START_LIMIT = 30.0
# What to do when the background sandbox does not answer: what works, not "start one" (a
# `payscope sandbox` started by hand would serve another port the TUI never calls).
DAEMON_ADVICE = (
    "the TUI notices a stopped local sandbox within 2 s and starts it again on the same port "
    "and data (Ctrl+R tries at once); `payscope sandbox status` in a shell shows it."
)
SEED_LIMIT_EACH = 0.01
# What attaching to the background sandbox imports, loaded off the main thread, in two parts.
# First the client, with its transport for the local sandbox (`payscope.api.local_transport`; not
# httpx's, whose httpcore, h11 and anyio took a fifth of this): actions are usable once the
# client is up.
CLIENT_MODULES = ("payscope.api.client",)
# Then the TUI's end of the listener, which serves from a process of its own (its server,
# uvicorn, loads there): a warm start brings it up after the client, so that an action need not
# wait for it (see `AttachedDaemon.start`).
LISTENER_MODULES = ("payscope.webhooks.process",)
# What the first calls on the background sandbox need: Payments' first page, and pointing the
# sandbox's webhooks at this run's listener.
FIRST_CALLS = ("payscope.api.resources.payments", "payscope.api.resources.sandbox")

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.sandbox.server import Sandbox
    from payscope.webhooks.journal import Journal as EventJournal
    from payscope.webhooks.listener import Listener
    from payscope.webhooks.process import ListenerProcess

Progress = Callable[[str, float | None], None]


def listener_dir_for(data_dir: Path, profile: str | None) -> Path:
    """Where the listener of `profile` journals (None: the embedded sandbox, the local profile).

    The local profile keeps `<data>/listener` (shared with `payscope listen`); each remote
    profile has its own `<data>/listeners/<name>`, so its events are only its own.
    """
    if profile is None:
        return data_dir / "listener"
    # Profile names are checked (letters, digits, '-', '_'); made file-safe here all the same.
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", profile) or "_"
    return data_dir / "listeners" / safe


JOURNAL_LOCK = "in-use.lock"  # held (flock) by the payscope whose listener journals there


def claim_listener_dir(first: Path, data_dir: Path) -> tuple[Path, int]:
    """A journal directory no other running payscope uses, and the open lock that holds it
    (close it to let go): `first` when free, else `<data>/listeners/local-2`, `-3`, ... .

    Two payscopes on one background sandbox both get every webhook (each listener is attached),
    and a journal has one writer: the second one journals in a directory of its own."""
    import fcntl

    from payscope.core.private_files import private_dir

    number = 1
    while True:
        directory = first if number == 1 else data_dir / "listeners" / f"local-{number}"
        private_dir(directory)
        fd = os.open(directory / JOURNAL_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            number += 1
            continue
        return directory, fd


def claim_profile_listener(directory: Path) -> tuple[int | None, str]:
    """The lock of a remote profile's listener (its journal directory), or None with what the
    payscope holding it wrote there ("pid URL"): the service sends the profile's webhooks to
    the one URL registered with it, so one payscope on a machine listens for a profile."""
    import fcntl

    from payscope.core.private_files import private_dir

    private_dir(directory)
    fd = os.open(directory / JOURNAL_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            held = os.read(fd, 512).decode("utf-8", "replace").strip()
        finally:
            os.close(fd)
        return None, held
    return fd, ""


def say_listener_owner(fd: int, url: str) -> None:
    """Write "pid URL" into a held listener lock (what a second payscope reads and says)."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {url}\n".encode(), 0)


def held_elsewhere(profile: str, held: str) -> str:
    """Why this payscope starts no listener: another one listens for `profile` (its "pid
    URL" as written in the lock, when readable)."""
    pid, _, url = held.partition(" ")
    who = f"payscope (pid {pid})" if pid.isdigit() else "payscope"
    where = f" on {url}" if url.startswith("http") else ""
    return (
        f"Another {who} already listens for profile {profile}'s webhooks{where}. The service "
        "sends them to the one URL registered with it, so this payscope gets none: its Events "
        "stay empty and its lists do not update by themselves (r reloads). Watch webhooks in "
        "the other one, or quit it and start this one again to listen here."
    )


class StartupError(RuntimeError):
    """Something payscope needs could not start; the message says what to do about it."""


class NotStarted(RuntimeError):
    """Something was asked of the runtime before it started (said for a person)."""


class OptionsError(ValueError):
    """The command line or the config asks for something payscope cannot do (said for a person)."""


@dataclass
class RuntimeOptions:
    """Everything start-up needs, resolved from the command line and the settings file."""

    profile: str | None
    seed: int
    theme: str | None
    allow_production: bool
    config_dir: Path | None
    data_dir: Path
    user_theme_dir: Path | None
    keymap: dict[str, str] = field(default_factory=dict)
    listener_port: int = 0
    sandbox_options: dict[str, Any] = field(default_factory=dict)
    settings: Any = None
    # `[local] sandbox_port` as the start peeked at it (unvalidated), until `settings` is read.
    peeked_sandbox_port: Any = None
    # The local sandbox as a background service kept between runs (the CLI's choice; tests and
    # benchmarks that pass sandbox options run it inside the app).
    daemon: bool = False
    # The API client's backoff jitter (`random.random` when None); tests fix it so that retries
    # against a service that is down take the same time on every run.
    retry_rng: Callable[[], float] | None = None
    # The API client's wait before a retry (`asyncio.sleep` when None): a test that shows what
    # a failing service looks like need not sit through the waits (Retry-After: 1) it asks for.
    retry_sleep: Callable[[float], Awaitable[Any]] | None = None
    # `--read-only` (a profile's `read_only = true` adds to it): the client refuses writes.
    read_only: bool = False
    # Who this run's calls are in the profile's shared request log (`payscope logs tail`).
    request_log_source: str = "tui"

    @classmethod
    def build(
        cls,
        *,
        profile: str | None,
        seed: int | None,
        theme: str | None,
        allow_production: bool,
        config_dir: Path | None,
        data_dir: Path | None,
        sandbox_options: dict[str, Any],
    ) -> RuntimeOptions:
        """Combine the command line with the settings file.

        The settings are only peeked at here (plain TOML): validating them needs pydantic, which
        costs more than the whole first paint, so `load_settings` does that after it. Anything the
        peek finds odd takes the full, validating path at once, for its precise error messages.
        """
        if config_dir is not None:
            os.environ[ENV_CONFIG_DIR] = str(config_dir)
        if data_dir is not None:
            os.environ[ENV_DATA_DIR] = str(data_dir)
        configs, data = paths.config_dir(), paths.data_dir()
        peeked = peek_settings(configs / CONFIG_FILE, profile)
        if peeked is None:
            return cls._build_validated(
                profile=profile,
                seed=seed,
                theme=theme,
                allow_production=allow_production,
                sandbox_options=sandbox_options,
            )
        profile = profile or peeked.default_profile
        return cls(
            profile=profile,
            seed=DEFAULT_SEED if seed is None else seed,
            theme=theme or peeked.profile_theme or peeked.theme,
            allow_production=allow_production,
            config_dir=configs,
            data_dir=data,
            user_theme_dir=configs / "themes",
            keymap=peeked.keymap,
            listener_port=peeked.listener_port or 0,
            sandbox_options=sandbox_options,
            peeked_sandbox_port=peeked.sandbox_port,
        )

    @classmethod
    def _build_validated(
        cls,
        *,
        profile: str | None,
        seed: int | None,
        theme: str | None,
        allow_production: bool,
        sandbox_options: dict[str, Any],
    ) -> RuntimeOptions:
        from payscope.core import config

        try:
            settings = config.load_settings()
        except Exception as exc:  # said for a person by payscope.core.config; no traceback wanted
            raise OptionsError(str(exc)) from exc
        profile = profile or settings.default_profile
        chosen = None
        if profile is not None:
            try:
                chosen = config.get_profile(settings, profile)
            except config.ProfileError as exc:
                raise OptionsError(
                    f"{exc}. Or run `payscope` without --profile for the embedded sandbox."
                ) from None
        return cls(
            profile=profile,
            seed=DEFAULT_SEED if seed is None else seed,
            theme=theme or (chosen.theme if chosen else None) or settings.theme,
            allow_production=allow_production,
            config_dir=config.config_dir(),
            data_dir=config.data_dir(),
            user_theme_dir=config.config_dir() / "themes",
            keymap=dict(settings.keymap),
            listener_port=(chosen.listener_port if chosen else None) or 0,
            sandbox_options=sandbox_options,
            settings=settings,
        )

    def load_settings(self) -> Any:
        """The validated settings (payscope.core.config's `Settings`), read once; `OptionsError` if
        broken."""
        if self.settings is None:
            from payscope.core import config

            try:
                self.settings = config.load_settings()
            except Exception as exc:  # said for a person by payscope.core.config
                raise OptionsError(str(exc)) from exc
        return self.settings

    @property
    def is_local(self) -> bool:
        """True on the embedded sandbox (no --profile)."""
        return self.profile is None

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for `ApiClient` that these options change from its defaults."""
        # Public test cards stay whole in the request journal: a copied curl runs as copied.
        from payscope.sandbox.cards import is_public_test_card

        options: dict[str, Any] = {"public_card": is_public_test_card}
        if self.retry_rng is not None:
            options["rng"] = self.retry_rng
        if self.retry_sleep is not None:
            options["sleep"] = self.retry_sleep
        if self.read_only:
            options["read_only"] = True
        return options


class Runtime:
    """Owns the embedded sandbox (local profile), the listener and the shared API client."""

    def __init__(self, options: RuntimeOptions, display: DisplayPolicy = USER) -> None:
        self.options = options
        # What the screens show of ports and wall-clock times (the tests give `STABLE`).
        self.display = display
        # How this run comes up (embedded sandbox, background sandbox, remote profile): chosen
        # once, from the options.
        self.startup: Startup = startup_for(self)
        self.sandbox: Sandbox | None = None
        # The embedded sandbox's listener serves from a thread of this process (that mode keeps
        # everything in one process); the background sandbox's and a remote profile's from a
        # process of its own (`payscope.webhooks.process`: acknowledgements never wait on drawing).
        self.listener: Listener | ListenerProcess | None = None
        self.client: ApiClient | None = None
        self.environment = "local" if options.is_local else "sandbox"
        self.profile_name = options.profile or "local"
        self.key_source = ""
        # The profile's service is http:// off this machine, accepted (`allow_insecure_http`).
        self.insecure_http = False
        self.listener_url = ""
        self.base_url = ""
        self.merchant_id: str | None = None
        # The local sandbox's identity and keys (either mode); None on a remote profile.
        self.credentials: Any = None
        self.daemon_dir: Path | None = None
        self.spawned_daemon: int | None = None
        self._hooking: asyncio.Task[None] | None = None
        self._claimed: tuple[Path, int] | None = None  # (journal directory, its lock's fd)
        # Why no listener runs on this remote profile: another payscope listens for it ("").
        self.listener_elsewhere = ""
        self._hook = ""  # the listener URL this run pointed the background sandbox at
        # (the listeners attached to the background sandbox, read at)
        self._hook_read: tuple[list[str] | None, float] = (None, -10.0)
        self._offset: tuple[float, float] = (0.0, -1.0)  # (clock offset, read at)
        self.business_profile_id: str | None = None
        self._request_times: dict[int, float] = {}  # journal entry id -> the service's time
        # Set once the client is up (actions can run), then once everything is (`start` done).
        self.client_ready = asyncio.Event()
        self.ready = asyncio.Event()
        # Worth telling but not a settings problem (the sandbox's port was taken).
        self.notices: list[str] = []
        self._dirs_checked = False

    @property
    def listener_dir(self) -> Path:
        """The directory of this profile's webhook journal (known before `start`; another of
        its own when another payscope journals there already, once attached)."""
        if self._claimed is not None:
            return self._claimed[0]
        return listener_dir_for(self.options.data_dir, self.options.profile)

    def secure_dirs(self) -> None:
        """payscope's data and config dirs, made private when others can read them (once: the
        notice is told, and the next run finds them 0700)."""
        from payscope.core.private_files import secure_own_dir

        if self._dirs_checked:  # a retry: told already
            return
        self._dirs_checked = True
        dirs = [(self.options.data_dir, "data")]
        if self.options.config_dir is not None:
            dirs.append((self.options.config_dir, "config"))
        said = [n for n in (secure_own_dir(d, what) for d, what in dirs) if n]
        if said:
            self.notices.append(" ".join(said))  # one notice for both

    async def start(self, progress: Progress | None = None) -> None:
        """Bring everything up; raise a readable error if something cannot start."""
        report = progress or (lambda _text, _fraction: None)
        self.secure_dirs()
        # A retry after a failed start: what did come up must not linger (ports, open files).
        self.client_ready.clear()
        await self.stop()
        self.sandbox = self.listener = self.client = None
        self.credentials = self.daemon_dir = None
        await self.startup.start(report)
        moved = self.listener.journal.moved_aside if self.listener is not None else None
        if moved is not None:
            self.notices.append(
                f"The webhook journal was damaged, so a fresh one was started; the old one is "
                f"kept at {moved}."
            )
        self.client_ready.set()
        self.ready.set()

    async def check_settings(self) -> list[str]:
        """Validate the settings file the start only peeked at (see `RuntimeOptions.build`);
        what is wrong with it, said for a person.

        Called once the runtime is up: the embedded sandbox needs nothing from the file, so a
        problem is told, not fatal, and the validation (pydantic, about 0.25 s on a 2-core
        machine) need not hold the client and the listener back. A remote profile's start
        validated them already: nothing to do then."""
        if self.options.settings is not None:
            return []
        try:
            await asyncio.to_thread(self.options.load_settings)
        except OptionsError as exc:
            return [str(exc)]
        return []

    async def _import(self, *modules: str) -> list[Any]:
        # Imported in a thread: the shell keeps painting while FastAPI and uvicorn load. One
        # thread for all of them: they share most of their dependencies.
        def load() -> list[Any]:
            return [importlib.import_module(module) for module in modules]

        return await asyncio.to_thread(load)

    async def start_client(self, progress: Progress | None = None) -> ApiClient:
        """Only the API client, for the headless commands (`payscope fixtures`, `export`): the
        background local sandbox (started when it is not running) or the profile's service.
        No listener starts, and the sandbox's webhooks stay where the TUI pointed them."""
        report = progress or (lambda _text, _fraction: None)
        self.secure_dirs()
        await self.startup.start_client(report)
        self.client_ready.set()
        return self.api

    def _connect_local(self, api: Any, credentials: Any) -> None:
        """The local sandbox's keys and ids (embedded or kept in the background): this run's
        client is built on them. `api` is `payscope.api.client`, imported by the caller."""
        self.credentials = credentials
        self.merchant_id = credentials.merchant_id
        self.business_profile_id = credentials.profile_id
        self.client = api.ApiClient(
            self.base_url,
            credentials.api_key,
            profile_id=credentials.profile_id,
            merchant_id=credentials.merchant_id,
            unreachable_advice=DAEMON_ADVICE if self.daemon_dir is not None else None,
            **self.options.client_options(),
        )
        self._clock_requests()
        self._share_requests(self.client)

    def sandbox_gone(self) -> str:
        """Why the background sandbox this run uses no longer serves it ("" while it does, or
        when this run has none). Cheap: its state file, its lock and /proc; no request."""
        if self.daemon_dir is None:
            return ""
        from payscope.sandbox import daemon

        state, problem = daemon.check(self.daemon_dir)
        if state is None:
            return "it is not running" + (f" ({problem})" if problem else "")
        if state.phase == "ready" and state.url != self.base_url:
            return f"it serves on {state.url} now"
        return ""

    async def revive(self, report: Progress) -> str:
        """Bring the background sandbox back: start it again on its port and its data (or
        attach to the one serving them now), point the client at it and take its webhooks
        back. Returns its URL; raises `StartupError` saying why when it cannot."""
        from payscope.sandbox import daemon

        directory = self.daemon_dir
        if directory is None:
            raise StartupError("This run has no background sandbox to start again.")
        state = daemon.read_state(directory)
        spawned = None
        if state is None:
            port = int(self.base_url.rsplit(":", 1)[-1]) if self.base_url else 0
            report(f"Starting the local sandbox again on port {port}…", None)
            spawned = await asyncio.to_thread(
                daemon.spawn, directory, port=port, seed=self.options.seed
            )
        state = await self._wait_ready(directory, report, spawned)
        credentials = await asyncio.to_thread(daemon.read_credentials, directory)
        if credentials is None:
            raise StartupError(f"The local sandbox in {directory} has no keys in its database.")
        for note in (state.note, state.afresh):
            if note:
                self.notices.append(note)
        old = self.client
        if state.url != self.base_url or credentials != self.credentials:
            # Another port (its own was taken) or other keys (its database was replaced): a
            # new client. Requests go on the new one's log from here.
            from payscope.api import client as api

            self.base_url = state.url
            self._remember_port(state.url)
            self._connect_local(api, credentials)
            if old is not None:
                with contextlib.suppress(Exception):
                    await old.aclose()
        if self.listener is not None:
            self.listener.secrets = [credentials.webhook_secret]
        if self._hook:
            await self._point_webhooks(self._hook)
        report("", 1.0)
        return str(state.url)

    def _import_rest(self) -> asyncio.Task[list[Any]]:
        """Import the listener's modules and the first calls' in a thread, started now."""
        task = asyncio.create_task(self._import(*LISTENER_MODULES, *FIRST_CALLS))
        task.add_done_callback(_ignore_result)  # awaited, or a broken import fails its own call
        return task

    async def _point_webhooks(self, hook: str) -> None:
        for attempt in range(3):
            try:
                await self.api.sandbox.attach_webhook(hook)
                return
            except Exception as exc:  # said to the user (the status bar's poll shows notices)
                if attempt == 2:
                    from payscope.widgets.errors import describe_error

                    title, message = describe_error(exc)
                    self.notices.append(
                        f"This run's listener could not be attached to the local sandbox's "
                        f"webhooks ({title}: {message}); live updates will not arrive."
                    )
                    return
                await asyncio.sleep(0.5)

    async def _wait_ready(self, directory: Path, report: Progress, spawned: int | None) -> Any:
        """The daemon's state once it serves, reporting its seeding; a readable error when it
        stopped instead, or when it does not serve by a deadline that never resets."""
        from payscope.sandbox import daemon, files

        loop = asyncio.get_running_loop()
        began = loop.time()
        deadline = began + START_LIMIT
        while True:
            state = daemon.read_state(directory)
            if state is not None and state.phase == "ready":
                return state
            if state is not None and state.phase == "seeding":
                # Set once, from the size of the seeding: a daemon that stalls, or a state
                # file that says "seeding" for ever, is not waited on for ever.
                deadline = max(deadline, began + START_LIMIT + state.total * SEED_LIMIT_EACH)
                total = max(state.total, 1)
                report(
                    f"First run: seeding demo data, {state.done} of {state.total} payments",
                    state.done / total,
                )
            elif (
                state is None
                and spawned is not None
                and not daemon.alive(spawned)
                and not files.lock_held(directory)
            ):
                # It stopped before serving, and no other daemon took the data dir (one that
                # did is waited for: this one left it to that one). Its log says why.
                raise StartupError(
                    f"The local sandbox did not start: {daemon.why_stopped(directory)}"
                )
            if loop.time() > deadline:
                log = directory / "daemon.log"
                waited = round(loop.time() - began)
                raise StartupError(
                    f"The local sandbox did not get ready within {waited} s. Its log is {log}; "
                    "`payscope sandbox status` shows what it is doing, and "
                    "`payscope sandbox stop` ends it (payscope starts a fresh one next time)."
                )
            await asyncio.sleep(0.02)

    def spawn_early(self) -> None:
        """Start the background sandbox now when this run needs one that is not running, so it
        comes up while the app is still loading (nothing to do on a remote profile)."""
        if not (self.options.is_local and self.options.daemon):
            return
        from payscope.sandbox import daemon

        directory = self.options.data_dir / "sandbox"
        # Started by the command line at launch: adopted whatever it has written by now (its
        # pid is how a sandbox that stops before serving is told apart from a slow one).
        self.spawned_daemon = adopt_spawned(directory)
        if self.spawned_daemon is not None:
            return
        if daemon.read_state(directory) is None:
            port, _origin = self.wanted_sandbox_port()
            self.spawned_daemon = daemon.spawn(directory, port=port, seed=self.options.seed)

    @property
    def has_local_sandbox(self) -> bool:
        """True once the local sandbox (in the app or kept in the background) is up."""
        return self.options.is_local and self.credentials is not None

    @property
    def port_file(self) -> Path:
        """Where the embedded sandbox's last port is kept (so curl commands stay valid)."""
        return self.options.data_dir / "sandbox" / PORT_FILE

    def wanted_sandbox_port(self) -> tuple[int, str]:
        """The port to try first and where it comes from: `[local] sandbox_port` in the
        settings, else the port of the last run, else 0 (any free port)."""
        settings = self.options.settings
        if settings is None:  # not validated yet (start-up): the file's plain value
            configured = self.options.peeked_sandbox_port
        else:
            configured = getattr(getattr(settings, "local", None), "sandbox_port", None)
        return wanted_port(configured, self.port_file)

    def _remember_port(self, url: str) -> None:
        with contextlib.suppress(OSError):
            self.port_file.write_text(url.rsplit(":", 1)[-1] + "\n", encoding="ascii")

    def _clock_requests(self) -> None:
        """Note the service's time of each request the client journals (`request_time`)."""
        assert self.client is not None
        times = self._request_times = {}
        keep = self.client.journal.maxlen

        def note(entry: Any) -> None:
            import time

            # Recorded once answered: its start is as long ago on the service's clock.
            times[entry.id] = self.now() - max(0.0, time.time() - entry.started_at)
            if len(times) > 2 * keep:  # the journal forgets its oldest: so does this
                for old in sorted(times)[:keep]:
                    del times[old]

        self.client.journal.subscribe(note)

    def request_time(self, entry: Any) -> float:
        """When a journaled request was made, by the service's clock (the local sandbox's can
        be moved): what puts it in order among the service's own records (a payment's story).
        An entry made before this run's client: its own wall-clock time."""
        return float(self._request_times.get(entry.id, entry.started_at))

    def _share_requests(self, client: ApiClient) -> None:
        """Every call of `client` also goes to the profile's shared request log, which
        `payscope logs tail` follows (tui/payscope/api/request_log.py)."""
        from payscope.api.request_log import RequestLogWriter, request_log_path

        path = request_log_path(self.options.data_dir, self.options.profile)
        RequestLogWriter(path, self.options.request_log_source).attach(client.journal)

    def shown_url(self, url: str) -> str:
        """`url` as the screen shows it (its port as the display policy shows ports)."""
        return self.display.url(url)

    @property
    def api(self) -> ApiClient:
        """The API client, once started (the views load data only after `runtime_ready`)."""
        if self.client is None:
            raise NotStarted("Not connected to the service yet; try again in a moment.")
        return self.client

    @property
    def journal(self) -> EventJournal:
        """The listener's journal of received webhooks, once started."""
        if self.listener is None:
            raise NotStarted("The webhook listener is not running yet; try again in a moment.")
        return self.listener.journal

    def now(self) -> float:
        """The time as the service sees it: the local sandbox's clock (it can be advanced),
        else the wall clock. Deadlines (a dispute's) are judged by it."""
        import time

        clock = _clock_of(self.sandbox)
        if clock is not None:
            return float(clock.now())
        if self.daemon_dir is not None:
            # The background sandbox keeps its clock's offset in its database: read at most
            # twice a second (cells and deadlines ask often).
            offset, read_at = self._offset
            wall = time.monotonic()
            if wall - read_at > 0.5:
                from payscope.sandbox.daemon import read_clock_offset

                offset = read_clock_offset(self.daemon_dir)
                self._offset = (offset, wall)
            return time.time() + offset
        return time.time()

    def webhooks_detached(self) -> bool:
        """True when this run's listener is no longer attached to the background sandbox (a
        curl, or a tool, detached it); every running payscope's listener is attached at once,
        so another payscope starting takes nothing from this one. Read from the sandbox's
        database, at most every 2 s."""
        import time

        if self.daemon_dir is None or not self._hook or self._hooking is None:
            return False
        if not self._hooking.done():
            return False
        wall = time.monotonic()
        if wall - self._hook_read[1] > 2.0:
            from payscope.sandbox.daemon import read_webhook_listeners

            self._hook_read = (read_webhook_listeners(self.daemon_dir), wall)
        attached = self._hook_read[0]
        return attached is not None and self._hook not in attached

    async def reclaim_webhooks(self) -> None:
        """Attach this run's listener to the background sandbox's webhooks again."""
        if self.daemon_dir is not None and self._hook:
            await self.api.sandbox.attach_webhook(self._hook)
            self._hook_read = (None, -10.0)

    def forget_clock(self) -> None:
        """The clock was just moved: read it afresh next time."""
        self._offset = (self._offset[0], -1.0)

    def clock_text(self) -> str:
        """The sandbox's clock (it can be advanced, so it is not the wall clock), or ""."""
        if not self.has_local_sandbox:
            return ""
        from datetime import UTC, datetime

        return datetime.fromtimestamp(self.now(), UTC).strftime("%Y-%m-%d %H:%M")

    async def stop(self) -> None:
        """Stop what was started (each part on its own, so one failure does not leak the rest).

        A background sandbox keeps running; this run's listener is detached from it (the other
        payscopes' listeners keep getting its webhooks; with none, they are held)."""
        if self._hooking is not None:
            self._hooking.cancel()
            self._hooking = None
        if self.daemon_dir is not None and self.client is not None and self._hook:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.sandbox.detach_webhook(self._hook), 1.0)

        async def close(part: Any) -> None:
            closer = getattr(part, "aclose", None) or getattr(part, "stop", None)
            if closer is not None:
                # Shutting down: nothing useful to tell the user any more.
                with contextlib.suppress(Exception):
                    await _maybe_await(closer())

        # Each on its own and all at once: quitting waits for the slowest, not for the sum.
        await asyncio.gather(
            *(close(part) for part in (self.client, self.listener, self.sandbox) if part)
        )
        if self._claimed is not None:
            os.close(self._claimed[1])  # the journal is closed: another payscope may take it
            self._claimed = None


# -- the start-up paths: one class each, chosen once (`startup_for`) ----------------------------


class Startup:
    """One way a run comes up: what `Runtime.start` (the TUI) and `Runtime.start_client` (the
    headless commands) do. It fills in the runtime's sandbox, listener and client."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def start(self, report: Progress) -> None:
        """Bring up what the TUI needs: the service's client and this run's listener."""
        raise NotImplementedError

    async def start_client(self, report: Progress) -> None:
        """Only the API client (the headless commands): no listener starts."""
        raise NotImplementedError


class EmbeddedSandbox(Startup):
    """The local sandbox inside this process, its listener on a thread of it (the tests' and
    benchmarks' choice when they pass sandbox options)."""

    async def start(self, report: Progress) -> None:
        rt = self.runtime
        report("Starting the local sandbox…", None)
        server, listener_mod, api = await rt._import(
            "payscope.sandbox.server", "payscope.webhooks.listener", "payscope.api.client"
        )
        data = rt.options.data_dir
        config = server.SandboxConfig(data_dir=data / "sandbox", **rt.options.sandbox_options)
        # Building the sandbox's app opens its database and builds every route: a thread keeps
        # the loop (and the cached page on screen) responsive meanwhile.
        rt.sandbox = sandbox = await asyncio.to_thread(server.Sandbox, config)
        if sandbox.state.started_afresh:
            rt.notices.append(sandbox.state.started_afresh)
        credentials = sandbox.credentials
        secret = credentials.webhook_secret
        # No freshness window: the sandbox's clock moves (/_sandbox/clock/advance), so its events
        # are dated in its own time, and a resend of an old event is legitimate here.
        rt.listener = listener = listener_mod.Listener(
            rt.listener_dir, secrets=[secret], max_age=None
        )
        # Both servers start together: neither needs the other until the webhook is registered.
        hook: str
        rt.base_url, hook = await asyncio.gather(
            self._serve(sandbox),
            listener.start(HOST, rt.options.listener_port or 0, own_thread=True),
        )
        rt.listener_url = rt.shown_url(hook)
        if not await _maybe_await(sandbox.is_seeded()) and rt.options.seed:
            total = rt.options.seed

            loop = asyncio.get_running_loop()

            def seeded(done: int, *_rest: Any) -> None:
                # Called from the seeding thread: hand the update to the app's loop.
                text = f"First run: seeding demo data, {done} of {total} payments"
                loop.call_soon_threadsafe(report, text, done / max(total, 1))

            report(f"First run: seeding demo data, 0 of {total} payments", 0.0)
            # Seeding writes through its own SQLite connection, so a thread keeps the UI live.
            await asyncio.to_thread(sandbox.seed, total, seeded)
        await _maybe_await(sandbox.set_webhook(hook, secret))
        rt._connect_local(api, credentials)
        report("", 1.0)

    async def _serve(self, sandbox: Sandbox) -> str:
        """Serve the sandbox on its stable port; a taken port falls back to a free one, told."""
        from payscope.sandbox.daemon import start_on

        rt = self.runtime
        url, note = await start_on(sandbox, *rt.wanted_sandbox_port())
        if note:
            rt.notices.append(
                f"{note} curl commands copied before name the old port: see :sandbox for the "
                "new base URL."
            )
        rt._remember_port(url)
        return url

    async def start_client(self, report: Progress) -> None:
        # The headless commands never embed a sandbox: they use the background one.
        await AttachedDaemon(self.runtime).start_client(report)


class AttachedDaemon(Startup):
    """The local sandbox as a background service kept between runs (the CLI's choice): started
    when it is not running, its webhooks pointed at this run's listener process."""

    async def start(self, report: Progress) -> None:
        """Use the local sandbox kept running between runs (start it when it is not), then
        point its webhooks at this run's listener."""
        rt = self.runtime
        credentials, rest = await self.attach(report)
        rt.client_ready.set()  # actions run from here; the listener comes up next
        report("", 1.0)
        process, *_ = await (rest or rt._import_rest())
        if rt._claimed is None:
            rt._claimed = claim_listener_dir(rt.listener_dir, rt.options.data_dir)
        rt.listener = listener = process.ListenerProcess(
            rt.listener_dir, secrets=[credentials.webhook_secret], max_age=None
        )  # no freshness window on the local sandbox: see EmbeddedSandbox
        # Its own process: acknowledgements never wait on the UI drawing (issue 30).
        listener.on_notice = rt.notices.append
        hook = await listener.start(HOST, rt.options.listener_port or 0)
        rt.listener_url = rt.shown_url(hook)
        # Pointing the sandbox's webhooks here writes its database: done beside the first page's
        # read, not before it. Webhooks raised meanwhile (an action's, before this) are held,
        # then sent here.
        rt._hook = hook
        rt._hooking = asyncio.create_task(rt._point_webhooks(hook))

    async def attach(self, report: Progress) -> tuple[Any, asyncio.Task[list[Any]] | None]:
        """The client on the background sandbox (started when it is not running); its
        credentials, and the import of the listener's modules when one was started."""
        from payscope.sandbox import daemon

        rt = self.runtime
        directory = rt.options.data_dir / "sandbox"
        state = daemon.read_state(directory)
        spawned = rt.spawned_daemon
        rt.spawned_daemon = None
        if state is None and spawned is not None and not daemon.alive(spawned):
            spawned = None  # started early but gone at once: try once more, to say why
        if state is None and spawned is None:
            report("Starting the local sandbox…", None)
            port, _origin = rt.wanted_sandbox_port()
            spawned = await asyncio.to_thread(
                daemon.spawn, directory, port=port, seed=rt.options.seed
            )
        serving = state is not None and state.phase == "ready"
        # A warm start (serving already): with the client, what its first call needs, so the
        # live page that follows at once imports nothing on the app's loop.
        api, *_ = await rt._import(*CLIENT_MODULES, *(FIRST_CALLS if serving else ()))
        # The rest (the first calls' resources and models, the listener and uvicorn) loads in a
        # thread: during a first run's seeding, or once the client is up on a warm start, where
        # it would only slow the client down. Imported by the first call itself, on the app's
        # loop, the resources held the live page back 0.2 s after a first run's seeding.
        rest = None if serving else rt._import_rest()
        state = await rt._wait_ready(directory, report, spawned)
        credentials = await asyncio.to_thread(daemon.read_credentials, directory)
        if credentials is None:
            raise StartupError(
                f"The local sandbox in {directory} has no keys in its database. "
                "`payscope sandbox stop` ends it; the next start makes the keys again."
            )
        if state.note:
            rt.notices.append(f"{state.note} curl commands copied before name the old port.")
        if state.afresh:
            rt.notices.append(state.afresh)
        rt.daemon_dir = directory
        rt.base_url = state.url
        rt._remember_port(state.url)
        rt._connect_local(api, credentials)
        return credentials, rest

    async def start_client(self, report: Progress) -> None:
        await self.attach(report)


class RemoteProfile(Startup):
    """A profile's service elsewhere: its key from the keyring, a listener process for the URL
    registered with it (unless another payscope listens for the profile already)."""

    async def start(self, report: Progress) -> None:
        from payscope.core import secrets

        rt = self.runtime
        profile = await self.connect(report)
        (process,) = await rt._import(*LISTENER_MODULES)
        try:
            webhook_secret = secrets.get_secret(profile.name, "webhook")
        except Exception:
            webhook_secret = None
        if rt._claimed is None:
            fd, held = claim_profile_listener(rt.listener_dir)
            if fd is None:
                # Another payscope listens for this profile: a listener on another port would
                # get nothing (the service knows one URL), so none is started; it is said.
                rt.listener_elsewhere = held_elsewhere(profile.name, held)
                rt.notices.append(rt.listener_elsewhere)
                report("", 1.0)
                return
            rt._claimed = (rt.listener_dir, fd)
        rt.listener_elsewhere = ""
        # Its own journal: the embedded sandbox's events are not this profile's. No freshness
        # window here either: a sandbox's clock is its own (moved, or held still), and this
        # listener shows what the service sends; `payscope listen`, feeding a backend, checks.
        rt.listener = listener = process.ListenerProcess(
            rt.listener_dir,
            secrets=[webhook_secret] if webhook_secret else None,
            max_age=None,
        )
        # The profile's port (0 = any free one): the user registers this URL with the service.
        listener.on_notice = rt.notices.append
        hook = await listener.start(HOST, profile.listener_port)
        say_listener_owner(rt._claimed[1], hook)
        rt.listener_url = rt.shown_url(hook)
        report("", 1.0)

    async def connect(self, report: Progress) -> Any:
        """The client on the profile's service; the profile (payscope.core.config's `Profile`)."""
        from payscope.core import config, secrets

        rt = self.runtime
        settings = await asyncio.to_thread(rt.options.load_settings)
        profile = config.get_profile(settings, rt.options.profile)
        report(f"Connecting to {profile.base_url}…", None)
        resolved = secrets.resolve_api_key(profile.name)
        api_key = resolved.value
        rt.key_source = (
            f"key {resolved.masked} from PAYSCOPE_API_KEY"
            if resolved.source == "env"
            else f"key {resolved.masked}"
        )
        if secrets.is_production(api_key):
            rt.environment = "production"
        (api,) = await rt._import("payscope.api.client")
        # A profile marked read-only stays so whatever the command line says.
        rt.options.read_only = rt.options.read_only or profile.read_only
        rt.base_url = profile.base_url
        rt.merchant_id = profile.merchant_id
        rt.business_profile_id = profile.profile_id
        rt.client = api.ApiClient(
            profile.base_url,
            api_key,
            profile_id=profile.profile_id,
            merchant_id=profile.merchant_id,
            allow_production=rt.options.allow_production or profile.allow_production,
            contract=profile.contract_setting,
            allow_insecure_http=profile.allow_insecure_http,
            **rt.options.client_options(),
        )
        rt.insecure_http = bool(rt.client.insecure_http)
        rt._clock_requests()
        rt._share_requests(rt.client)
        return profile

    async def start_client(self, report: Progress) -> None:
        await self.connect(report)


def startup_for(runtime: Runtime) -> Startup:
    """The start-up path the runtime's options choose."""
    options = runtime.options
    if not options.is_local:
        return RemoteProfile(runtime)
    if options.daemon:
        return AttachedDaemon(runtime)
    return EmbeddedSandbox(runtime)


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def _clock_of(sandbox: Any) -> Any:
    clock = getattr(sandbox, "clock", None)
    if clock is None:
        clock = getattr(getattr(sandbox, "state", None), "clock", None)
    return clock


def _ignore_result(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: never "exception was never retrieved"
