"""`tui.fast_subclass` makes DOMNode classes exactly as Textual's `DOMNode.__init_subclass__`."""

from __future__ import annotations

import inspect
import subprocess
import sys
from typing import Any

from textual.binding import Binding
from textual.dom import DOMNode
from textual.reactive import Reactive, reactive, var
from textual.widget import Widget
from textual.widgets import DataTable, Static

from tui import fast_subclass


def _textuals(cls: type[DOMNode]) -> tuple[list[tuple[str, Any]], frozenset[str]]:
    """The reactives and computes as Textual's method works them out (textual/dom.py)."""
    reactives: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        reactives.update(
            {name: value for name, value in base.__dict__.items() if isinstance(value, Reactive)}
        )
    computes = frozenset(
        [name.lstrip("_")[8:] for name in dir(cls) if name.startswith(("_compute_", "compute_"))]
    )
    return list(reactives.items()), computes


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    todo = [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def test_the_app_makes_its_classes_this_way() -> None:
    import tui.app  # noqa: F401  (installs it)

    assert DOMNode.__dict__["__init_subclass__"].__func__ is fast_subclass._init_subclass


def test_every_class_loaded_is_made_as_textual_makes_it() -> None:
    # In a fresh interpreter: this one's fixtures replace reactives on Textual's classes after
    # they were made, which Textual's own `_reactives` then no longer match either.
    code = f"""
from __future__ import annotations
import importlib, pkgutil
from typing import Any
from textual.reactive import Reactive
import textual.widgets
from textual.dom import DOMNode
import tui.app, tui.areas, tui.shell, tui.views, tui.widgets
from tui import fast_subclass
assert DOMNode.__dict__["__init_subclass__"].__func__ is fast_subclass._init_subclass
for package in (tui.areas, tui.shell, tui.views, tui.widgets):
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)
for name in textual.widgets.__all__:
    getattr(textual.widgets, name)
{inspect.getsource(_textuals)}
{inspect.getsource(_subclasses)}
classes = _subclasses(DOMNode)
ours = [cls for cls in classes if cls.__module__.startswith("tui.")]
wrong = []
for cls in classes:
    reactives, computes = _textuals(cls)
    if list(cls._reactives.items()) != reactives or cls._computes != computes:
        wrong.append(cls.__qualname__)
print(len(classes) > 200, len(ours) > 60, wrong)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True True []"


def test_a_reactive_replaced_on_a_class_reaches_the_classes_made_after() -> None:
    # The `_no_blink` fixture (tests/tui/conftest.py) has replaced `Input.cursor_blink` for
    # this test, after Textual made `Input` and after payscope made its own inputs.
    from textual.widgets import Input

    import tui.app  # noqa: F401

    class Before(Input):
        pass

    replaced = reactive(True, init=False)
    replaced.__set_name__(Input, "cursor_blink")
    original = Input.__dict__["cursor_blink"]
    Input.cursor_blink = replaced  # type: ignore[assignment]
    try:

        class After(Input):
            pass

    finally:
        Input.cursor_blink = original  # type: ignore[assignment]
    assert Before._reactives["cursor_blink"] is original
    assert After._reactives["cursor_blink"] is replaced


class Mixin:
    """Not a DOMNode: its reactives count all the same."""

    shared = reactive(1)
    mixed = var("m")

    def compute_mixed(self) -> str:
        return "m"


def _family() -> dict[str, Any]:
    """A hierarchy with every case: overridden reactives, mixins, both kinds of compute, no
    CSS or bindings inherited, a table underneath."""

    class Base(Static):
        BINDINGS = [Binding("a", "a", "A")]
        count = reactive(0)
        label = reactive("x")

        def _compute_label(self) -> str:
            return "x"

    class Child(Mixin, Base, inherit_css=False):
        count = reactive(5)  # overridden: the base's place in the order, the child's value
        extra = var(2.0)

        def compute_extra(self) -> float:
            return 2.0

    class Grand(Child, inherit_bindings=False):
        BINDINGS = [Binding("b", "b", "B")]
        shared = reactive(3)

    class Table(DataTable[Any]):
        rows_seen = reactive(0)

    class Plain(Widget):
        pass

    return {cls.__name__: cls for cls in (Base, Child, Grand, Table, Plain)}


def _outcome(cls: type[DOMNode]) -> tuple[Any, ...]:
    return (
        [(name, value.__class__, value._default) for name, value in cls._reactives.items()],
        cls._computes,
        cls._css_type_name,
        cls._css_type_names,
        cls._inherit_css,
        cls._inherit_bindings,
        [
            (key, [b.action for b in bindings])
            for key, bindings in cls._merged_bindings.key_to_bindings.items()
        ],
    )


def test_a_family_of_classes_comes_out_as_with_textuals_method() -> None:
    import tui.app  # noqa: F401

    fast = {name: _outcome(cls) for name, cls in _family().items()}
    fast_subclass.uninstall()
    try:
        textuals = {name: _outcome(cls) for name, cls in _family().items()}
    finally:
        fast_subclass.install()
    assert fast == textuals
    grand = _family()["Grand"]
    assert set(grand._computes) == {"label", "mixed", "extra"}
    assert grand._reactives["count"]._default == 5 and grand._reactives["shared"]._default == 3
