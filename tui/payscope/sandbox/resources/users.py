"""Team users of the merchant dashboard: list, invitable roles, invite, change role, resend,
delete, accept (a sandbox control), and sign-in with password and optional TOTP.

Passwords are stored only as scrypt hashes (`scrypt$n$r$p$salt$hash`); TOTP follows RFC 6238
(HMAC-SHA1, 30-second steps, 6 digits, one step of drift either way) with the standard library,
checked against both the sandbox clock and the wall clock, so an authenticator app still works
after the sandbox clock was advanced.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import sqlite3
import struct
import time
from typing import Any, Final

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field, TypeAdapter, ValidationError, field_validator
from starlette.responses import Response

from payscope.api.models.users import (
    DeleteUserRequest,
    ResendInviteRequest,
    SignInRequest,
    UpdateRoleRequest,
    UserInvite,
)
from payscope.sandbox.clock import iso
from payscope.sandbox.errors import (
    AUTH,
    SandboxError,
    bad_state,
    from_validation_error,
    invalid,
    missing,
    not_found,
)
from payscope.sandbox.resource import Resource, SeedContext
from payscope.sandbox.resources._support import refused, validate
from payscope.sandbox.responses import json_body, read_json, read_object, respond, schema_body
from payscope.sandbox.state import state_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS team_users (
    email TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    role_id TEXT NOT NULL,
    status TEXT NOT NULL,
    password_hash TEXT,
    totp_secret TEXT,
    invited_at TEXT NOT NULL,
    accepted_at TEXT,
    invite_sent_count INTEGER NOT NULL DEFAULT 1
);
"""

ROLES: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "merchant_admin": (
        "Admin",
        (
            "operations_manage",
            "connectors_manage",
            "users_manage",
            "analytics_view",
            "account_manage",
        ),
    ),
    "merchant_view_only": ("View Only", ("operations_view", "analytics_view", "users_view")),
    "merchant_iam_admin": ("IAM", ("users_manage", "users_view", "analytics_view")),
    "merchant_developer": (
        "Developer",
        ("operations_view", "connectors_view", "analytics_view", "account_manage"),
    ),
    "merchant_operator": ("Operator", ("operations_manage", "connectors_view", "analytics_view")),
    "merchant_customer_support": ("Customer Support", ("operations_view", "analytics_view")),
    "org_admin": (
        "Organization Admin",
        (
            "operations_manage",
            "connectors_manage",
            "users_manage",
            "analytics_view",
            "account_manage",
            "organization_manage",
        ),
    ),
}
INVITATION_SENT: Final = "invitation_sent"
ACTIVE: Final = "active"

# scrypt cost: 16 MiB, tens of milliseconds; stored with the hash so it can change later.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
TOTP_STEP: Final = 30
DEMO_PASSWORD: Final = "payscope-demo-123"

router = APIRouter(tags=["users"])
_INVITES = TypeAdapter(list[UserInvite])


# -- passwords and TOTP ------------------------------------------------------------------------


def hash_password(password: str) -> str:
    """A salted scrypt hash with its parameters."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32
    )
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    """True when `password` matches a `hash_password` result (constant-time compare)."""
    try:
        kind, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if kind != "scrypt":
        return False
    got = hashlib.scrypt(
        password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=32
    )
    return hmac.compare_digest(got.hex(), digest)


def totp(secret: str, at: float, step: int = TOTP_STEP, digits: int = 6) -> str:
    """The RFC 6238 code of a base32 `secret` at time `at` (HMAC-SHA1)."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(at // step)), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10**digits).zfill(digits)


def totp_ok(secret: str, code: str, times: tuple[float, ...]) -> bool:
    """True when `code` is the code of any of `times`, one step either way."""
    return any(
        hmac.compare_digest(totp(secret, t + drift * TOTP_STEP), code)
        for t in times
        for drift in (-1, 0, 1)
    )


def new_totp_secret() -> str:
    """A 160-bit base32 secret (what authenticator apps take)."""
    return base64.b32encode(secrets.token_bytes(20)).decode().rstrip("=")


# -- storage ------------------------------------------------------------------------------------


def _row(conn: sqlite3.Connection, email: str) -> tuple[Any, ...]:
    found = conn.execute(
        "SELECT email, name, role_id, status, password_hash, totp_secret FROM team_users "
        "WHERE email = ?",
        (email.lower(),),
    ).fetchone()
    if found is None:
        raise not_found("User", email)
    result: tuple[Any, ...] = tuple(found)
    return result


def _view(email: str, name: str, role_id: str, status: str) -> dict[str, Any]:
    role_name = ROLES.get(role_id, (role_id, ()))[0]
    return {
        "email": email,
        "name": name,
        "roles": [{"role_id": role_id, "role_name": role_name}],
        "status": status,
    }


def _check_role(role_id: str, field: str = "role_id") -> None:
    if role_id not in ROLES:
        raise invalid(field, role_id, ", ".join(ROLES))


# -- routes ---------------------------------------------------------------------------------------


@router.get("/user/user/list", summary="List the dashboard's users")
async def list_users(request: Request) -> Response:
    """`[{email, name, roles: [{role_id, role_name}], status}]`, oldest invitation first."""
    rows = state_of(request).db.conn.execute(
        "SELECT email, name, role_id, status FROM team_users ORDER BY invited_at, email"
    )
    return respond([_view(*r) for r in rows])


@router.get("/user/role/list/invite", summary="Roles that can be given in an invitation")
async def invitable_roles() -> Response:
    """The predefined roles with their permission groups."""
    return respond(
        [
            {"role_id": k, "role_name": name, "groups": list(groups)}
            for k, (name, groups) in ROLES.items()
        ]
    )


@router.post(
    "/user/user/invite_multiple",
    summary="Invite several users at once",
    openapi_extra=json_body(UserInvite, many=True),
)
async def invite_users(request: Request) -> Response:
    """Body `[{email, name, role_id}]` -> `[{email, is_email_sent, error?}]`, one per entry.

    An address already invited (or given twice) is reported, not invited again.
    """
    body = await read_json(
        request, '[{"email": "a@example.com", "name": "A", "role_id": "merchant_view_only"}]'
    )
    if body is None:
        raise missing("body", "Send a JSON array of {email, name, role_id}.")
    if not isinstance(body, list) or not body:
        raise invalid("body", body, "a non-empty JSON array of {email, name, role_id}")
    try:
        invites = _INVITES.validate_python(body)
    except ValidationError as exc:
        raise from_validation_error(exc) from None
    state = state_of(request)
    now = state.clock.now_iso()
    results: list[dict[str, Any]] = []
    seen: set[str] = set()
    with state.db.transaction() as conn:
        for invite in invites:
            email = invite.email.lower()
            error: str | None = None
            if email in seen:
                error = "This address appears more than once in the request; it was invited once."
            elif conn.execute("SELECT 1 FROM team_users WHERE email = ?", (email,)).fetchone():
                error = "A user with this e-mail already exists; use resend_invite or update_role."
            elif invite.role_id not in ROLES:
                error = f"Unknown role_id {invite.role_id!r}; use one of {', '.join(ROLES)}."
            seen.add(email)
            if error is None:
                conn.execute(
                    "INSERT INTO team_users(email, name, role_id, status, invited_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (email, invite.name, invite.role_id, INVITATION_SENT, now),
                )
            results.append({"email": email, "is_email_sent": error is None, "error": error})
    return respond(results)


@router.post(
    "/user/user/update_role",
    summary="Change a user's role",
    openapi_extra=json_body(UpdateRoleRequest),
)
async def update_role(request: Request) -> Response:
    """Body `{email, role_id}`; the user's status does not change."""
    body = validate(
        UpdateRoleRequest, await read_object(request, '{"email": "...", "role_id": "..."}')
    )
    _check_role(body.role_id)
    state = state_of(request)
    with state.db.transaction() as conn:
        email, name, _, status, *_ = _row(conn, body.email)
        conn.execute("UPDATE team_users SET role_id = ? WHERE email = ?", (body.role_id, email))
    return respond(_view(email, name, body.role_id, status))


@router.post(
    "/user/user/resend_invite",
    summary="Send an invitation again",
    openapi_extra=json_body(ResendInviteRequest),
)
async def resend_invite(request: Request) -> Response:
    """Only while the user is `invitation_sent`."""
    body = validate(ResendInviteRequest, await read_object(request, '{"email": "..."}'))
    state = state_of(request)
    with state.db.transaction() as conn:
        email, _, _, status, *_ = _row(conn, body.email)
        if status != INVITATION_SENT:
            raise bad_state("resend the invitation of", "user", status, [INVITATION_SENT])
        conn.execute(
            "UPDATE team_users SET invite_sent_count = invite_sent_count + 1, invited_at = ? "
            "WHERE email = ?",
            (state.clock.now_iso(), email),
        )
    return respond({"email": email, "is_email_sent": True})


@router.delete(
    "/user/user/delete",
    summary="Remove a user",
    openapi_extra=json_body(DeleteUserRequest),
)
async def delete_user(request: Request) -> Response:
    """Body `{email}`: the user loses access."""
    body = validate(DeleteUserRequest, await read_object(request, '{"email": "..."}'))
    state = state_of(request)
    with state.db.transaction() as conn:
        email, *_ = _row(conn, body.email)
        conn.execute("DELETE FROM team_users WHERE email = ?", (email,))
    return respond({"email": email, "deleted": True})


class AcceptBody(BaseModel):
    """`POST /_sandbox/users/accept`: the invited address, the password chosen, and `totp`:
    true (make a secret), a base32 secret (upper-cased), or none."""

    email: str = Field(default="", validate_default=True)
    password: str = Field(default="", validate_default=True)
    totp: bool | str | None = None

    @field_validator("email", mode="before")
    @classmethod
    def _email(cls, value: Any) -> Any:
        if not value:
            raise refused(missing("email"))
        return str(value)

    @field_validator("password", mode="before")
    @classmethod
    def _password(cls, value: Any) -> Any:
        if not value:
            raise refused(
                missing("password", "The new user chooses a password of at least 8 characters.")
            )
        if not isinstance(value, str) or len(value) < 8:
            raise refused(
                SandboxError(
                    400,
                    "invalid_request",
                    "IR_04",
                    "Invalid value for password: use at least 8 characters.",
                )
            )
        return value

    @field_validator("totp", mode="before")
    @classmethod
    def _totp(cls, value: Any) -> Any:
        if value is True:
            return True
        if isinstance(value, str) and value:
            try:
                base64.b32decode(value.upper() + "=" * (-len(value) % 8))
            except ValueError:
                raise refused(invalid("totp", "(hidden)", "true, or a base32 secret")) from None
            return value.upper()
        if value not in (None, False):
            raise refused(invalid("totp", value, "true, false, or a base32 secret"))
        return None


@router.post(
    "/_sandbox/users/accept",
    summary="An invited user accepts: sets a password, optionally TOTP",
    tags=["sandbox controls"],
    openapi_extra=schema_body(
        {
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email"},
                "password": {"type": "string", "minLength": 8, "format": "password"},
                "totp": {
                    "description": "true to make a TOTP secret, or a base32 secret to set",
                    "anyOf": [{"type": "boolean"}, {"type": "string"}],
                },
            },
            "required": ["email", "password"],
        }
    ),
)
async def accept_invitation(request: Request) -> Response:
    """Body `{email, password, totp?}`; `totp: true` makes a TOTP secret (returned once, with
    its otpauth:// URI), a base32 string sets that secret."""
    body = validate(
        AcceptBody,
        await read_object(request, '{"email": "...", "password": "...", "totp": true}'),
    )
    password = body.password
    secret: str | None = None
    if body.totp is True:
        secret = new_totp_secret()
    elif isinstance(body.totp, str):
        secret = body.totp
    state = state_of(request)
    with state.db.transaction() as conn:
        email, name, role_id, status, *_ = _row(conn, body.email)
        if status != INVITATION_SENT:
            raise bad_state("accept the invitation of", "user", status, [INVITATION_SENT])
        conn.execute(
            "UPDATE team_users SET status = ?, password_hash = ?, totp_secret = ?, "
            "accepted_at = ? WHERE email = ?",
            (ACTIVE, hash_password(password), secret, state.clock.now_iso(), email),
        )
    out = _view(email, name, role_id, ACTIVE)
    if secret is not None:
        out["totp_secret"] = secret
        out["otpauth_url"] = f"otpauth://totp/payscope:{email}?secret={secret}&issuer=payscope"
    return respond(out)


@router.post(
    "/user/v2/signin",
    summary="Sign in (the real service's older path, to be deprecated): as /user/signin",
    openapi_extra=json_body(SignInRequest),
)
@router.post(
    "/user/signin",
    summary="Sign in with password (and TOTP when set)",
    openapi_extra=json_body(SignInRequest),
)
async def sign_in(request: Request) -> Response:
    """Wrong credentials 401; with TOTP set and no code, `{totp_required: true}` and no token."""
    body = validate(
        SignInRequest, await read_object(request, '{"email": "...", "password": "..."}')
    )
    state = state_of(request)
    conn = state.db.conn
    found = conn.execute(
        "SELECT email, name, status, password_hash, totp_secret FROM team_users WHERE email = ?",
        (body.email.lower(),),
    ).fetchone()
    refused = SandboxError(
        401, AUTH, "UR_01", "Sign-in refused: the e-mail or the password is not right."
    )
    if found is None or not found[3] or not check_password(body.password, str(found[3])):
        if found is not None and found[2] == INVITATION_SENT:
            raise SandboxError(
                401,
                AUTH,
                "UR_03",
                "This user has not accepted the invitation yet: accept it first "
                "(POST /_sandbox/users/accept with email and password).",
            )
        raise refused
    email, name, _, _, secret = found
    if secret:
        if body.totp is None:
            return respond(
                {
                    "token": None,
                    "token_type": None,
                    "email": email,
                    "name": name,
                    "totp_required": True,
                }
            )
        if not totp_ok(str(secret), body.totp, (state.clock.now(), time.time())):
            raise SandboxError(
                401, AUTH, "UR_02", "Sign-in refused: the TOTP code is wrong or too old."
            )
    return respond(
        {
            "token": secrets.token_urlsafe(32),
            "token_type": "Bearer",
            "email": email,
            "name": name,
            "totp_required": False,
        }
    )


# -- demo seed --------------------------------------------------------------------------------

_SEED_USERS: Final = (
    ("admin@payscope.example", "Ada Admin", "merchant_admin", ACTIVE),
    ("dev@payscope.example", "Dennis Developer", "merchant_developer", ACTIVE),
    ("ops@payscope.example", "Olga Operator", "merchant_operator", ACTIVE),
    ("support@payscope.example", "Sam Support", "merchant_customer_support", INVITATION_SENT),
    ("viewer@payscope.example", "Vera Viewer", "merchant_view_only", INVITATION_SENT),
    ("iam@payscope.example", "Ian IAM", "merchant_iam_admin", INVITATION_SENT),
)


def seed_users(ctx: SeedContext) -> None:
    """Six users; the active ones sign in with the documented demo password."""
    rows = []
    for i, (email, name, role, status) in enumerate(_SEED_USERS):
        invited = iso(ctx.now - (30 - i) * 86400)
        accepted = iso(ctx.now - (29 - i) * 86400) if status == ACTIVE else None
        password = hash_password(DEMO_PASSWORD) if status == ACTIVE else None
        rows.append((email, name, role, status, password, invited, accepted))
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO team_users(email, name, role_id, status, password_hash, "
        "invited_at, accepted_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


RESOURCE = Resource(name="users", router=router, schema=SCHEMA, seed=seed_users)
