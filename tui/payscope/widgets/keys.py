"""Key names: what Textual calls the key of a typed character (the demo player and the tests
post key events one character at a time, as a terminal sends them)."""

from __future__ import annotations

import unicodedata

from textual.keys import KEY_NAME_REPLACEMENTS


def key_name(character: str) -> str:
    """The name Textual gives the key of a typed character: itself for a letter or a digit, else
    its Unicode name in snake case ("colon", "full_stop"), with Textual's own short names
    (`textual.keys.KEY_NAME_REPLACEMENTS`: "space", "underscore", ...)."""
    if character.isalnum():
        return character
    try:
        name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
    except ValueError:  # a control character has no name
        name = {"\t": "tab"}.get(character, character)
    return KEY_NAME_REPLACEMENTS.get(name, name)
