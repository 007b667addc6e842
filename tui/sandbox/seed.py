"""Demo seeding: `seed(state_or_path, n)` runs every resource's seeder in one transaction.

Deterministic for a given `n`: the generator is `random.Random(n)` and times are laid out
backwards from the start of the current UTC day on the sandbox clock. Runs on its own SQLite
connection, so it can run before the server starts or on a worker thread while it serves.
Seeded history writes no webhook events (it is the past, not news).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.sandbox.db import connect
from tui.sandbox.resource import SeedContext

if TYPE_CHECKING:
    from tui.sandbox.state import SandboxState

DAY = 86400


def is_seeded(state: SandboxState) -> bool:
    """True once a seed run has completed on this data dir."""
    return state.db.get_meta("seeded") is not None


def seed(
    state: SandboxState,
    n: int,
    progress: Callable[[int, int], None] | None = None,
    *,
    lifelike: bool = True,
) -> int:
    """Write `n` demo payments (and what goes with them) unless already seeded; returns n written.

    `progress(done, total)` is called as payments are written. `lifelike=False` spreads the
    payments evenly over the period, not as a business sees them (see `SeedContext.lifelike`).
    """
    if n <= 0 or is_seeded(state):
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
            for resource in state.resources:
                if resource.seed is not None:
                    resource.seed(ctx)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES('seeded', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(n),),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        report(n, n)
        return n
    finally:
        conn.close()
