"""payscope.core.secrets: key shapes, masking, storage rules, and the real Secret Service."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail
from keyring.errors import KeyringLocked

from payscope.core import secrets
from payscope.core.secrets import (
    InvalidKey,
    KeyKind,
    KeyNotFound,
    KeyringUnavailable,
    ProductionKeyRefused,
    ResolvedKey,
)
from tests.conftest import MemoryKeyring

SANDBOX = "snd_4fJ8kq2LmN7pR1sT9vWx"
PRODUCTION = "prd_Z9y8X7w6V5u4qa"
PK_SANDBOX = "pk_snd_aB3dE5fG7hJ9kL1mN3pq"
PK_PRODUCTION = "pk_prd_Qw3Er5Ty7Ui9"


# Shapes and masking --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        (SANDBOX, KeyKind.SANDBOX_SECRET),
        (PRODUCTION, KeyKind.PRODUCTION_SECRET),
        (PK_SANDBOX, KeyKind.SANDBOX_PUBLISHABLE),
        (PK_PRODUCTION, KeyKind.PRODUCTION_PUBLISHABLE),
        ("snd_short", KeyKind.UNKNOWN),  # too short to be a key
        ("sk_test_4fJ8kq2LmN7pR1sT9vWx", KeyKind.UNKNOWN),
        ("snd_has space in it", KeyKind.UNKNOWN),
        ("", KeyKind.UNKNOWN),
    ],
)
def test_key_kind_tells_keys_apart_by_prefix(key: str, kind: KeyKind) -> None:
    assert secrets.key_kind(key) is kind


def test_is_production_only_for_prd_prefixes() -> None:
    assert secrets.is_production(PRODUCTION)
    assert secrets.is_production(PK_PRODUCTION)
    assert not secrets.is_production(SANDBOX)
    assert not secrets.is_production(PK_SANDBOX)


@pytest.mark.parametrize(
    ("key", "masked"),
    [
        (SANDBOX, "snd_...9vWx"),
        (PK_SANDBOX, "pk_snd_...N3pq"),
        (PRODUCTION, "prd_...u4qa"),
        ("whsec0123456789abcd", "...abcd"),
        ("snd_abcdefgh", "snd_****"),  # too short: nothing of the body is shown
        ("short", "****"),
        ("", "****"),
    ],
)
def test_mask_keeps_the_prefix_and_the_last_four(key: str, masked: str) -> None:
    assert secrets.mask(key) == masked


@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=12)
)
def test_mask_never_shows_more_than_four_characters_of_the_body(body: str) -> None:
    masked = secrets.mask("snd_" + body)
    assert masked == f"snd_...{body[-4:]}"
    assert body[:-4] not in masked


def test_resolved_key_repr_hides_the_value() -> None:
    resolved = ResolvedKey(SANDBOX, "keyring")
    assert SANDBOX not in repr(resolved)
    assert resolved.masked == "snd_...9vWx"


# Storage (in-memory backend) -----------------------------------------------------------------


def test_set_get_delete_round_trip(memory_keyring: MemoryKeyring) -> None:
    secrets.set_secret("staging", SANDBOX)
    assert memory_keyring.items == {("payscope", "staging:secret"): SANDBOX}
    assert secrets.get_secret("staging") == SANDBOX
    assert secrets.delete_secret("staging", "secret") is True
    assert secrets.get_secret("staging") is None
    assert secrets.delete_secret("staging", "secret") is False


def test_kinds_are_stored_separately(memory_keyring: MemoryKeyring) -> None:
    secrets.set_secret("eu", SANDBOX, "secret")
    secrets.set_secret("eu", PK_SANDBOX, "publishable")
    secrets.set_secret("eu", "whsec-any-value_0123!", "webhook")
    assert secrets.get_secret("eu", "secret") == SANDBOX
    assert secrets.get_secret("eu", "publishable") == PK_SANDBOX
    assert secrets.get_secret("eu", "webhook") == "whsec-any-value_0123!"
    assert set(memory_keyring.items) == {
        ("payscope", "eu:secret"),
        ("payscope", "eu:publishable"),
        ("payscope", "eu:webhook"),
    }


@pytest.mark.parametrize(
    ("value", "kind", "hint"),
    [
        (PK_SANDBOX, "secret", "--kind publishable"),
        (SANDBOX, "publishable", "--kind secret"),
        ("not-a-key-at-all-0123456789", "secret", "snd_"),
        ("not-a-key-at-all-0123456789", "publishable", "pk_snd_"),
        ("snd_abc", "secret", "at least 8"),
        ("snd_4fJ8kq2L mN7pR1sT9vWx", "secret", "spaces"),
        ("snd_4fJ8kq2LmN7pR1sT9vWx\n", "secret", "line breaks"),
    ],
)
def test_values_that_do_not_fit_the_kind_are_refused_without_quoting_them(
    memory_keyring: MemoryKeyring, value: str, kind: str, hint: str
) -> None:
    with pytest.raises(InvalidKey) as caught:
        secrets.set_secret("staging", value, kind)
    assert hint in str(caught.value)
    assert value.strip() not in str(caught.value)
    assert memory_keyring.items == {}


@pytest.mark.parametrize(
    ("value", "kind"), [(PRODUCTION, "secret"), (PK_PRODUCTION, "publishable")]
)
def test_production_keys_need_allow_production(
    memory_keyring: MemoryKeyring, value: str, kind: str
) -> None:
    with pytest.raises(ProductionKeyRefused, match="--allow-production") as caught:
        secrets.set_secret("live", value, kind)
    assert value not in str(caught.value)
    assert memory_keyring.items == {}
    secrets.set_secret("live", value, kind, allow_production=True)
    assert secrets.get_secret("live", kind) == value


@pytest.mark.parametrize("name", ["", "has space", "a.b", "a:b", "x" * 65, "café"])
def test_profile_names_are_checked(name: str) -> None:
    with pytest.raises(ValueError, match="invalid profile name"):
        secrets.set_secret(name, SANDBOX)


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(InvalidKey, match="unknown key kind"):
        secrets.get_secret("staging", "password")


# Resolution -----------------------------------------------------------------------------------


def test_env_key_wins_over_the_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    secrets.set_secret("staging", SANDBOX)
    monkeypatch.setenv("PAYSCOPE_API_KEY", "snd_fromTheEnvironment01")
    assert secrets.resolve_api_key("staging") == ResolvedKey("snd_fromTheEnvironment01", "env")


def test_keyring_key_when_env_is_unset_or_blank(monkeypatch: pytest.MonkeyPatch) -> None:
    secrets.set_secret("staging", SANDBOX)
    assert secrets.resolve_api_key("staging") == ResolvedKey(SANDBOX, "keyring")
    monkeypatch.setenv("PAYSCOPE_API_KEY", "  ")
    assert secrets.resolve_api_key("staging").source == "keyring"


def test_missing_key_says_how_to_add_one() -> None:
    with pytest.raises(KeyNotFound) as caught:
        secrets.resolve_api_key("staging")
    message = str(caught.value)
    assert "payscope keys set --profile staging" in message
    assert "PAYSCOPE_API_KEY" in message


# No usable backend -----------------------------------------------------------------------------


class PlaintextKeyring(MemoryKeyring):
    """Stands in for keyrings.alt's file backend: it works, but must be refused."""


class EmptyChainer(chainer.ChainerBackend):
    backends = ()  # type: ignore[assignment]


@pytest.mark.parametrize(
    "store",
    [fail.Keyring(), EmptyChainer(), PlaintextKeyring()],
    ids=["fail", "empty-chainer", "plaintext"],
)
@pytest.mark.parametrize("operation", ["get", "set", "delete", "resolve"])
def test_no_secure_backend_names_the_fix(store: KeyringBackend, operation: str) -> None:
    import keyring

    keyring.set_keyring(store)
    calls = {
        "get": lambda: secrets.get_secret("staging"),
        "set": lambda: secrets.set_secret("staging", SANDBOX),
        "delete": lambda: secrets.delete_secret("staging", "secret"),
        "resolve": lambda: secrets.resolve_api_key("staging"),
    }
    with pytest.raises(KeyringUnavailable) as caught:
        calls[operation]()
    message = str(caught.value)
    assert "PAYSCOPE_API_KEY" in message
    assert "gnome-keyring-daemon --unlock --components=secrets" in message
    assert "dbus-run-session" in message
    assert SANDBOX not in message
    if isinstance(store, PlaintextKeyring):
        assert store.items == {}  # nothing leaked into the insecure store first


def test_env_key_needs_no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring

    keyring.set_keyring(fail.Keyring())
    monkeypatch.setenv("PAYSCOPE_API_KEY", SANDBOX)
    assert secrets.resolve_api_key("ci").source == "env"


class LockedKeyring(MemoryKeyring):
    """A backend whose error text quotes the password, as a careless one might."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked(f"could not store {password}: collection locked")

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("collection locked")


def test_backend_failures_become_keyring_unavailable_without_the_key() -> None:
    import keyring

    keyring.set_keyring(LockedKeyring())
    with pytest.raises(KeyringUnavailable) as caught:
        secrets.set_secret("staging", SANDBOX)
    message = str(caught.value)
    assert SANDBOX not in message
    assert "locked" in message
    with pytest.raises(KeyringUnavailable, match="unlock it"):
        secrets.get_secret("staging")


# The real Secret Service -----------------------------------------------------------------------


@pytest.mark.keyring
def test_real_secret_service_round_trip(real_keyring: KeyringBackend, keyring_profile: str) -> None:
    import secretstorage

    secrets.set_secret(keyring_profile, SANDBOX)
    assert secrets.get_secret(keyring_profile) == SANDBOX
    assert secrets.resolve_api_key(keyring_profile) == ResolvedKey(SANDBOX, "keyring")

    # Read it back with secretstorage itself: the item really is in the Secret Service.
    connection = secretstorage.dbus_init()
    try:
        collection = secretstorage.get_default_collection(connection)
        items = list(
            collection.search_items(
                {"service": "payscope", "username": f"{keyring_profile}:secret"}
            )
        )
        assert [item.get_secret() for item in items] == [SANDBOX.encode()]
    finally:
        connection.close()

    secrets.set_secret(keyring_profile, "snd_replacedReplaced99")
    assert secrets.get_secret(keyring_profile) == "snd_replacedReplaced99"
    assert secrets.delete_secret(keyring_profile, "secret") is True
    assert secrets.get_secret(keyring_profile) is None
    assert secrets.delete_secret(keyring_profile, "secret") is False


@pytest.mark.keyring
def test_real_secret_service_keeps_kinds_apart(
    real_keyring: KeyringBackend, keyring_profile: str
) -> None:
    secrets.set_secret(keyring_profile, SANDBOX, "secret")
    secrets.set_secret(keyring_profile, PK_SANDBOX, "publishable")
    secrets.set_secret(keyring_profile, "whsec-real-0123456789", "webhook")
    assert secrets.get_secret(keyring_profile, "publishable") == PK_SANDBOX
    assert secrets.get_secret(keyring_profile, "webhook") == "whsec-real-0123456789"
    assert secrets.delete_secret(keyring_profile, "publishable") is True
    assert secrets.get_secret(keyring_profile, "secret") == SANDBOX
    assert secrets.backend_name() == "SecretService Keyring"
