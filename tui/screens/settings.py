"""Settings: profiles (add, delete, switch), keys into the keyring (masked), listener, theme."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.screens.base import AreaView
from tui.screens.payment_forms import Field, FormErrors, FormScreen


class SettingsView(AreaView):
    """Profiles on the left, theme picker (live preview) and listener on the right."""

    DEFAULT_CSS = """
    SettingsView > #settings-body { height: 1fr; }
    SettingsView #profiles-box { width: 1fr; border: round $panel; padding: 0 1; }
    SettingsView #side { width: 40; }
    SettingsView #themes-box { height: 1fr; border: round $panel; }
    SettingsView #listener-box { height: auto; border: round $panel; padding: 0 1; }
    SettingsView #profiles-hint { color: $text-muted; }
    SettingsView OptionList { border: none; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add_profile", "Add profile", id="settings.add", tooltip="Add a profile"),
        Binding(
            "delete", "delete_profile", "Delete", id="settings.delete", tooltip="Delete profile"
        ),
        Binding(
            "enter",
            "switch_profile",
            "Switch",
            id="settings.switch",
            tooltip="Make the selected profile the default (used on next start)",
        ),
    ]

    def compose(self) -> ComposeResult:
        with Horizontal(id="settings-body"):
            with Vertical(id="profiles-box") as box:
                box.border_title = "Profiles"
                table: DataTable[Any] = DataTable(cursor_type="row", id="profiles-table")
                table.add_column("Name", width=14, key="name")
                table.add_column("Base URL", width=30, key="url")
                table.add_column("Key", width=14, key="key")
                table.add_column("Default", width=7, key="default")
                yield table
                yield Static(
                    "a add · Del delete · Enter make default.  Keys go to the OS keyring and are "
                    "shown masked; prd_ keys need a typed confirmation.",
                    id="profiles-hint",
                )
            with Vertical(id="side"):
                with Vertical(id="themes-box") as themes:
                    themes.border_title = "Theme (preview as you move)"
                    yield OptionList(id="theme-list")
                with Vertical(id="listener-box") as listener:
                    listener.border_title = "Listener"
                    yield Static(id="listener-info")

    def on_mount(self) -> None:
        options = self.query_one("#theme-list", OptionList)
        names = sorted(self.app.available_themes, key=lambda n: (not n.startswith("payscope"), n))
        options.add_options([Option(name, id=name) for name in names])
        if self.app.theme in names:
            options.highlighted = names.index(self.app.theme)
        self._chosen_theme = self.app.theme
        self.refresh_profiles()
        self._show_listener()

    def focus_main(self) -> None:
        self.query_one("#profiles-table", DataTable).focus()

    def runtime_ready(self) -> None:
        self._show_listener()

    def _show_listener(self) -> None:
        runtime = self.runtime
        listener = runtime.listener
        if listener is None:
            text = "[dim]not started[/dim]"
        else:
            text = (
                f"{runtime.listener_url or '-'}\n"
                f"secrets: {len(listener.secrets)} (shown masked in `payscope listen`)\n"
                f"[dim]Set listener_port per profile in Add profile.[/dim]"
            )
        self.query_one("#listener-info", Static).update(text)

    def refresh_profiles(self) -> None:
        """Redraw the profile table from the settings file."""
        from tui import config

        settings = config.load_settings()
        table = self.query_one("#profiles-table", DataTable)
        table.clear()
        table.add_row(
            "local",
            "embedded sandbox",
            "generated",
            "" if settings.default_profile else "✓",
            key="",
        )
        for name, profile in sorted(settings.profiles.items()):
            table.add_row(
                name,
                profile.base_url,
                self._masked_key(name),
                "✓" if settings.default_profile == name else "",
                key=name,
            )

    def _masked_key(self, name: str) -> str:
        from tui import secrets

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
        from tui import config

        name = event.option.id
        if not name:
            return
        settings = config.load_settings()
        settings.theme = name
        path = config.save_settings(settings)
        self._chosen_theme = name
        self.notify(f"Theme {name} saved to {path}.", title="Theme")

    def selected_profile(self) -> str | None:
        """The profile name under the cursor ("" is the embedded sandbox)."""
        table = self.query_one("#profiles-table", DataTable)
        if table.row_count == 0:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value or "")

    def action_add_profile(self) -> None:
        self.app.push_screen(
            ProfileForm(), lambda saved: self.refresh_profiles() if saved else None
        )

    def action_delete_profile(self) -> None:
        from tui import config

        name = self.selected_profile()
        if not name:
            self.notify("The embedded sandbox cannot be deleted.", severity="warning")
            return
        settings = config.remove_profile(config.load_settings(), name)
        config.save_settings(settings)
        self.notify(
            f"Profile {name} deleted (its key stays in the keyring: `payscope keys delete "
            f"--profile {name}`).",
            title="Profile deleted",
        )
        self.refresh_profiles()

    def action_switch_profile(self) -> None:
        from tui import config

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


class ProfileForm(FormScreen):
    """Add a remote profile; the key goes to the keyring, never to the file."""

    title_text = "Add profile"
    intro = "A remote sandbox. The key is stored in the OS keyring, never in profiles.toml."
    submit_label = "Save profile"

    def fields(self) -> list[Field]:
        return [
            Field("name", "Name", Input(placeholder="staging", id="field-name")),
            Field(
                "base_url",
                "Base URL",
                Input(placeholder="https://sandbox.example.com", id="field-base_url"),
            ),
            Field("merchant_id", "Merchant id", Input(id="field-merchant_id")),
            Field("profile_id", "Business profile id", Input(id="field-profile_id")),
            Field("listener_port", "Listener port", Input("8787", id="field-listener_port")),
            Field("api_key", "Secret key", Input(password=True, id="field-api_key"), "snd_…"),
            Field(
                "confirm_production",
                "Production confirmation",
                Input(id="field-confirm_production"),
                "Only for a prd_ key: type the profile's name to accept real charges.",
            ),
        ]

    def build(self) -> Any:
        from pydantic import ValidationError

        from tui import config, secrets

        errors: dict[str, str] = {}
        port_text = self.value("listener_port") or "8787"
        if not port_text.isdigit():
            errors["listener_port"] = "A port is a number between 1 and 65535."
        key = self.value("api_key")
        allow = False
        if key and secrets.is_production(key):
            if self.value("confirm_production") != self.value("name"):
                errors["api_key"] = (
                    "This is a production key (prd_): real charges. Type the profile name in "
                    "the confirmation field to accept it."
                )
            allow = True
        if errors:
            raise FormErrors(errors)
        try:
            profile = config.Profile(
                name=self.value("name") or "",
                base_url=self.value("base_url") or "",
                merchant_id=self.value("merchant_id"),
                profile_id=self.value("profile_id"),
                listener_port=int(port_text),
                allow_production=allow,
            )
        except ValidationError:
            raise
        if key:
            try:
                secrets.validate_secret(key, "secret", allow_production=allow)
            except secrets.SecretsError as exc:
                raise FormErrors({"api_key": str(exc)}) from None
        return (profile, key, allow)

    async def send(self, request: Any) -> Any:
        return await self._save(request)

    async def _save(self, request: Any) -> Any:
        from tui import config, secrets

        profile, key, allow = request
        settings = config.add_profile(config.load_settings(), profile)
        if key:
            secrets.set_secret(profile.name, key, "secret", allow_production=allow)
        config.save_settings(settings)
        masked = secrets.mask(key) if key else "no key yet"
        self.app.notify(f"{profile.name} saved ({masked}).", title="Profile added")
        return profile
