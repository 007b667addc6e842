"""The Payouts area's detail: one record, its sections and its actions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text

from payscope.api.models.payouts import Payout
from payscope.areas.payouts.actions import ROW_ACTIONS
from payscope.areas.payouts.spec import (
    FIELD_LABELS,
    NUMBERS,
    UPDATABLE,
    customer_of,
    kind_label,
    method_of,
    method_text,
)
from payscope.views.detail import (
    DetailScreen,
    Related,
    empty,
    explained_code,
    grid,
    metadata_grid,
    read_related,
    table,
)
from payscope.views.steps import CURRENT, DONE, STOPPED, TODO, Step, flow_steps
from payscope.widgets.format import (
    brand_label,
    format_amount,
    format_time,
    status_text,
    theme_colour,
)
from payscope.widgets.inputs import last_digits
from payscope.widgets.text import safe

# -- the detail ------------------------------------------------------------------------------------

_FLOW = ("Created", "Method data", "Confirmed", "Fulfilled", "Sent")
# Where each status stands in the flow: (index of the current step, the flow ended there?).
_POSITION: Mapping[str, tuple[int, bool]] = {
    "requires_creation": (0, False),
    "requires_payout_method_data": (1, False),
    "requires_confirmation": (2, False),
    "requires_vendor_account_creation": (2, False),
    "ineligible": (2, True),
    "requires_fulfillment": (3, False),
    "initiated": (4, False),
    "pending": (4, False),
    "success": (5, False),
    "failed": (5, True),
    "reversed": (5, True),
}
_SETTLES = {
    "instant": "in seconds",
    "internal": "in seconds",
    "fast": "within a minute",
    "regular": "within an hour",
    "wire": "within a day",
    "cross_border": "within two days",
}


def _position(p: Any, before: str | None = None) -> tuple[int, bool]:
    """Where the payout stands; `before` is the status it was seen in before (a payout
    cancelled while waiting to be fulfilled stopped there, which its data alone cannot say)."""
    status = str(p.status)
    if status in _POSITION:
        return _POSITION[status]
    if status == "cancelled":
        seen = _POSITION.get(before or "")
        if seen is not None and not seen[1] and seen[0] < len(_FLOW):
            return seen[0], True
        if p.attempts:
            return 4, True
        return (2 if p.payout_method_data else 1), True
    if status == "expired":
        return 1, True
    return 0, False  # a status this version does not know: the service decides


def flow(
    p: Any, variables: Mapping[str, str], local: bool, before: str | None = None
) -> list[Step]:
    """The payout's steps: done, current (with the key that moves it on), to do, or stopped
    (`before`: the status it was last seen in, see `_position`)."""
    at, ended = _position(p, before)
    status = str(p.status)
    method = method_text(p) if p.payout_method_data else ""
    auto = bool(p.auto_fulfill)
    settles = f"settles by itself {_SETTLES.get(str(p.priority or 'regular'), 'later')}"
    attempt = (p.attempts or [{}])[-1]
    sent_at = attempt.get("created") if isinstance(attempt, Mapping) else None
    # What each step says once done, while current, and before it is reached.
    done: list[RenderableType] = [
        Text(format_time(p.created)),
        safe(method, empty="given"),
        Text("auto-fulfil: sent on at once" if auto else ""),
        Text(format_time(sent_at) if sent_at else ""),
        safe(p.connector_transaction_id, empty=""),
    ]
    current: list[RenderableType] = [
        Text("the service is creating it"),
        Text("adds the method: none yet"),
        Text(
            "confirms it"
            + (" and sends it at once (auto-fulfil)" if auto else "")
            + "; e changes it first"
        ),
        Text("sends it to the recipient"),
        Text.assemble(status_text(status, variables), f"  {settles}"),
    ]
    todo: list[RenderableType] = [
        Text(""),
        Text("e Update adds it"),
        Text("o Confirm"),
        Text("automatic (auto-fulfil)" if auto else "f Fulfill"),
        Text(settles),
    ]
    keys = ["", "e", "o", "f", ""]
    steps: list[Step] = []
    for index, title in enumerate(_FLOW):
        if index < at:
            steps.append(Step(title, DONE, done[index]))
        elif index > at:
            steps.append(Step(title, TODO, todo[index]))
        elif ended:
            note = Text.assemble(status_text(status, variables), f"  {_why(p)}")
            steps.append(Step(title, STOPPED, note))
        elif status == "requires_vendor_account_creation":
            note = Text("the connector creates the recipient's account first")
            steps.append(Step(title, CURRENT, note))
        elif status not in _POSITION:
            note = Text.assemble(safe(status), "  (a status this version does not know)")
            steps.append(Step(title, CURRENT, note))
        else:
            steps.append(Step(title, CURRENT, current[index], keys[index]))
    if at < len(_FLOW):
        steps.append(Step("Paid out", TODO, Text("or failed: the recipient's bank says")))
        return steps
    outcome: Text = status_text(status, variables)
    if status == "reversed":
        outcome = Text.assemble(outcome, "  the recipient's bank sent it back")
    elif status == "failed":
        outcome = Text.assemble(outcome, f"  {_why(p)}")
    elif local:
        outcome = Text.assemble(outcome, ("  R: the sandbox bank can send it back", "dim"))
    title = {"reversed": "Reversed", "failed": "Failed"}.get(status, "Paid out")
    steps.append(Step(title, STOPPED if ended else DONE, outcome))
    return steps


def _real_card(rows: Any, card: Mapping[str, Any]) -> None:
    """A card as the real service (and the sandbox) answers it: `last4`, `card_exp_month`,
    `card_holder_name`, the BIN, and what it says about the card."""

    def text(name: str) -> str:
        value = card.get(name)
        return "" if value is None or isinstance(value, Mapping) else str(value)

    last4 = text("last4")[-4:] or "????"
    month, year = text("card_exp_month") or "??", text("card_exp_year") or "??"
    rows.add_row("Card", safe(f"•••• {last4}  exp {month}/{year}"))
    if text("card_holder_name"):
        rows.add_row("Card holder", safe(text("card_holder_name")))
    about = [text(n) for n in ("card_type", "card_issuer", "card_issuing_country")]
    if any(about):
        rows.add_row("Issued", safe(" · ".join(a for a in about if a)))
    if text("card_isin"):
        rows.add_row("BIN", safe(text("card_isin")))


def _why(p: Any) -> str:
    status = str(p.status)
    return {
        "failed": "the recipient's bank refused it (see Failure)",
        "ineligible": "the account cannot receive payouts (see Failure)",
        "cancelled": "cancelled here; nothing more happens",
        "expired": "no method was given in time",
    }.get(status, "")


class PayoutDetailScreen(DetailScreen["Payout"]):
    """One payout: its flow as steps, amounts and state, method (masked), customer, billing,
    the failure explained, attempts and metadata."""

    noun = "Payout"
    scope = "payout"
    actions = ROW_ACTIONS
    raw_exclude = frozenset({"client_secret"})
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("flow", "Flow"),
        ("failure", "Failure"),
        ("summary", "Summary"),
        ("method", "Method"),
        ("customer", "Customer and billing"),
        ("attempts", "Attempts"),
        ("metadata", "Metadata"),
    )

    def __init__(self, payout_id: str) -> None:
        super().__init__(payout_id)
        self.customer: Related[Any] = Related()
        self.seen: str | None = None  # the status last shown
        self.before: str | None = None  # the one shown before it

    def on_mount(self) -> None:
        # Textual calls DetailScreen.on_mount (the first read) after this one by itself.
        self.show_section("failure", False)

    async def fetch(self) -> Payout:
        payout = await self.runtime.api.payouts.retrieve(self.record_id)
        # A payout may name its customer by id alone: the customer is read for who it is (the
        # payout shows even when that read fails; the section says why).
        given = payout.customer
        customer_id = customer_of(payout)
        if customer_id and not (given and (given.name or given.email)):
            self.customer = await read_related(self.runtime.api.customers.retrieve(customer_id))
        else:
            self.customer = Related()
        return payout

    def watched_ids(self, p: Payout) -> set[str]:
        customer = customer_of(p)
        return {p.payout_id, *([customer] if customer else [])}

    def title_text(self, p: Payout) -> Text:
        variables = self.app.theme_variables
        return Text.assemble(
            ("Payout ", "bold"),
            safe(p.payout_id, "bold"),
            "  ",
            status_text(p.status, variables),
            ("  " + format_amount(p.amount, p.currency), theme_colour(variables, "amount")),
            ("  " + method_text(p), "dim"),
        )

    def render_record(self, p: Payout) -> None:
        variables = self.app.theme_variables
        if str(p.status) != self.seen:
            self.before, self.seen = self.seen, str(p.status)
        self.section("flow").update(self._flow(p))
        code = p.unified_code or p.error_code
        self.show_section("failure", bool(code))
        if code:
            acquirer = ": ".join(str(v) for v in (p.error_code, p.error_message) if v)
            self.section("failure").update(explained_code(code, p.unified_message, acquirer))
        self.section("summary").update(self._summary(p, variables))
        self.section("method").update(self._method(p))
        self.section("customer").update(self._customer(p))
        self.section("attempts").update(self._attempts(p, variables))
        self.section("metadata").update(self._metadata(p))

    def _flow(self, p: Payout) -> RenderableType:
        variables = self.app.theme_variables
        local = self.runtime.options.is_local
        steps = flow_steps(flow(p, variables, local, self.before), variables)
        allowed = [a for a in self.allowed() if a.name != "customer"]
        if not allowed:
            return steps
        keys = Text("Now: ", style="dim")
        for index, chosen in enumerate(allowed):
            if index:
                keys.append(" · ", style="dim")
            keys.append(chosen.key, style="bold")
            keys.append(f" {chosen.title}")
        return Group(steps, keys)

    def _summary(self, p: Any, variables: Mapping[str, str]) -> RenderableType:
        rows = grid()
        rows.add_row("Status", status_text(p.status, variables))
        rows.add_row("Amount", format_amount(p.amount, p.currency))
        rows.add_row("Payout type", safe(p.payout_type, empty="not set yet"))
        rows.add_row("Priority", safe(p.priority, empty="regular (default)"))
        rows.add_row("Auto-fulfil", "yes" if p.auto_fulfill else "no")
        rows.add_row("Entity type", safe(p.entity_type))
        rows.add_row("Description", safe(p.description, multiline=True))
        rows.add_row("Order ref", safe(p.merchant_order_reference_id))
        rows.add_row("Created", format_time(p.created))
        if p.connector_transaction_id:
            rows.add_row("Connector ref", safe(p.connector_transaction_id))
        if p.payout_link:
            link = p.payout_link if isinstance(p.payout_link, Mapping) else {}
            rows.add_row(
                "Payout link",
                Text.assemble(
                    safe(link.get("payout_link_id") or link.get("link")),
                    "  expires ",
                    format_time(link.get("expiry")),
                ),
            )
        return rows

    def _method(self, p: Payout) -> RenderableType:
        method, kind, details = method_of(p.payout_method_data)
        if not method:
            hint = "  e adds one (Update)" if str(p.status) in UPDATABLE else ""
            return empty(f"No method yet.{hint}")
        rows = grid()
        what = {"bank": "Bank account", "bank_redirect": "Bank redirect"}.get(
            method, method.replace("_", " ").capitalize()
        )
        if kind:
            what += f" · {kind_label(method, kind)}"
        if method == "card" and details.get("card_network"):
            what += f" · {brand_label(str(details['card_network']))}"
        rows.add_row("Method", safe(what))
        if method == "card" and "card_number" not in details:
            _real_card(rows, details)
            if p.payout_method_id:
                rows.add_row("Saved as", safe(p.payout_method_id))
            return rows
        for name, value in details.items():
            if value is None or isinstance(value, Mapping):
                continue
            text = last_digits(str(value)) if name in NUMBERS else str(value)
            label = FIELD_LABELS.get(name) or name.replace("_", " ").capitalize()
            rows.add_row(safe(label), safe(text))
        if p.payout_method_id:
            rows.add_row("Saved as", safe(p.payout_method_id))
        return rows

    def _customer(self, p: Payout) -> RenderableType:
        rows = grid()
        customer = p.customer
        customer_id = customer_of(p)
        rows.add_row(
            "Customer",
            Text.assemble(safe(customer_id), ("   g opens it" if customer_id else "", "dim")),
        )
        read = self.customer.record
        if customer_id:

            def pick(name: str) -> Any:
                value = getattr(customer, name, None) if customer is not None else None
                return value or (getattr(read, name, None) if read is not None else None)

            rows.add_row("Name", safe(pick("name")))
            rows.add_row("Email", safe(pick("email")))
            phone = " ".join(str(v) for v in (pick("phone_country_code"), pick("phone")) if v)
            rows.add_row("Phone", safe(phone))
            if self.customer.problem:
                rows.add_row("", safe(self.customer.problem, "dim", multiline=True))
        billing = p.billing if isinstance(p.billing, Mapping) else {}
        address = billing.get("address") if isinstance(billing.get("address"), Mapping) else {}
        if address:
            parts = [
                address.get(k)
                for k in ("line1", "line2", "city", "zip", "state", "country")
                if address.get(k)
            ]
            rows.add_row("Billing", safe(", ".join(str(v) for v in parts), multiline=True))
        if billing.get("email"):
            rows.add_row("Billing email", safe(billing.get("email")))
        if not billing:
            rows.add_row("Billing", empty("none given"))
        if p.business_country:
            rows.add_row("Business in", safe(p.business_country))
        return rows

    def _attempts(self, p: Any, variables: Mapping[str, str]) -> RenderableType:
        if not p.attempts:
            reached = _position(p)[0] >= len(_FLOW) - 1
            if reached:
                return empty("No attempt recorded by the service.")
            return empty("No attempt yet: one is made when the payout is fulfilled.")
        rows = table("Attempt", "Status", "Amount", "Connector", "Code", "When")
        for a in p.attempts:
            a = a if isinstance(a, Mapping) else {}
            rows.add_row(
                safe(a.get("attempt_id")),
                status_text(a.get("status"), variables),
                format_amount(a.get("amount"), a.get("currency") or p.currency),
                safe(a.get("connector"), empty=""),
                safe(a.get("unified_code") or a.get("error_code"), empty=""),
                format_time(a.get("created") or a.get("created_at")),
            )
        return rows

    def _metadata(self, p: Payout) -> RenderableType:
        hint = " e adds some." if str(p.status) in UPDATABLE else ""
        return metadata_grid(p.metadata, f"No metadata.{hint}")
