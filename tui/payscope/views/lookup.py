"""An id field whose record is read as the id is typed (a refund's payment, a subscription's
customer): after a pause in the typing, and only for an id the service could hold."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from payscope.api.errors import NotFoundError
from payscope.views.ids import id_problem
from payscope.widgets.errors import describe_error

T = TypeVar("T")

# A pause this long in the typing reads the record (not every key).
LOOKUP_DELAY = 0.3


async def look_up_id(
    record_id: str, noun: str, read: Callable[[str], Awaitable[T]], hint: Callable[[str], object]
) -> T | None:
    """The record `record_id` names, read after a pause in the typing; None when there is none
    to read (a malformed id is said under the field on sending) or none was found, which
    `hint` (the field's hint line) then says, as it says any other failure."""
    await asyncio.sleep(LOOKUP_DELAY)
    if not record_id or id_problem(record_id, noun):
        return None
    try:
        return await read(record_id)
    except Exception as exc:
        if isinstance(exc, NotFoundError):
            hint(f"No {noun} has this id on this profile.")
        else:
            hint(": ".join(describe_error(exc)))
        return None
