"""`tests/real_shapes.py` builds objects from a copy of the real service's schemas: the copy must
be the document's (less its prose), with every schema the response types refer to."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.real_shapes import COPY, DOC, ROOTS, example, lost, required, stripped


def test_the_copy_is_the_documents() -> None:
    if not DOC.exists():
        pytest.skip(f"{DOC} is not here (a clone without ../shared): the copy is used as is")
    document = json.loads(DOC.read_text(encoding="utf-8"))["components"]["schemas"]
    copy = json.loads(COPY.read_text(encoding="utf-8"))
    needed: set[str] = set()
    todo = list(ROOTS)
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo += re.findall(r"#/components/schemas/([\w.-]+)", json.dumps(document[name]))
    assert set(copy) == needed
    for name in needed:
        assert copy[name] == stripped(document[name]), name


@pytest.mark.parametrize("name", ROOTS)
def test_every_example_has_every_required_field(name: str) -> None:
    built = example(name)
    assert required(name) <= set(built)
    assert all(value is not None for key, value in built.items() if key in required(name))


def _models() -> dict[str, type[Any]]:
    from payscope.api.models.customers import Customer
    from payscope.api.models.disputes import Dispute
    from payscope.api.models.payments import Payment, PaymentListResponse
    from payscope.api.models.payouts import Payout, PayoutListResponse
    from payscope.api.models.refunds import Refund, RefundListResponse
    from payscope.api.models.subscriptions import Plan, Subscription, SubscriptionEstimate

    return {
        "PaymentsResponse": Payment,
        "PaymentListResponse": PaymentListResponse,
        "RefundResponse": Refund,
        "RefundListResponse": RefundListResponse,
        "DisputeResponse": Dispute,
        "CustomerResponse": Customer,
        "PayoutCreateResponse": Payout,
        "PayoutListResponse": PayoutListResponse,
        "SubscriptionResponse": Subscription,
        "GetSubscriptionItemsResponse": Plan,
        "EstimateSubscriptionResponse": SubscriptionEstimate,
    }


# Values the schema leaves as any string, where a model reads a number (the real service sends
# a number there: a dispute's amount is a string of digits).
NUMERIC_STRINGS = {"amount": "6540"}


def _realistic(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: NUMERIC_STRINGS[k] if k in NUMERIC_STRINGS and v == "sample" else _realistic(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_realistic(v) for v in node]
    return node


@pytest.mark.parametrize("name", ROOTS)
def test_every_response_model_keeps_every_field_of_the_real_object(name: str) -> None:
    """Built with every property of the real schema; the model keeps each, with its value,
    and reads every required one (a model that drops a field fails here)."""
    model = _models()[name]
    assert set(_models()) == set(ROOTS)
    served = _realistic(example(name))
    record = model.model_validate(served)
    assert lost(served, record.model_dump(mode="json")) == []
