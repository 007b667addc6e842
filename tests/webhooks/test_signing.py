"""Signature verification with prepared keys, checked against the `hmac` module directly."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from payscope.webhooks.signing import Verifier, sign, verify

# Short, exactly one SHA-512 block (128 bytes), and longer than a block (the key is hashed first).
KEYS = ["k", "s" * 64, "b" * 128, "L" * 200, "clé-ünïcode-secret"]
BODIES = [b"", b'{"event_id":"evt_1"}', b"x" * 5000]  # 5000: over hashlib's GIL threshold


def reference(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha512).hexdigest()


@pytest.mark.parametrize("secret", KEYS)
@pytest.mark.parametrize("body", BODIES, ids=["empty", "small", "large"])
def test_a_verifier_accepts_exactly_the_hmac_of_the_body(secret: str, body: bytes) -> None:
    check = Verifier([secret])
    good = reference(body, secret)

    assert check(body, good) and check(body, good.encode())
    assert check(body, good.upper()), "hex in either case"
    assert check(body, f"  {good}\t"), "surrounding whitespace is not part of the signature"
    assert not check(body + b" ", good), "a changed body"
    assert not check(body, good[:-1] + ("0" if good[-1] != "0" else "1")), "a changed digit"
    assert not check(body, good[:64]), "a truncated signature"
    assert sign(body, secret) == good


def test_every_secret_of_a_rotation_is_accepted_and_no_other() -> None:
    body = b'{"event_id":"evt_rot"}'
    check = Verifier(["current-secret", "previous-secret"])

    assert check(body, reference(body, "current-secret"))
    assert check(body, reference(body, "previous-secret"))
    assert not check(body, reference(body, "another-secret"))
    # The same verifier is reused for every request: no state leaks between calls.
    assert check(body, reference(body, "current-secret"))


@pytest.mark.parametrize("signature", [None, "", b"", "é" * 128, b"\xff" * 128, "zz" * 64])
def test_missing_or_malformed_signatures_are_refused_without_raising(
    signature: str | bytes | None,
) -> None:
    assert Verifier(["secret"])(b"{}", signature) is False


def test_without_secrets_nothing_verifies() -> None:
    body = b"{}"
    assert Verifier([])(body, reference(body, "secret")) is False


def test_the_one_shot_verify_function_still_works() -> None:
    body = b'{"event_id":"evt_fn"}'
    assert verify(body, reference(body, "b"), ["a", "b"])
    assert not verify(body, reference(body, "c"), ["a", "b"])
    assert not verify(body, None, ["a"])
