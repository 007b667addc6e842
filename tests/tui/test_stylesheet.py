"""`FastStylesheet` styles every node as Textual's own `Stylesheet` does.

- Its selector matching, read from the right, agrees with Textual's `_check_selectors` for
  every rule and every node of the app's busiest screens, and of a tree built to exercise every
  combinator (descendant, child, compound, nested) with classes, ids and pseudo-classes.
- The styles it sets on every node, and on every component of a node (a DataTable's cursor,
  an Input's placeholder...), equal those Textual's `Stylesheet` sets on the same nodes, after
  the focus, the hover and classes moved about (its kept component styles must follow).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.match import _check_selectors
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widgets import Button, DataTable, Input, Label, Select

from tests.tui.pilot import open_list, run_command, until
from tests.tui.snapshot_app import build, ready
from tui.areas.payments.view import PaymentsView
from tui.areas.payouts.forms import NewPayoutForm
from tui.areas.payouts.view import PayoutsView
from tui.stylesheet import FastStylesheet, _placed

Dirs = tuple[Any, Any]


def _nodes(app: App[Any]) -> list[DOMNode]:
    """Every node of every screen in the stack, and for each node with component classes, the
    node its components are matched on (as Textual makes one per component)."""
    nodes: list[DOMNode] = []
    for screen in app.screen_stack:
        for node in screen.walk_children(with_self=True):
            nodes.append(node)
            for component in sorted(node._get_component_classes()):
                virtual = DOMNode(classes=component)
                virtual._attach(node)
                nodes.append(virtual)
    return nodes


def _matching_agrees(app: App[Any]) -> int:
    """Compare the two matchers on every (selector set, node) pair; the number compared."""
    compared = 0
    disagree = []
    for node in _nodes(app):
        path = node.css_path_nodes
        for rule in app.stylesheet.rules:
            for selector_set in rule.selector_set:
                selectors = selector_set.selectors
                textual = _check_selectors(selectors, path)
                ours = _placed(selectors, len(selectors) - 1, path, len(path) - 1)
                compared += 1
                if textual != ours:
                    disagree.append(f"{selector_set.css} on {node!r}: {textual} vs {ours}")
    assert disagree == []
    return compared


def _styles_of(app: App[Any]) -> dict[int, Any]:
    """Each node's own rules and its components' rules, by node."""
    found: dict[int, Any] = {}
    for screen in app.screen_stack:
        for node in screen.walk_children(with_self=True):
            components = {
                name: dict(styles.base._rules) for name, styles in node._component_styles.items()
            }
            found[id(node)] = (repr(node), dict(node.styles.base._rules), components)
    return found


def _styles_agree(app: App[Any]) -> int:
    """What FastStylesheet sets on every node, restyled as they are now, equals what Textual's
    Stylesheet sets on the same nodes; the number of nodes compared. (Both restyle everything:
    Textual itself leaves some styles stale after a focus change, e.g. a disabled button under
    a `:focus-within` container, whichever stylesheet it has.)"""
    assert isinstance(app.stylesheet, FastStylesheet)
    for screen in app.screen_stack:
        app.stylesheet.update(screen)
    ours = _styles_of(app)
    plain = Stylesheet(variables=app.stylesheet._variables)
    plain.source = app.stylesheet.source.copy()
    plain.parse()
    for screen in app.screen_stack:
        plain.update(screen)
    textual = _styles_of(app)
    app.stylesheet.update(app.screen)  # back to the app's own stylesheet, for the rest
    different = [
        f"{ours[key][0]}: {ours[key][1:]} != {textual[key][1:]}"
        for key in ours
        if ours[key] != textual[key]
    ]
    assert different == []
    return len(ours)


# A tree for every kind of selector -----------------------------------------------------------

CSS = """
Vertical Label { color: red; }
Vertical > Label { background: blue; }
#outer Horizontal .leaf { text-style: bold; }
#outer > Horizontal > Label.leaf { color: green; }
Horizontal.row:focus-within Button { background: yellow; }
.row > Button.-primary:focus { color: black; }
Vertical Horizontal Vertical Label { text-style: italic; }
* > .leaf { margin: 0 1; }
Screen Horizontal Input:focus { border: tall red; }
Input > .input--placeholder { color: magenta; }
Input:focus > .input--cursor { background: cyan; }
DataTable:focus > .datatable--cursor { background: purple; }
DataTable > .datatable--header { text-style: bold; }
Vertical {
    &.box Label { text-style: underline; }
    & > Horizontal { height: auto; }
    Horizontal & { width: 1fr; }
}
Button:hover { color: orange; }
Button:disabled { color: gray; }
Label:first-child { text-style: reverse; }
Label:last-of-type { text-style: dim; }
Label:odd { background: $panel; }
"""


class Tree(App[None]):
    CSS = CSS

    def compose(self) -> ComposeResult:
        with Vertical(id="outer", classes="box"):
            with Horizontal(classes="row"):
                yield Label("a", classes="leaf")
                yield Button("b", classes="-primary", id="b1")
                yield Button("c", id="b2", disabled=True)
            with Horizontal(classes="row"):
                with Vertical():
                    yield Label("d")
                    yield Label("e", classes="leaf")
                yield Input(placeholder="x", id="in")
            yield Label("f")
            table: DataTable[str] = DataTable(id="table")
            table.add_columns("one", "two")
            table.add_row("1", "2")
            yield table
            yield Select([("A", 1), ("B", 2)], id="select")


class FastTree(Tree):
    def __init__(self) -> None:
        super().__init__()
        self.stylesheet = FastStylesheet(variables=self.get_css_variables())


async def test_matching_agrees_with_textual_on_every_kind_of_selector() -> None:
    app = FastTree()
    async with app.run_test(size=(80, 30)) as pilot:
        assert _matching_agrees(app) > 2000
        await pilot.click("#b1")
        app.query_one("#in").focus()
        await pilot.hover("#b1")
        await pilot.pause()
        assert _matching_agrees(app) > 2000


async def test_styles_agree_with_textual_as_focus_hover_and_classes_move() -> None:
    app = FastTree()
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        assert _styles_agree(app) > 15
        for step in ("#in", "#table", "#b1", "#select"):
            app.query_one(step).focus()
            await pilot.pause()
            _styles_agree(app)
        await pilot.hover("#b1")
        app.query_one("#outer").remove_class("box")
        app.query_one("#outer Horizontal").add_class("-other")
        await pilot.pause()
        _styles_agree(app)
        app.theme = "textual-light"
        await pilot.pause()
        _styles_agree(app)


async def test_the_apps_busiest_screens_are_styled_as_textual_styles_them(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = app.screen.query_one(PaymentsView)
        assert _matching_agrees(app) > 5000
        assert _styles_agree(app) > 20
        # The prompt takes the focus from the table and gives it back.
        await pilot.press("colon")
        await pilot.pause()
        _styles_agree(app)
        await pilot.press("escape")
        await pilot.pause()
        assert view.query_one(DataTable).has_focus
        _styles_agree(app)
        # A form of many fields, some shown by a choice, over the list.
        await open_list(pilot, "payouts", PayoutsView, start=False)
        await pilot.press("n")
        await until(lambda: isinstance(app.screen, NewPayoutForm))
        form = app.screen
        await pilot.pause()
        form.query_one("#field-payout_type", Select).value = "bank"
        await pilot.pause()
        _matching_agrees(app)
        assert _styles_agree(app) > 100
        form.query_one("#field-amount", Input).focus()
        await pilot.pause()
        _styles_agree(app)
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, NewPayoutForm))
        await run_command(pilot, "theme payscope-light")
        await pilot.pause()
        _styles_agree(app)


async def test_the_first_frame_is_styled_without_a_second_pass_and_as_one_would_style_it(
    dirs: Dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The main screen's first resume does not restyle every node (they were styled as they
    mounted, just before); what the first frame shows is what a full restyle gives."""
    from tui.shell.main import MainScreen

    whole: list[str] = []  # restyles of a whole screen before the first frame
    frames: list[int] = []
    original = App.update_styles

    def watched(self: App[Any], node: DOMNode, animate: bool = True) -> None:
        if isinstance(node, MainScreen) and not frames:
            whole.append(repr(node))
        original(self, node, animate=animate)

    monkeypatch.setattr(App, "update_styles", watched)
    app = build(*dirs)
    first_frame_out = app.first_frame_out
    monkeypatch.setattr(app, "first_frame_out", lambda: (frames.append(1), first_frame_out()))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: bool(frames))
        assert isinstance(app.screen, MainScreen)
        assert whole == []
        shown = _styles_of(app)
        assert len(shown) > 20
        app.update_styles(app.screen)  # what Textual's resume would have done
        assert _styles_of(app) == shown
        await ready(pilot)
