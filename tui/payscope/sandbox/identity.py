"""The sandbox's identity as a record (standard library only): what `credentials.bootstrap`
makes when the sandbox starts, and what `daemon.read_credentials` reads back from a stopped or
background sandbox's database without loading the sandbox itself."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Credentials:
    """What a client needs to talk to this sandbox (`base_url` is set once it listens)."""

    base_url: str | None
    merchant_id: str
    profile_id: str
    api_key: str
    publishable_key: str
    webhook_secret: str

    def __repr__(self) -> str:
        # Never print keys by accident (logs, tracebacks, test output).
        return (
            f"Credentials(base_url={self.base_url!r}, merchant_id={self.merchant_id!r}, "
            f"profile_id={self.profile_id!r}, api_key='***', publishable_key='***', "
            "webhook_secret='***')"
        )
