"""Find anything: what a support person types, matched across the service's objects.

    result = await find(client, "pay_01JX")          # or an email, a card's last 4, an id's tail
    for hit in result.hits:                           # exact id matches first, then by kind
        print(hit.kind, hit.object_id, hit.matched_on, hit.summary)
    result.truncated_kinds                            # kinds whose scan stopped at the page cap
    result.errors                                     # kind -> the ClientError that kind raised

How the text is read (`FindResult.looked_for` says which):

- a whole id with a known prefix (`pay_`, `ref_`, `dp_`, `cus_`, `payout_`, `sub_`, `plink_`;
  see `ID_PREFIXES`): retrieved directly. A 404 (or a 400/422: the service refusing the text as
  an id) is no match, not an error. When nothing is found and the kind can be listed, the text
  is then taken as the start of an id of that kind and matched over the newest records.
- `evt_...`: classified only (`id_kind == "event"`), nothing is fetched: events live in the
  listener's journal, which the UI searches itself.
- text with an `@`: customers whose `email` contains it and payments whose `email`, or billing
  e-mail (a hosted link page's buyer gives theirs there), contains it (case-insensitive).
- anything else of at least 4 characters: part of an id, matched case-insensitively (ids read
  out over the phone lose their case) over the newest records of payments, refunds, disputes and
  customers: `"id prefix"` when the id, or the id after its `xxx_` prefix, starts with the text,
  `"id part"` when the text is somewhere else in it (e.g. an id's last characters). The text is
  also retrieved as a whole payment, refund and customer id, since merchants may choose those
  ids themselves (`order-1234`).
- exactly 4 ASCII digits: also the last 4 digits of a card, matched against payments'
  `payment_method_data.card.last4`.

Whitespace around the text is dropped, and inside it too unless it is an email (no id contains
a space; people type ids in groups as they hear them).

Scanning reads pages of 100, newest first, at most `scan_pages` pages per kind, and stops once
`limit_per_kind` hits are found (never, with `limit_per_kind=None`: every match of what was
read, as Find shows them). Payment list items carry the whole payment object, including
`email` and `payment_method_data.card.last4` (the local sandbox splices each stored payment into
the list as is), so email and last-4 matching needs no per-payment retrieve; a list item without
them simply does not match on them. Payments made by the demo seed carry a `customer_id` but no
`email`: an email finds their customer, not them.

Each kind is looked up concurrently and on its own: a kind that fails (a key without access to
disputes, a client without the profile id that subscriptions need) is reported in
`FindResult.errors` and the other kinds' hits are kept (and so are the hits a failing scan
found before it failed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

from payscope.api.errors import ClientError, InvalidRequestError, NotFoundError
from payscope.api.ids import ID_PREFIX
from payscope.api.models._iso import format_minor_units
from payscope.api.models.customers import Customer, CustomerListRequest
from payscope.api.models.disputes import Dispute, DisputeListRequest
from payscope.api.models.links import PaymentLink
from payscope.api.models.payments import Payment, PaymentListRequest
from payscope.api.models.payouts import Payout
from payscope.api.models.refunds import Refund, RefundListRequest
from payscope.api.models.subscriptions import Subscription

if TYPE_CHECKING:
    from payscope.api.client import ApiClient

__all__ = [
    "ID_PREFIXES",
    "KINDS",
    "PAGE_SIZE",
    "SCANNED_KINDS",
    "TOO_SHORT",
    "FindResult",
    "Hit",
    "MatchedOn",
    "Scan",
    "find",
    "id_kind",
]

MatchedOn = Literal["id", "id prefix", "id part", "email", "last 4"]
Model: TypeAlias = Payment | Refund | Dispute | Customer | Payout | Subscription | PaymentLink

PAGE_SIZE = 100
TOO_SHORT = "Type at least 4 characters of an id, an email or the last 4 digits of a card."
_MIN_LENGTH = 4

# Kinds in the order their hits are shown.
KINDS: tuple[str, ...] = tuple(ID_PREFIX)
# Kinds whose lists are scanned for partial ids, emails and last 4s.
SCANNED_KINDS: tuple[str, ...] = ("payment", "refund", "dispute", "customer")
# Kinds whose ids a merchant may choose (so a text without a known prefix may be a whole one).
_MERCHANT_ID_KINDS: tuple[str, ...] = ("payment", "refund", "customer")

# Id prefix -> kind, longest first so a longer prefix wins over a shorter one it starts with.
ID_PREFIXES: tuple[tuple[str, str], ...] = tuple(
    sorted(((prefix, kind) for kind, prefix in ID_PREFIX.items()), key=lambda pair: -len(pair[0]))
)


def id_kind(text: str) -> str | None:
    """The kind of object whose id prefix `text` starts with (`"payout"` for `payout_...`,
    `"event"` for `evt_...`), or None. Surrounding whitespace and case are ignored."""
    lowered = text.strip().lower()
    for prefix, kind in ID_PREFIXES:
        if lowered.startswith(prefix):
            return kind
    return None


@dataclass(frozen=True)
class Hit:
    """One object that matched: its kind, id, a one-line plain-text summary, what matched
    (`"id"`, `"id prefix"`, `"id part"`, `"email"`, `"last 4"`) and the model itself."""

    kind: str
    object_id: str
    summary: str
    matched_on: MatchedOn
    model: Model = field(compare=False, repr=False)


@dataclass(frozen=True)
class Scan:
    """How far the list of one kind was read: `scanned` records, newest first, of `total` (as
    the service counts them; None when it does not say). `capped`: stopped at the page cap with
    records left unread. `limited`: stopped because `limit_per_kind` hits were found (more may
    match)."""

    kind: str
    scanned: int
    total: int | None
    capped: bool
    limited: bool


@dataclass(frozen=True)
class FindResult:
    """What `find` found.

    `text` is what was searched (whitespace dropped), `looked_for` how it was read (tags among
    "id", "id prefix", "id part", "email", "last 4", "event id"), `id_kind` the kind its prefix
    names (`"event"`: search the listener's journal). `hits` come exact id matches first, then
    by kind (`KINDS` order), newest first within a kind. `truncated_kinds` are the kinds whose
    scan stopped at the page cap without reading everything (`scans` says how many were read),
    and `errors` maps a kind to the `ClientError` its lookup raised.
    """

    text: str
    looked_for: tuple[str, ...]
    id_kind: str | None = None
    hits: tuple[Hit, ...] = ()
    truncated_kinds: tuple[str, ...] = ()
    scans: tuple[Scan, ...] = ()
    errors: Mapping[str, ClientError] = field(default_factory=dict)

    @property
    def limited_kinds(self) -> tuple[str, ...]:
        """Kinds that stopped at `limit_per_kind` hits: more of them may match."""
        return tuple(scan.kind for scan in self.scans if scan.limited)

    def scan(self, kind: str) -> Scan | None:
        """The scan of `kind`, if its list was read."""
        return next((scan for scan in self.scans if scan.kind == kind), None)


# -- reading the text ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    text: str
    looked_for: tuple[str, ...]
    id_kind: str | None = None
    retrieve: tuple[str, ...] = ()  # kinds to retrieve `text` from as a whole id
    scan: tuple[str, ...] = ()  # kinds whose lists are matched
    id_needle: str | None = None  # lowercased, for id matching
    prefixed: bool = False  # the needle carries a kind prefix: match the start only
    email: str | None = None  # lowercased
    last4: str | None = None


def _plan(raw: str) -> _Plan:
    stripped = raw.strip()
    if "@" in stripped:
        if len(stripped) < _MIN_LENGTH:
            raise ValueError(TOO_SHORT)
        return _Plan(stripped, ("email",), scan=("payment", "customer"), email=stripped.lower())
    text = "".join(stripped.split())
    kind = id_kind(text)
    if kind == "event":
        return _Plan(text, ("event id",), id_kind=kind)
    if kind is not None:
        scan = (kind,) if kind in SCANNED_KINDS else ()
        looked_for: tuple[str, ...] = ("id", "id prefix") if scan else ("id",)
        return _Plan(
            text,
            looked_for,
            id_kind=kind,
            retrieve=(kind,),
            scan=scan,
            id_needle=text.lower(),
            prefixed=True,
        )
    if len(text) < _MIN_LENGTH:
        raise ValueError(TOO_SHORT)
    last4 = text if len(text) == 4 and text.isascii() and text.isdigit() else None
    looked_for = ("id", "id prefix", "id part")
    if last4 is not None:
        looked_for = ("last 4", *looked_for)
    return _Plan(
        text,
        looked_for,
        retrieve=_MERCHANT_ID_KINDS,
        scan=SCANNED_KINDS,
        id_needle=text.lower(),
        last4=last4,
    )


def _id_match(object_id: str, plan: _Plan) -> MatchedOn | None:
    needle = plan.id_needle
    if needle is None:
        return None
    lowered = object_id.lower()
    if lowered.startswith(needle):
        return "id prefix"
    if plan.prefixed:
        return None
    _, sep, body = lowered.partition("_")
    if sep and body.startswith(needle):
        return "id prefix"
    return "id part" if needle in lowered else None


def _email_match(email: str | None, plan: _Plan) -> bool:
    return plan.email is not None and email is not None and plan.email in email.lower()


def _match(model: Model, plan: _Plan) -> MatchedOn | None:
    """What of `model` matches the plan, the strongest reason first."""
    by_id = _id_match(_object_id(model), plan)
    if by_id == "id prefix":
        return by_id
    if isinstance(model, Customer) and _email_match(model.email, plan):
        return "email"
    if isinstance(model, Payment) and _email_match(model.buyer_email, plan):
        return "email"
    if isinstance(model, Payment) and plan.last4 is not None and _last4(model) == plan.last4:
        return "last 4"
    return by_id


# -- the models ------------------------------------------------------------------------------


def _kind_of(model: Model) -> str:
    if isinstance(model, Payment):
        return "payment"
    if isinstance(model, Refund):
        return "refund"
    if isinstance(model, Dispute):
        return "dispute"
    if isinstance(model, Customer):
        return "customer"
    if isinstance(model, Payout):
        return "payout"
    if isinstance(model, Subscription):
        return "subscription"
    return "payment_link"


def _object_id(model: Model) -> str:
    if isinstance(model, Payment):
        return model.payment_id
    if isinstance(model, Refund):
        return model.refund_id
    if isinstance(model, Dispute):
        return model.dispute_id
    if isinstance(model, Customer):
        return model.customer_id
    if isinstance(model, Payout):
        return model.payout_id
    if isinstance(model, Subscription):
        return model.id
    return model.payment_link_id


def _last4(payment: Payment) -> str | None:
    data = payment.payment_method_data
    return data.card.last4 if data is not None and data.card is not None else None


def _money(amount: int | None, currency: str | None) -> str | None:
    if amount is None:
        return None
    return format_minor_units(amount, currency or "", grouping=True)


def _one_line(parts: Sequence[str | None], width: int = 120) -> str:
    """The non-empty parts joined on one line: whitespace collapsed, control characters gone."""
    cleaned = []
    for part in parts:
        if part is None:
            continue
        text = " ".join("".join(ch if ch.isprintable() else " " for ch in part).split())
        if text:
            cleaned.append(text)
    line = " · ".join(cleaned)
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def _summary(model: Model) -> str:
    if isinstance(model, Payment):
        last4 = _last4(model)
        return _one_line(
            [
                model.status,
                _money(model.amount, model.currency),
                f"card ending {last4}" if last4 else model.payment_method,
                model.buyer_name or model.buyer_email or model.customer_id,
                model.description,
            ]
        )
    if isinstance(model, Refund):
        return _one_line(
            [
                model.status,
                _money(model.amount, model.currency),
                f"refund of {model.payment_id}",
                model.reason,
            ]
        )
    if isinstance(model, Dispute):
        return _one_line(
            [
                model.dispute_status or model.status,
                _money(model.amount, model.currency),
                model.dispute_stage,
                model.reason,
                f"on {model.payment_id}" if model.payment_id else None,
            ]
        )
    if isinstance(model, Customer):
        return _one_line([model.name or "(no name)", model.email, model.phone])
    if isinstance(model, Payout):
        return _one_line(
            [
                model.status,
                _money(model.amount, model.currency),
                model.payout_type,
                model.description,
            ]
        )
    if isinstance(model, Subscription):
        return _one_line(
            [
                model.status,
                f"plan {model.plan_id}" if model.plan_id else None,
                model.item_price_id,
                model.customer_id,
            ]
        )
    return _one_line([model.status, _money(model.amount, model.currency), model.description])


def _hit(model: Model, matched_on: MatchedOn) -> Hit:
    return Hit(_kind_of(model), _object_id(model), _summary(model), matched_on, model)


# -- talking to the service --------------------------------------------------------------------

_Retrieve = Callable[["ApiClient", str], Awaitable[Model]]
_ListPage = Callable[["ApiClient", int], Awaitable[tuple[Sequence[Model], int | None]]]

_RETRIEVE: dict[str, _Retrieve] = {
    "payment": lambda client, id_: client.payments.retrieve(id_),
    "refund": lambda client, id_: client.refunds.retrieve(id_),
    "dispute": lambda client, id_: client.disputes.retrieve(id_),
    "customer": lambda client, id_: client.customers.retrieve(id_),
    "payout": lambda client, id_: client.payouts.retrieve(id_),
    "subscription": lambda client, id_: client.subscriptions.retrieve(id_),
    "payment_link": lambda client, id_: client.payment_links.retrieve(id_),
}


async def _payments(client: ApiClient, offset: int) -> tuple[Sequence[Model], int | None]:
    page = await client.payments.list(PaymentListRequest(limit=PAGE_SIZE, offset=offset))
    return page.data, page.total_count


async def _refunds(client: ApiClient, offset: int) -> tuple[Sequence[Model], int | None]:
    page = await client.refunds.list(RefundListRequest(limit=PAGE_SIZE, offset=offset))
    return page.data, page.total_count


async def _disputes(client: ApiClient, offset: int) -> tuple[Sequence[Model], int | None]:
    page = await client.disputes.list(DisputeListRequest(limit=PAGE_SIZE, offset=offset))
    return page.data, page.total_count


async def _customers(client: ApiClient, offset: int) -> tuple[Sequence[Model], int | None]:
    page = await client.customers.list(CustomerListRequest(limit=PAGE_SIZE, offset=offset))
    return page.data, page.total_count


_LIST_PAGE: dict[str, _ListPage] = {
    "payment": _payments,
    "refund": _refunds,
    "dispute": _disputes,
    "customer": _customers,
}


@dataclass
class _Outcome:
    kind: str
    exact: list[Hit] = field(default_factory=list)
    matched: list[Hit] = field(default_factory=list)
    scan: Scan | None = None
    error: ClientError | None = None


async def _scan(
    client: ApiClient, plan: _Plan, outcome: _Outcome, limit: int | None, scan_pages: int
) -> None:
    kind = outcome.kind
    seen = {hit.object_id for hit in outcome.exact}
    found = len(outcome.exact)
    scanned = 0
    total: int | None = None
    capped = limited = False
    for page_number in range(scan_pages):
        items, total = await _LIST_PAGE[kind](client, page_number * PAGE_SIZE)
        scanned += len(items)
        for model in items:
            object_id = _object_id(model)
            if object_id in seen:
                continue
            matched_on = _match(model, plan)
            if matched_on is None:
                continue
            seen.add(object_id)
            found += 1
            if limit is not None and found > limit:
                limited = True
                break
            outcome.matched.append(_hit(model, matched_on))
        covered = len(items) < PAGE_SIZE or (total is not None and scanned >= total)
        if limited or covered:
            break
        if limit is not None and found >= limit:
            limited = True
            break
        capped = page_number == scan_pages - 1
    outcome.scan = Scan(kind, scanned, total, capped, limited)


async def _lookup(
    client: ApiClient, plan: _Plan, kind: str, limit: int | None, scan_pages: int
) -> _Outcome:
    outcome = _Outcome(kind)
    try:
        if kind in plan.retrieve:
            try:
                model = await _RETRIEVE[kind](client, plan.text)
            except (NotFoundError, InvalidRequestError):
                pass  # no such object (a 400/422: the service does not take this as an id)
            else:
                outcome.exact.append(_hit(model, "id"))
                if plan.id_kind == kind:
                    return outcome  # the whole id it names: nothing more to look for
        if kind in plan.scan:
            await _scan(client, plan, outcome, limit, scan_pages)
    except ClientError as exc:
        outcome.error = exc
    return outcome


async def find(
    client: ApiClient,
    text: str,
    *,
    limit_per_kind: int | None = 20,
    scan_pages: int = 10,
    kinds: Collection[str] | None = None,
) -> FindResult:
    """Find what `text` (an id, part of one, an email, a card's last 4) names, across kinds
    (all of them, or only `kinds`: `:pay 01JX` looks among payments alone). With
    `limit_per_kind=None`, every match among the records read is returned.

    Raises `ValueError` with a message for a person when `text` is empty or too short to
    search on (`TOO_SHORT`), or when `limit_per_kind` or `scan_pages` is below 1. Errors of
    the service or the client are not raised: they are in `FindResult.errors`, per kind.
    """
    if limit_per_kind is not None and limit_per_kind < 1:
        raise ValueError(f"limit_per_kind must be at least 1 (got {limit_per_kind}).")
    if scan_pages < 1:
        raise ValueError(f"scan_pages must be at least 1 (got {scan_pages}).")
    plan = _plan(text)
    wanted = [k for k in KINDS if kinds is None or k in kinds]
    chosen = [kind for kind in wanted if kind in plan.retrieve or kind in plan.scan]
    answers = await asyncio.gather(
        *(_lookup(client, plan, kind, limit_per_kind, scan_pages) for kind in chosen),
        return_exceptions=True,
    )
    outcomes: list[_Outcome] = []
    for answer in answers:
        if isinstance(answer, BaseException):
            raise answer  # a bug, not the service: the client's own errors are caught above
        outcomes.append(answer)
    exact = [hit for outcome in outcomes for hit in outcome.exact]
    matched = [hit for outcome in outcomes for hit in outcome.matched]
    scans = tuple(outcome.scan for outcome in outcomes if outcome.scan is not None)
    return FindResult(
        text=plan.text,
        looked_for=plan.looked_for,
        id_kind=plan.id_kind,
        hits=(*exact, *matched),
        truncated_kinds=tuple(scan.kind for scan in scans if scan.capped),
        scans=scans,
        errors={o.kind: o.error for o in outcomes if o.error is not None},
    )
