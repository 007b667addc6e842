"""The client of the payment service: typed calls, one namespace per area of the API.

    async with ApiClient("http://127.0.0.1:8080", "snd_...", profile_id="pro_...") as client:
        payment = await client.payments.create(PaymentCreateRequest(...))

Every call goes through `ApiClient.call` (or `request` for raw JSON), which `HttpCore`
(`payscope.api.http_core`) sends: headers, retries with backoff, error envelopes turned into
`payscope.api.errors` exceptions, rate-limit state, and one redacted journal entry per attempt.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from payscope.api.http_core import HttpCore

if TYPE_CHECKING:
    from payscope.api.resources.analytics import AnalyticsResource
    from payscope.api.resources.api_keys import ApiKeysResource
    from payscope.api.resources.customers import CustomersResource
    from payscope.api.resources.disputes import DisputesResource
    from payscope.api.resources.events import EventsResource
    from payscope.api.resources.payment_links import PaymentLinksResource
    from payscope.api.resources.payment_methods import MandatesResource, PaymentMethodsResource
    from payscope.api.resources.payments import PaymentsResource
    from payscope.api.resources.payouts import PayoutsResource
    from payscope.api.resources.profiles import ProfilesResource
    from payscope.api.resources.refunds import RefundsResource
    from payscope.api.resources.sandbox import SandboxResource
    from payscope.api.resources.subscriptions import SubscriptionsResource
    from payscope.api.resources.users import UsersResource

__all__ = ["ApiClient"]


class ApiClient(HttpCore):
    """Typed async access to the payment service (its arguments: `HttpCore`), an attribute
    per area of the API: `client.payments`, `client.refunds`, `client.sandbox`...
    """

    # Each resource is imported (with its models) on first use: importing the client is what a
    # start waits for before actions are usable (payscope.app.runtime), and the models of every
    # area would add about a tenth of a second to it for areas most runs never open.

    @cached_property
    def payments(self) -> PaymentsResource:
        """`payments` calls (tui/payscope/api/resources/payments.py)."""
        from payscope.api.resources.payments import PaymentsResource

        return PaymentsResource(self)

    @cached_property
    def customers(self) -> CustomersResource:
        """`customers` calls (tui/payscope/api/resources/customers.py)."""
        from payscope.api.resources.customers import CustomersResource

        return CustomersResource(self)

    @cached_property
    def payment_methods(self) -> PaymentMethodsResource:
        """Saved payment methods (tui/payscope/api/resources/payment_methods.py)."""
        from payscope.api.resources.payment_methods import PaymentMethodsResource

        return PaymentMethodsResource(self)

    @cached_property
    def mandates(self) -> MandatesResource:
        """Mandates (tui/payscope/api/resources/payment_methods.py)."""
        from payscope.api.resources.payment_methods import MandatesResource

        return MandatesResource(self)

    @cached_property
    def refunds(self) -> RefundsResource:
        """`refunds` calls (tui/payscope/api/resources/refunds.py)."""
        from payscope.api.resources.refunds import RefundsResource

        return RefundsResource(self)

    @cached_property
    def disputes(self) -> DisputesResource:
        """`disputes` calls (tui/payscope/api/resources/disputes.py)."""
        from payscope.api.resources.disputes import DisputesResource

        return DisputesResource(self)

    @cached_property
    def subscriptions(self) -> SubscriptionsResource:
        """`subscriptions` calls (tui/payscope/api/resources/subscriptions.py)."""
        from payscope.api.resources.subscriptions import SubscriptionsResource

        return SubscriptionsResource(self)

    @cached_property
    def payouts(self) -> PayoutsResource:
        """`payouts` calls (tui/payscope/api/resources/payouts.py)."""
        from payscope.api.resources.payouts import PayoutsResource

        return PayoutsResource(self)

    @cached_property
    def payment_links(self) -> PaymentLinksResource:
        """`payment_links` calls (tui/payscope/api/resources/payment_links.py)."""
        from payscope.api.resources.payment_links import PaymentLinksResource

        return PaymentLinksResource(self)

    @cached_property
    def analytics(self) -> AnalyticsResource:
        """`analytics` calls (tui/payscope/api/resources/analytics.py)."""
        from payscope.api.resources.analytics import AnalyticsResource

        return AnalyticsResource(self)

    @cached_property
    def users(self) -> UsersResource:
        """`users` calls (tui/payscope/api/resources/users.py)."""
        from payscope.api.resources.users import UsersResource

        return UsersResource(self)

    @cached_property
    def events(self) -> EventsResource:
        """`events` calls (tui/payscope/api/resources/events.py)."""
        from payscope.api.resources.events import EventsResource

        return EventsResource(self)

    @cached_property
    def profiles(self) -> ProfilesResource:
        """`profiles` calls (tui/payscope/api/resources/profiles.py)."""
        from payscope.api.resources.profiles import ProfilesResource

        return ProfilesResource(self)

    @cached_property
    def api_keys(self) -> ApiKeysResource:
        """`api_keys` calls (tui/payscope/api/resources/api_keys.py)."""
        from payscope.api.resources.api_keys import ApiKeysResource

        return ApiKeysResource(self)

    @cached_property
    def sandbox(self) -> SandboxResource:
        """`sandbox` calls (tui/payscope/api/resources/sandbox.py)."""
        from payscope.api.resources.sandbox import SandboxResource

        return SandboxResource(self)
