"""The Links area's detail: one record, its sections and its actions."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from payscope.api.models.links import PaymentLink
from payscope.areas.links.actions import ROW_ACTIONS, shown_url
from payscope.areas.links.spec import (
    EXPIRY_CHECK,
    expires_at,
    expiry_long,
    link_state,
    state_text,
    waiting,
)
from payscope.views.detail import DetailScreen, Related, empty, grid, read_related
from payscope.views.json_view import value_view
from payscope.views.payment import payment_summary
from payscope.widgets.format import format_amount, format_time, theme_colour
from payscope.widgets.qr import QRDrawing
from payscope.widgets.text import safe, visible

# -- the detail ------------------------------------------------------------------------------------

# The summary beside the QR code needs this much room; narrower, the code gets its own section.
SUMMARY_WIDTH = 58
# What the screen takes round a section's content: the body's padding, the border, its padding
# and the scrollbar.
SECTION_CHROME = 8
_LOCAL_HOSTS = ("127.", "localhost", "[::1]", "0.0.0.0")


class LinkDetailScreen(DetailScreen["PaymentLink"]):
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

    async def fetch(self) -> PaymentLink:
        link = await self.runtime.api.payment_links.retrieve(self.record_id)
        if link.payment_id:
            # The link shows even when its payment cannot be read; the section says why.
            self.payment = await read_related(self.runtime.api.payments.retrieve(link.payment_id))
        else:
            self.payment = Related(problem="The service's link record does not name its payment.")
        return link

    def watched_ids(self, link: PaymentLink) -> set[str]:
        return {link.payment_link_id, *([link.payment_id] if link.payment_id else [])}

    def title_text(self, link: PaymentLink) -> Text:
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

    def on_detail_body_resized(self) -> None:
        # The code is drawn whole only where the rows in sight can hold it all.
        self.on_resize()

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

    def render_record(self, link: PaymentLink) -> None:
        self._render_link(link)
        self.section("look").update(self._look(link))
        self.section("payment").update(self._payment(link))

    def _render_link(self, link: PaymentLink) -> None:
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
        # In sight whole: the drawing (its light margin too) under its section's top border.
        tall = self.query_one("#detail-body").size.height >= drawing.height + 1
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
        if self._drawn is None or self._drawn.data != url:
            self._drawn = QRDrawing(url)
        return self._drawn

    def _too_short(self, drawing: Any) -> Text:
        rows = self.query_one("#detail-body").size.height
        return Text(
            f"The screen is too short to show the whole code here ({drawing.height + 1} rows, "
            f"this view has {rows}): q shows it alone.",
            style="italic",
        )

    def _summary(self, link: PaymentLink) -> Table:
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

    def _meaning(self, link: PaymentLink) -> Text:
        state = link_state(link)
        if state == "paid":
            status = link.payment_status
            return Text(f"  its payment: {visible(status or '')}", style="dim")
        if state == "active":
            return Text("  waiting for the customer to pay on the page", style="dim")
        if state == "expired":
            return Text("  the page no longer takes a payment", style="dim")
        return Text("")

    def _look(self, link: PaymentLink) -> RenderableType:
        config = link.payment_link_config or {}
        if not isinstance(config, dict) or not any(config.values()):
            return empty("The service's default look: no seller name or layout was given.")

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
            rows.add_row(safe(key), value_view(value))
        return rows

    def _payment(self, link: PaymentLink) -> RenderableType:
        return payment_summary(link.payment_id, self.payment, self.app.theme_variables)
