"""`payscope trigger` at work: one of the TUI's Trigger scenarios, headless, each request as
it goes and what it made. Imported only when the subcommand runs (`payscope.cli.trigger`
parses it)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from payscope.api import errors
from payscope.api.scenarios import SCENARIOS, Scenario, Step
from payscope.cli.output import StartProgress, fail, neutralise, pipe_closed
from payscope.core import secrets

if TYPE_CHECKING:
    from payscope.app.runtime import Runtime


def find(name: str) -> Scenario | None:
    """The scenario `name` names: its name (one_step, or one-step), or its key in the TUI."""
    wanted = name.strip().lower().replace("-", "_")
    return next((s for s in SCENARIOS if wanted in (s.name, s.key)), None)


def _emit(fmt: str, value: dict[str, Any], text: str) -> None:
    if fmt == "json":
        print(json.dumps(value, ensure_ascii=True), flush=True)
    else:
        print(text, flush=True)


def _list(fmt: str) -> int:
    width = max(len(s.name) for s in SCENARIOS)
    for s in SCENARIOS:
        _emit(
            fmt,
            {"name": s.name, "key": s.key, "title": s.title, "description": s.help},
            f"{s.name:<{width}}  {s.title}: {s.help}",
        )
    return 0


def _step_text(step: Step) -> str:
    status = str(step.status) if step.status is not None else "no answer"
    line = f"{step.number:>2}. {step.method} {step.path} -> {status}"
    if step.attempt > 1:
        line += f" (attempt {step.attempt})"
    if step.made:
        line += "  made " + ", ".join(step.made)
    if step.error:
        line += f"  ({step.error})"
    return neutralise(line)


def run(args: argparse.Namespace) -> int:
    fmt = args.format
    if args.list:
        return _list(fmt)
    names = ", ".join(s.name for s in SCENARIOS)
    if not args.scenario:
        return fail("trigger", f"name a scenario: {names} (--list says what each does)", 2)
    scenario = find(args.scenario)
    if scenario is None:
        return fail(
            "trigger", f"no scenario {args.scenario!r}; the scenarios: {names} (see --list)", 2
        )

    progress = StartProgress("trigger")

    async def work(runtime: Runtime) -> int:
        progress.finish()
        client = runtime.api
        if runtime.options.read_only:
            return fail(
                "trigger",
                f"{scenario.title} writes, and this profile is read-only: nothing was sent",
                2,
            )
        if fmt == "text":
            print(
                neutralise(
                    f"{scenario.name}: {scenario.title} ({scenario.help}) on {client.base_url}"
                ),
                flush=True,
            )
        trigger = Trigger(
            client,
            _publishable_key(runtime),
            on_step=lambda step: _emit(fmt, step.to_json(), _step_text(step)),
        )
        try:
            made = await trigger.run(scenario)
        except (errors.ClientError, ValueError) as exc:
            if fmt == "json":
                _emit(fmt, {"scenario": scenario.name, "error": str(exc)}, "")
            return fail("trigger", f"{scenario.title} stopped: {exc}")
        _emit(
            fmt,
            {
                "scenario": scenario.name,
                "area": made.area,
                "id": made.record_id,
                "summary": made.summary,
            },
            neutralise(f"made {made.area} {made.record_id}: {made.summary}"),
        )
        return 0

    # The client's stack only now: --list and a wrong name are answered from the catalogue alone.
    from payscope.api.trigger import Trigger
    from payscope.cli.headless import run_with_runtime

    try:
        return run_with_runtime(args, work, progress)
    except BrokenPipeError:
        return pipe_closed()


def _publishable_key(runtime: Runtime) -> str | None:
    """The publishable key a hosted checkout pays with: the local sandbox's, or the profile's
    from the keyring (`payscope keys set --kind publishable`)."""
    if runtime.credentials is not None:
        key: str | None = runtime.credentials.publishable_key
        return key
    try:
        return secrets.get_secret(runtime.profile_name, "publishable")
    except secrets.SecretsError:
        return None  # the paid-link scenario, which alone needs it, says so
