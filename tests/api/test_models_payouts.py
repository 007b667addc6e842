"""Payouts: every payout_method_data variant of the spec's tables and every constraint."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from payscope.api.models.payout_methods import (
    AchBankTransfer,
    AchSourceBank,
    ApplePayDecrypt,
    BacsBankTransfer,
    BacsSourceBank,
    GooglePayDecrypt,
    Interac,
    OpenBankingSourceBank,
    OpenBankingTransfer,
    OpenBankingUk,
    Passthrough,
    PayoutCard,
    Paypal,
    PixBankTransfer,
    PixEmvSourceBank,
    PixEmvTransfer,
    PixKeySourceBank,
    PixKeyTransfer,
    PixSourceBank,
    SepaBankTransfer,
    SepaSourceBank,
    TrustlyBankTransfer,
    TrustlySourceBank,
    Venmo,
)
from payscope.api.models.payouts import (
    EntityType,
    Payout,
    PayoutCreateRequest,
    PayoutListRequest,
    PayoutListResponse,
    PayoutStatus,
    PayoutUpdateRequest,
)

OPTIONAL_BANK = {
    "bank_name": "Bank",
    "bank_country_code": "US",
    "bank_city": "NYC",
    "account_holder_name": "Jane Doe",
}

BANK_TRANSFERS: list[tuple[dict[str, Any], type[Any]]] = [
    ({"bank_account_number": "000123456789", "bank_routing_number": "110000000"}, AchBankTransfer),
    (
        {
            "bank_account_number": "000123456789",
            "bank_routing_number": "110000000",
            **OPTIONAL_BANK,
        },
        AchBankTransfer,
    ),
    ({"bank_account_number": "55779911", "bank_sort_code": "200000"}, BacsBankTransfer),
    (
        {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX", "account_holder_name": "Jane"},
        SepaBankTransfer,
    ),
    (
        {
            "iban": "SE4550000000058398257466",
            "country_code": "SE",
            "account_number": "58398257466",
            "bank_number": "5000",
        },
        TrustlyBankTransfer,
    ),
    (
        {
            "bank_account_number": "12345",
            "pix_key": "jane@pix",
            "emv": "000201...",
            "bank_branch": "0001",
            "tax_id": "123",
        },
        PixBankTransfer,
    ),
    ({"pix_key": "jane@pix"}, PixKeyTransfer),
    ({"emv": "00020126580014br.gov.bcb.pix"}, PixEmvTransfer),
    ({"account_holder_name": "Jane Doe", "iban": "GB33BUKB20201555555555"}, OpenBankingTransfer),
]

SOURCE_BANKS: list[tuple[dict[str, Any], type[Any]]] = [
    (
        {"payout_method_type": "ach", "bank_account_number": "1", "bank_routing_number": "2"},
        AchSourceBank,
    ),
    (
        {"payout_method_type": "bacs", "bank_account_number": "1", "bank_sort_code": "2"},
        BacsSourceBank,
    ),
    ({"payout_method_type": "sepa", "iban": "DE89", "bic": "COBADEFF"}, SepaSourceBank),
    (
        {
            "payout_method_type": "trustly",
            "iban": "SE45",
            "bank_country_code": "SE",
            "bank_account_number": "1",
            "bank_number": "5000",
        },
        TrustlySourceBank,
    ),
    ({"payout_method_type": "pix", "bank_account_number": "12345"}, PixSourceBank),
    ({"payout_method_type": "pix_key", "pix_key": "k"}, PixKeySourceBank),
    ({"payout_method_type": "pix_emv", "emv": "000201"}, PixEmvSourceBank),
    (
        {"payout_method_type": "open_banking", "account_holder_name": "Jane", "iban": "GB33"},
        OpenBankingSourceBank,
    ),
]

CARD = {
    "card_number": "4111111111111111",
    "expiry_month": "12",
    "expiry_year": "2030",
    "card_holder_name": "Jane Doe",
    "card_network": "Visa",
}
WALLETS: list[tuple[dict[str, Any], type[Any]]] = [
    (
        {
            "apple_pay_decrypt": {
                "dpan": "4111111111111111",
                "expiry_month": "12",
                "expiry_year": "30",
                "card_holder_name": "Jane",
                "card_network": "Mastercard",
            }
        },
        ApplePayDecrypt,
    ),
    (
        {
            "google_pay_decrypt": {
                "application_primary_account_number": "4111111111111111",
                "expiry_month": "12",
                "expiry_year": "2030",
                "card_holder_name": "Jane",
            }
        },
        GooglePayDecrypt,
    ),
    (
        {
            "paypal": {
                "email": "jane@example.com",
                "telephone_number": "5550100",
                "paypal_id": "PP-1",
            }
        },
        Paypal,
    ),
    ({"venmo": {"telephone_number": "5550100"}}, Venmo),
]
REDIRECTS: list[tuple[dict[str, Any], type[Any]]] = [
    ({"interac": {"email": "jane@example.com"}}, Interac),
    ({"open_banking_uk": {"account_holder_name": "Jane", "iban": "GB33"}}, OpenBankingUk),
]


def create(**extra: Any) -> PayoutCreateRequest:
    return PayoutCreateRequest.model_validate({"amount": 1000, "currency": "usd", **extra})


def errors_of(data: dict[str, Any], model: type[Any] = PayoutCreateRequest) -> list[dict[str, Any]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(
            {"amount": 1000, "currency": "USD", **data} if model is PayoutCreateRequest else data
        )
    return [dict(error) for error in caught.value.errors()]


@pytest.mark.parametrize(("data", "variant"), BANK_TRANSFERS)
def test_bank_transfer_variant_told_from_its_fields(
    data: dict[str, Any], variant: type[Any]
) -> None:
    request = create(payout_type="bank", payout_method_data={"bank_transfer": data})
    assert request.payout_method_data is not None
    assert type(request.payout_method_data.bank_transfer) is variant
    assert request.payout_method_data.method == "bank_transfer"
    assert request.to_body()["payout_method_data"] == {"bank_transfer": data}


@pytest.mark.parametrize(("data", "variant"), SOURCE_BANKS)
def test_source_bank_data_read_by_its_discriminator(
    data: dict[str, Any], variant: type[Any]
) -> None:
    request = create(source_bank_data=data)
    assert type(request.source_bank_data) is variant
    assert request.to_body()["source_bank_data"] == data
    # the same object is also accepted as bank_transfer
    assert (
        type(create(payout_method_data={"bank_transfer": data}).payout_method_data.bank_transfer)
        is variant
    )  # type: ignore[union-attr]


def test_source_bank_discriminator_any_case() -> None:
    request = create(source_bank_data={"payout_method_type": "SEPA", "iban": "DE89", "bic": "X"})
    assert type(request.source_bank_data) is SepaSourceBank


@pytest.mark.parametrize(
    ("data", "loc", "error_type", "fragment"),
    [
        (
            {"iban": "DE89"},
            ("payout_method_data", "bank_transfer"),
            "bank_transfer_variant",
            "does not say which kind",
        ),
        (
            {"bank_account_number": "1"},
            ("payout_method_data", "bank_transfer", "pix_key"),
            "missing",
            "",
        ),
        (
            {"bank_account_number": "1", "bank_routing_number": ""},
            ("payout_method_data", "bank_transfer", "pix_key"),
            "missing",
            "",
        ),
        (
            {"bank_account_number": "1", "bank_routing_number": "2", "bank_country_code": "USA"},
            ("payout_method_data", "bank_transfer", "bank_country_code"),
            "country",
            "ISO 3166-1",
        ),
        (
            {"iban": "SE45", "country_code": "SE", "account_number": "1"},
            ("payout_method_data", "bank_transfer", "bank_number"),
            "missing",
            "",
        ),
    ],
)
def test_bank_transfer_errors_point_at_the_field(
    data: dict[str, Any], loc: tuple[str, ...], error_type: str, fragment: str
) -> None:
    errors = errors_of({"payout_method_data": {"bank_transfer": data}})
    assert (tuple(errors[0]["loc"]), errors[0]["type"]) == (loc, error_type)
    assert fragment in errors[0]["msg"]


@pytest.mark.parametrize(
    ("data", "loc", "fragment"),
    [
        (
            {"iban": "DE89", "bic": "X"},
            ("source_bank_data", "payout_method_type"),
            "payout_method_type is required",
        ),
        (
            {"payout_method_type": "wire", "iban": "DE89"},
            ("source_bank_data", "payout_method_type"),
            "'wire' is not a bank account type",
        ),
        (
            {
                "payout_method_type": "trustly",
                "iban": "SE45",
                "country_code": "SE",
                "account_number": "1",
                "bank_number": "5",
            },
            ("source_bank_data", "bank_country_code"),
            "",
        ),
        (
            {"payout_method_type": "bacs", "bank_account_number": "1"},
            ("source_bank_data", "bank_sort_code"),
            "",
        ),
    ],
)
def test_source_bank_errors(data: dict[str, Any], loc: tuple[str, ...], fragment: str) -> None:
    errors = errors_of({"source_bank_data": data})
    assert tuple(errors[0]["loc"]) == loc and fragment in errors[0]["msg"]


def test_card_variant() -> None:
    request = create(payout_type="card", payout_method_data={"card": CARD})
    assert isinstance(request.payout_method_data.card, PayoutCard)  # type: ignore[union-attr]
    assert request.to_body()["payout_method_data"] == {"card": CARD}
    assert "4111111111111111" not in repr(request)
    errors = errors_of({"payout_method_data": {"card": {**CARD, "card_network": "Bitcoin"}}})
    assert tuple(errors[0]["loc"]) == ("payout_method_data", "card", "card_network")
    assert "not a card network" in errors[0]["msg"]
    errors = errors_of(
        {"payout_method_data": {"card": {k: v for k, v in CARD.items() if k != "card_holder_name"}}}
    )
    assert tuple(errors[0]["loc"]) == ("payout_method_data", "card", "card_holder_name")


@pytest.mark.parametrize(("data", "variant"), WALLETS)
def test_wallet_variants(data: dict[str, Any], variant: type[Any]) -> None:
    request = create(payout_type="wallet", payout_method_data={"wallet": data})
    wallet = request.payout_method_data.wallet  # type: ignore[union-attr]
    assert isinstance(getattr(wallet, next(iter(data))), variant)
    assert request.to_body()["payout_method_data"]["wallet"] == data


@pytest.mark.parametrize(("data", "variant"), REDIRECTS)
def test_bank_redirect_variants(data: dict[str, Any], variant: type[Any]) -> None:
    request = create(payout_type="bank_redirect", payout_method_data={"bank_redirect": data})
    assert isinstance(getattr(request.payout_method_data.bank_redirect, next(iter(data))), variant)  # type: ignore[union-attr]


def test_passthrough() -> None:
    data = {"psp_token": "tok_123", "psp_customer_id": "cus_9", "token_type": "card"}
    request = create(payout_method_data={"passthrough": data})
    assert isinstance(request.payout_method_data.passthrough, Passthrough)  # type: ignore[union-attr]
    errors = errors_of({"payout_method_data": {"passthrough": {"psp_token": "tok"}}})
    assert {tuple(e["loc"]) for e in errors} == {
        ("payout_method_data", "passthrough", "psp_customer_id"),
        ("payout_method_data", "passthrough", "token_type"),
    }


@pytest.mark.parametrize(
    ("data", "loc", "fragment"),
    [
        ({"payout_method_data": {}}, ("payout_method_data",), "it has none"),
        (
            {"payout_method_data": {"card": CARD, "wallet": WALLETS[3][0]}},
            ("payout_method_data",),
            "it has 'card' and 'wallet'",
        ),
        (
            {"payout_method_data": {"crypto": {"address": "x"}}},
            ("payout_method_data",),
            "'crypto' is not one of them",
        ),
        (
            {"payout_method_data": {"wallet": {**WALLETS[2][0], **WALLETS[3][0]}}},
            ("payout_method_data", "wallet"),
            "it has 'paypal' and 'venmo'",
        ),
        ({"payout_method_data": {"wallet": {}}}, ("payout_method_data", "wallet"), "it has none"),
        (
            {"payout_method_data": {"bank_redirect": {**REDIRECTS[0][0], **REDIRECTS[1][0]}}},
            ("payout_method_data", "bank_redirect"),
            "it has 'interac' and 'open_banking_uk'",
        ),
    ],
)
def test_exactly_one_key(data: dict[str, Any], loc: tuple[str, ...], fragment: str) -> None:
    errors = errors_of(data)
    assert [tuple(e["loc"]) for e in errors] == [loc]
    assert "exactly one of" in errors[0]["msg"] and fragment in errors[0]["msg"]


def test_payout_type_must_match_the_method() -> None:
    errors = errors_of({"payout_type": "card", "payout_method_data": {"wallet": WALLETS[3][0]}})
    assert tuple(errors[0]["loc"]) == ("payout_type",) and "'wallet' payout" in errors[0]["msg"]


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("Individual", EntityType.INDIVIDUAL),
        ("individual", EntityType.INDIVIDUAL),
        ("nonprofit", EntityType.NON_PROFIT),
        ("non_profit", EntityType.NON_PROFIT),
        ("PUBLICSECTOR", EntityType.PUBLIC_SECTOR),
        ("NaturalPerson", EntityType.NATURAL_PERSON),
        ("personal", EntityType.PERSONAL),
        ("company", EntityType.COMPANY),
    ],
)
def test_entity_type_both_cases(given: str, stored: EntityType) -> None:
    assert create(entity_type=given).entity_type is stored


@pytest.mark.parametrize(
    ("data", "loc", "fragment"),
    [
        ({"entity_type": "Robot"}, ("entity_type",), "not an entity type"),
        ({"priority": "urgent"}, ("priority",), "not a payout priority"),
        ({"payout_type": "crypto"}, ("payout_type",), "not a payout type"),
        (
            {"merchant_order_reference_id": "r" * 256},
            ("merchant_order_reference_id",),
            "at most 255",
        ),
        ({"business_country": "EU"}, ("business_country",), "ISO 3166-1"),
        ({"amount": 10.5}, ("amount",), "whole number"),
        ({"currency": "EURO"}, ("currency",), "ISO 4217"),
        ({"session_expiry": 0}, ("session_expiry",), ""),
        (
            {"metadata": {f"k{i}": "v" for i in range(51)}},
            ("metadata",),
            "at most 50 pairs (it has 51)",
        ),
        ({"metadata": {"k" * 41: "v"}}, ("metadata", "k" * 41), "keys may have at most 40"),
        ({"metadata": {"note": "v" * 501}}, ("metadata", "note"), "values may have at most 500"),
        ({"customer": {"email": "nope"}}, ("customer", "email"), "e-mail"),
    ],
)
def test_create_constraints(data: dict[str, Any], loc: tuple[str, ...], fragment: str) -> None:
    errors = errors_of(data)
    assert [tuple(e["loc"]) for e in errors] == [loc]
    assert fragment in errors[0]["msg"]


@pytest.mark.parametrize(
    "priority", ["instant", "fast", "regular", "wire", "cross_border", "internal"]
)
def test_priority_values(priority: str) -> None:
    assert create(priority=priority).to_body()["priority"] == priority


def test_limits_at_their_edge_pass() -> None:
    metadata = {f"{i:0>40}": "v" * 500 for i in range(50)}
    request = create(merchant_order_reference_id="r" * 255, metadata=metadata)
    assert len(request.to_body()["metadata"]) == 50


def test_full_create_with_deprecated_customer_fields_round_trips() -> None:
    data = {
        "amount": 1000,
        "currency": "EUR",
        "merchant_order_reference_id": "ref-1",
        "payout_type": "bank",
        "payout_method_data": {"bank_transfer": BANK_TRANSFERS[3][0]},
        "payout_token": None,
        "customer": {
            "id": "cus_1",
            "name": "Jane",
            "email": "jane@example.com",
            "phone": "5550100",
            "phone_country_code": "+49",
            "tax_registration_id": "T1",
            "document_details": {"type": "passport"},
        },
        "customer_id": "cus_1",
        "email": "jane@example.com",
        "name": "Jane",
        "phone": "5550100",
        "phone_country_code": "+49",
        "billing": {"address": {"line1": "Hauptstr. 1", "country": "DE"}},
        "confirm": False,
        "auto_fulfill": True,
        "recurring": False,
        "entity_type": "Individual",
        "priority": "regular",
        "business_country": "DE",
        "profile_id": "pro_1",
        "description": "refund of deposit",
        "return_url": "https://shop.example/back",
        "metadata": {"order": "1"},
        "session_expiry": 900,
        "payout_link": True,
        "payout_link_config": {
            "merchant_name": "Shop",
            "theme": "#123456",
            "form_layout": "tabs",
            "test_mode": True,
        },
        "browser_info": {"ip_address": "127.0.0.1"},
    }
    body = PayoutCreateRequest.model_validate(data).to_body()
    assert body == {k: v for k, v in data.items() if v is not None}


def test_update_cannot_change_payout_link_but_takes_the_rest() -> None:
    errors = errors_of({"payout_link": False}, PayoutUpdateRequest)
    assert [tuple(e["loc"]) for e in errors] == [("payout_link",)]
    assert "only be set when the payout is created" in errors[0]["msg"]
    update = PayoutUpdateRequest.model_validate(
        {"payout_type": "wallet", "payout_method_data": {"wallet": WALLETS[3][0]}}
    )
    assert update.to_body() == {
        "payout_type": "wallet",
        "payout_method_data": {"wallet": WALLETS[3][0]},
    }


def test_list_request() -> None:
    body = PayoutListRequest.model_validate(
        {
            "status": "success",
            "currency": "usd",
            "payout_method": "bank",
            "entity_type": "company",
            "time_range": {
                "start_time": "2024-05-01T00:00:00Z",
                "end_time": "2024-05-31T00:00:00Z",
            },
        }
    ).to_body()
    assert (
        body["status"] == ["success"]
        and body["currency"] == ["USD"]
        and body["entity_type"] == "Company"
    )
    errors = errors_of(
        {"time_range": {"start_time": "2024-05-31T00:00:00Z", "end_time": "2024-05-01T00:00:00Z"}},
        PayoutListRequest,
    )
    assert tuple(errors[0]["loc"]) == ("time_range", "end_time")
    errors = errors_of({"status": ["paid"]}, PayoutListRequest)
    assert tuple(errors[0]["loc"]) == ("status", 0) and "not a payout status" in errors[0]["msg"]


PAYOUT = {
    "payout_id": "payout_Zx12Cv34Bn56Mq78Wl90",
    "merchant_id": "merchant_1",
    "merchant_order_reference_id": None,
    "amount": 1000,
    "currency": "USD",
    "payout_type": "bank",
    "payout_method_data": {
        "bank_transfer": {"bank_account_number": "****6789", "bank_routing_number": "110000000"}
    },
    "billing": None,
    "auto_fulfill": True,
    "customer_id": "cus_1",
    "customer": {
        "id": "cus_1",
        "name": "Jane",
        "email": "jane@example.com",
        "phone": None,
        "phone_country_code": None,
    },
    "client_secret": "payout_secret_abc",
    "return_url": None,
    "business_country": "US",
    "description": None,
    "entity_type": "Individual",
    "recurring": False,
    "metadata": {},
    "status": "requires_fulfillment",
    "error_message": None,
    "error_code": None,
    "profile_id": "pro_1",
    "created": "2024-05-01T10:00:00Z",
    "connector_transaction_id": None,
    "priority": None,
    "attempts": [{"attempt_id": "payout_1_1", "status": "requires_fulfillment"}],
    "payout_link": None,
    "unified_code": None,
    "unified_message": None,
    "payout_method_id": None,
    "connector": "sandbox",
    "business_label": "default",  # the real service's, not read by payscope
}


def test_payout_object_parses_nulls_masked_numbers_and_unknown_fields() -> None:
    payout = Payout.model_validate(PAYOUT)
    assert payout.status_enum is PayoutStatus.REQUIRES_FULFILLMENT
    assert payout.customer is not None and payout.customer.email == "jane@example.com"
    assert payout.connector == "sandbox"
    assert payout.model_extra == {"business_label": "default"}
    assert payout.model_dump(exclude_unset=True) == PAYOUT
    assert "payout_secret_abc" not in repr(payout)
    assert PayoutListResponse.model_validate({"count": 1, "data": [PAYOUT]}).data[0].amount == 1000


def test_entity_type_of_the_real_service_is_read() -> None:
    # Never null on the real service (Individual when the payout named none).
    assert (
        Payout.model_validate({**PAYOUT, "entity_type": "Individual"}).entity_type == "Individual"
    )
    assert Payout.model_validate({**PAYOUT, "entity_type": "lowercase"}).entity_type == "lowercase"
    assert PayoutStatus("ineligible") is PayoutStatus.INELIGIBLE
