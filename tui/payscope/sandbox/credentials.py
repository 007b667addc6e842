"""The sandbox's identity: merchant id, business profile, primary keys, webhook secret.

Generated on first start and kept in the database, so a restart keeps them; a value passed in
`SandboxConfig` (the `--api-key`, `--merchant-id`, ... flags) replaces the stored one.
"""

from __future__ import annotations

import random
import string

from payscope.sandbox import ids
from payscope.sandbox.config import SandboxConfig
from payscope.sandbox.db import Database
from payscope.sandbox.identity import Credentials as Credentials  # where it is defined

SCHEMA = """
CREATE TABLE IF NOT EXISTS business_profiles (
    profile_id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    profile_name TEXT NOT NULL,
    webhook_url TEXT,
    payment_response_hash_key TEXT NOT NULL,
    return_url TEXT,
    created TEXT NOT NULL,
    modified_at TEXT NOT NULL
);
"""


def hash_key() -> str:
    """64 random characters, the reference's default `payment_response_hash_key`."""
    return ids.random_part(64)


def bootstrap(db: Database, config: SandboxConfig, now_iso: str) -> Credentials:
    """Load the stored identity, fill in what is missing, apply the config's overrides."""
    merchant_id = config.merchant_id or db.get_meta("merchant_id")
    if merchant_id is None:
        suffix = "".join(random.SystemRandom().choices(string.digits, k=10))
        merchant_id = f"merchant_{suffix}"
    profile_id = config.profile_id or db.get_meta("profile_id") or ids.new_id("pro")
    api_key = config.api_key or db.get_meta("api_key") or ids.secret_key("snd")
    publishable = (
        config.publishable_key or db.get_meta("publishable_key") or ids.secret_key("pk_snd")
    )
    with db.transaction() as conn:
        for key, value in (
            ("merchant_id", merchant_id),
            ("profile_id", profile_id),
            ("api_key", api_key),
            ("publishable_key", publishable),
        ):
            db.set_meta(key, value, conn)
        row = conn.execute(
            "SELECT payment_response_hash_key FROM business_profiles WHERE profile_id = ?",
            (profile_id,),
        ).fetchone()
        if row is None:
            secret = config.webhook_secret or hash_key()
            conn.execute(
                "INSERT INTO business_profiles(profile_id, merchant_id, profile_name, "
                "webhook_url, payment_response_hash_key, created, modified_at) "
                "VALUES (?, ?, 'default', ?, ?, ?, ?)",
                (profile_id, merchant_id, config.webhook_url, secret, now_iso, now_iso),
            )
        else:
            secret = config.webhook_secret or str(row[0])
            conn.execute(
                "UPDATE business_profiles SET merchant_id = ?, payment_response_hash_key = ?, "
                "webhook_url = COALESCE(?, webhook_url) WHERE profile_id = ?",
                (merchant_id, secret, config.webhook_url, profile_id),
            )
    return Credentials(None, merchant_id, profile_id, api_key, publishable, secret)
