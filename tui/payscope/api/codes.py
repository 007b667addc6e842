"""The catalogue of codes the service returns: unified decline codes and error-envelope codes.

The error-envelope codes mean different things in the two contracts payscope speaks: the spec
(`payment-service-api.md`, which the local sandbox follows) and the real service
(`real-service-differences.md`): the spec's `IR_01` is a missing field, the real one an invalid
key. `explain(code, contract)` reads a code by one contract's table; decline codes (`UE_...`),
payout failures and manual review are the same in both. `contract_of_error` tells the contracts
apart by an error the service returned.

`explain(code)` answers for any input (a known code, an unknown code of a known family, a
lower-case spelling, nothing, or garbage) and never raises, so a screen can always show why a
payment failed and whether to try again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "ALL_UNIFIED_CODES",
    "CATALOGUE",
    "CONTRACTS",
    "ERROR_ENVELOPE_CODES",
    "FAMILIES",
    "REAL_CATALOGUE",
    "REAL_ERROR_CODES",
    "CodeInfo",
    "Contract",
    "Family",
    "contract_of_error",
    "explain",
    "family_of",
]

Contract = Literal["spec", "real"]
"""Which contract a service speaks: "spec" (the local sandbox) or "real" (the real service)."""

CONTRACTS: Final[tuple[Contract, ...]] = ("spec", "real")


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """What a code means and what to do about it.

    `retryable` is True (try again), False (not as is) or None (it depends: read `advice`).
    """

    code: str
    family: str
    title: str
    meaning: str
    retryable: bool | None
    advice: str


@dataclass(frozen=True, slots=True)
class Family:
    """A group of codes that share a meaning and a default retry rule."""

    name: str
    meaning: str
    retryable: bool | None
    advice: str


FAMILIES: Final[dict[str, Family]] = {
    "UE_1xxx": Family(
        "UE_1xxx",
        "The card or its issuer declined the payment.",
        False,
        "Do not retry the same card: ask the customer for another card or payment method.",
    ),
    "UE_2xxx": Family(
        "UE_2xxx",
        "The payment is not eligible or was stopped by risk rules.",
        False,
        "Do not retry as is: offer another payment method, or review the rule that stopped it.",
    ),
    "UE_3xxx": Family(
        "UE_3xxx",
        "A temporary availability problem; the payment itself may be fine.",
        True,
        "Retry with exponential backoff and jitter, reusing the same payment_id.",
    ),
    "UE_4xxx": Family(
        "UE_4xxx",
        "A fault in the request.",
        False,
        "Do not retry until the request is fixed: sending it unchanged fails the same way.",
    ),
    "UE_5xxx": Family(
        "UE_5xxx",
        "The payment failed during 3-D Secure authentication; the card may be fine.",
        None,
        "Sometimes retryable: let the customer try authentication again, or use another card.",
    ),
    "UE_9xxx": Family(
        "UE_9xxx",
        "An unrecognised failure.",
        False,
        "Terminal: do not retry. Show unified_message; contact support if it keeps happening.",
    ),
    "authentication_error": Family(
        "authentication_error",
        "The API key was refused.",
        False,
        "Check the api-key header: use a valid, unrevoked secret key for this environment.",
    ),
    "invalid_request": Family(
        "invalid_request",
        "The request was refused before anything was attempted.",
        False,
        "Fix the request (the message names the field) and send it again.",
    ),
    "processing_error": Family(
        "processing_error",
        "The payment was attempted and could not be processed.",
        False,
        "Ask the customer for another card or payment method.",
    ),
    "connector_error": Family(
        "connector_error",
        "The payment processor behind the service could not be reached.",
        True,
        "Retry with exponential backoff and jitter, reusing the same payment_id.",
    ),
    "rate_limit_error": Family(
        "rate_limit_error",
        "Too many requests in the current window.",
        True,
        "Wait until the time in X-RateLimit-Reset, then retry.",
    ),
    "api_error": Family(
        "api_error",
        "A rejection by the service itself.",
        None,
        "Read the message; a 5xx answer may be retried with backoff, a 4xx answer may not.",
    ),
    "manual_review": Family(
        "manual_review",
        "A payment held for manual review was decided.",
        False,
        "The decision is final for this payment.",
    ),
}


def _ue(
    number: int,
    title: str,
    *,
    retryable: bool | Literal["family"] | None = "family",
    advice: str | None = None,
    meaning: str | None = None,
) -> CodeInfo:
    family = FAMILIES["UE_9xxx" if number >= 9000 else f"UE_{number // 1000}xxx"]
    return CodeInfo(
        code=f"UE_{number}",
        family=family.name,
        title=title,
        meaning=meaning or f"{title}. {family.meaning}",
        retryable=family.retryable if retryable == "family" else retryable,
        advice=advice or family.advice,
    )


def _env(
    code: str, family: str, title: str, meaning: str, retryable: bool | None, advice: str
) -> CodeInfo:
    return CodeInfo(code, family, title, meaning, retryable, advice)


_UNIFIED: Final[tuple[CodeInfo, ...]] = (
    _ue(1001, "Insufficient funds"),
    _ue(1002, "Card expired"),
    _ue(1003, "Card number invalid"),
    _ue(1004, "Security code wrong"),
    _ue(1005, "PIN wrong"),
    _ue(1006, "Card reported lost or stolen"),
    _ue(1007, "Declined by issuer"),
    _ue(1008, "Card not supported"),
    _ue(1009, "Card restricted"),
    _ue(1010, "Transaction not permitted for card"),
    _ue(1011, "Over card limit"),
    _ue(1012, "Declined for security reasons"),
    _ue(1013, "Contact issuer"),
    _ue(1014, "No record of card"),
    _ue(1015, "Card inactive"),
    _ue(1016, "Account not usable for this payment"),
    _ue(1017, "Cardholder cancelled"),
    _ue(
        1018,
        "Possibly already processed",
        meaning="Possibly already processed. Not a plain decline: the earlier attempt may "
        "have succeeded.",
        retryable=None,
        advice="Check the payment's status (GET /payments/{payment_id}) before retrying or "
        "refunding: the customer may already have been charged.",
    ),
    _ue(1099, "Generic decline"),
    _ue(2001, "Payment method unavailable"),
    _ue(
        2002,
        "Additional authentication required",
        meaning="Additional authentication required: the issuer requires 3-D Secure.",
        retryable=True,
        advice="Retry the same payment with 3-D Secure (authentication_type: three_ds).",
    ),
    _ue(2003, "Blocked"),
    _ue(2004, "Currency or country unsupported"),
    _ue(3001, "Service temporarily unavailable"),
    _ue(3002, "Could not process, try again"),
    _ue(3003, "Timed out"),
    _ue(4001, "Required payment information missing or invalid"),
    _ue(4002, "Security code wrong length"),
    _ue(4003, "Payment session expired"),
    _ue(4004, "Transaction in invalid state"),
    _ue(5001, "Authentication failed"),
    _ue(5002, "Declined by issuer"),
    _ue(
        5003,
        "Not completed",
        meaning="Not completed: the customer abandoned 3-D Secure; the card may be fine.",
        retryable=True,
        advice="Usually retryable: ask the customer to complete authentication again.",
    ),
    _ue(5004, "Cardholder not verified"),
    _ue(5005, "Authentication service unavailable"),
    _ue(5006, "Too many attempts"),
    _ue(5007, "Device not recognised"),
    _ue(5008, "Invalid authentication response"),
    _ue(5009, "No response from authentication service"),
    _ue(5010, "Card not enrolled"),
    _ue(5011, "Timed out"),
    _ue(5012, "Method unsupported"),
    _ue(5013, "Card expired"),
    _ue(5014, "Card number invalid"),
    _ue(5015, "Transaction not valid for authentication"),
    _ue(5016, "No record of card"),
    _ue(5017, "Declined for security reasons"),
    _ue(5018, "Card reported lost or stolen"),
    _ue(5019, "Not permitted for card"),
    _ue(5020, "Required data missing or invalid"),
    _ue(5021, "Session expired"),
    _ue(9000, "Generic failure"),
)

_LEGACY_NOTE = (
    " A legacy coarse code from an acquirer not yet migrated: it does not fix one message, "
    "so show unified_message."
)

_LEGACY: Final[tuple[CodeInfo, ...]] = (
    _ue(1000, "Card or method problem", meaning="Card or method problem." + _LEGACY_NOTE),
    _ue(
        2000,
        "Not eligible, blocked or 3-D Secure required",
        meaning="Not eligible, blocked or 3-D Secure required." + _LEGACY_NOTE,
        retryable=None,
        advice="Read unified_message: if it asks for authentication, retry the same payment "
        "with 3-D Secure; otherwise offer another payment method.",
    ),
    _ue(3000, "Temporary problem", meaning="Temporary problem." + _LEGACY_NOTE),
    _ue(4000, "Request data problem", meaning="Request data problem." + _LEGACY_NOTE),
)

_ENVELOPE: Final[tuple[CodeInfo, ...]] = (
    _env(
        "AU_01",
        "authentication_error",
        "Invalid API key",
        "The api-key header is missing or holds a key the service does not know (401).",
        False,
        "Send a valid secret key (snd_... for the sandbox) in the api-key header.",
    ),
    _env(
        "AU_02",
        "authentication_error",
        "Revoked API key",
        "The API key was revoked.",
        False,
        "Create a new key and use it instead; a revoked key never works again.",
    ),
    _env(
        "IR_01",
        "invalid_request",
        "Missing required field",
        "A required field is missing (400). No payment was attempted.",
        False,
        "Add the field named in the message and send the request again.",
    ),
    _env(
        "IR_04",
        "invalid_request",
        "Invalid field value",
        "A field holds a value that is not allowed (400). No payment was attempted.",
        False,
        "Correct the value named in the message and send the request again.",
    ),
    _env(
        "IR_05",
        "invalid_request",
        "Resource not found",
        "The object asked for does not exist (404).",
        False,
        "Check the id (and that it belongs to this merchant and environment).",
    ),
    _env(
        "PE_01",
        "processing_error",
        "Card declined",
        "The card was declined.",
        False,
        "Ask the customer for another card or payment method.",
    ),
    _env(
        "PE_02",
        "processing_error",
        "Insufficient funds",
        "The card has insufficient funds.",
        False,
        "Ask the customer for another card or payment method.",
    ),
    # The spec lists PE_03 (expired card) but pairs no type with it; the service refuses an
    # expired card as a bad request before any attempt (400 "Card Expired", as the real
    # service's validate_card_expiry does, on create, update and confirm alike), so its type is
    # invalid_request, as the local sandbox answers. PE_01/PE_02 stay processing outcomes.
    _env(
        "PE_03",
        "invalid_request",
        "Expired card",
        "The card has expired.",
        False,
        "Ask the customer for a card that has not expired.",
    ),
    _env(
        "CE_01",
        "connector_error",
        "Processor unavailable",
        "The payment processor behind the service is unavailable.",
        True,
        "Retry with exponential backoff and jitter, reusing the same payment_id.",
    ),
    _env(
        "RL_01",
        "rate_limit_error",
        "Rate limit exceeded",
        "Too many requests in the current window (429).",
        True,
        "Wait until the time in X-RateLimit-Reset, then retry.",
    ),
    _env(
        "HE_00",
        "api_error",
        "API rejection",
        "An API rejection the spec names without further meaning.",
        None,
        "Read the message; retry with backoff only if the HTTP status was 5xx.",
    ),
    _env(
        "HE_01",
        "api_error",
        "payment_id already exists",
        "A payment with this payment_id already exists: the original request was received.",
        False,
        "Do not create it again: retrieve the payment (GET /payments/{payment_id}) to read "
        "its true status.",
    ),
    _env(
        "manual_review_rejected",
        "manual_review",
        "Rejected in manual review",
        "The payment was held for manual review and rejected: the authorisation was voided "
        "and the customer was not charged.",
        False,
        "The decision is final for this payment; create a new one if the order should go ahead.",
    ),
)

# The real service's error-envelope codes (real-service-differences.md, and the messages the
# service sends with them). Explained only on a profile that speaks the real contract.
_REAL_ENVELOPE: Final[tuple[CodeInfo, ...]] = (
    _env(
        "IR_01",
        "invalid_request",
        "Invalid API key",
        "On the real service IR_01 means the api-key header is missing or holds a key the "
        'service does not know (401): "API key not provided or invalid API key used".',
        False,
        "Check the secret key of this profile (`payscope keys set`); it is not a missing field.",
    ),
    _env(
        "IR_02",
        "invalid_request",
        "Unrecognised request URL",
        "The service has no such route (404).",
        False,
        "Check the base URL of this profile and the API version the service speaks.",
    ),
    _env(
        "IR_03",
        "invalid_request",
        "HTTP method not allowed",
        "The HTTP method is not applicable for this route (405).",
        False,
        "The route exists with another method; this operation may not be supported there.",
    ),
    _env(
        "IR_04",
        "invalid_request",
        "Missing required parameter",
        'On the real service IR_04 means a required parameter is missing (400): "Missing '
        'required param: ...".',
        False,
        "Add the parameter named in the message and send the request again.",
    ),
    _env(
        "IR_05",
        "invalid_request",
        "Invalid data format",
        "On the real service IR_05 means a field holds data in the wrong format (422); it is "
        'not "not found".',
        False,
        "Correct the format of the field named in the message and send the request again.",
    ),
    _env(
        "IR_06",
        "invalid_request",
        "Invalid request data",
        "The body is not valid JSON, a field has the wrong type, or the request holds a field "
        "the service does not accept (400).",
        False,
        "Read the message: remove the unknown field or fix the type, then send it again.",
    ),
    _env(
        "IR_07",
        "invalid_request",
        "Invalid value",
        "A field holds a value that is not allowed (400).",
        False,
        "Correct the value named in the message and send the request again.",
    ),
    _env(
        "IR_13",
        "invalid_request",
        "Refund exceeds captured amount",
        "The refund amount is more than the amount captured on the payment (400).",
        False,
        "Refund at most what was captured and not yet refunded.",
    ),
    _env(
        "IR_14",
        "invalid_request",
        "Payment in the wrong state",
        "The payment is not in a state that allows this capture or refund (400).",
        False,
        "Reload the payment and check its status before trying again.",
    ),
    _env(
        "IR_16",
        "invalid_request",
        "Precondition failed",
        "The object is not in a state that allows this confirm, cancel or update (400).",
        False,
        "Reload the object and check its status before trying again.",
    ),
    _env(
        "HE_00",
        "api_error",
        "Internal error",
        'The service failed while handling the request ("Something went wrong").',
        None,
        "Retry with backoff if the HTTP status was 5xx; for a payment, retrieve it first.",
    ),
    _env(
        "HE_01",
        "api_error",
        "Already exists",
        "An object with this id already exists (400 on the real service): the original "
        "request was received.",
        False,
        "Do not create it again: retrieve the object to read its true status.",
    ),
    _env(
        "HE_02",
        "api_error",
        "Not found",
        "The object does not exist in the service's records (404); the message names it.",
        False,
        "Check the id (and that it belongs to this merchant, profile and environment).",
    ),
    _env(
        "HE_03",
        "api_error",
        "Validation failed",
        "The service refused the action for the object's state or setup (e.g. the payment has "
        "not succeeded yet).",
        False,
        "Read the message; reload the object and check its status.",
    ),
    _env(
        "HE_04",
        "api_error",
        "Dispute not found",
        "The dispute (or its file) does not exist in the service's records (404).",
        False,
        "Check the dispute id (and that it belongs to this merchant and environment).",
    ),
)

# The failure codes the local sandbox gives payouts (the real service passes on its connector's).
_PAYOUT: Final[tuple[CodeInfo, ...]] = (
    _env(
        "account_closed",
        "payout",
        "Recipient account closed",
        "The recipient's bank refused the payout when it settled: the account is closed. "
        "The money was not paid out.",
        False,
        "Do not resend to this account: ask the recipient for another account, then create a "
        "new payout.",
    ),
    _env(
        "account_ineligible",
        "payout",
        "Account cannot receive payouts",
        "The recipient's account cannot receive payouts; the payout stopped at confirmation "
        "and nothing was sent.",
        False,
        "Ask the recipient for another account or method, then create a new payout.",
    ),
)

ALL_UNIFIED_CODES: Final[tuple[str, ...]] = tuple(info.code for info in _UNIFIED + _LEGACY)
"""Every unified code of the spec, legacy coarse codes included."""

ERROR_ENVELOPE_CODES: Final[tuple[str, ...]] = tuple(info.code for info in _ENVELOPE)
"""The `error.code` values of the spec's error envelope, plus `manual_review_rejected`."""

CATALOGUE: Final[dict[str, CodeInfo]] = {
    info.code.upper(): info for info in _UNIFIED + _LEGACY + _ENVELOPE + _PAYOUT
}
"""Every known code of the spec (and the shared ones), keyed by its upper-case spelling."""

REAL_ERROR_CODES: Final[tuple[str, ...]] = tuple(info.code for info in _REAL_ENVELOPE)
"""The real service's `error.code` values payscope explains."""

# What both contracts share: declines, payout failures, and the manual-review outcome.
_SHARED: Final[dict[str, CodeInfo]] = {
    info.code.upper(): info
    for info in _UNIFIED + _LEGACY + _PAYOUT + _ENVELOPE
    if not info.family.endswith("_error") and info.family != "invalid_request"
}

REAL_CATALOGUE: Final[dict[str, CodeInfo]] = {
    **_SHARED,
    **{info.code.upper(): info for info in _REAL_ENVELOPE},
}
"""Every code known on the real service: its envelope codes, and the shared decline codes."""

_UNIFIED_RE: Final = re.compile(r"UE_(\d)\d{3}")
_ENVELOPE_PREFIX: Final[dict[str, str]] = {
    "AU": "authentication_error",
    "IR": "invalid_request",
    "PE": "processing_error",
    "CE": "connector_error",
    "RL": "rate_limit_error",
    "HE": "api_error",
}
_ENVELOPE_RE: Final = re.compile(r"([A-Z]{2})_\d{2}")


_REAL_PREFIXES: Final = frozenset({"IR", "HE", "CE"})


def _catalogue(contract: Contract) -> dict[str, CodeInfo]:
    return REAL_CATALOGUE if contract == "real" else CATALOGUE


def family_of(code: str | None, contract: Contract = "spec") -> str | None:
    """The family a code belongs to ("UE_1xxx", "invalid_request", ...), or None if none fits.

    `contract` chooses the table of error-envelope codes (see `explain`)."""
    if not code:
        return None
    normalised = code.strip().upper()
    catalogue = _catalogue(contract)
    if normalised in catalogue:
        return catalogue[normalised].family
    unified = _UNIFIED_RE.fullmatch(normalised)
    if unified:
        digit = unified.group(1)
        if digit in "12345":
            return f"UE_{digit}xxx"
        return "UE_9xxx" if digit == "9" else None
    envelope = _ENVELOPE_RE.fullmatch(normalised)
    if envelope is None or (contract == "real" and envelope.group(1) not in _REAL_PREFIXES):
        return None
    return _ENVELOPE_PREFIX.get(envelope.group(1))


def explain(code: str | None, contract: Contract = "spec") -> CodeInfo:
    """What `code` means and whether to retry. Never raises.

    Known codes come from the catalogue (any case) of `contract`: "spec" reads error-envelope
    codes by the spec's table (the local sandbox), "real" by the real service's; decline codes
    (`UE_...`) read the same in both. An unknown code of a known family (e.g. UE_1234) is
    explained by its family. Nothing, or something that is not a code, gets an explanation
    saying so.
    """
    if contract not in CONTRACTS:
        contract = "spec"
    text = code.strip() if isinstance(code, str) else ""
    if not text:
        return CodeInfo(
            code="",
            family="none",
            title="No code",
            meaning="The service gave no code for this outcome.",
            retryable=None,
            advice="Read the message and the status; retrieve the object for details.",
        )
    known = _catalogue(contract).get(text.upper())
    if known is not None:
        return known
    family_name = family_of(text, contract)
    if family_name is not None:
        family = FAMILIES[family_name]
        return CodeInfo(
            code=text.upper(),
            family=family.name,
            title=f"Unlisted {family.name} code",
            meaning=f"{text.upper()} is not in the catalogue; its family means: {family.meaning}",
            retryable=family.retryable,
            advice=family.advice,
        )
    shown = text if len(text) <= 40 else text[:40] + "..."
    return CodeInfo(
        code=text,
        family="unknown",
        title="Unknown code",
        meaning=f"{shown!r} is not in the catalogue and matches no known family of codes.",
        retryable=None,
        advice="Show the message the service sent with it; do not retry blindly.",
    )


# Error `type` values only one contract uses (real-service-differences.md).
_SPEC_TYPES: Final = frozenset(
    {"authentication_error", "processing_error", "rate_limit_error", "api_error", "connector_error"}
)
_REAL_TYPES: Final = frozenset({"api", "blocked", "connector"})
_REAL_ONLY_CODE: Final = re.compile(r"IR_(0[6-9]|[1-9]\d)|HE_0[2-9]|WE_\d{2}")
_SPEC_ONLY_CODE: Final = re.compile(r"(AU|PE|RL)_\d{2}")


def contract_of_error(
    status: int,
    type: str | None,
    code: str | None,
    message: str | None = None,
    *,
    error_type_key: bool = False,
) -> Contract | None:
    """Which contract an error answer is in, or None when it could be either.

    `error_type_key` is True when the envelope named its type `error_type` (the real
    service's JSON-parse errors). The evidence: types and codes only one contract uses, and
    the shared codes' statuses and wording (the real `IR_01` is a 401, the spec's a 400; the
    real `IR_05` a 422, the spec's a 404; the real `HE_01` a 400, the spec's a 409).
    """
    if error_type_key or (type or "") in _REAL_TYPES:
        return "real"
    if (type or "") in _SPEC_TYPES:
        return "spec"
    normalised = (code or "").strip().upper()
    if _REAL_ONLY_CODE.fullmatch(normalised):
        return "real"
    if _SPEC_ONLY_CODE.fullmatch(normalised):
        return "spec"
    by_status: dict[tuple[str, int], Contract] = {
        ("IR_01", 401): "real",
        ("IR_01", 400): "spec",
        ("IR_05", 422): "real",
        ("IR_05", 404): "spec",
        ("HE_01", 400): "real",
        ("HE_01", 409): "spec",
    }
    found = by_status.get((normalised, status))
    if found is not None:
        return found
    if normalised == "IR_04" and (message or "").lower().startswith("missing required param"):
        return "real"
    return None
