"""The Analytics area's charts from an answer: colours per group, the time figure, its legend
and the breakdown's bars. The view puts them in its charts; nothing here touches a widget."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rich.text import Text

from payscope.areas.analytics import data
from payscope.areas.analytics.data import OTHER, Answer, Choice, Metric
from payscope.areas.analytics.numbers import compact, data_compact_major, format_value
from payscope.widgets.charts import Bar, BarFigure, Layer, TimeFigure
from payscope.widgets.format import brand_label, status_colour, theme_colour
from payscope.widgets.text import visible

# Colours of groups, in order (a status keeps its own colour where it is free).
PALETTE = (
    "primary",
    "accent",
    "secondary",
    "success",
    "error",
    "warning",
    "status-requires-capture",
    "status-processing",
    "status-requires-review",
    "status-partially-captured",
)
BREAKDOWN_BARS = 10


def palette(variables: Mapping[str, str]) -> list[str]:
    """The palette's colours in this theme, each once."""
    colours: list[str] = []
    for name in PALETTE:
        colour = theme_colour(variables, name)
        if colour not in colours:
            colours.append(colour)
    return colours


def group_colours(
    choice: Choice, groups: list[data.GroupKey], variables: Mapping[str, str]
) -> dict[data.GroupKey, str]:
    """A colour per group: a status its own where free, the palette in order otherwise."""
    colours = palette(variables)
    used: set[str] = set()
    out: dict[data.GroupKey, str] = {}
    statuses = choice.group in data.STATUS_DIMENSIONS
    for group in groups:
        if group == OTHER:
            out[group] = theme_colour(variables, "muted")
            continue
        wanted = status_colour(group, variables) if statuses and group else None
        if wanted is None or wanted in used:
            wanted = next((c for c in colours if c not in used), colours[len(out) % len(colours)])
        used.add(wanted)
        out[group] = wanted
    return out


def group_names(choice: Choice, groups: list[data.GroupKey]) -> list[str]:
    """Group labels; card networks as people write them (`AmericanExpress` -> American
    Express)."""
    names = data.group_names(groups)
    if choice.group != "card_network":
        return names
    return [
        brand_label(name) if group not in (None, OTHER, data.ALL) else name
        for name, group in zip(names, groups, strict=True)
    ]


def series_groups(
    choice: Choice, groups: list[data.GroupKey], metric: Metric
) -> list[data.GroupKey]:
    """The groups the time chart draws: the largest, the rest as one (a rate: all together)."""
    if choice.group is None:
        return [None]
    if not metric.additive:
        return [data.ALL]  # a rate per group and bucket is noise: the breakdown has each
    named = [g for g in groups if g != OTHER]
    if len(named) <= data.TOP_GROUPS:
        return named
    return [*named[: data.TOP_GROUPS - 1], OTHER]


@dataclass(frozen=True)
class Series:
    """The time chart of an answer: its figure, its title and its legend."""

    figure: TimeFigure
    title: str
    legend: Text


def series(
    answer: Answer,
    metric: Metric,
    choice: Choice,
    groups: list[data.GroupKey],
    colours: dict[data.GroupKey, str],
    variables: Mapping[str, str],
) -> Series:
    """The time chart of `metric` over the answer's buckets, a layer per group shown."""
    shown = series_groups(choice, groups, metric)
    values = answer.series(metric, shown)
    currency = answer.shown_currency()
    y_format: Callable[[float], str]
    if metric.per_currency:
        y_format = lambda v: data_compact_major(v, currency)  # noqa: E731
    elif metric.kind == "rate":
        y_format = lambda v: f"{v:.0f}%"  # noqa: E731
    else:
        y_format = compact
    colour_of = dict(colours)
    colour_of[OTHER] = theme_colour(variables, "muted")
    colour_of[data.ALL] = theme_colour(variables, "primary")
    if choice.group is None:
        colour_of[None] = theme_colour(variables, "primary")
    names = group_names(choice, shown)
    layers = tuple(
        Layer(name, tuple(row), colour_of.get(group) or colour_of.get(None) or "")
        for group, name, row in zip(shown, names, values, strict=True)
    )
    first = True
    labels = []
    for bucket in answer.buckets:
        labels.append(data.bucket_label(bucket, answer.granularity, first=first))
        first = False
    figure = TimeFigure(
        tuple(labels),
        layers,
        stacked=metric.additive,
        y_format=y_format,
        y_max=100.0 if metric.kind == "rate" else None,
        integer=metric.kind == "count",
    )
    per = data.GRANULARITY_LABEL[answer.granularity]
    title = f"{metric.label} per {per}"
    if metric.per_currency and currency:
        title += f" · {currency}"
    legend = Text()
    group = choice.group
    if shown == [data.ALL] and group is not None:
        legend.append("■ ", style=layers[0].colour)
        dimension = data.dimension_label(group).lower()
        legend.append("all together ")
        legend.append(f"(each {dimension} in the breakdown)", style="dim")
    elif group is not None:
        for layer in layers:
            # Spaces end a span: pictures of the screen drop those a span starts with.
            legend.append("■ ", style=layer.colour)
            legend.append(f"{visible(layer.label)}  ")
    if metric.per_currency and len(answer.currencies()) > 1 and group != "currency":
        legend.append(f"in {visible(currency or '')} (u: another currency)", style="dim")
    return Series(figure, title, legend)


def breakdown_bars(
    answer: Answer,
    metric: Metric,
    choice: Choice,
    groups: list[data.GroupKey],
    colours: dict[data.GroupKey, str],
) -> BarFigure | None:
    """A bar per group with a value, the largest first (None: no group has one)."""
    now, _before = answer.group_sums(metric)
    currency = answer.shown_currency()
    bars = []
    names = group_names(choice, groups)
    for name, key in zip(names, groups, strict=True):
        value = metric.value(now.get(key, {}))
        if value is None or key not in now:
            continue
        bars.append(Bar(name, value, colours.get(key, ""), format_value(metric, value, currency)))
    if not bars:
        return None
    return BarFigure(tuple(bars[:BREAKDOWN_BARS]))
