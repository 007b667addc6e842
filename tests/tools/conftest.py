"""A real local sandbox over HTTP, and a profile that names it, for the power tools' tests
(fixtures, export, read-only): the CLI runs in a subprocess against it."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from payscope.api.client import ApiClient
from payscope.core import config
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY, api_client, make_sandbox
from tests.waits import HANG

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


@dataclass
class Service:
    box: Sandbox
    url: str
    client: ApiClient

    def read_only_client(self) -> ApiClient:
        return api_client(self.box, self.url, read_only=True)


@pytest.fixture
async def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Service]:
    """A sandbox on a free loopback port; a client over HTTP; profile "box" names it, its key in
    PAYSCOPE_API_KEY (the CLI's subprocesses inherit both)."""
    box = make_sandbox(tmp_path / "box")
    url = await box.start()
    creds = box.credentials
    settings = config.add_profile(
        config.load_settings(),
        config.Profile(
            name="box",
            base_url=url,
            merchant_id=creds.merchant_id,
            profile_id=creds.profile_id,
            contract="spec",
        ),
    )
    config.save_settings(settings)
    monkeypatch.setenv("PAYSCOPE_API_KEY", API_KEY)
    client = api_client(box, url)
    try:
        yield Service(box, url, client)
    finally:
        await client.aclose()
        await box.stop()


@dataclass
class Done:
    status: int
    out: str
    err: str


async def payscope(*args: str, timeout: float = HANG) -> Done:
    """`payscope ARGS` in a subprocess, awaited (the sandbox keeps serving meanwhile)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "payscope",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode is not None
    return Done(proc.returncode, out.decode(), err.decode())
