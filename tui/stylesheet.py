"""The app's stylesheet: Textual's, with the same results for less work on every restyle.

Textual restyles a widget and everything under it whenever a class or a pseudo-class changes
(focus, hover, a class a screen toggles), and a widget with component classes (a DataTable has
nine, an Input five) is restyled once more per component, through a node made for the purpose.
Three things in `Stylesheet.apply` are done here with less work (measured 2026-11-26:
`Stylesheet.apply` was a fifth of the CPU of the TUI tests, and a quarter less with these):

- The rules that may apply are found by name, then put back in the stylesheet's order by
  filtering *every* rule of the stylesheet through a set (a Python `__hash__` call per rule).
  Here they are sorted by their position instead, which gives the same order.
- A component's styles are built from scratch on every restyle: a new node, its rules set one
  by one, then compared with the last ones to decide whether to repaint. Here the rules worked
  out for a component are kept; when they come out the same, the styles already in place are
  kept too (Textual would build equal ones and not repaint either). Only a change builds new
  styles, as Textual does.
- Textual matches a selector from the app down, trying its first part on every node of the
  path; here the last part is tried on the node itself first (`_placed`), which settles most
  candidate rules at once, as they fail on a class or a pseudo-class of the node.

`tests/tui/test_stylesheet.py` compares the matching (every rule on every node) and every
node's styles and component styles with Textual's own `Stylesheet`, on a tree of every kind of
selector and on the app's busiest screens; and every snapshot test runs on it.
The method bodies follow Textual 8's `Stylesheet.apply` and `_process_component_classes`
line by line where they are not changed.
"""

from __future__ import annotations

from collections import defaultdict
from operator import itemgetter
from typing import Any, cast

from textual.css.model import CombinatorType, RuleSet, Selector
from textual.css.styles import RenderStyles, RulesMap
from textual.css.stylesheet import _DEFAULT_STYLES, Stylesheet
from textual.css.types import CSSLocation, Specificity6
from textual.dom import DOMNode

from tui import css_cache

# Per node with component classes: {component: (the rules last worked out, the styles built
# from them)}.
_MEMO = "_payscope_component_rules"

_SAME = CombinatorType.SAME
_CHILD = CombinatorType.CHILD
_DESCENDENT = CombinatorType.DESCENDENT

_ORDER_PSEUDO = frozenset({"first-of-type", "last-of-type", "first-child", "last-child", "empty"})


class FastStylesheet(Stylesheet):
    """A `Stylesheet` that finds a node's rules without walking every rule, keeps a
    component's styles while its rules stay the same, and takes parsed CSS from the runs
    before (`tui.css_cache`)."""

    _positions_for: dict[str, list[RuleSet]] | None = None
    _positions: dict[int, int]
    _variables_for: dict[str, str] | None = None
    _variables_key: tuple[tuple[str, str], ...] = ()

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        """Textual's, consulting the rules parsed by earlier runs first. CSS with errors is
        never kept (Textual raises on it, each time)."""
        cache_key = (css, read_from, is_default_rules, tie_breaker, scope)
        known = self._parse_cache.get(cache_key)
        if known is not None:
            return known
        disk = css_cache.active()
        if disk is None:
            return super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        if self._variables_for is not self._variables:  # new variables: a theme
            self._variables_key = tuple(sorted(self._variables.items()))
            self._variables_for = self._variables
        key = (*cache_key, self._variables_key)
        rules: list[RuleSet] | None = disk.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            if not any(rule.errors for rule in rules):
                disk.put(key, rules)
        else:
            self._parse_cache[cache_key] = rules
        return rules

    def reparse(self) -> None:
        """Textual's `reparse`, parsing in a stylesheet of this class, which consults the cache
        (Textual's makes a plain `Stylesheet`)."""
        stylesheet = type(self)(variables=self._variables)
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            stylesheet.add_source(
                css,
                read_from=read_from,
                is_default_css=is_defaults,
                tie_breaker=tie_breaker,
                scope=scope,
            )
        try:
            stylesheet.parse()
        except Exception:
            self._invalid_css.update(stylesheet._invalid_css)
            raise
        else:
            self._rules = stylesheet.rules
            self._rules_map = None
            self.source = stylesheet.source
            self._require_parse = False

    def _candidate_rules(self, node: DOMNode) -> list[RuleSet]:
        """The rules whose last selector names `node`, in the order Textual applies them (the
        stylesheet's order, reversed)."""
        rules_map = self.rules_map
        if self._positions_for is not rules_map:
            rules = self.rules
            count = len(rules)
            self._positions = {id(rule): count - index for index, rule in enumerate(rules)}
            self._positions_for = rules_map
        found: dict[int, RuleSet] = {}
        for name in rules_map.keys() & node._selector_names:
            for rule in rules_map[name]:
                found[id(rule)] = rule
        if len(found) < 2:
            return list(found.values())
        return [found[key] for key in sorted(found, key=self._positions.__getitem__)]

    def _node_rules(
        self, node: DOMNode, cache: dict[tuple[Any, ...], RulesMap] | None
    ) -> RulesMap | None:
        """The rules map `Stylesheet.apply` sets on `node` (None: it sets none)."""
        rule_attributes: defaultdict[str, list[tuple[Specificity6, object]]]
        rule_attributes = defaultdict(list)
        rules_map = self.rules_map
        rules = self._candidate_rules(node)
        all_pseudo_classes: set[str] = set().union(*[rule.pseudo_classes for rule in rules])
        node._has_hover_style = "hover" in all_pseudo_classes
        node._has_focus_within = "focus-within" in all_pseudo_classes
        node._has_order_style = not all_pseudo_classes.isdisjoint(_ORDER_PSEUDO)
        node._has_odd_or_even = "odd" in all_pseudo_classes or "even" in all_pseudo_classes

        cache_key: tuple[Any, ...] | None = None
        if cache is not None and all_pseudo_classes.isdisjoint(
            self._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE
        ):
            cache_key = (
                node._parent,
                (None if node._id is None else (node._id if f"#{node._id}" in rules_map else None)),
                node.classes,
                node._pseudo_classes_cache_key,
                node._css_type_name,
            )
            cached_result = cache.get(cache_key)
            if cached_result is not None:
                return cached_result

        css_path_nodes = node.css_path_nodes
        last = len(css_path_nodes) - 1
        initial: set[str] = set()
        initial_defaults: set[str] = set()
        for rule in rules:
            is_default_rules = rule.is_default_rules
            tie_breaker = rule.tie_breaker
            for selector_set in rule.selector_set:
                selectors = selector_set.selectors
                if not _placed(selectors, len(selectors) - 1, css_path_nodes, last):
                    continue
                base_specificity = selector_set.specificity
                for key, rule_specificity, value in rule.styles.extract_rules(
                    base_specificity, is_default_rules, tie_breaker
                ):
                    if value is None:
                        if is_default_rules:
                            initial_defaults.add(key)
                        else:
                            initial.add(key)
                    rule_attributes[key].append((rule_specificity, value))

        if not rule_attributes:
            return None
        get_first_item = itemgetter(0)
        node_rules = cast(
            RulesMap,
            {
                name: max(specificity_rules, key=get_first_item)[1]
                for name, specificity_rules in rule_attributes.items()
            },
        )
        rules_dict = cast(dict[str, object], node_rules)
        for initial_rule_name in initial:
            if rules_dict[initial_rule_name] is None:
                default_rules = [
                    rule for rule in rule_attributes[initial_rule_name] if not rule[0][0]
                ]
                if default_rules:
                    rules_dict[initial_rule_name] = max(default_rules, key=get_first_item)[1]
                else:
                    initial_defaults.add(initial_rule_name)
        for initial_rule_name in initial_defaults:
            if rules_dict[initial_rule_name] is None:
                default_rules = [rule for rule in rule_attributes[initial_rule_name] if rule[0][0]]
                if default_rules:
                    rule_value = max(default_rules, key=get_first_item)[1]
                else:
                    rule_value = getattr(_DEFAULT_STYLES, initial_rule_name)
                rules_dict[initial_rule_name] = rule_value
        if cache_key is not None and cache is not None:
            cache[cache_key] = node_rules
        return node_rules

    def apply(
        self,
        node: DOMNode,
        *,
        animate: bool = False,
        cache: dict[tuple[Any, ...], RulesMap] | None = None,
    ) -> None:
        node_rules = self._node_rules(node, cache)
        if node_rules is not None:
            self.replace_rules(node, node_rules, animate=animate)
        self._process_component_classes(node)

    def _process_component_classes(self, node: DOMNode) -> None:
        component_classes = node._get_component_classes()
        if not component_classes:
            return
        memo: dict[str, tuple[RulesMap | None, RenderStyles]] | None = node.__dict__.get(_MEMO)
        if memo is None:
            memo = {}
            setattr(node, _MEMO, memo)
        refresh_node = False
        old_component_styles = node._component_styles.copy()
        node._component_styles.clear()
        for component in sorted(component_classes):
            old_styles = old_component_styles.get(component)
            kept = memo.get(component)
            # Matched on the node the kept styles were built on (it holds nothing else: the
            # component's class, under `node`), else on a new one, as Textual does.
            virtual_node = kept[1].node if kept is not None else None
            if virtual_node is None:
                virtual_node = DOMNode(classes=component)
                virtual_node._attach(node)
            rules = self._node_rules(virtual_node, None)
            if kept is not None and old_styles is kept[1] and rules == kept[0]:
                styles = old_styles  # the same rules: the same styles, nothing to repaint
            else:
                if kept is not None:  # new rules: new styles, on a node of their own
                    virtual_node = DOMNode(classes=component)
                    virtual_node._attach(node)
                if rules is not None:
                    self.replace_rules(virtual_node, rules, animate=False)
                styles = virtual_node.styles
                if not refresh_node and old_styles != styles:
                    refresh_node = True
            memo[component] = (rules, styles)
            node._component_styles[component] = styles
        if refresh_node:
            node.refresh()


def _placed(selectors: list[Selector], index: int, path: list[DOMNode], at: int) -> bool:
    """True if `selectors[index]` matches `path[at]` and the selectors before it match nodes
    above, as their combinators say: Textual's `_check_selectors`, read from the right.

    Textual tries the first selector against every node from the app down, then the next...;
    here the last selector is tried on the node itself first, which settles most rules at
    once (the rules looked at are those whose last selector names the node, and most fail
    on a class or a pseudo-class). The same pairs of selector and node decide either way."""
    selector = selectors[index]
    if not selector.check(path[at]):
        return False
    combinator = selector.combinator
    if index == 0:
        # The first selector: anywhere on the path, or, tied to nothing before it, the top.
        return combinator is _DESCENDENT or at == 0
    if combinator is _SAME:  # the same node (`Button.-primary`, `DataTable:focus`)
        return _placed(selectors, index - 1, path, at)
    if combinator is _CHILD:
        return at > 0 and _placed(selectors, index - 1, path, at - 1)
    return any(_placed(selectors, index - 1, path, above) for above in range(at - 1, -1, -1))
