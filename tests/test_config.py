"""payscope.core.config: where things live, the TOML file, profile rules, and never a key on
disk."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import platformdirs
import pytest
from pydantic import ValidationError

from payscope.core import config
from payscope.core.config import ConfigError, Profile, ProfileError, Settings

KEY = "snd_4fJ8kq2LmN7pR1sT9vWx"


def _settings() -> Settings:
    return Settings(
        default_profile="staging",
        theme="payscope-light",
        keymap={"payments.refresh": "ctrl+r", "app.quit": "ctrl+q"},
        profiles={
            "staging": Profile(
                name="staging",
                base_url="https://sandbox.example.com/",
                merchant_id="merchant_1234",
                profile_id="pro_abcdefghij0123456789",
                listener_port=9000,
                theme="payscope-dark",
            ),
            "local-2": Profile(name="local-2", base_url="http://127.0.0.1:8080"),
        },
    )


# Where things live ---------------------------------------------------------------------------


def test_env_overrides_the_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PAYSCOPE_CONFIG_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("PAYSCOPE_DATA_DIR", str(tmp_path / "d"))
    assert config.config_dir() == tmp_path / "c"
    assert config.data_dir() == tmp_path / "d"
    assert config.config_path() == tmp_path / "c" / "profiles.toml"


def test_env_dirs_expand_the_home_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PAYSCOPE_CONFIG_DIR", "~/cfg")
    assert config.config_dir() == tmp_path / "cfg"


def test_platform_dirs_without_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAYSCOPE_CONFIG_DIR")
    monkeypatch.setenv("PAYSCOPE_DATA_DIR", "")  # blank counts as unset
    assert config.config_dir() == platformdirs.user_config_path("payscope", appauthor=False)
    assert config.data_dir() == platformdirs.user_data_path("payscope", appauthor=False)
    assert config.config_dir().name == "payscope"


# Round trip ------------------------------------------------------------------------------------


def test_missing_file_is_empty_settings() -> None:
    assert not config.config_path().exists()
    settings = config.load_settings()
    assert settings == Settings()
    assert settings.theme == "payscope-dark"
    assert settings.profiles == {}
    assert settings.default_profile is None


def test_save_then_load_round_trip() -> None:
    original = _settings()
    path = config.save_settings(original)
    assert path == config.config_path()
    loaded = config.load_settings()
    assert loaded == original
    assert loaded.profiles["staging"].base_url == "https://sandbox.example.com"  # slash dropped


def test_saved_file_is_private_toml_without_names_or_nulls() -> None:
    path = config.save_settings(_settings())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["default_profile"] == "staging"
    assert data["profiles"]["local-2"] == {
        "base_url": "http://127.0.0.1:8080",
        "listener_port": 8787,
        "allow_production": False,
    }
    assert "name" not in data["profiles"]["staging"]
    assert data["keymap"] == {"payments.refresh": "ctrl+r", "app.quit": "ctrl+q"}


def test_save_replaces_atomically_and_leaves_no_temp_files() -> None:
    config.save_settings(_settings())
    smaller = config.remove_profile(_settings(), "local-2")
    path = config.save_settings(smaller)
    assert [p.name for p in path.parent.iterdir()] == ["profiles.toml"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert config.load_settings() == smaller


def test_hand_written_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    path.write_text(
        'default_profile = "eu"\n\n[profiles.eu]\nbase_url = "https://eu.example.com"\n'
        'profile_id = "pro_x"\n',
        encoding="utf-8",
    )
    settings = config.load_settings(path)
    assert settings.profiles["eu"] == Profile(
        name="eu", base_url="https://eu.example.com", profile_id="pro_x"
    )
    assert config.get_profile(settings).name == "eu"


# Broken files ----------------------------------------------------------------------------------


def _write(text: str) -> Path:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_broken_toml_names_the_file_and_the_line() -> None:
    path = _write('theme = "payscope-dark"\n[profiles.staging\nbase_url = "https://x.example"\n')
    with pytest.raises(ConfigError) as caught:
        config.load_settings()
    message = str(caught.value)
    assert str(path) in message
    assert "line 2" in message
    assert "not valid TOML" in message


def test_invalid_value_names_the_file_field_and_line() -> None:
    path = _write('[profiles.staging]\nmerchant_id = "m1"\nbase_url = "ftp://x.example"\n')
    with pytest.raises(ConfigError) as caught:
        config.load_settings()
    message = str(caught.value)
    assert f"{path}, line 3: profiles.staging.base_url" in message
    assert "http:// or https://" in message


def test_unknown_setting_is_reported_with_its_line() -> None:
    _write(
        'theme = "payscope-dark"\n\n[profiles.staging]\n'
        'base_url = "https://x.example"\nbase_ulr = "y"\n'
    )
    with pytest.raises(ConfigError, match=r"line 5: profiles\.staging\.base_ulr: unknown setting"):
        config.load_settings()


def test_default_profile_must_exist() -> None:
    _write('default_profile = "prod"\n[profiles.staging]\nbase_url = "https://x.example"\n')
    with pytest.raises(
        ConfigError, match=r"'prod' is not a configured profile \(configured: staging\)"
    ):
        config.load_settings()


def test_not_utf8_is_reported() -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b'theme = "\xff\xfe"\n')
    with pytest.raises(ConfigError, match="not UTF-8"):
        config.load_settings()


# Never a key on disk ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f'[profiles.staging]\nbase_url = "https://x.example"\napi_key = "{KEY}"\n',
        f'[profiles.staging]\nbase_url = "https://x.example"\n# key: {KEY}\n',
        f'[profiles.staging]\nbase_url = "https://x.example"\nprofile_id = "pk_{KEY}"\n',
    ],
    ids=["as-a-setting", "in-a-comment", "publishable"],
)
def test_loading_a_file_with_a_key_says_to_move_it_to_the_keyring(text: str) -> None:
    path = _write(text)
    with pytest.raises(ConfigError) as caught:
        config.load_settings()
    message = str(caught.value)
    assert f"{path}, line 3" in message
    assert "payscope keys set --profile staging" in message
    assert KEY not in message


def test_models_refuse_key_shaped_values() -> None:
    with pytest.raises(ValidationError, match="looks like an API key") as caught:
        Profile(name="staging", base_url="https://x.example", merchant_id=KEY)
    assert KEY not in str(caught.value)  # pydantic would quote the input: hidden
    with pytest.raises(ValidationError, match="looks like an API key"):
        Settings(keymap={"app.quit": KEY})


@pytest.mark.parametrize(
    "settings",
    [
        Settings.model_construct(default_profile=None, theme=KEY, keymap={}, profiles={}),
        Settings.model_construct(
            default_profile=None,
            theme="payscope-dark",
            keymap={},
            profiles={
                "s": Profile.model_construct(
                    name="s",
                    base_url="https://x.example",
                    merchant_id=None,
                    profile_id=KEY,
                    listener_port=8787,
                    theme=None,
                    allow_production=False,
                )
            },
        ),
    ],
    ids=["top-level", "in-a-profile"],
)
def test_save_refuses_anything_shaped_like_a_key(settings: Settings) -> None:
    # model_construct skips validation, as a careless caller might: save still refuses.
    with pytest.raises(ConfigError, match="looks like an API key") as caught:
        config.save_settings(settings)
    assert KEY not in str(caught.value)
    assert not config.config_path().exists()


# Profile rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["staging", "eu-1", "a_b", "X", "x" * 64])
def test_good_profile_names(name: str) -> None:
    assert Profile(name=name, base_url="https://x.example").name == name


@pytest.mark.parametrize("name", ["", "has space", "a.b", "a:b", "x" * 65, "café"])
def test_bad_profile_names(name: str) -> None:
    with pytest.raises(ValidationError, match="invalid profile name"):
        Profile(name=name, base_url="https://x.example")


@pytest.mark.parametrize(
    ("url", "stored"),
    [
        ("https://sandbox.example.com", "https://sandbox.example.com"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080"),
        ("https://api.example.com/v1/", "https://api.example.com/v1"),
    ],
)
def test_good_base_urls(url: str, stored: str) -> None:
    assert Profile(name="p", base_url=url).base_url == stored


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://x.example", "http:// or https://"),
        ("sandbox.example.com", "http:// or https://"),
        ("https://", "http:// or https://"),
        ("https://user:pw@x.example", "user name or password"),
        ("https://x.example/?a=1", "query or fragment"),
        ("https://x.example:99999", "not a valid URL"),
    ],
)
def test_bad_base_urls(url: str, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        Profile(name="p", base_url=url)


@pytest.mark.parametrize(
    ("port", "ok"), [(0, True), (8787, True), (65535, True), (-1, False), (65536, False)]
)
def test_listener_port_range(port: int, ok: bool) -> None:
    if ok:
        assert (
            Profile(name="p", base_url="https://x.example", listener_port=port).listener_port
            == port
        )
    else:
        with pytest.raises(ValidationError):
            Profile(name="p", base_url="https://x.example", listener_port=port)


def test_add_get_remove_profiles() -> None:
    settings = Settings()
    eu = Profile(name="eu", base_url="https://eu.example.com")
    settings = config.add_profile(settings, eu)
    assert settings.default_profile is None
    assert config.get_profile(settings, "eu") == eu
    with pytest.raises(ProfileError, match="already exists"):
        config.add_profile(settings, eu)
    moved = eu.model_copy(update={"base_url": "https://eu2.example.com"})
    settings = config.add_profile(settings, moved, replace=True, make_default=True)
    assert settings.default_profile == "eu"
    assert config.get_profile(settings).base_url == "https://eu2.example.com"
    settings = config.remove_profile(settings, "eu")
    assert settings == Settings()
    with pytest.raises(ProfileError, match=r"no profile named 'eu' \(configured: none yet\)"):
        config.remove_profile(settings, "eu")
    with pytest.raises(ProfileError, match="no default_profile"):
        config.get_profile(settings)


def test_helpers_do_not_mutate_their_input() -> None:
    settings = _settings()
    config.remove_profile(settings, "staging")
    assert "staging" in settings.profiles
    assert settings.default_profile == "staging"


def test_the_docs_example_is_a_valid_file() -> None:
    page = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
    readme = page.read_text(encoding="utf-8")
    section = readme.split("<!-- section:config -->")[1].split("<!-- /section:config -->")[0]
    example = section.split("```toml\n")[1].split("```")[0]
    settings = config.load_settings(_write(example))
    assert settings.default_profile == "staging"
    assert settings.profiles["staging"].profile_id == "pro_abcdefghij0123456789"


# Forward URLs (where replayed webhooks go) ----------------------------------------------------


def test_forward_urls_are_remembered_per_profile_and_for_local() -> None:
    from payscope.core.forward_urls import check_url

    config.save_settings(_settings())
    assert config.get_forward_url("staging") is None
    assert config.get_forward_url("local") is None

    stored = config.set_forward_url("staging", " http://127.0.0.1:3000/webhooks ")
    assert stored == "http://127.0.0.1:3000/webhooks"
    config.set_forward_url("local", "https://hooks.example.com/payscope")

    assert config.get_forward_url("staging") == "http://127.0.0.1:3000/webhooks"
    assert config.get_forward_url("local") == "https://hooks.example.com/payscope"
    assert config.get_forward_url("local-2") is None  # per profile, not one for all
    assert check_url(config.get_forward_url("staging") or "")  # what replay accepts
    data = tomllib.loads(config.config_path().read_text(encoding="utf-8"))
    assert data["local"] == {"forward_url": "https://hooks.example.com/payscope"}
    assert data["profiles"]["staging"]["forward_url"] == "http://127.0.0.1:3000/webhooks"
    # Everything else in the file is untouched.
    loaded = config.load_settings()
    assert loaded.profiles["staging"].listener_port == 9000
    assert loaded.keymap == _settings().keymap

    config.set_forward_url("staging", None)
    config.set_forward_url("local", "")
    assert config.get_forward_url("staging") is None
    assert config.get_forward_url("local") is None
    data = tomllib.loads(config.config_path().read_text(encoding="utf-8"))
    assert "local" not in data and "forward_url" not in data["profiles"]["staging"]


def test_local_forward_url_works_without_a_config_file() -> None:
    assert not config.config_path().exists()
    assert config.get_forward_url("local") is None
    config.set_forward_url("local", "http://localhost:4242/hooks")
    assert config.get_forward_url("local") == "http://localhost:4242/hooks"
    assert config.load_settings().profiles == {}


def test_forward_url_of_an_unknown_profile_is_a_profile_error() -> None:
    with pytest.raises(ProfileError, match="no profile named 'nope'"):
        config.get_forward_url("nope")
    with pytest.raises(ProfileError, match="no profile named 'nope'"):
        config.set_forward_url("nope", "http://127.0.0.1:3000/")
    with pytest.raises(ProfileError, match="no profile given"):
        config.get_forward_url("")
    assert not config.config_path().exists()


@pytest.mark.parametrize(
    "url",
    ["ftp://127.0.0.1/hooks", "http:///nohost", "http://[::1/hooks", "127.0.0.1:3000/hooks"],
)
def test_bad_forward_urls_are_refused_as_the_listener_refuses_them(url: str) -> None:
    from payscope.core.forward_urls import InvalidForwardUrl, url_problem

    config.save_settings(_settings())
    before = config.config_path().read_bytes()
    for profile in ("staging", "local"):
        with pytest.raises(InvalidForwardUrl) as caught:
            config.set_forward_url(profile, url)
        assert str(caught.value) == url_problem(url)
    assert config.config_path().read_bytes() == before  # nothing written


def test_a_forward_url_never_carries_credentials_or_keys() -> None:
    from payscope.core.forward_urls import InvalidForwardUrl

    config.save_settings(_settings())
    with pytest.raises(InvalidForwardUrl, match="user name or password"):
        config.set_forward_url("local", "http://me:pw@127.0.0.1:3000/hooks")
    with pytest.raises(ValueError, match="looks like an API key") as caught:
        config.set_forward_url("staging", f"http://127.0.0.1:3000/hooks?key={KEY}")
    assert KEY not in str(caught.value)


def test_a_hand_written_bad_forward_url_names_the_file_field_and_line() -> None:
    path = _write(
        '[local]\nforward_url = "ftp://127.0.0.1/x"\n\n'
        '[profiles.staging]\nbase_url = "https://x.example"\nforward_url = "http:///x"\n'
    )
    with pytest.raises(ConfigError) as caught:
        config.load_settings()
    message = str(caught.value)
    assert f"{path}, line 2: local.forward_url: forward targets need an http://" in message
    assert f"{path}, line 6: profiles.staging.forward_url:" in message
    assert "names no host" in message


def test_editing_a_profile_keeps_its_forward_url() -> None:
    # The profile form builds a new Profile without a forward URL: replacing keeps the URL.
    config.save_settings(_settings())
    config.set_forward_url("staging", "http://127.0.0.1:3000/webhooks")
    edited = Profile(name="staging", base_url="https://other.example.com", listener_port=9001)
    config.save_settings(config.add_profile(config.load_settings(), edited, replace=True))
    assert config.get_forward_url("staging") == "http://127.0.0.1:3000/webhooks"
    assert config.get_profile(config.load_settings(), "staging").listener_port == 9001
    cleared = Profile.model_validate({**edited.model_dump(), "forward_url": None})
    config.save_settings(config.add_profile(config.load_settings(), cleared, replace=True))
    assert config.get_forward_url("staging") is None
