"""Export (tui/payscope/api/export.py, `payscope export`): every record the filter matches, all
pages, to
CSV or JSON Lines; money in minor units and decimals; no formula injection; a cancelled or failed
export leaves nothing under the chosen name. Against a real sandbox over HTTP."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path
from typing import Any

import pytest

from payscope.api.export import ExportError, export_records, flatten, neutralise
from payscope.api.models.payments import PaymentCreateRequest, PaymentListRequest
from tests.tools.conftest import Service, payscope
from tests.waits import awaited, until

HOSTILE = ['=HYPERLINK("http://evil")', "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "plain"]


async def make_payments(service: Service, count: int, **fields: Any) -> list[str]:
    ids = []
    for index in range(count):
        body = {"amount": 1000 + index, "currency": "USD", "confirm": False, **fields}
        made = await service.client.payments.create(PaymentCreateRequest.model_validate(body))
        ids.append(made.payment_id)
    return ids


def payments_fetch(service: Service, **filters: Any) -> Any:
    async def fetch(offset: int, limit: int) -> tuple[list[Any], int | None]:
        page = await service.client.payments.list(
            PaymentListRequest(limit=limit, offset=offset, **filters)
        )
        return list(page.data), page.total_count

    return fetch


def test_neutralise_stops_formulas_and_keeps_numbers() -> None:
    assert [neutralise(t) for t in HOSTILE] == [
        '\'=HYPERLINK("http://evil")',
        "'+1+1",
        "'-2+3",
        "'@SUM(A1)",
        "'\tTAB",
        "plain",
    ]
    assert neutralise("-12.50") == "-12.50"
    assert flatten({"a": {"b": 1}, "n": None, "t": True}) == {"a": '{"b":1}', "n": "", "t": "true"}


async def test_every_page_is_exported_with_money_in_minor_units_and_decimals(
    service: Service, tmp_path: Path
) -> None:
    ids = await make_payments(service, 230)
    seen: list[tuple[int, int | None]] = []
    out = tmp_path / "all.jsonl"
    result = await export_records(
        payments_fetch(service),
        out,
        "jsonl",
        key=lambda p: p.payment_id,
        progress=lambda done, total: seen.append((done, total)),
        page_size=50,
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert result.count == len(rows) == 230
    assert {r["payment_id"] for r in rows} == set(ids)
    assert seen[-1] == (230, 230) and len(seen) == 5  # one report a page
    one = next(r for r in rows if r["amount"] == 1005)
    assert one["amount_decimal"] == "10.05" and one["currency"] == "USD"


async def test_a_zero_decimal_currency_has_no_fraction(service: Service, tmp_path: Path) -> None:
    await make_payments(service, 1, currency="JPY")
    out = tmp_path / "jpy.csv"
    await export_records(payments_fetch(service, currency="JPY"), out, "csv")
    (row,) = list(csv.DictReader(out.open()))
    assert row["amount"] == "1000" and row["amount_decimal"] == "1000" and row["currency"] == "JPY"


async def test_hostile_text_is_exported_as_text(service: Service, tmp_path: Path) -> None:
    for text in HOSTILE:
        await make_payments(service, 1, description=text)
    csv_out, jsonl_out = tmp_path / "h.csv", tmp_path / "h.jsonl"
    await export_records(payments_fetch(service), csv_out, "csv")
    await export_records(payments_fetch(service), jsonl_out, "jsonl")
    described = {r["description"] for r in csv.DictReader(csv_out.open())}
    assert described == {neutralise(t) for t in HOSTILE}
    assert not any(d.startswith(("=", "+", "-", "@", "\t")) for d in described)
    # JSON Lines is data, not a spreadsheet: the text is kept exactly.
    exact = {json.loads(line)["description"] for line in jsonl_out.read_text().splitlines()}
    assert exact == set(HOSTILE)


async def test_a_cancelled_export_leaves_nothing_under_its_name(
    service: Service, tmp_path: Path
) -> None:
    await make_payments(service, 120)
    folder = tmp_path / "exports"
    folder.mkdir()
    out = folder / "cancel.csv"
    out.write_text("the user's old file\n")
    gate = asyncio.Event()
    inner = payments_fetch(service)

    async def slow(offset: int, limit: int) -> tuple[list[Any], int | None]:
        if offset:
            gate.set()
            await asyncio.sleep(30)
        return await inner(offset, limit)

    # --force: the old file may be replaced, but only by a finished export.
    task = asyncio.create_task(export_records(slow, out, "csv", page_size=50, force=True))
    await awaited(
        asyncio.wait({task, asyncio.ensure_future(gate.wait())}, return_when="FIRST_COMPLETED")
    )
    assert not task.done(), "the export ended before its second page"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert out.read_text() == "the user's old file\n"
    assert sorted(p.name for p in folder.iterdir()) == ["cancel.csv"]  # no partial left


async def test_a_failed_export_leaves_nothing(service: Service, tmp_path: Path) -> None:
    from payscope.api import errors

    await make_payments(service, 3)
    folder = tmp_path / "exports"
    folder.mkdir()
    out = folder / "fail.jsonl"

    async def breaks(offset: int, limit: int) -> tuple[list[Any], int | None]:
        if offset:
            await service.client.payments.retrieve("pay_missing000000000000")
        return await payments_fetch(service)(offset, 2)

    with pytest.raises(errors.NotFoundError):
        await export_records(breaks, out, "jsonl", page_size=2)
    assert list(folder.iterdir()) == []
    with pytest.raises(ExportError, match="not a directory"):
        await export_records(breaks, tmp_path / "no" / "x.csv", "csv")


# -- the command line ----------------------------------------------------------------------------


async def test_cli_exports_what_the_filter_matches(service: Service, tmp_path: Path) -> None:
    await make_payments(service, 5, currency="EUR")
    await make_payments(service, 3, currency="GBP")
    out = tmp_path / "eur.csv"
    done = await payscope(
        "export",
        "payments",
        "--profile",
        "box",
        "--filter",
        "currency:EUR",
        "--format",
        "csv",
        "--output",
        str(out),
    )
    assert done.status == 0, done.err
    assert done.out.strip() == f"5 payments written to {out}"
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 5 and {r["currency"] for r in rows} == {"EUR"}
    assert "read 5 of 5 payments" in done.err  # progress


async def test_cli_a_view_filter_reads_every_page(service: Service, tmp_path: Path) -> None:
    await make_payments(service, 150)
    await make_payments(service, 2, customer_id=None, description="=cmd|' /C calc'!A0")
    out = tmp_path / "amounts.jsonl"
    done = await payscope(
        "export",
        "payments",
        "--profile",
        "box",
        "--filter",
        "amount:10.00-10.09",
        "--format",
        "jsonl",
        "--output",
        str(out),
        "--quiet",
    )
    assert done.status == 0, done.err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["amount"] for r in rows) == sorted([*range(1000, 1010), 1000, 1001])


async def test_cli_a_bad_filter_is_said_and_writes_nothing(
    service: Service, tmp_path: Path
) -> None:
    out = tmp_path / "x.csv"
    done = await payscope(
        "export", "payments", "--profile", "box", "--filter", "colour:red", "--output", str(out)
    )
    assert done.status == 2
    assert "Unknown filter `colour:`" in done.err
    assert not out.exists()


# -- every list area the TUI exports -------------------------------------------------------------


async def every_id(service: Service, area: str, **filters: Any) -> set[str]:
    """Every id of `area`'s list, read page by page straight from the service."""
    from payscope.api.models.links import PaymentLinkListRequest
    from payscope.api.models.payouts import PayoutListRequest
    from payscope.api.models.subscriptions import SubscriptionListRequest

    client = service.client
    if area == "users":
        return {str(u.email) for u in (await client.users.list()).data}
    found: set[str] = set()
    while True:
        offset = len(found)
        if area == "payouts":
            page = await client.payouts.list(PayoutListRequest(limit=100, offset=offset, **filters))
            ids = [p.payout_id for p in page.data]
        elif area == "links":
            page = await client.payment_links.list(PaymentLinkListRequest(limit=100, offset=offset))
            ids = [p.payment_link_id for p in page.data]
        else:
            page = await client.sandbox.subscriptions(
                SubscriptionListRequest(limit=100, offset=offset, **filters)
            )
            ids = [s.id for s in page.data]
        found.update(str(i) for i in ids)
        if not ids or len(found) >= (page.total_count or 0):
            return found


@pytest.mark.parametrize(
    ("area", "key", "flt", "filters"),
    [
        ("payouts", "payout_id", "", {}),
        ("payouts", "payout_id", "status:success", {"status": ["success"]}),
        ("subscriptions", "id", "", {}),
        ("subscriptions", "id", "status:active", {"status": ["active"]}),
        ("links", "payment_link_id", "", {}),
        ("users", "email", "", {}),
    ],
)
async def test_cli_exports_every_list_area_of_the_tui(
    service: Service, tmp_path: Path, area: str, key: str, flt: str, filters: dict[str, Any]
) -> None:
    service.box.seed(300, lifelike=False)
    expected = await every_id(service, area, **filters)
    assert expected  # the seed made some of each
    out = tmp_path / f"{area}.jsonl"
    done = await payscope(
        "export", area, "--profile", "box", "--filter", flt, "--format", "jsonl",
        "--output", str(out), "--quiet",
    )  # fmt: skip
    assert done.status == 0, done.err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {str(r[key]) for r in rows} == expected
    assert len(rows) == len(expected)
    assert done.out.strip() == f"{len(rows)} {area} written to {out}"


async def test_cli_exports_the_codes_as_the_codes_list_shows_them(
    service: Service, tmp_path: Path
) -> None:
    from payscope.areas.codes.view import unified_codes

    out = tmp_path / "codes.csv"
    done = await payscope(
        "export", "codes", "--profile", "box", "--filter", "retry:no", "--output", str(out),
        "--quiet",
    )  # fmt: skip
    assert done.status == 0, done.err
    rows = list(csv.DictReader(out.open()))
    listed = unified_codes()
    assert 0 < len(rows) < len(listed)  # the filter kept some, not all
    infos = [json.loads(r["info"]) for r in rows]
    assert [i["code"] for i in infos] == [i.code for i in listed if i.retryable is False]
    assert all(i["retryable"] is False and i["meaning"] for i in infos)


async def test_cli_exports_the_events_the_profiles_listener_journaled(
    service: Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from payscope.app.runtime.listener_dirs import listener_dir_for
    from payscope.webhooks.listener import Listener
    from tests.sandbox.conftest import payment_body

    data = tmp_path / "data"
    monkeypatch.setenv("PAYSCOPE_DATA_DIR", str(data))
    out = tmp_path / "events.jsonl"
    args = ("export", "events", "--profile", "box", "--format", "jsonl", "--output", str(out))
    nothing = await payscope(*args)
    assert nothing.status == 1 and "no webhook has been journaled" in nothing.err
    assert not out.exists()

    secret = "whsec-export-" + "y" * 40
    listener = Listener(listener_dir_for(data, "box"), [secret])
    await listener.start(port=0)
    try:
        service.box.set_webhook(listener.url, secret)
        await make_payments(service, 3)
        paid = await service.client.payments.create(
            PaymentCreateRequest.model_validate(payment_body(amount=700))
        )
        await until(lambda: listener.journal.count("payment_succeeded", paid.payment_id))
        total = listener.journal.count()
        assert total >= 1
    finally:
        await listener.stop()
    done = await payscope(*args)
    assert done.status == 0, done.err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == total
    mine = await payscope(
        "export", "events", "--profile", "box",
        "--filter", f"type:payment_succeeded {paid.payment_id}", "--format", "jsonl",
        "--output", str(tmp_path / "one.jsonl"), "--quiet",
    )  # fmt: skip
    assert mine.status == 0, mine.err
    (one,) = [json.loads(line) for line in (tmp_path / "one.jsonl").read_text().splitlines()]
    assert one["object_id"] == paid.payment_id and one["event_type"] == "payment_succeeded"


async def test_cli_interrupted_leaves_no_file_under_the_name_nor_a_temporary_one(
    service: Service, tmp_path: Path
) -> None:
    """SIGINT to a `payscope export` this test started, while it reads pages: it says it was
    cancelled, and the folder is as it was."""
    import signal
    import sys

    from tests.tools.conftest import ROOT

    service.box.seed(20_000, lifelike=False)
    folder = tmp_path / "exports"
    folder.mkdir()
    out = folder / "all.csv"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "payscope", "export", "payments", "--profile", "box",
        "--output", str(out),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
    )  # fmt: skip
    assert proc.stderr is not None
    said = b""
    while b"read " not in said:  # its first page is in: it is mid-export
        chunk = await awaited(proc.stderr.read(64))
        assert chunk, said
        said += chunk
    proc.send_signal(signal.SIGINT)  # the process this test started
    out_bytes, err_rest = await awaited(proc.communicate())
    err = (said + err_rest).decode()
    assert proc.returncode == 130, err
    assert f"cancelled; nothing was written to {out}" in err
    assert out_bytes == b""
    assert list(folder.iterdir()) == []
