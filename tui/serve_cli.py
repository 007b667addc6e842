"""`payscope serve`: the TUI in a browser, with textual-serve (issue 34).

Each browser tab runs its own payscope (a process textual-serve starts for it) on the same
background sandbox; every one's listener is attached, so each tab gets the webhooks live. It binds
to loopback unless told otherwise: whoever reaches the port drives the TUI with its keys, so a
host that is not loopback needs `--public`, and is said plainly. Copy (`y`) reaches the browser's
clipboard and links open in the browser through textual-serve's own driver. Ctrl+C stops it.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import shlex
import sys

LOOPBACK_NAMES = ("localhost", "ip6-localhost")


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def command_for(args: argparse.Namespace) -> str:
    """The command textual-serve runs for each browser tab: this payscope, same options."""
    parts = [sys.executable, "-m", "tui"]
    if args.profile:
        parts += ["--profile", args.profile]
    if getattr(args, "read_only", False):
        parts.append("--read-only")
    return shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    host, port = args.host, args.port
    if not is_loopback(host):
        if not args.public:
            print(
                f"payscope serve: {host} is not a loopback address: anyone who reaches port "
                f"{port} there drives payscope with its keys (creates payments, refunds, reads "
                "the keys shown in :sandbox). Add --public if that is what you want.",
                file=sys.stderr,
            )
            return 2
        print(
            f"payscope serve: WARNING: serving on {host}: anyone who reaches port {port} "
            "drives payscope with its keys.",
            file=sys.stderr,
        )
    from textual_serve.server import Server

    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}"
    server = Server(command_for(args), host=host, port=port, title="payscope")
    print(f"payscope serve: open {url} in a browser (each tab is its own payscope); Ctrl+C stops")
    sys.stdout.flush()
    with contextlib.suppress(KeyboardInterrupt):
        server.serve()
    print("payscope serve: stopped", flush=True)
    return 0
