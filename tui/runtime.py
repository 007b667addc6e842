"""Start-up orchestration: the embedded sandbox, the listener and the API client, in the app's loop.

Nothing here is imported by the shell until it needs it: the server stack (FastAPI, uvicorn) is
imported in a thread while the shell is already on screen, so the first paint does not wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_SEED = 300
HOST = "127.0.0.1"

Progress = Callable[[str, float | None], None]


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
    settings: Any = None
    stable_display: bool = False

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
        """Read the settings file (cheap: TOML) and combine it with the command line."""
        from tui import config

        if config_dir is not None:
            os.environ["PAYSCOPE_CONFIG_DIR"] = str(config_dir)
        if data_dir is not None:
            os.environ["PAYSCOPE_DATA_DIR"] = str(data_dir)
        try:
            settings = config.load_settings()
        except Exception as exc:  # a broken settings file must not stop the app from opening
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

    @property
    def is_local(self) -> bool:
        """True on the embedded sandbox (no --profile)."""
        return self.profile is None


class Runtime:
    """Owns the embedded sandbox (local profile), the listener and the shared API client."""

    def __init__(self, options: RuntimeOptions) -> None:
        self.options = options
        self.sandbox: Any = None
        self.listener: Any = None
        self.client: Any = None
        self.environment = "local" if options.is_local else "sandbox"
        self.profile_name = options.profile or "local"
        self.key_source = ""
        self.listener_url = ""
        self.base_url = ""
        self.merchant_id: str | None = None
        self.business_profile_id: str | None = None
        self.ready = asyncio.Event()

    async def start(self, progress: Progress | None = None) -> None:
        """Bring everything up; raise a readable error if something cannot start."""
        report = progress or (lambda _text, _fraction: None)
        if self.options.is_local:
            await self._start_local(report)
        else:
            await self._start_remote(report)
        self.ready.set()

    async def _import(self, module: str) -> Any:
        # Imported in a thread: the shell keeps painting while FastAPI and uvicorn load.
        return await asyncio.to_thread(importlib.import_module, module)

    async def _start_local(self, report: Progress) -> None:
        report("Starting the local sandbox…", None)
        server = await self._import("tui.sandbox.server")
        listener_mod = await self._import("tui.webhooks.listener")
        api = await self._import("tui.api.client")
        data = self.options.data_dir
        config = server.SandboxConfig(data_dir=data / "sandbox", **self.options.sandbox_options)
        self.sandbox = server.Sandbox(config)
        self.base_url = await self.sandbox.start(HOST, 0)
        credentials = self.sandbox.credentials
        if not await _maybe_await(self.sandbox.is_seeded()) and self.options.seed:
            total = self.options.seed

            loop = asyncio.get_running_loop()

            def seeded(done: int, *_rest: Any) -> None:
                # Called from the seeding thread: hand the update to the app's loop.
                text = f"First run: seeding demo data, {done} of {total} payments"
                loop.call_soon_threadsafe(report, text, done / max(total, 1))

            report(f"First run: seeding demo data, 0 of {total} payments", 0.0)
            # Seeding writes through its own SQLite connection, so a thread keeps the UI live.
            await asyncio.to_thread(self.sandbox.seed, total, seeded)
        report("Starting the webhook listener…", None)
        secret = credentials.webhook_secret
        self.listener = listener_mod.Listener(data / "listener", secrets=[secret])
        hook = await self.listener.start(HOST, self.options.listener_port or 0)
        self.listener_url = self._shown_url(hook)
        await _maybe_await(self.sandbox.set_webhook(hook, secret))
        self.merchant_id = credentials.merchant_id
        self.business_profile_id = credentials.profile_id
        self.client = api.ApiClient(
            self.base_url,
            credentials.api_key,
            profile_id=credentials.profile_id,
            merchant_id=credentials.merchant_id,
        )
        report("", 1.0)

    async def _start_remote(self, report: Progress) -> None:
        from tui import config, secrets

        settings = self.options.settings
        profile = config.get_profile(settings, self.options.profile)
        report(f"Connecting to {profile.base_url}…", None)
        resolved = secrets.resolve_api_key(profile.name)
        api_key = resolved.value
        self.key_source = (
            f"key {resolved.masked} from PAYSCOPE_API_KEY"
            if resolved.source == "env"
            else f"key {resolved.masked}"
        )
        if secrets.is_production(api_key):
            self.environment = "production"
        api = await self._import("tui.api.client")
        listener_mod = await self._import("tui.webhooks.listener")
        self.base_url = profile.base_url
        self.merchant_id = profile.merchant_id
        self.business_profile_id = profile.profile_id
        self.client = api.ApiClient(
            profile.base_url,
            api_key,
            profile_id=profile.profile_id,
            merchant_id=profile.merchant_id,
            allow_production=self.options.allow_production or profile.allow_production,
        )
        try:
            webhook_secret = secrets.get_secret(profile.name, "webhook")
        except Exception:
            webhook_secret = None
        self.listener = listener_mod.Listener(
            self.options.data_dir / "listener",
            secrets=[webhook_secret] if webhook_secret else None,
        )
        hook = await self.listener.start(HOST, self.options.listener_port or 8787)
        self.listener_url = self._shown_url(hook)
        report("", 1.0)

    def _shown_url(self, url: str) -> str:
        if self.options.stable_display:
            import re

            return re.sub(r":\d+/", ":PORT/", url)
        return url

    def clock_text(self) -> str:
        """The sandbox's clock (it can be advanced, so it is not the wall clock), or ""."""
        clock = _clock_of(self.sandbox)
        if clock is None:
            return ""
        from datetime import UTC, datetime

        return datetime.fromtimestamp(clock.now(), UTC).strftime("%Y-%m-%d %H:%M")

    async def stop(self) -> None:
        """Stop what was started (each part on its own, so one failure does not leak the rest)."""
        for part in (self.client, self.listener, self.sandbox):
            if part is None:
                continue
            closer = getattr(part, "aclose", None) or getattr(part, "stop", None)
            if closer is None:
                continue
            # Shutting down: nothing useful to tell the user any more.
            with contextlib.suppress(Exception):
                await _maybe_await(closer())


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def _clock_of(sandbox: Any) -> Any:
    clock = getattr(sandbox, "clock", None)
    if clock is None:
        clock = getattr(getattr(sandbox, "state", None), "clock", None)
    return clock
