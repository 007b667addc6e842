"""`payscope keys` as a user runs it: a subprocess, the key on stdin, the real keyring."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend

from payscope.core import secrets
from tests.waits import HANG

ROOT = Path(__file__).resolve().parents[1]
SANDBOX = "snd_4fJ8kq2LmN7pR1sT9vWx"
PRODUCTION = "prd_Z9y8X7w6V5u4qa"
PK_SANDBOX = "pk_snd_aB3dE5fG7hJ9kL1mN3pq"

pytestmark = pytest.mark.slow


def keys(
    *argv: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m payscope keys ...` with ``stdin`` piped in and this test's environment."""
    return subprocess.run(
        [sys.executable, "-m", "payscope", "keys", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=HANG,
    )


# Without a keyring -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "key"),
    [(("set", SANDBOX), SANDBOX), (("set", "snd_abc", "--profile", "eu"), "snd_abc")],
)
def test_a_key_on_the_command_line_is_refused(argv: tuple[str, ...], key: str) -> None:
    done = keys(*argv, env={"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})
    assert done.returncode == 2
    assert done.stdout == ""
    assert "shell history" in done.stderr
    assert "process list" in done.stderr
    assert "< key.txt" in done.stderr  # shows how to pipe it
    assert key not in done.stderr  # and never echoes it


def test_a_stray_value_on_show_is_a_usage_error() -> None:
    done = keys("show", "staging")
    assert done.returncode == 2
    assert "--profile NAME" in done.stderr


def test_no_keyring_names_the_fix() -> None:
    done = keys(
        "set",
        "--profile",
        "ci",
        stdin=SANDBOX + "\n",
        env={"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"},
    )
    assert done.returncode == 1
    assert "PAYSCOPE_API_KEY" in done.stderr
    assert "gnome-keyring-daemon --unlock --components=secrets" in done.stderr
    assert SANDBOX not in done.stderr + done.stdout


def test_bad_profile_name_is_a_user_error() -> None:
    done = keys("show", "--profile", "no spaces please")
    assert done.returncode == 1
    assert "invalid profile name" in done.stderr


def test_help_mentions_the_kinds() -> None:
    done = keys("--help")
    assert done.returncode == 0
    assert "--kind" in done.stdout
    assert "never from the command line" in done.stdout


# With the real Secret Service ------------------------------------------------------------------

keyring_test = pytest.mark.keyring


@keyring_test
def test_set_show_delete(real_keyring: KeyringBackend, keyring_profile: str) -> None:
    done = keys("set", "--profile", keyring_profile, stdin=SANDBOX + "\n")
    assert done.returncode == 0, done.stderr
    assert "snd_...9vWx" in done.stdout
    assert "SecretService" in done.stdout
    assert SANDBOX not in done.stdout + done.stderr
    # Stored exactly, without the newline the pipe added.
    assert secrets.get_secret(keyring_profile) == SANDBOX

    done = keys("show", "--profile", keyring_profile)
    assert done.returncode == 0
    assert (
        done.stdout.strip()
        == f"{keyring_profile} secret key: snd_...9vWx (sandbox secret), in the OS keyring"
    )

    done = keys("delete", "--profile", keyring_profile)
    assert done.returncode == 0
    assert "deleted the secret key" in done.stdout
    assert secrets.get_secret(keyring_profile) is None

    done = keys("delete", "--profile", keyring_profile)
    assert done.returncode == 0
    assert "nothing to delete" in done.stdout

    done = keys("show", "--profile", keyring_profile)
    assert done.returncode == 1
    assert f"payscope keys set --profile {keyring_profile}" in done.stderr


@keyring_test
def test_production_key_needs_allow_production(
    real_keyring: KeyringBackend, keyring_profile: str
) -> None:
    done = keys("set", "--profile", keyring_profile, stdin=PRODUCTION)
    assert done.returncode == 1
    assert "--allow-production" in done.stderr
    assert PRODUCTION not in done.stderr
    assert secrets.get_secret(keyring_profile) is None

    done = keys("set", "--profile", keyring_profile, "--allow-production", stdin=PRODUCTION)
    assert done.returncode == 0, done.stderr
    assert secrets.get_secret(keyring_profile) == PRODUCTION
    done = keys("show", "--profile", keyring_profile)
    assert "prd_...u4qa (production secret)" in done.stdout


@keyring_test
def test_kinds_and_input_edge_cases(real_keyring: KeyringBackend, keyring_profile: str) -> None:
    done = keys(
        "set", "--profile", keyring_profile, "--kind", "publishable", stdin=PK_SANDBOX + "\r\n"
    )
    assert done.returncode == 0, done.stderr
    assert secrets.get_secret(keyring_profile, "publishable") == PK_SANDBOX
    assert secrets.get_secret(keyring_profile, "secret") is None

    done = keys(
        "set", "--profile", keyring_profile, "--kind", "webhook", stdin="whsec-0123456789abcdef"
    )
    assert done.returncode == 0, done.stderr
    done = keys("show", "--profile", keyring_profile, "--kind", "webhook")
    assert (
        done.stdout.strip()
        == f"{keyring_profile} webhook signing secret: ...cdef, in the OS keyring"
    )

    empty = keys("set", "--profile", keyring_profile, stdin="\n")
    assert empty.returncode == 1
    assert "no secret key given" in empty.stderr

    wrong_kind = keys("set", "--profile", keyring_profile, stdin=PK_SANDBOX)
    assert wrong_kind.returncode == 1
    assert "--kind publishable" in wrong_kind.stderr

    # Only one trailing newline is stripped; a key with two lines is not a key.
    two_lines = keys("set", "--profile", keyring_profile, stdin=SANDBOX + "\n\n")
    assert two_lines.returncode == 1
    assert SANDBOX not in two_lines.stderr
    assert secrets.get_secret(keyring_profile, "secret") is None


@keyring_test
def test_show_notes_an_env_override(real_keyring: KeyringBackend, keyring_profile: str) -> None:
    secrets.set_secret(keyring_profile, SANDBOX)
    done = keys("show", "--profile", keyring_profile, env={"PAYSCOPE_API_KEY": PRODUCTION})
    assert done.returncode == 0
    assert "snd_...9vWx" in done.stdout
    assert "PAYSCOPE_API_KEY is set and overrides it" in done.stderr
    assert PRODUCTION not in done.stdout + done.stderr
