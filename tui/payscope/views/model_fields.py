"""Form fields made from a pydantic request model: one per model field, the model's own rules.

Which fields exist, which are required (the others say "optional"), which take a choice (an
enum becomes a picker) and which hold a secret (`Field(repr=False)`, or an account number: a
`MaskedInput`; the others are `SafeInput`s) all come from the model, so a form never restates
them. The fields are named `<prefix>-<model field>` so several models can share a form (a
payout's card, ACH, SEPA...); `read_model` gives back what was typed as the model takes it, and
`model_errors` puts each of the model's messages under its field.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Collection, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from textual.widgets import Select

from payscope.views.forms import Field
from payscope.widgets.inputs import MaskedInput, Picker, SafeInput

if TYPE_CHECKING:
    from pydantic import ValidationError

    from payscope.views.forms import FormScreen

# Account numbers are masked once typed, like the card numbers the models mark repr=False.
ACCOUNT_NUMBERS = frozenset({"bank_account_number", "account_number", "iban", "pix_key", "emv"})


def enum_of(annotation: Any) -> type[Enum] | None:
    """The Enum an annotation takes (through Optional, unions and Annotated), or None."""
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return annotation
    for arg in typing.get_args(annotation):
        found = enum_of(arg)
        if found is not None:
            return found
    return None


def model_of(annotation: Any) -> type[BaseModel] | None:
    """The one pydantic model an annotation takes (`PayoutCard | None` -> PayoutCard)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, typing.Annotated):
        found = [m for a in typing.get_args(annotation) if (m := model_of(a)) is not None]
        return found[0] if len(found) == 1 else None
    return None


def is_literal(annotation: Any) -> bool:
    """A fixed value (a discriminator such as `payout_method_type: Literal["ach"]`)."""
    return typing.get_origin(annotation) is typing.Literal


def humanise(name: str) -> str:
    """`bank_routing_number` -> "Bank routing number"."""
    return name.replace("_", " ").strip().capitalize()


def model_inputs(
    model: type[BaseModel],
    prefix: str,
    *,
    labels: Mapping[str, str] | None = None,
    placeholders: Mapping[str, str] | None = None,
    masked: Collection[str] = ACCOUNT_NUMBERS,
    values: Mapping[str, Any] | None = None,
) -> list[Field]:
    """A field per field of `model` (required ones first), named `<prefix>-<name>`.

    An enum is a picker (blank allowed when optional); a field the model hides from reprs, or
    named in `masked`, is a `MaskedInput`; a fixed discriminator is left out (the model sets it).
    """
    labels = labels or {}
    placeholders = placeholders or {}
    values = values or {}
    items = [(n, i) for n, i in model.model_fields.items() if not is_literal(i.annotation)]
    items.sort(key=lambda item: not item[1].is_required())
    fields = []
    for name, info in items:
        required = info.is_required()
        label = labels.get(name) or humanise(name)
        if not required:
            label += " (optional)"
        ident = f"field-{prefix}-{name}"
        current = values.get(name)
        widget: Any
        choices = enum_of(info.annotation)
        if choices is not None:
            widget = Picker(
                [(str(m.value), str(m.value)) for m in choices],
                prompt="(none)" if not required else "Choose…",
                allow_blank=True,
                value=str(current) if current is not None else Select.NULL,
                compact=True,
                id=ident,
            )
        else:
            kind = MaskedInput if (not info.repr or name in masked) else SafeInput
            widget = kind(
                "" if current is None else str(current),
                placeholder=placeholders.get(name, ""),
                compact=True,
                id=ident,
            )
        fields.append(Field(f"{prefix}-{name}", label, widget, info.description or ""))
    return fields


def read_model(form: FormScreen, model: type[BaseModel], prefix: str) -> dict[str, Any]:
    """What the fields of `model_inputs(model, prefix)` hold, blanks left out (the model says
    which of them it needs)."""
    result: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if is_literal(info.annotation):
            continue
        value = form.value(f"{prefix}-{name}")
        if value is not None and value != "":
            result[name] = value
    return result


def model_errors(
    error: ValidationError, prefix: str, known: Collection[str], *, depth: int = 0
) -> dict[str, str]:
    """The model's messages by form field: `loc[depth]` names the model field (`iban` ->
    `<prefix>-iban`); a message about no field of the form goes under `form`."""
    messages: dict[str, str] = {}
    for item in error.errors(include_input=False):
        loc = [str(part) for part in item.get("loc", ())]
        target = f"{prefix}-{loc[depth]}" if len(loc) > depth else ""
        name = target if target in known else "form"
        messages.setdefault(name, model_message(item))
    return messages


def model_message(item: Mapping[str, Any]) -> str:
    """One pydantic error as a person reads it under its field."""
    if item.get("type") == "missing":
        return "Required."
    message = str(item.get("msg", "is not valid")).removeprefix("Value error, ")
    return message[:1].upper() + message[1:]


def nested_inputs(model: type[BaseModel], prefix: str, *, fill: bool = False) -> list[Field]:
    """`model_inputs` through nested models too: a sub-model's fields are named
    `<prefix>-<field>-<sub field>`. The models' `examples` are the placeholders, or with
    `fill` the values (a local sandbox's examples succeed)."""
    scalar = {n: i for n, i in model.model_fields.items() if model_of(i.annotation) is None}
    examples = {n: str(i.examples[0]) for n, i in scalar.items() if i.examples}
    fields = model_inputs(
        model,
        prefix,
        placeholders={} if fill else examples,
        values=examples if fill else {},
    )
    fields = [f for f in fields if f.name.removeprefix(f"{prefix}-") in scalar]
    for name, info in model.model_fields.items():
        sub = model_of(info.annotation)
        if sub is not None:
            for field in nested_inputs(sub, f"{prefix}-{name}", fill=fill):
                field.label = f"{humanise(name)}: {field.label[:1].lower()}{field.label[1:]}"
                fields.append(field)
    return fields


def read_nested(form: FormScreen, model: type[BaseModel], prefix: str) -> dict[str, Any]:
    """What the fields of `nested_inputs(model, prefix)` hold, as the model takes it; a
    sub-model left all blank is left out."""
    result: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        sub = model_of(info.annotation)
        if sub is not None:
            value: Any = read_nested(form, sub, f"{prefix}-{name}")
        elif is_literal(info.annotation):
            continue
        else:
            value = form.value(f"{prefix}-{name}")
        if value not in (None, "", {}):
            result[name] = value
    return result


def nested_errors(error: ValidationError, prefix: str, known: Collection[str]) -> dict[str, str]:
    """The model's messages by field of `nested_inputs` (`info.card_network` ->
    `<prefix>-info-card_network`); a message about a sub-model as a whole goes under its first
    field shown, else under `form`."""
    messages: dict[str, str] = {}
    for item in error.errors(include_input=False):
        name = "-".join([prefix, *(str(part) for part in item.get("loc", ()))])
        if name not in known:
            name = next((k for k in sorted(known) if k.startswith(f"{name}-")), "form")
        messages.setdefault(name, model_message(item))
    return messages
