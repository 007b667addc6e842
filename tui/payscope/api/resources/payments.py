"""`client.payments`: create, update, confirm, retrieve, list, capture, cancel, approve, reject.

The list goes as the contract the client speaks has it: `POST /payments/list` with a filter body
and offset paging to a service following the spec (the local sandbox); `GET /payments/list`
with query parameters and cursor paging (`starting_after`) to the real service, whose answer
`{size, data}` has no total. An "auto" client that has not told the contracts apart asks once
(`ApiClient.probe_contract`) before its first list.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from payscope.api import errors
from payscope.api.models.common import parse_timestamp
from payscope.api.models.payments import (
    Payment,
    PaymentCancelRequest,
    PaymentCaptureRequest,
    PaymentConfirmRequest,
    PaymentCreateRequest,
    PaymentListRequest,
    PaymentListResponse,
    PaymentUpdateRequest,
)
from payscope.api.resources._base import Caller, Resource, body_of, seg
from payscope.api.retry import Replay

# What the real service's GET /payments/list filters by (besides its cursor and `limit`);
# `payment_id` is read with GET /payments/{payment_id} instead. Anything else a request
# filters by (status, currency, amount, payment method, order) is refused, nothing sent:
# the Payments view matches those itself over the newest payments.
REAL_LIST_FILTERS = frozenset({"customer_id", "created_gte", "created_lte", "payment_id"})
# Pages of 100 read forward at most to find the cursor of a page whose predecessor was not
# read (the real service has no offset).
WALK_PAGES = 10
_WALK_LIMIT = 100
# The ids remembered per filter (their positions are the offsets), for so many filters.
_REMEMBERED_IDS = 20_000
_REMEMBERED_FILTERS = 16
_Ids = list[str]  # (`list` is a method's name in the class)


class PageOutOfReachError(errors.ConfigurationError):
    """A page of the real service's payments list too far past the pages read so far: it pages
    by cursor, so a page is found by reading the pages before it (nothing more was sent)."""

    def __init__(self, offset: int, reached: int) -> None:
        self.offset = offset
        self.reached = reached
        super().__init__(offset, reached)

    def __str__(self) -> str:
        return (
            f"The real service pages its payments list by cursor (starting_after the last "
            f"payment of the page before), so payment {self.offset + 1:,} can only be reached "
            f"by reading every page before it; payscope read {WALK_PAGES} pages ahead "
            f"({self.reached:,} payments) and stopped there.\nWhat to do: page forward from "
            "the pages read, or narrow the list (customer, from:/to: dates)."
        )


class UnsupportedFilterError(errors.ConfigurationError):
    """A list filter the real service's GET /payments/list does not take (nothing was sent)."""

    def __init__(self, fields: list[str]) -> None:
        self.fields = fields
        super().__init__(fields)

    def __str__(self) -> str:
        return (
            "The real service's GET /payments/list cannot filter by "
            f"{', '.join(self.fields)}; nothing was sent.\nWhat to do: filter by customer_id "
            "and created time there, and match the rest over the payments it answers."
        )


class PaymentsResource(Resource):
    """Payments. A decline is not an exception: it is a `Payment` with `status == "failed"`
    and a `unified_code`, returned normally."""

    def __init__(self, client: Caller) -> None:
        super().__init__(client)
        # The real service's list, per filter: the ids of the payments read so far in their
        # order (the id at position n - 1 is the cursor of the page at offset n).
        self._seen: OrderedDict[tuple[tuple[str, str], ...], _Ids] = OrderedDict()

    async def create(self, request: PaymentCreateRequest) -> Payment:
        """POST /payments.

        With a merchant `payment_id` the creation is retried on transient failures, and a
        retry answered `HE_01` (the earlier attempt went through) returns
        `GET /payments/{payment_id}`: the caller sees exactly one payment. Without a
        `payment_id` each attempt would create a new payment, so it is only repeated when the
        service cannot have seen it (connect error, 429, 503).
        """
        body = body_of(request)
        if body.get("profile_id") is None and self._client.profile_id:
            body["profile_id"] = self._client.profile_id
        payment_id = body.get("payment_id")
        if payment_id:
            return await self._client.call(
                "POST",
                "/payments",
                Payment,
                body=body,
                replay=Replay.KEYED,
                resolve_duplicate=f"/payments/{seg(str(payment_id))}",
            )
        return await self._client.call(
            "POST", "/payments", Payment, body=body, replay=Replay.UNSAFE
        )

    async def update(self, payment_id: str, request: PaymentUpdateRequest) -> Payment:
        """POST /payments/{payment_id}: change a payment that is not confirmed yet."""
        return await self._client.call(
            "POST", f"/payments/{seg(payment_id)}", Payment, body=body_of(request)
        )

    async def confirm(
        self, payment_id: str, request: PaymentConfirmRequest | None = None
    ) -> Payment:
        """POST /payments/{payment_id}/confirm: authorise with the payment method."""
        return await self._client.call(
            "POST", f"/payments/{seg(payment_id)}/confirm", Payment, body=body_of(request)
        )

    async def retrieve(self, payment_id: str) -> Payment:
        """GET /payments/{payment_id} (unknown ids raise `NotFoundError`, IR_05)."""
        return await self._client.call("GET", f"/payments/{seg(payment_id)}", Payment)

    async def list(self, request: PaymentListRequest | None = None) -> PaymentListResponse:
        """A page of payments, newest first: POST /payments/list with the filter body (the
        spec), or GET /payments/list with the query the real service takes (`_list_real`)."""
        request = request or PaymentListRequest()
        client = self._client
        if client.contract_setting == "auto":
            await client.probe_contract()
        if client.contract == "real":
            return await self._list_real(request)
        return await client.call(
            "POST", "/payments/list", PaymentListResponse, body=body_of(request), replay=Replay.SAFE
        )

    # -- the real service's list: a query and cursors --------------------------------------------

    async def _list_real(self, request: PaymentListRequest) -> PaymentListResponse:
        """GET /payments/list?limit=&customer_id=&created_gte=&created_lte=&starting_after=.

        The request's `offset` becomes a cursor: the id of the payment just before it, as
        read by the pages of the same filters fetched before (each page read is remembered).
        A page further than the ones read is found by reading forward, `WALK_PAGES` pages of
        100 at most (else `PageOutOfReachError`); past the last payment the page is empty.
        A whole `payment_id` is read with GET /payments/{payment_id}. Other filters raise
        `UnsupportedFilterError` (nothing is sent). The answer has no total (`total_count`
        None)."""
        body = body_of(request)
        limit = int(body.pop("limit", 10))
        offset = int(body.pop("offset", 0))
        unsupported = sorted(name for name in body if name not in REAL_LIST_FILTERS)
        if unsupported:
            raise UnsupportedFilterError(unsupported)
        payment_id = body.pop("payment_id", None)
        query = {name: str(value) for name, value in body.items()}
        if payment_id is not None:
            return await self._one_real(str(payment_id), query, offset)
        key = tuple(sorted(query.items()))
        seen = self._seen.setdefault(key, [])
        self._seen.move_to_end(key)
        while len(self._seen) > _REMEMBERED_FILTERS:
            self._seen.popitem(last=False)
        cursor: str | None = None
        if offset > 0:
            if offset > len(seen) and not await self._walk(query, seen, offset):
                return PaymentListResponse(data=[])  # the list ends before this offset
            cursor = seen[offset - 1]
        page = await self._get_page(query, limit, cursor)
        del seen[offset:]
        seen.extend(p.payment_id for p in page.data)
        del seen[_REMEMBERED_IDS:]
        return page

    async def _walk(self, query: dict[str, str], seen: _Ids, offset: int) -> bool:
        """Read forward until the payment before `offset` is known; False: the list ends
        before it. `PageOutOfReachError` past `WALK_PAGES` pages."""
        for _ in range(WALK_PAGES):
            page = await self._get_page(query, _WALK_LIMIT, seen[-1] if seen else None)
            seen.extend(p.payment_id for p in page.data)
            if len(seen) >= offset:
                return True
            if len(page.data) < _WALK_LIMIT:
                return False
        raise PageOutOfReachError(offset, len(seen))

    async def _get_page(
        self, query: dict[str, str], limit: int, cursor: str | None
    ) -> PaymentListResponse:
        params: dict[str, Any] = {"limit": limit, **query}
        if cursor is not None:
            params["starting_after"] = cursor
        data = await self._client.request("GET", "/payments/list", params=params)
        if (
            isinstance(data, list)
            and len(data) == 1
            and isinstance(data[0], dict)
            and {"size", "data"} <= data[0].keys()
        ):
            data = data[0]  # the real document declares the answer an array of `{size, data}`
        page: PaymentListResponse = await self._client.validated(
            PaymentListResponse, data, "GET", "/payments/list"
        )
        return page

    async def _one_real(
        self, payment_id: str, query: dict[str, str], offset: int
    ) -> PaymentListResponse:
        """The list filtered by a whole payment id: that payment when it exists and matches
        the other filters (the real list route has no payment_id)."""
        if offset > 0:
            return PaymentListResponse(data=[])
        try:
            payment = await self.retrieve(payment_id)
        except errors.NotFoundError:
            return PaymentListResponse(data=[])
        if not _matches(payment, query):
            return PaymentListResponse(data=[])
        return PaymentListResponse(data=[payment])

    async def capture(
        self, payment_id: str, request: PaymentCaptureRequest | None = None
    ) -> Payment:
        """POST /payments/{payment_id}/capture (the full capturable amount by default)."""
        return await self._client.call(
            "POST", f"/payments/{seg(payment_id)}/capture", Payment, body=body_of(request)
        )

    async def cancel(self, payment_id: str, request: PaymentCancelRequest | None = None) -> Payment:
        """POST /payments/{payment_id}/cancel: void an authorisation or an unconfirmed payment."""
        return await self._client.call(
            "POST", f"/payments/{seg(payment_id)}/cancel", Payment, body=body_of(request)
        )

    async def approve(self, payment_id: str) -> Payment:
        """POST /payments/{payment_id}/approve: release a payment held for manual review."""
        return await self._client.call("POST", f"/payments/{seg(payment_id)}/approve", Payment)

    async def reject(self, payment_id: str) -> Payment:
        """POST /payments/{payment_id}/reject: refuse a held payment (the customer is not
        charged)."""
        return await self._client.call("POST", f"/payments/{seg(payment_id)}/reject", Payment)


def _matches(payment: Payment, query: dict[str, str]) -> bool:
    """A payment read by id against the customer and created filters of a list."""
    wanted_customer = query.get("customer_id")
    if wanted_customer is not None and payment.customer_id != wanted_customer:
        return False
    if "created_gte" not in query and "created_lte" not in query:
        return True
    if not payment.created:
        return False
    try:
        created = parse_timestamp(payment.created)
        low, high = query.get("created_gte"), query.get("created_lte")
        if low is not None and created < parse_timestamp(low):
            return False
        return high is None or created <= parse_timestamp(high)
    except ValueError:
        return True  # a time payscope cannot read: the service's answer is kept
