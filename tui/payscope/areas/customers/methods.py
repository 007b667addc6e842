"""A customer's saved payment methods and mandates: read with the customer, shown in its detail,
and the three things that change them, each offered only where it applies: set a method as the
default (one that is not already), delete a saved method, revoke an active mandate."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Select

from payscope.api.models.payment_methods import CustomerPaymentMethod, Mandate
from payscope.views.detail import empty, table
from payscope.views.forms import Field, FormScreen
from payscope.widgets.errors import describe_error
from payscope.widgets.format import status_text
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.api.client import ApiClient


@dataclass
class Saved:
    """What the customer has saved (None: not read, with `error` saying why)."""

    methods: list[CustomerPaymentMethod] | None = None
    mandates: list[Mandate] | None = None
    errors: list[str] = field(default_factory=list)

    def deletable(self) -> list[CustomerPaymentMethod]:
        return list(self.methods or [])

    def not_default(self) -> list[CustomerPaymentMethod]:
        return [m for m in self.methods or [] if not m.default_payment_method_set]

    def revocable(self) -> list[Mandate]:
        return [m for m in self.mandates or [] if m.status == "active"]


async def load_saved(api: ApiClient, customer_id: str) -> Saved:
    """The customer's saved methods and mandates, read together; what fails is said."""
    saved = Saved()
    answers: Any = await asyncio.gather(
        api.payment_methods.list_for_customer(customer_id),
        api.mandates.list_for_customer(customer_id),
        return_exceptions=True,
    )
    listed, mandated = answers
    if isinstance(listed, BaseException):
        saved.errors.append("Saved methods: " + ": ".join(describe_error(listed)))
    else:
        saved.methods = list(listed.customer_payment_methods)
    if isinstance(mandated, BaseException):
        saved.errors.append("Mandates: " + ": ".join(describe_error(mandated)))
    else:
        saved.mandates = list(mandated)
    return saved


def method_label(m: CustomerPaymentMethod) -> str:
    """A saved method in a few words: "card Visa •••• 4242 12/30", "wallet apple_pay"."""
    words = [m.payment_method, m.payment_method_type or ""]
    if m.card is not None:
        words = [
            "card",
            m.card.card_network or "",
            f"•••• {m.card.last4_digits or '????'}",
            f"{m.card.expiry_month or '??'}/{(m.card.expiry_year or '??')[-2:]}",
        ]
        if m.card.nick_name:
            words.append(f"({m.card.nick_name})")
    return " ".join(w for w in words if w)


def methods_view(saved: Saved) -> RenderableType:
    """The saved methods section: one row each, the default marked."""
    if saved.methods is None:
        return empty(next((e for e in saved.errors if e.startswith("Saved")), "Not read."))
    if not saved.methods:
        return empty("No saved payment methods. A payment with setup_future_usage saves one.")
    rows = table("Method", "Id", "Saved")
    for m in saved.methods:
        default = "default · " if m.default_payment_method_set else ""
        rows.add_row(
            safe(default + method_label(m)),
            safe(m.payment_method_id),
            safe((m.created or "")[:10], empty=""),
        )
    keys = ["x deletes one"]
    if saved.not_default():
        keys.insert(0, "s sets the default")
    return Group(rows, empty(" · ".join(keys)))


def mandates_view(saved: Saved, variables: Mapping[str, str]) -> RenderableType:
    """The mandates section: status, the method it charges, its id."""
    if saved.mandates is None:
        return empty(next((e for e in saved.errors if e.startswith("Mandates")), "Not read."))
    if not saved.mandates:
        return empty(
            "No mandates. A payment with setup_future_usage: off_session and the customer's "
            "acceptance sets one up."
        )
    rows = table("Mandate", "Status", "Method", "Accepted")
    for m in saved.mandates:
        acceptance = (m.customer_acceptance or {}).get("acceptance_type")
        rows.add_row(
            safe(m.mandate_id),
            status_text(m.status, variables),
            safe(" ".join(w for w in (m.payment_method, m.payment_method_type) if w)),
            safe(acceptance, empty=""),
        )
    if saved.revocable():
        return Group(rows, empty("R revokes one: later charges on it are refused."))
    return rows


class ChooseForm(FormScreen[str, dict[str, Any]]):
    """Pick one of the customer's methods or mandates and act on it."""

    def __init__(
        self,
        title: str,
        intro: str,
        options: list[tuple[str, str]],
        label: str,
        do: Callable[[str], Awaitable[dict[str, Any]]],
        *,
        variant: str = "primary",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.intro = intro
        self.options = options
        self.submit_label = label
        self.submit_variant = variant
        self.do = do

    def fields(self) -> list[Field]:
        return [
            Field(
                "choice",
                "Which",
                Select(
                    [(Text(label), value) for label, value in self.options],
                    value=self.options[0][1],
                    allow_blank=False,
                    id="field-choice",
                ),
            )
        ]

    def build(self) -> str:
        return str(self.value("choice"))

    async def send(self, request: str) -> dict[str, Any]:
        return await self.do(request)


def set_default_form(api: ApiClient, customer_id: str, saved: Saved) -> ChooseForm:
    async def do(method_id: str) -> dict[str, Any]:
        return await api.payment_methods.set_default(customer_id, method_id)

    return ChooseForm(
        "Set the default method",
        f"The method {customer_id}'s payments use when none is named.",
        [(method_label(m), m.payment_method_id) for m in saved.not_default()],
        "Set as default",
        do,
    )


def delete_method_form(api: ApiClient, saved: Saved) -> ChooseForm:
    async def do(method_id: str) -> dict[str, Any]:
        return await api.payment_methods.delete(method_id)

    return ChooseForm(
        "Delete a saved method",
        "Its token stops working; its mandates can no longer be charged.",
        [(method_label(m), m.payment_method_id) for m in saved.deletable()],
        "Delete method",
        do,
        variant="error",
    )


def revoke_mandate_form(api: ApiClient, saved: Saved) -> ChooseForm:
    async def do(mandate_id: str) -> dict[str, Any]:
        return await api.mandates.revoke(mandate_id)

    return ChooseForm(
        "Revoke a mandate",
        "Recurring charges on it are refused from now on. This cannot be undone.",
        [
            (
                f"{m.mandate_id}  {m.payment_method or ''} {m.payment_method_type or ''}",
                m.mandate_id,
            )
            for m in saved.revocable()
        ],
        "Revoke mandate",
        do,
        variant="error",
    )
