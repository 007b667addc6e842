"""A profile's `contract` in profiles.toml: which contract its service's error codes are read by
("real", "spec", or "auto", the default), validated with the file, the line and the choices."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from payscope.core import config
from payscope.core.config import ConfigError, Profile


def _write(text: str) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_contract_is_auto_unless_set() -> None:
    profile = Profile(name="staging", base_url="https://x.example")
    assert profile.contract is None and profile.contract_setting == "auto"
    for value in ("auto", "spec", "real"):
        assert Profile(name="s", base_url="https://x.example", contract=value).contract_setting == (
            value
        )


def test_contract_round_trips_through_the_file() -> None:
    _write('[profiles.staging]\nbase_url = "https://x.example"\ncontract = "real"\n')
    settings = config.load_settings()
    assert settings.profiles["staging"].contract_setting == "real"
    config.save_settings(settings)
    assert 'contract = "real"' in config.config_path().read_text(encoding="utf-8")
    # Unset stays unset: the file is not filled with defaults.
    settings = config.add_profile(settings, Profile(name="other", base_url="https://y.example"))
    config.save_settings(settings)
    assert config.config_path().read_text(encoding="utf-8").count("contract") == 1


def test_a_bad_contract_names_the_file_the_line_and_the_choices() -> None:
    _write('[profiles.staging]\nbase_url = "https://x.example"\n\ncontract = "stripe"\n')
    with pytest.raises(ConfigError) as caught:
        config.load_settings()
    message = str(caught.value)
    assert "line 4: profiles.staging.contract" in message
    assert "'stripe' is not one of 'auto', 'spec', 'real'" in message
    assert "detected from the service's errors" in message


def test_a_bad_contract_is_refused_when_set_in_code() -> None:
    with pytest.raises(ValidationError, match="is not one of"):
        Profile(name="s", base_url="https://x.example", contract="Real")
