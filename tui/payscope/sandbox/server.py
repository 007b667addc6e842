"""`Sandbox`: the local service as a library, for the TUI (in its own event loop) and tests.

Stable interface::

    from payscope.sandbox.server import Sandbox, SandboxConfig

    sandbox = Sandbox(SandboxConfig(data_dir=Path(...)))   # opens/creates the SQLite state
    sandbox.credentials      # base_url (None until started), merchant_id, profile_id,
                             # api_key, publishable_key, webhook_secret
    sandbox.is_seeded()      # True once a seed run completed on this data dir
    sandbox.seed(300, progress=lambda done, total: ...)   # deterministic for a given n;
                             # before start or from a worker thread; no-op when seeded
    url = await sandbox.start(host="127.0.0.1", port=0)  # uvicorn in the caller's loop,
                             # no signal handlers installed; returns the base URL
    sandbox.set_webhook("http://127.0.0.1:8787/webhooks", secret)   # or (None) to stop
    await sandbox.stop()     # stops serving and closes the state (make a new Sandbox to reuse)
    sandbox.app              # the ASGI app, e.g. for httpx.ASGITransport(app=sandbox.app)

`SandboxConfig(data_dir, api_key=None, publishable_key=None, merchant_id=None, profile_id=None,
webhook_url=None, webhook_secret=None, rate_limit=None, fault_rate=0.0, fault_seed=0,
latency_ms=0)`: values left None are generated on first start and kept in the data dir, so a
restart keeps the same keys and ids; a value given replaces the stored one.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI

from payscope.core.asgi_server import EmbeddedServer
from payscope.sandbox.app import create_app
from payscope.sandbox.config import ConfigError, SandboxConfig
from payscope.sandbox.credentials import Credentials
from payscope.sandbox.seed import is_seeded, seed
from payscope.sandbox.state import SandboxState

__all__ = ["ConfigError", "Credentials", "Sandbox", "SandboxConfig"]


class Sandbox:
    """One local sandbox: its state, its ASGI app and (once started) its server."""

    def __init__(self, config: SandboxConfig) -> None:
        # The resources (routes, tables, jobs) are loaded with the first sandbox, not with
        # this module: `SandboxConfig` is imported where no sandbox runs.
        from payscope.sandbox.resources import RESOURCES

        self.config = config
        self.state = SandboxState(config, RESOURCES)
        self.app: FastAPI = create_app(self.state)
        self._server: EmbeddedServer | None = None

    @property
    def credentials(self) -> Credentials:
        """Base URL, ids and keys a client needs."""
        return self.state.credentials

    def is_seeded(self) -> bool:
        """True once a seed run completed on this data dir."""
        return is_seeded(self.state)

    def seed(
        self,
        n: int,
        progress: Callable[[int, int], None] | None = None,
        *,
        lifelike: bool = True,
    ) -> int:
        """Write `n` demo payments (plus customers, refunds, ...) unless already seeded;
        `lifelike=False` spreads them evenly (no trend, no weekly or daily rhythm)."""
        return seed(self.state, n, progress, lifelike=lifelike)

    def set_webhook(self, url: str | None, secret: str | None = None) -> None:
        """Deliver webhooks to `url` (None stops), signed with `secret` if given."""
        self.state.set_webhook(url, secret)

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve on `host:port` (0 = a free port) inside the running loop; returns the URL."""
        if self._server is not None:
            raise RuntimeError("this sandbox is already running")
        server = EmbeddedServer(self.app, host, port)
        url = await server.start()
        self._server = server
        self.state.set_base_url(url)
        self.state.ensure_worker()
        return url

    async def stop(self) -> None:
        """Stop serving (in-flight requests finish), stop deliveries, close the database."""
        if self._server is not None:
            await self._server.stop()
            self._server = None
        await self.state.aclose()
