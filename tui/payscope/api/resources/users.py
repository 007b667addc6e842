"""`client.users`: the team users of the merchant dashboard."""

from __future__ import annotations

import builtins
from collections.abc import Iterable

from payscope.api.models.users import (
    DeleteUserRequest,
    InviteResult,
    ResendInviteRequest,
    Role,
    SignInRequest,
    SignInResponse,
    UpdateRoleRequest,
    User,
    UserDeleted,
    UserInvite,
    UserListResponse,
)
from payscope.api.resources._base import Resource, body_of


class UsersResource(Resource):
    """List, invite, change roles, resend invitations, delete; and sign in."""

    async def list(self) -> UserListResponse:
        """GET /user/user/list (a bare array, read as `data`)."""
        return await self._client.call("GET", "/user/user/list", UserListResponse)

    async def roles(self) -> builtins.list[Role]:
        """GET /user/role/list/invite: the roles an invitation may give."""
        return await self._client.call_list("GET", "/user/role/list/invite", Role)

    async def invite(
        self, invites: UserInvite | Iterable[UserInvite]
    ) -> builtins.list[InviteResult]:
        """POST /user/user/invite_multiple with an array; one result per address."""
        batch = [invites] if isinstance(invites, UserInvite) else builtins.list(invites)
        body = [body_of(invite) for invite in batch]
        return await self._client.call_list(
            "POST", "/user/user/invite_multiple", InviteResult, body=body
        )

    # The spec does not show the answers of the three calls below: the user (or the result)
    # is returned when the service sends it, None when it answers with an empty body.

    async def update_role(self, request: UpdateRoleRequest) -> User | None:
        """POST /user/user/update_role; the user with the new role."""
        return await self._client.call_or_none(
            "POST", "/user/user/update_role", User, body=body_of(request)
        )

    async def resend_invite(self, request: ResendInviteRequest) -> InviteResult | None:
        """POST /user/user/resend_invite: a fresh link for an invitation that expired."""
        return await self._client.call_or_none(
            "POST", "/user/user/resend_invite", InviteResult, body=body_of(request)
        )

    async def delete(self, request: DeleteUserRequest) -> UserDeleted | None:
        """DELETE /user/user/delete with `{email}` as the body."""
        return await self._client.call_or_none(
            "DELETE", "/user/user/delete", UserDeleted, body=body_of(request)
        )

    async def signin(self, request: SignInRequest) -> SignInResponse:
        """POST /user/signin (`totp` included when the user has TOTP set). The password and
        the token never reach the request journal."""
        return await self._client.call(
            "POST", "/user/signin", SignInResponse, body=body_of(request)
        )
