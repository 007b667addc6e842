"""The dispute forms: evidence by category (challenge, or replace it), accept, the sandbox
network's decision (won / lost), and opening a dispute on a payment (local sandbox).

Built on the generic forms of `payscope.views.forms`; each button says what will be sent.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from pydantic import ValidationError

from payscope.api.errors import NotFoundError
from payscope.api.models.disputes import (
    EVIDENCE_CATEGORIES,
    EVIDENCE_FIELDS,
    Dispute,
    DisputeEvidenceSubmit,
)
from payscope.areas.disputes.spec import (
    CATEGORY_TITLES,
    FILE_FIELDS,
    category_title,
    field_label,
    normal,
    short_status,
)
from payscope.views.forms import (
    ConfirmScreen,
    Field,
    FormErrors,
    FormScreen,
    validation_messages,
)
from payscope.widgets.format import format_amount
from payscope.widgets.inputs import SafeInput

# What a field looks like when filled (the file fields take the id of an uploaded file).
_PLACEHOLDERS = {
    "customer_name": "e.g. Jane Doe",
    "customer_email_address": "e.g. jane@example.com",
    "customer_purchase_ip": "e.g. 203.0.113.7",
    "billing_address": "as the customer gave it",
    "access_activity_log": "logins, downloads, use after the purchase",
    "product_description": "what was sold, as the customer saw it",
    "service_date": "e.g. 2024-04-12",
    "shipping_carrier": "e.g. UPS, DHL, FedEx",
    "shipping_date": "e.g. 2024-04-12",
    "shipping_tracking_number": "e.g. 1Z999AA10123456784",
    "shipping_address": "where it was delivered",
    "refund_policy_disclosure": "how and where the customer was shown it",
    "refund_refusal_explanation": "why no refund was given",
    "cancellation_policy_disclosure": "how and where the customer was shown it",
    "cancellation_rebuttal": "why the cancellation claim does not hold",
    "uncategorized_text": "anything else the network should read",
}


def _describe(dispute: Dispute) -> str:
    return (
        f"{format_amount(dispute.amount, dispute.currency)} disputed on "
        f"{dispute.payment_id or 'a payment'}, reason {dispute.reason or 'not given'}."
    )


class EvidenceForm(FormScreen[DisputeEvidenceSubmit, Dispute]):
    """The evidence of a dispute, by category; sending it challenges the dispute (or, once
    challenged, replaces what was sent)."""

    # One-line fields (26 of them), each on a tinted band so an empty one is still seen.
    DEFAULT_CSS = """
    EvidenceForm Input.-textual-compact {
        margin: 0 1 0 1; padding: 0 1; background: $foreground 8%;
    }
    EvidenceForm Input.-textual-compact:focus { background: $primary 25%; }
    """

    def __init__(self, dispute: Dispute, current: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.dispute = dispute
        self.current = current or {}
        self.replacing = current is not None
        if self.replacing:
            self.title_text = f"Replace the evidence of {dispute.dispute_id}"
            self.submit_label = "Replace evidence"
            what = " What you send replaces what was sent (shown below)."
        else:
            self.title_text = f"Challenge {dispute.dispute_id}"
            self.submit_label = "Challenge"
            what = ""
        self.intro = (
            f"{_describe(dispute)} Fill what you have, at least one field. A (file id) field "
            f"takes the id or reference of a file uploaded to the service, not a path.{what}"
        )

    def fields(self) -> list[Field]:
        ordered = sorted(
            EVIDENCE_CATEGORIES, key=lambda n: list(CATEGORY_TITLES).index(EVIDENCE_CATEGORIES[n])
        )
        result = []
        for name in ordered:
            is_file = name in FILE_FIELDS
            label = field_label(name) + (" (file id)" if is_file else "")
            placeholder = "file id or reference" if is_file else _PLACEHOLDERS.get(name, "")
            value = self.current.get(name)
            # One line each (26 fields): more of the form in sight at once.
            widget = SafeInput(
                "" if value is None else str(value),
                placeholder=placeholder,
                compact=True,
                id=f"field-{name}",
            )
            group = category_title(EVIDENCE_CATEGORIES[name])
            result.append(Field(name, label, widget, group=group))
        return result

    def filled(self) -> dict[str, str]:
        """The evidence fields that hold something."""
        return {f.name: v for f in self._fields if (v := self.value(f.name))}

    def submit_text(self) -> str | None:
        count = len(self.filled())
        if not count:
            return None
        fields = f"{count} field{'s' * (count != 1)}"
        return f"Replace evidence ({fields})" if self.replacing else f"Challenge with {fields}"

    def build(self) -> DisputeEvidenceSubmit:
        values = self.filled()
        errors: dict[str, str] = {}
        ip = values.get("customer_purchase_ip")
        if ip is not None:
            try:
                ipaddress.ip_address(ip)
            except ValueError:
                errors["customer_purchase_ip"] = (
                    f"{ip!r} is not an IP address: type it as 203.0.113.7 or 2001:db8::7."
                )
        email = values.get("customer_email_address")
        if email is not None and ("@" not in email or " " in email):
            errors["customer_email_address"] = f"{email!r} is not an email address."
        try:
            request = DisputeEvidenceSubmit(dispute_id=self.dispute.dispute_id, **values)
        except ValidationError as exc:
            # "At least one field" is about no field in particular: said under the first.
            for name, message in validation_messages(exc).items():
                where = name if name in EVIDENCE_NAMES else self._fields[0].name
                errors.setdefault(where, message[:1].upper() + message[1:] + ".")
            raise FormErrors(errors) from None
        if errors:
            raise FormErrors(errors)
        return request

    async def send(self, request: DisputeEvidenceSubmit) -> Dispute:
        dispute = normal(await self.client.disputes.submit_evidence(request))
        count = len(self.filled())
        self.app.notify(
            f"{dispute.dispute_id}: {short_status(dispute.status)}, {count} evidence "
            f"field{'s' * (count != 1)} sent.",
            title="Evidence replaced" if self.replacing else "Dispute challenged",
        )
        return dispute


def _evidence_names() -> frozenset[str]:
    return frozenset(EVIDENCE_FIELDS)


EVIDENCE_NAMES = _evidence_names()


async def evidence_form(app: Any, dispute: Dispute, replace: bool) -> EvidenceForm:
    """The evidence form; to replace evidence, prefilled with what was sent."""
    if not replace:
        return EvidenceForm(dispute)

    try:
        sent = await app.runtime.api.disputes.evidence(dispute.dispute_id)
    except NotFoundError:
        return EvidenceForm(dispute, {})
    return EvidenceForm(dispute, sent.flat())


async def accept_form(app: Any, dispute: Dispute) -> ConfirmScreen:
    """Accept (concede) an open dispute."""
    client = app.runtime.client

    async def do() -> Dispute:
        accepted = normal(await client.disputes.accept(dispute.dispute_id))
        app.notify(
            f"{accepted.dispute_id}: {short_status(accepted.status)}.", title="Dispute accepted"
        )
        return accepted

    amount = format_amount(dispute.amount, dispute.currency)
    return ConfirmScreen(
        "Accept dispute",
        f"{dispute.dispute_id}: {_describe(dispute)}\nAccept it? You concede: the cardholder "
        f"keeps {amount}, and no evidence can be sent afterwards.",
        f"Accept, concede {amount}",
        do,
        variant="error",
    )


async def resolve_form(app: Any, dispute: Dispute, outcome: str) -> ConfirmScreen:
    """The sandbox's card network decides an undecided dispute (won or lost)."""
    client = app.runtime.client

    async def do() -> Dispute:
        decided = normal(await client.sandbox.resolve_dispute(dispute.dispute_id, outcome))
        app.notify(
            f"{decided.dispute_id}: {short_status(decided.status)}.", title="Dispute decided"
        )
        return decided

    side = "the merchant keeps" if outcome == "won" else "the cardholder keeps"
    return ConfirmScreen(
        f"Resolve {outcome} (sandbox network)",
        f"{dispute.dispute_id}: {_describe(dispute)}\nAct as the card network and decide: {side} "
        f"{format_amount(dispute.amount, dispute.currency)}. Only the local sandbox has this "
        "control; a real network decides on its own.",
        f"Resolve {outcome}",
        do,
        variant="success" if outcome == "won" else "error",
    )
