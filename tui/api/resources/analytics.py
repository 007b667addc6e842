"""`client.analytics`."""

from __future__ import annotations

from tui.api.resources._base import Resource


class AnalyticsResource(Resource):
    """Placeholder until its models exist."""
