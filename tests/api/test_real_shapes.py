"""`tests/real_shapes.py` builds objects from a copy of the real service's schemas: the copy must
be the document's (less its prose), with every schema the response types refer to."""

from __future__ import annotations

import json
import re

import pytest

from tests.real_shapes import COPY, DOC, ROOTS, example, required, stripped


def test_the_copy_is_the_documents() -> None:
    if not DOC.exists():
        pytest.skip(f"{DOC} is not here (a clone without ../shared): the copy is used as is")
    document = json.loads(DOC.read_text(encoding="utf-8"))["components"]["schemas"]
    copy = json.loads(COPY.read_text(encoding="utf-8"))
    needed: set[str] = set()
    todo = list(ROOTS)
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo += re.findall(r"#/components/schemas/([\w.-]+)", json.dumps(document[name]))
    assert set(copy) == needed
    for name in needed:
        assert copy[name] == stripped(document[name]), name


@pytest.mark.parametrize("name", ROOTS)
def test_every_example_has_every_required_field(name: str) -> None:
    built = example(name)
    assert required(name) <= set(built)
    assert all(value is not None for key, value in built.items() if key in required(name))
