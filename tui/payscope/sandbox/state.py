"""`SandboxState`: the database, clock, credentials, limits, faults and outbox of one sandbox.

Handlers reach it with `state_of(request)`. It also runs the background loop that delivers
webhooks and runs timed jobs as real time passes, and `advance()`, which moves the sandbox
clock and runs everything that falls due on the way, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.requests import Request

from payscope.core.waiting import wait_or_wake
from payscope.sandbox import credentials, keys, outbox
from payscope.sandbox.clock import Clock
from payscope.sandbox.config import SandboxConfig
from payscope.sandbox.credentials import Credentials
from payscope.sandbox.db import Database, unusable
from payscope.sandbox.files import DB_FILE
from payscope.sandbox.limits import Faults, RateLimiter
from payscope.sandbox.resource import Job, Resource

_MAX_STEPS = 100_000
_IDLE_POLL_SECONDS = 1.0
# Timed jobs run at most this often from the background loop (it turns for every event written
# and every answer received; the jobs are due by the clock, not by those).
_JOBS_EVERY_SECONDS = 0.2


class SandboxState:
    """Everything one running sandbox holds. Made by `Sandbox`, or directly in tests."""

    def __init__(self, config: SandboxConfig, resources: Sequence[Resource]) -> None:
        config.check()
        self.config = config
        self.resources = tuple(resources)
        path = Path(config.data_dir) / DB_FILE
        try:
            self.db = Database(path)
            for ddl in (credentials.SCHEMA, keys.SCHEMA):
                self.db.apply_schema(ddl)
            outbox.apply_schema(self.db)
            for resource in self.resources:
                self.db.apply_schema(resource.schema)
            offset = float(self.db.get_meta("clock_offset") or 0.0)
            self.clock = Clock(offset, config.time_source)
            self.credentials: Credentials = credentials.bootstrap(
                self.db, config, self.clock.now_iso()
            )
        except sqlite3.DatabaseError as exc:
            raise unusable(path, exc) from exc
        # Why this sandbox started with new keys though a database was there ("": it did not).
        self.started_afresh = (
            f"The sandbox's database {path} was empty (0 bytes), so the sandbox started afresh: "
            f"new keys and merchant id {self.credentials.merchant_id}. curl commands copied "
            "before no longer work."
            if self.db.was_empty
            else ""
        )
        self.limiter = RateLimiter(config.effective_rate_limit)
        self.faults = Faults(config.fault_rate, config.fault_seed)
        self.outbox = outbox.Outbox(self)
        self.jobs: tuple[Job[SandboxState], ...] = tuple(
            job for r in self.resources for job in r.jobs
        )
        # Stored keys found by their value (unknown keys are never cached: see middleware).
        self.key_cache: dict[str, keys.KeyRecord] = {}
        self._worker: asyncio.Task[None] | None = None

    # -- identity and webhook target ----------------------------------------------------

    def set_base_url(self, base_url: str) -> None:
        """Record where the sandbox listens (shown in `credentials`)."""
        c = self.credentials
        self.credentials = Credentials(
            base_url, c.merchant_id, c.profile_id, c.api_key, c.publishable_key, c.webhook_secret
        )

    def webhook_target(self) -> tuple[str | None, str]:
        """(webhook_url or None, signing secret) from the business profile."""
        row = self.db.conn.execute(
            "SELECT webhook_url, payment_response_hash_key FROM business_profiles "
            "WHERE profile_id = ?",
            (self.credentials.profile_id,),
        ).fetchone()
        if row is None:
            return None, self.credentials.webhook_secret
        return (row[0] or None), str(row[1])

    def webhook_targets(self) -> tuple[tuple[str, ...], str]:
        """(every endpoint a delivery goes to, signing secret): the business profile's
        `webhook_url` first, then each attached listener (each running payscope's), once."""
        url, secret = self.webhook_target()
        urls = [url] if url else []
        for (attached,) in self.db.conn.execute(
            "SELECT url FROM webhook_listeners ORDER BY attached_at, url"
        ):
            if attached not in urls:
                urls.append(str(attached))
        return tuple(urls), secret

    def attached_listeners(self) -> list[str]:
        """The listeners attached with `attach_listener`, first attached first."""
        return [
            str(url)
            for (url,) in self.db.conn.execute(
                "SELECT url FROM webhook_listeners ORDER BY attached_at, url"
            )
        ]

    def attach_listener(self, url: str) -> None:
        """Deliver every webhook to `url` too (a payscope's listener), until detached."""
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO webhook_listeners(url, attached_at) VALUES (?, ?)",
                (url, self.clock.now_iso()),
            )
        self.outbox.wake()

    def detach_listener(self, url: str) -> bool:
        """Stop delivering to `url` (a payscope that quits); False when it was not attached."""
        with self.db.transaction() as conn:
            gone = conn.execute("DELETE FROM webhook_listeners WHERE url = ?", (url,)).rowcount
        return bool(gone)

    def set_webhook(self, url: str | None, secret: str | None = None) -> None:
        """Point deliveries at `url` (None stops them), optionally with a new signing secret."""
        now = self.clock.now_iso()
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE business_profiles SET webhook_url = ?, "
                "payment_response_hash_key = COALESCE(?, payment_response_hash_key), "
                "modified_at = ? WHERE profile_id = ?",
                (url, secret, now, self.credentials.profile_id),
            )
        self.refresh_webhook_secret()
        self.outbox.wake()

    def refresh_webhook_secret(self) -> None:
        """Re-read the signing secret after the business profile changed."""
        _, secret = self.webhook_target()
        c = self.credentials
        self.credentials = Credentials(
            c.base_url, c.merchant_id, c.profile_id, c.api_key, c.publishable_key, secret
        )

    # -- the clock and what falls due -------------------------------------------------------

    def _save_offset(self) -> None:
        self.db.set_meta("clock_offset", repr(self.clock.offset))

    def next_due(self) -> float | None:
        """The earliest sandbox time at which any job or delivery is due."""
        conn = self.db.conn
        times = [job.next_due(conn) for job in self.jobs]
        times.append(self.outbox.next_due(conn))
        found = [t for t in times if t is not None]
        return min(found) if found else None

    def run_jobs(self, now: float) -> dict[str, int]:
        """Run every job for `now`; returns the count of changes per job name."""
        return {job.name: job.run(self, now) for job in self.jobs}

    async def process_due(self, *, jobs: bool = True) -> dict[str, int]:
        """Run due jobs, record the webhook answers received and start the due deliveries, at
        the current sandbox time. Never waits for a webhook endpoint."""
        self.outbox.record_results()
        now = self.clock.now()
        done = self.run_jobs(now) if jobs else {}
        done["webhook_attempts"] = self.outbox.dispatch(now)
        return done

    async def advance(self, seconds: float) -> dict[str, int]:
        """Move the clock forward by `seconds`, running each due item at its own time.

        A webhook retry due in one minute starts one minute into the jump, its next retry five
        minutes after that, and so on, exactly as if the time had passed. Webhook attempts are
        started, never waited for: an endpoint's answer (or its silence) cannot hold the clock.
        Retries that fall due inside the jump after an answer arrives go out at once, counted
        at their due times (see `outbox.note_jump`).
        """
        totals: dict[str, int] = {}

        def add(counts: dict[str, int]) -> int:
            for name, count in counts.items():
                totals[name] = totals.get(name, 0) + count
            return sum(counts.values())

        async with self.outbox.lock:
            self.outbox.record_results()
            base = self.clock.offset
            start = self.clock.now()
            target = start + seconds
            self.outbox.note_jump(start, target)
            for _ in range(_MAX_STEPS):
                due = self.next_due()
                if due is None or due > target:
                    break
                now = self.clock.now()
                if due > now:
                    self.clock.offset += due - now
                    now = self.clock.now()
                changed = add(self.run_jobs(now))
                changed += add({"webhook_attempts": self.outbox.dispatch(now)})
                if not changed:
                    break  # a job reported due work it could not do: do not spin
            self.clock.offset = base + seconds
            self._save_offset()
            now = self.clock.now()
            add(self.run_jobs(now))
            add({"webhook_attempts": self.outbox.dispatch(now)})
        return totals

    # -- background loop --------------------------------------------------------------------

    def ensure_worker(self) -> None:
        """Start the background loop on the running event loop, once."""
        if self._worker is not None and not self._worker.done():
            return
        _ = self.outbox.wake_event  # made now, so a wake() before the loop's first turn counts
        self.db.group_commit = True
        self._worker = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        wake = self.outbox.wake_event
        loop = asyncio.get_running_loop()
        jobs_at = -_JOBS_EVERY_SECONDS
        while True:
            await wait_or_wake(wake, _IDLE_POLL_SECONDS)
            wake.clear()
            jobs = loop.time() - jobs_at >= _JOBS_EVERY_SECONDS
            if jobs:
                jobs_at = loop.time()
            try:
                await self.process_due(jobs=jobs)
            except Exception:  # pragma: no cover - logged, the loop keeps going
                logging.getLogger("payscope.sandbox").exception("background pass failed")

    async def aclose(self) -> None:
        """Stop the background loop, close the HTTP client and the database."""
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._worker
            self._worker = None
        await self.outbox.aclose()
        self.db.close()


def state_of(request: Request) -> SandboxState:
    """The `SandboxState` behind the app serving `request`."""
    state: SandboxState = request.app.state.sandbox
    return state


def principal_of(request: Request) -> keys.Principal:
    """Who is calling (set by the auth middleware)."""
    principal: Any = request.scope.get("state", {}).get("principal")
    if not isinstance(principal, keys.Principal):
        raise RuntimeError("the auth middleware did not run for this route")
    return principal
