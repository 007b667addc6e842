"""`payscope get|post|delete PATH` at work: the body read and checked, one call through the
shared client, its JSON answer. Imported only when the subcommand runs (`payscope.cli.http`
parses it)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import TYPE_CHECKING, Any

from payscope.api import errors
from payscope.api.bodies import BodyError, prepare
from payscope.cli.headless import run_with_runtime
from payscope.cli.output import StartProgress, fail, neutralise, pipe_closed, print_json

if TYPE_CHECKING:
    from payscope.api.client import ApiClient

# The largest --json body read (a file or standard input).
MAX_BODY_BYTES = 1024 * 1024
_KEY = re.compile(r"([^\[\]=]+)((?:\[[^\[\]]*\])*)")


class UsageError(ValueError):
    """The command line asks for a body or path that cannot be sent (said for a person)."""


def parse_fields(items: list[str]) -> dict[str, Any]:
    """`-d` fields as one JSON object: `a=b` a string, `a:=1` a JSON value, `a[b]=c` nested,
    `a[]=c` a list item. The message of a mistake names the field, never its value."""
    body: dict[str, Any] = {}
    for number, item in enumerate(items, 1):
        equals = item.find("=")
        if equals <= 0:
            # Not quoted: without its `=`, the value may be anywhere in it (a card number).
            raise UsageError(f"-d field {number} is not KEY=VALUE (e.g. -d amount=1000)")
        value: Any
        if item[equals - 1] == ":":
            key, text = item[: equals - 1], item[equals + 1 :]
            try:
                value = json.loads(text)
            except ValueError:
                raise UsageError(f"-d {key}:=… is not a JSON value") from None
        else:
            key, value = item[:equals], item[equals + 1 :]
        _put(body, key, value)
    return body


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    match = _KEY.fullmatch(key)
    if match is None:
        raise UsageError(f"-d {key!r}: a key is NAME, NAME[a][b] or NAME[] (a list item)")
    parts = [match.group(1), *re.findall(r"\[([^\[\]]*)\]", match.group(2))]
    here: Any = body
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        following = None if last else parts[index + 1]
        if part == "":
            if not isinstance(here, list):
                raise UsageError(f"-d {key}: [] follows a field that is not a list")
            if last:
                here.append(value)
                return
            here.append([] if following == "" else {})
            here = here[-1]
            continue
        if isinstance(here, list):
            raise UsageError(f"-d {key}: a list item is named by [] alone")
        if last:
            if part in here:
                raise UsageError(f"-d {key} is given twice (or is also an object)")
            here[part] = value
            return
        child = here.setdefault(part, [] if following == "" else {})
        if not isinstance(child, list | dict) or (following == "") != isinstance(child, list):
            raise UsageError(f"-d {key}: {part} is both a value and an object (or a list)")
        here = child


def _read_json(spec: str) -> Any:
    if spec.startswith("@"):
        name = spec[1:]
        try:
            if name == "-":
                text = sys.stdin.buffer.read(MAX_BODY_BYTES + 1)
            else:
                with open(name, "rb") as handle:
                    text = handle.read(MAX_BODY_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"--json @{name}: cannot read it ({exc.strerror or exc})") from None
        where = "standard input" if name == "-" else name
        if len(text) > MAX_BODY_BYTES:
            raise UsageError(f"--json @{name}: {where} is over {MAX_BODY_BYTES // 1024} KiB")
    else:
        text, where = spec.encode(), "--json"
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{where} is not JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"{where} is nested too deeply to be a body") from None


def clean_path(path: str) -> str:
    """PATH as the client takes it: one leading `/`, no scheme or host, no spaces or controls."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", path) or path.startswith("//"):
        raise UsageError(
            f"{neutralise(path)!s} is a URL: give the path only (e.g. /payments/list); "
            "the profile says which service (--profile)"
        )
    if not path or any(ch.isspace() or not ch.isprintable() for ch in path):
        raise UsageError("PATH is empty or holds spaces or control characters")
    return path if path.startswith("/") else "/" + path


def _request(args: argparse.Namespace) -> tuple[str, str, Any, dict[str, Any] | None]:
    method = args.command.upper()
    path = clean_path(args.path)
    fields = parse_fields(args.data)
    if args.json is not None and fields:
        raise UsageError("give the body as -d fields or as --json, not both")
    if method == "GET" and args.json is not None:
        raise UsageError("a GET has no body: its -d fields are its query")
    body: Any = None
    params: dict[str, Any] | None = None
    if args.json is not None:
        body = _read_json(args.json)
    elif method == "POST":
        body = fields
    elif fields:
        params = {key: _query_value(value) for key, value in _flat(fields)}
    return method, path, body, params


def _flat(value: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, item in value.items():
        name = f"{prefix}[{key}]" if prefix else key
        if isinstance(item, dict):
            out += _flat(item, name)
        elif isinstance(item, list):
            out += [(f"{name}[]", element) for element in item]
        else:
            out.append((name, item))
    return out


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def run(args: argparse.Namespace) -> int:
    command = args.command
    try:
        method, path, body, params = _request(args)
    except UsageError as exc:
        return fail(command, str(exc), 2)
    try:
        prepared = prepare(method, path, body, typed_from_text=args.json is None)
    except BodyError as exc:
        return fail(command, f"{exc}; nothing was sent", 2)

    progress = StartProgress(command)

    async def work(client: ApiClient) -> int:
        progress.finish()
        try:
            answer = await client.request(
                method,
                path,
                body=prepared.body,
                params=params,
                replay=prepared.replay,
                resolve_duplicate=prepared.resolve_duplicate,
            )
        except errors.ApiError as exc:
            # The service's code and message first; then what the client advises.
            # Neutralised whole: a line break in the service's message shows as \u000a.
            code = f" {neutralise(exc.code)}" if exc.code else ""
            advice = str(exc).partition("\nWhat to do: ")[2]
            said = f"HTTP {exc.status}{code}: {neutralise(exc.message)}"
            return fail(command, f"{said}\nWhat to do: {advice}" if advice else said)
        except errors.ReadOnlyError as exc:
            return fail(command, str(exc), 2)
        except errors.ClientError as exc:
            return fail(command, str(exc))
        if answer is not None:
            try:
                print_json(answer)
            except RecursionError:
                return fail(command, f"the answer of {method} {path} is nested too deeply to print")
        return 0

    try:
        return run_with_runtime(args, lambda runtime: work(runtime.api), progress)
    except BrokenPipeError:
        return pipe_closed()
