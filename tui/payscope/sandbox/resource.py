"""What a resource module hands to the sandbox: routes, tables, timed jobs, a demo seeder.

See the package docstring (`tui/payscope/sandbox/__init__.py`) for how to add one.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Final, Generic, TypeVar

from fastapi import APIRouter

from payscope.sandbox.clock import iso

# What a job's `run` is given: the running sandbox's state (`payscope.sandbox.state.SandboxState`,
# which imports this module, so it is a parameter here rather than an import).
S = TypeVar("S")


# Enough to show in a preview of what is due; `upcoming` still counts every item it read.
MAX_DUE: Final = 200


@dataclass(frozen=True)
class Due:
    """One thing that falls due: when, what kind, which object, and a sentence about it."""

    at: float
    kind: str
    object_id: str
    text: str

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["at"] = iso(self.at)
        return out


def due_rows(
    conn: sqlite3.Connection, select: str, column: str, start: float, end: float
) -> list[tuple[Any, ...]]:
    """For a job's `due_between`: the rows of `select` (a SELECT ... WHERE ...) whose `column`
    is after `start` up to and including `end`, soonest first, at most `MAX_DUE`."""
    sql = f"{select} AND {column} > ? AND {column} <= ? ORDER BY {column} LIMIT ?"
    return conn.execute(sql, (start, end, MAX_DUE)).fetchall()


def due_list(
    conn: sqlite3.Connection,
    select: str,
    column: str,
    start: float,
    end: float,
    kind: str,
    text: str,
) -> list[Due]:
    """`due_rows` as `Due`s of `kind`: `select` reads (time, object id, *fields) and `text`
    formats them (`{0}` the object id, `{1}`... the fields)."""
    return [
        Due(float(row[0]), kind, str(row[1]), text.format(*row[1:]))
        for row in due_rows(conn, select, column, start, end)
    ]


def nothing_due(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    return []


@dataclass(frozen=True)
class Job(Generic[S]):
    """Work that falls due on the sandbox clock (expiry, settlement, renewals, ...).

    `next_due(conn)` gives the earliest sandbox time (epoch seconds) something is due, or None;
    `run(state, now)` does everything due at or before `now` (in its own transactions) and
    returns how many objects it changed. Advancing the clock steps through due times in order.
    `due_between(conn, start, end)` says what `run` would do after `start` up to and including
    `end`, soonest first (at most `MAX_DUE` per query), without changing anything: the clock's
    `upcoming` preview asks every job.
    """

    name: str
    next_due: Callable[[sqlite3.Connection], float | None]
    run: Callable[[S, float], int]
    due_between: Callable[[sqlite3.Connection, float, float], list[Due]] = nothing_due


@dataclass
class SeedContext:
    """Shared by the seeders of one `seed(n)` run (all in one transaction on `conn`).

    `shared` carries what earlier seeders wrote for later ones: the payments seeder puts
    `shared["payments"]`, a list of `SeededPayment`, and `shared["customers"]`, a list of ids.
    """

    conn: sqlite3.Connection
    rng: random.Random
    n: int
    now: float
    merchant_id: str
    profile_id: str
    progress: Callable[[int], None]
    shared: dict[str, Any] = field(default_factory=dict)
    # Demo data as a business sees it: payments pick up over the period and are fewer at
    # weekends and at night (charts show a trend). False spreads them evenly over the period,
    # the layout the tests' fixed data sets were built with.
    lifelike: bool = True


@dataclass(frozen=True)
class Resource:
    """One area of the service. Registered in `tui/payscope/sandbox/resources/__init__.py`."""

    name: str
    router: APIRouter | None = None
    schema: str = ""
    jobs: tuple[Job[Any], ...] = ()
    seed: Callable[[SeedContext], None] | None = None
