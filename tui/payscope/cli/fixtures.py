"""`payscope fixtures run FILE`: a fixture's steps against the service, one line (or one JSON
object) per step, and what was made (tui/payscope/api/fixtures/ runs them)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from payscope.api.terminal import safe_json, say
from payscope.cli.headless import add_connection_options
from payscope.cli.options import Formatter
from payscope.core.docs import see

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.api.fixtures.steps import FixtureError, StepResult
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("fixtures",)


def add_parser(subparsers: Subparsers) -> None:
    fixtures = subparsers.add_parser(
        "fixtures",
        epilog=see("tools", "fixtures"),
        help="run a fixture: your own scenario of API calls",
        description="Run a fixture (a TOML or JSON file of named steps) against the service: "
        "each step's status and the ids it made. A step that fails stops the run, naming the "
        "step, the field and what was already made. Examples: fixtures/ in payscope's source.",
        formatter_class=Formatter,
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


def run(args: argparse.Namespace) -> int:
    from payscope.api.fixtures.files import load_fixture
    from payscope.api.fixtures.steps import FixtureError
    from payscope.cli.headless import run_with_client

    try:
        fixture = load_fixture(args.file)
    except FixtureError as exc:
        _fail(exc, args.format, sys.stdout)
        return 1

    allowed_env = set(args.allow_env) | set(_profile_allow_env(getattr(args, "profile", None)))

    async def work(client: ApiClient) -> int:
        from payscope.api.fixtures.running import run_fixture
        from payscope.api.fixtures.steps import Allowed

        allowed = Allowed(env=frozenset(allowed_env), remote=args.allow_remote)

        out = sys.stdout
        if args.format == "text":
            say(
                f"fixture {fixture.name}: {len(fixture.steps)} step(s) on {client.base_url}",
                file=out,
            )
        send_event = None
        if any(step.method == "EVENT" for step in fixture.steps):
            from payscope.cli.send_event import read_secret
            from payscope.webhooks.compose import sender

            secret = read_secret(args)
            if not secret:
                print(
                    "payscope fixtures: this fixture sends events: give their signing secret "
                    "with --secret-file or PAYSCOPE_WEBHOOK_SECRET",
                    file=sys.stderr,
                )
                return 2
            send_event = sender(secret, args.event_to or "")
        try:
            async for result in run_fixture(client, fixture, send_event, allowed):
                _print_step(result, args.format, out)
        except FixtureError as exc:
            _fail(exc, args.format, out)
            return 1
        if args.format == "text":
            print("done", file=out)
        return 0

    return run_with_client(args, work)


def _profile_allow_env(profile: str | None) -> list[str]:
    """The profile's `allow_env` list (no profile: `[local]`'s); [] when the settings cannot
    say (the client's start reports a broken file or an unknown profile)."""
    from payscope.core import config

    try:
        return config.allowed_env(config.load_settings(), profile)
    except (config.ConfigError, config.ProfileError):
        return []


def _print_step(result: StepResult, fmt: str, out: TextIO) -> None:
    if fmt == "json":
        print(safe_json(result.to_json()), file=out, flush=True)
        return
    made = ", ".join(m.id for m in result.made)
    say(
        f"{result.step.index:>2}. {result.step.name}: {result.method} {result.path} -> "
        f"{result.status}" + (f"  made {made}" if made else ""),
        file=out,
        flush=True,
    )


def _fail(exc: FixtureError, fmt: str, out: TextIO) -> None:
    if fmt == "json":
        print(safe_json(exc.to_json()), file=out, flush=True)
    say(f"payscope fixtures: {exc}", file=sys.stderr, flush=True)
