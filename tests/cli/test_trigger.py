"""`payscope trigger SCENARIO` (tui/payscope/cli/trigger.py): the TUI's Trigger scenarios
headless,
from the one catalogue (tui/payscope/api/scenarios.py), on the embedded sandbox and a remote
profile."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from payscope.api.scenarios import SCENARIOS
from tests.cli.conftest import ROOT, Remote, no_traceback, payscope
from tests.sandbox.conftest import API_KEY
from tests.waits import REQUEST_TIMEOUT


def test_list_names_each_scenario_with_its_description() -> None:
    done = payscope("trigger", "--list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(SCENARIOS)
    for line, scenario in zip(lines, SCENARIOS, strict=True):
        assert line.split()[0] == scenario.name and scenario.help in line
    as_json = [
        json.loads(line)
        for line in payscope("trigger", "--list", "--format", "json").stdout.splitlines()
    ]
    assert [s["name"] for s in as_json] == [s.name for s in SCENARIOS]


def test_an_unknown_scenario_names_the_ones_there_are() -> None:
    done = payscope("trigger", "refund")
    no_traceback(done)
    assert done.returncode == 2 and "refund_fails" in done.stderr and "one_step" in done.stderr


def test_the_catalogue_costs_nothing_to_import() -> None:
    """--list and completion read the catalogue without the client, the models or Textual."""
    code = (
        "import sys, payscope.api.scenarios, payscope.cli; payscope.cli.build_parser(); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'httpx', 'pydantic', 'textual', 'rich', 'orjson', 'payscope.api.client'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_on_the_embedded_sandbox_each_step_and_what_it_made(embedded: Path) -> None:
    done = payscope("--seed", "0", "trigger", "dispute")
    no_traceback(done)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("dispute: Dispute opened")
    assert lines[1].startswith(" 1. POST /payments -> 200  made pay_")
    assert lines[2].startswith(" 2. POST /_sandbox/disputes -> 200  made dp_")
    dispute = lines[2].rsplit("made ", 1)[1]
    assert lines[3].startswith(f"made disputes {dispute}: Dispute {dispute} opened")
    read = payscope("get", f"/disputes/{dispute}")
    assert read.returncode == 0 and json.loads(read.stdout)["dispute_id"] == dispute
    # The paid link pays through its checkout with the local sandbox's publishable key.
    link = payscope("trigger", "link_paid", "--format", "json")
    assert link.returncode == 0, link.stderr
    steps = [json.loads(line) for line in link.stdout.splitlines()]
    assert steps[-1]["scenario"] == "link_paid" and steps[-1]["area"] == "links"
    assert [s["step"] for s in steps[:-1]] == [1, 2, 3]
    assert steps[2]["path"].endswith("/confirm (checkout)") and steps[2]["status"] == 200


def test_on_a_remote_profile_in_json(remote: Remote) -> None:
    done = payscope("trigger", "renewal", "--profile", "box", "--format", "json")
    no_traceback(done)
    assert done.returncode == 0, done.stderr
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    *steps, outcome = objects
    assert [(s["method"], s["path"].split("/")[1]) for s in steps] == [
        ("POST", "customers"),
        ("POST", "subscriptions"),
        ("GET", "_sandbox"),
        ("POST", "_sandbox"),
        ("GET", "subscriptions"),
    ]
    assert steps[0]["made"][0].startswith("cus_")
    subscription = outcome["id"]
    assert subscription in steps[1]["made"] and outcome["area"] == "subscriptions"
    answer = httpx.get(
        f"{remote.url}/subscriptions/{subscription}",
        timeout=REQUEST_TIMEOUT,
        headers={"api-key": API_KEY, "X-Profile-Id": "pro_box"},
    )
    assert answer.status_code == 200, answer.text


def test_read_only_refuses_before_anything_is_sent(remote: Remote) -> None:
    done = payscope("trigger", "one_step", "--profile", "box", "--read-only")
    no_traceback(done)
    assert done.returncode == 2 and "read-only: nothing was sent" in done.stderr
    from payscope.api.request_log import request_log_path
    from payscope.core import paths

    assert not request_log_path(paths.data_dir(), "box").exists()


def test_a_scenario_that_cannot_go_on_says_why_and_what_it_did(remote: Remote) -> None:
    """A remote profile's paid link needs its publishable key, which this one lacks."""
    done = payscope("trigger", "link_paid", "--profile", "box")
    no_traceback(done)
    assert done.returncode == 1, done.stdout
    assert " 1. POST /payment_link -> 200  made plink_" in done.stdout
    assert (
        "publishable key" in done.stderr and "payscope keys set --kind publishable" in done.stderr
    )
