"""What every resource namespace shares: the client it calls through, and body helpers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

if TYPE_CHECKING:
    from payscope.api.client import ApiClient


class _HasBody(Protocol):
    def to_body(self) -> dict[str, Any]: ...


def body_of(request: _HasBody | Mapping[str, Any] | None) -> dict[str, Any]:
    """The JSON body of a request model (or a plain mapping, passed as is)."""
    if request is None:
        return {}
    if isinstance(request, Mapping):
        return dict(request)
    return request.to_body()


def seg(value: str) -> str:
    """An id made safe to use as one path segment (a `/` in an id cannot change the route)."""
    return quote(value, safe="")


class Resource:
    """One area of the API (`client.payments`, `client.refunds`...)."""

    def __init__(self, client: ApiClient) -> None:
        self._client = client
