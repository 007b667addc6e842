"""The request journal: every request the client sends and what came back, secrets removed.

Redaction happens before anything is stored, so no entry, subscriber, screen or curl export can
leak a secret:

- headers `api-key`, `Authorization`, `Cookie`, `Set-Cookie` and the like are replaced;
- in JSON bodies, at any depth: card numbers keep their last four digits, the CVC goes (a
  public test card, as `public_card` says, is kept whole with its CVC: it is no secret, and a
  copied curl then runs as copied), and `api_key`, `client_secret`,
  `payment_response_hash_key`, webhook secrets, `password` and `totp` values are replaced;
- in any text (headers, bodies that are not JSON, JSON string values): key-shaped strings
  (`snd_`, `prd_`, `pk_snd_`, `pk_prd_` followed by key characters), the client's own key, and
  runs of 13-19 digits that pass the Luhn check (card numbers) are masked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import shlex
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from payscope.api.cards import luhn_ok
from payscope.api.secret_fields import SECRET_ENDINGS, SECRET_FIELDS, is_secret_field
from payscope.core import bounded

log = logging.getLogger(__name__)

REDACTED = "[REDACTED]"
CURL_KEY_VARIABLE = "PAYSCOPE_API_KEY"

_SECRET_HEADERS = frozenset(
    {"api-key", "x-api-key", "authorization", "proxy-authorization", "cookie", "set-cookie"}
)
_CARD_NUMBER_FIELDS = frozenset(
    {"card_number", "dpan", "application_primary_account_number", "network_token"}
)
_CVC_FIELDS = frozenset({"card_cvc", "cvc", "cvv", "card_cvv", "cvc2", "security_code"})
# One list for the journal and the exports (tui/payscope/api/secret_fields.py).
_SECRET_FIELDS = SECRET_FIELDS
_KEY_PATTERN = re.compile(r"(?<![A-Za-z0-9])((?:pk_)?(?:snd|prd)_)[A-Za-z0-9_\-]{6,}")
_DIGIT_RUN = re.compile(r"(?<!\d)\d{13,19}(?!\d)")
# Anything a redaction rule could touch contains one of these; most bodies contain none, and
# they are stored without being parsed (this runs on every request and answer).
_SUSPECT = re.compile(
    "|".join(
        [
            *sorted(map(re.escape, _CARD_NUMBER_FIELDS | _CVC_FIELDS | _SECRET_FIELDS)),
            *("secret", "password", "snd_", "prd_", r"\d{13}"),
        ]
    ),
    re.IGNORECASE,
)
# Bodies above this size are stored cut, so a long session cannot fill memory with list pages.
MAX_STORED_BODY = 64 * 1024


_CARD_SEPARATORS = " -"


def mask_key(key: str) -> str:
    """A key as it may be shown to a person: its kind prefix and last four characters."""
    match = re.match(r"(pk_)?(snd|prd)_", key)
    prefix = match.group(0) if match else ""
    tail = key[-4:] if len(key) - len(prefix) >= 8 else ""
    return f"{prefix}...{tail}"


def _mask_card(value: str) -> str:
    digits = "".join(ch for ch in value if ch.isdigit())
    if len(digits) < 8:
        return REDACTED
    return "*" * (len(digits) - 4) + digits[-4:]


class Redactor:
    """Removes secrets from headers, JSON bodies and free text (see the module docstring)."""

    def __init__(
        self, secrets: Iterable[str] = (), public_card: Callable[[str], bool] | None = None
    ) -> None:
        self._secrets: set[str] = set()
        # Which card numbers are public test cards (kept whole); None: every number is masked.
        self._public_card = public_card
        self._header_cache: dict[str, str] = {}
        for secret in secrets:
            self.add_secret(secret)

    def add_secret(self, secret: str) -> None:
        """Also mask this exact string wherever it appears (e.g. a key that is not key-shaped)."""
        if len(secret) >= 4:
            self._secrets.add(secret)
            self._header_cache.clear()

    def text(self, value: str) -> str:
        """Mask keys, known secrets and card numbers in free text."""
        if "snd_" in value or "prd_" in value:
            value = _KEY_PATTERN.sub(lambda m: m.group(1) + REDACTED, value)
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        if _DIGIT_RUN.search(value):
            value = _DIGIT_RUN.sub(
                lambda m: (
                    _mask_card(m.group(0))
                    if luhn_ok(m.group(0)) and not self.public(m.group(0))
                    else m.group(0)
                ),
                value,
            )
        return value

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        """Headers with secret ones replaced; later duplicates are joined with a comma."""
        out: dict[str, str] = {}
        cache = self._header_cache
        for name, value in headers:
            lowered = name.lower()
            if lowered in _SECRET_HEADERS:
                clean = REDACTED
            else:
                # Header values repeat from request to request; this is on every call's path.
                cached = cache.get(value)
                if cached is None:
                    if len(cache) >= 1024:
                        cache.clear()
                    cached = cache[value] = self.text(value)
                clean = cached
            out[lowered] = f"{out[lowered]}, {clean}" if lowered in out else clean
        return out

    def public(self, number: Any) -> bool:
        """Whether `number` is a public test card (kept whole, with its CVC)."""
        if self._public_card is None or not isinstance(number, str | int):
            return False
        text = str(number)
        if not text or text.strip(_CARD_SEPARATORS + "0123456789"):
            return False
        return self._public_card("".join(ch for ch in text if ch.isdigit()))

    def json_value(self, value: Any) -> Any:
        """A copy of a decoded JSON value with secret fields masked at any depth."""
        if isinstance(value, dict):
            # A public test card: its number, and the CVC beside it, are no secret.
            test_card = any(
                str(k).lower() in _CARD_NUMBER_FIELDS and self.public(v) for k, v in value.items()
            )
            if test_card:
                return {
                    k: v if self._kept(str(k), v) else self._field(str(k), v)
                    for k, v in value.items()
                }
            return {k: self._field(str(k), v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json_value(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        return value

    def _kept(self, name: str, value: Any) -> bool:
        # Beside a public test card's number: the number itself and a plain CVC stay.
        lowered = name.lower()
        if lowered in _CARD_NUMBER_FIELDS:
            return self.public(value)
        return lowered in _CVC_FIELDS and isinstance(value, str | int)

    def _field(self, name: str, value: Any) -> Any:
        lowered = name.lower()
        if value is None:
            return None
        if lowered in _CARD_NUMBER_FIELDS and isinstance(value, str | int):
            return _mask_card(str(value))
        if lowered in _CVC_FIELDS or is_secret_field(lowered):
            return REDACTED if isinstance(value, str | int | float) else self._scrub(value)
        return self.json_value(value)

    def _scrub(self, value: Any) -> Any:
        # A secret field holding a structure: keep the shape, drop every leaf.
        if isinstance(value, dict):
            return {k: self._scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub(v) for v in value]
        return None if value is None else REDACTED

    def body(self, raw: bytes | str | None, content_type: str = "") -> str | None:
        """A request or response body as redacted text (JSON re-serialised compactly).

        Only what is kept is read: a body over `MAX_STORED_BODY` is cut to that prefix before
        anything else, and the prefix (no longer whole JSON) is redacted as text, with the
        values of secret fields masked by name as well."""
        if raw is None:
            return None
        if len(raw) > MAX_STORED_BODY:
            return self._prefix(raw)
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        if not text:
            return ""
        if not _SUSPECT.search(text) and not any(secret in text for secret in self._secrets):
            return _cap(text)
        stripped = text.lstrip()
        if "json" in content_type or stripped[:1] in ("{", "["):
            try:
                decoded = bounded.loads_json(text)
            except ValueError:  # not JSON, or nested too deeply to walk: masked as text
                pass
            else:
                text = json.dumps(self.json_value(decoded), ensure_ascii=False)
                return _cap(text)
        return _cap(self.text(text))

    def _prefix(self, raw: bytes | str) -> str:
        left = len(raw) - MAX_STORED_BODY
        head = raw[:MAX_STORED_BODY]
        text = head.decode("utf-8", errors="replace") if isinstance(head, bytes) else head
        # A secret cut in two at the end must not show its first half: drop a last partial
        # token (letters, digits, _ and -) rather than show it.
        end = len(text)
        while end and (text[end - 1].isalnum() or text[end - 1] in "_-"):
            end -= 1
        text = text[:end]
        text = _SECRET_FIELD_VALUE.sub(self._field_match, text)
        unit = "bytes" if isinstance(raw, bytes) else "characters"
        return f"{self.text(text)}... [{left} more {unit} not kept]"

    def _field_match(self, match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2)
        lowered = name.lower()
        if not lowered.endswith(_SECRET_NAME_ENDINGS):
            return match.group(0)
        if lowered in _CARD_NUMBER_FIELDS:
            return f'"{name}":"{_mask_card(value.strip(chr(34)))}"'
        return f'"{name}":"{REDACTED}"'


# In a cut JSON prefix: `"field": value`, for every field (linear: one pass, no backtracking
# over names); `_field_match` masks the values of the fields whose names end in a secret one.
_SECRET_FIELD_VALUE = re.compile(r'"([A-Za-z0-9_]{1,128})"\s*:\s*("(?:[^"\\]|\\.)*"?|-?[0-9.]+)')
_SECRET_NAME_ENDINGS = (
    *sorted(_CARD_NUMBER_FIELDS | _CVC_FIELDS | _SECRET_FIELDS),
    *SECRET_ENDINGS,
)


def _cap(text: str) -> str:
    if len(text) <= MAX_STORED_BODY:
        return text
    return text[:MAX_STORED_BODY] + f"... [{len(text) - MAX_STORED_BODY} more characters not kept]"


# Headers curl computes itself; copying them would only make the command wrong when edited.
_CURL_SKIPPED_HEADERS = frozenset(
    {"host", "content-length", "accept-encoding", "connection", "user-agent"}
)


@dataclass(frozen=True)
class JournalEntry:
    """One attempt of one request, already redacted.

    `call_id` groups the attempts of one client call (retries share it); `attempt` counts from
    1. `status` is None when no answer came (then `error` says why). `started_at` is a Unix
    time; `latency_ms` is measured on the client's monotonic clock.
    """

    id: int
    call_id: int
    attempt: int
    method: str
    url: str
    path: str
    request_headers: Mapping[str, str]
    request_body: str | None
    started_at: float
    latency_ms: float
    status: int | None = None
    response_headers: Mapping[str, str] = field(default_factory=dict)
    response_body: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True for a 2xx answer."""
        return self.status is not None and 200 <= self.status < 300

    def to_curl(self) -> str:
        """This request as a curl command that runs as copied in a POSIX shell.

        The key is not in it: the `api-key` header reads `$PAYSCOPE_API_KEY` from the shell
        (`export PAYSCOPE_API_KEY=snd_...` first). A public test card stays in the body as it
        was sent, with its CVC; any other card number, and its CVC, become shell variables
        declared at the top (`CARD_NUMBER=...`), which stop the command with a clear message
        until they are set. Passwords and other secrets read `[REDACTED]`.
        """
        parts = ["curl", "-sS", "-X", self.method, shlex.quote(self.url)]
        headers = [("api-key", f"${CURL_KEY_VARIABLE}")]
        for name, value in self.request_headers.items():
            if name in _SECRET_HEADERS or name in _CURL_SKIPPED_HEADERS:
                continue
            headers.append((name, value))
        for name, value in headers:
            if name == "api-key":
                # Double quotes so the shell expands the variable.
                parts += ["-H", f'"{name}: {value}"']
            else:
                parts += ["-H", shlex.quote(f"{name}: {value}")]
        declarations: list[str] = []
        if self.request_body:
            body, variables = _body_with_variables(self.request_body)
            quoted = shlex.quote(body)
            for variable, what in variables:
                # Out of the single quotes, into double ones: the shell puts the value in.
                quoted = quoted.replace(_placeholder(variable), f"'\"${variable}\"'")
                declarations.append(
                    f'{variable}="${{{variable}:?set {variable} to {what}: payscope keeps only '
                    'public test cards}"'
                )
            parts += ["--data-raw", quoted]
        # One command line: pasted, an unset variable stops it before curl runs.
        return "".join(f"{line} && \\\n" for line in declarations) + " ".join(parts)


def _placeholder(variable: str) -> str:
    return f"@@payscope:{variable}@@"


def _body_with_variables(body: str) -> tuple[str, list[tuple[str, str]]]:
    """A redacted JSON body with each masked card number and removed CVC swapped for the
    placeholder of a shell variable; the variables with what each must hold."""
    try:
        decoded = json.loads(body)
    except ValueError:
        return body, []
    variables: list[tuple[str, str]] = []

    def name(base: str) -> str:
        taken = {v for v, _ in variables}
        variable, n = base, 1
        while variable in taken:
            n += 1
            variable = f"{base}_{n}"
        return variable

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(v) for v in value]
        if not isinstance(value, dict):
            return value
        out: dict[str, Any] = {}
        ending = ""
        for key, item in value.items():
            lowered = str(key).lower()
            if lowered in _CARD_NUMBER_FIELDS and isinstance(item, str) and _masked(item):
                ending = item.lstrip("*")
                variable = name("CARD_NUMBER")
                variables.append((variable, f"the card number ending {ending}"))
                out[key] = _placeholder(variable)
            else:
                out[key] = walk(item)
        for key, item in value.items():
            if str(key).lower() in _CVC_FIELDS and item == REDACTED:
                variable = name("CARD_CVC")
                card = f"the card ending {ending}" if ending else "the card"
                variables.append((variable, f"the security code of {card}"))
                out[key] = _placeholder(variable)
        return out

    walked = walk(decoded)
    if not variables:
        return body, []
    return json.dumps(walked, ensure_ascii=False), variables


def _masked(value: str) -> bool:
    return value == REDACTED or (value.startswith("*") and value.lstrip("*").isdigit())


Subscriber = Callable[[JournalEntry], None]


class RequestJournal:
    """A bounded, newest-last buffer of `JournalEntry`, with subscribers.

    `subscribe(callback)` calls `callback(entry)` for each new entry and returns a function
    that unsubscribes; `async for entry in journal.follow()` yields new entries as they come.
    """

    def __init__(self, maxlen: int = 1000) -> None:
        if maxlen < 1:
            raise ValueError(f"the journal must keep at least one entry, got maxlen={maxlen}")
        self._entries: deque[JournalEntry] = deque(maxlen=maxlen)
        self._subscribers: list[Subscriber] = []
        self._next_id = 1

    @property
    def maxlen(self) -> int:
        """How many entries are kept (the oldest go first)."""
        return self._entries.maxlen or 0

    def next_id(self) -> int:
        """Reserve the id of an entry about to be recorded."""
        value = self._next_id
        self._next_id += 1
        return value

    def record(self, entry: JournalEntry) -> None:
        """Store an entry and hand it to every subscriber (a failing subscriber is logged)."""
        self._entries.append(entry)
        for callback in list(self._subscribers):
            try:
                callback(entry)
            except Exception:
                log.exception("a request-journal subscriber failed")

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(entry)` on each new entry; returns the function that stops it."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(callback)

        return unsubscribe

    async def follow(self, *, replay: bool = False) -> AsyncIterator[JournalEntry]:
        """Yield entries as they are recorded (first the stored ones, with `replay=True`).

        A follower that falls more than `maxlen` entries behind loses the oldest of them, like
        the journal itself.
        """
        queue: asyncio.Queue[JournalEntry] = asyncio.Queue()
        limit = self.maxlen

        def push(entry: JournalEntry) -> None:
            if queue.qsize() >= limit:
                queue.get_nowait()
            queue.put_nowait(entry)

        if replay:
            for entry in self._entries:
                push(entry)
        unsubscribe = self.subscribe(push)
        try:
            while True:
                yield await queue.get()
        finally:
            unsubscribe()

    def get(self, entry_id: int) -> JournalEntry | None:
        """The entry with this id, if still kept."""
        for entry in reversed(self._entries):
            if entry.id == entry_id:
                return entry
        return None

    def entries(self) -> list[JournalEntry]:
        """The kept entries, oldest first."""
        return list(self._entries)

    def clear(self) -> None:
        """Forget every entry (subscribers stay)."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[JournalEntry]:
        return iter(list(self._entries))
