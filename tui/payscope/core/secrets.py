"""Keys in the OS keyring, never anywhere else.

Each profile keeps up to three secrets under the keyring service ``payscope``, with the
username ``<profile>:<kind>``: the secret API key, the publishable key and the webhook signing
secret. ``PAYSCOPE_API_KEY`` overrides the stored secret key for one run (CI, containers).

There is deliberately no plaintext fallback: when the OS offers no secure keyring, every call
raises :class:`KeyringUnavailable`, whose message tells the user how to fix it. No message
raised here ever contains the key itself.

``keyring`` is imported lazily: config.py imports this module for its key patterns, and start-up
should not pay for backend discovery until a key is really needed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

SERVICE = "payscope"
ENV_API_KEY = "PAYSCOPE_API_KEY"

SecretKind = Literal["secret", "publishable", "webhook"]
KINDS: tuple[SecretKind, ...] = ("secret", "publishable", "webhook")
KIND_LABELS: dict[str, str] = {
    "secret": "secret key",
    "publishable": "publishable key",
    "webhook": "webhook signing secret",
}

# Profile names end up in keyring usernames (`<profile>:<kind>`) and TOML table names, so
# they are kept to characters that need no quoting anywhere.
PROFILE_NAME_PATTERN = r"[A-Za-z0-9_-]{1,64}"
_PROFILE_NAME = re.compile(rf"^{PROFILE_NAME_PATTERN}$")

# The random part of the service's keys is letters and digits; `_` and `-` are accepted too
# so that URL-safe random keys (a local sandbox may mint them) are recognised as keys.
KEY_CHARS = r"[A-Za-z0-9_-]"
KEY_MIN_BODY = 8
_KEY_PREFIXES = ("pk_snd_", "pk_prd_", "snd_", "prd_")  # longest first: pk_snd_ before snd_
_KEY_SHAPE = re.compile(rf"^(pk_snd_|pk_prd_|snd_|prd_)({KEY_CHARS}{{{KEY_MIN_BODY},}})$")
# For scanning free text (config files): a key anywhere, not glued to a longer word.
KEY_IN_TEXT = re.compile(rf"(?<![A-Za-z0-9_-])(?:pk_)?(?:snd|prd)_{KEY_CHARS}{{{KEY_MIN_BODY},}}")

# How to get a usable keyring; the API key's own way round it comes first in INSTALL_HINT, and
# the webhook listener puts its own ways first (it does not use the API key).
KEYRING_SETUP = """\
  - or install and unlock a Secret Service. On a headless Debian/Ubuntu box:
      sudo apt-get install gnome-keyring dbus-x11
      dbus-run-session -- $SHELL        # a D-Bus session for this shell
      read -rs PW && printf %s "$PW" | gnome-keyring-daemon --unlock --components=secrets
    then run the payscope command again from that shell."""
INSTALL_HINT = f"""\
To fix it, either:
  - set PAYSCOPE_API_KEY for one run, e.g.  read -rs PAYSCOPE_API_KEY && export PAYSCOPE_API_KEY
{KEYRING_SETUP}
  (docs/configuration.md#a-headless-linux-box explains both.)"""


class SecretsError(Exception):
    """Base class for every error of this module; messages are written for the user."""


class KeyringUnavailable(SecretsError):
    """No secure keyring backend is usable (none installed, locked, or only plaintext).

    `reason` is what went wrong, alone; the message adds how to fix it for the API key."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"{reason}\n{INSTALL_HINT}")
        self.reason = reason


class InvalidKey(SecretsError, ValueError):
    """A value does not look like the kind of key it is stored as."""


class ProductionKeyRefused(InvalidKey):
    """A production (``prd_`` / ``pk_prd_``) key was given without allowing production."""


class KeyNotFound(SecretsError):
    """No key is stored for the profile (and ``PAYSCOPE_API_KEY`` is not set)."""


class KeyKind(StrEnum):
    """What a key is, told apart by its prefix."""

    SANDBOX_SECRET = "sandbox secret"
    PRODUCTION_SECRET = "production secret"
    SANDBOX_PUBLISHABLE = "sandbox publishable"
    PRODUCTION_PUBLISHABLE = "production publishable"
    UNKNOWN = "unknown"


_KIND_BY_PREFIX = {
    "snd_": KeyKind.SANDBOX_SECRET,
    "prd_": KeyKind.PRODUCTION_SECRET,
    "pk_snd_": KeyKind.SANDBOX_PUBLISHABLE,
    "pk_prd_": KeyKind.PRODUCTION_PUBLISHABLE,
}


@dataclass(frozen=True)
class ResolvedKey:
    """The secret key for a run and where it came from ("env" or "keyring").

    ``value`` is left out of ``repr`` so that logging the object never logs the key.
    """

    value: str = field(repr=False)
    source: Literal["env", "keyring"]

    @property
    def masked(self) -> str:
        """The key as it may be shown: ``snd_...a1b2``."""
        return mask(self.value)


def key_kind(key: str) -> KeyKind:
    """Tell a key's kind from its prefix and shape; anything else is ``UNKNOWN``."""
    match = _KEY_SHAPE.match(key)
    return _KIND_BY_PREFIX[match.group(1)] if match else KeyKind.UNKNOWN


def is_production(key: str) -> bool:
    """True for ``prd_`` and ``pk_prd_`` keys (judged on the prefix alone, to fail safe)."""
    return key.startswith(("prd_", "pk_prd_"))


def looks_like_key(text: str) -> bool:
    """True when ``text`` contains something shaped like an API key anywhere."""
    return KEY_IN_TEXT.search(text) is not None


def mask(key: str) -> str:
    """Show a key safely: the known prefix, then only the last 4 characters.

    Values too short for that to hide most of them are masked completely.
    """
    prefix = next((p for p in _KEY_PREFIXES if key.startswith(p)), "")
    body = key[len(prefix) :]
    if len(body) < 12:
        return f"{prefix}****"
    return f"{prefix}...{body[-4:]}"


def username(profile: str, kind: str) -> str:
    """The keyring username for one secret of one profile: ``<profile>:<kind>``."""
    check_profile_name(profile)
    if kind not in KINDS:
        raise InvalidKey(f"unknown key kind {kind!r}: use one of {', '.join(KINDS)}")
    return f"{profile}:{kind}"


def check_profile_name(name: str) -> None:
    """Raise ``ValueError`` unless ``name`` is 1-64 letters, digits, ``-`` or ``_``."""
    if not _PROFILE_NAME.match(name):
        raise ValueError(
            f"invalid profile name {name!r}: use 1-64 letters, digits, '-' or '_' (e.g. staging)"
        )


def validate_secret(value: str, kind: str = "secret", *, allow_production: bool = False) -> None:
    """Check that ``value`` fits ``kind``; raise :class:`InvalidKey` (never quoting it)."""
    if not value:
        raise InvalidKey(f"the {KIND_LABELS.get(kind, 'key')} is empty")
    if any(ch.isspace() or not ch.isprintable() for ch in value):
        raise InvalidKey(
            f"the {KIND_LABELS.get(kind, 'key')} contains spaces, line breaks or control "
            "characters: paste the key alone"
        )
    found = key_kind(value)
    if kind == "secret":
        if found in (KeyKind.SANDBOX_PUBLISHABLE, KeyKind.PRODUCTION_PUBLISHABLE):
            raise InvalidKey(
                "that is a publishable key (pk_...), not a secret key: store it with "
                "--kind publishable"
            )
        if found not in (KeyKind.SANDBOX_SECRET, KeyKind.PRODUCTION_SECRET):
            raise InvalidKey(
                "that does not look like a secret key: expected snd_ (sandbox) or prd_ "
                f"(production) followed by at least {KEY_MIN_BODY} letters or digits"
            )
    elif kind == "publishable":
        if found in (KeyKind.SANDBOX_SECRET, KeyKind.PRODUCTION_SECRET):
            raise InvalidKey(
                "that is a secret key, not a publishable one: store it with --kind secret"
            )
        if found not in (KeyKind.SANDBOX_PUBLISHABLE, KeyKind.PRODUCTION_PUBLISHABLE):
            raise InvalidKey(
                "that does not look like a publishable key: expected pk_snd_ (sandbox) or "
                f"pk_prd_ (production) followed by at least {KEY_MIN_BODY} letters or digits"
            )
    elif kind != "webhook":
        raise InvalidKey(f"unknown key kind {kind!r}: use one of {', '.join(KINDS)}")
    if kind != "webhook" and is_production(value) and not allow_production:
        raise ProductionKeyRefused(
            "that is a production key (prd_ / pk_prd_): payscope refuses production keys "
            "unless you pass --allow-production (real money moves with them)"
        )


def _unusable_reason(backend: KeyringBackend) -> str | None:
    """Why ``backend`` must not hold keys, or None when it is a real, secure store."""
    from keyring.backends import chainer, fail, null

    cls = type(backend)
    if isinstance(backend, fail.Keyring):
        return "no OS keyring (Secret Service, macOS Keychain, Windows Credential Locker) found"
    if isinstance(backend, null.Keyring):
        return "the keyring is disabled (null backend configured)"
    if isinstance(backend, chainer.ChainerBackend):
        members = list(backend.backends)
        if not members:
            return "no OS keyring (Secret Service, macOS Keychain, Windows Credential Locker) found"
        for member in members:
            reason = _unusable_reason(member)
            if reason:
                return reason
        return None
    name = f"{cls.__module__}.{cls.__name__}"
    lowered = name.lower()
    if cls.__module__.startswith("keyrings.alt.file") or "plaintext" in lowered:
        return f"the only keyring available ({name}) stores keys in a file, which payscope refuses"
    if "insecure" in lowered:
        return f"the only keyring available ({name}) is not secure"
    return None


def backend() -> KeyringBackend:
    """The OS keyring backend, or :class:`KeyringUnavailable` explaining how to get one."""
    import keyring

    try:
        found = keyring.get_keyring()
    except Exception as exc:  # a broken keyringrc or backend module must not crash us
        raise KeyringUnavailable(f"cannot open the OS keyring ({type(exc).__name__}).") from exc
    reason = _unusable_reason(found)
    if reason:
        raise KeyringUnavailable(f"no usable OS keyring: {reason}.")
    return found


def backend_name(store: KeyringBackend | None = None) -> str:
    """A short human name for the backend in use, e.g. ``SecretService Keyring``."""
    store = store or backend()
    name = getattr(store, "name", None)
    return str(name) if name else type(store).__name__


def _failure(exc: Exception, action: str, secret: str | None = None) -> KeyringUnavailable:
    detail = str(exc) or type(exc).__name__
    if secret:
        detail = detail.replace(secret, mask(secret))
    return KeyringUnavailable(
        f"the OS keyring failed to {action} ({type(exc).__name__}: {detail}). If it is "
        "locked, unlock it and try again."
    )


def get_secret(profile: str, kind: str = "secret") -> str | None:
    """The stored secret of ``kind`` for ``profile``, or None if there is none."""
    user = username(profile, kind)
    store = backend()
    try:
        return store.get_password(SERVICE, user)
    except Exception as exc:
        raise _failure(exc, "read a key") from exc


def set_secret(
    profile: str, value: str, kind: str = "secret", *, allow_production: bool = False
) -> None:
    """Validate ``value`` for ``kind`` and store it in the OS keyring (replacing any old one)."""
    user = username(profile, kind)
    validate_secret(value, kind, allow_production=allow_production)
    store = backend()
    try:
        store.set_password(SERVICE, user, value)
    except Exception as exc:
        raise _failure(exc, "store the key", value) from exc


def delete_secret(profile: str, kind: str = "secret") -> bool:
    """Remove the stored secret; True if one was there, False if there was none."""
    from keyring.errors import PasswordDeleteError

    user = username(profile, kind)
    store = backend()
    try:
        if store.get_password(SERVICE, user) is None:
            return False
        store.delete_password(SERVICE, user)
    except PasswordDeleteError:
        return False
    except Exception as exc:
        raise _failure(exc, "delete a key") from exc
    return True


def env_api_key() -> str | None:
    """``PAYSCOPE_API_KEY`` when set and not blank."""
    value = os.environ.get(ENV_API_KEY, "").strip()
    return value or None


def resolve_api_key(profile: str) -> ResolvedKey:
    """The secret key for this run: ``PAYSCOPE_API_KEY`` wins, else the profile's stored key.

    Raises :class:`KeyNotFound` when neither exists, :class:`KeyringUnavailable` when the
    keyring is needed but unusable.
    """
    from_env = env_api_key()
    if from_env:
        return ResolvedKey(from_env, "env")
    stored = get_secret(profile, "secret")
    if stored is None:
        raise KeyNotFound(
            f"no secret key stored for profile {profile!r}: store one with "
            f"`payscope keys set --profile {profile}`, or set {ENV_API_KEY} for one run"
        )
    return ResolvedKey(stored, "keyring")
