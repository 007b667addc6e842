"""What every resource namespace shares: the client it calls through, and body helpers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, ValidationError

from tui.api.errors import ResponseFormatError

if TYPE_CHECKING:
    from tui.api.client import ApiClient


M = TypeVar("M", bound=BaseModel)


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


async def call_or_none(
    client: ApiClient, method: str, path: str, result: type[M], *, body: Any = None
) -> M | None:
    """For operations whose answer the spec does not show: the answer as `result` when the
    service sends one, None when it answers with an empty body or an empty object."""
    data = await client.request(method, path, body=body)
    if data is None or data == {}:
        return None
    try:
        return result.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "the body"
        raise ResponseFormatError(method, path, f"{where}: {first['msg']}") from None
