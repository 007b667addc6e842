"""Reading a request's `payment_method_data` (not a card): which type of
`payscope.sandbox.method_types` it pays with, what that type will do (the payment's rule), and
what a page-based flow shows the customer (transfer instructions, the QR image).
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from typing import Any, Final

from payscope.sandbox import cards
from payscope.sandbox.errors import INVALID, SandboxError, invalid, is_sensitive, missing
from payscope.sandbox.method_types import (
    ALL_FAMILIES,
    BY_VARIANT,
    DEBIT,
    EXPIRE_MARK,
    EXPIRED,
    FAILED,
    FAMILIES,
    SUCCEEDED,
    SYNC,
    TRANSFER,
    VOUCHER,
    WAIT,
    MethodType,
    TestValue,
)


@dataclass
class Chosen:
    """What a request's `payment_method_data` pays with: the type and the data as sent."""

    method: MethodType
    data: Any  # payment_method_data[family] as sent
    inner: dict[str, Any] = field(default_factory=dict)  # the variant's object


def find(obj: Any, dotted: str) -> Any:
    """The value at a dotted path inside nested objects, or None."""
    for part in dotted.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def test_value(chosen: Chosen) -> TestValue | None:
    """The documented test value the request's data holds, if any."""
    method = chosen.method
    if method.test_field is None:
        return None
    sent = find(chosen.inner, method.test_field)
    return next((v for v in method.values if v.value == sent), None)


def test_field_value(chosen: Chosen) -> Any:
    """The raw value of the type's test field in the request's data."""
    if chosen.method.test_field is None:
        return None
    return find(chosen.inner, chosen.method.test_field)


# -- reading a request ----------------------------------------------------------------------------


def _refuse(field: str, what: str, allowed: str) -> SandboxError:
    """400 IR_04 saying what was wrong with `field` in words (never the value itself)."""
    return SandboxError(
        400, INVALID, "IR_04", f"Invalid value for {field}: {what}. Allowed: {allowed}."
    )


def _variants(family: str) -> str:
    return ", ".join(sorted({t.variant or "" for t in FAMILIES[family]}))


def choose(
    payment_method: str | None, payment_method_type: str | None, pmd: dict[str, Any]
) -> Chosen:
    """The type a request's `payment_method_data` (not a card) pays with, checked against
    `payment_method` and `payment_method_type`. Raises the spec's 400 with what to send."""
    found = [k for k in pmd if k not in ("card", "billing")]
    if not found:
        raise missing(
            "payment_method_data",
            "It holds no payment method: send one family's data, e.g. "
            '{"card": {...}} or {"bank_redirect": {"ideal": {"bank_name": "ing"}}} '
            "(see GET /_sandbox/test-methods).",
        )
    if len(found) > 1:
        raise _refuse(
            "payment_method_data",
            f"it holds {' and '.join(found)}",
            "the data of one family per payment",
        )
    family = found[0]
    if family not in FAMILIES:
        raise _refuse(
            f"payment_method_data.{family}",
            "an unknown family",
            f"one of the families {', '.join(ALL_FAMILIES)}",
        )
    if payment_method is not None and payment_method != family:
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"payment_method is {payment_method!r} but payment_method_data holds {family} "
            f"data (payment_method_data.{family}): send payment_method: {family!r}, or "
            f"{payment_method} data.",
        )
    data = pmd[family]
    types = FAMILIES[family]
    where = f"payment_method_data.{family}"
    inner: dict[str, Any]
    if types[0].variant is None:
        if family == "reward":
            wanted = payment_method_type or types[0].type
            method = next((t for t in types if t.type == wanted), None)
            if method is None:
                raise invalid(
                    "payment_method_type",
                    payment_method_type,
                    f"a reward type: {', '.join(t.type for t in types)}",
                )
            return Chosen(method, data, {})
        method = types[0]
        if not isinstance(data, dict):
            raise _refuse(where, "not an object", f"an object, e.g. {method.example}")
        inner = data
    else:
        if isinstance(data, str):
            variant, inner = data, {}
        elif isinstance(data, dict) and len(data) == 1:
            variant, value = next(iter(data.items()))
            if value is not None and not isinstance(value, dict):
                raise _refuse(f"{where}.{variant}", "not an object", "an object")
            inner = value or {}
        else:
            raise _refuse(
                where,
                f"an object with {len(data)} keys" if isinstance(data, dict) else "not an object",
                f"an object with exactly one of: {_variants(family)}",
            )
        chosen_type = BY_VARIANT.get((family, variant))
        if chosen_type is None:
            raise _refuse(
                f"{where}.{variant}", "an unknown variant", f"one of: {_variants(family)}"
            )
        method = chosen_type
        where = f"{where}.{variant}"
    if payment_method_type is not None and payment_method_type != method.type:
        raise invalid(
            "payment_method_type",
            payment_method_type,
            f"{method.type!r}, the type of the data sent ({where})",
        )
    for name in method.required:
        if find(inner, name) in (None, ""):
            raise missing(
                f"{where}.{name}", f"{method.name} needs it (see GET /_sandbox/test-methods)."
            )
    return Chosen(method, data, inner)


def shown(chosen: Chosen) -> dict[str, Any]:
    """`payment_method_data` as the payment shows it: the data as sent, with account numbers,
    IBANs and tokens masked to their last four characters."""
    return {chosen.method.family: _masked(chosen.data)}


def _masked(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _masked(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, key) for v in value]
    if (
        key
        and isinstance(value, str | int)
        and not isinstance(value, bool)
        and (is_sensitive(key) or key in _ALSO_MASKED)
    ):
        text = str(value)
        return "*" * max(0, len(text) - 4) + text[-4:]
    return value


# Method fields that carry a number or token worth hiding, beyond the sandbox's sensitive list.
_ALSO_MASKED: Final = frozenset(
    {
        "number",
        "payment_data",
        "token",
        "vpa_id",
        "msisdn",
        "social_security_number",
        "token_cryptogram",
        "routing_number",
        "sort_code",
        "bsb_number",
    }
)


def rule_for(chosen: Chosen, email: str, this_month: tuple[int, int]) -> dict[str, Any]:
    """What this payment method will do, decided when it arrives (kept as the payment's rule,
    never the raw account or token)."""
    method = chosen.method
    rule: dict[str, Any] = {
        "family": method.family,
        "type": method.type,
        "flow": method.flow,
        "brand": method.type,
        "fail_code": method.fail_code,
        "outcome": cards.SUCCEEDED,
        "code": None,
    }
    if method.delayed:
        rule["delayed"] = True
    if method.family == "network_token":
        outcome, code = cards.outcome_for(
            str(chosen.inner.get("network_token")),
            None,
            str(chosen.inner.get("token_exp_month")),
            str(chosen.inner.get("token_exp_year")),
            this_month,
        )
        if outcome == cards.DECLINED:
            rule["outcome"], rule["code"] = cards.DECLINED, code
        return rule
    value = test_value(chosen)
    failed = value is not None and value.outcome == FAILED
    if method.flow == SYNC and failed and value is not None:
        rule["outcome"], rule["code"] = cards.DECLINED, value.unified_code
    elif method.flow in (DEBIT, WAIT):
        rule["settle"] = FAILED if failed else SUCCEEDED
        rule["settle_code"] = value.unified_code if failed and value is not None else None
    elif method.flow in (TRANSFER, VOUCHER):
        rule["settle"] = EXPIRED if EXPIRE_MARK in email else SUCCEEDED
    return rule


def transfer_instructions(
    method: MethodType, amount: int, currency: str, reference: str, holder: str
) -> dict[str, Any]:
    """`bank_transfer_steps_and_charges_details`: where the customer sends the money."""
    receiver = {"amount_received": 0, "amount_charged": None, "amount_remaining": amount}
    digits = "".join(str(ord(c) % 10) for c in reference)[-8:].rjust(8, "0")
    if method.type == "ach":
        steps: dict[str, Any] = {
            "ach_credit_transfer": {
                "account_number": "9" + digits + "000",
                "bank_name": "Sandbox Test Bank",
                "routing_number": "110000000",
                "swift_code": "SNDBUS33",
            }
        }
    elif method.type == "bacs":
        steps = {
            "bacs_bank_instructions": {
                "account_holder_name": holder,
                "account_number": digits,
                "sort_code": "108800",
            }
        }
    elif method.type == "multibanco":
        steps = {
            "multibanco": {
                "reference": digits + "0",
                "entity": "12345",
            }
        }
    else:
        steps = {
            "sepa_bank_instructions": {
                "account_holder_name": holder,
                "bic": "SNDBDEFF",
                "country": "DE",
                "iban": "DE00" + "5001" + digits + "00",
                "reference": reference[-12:].upper(),
            }
        }
    return {**steps, "receiver": receiver, "currency": currency}


def qr_image(url: str) -> str:
    """`image_data_url` of a QR next action: the sandbox draws no real code, only an image
    that says where the customer's step is (the `qr_code_url`)."""
    text = html.escape(url, quote=True)
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="60">'
        '<rect width="240" height="60" fill="#fff" stroke="#000"/>'
        '<text x="8" y="24" font-size="12">payscope sandbox QR: open</text>'
        f'<text x="8" y="44" font-size="8">{text}</text></svg>'
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
