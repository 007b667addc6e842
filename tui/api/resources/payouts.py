"""`client.payouts`."""

from __future__ import annotations

from tui.api.resources._base import Resource


class PayoutsResource(Resource):
    """Placeholder until its models exist."""
