"""The docs' curl walkthrough of the local sandbox (docs/sandbox.md), run as written.

The bash blocks of "Walkthrough with curl" are read from docs/sandbox.md at test time and run, in
order, in one `bash` with `set -euo pipefail`, against a real `payscope sandbox` and a real
`payscope listen` started with the README's own setup flags (on free ports, in tmp_path). Every
`# -> ...` comment there is checked against what came back (HTTP status and error code, the
object's status, field values, and webhooks the listener accepted as verified); every other
curl must answer 2xx. The README's test-card table is compared with `/_sandbox/test-cards`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from payscope.cli import build_parser
from tests.waits import HANG, until_sync

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "docs" / "sandbox.md"  # the page of the walkthrough
GETTING_STARTED = ROOT / "docs" / "getting-started.md"
pytestmark = pytest.mark.slow

# Fixed so the run is the same every time; the publishable key has no flag and is read from
# the banner.
API_KEY = "snd_readmewalkthrough0000000000"
MERCHANT_ID = "merchant_readme"
PROFILE_ID = "pro_readmewalkthrough0000"
SCRIPT_TIMEOUT = 45.0


# Reading the README --------------------------------------------------------------------------


def payscope_command() -> str:
    """`payscope` as the README's reader runs it: from the venv's bin directory, which the
    quick start puts on PATH (`source .venv/bin/activate`)."""
    found = shutil.which("payscope", path=str(Path(sys.executable).parent))
    assert found, "the `payscope` command is not installed in this venv (make run installs it)"
    return found


def test_the_quick_start_puts_payscope_on_the_path() -> None:
    """Every later command says `payscope ...`: the quick start must say how that works."""
    quick = (
        GETTING_STARTED.read_text(encoding="utf-8")
        .split("## Quick start", 1)[1]
        .split("\n## ", 1)[0]
    )
    assert "source .venv/bin/activate" in quick
    assert "make sandbox" in quick and "make listen" in quick
    run = subprocess.run(
        ["bash", "-c", "source .venv/bin/activate && payscope --version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    if (ROOT / ".venv" / "bin" / "activate").exists():
        assert run.returncode == 0 and run.stdout.startswith("payscope "), run.stderr
    else:  # a suite run from another environment (CI's venv is .venv too)
        assert Path(payscope_command()).exists()


def sandbox_section(text: str) -> tuple[int, str]:
    """The sandbox page and the line number its text starts on (the whole page)."""
    return 1, text


def sh_blocks(text: str, first_line: int) -> list[tuple[int, str]]:
    """Each fenced ```sh block of `text`, with the docs/sandbox.md line number of its first line."""
    blocks = []
    for match in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M):
        line = first_line + text.count("\n", 0, match.start(1))
        blocks.append((line, match.group(1)))
    return blocks


def walkthrough_blocks(text: str) -> list[tuple[int, str]]:
    """The sh blocks between "## Walkthrough with curl" and "## Test cards"."""
    line, section = sandbox_section(text)
    start = section.index("## Walkthrough with curl")
    end = section.index("## Test cards")
    offset = line + section.count("\n", 0, start)
    return sh_blocks(section[start:end], offset)


def setup_commands(text: str) -> dict[str, Any]:
    """The `payscope listen` and `payscope sandbox` lines of the section's setup block, parsed
    by the real command line parser (so a flag the CLI does not have fails here)."""
    line, section = sandbox_section(text)
    parser = build_parser()
    found: dict[str, Any] = {}
    for _, block in sh_blocks(section[: section.index("## Walkthrough with curl")], line):
        for command in block.splitlines():
            words = shlex.split(command, comments=True)
            if words[:1] == ["payscope"] and words[1:2] in (["listen"], ["sandbox"]):
                found[words[1]] = parser.parse_args(words[1:])
    assert set(found) == {"listen", "sandbox"}, (
        "the sandbox section should show how to start both `payscope listen` and "
        f"`payscope sandbox`; found {sorted(found)}"
    )
    return found


def readme_card_table(text: str) -> list[dict[str, Any]]:
    """The README's test-card table as the JSON rows `/_sandbox/test-cards` should return."""
    _, section = sandbox_section(text)
    table = section[section.index("## Test cards") :]
    rows = []
    for line in table.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].isdigit():
            number, brand, outcome, code, description = cells
            rows.append(
                {
                    "card_number": number,
                    "brand": brand,
                    "outcome": outcome,
                    "unified_code": code or None,
                    "description": description,
                }
            )
    return rows


# The `# -> ...` claims -------------------------------------------------------------------------

CLAIM = re.compile(r"\s#\s*->\s*([^:\n]*)")
HTTP_CLAIM = re.compile(r"(\d{3})(?:\s+([A-Z]{2}_\d+))?")
WORD = re.compile(r"[a-z][a-z0-9_]*")


@dataclass
class Claim:
    """What one docs/sandbox.md line says comes back."""

    line: int
    http_status: int | None = None
    error_code: str | None = None
    fields: list[tuple[str, str]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)


def parse_claim(line_no: int, line: str) -> Claim | None:
    """The claim of a `# -> a, b, c: prose` comment, or None for a line without one."""
    match = CLAIM.search(line)
    if match is None:
        return None
    claim = Claim(line_no)
    for part in (p.strip() for p in match.group(1).split(",")):
        if not part:
            continue
        if http := HTTP_CLAIM.fullmatch(part):
            claim.http_status = int(http.group(1))
            claim.error_code = http.group(2)
        elif part.startswith("event "):
            claim.events.append(part.removeprefix("event ").strip())
        elif " " in part:
            path, value = part.split(" ", 1)
            claim.fields.append((path, value.strip()))
        elif WORD.fullmatch(part):
            claim.fields.append(("status", part))
        else:
            raise AssertionError(f"docs/sandbox.md line {line_no}: cannot read the claim {part!r}")
    return claim


def lookup(document: Any, path: str) -> Any:
    """`a.0.b` in a decoded JSON document (KeyError/IndexError when it is not there)."""
    value = document
    for key in path.split("."):
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


def same(actual: Any, written: str) -> bool:
    """A README value (`succeeded`, `700`, `true`, `null`) against a JSON value."""
    if isinstance(actual, str):
        return actual == written
    return json.dumps(actual) == written


def test_claims_are_read_as_the_readme_explains() -> None:
    line = "curl -s $SB/x \"${H[@]}\" -d '{}'   # -> 409 HE_01, failed, a.0.b two words: prose"
    claim = parse_claim(7, line)
    assert claim == Claim(7, 409, "HE_01", [("status", "failed"), ("a.0.b", "two words")], [])
    events = parse_claim(8, "curl -s $SB/y   # -> succeeded, event payment_succeeded")
    assert events is not None and events.events == ["payment_succeeded"]
    assert parse_claim(9, "curl -s $SB/z   # the table below, as JSON") is None
    assert lookup({"a": [{"b": 1}]}, "a.0.b") == 1
    assert same(700, "700") and same(True, "true") and same(None, "null")
    assert same("5550100", "5550100") and not same(5550100, "5550101")


# Running it ------------------------------------------------------------------------------------

# Each curl the README runs goes through this function: it answers exactly what curl would
# print (so `| jq` and `$(...)` work unchanged) and notes the docs/sandbox.md line, status and body.
CURL_SHIM = r"""
set -euo pipefail
curl() {
  local body status rc=0
  body=$(mktemp "$WALK_LOG/body.XXXXXX")
  status=$(command curl -o "$body" -w '%{http_code}' "$@") || rc=$?
  printf '%s %s %s\n' "${BASH_LINENO[0]}" "${status:-000}" "$body" >> "$WALK_LOG/index"
  cat "$body"
  return "$rc"
}
"""


@dataclass
class Call:
    """One curl of the walkthrough: its docs/sandbox.md line, HTTP status and body."""

    line: int
    status: int
    body: str

    def json(self) -> Any:
        return json.loads(self.body)


def build_script(blocks: list[tuple[int, str]], values: dict[str, str]) -> tuple[str, list[int]]:
    """The bash script, and for each of its lines (1-based) the docs/sandbox.md line it came from (0
    for the shim). The README's `export` line of placeholders becomes a bare `export` of the
    same names: their values come from the environment, so no key is written to a file."""
    lines = CURL_SHIM.lstrip("\n").splitlines()
    origin = [0] * len(lines)
    replaced = False
    for first, block in blocks:
        for i, line in enumerate(block.splitlines()):
            if not replaced and line.startswith("export "):
                names = [word.split("=", 1)[0] for word in shlex.split(line)[1:]]
                unknown = sorted(set(names) - set(values))
                assert not unknown, f"the README sets {unknown}, which this test cannot fill in"
                line = "export " + " ".join(names)
                replaced = True
            lines.append(line)
            origin.append(first + i)
    assert replaced, "the walkthrough should start by exporting the variables to set"
    return "\n".join(lines) + "\n", origin


def wait_for(path: Path, marker: str, proc: subprocess.Popen[bytes]) -> str:
    """The text of `path` once it contains `marker` (the process's start-up header)."""

    def started() -> str:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if proc.poll() is not None:
            raise AssertionError(f"{proc.args!r} exited with {proc.returncode}: {text}")
        return text if marker in text else ""

    shown: str = until_sync(
        started, f"{proc.args!r} to start", detail=lambda: path.read_text(encoding="utf-8")
    )
    return shown


def banner_value(banner: str, label: str) -> str:
    found = re.search(rf"^\s*{label}\s+(\S+)", banner, re.M)
    assert found, f"the sandbox banner has no {label!r}: {banner}"
    return found.group(1)


def listener_records(path: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


@dataclass
class Services:
    """The running pair: the values of the README's variables, and the listener's JSON lines."""

    values: dict[str, str]
    listener_lines: Path


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    """The README's listener and sandbox as subprocesses, on free ports in tmp_path."""
    setup = setup_commands(README.read_text(encoding="utf-8"))
    listen, sandbox = setup["listen"], setup["sandbox"]
    # What the README's two commands must agree on for deliveries to arrive verified.
    assert sandbox.webhook_secret and sandbox.webhook_secret in (listen.secret or []), (
        "the README's `payscope sandbox` must sign with a secret its `payscope listen` accepts"
    )
    hook = urlsplit(sandbox.webhook_url or "")
    assert (hook.hostname, hook.port, hook.path) == ("127.0.0.1", listen.port, "/webhooks"), (
        "the README's --webhook-url should be the listener's own URL"
    )
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    procs: list[subprocess.Popen[bytes]] = []
    listen_out, listen_err = tmp_path / "listen.jsonl", tmp_path / "listen.err"
    sandbox_out = tmp_path / "sandbox.out"
    try:
        secrets = [a for s in listen.secret for a in ("--secret", s)]
        listen_argv = [*secrets, "--port", "0", "--format", "json"]
        with listen_out.open("wb") as out, listen_err.open("wb") as err:
            procs.append(
                subprocess.Popen(
                    [
                        payscope_command(),
                        "listen",
                        *listen_argv,
                        "--data",
                        str(tmp_path / "listener"),
                    ],
                    cwd=ROOT,
                    stdout=out,
                    stderr=err,
                    env=env,
                )
            )
        header = wait_for(listen_err, "Ctrl+C stops.", procs[0])
        found = re.search(r"(http://\S+/webhooks)", header)
        assert found, header
        hook_url = found.group(1)
        sandbox_argv = [
            *("--port", "0", "--data", str(tmp_path / "sandbox"), "--seed", str(sandbox.seed)),
            *("--webhook-url", hook_url, "--webhook-secret", sandbox.webhook_secret),
            *("--api-key", API_KEY, "--merchant-id", MERCHANT_ID, "--profile-id", PROFILE_ID),
        ]
        with sandbox_out.open("wb") as out:
            procs.append(
                subprocess.Popen(
                    [payscope_command(), "sandbox", *sandbox_argv],
                    cwd=ROOT,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            )
        banner = wait_for(sandbox_out, "Ctrl+C stops it.", procs[1])
        assert banner_value(banner, "secret key") == API_KEY
        values = {
            "SB": banner_value(banner, "base URL"),
            "KEY": API_KEY,
            "PK": banner_value(banner, "publishable key"),
            "MID": MERCHANT_ID,
            "PRO": PROFILE_ID,
            "HOOK": hook_url,
        }
        yield Services(values, listen_out)
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(HANG)


def run_walkthrough(
    script: str, origin: list[int], values: dict[str, str], tmp_path: Path
) -> list[Call]:
    """Run the script in bash with `values` in its environment; every curl it made, in order."""
    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    assert not missing, f"the README's walkthrough needs {missing}: apt-get install {missing}"
    log = tmp_path / "calls"
    log.mkdir()
    path = tmp_path / "walkthrough.sh"
    path.write_text(script, encoding="utf-8")
    done = subprocess.run(
        ["bash", str(path)],
        cwd=tmp_path,
        env={**os.environ, **values, "WALK_LOG": str(log)},
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT,
    )
    index = log / "index"
    calls = []
    for entry in index.read_text(encoding="utf-8").splitlines() if index.exists() else []:
        script_line, status, body = entry.split(" ", 2)
        calls.append(
            Call(origin[int(script_line) - 1], int(status), Path(body).read_text(encoding="utf-8"))
        )
    shutil.rmtree(log)  # the answers hold the keys the walkthrough creates
    where = (
        f"after the curl on docs/sandbox.md line {calls[-1].line}" if calls else "before any curl"
    )
    assert done.returncode == 0, f"the walkthrough stopped {where}:\n{done.stderr[-2000:]}"
    return calls


Wanted = tuple[int, str, set[str]]  # docs/sandbox.md line, event type, the ids of its object


def check_claim(claim: Claim, call: Call) -> tuple[list[str], list[Wanted]]:
    """What differs from the claim, and the events it promises."""
    try:
        document = call.json()
    except json.JSONDecodeError:
        return [f"line {claim.line}: not JSON: {call.body[:300]}"], []
    failures = []
    if claim.http_status is not None and call.status != claim.http_status:
        failures.append(f"line {claim.line}: HTTP {call.status}, README says {claim.http_status}")
    if claim.error_code is not None:
        code = document.get("error", {}).get("code") if isinstance(document, dict) else None
        if code != claim.error_code:
            failures.append(f"line {claim.line}: error {code}, README says {claim.error_code}")
    for path, value in claim.fields:
        try:
            actual = lookup(document, path)
        except (KeyError, IndexError, TypeError, ValueError):
            failures.append(f"line {claim.line}: no {path} in {call.body[:300]}")
            continue
        if not same(actual, value):
            failures.append(f"line {claim.line}: {path} is {actual!r}, README says {value}")
    # The object the line answers: any top-level id it carries (payment_id, id, ...).
    ids = (
        {v for v in document.values() if isinstance(v, str)}
        if isinstance(document, dict)
        else set()
    )
    return failures, [(claim.line, name, ids) for name in claim.events]


def check_cards(text: str, calls: list[Call]) -> list[str]:
    """The walkthrough's `/_sandbox/test-cards` answer against the README's table."""
    readme_lines = text.splitlines()
    cards = [c for c in calls if "/_sandbox/test-cards" in readme_lines[c.line - 1]]
    if len(cards) != 1:
        return [f"the test-cards line should run once, ran {len(cards)} times"]
    table = readme_card_table(text)
    served = [{k: row.get(k) for k in table[0]} for row in cards[0].json()["data"]]
    if served == table:
        return []
    extra = [r for r in served if r not in table][:3]
    absent = [r for r in table if r not in served][:3]
    return [
        f"/_sandbox/test-cards vs the README's table: served only {extra}, README only {absent}"
    ]


def check_events(wanted: list[Wanted], listener_lines: Path) -> list[str]:
    """Wait (bounded: deliveries are asynchronous) for each promised event, verified, for its
    object; and no delivery the listener refused."""

    def missing() -> list[Wanted]:
        seen = {
            (r["event_type"], r["object_id"])
            for r in listener_records(listener_lines)
            if r["verified"] and r["http_status"] == 200
        }
        return [w for w in wanted if not any((w[1], i) in seen for i in w[2])]

    def settled() -> bool:
        return not missing() or any(not r["verified"] for r in listener_records(listener_lines))

    with contextlib.suppress(AssertionError):  # a hang: the failures below say what is missing
        until_sync(settled, "a verified delivery for every object the walkthrough made")
    failures = [f"line {n}: no verified {name} for its object" for n, name, _ in missing()]
    refused = [r for r in listener_records(listener_lines) if not r["verified"]]
    if refused:
        failures.append(f"the listener refused deliveries: {refused[:3]}")
    if not listener_records(listener_lines):
        failures.append("no webhook reached the listener")
    return failures


def test_the_walkthrough_runs_as_written(services: Services, tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    blocks = walkthrough_blocks(text)
    script, origin = build_script(blocks, services.values)
    calls = run_walkthrough(script, origin, services.values, tmp_path)

    claims = {}
    for first, block in blocks:
        for i, line in enumerate(block.splitlines()):
            if (claim := parse_claim(first + i, line)) is not None:
                claims[claim.line] = claim
    assert claims, "the walkthrough has no `# -> ...` claims left to check"

    failures = [
        f"line {call.line}: HTTP {call.status}, not 2xx: {call.body[:300]}"
        for call in calls
        if not 200 <= call.status < 300
        and (call.line not in claims or claims[call.line].http_status is None)
    ]
    wanted: list[Wanted] = []
    for line_no, claim in claims.items():
        answered = [call for call in calls if call.line == line_no]
        if len(answered) != 1:
            failures.append(f"line {line_no}: the claim needs one curl, found {len(answered)}")
            continue
        found, events = check_claim(claim, answered[0])
        failures += found
        wanted += events
    failures += check_cards(text, calls)
    failures += check_events(wanted, services.listener_lines)
    assert not failures, "the README's walkthrough is not what the sandbox does:\n" + "\n".join(
        failures
    )
