"""`payscope listen` at work: the webhook listener in the foreground, one line per delivery
(the output formats: `payscope.cli.listen`). Imported only when the subcommand runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import os
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import platformdirs

from payscope.api.terminal import safe_json, safe_text, say
from payscope.api.vocabulary import counted
from payscope.core import gc_pause
from payscope.core import secrets as keystore
from payscope.core.forward_urls import url_problem
from payscope.core.hosts import is_loopback_host as is_loopback
from payscope.core.private_files import SecretFileError, read_secret_lines
from payscope.webhooks.checks import DEFAULT_MAX_AGE
from payscope.webhooks.listener import DEFAULT_PORT, Listener, ListenerError
from payscope.webhooks.records import FORWARD_DELIVERED, FORWARD_FAILED
from payscope.webhooks.secret_store import generate_secret, mask

if TYPE_CHECKING:
    from payscope.webhooks.deliveries import Delivery
    from payscope.webhooks.records import ForwardOutcome

SECRET_ENV = "PAYSCOPE_WEBHOOK_SECRET"
KEYRING_PROFILE = "listener"


def default_data_dir() -> Path:
    """`<PAYSCOPE_DATA_DIR or the platform data dir>/listener`."""
    try:
        config: Any = importlib.import_module("payscope.core.config")
        base = Path(config.data_dir())
    except (ImportError, AttributeError, TypeError):
        env = os.environ.get("PAYSCOPE_DATA_DIR")
        base = Path(env).expanduser() if env else Path(platformdirs.user_data_dir("payscope"))
    return base / "listener"


def _shown(value: str | None, missing: str) -> str:
    """`value` safe for one terminal line: control characters (escape sequences, newlines)
    and bidi controls from a sender's body are shown escaped (`payscope.api.terminal`), never
    interpreted by the terminal."""
    if value is None:
        return missing
    return safe_text(value, one_line=True)


def format_text(d: Delivery) -> str:
    """One readable line: time, ✓/✗, event type, object id, status, duplicates or reason."""

    clock = datetime.fromtimestamp(d.received_at).strftime("%H:%M:%S")
    if not d.accepted:
        return f"{clock}  ✗ {d.status}  {_shown(d.reason, '')}"
    line = (
        f"{clock}  ✓ {_shown(d.event_type, '?'):<22} {_shown(d.object_id, '-'):<28} "
        f"{_shown(d.object_status, '-'):<20} {_shown(d.event_id, '')}"
    )
    if d.duplicate:
        line += f"  duplicate x{d.duplicate_count}"
    return line


def format_json(d: Delivery) -> str:
    """One JSON object (no newline inside) describing the delivery."""

    record: dict[str, Any] = {
        "received_at": datetime.fromtimestamp(d.received_at, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
        "event_id": d.event_id,
        "event_type": d.event_type,
        "object_id": d.object_id,
        "status": d.object_status,
        "verified": d.verified and d.accepted,
        "duplicate": d.duplicate,
        "duplicate_count": d.duplicate_count,
        "http_status": d.status,
    }
    if not d.accepted:
        record["reason"] = d.reason
    return safe_json(record)  # JSON, with no raw control or bidi character in it


def _iso(ts: float) -> str:

    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _forward_shown(outcome: ForwardOutcome) -> str:
    """The forward's state as printed: delivered, retrying (a retry is scheduled) or failed."""

    if outcome.state == FORWARD_DELIVERED:
        return "delivered"
    return "failed" if outcome.state == FORWARD_FAILED else "retrying"


def format_forward_text(outcome: ForwardOutcome) -> str:
    """One readable line for a forward attempt: time, state, event, answer or error, latency."""

    f = outcome.record
    clock = datetime.fromtimestamp(f.sent_at).strftime("%H:%M:%S")
    took = f" in {f.latency_ms:.0f} ms" if f.latency_ms is not None else ""
    answer = f"HTTP {f.status}" if f.status is not None else _shown(f.error, "no answer")
    line = (
        f"{clock}  → forward {_shown(f.event_id, '')} to {_shown(f.url, '')}: {answer}{took}, "
        f"attempt {outcome.attempts}"
    )
    shown = _forward_shown(outcome)
    if shown == "retrying" and outcome.next_at is not None:
        wait = max(0.0, outcome.next_at - f.sent_at)
        line += f"; retry in {wait:.0f} s"
    elif shown == "failed":
        line += "; gave up (replay it from the journal)"
    return f"{line}  [{shown}]"


def format_forward_json(outcome: ForwardOutcome) -> str:
    """One JSON object (no newline inside) describing a forward attempt."""
    f = outcome.record
    record = {
        "event_id": f.event_id,
        "forward": {
            "state": _forward_shown(outcome),
            "url": f.url,
            "attempt": outcome.attempts,
            "sent_at": _iso(f.sent_at),
            "http_status": f.status,
            "error": f.error,
            "latency_ms": None if f.latency_ms is None else round(f.latency_ms, 1),
            "next_attempt_at": None if outcome.next_at is None else _iso(outcome.next_at),
            # The handler's answer (its first 64 KiB): what it said, not only its status.
            "headers": f.headers,
            "body": f.body,
        },
    }
    return safe_json(record)  # JSON, with no raw control or bidi character in it


class SecretUnavailable(Exception):
    """No secret was given and the keyring cannot hold one."""


def resolve_secrets(given: list[str] | None, err: TextIO) -> tuple[list[str], str]:
    """The secrets to verify with, and where they came from: `--secret` values, else
    `PAYSCOPE_WEBHOOK_SECRET`, else the one kept in the OS keyring (generated and stored there
    on first use). Never a file."""

    if given:
        return given, "--secret"
    env = os.environ.get(SECRET_ENV, "").strip()
    if env:
        return [env], SECRET_ENV
    keyring_source = "OS keyring; --print-secret shows it"

    try:
        stored = keystore.get_secret(KEYRING_PROFILE, "webhook")
        if stored:
            return [stored], keyring_source
        value = generate_secret()
        keystore.set_secret(KEYRING_PROFILE, value, "webhook")
    except keystore.SecretsError as exc:
        # The listener's own ways round it: the API key's (PAYSCOPE_API_KEY) are not for it.
        reason = exc.reason if isinstance(exc, keystore.KeyringUnavailable) else str(exc)
        raise SecretUnavailable(
            "no signing secret given and the OS keyring cannot keep one.\n"
            f"  keyring problem: {reason}\n"
            "To fix it, either:\n"
            "  - pass it for this run:   payscope listen --secret-file PATH   (or set "
            f"{SECRET_ENV}, or --secret S, which `ps` shows)\n"
            f"{keystore.KEYRING_SETUP}\n"
            "  (docs/webhooks.md explains the secret; docs/configuration.md#a-headless-linux-box "
            "the keyring)"
        ) from exc
    say(
        f"payscope listen: generated a new signing secret and stored it in the OS keyring "
        f"(payscope keys show --profile {KEYRING_PROFILE} --kind webhook)",
        file=err,
    )
    return [value], keyring_source


def run(args: argparse.Namespace) -> int:
    """Entry point for `payscope listen` (arguments parsed by payscope.cli)."""

    err = sys.stderr
    data_dir = Path(args.data).expanduser() if args.data else default_data_dir()
    secrets: list[str] | None = args.secret or None
    if secrets and any(not s.strip() for s in secrets):
        say("payscope listen: --secret cannot be empty", file=err)
        return 2
    secret_file: str | None = getattr(args, "secret_file", None)
    if secret_file is not None:
        # Not on the command line, so not in `ps`: one secret per line, `-` = standard input.
        try:
            secrets = [*(secrets or []), *read_secret_lines(secret_file, "--secret-file")]
        except SecretFileError as exc:
            say(f"payscope listen: {exc}", file=err)
            return 2
    problem = url_problem(args.forward_to) if args.forward_to else None
    if problem is not None:
        say(f"payscope listen: --forward-to: {problem}", file=err)
        return 2
    try:
        secrets, source = resolve_secrets(secrets, err)
        if secret_file is not None:
            source = "--secret and --secret-file" if args.secret else "--secret-file"
    except SecretUnavailable as exc:
        say(f"payscope listen: {exc}", file=err)
        return 1
    if args.print_secret:
        for value in secrets:
            print(value)  # exactly: a script reads it
        return 0
    try:
        return asyncio.run(_serve(args, data_dir, secrets, source, sys.stdout, err))
    except KeyboardInterrupt:
        return 0


async def _serve(
    args: argparse.Namespace,
    data_dir: Path,
    secrets: list[str],
    source: str,
    out: TextIO,
    err: TextIO,
) -> int:

    try:
        listener = Listener(data_dir, secrets, forward_to=args.forward_to, max_age=_max_age(args))
        url = await listener.start(
            args.host, args.port, fallback_to_free_port=args.port == DEFAULT_PORT
        )
    except (ListenerError, OSError, ValueError) as exc:
        say(f"payscope listen: {exc}", file=err)
        return 1

    gc_pause.resume(
        freeze=True
    )  # paused by `payscope` since launch (tui/payscope/core/gc_pause.py)

    # Before the header: once a script has seen the URL, Ctrl+C/SIGTERM must stop cleanly.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)

    as_json = args.format == "json"
    head = err if as_json else out
    if args.port not in (0, listener.port):
        say(
            f"port {args.port} is in use, so the listener took free port {listener.port} instead",
            file=err,
        )
    if not is_loopback(args.host):
        say(
            f"warning: listening on {args.host}: other machines that can reach it may send "
            "requests (signatures are still checked)",
            file=err,
        )
    shown = ", ".join(mask(s) for s in listener.secrets)
    say(f"payscope listener on {url}", file=head)
    say(f"  journal  {listener.journal.path}", file=head)
    if listener.journal.moved_aside is not None:
        say(
            f"note: the journal was damaged, so a fresh one was started; the old one is kept "
            f"at {listener.journal.moved_aside}",
            file=err,
        )
    say(f"  secret   {shown} ({source})", file=head)
    owed = listener.journal.forward_counts()["pending"]
    if args.forward_to:
        resumed = f" ({owed} owed by an earlier run, resumed)" if owed else ""
        say(f"  forward  {args.forward_to}{resumed}", file=head)
    elif owed:
        say(
            f"note: {owed} forwards owed by an earlier run wait in the journal; they are sent "
            "when the listener runs with --forward-to again",
            file=err,
        )
    if listener.max_age is None:
        say("  fresh    not checked (--no-freshness)", file=head)
    else:
        say(f"  fresh    events up to {_duration(listener.max_age)} old", file=head)
    say("Ctrl+C stops.", file=head, flush=True)

    subscription = listener.subscribe(maxsize=10_000)
    formatter = format_json if as_json else format_text
    forward_formatter = format_forward_json if as_json else format_forward_text
    # Forward attempts wait here for the printer (bounded like the subscription: the journal
    # keeps every attempt whatever is dropped from the screen).
    forward_lines: list[str] = []
    forward_ready = asyncio.Event()

    def on_forward(outcome: ForwardOutcome) -> None:
        if len(forward_lines) >= 10_000:
            del forward_lines[0]
        forward_lines.append(forward_formatter(outcome) + "\n")
        forward_ready.set()

    unwatch = listener.forwarder.watch(on_forward)

    def write(lines: list[str]) -> bool:
        try:
            out.write("".join(lines))
            out.flush()
        except BrokenPipeError:
            return False
        return True

    async def printer() -> None:
        # Writes happen in a thread: a terminal or pipe that reads slowly must not freeze the
        # event loop (and with it every acknowledgement). Meanwhile the subscription buffers up
        # to 10,000 deliveries, then drops the oldest (they stay in the journal). One writer
        # for deliveries and forwards alike, so their lines never interleave.
        next_delivery: asyncio.Task[Delivery] | None = None
        ended = False
        while not ended or forward_lines:
            lines: list[str] = []
            if not ended:
                if next_delivery is None:
                    next_delivery = asyncio.ensure_future(anext(subscription, None))  # type: ignore[arg-type]
                forward_wait = asyncio.ensure_future(forward_ready.wait())
                await asyncio.wait(
                    (next_delivery, forward_wait), return_when=asyncio.FIRST_COMPLETED
                )
                forward_wait.cancel()
                if next_delivery.done():
                    delivery = next_delivery.result()
                    next_delivery = None
                    if delivery is None:
                        ended = True
                    else:
                        lines.append(formatter(delivery) + "\n")
                        while not subscription.empty():
                            following = subscription.get_nowait()
                            if following is None:
                                ended = True
                                break
                            lines.append(formatter(following) + "\n")
            forward_ready.clear()
            lines += forward_lines
            forward_lines.clear()
            if lines and not await asyncio.to_thread(write, lines):
                stop.set()  # whoever read our output has gone: stop quietly
                if next_delivery is not None:
                    next_delivery.cancel()
                return

    printing = asyncio.create_task(printer())
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        await listener.stop()
        unwatch()
        await printing
        count = listener.journal.count()
        forwards = ""
        if args.forward_to:
            c = listener.journal.forward_counts()
            forwards = (
                f"; forwards: {c['delivered']} delivered, {c['pending']} owed "
                f"(sent on the next start), {c['failed']} failed"
            )
        listener.journal.close()
        say(
            f"stopped; {counted(count, 'event')} in {listener.journal.path}{forwards}",
            file=err,
            flush=True,
        )
    return 0


def _max_age(args: argparse.Namespace) -> float | None:
    """The freshness window asked for: --no-freshness, --max-age, or the default."""

    if getattr(args, "no_freshness", False):
        return None
    value = getattr(args, "max_age", None)
    return DEFAULT_MAX_AGE if value is None else float(value)


def _duration(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"
