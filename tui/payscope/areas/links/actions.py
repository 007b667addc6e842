"""The Links area's actions, declared once for its list and its detail (each opens its
form from `forms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from payscope.api.models.links import PaymentLink
from payscope.views.actions import Action
from payscope.views.browser import copy_text, open_in_browser
from payscope.views.listing import new_record_action
from payscope.views.payment import goto_payment
from payscope.widgets.qr import QRScreen

if TYPE_CHECKING:
    from payscope.views.actions import ActionHost


# -- actions (the list and the detail share them) ------------------------------------------------


def shown_url(host: Any, url: str) -> str:
    """The link as shown and drawn: its port as the display policy shows ports, as for the
    listener's URL."""
    return str(host.app.runtime.display.url(url))


def _has_link(link: Any) -> bool:
    return bool(getattr(link, "link_to_pay", None))


def _open(host: ActionHost, _id: str | None, link: Any) -> None:
    open_in_browser(host.app, str(link.link_to_pay), "the payment link")


def _copy(host: ActionHost, _id: str | None, link: Any) -> None:
    copy_text(host.app, str(link.link_to_pay), "the payment link")


def _show_qr(host: ActionHost, _id: str | None, link: Any) -> None:
    url = shown_url(host, str(link.link_to_pay))
    caption = Text(url + "   Esc closes", no_wrap=True, overflow="ellipsis")
    host.app.push_screen(QRScreen(url, caption))


ROW_ACTIONS: tuple[Action[PaymentLink], ...] = (
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
