"""Payouts end to end: every validation rule (a failing and a passing body each), masking,
nulls, the status flow with and without auto_fulfill, test accounts, list filters, events."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from payscope.sandbox.server import Sandbox

CARD = {
    "card": {
        "card_number": "4242424242424242",
        "expiry_month": "10",
        "expiry_year": "2035",
        "card_holder_name": "Ada Lovelace",
    }
}
ACH = {"bank_transfer": {"bank_account_number": "000123456789", "bank_routing_number": "110000000"}}


def body(**fields: Any) -> dict[str, Any]:
    return {"amount": 1000, "currency": "USD", **fields}


def drop(method: dict[str, Any], path: str) -> dict[str, Any]:
    """A deep copy of `method` without the dotted `path`."""
    copy = json.loads(json.dumps(method))
    *parents, last = path.split(".")
    node = copy
    for part in parents:
        node = node[part]
    del node[last]
    return copy


BANKS = {
    "ach": ACH["bank_transfer"],
    "bacs": {"bank_account_number": "55779911", "bank_sort_code": "200000"},
    "sepa": {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"},
    "trustly": {
        "iban": "SE4550000000058398257466",
        "country_code": "SE",
        "account_number": "58398257466",
        "bank_number": "5000",
    },
    "pix": {"bank_account_number": "12345", "pix_key": "key@example.com", "emv": "000201"},
    "pix_key": {"pix_key": "key@example.com"},
    "pix_emv": {"emv": "00020126580014br.gov.bcb.pix"},
    "open_banking": {"account_holder_name": "Ada", "iban": "GB33BUKB20201555555555"},
}
SOURCE = {
    "ach": {"payout_method_type": "ach", **BANKS["ach"]},
    "trustly": {
        "payout_method_type": "trustly",
        "iban": "SE4550000000058398257466",
        "bank_country_code": "SE",
        "bank_account_number": "58398257466",
        "bank_number": "5000",
    },
    "pix": {"payout_method_type": "pix", "bank_account_number": "12345"},
}
WALLETS = {
    "apple_pay_decrypt": {
        "dpan": "4111111111111111",
        "expiry_month": "10",
        "expiry_year": "2035",
        "card_holder_name": "Ada",
    },
    "google_pay_decrypt": {
        "application_primary_account_number": "4111111111111111",
        "expiry_month": "10",
        "expiry_year": "2035",
        "card_holder_name": "Ada",
    },
    "paypal": {"email": "ada@example.com", "telephone_number": "5551234", "paypal_id": "PP1"},
    "venmo": {"telephone_number": "5551234"},
}

# (rule, failing body, code, word in the message, passing body)
RULES: list[tuple[str, dict[str, Any], str, str, dict[str, Any]]] = [
    ("amount required", {"currency": "USD"}, "IR_01", "amount", body()),
    ("currency required", {"amount": 10}, "IR_01", "currency", body()),
    ("currency ISO", body(currency="DOLLARS"), "IR_04", "currency", body(currency="EUR")),
    ("amount integer", body(amount="ten"), "IR_04", "amount", body(amount=10)),
    (
        "reference <= 255",
        body(merchant_order_reference_id="r" * 256),
        "IR_04",
        "merchant_order_reference_id",
        body(merchant_order_reference_id="r" * 255),
    ),
    (
        "payout_type values",
        body(payout_type="cash"),
        "IR_04",
        "payout_type",
        body(payout_type="bank"),
    ),
    (
        "payout_type matches method",
        body(payout_type="wallet", payout_method_data=CARD),
        "IR_04",
        "payout_type",
        body(payout_type="card", payout_method_data=CARD),
    ),
    (
        "exactly one method key (two)",
        body(payout_method_data={**CARD, **ACH}),
        "IR_04",
        "exactly one",
        body(payout_method_data=ACH),
    ),
    (
        "exactly one method key (none)",
        body(payout_method_data={}),
        "IR_01",
        "payout_method_data",
        body(payout_method_data=CARD),
    ),
    (
        "card number required",
        body(payout_method_data=drop(CARD, "card.card_number")),
        "IR_01",
        "card_number",
        body(payout_method_data=CARD),
    ),
    (
        "card holder required",
        body(payout_method_data=drop(CARD, "card.card_holder_name")),
        "IR_01",
        "card_holder_name",
        body(payout_method_data=CARD),
    ),
    (
        "card expiry required",
        body(payout_method_data=drop(CARD, "card.expiry_year")),
        "IR_01",
        "expiry_year",
        body(payout_method_data=CARD),
    ),
    (
        "card network values",
        body(payout_method_data={"card": {**CARD["card"], "card_network": "Diners"}}),
        "IR_04",
        "card_network",
        body(payout_method_data={"card": {**CARD["card"], "card_network": "DinersClub"}}),
    ),
    *[
        (
            f"bank {name} {field} required",
            body(
                payout_method_data={"bank_transfer": {k: v for k, v in bank.items() if k != field}}
            ),
            "",
            "",
            body(payout_method_data={"bank_transfer": bank}),
        )
        for name, bank, field in (
            ("ach", BANKS["ach"], "bank_account_number"),
            ("bacs", BANKS["bacs"], "bank_account_number"),
            ("sepa", BANKS["sepa"], "iban"),
            ("trustly", BANKS["trustly"], "bank_number"),
            ("pix", BANKS["pix"], "bank_account_number"),
            ("open_banking", BANKS["open_banking"], "account_holder_name"),
        )
    ],
    *[
        (
            "bank variant " + name,
            body(payout_method_data={"bank_transfer": {"bank_name": "X"}}),
            "IR_04",
            "bank_transfer",
            body(payout_method_data={"bank_transfer": bank}),
        )
        for name, bank in BANKS.items()
    ],
    (
        "source bank discriminator required",
        body(source_bank_data={"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"}),
        "IR_01",
        "payout_method_type",
        body(source_bank_data={"payout_method_type": "sepa", **BANKS["sepa"]}),
    ),
    (
        "source bank discriminator values",
        body(source_bank_data={"payout_method_type": "swift", **BANKS["sepa"]}),
        "IR_04",
        "payout_method_type",
        body(source_bank_data=SOURCE["ach"]),
    ),
    (
        "source trustly uses bank_ names",
        body(source_bank_data={"payout_method_type": "trustly", **BANKS["trustly"]}),
        "IR_01",
        "bank_country_code",
        body(source_bank_data=SOURCE["trustly"]),
    ),
    (
        "source pix needs only the account number",
        body(source_bank_data={"payout_method_type": "pix"}),
        "IR_01",
        "bank_account_number",
        body(source_bank_data=SOURCE["pix"]),
    ),
    *[
        (
            f"wallet {name} fields",
            body(payout_method_data={"wallet": {name: dict(list(wallet.items())[1:])}}),
            "IR_01",
            next(iter(wallet)),
            body(payout_method_data={"wallet": {name: wallet}}),
        )
        for name, wallet in WALLETS.items()
    ],
    (
        "wallet exactly one",
        body(
            payout_method_data={"wallet": {"venmo": WALLETS["venmo"], "paypal": WALLETS["paypal"]}}
        ),
        "IR_04",
        "exactly one",
        body(payout_method_data={"wallet": {"venmo": WALLETS["venmo"]}}),
    ),
    (
        "interac email",
        body(payout_method_data={"bank_redirect": {"interac": {"email": "not-an-email"}}}),
        "IR_04",
        "email",
        body(payout_method_data={"bank_redirect": {"interac": {"email": "a@example.ca"}}}),
    ),
    (
        "open_banking_uk fields",
        body(payout_method_data={"bank_redirect": {"open_banking_uk": {"iban": "GB33"}}}),
        "IR_01",
        "account_holder_name",
        body(
            payout_method_data={
                "bank_redirect": {"open_banking_uk": {"iban": "GB33", "account_holder_name": "A"}}
            }
        ),
    ),
    (
        "bank_redirect exactly one",
        body(payout_method_data={"bank_redirect": {}}),
        "IR_01",
        "bank_redirect",
        body(payout_method_data={"bank_redirect": {"interac": {"email": "a@example.ca"}}}),
    ),
    (
        "passthrough fields",
        body(payout_method_data={"passthrough": {"psp_token": "tok", "psp_customer_id": "c"}}),
        "IR_01",
        "token_type",
        body(
            payout_method_data={
                "passthrough": {"psp_token": "tok", "psp_customer_id": "c", "token_type": "card"}
            }
        ),
    ),
    ("entity types", body(entity_type="Robot"), "IR_04", "entity", body(entity_type="Company")),
    (
        "entity types lowercase",
        body(entity_type="robot"),
        "IR_04",
        "entity",
        body(entity_type="non_profit"),
    ),
    ("priority values", body(priority="slow"), "IR_04", "priority", body(priority="wire")),
    (
        "metadata pairs <= 50",
        body(metadata={f"k{i}": "v" for i in range(51)}),
        "IR_04",
        "50",
        body(metadata={f"k{i}": "v" for i in range(50)}),
    ),
    (
        "metadata key <= 40",
        body(metadata={"k" * 41: "v"}),
        "IR_04",
        "40",
        body(metadata={"k" * 40: "v"}),
    ),
    (
        "metadata value <= 500",
        body(metadata={"k": "v" * 501}),
        "IR_04",
        "500",
        body(metadata={"k": "v" * 500}),
    ),
    (
        "business country",
        body(business_country="USA"),
        "IR_04",
        "business_country",
        body(business_country="US"),
    ),
    (
        "customer email",
        body(customer={"email": "nope"}),
        "IR_04",
        "email",
        body(customer={"email": "a@example.com"}),
    ),
    (
        "deprecated fields agree with customer",
        body(customer={"id": "cus_a"}, customer_id="cus_b"),
        "IR_04",
        "customer_id",
        body(customer={"id": "cus_a"}, customer_id="cus_a"),
    ),
    (
        "payout_type before confirmation",
        body(confirm=True, payout_method_data=CARD),
        "IR_01",
        "payout_type",
        body(confirm=True, payout_type="card", payout_method_data=CARD),
    ),
    (
        "a method before confirmation",
        body(confirm=True, payout_type="card"),
        "IR_01",
        "payout_method_data",
        body(confirm=True, payout_type="card", payout_method_data=CARD),
    ),
    (
        "profile must be this sandbox's",
        body(profile_id="pro_other"),
        "IR_04",
        "profile_id",
        body(),
    ),
]


@pytest.mark.parametrize(
    ("failing", "code", "word", "passing"),
    [pytest.param(f, c, w, p, id=name) for name, f, c, w, p in RULES],
)
async def test_validation_rule(
    raw: httpx.AsyncClient, failing: dict[str, Any], code: str, word: str, passing: dict[str, Any]
) -> None:
    refused = await raw.post("/payouts/create", json=failing)
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["type"] == "invalid_request"
    if code:
        assert error["code"] == code, error
    if word:
        assert word in error["message"], error
    accepted = await raw.post("/payouts/create", json=passing)
    assert accepted.status_code == 200, accepted.text


async def test_payout_link_only_at_creation(raw: httpx.AsyncClient) -> None:
    made = (await raw.post("/payouts/create", json=body(payout_link=True))).json()
    assert made["payout_link"]["payout_link_id"].startswith("payout_link_")
    for method in ("PUT", "POST"):
        response = await raw.request(
            method, f"/payouts/{made['payout_id']}", json={"payout_link": False}
        )
        assert response.status_code == 400
        assert "payout_link" in response.json()["error"]["message"]
    fine = await raw.put(f"/payouts/{made['payout_id']}", json={"description": "ok"})
    assert fine.status_code == 200 and fine.json()["description"] == "ok"


async def test_masked_nulls_customer_and_flow(raw: httpx.AsyncClient, sandbox: Sandbox) -> None:
    made = (
        await raw.post(
            "/payouts/create",
            json=body(payout_method_data=ACH, email="pay@example.com", name="Payee"),
        )
    ).json()
    assert made["status"] == "requires_confirmation"
    bank = made["payout_method_data"]["bank_transfer"]
    assert bank["bank_account_number"] == "********6789"
    assert bank["bank_routing_number"] == "110000000"
    assert made["customer_id"].startswith("cus_")
    assert made["customer"]["email"] == "pay@example.com" and made["customer"]["name"] == "Payee"
    for field in ("description", "return_url", "business_country", "metadata", "billing"):
        assert field in made and made[field] is None
    customer = await raw.get(f"/customers/{made['customer_id']}")
    assert customer.status_code == 200 and customer.json()["name"] == "Payee"
    stored = sandbox.state.db.conn.execute("SELECT data FROM payouts").fetchone()[0]
    assert "000123456789" not in stored
    payout_id = made["payout_id"]
    no_type = await raw.post(f"/payouts/{payout_id}/confirm")
    assert no_type.status_code == 400 and no_type.json()["error"]["code"] == "IR_01"
    updated = (await raw.put(f"/payouts/{payout_id}", json={"payout_type": "bank"})).json()
    assert updated["status"] == "requires_confirmation"
    confirmed = (await raw.post(f"/payouts/{payout_id}/confirm")).json()
    assert confirmed["status"] == "requires_fulfillment"
    fulfilled = (await raw.post(f"/payouts/{payout_id}/fulfill")).json()
    assert fulfilled["status"] == "initiated"
    await raw.post("/_sandbox/clock/advance", json={"seconds": 3601})
    done = (await raw.get(f"/payouts/{payout_id}")).json()
    assert done["status"] == "success" and done["attempts"][-1]["status"] == "success"
    cancel = await raw.post(f"/payouts/{payout_id}/cancel")
    assert cancel.status_code == 400 and "success" in cancel.json()["error"]["message"]
    reversed_ = (await raw.post(f"/_sandbox/payouts/{payout_id}/reverse")).json()
    assert reversed_["status"] == "reversed"
    kinds = [
        r[0]
        for r in sandbox.state.db.conn.execute(
            "SELECT event_type FROM events WHERE object_id = ? ORDER BY rowid", (payout_id,)
        )
    ]
    assert kinds == ["payout_initiated", "payout_success", "payout_reversed"]


@pytest.mark.parametrize(
    ("method", "status", "error"),
    [
        ({"card": {**CARD["card"], "card_number": "4000000000000002"}}, "failed", "account_closed"),
        (
            {"bank_transfer": {**ACH["bank_transfer"], "bank_account_number": "000123450002"}},
            "failed",
            "account_closed",
        ),
        (
            {"wallet": {"paypal": {**WALLETS["paypal"], "email": "fail@example.com"}}},
            "failed",
            "account_closed",
        ),
        (
            {"bank_transfer": {"iban": "DE89370400440532010005", "bic": "COBADEFFXXX"}},
            "ineligible",
            "account_ineligible",
        ),
        (CARD, "success", None),
    ],
)
async def test_auto_fulfill_and_test_accounts(
    raw: httpx.AsyncClient, method: dict[str, Any], status: str, error: str | None
) -> None:
    kind = {"card": "card", "bank_transfer": "bank", "wallet": "wallet"}[next(iter(method))]
    made = (
        await raw.post(
            "/payouts/create",
            json=body(
                payout_type=kind,
                payout_method_data=method,
                confirm=True,
                auto_fulfill=True,
                priority="instant",
            ),
        )
    ).json()
    assert made["status"] == ("ineligible" if status == "ineligible" else "initiated")
    await raw.post("/_sandbox/clock/advance", json={"seconds": 11})
    final = (await raw.get(f"/payouts/{made['payout_id']}")).json()
    assert final["status"] == status and final["error_code"] == error


async def test_cancel_list_and_saved_method(raw: httpx.AsyncClient) -> None:
    card = (
        await raw.post(
            "/payouts/create",
            json=body(payout_type="card", payout_method_data=CARD, entity_type="individual"),
        )
    ).json()
    assert card["entity_type"] == "Individual"
    again = (
        await raw.post(
            "/payouts/create",
            json=body(payout_method_id=card["payout_method_id"], currency="EUR"),
        )
    ).json()
    assert again["payout_type"] == "card" and again["status"] == "requires_confirmation"
    # the real service's card shape: the last four digits and the BIN, never the number
    assert (
        again["payout_method_data"]
        == card["payout_method_data"]
        == {
            "card": {
                "card_issuer": None,
                "card_network": "Visa",
                "card_type": None,
                "card_issuing_country": None,
                "bank_code": None,
                "last4": "4242",
                "card_isin": "424242",
                "card_extended_bin": None,
                "card_exp_month": CARD["card"]["expiry_month"],
                "card_exp_year": CARD["card"]["expiry_year"],
                "card_holder_name": CARD["card"]["card_holder_name"],
            }
        }
    )
    assert again["entity_type"] == "Individual"  # none sent: the real service's default
    cancelled = (await raw.post(f"/payouts/{again['payout_id']}/cancel")).json()
    assert cancelled["status"] == "cancelled"
    by_status = (await raw.post("/payouts/list", json={"status": ["cancelled"]})).json()
    assert [p["payout_id"] for p in by_status["data"]] == [again["payout_id"]]
    by_currency = (await raw.get("/payouts/list", params={"currency": "USD"})).json()
    assert [p["payout_id"] for p in by_currency["data"]] == [card["payout_id"]]
    by_entity = (await raw.post("/payouts/list", json={"entity_type": "INDIVIDUAL"})).json()
    assert by_entity["total_count"] == 2
    companies = (await raw.post("/payouts/list", json={"entity_type": "Company"})).json()
    assert companies["total_count"] == 0
    by_method = (
        await raw.get("/payouts/list", params={"payout_method": "card", "limit": 1})
    ).json()
    assert by_method["count"] == by_method["size"] == 1 and by_method["total_count"] == 2
    assert (await raw.get("/payouts/payout_nope")).status_code == 404
    bad = await raw.post("/payouts/list", json={"status": ["paid"]})
    assert bad.status_code == 400 and "status" in bad.json()["error"]["message"]


async def test_unused_payout_link_expires(raw: httpx.AsyncClient) -> None:
    made = (
        await raw.post("/payouts/create", json=body(payout_link=True, session_expiry=60))
    ).json()
    assert made["status"] == "requires_payout_method_data"
    await raw.post("/_sandbox/clock/advance", json={"seconds": 61})
    assert (await raw.get(f"/payouts/{made['payout_id']}")).json()["status"] == "expired"


# The real PayoutCreateResponse's fields (additionalProperties: false there), and the spec's
# `description`, which its payout field list names.
REAL_PAYOUT_FIELDS = {
    "payout_id", "merchant_id", "merchant_order_reference_id", "amount", "currency", "connector",
    "payout_type", "payout_method_data", "billing", "auto_fulfill", "customer_id", "customer",
    "client_secret", "return_url", "business_country", "business_label", "entity_type",
    "recurring", "metadata", "merchant_connector_id", "status", "error_message", "error_code",
    "profile_id", "created", "connector_transaction_id", "priority", "attempts", "payout_link",
    "email", "name", "phone", "phone_country_code", "unified_code", "unified_message",
    "payout_method_id",
}  # fmt: skip
SPEC_ONLY = {"description"}


@pytest.mark.parametrize(
    ("method", "kind", "method_type"),
    [
        (CARD, "card", "debit"),
        (ACH, "bank", "ach"),
        ({"bank_transfer": BANKS["bacs"]}, "bank", "bacs"),
        ({"bank_transfer": BANKS["sepa"]}, "bank", "sepa"),
        ({"wallet": {"paypal": WALLETS["paypal"]}}, "wallet", "paypal"),
        ({"bank_redirect": {"interac": {"email": "ada@example.ca"}}}, "bank_redirect", "interac"),
    ],
)
async def test_answers_have_the_real_fields_only_and_real_method_types(
    raw: httpx.AsyncClient, method: dict[str, Any], kind: str, method_type: str
) -> None:
    """Nothing the real schema lacks (source_bank_data, modified_at, payout_token,
    session_expiry, browser_info were echoed before), in every answer and in the list (with
    its `size`); each attempt's payout_method_type is a real PaymentMethodType value."""
    sent = body(
        payout_type=kind,
        payout_method_data=method,
        source_bank_data={"payout_method_type": "sepa", **BANKS["sepa"]},
        browser_info={"user_agent": "Mozilla/5.0", "language": "en-GB"},
        session_expiry=600,
        priority="instant",
    )
    made = (await raw.post("/payouts/create", json=sent)).json()
    pid = made["payout_id"]
    answers = [made]
    answers.append((await raw.post(f"/payouts/{pid}/confirm", json={})).json())
    answers.append((await raw.post(f"/payouts/{pid}/fulfill")).json())
    await raw.post("/_sandbox/clock/advance", json={"seconds": 11})
    answers.append((await raw.get(f"/payouts/{pid}")).json())
    listed = (await raw.post("/payouts/list", json={"payout_id": pid})).json()
    assert listed["size"] == listed["count"] == len(listed["data"]) == 1
    answers += listed["data"]
    for answer in answers:
        assert set(answer) <= REAL_PAYOUT_FIELDS | SPEC_ONLY, set(answer) - REAL_PAYOUT_FIELDS
    final = answers[-1]
    assert final["status"] == "success"
    [attempt] = final["attempts"]
    assert (attempt["payment_method"], attempt["payout_method_type"]) == (kind, method_type)
