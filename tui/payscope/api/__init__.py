"""The API contract (pydantic models) and the shared async client.

`from payscope.api import ApiClient` works, but importing `payscope.api` alone stays cheap: the
client
(and httpx behind it) is only loaded when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from payscope.api.client import ApiClient as ApiClient
    from payscope.api.errors import ApiError as ApiError

__all__ = ["ApiClient", "ApiError"]


def __getattr__(name: str) -> Any:
    if name == "ApiClient":
        from payscope.api.client import ApiClient

        return ApiClient
    if name == "ApiError":
        from payscope.api.errors import ApiError

        return ApiError
    raise AttributeError(name)
