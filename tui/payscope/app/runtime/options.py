"""What a run is started with (`RuntimeOptions`): the command line combined with the settings file,
which the first frame only peeks at; validating it (pydantic) waits until after that frame.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from payscope.app.launch import DEFAULT_SEED, peek_settings
from payscope.core import paths
from payscope.core.paths import CONFIG_FILE, ENV_CONFIG_DIR, ENV_DATA_DIR

if TYPE_CHECKING:
    from payscope.core.config import Settings


class OptionsError(ValueError):
    """The command line or the config asks for something payscope cannot do (said for a person)."""


@dataclass
class RuntimeOptions:
    """Everything start-up needs, resolved from the command line and the settings file."""

    profile: str | None
    seed: int
    theme: str | None
    allow_production: bool
    config_dir: Path | None
    data_dir: Path
    user_theme_dir: Path | None
    keymap: dict[str, str] = field(default_factory=dict)
    listener_port: int = 0
    sandbox_options: dict[str, Any] = field(default_factory=dict)
    settings: Settings | None = None
    # `[local] sandbox_port` as the start peeked at it (unvalidated), until `settings` is read.
    peeked_sandbox_port: Any = None
    # The local sandbox as a background service kept between runs (the CLI's choice; tests and
    # benchmarks that pass sandbox options run it inside the app).
    daemon: bool = False
    # The API client's backoff jitter (`random.random` when None); tests fix it so that retries
    # against a service that is down take the same time on every run.
    retry_rng: Callable[[], float] | None = None
    # The API client's wait before a retry (`asyncio.sleep` when None): a test that shows what
    # a failing service looks like need not sit through the waits (Retry-After: 1) it asks for.
    retry_sleep: Callable[[float], Awaitable[Any]] | None = None
    # `--read-only` (a profile's `read_only = true` adds to it): the client refuses writes.
    read_only: bool = False
    # Who this run's calls are in the profile's shared request log (`payscope logs tail`).
    request_log_source: str = "tui"

    @classmethod
    def build(
        cls,
        *,
        profile: str | None,
        seed: int | None,
        theme: str | None,
        allow_production: bool,
        config_dir: Path | None,
        data_dir: Path | None,
        sandbox_options: dict[str, Any],
    ) -> RuntimeOptions:
        """Combine the command line with the settings file.

        The settings are only peeked at here (plain TOML): validating them needs pydantic, which
        costs more than the whole first paint, so `load_settings` does that after it. Anything the
        peek finds odd takes the full, validating path at once, for its precise error messages.
        """
        if config_dir is not None:
            os.environ[ENV_CONFIG_DIR] = str(config_dir)
        if data_dir is not None:
            os.environ[ENV_DATA_DIR] = str(data_dir)
        configs, data = paths.config_dir(), paths.data_dir()
        peeked = peek_settings(configs / CONFIG_FILE, profile)
        if peeked is None:
            return cls._build_validated(
                profile=profile,
                seed=seed,
                theme=theme,
                allow_production=allow_production,
                sandbox_options=sandbox_options,
            )
        profile = profile or peeked.default_profile
        return cls(
            profile=profile,
            seed=DEFAULT_SEED if seed is None else seed,
            theme=theme or peeked.profile_theme or peeked.theme,
            allow_production=allow_production,
            config_dir=configs,
            data_dir=data,
            user_theme_dir=configs / "themes",
            keymap=peeked.keymap,
            listener_port=peeked.listener_port or 0,
            sandbox_options=sandbox_options,
            peeked_sandbox_port=peeked.sandbox_port,
        )

    @classmethod
    def _build_validated(
        cls,
        *,
        profile: str | None,
        seed: int | None,
        theme: str | None,
        allow_production: bool,
        sandbox_options: dict[str, Any],
    ) -> RuntimeOptions:
        from payscope.core import config

        try:
            settings = config.load_settings()
        except Exception as exc:  # said for a person by payscope.core.config; no traceback wanted
            raise OptionsError(str(exc)) from exc
        profile = profile or settings.default_profile
        chosen = None
        if profile is not None:
            try:
                chosen = config.get_profile(settings, profile)
            except config.ProfileError as exc:
                raise OptionsError(
                    f"{exc}. Or run `payscope` without --profile for the embedded sandbox."
                ) from None
        return cls(
            profile=profile,
            seed=DEFAULT_SEED if seed is None else seed,
            theme=theme or (chosen.theme if chosen else None) or settings.theme,
            allow_production=allow_production,
            config_dir=config.config_dir(),
            data_dir=config.data_dir(),
            user_theme_dir=config.config_dir() / "themes",
            keymap=dict(settings.keymap),
            listener_port=(chosen.listener_port if chosen else None) or 0,
            sandbox_options=sandbox_options,
            settings=settings,
        )

    def load_settings(self) -> Settings:
        """The validated settings (payscope.core.config's `Settings`), read once; `OptionsError` if
        broken."""
        if self.settings is None:
            from payscope.core import config

            try:
                self.settings = config.load_settings()
            except Exception as exc:  # said for a person by payscope.core.config
                raise OptionsError(str(exc)) from exc
        return self.settings

    @property
    def is_local(self) -> bool:
        """True on the embedded sandbox (no --profile)."""
        return self.profile is None

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for `ApiClient` that these options change from its defaults."""
        # Public test cards stay whole in the request journal: a copied curl runs as copied.
        from payscope.sandbox.cards import is_public_test_card

        options: dict[str, Any] = {"public_card": is_public_test_card}
        if self.retry_rng is not None:
            options["rng"] = self.retry_rng
        if self.retry_sleep is not None:
            options["sleep"] = self.retry_sleep
        if self.read_only:
            options["read_only"] = True
        return options
