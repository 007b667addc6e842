"""The areas of the app, one package each: spec, forms, list view, detail (imports one way).

Each area's `__init__.py` says what it is in one `AREA` (`payscope.views.areas.Area`); this package
collects them, a folder at a time, into `REGISTRY`, which the shell, find, command mode, the rail
and `payscope export` read, and installs it for the views and the areas
(`payscope.views.areas.registry()`). Adding an area is adding its folder.

Areas never import each other; what several need lives in `payscope.views`.
"""

from __future__ import annotations

import importlib
import os

from payscope.views.areas import Area, Registry, install


def _collect() -> list[Area]:
    """The `AREA` of every package here (a folder with an `__init__.py`)."""
    # A directory listing, not pkgutil: that costs more to import than every area's AREA.
    names = sorted(
        entry.name
        for folder in __path__
        for entry in os.scandir(folder)
        if entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py"))
    )
    found = []
    for name in names:
        area = getattr(importlib.import_module(f"{__name__}.{name}"), "AREA", None)
        if not isinstance(area, Area) or area.key != name:
            raise ImportError(
                f"{__name__}.{name} says no AREA (payscope.views.areas.Area) keyed {name!r}"
            )
        found.append(area)
    return found


REGISTRY = Registry(_collect())
install(REGISTRY)

AREAS = REGISTRY.areas
AREA_BY_KEY = REGISTRY.by_key
ID_COMMANDS = REGISTRY.id_commands
area_for_id = REGISTRY.for_id

__all__ = ["AREAS", "AREA_BY_KEY", "ID_COMMANDS", "REGISTRY", "Area", "area_for_id"]
