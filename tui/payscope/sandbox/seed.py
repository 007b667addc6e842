"""Demo seeding: `seed(state_or_path, n)` runs every resource's seeder in one transaction.

Deterministic for a given `n`: the generator is `random.Random(n)` and times are laid out
backwards from the start of the current UTC day on the sandbox clock. Runs on its own SQLite
connection, so it can run before the server starts or on a worker thread while it serves.
Seeded history writes no webhook events (it is the past, not news).
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from payscope.sandbox.db import connect
from payscope.sandbox.resource import SeedContext

if TYPE_CHECKING:
    from payscope.sandbox.state import SandboxState

DAY = 86400
# What a reset keeps: the keys, the profile, the webhook settings and the attached listeners
# (a curl, a backend or a payscope set up against this sandbox goes on working).
KEPT_TABLES = frozenset({"meta", "business_profiles", "api_keys", "webhook_listeners"})


def is_seeded(state: SandboxState) -> bool:
    """True once a seed run has completed on this data dir."""
    return state.db.get_meta("seeded") is not None


def seed(
    state: SandboxState,
    n: int,
    progress: Callable[[int, int], None] | None = None,
    *,
    lifelike: bool = True,
    replace: bool = False,
) -> int:
    """Write `n` demo payments (and what goes with them) unless already seeded; returns n written.

    `progress(done, total)` is called as payments are written. `lifelike=False` spreads the
    payments evenly over the period, not as a business sees them (see `SeedContext.lifelike`).
    `replace=True` (a reset) first removes every record but what `KEPT_TABLES` holds, in the
    same transaction: readers see the old data until the new is whole.
    """
    if n <= 0 or (is_seeded(state) and not replace):
        return 0
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass  # another thread: the loop commits its pending writes on its next turn
    else:
        state.db.flush()  # on the loop thread: commit pending writes, or we would wait on them
    conn = connect(state.db.path)
    try:
        now = state.clock.now()
        anchor = float(int(now // DAY) * DAY)
        report = progress or (lambda done, total: None)
        ctx = SeedContext(
            conn=conn,
            rng=random.Random(n),
            n=n,
            now=anchor,
            merchant_id=state.credentials.merchant_id,
            profile_id=state.credentials.profile_id,
            progress=lambda done: report(done, n),
            lifelike=lifelike,
        )
        conn.execute("BEGIN IMMEDIATE")
        try:
            if replace:
                _wipe(conn)
            for resource in state.resources:
                if resource.seed is not None:
                    resource.seed(ctx)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES('seeded', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(n),),
            )
            conn.execute(
                "INSERT INTO meta(key, value) VALUES('seeded_lifelike', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                ("1" if lifelike else "0",),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        report(n, n)
        return n
    finally:
        conn.close()


def _wipe(conn: sqlite3.Connection) -> None:
    """Delete every row but what `KEPT_TABLES` holds (inside the caller's transaction)."""
    tables = [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
        if name not in KEPT_TABLES
    ]
    for table in tables:
        conn.execute(f'DELETE FROM "{table}"')  # names from the schema itself, not from outside


def seeded_with(state: SandboxState) -> tuple[int, bool]:
    """How the demo data was seeded: (payments, lifelike); (0, True) when it never was."""
    try:
        n = int(state.db.get_meta("seeded") or 0)
    except ValueError:
        n = 0
    return n, state.db.get_meta("seeded_lifelike") != "0"


async def reset(
    state: SandboxState, default_n: int = 0, progress: Callable[[int, int], None] | None = None
) -> dict[str, object]:
    """Bring back the seeded demo data and the clock: the clock returns to real time, every
    record goes, and the demo data is written again as it was seeded (the same payments, laid
    out back from today), or with `default_n` payments when it never was. Keys, the profile,
    the webhook settings and the attached listeners stay. On the sandbox's loop; the seeding
    runs on a thread, while the sandbox serves the old data."""
    n, lifelike = seeded_with(state)
    n = n or default_n
    async with state.outbox.lock:
        state.outbox.record_results()
        was = state.clock.offset
        state.clock.offset = 0.0
        state.db.set_meta("clock_offset", repr(0.0))
        state.db.flush()
        try:
            if n > 0:
                written = await asyncio.to_thread(
                    seed, state, n, progress, lifelike=lifelike, replace=True
                )
            else:
                written = 0
                with state.db.transaction() as conn:
                    _wipe(conn)
                state.db.flush()
        except BaseException:
            state.clock.offset = was
            state.db.set_meta("clock_offset", repr(was))
            raise
    return {"seeded_payments": written, "clock_offset_seconds": was}
