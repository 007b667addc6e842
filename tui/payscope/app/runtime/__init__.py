"""The runtime: a run's connection to the service (the local sandbox, embedded or in the
background, or a profile's service), its listener and its API client, in the app's loop; started,
revived when the background sandbox stops, and stopped.

Its parts: what the run is started with (`options`), what it is connected to (`connection`), the
ways it comes up (`startup`), the server stack those load (`stacks`) and where its listener
journals (`listener_dirs`). None imports Textual, and the server stack (FastAPI, uvicorn) loads in
a thread while the shell is already on screen, so the first paint does not wait. What only some
runs need (the background sandbox's daemon module, the settings' validation with pydantic, the
request log) is imported where it is used: the runtime is built before the first frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from payscope.app.launch import adopt_spawned
from payscope.app.runtime.connection import Connection, Progress, StartupError
from payscope.app.runtime.options import OptionsError, RuntimeOptions
from payscope.app.runtime.stacks import client_stack
from payscope.app.runtime.startup import Startup, startup_for, wait_ready
from payscope.core.display import USER, DisplayPolicy
from payscope.core.private_files import secure_own_dir
from payscope.core.waiting import within

if TYPE_CHECKING:
    from payscope.api.client import ApiClient


class Runtime(Connection):
    """Owns the embedded sandbox (local profile), the listener and the shared API client."""

    def __init__(self, options: RuntimeOptions, display: DisplayPolicy = USER) -> None:
        super().__init__(options, display)
        # How this run comes up (embedded sandbox, background sandbox, remote profile): chosen
        # once, from the options.
        self.startup: Startup = startup_for(self)

    def secure_dirs(self) -> None:
        """payscope's data and config dirs, made private when others can read them (once: the
        notice is told, and the next run finds them 0700)."""
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
        problem is told, not fatal, and the validation (pydantic: it costs more than the whole
        first paint) need not hold the client and the listener back. A remote profile's start
        validated them already: nothing to do then."""
        if self.options.settings is not None:
            return []
        try:
            await asyncio.to_thread(self.options.load_settings)
        except OptionsError as exc:
            return [str(exc)]
        return []

    async def start_client(self, progress: Progress | None = None) -> ApiClient:
        """Only the API client, for the headless commands (`payscope fixtures`, `export`): the
        background local sandbox (started when it is not running) or the profile's service.
        No listener starts, and the sandbox's webhooks stay where the TUI pointed them."""
        report = progress or (lambda _text, _fraction: None)
        self.secure_dirs()
        await self.startup.start_client(report)
        self.client_ready.set()
        return self.api

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
        state = await wait_ready(directory, report, spawned)
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
            self.base_url = state.url
            self._remember_port(state.url)
            self._connect_local(client_stack(first_calls=False), credentials)
            if old is not None:
                with contextlib.suppress(Exception):
                    await old.aclose()
        if self.listener is not None:
            self.listener.secrets = [credentials.webhook_secret]
        if self._hook:
            await self._point_webhooks(self._hook)
        report("", 1.0)
        return str(state.url)

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

    def webhooks_detached(self) -> bool:
        """True when this run's listener is no longer attached to the background sandbox (a
        curl, or a tool, detached it); every running payscope's listener is attached at once,
        so another payscope starting takes nothing from this one. Read from the sandbox's
        database, at most every 2 s."""
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

    async def stop(self) -> None:
        """Stop what was started (each part on its own, so one failure does not leak the rest).

        A background sandbox keeps running; this run's listener is detached from it (the other
        payscopes' listeners keep getting its webhooks; with none, they are held)."""
        if self._hooking is not None:
            self._hooking.cancel()
            self._hooking = None
        if self.daemon_dir is not None and self.client is not None and self._hook:
            with contextlib.suppress(Exception):
                await within(self.client.sandbox.detach_webhook(self._hook), 1.0)

        async def close(closing: Awaitable[None]) -> None:
            # Shutting down: nothing useful to tell the user any more.
            with contextlib.suppress(Exception):
                await closing

        closings: list[Awaitable[None]] = []
        if self.client is not None:
            closings.append(self.client.aclose())
        if self.listener is not None:
            closings.append(self.listener.stop())
        if self.sandbox is not None:
            closings.append(self.sandbox.stop())
        # Each on its own and all at once: quitting waits for the slowest, not for the sum.
        await asyncio.gather(*(close(closing) for closing in closings))
        if self._claimed is not None:
            os.close(self._claimed[1])  # the journal is closed: another payscope may take it
            self._claimed = None
