"""Where payscope keeps its files. Standard library only: the TUI needs these before its first
paint, and `payscope.core.config` (which loads pydantic) is too heavy for that path."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "payscope"
CONFIG_FILE = "profiles.toml"
ENV_CONFIG_DIR = "PAYSCOPE_CONFIG_DIR"
ENV_DATA_DIR = "PAYSCOPE_DATA_DIR"
# `PAYSCOPE_SANDBOX=in-process` runs the local sandbox inside the app, stopped on quit, instead
# of the background service kept between runs.
ENV_SANDBOX_MODE = "PAYSCOPE_SANDBOX"


def _env_dir(variable: str) -> Path | None:
    value = os.environ.get(variable, "").strip()
    return Path(value).expanduser() if value else None


def config_dir() -> Path:
    """Where ``profiles.toml`` lives: ``PAYSCOPE_CONFIG_DIR`` or the platform config dir."""
    override = _env_dir(ENV_CONFIG_DIR)
    if override is not None:
        return override
    import platformdirs  # only when needed: tests and CI always set the override

    return platformdirs.user_config_path(APP_NAME, appauthor=False)


def data_dir() -> Path:
    """Where the sandbox and listener keep SQLite files: ``PAYSCOPE_DATA_DIR`` or the platform
    data dir."""
    override = _env_dir(ENV_DATA_DIR)
    if override is not None:
        return override
    import platformdirs

    return platformdirs.user_data_path(APP_NAME, appauthor=False)


def config_path() -> Path:
    """The settings file: ``config_dir() / "profiles.toml"``."""
    return config_dir() / CONFIG_FILE
