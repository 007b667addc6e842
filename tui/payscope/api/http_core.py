"""The way out and back of every call of the client (`ApiClient` adds one namespace per area of
the API on top): one `httpx.AsyncClient`, headers, retries with backoff (rules in
`payscope.api.retry`), error envelopes turned into `payscope.api.errors` exceptions, rate-limit
state, and one redacted `payscope.api.journal` entry per attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from payscope import __version__
from payscope.api import errors
from payscope.api.answers import (
    SLICE,
    describe_transport_error,
    envelope_of,
    long_list_of,
    many_records,
    read_capped,
)
from payscope.api.codes import contract_of_error
from payscope.api.journal import JournalEntry, Redactor, RequestJournal, mask_key
from payscope.api.local_transport import LocalTransport, serves_locally
from payscope.api.rate_limit import RateLimit, float_header, rate_limit_of
from payscope.api.retry import (
    SAFE_METHODS,
    Replay,
    RetryPolicy,
    may_retry_error,
    may_retry_status,
    retry_after_seconds,
    writes,
)
from payscope.core import bounded
from payscope.core.hosts import INSECURE_HTTP_FIX, is_insecure_http

USER_AGENT = f"payscope/{__version__} (+python-httpx/{httpx.__version__})"
M = TypeVar("M", bound=BaseModel)
# The largest answer read (decoded bytes): a bigger one is refused unread, naming its route and
# size. The real service's list pages hold at most 100 records, far below it.
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
# Answers over this are parsed in a thread (and long lists validated in one, see
# `payscope.api.answers`): the UI's loop keeps answering keys meanwhile.
OFF_LOOP_BYTES = 1024 * 1024


# One validator per answer type for the whole process, not one per client: a model's validator
# is built the first time it is needed (`defer_build`, api/models/_base.py), and a TypeAdapter
# builds its own, so each new client (a profile switched to, each app a process runs) built
# every one of them again. Types are hashable and their validators never change; two threads
# building the same one at once only build it twice.
_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def adapter_for(target: Any) -> TypeAdapter[Any]:
    """The process's validator for `target` (a model, or a list or union of them)."""
    adapter = _ADAPTERS.get(target)
    if adapter is None:
        adapter = _ADAPTERS[target] = TypeAdapter(target)
    return adapter


class HttpCore:
    """Typed async calls to the payment service, with retries and a request journal.

    `base_url` is the service root (e.g. the local sandbox's URL); `api_key` the secret key
    (`snd_...`). Production keys (`prd_`, `pk_prd_`) are refused unless `allow_production=True`.
    `profile_id` is sent as `X-Profile-Id` on subscription calls and names the business profile;
    `merchant_id` is needed by the events, business-profile and API-key calls (it is in their
    paths). `transport` replaces the network (e.g. `httpx.MockTransport`); without one, a
    plain-http URL on this machine goes through `payscope.api.local_transport` and any other through
    httpx's own transport. Retries are bounded by `max_attempts` and `max_retry_time` seconds;
    `clock`, `sleep`, `wall_clock` and `rng` are injectable so tests never wait. `journal_size`
    bounds the request journal.
    `contract` is the contract the service speaks, by which error codes are explained (see
    `payscope.api.codes`): "spec" (the local sandbox), "real" (the real service), or "auto": read
    from the errors the service returns, the real service's meanings until one shows the spec's.
    `unreachable_advice` replaces what an `ApiConnectionError` says to do (e.g. what brings
    back a local sandbox that stopped).
    `read_only` refuses every call that writes (`writes`) with `ReadOnlyError`, before it is
    sent: a read-only profile cannot change the service by any path through this client.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        profile_id: str | None = None,
        merchant_id: str | None = None,
        allow_production: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 30.0,
        max_attempts: int = 4,
        max_retry_time: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        wall_clock: Callable[[], float] = time.time,
        rng: Callable[[], float] = random.random,
        journal_size: int = 1000,
        contract: str = "spec",
        unreachable_advice: str | None = None,
        read_only: bool = False,
        public_card: Callable[[str], bool] | None = None,
        allow_insecure_http: bool = False,
    ) -> None:
        if contract not in ("spec", "real", "auto"):
            raise errors.ConfigurationError(
                f"The contract {contract!r} is not one payscope knows.\n"
                'What to do: use "spec", "real" or "auto".'
            )
        if not base_url.startswith(("http://", "https://")):
            raise errors.ConfigurationError(
                f"The base URL {base_url!r} is not an http:// or https:// address.\n"
                "What to do: give the service root, e.g. http://127.0.0.1:8080."
            )
        # Over the network (no in-process transport), a secret key never goes in clear text
        # unless the profile accepts it (`allow_insecure_http`; the status bar then says so).
        self.insecure_http = is_insecure_http(base_url)
        if self.insecure_http and transport is None and not allow_insecure_http:
            raise errors.ConfigurationError(
                f"The base URL {base_url} is http:// to another machine: the secret key would "
                "cross the network unencrypted.\nWhat to do: " + INSECURE_HTTP_FIX + "."
            )
        key = api_key.strip()
        if not key or any(ch.isspace() for ch in key):
            raise errors.ConfigurationError(
                "The API key is empty or contains spaces or line breaks.\n"
                "What to do: store the secret key with `payscope keys set` (or set "
                "PAYSCOPE_API_KEY); sandbox keys start with snd_."
            )
        if key.startswith(("prd_", "pk_prd_")) and not allow_production:
            raise errors.ProductionKeyError(mask_key(key))
        self.base_url = base_url.rstrip("/")
        self.profile_id = profile_id
        self.merchant_id = merchant_id
        self.contract_setting = contract
        self.detected_contract: str | None = None
        self._probed = False
        self.retry_policy = RetryPolicy(max_attempts=max_attempts, max_retry_time=max_retry_time)
        self.max_response_bytes = MAX_RESPONSE_BYTES
        self.unreachable_advice = unreachable_advice
        self.read_only = read_only
        self._clock = clock
        self._sleep = sleep
        self._wall_clock = wall_clock
        self._rng = rng
        # `public_card`: which card numbers are public test cards, kept whole in the journal.
        self._redactor = Redactor([key], public_card=public_card)
        self.journal = RequestJournal(journal_size)
        self._rate_limit = RateLimit()
        self._rate_limit_watchers: list[Callable[[RateLimit], None]] = []
        self._call_ids = 0
        if transport is None and serves_locally(self.base_url):
            transport = LocalTransport()  # the local sandbox: no httpcore to import
        # The transport given or chosen (None: httpx's own).
        self.transport: httpx.AsyncBaseTransport | None = transport
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers={
                "api-key": key,
                "Content-Type": "application/json",
                "Accept": "application/json",
                "User-Agent": USER_AGENT,
            },
            timeout=httpx.Timeout(timeout),
            transport=transport,
            # Certificates are only ever checked on https: a plain-http service (the local
            # sandbox) need not load the CA bundle, which costs more than the client itself.
            # Redirects are not followed, so an http client never reaches an https host.
            verify=not self.base_url.startswith("http://"),
            follow_redirects=False,
        )

    @property
    def timeout(self) -> float:
        """Seconds an attempt waits for an answer (each of connect, write, read) before it
        gives up; what screens wait before they say a read has no answer
        (tui/payscope/views/stall.py)."""
        read = self._http.timeout.read
        return 30.0 if read is None else float(read)

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._http.timeout = httpx.Timeout(seconds)

    def __repr__(self) -> str:
        # Never the key, even masked: reprs end up in tracebacks and logs.
        return f"{type(self).__name__}(base_url={self.base_url!r}, profile_id={self.profile_id!r})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections (the client cannot be used afterwards)."""
        await self._http.aclose()

    @property
    def is_closed(self) -> bool:
        """True once `aclose()` ran."""
        return self._http.is_closed

    # -- rate limit --------------------------------------------------------------------------

    @property
    def rate_limit(self) -> RateLimit:
        """The rate-limit window as of the last answer that carried `X-RateLimit-*` headers."""
        return self._rate_limit

    def on_rate_limit_change(self, callback: Callable[[RateLimit], None]) -> Callable[[], None]:
        """Call `callback(rate_limit)` whenever it changes; returns the function that stops it."""
        self._rate_limit_watchers.append(callback)

        def unsubscribe() -> None:
            if callback in self._rate_limit_watchers:
                self._rate_limit_watchers.remove(callback)

        return unsubscribe

    def _update_rate_limit(self, headers: Mapping[str, str]) -> None:
        new = rate_limit_of(headers)
        if new is None or new == self._rate_limit:
            return
        self._rate_limit = new
        for callback in list(self._rate_limit_watchers):
            callback(new)

    # -- requests ----------------------------------------------------------------------------

    def require_profile_id(self, operation: str) -> str:
        """The profile id, or `MissingProfileIdError` naming `operation` (nothing is sent)."""
        if not self.profile_id:
            raise errors.MissingProfileIdError(operation)
        return self.profile_id

    def require_merchant_id(self, operation: str) -> str:
        """The merchant id, or `MissingMerchantIdError` naming `operation` (nothing is sent)."""
        if not self.merchant_id:
            raise errors.MissingMerchantIdError(operation)
        return self.merchant_id

    async def health(self) -> bool:
        """True when `GET /health` answers 2xx with this key (errors raise as usual). The
        answer's body does not matter: the real service's is plain text."""
        with contextlib.suppress(errors.ResponseFormatError):  # raised for 2xx answers only
            await self.request("GET", "/health")
        return True

    async def call(
        self,
        method: str,
        path: str,
        result: type[M],
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        replay: Replay | None = None,
        resolve_duplicate: str | None = None,
        duplicate_statuses: frozenset[int] = frozenset(),
    ) -> M:
        """Send a call and validate the JSON answer as `result` (see `request`)."""
        data = await self.request(
            method,
            path,
            body=body,
            params=params,
            headers=headers,
            replay=replay,
            resolve_duplicate=resolve_duplicate,
            duplicate_statuses=duplicate_statuses,
        )
        validated: M = await self.validated(result, data, method, path)
        return validated

    async def call_list(
        self,
        method: str,
        path: str,
        item: type[M],
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        replay: Replay | None = None,
    ) -> list[M]:
        """Send a call whose answer is a JSON array and validate each element as `item`."""
        data = await self.request(
            method, path, body=body, params=params, headers=headers, replay=replay
        )
        validated: list[M] = await self.validated(list[item], data, method, path)  # type: ignore[valid-type]
        return validated

    async def call_json(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        replay: Replay | None = None,
    ) -> dict[str, Any]:
        """Send a call whose answer is a JSON object with no model of its own."""
        data = await self.request(
            method, path, body=body, params=params, headers=headers, replay=replay
        )
        result: dict[str, Any] = await self.validated(dict[str, Any], data, method, path)
        return result

    async def call_or_none(
        self, method: str, path: str, result: type[M], *, body: Any = None
    ) -> M | None:
        """Like `call`, for operations whose answer the spec does not show: None when the
        service answers with an empty body or an empty object."""
        data = await self.request(method, path, body=body)
        if data is None or data == {}:
            return None
        validated: M = await self.validated(result, data, method, path)
        return validated

    async def validated(self, target: Any, data: Any, method: str, path: str) -> Any:
        """`data` validated as `target` (see `_validate`); a long list is validated in a thread,
        so that thousands of records do not hold the UI's loop."""
        if many_records(data):
            return await asyncio.to_thread(self._validate_in_slices, target, data, method, path)
        return self._validate(target, data, method, path)

    def _validate_in_slices(self, target: Any, data: Any, method: str, path: str) -> Any:
        """`_validate`, a slice of a long list at a time (in a thread): pydantic holds the GIL
        through one validation, and the UI's loop gets it back between slices. Anything but
        a list of models, or a model with one, is validated whole."""
        items, rebuild = long_list_of(target, data)
        if items is None:
            return self._validate(target, data, method, path)
        kind, values = items
        many: Any = list[kind]  # type: ignore[valid-type]
        try:
            done = [
                record
                for start in range(0, len(values), SLICE)
                for record in self._validate(many, values[start : start + SLICE], method, path)
            ]
        except errors.ResponseFormatError:
            return self._validate(target, data, method, path)  # said with the whole's places
        return rebuild(done)

    def _validate(self, target: Any, data: Any, method: str, path: str) -> Any:
        adapter = adapter_for(target)
        try:
            return adapter.validate_python(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the body"
            detail = f"{where}: {first['msg']} ({exc.error_count()} problem(s) in all)"
            raise errors.ResponseFormatError(method, path, self._redactor.text(detail)) from None

    async def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        replay: Replay | None = None,
        resolve_duplicate: str | None = None,
        duplicate_statuses: frozenset[int] = frozenset(),
    ) -> Any:
        """Send one call, with retries, and return its decoded JSON answer (None when empty).

        `body` is serialised as JSON. `replay` says how safe the call is to repeat (default:
        `SAFE` for GET, `UNSAFE` otherwise; rules in `payscope.api.retry`). For a `KEYED` creation,
        `resolve_duplicate` is the path that reads the object: when a retry is answered `HE_01`
        (or a status in `duplicate_statuses`), the earlier attempt went through, and the object
        read from that path is returned instead of an error.
        """
        _status, data = await self._exchange(
            method, path, body, params, headers, replay, resolve_duplicate, duplicate_statuses
        )
        return data

    async def exchange(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        replay: Replay | None = None,
    ) -> tuple[int, Any]:
        """`request`, also returning the answer's HTTP status (2xx; errors raise as usual):
        for callers that check which success it was (fixtures' `expect`)."""
        return await self._exchange(method, path, body, params, headers, replay, None, frozenset())

    async def _exchange(
        self,
        method: str,
        path: str,
        body: Any,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        replay: Replay | None,
        resolve_duplicate: str | None,
        duplicate_statuses: frozenset[int],
    ) -> tuple[int, Any]:
        method = method.upper()
        if replay is None:
            replay = Replay.SAFE if method in SAFE_METHODS else Replay.UNSAFE
        if self.read_only and writes(method, replay):
            raise errors.ReadOnlyError(method, path)
        content = None
        if body is not None:
            content = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        response = await self._send(
            method, path, content, params, headers, replay, resolve_duplicate, duplicate_statuses
        )
        if isinstance(response, _Resolved):
            return 200, response.data
        if len(response.content) > OFF_LOOP_BYTES:
            # Parsing megabytes holds the loop for a tenth of a second or more: keys would wait.
            return response.status_code, await asyncio.to_thread(
                self._decode, response, method, path
            )
        return response.status_code, self._decode(response, method, path)

    def _decode(self, response: httpx.Response, method: str, path: str) -> Any:
        if not response.content.strip():
            return None
        try:
            # orjson first (payscope.core.bounded): about twice as fast, the GIL held throughout.
            return bounded.loads_json(response.content)
        except bounded.TooDeep:
            raise errors.ResponseFormatError(
                method,
                path,
                f"HTTP {response.status_code} body is JSON nested more than "
                f"{bounded.MAX_DEPTH} levels deep, more than payscope reads",
            ) from None
        except ValueError:
            snippet = self._redactor.text(response.text[:120])
            raise errors.ResponseFormatError(
                method, path, f"HTTP {response.status_code} body is not JSON: {snippet!r}"
            ) from None

    async def _send(
        self,
        method: str,
        path: str,
        content: bytes | None,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        replay: Replay,
        resolve_duplicate: str | None,
        duplicate_statuses: frozenset[int],
    ) -> httpx.Response | _Resolved:
        self._call_ids += 1
        call_id = self._call_ids
        policy = self.retry_policy
        first_started = self._clock()
        attempt = 0
        while True:
            attempt += 1
            request = self._http.build_request(
                method, path, content=content, params=params, headers=headers
            )
            try:
                response = await self._attempt(request, call_id, attempt)
            except httpx.TransportError as exc:
                if attempt < policy.max_attempts and may_retry_error(exc, replay):
                    delay = policy.backoff(attempt - 1, self._rng)
                    if self._fits(first_started, delay):
                        await self._sleep(delay)
                        continue
                raise self._transport_error(exc, request, attempt) from None
            if response.is_success:
                return response
            error = self._api_error(response, method, path)
            if (
                attempt > 1
                and resolve_duplicate is not None
                and (
                    isinstance(error, errors.DuplicateError)
                    or response.status_code in duplicate_statuses
                )
            ):
                # An earlier attempt went through: read the object it created instead.
                data = await self.request("GET", resolve_duplicate)
                return _Resolved(data)
            if attempt < policy.max_attempts and may_retry_status(response.status_code, replay):
                now = self._wall_clock()
                # The service's own Retry-After first (see payscope.api.retry).
                retry_after = retry_after_seconds(response.headers.get("retry-after"), now)
                if isinstance(error, errors.RateLimitedError):
                    delay = policy.rate_limit_wait(
                        error.reset, now, attempt - 1, self._rng, retry_after
                    )
                elif retry_after is not None:
                    delay = retry_after
                else:
                    delay = policy.backoff(attempt - 1, self._rng)
                if self._fits(first_started, delay):
                    await self._sleep(delay)
                    continue
            if self._contract_in_doubt(error):
                await self.probe_contract()
                error.contract = self.contract
            raise error

    def _fits(self, first_started: float, delay: float) -> bool:
        return self._clock() - first_started + delay <= self.retry_policy.max_retry_time

    async def _attempt(self, request: httpx.Request, call_id: int, attempt: int) -> httpx.Response:
        entry_id = self.journal.next_id()
        started_at = self._wall_clock()
        t0 = self._clock()
        redact = self._redactor
        url = redact.text(str(request.url))
        path = redact.text(request.url.raw_path.decode("ascii", errors="replace"))
        request_headers = redact.headers(request.headers.multi_items())
        request_body = redact.body(request.content or None, request_headers.get("content-type", ""))
        # What an attempt's entry says whether or not an answer comes.
        entry = partial(
            JournalEntry,
            id=entry_id,
            call_id=call_id,
            attempt=attempt,
            method=request.method,
            url=url,
            path=path,
            request_headers=request_headers,
            request_body=request_body,
            started_at=started_at,
        )
        try:
            streamed = await self._http.send(request, stream=True)
            raw_headers = streamed.headers.multi_items()  # as they came; one decode (.get scans)
            response = await read_capped(request, streamed, self.max_response_bytes)
        except httpx.TransportError as exc:
            self.journal.record(
                entry(
                    latency_ms=(self._clock() - t0) * 1000.0,
                    error=redact.text(describe_transport_error(exc)),
                )
            )
            raise
        except errors.ResponseTooLargeError as exc:
            self.journal.record(
                entry(latency_ms=(self._clock() - t0) * 1000.0, error=str(exc).split("\n")[0])
            )
            raise
        except httpx.DecodingError as exc:
            # A body its Content-Encoding does not describe (gzip that is not gzip): an answer
            # payscope cannot read, said as one (httpx's error is no TransportError).
            reason = f"its Content-Encoding could not be decoded ({exc})"
            self.journal.record(entry(latency_ms=(self._clock() - t0) * 1000.0, error=reason))
            raise errors.ResponseFormatError(
                request.method, redact.text(request.url.path), f"the body of the answer: {reason}"
            ) from None
        latency_ms = (self._clock() - t0) * 1000.0
        self._update_rate_limit(dict(raw_headers))
        response_headers = redact.headers(raw_headers)
        self.journal.record(
            entry(
                latency_ms=latency_ms,
                status=response.status_code,
                response_headers=response_headers,
                response_body=redact.body(
                    response.content, response_headers.get("content-type", "")
                ),
            )
        )
        return response

    def _transport_error(
        self, exc: httpx.TransportError, request: httpx.Request, attempts: int
    ) -> errors.ApiConnectionError:
        cls = (
            errors.ApiTimeoutError
            if isinstance(exc, httpx.TimeoutException)
            else errors.ApiConnectionError
        )
        reason = self._redactor.text(describe_transport_error(exc))
        url = self._redactor.text(str(request.url))
        error = cls(request.method, url, reason, attempts=attempts)
        if self.unreachable_advice is not None and cls is errors.ApiConnectionError:
            error.advice = self.unreachable_advice
        return error

    @property
    def contract(self) -> str:
        """The contract error codes are explained by: "spec" or "real" (an undetected "auto"
        reads as the real service, since a profile set to "auto" is a remote one)."""
        if self.contract_setting != "auto":
            return self.contract_setting
        return self.detected_contract or "real"

    def _learn_contract(
        self, status: int, type_: str | None, code: str | None, message: str, error_type_key: bool
    ) -> str:
        if self.contract_setting == "auto" and self.detected_contract is None:
            self.detected_contract = contract_of_error(
                status, type_, code, message, error_type_key=error_type_key
            )
        return self.contract

    def _contract_in_doubt(self, error: errors.ApiError) -> bool:
        """True when an "auto" client has not told the contracts apart and this error's code
        means different things in them (a refused request, not a rate limit or an outage)."""
        return (
            self.contract_setting == "auto"
            and self.detected_contract is None
            and not self._probed
            and error.code is not None
            and 400 <= error.status < 500
            and error.status != 429
        )

    async def probe_contract(self) -> str | None:
        """Tell the contracts apart with one cheap read (once per client; "auto" only):
        `GET /payments/{an id that cannot exist}` is answered 404 `IR_05` by the spec and 404
        `HE_02` by the real service. Returns the contract (a set one is not asked for; None:
        still in doubt). Asked again only when the probe had no answer (the service down or
        failing): its routes follow the contract, so one in doubt is not asked every call."""
        if self.contract_setting != "auto":
            return self.contract_setting
        if self.detected_contract is not None or self._probed:
            return self.detected_contract
        self._probed = True
        try:
            await self.request("GET", "/payments/pay_payscope_contract_probe")
        except (errors.ApiConnectionError, errors.ServerError):
            self._probed = False
        except errors.ClientError:
            pass
        return self.detected_contract

    def _api_error(self, response: httpx.Response, method: str, path: str) -> errors.ApiError:
        status = response.status_code
        envelope = envelope_of(response)
        type_, code = envelope.type, envelope.code
        message = self._redactor.text(envelope.message)
        contract = self._learn_contract(status, type_, code, message, envelope.error_type_key)
        cls = errors.error_class_for(status, code)
        error: errors.ApiError
        if cls is errors.RateLimitedError:
            error = errors.RateLimitedError(
                status,
                type_,
                code,
                message,
                method=method,
                path=path,
                reset=float_header(response.headers.get("x-ratelimit-reset")),
            )
        else:
            error = cls(status, type_, code, message, method=method, path=path)
        error.contract = contract
        return error


@dataclass(frozen=True)
class _Resolved:
    """The decoded answer of the read that resolved a duplicate creation."""

    data: Any
