"""The local sandbox as a small background service, kept running between runs of the TUI.

Why: the TUI's live first page needs a running sandbox, and starting one (FastAPI, uvicorn,
every route, the database) costs more than the whole first paint. Kept running, the sandbox is
there at once next time, on the same port with the same keys, so a copied curl keeps working;
and quitting the TUI does not wait for it to stop.

- `python -m tui.sandbox.daemon --data DIR [--port N] [--seed N]` serves the sandbox in `DIR`
  (what `spawn` runs, detached). It writes `DIR/daemon.json` (pid, URL, phase, seeding
  progress, a note when the wanted port was taken; never a key) and removes it when it stops
  (SIGTERM or SIGINT).
- `read_state(DIR)` is what a client reads: None unless a live daemon owns the file.
- `read_credentials(DIR)` reads the sandbox's identity and keys from its own database (where
  the sandbox has always kept them), without starting anything.
- `stop(DIR)` ends it; `payscope sandbox status|stop` are the commands around these.

This module imports neither FastAPI nor Textual at import time: the TUI reads it on its start.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tui.private_files import open_private, private_dir
from tui.sandbox.files import STATE_FILE as STATE_FILE  # re-exported: the daemon's file
from tui.sandbox.files import alive as alive

LOG_FILE = "daemon.log"
HOST = "127.0.0.1"


@dataclass(frozen=True)
class DaemonState:
    """What `daemon.json` says: who serves, where, and how far it is."""

    pid: int
    url: str
    phase: str  # "starting", "seeding", "ready"
    done: int = 0
    total: int = 0
    note: str = ""  # e.g. the wanted port was taken

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[-1]) if self.url else 0


@dataclass(frozen=True)
class StoredCredentials:
    """The sandbox's identity, as stored in its database."""

    merchant_id: str
    profile_id: str
    api_key: str
    publishable_key: str
    webhook_secret: str

    def __repr__(self) -> str:
        return f"StoredCredentials(merchant_id={self.merchant_id!r}, keys='***')"


def read_state(directory: Path) -> DaemonState | None:
    """The daemon serving `directory`, or None (no file, a broken one, or its process is gone)."""
    try:
        data = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        state = DaemonState(**{k: data[k] for k in DaemonState.__dataclass_fields__ if k in data})
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return state if alive(state.pid) else None


def _write_state(directory: Path, state: DaemonState) -> None:
    path = directory / STATE_FILE
    temporary = path.with_suffix(".tmp")
    with open_private(temporary) as out:  # 0600, like everything in the sandbox's directory
        out.write(json.dumps(asdict(state)))
    os.replace(temporary, path)


def read_credentials(directory: Path) -> StoredCredentials | None:
    """The keys and ids in the sandbox's database in `directory` (None before its first run)."""
    import sqlite3

    from tui.sandbox.files import DB_FILE

    path = directory / DB_FILE
    if not path.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        row = conn.execute(
            "SELECT payment_response_hash_key FROM business_profiles WHERE profile_id = ?",
            (meta.get("profile_id"),),
        ).fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    try:
        return StoredCredentials(
            str(meta["merchant_id"]),
            str(meta["profile_id"]),
            str(meta["api_key"]),
            str(meta["publishable_key"]),
            str(row[0]) if row else "",
        )
    except KeyError:
        return None


def read_clock_offset(directory: Path) -> float:
    """How far the sandbox's clock runs ahead of real time (0 when unknown)."""
    try:
        value = _read_one(directory, "SELECT value FROM meta WHERE key = 'clock_offset'")
        return float(value) if value is not None else 0.0
    except ValueError:
        return 0.0


def read_webhook_url(directory: Path) -> str | None:
    """Where the sandbox delivers its webhooks now (None: held, or unknown)."""
    value = _read_one(
        directory,
        "SELECT webhook_url FROM business_profiles "
        "WHERE profile_id = (SELECT value FROM meta WHERE key = 'profile_id')",
    )
    return str(value) if value else None


def _read_one(directory: Path, sql: str) -> Any:
    """The first column of the first row `sql` reads from the sandbox's database, read-only
    (None when there is none, or the database cannot be read)."""
    import sqlite3

    from tui.sandbox.files import DB_FILE

    try:
        conn = sqlite3.connect(f"file:{directory / DB_FILE}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute(sql).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def spawn(directory: Path, *, port: int = 0, seed: int = 0) -> int:
    """Start the daemon for `directory`, detached from this process and its terminal; returns
    its pid (it is ready once `read_state(directory).phase == "ready"`)."""
    import subprocess

    private_dir(directory)
    log = open_private(directory / LOG_FILE, "ab")  # handed to the child
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tui.sandbox.daemon",
                "--data",
                str(directory),
                "--port",
                str(port),
                "--seed",
                str(seed),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # Ctrl+C in the TUI's terminal is not for it
            close_fds=True,
        )
    finally:
        log.close()
    return process.pid


def log_tail(directory: Path, lines: int = 8) -> str:
    """The end of the daemon's log (why it stopped)."""
    try:
        text = (directory / LOG_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


def stop(directory: Path, timeout: float = 10.0) -> bool:
    """Ask the daemon of `directory` to stop and wait for it; False if none was running."""
    state = read_state(directory)
    if state is None:
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(state.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while alive(state.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    if alive(state.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(state.pid, signal.SIGKILL)
    with contextlib.suppress(FileNotFoundError):
        (directory / STATE_FILE).unlink()
    return True


# -- the daemon itself ----------------------------------------------------------------------


async def start_on(sandbox: Any, port: int, origin: str = "") -> tuple[str, str]:
    """Serve `sandbox` on `port` (0: any free one); a taken port falls back to a free one.
    Returns the URL and, after a fallback, a sentence saying so (naming `origin` if given)."""
    try:
        return str(await sandbox.start(HOST, port)), ""
    except OSError as exc:
        if not port:
            raise
        why = exc.strerror or str(exc)
    url = str(await sandbox.start(HOST, 0))
    where = f" ({origin})" if origin else ""
    return url, (
        f"Port {port}{where} is taken ({why}); the sandbox runs on port "
        f"{url.rsplit(':', 1)[-1]} this time."
    )


async def serve(directory: Path, port: int, seed: int) -> int:
    """Run the sandbox of `directory` until SIGTERM or SIGINT."""
    import asyncio

    from tui.sandbox.config import SandboxConfig
    from tui.sandbox.server import Sandbox

    pid = os.getpid()
    # The handlers come before any state is written: a SIGTERM sent as soon as the state file
    # says "ready" (`payscope sandbox stop`, a test) stops it cleanly, never by the default
    # action, which would leave the state file and skip the sandbox's own stop.
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, done.set)
    _write_state(directory, DaemonState(pid, "", "starting"))
    sandbox = await asyncio.to_thread(Sandbox, SandboxConfig(data_dir=directory))
    url, note = await start_on(sandbox, port)
    from tui import gc_pause

    gc_pause.resume(freeze=True)  # paused by `main` since launch
    if seed and not sandbox.is_seeded():
        last = [0.0]

        def progress(done: int, total: int = seed, *_rest: Any) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.1 or done >= total:
                last[0] = now
                state = DaemonState(pid, url, "seeding", done, total, note)
                loop.call_soon_threadsafe(_write_state, directory, state)

        _write_state(directory, DaemonState(pid, url, "seeding", 0, seed, note))
        began = time.monotonic()
        await asyncio.to_thread(sandbox.seed, seed, progress)
        print(f"seeded {seed} payments in {time.monotonic() - began:.2f}s", flush=True)
    _write_state(directory, DaemonState(pid, url, "ready", seed, seed, note))
    print(f"payscope sandbox daemon {pid} serving {url}", flush=True)

    async def watch() -> None:
        # Gone with its directory (or replaced by another daemon): stop instead of lingering.
        while not done.is_set():
            await asyncio.sleep(2.0)
            state = read_state(directory)
            if state is None or state.pid != pid:
                done.set()

    watchdog = asyncio.create_task(watch())
    try:
        await done.wait()
    finally:
        watchdog.cancel()
        await sandbox.stop()
        state = read_state(directory)
        if state is not None and state.pid == pid:
            with contextlib.suppress(FileNotFoundError):
                (directory / STATE_FILE).unlink()
        print(f"payscope sandbox daemon {pid} stopped", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    from tui import gc_pause

    gc_pause.pause()  # until it serves (tui/gc_pause.py)
    import argparse
    import asyncio

    parser = argparse.ArgumentParser(prog="python -m tui.sandbox.daemon")
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    private_dir(args.data)
    try:
        return asyncio.run(serve(args.data, args.port, args.seed))
    except Exception as exc:
        print(f"payscope sandbox daemon failed: {exc}", file=sys.stderr, flush=True)
        with contextlib.suppress(FileNotFoundError):
            (args.data / STATE_FILE).unlink()
        return 1


if __name__ == "__main__":
    sys.exit(main())
