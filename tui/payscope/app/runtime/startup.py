"""The ways a run comes up, one class each, chosen once from the options (`startup_for`): the
local sandbox inside this process (`EmbeddedSandbox`), the local sandbox kept running in the
background (`AttachedDaemon`), or a profile's service elsewhere (`RemoteProfile`).

Each fills in a `Connection`'s sandbox, listener and client; the server stack each needs is
loaded by `payscope.app.runtime.stacks`, in a thread.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from payscope.app.runtime.connection import HOST, Connection, Progress, StartupError
from payscope.app.runtime.listener_dirs import (
    claim_listener_dir,
    claim_profile_listener,
    held_elsewhere,
    say_listener_owner,
)
from payscope.app.runtime.stacks import client_stack, embedded_stack, listener_stack
from payscope.core import secrets

if TYPE_CHECKING:
    from payscope.core.config import Profile
    from payscope.sandbox.daemon import DaemonState
    from payscope.sandbox.identity import Credentials
    from payscope.sandbox.server import Sandbox
    from payscope.webhooks.process import ListenerProcess

# How long a start waits for the background sandbox to serve: this long, plus as much per
# payment of a first run's seeding (many times what seeding one takes, so a slow machine has
# room). Fixed once known, never reset, so a stalled daemon is reported, not waited on.
START_LIMIT = 30.0
SEED_LIMIT_EACH = 0.01


async def wait_ready(directory: Path, report: Progress, spawned: int | None) -> DaemonState:
    """The background sandbox's state once it serves, reporting its seeding; a readable error
    when it stopped instead, or when it does not serve by a deadline that never resets."""
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
            raise StartupError(f"The local sandbox did not start: {daemon.why_stopped(directory)}")
        if loop.time() > deadline:
            log = directory / "daemon.log"
            waited = round(loop.time() - began)
            raise StartupError(
                f"The local sandbox did not get ready within {waited} s. Its log is {log}; "
                "`payscope sandbox status` shows what it is doing, and "
                "`payscope sandbox stop` ends it (payscope starts a fresh one next time)."
            )
        await asyncio.sleep(0.02)


# -- the start-up paths: one class each, chosen once (`startup_for`) ----------------------------


class Startup:
    """One way a run comes up: what `Runtime.start` (the TUI) and `Runtime.start_client` (the
    headless commands) do. It fills in the runtime's sandbox, listener and client."""

    def __init__(self, runtime: Connection) -> None:
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
        stack = await rt.load(embedded_stack)
        data = rt.options.data_dir
        config = stack.config(data_dir=data / "sandbox", **rt.options.sandbox_options)
        # Building the sandbox's app opens its database and builds every route: a thread keeps
        # the loop (and the cached page on screen) responsive meanwhile.
        rt.sandbox = sandbox = await asyncio.to_thread(stack.sandbox, config)
        if sandbox.state.started_afresh:
            rt.notices.append(sandbox.state.started_afresh)
        credentials = sandbox.credentials
        secret = credentials.webhook_secret
        # No freshness window: the sandbox's clock moves (/_sandbox/clock/advance), so its events
        # are dated in its own time, and a resend of an old event is legitimate here.
        rt.listener = listener = stack.listener(rt.listener_dir, secrets=[secret], max_age=None)
        # Both servers start together: neither needs the other until the webhook is registered.
        hook: str
        rt.base_url, hook = await asyncio.gather(
            self._serve(sandbox),
            listener.start(HOST, rt.options.listener_port or 0, own_thread=True),
        )
        rt.listener_url = rt.shown_url(hook)
        if not sandbox.is_seeded() and rt.options.seed:
            total = rt.options.seed

            loop = asyncio.get_running_loop()

            def seeded(done: int, *_rest: Any) -> None:
                # Called from the seeding thread: hand the update to the app's loop.
                text = f"First run: seeding demo data, {done} of {total} payments"
                loop.call_soon_threadsafe(report, text, done / max(total, 1))

            report(f"First run: seeding demo data, 0 of {total} payments", 0.0)
            # Seeding writes through its own SQLite connection, so a thread keeps the UI live.
            await asyncio.to_thread(sandbox.seed, total, seeded)
        sandbox.set_webhook(hook, secret)
        rt._connect_local(stack.client, credentials)
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
        listener_process = await (rest or rt._load_rest())
        if rt._claimed is None:
            rt._claimed = claim_listener_dir(rt.listener_dir, rt.options.data_dir)
        rt.listener = listener = listener_process(
            rt.listener_dir, secrets=[credentials.webhook_secret], max_age=None
        )  # no freshness window on the local sandbox: see EmbeddedSandbox
        # Its own process: acknowledgements never wait on the UI drawing.
        listener.on_notice = rt.notices.append
        hook = await listener.start(HOST, rt.options.listener_port or 0)
        rt.listener_url = rt.shown_url(hook)
        # Pointing the sandbox's webhooks here writes its database: done beside the first page's
        # read, not before it. Webhooks raised meanwhile (an action's, before this) are held,
        # then sent here.
        rt._hook = hook
        rt._hooking = asyncio.create_task(rt._point_webhooks(hook))

    async def attach(
        self, report: Progress
    ) -> tuple[Credentials, asyncio.Task[type[ListenerProcess]] | None]:
        """The client on the background sandbox (started when it is not running); its
        credentials, and the loading of the listener's stack when one was started."""
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
        client = await rt.load(client_stack, first_calls=serving)
        # The rest (the first calls' resources and models, the listener process's end) loads in
        # a thread: during a first run's seeding, or once the client is up on a warm start, where
        # it would only slow the client down. Imported by the first call itself, on the app's
        # loop, the resources would hold the live page back after a first run's seeding.
        rest = None if serving else rt._load_rest()
        state = await wait_ready(directory, report, spawned)
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
        rt._connect_local(client, credentials)
        return credentials, rest

    async def start_client(self, report: Progress) -> None:
        await self.attach(report)


class RemoteProfile(Startup):
    """A profile's service elsewhere: its key from the keyring, a listener process for the URL
    registered with it (unless another payscope listens for the profile already)."""

    async def start(self, report: Progress) -> None:
        rt = self.runtime
        profile = await self.connect(report)
        listener_process = await rt.load(listener_stack, first_calls=False)
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
        rt.listener = listener = listener_process(
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

    async def connect(self, report: Progress) -> Profile:
        """The client on the profile's service; the profile (payscope.core.config's `Profile`)."""
        # Validating the settings needs pydantic: loaded only for a remote profile.
        from payscope.core import config

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
        client = await rt.load(client_stack, first_calls=False)
        # A profile marked read-only stays so whatever the command line says.
        rt.options.read_only = rt.options.read_only or profile.read_only
        rt.base_url = profile.base_url
        rt.merchant_id = profile.merchant_id
        rt.business_profile_id = profile.profile_id
        rt.client = client(
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


def startup_for(runtime: Connection) -> Startup:
    """The start-up path the runtime's options choose."""
    options = runtime.options
    if not options.is_local:
        return RemoteProfile(runtime)
    if options.daemon:
        return AttachedDaemon(runtime)
    return EmbeddedSandbox(runtime)
