"""The Users area's spec: columns, filter grammar, statuses, the labels its forms share.

Imported by its forms and its view; it imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text

from payscope.api.errors import AuthenticationError, PermissionDeniedError
from payscope.api.models.users import UserStatus
from payscope.views.columns import Column
from payscope.views.filters import Filter, Grammar, Term, status_term
from payscope.widgets.format import status_text
from payscope.widgets.text import safe, visible

ACTIVE = UserStatus.ACTIVE.value
INVITED = UserStatus.INVITATION_SENT.value
# Every user status, as the models know them.
USER_STATUSES: tuple[str, ...] = tuple(status.value for status in UserStatus)
# What people call a status, to the service's spelling.
_STATUS_WORDS = {"invited": INVITED, "invitation": INVITED, "pending": INVITED}


def dashboard_refusal(error: BaseException, remote: bool) -> str | None:
    """What to say when the service refuses a users route to this profile's key (None: it did
    not, or the profile is local, where a refusal is a plain key problem)."""
    if not remote or not isinstance(error, AuthenticationError | PermissionDeniedError):
        return None
    status = getattr(error, "status", "")
    return (
        f"The service refused its users routes to this profile (HTTP {status}). The real "
        "service manages team users only for a dashboard user signed in with a password (a "
        "dashboard token), never for a merchant api-key, which is all a payscope profile "
        "holds. Invite and manage users in the merchant dashboard; the local profile's "
        "sandbox accepts the api-key, so the whole flow can be tried there."
    )


def role_of(user: Any) -> Any:
    """The user's (first) role, or None."""
    return user.roles[0] if user.roles else None


def role_label(user: Any) -> str:
    """The role as people read it ("Admin"), else its id."""
    role = role_of(user)
    if role is None:
        return ""
    return str(role.role_name or role.role_id)


def status_label(status: str | None) -> str:
    """`invitation_sent` reads "invited"."""
    return "invited" if status == INVITED else str(status or "")


def user_status(status: str | None, variables: Any) -> Text:
    """The status word coloured as its service spelling is."""
    if not status:
        return Text("-")
    coloured = status_text(status, variables)
    return Text(
        visible(status_label(status)), style=coloured.style, no_wrap=True, overflow="ellipsis"
    )


def _cut(value: Any) -> Text:
    text = safe(value)
    text.overflow = "ellipsis"
    return text


# At 80 columns the name gives way (the detail shows it); e-mail, role and status stay.
COLUMNS: tuple[Column[Any], ...] = (
    Column("email", "Email", 24, lambda u, c: _cut(u.email), flex=(20, 40)),
    Column("name", "Name", 16, lambda u, c: _cut(u.name), 80, flex=(12, 30)),
    Column("role", "Role", 16, lambda u, c: _cut(role_label(u)), flex=(12, 18)),
    Column("status", "Status", 8, lambda u, c: user_status(u.status, c.variables)),
)


# -- the filter ------------------------------------------------------------------------------------


def _folded(value: Any) -> str:
    return str(value or "").casefold()


def _by_role(text: str, result: Filter) -> None:
    wanted = text.casefold()
    result.local.append(
        lambda u: any(
            wanted in _folded(r.role_id) or wanted in _folded(r.role_name) for r in u.roles
        )
    )


def _by_text(text: str, result: Filter) -> None:
    if len(text) < 2:
        raise ValueError(f"`{text}`: type at least 2 letters of an e-mail address or a name.")
    wanted = text.casefold()
    result.local.append(lambda u: wanted in _folded(u.email) or wanted in _folded(u.name))


def user_grammar() -> Grammar:
    """`status:invited  role:admin  ada  @example.com` (all matched in the view)."""
    return Grammar(
        [
            status_term(
                USER_STATUSES,
                "user",
                None,
                normalise=lambda s: _STATUS_WORDS.get(s, s),
            ),
            Term(("role", "r"), "role:admin", _by_role),
        ],
        bare=_by_text,
        bare_example="part of an e-mail or a name",
    )


@dataclass(frozen=True)
class Deleted:
    """What the delete confirmation returns: the user that is gone."""

    email: str
