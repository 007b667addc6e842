"""Team users: invite (several, duplicates), roles, resend, accept, sign-in with TOTP, delete."""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct

import httpx

from payscope.sandbox.server import Sandbox


def rfc6238(secret: str, at: float) -> str:
    """An independent TOTP (RFC 6238, SHA-1, 30 s, 6 digits) to check the sandbox's."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(at) // 30), hashlib.sha1).digest()
    offset = mac[-1] & 15
    code = (int.from_bytes(mac[offset : offset + 4], "big") & 0x7FFFFFFF) % 1_000_000
    return f"{code:06d}"


async def test_invite_accept_sign_in_with_totp(raw: httpx.AsyncClient, sandbox: Sandbox) -> None:
    roles = (await raw.get("/user/role/list/invite")).json()
    assert {"merchant_admin", "merchant_view_only", "merchant_developer"} <= {
        r["role_id"] for r in roles
    }
    invited = await raw.post(
        "/user/user/invite_multiple",
        json=[
            {"email": "ada@example.com", "name": "Ada", "role_id": "merchant_developer"},
            {"email": "ADA@example.com", "name": "Ada again", "role_id": "merchant_admin"},
            {"email": "bob@example.com", "name": "Bob", "role_id": "merchant_wizard"},
            {"email": "cy@example.com", "name": "Cy", "role_id": "merchant_view_only"},
        ],
    )
    results = invited.json()
    assert [r["is_email_sent"] for r in results] == [True, False, False, True]
    assert "more than once" in results[1]["error"] and "merchant_wizard" in results[2]["error"]
    again = (
        await raw.post(
            "/user/user/invite_multiple",
            json=[{"email": "ada@example.com", "name": "Ada", "role_id": "merchant_admin"}],
        )
    ).json()
    assert again[0]["is_email_sent"] is False and "already exists" in again[0]["error"]
    users = {u["email"]: u for u in (await raw.get("/user/user/list")).json()}
    assert users["ada@example.com"]["status"] == "invitation_sent"
    assert users["ada@example.com"]["roles"][0]["role_id"] == "merchant_developer"
    resent = await raw.post("/user/user/resend_invite", json={"email": "ada@example.com"})
    assert resent.json()["is_email_sent"] is True
    early = await raw.post("/user/signin", json={"email": "ada@example.com", "password": "x"})
    assert early.status_code == 401 and "accept" in early.json()["error"]["message"]

    accepted = (
        await raw.post(
            "/_sandbox/users/accept",
            json={"email": "ada@example.com", "password": "correct horse", "totp": True},
        )
    ).json()
    assert accepted["status"] == "active" and accepted["otpauth_url"].startswith("otpauth://")
    secret = accepted["totp_secret"]
    stored = sandbox.state.db.conn.execute(
        "SELECT password_hash FROM team_users WHERE email = 'ada@example.com'"
    ).fetchone()[0]
    assert "correct horse" not in stored and stored.startswith("scrypt$")
    resend_active = await raw.post("/user/user/resend_invite", json={"email": "ada@example.com"})
    assert resend_active.status_code == 400
    assert "invitation_sent" in resend_active.json()["error"]["message"]

    creds = {"email": "ada@example.com", "password": "correct horse"}
    step = (await raw.post("/user/signin", json=creds)).json()
    assert step["totp_required"] is True and step["token"] is None
    wrong_pw = await raw.post("/user/signin", json={**creds, "password": "wrong horse"})
    assert wrong_pw.status_code == 401
    code = rfc6238(secret, sandbox.state.clock.now())
    wrong_code = "000000" if code != "000000" else "111111"
    refused = await raw.post("/user/signin", json={**creds, "totp": wrong_code})
    assert refused.status_code == 401 and "TOTP" in refused.json()["error"]["message"]
    signed = (await raw.post("/user/signin", json={**creds, "totp": code})).json()
    assert signed["token"] and signed["totp_required"] is False
    # the code follows the sandbox clock too
    await raw.post("/_sandbox/clock/advance", json={"seconds": 3600})
    later = rfc6238(secret, sandbox.state.clock.now())
    assert (await raw.post("/user/signin", json={**creds, "totp": later})).status_code == 200


async def test_update_role_delete_and_errors(raw: httpx.AsyncClient) -> None:
    await raw.post(
        "/user/user/invite_multiple",
        json=[{"email": "dee@example.com", "name": "Dee", "role_id": "merchant_operator"}],
    )
    updated = await raw.post(
        "/user/user/update_role", json={"email": "dee@example.com", "role_id": "merchant_admin"}
    )
    assert updated.json()["roles"][0]["role_id"] == "merchant_admin"
    assert updated.json()["status"] == "invitation_sent"
    bad_role = await raw.post(
        "/user/user/update_role", json={"email": "dee@example.com", "role_id": "root"}
    )
    assert bad_role.status_code == 400 and "merchant_admin" in bad_role.json()["error"]["message"]
    nobody = await raw.post(
        "/user/user/update_role", json={"email": "no@example.com", "role_id": "merchant_admin"}
    )
    assert nobody.status_code == 404
    bad_email = await raw.post(
        "/user/user/invite_multiple", json=[{"email": "nope", "name": "N", "role_id": "x"}]
    )
    assert bad_email.status_code == 400 and "email" in bad_email.json()["error"]["message"]
    deleted = await raw.request("DELETE", "/user/user/delete", json={"email": "dee@example.com"})
    assert deleted.json() == {"email": "dee@example.com", "deleted": True}
    assert (await raw.get("/user/user/list")).json() == []
    gone = await raw.request("DELETE", "/user/user/delete", json={"email": "dee@example.com"})
    assert gone.status_code == 404
    short = await raw.post(
        "/_sandbox/users/accept", json={"email": "x@example.com", "password": "a"}
    )
    assert short.status_code == 400 and "8 characters" in short.json()["error"]["message"]
