"""No secret key over clear text (issue 38): an http:// base URL that is not this machine is
refused when the file is read, by the client and by the CLI, unless the profile says
`allow_insecure_http = true`. Loopback http (the local sandbox, a service on this machine)
stays as it is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from payscope.api import errors
from payscope.api.client import ApiClient
from payscope.core import config
from payscope.core.config import ConfigError
from payscope.core.hosts import is_insecure_http, is_loopback_host
from tests.waits import HANG

ROOT = Path(__file__).resolve().parents[1]
KEY = "snd_" + "c" * 32


def _write(text: str) -> Path:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_loopback_is_this_machine_and_nothing_else() -> None:
    for host in ("localhost", "LOCALHOST.", "api.localhost", "127.0.0.1", "127.8.9.10", "[::1]"):
        assert is_loopback_host(host), host
    for host in ("127.0.0.1.example.com", "10.0.0.1", "localhost.evil.example", "0.0.0.0", ""):
        assert not is_loopback_host(host), host
    assert is_insecure_http("http://pay.example.com") and is_insecure_http("HTTP://10.1.2.3:80")
    assert not is_insecure_http("https://pay.example.com")
    assert not is_insecure_http("http://127.0.0.1:8642") and not is_insecure_http("http://[::1]:1")


def test_the_file_is_refused_with_the_line_and_the_way_out() -> None:
    path = _write('[profiles.shop]\nbase_url = "http://pay.example.com"\n')
    with pytest.raises(ConfigError) as caught:
        config.load_settings()
    said = str(caught.value)
    assert f"{path}, line 1" in said and "http:// to another machine" in said
    assert "allow_insecure_http = true" in said and "https://" in said


def test_allowed_it_loads_and_round_trips() -> None:
    _write('[profiles.shop]\nbase_url = "http://pay.example.com"\nallow_insecure_http = true\n')
    settings = config.load_settings()
    assert settings.profiles["shop"].allow_insecure_http
    config.save_settings(settings)
    assert "allow_insecure_http = true" in config.config_path().read_text(encoding="utf-8")
    # A profile without it does not write it (files stay as they were).
    settings = config.add_profile(settings, config.Profile(name="b", base_url="https://b.test"))
    config.save_settings(settings)
    assert config.config_path().read_text(encoding="utf-8").count("allow_insecure_http") == 1


def test_the_client_refuses_it_unless_allowed() -> None:
    with pytest.raises(errors.ConfigurationError) as caught:
        ApiClient("http://pay.example.com", KEY)
    said = str(caught.value)
    assert "unencrypted" in said and "allow_insecure_http" in said and KEY not in said
    allowed = ApiClient("http://pay.example.com", KEY, allow_insecure_http=True)
    assert allowed.insecure_http
    assert not ApiClient("http://127.0.0.1:9", KEY).insecure_http
    assert not ApiClient("https://pay.example.com", KEY).insecure_http


def test_the_cli_says_it_and_sends_nothing() -> None:
    """`payscope export` on such a profile: exit 2, the reason and the fix, no traceback."""
    _write('[profiles.shop]\nbase_url = "http://pay.example.com"\n')
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "payscope",
            "export",
            "payments",
            "--profile",
            "shop",
            "--output",
            "-",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=HANG,
        env={**os.environ, "PAYSCOPE_API_KEY": KEY},
    )
    assert done.returncode == 2, done.stderr
    assert "http:// to another machine" in done.stderr and "allow_insecure_http" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
