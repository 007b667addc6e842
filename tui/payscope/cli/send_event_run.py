"""`payscope send-event` at work: compose, sign and send one webhook event, and print the
answer. Imported only when the subcommand runs (`payscope.cli.send_event` parses it)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from payscope.api.terminal import safe_json, safe_text, say
from payscope.core import bounded
from payscope.webhooks import compose


def read_secret(args: argparse.Namespace) -> str | None:
    """The signing secret: --secret-file (- = standard input), else PAYSCOPE_WEBHOOK_SECRET."""
    if getattr(args, "secret_file", None):
        try:
            if args.secret_file == "-":
                text = sys.stdin.read()
            else:
                text = Path(args.secret_file).read_text(encoding="utf-8")
        except OSError as exc:
            problem = f"payscope send-event: --secret-file: {exc.strerror or exc}"
            raise SystemExit(safe_text(problem)) from None
        return text.strip() or None
    return os.environ.get("PAYSCOPE_WEBHOOK_SECRET") or None


def run(args: argparse.Namespace) -> int:
    err = sys.stderr
    if args.file:
        try:
            text = bounded.read_text(args.file)
        except (bounded.TooLarge, UnicodeDecodeError) as exc:
            problem = exc.problem if isinstance(exc, bounded.TooLarge) else "not UTF-8 text"
            say(f"payscope send-event: {args.file}: {problem}", file=err)
            return 2
        except OSError as exc:
            say(f"payscope send-event: {args.file}: {exc.strerror or exc}", file=err)
            return 2
        problem = compose.problems(text)
        if problem:
            say(f"payscope send-event: {args.file}: {problem}", file=err)
            return 2
        body = text.encode("utf-8")  # sent as written: the signature covers these bytes
        if args.type and json.loads(text).get("event_type") != args.type:
            say("payscope send-event: --type differs from the file's event_type", file=err)
            return 2
    elif args.type:
        try:
            event = compose.template(args.type)
        except compose.ComposeError as exc:
            say(f"payscope send-event: {exc}", file=err)
            return 2
        body = json.dumps(event, separators=(",", ":")).encode("utf-8")
    else:
        say("payscope send-event: give --type (the template) or --file (a whole body)", file=err)
        return 2
    secret = read_secret(args)
    if not secret:
        say(
            "payscope send-event: no signing secret: --secret-file PATH (or - for standard "
            "input), or PAYSCOPE_WEBHOOK_SECRET",
            file=err,
        )
        return 2
    try:
        answer = asyncio.run(compose.send(body, args.to, secret, timeout=args.timeout))
    except compose.ComposeError as exc:
        say(f"payscope send-event: {exc}", file=err)
        return 2
    event_id = json.loads(body).get("event_id")
    if args.format == "json":
        print(safe_json({"event_id": event_id, "to": args.to, **answer.to_json()}))
    elif answer.error:
        say(f"{event_id} -> {args.to}: no answer ({answer.error})")
    else:
        say(f"{event_id} -> {args.to}: {answer.status} in {answer.latency_ms:.0f} ms")
        for name, value in answer.headers.items():
            say(f"  {name}: {value}", one_line=True)
        if answer.body:
            say(answer.body + (" [cut at 64 KiB]" if answer.truncated else ""))
    return 0 if answer.ok else 1
