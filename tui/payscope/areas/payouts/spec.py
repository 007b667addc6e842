"""The Payouts area's spec: columns, filter grammar, statuses, the labels its forms share.

Imported by its forms and its view; it imports neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from payscope.api.export import ListSource
from payscope.api.models.payout_methods import ACCOUNT_NUMBER_FIELDS
from payscope.api.models.payouts import (
    EntityType,
    Payout,
    PayoutListRequest,
    PayoutStatus,
    PayoutType,
)
from payscope.views.actions import statuses
from payscope.views.columns import Column
from payscope.views.filters import (
    Filter,
    Grammar,
    Term,
    amount_term,
    currency_term,
    id_word,
    server_term,
    status_term,
    time_terms,
)
from payscope.widgets.format import (
    amount_text,
    format_time,
    status_text,
)
from payscope.widgets.inputs import last_digits
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.api.client import ApiClient

PAGE_SIZE = 100
# The real service lists at most 20 payouts a page (PayoutListFilterConstraints.limit).
REMOTE_PAGE_SIZE = 20
AMOUNT_WIDTH = 15
PAYOUT_STATUSES: tuple[str, ...] = tuple(s.value for s in PayoutStatus)
PAYOUT_TYPES: tuple[str, ...] = tuple(t.value for t in PayoutType)

# Before confirmation a payout can still change (PUT /payouts/{id}).
UPDATABLE = statuses("requires_creation", "requires_payout_method_data", "requires_confirmation")
# Any state that is not final can be cancelled.
OPEN = UPDATABLE | statuses(
    "requires_vendor_account_creation", "requires_fulfillment", "initiated", "pending"
)
# Fields shown by their last digits only, whatever the service sent: its account numbers, and
# the card's last 4, the bank accounts' ids, tax ids and phone numbers it returns as they are.
NUMBERS = ACCOUNT_NUMBER_FIELDS | {
    "last4",
    "source_bank_account_id",
    "destination_bank_account_id",
    "cpf",
    "cnpj",
    "telephone_number",
}

# -- method data, in the spec's and the real service's shapes -------------------------------------

SCHEME_LABELS: Mapping[str, str] = {
    "ach": "ACH",
    "bacs": "BACS",
    "sepa": "SEPA",
    "trustly": "Trustly",
    "pix": "Pix",
    "pix_key": "Pix key",
    "pix_emv": "Pix QR",
    "open_banking": "Open Banking",
}
WALLET_LABELS: Mapping[str, str] = {
    "paypal": "PayPal",
    "venmo": "Venmo",
    "apple_pay_decrypt": "Apple Pay",
    "google_pay_decrypt": "Google Pay",
}
REDIRECT_LABELS: Mapping[str, str] = {"interac": "Interac", "open_banking_uk": "Open Banking UK"}


# Method fields as people name them (the forms and the detail).
FIELD_LABELS: Mapping[str, str] = {
    "card_number": "Card number",
    "expiry_month": "Expiry month (MM)",
    "expiry_year": "Expiry year (YYYY)",
    "card_holder_name": "Card holder",
    "card_network": "Network",
    "bank_account_number": "Account number",
    "bank_routing_number": "Routing number",
    "bank_sort_code": "Sort code",
    "iban": "IBAN",
    "bic": "BIC",
    "bank_name": "Bank name",
    "bank_country_code": "Bank country (2 letters)",
    "bank_city": "Bank city",
    "account_holder_name": "Account holder",
    "country_code": "Country (2 letters)",
    "account_number": "Account number",
    "bank_number": "Bank number",
    "pix_key": "Pix key",
    "emv": "Pix QR code (EMV string)",
    "bank_branch": "Branch",
    "tax_id": "Tax id (CPF or CNPJ)",
    "ispb": "ISPB",
    "dpan": "Device PAN",
    "application_primary_account_number": "Card number (PAN)",
    "email": "Email",
    "telephone_number": "Phone number",
    "paypal_id": "PayPal id",
    "psp_token": "PSP token",
    "psp_customer_id": "PSP customer id",
    "token_type": "Token type",
    "last4": "Last 4 digits",
    "card_exp_month": "Expiry month",
    "card_exp_year": "Expiry year",
    "card_issuer": "Issuer",
    "card_type": "Card type",
    "cpf": "CPF",
    "cnpj": "CNPJ",
}


def _filled(data: Mapping[str, Any]) -> set[str]:
    return {k for k, v in data.items() if v not in (None, "")}


def bank_scheme(data: Mapping[str, Any]) -> str | None:
    """Which kind of bank account method data describes (ach, bacs, sepa, pix...), from its
    discriminator when it has one, else from its distinctive fields."""
    given = data.get("payout_method_type")
    if isinstance(given, str) and given:
        return given
    keys = _filled(data)
    if "bank_routing_number" in keys:
        return "ach"
    if "bank_sort_code" in keys:
        return "bacs"
    if keys & {"bank_number", "country_code"}:
        return "trustly"
    if "bic" in keys:
        return "sepa"
    if keys & {"pix_key", "cpf", "cnpj", "source_bank_account_id"}:
        return "pix"
    if "emv" in keys:
        return "pix_emv"
    if "iban" in keys:
        return "open_banking" if "account_holder_name" in keys else "sepa"
    return None


def method_of(data: Mapping[str, Any] | None) -> tuple[str, str, Mapping[str, Any]]:
    """(method key, kind, details) of `payout_method_data`: ("bank", "ach", {...}).

    `bank_transfer` (the spec) and `bank` (the real service) are both "bank"; a wallet or a bank
    redirect is read with its kind's key (the spec) or without (the real service)."""
    if not data:
        return "", "", {}
    key, inner = next(((k, v) for k, v in data.items() if v is not None), ("", None))
    details: Mapping[str, Any] = inner if isinstance(inner, Mapping) else {}
    if key in ("bank_transfer", "bank"):
        return "bank", bank_scheme(details) or "", details
    if key in ("wallet", "bank_redirect"):
        nested = [(k, v) for k, v in details.items() if isinstance(v, Mapping)]
        if len(nested) == 1:
            return key, nested[0][0], nested[0][1]
        keys = _filled(details)
        if key == "bank_redirect":
            return key, "interac" if "email" in keys else "", details
        if "card_exp_month" in keys or "dpan" in keys:
            return key, "apple_pay_decrypt", details
        if keys & {"paypal_id", "email"}:
            return key, "paypal", details
        return key, "venmo" if "telephone_number" in keys else "", details
    return key, "", details


def kind_label(method: str, kind: str) -> str:
    """ "ACH", "PayPal", "Interac"... (the kind as people name it)."""
    labels = {"bank": SCHEME_LABELS, "wallet": WALLET_LABELS, "bank_redirect": REDIRECT_LABELS}
    return labels.get(method, {}).get(kind, kind.replace("_", " "))


def _number(details: Mapping[str, Any]) -> str:
    for name in (
        "card_number",
        "last4",
        "bank_account_number",
        "iban",
        "account_number",
        "pix_key",
        "dpan",
        "application_primary_account_number",
        "telephone_number",
        "psp_token",
        "emv",
    ):
        value = details.get(name)
        if isinstance(value, str) and value:
            # the real service's card gives the last four alone: still shown as a card number
            return f"•••• {value[-4:]}" if name == "last4" else last_digits(value)
    return ""


def method_text(payout: Payout) -> str:
    """The method in a few words: "card •••• 4242", "ACH •••• 6789", "PayPal", "-"."""
    method, kind, details = method_of(payout.payout_method_data)
    if not method:
        return str(payout.payout_type or "-")
    number = _number(details)
    if method == "card":
        head = "card"
    elif method == "passthrough":
        head = "passthrough"
    else:
        head = kind_label(method, kind) or method.replace("_", " ")
    return f"{head} {number}".strip()


def customer_of(payout: Payout) -> str | None:
    """The id of the customer a payout pays (by id, or in its customer object)."""
    return payout.customer_id or (payout.customer.id if payout.customer else None)


# Ids are shown whole (payout_ + 20 characters); the status column takes spare width first
# (the longest, requires_payout_method_data, ends in "…" below 130 columns). Narrower, the
# method, then the created time, then the customer give way: payout, status and amount stay.
COLUMNS: tuple[Column[Payout], ...] = (
    Column("payout_id", "Payout", 27, lambda p, c: safe(p.payout_id)),
    Column("status", "Status", 14, lambda p, c: status_text(p.status, c.variables), flex=(14, 27)),
    Column(
        "amount",
        "Amount",
        AMOUNT_WIDTH,
        lambda p, c: amount_text(p.amount, p.currency, c.variables, width=AMOUNT_WIDTH),
    ),
    Column("method", "Method", 16, lambda p, c: safe(method_text(p)), 80, flex=(16, 24)),
    Column("created", "Created", 12, lambda p, c: safe(format_time(p.created, short=True)), 94),
    Column("customer", "Customer", 24, lambda p, c: safe(customer_of(p)), 128),
)


# -- the filter ------------------------------------------------------------------------------------


def _method_term() -> Term:
    """`method:card,bank`: the service's `payout_method[]` (checked against the payout types)."""

    def apply(value: str, result: Filter) -> None:
        wanted = [v.strip().lower() for v in value.split(",") if v.strip()]
        for method in wanted:
            if method not in PAYOUT_TYPES:
                raise ValueError(
                    f"`{method}` is not a payout method. Methods: {', '.join(PAYOUT_TYPES)}."
                )
        result.server["payout_method"] = wanted

    return Term(("method", "type", "m"), "method:bank", apply)


def _entity_term() -> Term:
    """`entity:company`: the service's `entity_type` (any case, as the model reads it)."""
    names = {e.value.lower(): e.value for e in EntityType}

    def apply(value: str, result: Filter) -> None:
        key = value.replace("_", "").lower()
        if key not in names:
            raise ValueError(
                f"`{value}` is not an entity type. Types: {', '.join(names.values())}."
            )
        result.server["entity_type"] = names[key]

    return Term(("entity", "entity_type"), "entity:company", apply)


def payout_grammar() -> Grammar:
    """`status:failed currency:EUR method:bank amount:10-50 from:… to:… customer:cus_…
    payout_…`. The amount is matched in the view (the list route has no amount filter); the
    rest is the service's `POST /payouts/list` filter body."""
    return Grammar(
        [
            status_term(PAYOUT_STATUSES, "payout"),
            currency_term(),
            _method_term(),
            amount_term(None),
            *time_terms("start_time", "end_time"),
            server_term(("customer", "cus"), "customer_id", "customer:cus_…"),
            _entity_term(),
        ],
        bare=id_word({"payout_": "payout_id", "cus_": "customer_id"}, 20, own="payout_"),
        bare_example="payout_… or part of an id",
    )


def list_request(filters: Mapping[str, Any], offset: int, limit: int) -> PayoutListRequest:
    """The `PayoutListRequest` of a filter: `from:`/`to:` become its `time_range`."""
    body = dict(filters)
    start, end = body.pop("start_time", None), body.pop("end_time", None)
    if start or end:
        # The range needs a start: "to:" alone is everything up to then.
        body["time_range"] = {"start_time": start or "1970-01-01T00:00:00Z", "end_time": end}
    return PayoutListRequest.model_validate({**body, "limit": limit, "offset": offset})


async def read_page(
    api: ApiClient, filters: Mapping[str, Any], offset: int, limit: int
) -> tuple[list[Payout], int]:
    """A page of the payouts list and its total (the list and `payscope export` read it so).

    The real service answers {size, data, total_count?}: without a total, count what came (one
    more page is offered while pages come back full)."""
    page = await api.payouts.list(list_request(filters, offset, limit))
    if page.total_count is not None:
        total = int(page.total_count)
    else:
        total = offset + len(page.data) + (1 if len(page.data) >= limit else 0)
    return list(page.data), total


def export_source() -> ListSource:
    """How `payscope export payouts` reads the list (this area's `AREA.export`)."""
    return ListSource(read_page, lambda r: str(r.payout_id))
