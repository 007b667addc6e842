"""Users: the merchant dashboard's team (e-mail, name, role, status), its detail, and the actions
each status allows: invite several at once, change a role, resend an invitation, delete, and on
the local sandbox accept an invitation so the whole flow shows.

The service lists every user in one answer (no paging): the list pages over it here. No webhook
reports a change to a user, so each action announces what it changed (`tui.views.live.announce`)
and the list and an open detail read it again. The real service answers its users routes only
to a dashboard user's token, never to a merchant api-key (real-service-differences.md): on a
remote profile such a refusal is said plainly, in the area, rather than as a key problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.console import RenderableType
from rich.markup import escape
from rich.text import Text

from tui.areas.users.forms import (
    AcceptInvitationForm,
    ChangeRoleForm,
    InviteForm,
    delete_confirmation,
    resend_confirmation,
)
from tui.areas.users.spec import (
    ACTIVE,
    COLUMNS,
    INVITED,
    USER_STATUSES,
    Deleted,
    dashboard_refusal,
    user_grammar,
    user_status,
)
from tui.views.actions import Action, with_known
from tui.views.detail import DetailScreen, Missing, Related, empty, grid, read_related
from tui.views.filters import Grammar
from tui.views.listing import ResourceListView, new_record_action
from tui.widgets.text import safe

if TYPE_CHECKING:
    from tui.views.actions import ActionHost
    from tui.views.live import Change


# -- actions (the list and the detail share them) --------------------------------------------------


def user_of(record: Any) -> Any:
    """The user an action is about (a detail holds it with the roles that can be given)."""
    return getattr(record, "user", record)


def _change_role(host: ActionHost, _email: str | None, record: Any) -> None:
    user = user_of(record)
    from tui.views.live import announce

    def done(result: Any) -> None:
        if result is not None:
            announce(host.app, user.email, "user_role_updated")
        host.acted(result)

    host.app.push_screen(ChangeRoleForm(user), done)


def _resend(host: ActionHost, _email: str | None, record: Any) -> None:
    user = user_of(record)
    from tui.views.live import announce

    def done(result: Any) -> None:
        if result is not None:
            host.app.notify(
                f"A fresh invitation link went to {user.email}.",
                title="Invitation sent again",
                markup=False,
            )
            announce(host.app, user.email, "user_invite_resent")
        host.acted(result)

    host.app.push_screen(resend_confirmation(host.app.runtime.options.is_local, user), done)


def _accept(host: ActionHost, _email: str | None, record: Any) -> None:
    user = user_of(record)
    from tui.views.live import announce

    def done(result: Any) -> None:
        if result is not None:
            announce(host.app, user.email, "user_accepted", ACTIVE)
        host.acted(result)

    host.app.push_screen(AcceptInvitationForm(user), done)


def _delete(host: ActionHost, _email: str | None, record: Any) -> None:
    user = user_of(record)
    from tui.views.live import announce

    def done(result: Any) -> None:
        if isinstance(result, Deleted):
            host.app.notify(
                f"{user.email} can no longer sign in.", title="User deleted", markup=False
            )
            announce(host.app, result.email, "user_deleted", "deleted")
        host.acted(result)

    host.app.push_screen(delete_confirmation(host.app.runtime.options.is_local, user), done)


ROW_ACTIONS: tuple[Action[Any], ...] = with_known(
    (
        Action(
            "role",
            "e",
            "Change role",
            "Give this user another role (the status stays)",
            _change_role,
            palette="Change this user's role",
        ),
        Action(
            "resend",
            "s",
            "Resend invitation",
            "Send the invitation again with a fresh link (only while invited)",
            _resend,
            statuses=frozenset({INVITED}),
            palette="Resend this user's invitation",
        ),
        Action(
            "accept",
            "a",
            "Accept invitation",
            "Accept the invitation as the invitee would: set a password, optionally TOTP "
            "(local sandbox only)",
            _accept,
            statuses=frozenset({INVITED}),
            local_only=True,
            palette="Accept this invitation (local sandbox)",
        ),
        Action(
            "delete",
            "D",
            "Delete",
            "Remove this user: they can no longer sign in",
            _delete,
            palette="Delete this user",
        ),
    ),
    USER_STATUSES,
)


INVITE: Action[Any] = new_record_action(
    "Invite", "Invite one or more users with a role", "Invite users", name="invite"
)


async def read_users(api: Any) -> list[Any]:
    """Every user, in the service's order (oldest invitation first)."""
    return list((await api.users.list()).data)


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
            users = await read_users(self.runtime.api)
        except Exception as exc:
            said = dashboard_refusal(exc, not self.runtime.options.is_local)
            if said is None:
                raise
            self.refused = said
            return [], 0
        self.refused = ""
        return users[offset : offset + limit], len(users)

    async def fetch_one(self, record_id: str) -> Any:
        return await find_user(self.runtime.api, record_id)

    def detail(self, record_id: str) -> Any:
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


async def find_user(api: Any, email: str) -> Any:
    """The user with this e-mail (any case); `NotFoundError` when there is none."""
    from tui.api.errors import NotFoundError

    wanted = email.casefold()
    for user in await read_users(api):
        if str(user.email).casefold() == wanted:
            return user
    raise NotFoundError(404, "invalid_request", "IR_05", f"No user has the e-mail {email}.")


# -- the detail ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UserRecord:
    """A user as the detail shows it, and the roles that can be given (for its permissions)."""

    user: Any
    roles: Related[list[Any]]

    @property
    def email(self) -> str:
        return str(self.user.email)

    @property
    def status(self) -> str | None:
        return cast(str | None, self.user.status)

    @property
    def name(self) -> str | None:
        return cast(str | None, self.user.name)

    @property
    def roles_held(self) -> list[Any]:
        return list(self.user.roles)


class UserDetailScreen(DetailScreen[Any]):
    """One team user: who, role and what it allows, status and what comes next."""

    noun = "User"
    scope = "user"
    actions = ROW_ACTIONS
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("user", "User"),
        ("role", "Role"),
    )

    def __init__(self, email: str) -> None:
        super().__init__(email)
        self.refused = ""  # why the service refused this profile its users routes

    def not_found_text(self) -> str:
        if self.refused:
            return self.refused
        return "No user has this e-mail on this profile (deleted?). Esc goes back."

    async def fetch(self) -> Any:
        from tui.api.errors import ClientError

        api = self.runtime.api
        try:
            user = await find_user(api, self.record_id)
        except ClientError as exc:
            said = dashboard_refusal(exc, not self.runtime.options.is_local)
            if said is None:
                raise
            self.refused = said
            raise Missing(said) from None
        roles = await read_related(api.users.roles())
        return UserRecord(user, roles)

    def raw(self, record: Any) -> RenderableType:
        return super().raw(record.user)

    def title_text(self, r: Any) -> Text:
        return Text.assemble(
            ("User ", "bold"),
            safe(r.email, "bold"),
            "  ",
            user_status(r.status, self.app.theme_variables),
        )

    def acted(self, result: Any) -> None:
        """A deleted user closes the detail; other changes are announced, and reload it."""
        if isinstance(result, Deleted):
            self.action_back()

    def render_record(self, r: Any) -> None:
        self.section("user").update(self._user(r))
        self.section("role").update(self._role(r))

    def _user(self, r: Any) -> RenderableType:
        rows = grid()
        variables = self.app.theme_variables
        rows.add_row("Email", safe(r.email))
        rows.add_row("Name", safe(r.name, empty="none given"))
        status = r.status
        word = user_status(status, variables)
        if status == INVITED:
            word.append(" (invitation_sent)", style="dim")
        rows.add_row("Status", word)
        rows.add_row("Next", self._next(r))
        return rows

    def _next(self, r: Any) -> Text:
        if r.status == INVITED:
            text = "Waiting for the invitee to accept: s sends the invitation again"
            if self.runtime.options.is_local:
                text += "; a accepts it here, as the invitee would (local sandbox)"
            return Text(text + ".")
        if r.status == ACTIVE:
            return Text("Signs in to the dashboard; e changes the role, D removes the user.")
        return Text("A status payscope does not know: the service decides what is allowed.")

    def _role(self, r: Any) -> RenderableType:
        held = r.roles_held
        if not held:
            return empty("No role listed for this user.")
        rows = grid()
        known = {role.role_id: role for role in (r.roles.record or [])}
        for role in held:
            rows.add_row(
                "Role",
                Text.assemble(
                    safe(role.role_name or role.role_id, "bold"), "  ", safe(role.role_id, "dim")
                ),
            )
            given = known.get(role.role_id)
            if given is not None and given.groups:
                rows.add_row("Allows", safe(", ".join(given.groups), multiline=True))
        if r.roles.problem:
            rows.add_row("Allows", safe(f"not known: {r.roles.problem}", "dim", multiline=True))
        elif not any(role.role_id in known for role in held):
            rows.add_row("Allows", empty("not a role an invitation can give: not listed"))
        return rows
