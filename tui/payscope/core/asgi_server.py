"""Run an ASGI application with uvicorn inside the caller's event loop.

The sandbox and the listener both run in-process under the TUI (and in tests), so the server
must not install signal handlers (the app owns Ctrl+C) and must report the port it actually
bound when asked for port 0. Standalone commands (`payscope sandbox`) use `serve_forever`,
which does handle Ctrl+C itself.

uvicorn is driven through `Config` and `Server`, as documented; what is overridden stays for a
reason `bench/uvicorn_overrides.py` measures against uvicorn as it ships (figures in
`bench/results/uvicorn_overrides.json`):
- `_QuietServer.main_loop` and `shutdown`: an idle uvicorn takes 0.1-0.2 s to stop (it polls
  `should_exit` every 0.1 s and sleeps 0.1 s after closing its connections); the TUI stops its
  sandbox and listener on every quit.
- `LimitedHttpToolsProtocol`: httptools bounds neither a request head's size nor its time, so a
  few long header lines grow the server by their size and slow senders hold connections open
  for ever; here they are answered 431 or 408 and closed.
- `_QuietServer.capture_signals`: embedded, the host application owns the signals.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import uvicorn

# What `uvicorn.Config.load` imports when a server starts, loaded with this module instead
# (the app imports it off its loop, before starting its listener).
import uvicorn.lifespan.on
import uvicorn.protocols.websockets.auto
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from payscope.core.waiting import wait_or_wake, within

# The most bytes a request line plus its headers may take; past it the answer is 431 and the
# connection is closed. httptools itself has no limit: it would buffer a 200 MiB header line.
MAX_HEAD_BYTES = 64 * 1024
_REFUSED_LINGER = 2.0
# How often a stopping server looks whether its in-flight requests are done.
_DRAIN_POLL = 0.005
# The ASGI scope extension by which an app closes the connection without answering: its value's
# "drop" is a function of no arguments (see `LimitedHttpToolsProtocol`).
DROP_CONNECTION = "payscope.drop_connection"


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a bound on the request head (request line + headers).

    The bytes received while a head is still incomplete are counted (from the chunk after the
    one that began it, so the bound is `MAX_HEAD_BYTES` plus one read); past the bound the
    request is answered 431 and the connection closed, before httptools buffers any more.
    Until it closes (`_REFUSED_LINGER` seconds at most) what still arrives is read and dropped:
    closing on unread data would send a reset that can destroy the 431 before it is read.

    Slow senders: a head must arrive within `head_timeout` seconds (of the connection, or of
    its first byte for the next request on it; 408 and closed otherwise), a body within
    `body_timeout` of its head (closed otherwise: the app sees the client gone). Past
    `max_connections` open connections a new one is answered 503 and closed. (uvicorn's own
    `limit_concurrency` would answer 503 to every request, legitimate ones too, while slow
    connections fill it; these bounds free the slots instead.)

    Dropped connections: every request's scope carries `extensions[DROP_CONNECTION]["drop"]`, a
    function that closes the connection at once without a byte of answer (no status line), as a
    network failure would; the app then returns without sending anything (the sandbox's faults).
    """

    head_timeout = 10.0
    body_timeout = 30.0
    max_connections = 4096

    _head_bytes: int | None = 0
    _in_body = False
    _refused = False
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            self._answer_and_close(b"503 Service Unavailable", b"too many open connections")
            return
        self._deadline = self.loop.call_later(self.head_timeout, self._too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)

    # The deadlines of the next requests on a connection are armed only when a read ends with
    # a head or a body incomplete: a request that arrives whole (the usual case) costs no timer.
    def on_message_begin(self) -> None:
        self._head_bytes = 0
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        self._head_bytes = None
        self._in_body = True
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().on_headers_complete()
        cycle = self.cycle
        # The cycle's task has not run yet: what the scope gains here, the app sees.
        if cycle is not None and cycle.scope is self.scope:
            transport = self.transport

            def drop() -> None:
                cycle.disconnected = True  # uvicorn owes no answer (no 500) when the app returns
                transport.close()

            self.scope.setdefault("extensions", {})[DROP_CONNECTION] = {"drop": drop}

    def on_message_complete(self) -> None:
        self._in_body = False
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().on_message_complete()

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._head_bytes is not None:  # no request started yet: say why it ends
            message = f"request head not received within {self.head_timeout:g} s".encode()
            self._answer_and_close(b"408 Request Timeout", message)
        else:  # the app is waiting for the body: it sees the client gone
            self.transport.close()

    def _answer_and_close(self, status: bytes, message: bytes) -> None:
        self.transport.write(
            b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(message)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + message
        )
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._head_bytes is not None:
            self._head_bytes += len(data)
        super().data_received(data)
        # Checked after parsing: a chunk that completes the head (with a body behind it) is
        # never held against it.
        head = self._head_bytes
        if head is not None and head > MAX_HEAD_BYTES and not self.transport.is_closing():
            self._refuse_head()
        elif self._deadline is None and not self._refused:
            if head is not None:
                self._deadline = self.loop.call_later(self.head_timeout, self._too_slow)
            elif self._in_body:
                self._deadline = self.loop.call_later(self.body_timeout, self._too_slow)

    def _refuse_head(self) -> None:
        message = f"request line and headers larger than {MAX_HEAD_BYTES} bytes; not read".encode()
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(message)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + message
        )
        self._refused = True
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(_REFUSED_LINGER, self.transport.close)


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
            await wait_or_wake(self._wake, 0.1)
            should_exit = await self.on_tick(counter)

    def wake(self) -> None:
        wake = getattr(self, "_wake", None)
        if wake is not None:
            wake.set()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # uvicorn's own shutdown, but its waits end when there is nothing left to wait for:
        # uvicorn sleeps a fixed 0.1 s after asking the connections to close, then looks again
        # every 0.1 s, so every stop (and every quit of the TUI) would take 0.1 s even when idle.
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        try:
            await within(self._wait_drained(), self.config.timeout_graceful_shutdown)
        except TimeoutError:
            for task in self.server_state.tasks:
                task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        if not self.force_exit:
            await self.lifespan.shutdown()

    async def _wait_drained(self) -> None:
        """Until in-flight requests are answered and their connections closed."""
        state = self.server_state
        # At least one pass of the loop: idle connections just told to close go away in it.
        await asyncio.sleep(0)
        while (state.connections or state.tasks) and not self.force_exit:
            await asyncio.sleep(_DRAIN_POLL)
        for server in self.servers:
            await server.wait_closed()


class EmbeddedServer:
    """A uvicorn server bound to a socket we opened ourselves, started as a task."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, **config: Any) -> None:
        self.app = app
        self.host = host
        self.requested_port = port
        self._config_kwargs = {
            "log_level": "warning",
            # uvicorn's own logging config puts new handlers on its loggers, bound to the
            # sys.stderr of the moment: in the TUI, Textual's capture of the running app,
            # which they kept alive after it quit. Without it, uvicorn's warnings go where
            # every other module's do (Python's last-resort handler: stderr when they happen).
            "log_config": None,
            "access_log": False,
            "lifespan": "on",
            "http": LimitedHttpToolsProtocol,
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
        http=LimitedHttpToolsProtocol,
        **config,
    )
