"""The Users area's detail: one record, its sections and its actions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, cast

from rich.console import RenderableType
from rich.text import Text

from payscope.api.errors import ClientError
from payscope.areas.users.actions import ROW_ACTIONS, find_user
from payscope.areas.users.spec import (
    ACTIVE,
    INVITED,
    Deleted,
    dashboard_refusal,
    user_status,
)
from payscope.views.detail import DetailScreen, Missing, Related, empty, grid, read_related
from payscope.widgets.text import safe

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
