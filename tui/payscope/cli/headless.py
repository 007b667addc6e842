"""How the commands that use the service without the TUI run (`payscope fixtures`, `export`,
`trigger`, `get`...): one client on the profile's service or on the background local sandbox,
and a readable error when it cannot start. Imported by their handlers only, never on the way
to `--help`. No Textual here."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from payscope.api import errors
from payscope.api.terminal import say
from payscope.app.runtime import Runtime
from payscope.app.runtime.connection import StartupError
from payscope.app.runtime.options import OptionsError, RuntimeOptions
from payscope.core import secrets

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.app.runtime.connection import Progress

T = TypeVar("T")


def run_with_client(args: argparse.Namespace, work: Callable[[ApiClient], Awaitable[T]]) -> T:
    """Start a client as `args` say, run `work(client)` on it, close it; `SystemExit(2)` with
    the reason when the client cannot start."""
    return asyncio.run(_run(args, lambda runtime: work(runtime.api)))


def run_with_runtime(
    args: argparse.Namespace,
    work: Callable[[Runtime], Awaitable[T]],
    progress: Progress | None = None,
) -> T:
    """`run_with_client`, for work that needs more of the runtime than its client (the local
    sandbox's credentials, the profile's name); `progress` is told how the start goes."""
    return asyncio.run(_run(args, work, progress))


def runtime_options(args: argparse.Namespace) -> RuntimeOptions:
    """The options a headless command runs with (its profile, on the background sandbox);
    `OptionsError` when they are wrong."""
    options = RuntimeOptions.build(
        profile=getattr(args, "profile", None),
        seed=getattr(args, "seed", None),
        theme=None,
        allow_production=bool(getattr(args, "allow_production", False)),
        config_dir=None,
        data_dir=None,
        sandbox_options={},
    )
    options.daemon = True
    options.read_only = bool(getattr(args, "read_only", False))
    options.request_log_source = str(getattr(args, "command", None) or "cli")
    return options


async def _run(
    args: argparse.Namespace,
    work: Callable[[Runtime], Awaitable[T]],
    progress: Progress | None = None,
) -> T:
    try:
        runtime = Runtime(runtime_options(args))
        client = await runtime.start_client(progress)
    except (
        OptionsError,
        StartupError,
        errors.ClientError,
        secrets.SecretsError,
        ValueError,
    ) as exc:
        say(f"payscope: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    for notice in runtime.notices:  # e.g. a data dir made private
        print(f"payscope: {notice}", file=sys.stderr)
    try:
        return await work(runtime)
    finally:
        await client.aclose()
