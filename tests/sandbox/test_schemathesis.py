"""Schemathesis against the sandbox's own OpenAPI document, over real HTTP, for a bounded time:
stateless (the schema's examples, the coverage phase's edge values and random fuzzing, valid
and invalid alike) and stateful (sequences that feed one answer's ids into the next request).
Zero 5xx allowed: the only check is `not_a_server_error`, so what fails here is a crash, never
a difference of opinion about the schema.

The `st` command line runs in a subprocess while the sandbox serves in this test's event loop;
`--max-time` bounds each run (about 20 seconds each) and a fixed `--seed` makes a failure
reproducible: the output names the request, and `st run ... --seed N` replays it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.sandbox.conftest import API_KEY, make_sandbox
from tui.sandbox.server import Sandbox

# `st` runs in a subprocess: found, not imported here (its import cost every worker 0.16 s).
if importlib.util.find_spec("schemathesis") is None:
    pytest.skip("schemathesis is in the dev extras", allow_module_level=True)
pytestmark = pytest.mark.slow

SECONDS = 20
SEED = 14


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Sandbox, str]]:
    box = make_sandbox(tmp_path / "sandbox")
    url = await box.start()
    yield box, url
    await box.stop()


async def run_schemathesis(box: Sandbox, url: str, phases: str, tmp_path: Path) -> str:
    """`st run` on the sandbox's /openapi.json; returns its output, after checking it passed."""
    command = [
        sys.executable, "-m", "schemathesis.cli", "run", f"{url}/openapi.json",
        "--header", f"api-key: {API_KEY}",
        "--header", f"X-Profile-Id: {box.credentials.profile_id}",
        "--checks", "not_a_server_error",
        "--phases", phases,
        "--max-time", str(SECONDS),
        "--max-examples", "20",
        "--workers", "1",
        "--seed", str(SEED),
        "--suppress-health-check", "all",
        "--generation-database", "none",
        "--report-dir", str(tmp_path / "report"),
        "--no-color",
    ]  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(), SECONDS * 4)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    text = out.decode("utf-8", "replace")
    assert process.returncode == 0, text[-6000:]
    counts = re.search(r"Test cases:\s+(\d+) generated, (\d+) passed\s*$", text, re.M)
    assert counts, text[-2000:]
    generated, passed = map(int, counts.groups())
    # Every case ran and none failed (its time limit runs fewer on a loaded machine).
    assert generated == passed > 30, text[-2000:]
    return text


async def test_stateless_no_5xx(served: tuple[Sandbox, str], tmp_path: Path) -> None:
    box, url = served
    text = await run_schemathesis(box, url, "examples,coverage,fuzzing", tmp_path)
    assert "Fuzzing" in text


async def test_stateful_no_5xx(served: tuple[Sandbox, str], tmp_path: Path) -> None:
    box, url = served
    text = await run_schemathesis(box, url, "stateful", tmp_path)
    scenarios = re.search(r"Scenarios:\s+(\d+)", text)
    assert scenarios and int(scenarios.group(1)) > 0, text[-2000:]
