"""The server stack a start-up path needs, one loader each, returning the classes it uses typed.

The loaders import on call: FastAPI, uvicorn, httpx and pydantic models are not on the first
frame's path, and a start-up path runs each loader in a thread (`Connection.load`), so the shell
keeps painting while they load. One thread for a whole stack: its modules share most of their
dependencies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.api.resources.payments import PaymentsResource
    from payscope.api.resources.sandbox import SandboxResource
    from payscope.sandbox.server import Sandbox, SandboxConfig
    from payscope.webhooks.listener import Listener
    from payscope.webhooks.process import ListenerProcess


@dataclass(frozen=True)
class EmbeddedStack:
    """The local sandbox inside this process, its listener on a thread of it, and the client."""

    sandbox: type[Sandbox]
    config: type[SandboxConfig]
    listener: type[Listener]
    client: type[ApiClient]


def embedded_stack() -> EmbeddedStack:
    """The sandbox's server (FastAPI, every route), the in-process listener and the client."""
    from payscope.api.client import ApiClient
    from payscope.sandbox.server import Sandbox, SandboxConfig
    from payscope.webhooks.listener import Listener

    return EmbeddedStack(Sandbox, SandboxConfig, Listener, ApiClient)


def client_stack(*, first_calls: bool) -> type[ApiClient]:
    """The API client, with its transport for the local sandbox (`payscope.api.local_transport`,
    not httpx's, whose httpcore, h11 and anyio would weigh on every attach); with what the first
    calls need when `first_calls` (a warm start: the live page then imports nothing on the app's
    loop)."""
    from payscope.api.client import ApiClient

    if first_calls:
        first_calls_stack()
    return ApiClient


def listener_stack(*, first_calls: bool) -> type[ListenerProcess]:
    """The TUI's end of the listener process (its server, uvicorn, loads in that process), with
    what the first calls need when `first_calls` (they load beside it, off the app's loop)."""
    from payscope.webhooks.process import ListenerProcess

    if first_calls:
        first_calls_stack()
    return ListenerProcess


def first_calls_stack() -> tuple[type[PaymentsResource], type[SandboxResource]]:
    """What the first calls on the local sandbox need: Payments' first page (its resource and
    models), and pointing the sandbox's webhooks at this run's listener."""
    from payscope.api.resources.payments import PaymentsResource
    from payscope.api.resources.sandbox import SandboxResource

    return PaymentsResource, SandboxResource
