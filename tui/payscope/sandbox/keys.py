"""API keys: the primary keys of the sandbox plus keys made through `/api_keys/{merchant_id}`.

Keys made through the API are stored as a SHA-256 digest only (shown once, at creation, like
the real service). The primary secret and publishable keys are the sandbox's own credentials:
they are kept in its database so a restart prints the same ones.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass

SCHEMA = """
CREATE TABLE IF NOT EXISTS api_keys (
    key_id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    digest TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    created TEXT NOT NULL,
    expiration TEXT,
    revoked_at TEXT
);
"""

SECRET = "secret"
PUBLISHABLE = "publishable"


@dataclass(frozen=True)
class Principal:
    """Who is calling: a secret key (full access) or a publishable key (SDK flow only)."""

    kind: str
    merchant_id: str
    key_id: str | None = None


@dataclass(frozen=True)
class KeyRecord:
    """A stored API key's state, as auth needs it."""

    key_id: str
    merchant_id: str
    expiration: str | None
    revoked: bool


def digest(key: str) -> str:
    """SHA-256 hex of a key (what is stored and looked up)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def find(conn: sqlite3.Connection, key: str) -> KeyRecord | None:
    """The stored key matching `key`, revoked or not."""
    row = conn.execute(
        "SELECT key_id, merchant_id, expiration, revoked_at FROM api_keys WHERE digest = ?",
        (digest(key),),
    ).fetchone()
    if row is None:
        return None
    return KeyRecord(row[0], row[1], row[2], row[3] is not None)


def mask(key: str) -> str:
    """`snd_ab...wxyz`: enough to recognise a key, never enough to use it."""
    return f"{key[:6]}...{key[-4:]}" if len(key) > 12 else "****"
