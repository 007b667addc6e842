"""The customer forms: new, edit (only what changed is sent) and the delete confirmation.

Fields are checked by the API's own models (`CustomerCreateRequest`, `CustomerUpdateRequest`),
and each refusal is said under the field it is about, the address's parts included.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from payscope.api.models.customers import Customer, CustomerCreateRequest, CustomerUpdateRequest
from payscope.views.forms import (
    ConfirmScreen,
    Field,
    FormErrors,
    FormScreen,
    Req,
    Res,
    metadata_field,
    parse_metadata,
    read_metadata,
)
from payscope.widgets.inputs import SafeInput
from payscope.widgets.text import visible

# The request model a form's fields are checked by.
Model = TypeVar("Model", bound=BaseModel)
# Form field -> what it is called on the submit button of the edit form.
TEXT_FIELDS = {
    "name": "name",
    "email": "e-mail",
    "phone_country_code": "phone",
    "phone": "phone",
    "description": "description",
}
ADDRESS_FIELDS = ("line1", "line2", "city", "state", "zip", "country")
# Fields the models refuse empty: an edit cannot take them away, only change them.
NOT_REMOVABLE = {
    "email": "An e-mail address cannot be removed, only changed: type the new one.",
    "phone_country_code": "A country code cannot be removed, only changed (+1, +44).",
}


def initial_values(customer: Customer | None) -> dict[str, str]:
    """What each text field starts with: the customer's values (control characters shown, never
    obeyed), or nothing for a new customer."""
    if customer is None:
        return {}
    values = {name: visible(getattr(customer, name, None) or "").strip() for name in TEXT_FIELDS}
    address = customer.address
    parts = address if isinstance(address, dict) else (address.model_dump() if address else {})
    values |= {part: visible(parts.get(part) or "").strip() for part in ADDRESS_FIELDS}
    return values


def model_errors(error: ValidationError) -> dict[str, str]:
    """pydantic errors -> {form field: message}; an address part is its own field."""
    messages: dict[str, str] = {}
    for item in error.errors(include_input=False):
        loc = [str(part) for part in item.get("loc", ())]
        # ("address", "country") is the country field; ("email",) the e-mail field.
        name = loc[1] if loc[:1] == ["address"] and len(loc) > 1 else (loc or ["form"])[0]
        message = str(item.get("msg", "is not valid")).removeprefix("Value error, ")
        messages.setdefault(name, message)
    return messages


class CustomerForm(FormScreen[Req, Res]):
    """The fields of a customer, checked by the API's models before anything is sent."""

    def __init__(self, customer: Customer | None = None) -> None:
        super().__init__()
        self.customer = customer
        self.initial = initial_values(customer)

    def _input(
        self, name: str, label: str, hint: str = "", placeholder: str = "", group: str = ""
    ) -> Field:
        widget = SafeInput(self.initial.get(name, ""), placeholder=placeholder, id=f"field-{name}")
        return Field(name, label, widget, hint, group)

    def fields(self) -> list[Field]:
        metadata = self.customer.metadata if self.customer is not None else None
        return [
            self._input("name", "Name", placeholder="Ada Lovelace"),
            self._input("email", "Email", placeholder="ada@example.com"),
            self._input(
                "phone_country_code", "Phone country code", "A plus and 1 to 4 digits.", "+44"
            ),
            self._input("phone", "Phone", placeholder="20 7946 0958"),
            self._input("description", "Description"),
            metadata_field(
                "metadata",
                "Metadata",
                metadata,
                "One key=value a line (or a JSON object): your references, never secrets or "
                "card data.",
            ),
            *self.id_fields(),
            self._input("line1", "Line 1", placeholder="1 Analytical Row", group="Address"),
            self._input("line2", "Line 2", group="Address"),
            self._input("city", "City", placeholder="London", group="Address"),
            self._input("state", "State or region", group="Address"),
            self._input("zip", "Postal code", group="Address"),
            self._input("country", "Country", "Two letters: GB, US, DE.", "GB", group="Address"),
        ]

    def id_fields(self) -> list[Field]:
        """Fields only a new customer has (its own id)."""
        return []

    def text(self, name: str) -> str:
        """A field's text as typed, trimmed ("" when blank)."""
        return str(self.value(name) or "")

    def address(self) -> dict[str, str]:
        """The address parts typed (blank ones left out)."""
        return {part: self.text(part) for part in ADDRESS_FIELDS if self.text(part)}

    def check(self, model: type[Model], body: dict[str, Any], errors: dict[str, str]) -> Model:
        """`body` validated by the API's `model`; every problem found raises, at its field."""
        request = None
        try:
            request = model.model_validate(body)
        except ValidationError as exc:
            errors = {**model_errors(exc), **errors}
        if errors or request is None:
            raise FormErrors(errors)
        return request


class NewCustomerForm(CustomerForm[CustomerCreateRequest, Customer]):
    """Create a customer; every field is optional."""

    title_text = "New customer"
    intro = "Every field is optional. What the service refuses is said under its field."
    submit_label = "Create customer"

    def id_fields(self) -> list[Field]:
        return [
            self._input(
                "customer_id",
                "Customer id (optional)",
                "Left empty, the service makes one.",
                "your own id, such as cus_ada",
            )
        ]

    def build(self) -> CustomerCreateRequest:
        errors: dict[str, str] = {}
        body: dict[str, Any] = {name: self.text(name) for name in TEXT_FIELDS if self.text(name)}
        if self.address():
            body["address"] = self.address()
        metadata = read_metadata(self, "metadata", errors)
        if metadata:
            body["metadata"] = metadata
        if self.text("customer_id"):
            body["customer_id"] = self.text("customer_id")
        return self.check(CustomerCreateRequest, body, errors)

    async def send(self, request: CustomerCreateRequest) -> Customer:
        return await self.client.customers.create(request)


class EditCustomerForm(CustomerForm[CustomerUpdateRequest, Customer]):
    """Change a customer: only the fields changed here are sent (the others stay as they are)."""

    title_text = "Edit customer"
    submit_label = "Save"

    customer: Customer

    def __init__(self, customer: Customer) -> None:
        super().__init__(customer)
        self.intro = (
            f"{customer.customer_id}: only what you change is sent. An emptied field is "
            "cleared; a changed address or metadata replaces the old one whole."
        )

    def changed(self) -> list[str]:
        """The fields that differ from what the customer has (metadata: as read)."""
        found = [
            name
            for name in (*TEXT_FIELDS, *ADDRESS_FIELDS)
            if self.text(name) != self.initial.get(name, "")
        ]
        try:
            metadata = parse_metadata(self.text("metadata"))
        except ValueError:
            metadata = None  # a mistake in it is a change (said when sent)
        if metadata != (self.customer.metadata or {}):
            found.append("metadata")
        return found

    def submit_text(self) -> str | None:
        changed = self.changed()
        if not changed:
            return "Nothing changed yet"
        what = list(
            dict.fromkeys(
                TEXT_FIELDS.get(name, "address" if name in ADDRESS_FIELDS else name)
                for name in changed
            )
        )
        return f"Save {' and '.join(what)}" if len(what) <= 2 else f"Save {len(what)} changes"

    def build(self) -> CustomerUpdateRequest:
        changed = self.changed()
        if not changed:
            raise FormErrors({"form": "Nothing changed yet: edit a field, or Esc closes."})
        errors: dict[str, str] = {}
        body: dict[str, Any] = {}
        for name in TEXT_FIELDS:
            if name not in changed:
                continue
            if not self.text(name) and name in NOT_REMOVABLE:
                errors[name] = NOT_REMOVABLE[name]
            body[name] = self.text(name)  # "" clears it
        if any(part in changed for part in ADDRESS_FIELDS):
            body["address"] = self.address()  # the whole address: the service replaces it
        if "metadata" in changed:
            body["metadata"] = read_metadata(self, "metadata", errors) or {}
        return self.check(CustomerUpdateRequest, body, errors)

    async def send(self, request: CustomerUpdateRequest) -> Customer:
        return await self.client.customers.update(self.customer.customer_id, request)


def delete_confirmation(customer: Customer, do: Callable[[], Awaitable[object]]) -> ConfirmScreen:
    """Delete a customer: says who, and that its past payments keep their customer_id."""
    customer_id = customer.customer_id
    who = customer.name or customer.email
    named = f"{who} ({customer_id})" if who else customer_id
    intro = (
        f"Delete {named}?\n\n"
        f"Its past payments keep customer_id {customer_id}: they stay in Payments, where "
        f"customer:{customer_id} still finds them. The customer record, its address and saved "
        "payment methods are removed; this cannot be undone."
    )
    return ConfirmScreen("Delete customer", intro, "Delete customer", do, variant="error")
