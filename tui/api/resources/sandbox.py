"""`client.sandbox`."""

from __future__ import annotations

from tui.api.resources._base import Resource


class SandboxResource(Resource):
    """Placeholder until its models exist."""
