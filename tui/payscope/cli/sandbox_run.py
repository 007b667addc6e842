"""`payscope sandbox` at work: the local service in this terminal until Ctrl+C, and the
background sandbox's `status`, `stop` and `reset`. Imported only when the subcommand runs
(`payscope.cli.sandbox` parses it)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import platformdirs

from payscope.api.terminal import say
from payscope.core import gc_pause
from payscope.core.private_files import SecretFileError, read_secret
from payscope.core.secrets import mask
from payscope.sandbox import daemon
from payscope.sandbox.config import ConfigError, SandboxConfig
from payscope.sandbox.files import DB_FILE

if TYPE_CHECKING:
    from payscope.sandbox.server import Sandbox


def default_data_dir() -> Path:
    """`$PAYSCOPE_DATA_DIR/sandbox`, or the platform data dir's `sandbox` folder."""
    base = os.environ.get("PAYSCOPE_DATA_DIR")
    if base:
        return Path(base) / "sandbox"

    return Path(platformdirs.user_data_dir("payscope")) / "sandbox"


# Secrets may come from the environment or a file (`-`: standard input) instead of a flag: a
# flag's value is visible to every local user in `ps` and stays in the shell history.
ENV_API_KEY = "PAYSCOPE_SANDBOX_API_KEY"


ENV_WEBHOOK_SECRET = "PAYSCOPE_SANDBOX_WEBHOOK_SECRET"


def _secret_from(args: argparse.Namespace, name: str, flag: str, env: str) -> str | None:
    """`--<flag>`, else `--<flag>-file`, else `$env`, else None (the stored or a new value)."""

    given: str | None = getattr(args, name, None)
    path: str | None = getattr(args, f"{name}_file", None)
    if given is not None and path is not None:
        raise ConfigError(f"give {flag} or {flag}-file, not both.")
    if given is not None:
        return given
    if path is not None:
        try:
            return read_secret(path, f"{flag}-file")
        except SecretFileError as exc:
            raise ConfigError(str(exc)) from None
    return os.environ.get(env, "").strip() or None


def config_from_args(args: argparse.Namespace) -> SandboxConfig:
    """The `SandboxConfig` the parsed flags ask for (raises `ConfigError`)."""

    if getattr(args, "api_key_file", None) == "-" == getattr(args, "webhook_secret_file", None):
        raise ConfigError(
            "--api-key-file - and --webhook-secret-file - cannot both read standard input; "
            "give one of them a file or use the environment."
        )
    return SandboxConfig(
        data_dir=Path(args.data).expanduser() if args.data else default_data_dir(),
        api_key=_secret_from(args, "api_key", "--api-key", ENV_API_KEY),
        merchant_id=args.merchant_id,
        profile_id=args.profile_id,
        webhook_url=args.webhook_url,
        webhook_secret=_secret_from(args, "webhook_secret", "--webhook-secret", ENV_WEBHOOK_SECRET),
        rate_limit=args.rate_limit,
        fault_rate=args.fault_rate,
        latency_ms=args.latency,
    )


def _progress_bar(out: TextIO) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    width = 30

    def show(done: int, total: int) -> None:
        filled = width * done // max(total, 1)
        out.write(f"\rseeding [{'#' * filled}{'.' * (width - filled)}] {done}/{total} payments")
        out.flush()

    def end() -> None:
        out.write("\n")
        out.flush()

    return show, end


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope sandbox` (returns the exit code)."""

    directory = Path(args.data).expanduser() if args.data else default_data_dir()
    action = getattr(args, "action", None)
    if action is not None:
        return _manage(action, directory)
    running = daemon.read_state(directory)
    if running is not None:
        print(
            f"payscope sandbox: the background sandbox the TUI keeps already serves "
            f"{directory} on {running.url} (pid {running.pid}). Use it as it is "
            "(`payscope sandbox status` shows it; :sandbox in the TUI has its keys), stop it "
            "first (`payscope sandbox stop`), or pass --data DIR for another sandbox.",
            file=sys.stderr,
        )
        return 1
    try:
        config = config_from_args(args)
        config.check()
    except ConfigError as exc:
        say(f"payscope sandbox: {exc}", file=sys.stderr)
        return 2
    # Imported once the arguments are known to be good: a mistake is said at once (0.05 s,
    # not the 0.6 s of importing the server and its routes).
    from payscope.sandbox import db, server

    try:
        sandbox = server.Sandbox(config)
    except db.DatabaseUnusable as exc:
        say(f"payscope sandbox: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        say(
            f"payscope sandbox: cannot open the state in {config.data_dir}: {exc}. "
            "Pass --data DIR with a writable directory.",
            file=sys.stderr,
        )
        return 1

    gc_pause.resume(freeze=True)  # paused by `payscope` since launch; before any seeding
    if args.seed and not sandbox.is_seeded():
        show, end = _progress_bar(sys.stderr)
        sandbox.seed(args.seed, show)
        end()
    try:
        return asyncio.run(_serve(sandbox, args.host, args.port))
    except KeyboardInterrupt:
        return 0


def _manage(action: str, directory: Path) -> int:
    """`payscope sandbox status`, `stop` (the background sandbox) and `reset`."""

    if action == "reset":
        return _reset(directory)
    state, problem = daemon.check(directory)
    if problem:
        # Reported, never acted on: its pid may belong to any process by now.
        after = "; nothing was signalled" if action == "stop" else ""
        say(f"payscope sandbox: ignoring {problem}{after}.", file=sys.stderr)
    if action == "stop":
        if state is None or not daemon.stop(directory):
            print(f"No background sandbox is running for {directory}.")
            return 0
        print(f"Stopped the background sandbox (pid {state.pid}).")
        return 0
    if state is None:
        print(
            f"No background sandbox is running for {directory}. `payscope` starts one (and "
            "keeps it between runs); `payscope sandbox` runs one in this terminal."
        )
        return 3

    creds = daemon.read_credentials(directory)
    lines = [
        f"background sandbox: {state.phase}",
        f"  pid              {state.pid}",
        f"  base URL         {state.url}",
        f"  data             {directory}",
    ]
    if state.phase == "seeding":
        lines.append(f"  seeding          {state.done} of {state.total} payments")
    if creds is not None:
        lines += [
            f"  merchant id      {creds.merchant_id}",
            f"  profile id       {creds.profile_id}",
            f"  secret key       {mask(creds.api_key)}  (in full: :sandbox in the TUI, `s`)",
        ]
    if state.note:
        lines.append(f"  note             {state.note}")
    lines.append(f"  log              {directory / daemon.LOG_FILE}")
    lines.append("Stop it with `payscope sandbox stop`.")
    print("\n".join(lines))
    return 0


def _said_reset(done: dict[str, object], directory: Path) -> str:
    seeded = done.get("seeded_payments") or 0
    ahead = float(done.get("clock_offset_seconds") or 0)  # type: ignore[arg-type]
    data = (
        f"its {seeded} seeded demo payments (and what goes with them) are back"
        if seeded
        else "it holds no records (it was never seeded)"
    )
    clock = f"the clock is back at real time (it was {ahead / 86400:.1f} days ahead)"
    if ahead < 60:
        clock = "the clock is at real time"
    return (
        f"Reset the sandbox in {directory}: every record made since is gone, {data}, and "
        f"{clock}. Keys, the profile and the webhook settings are unchanged."
    )


def _reset(directory: Path) -> int:
    """`payscope sandbox reset`: through the background sandbox when one serves `directory`
    (it serves on, with the demo data back), else on the files themselves."""

    state, problem = daemon.check(directory)
    if problem:
        print(f"payscope sandbox: ignoring {problem}.", file=sys.stderr)
    if state is not None:
        creds = daemon.read_credentials(directory)
        if creds is None:
            print(f"payscope sandbox: cannot read the keys in {directory}.", file=sys.stderr)
            return 1
        import httpx  # status and stop never pay for it

        print(f"Resetting the background sandbox on {state.url}...", file=sys.stderr, flush=True)
        try:
            answer = httpx.post(
                f"{state.url}/_sandbox/reset", headers={"api-key": creds.api_key}, timeout=300
            )
        except httpx.HTTPError as exc:
            print(
                f"payscope sandbox: the background sandbox did not answer: {exc}", file=sys.stderr
            )
            return 1
        if answer.status_code != 200:
            print(
                f"payscope sandbox: the background sandbox refused the reset "
                f"({answer.status_code}): {answer.text[:300]}",
                file=sys.stderr,
            )
            return 1
        print(_said_reset(answer.json(), directory))
        return 0
    if not (directory / DB_FILE).exists():
        print(f"No sandbox data in {directory}: nothing to reset.")
        return 0
    # The server and its store, only to reset files no background sandbox serves.
    from payscope.sandbox import db, seed, server

    try:
        sandbox = server.Sandbox(SandboxConfig(data_dir=directory))
    except (db.DatabaseUnusable, OSError) as exc:
        print(f"payscope sandbox: cannot open the state in {directory}: {exc}", file=sys.stderr)
        return 1
    show, end = _progress_bar(sys.stderr)

    async def run() -> dict[str, object]:
        try:
            return await seed.reset(sandbox.state, progress=show)
        finally:
            await sandbox.stop()

    done = asyncio.run(run())
    end()
    print(_said_reset(done, directory))
    return 0


async def _serve(sandbox: Sandbox, host: str, port: int) -> int:
    try:
        await sandbox.start(host, port)
    except OSError as exc:
        print(
            f"payscope sandbox: cannot listen on {host}:{port}: {exc.strerror or exc}. "
            "Pick another --port (0 = any free port).",
            file=sys.stderr,
        )
        await sandbox.stop()
        return 1
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    print(banner(sandbox), flush=True)  # after the handlers: it says Ctrl+C stops it
    if sandbox.state.started_afresh:
        print(f"note: {sandbox.state.started_afresh}", file=sys.stderr, flush=True)
    try:
        await stop.wait()
    finally:
        print("\nstopping the sandbox...", file=sys.stderr, flush=True)
        await sandbox.stop()
    return 0


def banner(sandbox: Sandbox) -> str:
    """What a user needs to start: URL, ids, keys, webhook target and secret, an example."""
    c = sandbox.credentials
    url, _secret = sandbox.state.webhook_target()
    base = c.base_url or ""
    return "\n".join(
        [
            f"payscope sandbox listening on {base}",
            "",
            f"  base URL         {base}",
            f"  merchant id      {c.merchant_id}",
            f"  profile id       {c.profile_id}",
            f"  secret key       {c.api_key}",
            f"  publishable key  {c.publishable_key}",
            f"  webhook URL      {url or '(none: set one with --webhook-url or the profile API)'}",
            f"  webhook secret   {c.webhook_secret}",
            f"  API docs         {base}/docs",
            f"  test cards       {base}/_sandbox/test-cards",
            f"  data             {sandbox.config.data_dir}",
            "",
            "try:",
            f"  curl -s {base}/payments -H 'api-key: {c.api_key}' \\",
            '    -H \'Content-Type: application/json\' -d \'{"amount": 1000, "currency": "USD", '
            '"confirm": true, "payment_method": "card", "billing": {"address": {"country": "US"}}, '
            '"payment_method_data": {"card": {"card_number": "4242424242424242", '
            '"card_exp_month": "12", "card_exp_year": "2030", "card_cvc": "123"}}}\'',
            "",
            "Ctrl+C stops it.",
        ]
    )
