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
    return Verifier(secrets)(body, signature)


class Verifier:
    """`verify` for a fixed set of secrets, each key's HMAC state prepared once.

    For a server checking every request: the keyed state is copied instead of rebuilt (half
    the work for a small body), and hashing a body under 2 KiB keeps the GIL, where the
    one-shot `hmac.digest` releases it and hands the interpreter to another thread mid-request.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self._keyed = tuple(hmac.new(s.encode("utf-8"), digestmod="sha512") for s in secrets)

    def __call__(self, body: bytes, signature: str | bytes | None) -> bool:
        """True when `signature` (hex, any case) matches `body` under any of the secrets.

        Every secret is compared in constant time, and all of them are tried, so the time
        taken does not tell which one matched.
        """
        if not signature:
            return False
        if isinstance(signature, str):
            signature = signature.encode("ascii", "replace")
        given = signature.strip().lower()
        matched = False
        for keyed in self._keyed:
            mac = keyed.copy()
            mac.update(body)
            matched |= hmac.compare_digest(mac.hexdigest().encode("ascii"), given)
        return matched
