"""Payouts: a server-paged table, filters, live rows from payout webhooks, and a payout's detail
with its flow as steps (created -> method data -> confirmed -> fulfilled -> sent -> paid out).

The actions are declared once here (`ROW_ACTIONS`) for the list and the detail alike, each
offered only in the statuses that allow it; the forms are in `payout_forms`. Method data is
read in both shapes: the spec's (`bank_transfer`, a masked `card_number`) and the real
service's (`bank`, `card {last4, ...}`, wallets without their kind's key); account and card
numbers are shown masked whatever the service sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text

from tui.areas.payouts import forms as payout_forms
from tui.areas.payouts.forms import NewPayoutForm
from tui.areas.payouts.spec import (
    COLUMNS,
    FIELD_LABELS,
    NUMBERS,
    OPEN,
    PAGE_SIZE,
    PAYOUT_STATUSES,
    REMOTE_PAGE_SIZE,
    UPDATABLE,
    customer_of,
    kind_label,
    list_request,
    method_of,
    method_text,
    payout_grammar,
)
from tui.views.actions import Action, statuses, with_known
from tui.views.detail import (
    DetailScreen,
    Related,
    empty,
    explained_code,
    grid,
    metadata_grid,
    read_related,
    table,
)
from tui.views.filters import (
    Grammar,
)
from tui.views.listing import ResourceListView, new_record_action
from tui.views.steps import CURRENT, DONE, STOPPED, TODO, Step, flow_steps
from tui.widgets.format import (
    brand_label,
    format_amount,
    format_time,
    status_text,
    theme_colour,
)
from tui.widgets.inputs import last_digits
from tui.widgets.text import safe

if TYPE_CHECKING:
    from tui.views.actions import ActionHost


# -- actions (the list and the detail share them) ------------------------------------------------


def _with_payout(make_name: str) -> Any:
    """Run an action whose form needs the whole payout (fetched when only the id is known)."""

    def run(host: ActionHost, payout_id: str | None, payout: Any) -> None:
        app = host.app

        async def go() -> None:

            current = payout or await app.runtime.api.payouts.retrieve(str(payout_id))
            await app.push_screen(getattr(payout_forms, make_name)(current), host.acted)

        app.run_worker(go(), group="payout-action", exit_on_error=False, description="Payout")

    return run


def _customer_jump(host: ActionHost, _payout_id: str | None, payout: Any) -> None:
    customer = customer_of(payout)
    if customer:
        host.app.goto("customers", customer)


ROW_ACTIONS: tuple[Action[Any], ...] = with_known(
    (
        Action(
            "update",
            "e",
            "Update",
            "Change the method, type, amount or details (before confirmation)",
            _with_payout("PayoutUpdateForm"),
            UPDATABLE,
            palette="Update this payout",
        ),
        Action(
            "confirm",
            "o",
            "Confirm",
            "Confirm the payout (with auto-fulfil it is sent at once)",
            _with_payout("confirm_form"),
            statuses("requires_confirmation"),
            palette="Confirm this payout",
        ),
        Action(
            "fulfill",
            "f",
            "Fulfill",
            "Send the confirmed payout to the recipient",
            _with_payout("fulfill_form"),
            statuses("requires_fulfillment"),
            palette="Fulfill this payout",
        ),
        Action(
            "cancel",
            "x",
            "Cancel",
            "Cancel the payout (any state that is not final)",
            _with_payout("cancel_form"),
            OPEN,
            palette="Cancel this payout",
        ),
        Action(
            "reverse",
            "R",
            "Reverse",
            "Act as the recipient's bank: send a paid-out payout back (local sandbox)",
            _with_payout("reverse_form"),
            statuses("success"),
            local_only=True,
            palette="Reverse this payout (sandbox bank)",
        ),
        Action(
            "customer",
            "g",
            "Customer",
            "Open the customer it pays",
            _customer_jump,
            when=lambda p: bool(customer_of(p)),
            palette="Open the payout's customer",
            writes=False,
        ),
    ),
    PAYOUT_STATUSES,
)


NEW_PAYOUT: Action[Any] = new_record_action("New payout", "Pay money out", "New payout")


class PayoutsView(ResourceListView[Any]):
    """The Payouts area."""

    title = "Payouts"
    noun = "payouts"
    scope = "payouts"
    id_prefix = "payout_"
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to pay money out."
    # The row actions stay out of the list's footer (the detail shows them); their keys work.
    actions = (NEW_PAYOUT, *(a.hidden() for a in ROW_ACTIONS))

    def on_mount(self) -> None:
        # The base's on_mount runs after this one by itself (Textual calls each class's).
        if not self.runtime.options.is_local:
            # Per view, not per class (page_size is the base's class-level default).
            setattr(self, "page_size", REMOTE_PAGE_SIZE)  # noqa: B010

    def key_of(self, record: Any) -> str:
        return str(record.payout_id)

    def filter_grammar(self) -> Grammar:
        return payout_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Any], int]:
        page = await self.runtime.api.payouts.list(list_request(filters, offset, limit))
        # The real service answers {size, data, total_count?}: without a total, count what came
        # (one more page is offered while pages come back full).
        if page.total_count is not None:
            total = page.total_count
        else:
            total = offset + len(page.data) + (1 if len(page.data) >= limit else 0)
        return list(page.data), total

    async def fetch_one(self, record_id: str) -> Any:
        return await self.runtime.api.payouts.retrieve(record_id)

    def detail(self, record_id: str) -> Any:
        return PayoutDetailScreen(record_id)

    def new_record(self) -> None:
        """The new-payout form; the payout made opens on its detail."""
        if self.starting(self.new_record):
            return

        self.app.push_screen(NewPayoutForm(), self._created)

    def _created(self, payout: Any) -> None:
        if payout is None:
            return
        self.notify(
            f"{payout.payout_id}: {format_amount(payout.amount, payout.currency)} {payout.status}",
            title="Payout created",
            markup=False,
        )
        # Back from the payout, the cursor is on its row at the top (when the page shows it).
        self.show_created(payout.payout_id, reload=self.page_offset == 0 and not self.filter)


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


def _why(p: Any) -> str:
    status = str(p.status)
    return {
        "failed": "the recipient's bank refused it (see Failure)",
        "ineligible": "the account cannot receive payouts (see Failure)",
        "cancelled": "cancelled here; nothing more happens",
        "expired": "no method was given in time",
    }.get(status, "")


class PayoutDetailScreen(DetailScreen[Any]):
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

    async def fetch(self) -> Any:
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

    def watched_ids(self, p: Any) -> set[str]:
        customer = customer_of(p)
        return {p.payout_id, *([customer] if customer else [])}

    def title_text(self, p: Any) -> Text:
        variables = self.app.theme_variables
        return Text.assemble(
            ("Payout ", "bold"),
            safe(p.payout_id, "bold"),
            "  ",
            status_text(p.status, variables),
            ("  " + format_amount(p.amount, p.currency), theme_colour(variables, "amount")),
            ("  " + method_text(p), "dim"),
        )

    def render_record(self, p: Any) -> None:
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

    def _flow(self, p: Any) -> RenderableType:
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
        modified = getattr(p, "modified_at", None)
        if modified and modified != p.created:
            rows.add_row("Modified", format_time(modified))
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

    def _method(self, p: Any) -> RenderableType:
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
        for name, value in details.items():
            if value is None or isinstance(value, Mapping):
                continue
            text = last_digits(str(value)) if name in NUMBERS else str(value)
            label = FIELD_LABELS.get(name) or name.replace("_", " ").capitalize()
            rows.add_row(safe(label), safe(text))
        if p.payout_method_id:
            rows.add_row("Saved as", safe(p.payout_method_id))
        return rows

    def _customer(self, p: Any) -> RenderableType:
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

    def _metadata(self, p: Any) -> RenderableType:
        hint = " e adds some." if str(p.status) in UPDATABLE else ""
        return metadata_grid(p.metadata, f"No metadata.{hint}")
