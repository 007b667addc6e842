"""Run an ASGI application with uvicorn inside the caller's event loop.

The sandbox and the listener both run in-process under the TUI (and in tests), so the server
must not install signal handlers (the app owns Ctrl+C) and must report the port it actually
bound when asked for port 0. Standalone commands (`payscope sandbox`) use `serve_forever`,
which does handle Ctrl+C itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import uvicorn


class _QuietServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # The host application owns the signals; uvicorn must not replace its handlers.
        yield

    async def main_loop(self) -> None:
        # uvicorn's loop sleeps 0.1 s between looks at `should_exit`; here `wake()` ends the
        # wait at once, so stopping (and so quitting the TUI) does not wait for the next tick.
        self._wake = asyncio.Event()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.1)
            should_exit = await self.on_tick(counter)

    def wake(self) -> None:
        wake = getattr(self, "_wake", None)
        if wake is not None:
            wake.set()


class EmbeddedServer:
    """A uvicorn server bound to a socket we opened ourselves, started as a task."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, **config: Any) -> None:
        self.app = app
        self.host = host
        self.requested_port = port
        self._config_kwargs = {
            "log_level": "warning",
            "access_log": False,
            "lifespan": "on",
            "http": "httptools",
            "loop": "none",
            **config,
        }
        self._server: _QuietServer | None = None
        self._task: asyncio.Task[None] | None = None
        self._sock: socket.socket | None = None
        self.port: int = 0

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def bind(self) -> int:
        """Open the listening socket now (raises OSError if the port is taken)."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        # IPPROTO_TCP explicitly: asyncio only turns Nagle off on accepted sockets whose proto
        # says TCP, and without it every small response waits ~40 ms for a delayed ACK.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((self.host, self.requested_port))
        except OSError:
            sock.close()
            raise
        sock.listen(2048)
        sock.setblocking(False)
        self._sock = sock
        self.port = sock.getsockname()[1]
        return self.port

    async def start(self) -> str:
        """Bind (if not yet bound), start serving, and return the base URL once it accepts."""
        if self._sock is None:
            self.bind()
        config = uvicorn.Config(self.app, **self._config_kwargs)
        self._server = _QuietServer(config)
        assert self._sock is not None
        self._task = asyncio.create_task(self._server.serve(sockets=[self._sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()  # re-raise why it stopped
                raise RuntimeError("the server stopped before it started")
            await asyncio.sleep(0.005)
        return self.url

    async def stop(self) -> None:
        """Stop accepting, let in-flight requests finish, run the lifespan shutdown."""
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        self._server.wake()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._server = None
        self._task = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def serve_forever(app: Any, host: str, port: int, **config: Any) -> None:
    """Run `app` in the foreground until Ctrl+C (uvicorn's own signal handling)."""
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=config.pop("log_level", "warning"),
        access_log=False,
        http="httptools",
        **config,
    )
