"""`client.disputes`: list, retrieve, accept, submit_evidence, evidence."""

from __future__ import annotations

from payscope.api.models.disputes import (
    Dispute,
    DisputeEvidence,
    DisputeEvidenceSubmit,
    DisputeListRequest,
    DisputeListResponse,
)
from payscope.api.resources._base import Resource, body_of, seg


class DisputesResource(Resource):
    """Disputes raised by the card network, and the merchant's evidence."""

    async def list(self, request: DisputeListRequest | None = None) -> DisputeListResponse:
        """GET /disputes/list with the filters as query parameters."""
        params = body_of(request or DisputeListRequest())
        return await self._client.call("GET", "/disputes/list", DisputeListResponse, params=params)

    async def retrieve(self, dispute_id: str) -> Dispute:
        """GET /disputes/{dispute_id}."""
        return await self._client.call("GET", f"/disputes/{seg(dispute_id)}", Dispute)

    async def accept(self, dispute_id: str) -> Dispute:
        """POST /disputes/accept/{dispute_id}: concede the dispute."""
        return await self._client.call("POST", f"/disputes/accept/{seg(dispute_id)}", Dispute)

    async def submit_evidence(self, request: DisputeEvidenceSubmit) -> Dispute:
        """POST /disputes/evidence: challenge an open dispute; returns the dispute (now
        `dispute_challenged`). Read the stored evidence back with `evidence()`."""
        return await self._client.call("POST", "/disputes/evidence", Dispute, body=body_of(request))

    async def evidence(self, dispute_id: str) -> DisputeEvidence:
        """GET /disputes/evidence/{dispute_id}: what was submitted, grouped by category."""
        return await self._client.call(
            "GET", f"/disputes/evidence/{seg(dispute_id)}", DisputeEvidence
        )
