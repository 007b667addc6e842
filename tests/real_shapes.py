"""Objects in the real service's shapes, built from its OpenAPI document (not a test module).

The schemas are read from `tests/data/real_service_schemas.json`: the response schemas in
`ROOTS` and everything they refer to, copied from `../shared/spec/real-service-openapi-v1.json`
without their descriptions (so a clean clone has them; `tests/api/test_real_shapes.py` checks
the copy against the document when it is there).

`example("PayoutCreateResponse")` builds an object with every property the schema declares
(required or not), each from the document's own `example` where it gives one, else from its type:
the first enum value, a date-time, a sample string or number. `oneOf` takes its first variant
unless `choose` names another for that schema (`choose={"PayoutMethodDataResponse": 1}`: a bank).
Deterministic, so tests and snapshots built on it are too.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[2] / "shared" / "spec" / "real-service-openapi-v1.json"
COPY = Path(__file__).resolve().parent / "data" / "real_service_schemas.json"
# The response types the TUI shows (and the subscription routes' answers).
ROOTS = (
    "PaymentsResponse",
    "PaymentListResponse",
    "RefundResponse",
    "RefundListResponse",
    "DisputeResponse",
    "CustomerResponse",
    "PayoutCreateResponse",
    "PayoutListResponse",
    "SubscriptionResponse",
    "GetSubscriptionItemsResponse",
    "EstimateSubscriptionResponse",
)
_MAX_DEPTH = 7


def stripped(node: Any) -> Any:
    """A schema without its prose (`description` texts), as the copy keeps it."""
    if isinstance(node, dict):
        return {
            k: stripped(v) for k, v in node.items() if k != "description" or not isinstance(v, str)
        }
    if isinstance(node, list):
        return [stripped(v) for v in node]
    return node


@cache
def _schemas() -> dict[str, Any]:
    schemas: dict[str, Any] = json.loads(COPY.read_text(encoding="utf-8"))
    return schemas


def schema(name: str) -> dict[str, Any]:
    """The component schema `name` of the real document."""
    found: dict[str, Any] = _schemas()[name]
    return found


def required(name: str) -> set[str]:
    """The required properties of the schema `name`."""
    return set(schema(name).get("required", ()))


def example(
    schema_name: str, /, choose: Mapping[str, int] | None = None, **overrides: Any
) -> dict[str, Any]:
    """An object of the schema `schema_name` with every property filled in; `overrides`
    replace top-level values."""
    built = _build(schema(schema_name), dict(choose or {}), 0, schema_name)
    assert isinstance(built, dict), schema_name
    built.update(copy.deepcopy(overrides))
    return built


def _resolve(node: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    ref = node.get("$ref")
    if ref is None:
        return node, None
    name = str(ref).rsplit("/", 1)[-1]
    return schema(name), name


def _build(node: dict[str, Any], choose: dict[str, int], depth: int, name: str | None) -> Any:
    node, ref_name = _resolve(node)
    name = ref_name or name
    if depth > _MAX_DEPTH:
        return None
    if "example" in node and not node.get("properties"):
        return copy.deepcopy(node["example"])
    if "allOf" in node:
        merged: Any = None
        for part in node["allOf"]:
            value = _build(part, choose, depth, name)
            if isinstance(merged, dict) and isinstance(value, dict):
                merged.update(value)
            elif merged is None:
                merged = value
        return merged
    for key in ("oneOf", "anyOf"):
        if key in node:
            index = choose.get(name or "", 0)
            return _build(node[key][index], choose, depth, name)
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "object" or "properties" in node:
        return {
            prop: _build(sub, choose, depth + 1, None)
            for prop, sub in node.get("properties", {}).items()
        }
    if kind == "array":
        item = _build(node.get("items", {}), choose, depth + 1, None)
        return [] if item is None else [item]
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return False
    if kind == "string":
        if node.get("format") == "date-time":
            return "2022-09-10T10:11:12Z"
        if node.get("format") == "date":
            return "2022-09-10"
        return "sample"
    return None


def lost(served: Any, kept: Any, path: str = "") -> list[str]:
    """Where `kept` lacks or changed what `served` holds (a number sent as a string, like a
    real dispute's amount, may be kept as the number it is)."""
    if isinstance(served, dict):
        if not isinstance(kept, dict):
            return [path or "."]
        return [
            gap
            for key, value in served.items()
            for gap in (
                lost(value, kept[key], f"{path}.{key}") if key in kept else [f"{path}.{key}"]
            )
        ]
    if isinstance(served, list):
        if not isinstance(kept, list) or len(kept) != len(served):
            return [path]
        return [gap for i, v in enumerate(served) for gap in lost(v, kept[i], f"{path}[{i}]")]
    if isinstance(served, str) and isinstance(kept, int) and served.isdigit():
        return [] if int(served) == kept else [path]
    return [] if served == kept else [path]
