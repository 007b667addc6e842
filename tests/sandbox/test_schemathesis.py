"""Schemathesis against the sandbox's own OpenAPI document, over real HTTP, on a fixed set of
cases: stateless (the schema's examples, the coverage phase's edge values and fuzzing, valid and
invalid alike) and stateful (sequences that feed one answer's ids into the next request).
Zero 5xx allowed: the only check is `not_a_server_error`, so what fails here is a crash, never
a difference of opinion about the schema.

The `st` command line runs in a subprocess while the sandbox serves in this test's event loop.
What it runs does not depend on the machine's speed: the document is the sandbox app's own,
written to a file (no timed fetch), there is no time budget (`--max-examples` bounds each
operation), and generation is deterministic with a fixed `--seed`, so every run sends the same
cases and a failure replays with the command the output names.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from payscope.sandbox.server import Sandbox
from tests import waits
from tests.sandbox.conftest import API_KEY, make_sandbox

# `st` runs in a subprocess: found, not imported here (its import cost every worker 0.16 s).
if importlib.util.find_spec("schemathesis") is None:
    pytest.skip("schemathesis is in the dev extras", allow_module_level=True)
pytestmark = pytest.mark.slow

SEED = 14
# Cases per operation, at most, in fuzzing and in stateful testing. The coverage phase's edge
# values are a fixed set of their own (about 12,700 cases, most of the stateless run's time).
FUZZ_EXAMPLES = 5
STATEFUL_EXAMPLES = 20


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Sandbox, str]]:
    box = make_sandbox(tmp_path / "sandbox")
    url = await box.start()
    yield box, url
    await box.stop()


def operations(schema: dict[str, Any]) -> int:
    """How many operations the document describes (each is tested)."""
    verbs = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    return sum(1 for item in schema["paths"].values() for verb in item if verb in verbs)


async def run_schemathesis(
    box: Sandbox, url: str, phases: str, tmp_path: Path, examples: int
) -> str:
    """`st run` on the sandbox's OpenAPI document; returns its output, after checking it
    passed and ran every case it generated."""
    document = tmp_path / "openapi.json"
    schema = box.app.openapi()
    document.write_text(json.dumps(schema))
    command = [
        sys.executable, "-m", "schemathesis.cli", "run", str(document),
        "--url", url,
        "--header", f"api-key: {API_KEY}",
        "--header", f"X-Profile-Id: {box.credentials.profile_id}",
        "--checks", "not_a_server_error",
        "--phases", phases,
        "--max-examples", str(examples),
        "--generation-deterministic",
        "--workers", "1",
        "--seed", str(SEED),
        "--suppress-health-check", "all",
        "--report-dir", str(tmp_path / "report"),
        "--no-color",
    ]  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:  # the one deadline: a hang, never a slow machine
        out, _ = await asyncio.wait_for(process.communicate(), waits.HANG * 2)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError(f"st run did not end in {waits.HANG * 2:g} s") from None
    text = out.decode("utf-8", "replace")
    assert process.returncode == 0, text[-6000:]
    counts = re.search(r"Test cases:\s+(\d+) generated, (\d+) passed\s*$", text, re.M)
    assert counts, text[-2000:]
    generated, passed = map(int, counts.groups())
    # Every case generated ran and passed; the set is fixed (no time budget), at least one
    # case for each operation of the document.
    assert generated == passed >= operations(schema), text[-2000:]
    return text


@pytest.mark.long
async def test_stateless_no_5xx(served: tuple[Sandbox, str], tmp_path: Path) -> None:
    box, url = served
    text = await run_schemathesis(box, url, "examples,coverage,fuzzing", tmp_path, FUZZ_EXAMPLES)
    assert "Fuzzing" in text


async def test_stateful_no_5xx(served: tuple[Sandbox, str], tmp_path: Path) -> None:
    box, url = served
    text = await run_schemathesis(box, url, "stateful", tmp_path, STATEFUL_EXAMPLES)
    scenarios = re.search(r"Scenarios:\s+(\d+)", text)
    assert scenarios and int(scenarios.group(1)) > 0, text[-2000:]
