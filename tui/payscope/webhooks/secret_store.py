"""Signing secrets for the listener: generation and safe display.

A secret is generated like the reference's `payment_response_hash_key` (64 random letters and
digits). It is never written to a file: an embedded listener keeps it in memory (the TUI hands
it the sandbox's secret), and `payscope listen` keeps its own in the OS keyring
(see `payscope.cli.listen`).
"""

from __future__ import annotations

import secrets
import string

SECRET_LENGTH = 64
_ALPHABET = string.ascii_letters + string.digits


def generate_secret() -> str:
    """A new 64-character secret from the OS's cryptographic random source."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(SECRET_LENGTH))


def mask(secret: str) -> str:
    """A form of `secret` safe to print: its length and last four characters only."""
    if len(secret) <= 8:
        return "•" * len(secret)
    return f"{'•' * 8}{secret[-4:]} ({len(secret)} characters)"
