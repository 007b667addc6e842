"""Base classes shared by every request and response model.

Responses keep fields they do not know: the real service sends more than the spec shows, and
dropping them would hide data from the user and from round trips. Requests accept extra
fields for the same reason (the sandbox must not refuse what the real service takes), but the
names the spec forbids outright are refused with a message pointing at the right one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

__all__ = ["RequestModel", "ResponseModel", "field_error", "raise_field_errors"]


def field_error(
    loc: str | tuple[str | int, ...],
    error_type: str,
    message: str,
    value: Any = None,
) -> InitErrorDetails:
    """One validation error located at `loc`, for `raise_field_errors`.

    Use `error_type="missing"` for "this field is required here" (the sandbox answers IR_01)
    and any other type for "this value is not allowed" (IR_04). `message` is shown as is, so
    braces in it are escaped here.
    """
    location = (loc,) if isinstance(loc, str) else loc
    template = message.replace("{", "{{").replace("}", "}}")
    return InitErrorDetails(
        type=PydanticCustomError(error_type, template),
        loc=location,
        input=value,
    )


def raise_field_errors(model: type[BaseModel], errors: Iterable[InitErrorDetails]) -> None:
    """Raise a `ValidationError` for `model` holding `errors`, if there are any.

    Raised from a model validator, the errors keep their own `loc` (pydantic prefixes the
    parent's path when the model is nested), unlike a plain `ValueError` that lands on the model.
    """
    found = list(errors)
    if found:
        raise ValidationError.from_exception_data(model.__name__, found)


# `defer_build`: a model's validator is built the first time it validates, not at import. The
# models of every area load with the client's first call, and building all their validators
# then (about 0.1 s) held back a start's first calls; most are never used in a given run.


class ResponseModel(BaseModel):
    """A body the service returns. Unknown fields are accepted and kept for round trips."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)


class RequestModel(BaseModel):
    """A body sent to the service. Validates what the spec constrains, passes the rest through.

    Error texts leave out the raw input (requests carry card numbers and secrets); the messages
    of this package name the value themselves where it is safe. Consumers that serialise
    `exc.errors()` should pass `include_input=False` for the same reason.
    """

    model_config = ConfigDict(
        extra="allow", populate_by_name=True, hide_input_in_errors=True, defer_build=True
    )

    # wrong name -> the name to use instead; refused before anything else is checked
    wrong_names: ClassVar[Mapping[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _refuse_wrong_names(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and cls.wrong_names:
            raise_field_errors(
                cls,
                (
                    field_error(
                        name,
                        "wrong_field_name",
                        f"'{name}' is not a field the service reads: send it as '{right}'",
                        data[name],
                    )
                    for name, right in cls.wrong_names.items()
                    if name in data
                ),
            )
        return data

    def to_body(self) -> dict[str, Any]:
        """The JSON body to send: aliases applied, unset (None) fields left out."""
        return self.model_dump(mode="json", exclude_none=True, by_alias=True)
