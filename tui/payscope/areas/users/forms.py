"""The team users' forms: invite several at once, change a role, accept an invitation (local
sandbox), and the confirmations of resend and delete.

Each invitee is validated by the API's own `UserInvite` model, and a mistake names the address
it is about. The roles offered are the service's (`GET /user/role/list/invite`), each with the
permission groups it gives. A refusal of the users routes on a remote profile (they need a
dashboard token there) is said on the form's line, in words (`users.dashboard_refusal`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from pydantic import ValidationError
from textual import on, work
from textual.widgets import Checkbox, Input, Select, Static, TextArea

from payscope.api.models.users import (
    DeleteUserRequest,
    ResendInviteRequest,
    Role,
    UpdateRoleRequest,
    User,
    UserInvite,
)
from payscope.areas.users.spec import Deleted, dashboard_refusal
from payscope.views.clipboard import copy_text
from payscope.views.forms import (
    ConfirmScreen,
    Field,
    FormErrors,
    FormScreen,
    Req,
    Res,
    validation_messages,
)
from payscope.views.live import announce
from payscope.widgets.errors import describe_error
from payscope.widgets.text import safe_markup, visible

# The least a new user may do: the role an invitation starts on when the service offers it.
DEFAULT_ROLE = "merchant_view_only"
# The local sandbox's rule for an invitee's password.
MIN_PASSWORD = 8
# What a users route answers, passed through `_refused_plainly`.
T = TypeVar("T")
# "Ada Lovelace <ada@example.com>": a name given with the address.
_NAMED = re.compile(r"^(?P<name>[^<>]*)<(?P<email>[^<>]*)>$")


@dataclass(frozen=True)
class Invitee:
    """One address typed in the invitation form, as it was typed, and the name it gets."""

    typed: str
    email: str
    name: str


def name_from(email: str) -> str:
    """A name for an address given without one: `ada.lovelace@…` -> "Ada Lovelace"."""
    local = email.partition("@")[0]
    words = [w for w in re.split(r"[._+\-]+", local) if w]
    return " ".join(w.capitalize() for w in words) or email


def parse_invitees(text: str) -> list[Invitee]:
    """Addresses one per line or separated by commas; `Name <address>` names the person."""
    found: list[Invitee] = []
    for part in re.split(r"[\n,;]+", text):
        typed = part.strip()
        if not typed:
            continue
        named = _NAMED.match(typed)
        if named:
            email = named.group("email").strip()
            name = named.group("name").strip().strip('"') or name_from(email)
        else:
            email, name = typed, name_from(typed)
        found.append(Invitee(typed, email, name))
    return found


def _plain(message: str) -> str:
    """The model's message about an address, said after it: no field name, no echo."""
    return re.sub(r"\s*\(got .*\)$", "", message).removeprefix("email ")


def _refusal(form: FormScreen, error: BaseException) -> FormErrors | None:
    """A users route refused to a remote profile's key, said for a person (else None)."""

    said = dashboard_refusal(error, not form.runtime.options.is_local)
    return None if said is None else FormErrors({}, general=said)


# -- the role picker -------------------------------------------------------------------------------


class RoleForm(FormScreen[Req, Res]):
    """A form with a role picker filled from the service's roles (read when the form opens)."""

    current_role: str | None = None

    def __init__(self) -> None:
        super().__init__()
        self.roles: dict[str, Role] = {}  # role_id -> Role, once read

    def role_field(self) -> Field:
        return Field(
            "role_id",
            "Role",
            Select[str]([], prompt="reading the roles…", id="field-role_id"),
            "What the role allows shows here once one is chosen.",
        )

    def on_mount(self) -> None:
        # FormScreen.on_mount (focus, the button's label) is called by Textual as well.
        self._read_roles()

    @work(exclusive=True, group="user-roles", exit_on_error=False, description="Roles")
    async def _read_roles(self) -> None:
        try:
            roles = await self.client.users.roles()
        except Exception as exc:
            refusal = _refusal(self, exc)
            if refusal is not None:
                self.show_errors({}, refusal.general)
            self._hint("could not read the roles: " + ": ".join(describe_error(exc)))
            return
        self.roles = {r.role_id: r for r in roles}
        picker = self.query_one("#field-role_id", Select)
        picker.set_options([(visible(r.role_name or r.role_id), r.role_id) for r in roles])
        picker.prompt = "choose a role"
        chosen = self.current_role if self.current_role in self.roles else DEFAULT_ROLE
        if chosen in self.roles:
            picker.value = chosen
        self._show_groups()

    @on(Select.Changed, "#field-role_id")
    def _show_groups(self) -> None:
        role = self.roles.get(self.value("role_id") or "")
        if role is None:
            return
        groups = ", ".join(role.groups) or "no permission groups listed"
        self._hint(f"{role.role_id}: {groups}")

    def _hint(self, text: str) -> None:
        self.query_one("#hint-role_id", Static).update(safe_markup(text, multiline=True))

    def role_name(self) -> str:
        role_id = self.value("role_id")
        role = self.roles.get(role_id or "")
        return str(role.role_name or role_id) if role is not None else str(role_id or "")


# -- invite ----------------------------------------------------------------------------------------


class InviteForm(RoleForm[list[UserInvite], list[str]]):
    """Invite one or more people with one role; each address is checked by the model."""

    DEFAULT_CSS = """
    InviteForm #field-emails { height: 4; }
    """

    title_text = "Invite users"
    intro = (
        "Each address gets an invitation e-mail with a one-time link; the user is invited "
        "until they accept it and set a password."
    )
    submit_label = "Invite"

    def fields(self) -> list[Field]:
        return [
            Field(
                "emails",
                "E-mail addresses",
                TextArea(id="field-emails", soft_wrap=True),
                "One a line or separated by commas; Name <address> gives a name "
                "(else it comes from the address).",
            ),
            self.role_field(),
        ]

    def submit_text(self) -> str | None:
        count = len(parse_invitees(self.value("emails") or ""))
        if not count:
            return None
        who = "1 user" if count == 1 else f"{count} users"
        role = self.role_name()
        return f"Invite {who} as {role}" if role else f"Invite {who}"

    def build(self) -> list[UserInvite]:
        invitees = parse_invitees(self.value("emails") or "")
        errors: dict[str, str] = {}
        if not invitees:
            errors["emails"] = "Type at least one e-mail address."
        role_id = self.value("role_id")
        if role_id is None:
            errors["role_id"] = "Choose the role they get."
        if errors:
            raise FormErrors(errors)
        problems: list[str] = []
        invites: list[UserInvite] = []
        seen: set[str] = set()
        for invitee in invitees:
            shown = visible(invitee.typed)
            try:
                invite = UserInvite(email=invitee.email, name=invitee.name, role_id=role_id)
            except ValidationError as exc:
                said = "; ".join(
                    _plain(m) if f == "email" else f"{f}: {m}"
                    for f, m in validation_messages(exc).items()
                )
                problems.append(f"{shown}: {said}")
                continue
            if invite.email.casefold() in seen:
                problems.append(f"{shown}: given twice.")
                continue
            seen.add(invite.email.casefold())
            invites.append(invite)
        if problems:
            raise FormErrors({"emails": "\n".join(problems)})
        return invites

    async def send(self, request: list[UserInvite]) -> list[str]:
        try:
            results = await self.client.users.invite(request)
        except Exception as exc:
            refusal = _refusal(self, exc)
            if refusal is not None:
                raise refusal from None
            raise
        invited = [r.email for r in results if r.is_email_sent]
        failed = [r for r in results if not r.is_email_sent]
        for email in invited:
            announce(self.app, email, "user_invited")
        if invited:
            self.app.notify(", ".join(invited), title=f"Invited ({len(invited)})", markup=False)
        if failed:
            # The form stays open with the addresses that were not invited, each said why.
            self.query_one("#field-emails", TextArea).text = "\n".join(r.email for r in failed)
            lines = [f"{visible(r.email)}: {visible(r.error or 'not invited')}" for r in failed]
            done = f"{len(invited)} invited; " if invited else ""
            raise FormErrors(
                {"emails": "\n".join(lines)},
                general=f"{done}{len(failed)} not invited: see the addresses.",
            )
        return invited


# -- change role -----------------------------------------------------------------------------------


class ChangeRoleForm(RoleForm[UpdateRoleRequest, UpdateRoleRequest]):
    """Give a user another role; the status stays as it is."""

    title_text = "Change role"
    submit_label = "Change role"

    def __init__(self, user: User) -> None:
        super().__init__()
        self.user = user
        role = user.roles[0] if user.roles else None
        self.current_role = role.role_id if role is not None else None
        now = (role.role_name or role.role_id) if role is not None else "no role"
        self.intro = f"{visible(user.email)} is {visible(now)} now. The status does not change."

    def fields(self) -> list[Field]:
        return [self.role_field()]

    def submit_text(self) -> str | None:
        role_id = self.value("role_id")
        if role_id is None:
            return None
        if role_id == self.current_role:
            return "Nothing changed yet"
        return f"Make {self.role_name()}"

    def build(self) -> UpdateRoleRequest:
        role_id = self.value("role_id")
        if role_id is None:
            raise FormErrors({"role_id": "Choose a role."})
        if role_id == self.current_role:
            raise FormErrors({"role_id": "This is the role the user has: choose another."})
        return UpdateRoleRequest(email=self.user.email, role_id=role_id)

    async def send(self, request: UpdateRoleRequest) -> UpdateRoleRequest:
        try:
            await self.client.users.update_role(request)
        except Exception as exc:
            refusal = _refusal(self, exc)
            if refusal is not None:
                raise refusal from None
            raise
        self.app.notify(
            f"{request.email} is now {self.role_name()}.", title="Role changed", markup=False
        )
        return request


# -- accept (local sandbox) ------------------------------------------------------------------------


@dataclass(frozen=True)
class Accepted:
    """What the acceptance form returns (never the password nor the TOTP secret)."""

    email: str
    totp: bool


class AcceptInvitationForm(FormScreen[str, Accepted]):
    """Accept an invitation as the invitee would: a password and, if wanted, TOTP."""

    title_text = "Accept invitation"
    submit_label = "Accept invitation"

    def __init__(self, user: User) -> None:
        super().__init__()
        self.user = user
        self.intro = (
            f"As {visible(user.email)}, set a password and accept the invitation "
            "(a local sandbox control: POST /_sandbox/users/accept). The user becomes active."
        )

    def fields(self) -> list[Field]:
        return [
            Field(
                "password",
                "Password",
                Input(password=True, id="field-password"),
                f"At least {MIN_PASSWORD} characters.",
            ),
            Field("again", "Password again", Input(password=True, id="field-again")),
            Field(
                "totp",
                "Two-factor",
                Checkbox("Set up TOTP", id="field-totp"),
                "The sandbox makes a secret; it is put on the clipboard for an authenticator "
                "app and shown nowhere.",
            ),
        ]

    def build(self) -> str:
        # The value as typed: a password may begin or end with a space.
        password = self.query_one("#field-password", Input).value
        again = self.query_one("#field-again", Input).value
        if not password:
            raise FormErrors({"password": "Type the password the user will sign in with."})
        if len(password) < MIN_PASSWORD:
            raise FormErrors({"password": f"Use at least {MIN_PASSWORD} characters."})
        if password != again:
            raise FormErrors({"again": "The two passwords differ: type the same one twice."})
        return password

    async def send(self, request: str) -> Accepted:
        totp = bool(self.value("totp"))
        answer = await self.client.sandbox.accept_invite(
            self.user.email, request, True if totp else None
        )
        if answer.totp_secret:
            copy_text(
                self.app,
                answer.totp_secret,
                "the TOTP secret",
                secret=True,
                note="Add it to an authenticator app.",
            )
        said = (
            "Active. The TOTP secret is copied (see where): add it to an authenticator app."
            if answer.totp_secret
            else "Active: the user signs in with the password."
        )
        self.app.notify(said, title=f"{self.user.email} accepted", markup=False)
        return Accepted(str(self.user.email), bool(answer.totp_secret))


# -- confirmations ---------------------------------------------------------------------------------


def resend_confirmation(local: bool, user: User) -> ConfirmScreen:
    """Send an invitation again: a fresh link replaces the one sent."""

    async def resend() -> str:
        request = ResendInviteRequest(email=user.email)
        await _refused_plainly(local, lambda: screen.client.users.resend_invite(request))
        return str(user.email)

    intro = (
        f"Send the invitation to {visible(user.email)} again? A fresh one-time link is made "
        "(for an invitation that expired or was lost)."
    )
    screen = ConfirmScreen("Resend invitation", intro, "Send again", resend)
    return screen


def delete_confirmation(local: bool, user: User) -> ConfirmScreen:
    """Delete a user: says who, and that it cannot be undone."""

    async def delete() -> Deleted:
        request = DeleteUserRequest(email=user.email)
        await _refused_plainly(local, lambda: screen.client.users.delete(request))
        return Deleted(str(user.email))

    who = f"{user.name} ({user.email})" if user.name else str(user.email)
    intro = (
        f"Delete {visible(who)}?\n\nThey lose access to the dashboard at once. To have them "
        "back, invite them again; this cannot be undone."
    )
    screen = ConfirmScreen("Delete user", intro, "Delete user", delete, variant="error")
    return screen


async def _refused_plainly(local: bool, call: Callable[[], Awaitable[T]]) -> T:
    """`call()`, with a users route refused to a remote profile said in words."""

    try:
        return await call()
    except Exception as exc:
        said = dashboard_refusal(exc, not local)
        if said is None:
            raise
        raise FormErrors({}, general=said) from None
