"""Where a webhook may be forwarded or replayed to: an http(s) URL that names a host.

One check, used by the listener (`payscope.webhooks`), the settings file (`core.config`), the
TUI's replay form and `payscope listen --forward-to`, so all of them accept the same URLs and
say the same words about the others."""

from __future__ import annotations

from urllib.parse import urlsplit


class ForwardTargetError(ValueError):
    """There is no usable URL to forward or replay to; the message says what to do."""


class InvalidForwardUrl(ForwardTargetError):
    """A forward or replay URL that cannot be used (not http(s), no host, not a URL)."""

    def __init__(self, url: str, problem: str) -> None:
        self.url = url
        self.problem = problem
        super().__init__(problem)


def check_url(url: str) -> str:
    """`url` when it can be a forward target; else raise :class:`InvalidForwardUrl`."""
    problem = url_problem(url)
    if problem is not None:
        raise InvalidForwardUrl(url, problem)
    return url


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a forward target (None when it can), written for a person."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        return f"{url!r} is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return f"forward targets need an http:// or https:// URL, got {url!r}"
    if not parts.hostname:
        return f"{url!r} names no host; use e.g. http://127.0.0.1:3000/webhooks"
    return None
