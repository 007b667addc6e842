"""Read-only profiles: the client itself refuses every call that writes (walked over every
resource method, against a real sandbox over HTTP), and no action that writes is declared
offered on a read-only profile (walked over every action declaration)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import payscope.areas
import payscope.views
from payscope.api import errors
from payscope.api.client import ApiClient
from payscope.api.resources._base import Resource
from payscope.api.retry import writes
from payscope.views.actions import Action
from tests.tools.conftest import Service

RESOURCES = [
    "payments",
    "customers",
    "refunds",
    "disputes",
    "subscriptions",
    "payouts",
    "payment_links",
    "analytics",
    "users",
    "events",
    "profiles",
    "api_keys",
    "sandbox",
]


def resource_methods(client: ApiClient) -> Iterator[tuple[str, Any]]:
    for name in RESOURCES:
        resource = getattr(client, name)
        assert isinstance(resource, Resource)
        for method_name, method in inspect.getmembers(resource, inspect.iscoroutinefunction):
            if not method_name.startswith("_"):
                yield f"{name}.{method_name}", method


def dummy_args(method: Any) -> tuple[list[Any], dict[str, Any]]:
    """Arguments of the right kinds: ids as text, request models as empty mappings."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in inspect.signature(method).parameters.values():
        if param.default is not inspect.Parameter.empty:
            continue
        annotation = str(param.annotation)
        value: Any = "x_1" if annotation in ("str", "'str'") or annotation == "str" else {}
        if "int" in annotation or "float" in annotation:
            value = 60
        if param.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[param.name] = value
        else:
            args.append(value)
    return args, kwargs


class Recorder(httpx.AsyncBaseTransport):
    """Passes every request on to the real sandbox over HTTP, noting its method and path."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sent: list[tuple[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((request.method, request.url.path))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def sent_by_each(service: Service, *, read_only: bool) -> dict[str, Any]:
    """Every public resource method called once: what it sent (or `ReadOnlyError`)."""
    outcome: dict[str, Any] = {}
    recorder = Recorder()
    creds = service.box.credentials
    client = ApiClient(
        service.url,
        creds.api_key,
        profile_id=creds.profile_id,
        merchant_id=creds.merchant_id,
        transport=recorder,
        max_attempts=1,
        read_only=read_only,
    )
    try:
        # The sandbox's reset first: it brings the seeded data back, which would undo what
        # the methods after it made.
        methods = sorted(resource_methods(client), key=lambda item: not item[0].endswith("reset"))
        for name, method in methods:
            args, kwargs = dummy_args(method)
            recorder.sent.clear()
            try:
                await method(*args, **kwargs)
            except errors.ReadOnlyError:
                assert recorder.sent == [], f"{name} sent something before it was refused"
                outcome[name] = "refused"
                continue
            except Exception:
                pass
            outcome[name] = list(recorder.sent)
    finally:
        await client.aclose()
    return outcome


async def totals(client: ApiClient) -> dict[str, int | None]:
    return {
        "payments": (await client.payments.list()).total_count,
        "customers": len((await client.customers.list()).data),
        "refunds": (await client.refunds.list()).total_count,
        "disputes": (await client.disputes.list()).total_count,
        "payouts": (await client.payouts.list()).total_count,
        "links": (await client.payment_links.list()).total_count,
    }


async def test_the_client_refuses_every_method_that_writes(service: Service) -> None:
    guarded = await sent_by_each(service, read_only=True)
    before = await totals(service.client)
    normal = await sent_by_each(service, read_only=False)
    refused = {name for name, sent in guarded.items() if sent == "refused"}
    assert normal.keys() == guarded.keys() and len(normal) > 60
    assert not any(sent == "refused" for sent in normal.values())
    # Every method that sent a call other than GET on a normal client was refused on the
    # read-only one, unless that call is a search the service takes as POST.
    let_through = set()
    for name, sent in normal.items():
        if any(method != "GET" for method, _ in sent) and name not in refused:
            let_through.add(name)
            assert guarded[name] == sent, name  # the same reads, and nothing else
    assert let_through <= SEARCHES, let_through - SEARCHES
    assert len(refused) >= 40
    # Nothing the read-only client let through changed anything (the normal run did).
    after = await totals(service.client)
    assert after != before
    second = await sent_by_each(service, read_only=True)
    assert second.keys() == guarded.keys()
    assert await totals(service.client) == after


# The calls sent as POST that only read (`Replay.SAFE`): lists and metrics.
SEARCHES = {
    "payments.list",
    "refunds.list",
    "payouts.list",
    "payment_links.list",
    "analytics.metrics",
    "analytics.payments",
    "analytics.refunds",
    "analytics.disputes",
    "events.list",
}


async def test_a_write_through_the_raw_request_is_refused_too(service: Service) -> None:
    client = service.read_only_client()
    try:
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            with pytest.raises(errors.ReadOnlyError) as caught:
                await client.request(method, "/payments", body={"amount": 1})
            assert "read-only" in str(caught.value) and "Settings" in str(caught.value)
        assert len(client.journal) == 0  # nothing left the client
        assert await client.health()
        listed = await client.payments.list()
        assert listed.total_count is not None
    finally:
        await client.aclose()


def test_writes_is_true_for_every_method_but_reads() -> None:
    from payscope.api.retry import Replay

    assert not writes("GET") and not writes("head") and not writes("OPTIONS")
    assert writes("POST") and writes("PUT") and writes("DELETE") and writes("PATCH")
    assert not writes("POST", Replay.SAFE) and writes("POST", Replay.KEYED)


# -- every action declaration ----------------------------------------------------------------------

# The actions that change nothing: they go to another record, copy, or open a browser.
READS = {
    "all-payments",
    "open-payment",
    "payment",
    "goto",
    "copy",
    "open",
    "qr",
    "customer",
    "curl",
    "export",
}


def every_action() -> list[tuple[str, Action[Any]]]:
    seen: dict[int, tuple[str, Action[Any]]] = {}

    def visit(value: Any, where: str) -> None:
        if isinstance(value, Action):
            seen.setdefault(id(value), (where, value))
        elif isinstance(value, tuple | list):
            for item in value:
                visit(item, where)

    for package in (payscope.areas, payscope.views):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                visit(value, info.name)
                if inspect.isclass(value) and value.__module__ == module.__name__:
                    for attr in vars(value).values():
                        visit(attr, f"{info.name}:{name}")
    return list(seen.values())


def test_no_action_that_writes_is_offered_on_a_read_only_profile() -> None:
    actions = every_action()
    assert len(actions) > 60
    for where, action in actions:
        if action.writes:
            assert not action.allows(None, local=True, read_only=True), (where, action.name)
            assert not action.allows(object(), local=True, read_only=True), (where, action.name)
        else:
            assert action.name in READS, f"{where}: {action.name} says it does not write"
            assert action.allows(None, local=True, read_only=True) or action.needs_record
    names_that_write = {a.name for _, a in actions if a.writes}
    for expected in ("capture", "refund", "cancel", "new", "replay", "delete", "card", "clock"):
        assert expected in names_that_write
