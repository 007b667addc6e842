"""The disputes resource's HTTP face: each route reads its request, asks `engine` for the
change, and answers the dispute as stored. Routes: list (GET with the filters in the query,
POST with them in the body), retrieve, the evidence (read, submit), accept, and the card
network's sandbox controls (open a dispute, decide one).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.disputes import (
    EVIDENCE_CATEGORIES,
    NETWORK_REASONS,
    OPENING_STAGES,
    DisputeEvidenceSubmit,
    DisputeListRequest,
)
from payscope.sandbox.errors import invalid, missing
from payscope.sandbox.resources._support import validate
from payscope.sandbox.resources.disputes import engine, store
from payscope.sandbox.resources.disputes.bodies import ResolveBody
from payscope.sandbox.responses import (
    json_body,
    read_object,
    respond,
    respond_list,
    schema_body,
    validate_query,
)
from payscope.sandbox.state import SandboxState, state_of

router = APIRouter(tags=["disputes"])


# -- merchant routes ---------------------------------------------------------------------------


@router.get("/disputes/list", summary="List disputes (filters in the query string), newest first")
async def list_disputes_get(request: Request) -> Response:
    """`?limit=` (default 10, max 100), `offset`, `status`, `payment_id`, `dispute_stage`."""
    return _list(state_of(request), validate_query(DisputeListRequest, request.query_params))


@router.post(
    "/disputes/list",
    summary="List disputes (filters in the body), newest first",
    openapi_extra=json_body(DisputeListRequest, required=False),
)
async def list_disputes_post(request: Request) -> Response:
    """The spec example's form: the same filters as a JSON body."""
    body = await read_object(request, '{"limit": 10, "status": "dispute_opened"}')
    return _list(state_of(request), validate(DisputeListRequest, body))


def _list(state: SandboxState, q: DisputeListRequest) -> Response:
    rows, total = store.page(state.db.conn, q)
    return respond_list(rows, total)


@router.get("/disputes/evidence/{dispute_id}", summary="The evidence submitted for a dispute")
async def get_evidence(request: Request, dispute_id: str) -> Response:
    """Grouped by category, empty categories left out, exactly the fields submitted."""
    flat, submitted_at = store.evidence(state_of(request).db.conn, dispute_id)
    grouped: dict[str, dict[str, str]] = {}
    for name, value in flat.items():
        grouped.setdefault(EVIDENCE_CATEGORIES[name], {})[name] = value
    return respond(
        {"dispute_id": dispute_id, "evidence_submitted_at": submitted_at, "evidence": grouped}
    )


@router.post(
    "/disputes/evidence",
    summary="Submit evidence: challenges an open dispute",
    openapi_extra=json_body(DisputeEvidenceSubmit),
)
async def submit_evidence(request: Request) -> Response:
    """Flat evidence fields (file fields take file ids); the dispute becomes dispute_challenged.

    Evidence may be replaced while the dispute is challenged and undecided.
    """
    raw = await read_object(request, '{"dispute_id": "dp_...", "product_description": "..."}')
    unknown = sorted(k for k in raw if k != "dispute_id" and k not in EVIDENCE_CATEGORIES)
    if unknown:
        raise invalid(
            unknown[0],
            raw[unknown[0]],
            "one of the evidence fields " + ", ".join(EVIDENCE_CATEGORIES),
        )
    body = validate(DisputeEvidenceSubmit, raw)
    return respond(engine.submit_evidence(state_of(request), body))


@router.post("/disputes/accept/{dispute_id}", summary="Accept (concede) an open dispute")
async def accept_dispute(request: Request, dispute_id: str) -> Response:
    """dispute_opened -> dispute_accepted: the merchant does not contest it."""
    return respond(engine.change(state_of(request), dispute_id, "dispute_accepted"))


@router.get("/disputes/{dispute_id}", summary="Retrieve a dispute")
async def retrieve_dispute(request: Request, dispute_id: str) -> Response:
    """The dispute record, or 404 IR_05."""
    return respond(store.load(state_of(request).db.conn, dispute_id))


# -- the network's controls --------------------------------------------------------------------


@router.post(
    "/_sandbox/disputes",
    summary="The card network opens a dispute",
    tags=["sandbox controls"],
    openapi_extra=schema_body(
        {
            "type": "object",
            "properties": {
                "payment_id": {"type": "string"},
                "amount": {"type": "integer", "description": "default: the amount received"},
                "reason": {
                    "type": "string",
                    "enum": list(NETWORK_REASONS),
                    "default": "fraudulent",
                },
                "stage": {"type": "string", "enum": list(OPENING_STAGES), "default": "dispute"},
            },
            "required": ["payment_id"],
        }
    ),
)
async def network_opens(request: Request) -> Response:
    """Body `{payment_id, amount?, reason, stage}`; amount defaults to the amount received."""
    body = await read_object(
        request, '{"payment_id": "pay_...", "reason": "fraudulent", "stage": "dispute"}'
    )
    payment_id = body.get("payment_id")
    if not payment_id:
        raise missing("payment_id", "Name the payment the cardholder disputes.")
    if not isinstance(payment_id, str):
        raise invalid("payment_id", payment_id, "a payment id string")
    reason = body.get("reason", "fraudulent")
    if not isinstance(reason, str) or reason not in NETWORK_REASONS:
        raise invalid("reason", reason, ", ".join(NETWORK_REASONS))
    stage = body.get("stage", "dispute")
    if not isinstance(stage, str) or stage not in OPENING_STAGES:
        raise invalid("stage", stage, ", ".join(OPENING_STAGES))
    amount = body.get("amount")
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int)):
        raise invalid("amount", amount, "an integer amount in the lowest currency unit")
    data = engine.network_opens(
        state_of(request), payment_id, amount=amount, reason=reason, stage=stage
    )
    return respond(data)


@router.post(
    "/_sandbox/disputes/{dispute_id}/resolve",
    summary="The card network decides a dispute (won or lost)",
    tags=["sandbox controls"],
    openapi_extra=schema_body(
        {
            "type": "object",
            "properties": {"outcome": {"type": "string", "enum": ["won", "lost"]}},
            "required": ["outcome"],
        }
    ),
)
async def network_resolves(request: Request, dispute_id: str) -> Response:
    """Body `{outcome: won | lost}`."""
    body = validate(ResolveBody, await read_object(request, '{"outcome": "won"}'))
    return respond(engine.change(state_of(request), dispute_id, f"dispute_{body.outcome}"))
