"""Export writes only regular files (issue 38): a FIFO, a device, a directory or a symlink to
anything but a regular file is refused before a page is read, and left as it was; a file
already there needs --force; `--output -` is standard output; no export carries a secret-like
field. The real things: a FIFO made with mkfifo, /dev/null, real symlinks, a real sandbox."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from payscope.api.export import ExportError, ExportExists, export_records, without_secrets
from payscope.api.models.payments import PaymentListRequest
from payscope.api.secret_fields import is_secret_field
from tests.tools.conftest import Service, payscope
from tests.tools.test_export import make_payments, payments_fetch
from tests.waits import awaited


def hostile_targets(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Each thing export must not write into (in `tmp_path`/targets), and what the refusal
    says of it."""
    tmp_path = tmp_path / "targets"
    tmp_path.mkdir()
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    to_fifo = tmp_path / "to-pipe.csv"
    to_fifo.symlink_to(fifo)
    to_dev = tmp_path / "to-null.csv"
    to_dev.symlink_to("/dev/null")
    to_dir = tmp_path / "to-folder.csv"
    to_dir.symlink_to(folder)
    dangling = tmp_path / "to-nothing.csv"
    dangling.symlink_to(tmp_path / "missing" / "x.csv")
    return {
        "fifo": (fifo, "is a named pipe (FIFO)"),
        "device": (Path("/dev/null"), "is a character device"),
        "directory": (folder, "is a directory"),
        "link to a fifo": (to_fifo, "is a symlink to a named pipe (FIFO)"),
        "link to a device": (to_dev, "is a symlink to a character device"),
        "link to a directory": (to_dir, "is a symlink to a directory"),
        "dangling link": (dangling, "is a symlink to nothing"),
    }


def snapshot(path: Path) -> tuple[int, int, int, str | None]:
    """What the thing at `path` is: its kind, inode, size, and where a link points."""
    own = os.lstat(path)
    link = os.readlink(path) if stat.S_ISLNK(own.st_mode) else None
    return (stat.S_IFMT(own.st_mode), own.st_ino, own.st_size, link)


async def test_every_hostile_target_is_refused_and_left_as_it_was(
    service: Service, tmp_path: Path
) -> None:
    await make_payments(service, 2)
    targets = hostile_targets(tmp_path)
    before = {name: snapshot(path) for name, (path, _) in targets.items()}
    read: list[int] = []
    inner = payments_fetch(service)

    async def fetch(offset: int, limit: int) -> tuple[list[Any], int | None]:
        read.append(offset)
        return await inner(offset, limit)

    for name, (path, said) in targets.items():
        for force in (False, True):
            with pytest.raises(ExportError) as caught:
                await export_records(fetch, path, "csv", force=force)
            message = str(caught.value)
            assert said in message, (name, message)
            assert str(path) in message and "nothing was written" in message, message
    assert read == []  # refused before the first page
    assert {name: snapshot(path) for name, (path, _) in targets.items()} == before
    # Nothing left beside them either (no temporary file).
    folder = tmp_path / "targets"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        p.name for p, _ in targets.values() if p.parent == folder
    )


async def test_an_existing_file_needs_force_and_a_link_to_one_keeps_the_link(
    service: Service, tmp_path: Path
) -> None:
    await make_payments(service, 3)
    out = tmp_path / "old.csv"
    out.write_text("the user's old file\n")
    with pytest.raises(ExportExists, match="already exists: nothing was written"):
        await export_records(payments_fetch(service), out, "csv")
    assert out.read_text() == "the user's old file\n"
    result = await export_records(payments_fetch(service), out, "csv", force=True)
    assert result.count == 3 and len(list(csv.DictReader(out.open()))) == 3

    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    with pytest.raises(ExportExists):
        await export_records(payments_fetch(service), link, "jsonl")
    assert real.read_text() == "old\n"
    await export_records(payments_fetch(service), link, "jsonl", force=True)
    assert link.is_symlink() and os.readlink(link) == str(real)  # the link is kept
    assert len(real.read_text().splitlines()) == 3
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o600  # an export is its owner's only


async def test_no_export_carries_a_secret_like_field(service: Service, tmp_path: Path) -> None:
    """The sandbox's payments carry `client_secret`; neither format keeps it, nor any field
    named like a secret at any depth."""
    await make_payments(service, 2)
    page = await service.client.payments.list(PaymentListRequest(limit=5))
    assert all(p.client_secret for p in page.data)  # there is one to leave out
    for fmt in ("csv", "jsonl"):
        out = tmp_path / f"p.{fmt}"
        await export_records(payments_fetch(service), out, fmt)
        text = out.read_text()
        assert "client_secret" not in text
        for p in page.data:
            assert str(p.client_secret) not in text
    nested = {
        "id": "x",
        "metadata": {"webhook_secret": "w", "note": "kept", "list": [{"new_password": "p"}]},
        "API_KEY": "k",
        "publishable_key": "pk_snd_public",
    }
    assert without_secrets(nested) == {
        "id": "x",
        "metadata": {"note": "kept", "list": [{}]},
        "publishable_key": "pk_snd_public",
    }
    assert is_secret_field("Client_Secret") and is_secret_field("merchant_api_key")
    assert not is_secret_field("publishable_key") and not is_secret_field("secretary")


async def test_a_stream_takes_the_records(service: Service) -> None:
    await make_payments(service, 4)
    stream = io.StringIO()
    result = await export_records(payments_fetch(service), Path("-"), "csv", out=stream)
    assert result.count == 4
    assert len(list(csv.DictReader(io.StringIO(stream.getvalue())))) == 4


# -- the command line ----------------------------------------------------------------------------


async def test_cli_refuses_a_fifo_a_device_and_a_directory(
    service: Service, tmp_path: Path
) -> None:
    await make_payments(service, 1)
    for name, (path, said) in hostile_targets(tmp_path).items():
        before = snapshot(path)
        done = await payscope(
            "export", "payments", "--profile", "box", "--output", str(path), "--force"
        )
        assert done.status == 1, (name, done.err)
        assert said in done.err and "export writes only regular files" in done.err, done.err
        assert "Traceback" not in done.err and done.out == ""
        assert snapshot(path) == before, name


async def test_cli_an_existing_file_needs_force(service: Service, tmp_path: Path) -> None:
    await make_payments(service, 2)
    out = tmp_path / "p.jsonl"
    out.write_text("keep me\n")
    args = ("export", "payments", "--profile", "box", "--format", "jsonl", "--output", str(out))
    refused = await payscope(*args)
    assert refused.status == 1
    assert f"{out} already exists" in refused.err and "--force" in refused.err
    assert out.read_text() == "keep me\n"
    forced = await payscope(*args, "--force", "--quiet")
    assert forced.status == 0, forced.err
    assert forced.out.strip() == f"2 payments written to {out}"
    assert len(out.read_text().splitlines()) == 2


async def test_cli_dash_is_standard_output_and_no_file(service: Service, tmp_path: Path) -> None:
    await make_payments(service, 3)
    done = await payscope(
        "export", "payments", "--profile", "box", "--format", "jsonl", "--output", "-"
    )
    assert done.status == 0, done.err
    rows = [json.loads(line) for line in done.out.splitlines()]
    assert len(rows) == 3 and all("client_secret" not in r for r in rows)
    assert "3 payments written to standard output" in done.err
    from tests.tools.conftest import ROOT

    assert not (ROOT / "-").exists()


async def test_cli_a_relative_output_is_said_as_its_whole_path(
    service: Service, tmp_path: Path
) -> None:
    import asyncio
    import sys

    from tests.tools.conftest import ROOT

    await make_payments(service, 1)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "payscope", "export", "payments", "--profile", "box",
        "--output", "here.csv", "--quiet",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    out, err = await awaited(proc.communicate())
    assert proc.returncode == 0, err.decode()
    assert out.decode().strip() == f"1 payments written to {tmp_path / 'here.csv'}"
