"""Payment links: a server-paged table of links (active, expired, paid), filters, live rows, and
a link's detail with its QR code.

A link is shown `paid` once its payment went through (`PaymentLink.state`, from the
`payment_status` the local sandbox answers): a webhook about the link's payment therefore
redraws the link's row and reloads its detail. A link expires by the service's clock, which no
webhook reports: the list and the detail look at the clock every second and read a link again
once its expiry has passed (the local sandbox's clock may be advanced). Times left are judged
by the service's time (`Runtime.now`), never the wall clock.

The actions (`ROW_ACTIONS`) are shared by the list and the detail: open the link in the
browser (o), copy it (y), show its QR code alone (q), open its payment (g). The form is in
`link_forms`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tui.areas.links.forms import NewLinkForm
from tui.areas.links.spec import (
    COLUMNS,
    EXPIRY_CHECK,
    PAGE_SIZE,
    PORT,
    expires_at,
    expiry_long,
    link_grammar,
    link_state,
    state_text,
    waiting,
)
from tui.views.actions import Action
from tui.views.detail import DetailScreen, Related, empty, grid, read_related
from tui.views.filters import (
    Grammar,
)
from tui.views.listing import ResourceListView, listed_total, new_record_action
from tui.views.payment import goto_payment, payment_summary
from tui.widgets.format import format_amount, format_time, theme_colour
from tui.widgets.text import safe, visible

if TYPE_CHECKING:
    from tui.views.actions import ActionHost
    from tui.views.live import Change


# -- actions (the list and the detail share them) ------------------------------------------------


def shown_url(host: Any, url: str) -> str:
    """The link as shown and drawn: the port hidden where the display must not move (tests),
    as it is for the listener's URL."""
    if host.app.runtime.options.stable_display:
        return PORT.sub(r"\1:PORT", url)
    return url


def _has_link(link: Any) -> bool:
    return bool(getattr(link, "link_to_pay", None))


def _open(host: ActionHost, _id: str | None, link: Any) -> None:
    from tui.views.browser import open_in_browser

    open_in_browser(host.app, str(link.link_to_pay), "the payment link")


def _copy(host: ActionHost, _id: str | None, link: Any) -> None:
    from tui.views.browser import copy_text

    copy_text(host.app, str(link.link_to_pay), "the payment link")


def _show_qr(host: ActionHost, _id: str | None, link: Any) -> None:
    from tui.widgets.qr import QRScreen

    url = shown_url(host, str(link.link_to_pay))
    caption = Text(url + "   Esc closes", no_wrap=True, overflow="ellipsis")
    host.app.push_screen(QRScreen(url, caption))


ROW_ACTIONS: tuple[Action[Any], ...] = (
    Action(
        "open",
        "o",
        "Browser",
        "Open the link in the browser (the customer's checkout page)",
        _open,
        when=_has_link,
        palette="Open the payment link in the browser",
        writes=False,
    ),
    Action(
        "copy",
        "y",
        "Copy",
        "Copy the link to the clipboard",
        _copy,
        when=_has_link,
        palette="Copy the payment link",
        writes=False,
    ),
    Action(
        "qr",
        "q",
        "QR alone",
        "Show the link's QR code alone, as large as the terminal allows",
        _show_qr,
        when=_has_link,
        palette="Show the QR code alone",
        writes=False,
    ),
    goto_payment("Open the link's payment", "Open the link's payment"),
)


NEW_LINK: Action[Any] = new_record_action("New link", "Make a payment link", "New link")


class LinksView(ResourceListView[Any]):
    """The Links area."""

    title = "Payment links"
    noun = "payment links"
    scope = "links"
    id_prefix = "plink_"
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to make one."
    # Open and copy show in the footer (they are what a link is for); the rest keep their keys.
    actions = (
        NEW_LINK,
        ROW_ACTIONS[0],
        ROW_ACTIONS[1],
        *(a.hidden() for a in ROW_ACTIONS[2:]),
    )

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        # Links read again because their expiry passed: once each (a service that still says
        # active is believed, not asked every second).
        self._asked: set[str] = set()
        self._minute = -1
        self._clock: Any = None  # the timer that looks at the service's clock

    def key_of(self, record: Any) -> str:
        return str(record.payment_link_id)

    def order(self, record: Any) -> Any:
        return getattr(record, "created_at", None) or ""

    def filter_grammar(self) -> Grammar:
        return link_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Any], int]:
        from tui.api.models.links import PaymentLinkListRequest

        request = PaymentLinkListRequest(limit=limit, offset=offset, **filters)
        page = await self.runtime.api.payment_links.list(request)
        # The real service answers a bare array: no total, count what came.
        total = listed_total(page.total_count, offset, len(page.data))
        return list(page.data), total

    async def fetch_one(self, record_id: str) -> Any:
        return await self.runtime.api.payment_links.retrieve(record_id)

    def detail(self, record_id: str) -> Any:
        return LinkDetailScreen(record_id)

    # -- live ----------------------------------------------------------------------------------

    def runtime_ready(self) -> None:
        super().runtime_ready()
        if self._clock is None:  # once, however often the runtime says it is ready
            self._clock = self.set_interval(EXPIRY_CHECK, self._check_clock)

    def on_change(self, change: Change) -> None:
        """A webhook about a shown link's payment is about the link too (paid, live)."""
        by_payment = {r.payment_id: key for key, r in self.rows.items() if r.payment_id}
        links = {by_payment[i] for i in change.ids if i in by_payment}
        if links:
            change = replace(change, related=change.related | links)
        super().on_change(change)

    def _check_clock(self) -> None:
        """Read again a shown link whose expiry has passed by the service's clock; redraw the
        times left when the minute changes."""
        if not self.loaded:
            return
        now = self.runtime.now()
        for key, link in list(self.rows.items()):
            due = expires_at(link)
            if waiting(link) and due is not None and due <= now and key not in self._asked:
                self._asked.add(key)
                self.refresh_one(key)
        minute = int(now // 60)
        if minute != self._minute:
            self._minute = minute
            self._repaint()

    # -- a new link ----------------------------------------------------------------------------

    def new_record(self) -> None:
        """Ask for the link's amount, expiry and look; the link made opens on its detail."""
        if self.starting(self.new_record):
            return

        self.app.push_screen(NewLinkForm(), self._created)

    def _created(self, link: Any) -> None:
        if link is None:
            return
        self.notify(
            f"{link.payment_link_id}: {format_amount(link.amount, link.currency)}",
            title="Payment link made",
            markup=False,
        )
        # No webhook announces a new link: the page is read again, the cursor on its row.
        self.show_created(link.payment_link_id)


# -- the detail ------------------------------------------------------------------------------------

# The summary beside the QR code needs this much room; narrower, the code gets its own section.
SUMMARY_WIDTH = 58
# What the screen takes round a section's content: the body's padding, the border, its padding
# and the scrollbar.
SECTION_CHROME = 8
_LOCAL_HOSTS = ("127.", "localhost", "[::1]", "0.0.0.0")


class LinkDetailScreen(DetailScreen[Any]):
    """One payment link: what it asks for, until when, its QR code, its look and its payment."""

    DEFAULT_CSS = """
    LinkDetailScreen #section-link { height: auto; }
    """

    noun = "Payment link"
    scope = "link"
    actions = ROW_ACTIONS
    enter_action = "payment"
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("link", "Link"),
        ("look", "Look of the checkout page"),
        ("payment", "Payment (Enter or g opens it)"),
        # Last where it has a section of its own (narrow screens): scrolled to, it is whole.
        ("qr", "QR code (q shows it alone)"),
    )

    def __init__(self, link_id: str) -> None:
        super().__init__(link_id)
        self.payment: Related[Any] = Related()
        self._expired_asked = False
        self._drawn: Any = None  # the QR drawing of the link shown

    def on_mount(self) -> None:
        # Textual calls DetailScreen.on_mount (the first read) after this one by itself.
        self.show_section("qr", False)
        self.set_interval(EXPIRY_CHECK, self._check_clock)

    async def fetch(self) -> Any:
        link = await self.runtime.api.payment_links.retrieve(self.record_id)
        if link.payment_id:
            # The link shows even when its payment cannot be read; the section says why.
            self.payment = await read_related(self.runtime.api.payments.retrieve(link.payment_id))
        else:
            self.payment = Related(problem="The service's link record does not name its payment.")
        return link

    def watched_ids(self, link: Any) -> set[str]:
        return {link.payment_link_id, *([link.payment_id] if link.payment_id else [])}

    def title_text(self, link: Any) -> Text:
        variables = self.app.theme_variables
        return Text.assemble(
            ("Payment link ", "bold"),
            safe(link.payment_link_id, "bold"),
            "  ",
            state_text(link_state(link), variables),
            ("  " + format_amount(link.amount, link.currency), theme_colour(variables, "amount")),
        )

    def on_resize(self) -> None:
        if self.record is not None:
            self._render_link(self.record)

    def _check_clock(self) -> None:
        """Read the link again once its expiry passes by the service's clock (no webhook says
        so); redraw the time left meanwhile."""
        link = self.record
        if link is None:
            return
        due = expires_at(link)
        now = self.runtime.now()
        if waiting(link) and due is not None and due <= now:
            if not self._expired_asked:
                self._expired_asked = True
                self.load(now=True)
            return
        self._expired_asked = False
        if waiting(link):
            self._render_link(link)

    def render_record(self, link: Any) -> None:
        self._render_link(link)
        self.section("look").update(self._look(link))
        self.section("payment").update(self._payment(link))

    def _render_link(self, link: Any) -> None:
        """The summary, with the QR code beside it where the screen is wide enough, else in a
        section of its own under it; where the whole code cannot be in sight at once, the
        section says so (q shows it alone) rather than draw a code no phone could scan."""
        summary = self._summary(link)
        url = getattr(link, "link_to_pay", None)
        if not url:
            self.section("link").update(summary)
            self.show_section("qr", False)
            return
        drawing = self._drawing(shown_url(self, str(url)))
        local = str(url).split("://", 1)[-1].startswith(_LOCAL_HOSTS)
        room = self.size.width - SECTION_CHROME
        tall = self.query_one("#detail-body").size.height >= drawing.height + 2
        code: RenderableType = drawing if tall else self._too_short(drawing)
        if room >= SUMMARY_WIDTH + 2 + drawing.width:
            notes = [empty("Scan the code to open the link; q shows it alone.")]
            if local:
                notes.append(empty("It points at this computer: a phone cannot reach it."))
            beside = Table.grid(padding=(0, 2), expand=True)
            beside.add_column(ratio=1)
            beside.add_column(width=drawing.width)
            beside.add_row(Group(summary, Text(""), *notes), code)
            self.section("link").update(beside)
            self.show_section("qr", False)
            return
        summary.add_row("QR code", empty("at the bottom of this page; q shows it alone"))
        self.section("link").update(summary)
        qr = self.section("qr")
        qr.update(code)
        # Said on the border: the code takes every row the screen has.
        qr.border_subtitle = "a phone cannot reach this computer's address" if local else ""
        self.show_section("qr", True)

    def _drawing(self, url: str) -> Any:
        from tui.widgets.qr import QRDrawing

        if self._drawn is None or self._drawn.data != url:
            self._drawn = QRDrawing(url)
        return self._drawn

    def _too_short(self, drawing: Any) -> Text:
        rows = self.query_one("#detail-body").size.height
        return Text(
            f"The screen is too short to show the whole code here ({drawing.height + 2} rows, "
            f"this view has {rows}): q shows it alone.",
            style="italic",
        )

    def _summary(self, link: Any) -> Table:
        variables = self.app.theme_variables
        now = self.runtime.now()
        state = link_state(link)
        rows = grid()
        rows.add_row("Status", Text.assemble(state_text(state, variables), self._meaning(link)))
        rows.add_row("Amount", format_amount(link.amount, link.currency))
        rows.add_row("Description", safe(link.description, multiline=True, empty="none given"))
        rows.add_row("Expires", expiry_long(link, now, variables))
        rows.add_row("Created", format_time(link.created_at))
        url = link.link_to_pay
        rows.add_row("Link", safe(shown_url(self, url) if url else None, empty="none given"))
        secure = link.secure_link
        rows.add_row("Secure link", safe(shown_url(self, secure) if secure else None, empty="none"))
        if link.link_type:
            rows.add_row("Type", safe(link.link_type))
        if link.customer_id:
            rows.add_row("Customer", safe(link.customer_id))
        return rows

    def _meaning(self, link: Any) -> Text:
        state = link_state(link)
        if state == "paid":
            status = link.payment_status
            return Text(f"  its payment: {visible(status or '')}", style="dim")
        if state == "active":
            return Text("  waiting for the customer to pay on the page", style="dim")
        if state == "expired":
            return Text("  the page no longer takes a payment", style="dim")
        return Text("")

    def _look(self, link: Any) -> RenderableType:
        config = link.payment_link_config or {}
        if not isinstance(config, dict) or not any(config.values()):
            return empty("The service's default look: no seller name or layout was given.")
        import json

        rows = grid()
        named = (
            ("seller_name", "Seller name"),
            ("sdk_layout", "Layout"),
            ("theme", "Theme colour"),
            ("logo", "Logo"),
        )
        for key, label in named:
            if config.get(key) not in (None, ""):
                rows.add_row(label, safe(str(config[key])))
        for key, value in config.items():
            if key in dict(named) or value in (None, "", [], {}):
                continue
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            rows.add_row(safe(key), safe(text, multiline=True))
        return rows

    def _payment(self, link: Any) -> RenderableType:
        return payment_summary(link.payment_id, self.payment, self.app.theme_variables)
