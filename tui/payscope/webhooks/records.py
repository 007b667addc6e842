"""What the listener's journal stores and answers with: an attempt as received (`Attempt`), what
storing it decided (`Recorded`), an event with its first delivery and its forwards (`EventDetail`),
and a forward's attempts and its state in the durable queue (`ForwardRecord`, `ForwardState`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

# A forward's states in `forward_queue`: owed (first attempt or a retry to come), done (a 2xx),
# given up (every retry failed until the forwarder's give-up age).
FORWARD_PENDING = "pending"
FORWARD_DELIVERED = "delivered"
FORWARD_FAILED = "failed"


class JournalError(RuntimeError):
    """The journal could not store something (disk full, file locked, closed)."""


@dataclass(slots=True)
class Attempt:
    """One HTTP delivery attempt as received, before it is stored (not changed afterwards).

    Not frozen: a frozen dataclass costs about a microsecond more to build, once per request.
    """

    received_at: float
    headers: dict[str, str]
    body: bytes
    verified: bool
    status: int
    reason: str | None = None
    event_id: str | None = None
    event_type: str | None = None
    object_id: str | None = None
    object_status: str | None = None
    # Where the event is to be forwarded: its forward is owed from the same commit on.
    forward_url: str | None = None


class Recorded(NamedTuple):
    """What the journal decided about an attempt once it was committed."""

    delivery_id: int
    duplicate: bool
    duplicate_count: int


@dataclass(frozen=True, slots=True)
class EventRecord:
    """A distinct event (one row per event_id), as listed newest first."""

    seq: int
    event_id: str
    event_type: str | None
    object_id: str | None
    object_status: str | None
    first_seen: float
    duplicates: int
    delivery_id: int


@dataclass(frozen=True, slots=True)
class ForwardRecord:
    """One re-POST of an event to the merchant's own server."""

    event_id: str
    url: str
    sent_at: float
    status: int | None
    body: str | None
    latency_ms: float | None
    error: str | None
    # The answer's headers (names in lower case); None when no answer came, or recorded
    # before payscope kept them.
    headers: dict[str, str] | None = None

    @property
    def delivered(self) -> bool:
        """True when the target answered 2xx."""
        return self.status is not None and 200 <= self.status < 300


@dataclass(frozen=True, slots=True)
class ForwardState:
    """Where an event's automatic forward stands (one row per forwarded event)."""

    event_id: str
    url: str
    state: str  # FORWARD_PENDING, FORWARD_DELIVERED or FORWARD_FAILED
    attempts: int
    accepted_at: float
    next_at: float | None  # when the next attempt is due (pending only)
    last_at: float | None
    last_status: int | None
    last_error: str | None


@dataclass(frozen=True, slots=True)
class OwedForward:
    """A pending forward with what sending it needs (the raw body and its signature)."""

    event_id: str
    event_type: str | None
    url: str
    attempts: int
    accepted_at: float
    next_at: float
    body: bytes
    signature: str | None


@dataclass(frozen=True, slots=True)
class ForwardOutcome:
    """One attempt of an automatic forward and the queue state it leaves (stored together)."""

    record: ForwardRecord
    state: str
    attempts: int
    next_at: float | None


@dataclass(frozen=True, slots=True)
class DeliveryRecord:
    """One stored delivery attempt, accepted or rejected, with what was received."""

    id: int
    received_at: float
    event_id: str | None
    headers: dict[str, str]
    body: bytes
    verified: bool
    reason: str | None
    duplicate: bool
    status: int
    # The length of the body as received when only a prefix of it was kept (rejected ones).
    body_length: int | None = None

    @property
    def truncated(self) -> bool:
        """True when `body` is only the first part of what was received."""
        return self.body_length is not None and self.body_length > len(self.body)


@dataclass(frozen=True, slots=True)
class EventDetail:
    """An event with the delivery that first brought it and every forward of it."""

    event: EventRecord
    delivery: DeliveryRecord
    forwards: list[ForwardRecord] = field(default_factory=list)
    # The automatic forward's state; None when the event was not to be forwarded.
    forward: ForwardState | None = None

    @property
    def headers(self) -> dict[str, str]:
        """The headers of the first accepted delivery, as received."""
        return self.delivery.headers

    @property
    def body(self) -> bytes:
        """The exact raw body that was verified."""
        return self.delivery.body

    @property
    def verified(self) -> bool:
        """Whether the signature matched (always true for a stored event)."""
        return self.delivery.verified
