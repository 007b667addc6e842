"""Secrets off the command line (issue 14): `payscope sandbox` takes its secret key and webhook
signing secret, and `payscope listen` its signing secrets, from the environment or a file
(`-`: standard input) as well as from the old flags, and `--help` says why. Run as real
processes: what `ps` shows is read from /proc, and the secret is never in an error."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.waits import HANG, REQUEST_TIMEOUT

ROOT = Path(__file__).resolve().parents[1]
KEY = "snd_from_a_file_0123456789"
HOOK_SECRET = "whsec-from-a-file-" + "z" * 40
pytestmark = pytest.mark.slow
BANNER_END = "Ctrl+C"


def payscope(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "payscope", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
        env={**os.environ, **(env or {})},
    )


def start(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None, until: str
) -> tuple[subprocess.Popen[str], str, str]:
    """A long-running `payscope ...`; returns it, its URL and its output up to `until`."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "payscope", *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert proc.stdin is not None and proc.stdout is not None
    if stdin is not None:
        proc.stdin.write(stdin)
    proc.stdin.close()
    seen = ""
    for _ in range(400):
        line = proc.stdout.readline()
        seen += line
        found = re.search(r"(http://127\.0\.0\.1:\d+)", seen)
        if found and until in line:
            return proc, found.group(1), seen
        if not line:
            break
    proc.kill()
    raise AssertionError(f"did not start:\n{seen}")


def command_line(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(HANG)


def _check_sandbox(url: str, banner: str, pid: int) -> None:
    assert KEY in banner and HOOK_SECRET in banner  # the banner is for the user: in full
    assert KEY not in command_line(pid) and HOOK_SECRET not in command_line(pid)
    answer = httpx.get(f"{url}/payments/list", timeout=REQUEST_TIMEOUT, headers={"api-key": KEY})
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("how", ["files", "stdin-and-file", "environment"])
def test_the_sandbox_takes_its_secrets_from_files_stdin_or_the_environment(
    tmp_path: Path, procs: list[subprocess.Popen[str]], how: str
) -> None:
    key_file, hook_file = tmp_path / "key", tmp_path / "hook"
    key_file.write_text(KEY + "\n")
    hook_file.write_text(f"\n{HOOK_SECRET}\n\n")
    base = ["sandbox", "--port", "0", "--data", str(tmp_path / "sb")]
    if how == "files":
        extra = ["--api-key-file", str(key_file), "--webhook-secret-file", str(hook_file)]
        proc, url, banner = start(*base, *extra, until=BANNER_END)
    elif how == "stdin-and-file":
        extra = ["--api-key-file", "-", "--webhook-secret-file", str(hook_file)]
        proc, url, banner = start(*base, *extra, stdin=KEY + "\n", until=BANNER_END)
    else:
        env = {"PAYSCOPE_SANDBOX_API_KEY": KEY, "PAYSCOPE_SANDBOX_WEBHOOK_SECRET": HOOK_SECRET}
        proc, url, banner = start(*base, env=env, until=BANNER_END)
    procs.append(proc)
    _check_sandbox(url, banner, proc.pid)


def test_the_old_flags_still_work_and_win_over_the_environment(
    tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> None:
    env = {"PAYSCOPE_SANDBOX_API_KEY": "snd_not_this_one_0000"}
    proc, url, banner = start(
        "sandbox",
        "--port",
        "0",
        "--data",
        str(tmp_path / "sb"),
        "--api-key",
        KEY,
        env=env,
        until=BANNER_END,
    )
    procs.append(proc)
    assert KEY in banner and "snd_not_this_one_0000" not in banner
    assert (
        httpx.get(
            f"{url}/payments/list", timeout=REQUEST_TIMEOUT, headers={"api-key": KEY}
        ).status_code
        == 200
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--api-key", KEY, "--api-key-file", "{key}"], "give --api-key or --api-key-file"),
        (["--api-key-file", "{missing}"], "cannot read {missing}: No such file"),
        (["--api-key-file", "{empty}"], "is empty"),
        (["--api-key-file", "{two}"], "holds 2 lines"),
        (["--api-key-file", "{production}"], "never takes a production key"),
        (["--api-key-file", "-", "--webhook-secret-file", "-"], "cannot both read standard"),
    ],
)
def test_the_sandbox_says_what_is_wrong_with_a_secret_and_never_shows_it(
    tmp_path: Path, args: list[str], says: str
) -> None:
    files = {
        "key": KEY,
        "missing": None,
        "empty": "\n  \n",
        "two": f"{KEY}\n{KEY}x\n",
        "production": "prd_live_secret_999",
    }
    paths = {name: str(tmp_path / name) for name in files}
    for name, text in files.items():
        if text is not None:
            Path(paths[name]).write_text(text)
    args = [a.format(**paths) for a in args]
    done = payscope("sandbox", "--port", "0", "--data", str(tmp_path / "sb"), *args, stdin="")
    assert done.returncode == 2, done.stderr
    assert says.format(**paths) in done.stderr
    for secret in (KEY, "prd_live_secret_999"):
        assert secret not in done.stderr and secret not in done.stdout
    assert not (tmp_path / "sb" / "sandbox.sqlite3").exists()  # refused before anything


def test_help_says_where_secrets_can_come_from() -> None:
    sandbox = payscope("sandbox", "--help").stdout
    for needle in ("--api-key-file", "--webhook-secret-file", "PAYSCOPE_SANDBOX_API_KEY",
                   "PAYSCOPE_SANDBOX_WEBHOOK_SECRET", "`ps`", "standard input"):  # fmt: skip
        assert needle in " ".join(sandbox.split()), needle
    listen = payscope("listen", "--help").stdout
    for needle in ("--secret-file", "PAYSCOPE_WEBHOOK_SECRET", "`ps`", "standard input"):
        assert needle in " ".join(listen.split()), needle
    top = payscope("--help").stdout
    assert "PAYSCOPE_SANDBOX_API_KEY" in top and "PAYSCOPE_WEBHOOK_SECRET" in top


def test_listen_reads_its_secrets_from_a_file_or_stdin(tmp_path: Path) -> None:
    listed = tmp_path / "secrets"
    listed.write_text("first-secret-aaaaaaaa\n\nsecond-secret-bbbbbbbb\n")
    data = str(tmp_path / "listener")
    done = payscope("listen", "--data", data, "--secret-file", str(listed), "--print-secret")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["first-secret-aaaaaaaa", "second-secret-bbbbbbbb"]
    piped = payscope(
        "listen", "--data", data, "--secret-file", "-", "--print-secret", stdin="from-stdin\n"
    )
    assert piped.stdout.split() == ["from-stdin"]
    missing = payscope("listen", "--data", data, "--secret-file", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_listen_with_a_secret_file_verifies_and_keeps_it_out_of_ps(
    tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_text(HOOK_SECRET + "\n")
    proc, url, header = start(
        "listen",
        "--port",
        "0",
        "--data",
        str(tmp_path / "l"),
        "--secret-file",
        str(secret_file),
        until="  secret  ",
    )
    procs.append(proc)
    assert "(--secret-file)" in header and HOOK_SECRET not in header
    assert HOOK_SECRET not in command_line(proc.pid)
    body = json.dumps({"event_id": "evt_file_1", "event_type": "payment_succeeded"}).encode()
    signature = hmac.new(HOOK_SECRET.encode(), body, hashlib.sha512).hexdigest()
    answer = httpx.post(
        f"{url}/webhooks",
        timeout=REQUEST_TIMEOUT,
        content=body,
        headers={"content-type": "application/json", "X-Webhook-Signature-512": signature},
    )
    assert answer.status_code == 200, answer.text


def test_a_bad_secret_is_said_before_the_server_is_loaded(tmp_path: Path) -> None:
    """A mistake in the arguments is said at once, not after importing the server's routes."""
    code = (
        "import sys\n"
        "from payscope.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print('loaded' if 'payscope.sandbox.server' in sys.modules else 'not loaded', code)\n"
    )
    args = ["sandbox", "--port", "0", "--data", str(tmp_path / "sb")]
    bad = subprocess.run(
        [sys.executable, "-c", code, *args, "--api-key-file", str(tmp_path / "nope")],
        cwd=ROOT, capture_output=True, text=True, timeout=HANG, check=False,
    )  # fmt: skip
    assert bad.stdout.split() == ["not", "loaded", "2"], bad.stderr
    assert "cannot read" in bad.stderr
