"""Fixtures: scenarios of your own, as a file (TOML or JSON) of named steps (docs/fixtures.md).

    name = "Refund a card payment"

    [[steps]]
    name = "payment"
    method = "POST"
    path = "/payments"
    body = { amount = 1500, currency = "USD", confirm = true }

    [[steps]]
    name = "refund"
    method = "POST"
    path = "/refunds"
    expect = 200
    body = { payment_id = "${payment.payment_id}" }

A step takes values from the answers of earlier steps (`${payment.payment_id}`, or deeper:
`${list.data.0.payment_id}`), from the environment (`${env.NAME}`) and from the client
(`${profile_id}`, `${merchant_id}`); `$${` is a literal `${`. A string that is one reference
whole takes the referenced value as it is (a number stays a number).

A fixture is someone else's code: it reads the environment only for the names the run allows
(`Allowed.env`: `--allow-env NAME`, a profile's `allow_env`), and an event step sends only to
this machine (loopback) or the profile's own service unless the run allows other hosts
(`Allowed.remote`: `--allow-remote`, or the TUI's question, `Allowed.ask_remote`). Both are
refused before anything is sent, naming the variable or the host and how to allow it.

Every reference is checked before the first step runs. A step that fails (an error answer, a
status other than the one it expects, a reference to a field its answer lacks) stops the run
with a `FixtureError` that names the step and the field, and lists what was already made.
Nothing here knows of Textual: `payscope fixtures run` and the TUI share it.
"""

from __future__ import annotations

import json
import os
import re
import time
import tomllib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from payscope.api import errors
from payscope.api.client import ApiClient
from payscope.api.retry import Replay, writes
from payscope.core import bounded
from payscope.core.hosts import is_loopback_url

__all__ = [
    "Allowed",
    "Fixture",
    "FixtureError",
    "Made",
    "Step",
    "StepResult",
    "load_fixture",
    "parse_fixture",
    "run_fixture",
]

METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})
STEP_FIELDS = frozenset(
    {"name", "method", "path", "body", "expect", "headers", "description", "event", "to"}
)
# A step that sends a webhook event (signed) instead of calling the service: `event` is its
# body, `to` where it goes ("" : the runner's own listener).
EVENT = "EVENT"
TOP_FIELDS = frozenset({"name", "description", "steps"})
BUILTINS = frozenset({"profile_id", "merchant_id"})
# Headers a fixture may not set: the key is the client's, never a file's.
FORBIDDEN_HEADERS = frozenset({"api-key", "authorization", "x-api-key"})
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_REF_RE = re.compile(r"\$\$\{|\$\{([^}]*)\}")
_REF_BODY_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z0-9_-]+)*)")
# Keys of an answer's ids: what a step made is told by them (`Made`).
_ID_KEYS = ("payment_id", "refund_id", "dispute_id", "payout_id", "customer_id", "id")


@dataclass(frozen=True)
class Step:
    """One request of a fixture. `expect` is the statuses it accepts (empty: any 2xx)."""

    index: int  # 1-based
    name: str
    method: str
    path: str
    body: Any = None
    expect: tuple[int, ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)
    description: str = ""

    @property
    def label(self) -> str:
        return f'step {self.index} "{self.name}"'

    @property
    def writes(self) -> bool:
        return writes(self.method)


@dataclass(frozen=True)
class Fixture:
    name: str
    description: str
    steps: tuple[Step, ...]
    source: str = ""


@dataclass(frozen=True)
class Allowed:
    """What a run lets a fixture (or a story) do beyond the profile's own service: the
    environment variables it may read, and whether its events may go to other hosts
    (`remote`; else `ask_remote(url)` is asked, when given, and a no refuses)."""

    env: frozenset[str] = frozenset()
    remote: bool = False
    ask_remote: Callable[[str], Awaitable[bool]] | None = None


ENV_FIX = (
    "run it with --allow-env {name} (repeatable), or add it to the profile's allow_env list in "
    'profiles.toml (allow_env = ["{name}"]; under [local] for the local sandbox)'
)
REMOTE_FIX = "run it with --allow-remote if you trust that host with what the step sends"


def env_names(fixture: Fixture) -> list[str]:
    """Every environment variable the fixture's steps read (`${env.NAME}`), in order, once."""
    names: dict[str, None] = {}
    for step in fixture.steps:
        roots = (("path", step.path), ("body", step.body), ("headers", step.headers))
        for _, text in _strings(*roots):
            for ref in _refs(text):
                if ref.startswith("env."):
                    names.setdefault(ref[4:], None)
    return list(names)


def _same_service(url: str, base_url: str) -> bool:
    from urllib.parse import urlsplit

    try:
        one, two = urlsplit(url), urlsplit(base_url)
        return (one.scheme, one.hostname, one.port) == (two.scheme, two.hostname, two.port)
    except ValueError:
        return False


def is_remote(url: str, base_url: str) -> bool:
    """Whether `url` is neither this machine nor the profile's own service (`base_url`)."""
    return not is_loopback_url(url) and not _same_service(url, base_url)


@dataclass(frozen=True)
class Made:
    """An id a step made (its answer's, seen nowhere earlier in the run)."""

    step: str
    id: str


@dataclass(frozen=True)
class StepResult:
    step: Step
    method: str
    path: str  # with its references filled in
    status: int
    latency_ms: float
    answer: Any
    made: tuple[Made, ...]

    def to_json(self) -> dict[str, Any]:
        """One object per step (`payscope fixtures run --format json`)."""
        return {
            "step": self.step.name,
            "index": self.step.index,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "latency_ms": round(self.latency_ms, 1),
            "made": [m.id for m in self.made],
            "answer": self.answer,
        }


class FixtureError(Exception):
    """A fixture that cannot be read, or a run stopped at a step, said for a person: the file,
    the step, the field, what is wrong and what was already made (nothing is left
    unexplained)."""

    def __init__(
        self,
        problem: str,
        *,
        source: str = "",
        step: Step | None = None,
        step_label: str = "",
        field_name: str = "",
        made: tuple[Made, ...] = (),
        status: int | None = None,
    ) -> None:
        self.problem = problem
        self.source = source
        self.step = step
        self.step_label = step_label or (step.label if step else "")
        self.field_name = field_name
        self.made = made
        self.status = status
        super().__init__(self.describe())

    def describe(self) -> str:
        where = [w for w in (self.source, self.step_label) if w]
        if self.field_name:
            where.append(f"field {self.field_name}")
        head = ", ".join(where)
        text = f"{head}: {self.problem}" if head else self.problem
        if self.made:
            listed = ", ".join(f"{m.id} (step {m.step})" for m in self.made)
            text += f"\nAlready made before it stopped: {listed}."
        elif self.step is not None or self.step_label:
            text += "\nNothing was made before it stopped."
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "error": self.problem,
            "file": self.source,
            "step": self.step.name if self.step else None,
            "index": self.step.index if self.step else None,
            "field": self.field_name or None,
            "status": self.status,
            "made": [{"step": m.step, "id": m.id} for m in self.made],
        }


# -- reading -------------------------------------------------------------------------------------


def load_fixture(path: Path | str) -> Fixture:
    """The fixture in `path` (.toml or .json); `FixtureError` naming what is wrong."""
    path = Path(path)
    source = str(path)
    try:
        text = bounded.read_text(path)
    except UnicodeDecodeError:
        raise FixtureError("the file is not UTF-8 text", source=source) from None
    except bounded.TooLarge as exc:
        raise FixtureError(exc.problem, source=source) from None
    except OSError as exc:
        raise FixtureError(f"cannot read it ({exc.strerror or exc})", source=source) from None
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise FixtureError(
            f"a fixture is a .toml or .json file, not {suffix or 'a file without a suffix'}",
            source=source,
        )
    return parse_fixture(text, suffix[1:], source=source, default_name=path.stem)


def parse_fixture(text: str, fmt: str, *, source: str = "", default_name: str = "") -> Fixture:
    """A fixture from its text (`fmt`: "toml" or "json"), every reference checked."""
    data: Any
    if fmt == "json":
        try:
            data = bounded.loads_json(text)
        except bounded.TooDeep as exc:
            raise FixtureError(exc.problem, source=source) from None
        except json.JSONDecodeError as exc:
            raise FixtureError(
                f"bad JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", source=source
            ) from None
    else:
        try:
            data = bounded.loads_toml(text)
        except bounded.TooDeep as exc:
            raise FixtureError(exc.problem, source=source) from None
        except tomllib.TOMLDecodeError as exc:
            raise FixtureError(f"bad TOML: {exc}", source=source) from None
    if not isinstance(data, dict):
        raise FixtureError("the file holds no table of name, description and steps", source=source)
    unknown = sorted(set(data) - TOP_FIELDS)
    if unknown:
        raise FixtureError(
            f"unknown field {unknown[0]!r} (a fixture has name, description and steps)",
            source=source,
            field_name=unknown[0],
        )
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise FixtureError("no steps: a fixture needs at least one [[steps]] table", source=source)
    steps: list[Step] = []
    for index, raw in enumerate(raw_steps, start=1):
        steps.append(_step(raw, index, steps, source))
    name = data.get("name", default_name)
    description = data.get("description", "")
    if not isinstance(name, str) or not isinstance(description, str):
        raise FixtureError("name and description are text", source=source, field_name="name")
    return Fixture(name or default_name, description, tuple(steps), source)


def _step(raw: Any, index: int, earlier: list[Step], source: str) -> Step:
    label = f"step {index}"
    if not isinstance(raw, dict):
        raise FixtureError(
            "a step is a table (method, path, body...)", source=source, step_label=label
        )
    name = raw.get("name")
    if isinstance(name, str) and name:
        label = f'step {index} "{name}"'

    def bad(problem: str, field_name: str) -> FixtureError:
        return FixtureError(problem, source=source, step_label=label, field_name=field_name)

    unknown = sorted(set(raw) - STEP_FIELDS)
    if unknown:
        known = ", ".join(sorted(STEP_FIELDS))
        return_error = bad(f"unknown field {unknown[0]!r} (a step has {known})", unknown[0])
        raise return_error
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise bad(
            "every step needs a name: a letter or '_', then letters, digits, '_' or '-' "
            "(later steps refer to it as ${name.field})",
            "name",
        )
    if name in BUILTINS or name == "env":
        raise bad(f"{name!r} is a reserved name; choose another", "name")
    if any(s.name == name for s in earlier):
        raise bad(f"another step is already called {name!r}", "name")
    if "event" in raw:
        return _event_step(raw, index, name, earlier, bad)
    method = raw.get("method", "")
    if not isinstance(method, str) or method.upper() not in METHODS:
        raise bad(f"method is one of {', '.join(sorted(METHODS))}, not {method!r}", "method")
    path = raw.get("path", "")
    if not isinstance(path, str) or not path.startswith("/"):
        raise bad('path is the service path, starting with "/" (e.g. "/payments")', "path")
    body = raw.get("body")
    if isinstance(body, str):
        try:
            body = bounded.loads_json(body)
        except bounded.TooDeep as exc:
            raise bad(exc.problem, "body") from None
        except json.JSONDecodeError as exc:
            raise bad(
                f"bad JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", "body"
            ) from None
    expect_raw = raw.get("expect", [])
    expect_list = expect_raw if isinstance(expect_raw, list) else [expect_raw]
    if not all(
        isinstance(e, int) and not isinstance(e, bool) and 100 <= e <= 599 for e in expect_list
    ):
        raise bad("expect is an HTTP status (100-599) or a list of them", "expect")
    headers = raw.get("headers", {})
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise bad("headers is a table of text values", "headers")
    for key in headers:
        if key.lower() in FORBIDDEN_HEADERS:
            raise bad(
                f"{key} may not be set in a fixture: the key is the profile's, never a file's",
                f"headers.{key}",
            )
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise bad("description is text", "description")
    step = Step(
        index, name, method.upper(), path, body, tuple(expect_list), dict(headers), description
    )
    names = {s.name for s in earlier}
    for where, text in _strings(("path", path), ("body", body), ("headers", headers)):
        for ref in _refs(text):
            problem = _ref_problem(ref, names)
            if problem:
                raise bad(problem, where)
    return step


def _event_step(raw: dict[str, Any], index: int, name: str, earlier: list[Step], bad: Any) -> Step:
    """A step that sends a signed webhook event (saved from the composer)."""
    for other in ("method", "path", "body", "headers"):
        if other in raw:
            raise bad(f"an event step has event and to, not {other}", other)
    event = raw["event"]
    if isinstance(event, str):
        try:
            event = bounded.loads_json(event)
        except bounded.TooDeep as exc:
            raise bad(exc.problem, "event") from None
        except json.JSONDecodeError as exc:
            raise bad(
                f"bad JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", "event"
            ) from None
    if not isinstance(event, dict) or not isinstance(event.get("event_type"), str):
        raise bad("event is the whole event: a table with event_id, event_type, content", "event")
    to = raw.get("to", "")
    if not isinstance(to, str):
        raise bad("to is a URL (blank: payscope's own listener)", "to")
    expect_raw = raw.get("expect", [])
    expect_list = expect_raw if isinstance(expect_raw, list) else [expect_raw]
    if not all(isinstance(e, int) and not isinstance(e, bool) for e in expect_list):
        raise bad("expect is an HTTP status (100-599) or a list of them", "expect")
    names = {s.name for s in earlier}
    for where, text in _strings(("to", to), ("event", event)):
        for ref in _refs(text):
            problem = _ref_problem(ref, names)
            if problem:
                raise bad(problem, where)
    return Step(index, name, EVENT, to, event, tuple(expect_list), {}, raw.get("description", ""))


def _strings(*roots: tuple[str, Any]) -> list[tuple[str, str]]:
    """Every string in the roots, with the dotted field it is at (`body.card.number`)."""
    found: list[tuple[str, str]] = []

    def walk(where: str, value: Any) -> None:
        if isinstance(value, str):
            found.append((where, value))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(f"{where}.{key}", item)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(f"{where}.{i}", item)

    for where, value in roots:
        walk(where, value)
    return found


def _refs(text: str) -> list[str]:
    return [m.group(1) for m in _REF_RE.finditer(text) if m.group(0) != "$${"]


def _ref_problem(ref: str, earlier: set[str]) -> str:
    match = _REF_BODY_RE.fullmatch(ref)
    if match is None:
        return (
            f"${{{ref}}} is not a reference: write ${{step.field}}, ${{env.NAME}} "
            "or ${profile_id}"
        )
    head, rest = match.group(1), match.group(2)
    if head in BUILTINS:
        return "" if not rest else f"${{{ref}}}: {head} has no fields"
    if head == "env":
        name = rest[1:]
        if not name or "." in name:
            return f"${{{ref}}}: write ${{env.NAME}}, one variable's name"
        if name not in os.environ:
            return f"${{{ref}}}: the environment variable {name} is not set"
        return ""
    if head not in earlier:
        before = ", ".join(sorted(earlier)) or "none"
        return (
            f"unknown reference ${{{ref}}}: no earlier step is called {head!r} "
            f"(steps before this one: {before})"
        )
    if not rest:
        return f"${{{ref}}} names a step, not one of its fields: e.g. ${{{head}.id}}"
    return ""


# -- running -------------------------------------------------------------------------------------


class _Context:
    def __init__(self, client: ApiClient) -> None:
        self.answers: dict[str, Any] = {}
        self.builtins = {"profile_id": client.profile_id, "merchant_id": client.merchant_id}

    def value(self, ref: str) -> Any:
        match = _REF_BODY_RE.fullmatch(ref)
        assert match is not None  # checked when the fixture was read
        head, rest = match.group(1), match.group(2)
        if head in BUILTINS:
            value = self.builtins[head]
            if value is None:
                raise LookupError(f"${{{ref}}}: this profile has no {head}")
            return value
        if head == "env":
            value = os.environ.get(rest[1:])
            if value is None:
                raise LookupError(f"${{{ref}}}: the environment variable {rest[1:]} is not set")
            return value
        value = self.answers[head]
        walked = head
        for part in rest[1:].split("."):
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                raise LookupError(
                    f"${{{ref}}}: the answer of step {head!r} has no {part!r} in {walked}"
                )
            walked += f".{part}"
        return value

    def fill(self, value: Any) -> Any:
        if isinstance(value, str):
            whole = _REF_RE.fullmatch(value)
            if whole is not None and whole.group(0) != "$${":
                return self.value(whole.group(1))

            def one(match: re.Match[str]) -> str:
                if match.group(0) == "$${":
                    return "${"
                found = self.value(match.group(1))
                return found if isinstance(found, str) else json.dumps(found)

            return _REF_RE.sub(one, value)
        if isinstance(value, dict):
            return {key: self.fill(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.fill(item) for item in value]
        return value


def _ids_in(answer: Any) -> list[str]:
    if not isinstance(answer, dict):
        return []
    return [answer[key] for key in _ID_KEYS if isinstance(answer.get(key), str) and answer[key]]


# Sends an event step's body (filled in) to a URL ("" : the runner's listener); returns the
# answer's status (None: no answer), its body (decoded JSON or text) and an error, if any.
SendEvent = Callable[[dict[str, Any], str], Awaitable[tuple[int | None, Any, str]]]


async def run_fixture(
    client: ApiClient,
    fixture: Fixture,
    send_event: SendEvent | None = None,
    allowed: Allowed | None = None,
) -> AsyncIterator[StepResult]:
    """Run the steps in order, yielding each one's result; `FixtureError` at the first that
    fails (its `made`: every id made before). On a read-only client a fixture that writes is
    refused whole before its first step, as is one that reads an environment variable
    `allowed` does not name. Event steps go through `send_event` (signing is the listener
    side's, tui/payscope/webhooks/compose.py); one whose own `to` is a host that is not this machine
    nor the service needs `allowed.remote` (or a yes from `allowed.ask_remote`). A step
    without a `to` goes where the runner said (`send_event`'s default: its own listener, or
    the URL the user gave)."""
    allowed = allowed or Allowed()
    for name in env_names(fixture):
        if name not in allowed.env:
            step = next(
                s
                for s in fixture.steps
                if f"${{env.{name}}}"
                in json.dumps([s.path, s.body, dict(s.headers)], ensure_ascii=False)
            )
            raise FixtureError(
                f"${{env.{name}}} reads the environment variable {name}, which this run does "
                f"not allow (a fixture is someone else's code): nothing was run. To allow it, "
                + ENV_FIX.format(name=name),
                source=fixture.source,
                step=step,
                field_name="env",
            )
    # Event steps' own targets, known before the run (no reference in them): asked about, or
    # refused, before the first step.
    approved: set[str] = set()
    for step in fixture.steps:
        to = step.path
        if step.method != EVENT or not to or _refs(to) or to in approved:
            continue
        if is_remote(to, client.base_url):
            if not await _may_send(to, client.base_url, allowed):
                raise FixtureError(
                    _remote_problem(to, client.base_url, allowed) + " Nothing was run.",
                    source=fixture.source,
                    step=step,
                    field_name="to",
                )
            approved.add(to)
    if client.read_only:
        first = next((s for s in fixture.steps if s.writes), None)
        if first is not None:
            raise FixtureError(
                f"{first.method} writes, and this profile is read-only: nothing was run",
                source=fixture.source,
                step=first,
                field_name="method",
            )
    context = _Context(client)
    seen: set[str] = {v for v in context.builtins.values() if v}
    made: list[Made] = []
    for step in fixture.steps:

        def stop(
            problem: str, field_name: str, status: int | None = None, step: Step = step
        ) -> FixtureError:
            return FixtureError(
                problem,
                source=fixture.source,
                step=step,
                field_name=field_name,
                made=tuple(made),
                status=status,
            )

        filled: dict[str, Any] = {}
        for where, raw in (("path", step.path), ("body", step.body), ("headers", step.headers)):
            try:
                filled[where] = context.fill(raw)
            except LookupError as exc:
                raise stop(str(exc.args[0]), where) from None
        path = str(filled["path"])
        if step.method == EVENT:
            if send_event is None:
                raise stop("event steps are sent by payscope fixtures run or the TUI", "event")
            if path and path not in approved and is_remote(path, client.base_url):
                if not await _may_send(path, client.base_url, allowed):
                    raise stop(_remote_problem(path, client.base_url, allowed), "to")
                approved.add(path)
            started = time.monotonic()
            status_or_none, answer, error = await send_event(filled["body"], path)
            latency = (time.monotonic() - started) * 1000.0
            if status_or_none is None:
                raise stop(f"the event was not delivered: {error}", "to")
            ok = status_or_none in step.expect if step.expect else 200 <= status_or_none < 300
            if not ok:
                raise stop(
                    f"the event's target answered {status_or_none}; expected {_wanted(step)}",
                    "expect",
                    status_or_none,
                )
            event_id = str(filled["body"].get("event_id", ""))
            step_made: tuple[Made, ...] = (Made(step.name, event_id),) if event_id else ()
            made.extend(step_made)
            context.answers[step.name] = answer
            yield StepResult(step, step.method, path, status_or_none, latency, answer, step_made)
            continue
        if not path.startswith("/"):  # a reference cannot take a call off the service
            raise stop(f"the path filled in is {path!r}: it must start with /", "path")
        for text in _strings(("body", filled["body"])):
            seen.add(text[1])
        seen.update(part for part in path.split("/") if part)
        started = time.monotonic()
        try:
            status, answer = await client.exchange(
                step.method,
                path,
                body=filled["body"],
                headers=filled["headers"] or None,
                replay=Replay.SAFE if not step.writes else Replay.UNSAFE,
            )
        except errors.ApiError as exc:
            status = exc.status
            answer = {"error": {"type": exc.type, "code": exc.code, "message": exc.message}}
            if status not in step.expect:
                wanted = _wanted(step)
                said = f"{exc.code}: {exc.message}" if exc.code else exc.message
                raise stop(
                    f"{step.method} {path} answered {status} ({said}); expected {wanted}",
                    "expect",
                    status,
                ) from None
        except errors.ClientError as exc:
            raise stop(f"{step.method} {path} failed: {exc}", "path") from None
        else:
            if step.expect and status not in step.expect:
                raise stop(
                    f"{step.method} {path} answered {status}; expected {_wanted(step)}",
                    "expect",
                    status,
                )
        latency = (time.monotonic() - started) * 1000.0
        fresh = [i for i in _ids_in(answer) if i not in seen] if step.writes else []
        step_made = tuple(Made(step.name, i) for i in dict.fromkeys(fresh))
        made.extend(step_made)
        seen.update(_ids_in(answer))
        context.answers[step.name] = answer
        yield StepResult(step, step.method, path, status, latency, answer, step_made)


async def _may_send(url: str, base_url: str, allowed: Allowed) -> bool:
    if allowed.remote:
        return True
    return allowed.ask_remote is not None and await allowed.ask_remote(url)


def _remote_problem(url: str, base_url: str, allowed: Allowed) -> str:
    said = (
        f"the event would go to {url}, a host that is neither this machine nor the profile's "
        f"service ({base_url}): not sent."
    )
    if allowed.ask_remote is not None:
        return said + " You did not allow it."
    return f"{said} To send it, {REMOTE_FIX}."


def _wanted(step: Step) -> str:
    if not step.expect:
        return "a 2xx status"
    return " or ".join(str(e) for e in step.expect)


def append_event_step(path: Path | str, event: dict[str, Any], to: str = "") -> str:
    """Add a step that sends `event` (to `to`; "" : the runner's listener) at the end of the
    fixture in `path` (.toml or .json; made when missing), named after its event type; the
    step's name. The file is replaced whole, only once it is written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise FixtureError("a fixture is a .toml or .json file", source=str(path))
    data: dict[str, Any] = {"name": path.stem, "steps": []}
    if path.exists():
        load_fixture(path)  # a file with a mistake is said, not overwritten
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if suffix == ".json" else tomllib.loads(text)
    steps: list[dict[str, Any]] = data.setdefault("steps", [])
    taken = {str(s.get("name")) for s in steps}
    base = re.sub(r"[^A-Za-z0-9_-]", "_", str(event.get("event_type", "event"))) or "event"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    step: dict[str, Any] = {"name": name, "event": event}
    if to:
        step["to"] = to
    steps.append(step)
    if suffix == ".json":
        out = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        import tomli_w

        out = tomli_w.dumps(data)
    temp = path.with_name(f".{path.name}.saving")
    temp.write_text(out, encoding="utf-8")
    os.replace(temp, path)
    return name
