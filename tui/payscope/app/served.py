"""Whether this payscope is a tab of `payscope serve`: the server tells each tab's payscope its
pid in `ENV_SERVED_BY`. The tab's process is the server's own child (its shell execs it), and
quits once its parent is no longer the server."""

from __future__ import annotations

import os

ENV_SERVED_BY = "PAYSCOPE_SERVED_BY"


def served_by() -> int | None:
    """The pid of the `payscope serve` this payscope is a tab of, or None."""
    value = os.environ.get(ENV_SERVED_BY, "")
    return int(value) if value.isdigit() else None
