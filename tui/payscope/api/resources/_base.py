"""What every resource namespace shares: the client it calls through, and body helpers.

A resource types its client as `Caller`, the few calls and settings it uses, never as
`ApiClient`: the client builds the resources, so the resources do not import the client.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

from payscope.api.retry import Replay

M = TypeVar("M", bound=BaseModel)


class Caller(Protocol):
    """What a resource asks of the client (`payscope.api.client.ApiClient` is one)."""

    profile_id: str | None
    contract_setting: str

    @property
    def contract(self) -> str: ...

    async def probe_contract(self) -> str | None: ...

    def require_profile_id(self, operation: str) -> str: ...

    def require_merchant_id(self, operation: str) -> str: ...

    async def call(
        self,
        method: str,
        path: str,
        result: type[M],
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        replay: Replay | None = None,
        resolve_duplicate: str | None = None,
        duplicate_statuses: frozenset[int] = frozenset(),
    ) -> M: ...

    async def call_list(
        self,
        method: str,
        path: str,
        item: type[M],
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        replay: Replay | None = None,
    ) -> list[M]: ...

    async def call_json(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        replay: Replay | None = None,
    ) -> dict[str, Any]: ...

    async def call_or_none(
        self, method: str, path: str, result: type[M], *, body: Any = None
    ) -> M | None: ...

    async def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        replay: Replay | None = None,
        resolve_duplicate: str | None = None,
        duplicate_statuses: frozenset[int] = frozenset(),
    ) -> Any: ...

    async def validated(self, target: Any, data: Any, method: str, path: str) -> Any: ...


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

    def __init__(self, client: Caller) -> None:
        self._client = client
