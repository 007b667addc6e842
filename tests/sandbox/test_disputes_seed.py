"""Demo seeding: deterministic, varied, quiet (no seeder leaves work or a webhook due at
start) and served by the routes."""

from __future__ import annotations

from pathlib import Path

import httpx

from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY, make_sandbox

FROZEN = 1_750_000_000.0
TABLES = {
    "disputes": "SELECT dispute_id, status, stage, amount FROM disputes ORDER BY dispute_id",
    "subscriptions": "SELECT id, status, billing_at FROM subscriptions ORDER BY id",
    "payouts": "SELECT payout_id, status, payout_type, amount FROM payouts ORDER BY payout_id",
    "links": "SELECT payment_link_id, payment_id, status FROM payment_links ORDER BY 1",
    "users": "SELECT email, role_id, status FROM team_users ORDER BY email",
}


def snapshot(data: Path, n: int) -> dict[str, list[tuple[object, ...]]]:
    box = make_sandbox(data, time_source=lambda: FROZEN)
    box.seed(n)
    conn = box.state.db.conn
    found = {name: [tuple(r) for r in conn.execute(sql)] for name, sql in TABLES.items()}
    box.state.db.close()
    return found


def test_seed_is_deterministic_and_covers_every_state(tmp_path: Path) -> None:
    first = snapshot(tmp_path / "a", 800)
    assert first == snapshot(tmp_path / "b", 800)
    statuses = {row[1] for row in first["disputes"]}
    assert {"dispute_opened", "dispute_challenged", "dispute_won", "dispute_lost"} <= statuses
    assert {row[2] for row in first["disputes"]} >= {"pre_dispute", "dispute", "pre_arbitration"}
    assert {row[1] for row in first["subscriptions"]} >= {"active", "trial", "paused", "cancelled"}
    assert {row[2] for row in first["payouts"]} >= {"card", "bank", "wallet", "bank_redirect"}
    assert {row[1] for row in first["payouts"]} >= {"success", "failed", "requires_fulfillment"}
    assert {row[2] for row in first["links"]} == {"active", "expired"}
    assert {row[2] for row in first["users"]} == {"active", "invitation_sent"}


# One minute before midnight UTC: seeded times count back from the start of the day, so this
# is when seeded work is closest to falling due.
LATE_IN_THE_DAY = (FROZEN // 86400 + 1) * 86400 - 60


def stored(box: Sandbox) -> dict[str, list[tuple[object, ...]]]:
    conn = box.state.db.conn
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    # `meta` holds the clock offset, which advancing changes by design.
    return {
        t: sorted(map(tuple, conn.execute(f"SELECT * FROM {t}"))) for t in tables if t != "meta"
    }


async def test_no_seeder_leaves_work_due_at_start(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb", time_source=lambda: LATE_IN_THE_DAY)
    box.seed(1500)
    now = box.state.clock.now()
    names = {job.name for job in box.state.jobs}
    assert {"expired_payments", "settled_refunds", "scheduled_disputes"} <= names
    for job in box.state.jobs:
        due = job.next_due(box.state.db.conn)
        assert due is None or due > now + 3600, job.name
    assert box.state.outbox.next_due(box.state.db.conn) is None
    before = stored(box)
    ran = await box.state.advance(3600)
    assert not any(ran.values()), ran
    assert stored(box) == before
    await box.stop()


async def test_seeded_records_are_served_and_nothing_falls_due(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb")
    box.seed(400)
    for job in box.state.jobs:
        due = job.next_due(box.state.db.conn)
        assert due is None or due > box.state.clock.now() + 3600, job.name
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=box.app),
        base_url="http://sandbox.test",
        headers={"api-key": API_KEY, "X-Profile-Id": box.credentials.profile_id},
    ) as http:
        disputes = (await http.get("/disputes/list", params={"limit": 100})).json()
        assert disputes["total_count"] > 0
        one = disputes["data"][0]
        payment = (await http.get(f"/payments/{one['payment_id']}")).json()
        assert payment["amount_received"] >= one["amount"]
        payouts = (await http.get("/payouts/list", params={"limit": 100})).json()
        assert payouts["total_count"] >= 16
        numbers = [
            value
            for p in payouts["data"]
            for method in (p["payout_method_data"] or {}).values()
            for key, value in method.items()
            if key in ("card_number", "bank_account_number", "iban")
        ]
        assert numbers and all(n.startswith("*") for n in numbers)
        links = (await http.post("/payment_link/list", json={"limit": 100})).json()
        active = [link for link in links["data"] if link["status"] == "active"]
        page = await http.get(active[0]["link_to_pay"].removeprefix("http://sandbox.test"))
        assert page.status_code == 200
        users = (await http.get("/user/user/list")).json()
        assert len(users) == 6
        signin = await http.post(
            "/user/signin",
            json={"email": "admin@payscope.example", "password": "payscope-demo-123"},
        )
        assert signin.status_code == 200 and signin.json()["token"]
        week = {
            "timeRange": {"startTime": "2000-01-01T00:00:00Z", "endTime": "2100-01-01T00:00:00Z"},
            "metrics": ["dispute_status_metric"],
            "source": "BATCH",
        }
        counted = (await http.post("/analytics/v1/merchant/metrics/disputes", json=[week])).json()
        assert counted["queryData"][0]["total_dispute"] == disputes["total_count"]
    await box.stop()
