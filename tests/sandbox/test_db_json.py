"""`payscope.sandbox.db.dumps` (orjson) writes the same text as the standard library did."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from payscope.sandbox.db import dumps

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _stdlib(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


@given(_VALUES)
def test_dumps_reads_back_as_the_same_value(value: Any) -> None:
    assert json.loads(dumps(value)) == json.loads(_stdlib(value))


def test_dumps_matches_the_standard_library_text_for_stored_objects() -> None:
    payment = {
        "payment_id": "pay_01m7yjc0fjrcj6n2b5op",
        "amount": 4200,
        "currency": "EUR",
        "metadata": {"order": "Bestellung №42 \u2013 café", "emoji": "💳", "quote": 'a "b" \\ c'},
        "billing": {"address": {"city": "Zürich", "line1": None}},
        "order_details": [{"product_name": "Tee", "quantity": 2, "amount": 1.5}],
        "confirm": True,
        "control": "tab\there\nnewline\u0001",
    }
    assert dumps(payment) == _stdlib(payment)
