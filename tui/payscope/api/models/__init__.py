"""pydantic v2 models for every object of the payment service, one module per resource.

Import from the resource module (`from payscope.api.models.payments import Payment`); this package
imports nothing itself so that loading one model stays cheap.

- `_base`: `ResponseModel` (unknown fields kept) and `RequestModel` (`to_body()`).
- `_iso`: ISO 4217 currencies with minor units, ISO 3166-1 alpha-2 countries.
- `common`: `Amount`, `Currency`, `CountryCode`, `PaymentIdStr`, `Address`, `Billing`, ...
- `card_fields`: a card as a request carries it (`CardData`, `CardNumber`, ...).
- `errors`: the error envelope. `payments`, `customers`, `refunds`, `disputes`,
  `subscriptions`, `payouts`, `links`, `analytics`, `users`, `events`, `profiles`, `api_keys`.
- `payout_methods`: a payout's `payout_method_data` and its variants; `real_payouts`: the real
  service's names for them.
"""
