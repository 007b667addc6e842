"""`payscope fixtures run` at work: a fixture's steps against the service, one line (or one
JSON object) per step. Imported only when the subcommand runs (`payscope.cli.fixtures` parses
it)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from payscope.api.fixtures.files import load_fixture
from payscope.api.fixtures.running import run_fixture
from payscope.api.fixtures.steps import Allowed, FixtureError, StepResult
from payscope.api.terminal import safe_json, say
from payscope.cli.headless import run_with_client
from payscope.cli.send_event_run import read_secret
from payscope.core import config
from payscope.webhooks.compose import sender

if TYPE_CHECKING:
    from payscope.api.client import ApiClient


def run(args: argparse.Namespace) -> int:
    try:
        fixture = load_fixture(args.file)
    except FixtureError as exc:
        _fail(exc, args.format, sys.stdout)
        return 1

    allowed_env = set(args.allow_env) | set(_profile_allow_env(getattr(args, "profile", None)))

    async def work(client: ApiClient) -> int:
        allowed = Allowed(env=frozenset(allowed_env), remote=args.allow_remote)

        out = sys.stdout
        if args.format == "text":
            say(
                f"fixture {fixture.name}: {len(fixture.steps)} step(s) on {client.base_url}",
                file=out,
            )
        send_event = None
        if any(step.method == "EVENT" for step in fixture.steps):
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
