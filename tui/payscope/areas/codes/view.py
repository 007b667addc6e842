"""Codes: every unified decline code the service defines, what it means and whether to retry,
and on the local sandbox the test card that produces it.

The text is `payscope.api.codes`', the same the payment detail explains a decline with
(`explained_code`). The list is in memory: `fetch_page` pages over it, and `/` matches words of
the code, title and meaning, and `retry:yes|no|depends`. On the local profile `c` makes a
payment with the code's test card and opens it, where the decline is explained.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.json import JSON
from rich.text import Text

from payscope.api.codes import ALL_UNIFIED_CODES, explain
from payscope.api.export import ListSource
from payscope.api.trigger import Trigger
from payscope.views.actions import Action
from payscope.views.columns import Column
from payscope.views.detail import DetailScreen, empty, explained_code, table
from payscope.views.filters import Filter, Grammar, Term
from payscope.views.listing import ResourceListView
from payscope.widgets.format import theme_colour
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.api.codes import CodeInfo
    from payscope.app.runtime import Runtime
    from payscope.views.actions import ActionHost


@dataclass(frozen=True)
class CodeRow:
    """A unified code explained, and the local sandbox's test cards that produce it."""

    info: CodeInfo
    cards: tuple[dict[str, Any], ...] = ()

    @property
    def code(self) -> str:
        return self.info.code

    @property
    def card(self) -> str | None:
        """The card a payment is made with: one that declines with this code, if any."""
        declined = [c for c in self.cards if c.get("outcome") == "declined"] or list(self.cards)
        return str(declined[0]["card_number"]) if declined else None


def retry_word(retryable: bool | None) -> str:
    return "depends" if retryable is None else ("yes" if retryable else "no")


def _retry_cell(row: CodeRow, variables: Any) -> Text:
    colour = {"yes": "status-succeeded", "no": "status-failed", "depends": "status-pending"}
    word = retry_word(row.info.retryable)
    return Text(word, style=theme_colour(variables, colour[word]), no_wrap=True)


def _cut(value: str) -> Text:
    return Text(value, no_wrap=True, overflow="ellipsis")


def _card_cell(row: CodeRow) -> Text:
    card = row.card
    if card is None:
        return Text("")
    more = len(row.cards) - 1
    return Text.assemble(safe(card), (f" +{more}" if more else "", "dim"))


# At 80 columns: code, title, retry. Wider, what to do; wider still, the test card.
COLUMNS: tuple[Column[CodeRow], ...] = (
    Column("code", "Code", 7, lambda r, c: Text(r.code, style="bold")),
    Column("title", "Title", 28, lambda r, c: _cut(r.info.title), flex=(16, 34)),
    Column("retry", "Retry", 7, lambda r, c: _retry_cell(r, c.variables)),
    Column("advice", "What to do", 30, lambda r, c: _cut(r.info.advice), 96, flex=(20, 90)),
    Column("card", "Test card", 19, lambda r, c: _card_cell(r), 118),
)


# -- the filter ------------------------------------------------------------------------------------

_RETRY_WORDS = {
    "yes": True,
    "y": True,
    "true": True,
    "no": False,
    "n": False,
    "false": False,
    "depends": None,
    "maybe": None,
    "sometimes": None,
}


def _by_retry(value: str, result: Filter) -> None:
    word = value.strip().lower()
    if word not in _RETRY_WORDS:
        raise ValueError(f"`retry:{value}`: say retry:yes, retry:no or retry:depends.")
    wanted = _RETRY_WORDS[word]
    result.local.append(lambda r: r.info.retryable is wanted)


def _by_text(word: str, result: Filter) -> None:
    if len(word) < 2:
        raise ValueError(f"`{word}`: type at least 2 characters of a code, a title or a meaning.")
    wanted = word.casefold()
    result.local.append(
        lambda r: any(wanted in t.casefold() for t in (r.code, r.info.title, r.info.meaning))
    )


def code_grammar() -> Grammar:
    """`retry:yes  funds  UE_1  3ds` (every word must match)."""
    return Grammar(
        [Term(("retry", "retryable"), "retry:yes", _by_retry)],
        bare=_by_text,
        bare_example="words of a code, title or meaning",
    )


# -- the catalogue and its cards -------------------------------------------------------------------


def unified_codes() -> list[CodeInfo]:
    """Every unified code of `payscope.api.codes`, in the order of their numbers."""
    return [explain(code) for code in sorted(ALL_UNIFIED_CODES)]


def code_rows(cards: dict[str, tuple[dict[str, Any], ...]]) -> list[CodeRow]:
    """Every unified code explained, with the test cards (by code) that produce it: the list
    and `payscope export` read them so."""
    return [CodeRow(info, cards.get(info.code, ())) for info in unified_codes()]


async def cards_by_code(runtime: Runtime) -> dict[str, tuple[dict[str, Any], ...]]:
    """The local sandbox's test cards by the unified code they produce ({} on a remote
    profile: its cards are the acquirer's)."""
    if not runtime.options.is_local:
        return {}
    found: dict[str, list[dict[str, Any]]] = {}
    for card in await runtime.api.sandbox.test_cards():
        code = card.get("unified_code")
        if isinstance(code, str) and card.get("card_number"):
            found.setdefault(code.upper(), []).append(card)
    return {code: tuple(cards) for code, cards in found.items()}


# -- the action --------------------------------------------------------------------------------


def _pay(host: ActionHost, _code: str | None, row: CodeRow | None) -> None:
    app = host.app
    if row is None or row.card is None:
        return
    card, code = row.card, row.code

    async def pay() -> None:
        payment = await Trigger(app.runtime.api).payment(
            card, description=f"Test card {card} for {code}"
        )
        got = payment.unified_code or payment.error_code or "no code"
        app.notify(
            f"{payment.payment_id}: {payment.status} with {got}.",
            title=f"Paid with the {code} card",
            markup=False,
        )
        app.goto("payments", payment.payment_id)

    app.run_worker(pay(), group="code-card", exit_on_error=False, description="Test card")


ACTIONS: tuple[Action[Any], ...] = (
    Action(
        "card",
        "c",
        "Pay with its card",
        "Make a payment with the test card that gives this code, and open it (local sandbox)",
        _pay,
        when=lambda r: r.card is not None,
        local_only=True,
        palette="Make a payment with this code's test card",
    ),
)


class CodesView(ResourceListView[CodeRow]):
    """The Codes area."""

    title = "Codes"
    noun = "codes"
    scope = "codes"
    columns = COLUMNS
    actions = ACTIONS

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.cards: dict[str, tuple[dict[str, Any], ...]] | None = None

    def key_of(self, record: CodeRow) -> str:
        return record.code

    def order(self, record: CodeRow) -> Any:
        return record.code

    def filter_grammar(self) -> Grammar:
        return code_grammar()

    async def _rows(self) -> list[CodeRow]:
        if self.cards is None:
            self.cards = await cards_by_code(self.runtime)
        return code_rows(self.cards)

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[CodeRow], int]:
        rows = await self._rows()
        return rows[offset : offset + limit], len(rows)

    async def fetch_one(self, record_id: str) -> CodeRow:
        return await code_row(self.runtime, record_id)

    def detail(self, record_id: str) -> CodeDetailScreen:
        return CodeDetailScreen(record_id.strip().upper())


async def code_row(runtime: Runtime, code: str) -> CodeRow:
    """One code explained, with its test cards."""
    info = explain(code)
    return CodeRow(info, (await cards_by_code(runtime)).get(info.code.upper(), ()))


# -- the detail ------------------------------------------------------------------------------------


class CodeDetailScreen(DetailScreen[CodeRow]):
    """One code: the explanation a declined payment shows, and the cards that produce it."""

    noun = "Code"
    scope = "code"
    actions = ACTIONS
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("code", "What it means (as a declined payment explains it)"),
        ("cards", "Test cards (local sandbox)"),
    )

    async def fetch(self) -> CodeRow:
        return await code_row(self.runtime, self.record_id)

    def title_text(self, r: CodeRow) -> Text:
        return Text.assemble(("Code ", "bold"), safe(r.code, "bold"), "  ", r.info.title)

    def raw(self, r: CodeRow) -> RenderableType:
        return JSON.from_data({**asdict(r.info), "test_cards": list(r.cards)})

    def render_record(self, r: CodeRow) -> None:
        self.section("code").update(explained_code(r.code))
        self.section("cards").update(self._cards(r))

    def _cards(self, r: CodeRow) -> RenderableType:
        if not self.runtime.options.is_local:
            return empty(
                "Test cards are the local sandbox's: on this profile the acquirer decides "
                "which card declines."
            )
        if not r.cards:
            return empty("No test card of the local sandbox gives this code.")
        rows = table("Card", "Brand", "Outcome", "What it does")
        rows.columns[-1].no_wrap = False
        for card in r.cards:
            rows.add_row(
                safe(card.get("card_number")),
                safe(card.get("brand")),
                safe(card.get("outcome")),
                safe(card.get("description"), multiline=True),
            )
        note = empty(
            f"c makes a payment with {r.card} (42.00 USD) and opens it: its detail explains "
            "the decline as above."
        )
        return Group(rows, Text(""), note)


def export_source() -> ListSource:
    """How `payscope export codes` reads the unified codes (this area's `AREA.export`)."""

    async def read(api: ApiClient, _filters: dict[str, Any], offset: int, limit: int) -> Any:
        rows = code_rows({})
        return rows[offset : offset + limit], len(rows)

    return ListSource(read, lambda r: str(r.code))
