"""payscope: a terminal UI for exploring a payment processor's sandbox."""

import sys

__version__ = "0.1.0"

# httpx's own command line (`httpx._main`: click, pygments' lexers, rich's syntax and progress,
# about 20 ms of a start's imports) is never used here. httpx is made to work without it (it is
# its optional "cli" extra): a None entry makes that import fail, and httpx falls back.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
