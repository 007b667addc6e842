"""`payscope completion bash|zsh|fish` (tui/payscope/cli/completion.py), tested by bash itself:
the script is sourced, `complete -p payscope` names its function, and COMP_WORDS/compgen
complete subcommands, options, their values, scenario names, areas and profile names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from payscope.api.scenarios import SCENARIOS
from payscope.cli.export import AREAS
from payscope.core import config
from tests.cli.conftest import ROOT, payscope

BIN = str(Path(sys.executable).parent)


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    done = payscope("completion", "bash")
    assert done.returncode == 0, done.stderr
    path = tmp_path_factory.mktemp("completion") / "payscope.bash"
    path.write_text(done.stdout)
    return path


def complete(script: Path, *words: str) -> list[str]:
    """What bash offers for the last of `words` (`payscope` first), as a user's Tab does."""
    program = (
        f"source {script}\n"
        "COMP_WORDS=(" + " ".join(f"'{w}'" for w in words) + ")\n"
        f"COMP_CWORD={len(words) - 1}\n"
        'COMP_LINE="${COMP_WORDS[*]}"\n'
        "_payscope\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"},
        cwd=ROOT,
    )
    assert done.stderr == ""
    return [line for line in done.stdout.splitlines() if line]


def test_bash_registers_the_function(script: Path) -> None:
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", f"source {script} && complete -p payscope"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "complete -o default -F _payscope payscope"


def test_subcommands_and_their_options(script: Path) -> None:
    commands = complete(script, "payscope", "")
    for name in ("get", "post", "delete", "trigger", "logs", "completion", "export", "sandbox"):
        assert name in commands
    assert "__complete" not in commands  # hidden
    assert complete(script, "payscope", "tr") == ["trigger"]
    assert complete(script, "payscope", "logs", "") == ["tail"]
    assert set(complete(script, "payscope", "logs", "tail", "--")) >= {
        "--status",
        "--method",
        "--path",
        "--format",
        "--profile",
    }
    assert complete(script, "payscope", "get", "/x", "--js") == ["--json"]
    assert complete(script, "payscope", "logs", "tail", "--format", "") == ["text", "json"]
    assert complete(script, "payscope", "completion", "") == ["bash", "zsh", "fish"]


def test_scenarios_areas_and_profiles(script: Path) -> None:
    assert complete(script, "payscope", "trigger", "") == [s.name for s in SCENARIOS]
    assert complete(script, "payscope", "trigger", "--format", "json", "ren") == [
        "renewal",
        "renewal_fails",
    ]
    assert complete(script, "payscope", "export", "") == list(AREAS)
    settings = config.load_settings()
    for name in ("box", "backup"):
        settings = config.add_profile(
            settings, config.Profile(name=name, base_url="http://127.0.0.1:1", contract="spec")
        )
    config.save_settings(settings)
    # Asked at each Tab: a profile added after the script was made is offered too.
    assert complete(script, "payscope", "--profile", "") == ["backup", "box"]
    assert complete(script, "payscope", "get", "/payments/list", "--profile", "bo") == ["box"]
    assert complete(script, "payscope", "--profile", "box", "trig") == ["trigger"]


def test_the_hidden_lister_and_the_other_shells() -> None:
    listed = payscope("__complete", "scenarios")
    assert listed.stdout.split() == [s.name for s in SCENARIOS]
    assert payscope("__complete", "areas").stdout.split() == list(AREAS)
    assert payscope("__complete", "profiles").stdout == ""  # none configured: nothing, no error
    zsh = payscope("completion", "zsh").stdout
    assert zsh.startswith("#compdef payscope") and "bashcompinit" in zsh and "_payscope()" in zsh
    fish = payscope("completion", "fish").stdout
    assert "complete -c payscope -n __fish_use_subcommand -a trigger" in fish
    assert "-l profile -x -a '(payscope __complete profiles)'" in fish  # no files offered
    assert "renewal_fails" in fish


def test_help_lists_the_new_commands() -> None:
    done = payscope("--help")
    for line in ("payscope get|post|delete PATH", "payscope trigger", "payscope logs tail"):
        assert line in done.stdout
    for name in ("get", "post", "delete", "trigger", "logs", "completion"):
        assert f"    {name} " in done.stdout


@pytest.mark.parametrize("command", ["get", "post", "delete", "trigger", "logs", "completion"])
def test_each_help_names_its_section_of_the_command_line_page(command: str) -> None:
    import re

    done = payscope(command, "--help")
    assert done.returncode == 0
    (anchor,) = re.findall(r"docs/cli\.md#([\w-]+)", done.stdout)
    page = (ROOT / "docs" / "cli.md").read_text()
    headings = {
        explicit or re.sub(r"[^\w-]", "", title.lower().replace(" ", "-"))
        for title, explicit in re.findall(r"^## (.+?)(?: \{#([\w-]+)\})?$", page, re.MULTILINE)
    }
    assert anchor in headings
