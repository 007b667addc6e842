"""Webhook signatures: `X-Webhook-Signature-512` is the lowercase hex HMAC-SHA512 of the exact
raw body bytes, keyed with the business profile's `payment_response_hash_key`.

Shared by the sandbox (which signs deliveries) and the listener (which verifies them).
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable

SIGNATURE_HEADER = "X-Webhook-Signature-512"


def sign(body: bytes, secret: str) -> str:
    """Return the lowercase hex HMAC-SHA512 of `body` keyed with `secret`."""
    # hmac.digest is the one-shot C path: several times faster than hmac.new(...).hexdigest().
    return hmac.digest(secret.encode("utf-8"), body, "sha512").hex()


def verify(body: bytes, signature: str | None, secrets: Iterable[str]) -> bool:
    """True when `signature` matches `body` under any of `secrets` (several during rotation).

    Every secret is compared in constant time, and all of them are tried, so the time taken
    does not tell which one matched.
    """
    if not signature:
        return False
    given = signature.strip().lower().encode("ascii", "replace")
    matched = False
    for secret in secrets:
        expected = sign(body, secret).encode("ascii")
        matched |= hmac.compare_digest(expected, given)
    return matched
