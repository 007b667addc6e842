"""Saved payment methods and mandates, in the real service's shapes and routes.

    POST   /payment_methods                          save a method for a customer
    GET    /payment_methods/{id}                     retrieve it
    POST   /payment_methods/{id}/update              change a card's expiry, holder, nickname
    DELETE /payment_methods/{id}                     delete it (its mandates are revoked)
    GET    /customers/{customer_id}/payment_methods  the customer's methods, each with a
                                                     `payment_token` a confirm may send
    POST   /{customer_id}/payment_methods/{id}/default   make it the customer's default
    GET    /mandates/{id}, POST /mandates/revoke/{id}, GET /customers/{customer_id}/mandates

A payment saves its method when it is authorised with `setup_future_usage` and a customer; with
`setup_future_usage: off_session` and the customer's acceptance (`customer_acceptance`, or
`mandate_data.customer_acceptance`) it also creates an `active` mandate (event
`mandate_active`). A later payment sends `mandate_id` with `off_session: true` (required, as
the real service) and no method data: it is charged on the saved method, and answers as that
method's test value decides. A `single_use` mandate is revoked by its first charge (as the real
service does, without an event); revoking one gives `mandate_revoked`.

The full card number is never stored: what the card will do is decided when it is saved and
kept in `rule` (as payments keep `card_rule`).
"""

from payscope.sandbox.resource import Resource
from payscope.sandbox.resources._saved_methods import SCHEMA
from payscope.sandbox.resources.payment_methods.routes import router

RESOURCE = Resource(name="payment_methods", router=router, schema=SCHEMA)
