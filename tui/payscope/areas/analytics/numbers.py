"""The Analytics area's numbers as text: values, axis labels, the totals line and the table.

The view shows them; the figures (`figures`) label their axes with them. No widget here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rich.text import Text

from payscope.api.models._iso import minor_units
from payscope.areas.analytics import data
from payscope.areas.analytics.data import Answer, Choice, Metric
from payscope.views.columns import CellContext, Column
from payscope.widgets.format import format_amount, theme_colour
from payscope.widgets.text import safe, visible


@dataclass(frozen=True)
class NumberRow:
    """A row of the table: one group (or the total) this window and the previous one."""

    key: str
    label: str
    colour: str | None
    now: float | None
    before: float | None
    metric: Metric
    currency: str | None
    share: str = ""
    total: bool = False


def format_value(metric: Metric, value: float | None, currency: str | None) -> str:
    """A metric's value as people read it: `1,204`, `64.1%`, `1,234.50 USD`."""
    if value is None:
        return "-"
    if metric.kind == "rate":
        return f"{value:.1f}%"
    if metric.per_currency:
        return format_amount(round(value), currency or "")
    return f"{value:,.0f}"


def _major(value: float, currency: str | None) -> float:
    try:
        exponent = int(minor_units(currency or ""))
    except ValueError:
        return value
    return float(value) / float(10**exponent)


def compact(value: float) -> str:
    """An axis label: 950, 1.2k, 3.4M."""
    size = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if size >= limit:
            shown = f"{value / limit:.1f}".removesuffix(".0")
            return f"{shown}{suffix}"
    return f"{value:.0f}" if value == int(value) else f"{value:.1f}"


def data_compact_major(value: float, currency: str | None) -> str:
    """An amount axis label in major units (`1.2k` for 1,200.00)."""
    return compact(_major(value, currency))


def _change_text(row: NumberRow, variables: Mapping[str, str]) -> Text:
    shown, sign = data.change(row.metric, row.now, row.before)
    colour = {1: "success", -1: "error"}.get(sign, "muted")
    return Text(shown, style=theme_colour(variables, colour), no_wrap=True)


def _label_cell(row: NumberRow, context: CellContext) -> Text:
    if row.total:
        return Text("Total", style="bold")
    text = Text()
    text.append("■ " if row.colour else "  ", style=row.colour or "")
    text.append_text(safe(row.label, empty=data.NONE_LABEL))
    return text


def _value_cell(value_of: str) -> Callable[[NumberRow, CellContext], Text]:
    def render(row: NumberRow, context: CellContext) -> Text:
        value = row.now if value_of == "now" else row.before
        style = "bold" if row.total else ""
        # A currency code comes from the service: shown literally.
        shown = format_value(row.metric, value, row.currency)
        return Text(visible(shown), style=style, no_wrap=True)

    return render


NUMBER_COLUMNS: tuple[Column[NumberRow], ...] = (
    Column("label", "Group", 12, _label_cell, flex=(12, 28)),
    Column("now", "This period", 12, _value_cell("now"), flex=(12, 18)),
    Column("before", "Previous", 12, _value_cell("before"), flex=(12, 18)),
    Column("change", "Change", 9, lambda r, c: _change_text(r, c.variables)),
    Column("share", "Share", 6, lambda r, c: Text(r.share), 70),
)


def totals_line(
    answer: Answer, choice: Choice, variables: Mapping[str, str], *, narrow: bool
) -> Text:
    """Every metric of the domain, its total and its change from the previous window."""
    currency = answer.shown_currency()
    line = Text()
    accent = theme_colour(variables, "accent")
    # Spaces end the span before them rather than start the next: pictures of the screen
    # (SVG) drop the spaces a span starts with.
    metrics = data.metrics_of(choice.domain)
    last_amount = max((i for i, m in enumerate(metrics) if m.per_currency), default=-1)
    seen = len(answer.currencies())
    for index, metric in enumerate(metrics):
        now, before = answer.totals(metric)
        shown, sign = data.change(metric, now, before)
        chosen = metric.key == choice.metric
        line.append(f"{metric.label} ", style=f"bold underline {accent}" if chosen else "")
        line.append(f"{visible(format_value(metric, now, currency))} ", style="bold")
        colour = {1: "success", -1: "error"}.get(sign, "muted")
        line.append(f"{shown}   ", style=theme_colour(variables, colour))
        if index == last_amount and currency and seen > 1:
            # Amounts are never added across currencies: say the others are left out.
            line.append(f"({visible(currency)} only, of {seen} currencies)   ", style="dim")
    if not narrow:  # the table's title says it too
        line.append(f"vs {answer.previous.text()}", style="dim")
    return line


def number_rows(
    answer: Answer,
    metric: Metric,
    choice: Choice,
    colours: dict[data.GroupKey, str],
    names_of: Callable[[list[data.GroupKey]], list[str]],
) -> list[NumberRow]:
    """The table's rows: each group (amounts by currency: each currency) and the total."""
    each_currency = metric.per_currency and choice.group == "currency"
    now, before = answer.group_sums(metric, each_currency=each_currency)
    total_now, total_before = answer.totals(metric)
    currency = answer.shown_currency()
    rows: list[NumberRow] = []
    if choice.group is not None:
        table_groups = answer.groups(metric, each_currency=each_currency)
        names = names_of(table_groups)
        for name, key in zip(names, table_groups, strict=True):
            value = metric.value(now.get(key, {}))
            rows.append(
                NumberRow(
                    key if key is not None else "\x00none",
                    name,
                    colours.get(key),
                    value,
                    metric.value(before.get(key, {})),
                    metric,
                    key if each_currency else currency,
                    share=data.share(value, total_now)
                    if metric.additive and not each_currency
                    else "",
                )
            )
    if not each_currency:
        rows.append(
            NumberRow(
                "\x00total",
                "Total",
                None,
                total_now,
                total_before,
                metric,
                currency,
                share="100%" if metric.additive and total_now else "",
                total=True,
            )
        )
    return rows


def table_title(answer: Answer, metric: Metric, choice: Choice) -> str:
    """The table's title: the metric, and the previous window (or the one currency)."""
    each_currency = metric.per_currency and choice.group == "currency"
    currency = answer.shown_currency()
    title = f"{metric.label}: this period and the previous ({answer.previous.text()})"
    if metric.per_currency and not each_currency and currency:
        title = f"{metric.label} in {currency}: this period and the previous"
    return title
