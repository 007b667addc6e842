"""The code catalogue: every code of the spec, its family and retry advice, and explain()."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payscope.api.codes import (
    ALL_UNIFIED_CODES,
    CATALOGUE,
    ERROR_ENVELOPE_CODES,
    CodeInfo,
    explain,
    family_of,
)

# every unified code the spec lists, written out independently of the catalogue
SPEC_UNIFIED = (
    [f"UE_{n}" for n in range(1001, 1019)]
    + ["UE_1099"]
    + [f"UE_{n}" for n in range(2001, 2005)]
    + [f"UE_{n}" for n in range(3001, 3004)]
    + [f"UE_{n}" for n in range(4001, 4005)]
    + [f"UE_{n}" for n in range(5001, 5022)]
    + ["UE_9000", "UE_1000", "UE_2000", "UE_3000", "UE_4000"]
)
SPEC_ENVELOPE = [
    "AU_01",
    "AU_02",
    "IR_01",
    "IR_04",
    "IR_05",
    "PE_01",
    "PE_02",
    "PE_03",
    "CE_01",
    "RL_01",
    "HE_00",
    "HE_01",
]


def test_every_unified_code_of_the_spec_is_present_and_nothing_else() -> None:
    assert sorted(ALL_UNIFIED_CODES) == sorted(SPEC_UNIFIED)
    assert len(set(ALL_UNIFIED_CODES)) == len(ALL_UNIFIED_CODES)


def test_every_envelope_code_and_manual_review_rejected_present() -> None:
    assert sorted(ERROR_ENVELOPE_CODES) == sorted([*SPEC_ENVELOPE, "manual_review_rejected"])


@pytest.mark.parametrize("code", SPEC_UNIFIED)
def test_unified_family_matches_the_first_digit(code: str) -> None:
    info = explain(code)
    digit = code[3]
    assert info.code == code
    assert info.family == ("UE_9xxx" if digit == "9" else f"UE_{digit}xxx")
    assert info.title and info.meaning and info.advice


@pytest.mark.parametrize(
    ("code", "retryable"),
    [(c, False) for c in SPEC_UNIFIED if c.startswith("UE_1") and c != "UE_1018"]
    + [("UE_1018", None)]
    + [(c, False) for c in SPEC_UNIFIED if c.startswith("UE_2") and c not in ("UE_2002", "UE_2000")]
    + [("UE_2002", True)]
    + [(c, True) for c in SPEC_UNIFIED if c.startswith("UE_3")]
    + [(c, False) for c in SPEC_UNIFIED if c.startswith("UE_4")]
    + [(c, None) for c in SPEC_UNIFIED if c.startswith("UE_5") and c != "UE_5003"]
    + [("UE_5003", True), ("UE_9000", False)],
)
def test_retry_rule_per_the_spec(code: str, retryable: bool | None) -> None:
    assert explain(code).retryable is retryable


def test_specific_advice() -> None:
    assert "status" in explain("UE_1018").advice and "refund" in explain("UE_1018").advice
    assert "3-D Secure" in explain("UE_2002").advice and "same payment" in explain("UE_2002").advice
    assert "backoff" in explain("UE_3002").advice
    assert "another card" in explain("UE_1001").advice
    assert "fixed" in explain("UE_4001").advice
    assert "retr" in explain("UE_5003").advice.lower()
    assert "Terminal" in explain("UE_9000").advice
    assert "GET /payments/" in explain("HE_01").advice
    assert "X-RateLimit-Reset" in explain("RL_01").advice
    assert "unified_message" in explain("UE_2000").meaning


@pytest.mark.parametrize(
    ("code", "family", "retryable"),
    [
        ("AU_01", "authentication_error", False),
        ("AU_02", "authentication_error", False),
        ("IR_01", "invalid_request", False),
        ("IR_04", "invalid_request", False),
        ("IR_05", "invalid_request", False),
        ("PE_01", "processing_error", False),
        ("PE_02", "processing_error", False),
        ("PE_03", "invalid_request", False),
        ("CE_01", "connector_error", True),
        ("RL_01", "rate_limit_error", True),
        ("HE_00", "api_error", None),
        ("HE_01", "api_error", False),
        ("manual_review_rejected", "manual_review", False),
    ],
)
def test_envelope_codes(code: str, family: str, retryable: bool | None) -> None:
    info = explain(code)
    assert (info.code, info.family, info.retryable) == (code, family, retryable)


@pytest.mark.parametrize("spelling", ["ue_1001", " UE_1001 ", "Ue_1001"])
def test_any_case_and_whitespace(spelling: str) -> None:
    assert explain(spelling) is CATALOGUE["UE_1001"]
    assert explain("MANUAL_REVIEW_REJECTED").code == "manual_review_rejected"


@pytest.mark.parametrize(
    ("code", "family", "retryable"),
    [
        ("UE_1234", "UE_1xxx", False),
        ("ue_3999", "UE_3xxx", True),
        ("UE_5500", "UE_5xxx", None),
        ("UE_9100", "UE_9xxx", False),
        ("IR_99", "invalid_request", False),
    ],
)
def test_unknown_code_of_a_known_family_is_explained_by_the_family(
    code: str, family: str, retryable: bool | None
) -> None:
    info = explain(code)
    assert info.family == family and info.retryable is retryable
    assert "not in the catalogue" in info.meaning and code.upper() in info.meaning


@pytest.mark.parametrize("value", [None, "", "   "])
def test_no_code(value: str | None) -> None:
    info = explain(value)
    assert info.family == "none" and info.retryable is None and info.advice


@pytest.mark.parametrize("value", ["card_declined", "UE_7001", "UE_12345", "x" * 500, "💳"])
def test_garbage_gets_a_not_in_catalogue_explanation(value: str) -> None:
    info = explain(value)
    assert info.family == "unknown" and info.retryable is None
    assert "not in the catalogue" in info.meaning
    assert len(info.meaning) < 200


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(st.none(), st.text(), st.integers(), st.binary()))
def test_explain_never_raises(value: Any) -> None:
    assert isinstance(explain(value), CodeInfo)


def test_code_info_is_frozen_and_family_of() -> None:
    info = explain("UE_1001")
    with pytest.raises(AttributeError):
        info.retryable = True  # type: ignore[misc]
    assert (
        family_of("UE_2003") == "UE_2xxx"
        and family_of("nonsense") is None
        and family_of(None) is None
    )
