"""A raw HTTP/1.1 server on a loopback port for hostile answers: it writes the bytes it is given,
so nothing between it and payscope normalises them (a header with obs-text bytes 0x80-0xFF, a
reason phrase with them, JSON nested thousands deep, an error message holding escape bytes)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

# What a hostile remote puts in the text it answers with: OSC 52 (sets the clipboard), a BEL,
# CSI 2J (clears the screen), the one-character C1 CSI and OSC, a bidi override and an isolate.
HOSTILE = "pwn\x1b]52;c;aGFja2Vk\x07\x1b[2J\x9b31m\x9d0;title\x9c\u202eevil\u2066x\u2069\x08\r"
# A raw control character as it must never reach a terminal.
RAW_CONTROLS = (
    [chr(c) for c in range(0x20) if c not in (0x09, 0x0A)]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
)


def raw_controls(text: str) -> list[str]:
    """The raw control characters in `text` (what reached the terminal unescaped)."""
    return sorted({c for c in text if c in RAW_CONTROLS})


def envelope(message: str, code: str = "IR_01", type_: str = "invalid_request") -> bytes:
    return json.dumps(
        {"error": {"type": type_, "code": code, "message": message}}, ensure_ascii=False
    ).encode()


@dataclass
class Answer:
    status: int = 200
    body: bytes = b"{}"
    reason: bytes = b"OK"
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)

    def encoded(self) -> bytes:
        lines = [b"HTTP/1.1 %d %s" % (self.status, self.reason)]
        lines += [b"Content-Type: application/json", b"Connection: close"]
        lines += [name + b": " + value for name, value in self.headers]
        lines.append(b"Content-Length: %d" % len(self.body))
        return b"\r\n".join(lines) + b"\r\n\r\n" + self.body


@dataclass
class RawAnswer(Answer):
    """An answer given whole, status line and all, byte for byte."""

    raw: bytes = b""

    def encoded(self) -> bytes:
        return self.raw


@dataclass
class Seen:
    method: str
    path: str
    head: bytes
    body: bytes


@dataclass
class RawServer:
    url: str
    seen: list[Seen]


@asynccontextmanager
async def raw_server(answer: Callable[[Seen], Answer]) -> AsyncIterator[RawServer]:
    """A server on 127.0.0.1 answering each request with `answer(request)`, then closing."""
    seen: list[Seen] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            body = await reader.readexactly(length) if length else b""
            method, path = head.split(b" ")[:2]
            request = Seen(method.decode(), path.decode(), head, body)
            seen.append(request)
            writer.write(answer(request).encoded())
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield RawServer(f"http://127.0.0.1:{port}", seen)
    finally:
        server.close()
        await server.wait_closed()


def deep_json(levels: int) -> bytes:
    return b'{"a":' * levels + b"1" + b"}" * levels


def payment(**fields: Any) -> bytes:
    return json.dumps(
        {"payment_id": "pay_1", "status": "succeeded", "amount": 1000, "currency": "USD", **fields}
    ).encode()
