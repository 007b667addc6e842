"""What an area is (`Area`: its key, title, id prefix and word, search kind, list view, detail,
filter grammar and export source), and the registry of them all (`Registry`).

Each `tui/payscope/areas/<name>/__init__.py` says what its area is in one `AREA`; `payscope.areas`
collects
them (one folder per area, nothing else to edit) and installs the registry here, so the views
and the areas read it (`registry()`) without importing an area. Everything an `Area` names is a
lazy "module:name" string, imported on first use: an area costs nothing until it is opened, and
reading the registry loads no Textual.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from payscope.api.ids import ID_PREFIX

if TYPE_CHECKING:
    from textual.screen import Screen

    from payscope.api.export import ListSource
    from payscope.views.area import AreaView
    from payscope.views.filters import Grammar


def _load(reference: str) -> Any:
    """What "module:name" names (the module imported on first use)."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class Area(NamedTuple):
    """One area: the navigation rail, command mode (`:payments`, `:pay <id>`), find and export."""

    key: str  # its view's id and command-mode name (`:payments`)
    title: str
    description: str
    place: int  # its place on the rail, lowest first
    view: str  # "module:Class" of its AreaView
    detail: str | None = None  # "module:Class" of its records' DetailScreen (built with an id)
    word: str | None = None  # command mode's word that opens one of its records (`:pay <id>`)
    kind: str | None = None  # the kind find (`payscope.api.search`) calls its records
    grammar: str | None = None  # "module:name" of its filter's Grammar (or what makes one)
    export: str | None = None  # "module:name" of what gives the ListSource `payscope export` reads

    @property
    def id_prefix(self) -> str | None:
        """What its records' ids start with (`pay_`): its kind's, as the API layer keeps it."""
        return ID_PREFIX.get(self.kind) if self.kind else None

    def build(self) -> AreaView:
        """A new view of this area (its module imported on first use)."""
        view: AreaView = _load(self.view)(id=self.key)
        return view

    def detail_screen(self, record_id: str) -> Screen[Any]:
        """The detail of one of this area's records, to push over another area's screen (a
        customer's payment: Esc comes back to the customer). Its module imported on first use."""
        assert self.detail is not None, f"{self.key} has no detail screen"
        screen: Screen[Any] = _load(self.detail)(record_id)
        return screen

    def filter_grammar(self) -> Grammar:
        """Its list's filter grammar (as `/` reads it in the list)."""
        assert self.grammar is not None, f"{self.key} has no filter grammar"
        found = _load(self.grammar)
        grammar: Grammar = found() if callable(found) else found
        return grammar

    def export_source(self) -> ListSource:
        """How `payscope export` reads its list, a page at a time."""
        assert self.export is not None, f"{self.key} is not exported"
        source: ListSource = _load(self.export)()
        return source


class Registry:
    """Every area, in the rail's order, and the lookups the shell, find and export make."""

    def __init__(self, areas: Iterable[Area]) -> None:
        self.areas: tuple[Area, ...] = tuple(sorted(areas, key=lambda a: (a.place, a.key)))
        self.by_key: dict[str, Area] = {area.key: area for area in self.areas}
        # Command-mode words that open a record by id, k9s style: `:pay pay_123`.
        self.id_commands: dict[str, str] = {a.word: a.key for a in self.areas if a.word}
        # Search kinds and the areas that show them.
        self.area_of_kind: dict[str, str] = {a.kind: a.key for a in self.areas if a.kind}
        self.kind_of_area: dict[str, str] = {a.key: a.kind for a in self.areas if a.kind}
        # Longest prefix first: `payout_` must win over `pay_`.
        self._by_prefix = sorted(
            (a for a in self.areas if a.id_prefix), key=lambda a: -len(a.id_prefix or "")
        )

    def __iter__(self) -> Iterator[Area]:
        return iter(self.areas)

    def for_id(self, object_id: str) -> Area | None:
        """The area whose records carry `object_id`'s prefix (`pay_...` -> Payments)."""
        for area in self._by_prefix:
            if area.id_prefix and object_id.startswith(area.id_prefix):
                return area
        return None


_installed: Registry | None = None


def install(areas: Registry) -> None:
    """Make `areas` the registry `registry()` gives (done by `payscope.areas` when imported)."""
    global _installed
    _installed = areas


def registry() -> Registry:
    """The areas of the app, as `payscope.areas` collected them."""
    assert _installed is not None, "no areas installed: import payscope.areas first"
    return _installed
