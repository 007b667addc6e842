"""The names of fields that hold a secret, kept once: the request journal masks them (and so
every screen, log and copied curl built from it), and an export leaves them out.

A field is secret-like when its name (any case) is one of `SECRET_FIELDS`, or ends in one of
`SECRET_ENDINGS` (`client_secret`, `webhook_secret`, `new_password`, ...). Standard library only.
"""

from __future__ import annotations

__all__ = ["SECRET_ENDINGS", "SECRET_FIELDS", "is_secret_field"]

SECRET_FIELDS = frozenset(
    {
        "api_key",
        "secret_key",
        "client_secret",
        "payment_response_hash_key",
        "webhook_secret",
        "webhook_password",
        "signing_secret",
        "password",
        "new_password",
        "old_password",
        "totp",
        "totp_secret",
        "otpauth_url",
        "recovery_code",
        "recovery_codes",
        "token",
        "access_token",
        "refresh_token",
        "ephemeral_key",
    }
)
# Whatever else is named like one: `<anything>_secret`, `<anything>_password`, `<anything>_api_key`.
SECRET_ENDINGS = ("_secret", "_password", "_api_key", "_access_token", "_refresh_token")


def is_secret_field(name: str) -> bool:
    """Whether a field called `name` holds a secret (see the module's docstring)."""
    lowered = name.lower()
    return lowered in SECRET_FIELDS or lowered.endswith(SECRET_ENDINGS)
