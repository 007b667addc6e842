"""A small HTTP/1.1 client for webhook deliveries: a POST, an answer, keep-alive, nothing else.

httpx cost about 1.6 ms of CPU per delivery here (most of it in its connection pool and its
async layers: 84% of the sandbox's CPU while delivering), which capped delivery near 300
events/s on a core that also serves the API. This does what a webhook POST needs for a small
fraction of that: `http` and `https` (the system's CA store), keep-alive connections per origin
(a stale one is replaced once), answers with `Content-Length`, chunked or read-to-close
bodies (at most 64 KiB read, the rest left unread and the connection closed), interim 1xx
answers skipped, a connect timeout and a timeout for the whole exchange. No proxies, redirects
or compression (the request asks for none).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Mapping
from urllib.parse import urlsplit

_MAX_BODY = 64 * 1024
_MAX_HEAD = 64 * 1024

Origin = tuple[str, str, int]
Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class DeliveryError(Exception):
    """The attempt got no HTTP answer: `kind` (ConnectError, Timeout, ...) and what happened."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind


class Sender:
    """POSTs bodies and reads the answers, reusing connections per origin."""

    def __init__(self, *, connect_timeout: float, timeout: float, max_idle_per_origin: int) -> None:
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self.max_idle = max_idle_per_origin
        self._idle: dict[Origin, list[Connection]] = {}
        self._tls: ssl.SSLContext | None = None

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> tuple[int, str]:
        """(status, answer body as text) or `DeliveryError`."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise DeliveryError("UnsupportedURL", url)
        try:
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError:
            raise DeliveryError("InvalidURL", url) from None
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [
            f"POST {target} HTTP/1.1",
            f"Host: {parts.netloc.rsplit('@', 1)[-1]}",
            f"Content-Length: {len(body)}",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
        try:
            async with asyncio.timeout(self.timeout):
                return await self._exchange((scheme, parts.hostname, port), request)
        except TimeoutError:
            raise DeliveryError("Timeout", f"no whole answer within {self.timeout:g} s") from None

    async def _exchange(self, origin: Origin, request: bytes) -> tuple[int, str]:
        while True:
            conn = self._take_idle(origin)
            reused = conn is not None
            if conn is None:
                conn = await self._connect(origin)
            reader, writer = conn
            try:
                writer.write(request)
                await writer.drain()
                first = await reader.readline()
                if not first:
                    raise ConnectionResetError("the connection was closed before an answer")
                status, keep, text = await _read_answer(first, reader)
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
                writer.close()
                if reused and not isinstance(exc, asyncio.LimitOverrunError):
                    continue  # a kept-alive connection the server had closed: a fresh one
                raise DeliveryError(_kind(exc), str(exc) or type(exc).__name__) from None
            except ValueError as exc:
                writer.close()
                raise DeliveryError("RemoteProtocolError", str(exc)) from None
            except BaseException:
                writer.close()
                raise
            idle = self._idle.setdefault(origin, [])
            if keep and len(idle) < self.max_idle:
                idle.append(conn)
            else:
                writer.close()
            return status, text

    def _take_idle(self, origin: Origin) -> Connection | None:
        idle = self._idle.get(origin)
        while idle:
            reader, writer = idle.pop()
            if reader.at_eof() or writer.is_closing():
                writer.close()
                continue
            return reader, writer
        return None

    async def _connect(self, origin: Origin) -> Connection:
        scheme, host, port = origin
        tls = self._context() if scheme == "https" else None
        try:
            async with asyncio.timeout(self.connect_timeout):
                return await asyncio.open_connection(
                    host, port, ssl=tls, server_hostname=host if tls else None, limit=_MAX_HEAD
                )
        except TimeoutError:
            raise DeliveryError(
                "ConnectTimeout", f"{host}:{port} within {self.connect_timeout:g} s"
            ) from None
        except (OSError, ssl.SSLError) as exc:
            raise DeliveryError("ConnectError", str(exc) or type(exc).__name__) from None

    def _context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = ssl.create_default_context()
        return self._tls

    async def aclose(self) -> None:
        """Close every idle connection."""
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for _, writer in conns:
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()


def _kind(exc: BaseException) -> str:
    if isinstance(exc, asyncio.IncompleteReadError | asyncio.LimitOverrunError):
        return "RemoteProtocolError"
    return "ReadError"


async def _read_answer(first: bytes, reader: asyncio.StreamReader) -> tuple[int, bool, str]:
    """(status, whether the connection may be reused, body text) after the status line."""
    while True:
        version, _, rest = first.partition(b" ")
        code = rest[:3]
        if not version.startswith(b"HTTP/1.") or len(code) != 3 or not code.isdigit():
            raise ValueError(f"not an HTTP/1.x status line: {first[:80]!r}")
        status = int(code)
        close = version == b"HTTP/1.0"
        length: int | None = None
        chunked = False
        size = 0
        while True:
            line = await reader.readline()
            size += len(line)
            if not line or size > _MAX_HEAD:
                raise ValueError("the answer's header was cut short or too long")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == b"content-length":
                length = int(value)
                if length < 0:
                    raise ValueError("negative Content-Length")
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value
            elif name == b"connection":
                if b"close" in value:
                    close = True
                elif b"keep-alive" in value:
                    close = False
        if 100 <= status < 200:  # an interim answer (100 Continue, 103 Early Hints)
            first = await reader.readline()
            if not first:
                raise asyncio.IncompleteReadError(b"", None)
            continue
        break
    if status in (204, 304):
        body = b""
    elif chunked:
        body, whole = await _read_chunked(reader)
        close = close or not whole
    elif length is not None:
        body = await reader.readexactly(min(length, _MAX_BODY))
        close = close or length > _MAX_BODY
    else:
        body = await _read_to_close(reader)
        close = True
    return status, not close, body.decode("utf-8", "replace")


async def _read_chunked(reader: asyncio.StreamReader) -> tuple[bytes, bool]:
    """The body and whether it was read whole (False: it went past `_MAX_BODY`)."""
    parts: list[bytes] = []
    size = 0
    while True:
        line = await reader.readline()
        if not line:
            raise asyncio.IncompleteReadError(b"", None)
        chunk = int(line.split(b";", 1)[0].strip() or b"x", 16)
        if chunk == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(parts), True
        if size + chunk > _MAX_BODY:
            return b"".join(parts), False
        parts.append(await reader.readexactly(chunk))
        size += chunk
        await reader.readexactly(2)


async def _read_to_close(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    size = 0
    while size < _MAX_BODY:
        part = await reader.read(_MAX_BODY - size)
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)
