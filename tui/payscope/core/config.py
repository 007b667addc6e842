"""Profiles and preferences in a TOML file under the user config dir. Never a key.

The file is ``profiles.toml`` in :func:`config_dir` (``PAYSCOPE_CONFIG_DIR`` overrides the
platform dir)::

    default_profile = "staging"
    theme = "payscope-dark"
    cursor_blink = false

    [keymap]
    "payments.refresh" = "ctrl+r"

    [local]
    forward_url = "http://127.0.0.1:3000/webhooks"
    sandbox_port = 8642

    [profiles.staging]
    base_url = "https://sandbox.example.com"
    merchant_id = "merchant_1234"
    profile_id = "pro_abcdefghij0123456789"
    listener_port = 8787
    forward_url = "http://127.0.0.1:3000/webhooks"
    contract = "auto"

``[local]`` holds what belongs to the embedded sandbox (the profile named ``local`` in the TUI).
Its ``sandbox_port`` fixes the sandbox's port; unset, the sandbox takes the port it had last
time (so a copied curl keeps working), and any free port when that one is taken.
A ``forward_url`` is where replayed webhooks go (see :func:`get_forward_url`).
A profile's ``contract`` says whose meanings its error codes have: ``"real"`` (the real
service), ``"spec"`` (a service following payscope's spec) or ``"auto"`` (the default: detected
from the service's errors). The local sandbox always speaks the spec.

Keys live only in the OS keyring (see :mod:`payscope.core.secrets`): saving settings that hold
anything shaped like a key is refused, and loading a file that holds one fails with the way out.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from payscope.core import bounded
from payscope.core.docs import page
from payscope.core.forward_urls import InvalidForwardUrl, check_url
from payscope.core.hosts import INSECURE_HTTP_FIX, is_insecure_http

# Re-exported: `payscope.core.config.config_dir()` etc. stay the public names.
from payscope.core.paths import APP_NAME as APP_NAME
from payscope.core.paths import CONFIG_FILE as CONFIG_FILE
from payscope.core.paths import ENV_CONFIG_DIR as ENV_CONFIG_DIR
from payscope.core.paths import ENV_DATA_DIR as ENV_DATA_DIR
from payscope.core.paths import config_dir as config_dir
from payscope.core.paths import config_path as config_path
from payscope.core.paths import data_dir as data_dir
from payscope.core.private_files import private_dir
from payscope.core.secrets import KEY_IN_TEXT, check_profile_name

DEFAULT_THEME = "payscope-dark"
DEFAULT_LISTENER_PORT = 8787
CONTRACT_CHOICES = ("auto", "spec", "real")

_SECRET_IN_CONFIG = (
    "keys never belong in the config file: store the key in the OS keyring with "
    "`payscope keys set --profile {profile}` (it reads the key from a hidden prompt or stdin; "
    "docs/configuration.md#keys)"
)


class ConfigError(Exception):
    """The config file cannot be used; the message names the file, the line and the fix."""


class ProfileError(ValueError):
    """A profile operation that cannot be done (unknown name, duplicate name)."""


def _refuse_key(value: str | None, field: str) -> None:
    if value is not None and KEY_IN_TEXT.search(value):
        raise ValueError(
            f"{field} looks like an API key; " + _SECRET_IN_CONFIG.format(profile="NAME")
        )


def _check_forward_url(value: str | None) -> str | None:
    """A forward URL as the listener checks it (http(s), a host); not a user name or key."""
    if value is None:
        return None
    # The listener's own check, so the TUI, `payscope listen --forward-to` and a replay agree.
    value = value.strip()
    check_url(value)
    parts = urlsplit(value)
    if parts.username or parts.password:
        # The file is not the place for secrets, and this one would be sent with every replay.
        raise InvalidForwardUrl(value, "forward_url must not contain a user name or password")
    _refuse_key(value, "forward_url")
    return value


def _check_env_names(value: list[str]) -> list[str]:
    for name in value:
        if not ENV_NAME.fullmatch(name):
            raise ValueError(
                f"allow_env holds {name[:40]!r}: each entry is a variable's name (letters, "
                "digits and '_', not starting with a digit)"
            )
    return value


def allowed_env(settings: Settings, profile: str | None) -> list[str]:
    """The environment variables a fixture run on `profile` may read (None or "local": the
    embedded sandbox's `[local] allow_env`)."""
    if profile is None or profile == LOCAL_PROFILE:
        return list(settings.local.allow_env)
    return list(get_profile(settings, profile).allow_env)


def _plain_token(value: str | None, field: str) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not value or len(value) > 128 or any(ch.isspace() for ch in value):
        raise ValueError(f"{field} must be 1-128 characters without spaces")
    _refuse_key(value, field)
    return value


class Profile(BaseModel):
    """A remote sandbox to talk to. Its keys are in the keyring under its ``name``."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, hide_input_in_errors=True)

    name: str = Field(description="letters, digits, '-' and '_'; the table name in the file")
    base_url: str = Field(description="the service's base URL, http(s)")
    merchant_id: str | None = Field(default=None, description="the merchant account id")
    profile_id: str | None = Field(
        default=None, description="business profile id, sent as X-Profile-Id"
    )
    listener_port: int = Field(
        default=DEFAULT_LISTENER_PORT,
        ge=0,
        le=65535,
        description="port of the built-in webhook listener (0 = any free port)",
    )
    theme: str | None = Field(default=None, description="theme for this profile")
    allow_production: bool = Field(
        default=False, description="accept production (prd_) keys on this profile"
    )
    forward_url: str | None = Field(
        default=None, description="where replayed webhooks go (http(s)), e.g. a local server"
    )
    read_only: bool = Field(
        default=False,
        description="refuse every call that writes: browse and export only (changed in Settings)",
    )
    allow_insecure_http: bool = Field(
        default=False,
        description="accept an http:// base_url that is not this machine (the key then crosses "
        "the network unencrypted; the status bar says so)",
    )
    allow_env: list[str] = Field(
        default_factory=list,
        description="environment variables a fixture or story run on this profile may read "
        "(${env.NAME}); none unless named here or with --allow-env",
    )
    contract: str | None = Field(
        default=None,
        description='the contract the service speaks, by which error codes are explained: "real" '
        '(the real service), "spec" (payscope\'s spec, e.g. a shared sandbox) or "auto" '
        "(unset: detected from the service's errors)",
    )

    @field_validator("contract")
    @classmethod
    def _check_contract(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value not in CONTRACT_CHOICES:
            shown = value if len(value) <= 20 else value[:20] + "..."
            raise ValueError(
                f"contract {shown!r} is not one of "
                + ", ".join(repr(c) for c in CONTRACT_CHOICES)
                + ' ("real": the real service; "spec": a service that follows payscope\'s spec; '
                '"auto" or unset: detected from the service\'s errors)'
            )
        return value

    @property
    def contract_setting(self) -> str:
        """The contract for the API client: "spec", "real" or "auto" (unset)."""
        return self.contract or "auto"

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        check_profile_name(value)
        _refuse_key(value, "the profile name")
        return value

    @field_validator("base_url")
    @classmethod
    def _check_base_url(cls, value: str) -> str:
        value = value.strip()
        example = "e.g. https://sandbox.example.com"
        try:
            parts = urlsplit(value)
            port_ok = parts.port is None or parts.port > 0
        except ValueError:
            raise ValueError(f"base_url {value!r} is not a valid URL ({example})") from None
        if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
            raise ValueError(f"base_url must be an http:// or https:// URL ({example})")
        if parts.username or parts.password:
            raise ValueError("base_url must not contain a user name or password")
        if parts.query or parts.fragment:
            raise ValueError(f"base_url must not have a query or fragment ({example})")
        _refuse_key(value, "base_url")
        return value.rstrip("/")

    @field_validator("merchant_id", "profile_id")
    @classmethod
    def _check_ids(cls, value: str | None) -> str | None:
        return _plain_token(value, "the id")

    @field_validator("theme")
    @classmethod
    def _check_theme(cls, value: str | None) -> str | None:
        return _plain_token(value, "theme")

    @field_validator("forward_url")
    @classmethod
    def _check_forward(cls, value: str | None) -> str | None:
        return _check_forward_url(value)

    @field_validator("allow_env")
    @classmethod
    def _check_allow_env(cls, value: list[str]) -> list[str]:
        return _check_env_names(value)

    @model_validator(mode="after")
    def _check_clear_text(self) -> Profile:
        if is_insecure_http(self.base_url) and not self.allow_insecure_http:
            raise ValueError(
                f"base_url {self.base_url} is http:// to another machine: the secret key would "
                f"cross the network unencrypted. {INSECURE_HTTP_FIX[0].upper()}"
                f"{INSECURE_HTTP_FIX[1:]}"
            )
        return self


LOCAL_PROFILE = "local"
# An environment variable's name, as `${env.NAME}` and `--allow-env` take it.
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class LocalSettings(BaseModel):
    """The embedded sandbox's own settings: the ``[local]`` table."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, hide_input_in_errors=True)

    forward_url: str | None = Field(
        default=None, description="where replayed webhooks go (http(s)), e.g. a local server"
    )
    sandbox_port: int | None = Field(
        default=None,
        ge=0,
        le=65535,
        description="port of the embedded sandbox (unset: the one it had last time; 0: any)",
    )
    allow_env: list[str] = Field(
        default_factory=list,
        description="environment variables a fixture run on the local sandbox may read",
    )

    @field_validator("forward_url")
    @classmethod
    def _check_forward(cls, value: str | None) -> str | None:
        return _check_forward_url(value)

    @field_validator("allow_env")
    @classmethod
    def _check_allow_env(cls, value: list[str]) -> list[str]:
        return _check_env_names(value)


class Settings(BaseModel):
    """Everything in ``profiles.toml``."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, hide_input_in_errors=True)

    default_profile: str | None = Field(
        default=None, description="profile opened by a bare `payscope` (none: local sandbox)"
    )
    theme: str = Field(default=DEFAULT_THEME, description="theme unless a profile sets one")
    cursor_blink: bool = Field(
        default=True, description="the text cursor of an input blinks (false: it stays still)"
    )
    keymap: dict[str, str] = Field(
        default_factory=dict, description="binding id -> keys, as Textual's App.set_keymap"
    )
    profiles: dict[str, Profile] = Field(default_factory=dict)
    local: LocalSettings = Field(
        default_factory=LocalSettings, description="the embedded sandbox's settings"
    )

    @field_validator("theme")
    @classmethod
    def _check_theme(cls, value: str) -> str:
        checked = _plain_token(value, "theme")
        assert checked is not None
        return checked

    @field_validator("keymap")
    @classmethod
    def _check_keymap(cls, value: dict[str, str]) -> dict[str, str]:
        for binding, keys in value.items():
            _refuse_key(binding, "a keymap entry")
            _refuse_key(keys, "a keymap entry")
        return value

    @model_validator(mode="after")
    def _check_references(self) -> Settings:
        for key, profile in self.profiles.items():
            if key != profile.name:
                raise ValueError(f"profile {key!r} is named {profile.name!r}: the names must match")
        if self.default_profile is not None and self.default_profile not in self.profiles:
            known = ", ".join(sorted(self.profiles)) or "none yet"
            raise ValueError(
                f"default_profile {self.default_profile!r} is not a configured profile "
                f"(configured: {known})"
            )
        return self


# Reading --------------------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")


def _table_of(lines: list[str], index: int) -> str | None:
    """The name of the TOML table that line ``index`` belongs to."""
    for line in reversed(lines[: index + 1]):
        match = _HEADER.match(line)
        if match:
            return match.group(1)
    return None


def _profile_of_table(table: str | None) -> str:
    if table and table.startswith("profiles."):
        return table.removeprefix("profiles.").strip().strip("\"'")
    return "NAME"


def _scan_for_keys(path: Path, text: str) -> None:
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if KEY_IN_TEXT.search(line):
            profile = _profile_of_table(_table_of(lines, index))
            raise ConfigError(
                f"{path}, line {index + 1}: this line holds what looks like an API key. "
                + _SECRET_IN_CONFIG.format(profile=profile).replace("keys never", "Keys never", 1)
                + ", then delete the line."
            )


def _line_of(lines: list[str], loc: tuple[int | str, ...]) -> int | None:
    """Best-effort line number (1-based) of a validation error's location."""
    parts = [str(p) for p in loc]
    if not parts:
        return None
    table = None
    field = parts[0]
    if parts[0] == "profiles" and len(parts) >= 2:
        table, field = f"profiles.{parts[1]}", (parts[2] if len(parts) >= 3 else "")
    elif parts[0] in ("keymap", "local"):
        table, field = parts[0], (parts[1] if len(parts) >= 2 else "")
    in_table = table is None
    for number, line in enumerate(lines, start=1):
        header = _HEADER.match(line)
        if header:
            name = header.group(1).replace('"', "").replace("'", "")
            if table is not None and name == table and not field:
                return number
            in_table = table is not None and name == table
            continue
        if in_table and field and re.match(rf"^\s*[\"']?{re.escape(field)}[\"']?\s*=", line):
            return number
    return None


def _describe(exc: ValidationError, path: Path, lines: list[str]) -> str:
    problems = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        where = ".".join(str(p) for p in loc) or "the file"
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            known = page("config", "profilestoml")
            message = f"unknown setting (misspelt? the known ones are in {known})"
        line = _line_of(lines, loc)
        prefix = f"{path}, line {line}" if line else str(path)
        problems.append(f"{prefix}: {where}: {message}")
    return "\n".join(problems) + "\nFix the file (or remove it to start with no profiles)."


def _from_toml(data: dict[str, Any]) -> dict[str, Any]:
    """The file's shape -> the model's: profile names come from their table names."""
    profiles = data.get("profiles")
    if isinstance(profiles, dict):
        data = dict(data)
        data["profiles"] = {
            name: ({"name": name, **table} if isinstance(table, dict) else table)
            for name, table in profiles.items()
        }
    return data


def load_settings(path: Path | None = None) -> Settings:
    """Read the settings; a missing file gives empty settings.

    Raises :class:`ConfigError` for a file that is unreadable, not TOML, invalid, or that holds
    something shaped like a key.
    """
    path = path or config_path()
    try:
        text = bounded.read_text(path)
    except FileNotFoundError:
        return Settings()
    except bounded.TooLarge as exc:
        raise ConfigError(f"{path}: {exc.problem}. Fix or remove it.") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc.strerror}).") from exc
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the config file is not UTF-8 text; fix or remove it.") from None
    _scan_for_keys(path, text)
    try:
        data = bounded.loads_toml(text)
    except bounded.TooDeep as exc:
        raise ConfigError(f"{path}: {exc.problem}. Fix or remove it.") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid TOML: {exc}. Fix that line (the format: "
            f"{page('config', 'profilestoml')}), or remove the file to start with no profiles."
        ) from None
    try:
        return Settings.model_validate(_from_toml(data))
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path, text.splitlines())) from None


# Writing --------------------------------------------------------------------------------------


def _to_toml(settings: Settings) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if settings.default_profile is not None:
        data["default_profile"] = settings.default_profile
    data["theme"] = settings.theme
    if not settings.cursor_blink:
        data["cursor_blink"] = False
    if settings.keymap:
        data["keymap"] = dict(settings.keymap)
    local = settings.local.model_dump(exclude_none=True)
    if not local.get("allow_env"):
        local.pop("allow_env", None)
    if local:
        data["local"] = local
    if settings.profiles:
        data["profiles"] = {
            name: _profile_table(profile) for name, profile in settings.profiles.items()
        }
    return data


def _profile_table(profile: Profile) -> dict[str, Any]:
    table = profile.model_dump(exclude={"name"}, exclude_none=True)
    for flag in ("read_only", "allow_insecure_http"):
        if not table.get(flag):
            del table[flag]  # said only when set: files written before it stay as they were
    if not profile.allow_env:
        del table["allow_env"]
    return table


def _key_locations(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [where] if KEY_IN_TEXT.search(value) else []
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            found += _key_locations(str(key), f"{where}.{key} (name)".lstrip("."))
            found += _key_locations(item, f"{where}.{key}".lstrip("."))
        return found
    return []


def save_theme(name: str, profile: str | None = None, path: Path | None = None) -> Path:
    """Keep `name` as the theme payscope starts in, and return the settings file's path: the
    theme of `profile` when that profile sets one of its own (it would win at the next
    start), else the settings' theme (Settings → Theme and `:theme NAME` both keep it so)."""
    settings = load_settings(path)
    own = settings.profiles.get(profile) if profile else None
    if own is not None and own.theme:
        settings.profiles[own.name] = own.model_copy(update={"theme": name})
    else:
        settings.theme = name
    return save_settings(settings, path)


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings atomically (0600, directory 0700) and return the path.

    Raises :class:`ConfigError` instead of writing anything that looks like a key.
    """
    import tomli_w

    path = path or config_path()
    data = _to_toml(settings)
    leaks = _key_locations(data, "")
    if leaks:
        raise ConfigError(
            f"refusing to write {path}: {', '.join(leaks)} looks like an API key; "
            + _SECRET_IN_CONFIG.format(profile="NAME")
            + "."
        )
    text = tomli_w.dumps(data)

    private_dir(path.parent)  # 0700 whatever the umask, its missing parents too
    # Write beside the target and rename: a crash leaves the old file or the new one, never half.
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, 0o600)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return path


# Profiles -------------------------------------------------------------------------------------


def get_profile(settings: Settings, name: str | None = None) -> Profile:
    """The named profile, or the default one when ``name`` is None."""
    name = name or settings.default_profile
    if name is None:
        raise ProfileError("no profile given and no default_profile set")
    try:
        return settings.profiles[name]
    except KeyError:
        known = ", ".join(sorted(settings.profiles)) or "none yet"
        raise ProfileError(
            f"no profile named {name!r} (configured: {known}); add it in the TUI's settings or "
            f"in {config_path()}"
        ) from None


def add_profile(
    settings: Settings, profile: Profile, *, replace: bool = False, make_default: bool = False
) -> Settings:
    """A copy of ``settings`` with ``profile`` added (and made the default if asked).

    A replacement that does not name a ``forward_url`` keeps the one remembered for the profile
    (it is set on its own, with :func:`set_forward_url`, not by the profile form).
    """
    old = settings.profiles.get(profile.name)
    if old is not None and not replace:
        raise ProfileError(f"a profile named {profile.name!r} already exists")
    data = settings.model_dump()
    data["profiles"][profile.name] = profile.model_dump()
    if old is not None and "forward_url" not in profile.model_fields_set:
        data["profiles"][profile.name]["forward_url"] = old.forward_url
    if make_default:
        data["default_profile"] = profile.name
    return Settings.model_validate(data)


def remove_profile(settings: Settings, name: str) -> Settings:
    """A copy of ``settings`` without profile ``name`` (its keys stay in the keyring)."""
    get_profile(settings, name)  # the same "no profile named" message
    data = settings.model_dump()
    del data["profiles"][name]
    if data["default_profile"] == name:
        data["default_profile"] = None
    return Settings.model_validate(data)


# Forward URLs ---------------------------------------------------------------------------------


def get_forward_url(profile_name: str, path: Path | None = None) -> str | None:
    """The forward URL remembered for ``profile_name`` ("local": the embedded sandbox), or None.

    Raises :class:`ProfileError` for a profile that is not configured and :class:`ConfigError`
    for a file that cannot be used.
    """
    if not profile_name:
        raise ProfileError("no profile given: name one, or 'local' for the embedded sandbox")
    settings = load_settings(path)
    if profile_name == LOCAL_PROFILE:
        return settings.local.forward_url
    return get_profile(settings, profile_name).forward_url


def set_forward_url(profile_name: str, url: str | None, path: Path | None = None) -> str | None:
    """Remember ``url`` as the forward URL of ``profile_name`` (None or "" forgets it).

    The URL is checked as the listener checks forward targets (http:// or https://, a host)
    and may hold no user name or password: ``payscope.core.forward_urls.InvalidForwardUrl`` (a
    ``ValueError``, said for a person) otherwise, with nothing written. Returns the URL as
    stored (trimmed). Raises :class:`ProfileError` for a profile that is not configured.
    """
    if not profile_name:
        raise ProfileError("no profile given: name one, or 'local' for the embedded sandbox")
    stored = _check_forward_url(url) if url and url.strip() else None
    settings = load_settings(path)
    if profile_name == LOCAL_PROFILE:
        settings.local = LocalSettings(forward_url=stored)
    else:
        get_profile(settings, profile_name).forward_url = stored
    save_settings(settings, path)
    return stored
