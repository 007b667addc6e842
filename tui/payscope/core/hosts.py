"""Whether a host or URL is this machine (loopback), and whether a URL would carry a secret in
clear text over a network. Standard library only: the config, the client and the fixtures
runner share it."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

__all__ = ["INSECURE_HTTP_FIX", "is_insecure_http", "is_loopback_host", "is_loopback_url"]

INSECURE_HTTP_FIX = (
    "use its https:// address, or, if you accept that anyone on the network between can read "
    "the key, set allow_insecure_http = true in the profile (profiles.toml)"
)


def is_loopback_host(host: str) -> bool:
    """`localhost` (and names under `.localhost`, and `ip6-localhost`), 127.0.0.0/8 and ::1,
    brackets allowed: names other machines cannot reach. The one test of it: the config, the
    client, the fixtures runner, `payscope serve`, `payscope listen` and the Host checks
    (`payscope.core.host_guard`) all ask here."""
    host = host.strip().strip("[]").rstrip(".").lower()
    if host in ("localhost", "ip6-localhost") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_loopback_url(url: str) -> bool:
    """Whether `url`'s host is loopback (False for a URL that cannot be read)."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    return bool(host) and is_loopback_host(host or "")


def is_insecure_http(url: str) -> bool:
    """An `http://` URL to another machine: what is sent to it crosses the network unencrypted."""
    return url.strip().lower().startswith("http://") and not is_loopback_url(url)
