"""What a run is connected to: the local sandbox (embedded or in the background), the listener and
the API client, and what they are read through (the service's clock, the ports, the request log).

A start-up path (`payscope.app.runtime.startup`) fills them in; `Runtime` starts, revives and stops
them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from payscope.app.launch import PORT_FILE, wanted_port
from payscope.app.runtime.listener_dirs import listener_dir_for
from payscope.app.runtime.options import RuntimeOptions
from payscope.app.runtime.stacks import listener_stack
from payscope.core.display import USER, DisplayPolicy
from payscope.widgets.errors import describe_error

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.api.journal import JournalEntry
    from payscope.sandbox.identity import Credentials
    from payscope.sandbox.server import Sandbox
    from payscope.webhooks.journal import Journal as EventJournal
    from payscope.webhooks.listener import Listener
    from payscope.webhooks.process import ListenerProcess

HOST = "127.0.0.1"
# What to do when the background sandbox does not answer: what works, not "start one" (a
# `payscope sandbox` started by hand would serve another port the TUI never calls).
DAEMON_ADVICE = (
    "the TUI notices a stopped local sandbox within 2 s and starts it again on the same port "
    "and data (Ctrl+R tries at once); `payscope sandbox status` in a shell shows it."
)

Progress = Callable[[str, float | None], None]
P = ParamSpec("P")
T = TypeVar("T")


class StartupError(RuntimeError):
    """Something payscope needs could not start; the message says what to do about it."""


class NotStarted(RuntimeError):
    """Something was asked of the runtime before it started (said for a person)."""


class Connection:
    """The parts a run is connected to (the sandbox, the listener, the client) and what they are
    read through; `Runtime` is this with its start, revival and stop."""

    def __init__(self, options: RuntimeOptions, display: DisplayPolicy = USER) -> None:
        self.options = options
        # What the screens show of ports and wall-clock times (the tests give `STABLE`).
        self.display = display
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
        self.credentials: Credentials | None = None
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

    async def load(self, loader: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """What `loader` (one of `payscope.app.runtime.stacks`) returns, loaded in a thread: the
        shell keeps painting while FastAPI and uvicorn load."""
        return await asyncio.to_thread(loader, *args, **kwargs)

    def _connect_local(self, client: type[ApiClient], credentials: Credentials) -> None:
        """The local sandbox's keys and ids (embedded or kept in the background): this run's
        client (`client`, loaded by the caller) is built on them."""
        self.credentials = credentials
        self.merchant_id = credentials.merchant_id
        self.business_profile_id = credentials.profile_id
        self.client = client(
            self.base_url,
            credentials.api_key,
            profile_id=credentials.profile_id,
            merchant_id=credentials.merchant_id,
            unreachable_advice=DAEMON_ADVICE if self.daemon_dir is not None else None,
            **self.options.client_options(),
        )
        self._clock_requests()
        self._share_requests(self.client)

    def _load_rest(self) -> asyncio.Task[type[ListenerProcess]]:
        """Load the listener process's end and the first calls' modules in a thread, started
        now."""
        task = asyncio.create_task(self.load(listener_stack, first_calls=True))
        task.add_done_callback(_ignore_result)  # awaited, or a broken import fails its own call
        return task

    async def _point_webhooks(self, hook: str) -> None:
        for attempt in range(3):
            try:
                await self.api.sandbox.attach_webhook(hook)
                return
            except Exception as exc:  # said to the user (the status bar's poll shows notices)
                if attempt == 2:
                    title, message = describe_error(exc)
                    self.notices.append(
                        f"This run's listener could not be attached to the local sandbox's "
                        f"webhooks ({title}: {message}); live updates will not arrive."
                    )
                    return
                await asyncio.sleep(0.5)

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

        def note(entry: JournalEntry) -> None:
            # Recorded once answered: its start is as long ago on the service's clock.
            times[entry.id] = self.now() - max(0.0, time.time() - entry.started_at)
            if len(times) > 2 * keep:  # the journal forgets its oldest: so does this
                for old in sorted(times)[:keep]:
                    del times[old]

        self.client.journal.subscribe(note)

    def request_time(self, entry: JournalEntry) -> float:
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
        if self.sandbox is not None:
            return self.sandbox.state.clock.now()
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

    def forget_clock(self) -> None:
        """The clock was just moved: read it afresh next time."""
        self._offset = (self._offset[0], -1.0)

    def clock_text(self) -> str:
        """The sandbox's clock (it can be advanced, so it is not the wall clock), or ""."""
        if not self.has_local_sandbox:
            return ""
        return datetime.fromtimestamp(self.now(), UTC).strftime("%Y-%m-%d %H:%M")


def _ignore_result(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: never "exception was never retrieved"
