"""`SandboxConfig`: everything that shapes one sandbox (the CLI flags, or the TUI's choices)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_RATE_LIMIT = 6000


class ConfigError(ValueError):
    """A flag or setting the sandbox cannot work with (the message says how to fix it)."""


@dataclass
class SandboxConfig:
    """How to run a sandbox. Fields left None are generated on first start and persisted.

    `rate_limit` is requests per minute per key (None: 6000; 0: unlimited). `fault_rate` is the
    share of API requests answered with an injected fault, drawn from a generator seeded with
    `fault_seed` so a run is reproducible. `latency_ms` delays confirm and capture like a real
    processor. `time_source` replaces `time.time` (tests freeze the clock with it).
    """

    data_dir: Path
    api_key: str | None = None
    publishable_key: str | None = None
    merchant_id: str | None = None
    profile_id: str | None = None
    webhook_url: str | None = None
    webhook_secret: str | None = None
    rate_limit: int | None = None
    fault_rate: float = 0.0
    fault_seed: int = 0
    latency_ms: int = 0
    time_source: Callable[[], float] | None = None

    def check(self) -> None:
        """Raise `ConfigError` for values the sandbox refuses (before anything is written)."""
        if self.api_key is not None:
            if self.api_key.startswith(("prd_", "pk_prd_")):
                raise ConfigError(
                    "this is a local sandbox: it never takes a production key (prd_). "
                    "Pass a sandbox key such as snd_mykey, or leave --api-key out to get one."
                )
            if not self.api_key.startswith("snd_") or len(self.api_key) < 8:
                raise ConfigError(
                    "--api-key must be a sandbox secret key: 'snd_' followed by at least "
                    "4 characters (e.g. snd_local_test)."
                )
        if self.publishable_key is not None and not self.publishable_key.startswith("pk_snd_"):
            raise ConfigError("a publishable key must start with 'pk_snd_'.")
        if self.webhook_url is not None and not self.webhook_url.startswith(
            ("http://", "https://")
        ):
            raise ConfigError(
                f"--webhook-url must be an http:// or https:// URL (got {self.webhook_url!r})."
            )
        if not 0.0 <= self.fault_rate <= 1.0:
            raise ConfigError(f"--fault-rate must be between 0 and 1 (got {self.fault_rate}).")
        if self.rate_limit is not None and self.rate_limit < 0:
            raise ConfigError("--rate-limit must be 0 (unlimited) or more.")
        if self.latency_ms < 0:
            raise ConfigError("--latency must be 0 or more milliseconds.")

    @property
    def effective_rate_limit(self) -> int:
        """Requests per minute per key; 0 means unlimited."""
        return DEFAULT_RATE_LIMIT if self.rate_limit is None else self.rate_limit
