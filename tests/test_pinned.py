"""What is tested is what is pinned: Textual, Rich and textual-plotext exactly in pyproject.toml,
everything else in requirements.lock, and the environment the suite runs in holds exactly those
versions (`make test` installs from the lock). `make upgrade-check` runs the suite on the newest
versions allowed, this check left out."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
EXACT = ("textual", "rich", "textual-plotext")
LINE = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def _project() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {"runtime": project["dependencies"], "dev": project["optional-dependencies"]["dev"]}


def locked(text: str) -> dict[str, tuple[str, Marker | None]]:
    """The lock's pins: {canonical name: (version, environment marker or None)}."""
    pins: dict[str, tuple[str, Marker | None]] = {}
    for line in text.splitlines():
        match = LINE.match(line)
        if match:
            name, pinned, marker = match.groups()
            pins[canonicalize_name(name)] = (pinned, Marker(marker) if marker else None)
    return pins


def _lock() -> dict[str, tuple[str, Marker | None]]:
    return locked((ROOT / "requirements.lock").read_text(encoding="utf-8"))


def test_the_ui_libraries_are_pinned_exactly() -> None:
    requirements = {Requirement(r).name: Requirement(r) for r in _project()["runtime"]}
    for name in EXACT:
        specifiers = list(requirements[name].specifier)
        assert len(specifiers) == 1 and specifiers[0].operator == "==", (name, specifiers)


def test_the_lock_holds_every_requirement_at_an_allowed_version() -> None:
    """pyproject.toml changed without `make lock` fails here."""
    pins = _lock()
    wrong = []
    for requirements in _project().values():
        for text in requirements:
            requirement = Requirement(text)
            name = canonicalize_name(requirement.name)
            if name not in pins:
                wrong.append(f"{name}: not in requirements.lock")
            elif not requirement.specifier.contains(pins[name][0], prereleases=True):
                wrong.append(f"{name}: locked {pins[name][0]}, pyproject.toml asks {text!r}")
    assert wrong == [], "run `make lock`:\n" + "\n".join(wrong)


def test_what_is_installed_is_what_is_pinned() -> None:
    """Every locked package meant for this platform is installed at its locked version."""
    wrong = []
    for name, (pinned, marker) in sorted(_lock().items()):
        if marker is not None and not marker.evaluate():
            continue
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "not installed"
        if installed != pinned:
            wrong.append(f"{name}: {installed}, locked {pinned}")
    assert wrong == [], "reinstall from the lock (`make clean test`):\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("textual==8.2.8 \\", ("textual", "8.2.8", None)),
        ("jaraco.classes==3.4.0", ("jaraco-classes", "3.4.0", None)),
        (
            "colorama==0.4.6 ; sys_platform == 'win32' \\",
            ("colorama", "0.4.6", 'sys_platform == "win32"'),
        ),
        ("    --hash=sha256:0a30 \\", None),
        ("    # via textual", None),
    ],
)
def test_the_lock_is_read_line_by_line(line: str, expected: tuple[str, ...] | None) -> None:
    pins = locked(line)
    if expected is None:
        assert pins == {}
    else:
        name, pinned, marker = expected
        found_version, found_marker = pins[name]
        assert found_version == pinned
        assert (str(found_marker) if found_marker else None) == marker
