"""`client.users`."""

from __future__ import annotations

from tui.api.resources._base import Resource


class UsersResource(Resource):
    """Placeholder until its models exist."""
