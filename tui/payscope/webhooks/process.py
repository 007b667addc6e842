"""The webhook listener in a process of its own, and the TUI's end of it.

Why a process: a thread is not enough. The TUI's process draws, and on a long live feed its
cyclic garbage collector stops every thread of the process for long pauses, and a listener in
a thread makes its acknowledgements wait for them (the acknowledgement figures are
`bench/live_feed.py`'s, in `bench/results/live_feed.json`).
In a child process the listener has its own interpreter, heap and collector, and answers while
the TUI draws or collects. The TUI reads what it received from the same journal (SQLite, WAL:
one writer, any number of readers) and is told of each delivery over a pipe.

    listener = ListenerProcess(data_dir, secrets=[...], max_age=None)
    url = await listener.start("127.0.0.1", 0)        # the child serves; its URL
    listener.add_subscriber(callback)                  # as `Listener.add_subscriber`
    listener.journal.recent(50)                        # reads the child's journal
    record = await listener.replay(event_id, url)      # the child re-POSTs it
    listener.secrets = [new_secret]                    # the child verifies with these now
    await listener.stop()

The protocol, one JSON object per line. The parent writes to the child's stdin: first its
settings (the secrets with them: never in the command line or the environment, which `ps`
shows), then commands (`secrets`, `replay`, `stop`). The child writes to its stdout: `ready`
(or `error`) once, then a `delivery` per attempt (after the journal committed it), and the
`reply` to each replay. The child stops when its stdin ends: the TUI quit, or died, and no
listener outlives it. A slow reader never holds up an acknowledgement: the child's subscriber
queue is bounded and drops the oldest (the journal still has every attempt).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import orjson

from payscope.core import gc_pause
from payscope.core.forward_urls import InvalidForwardUrl
from payscope.core.waiting import within
from payscope.webhooks.checks import DEFAULT_MAX_AGE, checked_max_age, checked_secrets
from payscope.webhooks.deliveries import SUBSCRIBER_QUEUE_SIZE, Delivery, ListenerStats, Publisher
from payscope.webhooks.forward import NoForwardTarget
from payscope.webhooks.journal import Journal
from payscope.webhooks.listener import Listener, ListenerError
from payscope.webhooks.records import ForwardRecord

log = logging.getLogger("payscope.listener")

# How long the child may take to import and bind before the start is called failed.
START_TIMEOUT = 20.0
# How many times a minute a child that ended unasked is started again.
RESTARTS = 3
# A replay waits at most the forwarder's timeout (10 s) and this much more for its answer.
REPLAY_MARGIN = 5.0
# Past this many bytes of lines not yet read, the child waits to write more (its subscriber
# queue fills meanwhile, then drops its oldest: acknowledgements never wait for the TUI).
PIPE_LIMIT = 64 * 1024 * 1024


def delivery_to_wire(delivery: Delivery) -> dict[str, Any]:
    """A delivery as JSON-ready values (the body as base64: it is bytes, any bytes)."""
    wire = {part.name: getattr(delivery, part.name) for part in fields(Delivery)}
    wire["body"] = base64.b64encode(delivery.body).decode("ascii")
    return wire


def delivery_from_wire(wire: dict[str, Any]) -> Delivery:
    """The delivery `delivery_to_wire` wrote."""
    values = dict(wire)
    values["body"] = base64.b64decode(values["body"])
    return Delivery(**values)


class ListenerProcess(Publisher):
    """A listener serving from a child process; the same reading API as `Listener` (see the
    module docstring). `start` raises `ListenerError` saying what went wrong."""

    def __init__(
        self,
        data_dir: Path,
        secrets: Sequence[str] | None = None,
        *,
        max_age: float | None = DEFAULT_MAX_AGE,
    ) -> None:
        super().__init__()
        self.data_dir = Path(data_dir)
        self.max_age = checked_max_age(max_age)
        self._secrets = checked_secrets(secrets)
        # Read here, written by the child (never opened here: no writer thread of this side).
        self.journal = Journal(self.data_dir)
        self.stats = ListenerStats()
        self.url: str | None = None
        self.port: int | None = None
        self.pid: int | None = None
        # Why the child stopped serving when nobody asked it to ("" while it serves).
        self.problem = ""
        # Told (one sentence for a person) when the child ends unasked and is started again, or
        # cannot be: the TUI shows it (`Runtime.notices`).
        self.on_notice: Callable[[str], object] | None = None
        self._host = "127.0.0.1"
        self._restarts: list[float] = []
        self._child: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._errors: asyncio.Task[None] | None = None
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._next_reply = 1
        self._stopping = False

    # -- settings ----------------------------------------------------------------------------

    @property
    def secrets(self) -> tuple[str, ...]:
        """The accepted signing secrets (never log them)."""
        return self._secrets

    @secrets.setter
    def secrets(self, value: Sequence[str]) -> None:
        self._secrets = tuple(value)
        self._tell({"secrets": list(self._secrets)})

    def forward_target(self, event_type: str | None) -> str | None:
        """Where forwarding sends an event of this type: nowhere (the TUI's listener does not
        forward; a replay names its URL)."""
        return None

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(
        self, host: str = "127.0.0.1", port: int = 0, *, fallback_to_free_port: bool = True
    ) -> str:
        """Start the child and wait until it serves; the URL of its POST /webhooks."""
        self._host = host
        settings = {
            "directory": str(self.data_dir),
            "secrets": list(self._secrets),
            "max_age": self.max_age,
            "host": host,
            "port": port,
            "fallback": fallback_to_free_port,
        }
        try:
            child = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "payscope.webhooks.process",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=PIPE_LIMIT,
                start_new_session=True,  # Ctrl+C in the terminal is the TUI's, not the child's
            )
        except OSError as exc:
            raise ListenerError(f"cannot start the webhook listener's process: {exc}") from exc
        self._child, self.pid = child, child.pid
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(orjson.dumps(settings) + b"\n")
        try:
            first = await within(child.stdout.readline(), START_TIMEOUT)
        except TimeoutError:
            await self._end_child()
            raise ListenerError(
                f"the webhook listener did not start within {START_TIMEOUT:.0f} s; "
                "the machine may be very busy: try again (Ctrl+R)"
            ) from None
        except asyncio.CancelledError:  # stopped while starting: no child is left behind
            await self._end_child()
            raise
        answer = _parse_line(first)
        if answer is None or "ready" not in answer:
            told = answer.get("error") if answer else None
            if not told:
                told = await self._stderr_tail(child)
            await self._end_child()
            raise ListenerError(str(told or "the webhook listener's process ended at start"))
        self.url, self.port = answer["ready"], answer["port"]
        moved = answer.get("moved_aside")
        self.journal.moved_aside = Path(moved) if moved else None
        self._reader = asyncio.create_task(self._read(child.stdout))
        assert child.stderr is not None
        self._errors = asyncio.create_task(self._log_errors(child.stderr))
        return self.url

    async def stop(self, forward_grace: float = 2.0) -> None:
        """Ask the child to stop (it answers what it has, then exits); end the subscriptions."""
        self._stopping = True
        self._tell({"stop": forward_grace})
        await self._end_child(wait=forward_grace + 5.0)
        for task in (self._reader, self._errors):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._reader = self._errors = None
        for reply in self._replies.values():
            if not reply.done():
                reply.set_exception(ListenerError("the webhook listener stopped"))
        self._replies.clear()
        await self._end_subscriptions()
        self.journal.close()
        self.url = None

    async def _end_child(self, wait: float = 5.0) -> None:
        """Close the child's stdin (it stops at the end of it) and wait; kill it past `wait`:
        it is this object's own child (its `Process`), never a pid read from anywhere."""
        child = self._child
        if child is None:
            return
        if child.stdin is not None and not child.stdin.is_closing():
            child.stdin.close()
        try:
            await within(child.wait(), wait)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                child.kill()
            await child.wait()
        self._child = None

    # -- replay ------------------------------------------------------------------------------

    async def replay(self, event_id: str, url: str | None = None) -> ForwardRecord:
        """Re-POST a journaled event, as `Listener.replay` (the child sends it and journals
        the outcome); raises what it raises."""
        number = self._next_reply
        self._next_reply += 1
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[number] = answer
        if not self._tell({"replay": event_id, "url": url, "reply": number}):
            self._replies.pop(number, None)
            raise ListenerError(self.problem or "the webhook listener is not running")
        try:
            reply = await within(answer, 10.0 + REPLAY_MARGIN)
        except TimeoutError:
            raise ListenerError(f"the listener did not answer about replaying {event_id}") from None
        finally:
            self._replies.pop(number, None)
        kind, message = reply.get("error"), str(reply.get("message", ""))
        if kind == "lookup":
            raise LookupError(message)
        if kind == "no_target":
            raise NoForwardTarget(event_id)
        if kind == "invalid_url":
            raise InvalidForwardUrl(str(url), message)
        if kind is not None:
            raise ListenerError(message)
        return ForwardRecord(**reply["record"])

    # -- the pipes ---------------------------------------------------------------------------

    def _tell(self, command: dict[str, Any]) -> bool:
        child = self._child
        if child is None or child.stdin is None or child.stdin.is_closing():
            return False
        child.stdin.write(orjson.dumps(command) + b"\n")
        return True

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        while line := await stdout.readline():
            message = _parse_line(line)
            if message is None:
                continue
            if "delivery" in message:
                self.stats = ListenerStats(*message["stats"])
                delivery = delivery_from_wire(message["delivery"])
                for sub in list(self._subscriptions):
                    sub.offer(delivery)
            elif "reply" in message:
                answer = self._replies.get(message["reply"])
                if answer is not None and not answer.done():
                    answer.set_result(message)
        if not self._stopping:
            await self._started_again()

    async def _started_again(self) -> None:
        """The child ended unasked (killed, crashed): start another on the same port, so the
        URL the sender was given still works; at most `RESTARTS` times a minute."""
        child = self._child
        code = await child.wait() if child is not None else None
        self._child = None
        ended = f"The webhook listener's process ended (exit code {code})"
        now = time.monotonic()
        self._restarts = [t for t in self._restarts if now - t < 60.0] + [now]
        if len(self._restarts) > RESTARTS:
            self.problem = (
                f"{ended} {RESTARTS + 1} times within a minute, so it was not started again: "
                "webhooks are not received. Quit and start payscope again."
            )
        else:
            port = self.port or 0
            try:
                await self.start(self._host, port, fallback_to_free_port=False)
            except ListenerError as exc:
                self.problem = f"{ended} and could not be started again: {exc}"
            else:
                self._tell_user(f"{ended}; it was started again on the same port.")
                return
        log.error(self.problem)
        self._tell_user(self.problem)

    def _tell_user(self, text: str) -> None:
        if self.on_notice is not None:
            self.on_notice(text)

    async def _log_errors(self, stderr: asyncio.StreamReader) -> None:
        while line := await stderr.readline():
            log.warning("listener process: %s", line.decode("utf-8", "replace").rstrip())

    @staticmethod
    async def _stderr_tail(child: asyncio.subprocess.Process) -> str:
        if child.stderr is None:
            return ""
        with contextlib.suppress(TimeoutError):
            text = await within(child.stderr.read(), 5.0)
            lines = text.decode("utf-8", "replace").strip().splitlines()
            return lines[-1] if lines else ""
        return ""


def _parse_line(line: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


# -- the child ---------------------------------------------------------------------------------


async def _serve() -> int:
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader(limit=PIPE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    # A StreamReaderProtocol for its flow control (`drain`); nothing is read through it.
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), sys.stdout
    )
    stdout = asyncio.StreamWriter(transport, protocol, None, loop)

    def say(message: dict[str, Any]) -> None:
        stdout.write(orjson.dumps(message) + b"\n")

    settings = _parse_line(await stdin.readline())
    if settings is None:
        return 2  # started by hand: nothing to serve
    try:
        listener = Listener(
            Path(settings["directory"]), settings["secrets"], max_age=settings["max_age"]
        )
        url = await listener.start(
            settings["host"], settings["port"], fallback_to_free_port=settings["fallback"]
        )
    except (ListenerError, ValueError) as exc:
        say({"error": str(exc)})
        await stdout.drain()
        return 1

    gc_pause.resume(freeze=True)  # its modules are never garbage (tui/payscope/core/gc_pause.py)
    moved = listener.journal.moved_aside
    say({"ready": url, "port": listener.port, "moved_aside": str(moved) if moved else None})

    async def tell(delivery: Delivery) -> None:
        say(
            {"delivery": delivery_to_wire(delivery), "stats": list(asdict(listener.stats).values())}
        )
        await stdout.drain()

    listener.add_subscriber(tell, maxsize=SUBSCRIBER_QUEUE_SIZE)
    replies: set[asyncio.Task[None]] = set()

    async def replay(event_id: str, url: str | None, number: int) -> None:
        try:
            record = await listener.replay(event_id, url)
        except LookupError as exc:
            say({"reply": number, "error": "lookup", "message": str(exc)})
        except NoForwardTarget as exc:
            say({"reply": number, "error": "no_target", "message": str(exc)})
        except InvalidForwardUrl as exc:
            say({"reply": number, "error": "invalid_url", "message": exc.problem})
        except Exception as exc:  # said to the TUI, which shows it; the listener goes on
            say({"reply": number, "error": "failed", "message": f"the replay failed: {exc}"})
        else:
            say({"reply": number, "record": asdict(record)})

    grace = 2.0
    while line := await stdin.readline():
        command = _parse_line(line)
        if command is None:
            continue
        if "secrets" in command:
            listener.secrets = command["secrets"]
        elif "replay" in command:
            task = loop.create_task(replay(command["replay"], command["url"], command["reply"]))
            replies.add(task)
            task.add_done_callback(replies.discard)
        elif "stop" in command:
            grace = float(command["stop"])
            break
    await listener.stop(forward_grace=grace)
    with contextlib.suppress(ConnectionError):
        await stdout.drain()
    return 0


def main() -> None:
    """`python -m payscope.webhooks.process`: the child (started by `ListenerProcess` only)."""
    gc_pause.pause()  # until it serves
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(asyncio.run(_serve()))


if __name__ == "__main__":
    main()
