"""Identifiers in the reference's shapes: a prefix and 20 random characters.

`pay_`, `cus_`, `ref_`, `dp_`, `payout_`, `plink_`, `pro_`, `evt_`, `sub_`, `inv_`, `pm_`, ...
Event and payment ids are time-ordered (a millisecond stamp first) so they sort like their
creation: a new row then lands on the last page of every index keyed by the id, where a random
id would dirty a page anywhere in the index, and each commit would write several times more.
"""

from __future__ import annotations

import random
import secrets
import string

ALPHABET = string.ascii_letters + string.digits
_LOWER = string.ascii_lowercase + string.digits
_B32 = "0123456789abcdefghjkmnpqrstvwxyz"


def random_part(n: int = 20, rng: random.Random | None = None) -> str:
    """`n` characters of letters and digits (from `rng` when seeding deterministically)."""
    if rng is not None:
        return "".join(rng.choices(ALPHABET, k=n))
    # 62 symbols from random bytes: the slight modulo bias costs well under a bit of the
    # ~119 bits of a 20-character id, and this is 20x faster than secrets.choice per char.
    return "".join([ALPHABET[b % 62] for b in secrets.token_bytes(n)])


def new_id(prefix: str, rng: random.Random | None = None) -> str:
    """`<prefix>_<20 random characters>`."""
    return f"{prefix}_{random_part(20, rng)}"


def time_ordered_id(prefix: str, ts: float) -> str:
    """`<prefix>_<10-char millisecond stamp><10 random>`: sorts by creation time."""
    ms = int(ts * 1000)
    stamp = ""
    for _ in range(10):
        stamp = _B32[ms & 31] + stamp
        ms >>= 5
    tail = "".join([_LOWER[b % 36] for b in secrets.token_bytes(10)])
    return f"{prefix}_{stamp}{tail}"


def secret_key(prefix: str) -> str:
    """An API key like `snd_...` or `pk_snd_...` (32 random characters)."""
    return f"{prefix}_{random_part(32)}"
