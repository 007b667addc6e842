"""Team users."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from payscope.api.models.users import (
    DeleteUserRequest,
    InviteResult,
    ResendInviteRequest,
    Role,
    SignInRequest,
    SignInResponse,
    UpdateRoleRequest,
    UserInvite,
    UserListResponse,
    UserStatus,
)


def test_user_list_is_a_bare_array_and_keeps_unknown_fields() -> None:
    raw = [
        {
            "email": "admin@example.com",
            "name": "Admin",
            "roles": [{"role_id": "merchant_admin", "role_name": "Admin"}],
            "status": "active",
            "last_login": None,
        },
        {"email": "new@example.com", "name": "New", "roles": [], "status": "invitation_sent"},
    ]
    users = UserListResponse.model_validate(raw)
    assert [u.status_enum for u in users.data] == [UserStatus.ACTIVE, UserStatus.INVITATION_SENT]
    assert users.data[0].roles[0].role_id == "merchant_admin"
    assert users.data[0].model_extra == {"last_login": None}


def test_invite_array_and_results() -> None:
    invites = TypeAdapter(list[UserInvite]).validate_python(
        [{"email": "a@example.com", "name": "A", "role_id": "merchant_view_only"}]
    )
    assert invites[0].to_body() == {
        "email": "a@example.com",
        "name": "A",
        "role_id": "merchant_view_only",
    }
    result = InviteResult.model_validate(
        {"email": "a@example.com", "is_email_sent": False, "error": "already a member"}
    )
    assert result.error == "already a member"
    role = Role.model_validate(
        {"role_id": "merchant_developer", "role_name": "Developer", "groups": ["operations_view"]}
    )
    assert role.groups == ["operations_view"]


@pytest.mark.parametrize(
    ("model", "data", "loc"),
    [
        (UserInvite, {"email": "bad", "name": "A", "role_id": "r"}, ("email",)),
        (UserInvite, {"email": "a@b.co", "name": "", "role_id": "r"}, ("name",)),
        (UpdateRoleRequest, {"email": "a@b.co"}, ("role_id",)),
        (ResendInviteRequest, {"email": "a@"}, ("email",)),
        (DeleteUserRequest, {}, ("email",)),
        (SignInRequest, {"email": "a@b.co", "password": "pw", "totp": "12345"}, ("totp",)),
    ],
)
def test_request_constraints(model: type[Any], data: dict[str, Any], loc: tuple[str, ...]) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    assert [tuple(e["loc"]) for e in caught.value.errors()] == [loc]


def test_sign_in_never_shows_the_password_or_token() -> None:
    request = SignInRequest(email="a@b.co", password="hunter2-secret", totp="123456")
    assert "hunter2-secret" not in repr(request) and "123456" not in repr(request)
    assert request.to_body() == {"email": "a@b.co", "password": "hunter2-secret", "totp": "123456"}
    with pytest.raises(ValidationError) as caught:
        SignInRequest.model_validate(
            {"email": "a@b.co", "password": "hunter2-secret", "totp": "nope"}
        )
    assert "hunter2-secret" not in str(caught.value)
    response = SignInResponse.model_validate(
        {"token": "jwt.abc.def", "token_type": "user_info", "totp_required": False}
    )
    assert "jwt.abc.def" not in repr(response) and response.token == "jwt.abc.def"
