"""`client.payment_links`."""

from __future__ import annotations

from tui.api.resources._base import Resource


class PaymentLinksResource(Resource):
    """Placeholder until its models exist."""
