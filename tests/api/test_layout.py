"""How the API package is laid out: the client builds the resources, so a resource never imports
the client (it types it as `payscope.api.resources._base.Caller`); the catalogue of trigger
scenarios never imports what plays them. Every import counts here, inside a function or under
TYPE_CHECKING too: either would close a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from payscope.api.client import ApiClient
from payscope.api.resources._base import Caller

API = Path(__file__).resolve().parents[2] / "tui" / "payscope" / "api"


def _imported(path: Path) -> set[str]:
    """Every module `path` imports, wherever in it the import is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


RESOURCES = sorted((API / "resources").glob("*.py"))


@pytest.mark.parametrize("path", RESOURCES, ids=[p.stem for p in RESOURCES])
def test_a_resource_never_imports_the_client(path: Path) -> None:
    client = {"payscope.api.client", "payscope.api.http_core", "payscope.api.client.ApiClient"}
    assert not _imported(path) & client, f"{path.name} imports the client"


async def test_the_client_is_what_a_resource_calls_through() -> None:
    async with ApiClient("http://127.0.0.1:1", "snd_layout") as client:
        caller: Caller = client
        assert caller.contract == "spec"


def test_the_catalogue_of_scenarios_never_imports_what_plays_them() -> None:
    imported = _imported(API / "scenarios.py")
    assert not {m for m in imported if m.startswith("payscope.api.trigger")}
    assert not {m for m in imported if m.startswith(("payscope.api.client", "payscope.api.models"))}
