"""The `payscope` command line (the contract: docs/getting-started.md, the architecture card).

Only the standard library is imported at module level: each subcommand imports what it needs
when it runs, so `payscope --help` and the TUI's start-up do not pay for the server stack.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from payscope import __version__
from payscope.core.docs import see

DESCRIPTION = """\
payscope: explore a payment processor's sandbox from the terminal.

With no profile configured, payscope starts its own local sandbox of the service (seeded with
demo data) and its built-in webhook listener, so it works offline on a fresh machine.
"""

EPILOG = """\
environment:
  PAYSCOPE_CONFIG_DIR   where profiles.toml lives (default: the platform config dir)
  PAYSCOPE_DATA_DIR     where the sandbox and listener keep their SQLite files
  PAYSCOPE_API_KEY      the secret key for this run only, instead of the OS keyring
  PAYSCOPE_SANDBOX_API_KEY, PAYSCOPE_SANDBOX_WEBHOOK_SECRET
                        payscope sandbox's secret key and signing secret (not in `ps`)
  PAYSCOPE_WEBHOOK_SECRET   payscope listen's signing secret (not in `ps`)

commands:
  payscope sandbox --help   the local service alone (for curl or your own backend)
  payscope listen --help    the webhook listener alone
  payscope keys --help      keys in the OS keyring
  payscope fixtures --help  run your own scenario (a file of API calls)
  payscope export --help    every record a filter matches, to CSV or JSON Lines
  payscope send-event --help  a signed webhook event to any URL, and its answer
  payscope serve --help     the TUI in a browser (textual-serve)
  payscope demo --help      a guided tour that plays itself (developer, support, tour)
  payscope get|post|delete PATH   any path of the service, its JSON answer (-d a=b, --json)
  payscope trigger --list   the TUI's Trigger scenarios, headless
  payscope logs tail        every request any payscope makes on the profile, as it happens
  payscope completion bash|zsh|fish   a shell completion script

docs: docs/ in payscope's source (start with docs/getting-started.md; `make docs` builds the
site into site/)
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=34, width=100)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {value}")
    return value


def _duration(text: str) -> float:
    """Seconds from "90", "90s", "30m", "12h" or "7d" (more than zero)."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    number, unit = (text[:-1], text[-1]) if text[-1:].lower() in units else (text, "s")
    try:
        value = float(number) * units[unit.lower()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a duration like 90s, 30m, 12h or 7d, got {text!r}"
        ) from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a duration above zero, got {text!r}")
    return value


def _port(text: str) -> int:
    value = _positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, got {value}")
    return value


def _bounded(text: str, low: float, high: float, expected: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
    return value


def _rate(text: str) -> float:
    return _bounded(text, 0.0, 1.0, "a number between 0 and 1")


def _pace(text: str) -> float:
    return _bounded(
        text, 0.05, 100.0, "a pace from 0.05 to 100 (1.0 is as written, 2 is twice as fast)"
    )


def _bind_options(parser: argparse.ArgumentParser, port: int) -> None:
    """--host (loopback by default) and --port of a command that serves."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=port, help=f"port (default {port})")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="payscope", description=DESCRIPTION, epilog=EPILOG, formatter_class=_Formatter
    )
    parser.add_argument("--version", action="version", version=f"payscope {__version__}")
    parser.add_argument(
        "--profile", metavar="NAME", help="open a configured profile (a remote sandbox)"
    )
    parser.add_argument(
        "--seed",
        type=_positive_int,
        metavar="N",
        default=None,
        help="demo payments written on the embedded sandbox's first run (default 300)",
    )
    parser.add_argument(
        "--theme", metavar="NAME", help="theme for this run (default: the profile's, or dark)"
    )
    parser.add_argument(
        "--allow-production",
        action="store_true",
        help="accept a production (prd_) key; refused otherwise",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="offer no action that writes, and refuse every call that writes (browse, export)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sandbox = sub.add_parser(
        "sandbox",
        epilog=see("sandbox"),
        help="run the local sandbox of the service alone",
        description="Run the local, stateful sandbox of the payment service. It prints the base "
        "URL, ids, keys and webhook secret you need; Ctrl+C stops it cleanly.",
        formatter_class=_Formatter,
    )
    sandbox.add_argument(
        "action",
        nargs="?",
        choices=("status", "stop", "reset"),
        help="status: the background sandbox the TUI keeps (URL, pid, state); stop: stop it; "
        "reset: bring back the seeded demo data and the clock (keys stay). "
        "Without one, run a sandbox in this terminal",
    )
    sandbox.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sandbox.add_argument("--port", type=_port, default=8080, help="port (default 8080; 0 = free)")
    sandbox.add_argument("--data", metavar="DIR", help="state directory (default: the data dir)")
    sandbox.add_argument(
        "--seed", type=_positive_int, metavar="N", default=0, help="write N demo payments first"
    )
    sandbox.add_argument(
        "--api-key",
        metavar="snd_...",
        help="fix the secret key; other local users see it in `ps`, so prefer --api-key-file "
        "or PAYSCOPE_SANDBOX_API_KEY",
    )
    sandbox.add_argument(
        "--api-key-file",
        metavar="PATH",
        help="read the secret key from PATH (- = standard input); or set PAYSCOPE_SANDBOX_API_KEY",
    )
    sandbox.add_argument("--merchant-id", metavar="ID", help="fix the merchant id")
    sandbox.add_argument("--profile-id", metavar="ID", help="fix the business profile id")
    sandbox.add_argument("--webhook-url", metavar="URL", help="where webhooks are delivered")
    sandbox.add_argument(
        "--webhook-secret",
        metavar="S",
        help="fix the webhook signing secret; visible in `ps` too, so prefer "
        "--webhook-secret-file or PAYSCOPE_SANDBOX_WEBHOOK_SECRET",
    )
    sandbox.add_argument(
        "--webhook-secret-file",
        metavar="PATH",
        help="read the signing secret from PATH (- = standard input); or set "
        "PAYSCOPE_SANDBOX_WEBHOOK_SECRET",
    )
    sandbox.add_argument(
        "--rate-limit",
        type=_positive_int,
        metavar="N",
        default=None,
        help="requests per minute per key (default 6000; 0 = unlimited)",
    )
    sandbox.add_argument(
        "--fault-rate",
        type=_rate,
        metavar="R",
        default=0.0,
        help="share of requests answered 500/502/503/429 or with a dropped connection, before "
        "or after the request is committed (0-1)",
    )
    sandbox.add_argument(
        "--latency",
        type=_positive_int,
        metavar="MS",
        default=0,
        help="simulated processor latency on confirm/capture, in milliseconds",
    )

    listen = sub.add_parser(
        "listen",
        epilog=see("listener"),
        help="run the webhook listener alone",
        description="Take POST /webhooks on 127.0.0.1, verify X-Webhook-Signature-512, dedupe on "
        "event_id, journal every event before answering, and print one line per event.",
        formatter_class=_Formatter,
    )
    _bind_options(listen, 8787)
    listen.add_argument(
        "--secret",
        metavar="S",
        action="append",
        help="signing secret (repeat to accept several during rotation); shown to other local "
        "users by `ps`: prefer --secret-file or PAYSCOPE_WEBHOOK_SECRET",
    )
    listen.add_argument(
        "--secret-file",
        metavar="PATH",
        help="read the signing secrets from PATH, one per line (- = standard input)",
    )
    listen.add_argument(
        "--forward-to",
        metavar="URL",
        help="re-POST each accepted event here, durably: owed from the moment it is journaled, "
        "retried after a failure (any answer but 2xx) in 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, "
        "then hourly, across restarts too; marked failed 24 h after the event arrived. Every "
        "attempt is recorded and printed",
    )
    listen.add_argument(
        "--max-age",
        type=_duration,
        metavar="AGE",
        default=None,
        help='refuse (400, reason "stale") events whose timestamp is older than AGE: 90s, '
        "30m, 12h, 7d (default 7d)",
    )
    listen.add_argument(
        "--no-freshness",
        action="store_true",
        help="accept events however old their timestamp (no --max-age check)",
    )
    listen.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    listen.add_argument("--data", metavar="DIR", help="journal directory (default: the data dir)")
    listen.add_argument(
        "--print-secret", action="store_true", help="print the signing secret and exit"
    )

    keys = sub.add_parser(
        "keys",
        epilog=see("config", "keys"),
        help="manage keys in the OS keyring",
        description="Store, show (masked) or delete a profile's keys in the OS keyring. Keys are "
        "read from a hidden prompt or standard input, never from the command line.",
        formatter_class=_Formatter,
    )
    keys.add_argument("action", choices=["set", "show", "delete"], help="what to do")
    keys.add_argument("--profile", default="default", metavar="NAME", help="profile (default)")
    keys.add_argument(
        "--kind",
        choices=["secret", "publishable", "webhook"],
        default="secret",
        help="which key (default: the secret API key)",
    )
    keys.add_argument(
        "--allow-production", action="store_true", help="accept a production (prd_) key"
    )
    keys.add_argument("value", nargs="?", help=argparse.SUPPRESS)

    from payscope.headless import add_connection_options

    serve = sub.add_parser(
        "serve",
        help="the TUI in a browser (textual-serve); each tab is its own payscope",
        description="Serve payscope to a browser with textual-serve: each tab is its own "
        "payscope, on the same background sandbox, and every one gets the webhooks live. "
        "Binds to loopback; a host that is not loopback needs --public. Only the URL it "
        "prints opens it: that URL holds a random token (then kept in a cookie), and the "
        "page's Host and its WebSocket's Origin must be the address served on. Ctrl+C stops it.",
        formatter_class=_Formatter,
    )
    _bind_options(serve, 8000)
    serve.add_argument(
        "--public",
        action="store_true",
        help="allow a host that is not loopback (whoever reaches it with the printed URL's "
        "token drives the TUI: pass that URL on only to them)",
    )
    serve.add_argument(
        "--max-tabs",
        type=_positive_int,
        default=4,
        metavar="N",
        help="the most browser tabs open at once (each is a payscope process; default 4)",
    )
    serve.add_argument(
        "--demo",
        metavar="STORY|FILE",
        help="serve a demo instead: each tab plays this story (developer, support, tour, or "
        "your own story file) on a demo sandbox of its own",
    )
    serve.add_argument(
        "--pace",
        type=_pace,
        default=1.0,
        metavar="X",
        help="with --demo: its speed (default 1.0)",
    )
    demo = sub.add_parser(
        "demo",
        help="play a guided story in the TUI, on a demo sandbox of its own",
        description="Play a scripted story in the real TUI, with a caption line saying what "
        "happens and why, on a demo sandbox of its own (seeded the same way every time, never "
        "your data). Keys while it plays: Space pauses and resumes, right goes on to the next "
        "step, left shows the previous caption again, Esc hands the TUI over, q quits. "
        "Stories are TOML files (see docs/demo.md); a story with a mistake is refused before "
        "it starts, naming the step and the field.",
        formatter_class=_Formatter,
    )
    demo.add_argument(
        "story",
        nargs="?",
        default="tour",
        metavar="STORY|FILE",
        help="developer, support, tour (default), or your own story file",
    )
    demo.add_argument(
        "--pace",
        type=_pace,
        default=1.0,
        metavar="X",
        help="speed: 2 plays twice as fast, 0.5 half as fast (default 1.0)",
    )
    demo.add_argument(
        "--screenshots",
        metavar="DIR",
        help="save an SVG of every captioned step into DIR (for slides and docs)",
    )
    fixtures = sub.add_parser(
        "fixtures",
        epilog=see("tools", "fixtures"),
        help="run a fixture: your own scenario of API calls",
        description="Run a fixture (a TOML or JSON file of named steps) against the service: "
        "each step's status and the ids it made. A step that fails stops the run, naming the "
        "step, the field and what was already made. Examples: fixtures/ in payscope's source.",
        formatter_class=_Formatter,
    )
    fixtures.add_argument("action", choices=["run"], help="run: run FILE's steps in order")
    fixtures.add_argument("file", metavar="FILE", help="the fixture (.toml or .json)")
    fixtures.add_argument(
        "--format", choices=["text", "json"], default="text", help="json: one object per step"
    )
    fixtures.add_argument(
        "--secret-file",
        metavar="PATH",
        help="signing secret of the fixture's event steps (- = standard input); or "
        "PAYSCOPE_WEBHOOK_SECRET",
    )
    fixtures.add_argument(
        "--event-to", metavar="URL", help="where event steps without a `to` are sent"
    )
    fixtures.add_argument(
        "--allow-env",
        metavar="NAME",
        action="append",
        default=[],
        help="let the fixture read ${env.NAME} (repeatable; also a profile's allow_env): a "
        "fixture is someone else's code, and reads no variable unless allowed",
    )
    fixtures.add_argument(
        "--allow-remote",
        action="store_true",
        help="let event steps send to a `to` that is neither this machine nor the service",
    )
    add_connection_options(fixtures)

    export = sub.add_parser(
        "export",
        epilog=see("tools", "export"),
        help="export every record a filter matches to CSV or JSON Lines",
        description="Export every record of AREA's list that the filter matches (all pages) to "
        "CSV or JSON Lines. The filter is the TUI's (/ in the list): e.g. "
        '"status:failed from:2026-11-01". Amounts are in minor units with their decimal beside '
        "them; the file appears only once complete.",
        formatter_class=_Formatter,
    )
    from payscope.export_cli import AREAS

    export.add_argument("area", choices=list(AREAS))
    export.add_argument("--filter", metavar="TEXT", default="", help="the list's filter")
    export.add_argument("--format", choices=["csv", "jsonl"], default="csv", help="(default csv)")
    export.add_argument(
        "--output",
        metavar="FILE",
        help="where (default AREA-YYYYmmdd-HHMMSS.FORMAT here; - = standard output); only a "
        "regular file, never a FIFO, a device or a directory",
    )
    export.add_argument("--force", action="store_true", help="replace a file already at --output")
    export.add_argument("--quiet", action="store_true", help="no progress on standard error")
    add_connection_options(export)

    send = sub.add_parser(
        "send-event",
        epilog=see("tools", "send-event"),
        help="compose, sign and send one webhook event to a URL",
        description="Send one webhook event, signed as the service signs "
        "(X-Webhook-Signature-512), to your handler or to payscope listen, and print its "
        "answer: status, headers, body "
        "(up to 64 KiB) and latency. Exit status 0 when it answered 2xx.",
        formatter_class=_Formatter,
    )
    send.add_argument("--type", metavar="EVENT_TYPE", help="e.g. payment_succeeded (template)")
    send.add_argument("--file", metavar="PATH", help="the whole body, sent byte for byte")
    send.add_argument(
        "--to",
        metavar="URL",
        default="http://127.0.0.1:8787/webhooks",
        help="where (default payscope listen's http://127.0.0.1:8787/webhooks)",
    )
    send.add_argument(
        "--secret-file",
        metavar="PATH",
        help="the signing secret (- = standard input); or PAYSCOPE_WEBHOOK_SECRET",
    )
    send.add_argument("--timeout", type=_duration, default=10.0, metavar="S", help="(default 10s)")
    send.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    from payscope.commands import add_parsers

    add_parsers(
        sub, _Formatter
    )  # get, post, delete, trigger, logs, completion (tui/payscope/commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:
        if args.command == "keys" and args.value is None:
            # A key typed on the command line must be refused by `payscope.keys`, never echoed back
            # in argparse's "unrecognized arguments" message.
            args.value = extras[0]
        elif args.command == "keys":
            parser.exit(
                2, "payscope keys: unexpected extra arguments (not shown: they may hold a key)\n"
            )
        else:
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
    try:
        if args.command != "keys":
            from payscope.core import gc_pause

            # Until the TUI's first frame, or until the server serves; imports included.
            gc_pause.pause()
        if args.command == "sandbox":
            from payscope.sandbox.cli import run as run_sandbox

            return run_sandbox(args)
        if args.command == "listen":
            from payscope.webhooks.cli import run as run_listen

            return run_listen(args)
        if args.command == "keys":
            from payscope.keys import run as run_keys

            return run_keys(args)
        if args.command == "send-event":
            from payscope.webhooks.send_cli import run as run_send

            return run_send(args)
        if args.command == "export":
            from payscope.export_cli import run as run_export

            return run_export(args)
        if args.command == "fixtures":
            from payscope.fixtures_cli import run as run_fixtures

            return run_fixtures(args)
        if args.command == "serve":
            from payscope.serve_cli import run as run_serve

            return run_serve(args)
        if args.command == "demo":
            from payscope.demo.cli import run as run_demo

            return run_demo(args)
        from payscope.commands import COMMANDS

        if args.command in COMMANDS:
            from payscope.commands import run as run_command

            return run_command(args)
        import os

        from payscope.core.paths import ENV_SANDBOX_MODE

        # On a first run the background sandbox starts now, before any heavier import
        # (tui/payscope/app/launch.py). On the others the first frame shows the page cached by the
        # last run (tui/payscope/areas/payments/cache.py) while the client starts.
        if os.environ.get(ENV_SANDBOX_MODE, "") != "in-process":
            from payscope.app.launch import spawn_at_launch

            spawn_at_launch(args.profile, args.seed)
        from payscope.app import exit_now, run_tui

        exit_now(run_tui(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
