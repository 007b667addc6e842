"""The local sandbox's answers against the real service's published response schemas.

A fixed, realistic set of calls runs through every core operation (customers; payments in each
flow: one step, two steps, manual capture, cancel, 3-D Secure, a decline; refunds, at once and
pending; disputes; payouts to a card and to a bank account; payment links) against a real
sandbox over HTTP. Each answer is validated (JSON Schema, `jsonschema_rs`, from the lock) against
the response schema the real OpenAPI document (`real-service-openapi-v1.json`) gives its
operation and status, except where the spec is explicit and differs: `DIFFERENCES`, each with the
spec's words, turns the sandbox's answer into the real shape (or relaxes the one schema) before it
is validated. Calls to the sandbox's own controls (`/_sandbox/...`) and to routes the real service
does not have are made (they are part of the flows) but not validated.

The operations' schemas and everything they refer to are read from a copy,
`tests/data/real_service_responses.json` (without their prose), so a clone without `../shared`
runs this too; `test_the_copy_is_the_documents` checks the copy against the document when it is
there (as tests/api/test_real_shapes.py does).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest

from tests.real_shapes import DOC, stripped
from tests.sandbox.conftest import BILLING, card

COPY = Path(__file__).resolve().parents[1] / "data" / "real_service_responses.json"
# The core operations of the real document this test calls (method, path template).
OPERATIONS = (
    ("POST", "/customers"),
    ("GET", "/customers/{customer_id}"),
    ("POST", "/customers/{customer_id}"),
    ("DELETE", "/customers/{customer_id}"),
    ("GET", "/customers/list"),
    ("POST", "/payments"),
    ("POST", "/payments/{payment_id}"),
    ("GET", "/payments/{payment_id}"),
    ("POST", "/payments/{payment_id}/confirm"),
    ("POST", "/payments/{payment_id}/capture"),
    ("POST", "/payments/{payment_id}/cancel"),
    ("GET", "/payments/list"),
    ("POST", "/refunds"),
    ("GET", "/refunds/{refund_id}"),
    ("POST", "/refunds/{refund_id}"),
    ("POST", "/refunds/list"),
    ("GET", "/disputes/{dispute_id}"),
    ("GET", "/disputes/list"),
    ("POST", "/payouts/create"),
    ("GET", "/payouts/{payout_id}"),
    ("POST", "/payouts/{payout_id}"),
    ("POST", "/payouts/{payout_id}/confirm"),
    ("POST", "/payouts/{payout_id}/fulfill"),
    ("POST", "/payouts/{payout_id}/cancel"),
    ("GET", "/payouts/list"),
    ("POST", "/payouts/list"),
    ("GET", "/payment_link/{payment_link_id}"),
)
SCHEMA_REF = re.compile(r"#/components/schemas/([\w.-]+)")


# -- the copy of the document ---------------------------------------------------------------


def build_copy(document: dict[str, Any]) -> dict[str, Any]:
    """The response schema of each operation in `OPERATIONS`, by status, and every component
    schema they refer to, without prose."""
    operations: dict[str, dict[str, Any]] = {}
    for method, path in OPERATIONS:
        responses = document["paths"][path][method.lower()]["responses"]
        operations[f"{method} {path}"] = {
            status: next(iter(answer["content"].values()))["schema"]
            for status, answer in responses.items()
            if answer.get("content")
        }
    schemas = document["components"]["schemas"]
    needed: set[str] = set()
    todo = SCHEMA_REF.findall(json.dumps(operations))
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo += SCHEMA_REF.findall(json.dumps(schemas[name]))
    return {
        "operations": stripped(operations),
        "schemas": {name: stripped(schemas[name]) for name in sorted(needed)},
    }


@cache
def _copy() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(COPY.read_text(encoding="utf-8"))
    return found


def test_the_copy_is_the_documents() -> None:
    if not DOC.exists():
        pytest.skip(f"{DOC} is not here (a clone without ../shared): the copy is used as is")
    assert _copy() == build_copy(json.loads(DOC.read_text(encoding="utf-8")))


# -- OpenAPI 3.0 schemas as JSON Schema -----------------------------------------------------


def json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema (2020-12): `nullable: true` also allows null; refs
    point into `$defs`."""
    if isinstance(node, list):
        return [json_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: (v.replace("#/components/schemas/", "#/$defs/") if k == "$ref" else json_schema(v))
        for k, v in node.items()
        if k not in ("nullable", "example", "deprecated", "discriminator")
    }
    if node.get("nullable") is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def nullable_properties(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every property allowed to be null (still present when required)."""
    relaxed = copy.deepcopy(schema)
    relaxed["properties"] = {
        name: {"anyOf": [prop, {"type": "null"}]} for name, prop in schema["properties"].items()
    }
    return relaxed


@cache
def _validator(operation: str, status: str) -> Any:
    """The validator of an operation's answer for a status, with the differences' patches."""
    found = _copy()["operations"][operation].get(status) or UNDOCUMENTED.get((operation, status))
    assert found is not None, f"the real document gives {operation} no schema for {status}"
    defs = {name: json_schema(schema) for name, schema in _copy()["schemas"].items()}
    for difference in (*DIFFERENCES, *ERRATA):
        if difference.patch is not None:
            difference.patch(defs)
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", **json_schema(found)}
    root["$defs"] = defs
    return jsonschema_rs.Draft202012Validator(root, validate_formats=True)


def problems(operation: str, status: int, answer: Any) -> list[str]:
    """Where `answer` breaks the real schema of `operation` for `status` (empty: it fits)."""
    validator = _validator(operation, str(status))
    return [
        f"{error.instance_path}: {error.message}"[:300] for error in validator.iter_errors(answer)
    ]


# -- the spec-explicit differences --------------------------------------------------------------

SPEC_ERROR = {
    "type": "object",
    "required": ["error"],
    "additionalProperties": False,
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "code", "message"],
            "additionalProperties": False,
            "properties": {n: {"type": "string"} for n in ("type", "code", "message")},
        }
    },
}
PAYMENT_ANSWERS = re.compile(r"^(POST|GET) /payments(/\{payment_id\}(/\w+)?)?$")
PAYOUT_ANSWERS = re.compile(r"^(POST|GET) /payouts/")
DISPUTE_ANSWERS = re.compile(r"^GET /disputes/")
# Real lists that are bare arrays (the spec: `{count, total_count, data[]}` everywhere).
BARE_LISTS = ("GET /customers/list", "GET /disputes/list")


@dataclass(frozen=True)
class Difference:
    """Where the local sandbox answers otherwise than the real schema, and why that is right:
    which answers it touches, and how such an answer becomes the real shape (`convert`) or how
    the real schema is relaxed (`patch`, for every answer: only the fields named)."""

    name: str
    reason: str
    touches: Callable[[str, int, Any], bool]
    convert: Callable[[str, Any], Any] | None = None
    patch: Callable[[dict[str, Any]], None] | None = None


def _payments_in(operation: str, answer: Any) -> Iterator[dict[str, Any]]:
    if not PAYMENT_ANSWERS.match(operation) or not isinstance(answer, dict):
        return
    yield from answer.get("data", [answer])


def _payouts_in(operation: str, answer: Any) -> Iterator[dict[str, Any]]:
    if not PAYOUT_ANSWERS.match(operation) or not isinstance(answer, dict):
        return
    yield from answer.get("data", [answer])


def _disputes_in(operation: str, answer: Any) -> Iterator[dict[str, Any]]:
    if DISPUTE_ANSWERS.match(operation) and isinstance(answer, dict):
        yield from answer.get("data", [answer])
    for payment in _payments_in(operation, answer):
        yield from payment.get("disputes") or []


def _each(
    found: Callable[[str, Any], Iterator[dict[str, Any]]],
    change: Callable[[dict[str, Any]], None],
) -> Callable[[str, Any], Any]:
    def convert(operation: str, answer: Any) -> Any:
        for obj in found(operation, answer):
            change(obj)
        return answer

    return convert


def _any(
    found: Callable[[str, Any], Iterator[dict[str, Any]]], test: Callable[[dict[str, Any]], bool]
) -> Callable[[str, int, Any], bool]:
    return lambda op, status, answer: any(test(obj) for obj in found(op, answer))


def _real_list(operation: str, answer: Any) -> Any:
    if operation in BARE_LISTS:
        return answer["data"]
    if operation == "GET /payments/list":  # the document: an array of {size, data}
        return [{"size": answer["count"], "data": answer["data"]}]
    return answer


def _bank(payout: dict[str, Any]) -> None:
    method = payout.get("payout_method_data") or {}
    if "bank_transfer" in method:
        payout["payout_method_data"] = {"bank": method["bank_transfer"]}


def _requires_customer_action(payment: dict[str, Any]) -> None:
    if payment.get("status") == "requires_action":
        payment["status"] = "requires_customer_action"


PAYMENT_SCHEMAS = ("PaymentsResponse", "PaymentsCreateResponseOpenApi")


def _nullable(defs: dict[str, Any], schemas: tuple[str, ...], name: str) -> None:
    for schema in schemas:
        prop = defs[schema]["properties"][name]
        defs[schema]["properties"][name] = {"anyOf": [prop, {"type": "null"}]}


def _unbounded_ids(defs: dict[str, Any]) -> None:
    for schema, name in (*((s, "payment_id") for s in PAYMENT_SCHEMAS),
                         ("PayoutCreateResponse", "payout_id")):  # fmt: skip
        prop = defs[schema]["properties"][name]
        prop.pop("minLength", None), prop.pop("maxLength", None)


def _capturable_zero(defs: dict[str, Any]) -> None:
    for schema in PAYMENT_SCHEMAS:
        defs[schema]["properties"]["amount_capturable"].pop("minimum", None)


def _nullable_payout(defs: dict[str, Any]) -> None:
    defs["PayoutCreateResponse"] = nullable_properties(defs["PayoutCreateResponse"])


def _any_bank(defs: dict[str, Any]) -> None:
    defs["BankAdditionalData"] = {"anyOf": defs["BankAdditionalData"]["oneOf"]}


# The spec is explicit and differs: the sandbox keeps the spec (the TUI reads both shapes).
# Per-object conversions come before "list shape", which takes the objects out of `data`.
DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        "error envelope",
        "An API rejection returns a JSON object `{error: {type, code, message}}`.",
        lambda op, status, answer: status >= 400,
    ),
    Difference(
        "3-D Secure status",
        "Payment statuses: ... `requires_action` (3DS needed) (the real IntentStatus names it "
        "`requires_customer_action`).",
        _any(_payments_in, lambda p: p.get("status") == "requires_action"),
        convert=_each(_payments_in, _requires_customer_action),
    ),
    Difference(
        "dispute amount",
        "Dispute list item fields: `dispute_id`, `payment_id`, `amount` (integer), ... (the real "
        "amount is a string of minor units).",
        _any(_disputes_in, lambda d: isinstance(d.get("amount"), int)),
        convert=_each(_disputes_in, lambda d: d.update(amount=str(d["amount"]))),
    ),
    Difference(
        "payout bank data",
        "payout_method_data: exactly one key of `card`, `bank_transfer`, `wallet`, "
        "`bank_redirect`, `passthrough` (the real answer names a bank account `bank`).",
        _any(_payouts_in, lambda p: "bank_transfer" in (p.get("payout_method_data") or {})),
        convert=_each(_payouts_in, _bank),
    ),
    Difference(
        "payout description",
        "Payout response fields: ..., `description`, ... (the real PayoutCreateResponse has no "
        "`description` and takes no other field).",
        _any(_payouts_in, lambda p: "description" in p),
        convert=_each(_payouts_in, lambda p: p.pop("description", None)),
    ),
    Difference(
        "ids",
        "payment_id: merchant-supplied, 1 to 64 characters; generated ids are a prefix and 20 "
        "random characters (reference-behaviour.md) (the real schema bounds payment_id and "
        "payout_id to exactly 30).",
        lambda op, status, answer: (
            any(len(p["payment_id"]) != 30 for p in _payments_in(op, answer))
            or any(len(p["payout_id"]) != 30 for p in _payouts_in(op, answer))
        ),
        patch=_unbounded_ids,
    ),
    Difference(
        "amount capturable",
        "amount_capturable: 0 after a full capture (the real schema's minimum is 100; its own "
        "description says 0 once captured, too).",
        _any(_payments_in, lambda p: p.get("amount_capturable") == 0),
        patch=_capturable_zero,
    ),
    Difference(
        "payment without a method",
        "payment_method: conditional, required when confirming in the same request: a payment "
        "created unconfirmed has none yet, null (the real schema requires a value).",
        _any(_payments_in, lambda p: p.get("payment_method") is None),
        patch=lambda defs: _nullable(defs, PAYMENT_SCHEMAS, "payment_method"),
    ),
    Difference(
        "nulls on a payout",
        "Payout response fields: ... Fields without a value are returned as null (the real "
        "schema requires return_url and business_country, never null).",
        _any(_payouts_in, lambda p: p.get("return_url") is None or p["business_country"] is None),
        patch=_nullable_payout,
    ),
    Difference(
        "list shape",
        "List responses use `{count?, total_count, data[], has_more?}` (the real customers and "
        "disputes lists are bare arrays, the payments list `{size, data}`).",
        lambda op, status, answer: op in (*BARE_LISTS, "GET /payments/list") and status == 200,
        convert=_real_list,
    ),
)
# Answers the document gives no schema for, and the schema the real service answers with.
UNDOCUMENTED = {
    ("POST /payments/{payment_id}/cancel", "200"): {"$ref": "#/components/schemas/PaymentsResponse"}
}
# The document contradicts itself or leaves a gap: no answer could meet it as written.
ERRATA: tuple[Difference, ...] = (
    Difference(
        "cancel answer",
        "The document gives a cancel's 200 no schema (the spec shows none either): read as "
        "PaymentsResponse, what every other payment route answers with the payment.",
        lambda op, status, answer: (op, str(status)) in UNDOCUMENTED,
    ),
    Difference(
        "bank account oneOf",
        "BankAdditionalData is oneOf ACH, BACS, SEPA, Pix, and Pix requires no field: every "
        "bank account matches Pix and its own variant, so oneOf fails for all; read as anyOf.",
        # (after "payout bank data" made `bank_transfer` the real `bank`)
        _any(_payouts_in, lambda p: "bank" in (p.get("payout_method_data") or {})),
        patch=_any_bank,
    ),
)


# -- the calls ------------------------------------------------------------------------------


@dataclass
class Answer:
    operation: str
    status: int
    body: Any


@dataclass
class Run:
    """The calls made, in order, and their answers (validated afterwards)."""

    http: httpx.AsyncClient
    answers: list[Answer] = field(default_factory=list)

    async def call(
        self, method: str, template: str, json_body: Any = None, expect: int = 200, **ids: str
    ) -> Any:
        path = template.format(**ids)
        response = await self.http.request(method, path, json=json_body)
        assert response.status_code == expect, (method, path, response.text[:500])
        body = response.json()
        operation = f"{method} {template}"
        if (method, template) in OPERATIONS:
            self.answers.append(Answer(operation, response.status_code, copy.deepcopy(body)))
        return body

    async def control(self, method: str, path: str, json_body: Any = None) -> Any:
        """A sandbox control (the card network, the customer's challenge, the clock)."""
        response = await self.http.request(method, path, json=json_body)
        assert response.status_code == 200, (method, path, response.text[:500])
        return response.json()


def _card(number: str = "4242424242424242") -> dict[str, Any]:
    return {"payment_method": "card", "payment_method_data": {"card": card(number)}}


async def realistic_calls(run: Run) -> None:
    """The fixed set of calls: every core operation, each flow once."""
    c = run.call
    # Customers
    # (a country code of 2 characters at most: the real CustomerDetailsResponse's bound)
    ada = await c("POST", "/customers", {"name": "Ada Lovelace", "email": "ada@example.com",
                                         "phone": "5550100", "phone_country_code": "+1",
                                         "description": "conformance",
                                         "address": BILLING["address"],
                                         "metadata": {"crm": "42"}})  # fmt: skip
    cus = ada["customer_id"]
    await c("GET", "/customers/{customer_id}", customer_id=cus)
    await c("POST", "/customers/{customer_id}", {"phone": "5550199"}, customer_id=cus)
    temp = await c("POST", "/customers", {"name": "Temporary"})
    await c("GET", "/customers/list")
    await c("DELETE", "/customers/{customer_id}", customer_id=temp["customer_id"])

    # Payments: one step, with a customer
    paid = await c("POST", "/payments", {"amount": 6540, "currency": "USD", "confirm": True,
                                         "customer_id": cus, "description": "one step",
                                         "return_url": "https://example.com/return",
                                         "billing": BILLING, **_card()})  # fmt: skip
    pay = paid["payment_id"]
    # two steps: created with billing, updated, confirmed with a card alone
    draft = await c("POST", "/payments", {"amount": 1200, "currency": "EUR", "confirm": False,
                                          "billing": BILLING})  # fmt: skip
    await c("POST", "/payments/{payment_id}", {"description": "two steps"},
            payment_id=draft["payment_id"])  # fmt: skip
    await c("POST", "/payments/{payment_id}/confirm", _card(), payment_id=draft["payment_id"])
    await c("GET", "/payments/{payment_id}", payment_id=draft["payment_id"])
    # manual capture, in part
    held = await c("POST", "/payments", {"amount": 3000, "currency": "USD", "confirm": True,
                                         "capture_method": "manual", "billing": BILLING,
                                         **_card("5555555555554444")})  # fmt: skip
    await c("POST", "/payments/{payment_id}/capture", {"amount_to_capture": 2000},
            payment_id=held["payment_id"])  # fmt: skip
    # cancelled before capture
    void = await c("POST", "/payments", {"amount": 800, "currency": "USD", "confirm": True,
                                         "capture_method": "manual", "billing": BILLING,
                                         **_card()})  # fmt: skip
    await c("POST", "/payments/{payment_id}/cancel", {"cancellation_reason": "duplicate"},
            payment_id=void["payment_id"])  # fmt: skip
    # 3-D Secure: challenged, then authorised by the customer
    challenged = await c("POST", "/payments", {"amount": 100, "currency": "USD", "confirm": True,
                                               "authentication_type": "three_ds",
                                               "return_url": "https://example.com/return",
                                               "billing": BILLING,
                                               **_card("4000003800000446")})  # fmt: skip
    await run.control(
        "POST", f"/_sandbox/payments/{challenged['payment_id']}/3ds", {"result": "authorize"}
    )
    await c("GET", "/payments/{payment_id}", payment_id=challenged["payment_id"])
    # a decline: 200, failed, error_details
    await c("POST", "/payments", {"amount": 100, "currency": "USD", "confirm": True,
                                  "billing": BILLING, **_card("4000000000010019")})  # fmt: skip
    # a rejection: the error envelope
    await c("POST", "/payments", {"amount": 100, "confirm": True, "billing": BILLING, **_card()},
            expect=400)  # fmt: skip
    await c("GET", "/payments/list")

    # Refunds: settled at once; pending on the asynchronous card
    refund = await c("POST", "/refunds", {"payment_id": pay, "amount": 1000,
                                          "reason": "customer request", "refund_type": "instant",
                                          "metadata": {"ticket": "T-1"}})  # fmt: skip
    await c("POST", "/refunds/{refund_id}", {"reason": "damaged item"},
            refund_id=refund["refund_id"])  # fmt: skip
    await c("GET", "/refunds/{refund_id}", refund_id=refund["refund_id"])
    slow = await c("POST", "/payments", {"amount": 2500, "currency": "USD", "confirm": True,
                                         "billing": BILLING,
                                         **_card("4000000000007726")})  # fmt: skip
    pending = await c("POST", "/refunds", {"payment_id": slow["payment_id"]})
    assert pending["status"] == "pending"
    await c("POST", "/refunds/list", {"limit": 10})
    await c("GET", "/payments/{payment_id}", payment_id=pay)  # with its refund

    # Disputes: the network opens one, it is read and listed (and shown on its payment)
    opened = await run.control("POST", "/_sandbox/disputes", {"payment_id": pay})
    await c("GET", "/disputes/{dispute_id}", dispute_id=opened["dispute_id"])
    await c("GET", "/disputes/list")
    await c("GET", "/payments/{payment_id}", payment_id=pay)  # with its dispute

    # Payouts: to a card, confirmed, fulfilled, settled
    to_card = await c("POST", "/payouts/create", {
        "amount": 1500, "currency": "USD", "payout_type": "card", "priority": "instant",
        "payout_method_data": {"card": {"card_number": "4242424242424242", "expiry_month": "10",
                                        "expiry_year": "2035", "card_holder_name": "Ada Lovelace"}},
        "customer": {"id": cus}, "description": "seller settlement", "confirm": True,
        "return_url": "https://example.com/payouts", "business_country": "US",
    })  # fmt: skip
    await c("POST", "/payouts/{payout_id}/fulfill", payout_id=to_card["payout_id"])
    await run.control("POST", "/_sandbox/clock/advance", {"seconds": 11})
    await c("GET", "/payouts/{payout_id}", payout_id=to_card["payout_id"])
    # to a bank account: no method yet, updated with one, confirmed, then cancelled
    to_bank = await c("POST", "/payouts/create", {"amount": 900, "currency": "USD",
                                                 "payout_type": "bank"})  # fmt: skip
    ach = {"bank_account_number": "000123456789", "bank_routing_number": "110000000"}
    await c("POST", "/payouts/{payout_id}", {"payout_method_data": {"bank_transfer": ach}},
            payout_id=to_bank["payout_id"])  # fmt: skip
    await c("POST", "/payouts/{payout_id}/confirm", {}, payout_id=to_bank["payout_id"])
    await c("POST", "/payouts/{payout_id}/cancel", payout_id=to_bank["payout_id"])
    await c("GET", "/payouts/list")
    await c("POST", "/payouts/list", {"limit": 5, "currency": ["USD"]})

    # Payment links, the real service's way: a payment with payment_link: true
    linked = await c("POST", "/payments", {"amount": 4200, "currency": "EUR",
                                           "description": "workshop seat", "payment_link": True,
                                           "session_expiry": 3600})  # fmt: skip
    await c(
        "GET",
        "/payment_link/{payment_link_id}",
        payment_link_id=linked["payment_link"]["payment_link_id"],
    )


# -- the checks -----------------------------------------------------------------------------


def judged(answer: Answer) -> tuple[list[str], list[str]]:
    """(the differences applied, the problems left) for one answer."""
    body = copy.deepcopy(answer.body)
    applied = []
    for difference in (*DIFFERENCES, *ERRATA):
        if not difference.touches(answer.operation, answer.status, body):
            continue
        applied.append(difference.name)
        if difference.name == "error envelope":
            validator = jsonschema_rs.Draft202012Validator(SPEC_ERROR)
            return applied, [e.message for e in validator.iter_errors(body)]
        if difference.convert is not None:
            body = difference.convert(answer.operation, body)
    return applied, problems(answer.operation, answer.status, body)


@pytest.fixture
async def answers(live: httpx.AsyncClient) -> list[Answer]:
    run = Run(live)
    await realistic_calls(run)
    return run.answers


async def test_every_answer_fits_the_real_schema(answers: list[Answer]) -> None:
    found = {}
    for answer in answers:
        _applied, left = judged(answer)
        if left:
            found[f"{answer.operation} -> {answer.status}"] = left
    assert found == {}
    # every operation was called, and answered
    assert {a.operation for a in answers} == {f"{m} {p}" for m, p in OPERATIONS}


async def test_every_difference_is_used_and_nothing_else_is_excused(answers: list[Answer]) -> None:
    """Each listed difference applies to some answer (a stale one is taken out), and an answer
    that needed none fits the real schema as it came."""
    used = {name for answer in answers for name in judged(answer)[0]}
    assert used == {d.name for d in (*DIFFERENCES, *ERRATA)}
    plain = [a for a in answers if not judged(a)[0]]
    assert {a.operation for a in plain} == {
        "POST /customers",
        "GET /customers/{customer_id}",
        "POST /customers/{customer_id}",
        "DELETE /customers/{customer_id}",
        "POST /refunds",
        "GET /refunds/{refund_id}",
        "POST /refunds/{refund_id}",
        "POST /refunds/list",
        "GET /disputes/{dispute_id}" if False else "GET /payment_link/{payment_link_id}",
    }
    assert all(problems(a.operation, a.status, a.body) == [] for a in plain)


def test_the_check_refuses_what_the_real_schema_refuses() -> None:
    """The validator is not lenient: a payment without its id, a refund with an unknown
    status, a payout with a field the real one lacks, a decline with our old category."""
    payment = {"merchant_id": "m", "status": "succeeded", "amount": 1, "net_amount": 1,
               "amount_capturable": 0, "processor_merchant_id": "m", "currency": "USD",
               "payment_method": "card", "attempt_count": 1}  # fmt: skip
    assert problems("GET /payments/{payment_id}", 200, payment)
    assert not problems("GET /payments/{payment_id}", 200, {**payment, "payment_id": "pay_1"})
    unified = {"category": "card_declined", "message": "Declined by issuer"}
    declined = {**payment, "payment_id": "pay_1", "error_details": {"unified_details": unified}}
    assert problems("GET /payments/{payment_id}", 200, declined)
    refund = {"refund_id": "ref_1", "payment_id": "pay_1", "amount": 100, "currency": "USD",
              "status": "settled", "connector": "sandbox"}  # fmt: skip
    assert problems("GET /refunds/{refund_id}", 200, refund)
    assert not problems("GET /refunds/{refund_id}", 200, {**refund, "status": "succeeded"})
    payout = {"payout_id": "payout_" + "a" * 23, "merchant_id": "m", "amount": 1,
              "currency": "USD", "auto_fulfill": False, "customer_id": "c", "client_secret": "s",
              "return_url": "https://x", "business_country": "US", "entity_type": "Individual",
              "recurring": False, "status": "success", "profile_id": "p"}  # fmt: skip
    assert not problems("GET /payouts/{payout_id}", 200, payout)
    assert problems("GET /payouts/{payout_id}", 200, {**payout, "modified_at": "2024-01-01"})
