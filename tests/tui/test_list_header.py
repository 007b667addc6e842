"""The title bar of a list (tui/payscope/views/list_header.py) from what a list knows, without an
app: the counts and paging for a list with a total and one paged by cursor, a filter matched in
the view, records made elsewhere, and a load that failed; and the messages both tables of
records post (tui/payscope/views/rows.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from payscope.views.filters import Filter
from payscope.views.line_table import LineTable
from payscope.views.list_header import header_of
from payscope.views.rows import RowKeeping
from payscope.views.table import ResourceTable


@dataclass
class Shown:
    """A list's state, as the title bar reads it."""

    rows: dict[str, Any] = field(default_factory=dict)
    title: str = "Refunds"
    noun: str = "refunds"
    page_size: int = 2
    filter: Filter = field(default_factory=Filter)
    loaded: bool = True
    load_error: str = ""
    stall_note: str | None = None
    scanned: tuple[int, bool] | None = None
    total: int = 0
    total_known: bool = True
    page_offset: int = 0
    new_count: int = 0

    def loading_text(self) -> str:
        return "loading…"

    def header_extra(self, header: Text) -> None:
        header.append("  extra")


def rows(count: int) -> dict[str, Any]:
    return {f"re_{n}": n for n in range(count)}


def test_a_page_of_a_known_total_says_where_it_is() -> None:
    said = header_of(Shown(rows=rows(2), total=5, page_offset=2)).plain
    assert said == "Refunds  3-4 of 5  page 2/3  extra"


def test_a_list_without_a_total_says_that_more_may_follow() -> None:
    said = header_of(Shown(rows=rows(2), total=2, total_known=False)).plain
    assert said == "Refunds  1-2 of 2 or more  page 1  extra"


def test_a_filter_matched_in_the_view_says_how_far_it_looked() -> None:
    view = Shown(rows=rows(1), scanned=(300, False), filter=Filter(text="re_0"))
    assert header_of(view).plain == (
        "Refunds  1 match in the newest 300 refunds  extra  filter re_0"
    )


def test_records_made_elsewhere_are_counted_with_the_key_that_shows_them() -> None:
    said = header_of(Shown(rows=rows(2), total=2, new_count=1_200)).plain
    assert "  1,200 new · r" in said


def test_a_failed_load_with_nothing_shown_says_how_to_retry() -> None:
    said = header_of(Shown(load_error="Timed out")).plain
    assert said.startswith("Refunds  could not load (Timed out) · Ctrl+R retries")


def test_before_the_first_load_the_list_says_it_is_loading() -> None:
    assert header_of(Shown(loaded=False)).plain.startswith("Refunds  loading…")


def test_both_tables_post_the_same_messages() -> None:
    for table in (ResourceTable, LineTable):
        assert issubclass(table, RowKeeping)
        assert table.Open is RowKeeping.Open and table.Top is RowKeeping.Top
    # By name, a handler is the one a ResourceTable's message has.
    assert ResourceTable.Open.handler_name == "on_resource_table_open"
    assert ResourceTable.Top.handler_name == "on_resource_table_top"
