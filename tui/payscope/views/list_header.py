"""The title bar of a list area: its title, the counts and paging, the filter and the state,
from what the list knows (`Listed`: a `ResourceListView`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

if TYPE_CHECKING:
    from payscope.views.filters import Filter


class Listed(Protocol):
    """What the title bar says of a list."""

    @property
    def title(self) -> str: ...

    @property
    def noun(self) -> str: ...  # plural, lower case: "no refunds yet"

    @property
    def page_size(self) -> int: ...

    @property
    def rows(self) -> Mapping[str, Any]: ...  # the records the table holds

    @property
    def filter(self) -> Filter: ...

    @property
    def loaded(self) -> bool: ...

    @property
    def load_error(self) -> str: ...  # the title of the last failed load ("": none)

    @property
    def stall_note(self) -> str | None: ...  # a load with no answer for the client's timeout

    @property
    def scanned(self) -> tuple[int, bool] | None: ...  # (records looked at, all of them?)

    @property
    def total(self) -> int: ...

    @property
    def total_known(self) -> bool: ...  # False: `total` is what was read, and more may follow

    @property
    def page_offset(self) -> int: ...

    @property
    def new_count(self) -> int: ...  # records made elsewhere that the list does not show yet

    def loading_text(self) -> str: ...

    def header_extra(self, header: Text) -> None: ...


def header_of(view: Listed) -> Text:
    """The title bar of `view`: title, counts and paging, filter, state."""
    header = Text.assemble((view.title, "bold"), "  ")
    # The rows the table holds, whenever this is asked (before the view is mounted too): the
    # count never says other than the rows drawn beside it.
    shown = len(view.rows)
    if view.stall_note is not None and not shown:
        header.append(view.stall_note, style="bold")
    elif not view.loaded and not view.load_error:
        header.append(view.loading_text(), style="dim")
    elif view.load_error and not shown:
        header.append(f"could not load ({view.load_error}) · Ctrl+R retries", style="dim")
    elif view.scanned is not None:
        looked, everything = view.scanned
        where = f"all {looked:,}" if everything else f"the newest {looked:,}"
        header.append(f"{shown:,} match{'es' * (shown != 1)} in {where} {view.noun}")
    elif view.total == 0:
        header.append(
            f"no {view.noun} match" if view.filter else f"no {view.noun} yet", style="dim"
        )
    elif not shown:  # a page past the end (the list shrank meanwhile): no "0-0 of N"
        header.append(f"no {view.noun} on this page ({view.total:,} in all) · [ goes back")
    else:
        first = view.page_offset + 1
        last = view.page_offset + shown
        pages = (view.total + view.page_size - 1) // view.page_size
        page = view.page_offset // view.page_size + 1
        if view.total_known:
            header.append(f"{first:,}-{last:,} of {view.total:,}")
            header.append(f"  page {page}/{pages}", style="dim")
        else:  # the service gives no total: what was read, and that more may follow
            header.append(f"{first:,}-{last:,} of {view.total:,} or more")
            header.append(f"  page {page}", style="dim")
    if view.stall_note is not None and shown:  # rows of an earlier load stay shown
        header.append(f"  {view.stall_note}", style="bold")
    if view.new_count:
        header.append(f"  {view.new_count:,} new · r", style="bold")
    view.header_extra(header)
    if view.filter.text:
        header.append("  filter ", style="bold")
        header.append(view.filter.text)
    return header
