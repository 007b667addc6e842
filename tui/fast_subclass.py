"""Textual's `DOMNode.__init_subclass__`, reading what each class contributes once.

Every widget class made runs `DOMNode.__init_subclass__`: ours, and Textual's own widgets that
load after its app module (the table, the option list, the content switcher, the footer...). It
walks the class's whole hierarchy twice: every base's `__dict__`, for the reactives, and
`dir(cls)` (hundreds of names for a table), for the `compute_` methods. That was 7.9 ms for the
21 classes made on the way to the first frame (measured 2026-11-26).

Here what a class contributes, its own reactives and its own `compute_` names, is read from its
`__dict__` once and kept (weakly: a class made by a test may go), and a new class joins those of
its hierarchy: the same reactives in the same order, the same computes. Kept reactives are
checked against the class each time (a test replaces `Input.cursor_blink`, and the classes made
after that must take the replacement, as with Textual's method). The rest is Textual's method
line by line. `tests/tui/test_fast_subclass.py` compares the outcome with Textual's for
every DOMNode class loaded. `install()` is idempotent; `tui.app` installs it on import.
"""

from __future__ import annotations

import contextlib
from typing import Any
from weakref import WeakKeyDictionary

from textual.dom import DOMNode
from textual.reactive import Reactive

TEXTUAL_INIT_SUBCLASS = DOMNode.__dict__["__init_subclass__"]

_COMPUTE_PREFIXES = ("_compute_", "compute_")
_OWN_REACTIVES: WeakKeyDictionary[type, dict[str, Reactive[Any]]] = WeakKeyDictionary()
_OWN_COMPUTES: WeakKeyDictionary[type, tuple[str, ...]] = WeakKeyDictionary()


def own_reactives(cls: type) -> dict[str, Reactive[Any]]:
    """The reactives defined in `cls` itself, in its `__dict__`'s order.

    Kept ones are checked against the class first: a reactive replaced on a class after it was
    made (as a test does to stop the cursor blinking) is read again, as Textual would see it."""
    namespace = vars(cls)
    try:
        kept = _OWN_REACTIVES.get(cls)
    except TypeError:  # not weakly referable (a built-in type): read each time
        kept = None
    if kept is not None and all(namespace.get(name) is value for name, value in kept.items()):
        return kept
    found = {name: value for name, value in namespace.items() if isinstance(value, Reactive)}
    with contextlib.suppress(TypeError):  # not weakly referable: not kept
        _OWN_REACTIVES[cls] = found
    return found


def own_compute_names(cls: type) -> tuple[str, ...]:
    """The names defined in `cls` itself that `dir` would show as compute methods."""
    try:
        return _OWN_COMPUTES[cls]
    except KeyError:
        found = tuple(name for name in vars(cls) if name.startswith(_COMPUTE_PREFIXES))
        _OWN_COMPUTES[cls] = found
        return found
    except TypeError:
        return tuple(name for name in vars(cls) if name.startswith(_COMPUTE_PREFIXES))


def _init_subclass(
    cls: type[DOMNode],
    inherit_css: bool = True,
    inherit_bindings: bool = True,
    inherit_component_classes: bool = True,
) -> None:
    super(DOMNode, cls).__init_subclass__()

    # Textual: `reactives.update({...})` for each base of `reversed(cls.__mro__)`.
    reactives: dict[str, Reactive[Any]] = {}
    for base in reversed(cls.__mro__):
        own = own_reactives(base)
        if own:
            reactives.update(own)
    cls._reactives = reactives

    cls._inherit_css = inherit_css
    cls._inherit_bindings = inherit_bindings
    cls._inherit_component_classes = inherit_component_classes
    css_type_names: set[str] = set()
    bases = cls._css_bases(cls)
    cls._css_type_name = bases[0].__name__
    for base in bases:
        css_type_names.add(base.__name__)
    cls._merged_bindings = cls._merge_bindings()
    cls._css_type_names = frozenset(css_type_names)
    # Textual: the names of `dir(cls)` (those of every class of the hierarchy) that start
    # with a compute prefix.
    cls._computes = frozenset(
        name.lstrip("_")[8:] for base in cls.__mro__ for name in own_compute_names(base)
    )


def install() -> None:
    """Make new DOMNode classes this way from now on (idempotent)."""
    DOMNode.__init_subclass__ = classmethod(_init_subclass)  # type: ignore[assignment]


def uninstall() -> None:
    """Textual's own method again (for the tests that compare the two)."""
    DOMNode.__init_subclass__ = TEXTUAL_INIT_SUBCLASS  # type: ignore[method-assign]
