"""Team users of the merchant dashboard: list, invite, change role, resend, delete, sign in."""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from pydantic import Field

from payscope.api.models._base import RequestModel, ResponseModel
from payscope.api.models.common import Email, ListResponse, enum_or_none

__all__ = [
    "PREDEFINED_ROLES",
    "DeleteUserRequest",
    "InviteResult",
    "ResendInviteRequest",
    "Role",
    "SignInRequest",
    "SignInResponse",
    "UpdateRoleRequest",
    "User",
    "UserInvite",
    "UserListResponse",
    "UserRole",
    "UserStatus",
]

PREDEFINED_ROLES: Final[tuple[str, ...]] = (
    "merchant_admin",
    "merchant_view_only",
    "merchant_iam_admin",
    "merchant_developer",
    "merchant_operator",
    "merchant_customer_support",
    "org_admin",
)


class UserStatus(StrEnum):
    """`invitation_sent` until the invitation is accepted, then `active`."""

    ACTIVE = "active"
    INVITATION_SENT = "invitation_sent"


class UserRole(ResponseModel):
    """A role held by a user."""

    role_id: str
    role_name: str | None = None


class User(ResponseModel):
    """An item of GET /user/user/list."""

    email: str
    name: str | None = None
    roles: list[UserRole] = Field(default_factory=list)
    status: str | None = None

    @property
    def status_enum(self) -> UserStatus | None:
        """The status as a `UserStatus`, or None when absent or unknown."""
        return enum_or_none(UserStatus, self.status)


class UserListResponse(ListResponse[User]):
    """Users; the service answers a bare array, read as `data`."""


class Role(ResponseModel):
    """An item of GET /user/role/list/invite: a role that can be given in an invitation."""

    role_id: str
    role_name: str | None = None
    groups: list[str] = Field(default_factory=list)


class UserInvite(RequestModel):
    """One element of the POST /user/user/invite_multiple array."""

    email: Email
    name: str = Field(min_length=1, max_length=255)
    role_id: str = Field(min_length=1)


class InviteResult(ResponseModel):
    """One element of the invite answer: whether the e-mail went out."""

    email: str
    is_email_sent: bool = False
    error: str | None = None


class AcceptedInvite(ResponseModel):
    """The local sandbox's answer when an invitee accepts: the user, now `active`, and the TOTP
    secret (shown once) when one was set."""

    email: str | None = None
    name: str | None = None
    roles: list[UserRole] = Field(default_factory=list)
    status: str | None = None
    totp_secret: str | None = Field(default=None, repr=False)
    otpauth_url: str | None = Field(default=None, repr=False)


class UserDeleted(ResponseModel):
    """The answer of a deletion: whose access was removed."""

    email: str
    deleted: bool | None = None


class UpdateRoleRequest(RequestModel):
    """POST /user/user/update_role."""

    email: Email
    role_id: str = Field(min_length=1)


class ResendInviteRequest(RequestModel):
    """POST /user/user/resend_invite."""

    email: Email


class DeleteUserRequest(RequestModel):
    """DELETE /user/user/delete."""

    email: Email


class SignInRequest(RequestModel):
    """POST /user/signin. The password never appears in a repr or an error text."""

    email: Email
    password: str = Field(min_length=1, repr=False)
    totp: str | None = Field(default=None, pattern=r"^[0-9]{6}$", repr=False)


class SignInResponse(ResponseModel):
    """The sign-in answer: a token, or a note that a TOTP step follows."""

    token: str | None = Field(default=None, repr=False)
    token_type: str | None = None
    email: str | None = None
    name: str | None = None
    totp_required: bool | None = None
