"""Filter grammars: what `/` accepts in each area, and a specific error for what it does not.

A grammar is a list of terms (`status:failed`, `currency:EUR`, `amount:10-50`, `from:2024-05-01`)
and bare words (an id or an id fragment, free text). Each term says whether the service filters
on it (a request field) or the view does (a predicate over the newest records), so a resource
whose list route has no such filter still finds what support staff ask for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from payscope.api.models._iso import is_currency
from payscope.widgets.format import parse_amount

Predicate = Callable[[Any], bool]


@dataclass
class Filter:
    """A parsed filter: request fields for the service, predicates for the view."""

    text: str = ""
    server: dict[str, Any] = field(default_factory=dict)
    local: list[Predicate] = field(default_factory=list)
    # The currencies filtered on (an amount is read in them), and steps that need every word.
    currencies: list[str] | None = None
    pending: list[Callable[[Filter], None]] = field(default_factory=list)
    # `from:` and `to:` as read, so a window that ends before it starts is told, not sent.
    window: dict[str, datetime] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.server or self.local)

    def matches(self, record: Any) -> bool:
        """True if `record` passes every predicate of the view."""
        return all(check(record) for check in self.local)


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class Term(NamedTuple):
    """`key:value`: `apply(value, filter)` adds to the filter or raises ValueError (said for a
    person)."""

    keys: tuple[str, ...]
    example: str
    apply: Callable[[str, Filter], None]


class Grammar(NamedTuple):
    """The terms of an area's filter, and what a bare word means there."""

    terms: Sequence[Term]
    bare: Callable[[str, Filter], None] | None = None
    bare_example: str = ""

    @property
    def help(self) -> str:
        """Examples of everything this filter takes (the input's placeholder)."""
        examples = [t.example for t in self.terms]
        return "  ".join([*examples, self.bare_example] if self.bare_example else examples)

    def parse(self, text: str) -> Filter:
        """Read `text`; ValueError names the word that is not understood and what would be."""
        result = Filter(text=" ".join(text.split()))
        for word in text.split():
            key, sep, value = word.partition(":")
            if not sep:
                if self.bare is None:
                    raise ValueError(f"`{word}` is not a filter. Use {self.help}.")
                self.bare(word, result)
                continue
            term = next((t for t in self.terms if key.lower() in t.keys), None)
            if term is None:
                raise ValueError(f"Unknown filter `{key}:`. Use {self.help}.")
            if not value:
                raise ValueError(f"`{word}` needs a value after the colon, as in {term.example}.")
            term.apply(value, result)
        for step in result.pending:
            step(result)
        result.pending.clear()
        return result


# -- term builders -------------------------------------------------------------------------------


def server_term(keys: Iterable[str], request_field: str, example: str) -> Term:
    """A term sent as it is to the service's `request_field`."""

    def apply(value: str, result: Filter) -> None:
        result.server[request_field] = value

    return Term(tuple(keys), example, apply)


def status_term(
    known: Iterable[str],
    noun: str,
    request_field: str | None = "status",
    *,
    many: bool = True,
    normalise: Callable[[str], str] | None = None,
    read: Callable[[Any], Any] | None = None,
) -> Term:
    """`status:a,b`: checked against the statuses the area knows (a typo is told, not sent).

    `request_field=None` filters in the view (a list route without a status filter).
    `normalise` maps a short form (`won`) to the service's own spelling. `read` is what the
    view compares in a record (default its `status`; a link's `paid` is derived).
    """
    allowed = tuple(known)

    def apply(value: str, result: Filter) -> None:
        wanted = [v.strip().lower() for v in value.split(",") if v.strip()]
        if normalise is not None:
            wanted = [normalise(v) for v in wanted]
        for status in wanted:
            if status not in allowed:
                close = [s for s in allowed if status in s]
                hint = f" Did you mean {', '.join(close[:3])}?" if close else ""
                raise ValueError(
                    f"`{status}` is not a {noun} status.{hint} Statuses: {', '.join(allowed)}."
                )
        if not many and len(wanted) > 1:
            raise ValueError(f"{noun.capitalize()}s filter on one status at a time.")
        if request_field is None:
            chosen = set(wanted)
            value_of = read or (lambda r: getattr(r, "status", None))
            result.local.append(lambda r: _text(value_of(r)) in chosen)
        else:
            result.server[request_field] = wanted if many else wanted[0]

    return Term(("status", "s"), f"status:{allowed[0]}", apply)


def currency_term(request_field: str | None = "currency", *, many: bool = True) -> Term:
    """`currency:EUR,USD` (ISO 4217, any case)."""

    def apply(value: str, result: Filter) -> None:
        codes = [c.strip().upper() for c in value.split(",") if c.strip()]
        for code in codes:
            if not is_currency(code):
                raise ValueError(f"`{code}` is not an ISO 4217 currency code (USD, EUR, JPY).")
        result.currencies = codes
        if request_field is None:
            chosen = {c.lower() for c in codes}  # `_text` reads the record lower-cased
            result.local.append(lambda r: _text(getattr(r, "currency", None)) in chosen)
        else:
            result.server[request_field] = codes if many else codes[0]

    return Term(("currency", "cur"), "currency:EUR", apply)


def time_terms(
    gte_field: str | None = "created_gte", lte_field: str | None = "created_lte"
) -> list[Term]:
    """`from:2024-05-01` and `to:2024-05-31` (a bare date is the whole day; UTC)."""

    def bound(start: bool, request_field: str | None) -> Callable[[str, Filter], None]:
        def apply(value: str, result: Filter) -> None:
            moment = _moment(value, start=start)
            if not result.window:
                result.pending.append(_window_in_order)
            result.window["from" if start else "to"] = moment
            if request_field is None:
                if start:
                    result.local.append(lambda r: (_created(r) or moment) >= moment)
                else:
                    result.local.append(lambda r: (_created(r) or moment) <= moment)
            else:
                result.server[request_field] = moment.strftime("%Y-%m-%dT%H:%M:%SZ")

        return apply

    return [
        Term(("from", "since", "created_gte"), "from:2024-05-01", bound(True, gte_field)),
        Term(("to", "until", "created_lte"), "to:2024-05-31", bound(False, lte_field)),
    ]


def _window_in_order(result: Filter) -> None:
    start, end = result.window.get("from"), result.window.get("to")
    if start is not None and end is not None and end < start:
        raise ValueError(
            f"`to:` ({end:%Y-%m-%d %H:%M}) is before `from:` ({start:%Y-%m-%d %H:%M}): "
            "nothing could match. Swap them."
        )


def amount_term(request_field: str | None = "amount_filter") -> Term:
    """`amount:42.00` (exactly), `10-50`, `10-` (at least) or `-50` (at most), in the currency
    filtered on (JPY has no minor unit), else in a two-decimal one."""

    def apply(value: str, result: Filter) -> None:
        def finish(done: Filter) -> None:
            bounds = amount_range(value, done.currencies)
            if request_field is None:
                low, high = bounds.get("start_amount", 0), bounds.get("end_amount")
                done.local.append(
                    lambda r: (
                        (a := getattr(r, "amount", None)) is not None
                        and a >= low
                        and (high is None or a <= high)
                    )
                )
            else:
                done.server[request_field] = bounds

        result.pending.append(finish)  # once every word is in: `currency:JPY` may come after

    return Term(("amount", "amt"), "amount:10-50", apply)


def amount_range(value: str, currencies: list[str] | None) -> dict[str, int]:
    """`42.00`, `10-50`, `10-` or `-50` -> {start_amount, end_amount} in minor units."""
    from payscope.api.models.common import MAX_AMOUNT

    currency = currencies[0] if currencies and len(currencies) == 1 else "USD"
    low, dash, high = value.partition("-")
    if not dash:
        high = low
    if not low and not high:
        raise ValueError("`amount:` needs an amount or a range, such as amount:42.00 or 10-50.")
    bounds: dict[str, int] = {}
    for name, text in (("start_amount", low), ("end_amount", high)):
        if text:
            try:
                bounds[name] = parse_amount(text, currency)
            except ValueError as exc:
                raise ValueError(f"`amount:{value}`: {exc}") from None
    if bounds.get("end_amount", MAX_AMOUNT) < bounds.get("start_amount", 0):
        raise ValueError(f"`amount:{value}`: the range goes from the smaller amount to the larger.")
    return bounds


def id_word(
    prefixes: dict[str, str], full_length: int | None = None, *, own: str | None = None
) -> Callable[[str, Filter], None]:
    """A bare id: a whole id goes to the service's field for its prefix (`pay_…` ->
    payment_id); an incomplete id of this area (`own` prefix) or any other word of 4 or more
    characters is matched inside the ids the view scans."""

    def apply(word: str, result: Filter) -> None:
        for prefix, request_field in sorted(prefixes.items(), key=lambda p: -len(p[0])):
            if word.startswith(prefix):
                whole = full_length is None or len(word) - len(prefix) >= full_length
                if whole or prefix != own:
                    result.server[request_field] = word
                    return
                break
        if len(word) < 4:
            raise ValueError(f"`{word}`: type at least 4 characters of an id.")
        fragment = word.lower()
        result.local.append(lambda r: fragment in _record_ids(r))

    return apply


def word_or(
    fallback: Callable[[str, Filter], None],
    *,
    statuses: Iterable[str] = (),
    status: Term | None = None,
    currency: Term | None = None,
) -> Callable[[str, Filter], None]:
    """A bare word that is one of the area's statuses (`failed`) or a currency (`eur`) filters
    by it, as the words shown on screen read; any other word goes to `fallback`."""
    known = {s.lower() for s in statuses}

    def apply(word: str, result: Filter) -> None:
        lowered = word.lower()
        if status is not None and lowered in known:
            status.apply(lowered, result)
        elif currency is not None and len(word) == 3 and is_currency(word.upper()):
            currency.apply(word, result)
        else:
            fallback(word, result)

    return apply


def _record_ids(record: Any) -> str:
    # Every *_id of the record, lower-cased, for fragment matching.
    data = record.__dict__ if hasattr(record, "__dict__") else {}
    return " ".join(str(v).lower() for k, v in data.items() if k.endswith("_id") and v)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return str(getattr(value, "value", value)).lower()


def _moment(value: str, *, start: bool) -> datetime:
    text = value.strip()
    if len(text) == 10:
        text += "T00:00:00" if start else "T23:59:59"
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"`{value}` is not a date: type it as 2024-05-01 or 2024-05-01T14:30:00."
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _created(record: Any) -> datetime | None:
    value = getattr(record, "created", None) or getattr(record, "created_at", None)
    if not value:
        return None
    try:
        return _moment(str(value), start=True)
    except ValueError:
        return None
