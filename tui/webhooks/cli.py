"""`payscope listen`: the webhook listener in the foreground, one line per delivery.

Text format (stdout): a header (URL, journal, masked secret), then a readable line per attempt.
JSON format: stdout carries exactly one JSON object per line, flushed each time, so scripts
can follow it; the header and warnings go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import ipaddress
import json
import os
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from tui.webhooks.forward import url_problem
from tui.webhooks.listener import DEFAULT_PORT, Delivery, Listener, ListenerError
from tui.webhooks.secret_store import generate_secret, mask

SECRET_ENV = "PAYSCOPE_WEBHOOK_SECRET"
KEYRING_PROFILE = "listener"


def default_data_dir() -> Path:
    """`<PAYSCOPE_DATA_DIR or the platform data dir>/listener`."""
    try:
        config: Any = importlib.import_module("tui.config")
        base = Path(config.data_dir())
    except (ImportError, AttributeError, TypeError):
        env = os.environ.get("PAYSCOPE_DATA_DIR")
        if env:
            base = Path(env).expanduser()
        else:
            import platformdirs

            base = Path(platformdirs.user_data_dir("payscope"))
    return base / "listener"


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost: addresses other machines cannot reach."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _shown(value: str | None, missing: str) -> str:
    """`value` safe for one terminal line: control characters (escape sequences, newlines)
    from a sender's body are shown escaped, never interpreted by the terminal."""
    if value is None:
        return missing
    if value.isprintable():
        return value
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in value)


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
    return json.dumps(record, ensure_ascii=False)


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
    from tui import secrets as keystore

    try:
        stored = keystore.get_secret(KEYRING_PROFILE, "webhook")
        if stored:
            return [stored], keyring_source
        value = generate_secret()
        keystore.set_secret(KEYRING_PROFILE, value, "webhook")
    except keystore.SecretsError as exc:
        raise SecretUnavailable(
            "no signing secret given and the OS keyring cannot keep one.\n"
            f"  pass it for this run:   payscope listen --secret S   (or set {SECRET_ENV})\n"
            f"  keyring problem: {exc}"
        ) from exc
    print(
        f"payscope listen: generated a new signing secret and stored it in the OS keyring "
        f"(payscope keys show --profile {KEYRING_PROFILE} --kind webhook)",
        file=err,
    )
    return [value], keyring_source


def run(args: argparse.Namespace) -> int:
    """Entry point for `payscope listen` (arguments parsed by tui.cli)."""
    err = sys.stderr
    data_dir = Path(args.data).expanduser() if args.data else default_data_dir()
    secrets: list[str] | None = args.secret or None
    if secrets and any(not s.strip() for s in secrets):
        print("payscope listen: --secret cannot be empty", file=err)
        return 2
    problem = url_problem(args.forward_to) if args.forward_to else None
    if problem is not None:
        print(f"payscope listen: --forward-to: {problem}", file=err)
        return 2
    try:
        secrets, source = resolve_secrets(secrets, err)
    except SecretUnavailable as exc:
        print(f"payscope listen: {exc}", file=err)
        return 1
    if args.print_secret:
        for value in secrets:
            print(value)
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
        listener = Listener(data_dir, secrets, forward_to=args.forward_to)
        url = await listener.start(
            args.host, args.port, fallback_to_free_port=args.port == DEFAULT_PORT
        )
    except (ListenerError, OSError, ValueError) as exc:
        print(f"payscope listen: {exc}", file=err)
        return 1

    # Before the header: once a script has seen the URL, Ctrl+C/SIGTERM must stop cleanly.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)

    as_json = args.format == "json"
    head = err if as_json else out
    if args.port not in (0, listener.port):
        print(
            f"port {args.port} is in use, so the listener took free port {listener.port} instead",
            file=err,
        )
    if not is_loopback(args.host):
        print(
            f"warning: listening on {args.host}: other machines that can reach it may send "
            "requests (signatures are still checked)",
            file=err,
        )
    shown = ", ".join(mask(s) for s in listener.secrets)
    print(f"payscope listener on {url}", file=head)
    print(f"  journal  {listener.journal.path}", file=head)
    print(f"  secret   {shown} ({source})", file=head)
    if args.forward_to:
        print(f"  forward  {args.forward_to}", file=head)
    print("Ctrl+C stops.", file=head, flush=True)

    subscription = listener.subscribe(maxsize=10_000)
    formatter = format_json if as_json else format_text

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
        # to 10,000 deliveries, then drops the oldest (they stay in the journal).
        async for delivery in subscription:
            lines = [formatter(delivery) + "\n"]
            while not subscription.empty():
                following = subscription.get_nowait()
                if following is None:
                    break
                lines.append(formatter(following) + "\n")
            if not await asyncio.to_thread(write, lines):
                stop.set()  # whoever read our output has gone: stop quietly
                return

    printing = asyncio.create_task(printer())
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        await listener.stop()
        await printing
        count = listener.journal.count()
        listener.journal.close()
        print(f"stopped; {count} events in {listener.journal.path}", file=err, flush=True)
    return 0
