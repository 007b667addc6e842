"""`client.payment_methods` and `client.mandates` over real HTTP against the sandbox: save,
list with tokens, pay by token, set the default, a mandate's recurring charge, revoke."""

from __future__ import annotations

from pathlib import Path

import pytest

from payscope.api.errors import ApiError
from payscope.api.models.customers import CustomerCreateRequest
from payscope.api.models.payment_methods import (
    PaymentMethodCreateRequest,
    PaymentMethodUpdateRequest,
)
from payscope.api.models.payments import PaymentConfirmRequest, PaymentCreateRequest
from tests.sandbox.conftest import api_client, card, make_sandbox, payment_body


async def test_client_saved_methods_and_mandates(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb")
    url = await box.start()
    api = api_client(box, base_url=url)
    try:
        cus = (await api.customers.create(CustomerCreateRequest(name="Ada"))).customer_id
        saved = await api.payment_methods.create(
            PaymentMethodCreateRequest.model_validate(
                {"payment_method": "card", "customer_id": cus, "card": card("5555555555554444")}
            )
        )
        assert saved.card is not None and saved.card.last4_digits == "4444"
        updated = await api.payment_methods.update(
            saved.payment_method_id,
            PaymentMethodUpdateRequest.model_validate({"card": {"nick_name": "spare"}}),
        )
        assert updated.card is not None and updated.card.nick_name == "spare"
        listed = await api.payment_methods.list_for_customer(cus)
        [entry] = listed.customer_payment_methods
        assert entry.default_payment_method_set and entry.payment_token

        draft = await api.payments.create(
            PaymentCreateRequest(amount=800, currency="USD", confirm=False, customer_id=cus)
        )
        paid = await api.payments.confirm(
            draft.payment_id,
            PaymentConfirmRequest(payment_method="card", payment_token=entry.payment_token),
        )
        assert paid.status == "succeeded"
        assert paid.model_extra is not None
        assert paid.model_extra["payment_method_id"] == saved.payment_method_id

        setup = await api.payments.create(
            PaymentCreateRequest.model_validate(
                payment_body(
                    customer_id=cus,
                    setup_future_usage="off_session",
                    customer_acceptance={"acceptance_type": "offline"},
                )
            )
        )
        mandate_id = str(setup.mandate_id)
        assert (await api.mandates.retrieve(mandate_id)).status == "active"
        assert [m.mandate_id for m in await api.mandates.list_for_customer(cus)] == [mandate_id]
        second = (setup.model_extra or {})["payment_method_id"]
        made_default = await api.payment_methods.set_default(cus, second)
        assert made_default["default_payment_method_id"] == second
        charged = await api.payments.create(
            PaymentCreateRequest(
                amount=500,
                currency="USD",
                confirm=True,
                customer_id=cus,
                mandate_id=mandate_id,
                off_session=True,
            )
        )
        assert charged.status == "succeeded"
        assert (await api.mandates.revoke(mandate_id))["status"] == "revoked"
        with pytest.raises(ApiError) as refused:
            await api.payments.create(
                PaymentCreateRequest(
                    amount=500,
                    currency="USD",
                    confirm=True,
                    customer_id=cus,
                    mandate_id=mandate_id,
                    off_session=True,
                )
            )
        assert refused.value.status == 400 and "revoked" in str(refused.value)
        deleted = await api.payment_methods.delete(saved.payment_method_id)
        assert deleted == {"payment_method_id": saved.payment_method_id, "deleted": True}
    finally:
        await api.aclose()
        await box.stop()
