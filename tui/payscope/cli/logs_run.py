"""`payscope logs tail` at work: the profile's shared request log followed, filtered and
printed (the filters' grammar: `payscope.cli.logs`). Imported only when the subcommand runs."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from payscope.api.request_log import LoggedRequest, RequestLogFollower, request_log_path
from payscope.app.runtime.options import OptionsError
from payscope.cli.headless import runtime_options
from payscope.cli.output import fail, neutralise, pipe_closed, wants_colour
from payscope.core import gc_pause


def _under(path: str, prefix: str) -> bool:
    bare = path.split("?", 1)[0]
    prefix = "/" + prefix.strip("/") if prefix.strip("/") else "/"
    return prefix == "/" or bare == prefix or bare.startswith(prefix + "/")


def matcher(args: argparse.Namespace) -> Callable[[LoggedRequest], bool]:
    """What `--status`, `--method` and `--path` let through (each repeatable: any of them)."""
    statuses = list(args.status or [])  # the tests `--status` named, parsed with it
    methods = {m.strip().upper() for m in args.method or [] for m in m.split(",")}
    paths = list(args.path or [])

    def matches(record: LoggedRequest) -> bool:
        if statuses and not any(test(record.status) for test in statuses):
            return False
        if methods and record.method.upper() not in methods:
            return False
        return not paths or any(_under(record.path, p) for p in paths)

    return matches


_GREEN, _YELLOW, _RED, _DIM, _RESET = "\x1b[32m", "\x1b[33m", "\x1b[31m", "\x1b[2m", "\x1b[0m"


def line_of(record: LoggedRequest, *, colour: bool = False) -> str:
    """One record as one terminal line, everything from outside neutralised."""
    at = (
        time.strftime("%H:%M:%S", time.localtime(record.at))
        + f".{int(record.at * 1000) % 1000:03d}"
    )
    status = str(record.status) if record.status is not None else "---"
    text = (
        f"{at}  {record.method:<6} {status}  {record.path}  {record.latency_ms:.0f} ms  "
        f"[{record.source} {record.pid}]"
    )
    if record.attempt > 1:
        text += f" attempt {record.attempt}"
    said = ": ".join(part for part in (record.code, record.message) if part)
    if record.error:
        said = record.error
    if said:
        text += f"  {said}"
    text = neutralise(text)
    if not colour:
        return text
    hue = (
        _RED
        if record.status is None or record.status >= 500
        else _YELLOW
        if record.status >= 400
        else _GREEN
    )
    return text.replace(f"  {status}  ", f"  {hue}{status}{_RESET}  ", 1)


def run(args: argparse.Namespace) -> int:
    gc_pause.resume(freeze=True)  # a tail runs for as long as it is wanted
    try:
        options = runtime_options(args)
    except (OptionsError, ValueError) as exc:
        return fail("logs", str(exc), 2)
    path = request_log_path(options.data_dir, options.profile)
    matches = matcher(args)
    out = sys.stdout
    colour = args.format == "text" and wants_colour(out)
    who = f"profile {options.profile}" if options.profile else "the local sandbox"
    follower = RequestLogFollower(path)  # from here on, every line written is shown
    print(
        f"payscope logs: following the requests on {neutralise(who)} ({path}); Ctrl+C ends it",
        file=sys.stderr,
        flush=True,
    )
    try:
        for record in follower.follow():
            if not matches(record):
                continue
            if args.format == "json":
                print(json.dumps(record.to_json(), ensure_ascii=True), file=out, flush=True)
            else:
                print(line_of(record, colour=colour), file=out, flush=True)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return pipe_closed()
    finally:
        follower.close()
    return 0
