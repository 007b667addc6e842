"""Settings: profiles (add, edit, delete, switch), keys in the keyring (masked), listener, theme."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Checkbox, Input, OptionList, Static
from textual.widgets.option_list import Option

from payscope.core import config, secrets
from payscope.core.hosts import INSECURE_HTTP_FIX, is_insecure_http
from payscope.views.access import Guarded, refused
from payscope.views.area import AreaView, area_width
from payscope.views.columns import CellContext, Column, fit
from payscope.views.forms import ConfirmScreen, Field, FormErrors, FormScreen
from payscope.views.table import ResourceTable
from payscope.widgets.text import safe, safe_markup

# Below this area width the profile table and the side panels no longer fit side by side.
NARROW_WIDTH = 104
SIDE_WIDTH = 36


@dataclass(frozen=True)
class ProfileRow:
    """A profile as the table shows it ("" names the embedded sandbox)."""

    name: str
    url: str
    key: str
    default: bool


# Fixed columns fit a name, a masked key ("snd_...abcd") and the mark; the URL takes the rest.
PROFILE_COLUMNS: tuple[Column[ProfileRow], ...] = (
    Column("name", "Name", 12, lambda p, c: safe(p.name or "local")),
    Column("url", "Base URL", 12, lambda p, c: safe(p.url), flex=(12, 200)),
    Column("key", "Key", 11, lambda p, c: safe(p.key)),
    Column("default", "Default", 7, lambda p, c: Text("✓" if p.default else "")),
)
# The profile box's border and padding (4) and the table's scrollbar (1).
TABLE_CHROME = 4 + 1


def table_width(area_width: int) -> int:
    """The profile table's width in a settings area `area_width` cells wide."""
    side = 0 if area_width < NARROW_WIDTH else SIDE_WIDTH
    return area_width - side - TABLE_CHROME


def url_width(area_width: int) -> int:
    """The Base URL column's width for a settings area `area_width` cells wide."""
    return dict(fit(PROFILE_COLUMNS, table_width(area_width)))["url"]


class ProfileTable(ResourceTable[ProfileRow]):
    """The profiles; Enter makes the selected one the default."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "open",
            "Switch",
            id="settings.switch",
            tooltip="Make the selected profile the default (used on next start)",
        ),
    ]


class SettingsView(AreaView):
    """Profiles beside (or, when narrow, above) the theme picker (live preview) and listener."""

    # Titles use the foreground colour: the muted panel colour all but vanishes on light themes.
    DEFAULT_CSS = """
    SettingsView > #settings-body { height: 1fr; }
    SettingsView .panel {
        border: round $primary; border-title-color: $foreground; border-title-style: bold;
    }
    SettingsView #profiles-box { width: 1fr; padding: 0 1; }
    SettingsView #side { width: 36; }  /* SIDE_WIDTH */
    SettingsView #themes-box { height: 1fr; }
    SettingsView #listener-box { height: auto; padding: 0 1; }
    SettingsView #profiles-hint { color: $text-muted; }
    SettingsView OptionList { border: none; }
    SettingsView #settings-body.-narrow { layout: vertical; }
    SettingsView .-narrow #profiles-box { width: 1fr; height: auto; max-height: 60%; }
    SettingsView .-narrow #side { width: 1fr; height: 1fr; layout: horizontal; }
    SettingsView .-narrow #themes-box { width: 1fr; height: 1fr; }
    SettingsView .-narrow #listener-box { width: 1fr; height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add_profile", "Add profile", id="settings.add", tooltip="Add a profile"),
        Binding(
            "e",
            "edit_profile",
            "Edit profile",
            id="settings.edit",
            tooltip="Edit the selected profile and set its webhook secret",
        ),
        Binding(
            "delete", "delete_profile", "Delete", id="settings.delete", tooltip="Delete profile"
        ),
    ]

    def compose(self) -> ComposeResult:
        # The size is known before layout: choosing the layout now avoids a second pass.
        self._area_width = area_width(self.app.size.width)
        narrow = self._area_width < NARROW_WIDTH
        with Horizontal(id="settings-body", classes="-narrow" if narrow else ""):
            with Vertical(id="profiles-box", classes="panel") as box:
                box.border_title = "Profiles"
                table = ProfileTable(
                    PROFILE_COLUMNS, lambda p: p.name, self._cells_context, id="profiles-table"
                )
                table.zebra_stripes = False
                table.fit_to(table_width(self._area_width))
                yield table
                yield Static(
                    "a add · e edit · Del delete · Enter make default.  Keys go to the OS "
                    "keyring and are shown masked; prd_ keys need a typed confirmation.",
                    id="profiles-hint",
                )
            with Vertical(id="side"):
                with Vertical(id="themes-box", classes="panel") as themes:
                    themes.border_title = "Theme (live preview)"
                    yield OptionList(id="theme-list")
                with Vertical(id="listener-box", classes="panel") as listener:
                    listener.border_title = "Listener"
                    yield Static(id="listener-info")

    def _cells_context(self) -> CellContext:
        return CellContext(self.app.theme_variables)

    @property
    def table(self) -> ProfileTable:
        return self.query_one(ProfileTable)

    def on_resize(self) -> None:
        if self.size.width == self._area_width:
            return
        self._area_width = self.size.width
        body = self.query_one("#settings-body")
        body.set_class(self._area_width < NARROW_WIDTH, "-narrow")
        self.table.fit_to(table_width(self._area_width))

    def on_mount(self) -> None:
        options = self.query_one("#theme-list", OptionList)
        names = sorted(self.app.available_themes, key=lambda n: (not n.startswith("payscope"), n))
        options.add_options([Option(name, id=name) for name in names])
        if self.app.theme in names:
            options.highlighted = names.index(self.app.theme)
        self._chosen_theme = self.app.theme
        self._mark_theme()
        self.refresh_profiles()
        self._show_listener()

    def focus_main(self) -> None:
        self.table.focus()

    def runtime_ready(self) -> None:
        self._show_listener()

    def _show_listener(self) -> None:
        runtime = self.runtime
        listener = runtime.listener
        if listener is None:
            text = "[dim]not started[/dim]"
        else:
            text = (
                f"{safe_markup(runtime.listener_url or '-')}\n"
                f"secrets: {len(listener.secrets)} (shown masked in `payscope listen`)\n"
                f"[dim]Set listener_port and the webhook secret per profile: e edit.[/dim]"
            )
        self.query_one("#listener-info", Static).update(text)

    def refresh_profiles(self) -> None:
        """Redraw the profile table from the settings file."""
        settings = config.load_settings()
        rows = [ProfileRow("", "embedded sandbox", "generated", not settings.default_profile)]
        for name, profile in sorted(settings.profiles.items()):
            default = settings.default_profile == name
            rows.append(ProfileRow(name, profile.base_url, self._masked_key(name), default))
        self.table.show(rows)

    def _masked_key(self, name: str) -> str:
        try:
            key = secrets.get_secret(name, "secret")
        except secrets.SecretsError:
            return "keyring off"
        return secrets.mask(key) if key else "none"

    @on(OptionList.OptionHighlighted, "#theme-list")
    def _preview(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.app.theme = event.option.id

    @on(OptionList.OptionSelected, "#theme-list")
    def _choose(self, event: OptionList.OptionSelected) -> None:
        name = event.option.id
        if not name:
            return
        self.app.choose_theme(name)  # kept in the settings file, said where
        self._chosen_theme = name
        self._mark_theme()

    def _kept_theme(self) -> str:
        """The theme payscope starts in: the profile's own, else the settings' (what Settings,
        `:theme NAME` and the picker keep)."""
        try:
            settings = config.load_settings()
        except config.ConfigError:
            return self.app.theme
        own = settings.profiles.get(self.runtime.options.profile or "")
        return (own.theme if own is not None else None) or settings.theme

    def _mark_theme(self) -> None:
        """The theme kept for the next start is marked in the list (`✓ saved`), however it
        was chosen; the highlight is on the theme in use (they differ only after --theme)."""
        options = self.query_one("#theme-list", OptionList)
        kept = self._kept_theme()
        for index in range(options.option_count):
            option = options.get_option_at_index(index)
            name = option.id or ""
            label = f"{name}  ✓ saved" if name == kept else name
            options.replace_option_prompt_at_index(index, label)

    def on_show(self) -> None:
        # `:theme NAME` elsewhere chose another: the list marks and highlights that one.
        if self.app.theme == self._chosen_theme:
            return
        self._chosen_theme = self.app.theme
        self._mark_theme()
        options = self.query_one("#theme-list", OptionList)
        for index in range(options.option_count):
            if options.get_option_at_index(index).id == self._chosen_theme:
                options.highlighted = index

    def selected_profile(self) -> str | None:
        """The profile name under the cursor ("" is the embedded sandbox)."""
        return self.table.selected_id()

    @on(ResourceTable.Open)
    def _switch(self, event: ResourceTable.Open) -> None:
        event.stop()
        self.action_switch_profile()

    def action_add_profile(self) -> None:
        if refused(self, Guarded.OTHER_PROFILE):
            return
        self.app.push_screen(
            ProfileForm(), lambda saved: self.refresh_profiles() if saved else None
        )

    def action_edit_profile(self) -> None:
        if refused(self, Guarded.OTHER_PROFILE):
            return
        name = self.selected_profile()
        if not name:
            self.notify(
                "The embedded sandbox is set up by payscope itself; pick a remote profile to "
                "edit (a to add one).",
                severity="warning",
            )
            return
        profile = config.get_profile(config.load_settings(), name)
        self.app.push_screen(
            ProfileForm(profile), lambda saved: self.refresh_profiles() if saved else None
        )

    def action_delete_profile(self) -> None:
        if refused(self, Guarded.OTHER_PROFILE):
            return
        name = self.selected_profile()
        if not name:
            self.notify("The embedded sandbox cannot be deleted.", severity="warning")
            return

        async def delete() -> str:
            settings = config.remove_profile(config.load_settings(), name)
            config.save_settings(settings)
            return name

        self.app.push_screen(
            ConfirmScreen(
                "Delete profile",
                f"Delete the profile {name}? Its key stays in the OS keyring until "
                f"`payscope keys delete --profile {name}`.",
                f"Delete {name}",
                delete,
                variant="error",
            ),
            self._deleted,
        )

    def _deleted(self, name: str | None) -> None:
        if not name:
            return
        self.notify(
            f"Profile {name} deleted (its key stays in the keyring: `payscope keys delete "
            f"--profile {name}`).",
            title="Profile deleted",
        )
        self.refresh_profiles()

    def action_switch_profile(self) -> None:
        if refused(self, Guarded.OTHER_PROFILE):
            return
        name = self.selected_profile()
        if name is None:
            return
        settings = config.load_settings()
        settings.default_profile = name or None
        config.save_settings(settings)
        self.refresh_profiles()
        self.notify(
            f"{name or 'the embedded sandbox'} opens on the next start "
            f"(or now: payscope --profile {name}).",
            title="Default profile",
        )

    def back(self) -> None:
        if self.app.theme != self._chosen_theme:
            self.app.theme = self._chosen_theme


@dataclass(frozen=True)
class ProfileSave:
    """What the profile form saves: the profile, and the keys typed (None: kept as they are)."""

    profile: config.Profile
    key: str | None
    webhook: str | None
    allow_production: bool


class ProfileForm(FormScreen[ProfileSave, config.Profile]):
    """Add or edit a remote profile; keys go to the keyring, never to the file."""

    intro = "A remote sandbox. Keys are stored in the OS keyring, never in profiles.toml."
    submit_label = "Save profile"

    def __init__(self, profile: config.Profile | None = None) -> None:
        super().__init__()
        # The profile being edited, None when adding one.
        self.editing = profile
        self.title_text = f"Edit profile {profile.name}" if profile else "Add profile"

    def _stored(self, kind: str) -> str | None:
        if self.editing is None:
            return None
        try:
            value = secrets.get_secret(self.editing.name, kind)
        except secrets.SecretsError:
            return None
        return secrets.mask(value) if value else None

    def fields(self) -> list[Field]:
        old = self.editing
        key_hint = "snd_…"
        webhook_hint = "The secret the service signs deliveries with (listener verification)."
        if old is not None:
            key_hint = f"Stored: {self._stored('secret') or 'none'}. Leave blank to keep it."
            webhook_hint = (
                f"Stored: {self._stored('webhook') or 'none'}. Leave blank to keep it. "
                + webhook_hint
            )
        name = Input(old.name if old else "", placeholder="staging", id="field-name")
        # The name is the profile's key in the file and the keyring: renaming is delete + add.
        name.disabled = old is not None
        port = str(old.listener_port) if old else "8787"
        return [
            Field("name", "Name", name),
            Field(
                "base_url",
                "Base URL",
                Input(
                    old.base_url if old else "",
                    placeholder="https://sandbox.example.com",
                    id="field-base_url",
                ),
            ),
            Field(
                "merchant_id",
                "Merchant id",
                Input((old.merchant_id or "") if old else "", id="field-merchant_id"),
            ),
            Field(
                "profile_id",
                "Business profile id",
                Input((old.profile_id or "") if old else "", id="field-profile_id"),
            ),
            Field("listener_port", "Listener port", Input(port, id="field-listener_port")),
            Field(
                "theme",
                "Theme",
                Input(
                    (old.theme or "") if old else "",
                    placeholder="payscope-dark",
                    id="field-theme",
                ),
                "Blank: the app's theme. One of the names in Settings → Theme.",
            ),
            Field(
                "contract",
                "Contract",
                Input(
                    (old.contract or "") if old else "",
                    placeholder="auto",
                    id="field-contract",
                ),
                "Whose meanings its error codes have: real (the real service), spec (a service "
                "that follows payscope's spec) or auto (blank: detected from its errors).",
            ),
            Field(
                "read_only",
                "",
                Checkbox(
                    "Read-only: browse and export; nothing that writes is offered or sent",
                    bool(old.read_only) if old else False,
                    id="field-read_only",
                ),
                "Marked and unmarked only here (or read_only in profiles.toml).",
            ),
            Field("api_key", "Secret key", Input(password=True, id="field-api_key"), key_hint),
            Field(
                "webhook_secret",
                "Webhook secret",
                Input(password=True, id="field-webhook_secret"),
                webhook_hint,
            ),
            Field(
                "confirm_production",
                "Production confirmation",
                Input(id="field-confirm_production"),
                "Only for a prd_ key: type the profile's name to accept real charges.",
            ),
        ]

    def build(self) -> ProfileSave:
        errors: dict[str, str] = {}
        port_text = self.value("listener_port") or "8787"
        if not port_text.isdigit():
            errors["listener_port"] = "A port is a number between 1 and 65535."
        theme = self.value("theme")
        if theme and theme not in self.app.available_themes:
            errors["theme"] = f"No theme named {theme!r}: pick one of the names listed under Theme."
        contract = (self.value("contract") or "").strip().lower() or None
        if contract is not None and contract not in config.CONTRACT_CHOICES:
            errors["contract"] = "One of real, spec or auto (blank: auto)."
        key = self.value("api_key")
        # An edit without a new key keeps the production permission the old key was given.
        allow = bool(self.editing and self.editing.allow_production and not key)
        if key and secrets.is_production(key):
            if self.value("confirm_production") != self.value("name"):
                errors["api_key"] = (
                    "This is a production key (prd_): real charges. Type the profile name in "
                    "the confirmation field to accept it."
                )
            allow = True
        webhook = self.value("webhook_secret")
        if webhook:
            try:
                secrets.validate_secret(webhook, "webhook")
            except secrets.SecretsError as exc:
                errors["webhook_secret"] = str(exc)
        # Not on this form: an edit keeps the file's own allow_insecure_http and allow_env.
        insecure_ok = bool(self.editing and self.editing.allow_insecure_http)

        if is_insecure_http(self.value("base_url") or "") and not insecure_ok:
            errors["base_url"] = (
                "http:// to another machine: the secret key would cross the network "
                f"unencrypted. {INSECURE_HTTP_FIX[0].upper()}{INSECURE_HTTP_FIX[1:]}."
            )
        if errors:
            raise FormErrors(errors)
        profile = config.Profile(
            name=self.value("name") or "",
            base_url=self.value("base_url") or "",
            merchant_id=self.value("merchant_id"),
            profile_id=self.value("profile_id"),
            listener_port=int(port_text),
            theme=theme,
            allow_production=allow,
            contract=contract,
            # Not on this form: an edit keeps where the profile's replays go.
            forward_url=self.editing.forward_url if self.editing else None,
            read_only=bool(self.value("read_only")),
            allow_insecure_http=insecure_ok,
            allow_env=list(self.editing.allow_env) if self.editing else [],
        )
        if key:
            try:
                secrets.validate_secret(key, "secret", allow_production=allow)
            except secrets.SecretsError as exc:
                raise FormErrors({"api_key": str(exc)}) from None
        return ProfileSave(profile, key, webhook, allow)

    async def send(self, request: ProfileSave) -> config.Profile:
        profile, key, webhook = request.profile, request.key, request.webhook
        allow = request.allow_production
        editing = self.editing is not None
        settings = config.add_profile(config.load_settings(), profile, replace=editing)
        if key:
            secrets.set_secret(profile.name, key, "secret", allow_production=allow)
        if webhook:
            secrets.set_secret(profile.name, webhook, "webhook")
        config.save_settings(settings)
        stored = [f"key {secrets.mask(key)}"] if key else []
        if webhook:
            stored.append(f"webhook secret {secrets.mask(webhook)}")
        what = ", ".join(stored) or ("keys unchanged" if editing else "no key yet")
        title = "Profile updated" if editing else "Profile added"
        self.app.notify(f"{profile.name} saved ({what}).", title=title)
        return profile
