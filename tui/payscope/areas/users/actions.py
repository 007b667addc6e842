"""The Users area's actions, declared once for its list and its detail (each opens its
form from `forms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from payscope.api.errors import NotFoundError
from payscope.api.export import ListSource
from payscope.api.models.users import User
from payscope.areas.users.forms import (
    AcceptInvitationForm,
    ChangeRoleForm,
    delete_confirmation,
    resend_confirmation,
)
from payscope.areas.users.spec import (
    ACTIVE,
    INVITED,
    USER_STATUSES,
    Deleted,
)
from payscope.views.actions import Action, with_known
from payscope.views.listing import new_record_action
from payscope.views.live import announce

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.views.actions import ActionHost


# -- actions (the list and the detail share them) --------------------------------------------------


def user_of(record: Any) -> User:
    """The user an action is about (a detail holds it with the roles that can be given)."""
    user: User = getattr(record, "user", record)
    return user


def _change_role(host: ActionHost, _email: str | None, record: Any) -> None:
    user = user_of(record)

    def done(result: Any) -> None:
        if result is not None:
            announce(host.app, user.email, "user_role_updated")
        host.acted(result)

    host.app.push_screen(ChangeRoleForm(user), done)


def _resend(host: ActionHost, _email: str | None, record: Any) -> None:
    user = user_of(record)

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

    def done(result: Any) -> None:
        if result is not None:
            announce(host.app, user.email, "user_accepted", ACTIVE)
        host.acted(result)

    host.app.push_screen(AcceptInvitationForm(user), done)


def _delete(host: ActionHost, _email: str | None, record: Any) -> None:
    user = user_of(record)

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


async def find_user(api: ApiClient, email: str) -> User:
    """The user with this e-mail (any case); `NotFoundError` when there is none."""
    wanted = email.casefold()
    for user in await read_users(api):
        if str(user.email).casefold() == wanted:
            return user
    raise NotFoundError(404, "invalid_request", "IR_05", f"No user has the e-mail {email}.")


async def read_users(api: ApiClient) -> list[User]:
    """Every user, in the service's order (oldest invitation first)."""
    return list((await api.users.list()).data)


async def users_page(api: ApiClient, offset: int, limit: int) -> tuple[list[User], int]:
    """A page of the users (the service lists them all at once) and how many there are: the
    list and `payscope export` read them so."""
    users = await read_users(api)
    return users[offset : offset + limit], len(users)


def export_source() -> ListSource:
    """How `payscope export users` reads the list (this area's `AREA.export`)."""

    async def read(
        api: ApiClient, _filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[User], int]:
        return await users_page(api, offset, limit)

    return ListSource(read, lambda r: str(r.email))
