"""Who may drive `payscope serve`: whoever holds the token of the URL it printed.

textual-serve's own `Server.serve()` answers anyone who reaches its port: every WebSocket
starts a payscope with the user's keys. Here the same page, WebSocket and downloads (the
server's public handlers, `handle_index`, `handle_websocket`, `handle_download`, on an aiohttp
application of our own) sit behind one middleware, which checks, for every request:

- `Host` is the address served on, as printed (`127.0.0.1:8000`): a page that made its own name
  point here (DNS rebinding) says its own name, and is refused;
- the token: `?token=` (the printed URL; on `/` it is answered with a cookie and a redirect to
  `/`, so the token leaves the address bar and a reload works) or the cookie. The cookie is
  named after the port (cookies are per host, not per port), HttpOnly, SameSite=Strict: another
  site's page never sends it;
- for `/ws`, the WebSocket: its `Origin` is the printed origin (a browser always sends it;
  another site's page cannot forge it), and fewer than `max_tabs` tabs are open.

Each refusal is a short page that says why (403; 503 when the tabs are all taken), and never
holds the token. Nothing is logged per request (no access log: the token is in the first
request line); the token is said once, in the URL `payscope serve` prints.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import html
import secrets
import socket
from collections.abc import Awaitable, Callable
from urllib.parse import urlencode

from aiohttp import web

from payscope.core.waiting import within

DEFAULT_MAX_TABS = 4
# How long a WebSocket past the cap waits for a tab that is closing (a reload's old one).
RELOAD_GRACE = 10.0
# How often the "all tabs taken" page asks again by itself.
RETRY_PAGE_SECONDS = 3
WILDCARDS = ("0.0.0.0", "::", "")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def served_name(host: str, port: int) -> str:
    """The `host:port` the printed URL names (a wildcard bind: this machine's host name)."""
    if host in WILDCARDS:
        host = socket.gethostname()
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port}"


def _page(status: int, title: str, text: str, refresh: int = 0, **headers: str) -> web.Response:
    again = f"<meta http-equiv='refresh' content='{refresh}'>" if refresh else ""
    body = (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>{again}"
        f"<title>payscope serve: {html.escape(title)}</title></head>"
        "<body style='font-family: sans-serif; max-width: 44em; margin: 3em auto; "
        "line-height: 1.5'>"
        f"<h1>payscope serve: {html.escape(title)}</h1>"
        f"<p>{html.escape(text, quote=False)}</p></body></html>"
    )
    return web.Response(
        status=status,
        text=body,
        content_type="text/html",
        headers={"Referrer-Policy": "no-referrer", "Cache-Control": "no-store", **headers},
    )


class Guard:
    """The token, the checks and the tab count of one `payscope serve`."""

    def __init__(
        self, host: str, port: int, *, max_tabs: int = DEFAULT_MAX_TABS, token: str | None = None
    ) -> None:
        self.host = host
        self.port = port
        self.max_tabs = max_tabs
        self.token = token or secrets.token_urlsafe(24)
        self.name = served_name(host, port)
        self.origin = f"http://{self.name}"
        self.hosts = {self.name.lower()}
        if port == 80:  # a browser leaves the default port out of Host
            self.hosts.add(self.name.rsplit(":", 1)[0].lower())
        self.cookie = f"payscope-serve-{port}"
        self.tabs = 0
        self._closed: asyncio.Condition | None = None  # made on the server's loop

    def _holds_token(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(
            str(value).encode("utf-8", "replace"), self.token.encode()
        )

    @web.middleware
    async def check(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        host = request.headers.get("Host", "")
        if host.lower() not in self.hosts:
            shown = host.encode("ascii", "backslashreplace").decode()[:200] or "(none)"
            return _page(
                403,
                "wrong address",
                f"This server is payscope serve on {self.origin}; the request named the host "
                f"{shown!r}. It is refused: a web page that points its own name at this port "
                f"(DNS rebinding) must not drive payscope. Open the URL payscope serve printed.",
            )
        given = request.query.get("token")
        if given is not None:
            if not self._holds_token(given):
                return _refused_token("The token in this URL is not this server's.")
            if request.path == "/":  # the cookie, and the token out of the address bar
                rest = [(k, v) for k, v in request.query.items() if k != "token"]
                target = "/" + (f"?{urlencode(rest)}" if rest else "")
                response = web.Response(
                    status=303, headers={"Location": target, "Referrer-Policy": "no-referrer"}
                )
                response.set_cookie(
                    self.cookie, self.token, httponly=True, samesite="Strict", path="/"
                )
                return response
        elif not self._holds_token(request.cookies.get(self.cookie)):
            return _refused_token("This page needs the token of the URL payscope serve printed.")
        if request.path == "/ws":
            origin = request.headers.get("Origin", "")
            if origin.lower() != self.origin.lower():
                shown = origin.encode("ascii", "backslashreplace").decode()[:200] or "(none)"
                return _page(
                    403,
                    "wrong origin",
                    f"A WebSocket from the origin {shown!r} is refused: only the page served at "
                    f"{self.origin} may open one.",
                )
        # At the cap the page says so, and asks again every few seconds by itself: a reload
        # at the cap gets it once, since the browser keeps the old page (and its WebSocket)
        # until the new one's answer arrives, and the next ask finds the old tab gone.
        full = self.tabs >= self.max_tabs if request.path == "/" else False
        if request.path == "/ws":  # the WebSocket waits for a closing tab a moment
            full = not await self._slot()
        if full:
            return _page(
                503,
                "all tabs taken",
                f"{self.tabs} tabs are open already, the most this payscope serve allows "
                f"(--max-tabs {self.max_tabs}). Close one of them: this page tries again "
                f"every {RETRY_PAGE_SECONDS} s by itself.",
                refresh=RETRY_PAGE_SECONDS,
                **{"Retry-After": str(RETRY_PAGE_SECONDS)},
            )
        answer = await handler(request)
        if not answer.prepared:
            answer.headers["Referrer-Policy"] = "no-referrer"
        return answer

    async def _slot(self) -> bool:
        """True when a tab's WebSocket may open now. At the cap, a tab that is closing is
        waited for (`RELOAD_GRACE` seconds at most): its payscope takes a moment to quit."""
        if self.tabs < self.max_tabs:
            return True
        if self._closed is None:
            self._closed = asyncio.Condition()
        async with self._closed:
            with contextlib.suppress(TimeoutError):
                await within(self._closed.wait_for(lambda: self.tabs < self.max_tabs), RELOAD_GRACE)
        return self.tabs < self.max_tabs

    async def _tab_closed(self) -> None:
        self.tabs -= 1
        if self._closed is not None:
            async with self._closed:
                self._closed.notify_all()

    def application(self, command: str) -> web.Application:
        """The page, the WebSocket and the downloads of textual-serve's `Server`, guarded."""
        import aiohttp_jinja2
        import jinja2
        from textual_serve.server import Server

        server = Server(command, self.host, self.port, title="payscope", public_url=self.origin)

        async def websocket(request: web.Request) -> web.StreamResponse:
            self.tabs += 1
            try:
                return await server.handle_websocket(request)
            finally:
                await self._tab_closed()

        async def index(request: web.Request) -> web.StreamResponse:
            response: web.StreamResponse = await server.handle_index(request)
            return response

        app = web.Application(middlewares=[self.check])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(server.templates_path))
        # The route names are the ones textual-serve's page template asks the router for.
        app.add_routes(
            [
                web.get("/", index, name="index"),
                web.get("/ws", websocket, name="websocket"),
                web.get("/download/{key}", server.handle_download, name="download"),
                web.static("/static", server.statics_path, name="static"),
            ]
        )
        return app

    def serve(self, command: str) -> None:
        """Serve until SIGINT or SIGTERM (aiohttp's own signal handling), without logs."""
        web.run_app(
            self.application(command),
            host=self.host or None,
            port=self.port,
            print=None,
            access_log=None,  # the token is in the first request's line
            handle_signals=True,
            shutdown_timeout=5,
        )


def _refused_token(why: str) -> web.Response:
    return _page(
        403,
        "token needed",
        f"{why} Open the URL that payscope serve printed when it started (it ends with "
        "?token=…); the token is the password of this server. This browser must keep its "
        "cookie for a reload to work.",
    )
