"""`E` in a list exports every record its filter matches (all pages, not the one shown) from
the TUI, on the seeded embedded sandbox; a path that names no format is refused, nothing written."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path
from typing import Any

from textual.widgets import Input, Static

from payscope.api.models.payments import PaymentListRequest
from payscope.views.export_run import ExportScreen
from tests.tui.pilot import apply_filter, open_list, shown_text, until
from tests.tui.snapshot_app import build
from tests.waits import on_screen

Dirs = tuple[Path, Path]


async def all_payments(app: object, **filters: object) -> list[dict[str, object]]:
    client = app.runtime.api  # type: ignore[attr-defined]
    found: list[dict[str, object]] = []
    while True:
        page = await client.payments.list(
            PaymentListRequest(limit=100, offset=len(found), **filters)
        )
        found.extend(p.model_dump(mode="json") for p in page.data)
        if len(found) >= (page.total_count or 0) or not page.data:
            return found


async def test_e_exports_every_page_the_filter_matches(dirs: Dirs, tmp_path: Path) -> None:
    from payscope.areas.payments.view import PaymentsView

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await open_list(pilot, "payments", PaymentsView)
        everything = await all_payments(app)
        view.page_size = 15  # pages of 15: the export reads three of them, the list shows one
        view.load()
        await app.workers.wait_for_complete()
        assert len(everything) > 2 * view.page_size == 2 * len(view.rows)
        await pilot.press("E")
        await until(lambda: on_screen(app, ExportScreen))
        out = tmp_path / "all.jsonl"
        app.screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        await until(lambda: not isinstance(app.screen, ExportScreen))
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert {r["payment_id"] for r in rows} == {p["payment_id"] for p in everything}

        await apply_filter(pilot, view, "status:failed")
        failed = await all_payments(app, status="failed")
        assert failed
        await pilot.press("E")
        await until(lambda: on_screen(app, ExportScreen))
        screen = app.screen
        assert "status:failed" in shown_text(screen.query_one("#export-title", Static))
        bad = tmp_path / "failed.txt"
        screen.query_one(Input).value = str(bad)
        await pilot.press("enter")
        await pilot.pause()
        assert ".csv or .jsonl" in shown_text(screen.query_one("#export-state", Static))
        assert not bad.exists()
        out = tmp_path / "failed.csv"
        screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        await until(lambda: not isinstance(app.screen, ExportScreen))
        rows_csv = list(csv.DictReader(out.open()))
        assert sorted(r["payment_id"] for r in rows_csv) == sorted(
            str(p["payment_id"]) for p in failed
        )
        assert all(r["status"] == "failed" for r in rows_csv)
        first = rows_csv[0]
        assert first["amount_decimal"] and first["currency"]


async def test_esc_cancels_a_running_export_and_leaves_no_file(dirs: Dirs, tmp_path: Path) -> None:
    """Esc while the export reads its pages: no file under the chosen name, no temporary file
    beside it, and the list is as it was."""
    from payscope.areas.payments.view import PaymentsView

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await open_list(pilot, "payments", PaymentsView)
        everything = await all_payments(app)
        view.page_size = 1  # one payment a page: the export takes many reads
        view.load()
        await app.workers.wait_for_complete()
        # The export's reads after its first wait until Esc was pressed: it is mid-export
        # then however fast the machine (it once read every page before Esc came).
        esc_pressed = asyncio.Event()
        read_page = view.fetch_page
        reads = 0

        async def held(*args: Any, **kwargs: Any) -> Any:
            nonlocal reads
            reads += 1
            if reads > 1:
                await esc_pressed.wait()
            return await read_page(*args, **kwargs)

        view.fetch_page = held  # type: ignore[method-assign]
        await pilot.press("E")
        await until(lambda: on_screen(app, ExportScreen))
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        folder = tmp_path / "exports"
        folder.mkdir()
        out = folder / "cancelled.jsonl"
        screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        await until(lambda: screen.read > 0)  # mid-export: its temporary file is open
        assert screen.running and screen.read < len(everything)
        assert [p.name for p in folder.iterdir() if p.name.endswith(".partial")]
        await pilot.press("escape")
        esc_pressed.set()  # an export Esc did not stop would now read on, and write its file
        await until(lambda: app.screen is not screen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.result is None
        assert list(folder.iterdir()) == []
        assert len(view.rows) == 1


async def test_export_is_in_the_footer_and_writes_only_regular_files(
    dirs: Dirs, tmp_path: Path, monkeypatch: object
) -> None:
    """`E` shows in a list's footer (issue 41); a FIFO, /dev/null and a directory are refused
    and left as they were; a file already there is replaced only on a second Enter; a name
    without a folder is said as its whole path."""
    import os
    import stat

    from payscope.areas.payments.view import PaymentsView

    folder = tmp_path / "exports"
    folder.mkdir()
    fifo = folder / "pipe.csv"
    os.mkfifo(fifo)
    (folder / "dir.csv").mkdir()
    (folder / "null.csv").symlink_to("/dev/null")
    old = folder / "old.csv"
    old.write_text("the user's old file\n")
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await open_list(pilot, "payments", PaymentsView)

        # FooterKey: Textual's footer key, found by its CSS type (the class is not exported).
        def footer() -> list[tuple[str, str]]:
            return [(k.key_display, k.description) for k in app.screen.query("FooterKey")]

        await until(lambda: ("E", "Export") in footer())
        await pilot.press("E")
        await until(lambda: on_screen(app, ExportScreen))
        screen = app.screen
        state = screen.query_one("#export-state", Static)
        field = screen.query_one(Input)
        for path, said in (
            (fifo, "is a named pipe (FIFO)"),
            (folder / "null.csv", "is a symlink to a character device"),
            (folder / "dir.csv", "is a directory"),
        ):
            field.value = str(path)
            await pilot.press("enter")
            await pilot.pause()
            assert said in shown_text(state) and "nothing was written" in shown_text(state)
            assert not screen.running
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and (folder / "dir.csv").is_dir()
        assert os.readlink(folder / "null.csv") == "/dev/null"

        field.value = str(old)
        await pilot.press("enter")
        await pilot.pause()
        assert f"{old} already exists. Enter again replaces it" in shown_text(state)
        assert old.read_text() == "the user's old file\n"
        await pilot.press("enter")  # confirmed
        await until(lambda: not isinstance(app.screen, ExportScreen), 20)
        assert old.read_text().startswith("payment_id,")
        assert sorted(p.name for p in folder.iterdir()) == [
            "dir.csv",
            "null.csv",
            "old.csv",
            "pipe.csv",
        ]

        monkeypatch.chdir(folder)  # type: ignore[attr-defined]
        await pilot.press("E")
        await until(lambda: on_screen(app, ExportScreen))
        app.screen.query_one(Input).value = "here.jsonl"
        await pilot.press("enter")
        await until(lambda: not isinstance(app.screen, ExportScreen), 20)
        assert (folder / "here.jsonl").is_file()
        whole = f"written to {folder / 'here.jsonl'}"
        assert any(whole in told[0] for told in app.told), app.told
        assert view.rows
