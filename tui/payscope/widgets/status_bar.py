"""The status bar: profile, environment badge, rate limit, listener, sandbox clock."""

from __future__ import annotations

import weakref
from urllib.parse import urlsplit

from rich.text import Text
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Static

from payscope.api.vocabulary import counted
from payscope.widgets.format import theme_colour


class EnvBadge(Static):
    """LOCAL / SANDBOX / PRODUCTION, coloured so production is never missed."""

    DEFAULT_CSS = """
    EnvBadge { width: auto; padding: 0 1; text-style: bold; color: $env-text; }
    EnvBadge.-local { background: $env-local; }
    EnvBadge.-sandbox { background: $env-sandbox; }
    EnvBadge.-production { background: $env-production; }
    """

    environment: reactive[str] = reactive("local")

    def watch_environment(self, environment: str) -> None:
        for name in ("local", "sandbox", "production"):
            self.set_class(environment == name, f"-{name}")
        self.update(environment.upper())


class StatusBar(Horizontal):
    """One line of state at the bottom; every part is a reactive the app sets."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; }
    StatusBar > #status-line { width: 1fr; height: 1; padding: 0 1; }
    StatusBar > EnvBadge { width: auto; }
    """

    profile: reactive[str] = reactive("local")
    key_source: reactive[str] = reactive("")
    rate_limit: reactive[str] = reactive("")
    listener_url: reactive[str] = reactive("")
    # True when another payscope listens for this remote profile (this one runs none).
    listener_elsewhere: reactive[bool] = reactive(False)
    event_count: reactive[int] = reactive(0)
    clock: reactive[str] = reactive("")
    state: reactive[str] = reactive("starting")
    read_only: reactive[bool] = reactive(False)
    # The profile accepts an http:// service off this machine: the key crosses it unencrypted.
    insecure_http: reactive[bool] = reactive(False)

    def compose(self):  # type: ignore[no-untyped-def]
        yield EnvBadge(id="env-badge")
        yield Static(id="status-line")

    def _render_line(self) -> None:
        for follower in list(self._followers):  # bars that say what this one says: at once
            if follower.is_attached:
                follower.mirror(self)
            else:
                self._followers.discard(follower)
        try:
            line = self.query_one("#status-line", Static)
        except Exception:
            return
        text = self._line(compact=False)
        room = line.content_region.width
        if room and text.cell_len > room:
            # Narrow terminal: the listener's port and the event count matter, not its host.
            text = self._line(compact=True)
        text.no_wrap = True
        text.overflow = "ellipsis"
        # One line as wide as the bar whatever it says (CSS): no layout. A live feed changes
        # the event count many times a second, and a layout a time cost the whole screen.
        line.update(text, layout=False)

    def _line(self, compact: bool) -> Text:
        muted = theme_colour(self.app.theme_variables, "muted")
        parts: list[Text | str] = [Text(self.profile, style="bold")]
        if self.insecure_http:
            parts.insert(0, Text("INSECURE HTTP", style="bold reverse"))
        if self.read_only:
            parts.insert(0, Text("READ-ONLY", style="bold reverse"))
        if self.key_source:
            parts.append(Text(self.key_source, style=muted))
        if self.state:
            parts.append(Text(self.state, style=muted))
        if self.rate_limit:
            parts.append(Text.assemble(("rate ", muted), self.rate_limit))
        if self.listener_url:
            url = _short_url(self.listener_url) if compact else self.listener_url
            parts.append(
                Text.assemble(
                    ("listener ", muted),
                    url,
                    ("  ", ""),
                    (counted(self.event_count, "event"), "bold"),
                )
            )
        elif self.listener_elsewhere:
            parts.append(Text("listener: in the other payscope", style=muted))
        if self.clock:
            # "2026-11-21 09:30" -> "11-21 09:30" when narrow (the year rarely matters).
            clock = self.clock[5:] if compact and len(self.clock) == 16 else self.clock
            parts.append(Text.assemble(("clock ", muted), clock))
        return Text(" │ ", style=muted).join(
            part if isinstance(part, Text) else Text(part) for part in parts
        )

    def on_resize(self) -> None:
        self._render_line()

    def on_mount(self) -> None:
        self._render_line()
        # Its muted parts take the theme's colour when drawn: a theme chosen later redraws them.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._render_line())

    def watch_profile(self) -> None:
        self._render_line()

    def watch_key_source(self) -> None:
        self._render_line()

    def watch_rate_limit(self) -> None:
        self._render_line()

    def watch_listener_url(self) -> None:
        self._render_line()

    def watch_event_count(self) -> None:
        self._render_line()

    def watch_listener_elsewhere(self) -> None:
        self._render_line()

    def watch_clock(self) -> None:
        self._render_line()

    def watch_state(self) -> None:
        self._render_line()

    def watch_read_only(self) -> None:
        self._render_line()

    def watch_insecure_http(self) -> None:
        self._render_line()

    @property
    def _followers(self) -> weakref.WeakSet[StatusBar]:
        found: weakref.WeakSet[StatusBar] | None = self.__dict__.get("_following_me")
        if found is None:
            found = self.__dict__["_following_me"] = weakref.WeakSet()
        return found

    def mirror(self, other: StatusBar) -> None:
        """Say what `other` says (the main screen's bar, on a screen over it: a detail), now
        and from now on: each change of `other` is said here at once."""
        other._followers.add(self)
        for name in (
            "profile",
            "key_source",
            "rate_limit",
            "listener_url",
            "event_count",
            "insecure_http",
        ):
            setattr(self, name, getattr(other, name))
        self.clock, self.state, self.read_only = other.clock, other.state, other.read_only
        for badge in other.query(EnvBadge):
            self.set_environment(badge.environment)

    def set_environment(self, environment: str) -> None:
        """Show `local`, `sandbox` or `production` on the badge. A bar still composing (or
        already taken down, its screen closing) has no badge yet: its screen mirrors the main
        bar once it is mounted."""
        for badge in self.query(EnvBadge):
            badge.environment = environment


def _short_url(url: str) -> str:
    """`http://127.0.0.1:8787/webhooks` as `:8787`: what tells listeners apart on one host."""
    netloc = urlsplit(url).netloc
    _host, sep, port = netloc.rpartition(":")
    if not sep or port.endswith("]"):  # no port, or the end of an IPv6 address
        return netloc
    return f":{port}"
