"""Private dirs are made private (issue 38): a data or config dir of payscope's own that others
can read is made 0700, with one notice (the next run finds nothing to say); a dir that is not
payscope's own (a `--data .`, another user's, a symlink) is left as it is and said; every dir
payscope makes is 0700, `cache/` included. Real dirs, real modes, a real `payscope export` run
and the real TUI."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from payscope.core.private_files import secure_own_dir
from tests.waits import HANG

ROOT = Path(__file__).resolve().parents[1]


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(autouse=True)
def open_umask() -> Iterator[None]:
    previous = os.umask(0)
    yield
    os.umask(previous)


def test_payscopes_own_dir_is_made_private_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "sandbox").mkdir(parents=True)
    (data / "cache").mkdir()
    (data / ".last-port.tmp").write_text("1")
    os.chmod(data, 0o777)
    said = secure_own_dir(data, "data")
    assert said is not None and f"The data dir {data}" in said and "0777" in said
    assert "now 0700" in said
    assert mode(data) == 0o700
    assert secure_own_dir(data, "data") is None  # once: nothing more to say
    named = tmp_path / "elsewhere" / "payscope"
    (named / "mine.txt").parent.mkdir(parents=True)
    (named / "notes.txt").write_text("x")
    os.chmod(named, 0o755)  # the platform's dir, by its name: payscope's own
    assert "now 0700" in str(secure_own_dir(named, "config")) and mode(named) == 0o700


def test_a_dir_that_is_not_payscopes_is_left_and_said(tmp_path: Path) -> None:
    home = tmp_path / "project"
    home.mkdir()
    (home / "README.md").write_text("the user's")
    (home / "sandbox").mkdir()
    os.chmod(home, 0o755)
    said = secure_own_dir(home, "data")
    assert said is not None and "leaves the dir as it is" in said and "README.md" in said
    assert mode(home) == 0o755

    link = tmp_path / "link"
    target = tmp_path / "target"
    target.mkdir()
    os.chmod(target, 0o777)
    link.symlink_to(target)
    assert "symlink" in str(secure_own_dir(link, "data")) and mode(target) == 0o777

    other = tmp_path / "theirs"
    other.mkdir()
    os.chmod(other, 0o777)
    os.chown(other, 65534, 65534)  # nobody's (these tests run as root in CI)
    assert "another user" in str(secure_own_dir(other, "data")) and mode(other) == 0o777
    assert secure_own_dir(tmp_path / "missing", "data") is None


def test_the_cli_says_it_once_and_makes_its_dirs_0700(tmp_path: Path) -> None:
    data, config = tmp_path / "data", tmp_path / "config"
    data.mkdir()
    config.mkdir()
    os.chmod(data, 0o777)
    os.chmod(config, 0o755)
    env = {**os.environ, "PAYSCOPE_DATA_DIR": str(data), "PAYSCOPE_CONFIG_DIR": str(config)}
    # A headless command on a profile that does not exist: the dirs are checked first.
    (config / "profiles.toml").write_text('[profiles.p]\nbase_url = "http://127.0.0.1:9"\n')
    args = [
        sys.executable,
        "-m",
        "payscope",
        "export",
        "payments",
        "--profile",
        "p",
        "--output",
        "-",
    ]
    env["PAYSCOPE_API_KEY"] = "snd_" + "e" * 32
    first = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env, timeout=HANG)
    assert f"The data dir {data} could be read by other users (mode 0777)" in first.stderr
    assert f"The config dir {config} could be read by other users (mode 0755)" in first.stderr
    assert mode(data) == 0o700 and mode(config) == 0o700
    again = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env, timeout=HANG)
    assert "could be read by other users" not in again.stderr


def test_every_dir_payscope_makes_is_0700(tmp_path: Path) -> None:
    from payscope.areas.payments.cache import cache_path, save_page
    from payscope.core import config

    path = cache_path(tmp_path / "data", "local")
    save_page(path, [])
    assert mode(path.parent) == 0o700 and mode(path.parent.parent) == 0o700
    where = tmp_path / "new" / "config" / "profiles.toml"
    config.save_settings(config.Settings(), where)
    assert mode(where.parent) == 0o700 and mode(where.parent.parent) == 0o700
