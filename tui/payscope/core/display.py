"""How what changes from one run to the next is shown: ports, wall-clock times, measurements.

The runtime is given one `DisplayPolicy` and every screen asks it what to show. People get
`DisplayPolicy()`, which shows everything as it is; snapshot and pilot tests inject `STABLE`,
which hides what would move a picture between runs. A method answering None means "nothing of
it": the caller draws its own placeholder there.

Only the standard library here: the runtime (below the UI) holds the policy too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

# The port after a URL's host (`http://127.0.0.1:8042/...`).
_URL_PORT = re.compile(r"(://[^/:?#\s]+):\d+")
# The port ending a `host:port` (a Host header).
_HOST_PORT = re.compile(r":\d+$")
# A strftime directive, drawn as two dots when the time is hidden.
_DIRECTIVE = re.compile(r"%[A-Za-z]")


@dataclass(frozen=True)
class DisplayPolicy:
    """What the screens show of ports, wall-clock times and measured figures."""

    # Ports are chosen afresh each run (the listener's, the sandbox's when its own is taken).
    show_ports: bool = True
    # Times read from the wall clock (when a webhook came, when a request was made).
    show_wall_clock: bool = True
    # What is measured as it happens: latencies, seconds spent waiting, rate-limit windows.
    show_measurements: bool = True

    def url(self, text: str) -> str:
        """`text` with the port of every URL in it as shown (`:PORT` where ports are hidden)."""
        return text if self.show_ports else _URL_PORT.sub(r"\1:PORT", text)

    def host(self, value: str) -> str:
        """A `host:port` as shown (`host:PORT` where ports are hidden)."""
        return value if self.show_ports else _HOST_PORT.sub(":PORT", value)

    def address(self, text: str) -> str | None:
        """Text that is mostly a port (a request's Host header): itself, or None."""
        return text if self.show_ports else None

    def wall_time(self, timestamp: float, fmt: str = "%H:%M:%S") -> str | None:
        """A wall-clock time (UTC) in `fmt`, or None where the wall clock is not shown."""
        if not self.show_wall_clock:
            return None
        return datetime.fromtimestamp(timestamp, UTC).strftime(fmt)

    def wall_text(self, text: str) -> str | None:
        """Text that carries a wall-clock time (a Date header): itself, or None."""
        return text if self.show_wall_clock else None

    def measured(self, text: str) -> str | None:
        """A figure measured as it happens (a latency, a rate-limit window): itself, or None."""
        return text if self.show_measurements else None


def hidden_time(fmt: str = "%H:%M:%S") -> str:
    """The placeholder of a hidden time in `fmt`: `··:··:··` for `%H:%M:%S`."""
    return _DIRECTIVE.sub("··", fmt)


# What a person sees.
USER = DisplayPolicy()
# What snapshots and pilots see: nothing that moves between runs.
STABLE = DisplayPolicy(show_ports=False, show_wall_clock=False, show_measurements=False)
