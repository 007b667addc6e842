"""The listener's own signing secret, for when none is given (`--secret` or `secrets=`).

Generated on first run like the reference's `payment_response_hash_key` (64 random letters and
digits) and kept beside the journal, readable by the owner only, so the sandbox or a script can
sign with the same value across restarts (`payscope listen --print-secret`).
"""

from __future__ import annotations

import os
import secrets
import string
from pathlib import Path

SECRET_FILE = "signing-secret"
SECRET_LENGTH = 64
_ALPHABET = string.ascii_letters + string.digits


def generate_secret() -> str:
    """A new 64-character secret from the OS's cryptographic random source."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(SECRET_LENGTH))


def load_or_create_secret(directory: Path) -> str:
    """The secret stored in `directory`, created (mode 0600) on first use."""
    path = Path(directory) / SECRET_FILE
    try:
        existing = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        existing = ""
    if existing:
        return existing
    path.parent.mkdir(parents=True, exist_ok=True)
    value = generate_secret()
    # O_EXCL: two listeners starting at once must not end up with different secrets.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(value + "\n")
    return value


def mask(secret: str) -> str:
    """A form of `secret` safe to print: its length and last four characters only."""
    if len(secret) <= 8:
        return "•" * len(secret)
    return f"{'•' * 8}{secret[-4:]} ({len(secret)} characters)"
