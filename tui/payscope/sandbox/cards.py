"""The test-card table: which card number does what (also served at `/_sandbox/test-cards`).

Success cards succeed; the reference's own decline cards behave as it documents; and every
unified code of the spec is reached by its own card, `4000 0000 000C CCCx` where `CCCC` is the
code's number (UE_1001 -> 4000000000010019) and `x` the Luhn check digit. Rules that apply to
any card that would otherwise succeed:

- `authentication_type: three_ds` -> a 3-D Secure challenge (`requires_action`);
- an expiry month/year in the past -> UE_1002 (card expired);
- a security code that is not 3 or 4 digits -> UE_4002 (the real service checks the length
  only, 3 to 4 digits for any network, so an American Express card with 3 digits succeeds);
- a number that fails the Luhn check -> UE_1003 (card number invalid).

A few cards reach the real service's states that no rule above does: `processing` for a while,
a partial authorisation, a refund held for `review`, and a payout found `ineligible`.

A refund settles at once (`succeeded`), as the real service's own sandbox processor settles it.
Three cards make their payments' refunds asynchronous: they start `pending` and settle on the
sandbox clock (`refunds.engine.SETTLE_SECONDS`): `succeeded` (4000000000007726, Stripe's own
"refund pending" test card), `failed` (4000000000005126) or held for `review` (4000000000000168).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from payscope.api.cards import luhn_ok as passes_luhn
from payscope.api.codes import CATALOGUE

SUCCEEDED = "succeeded"
DECLINED = "declined"
CHALLENGE = "three_ds_challenge"
REVIEW = "manual_review"
DISPUTE = "dispute_later"
REFUND_FAILS = "refund_fails"
NEEDS_3DS = "decline_without_three_ds"
PROCESSING = "processing"
PARTIAL = "partial_authorization"
REFUND_REVIEW = "refund_review"
REFUND_PENDING = "refund_pending"
PAYOUT_INELIGIBLE = "payout_ineligible"
# A subscription on this card pays its first term and fails every later charge.
RENEWAL_FAILS_CARD = "4000000000000341"

# How long the processing card's payment stays `processing` (sandbox seconds).
PROCESSING_SECONDS = 60

# How many sandbox hours after success the dispute card draws its dispute.
DISPUTE_AFTER_HOURS = 6

# The service's unified message for each code is the catalogue's title (`payscope.api.codes`),
# except for the coarse family codes, whose message the service words as below.
_OWN_MESSAGES: Final[dict[str, str]] = {
    "UE_1000": "Issue with payment method details",
    "UE_2000": "Not eligible, blocked or 3DS required",
    "UE_3000": "Temporary issue, try again",
    "UE_9000": "Something went wrong",
}

# unified code -> (acquirer code, acquirer wording); its category is its family (`category_of`).
_ACQUIRER: Final[dict[str, tuple[str, str]]] = {
    "UE_1000": ("05", "Do not honor"),
    "UE_1001": ("51", "Insufficient funds in account"),
    "UE_1002": ("54", "Expired card"),
    "UE_1003": ("14", "Invalid card number"),
    "UE_1004": ("N7", "Decline for CVV2 failure"),
    "UE_1005": ("55", "Incorrect PIN"),
    "UE_1006": ("41", "Pick up card (lost)"),
    "UE_1007": ("05", "Do not honor"),
    "UE_1008": ("57", "Card type not supported"),
    "UE_1009": ("62", "Restricted card"),
    "UE_1010": ("57", "Transaction not permitted to cardholder"),
    "UE_1011": ("61", "Exceeds withdrawal amount limit"),
    "UE_1012": ("59", "Suspected fraud"),
    "UE_1013": ("01", "Refer to card issuer"),
    "UE_1014": ("56", "No card record"),
    "UE_1015": ("78", "Blocked, first used / card inactive"),
    "UE_1016": ("52", "No checking account"),
    "UE_1017": ("R1", "Cardholder stopped payment"),
    "UE_1018": ("94", "Duplicate transmission detected"),
    "UE_1099": ("05", "Do not honor"),
    "UE_2000": ("R0", "Transaction not eligible"),
    "UE_2001": ("58", "Transaction not permitted to terminal"),
    "UE_2002": ("1A", "Strong customer authentication required"),
    "UE_2003": ("RB", "Blocked by risk rules"),
    "UE_2004": ("CU", "Currency not supported by the acquirer"),
    "UE_3000": ("91", "Issuer or switch inoperative"),
    "UE_3001": ("91", "Issuer or switch inoperative"),
    "UE_3002": ("96", "System malfunction"),
    "UE_3003": ("68", "Response received too late"),
    "UE_4000": ("30", "Format error"),
    "UE_4001": ("30", "Format error: missing or invalid field"),
    "UE_4002": ("N7", "Invalid CVV2 length"),
    "UE_4003": ("SE", "Payment session expired"),
    "UE_4004": ("12", "Invalid transaction state"),
    "UE_5001": ("AF", "3DS authentication failed"),
    "UE_5002": ("AD", "3DS authentication declined"),
    "UE_5003": ("AN", "3DS authentication not completed"),
    "UE_5004": ("AV", "Cardholder not verified"),
    "UE_5005": ("AU", "Directory server unavailable"),
    "UE_5006": ("AT", "Exceeded authentication attempts"),
    "UE_5007": ("DR", "Device not recognised"),
    "UE_5008": ("AR", "Invalid ARes/RReq message"),
    "UE_5009": ("NR", "No response from ACS"),
    "UE_5010": ("NE", "Card not enrolled in 3DS"),
    "UE_5011": ("TO", "3DS challenge timed out"),
    "UE_5012": ("MU", "Authentication method unsupported"),
    "UE_5013": ("CE", "Card expired (3DS)"),
    "UE_5014": ("CI", "Invalid card number (3DS)"),
    "UE_5015": ("TV", "Transaction not valid for 3DS"),
    "UE_5016": ("NC", "No card record (3DS)"),
    "UE_5017": ("SF", "Suspected fraud (3DS)"),
    "UE_5018": ("LS", "Lost or stolen card (3DS)"),
    "UE_5019": ("NP", "Not permitted (3DS)"),
    "UE_5020": ("DM", "Required 3DS data missing"),
    "UE_5021": ("SX", "3DS session expired"),
    "UE_9000": ("99", "Unrecognised processor response"),
}

# unified code -> (unified message, acquirer code, acquirer wording)
UNIFIED: Final[dict[str, tuple[str, str, str]]] = {
    code: (_OWN_MESSAGES.get(code) or CATALOGUE[code].title, *acquirer)
    for code, acquirer in _ACQUIRER.items()
}


# The real service's unified families (`error_details.unified_details.category`, its
# `UnifiedCode` enum: UE_1000, UE_2000, UE_3000, UE_4000, UE_9000). It has no family for the
# spec's 3-D Secure codes (UE_5xxx): they go with UE_2000, which the spec describes as "not
# eligible, blocked or 3DS required".
CATEGORIES: Final = ("UE_1000", "UE_2000", "UE_3000", "UE_4000", "UE_9000")


def category_of(code: str) -> str:
    """The unified family of a unified code: UE_1001 -> UE_1000, UE_5001 -> UE_2000."""
    number = int(code.removeprefix("UE_"))
    family = f"UE_{number // 1000}000"
    if family == "UE_5000":
        return "UE_2000"
    return family if family in CATEGORIES else "UE_9000"


def luhn_ok(number: str) -> bool:
    """True when `number` (12 digits or more, digits only) passes the Luhn check."""
    return len(number) >= 12 and passes_luhn(number)


def with_check_digit(body: str) -> str:
    """`body` plus the digit that makes it pass the Luhn check."""
    for digit in "0123456789":
        if luhn_ok(body + digit):
            return body + digit
    raise AssertionError("unreachable")


def code_card(code: str) -> str:
    """The card number that declines with `code` (e.g. UE_1001 -> 4000000000010019)."""
    return with_check_digit("40000000000" + code.removeprefix("UE_"))


# The card networks `brand_of` names that the real service's CardNetwork enum has.
NETWORKS: Final = frozenset(
    {"Visa", "Mastercard", "AmericanExpress", "Discover", "JCB", "DinersClub", "UnionPay"}
)


def brand_of(number: str) -> str:
    """The card network for a number, by its leading digits."""
    if number.startswith("4"):
        return "Visa"
    if number[:2] in ("34", "37"):
        return "AmericanExpress"
    if number[:2] in {"51", "52", "53", "54", "55"} or "2221" <= number[:4] <= "2720":
        return "Mastercard"
    if number.startswith(("6011", "65")) or "644" <= number[:3] <= "649":
        return "Discover"
    if number.startswith("35"):
        return "JCB"
    if number.startswith(("36", "38", "30")):
        return "DinersClub"
    if number.startswith("62"):
        return "UnionPay"
    return "Unknown"


@dataclass(frozen=True)
class TestCard:
    """One documented card number and what it does."""

    number: str
    outcome: str
    unified_code: str | None
    description: str
    # The issuer's own (code, wording), where it says more than the unified code's usual one:
    # a stolen card is ISO 8583's 43, "pick up card (stolen)", not the lost card's 41.
    issuer: tuple[str, str] | None = None

    __test__ = False  # not a pytest class

    @property
    def brand(self) -> str:
        """The card network."""
        return brand_of(self.number)

    def as_dict(self) -> dict[str, Any]:
        """The row served by `/_sandbox/test-cards`."""
        message = UNIFIED[self.unified_code][0] if self.unified_code else None
        return {
            "card_number": self.number,
            "brand": self.brand,
            "outcome": self.outcome,
            "unified_code": self.unified_code,
            "unified_message": message,
            "description": self.description,
        }


def _build() -> list[TestCard]:
    cards = [
        TestCard("4242424242424242", SUCCEEDED, None, "Visa: succeeds"),
        TestCard("4111111111111111", SUCCEEDED, None, "Visa: succeeds"),
        TestCard("5555555555554444", SUCCEEDED, None, "Mastercard: succeeds"),
        TestCard(
            "378282246310005", SUCCEEDED, None, "American Express: succeeds (CVC of 3 or 4 digits)"
        ),
        TestCard("6011111111111117", SUCCEEDED, None, "Discover: succeeds"),
        TestCard(
            "4000003800000446",
            CHALLENGE,
            None,
            "3-D Secure challenge: requires_action; open next_action.redirect_to_url, "
            "or POST /_sandbox/payments/{id}/3ds",
        ),
        TestCard(
            "4000000000009235",
            REVIEW,
            None,
            "held for manual review (requires_merchant_action): approve or reject",
        ),
        TestCard(
            "4000000000000259",
            DISPUTE,
            None,
            f"succeeds, then draws a dispute {DISPUTE_AFTER_HOURS} sandbox-hours later",
        ),
        TestCard(
            "4000000000007726",
            REFUND_PENDING,
            None,
            "succeeds; every refund of it starts pending and settles succeeded on the sandbox "
            "clock (10 sandbox-seconds, an hour with refund_type scheduled)",
        ),
        TestCard(
            "4000000000005126",
            REFUND_FAILS,
            None,
            "succeeds, but every refund of it starts pending and ends failed "
            "(10 sandbox-seconds later)",
        ),
        TestCard(
            "4000000000000077",
            PROCESSING,
            None,
            f"processing (event payment_processing) for {PROCESSING_SECONDS} sandbox-seconds, "
            "then succeeded (requires_capture with manual capture)",
        ),
        TestCard(
            "4000000000000127",
            PARTIAL,
            None,
            "the issuer approves half the amount: partially_authorized_and_requires_capture "
            "(capture up to amount_capturable) when the payment has "
            "enable_partial_authorization: true, else declined UE_1001",
        ),
        TestCard(
            "4000000000000168",
            REFUND_REVIEW,
            None,
            "succeeds, but every refund of it starts pending and is held for review when it "
            "settles; POST /_sandbox/refunds/{id}/review decides it (succeeded or failed)",
        ),
        TestCard(
            "4000000000800005",
            PAYOUT_INELIGIBLE,
            None,
            "payouts to this card are ineligible at confirmation (like any account ending in "
            "0005); as a payment card it succeeds",
        ),
        TestCard(
            RENEWAL_FAILS_CARD,
            SUCCEEDED,
            None,
            "succeeds; as a subscription's card it pays the first term, and every later charge "
            "(renewals, plan changes) declines with UE_1001; likewise every recurring payment "
            "on a mandate set up with it",
        ),
        TestCard("4000000000000002", DECLINED, "UE_1007", "reference decline card: declined"),
        TestCard("5105105105105100", DECLINED, "UE_1007", "reference decline card: declined"),
        TestCard("4000000000009987", DECLINED, "UE_1006", "reference: lost card"),
        TestCard(
            "4000000000009979",
            DECLINED,
            "UE_1006",
            "reference: stolen card",
            issuer=("43", "Pick up card (stolen)"),
        ),
        TestCard("4000000000009995", DECLINED, "UE_3002", "reference: processor error (retryable)"),
    ]
    for code, (message, *_rest) in UNIFIED.items():
        if code == "UE_2002":
            cards.append(
                TestCard(
                    code_card(code),
                    NEEDS_3DS,
                    code,
                    "declines with UE_2002 unless authentication_type is three_ds, "
                    "then a 3-D Secure challenge",
                )
            )
        else:
            cards.append(TestCard(code_card(code), DECLINED, code, f"declines: {message}"))
    return cards


TEST_CARDS: list[TestCard] = _build()
BY_NUMBER: dict[str, TestCard] = {card.number: card for card in TEST_CARDS}
assert len(BY_NUMBER) == len(TEST_CARDS), "two test cards share a number"


def is_public_test_card(number: str) -> bool:
    """Whether `number` (digits only) is a public test card: this table, which holds the real
    service's documented test cards too. The one list payscope consults (the request journal
    keeps these whole, so a copied curl runs as copied)."""
    return number in BY_NUMBER


@dataclass(frozen=True)
class Decline:
    """Everything a decline writes on the payment."""

    unified_code: str
    unified_message: str
    error_code: str
    error_message: str
    category: str

    def fields(self, brand: str) -> dict[str, Any]:
        """The payment's decline fields, `error_details` included."""
        return {
            "error_code": self.error_code,
            "error_message": self.error_message,
            "unified_code": self.unified_code,
            "unified_message": self.unified_message,
            "error_details": {
                "unified_details": {"category": self.category, "message": self.unified_message},
                "issuer_details": {
                    "code": self.error_code,
                    "message": self.error_message,
                    # a network the real CardNetwork enum names, else none (not a card)
                    "network_details": {"name": brand if brand in NETWORKS else None},
                },
                "connector_details": {
                    "code": self.error_code,
                    "message": self.error_message,
                    "reason": self.error_message.lower(),
                },
            },
        }


def decline(code: str, issuer: Any = None) -> Decline:
    """The decline for a unified code; `issuer`, a card's own (code, wording), replaces the
    code's usual issuer answer."""
    message, acq_code, acq_message = UNIFIED[code]
    if isinstance(issuer, list | tuple) and len(issuer) == 2:
        acq_code, acq_message = str(issuer[0]), str(issuer[1])
    return Decline(code, message, acq_code, acq_message, category_of(code))


def outcome_for(
    number: str,
    cvc: str | None,
    exp_month: str | None,
    exp_year: str | None,
    today: tuple[int, int],
) -> tuple[str, str | None]:
    """(outcome, unified code or None) for a card, applying the module's rules.

    `today` is (year, month) on the sandbox clock.
    """
    card = BY_NUMBER.get(number)
    if card is not None and card.outcome == DECLINED:
        return DECLINED, card.unified_code
    if card is None and not luhn_ok(number):
        return DECLINED, "UE_1003"
    if expired(exp_month, exp_year, today):
        return DECLINED, "UE_1002"
    if cvc is not None and not (3 <= len(cvc) <= 4 and cvc.isascii() and cvc.isdigit()):
        return DECLINED, "UE_4002"
    if card is None:
        return SUCCEEDED, None
    return card.outcome, card.unified_code


def year_over(year: str | None, today: tuple[int, int]) -> bool:
    """True when the card's expiry year (2 or 4 digits) is before this year."""
    try:
        y = int(year) if year else None
    except ValueError:
        return False
    if y is None:
        return False
    return (y + 2000 if y < 100 else y) < today[0]


def expired(month: str | None, year: str | None, today: tuple[int, int]) -> bool:
    """True when the card's expiry (month, year of 2 or 4 digits) is before `today`."""
    try:
        m = int(month) if month else None
        y = int(year) if year else None
    except ValueError:
        return False
    if m is None or y is None:
        return False
    if y < 100:
        y += 2000
    return (y, m) < today
