"""The sandbox's test-card table as a picker: number, outcome, unified code; Enter chooses one.
Under the table, the highlighted card's whole description (the table's column shows its start,
or nothing at all in a narrow terminal)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual.worker import Worker

from payscope.widgets.errors import describe_error
from payscope.widgets.format import brand_label, status_colour
from payscope.widgets.row_picker import RowPicker
from payscope.widgets.text import safe


@dataclass(frozen=True)
class TestCard:
    """One row of `GET /_sandbox/test-cards`."""

    number: str
    brand: str
    outcome: str
    unified_code: str | None
    description: str

    __test__ = False  # not a pytest class

    @property
    def grouped(self) -> str:
        """The number in groups of four, as printed on a card (Amex: 4-6-5)."""
        n = self.number
        if len(n) == 15:
            return f"{n[:4]} {n[4:10]} {n[10:]}"
        return " ".join(n[i : i + 4] for i in range(0, len(n), 4))

    @property
    def cvc(self) -> str:
        """A CVC the sandbox accepts for this brand (American Express has four digits)."""
        return "1234" if len(self.number) == 15 else "123"

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> TestCard | None:
        """A card from the sandbox's JSON row; None for a row without a number."""
        number = str(row.get("card_number") or "").strip()
        if not number:
            return None
        return cls(
            number=number,
            brand=str(row.get("brand") or ""),
            outcome=str(row.get("outcome") or ""),
            unified_code=row.get("unified_code") or None,
            description=str(row.get("description") or ""),
        )


def cards_from_rows(rows: list[dict[str, Any]]) -> list[TestCard]:
    """Every usable card of the sandbox's answer, in its order."""
    return [card for card in map(TestCard.from_row, rows) if card is not None]


# Each outcome takes the colour of the payment status it leads to.
_OUTCOME_STATUS = {
    "succeeded": "succeeded",
    "declined": "failed",
    "three_ds_challenge": "requires_customer_action",
    "decline_without_three_ds": "requires_customer_action",
    "dispute_later": "succeeded",
    "refund_fails": "succeeded",
    "manual_review": "requires_merchant_action",
}


class TestCardPicker(RowPicker):
    """A modal table of the sandbox's test cards; dismissed with the chosen card or None."""

    __test__ = False

    DEFAULT_CSS = """
    TestCardPicker { align: center middle; }
    TestCardPicker > Vertical {
        width: 110; max-width: 98%; height: 30; max-height: 96%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    TestCardPicker #picker-intro { color: $text-muted; height: auto; }
    TestCardPicker #picker-error { color: $error; height: auto; display: none; }
    TestCardPicker #picker-error.-shown { display: block; }
    TestCardPicker DataTable { height: 1fr; }
    TestCardPicker #picker-detail {
        height: auto; max-height: 4; border-top: hkey $panel; color: $text;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="cards.close", tooltip="Close without choosing"),
        Binding("enter", "choose", "Choose", id="cards.choose", tooltip="Use this card"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Sandbox test cards"
            yield Static(
                "Each number gives a documented outcome. Enter fills the card fields.",
                id="picker-intro",
            )
            yield Static(id="picker-error")
            table: DataTable[Any] = DataTable(cursor_type="row", id="cards-table")
            table.add_column("Number", width=19, key="number")
            table.add_column("Brand", width=16, key="brand")  # "American Express"
            table.add_column("Outcome", width=18, key="outcome")
            table.add_column("Code", width=7, key="code")
            table.add_column("What it does", key="description")
            yield table
            yield Static(id="picker-detail")

    def on_mount(self) -> None:
        self.query_one(DataTable).loading = True
        self.load()
        # The outcomes take the theme's status colours: a theme chosen later redraws them.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._recolour())

    def _outcome(self, card: TestCard) -> Text:
        status = _OUTCOME_STATUS.get(card.outcome, "succeeded")
        style = status_colour(status, self.app.theme_variables)
        return safe(card.outcome.replace("_", " "), style)

    def _recolour(self) -> None:
        table = self.query_one(DataTable)
        for number, card in self.items.items():
            if number in table.rows:
                table.update_cell(number, "outcome", self._outcome(card))

    @work(exclusive=True, group="test-cards", exit_on_error=False, description="Test cards")
    async def load(self) -> None:
        """Ask the sandbox for its table (it is the source of truth, not a copy kept here)."""
        client = self.app.runtime.client  # type: ignore[attr-defined]
        table = self.query_one(DataTable)
        try:
            rows = await client.sandbox.test_cards()
        except Exception as exc:  # said in the picker: the form stays usable with a typed card
            title, message = describe_error(exc)
            error = self.query_one("#picker-error", Static)
            error.update(f"{title}: {message}\nType a card number in the form instead.")
            error.add_class("-shown")
            return
        finally:
            table.loading = False
        for card in cards_from_rows(rows):
            self.items[card.number] = card
            table.add_row(
                safe(card.grouped),
                safe(brand_label(card.brand)),
                self._outcome(card),
                safe(card.unified_code, empty=""),
                safe(card.description),
                key=card.number,
            )
        table.focus()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.on_worker_state_changed(event)  # type: ignore[attr-defined]

    def described(self, item: Any) -> Text:
        card: TestCard = item
        return Text.assemble(
            safe(card.grouped, "bold"), (" · ", "dim"), safe(card.description, multiline=True)
        )
