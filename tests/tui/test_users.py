"""Users against the embedded sandbox: the seeded team, filters, invite several at once (a bad
address named), accept (local sandbox), change role, resend, delete with a confirmation, the
actions each status allows, the whole flow end to end, a remote profile's refusal said plainly,
hostile text, and snapshots at two sizes in two themes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Input, Select, Static, TextArea

from payscope.areas.users.detail import UserDetailScreen
from payscope.areas.users.forms import (
    AcceptInvitationForm,
    ChangeRoleForm,
    InviteForm,
    parse_invitees,
)
from payscope.areas.users.view import UsersView
from payscope.core.display import STABLE
from payscope.views.forms import ConfirmScreen
from tests.tui.area_snapshots import forms_at_80x24, screens_in_every_look
from tests.tui.pilot import (
    apply_filter,
    field_error,
    filter_problem,
    open_list,
    run_command,
    shown_text,
    submit,
    type_text,
    until,
)
from tests.tui.snapshot_app import build
from tests.waits import REQUEST_TIMEOUT, on_screen

Dirs = tuple[Path, Path]
TEAM = [
    "admin@payscope.example",
    "dev@payscope.example",
    "ops@payscope.example",
    "support@payscope.example",
    "viewer@payscope.example",
    "iam@payscope.example",
]
ACTIVE = TEAM[:3]
INVITED = TEAM[3:]
HOSTILE = "[b]x[/b]\x1b[5m"
HOSTILE_SHOWN = "[b]x[/b]\\x1b[5m"  # ESC shown escaped, brackets kept
PASSWORD = "correct horse battery"


async def _users(pilot: Any) -> UsersView:
    """Start, go to `:users` and wait for its first page."""
    return await open_list(pilot, "users", UsersView)


def _header(view: UsersView) -> str:
    return shown_text(view.query_one("#users-header", Static))


async def _open(pilot: Any, view: UsersView, email: str) -> UserDetailScreen:
    app = pilot.app
    view.table.move_cursor(row=view.table.get_row_index(email))
    await pilot.press("enter")
    await until(lambda: on_screen(app, UserDetailScreen))
    screen = app.screen
    assert isinstance(screen, UserDetailScreen)
    await until(lambda: screen.record is not None and not screen.busy)
    await pilot.pause()
    return screen


async def _form(pilot: Any, kind: type) -> Any:
    """The form `kind` once open, with its roles read (a form with a role picker)."""
    app = pilot.app
    await until(lambda: on_screen(app, kind))
    form = app.screen
    if hasattr(form, "roles"):
        await until(lambda: bool(form.roles))
    await pilot.pause()
    return form


def _cell(view: UsersView, email: str, column: str) -> str:
    return str(view.table.get_cell(email, column).plain)


# -- the list --------------------------------------------------------------------------------------


async def test_the_seeded_team_shows(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        assert list(view.rows) == TEAM
        assert "1-6 of 6" in _header(view)
        assert [_cell(view, e, "status") for e in TEAM] == ["active"] * 3 + ["invited"] * 3
        assert _cell(view, "admin@payscope.example", "role") == "Admin"
        assert _cell(view, "support@payscope.example", "role") == "Customer Support"
        assert _cell(view, "dev@payscope.example", "name") == "Dennis Developer"


@pytest.mark.parametrize(
    ("size", "shown"),
    [((80, 24), ["email", "role", "status"]), ((120, 40), ["email", "name", "role", "status"])],
)
async def test_narrow_keeps_email_role_and_status(
    dirs: Dirs, size: tuple[int, int], shown: list[str]
) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        view = await _users(pilot)
        assert [k for k, _w in view.table.fitted] == shown
        # The longest seeded address shows whole.
        assert dict(view.table.fitted)["email"] >= len("support@payscope.example")


async def test_filters_by_status_role_and_text(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        await apply_filter(pilot, view, "status:invited")
        assert list(view.rows) == INVITED
        assert "3 matches in all 6 users" in _header(view)
        await apply_filter(pilot, view, "status:invitation_sent")
        assert list(view.rows) == INVITED
        await apply_filter(pilot, view, "status:active")
        assert list(view.rows) == ACTIVE
        # By role id or name, any part.
        await apply_filter(pilot, view, "role:admin")
        assert list(view.rows) == ["admin@payscope.example", "iam@payscope.example"]
        await apply_filter(pilot, view, "role:support status:invited")
        assert list(view.rows) == ["support@payscope.example"]
        await apply_filter(pilot, view, "role:support status:active")
        assert view.rows == {}
        # Part of an e-mail address or a name.
        await apply_filter(pilot, view, "olga")
        assert list(view.rows) == ["ops@payscope.example"]
        await apply_filter(pilot, view, "VIEWER@")
        assert list(view.rows) == ["viewer@payscope.example"]
        await pilot.press("escape")
        await until(lambda: list(view.rows) == TEAM)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("status:gone", "is not a user status"),
        ("o", "at least 2 letters"),
        ("team:red", "Unknown filter"),
    ],
)
async def test_a_filter_mistake_is_said_and_the_rows_stay(dirs: Dirs, text: str, said: str) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        await apply_filter(pilot, view, text)
        assert said in filter_problem(view)
        assert list(view.rows) == TEAM


# -- invite ----------------------------------------------------------------------------------------


def test_addresses_are_read_one_a_line_or_comma_separated() -> None:
    found = parse_invitees("a.b@x.io, Grace Hopper <grace@x.io>\n\n  c@x.io ;d")
    assert [(i.email, i.name) for i in found] == [
        ("a.b@x.io", "A B"),
        ("grace@x.io", "Grace Hopper"),
        ("c@x.io", "C"),
        ("d", "D"),
    ]


async def test_invite_several_at_once_a_bad_address_is_named(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        await pilot.press("n")
        form = await _form(pilot, InviteForm)
        picker = form.query_one("#field-role_id", Select)
        # The least privileged role is offered first, with what it allows.
        assert picker.value == "merchant_view_only"
        assert "operations_view" in shown_text(form.query_one("#hint-role_id"))

        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "at least one e-mail" in field_error(form, "emails")

        area = form.query_one("#field-emails", TextArea)
        area.text = "new.one@example.com, not-an-address\nTina Two <two@example.com>"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Invite 3 users as View Only"
        await pilot.press("ctrl+s")
        await pilot.pause()
        said = field_error(form, "emails")
        assert said.startswith("not-an-address: must be an e-mail address")
        assert "new.one@" not in said and "two@" not in said
        assert app.screen is form  # nothing sent

        area.text = "new.one@example.com, new.one@example.com"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "new.one@example.com: given twice" in field_error(form, "emails")

        area.text = "new.one@example.com\nTina Two <two@example.com>"
        picker.value = "merchant_developer"
        await pilot.pause()
        assert "connectors_view" in shown_text(form.query_one("#hint-role_id"))
        assert str(form.query_one("#form-submit").label) == "Invite 2 users as Developer"
        await submit(pilot, InviteForm)

        # Announced: the list reads the team again and shows them, invited.
        await until(lambda: {"new.one@example.com", "two@example.com"} <= set(view.rows))
        assert _cell(view, "two@example.com", "name") == "Tina Two"
        assert _cell(view, "new.one@example.com", "name") == "New One"
        assert _cell(view, "two@example.com", "role") == "Developer"
        assert _cell(view, "two@example.com", "status") == "invited"
        assert "1-8 of 8" in _header(view)


async def test_an_address_the_service_refuses_keeps_the_form_open(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        await pilot.press("n")
        form = await _form(pilot, InviteForm)
        area = form.query_one("#field-emails", TextArea)
        area.text = "admin@payscope.example, fresh@example.com"
        await pilot.press("ctrl+s")
        # The one invited is; the one refused stays in the field with the service's reason.
        await until(lambda: bool(field_error(form, "emails")))
        assert "admin@payscope.example: A user with this e-mail already exists" in field_error(
            form, "emails"
        )
        assert area.text == "admin@payscope.example"
        assert "1 invited; 1 not invited" in shown_text(form.query_one("#form-error"))
        assert app.screen is form
        await until(lambda: "fresh@example.com" in view.rows)


# -- accept, change role, resend, delete ----------------------------------------------------------


async def test_accept_an_invitation_on_the_local_sandbox(dirs: Dirs) -> None:
    from payscope.api.models.users import SignInRequest

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        email = "support@payscope.example"
        detail = await _open(pilot, view, email)
        assert "a accepts it here" in shown_text(detail.section("user"))
        await pilot.press("a")
        form = await _form(pilot, AcceptInvitationForm)
        form.query_one("#field-password", Input).value = "short"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "at least 8 characters" in field_error(form, "password")
        form.query_one("#field-password", Input).value = PASSWORD
        form.query_one("#field-again", Input).value = PASSWORD + "!"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "differ" in field_error(form, "again")
        form.query_one("#field-again", Input).value = PASSWORD
        await pilot.click("#field-totp")
        await submit(pilot, AcceptInvitationForm)

        # The detail and the row follow (announced: no webhook tells of it).
        await until(lambda: detail.record is not None and detail.record.status == "active")
        assert {a.name for a in detail.allowed()} == {"role", "delete"}
        await pilot.press("escape")
        await until(lambda: _cell(view, email, "status") == "active")

        # The secret went to the clipboard only: no toast, no request log shows it.
        secret = app.clipboard
        assert len(secret) >= 16
        toasts = " ".join(str(n.message) for n in app.told)
        assert secret not in toasts and PASSWORD not in toasts
        assert "TOTP secret is copied" in toasts
        logged = repr(app.runtime.client.journal.entries())
        assert "/_sandbox/users/accept" in logged
        assert secret not in logged and PASSWORD not in logged
        # The new user signs in: password, then TOTP.
        answer = await app.runtime.client.users.signin(
            SignInRequest(email=email, password=PASSWORD)
        )
        assert answer.totp_required is True


async def test_change_role(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        email = "dev@payscope.example"
        detail = await _open(pilot, view, email)
        assert "Developer" in shown_text(detail.section("role"))
        await pilot.press("e")
        form = await _form(pilot, ChangeRoleForm)
        picker = form.query_one("#field-role_id", Select)
        assert picker.value == "merchant_developer"  # the role held, chosen
        assert str(form.query_one("#form-submit").label) == "Nothing changed yet"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "choose another" in field_error(form, "role_id")
        picker.value = "merchant_operator"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Make Operator"
        await submit(pilot, ChangeRoleForm)
        await until(lambda: "Operator" in shown_text(detail.section("role")))
        assert "operations_manage" in shown_text(detail.section("role"))
        assert detail.record.status == "active"  # the status stays
        await pilot.press("escape")
        await until(lambda: _cell(view, email, "role") == "Operator")


async def test_resend_only_while_invited(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        # An active user: s is not offered, and does nothing.
        view.table.move_cursor(row=view.table.get_row_index("ops@payscope.example"))
        await pilot.pause()
        assert view.check_action("act", ("resend",)) is False
        await pilot.press("s")
        await pilot.pause()
        assert app.screen.query(UsersView)

        view.table.move_cursor(row=view.table.get_row_index("viewer@payscope.example"))
        await pilot.pause()
        assert view.check_action("act", ("resend",)) is True
        await pilot.press("s")
        await until(lambda: on_screen(app, ConfirmScreen))
        assert "viewer@payscope.example again" in shown_text(app.screen.query_one("#form-intro"))
        await submit(pilot, ConfirmScreen)
        toasts = [str(n.message) for n in app.told]
        assert "A fresh invitation link went to viewer@payscope.example." in toasts
        assert _cell(view, "viewer@payscope.example", "status") == "invited"


async def test_delete_asks_first_and_the_row_goes(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        email = "ops@payscope.example"
        detail = await _open(pilot, view, email)
        await pilot.press("D")
        await until(lambda: on_screen(app, ConfirmScreen))
        intro = shown_text(app.screen.query_one("#form-intro"))
        assert "Delete Olga Operator (ops@payscope.example)?" in intro
        await pilot.press("escape")  # closed: nothing deleted
        await until(lambda: app.screen is detail)
        assert email in [u.email for u in (await app.runtime.client.users.list()).data]

        await pilot.press("D")
        await submit(pilot, ConfirmScreen)
        # The detail closes, the row goes, the count follows.
        await until(lambda: bool(app.screen.query(UsersView)) and email not in view.rows)
        assert "1-5 of 5" in _header(view)
        assert email not in [u.email for u in (await app.runtime.client.users.list()).data]


async def test_actions_are_offered_only_where_the_status_allows(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        detail = await _open(pilot, view, "admin@payscope.example")
        assert {a.name for a in detail.allowed()} == {"role", "delete"}
        shown = {b.id for b in detail.query("#detail-actions Button") if b.display}
        assert shown == {"act-role", "act-delete"}
        await pilot.press("escape")
        detail = await _open(pilot, view, "iam@payscope.example")
        assert {a.name for a in detail.allowed()} == {"role", "resend", "accept", "delete"}
        await pilot.press("escape")
        # The list's keys follow the row under the cursor.
        view.table.move_cursor(row=view.table.get_row_index("admin@payscope.example"))
        await pilot.pause()
        assert view.check_action("act", ("accept",)) is False
        assert view.check_action("act", ("delete",)) is True
        view.table.move_cursor(row=view.table.get_row_index("iam@payscope.example"))
        await pilot.pause()
        assert view.check_action("act", ("accept",)) is True
        assert view.check_action("act", ("invite",)) is True


async def test_invite_accept_change_role_delete_end_to_end(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        email = "flow@example.com"
        await pilot.press("n")
        form = await _form(pilot, InviteForm)
        form.query_one("#field-emails", TextArea).text = f"Flo Flow <{email}>"
        await submit(pilot, InviteForm)
        await until(lambda: email in view.rows)
        assert view.table.selected_id() == email  # the cursor on the one invited

        detail = await _open(pilot, view, email)
        assert detail.record.status == "invitation_sent"
        await pilot.press("a")
        form = await _form(pilot, AcceptInvitationForm)
        form.query_one("#field-password", Input).value = PASSWORD
        form.query_one("#field-again", Input).value = PASSWORD
        await submit(pilot, AcceptInvitationForm)
        await until(lambda: detail.record.status == "active")
        assert app.clipboard == ""  # no TOTP asked: nothing copied

        await pilot.press("e")
        form = await _form(pilot, ChangeRoleForm)
        form.query_one("#field-role_id", Select).value = "merchant_admin"
        await submit(pilot, ChangeRoleForm)
        await until(lambda: "merchant_admin" in shown_text(detail.section("role")))

        await pilot.press("D")
        await submit(pilot, ConfirmScreen)
        await until(lambda: bool(app.screen.query(UsersView)) and email not in view.rows)
        assert list(view.rows) == TEAM


async def test_hostile_name_shows_literally(dirs: Dirs) -> None:
    from payscope.api.models.users import UserInvite

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _users(pilot)
        invite = UserInvite(email="evil@example.com", name=HOSTILE, role_id="merchant_view_only")
        await app.runtime.client.users.invite([invite])
        await pilot.press("r")
        await until(lambda: "evil@example.com" in view.rows)
        await pilot.pause()
        assert _cell(view, "evil@example.com", "name") == HOSTILE_SHOWN
        detail = await _open(pilot, view, "evil@example.com")
        assert HOSTILE_SHOWN in shown_text(detail.section("user"))
        await pilot.press("D")
        await until(lambda: on_screen(app, ConfirmScreen))
        assert HOSTILE_SHOWN in shown_text(app.screen.query_one("#form-intro"))
        screen = app.export_screenshot()
        assert "\x1b[5m" not in screen
        assert "[b]x[/b]" in screen.replace("&#91;", "[").replace("&#93;", "]")


# -- a remote profile: the real service wants a dashboard token -----------------------------------


class RefusesUsers:
    """An ASGI service in front of the sandbox that refuses the users routes to an api-key, as
    the real service does (they take a dashboard user's token); the rest passes through."""

    def __init__(self, upstream: str, status: int) -> None:
        self.upstream = upstream
        self.status = status

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path, query = scope["path"], scope["query_string"].decode()
        if path.startswith("/user/"):
            status = self.status
            payload = json.dumps(
                {
                    "error": {
                        "type": "invalid_request",
                        "code": "IR_17",
                        "message": "Access forbidden, invalid JWT token was used",
                    }
                }
            ).encode()
        else:
            headers = {k.decode(): v.decode() for k, v in scope["headers"] if k != b"host"}
            async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, base_url=self.upstream) as up:
                got = await up.request(
                    scope["method"],
                    path + (f"?{query}" if query else ""),
                    content=body,
                    headers=headers,
                )
            status, payload = got.status_code, got.content
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": payload})


@pytest.fixture(params=[401, 403])
async def refusing_service(dirs: Dirs, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    from payscope.core.asgi_server import EmbeddedServer
    from payscope.sandbox.config import SandboxConfig
    from payscope.sandbox.server import Sandbox
    from tests.tui.test_remote_snapshots import _save_profile

    sandbox = Sandbox(SandboxConfig(data_dir=dirs[1] / "sandbox"))
    upstream = await sandbox.start("127.0.0.1", 0)
    creds = sandbox.credentials
    server = EmbeddedServer(RefusesUsers(upstream, request.param), "127.0.0.1", 0)
    url = await server.start()
    _save_profile(url, creds.merchant_id, creds.profile_id, creds.api_key)
    try:
        yield url
    finally:
        await server.stop()
        await sandbox.stop()


async def test_a_remote_refusal_is_said_plainly(dirs: Dirs, refusing_service: str) -> None:
    from payscope.app import make_app

    config_dir, data_dir = dirs
    app = make_app(
        profile="remote",
        config_dir=config_dir,
        data_dir=data_dir,
        display=STABLE,
        retry_rng=lambda: 0.0,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await app.runtime.ready.wait()
        assert not app.runtime.options.is_local
        await run_command(pilot, "users")
        view = app.screen.query_one(UsersView)
        await until(lambda: view.loaded)
        # (The health watch runs for as long as the app does: not waited for.)
        await until(lambda: not [w for w in app.workers if w.group != "health" and w.is_running])
        await pilot.pause()
        assert "not available with this key" in _header(view)
        said = shown_text(view.query_one(".empty", Static))
        assert "dashboard token" in said and "api-key" in said
        assert not [n for n in app.told if n.severity == "error"]  # no crash, no toast

        # Invite says it on the form's line too.
        await pilot.press("n")
        await until(lambda: on_screen(app, InviteForm))
        form = app.screen
        await until(lambda: "dashboard token" in shown_text(form.query_one("#form-error")))


# -- snapshots -------------------------------------------------------------------------------------


async def _list(pilot: Any) -> None:
    await _users(pilot)


async def _detail(pilot: Any) -> None:
    view = await _users(pilot)
    await _open(pilot, view, "support@payscope.example")


async def _invite_errors(pilot: Any) -> None:
    await _users(pilot)
    await pilot.press("n")
    form = await _form(pilot, InviteForm)
    form.query_one("#field-emails", TextArea).text = "grace@example.com, grace@, bob at example"
    await pilot.press("ctrl+s")
    await until(lambda: bool(field_error(form, "emails")))
    await pilot.pause()


async def _accept_form(pilot: Any) -> None:
    """The acceptance form with a password typed: masked, never shown."""
    view = await _users(pilot)
    await _open(pilot, view, "viewer@payscope.example")
    await pilot.press("a")
    form = await _form(pilot, AcceptInvitationForm)
    await type_text(pilot, PASSWORD)
    await pilot.press("tab")
    await type_text(pilot, "other one")
    await pilot.press("ctrl+s")
    await until(lambda: bool(field_error(form, "again")))
    await pilot.pause()


SCREENS = {
    "list": _list,
    "detail": _detail,
    "invite_errors": _invite_errors,
    "accept_form": _accept_form,
}


test_user_screens = screens_in_every_look(SCREENS, ["list", "detail"])


test_user_forms = forms_at_80x24(
    SCREENS, [("invite_errors", "payscope-dark"), ("accept_form", "payscope-light")], seeded=False
)
