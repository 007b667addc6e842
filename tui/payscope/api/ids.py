"""The prefix each kind of the service's objects carries in its ids (`pay_...`: a payment).

Kept here once: find (`payscope.api.search`) reads a kind from an id by it, and each UI area
that lists a kind takes its records' prefix from it (`payscope.views.areas.Area.id_prefix`).
"""

from __future__ import annotations

# In the order find shows its hits.
ID_PREFIX: dict[str, str] = {
    "payment": "pay_",
    "refund": "ref_",
    "dispute": "dp_",
    "customer": "cus_",
    "payout": "payout_",
    "subscription": "sub_",
    "payment_link": "plink_",
    "event": "evt_",
}
