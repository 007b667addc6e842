"""Where payscope's docs are, for the help and the error messages that name a fix.

The docs are the Markdown pages of `docs/` in payscope's source (`make docs` builds them into a
site under `site/`). Standard library only: `payscope --help` imports it.
"""

from __future__ import annotations

DOCS = "docs/"  # in payscope's source tree

# The pages, by what they explain (docs/<name>.md, as in mkdocs.yml's nav).
PAGES = {
    "start": "getting-started",
    "tui": "tui",
    "tools": "tools",
    "sandbox": "sandbox",
    "listener": "webhooks",
    "config": "configuration",
    "client": "client",
    "cli": "cli",
}


def page(topic: str, section: str = "") -> str:
    """`docs/<page>.md`, with `#section` (the heading's anchor) when given."""
    path = f"{DOCS}{PAGES[topic]}.md"
    return f"{path}#{section}" if section else path


def see(topic: str, section: str = "") -> str:
    """The line a help text ends with."""
    return f"docs: {page(topic, section)} (`make docs` builds the site into site/)"
