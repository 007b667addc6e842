"""Every way to pay besides cards: each family's types, how each one flows, and its test values
(also served at `/_sandbox/test-methods`, as the cards are at `/_sandbox/test-cards`).

`payment_method_data` has the real service's shape: `{family: {variant: {...}}}` (for example
`{"bank_redirect": {"ideal": {"bank_name": "ing"}}}`), `{"crypto": {...}}` for the families
without variants, and the bare strings `"reward"` and `{"voucher": "oxxo"}` where the real
service takes one. The flows, as the real service gives them:

- `sync`: answered at once, `succeeded` (or `requires_capture`) or `failed`, by test value
  (wallets with a token, gift cards, network tokens);
- `redirect`: `requires_customer_action` with `next_action.redirect_to_url`, a sandbox page where
  the customer authorises, fails or abandons (pay-later, bank redirects, redirect wallets,
  crypto, rewards, open banking, card redirects); a few (`sofort`) go `processing` for a while
  after the customer authorises;
- `qr`: the same, with `next_action.type = qr_code_information` (WeChat Pay, real-time payments);
- `transfer`: `requires_customer_action` with `display_bank_transfer_information` (the account
  to pay into); the money arrives on the sandbox clock (`succeeded`) unless the payment's e-mail
  contains `+expire`, then it `expired` when the instructions lapse;
- `voucher`: the same with `display_voucher_information` (pay at a shop);
- `debit`: `processing`, then `succeeded` or `failed` on the clock by the account's test value;
  a debit that sets up a mandate (`setup_future_usage: off_session`) first waits for the
  customer to verify the account and accept the mandate (`requires_customer_action`, a page);
- `wait`: `requires_customer_action` with `wait_screen_information` (UPI collect: the customer
  approves in their app), then `succeeded` or `failed` on the clock by the VPA's test value.

Every page-based flow (redirect, qr, transfer, voucher, wait) can also be finished at once on the
sandbox page or with `POST /_sandbox/payments/{id}/redirect {result: authorize|fail|abandon}`.

What a request's data pays with, and what it will do, is read in `payscope.sandbox.methods`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

SYNC: Final = "sync"
REDIRECT: Final = "redirect"
QR: Final = "qr"
TRANSFER: Final = "transfer"
VOUCHER: Final = "voucher"
DEBIT: Final = "debit"
WAIT: Final = "wait"

# Flows that settle on the sandbox clock, with no capture to make later.
ASYNC_FLOWS: Final = (TRANSFER, VOUCHER, DEBIT, WAIT)

# Sandbox seconds until each asynchronous flow settles, and until transfer or voucher
# instructions lapse (the `+expire` test e-mail).
SETTLE_AFTER: Final = {TRANSFER: 3600.0, VOUCHER: 86400.0, DEBIT: 2 * 86400.0, WAIT: 60.0}
DELAYED_REDIRECT_SECONDS: Final = 600.0
INSTRUCTIONS_LAPSE: Final = 3 * 86400.0
EXPIRE_MARK: Final = "+expire"

# The page's answers besides authorising: failing (declined by the provider) and abandoning.
ABANDON_CODE: Final = "UE_1017"

SUCCEEDED: Final = "succeeded"
FAILED: Final = "failed"
EXPIRED: Final = "expired"


@dataclass(frozen=True)
class TestValue:
    """A value of the type's test field and what it does."""

    value: str
    outcome: str  # succeeded | failed
    unified_code: str | None
    description: str

    __test__ = False  # not a pytest class


@dataclass(frozen=True)
class MethodType:
    """One type of one family: where its data sits, how it flows, its test values."""

    family: str
    type: str
    variant: str | None  # the key inside payment_method_data[family]; None: no variants
    flow: str
    example: Any  # payment_method_data[family] for a request that succeeds
    description: str
    test_field: str | None = None  # dotted path inside the variant's object
    values: tuple[TestValue, ...] = ()
    required: tuple[str, ...] = ()
    delayed: bool = False  # redirect: authorised -> processing for a while -> succeeded
    fail_code: str = "UE_1007"
    __test__ = False

    @property
    def name(self) -> str:
        """`family/type`, as the docs and errors name it."""
        return f"{self.family}/{self.type}"

    def as_dict(self) -> dict[str, Any]:
        """The row served by `/_sandbox/test-methods`."""
        return {
            "payment_method": self.family,
            "payment_method_type": self.type,
            "flow": self.flow,
            "payment_method_data": {self.family: self.example},
            "test_field": self.test_field,
            "test_values": [
                {
                    "value": v.value,
                    "outcome": v.outcome,
                    "unified_code": v.unified_code,
                    "description": v.description,
                }
                for v in self.values
            ],
            "description": self.description,
        }


_WALLET_TOKENS = (
    TestValue("sandbox_success", SUCCEEDED, None, "succeeds (so does any other token)"),
    TestValue("sandbox_decline", FAILED, "UE_1007", "declined by the issuer"),
    TestValue("sandbox_insufficient_funds", FAILED, "UE_1001", "insufficient funds"),
)
_ACH_ACCOUNTS = (
    TestValue("000123456789", SUCCEEDED, None, "the debit succeeds (so does any other account)"),
    TestValue("000111111116", FAILED, "UE_1016", "no account: the debit fails"),
    TestValue("000111111113", FAILED, "UE_1016", "account closed: the debit fails"),
    TestValue("000222222227", FAILED, "UE_1001", "insufficient funds: the debit fails"),
    TestValue("000333333335", FAILED, "UE_1017", "the customer disputes the debit"),
)
_SEPA_IBANS = (
    TestValue("DE89370400440532013000", SUCCEEDED, None, "the debit succeeds (so does any other)"),
    TestValue("DE62370400440532013001", FAILED, "UE_1001", "insufficient funds"),
    TestValue("DE35370400440532013002", FAILED, "UE_1016", "account closed"),
    TestValue("DE08370400440532013003", FAILED, "UE_1017", "the customer disputes the debit"),
)
_UK_ACCOUNTS = (
    TestValue("00012345", SUCCEEDED, None, "the debit succeeds (so does any other account)"),
    TestValue("90012345", FAILED, "UE_1001", "insufficient funds"),
    TestValue("55555559", FAILED, "UE_1016", "account closed"),
)
_AU_ACCOUNTS = (
    TestValue("000123456", SUCCEEDED, None, "the debit succeeds (so does any other account)"),
    TestValue("111111113", FAILED, "UE_1016", "account closed"),
    TestValue("222222227", FAILED, "UE_1001", "insufficient funds"),
)
_GIFT_CARDS = (
    TestValue("6036280000000000000", SUCCEEDED, None, "succeeds (so does any other number)"),
    TestValue("6036280000000000001", FAILED, "UE_1001", "balance too low for the amount"),
    TestValue("6036280000000000002", FAILED, "UE_1014", "no such gift card"),
)
_VPAS = (
    TestValue("success@upi", SUCCEEDED, None, "the customer approves (so does any other VPA)"),
    TestValue("failure@upi", FAILED, "UE_1017", "the customer declines the collect request"),
)
_MSISDNS = (
    TestValue("+15005550006", SUCCEEDED, None, "the carrier bills it (so does any other)"),
    TestValue("+15005550000", FAILED, "UE_1016", "the carrier refuses: no billable account"),
)

_PAGE = "finished on the sandbox page (authorize, fail, abandon)"
_TRANSFER = (
    "instructions to pay into; the money arrives an hour later (sandbox clock), or the "
    "instructions lapse after 3 days when the payment's e-mail contains +expire"
)
_VOUCHER = (
    "a voucher to pay at a shop; paid a day later (sandbox clock), or it lapses after 3 days "
    "when the payment's e-mail contains +expire"
)
_DEBIT = "processing, then succeeded or failed two days later (sandbox clock) by the account"


def _types() -> list[MethodType]:
    m = MethodType
    wallet_token = {"type": "CARD", "description": "Visa •••• 1111"}
    return [
        # wallets
        m(
            "wallet",
            "apple_pay",
            "apple_pay",
            SYNC,
            {
                "apple_pay": {
                    "payment_data": "sandbox_success",
                    "payment_method": {
                        "display_name": "Visa 1111",
                        "network": "Visa",
                        "type": "debit",
                    },
                    "transaction_identifier": "sandbox-apple-pay",
                }
            },
            "Apple Pay token: answered at once by the token (payment_data)",
            "payment_data",
            _WALLET_TOKENS,
            ("payment_data",),
        ),
        m(
            "wallet",
            "google_pay",
            "google_pay",
            SYNC,
            {
                "google_pay": {
                    **wallet_token,
                    "info": {"card_network": "VISA", "card_details": "1111"},
                    "tokenization_data": {"type": "PAYMENT_GATEWAY", "token": "sandbox_success"},
                }
            },
            "Google Pay token: answered at once by tokenization_data.token",
            "tokenization_data.token",
            _WALLET_TOKENS,
            ("tokenization_data",),
        ),
        m(
            "wallet",
            "samsung_pay",
            "samsung_pay",
            SYNC,
            {"samsung_pay": {"payment_credential": {"token_data": {"data": "sandbox_success"}}}},
            "Samsung Pay token: answered at once by payment_credential.token_data.data",
            "payment_credential.token_data.data",
            _WALLET_TOKENS,
            ("payment_credential",),
        ),
        m("wallet", "paypal", "paypal_redirect", REDIRECT, {"paypal_redirect": {}}, _PAGE),
        m("wallet", "ali_pay", "ali_pay_redirect", REDIRECT, {"ali_pay_redirect": {}}, _PAGE),
        m("wallet", "we_chat_pay", "we_chat_pay_qr", QR, {"we_chat_pay_qr": {}}, "QR; " + _PAGE),
        m(
            "wallet",
            "we_chat_pay",
            "we_chat_pay_redirect",
            REDIRECT,
            {"we_chat_pay_redirect": {}},
            _PAGE,
        ),
        # pay later
        m(
            "pay_later",
            "klarna",
            "klarna_redirect",
            REDIRECT,
            {"klarna_redirect": {"billing_email": "ada@example.com", "billing_country": "US"}},
            _PAGE,
            fail_code="UE_2001",
        ),
        m(
            "pay_later",
            "klarna",
            "klarna_sdk",
            SYNC,
            {"klarna_sdk": {"token": "sandbox_success"}},
            "Klarna SDK token: answered at once by the token",
            "token",
            _WALLET_TOKENS,
            ("token",),
        ),
        m(
            "pay_later",
            "affirm",
            "affirm_redirect",
            REDIRECT,
            {"affirm_redirect": {}},
            _PAGE,
            fail_code="UE_2001",
        ),
        m(
            "pay_later",
            "afterpay_clearpay",
            "afterpay_clearpay_redirect",
            REDIRECT,
            {"afterpay_clearpay_redirect": {"billing_name": "Ada", "billing_email": "a@ex.com"}},
            _PAGE,
            fail_code="UE_2001",
        ),
        # bank redirects
        m("bank_redirect", "ideal", "ideal", REDIRECT, {"ideal": {"bank_name": "ing"}}, _PAGE),
        m(
            "bank_redirect",
            "eps",
            "eps",
            REDIRECT,
            {"eps": {"bank_name": "hypo_oberosterreich_salzburg_steiermark", "country": "AT"}},
            _PAGE,
        ),
        m(
            "bank_redirect",
            "sofort",
            "sofort",
            REDIRECT,
            {"sofort": {"country": "DE", "preferred_language": "en"}},
            _PAGE + "; once authorised it stays processing for 10 sandbox-minutes",
            delayed=True,
        ),
        m("bank_redirect", "giropay", "giropay", REDIRECT, {"giropay": {"country": "DE"}}, _PAGE),
        m(
            "bank_redirect",
            "bancontact_card",
            "bancontact_card",
            REDIRECT,
            {"bancontact_card": {}},
            _PAGE,
        ),
        m(
            "bank_redirect",
            "przelewy24",
            "przelewy24",
            REDIRECT,
            {"przelewy24": {"bank_name": "citi"}},
            _PAGE,
        ),
        m("bank_redirect", "trustly", "trustly", REDIRECT, {"trustly": {"country": "SE"}}, _PAGE),
        # bank transfers
        m(
            "bank_transfer",
            "ach",
            "ach_bank_transfer",
            TRANSFER,
            {"ach_bank_transfer": {"billing_details": {"email": "ada@example.com"}}},
            _TRANSFER,
        ),
        m(
            "bank_transfer",
            "sepa_bank_transfer",
            "sepa_bank_transfer",
            TRANSFER,
            {"sepa_bank_transfer": {"billing_details": {"name": "Ada"}, "country": "DE"}},
            _TRANSFER,
        ),
        m(
            "bank_transfer",
            "bacs",
            "bacs_bank_transfer",
            TRANSFER,
            {"bacs_bank_transfer": {}},
            _TRANSFER,
        ),
        m(
            "bank_transfer",
            "multibanco",
            "multibanco_bank_transfer",
            TRANSFER,
            {"multibanco_bank_transfer": {}},
            _TRANSFER,
        ),
        m("bank_transfer", "pix", "pix", QR, {"pix": {}}, "QR; " + _PAGE),
        # bank debits
        m(
            "bank_debit",
            "ach",
            "ach_bank_debit",
            DEBIT,
            {
                "ach_bank_debit": {
                    "account_number": "000123456789",
                    "routing_number": "110000000",
                    "bank_account_holder_name": "Ada Lovelace",
                }
            },
            _DEBIT,
            "account_number",
            _ACH_ACCOUNTS,
            ("account_number", "routing_number"),
        ),
        m(
            "bank_debit",
            "sepa",
            "sepa_bank_debit",
            DEBIT,
            {"sepa_bank_debit": {"iban": "DE89370400440532013000"}},
            _DEBIT,
            "iban",
            _SEPA_IBANS,
            ("iban",),
        ),
        m(
            "bank_debit",
            "bacs",
            "bacs_bank_debit",
            DEBIT,
            {"bacs_bank_debit": {"account_number": "00012345", "sort_code": "108800"}},
            _DEBIT,
            "account_number",
            _UK_ACCOUNTS,
            ("account_number", "sort_code"),
        ),
        m(
            "bank_debit",
            "becs",
            "becs_bank_debit",
            DEBIT,
            {"becs_bank_debit": {"account_number": "000123456", "bsb_number": "000000"}},
            _DEBIT,
            "account_number",
            _AU_ACCOUNTS,
            ("account_number", "bsb_number"),
        ),
        # crypto, UPI, vouchers, gift cards, rewards, open banking, mobile, real time
        m(
            "crypto",
            "crypto_currency",
            None,
            REDIRECT,
            {"pay_currency": "BTC", "network": "bitcoin"},
            "a hosted crypto checkout, " + _PAGE,
        ),
        m(
            "upi",
            "upi_collect",
            "upi_collect",
            WAIT,
            {"upi_collect": {"vpa_id": "success@upi"}},
            "a collect request the customer approves in their app: succeeded or failed a "
            "minute later (sandbox clock) by the VPA",
            "vpa_id",
            _VPAS,
            ("vpa_id",),
        ),
        m("upi", "upi_intent", "upi_intent", REDIRECT, {"upi_intent": {}}, _PAGE),
        m(
            "voucher",
            "boleto",
            "boleto",
            VOUCHER,
            {"boleto": {"social_security_number": "56861752509"}},
            _VOUCHER,
        ),
        m("voucher", "oxxo", "oxxo", VOUCHER, "oxxo", _VOUCHER),
        m(
            "gift_card",
            "givex",
            "givex",
            SYNC,
            {"givex": {"number": "6036280000000000000", "cvc": "123"}},
            "answered at once by the gift card's number",
            "number",
            _GIFT_CARDS,
            ("number", "cvc"),
        ),
        m("gift_card", "pay_safe_card", "pay_safe_card", REDIRECT, {"pay_safe_card": {}}, _PAGE),
        m("reward", "classic", None, REDIRECT, {}, 'payment_method_data: "reward"; ' + _PAGE),
        m("reward", "evoucher", None, REDIRECT, {}, 'payment_method_data: "reward"; ' + _PAGE),
        m(
            "open_banking",
            "open_banking_pis",
            "open_banking_pis",
            REDIRECT,
            {"open_banking_pis": {}},
            "the bank's consent page, " + _PAGE,
        ),
        m(
            "mobile_payment",
            "direct_carrier_billing",
            "direct_carrier_billing",
            DEBIT,
            {"direct_carrier_billing": {"msisdn": "+15005550006", "client_uid": "sandbox"}},
            "charged to the phone bill: " + _DEBIT.replace("the account", "the number"),
            "msisdn",
            _MSISDNS,
            ("msisdn",),
        ),
        m("real_time_payment", "fps", "fps", QR, {"fps": {}}, "QR; " + _PAGE),
        m("real_time_payment", "duit_now", "duit_now", QR, {"duit_now": {}}, "QR; " + _PAGE),
        m("real_time_payment", "prompt_pay", "prompt_pay", QR, {"prompt_pay": {}}, "QR; " + _PAGE),
        m("card_redirect", "knet", "knet", REDIRECT, {"knet": {}}, _PAGE),
        m("card_redirect", "benefit", "benefit", REDIRECT, {"benefit": {}}, _PAGE),
        m(
            "network_token",
            "network_token",
            None,
            SYNC,
            {
                "network_token": "4242424242424242",
                "token_exp_month": "12",
                "token_exp_year": "2040",
                "token_cryptogram": "AgAAAAAABk4DWZ4C28yUQAAAAAA=",
            },
            "a network token: answered at once as the test card with the same number would be",
            "network_token",
            (),
            ("network_token", "token_exp_month", "token_exp_year"),
        ),
    ]


TYPES: Final[list[MethodType]] = _types()
# (family, variant) -> type; variant None for the families without variants
BY_VARIANT: Final[dict[tuple[str, str | None], MethodType]] = {}
for _t in TYPES:
    BY_VARIANT.setdefault((_t.family, _t.variant), _t)
# family -> types, for the reward family (one shape, two types) and error messages
FAMILIES: Final[dict[str, list[MethodType]]] = {}
for _t in TYPES:
    FAMILIES.setdefault(_t.family, []).append(_t)
ALL_FAMILIES: Final = ("card", *FAMILIES)
# (family, type) -> the first type entry (for instructions and docs)
BY_TYPE: Final[dict[tuple[str, str], MethodType]] = {}
for _t in TYPES:
    BY_TYPE.setdefault((_t.family, _t.type), _t)
