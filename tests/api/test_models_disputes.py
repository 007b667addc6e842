"""Disputes, both status spellings, and evidence grouped by category."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from payscope.api.models.disputes import (
    EVIDENCE_CATEGORIES,
    Dispute,
    DisputeEvidence,
    DisputeEvidenceSubmit,
    DisputeListRequest,
    DisputeListResponse,
    DisputeStatus,
    canonical_dispute_status,
)

LIST_ITEM = {
    "dispute_id": "dp_1",
    "payment_id": "pay_1",
    "amount": 6540,
    "currency": "USD",
    "status": "dispute_opened",
    "reason": "fraudulent",
    "created": "2024-05-03T10:00:00Z",
}
RECORD = {
    "dispute_id": "dp_1",
    "payment_id": "pay_1",
    "attempt_id": "pay_1_1",
    "amount": "6540",
    "currency": "USD",
    "dispute_stage": "dispute",
    "dispute_status": "dispute_won",
    "connector_reason": "Fraudulent",
    "connector_reason_code": "10.4",
    "challenge_required_by": "2024-05-10T10:00:00Z",
    "created_at": "2024-05-03T10:00:00Z",
    "profile_id": "pro_1",
    "connector": "sandbox",
}


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        ("won", DisputeStatus.WON),
        ("dispute_won", DisputeStatus.WON),
        ("LOST", DisputeStatus.LOST),
        ("challenged", DisputeStatus.CHALLENGED),
        ("dispute_opened", DisputeStatus.OPENED),
    ],
)
def test_both_status_spellings(raw: str, status: DisputeStatus) -> None:
    assert canonical_dispute_status(raw) == status.value
    assert Dispute.model_validate({**LIST_ITEM, "status": raw}).status_enum is status
    assert DisputeListRequest.model_validate({"status": raw}).status is status


def test_unknown_status_is_kept_on_read_and_refused_as_a_filter() -> None:
    dispute = Dispute.model_validate({**LIST_ITEM, "status": "dispute_in_arbitration"})
    assert dispute.status == "dispute_in_arbitration" and dispute.status_enum is None
    with pytest.raises(ValidationError) as caught:
        DisputeListRequest.model_validate({"status": "pending"})
    assert caught.value.errors()[0]["loc"] == ("status",)
    assert "'pending' is not a dispute status" in caught.value.errors()[0]["msg"]


def test_list_item_and_reference_record() -> None:
    page = DisputeListResponse.model_validate({"count": 1, "total_count": 1, "data": [LIST_ITEM]})
    assert page.data[0].amount == 6540
    record = Dispute.model_validate(RECORD)
    assert record.amount == 6540  # the reference sends it as text
    assert record.status_enum is DisputeStatus.WON
    assert record.model_extra == {"connector": "sandbox"}


def test_list_request_constraints() -> None:
    assert DisputeListRequest().to_body() == {"limit": 10, "offset": 0}
    for bad in ({"limit": 101}, {"dispute_stage": "court"}, {"payment_id": "a b"}):
        with pytest.raises(ValidationError):
            DisputeListRequest.model_validate(bad)


def test_evidence_grouped_by_category_and_empty_ones_omitted() -> None:
    submit = DisputeEvidenceSubmit(
        dispute_id="dp_1",
        customer_name="Jane Doe",
        customer_email_address="jane@example.com",
        product_description="A book",
        receipt="file_123",
        shipping_tracking_number="",
    )
    evidence = DisputeEvidence.from_submission(submit, "2024-05-04T10:00:00Z")
    assert evidence.evidence == {
        "customer_information": {
            "customer_name": "Jane Doe",
            "customer_email_address": "jane@example.com",
        },
        "product_information": {"product_description": "A book", "receipt": "file_123"},
    }
    assert evidence.flat() == {
        "customer_name": "Jane Doe",
        "customer_email_address": "jane@example.com",
        "product_description": "A book",
        "receipt": "file_123",
    }


def test_evidence_record_parses_and_drops_empty_categories() -> None:
    raw = {
        "dispute_id": "dp_1",
        "evidence_submitted_at": "2024-05-04T10:00:00Z",
        "evidence": {
            "shipping_information": {"shipping_carrier": "UPS"},
            "product_information": {},
        },
    }
    evidence = DisputeEvidence.model_validate(raw)
    assert evidence.evidence == {"shipping_information": {"shipping_carrier": "UPS"}}


def test_submit_needs_some_evidence() -> None:
    with pytest.raises(ValidationError) as caught:
        DisputeEvidenceSubmit(dispute_id="dp_1")
    assert caught.value.errors()[0]["type"] == "missing"
    assert "at least one evidence field" in caught.value.errors()[0]["msg"]


def test_every_submit_field_has_a_category() -> None:
    flat_fields = set(DisputeEvidenceSubmit.model_fields) - {"dispute_id"}
    assert flat_fields == set(EVIDENCE_CATEGORIES)
    assert {"customer_information", "product_information", "shipping_information"} <= set(
        EVIDENCE_CATEGORIES.values()
    )


def test_connector_fields_of_the_real_service() -> None:
    dispute = Dispute.model_validate(
        {
            "dispute_id": "dp_1",
            "amount": "1500",
            "dispute_status": "dispute_lost",
            "connector_status": "lost",
            "connector_dispute_id": "du_1Nx",
            "is_already_refunded": True,
        }
    )
    assert (dispute.connector_status, dispute.connector_dispute_id) == ("lost", "du_1Nx")
    assert dispute.is_already_refunded is True and dispute.amount == 1500
    assert dispute.model_extra == {}
    bare = Dispute.model_validate({"dispute_id": "dp_1"})
    assert (bare.connector_status, bare.is_already_refunded) == (None, None)
