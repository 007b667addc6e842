"""Users: the merchant dashboard's team (e-mail, name, role, status), its detail, and the actions
each status allows: invite several at once, change a role, resend an invitation, delete, and on
the local sandbox accept an invitation so the whole flow shows.

The service lists every user in one answer (no paging): the list pages over it here. No webhook
reports a change to a user, so each action announces what it changed
(`payscope.views.live.announce`)
and the list and an open detail read it again. The real service answers its users routes only
to a dashboard user's token, never to a merchant api-key (real-service-differences.md): on a
remote profile such a refusal is said plainly, in the area, rather than as a key problem.

The actions are in `actions`, the detail in `detail`, the forms in `forms`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.text import Text

from payscope.areas.users.actions import INVITE, ROW_ACTIONS, find_user, users_page
from payscope.areas.users.detail import UserDetailScreen
from payscope.areas.users.forms import InviteForm
from payscope.areas.users.spec import (
    COLUMNS,
    dashboard_refusal,
    user_grammar,
)
from payscope.views.filters import Grammar
from payscope.views.listing import ResourceListView

if TYPE_CHECKING:
    from payscope.views.live import Change


class UsersView(ResourceListView[Any]):
    """The Users area."""

    title = "Users"
    noun = "users"
    scope = "users"
    id_prefix = ""  # users have e-mails, not ids; no webhook names them
    columns = COLUMNS
    page_size = 100
    empty_hint = "Press [b]n[/b] to invite someone."
    actions = (INVITE, *(a.hidden() for a in ROW_ACTIONS))

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.refused = ""  # why the service refused to list users to this profile

    def key_of(self, record: Any) -> str:
        return str(record.email)

    def order(self, record: Any) -> Any:
        return ""  # the service's own order

    def filter_grammar(self) -> Grammar:
        return user_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Any], int]:
        try:
            page = await users_page(self.runtime.api, offset, limit)
        except Exception as exc:
            said = dashboard_refusal(exc, not self.runtime.options.is_local)
            if said is None:
                raise
            self.refused = said
            return [], 0
        self.refused = ""
        return page

    async def fetch_one(self, record_id: str) -> Any:
        return await find_user(self.runtime.api, record_id)

    def detail(self, record_id: str) -> UserDetailScreen:
        return UserDetailScreen(record_id)

    def header_text(self) -> Text:
        if self.refused and not self.rows:
            return Text.assemble((self.title, "bold"), "  ", ("not available with this key", "dim"))
        return super().header_text()

    def empty_text(self) -> str:
        if self.refused:
            return escape(self.refused)
        return super().empty_text()

    def acted(self, result: Any) -> None:
        """Each action announces its change (`announce`): the row follows from there."""

    def on_change(self, change: Change) -> None:
        # A user this list does not show yet (just invited): the list is read again.
        event = change.event_type or ""
        if event.startswith("user_") and change.object_id and change.object_id not in self.rows:
            if self.loaded and event != "user_deleted":
                self.load()
            return
        super().on_change(change)

    def new_record(self) -> None:
        """Open the invitation form; those invited show on the list."""
        if self.starting(self.new_record):
            return

        self.app.push_screen(InviteForm(), self._invited)

    def _invited(self, result: Any) -> None:
        if not result:
            return
        # The first new address under the cursor once the list is read again (announced).
        self.table.select_next = result[0]
