"""What `payscope` does first, before any heavier import: start the background sandbox when
this run needs one (standard library only, and nothing that loads asyncio or Textual).

On a first run the sandbox's own start (Python, FastAPI, every route) and its seeding take
longer than the app's whole start, so the sooner it starts the sooner the live page comes: it
is spawned ahead of even the start-up read's and the runtime's imports (about 0.1 s of them).
`payscope.app.runtime` adopts it (`adopt_spawned`) and uses the same peeks of the settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from payscope.core import bounded, paths
from payscope.core.paths import CONFIG_FILE
from payscope.sandbox.files import serving_pid

DEFAULT_SEED = 300
PORT_FILE = "last-port"


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class Peek(NamedTuple):
    keymap: dict[str, str]
    default_profile: str | None = None
    theme: str | None = None
    profile_theme: str | None = None
    listener_port: int | None = None
    sandbox_port: Any = None  # `[local] sandbox_port`, unvalidated


def peek_settings(path: Path, profile: str | None) -> Peek | None:
    """What the first paint needs from the settings file, unvalidated; None when in doubt."""
    try:
        text = bounded.read_text(path)
    except FileNotFoundError:
        return None if profile else Peek({})
    except (OSError, ValueError):  # too large too: the full read says so (payscope.core.config)
        return None
    try:
        data = bounded.loads_toml(text)
    except ValueError:  # not TOML, or nested too deeply: the same
        return None
    default = data.get("default_profile")
    theme = data.get("theme")
    keymap = data.get("keymap", {})
    profiles = data.get("profiles", {})
    if not (
        _optional_str(default)
        and _optional_str(theme)
        and isinstance(keymap, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in keymap.items())
        and isinstance(profiles, dict)
    ):
        return None
    name = profile or default
    table: Any = {}
    if name is not None:
        table = profiles.get(name)
        if not isinstance(table, dict):
            return None  # unknown profile: the validating path says so properly
    port = table.get("listener_port")
    if not _optional_str(table.get("theme")) or not (port is None or type(port) is int):
        return None
    local = data.get("local")
    local_port = local.get("sandbox_port") if isinstance(local, dict) else None
    return Peek(dict(keymap), default, theme, table.get("theme"), port, local_port)


def wanted_port(configured: Any, port_file: Path) -> tuple[int, str]:
    """`Runtime.wanted_sandbox_port` from the configured port (None: not set) and the file
    holding the last run's."""
    if isinstance(configured, int) and 0 <= configured < 65536:
        return configured, "set as sandbox_port in the [local] settings"
    try:
        remembered = int(port_file.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return 0, ""
    return (remembered, "used last time") if 0 < remembered < 65536 else (0, "")


# The background sandbox the command line started before Textual was imported: (its data
# directory, its pid), until `Runtime.spawn_early` adopts it.
_spawned_at_launch: tuple[Path, int] | None = None


def spawn_at_launch(profile: str | None, seed: int | None) -> None:
    """On a first run of the local profile, start the background sandbox at once, before the
    command line imports Textual: its own start (Python, FastAPI, every route) and its seeding
    then overlap the app's loading instead of following it. `Runtime.spawn_early` adopts it.

    Only when the settings file says plainly that this run is local (no profile asked for, no
    default profile) and no sandbox is running; anything else is left to `Runtime`, which
    validates the settings and says what is wrong with them.
    """
    global _spawned_at_launch
    configs, data = paths.config_dir(), paths.data_dir()
    peeked = peek_settings(configs / CONFIG_FILE, profile)
    if peeked is None or (profile or peeked.default_profile) is not None:
        return
    directory = data / "sandbox"
    if serving_pid(directory) is not None:
        return
    from payscope.sandbox import daemon

    port, _origin = wanted_port(peeked.sandbox_port, directory / PORT_FILE)
    seed = DEFAULT_SEED if seed is None else seed
    _spawned_at_launch = (directory, daemon.spawn(directory, port=port, seed=seed))


def adopt_spawned(directory: Path) -> int | None:
    """The pid of the sandbox `spawn_at_launch` started for `directory`, if it did (once)."""
    global _spawned_at_launch
    spawned, _spawned_at_launch = _spawned_at_launch, None
    return spawned[1] if spawned is not None and spawned[0] == directory else None


def _optional_str(value: Any) -> bool:
    return value is None or isinstance(value, str)
