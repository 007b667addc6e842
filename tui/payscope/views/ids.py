"""Ids typed by a person: what is wrong with one, said before anything is sent.

The rule is the service's (`payscope.api.vocabulary.ID_RE`, which the models use too): 1 to 64
letters, digits, '_' or '-'. Filters and forms of every area check ids with these.
"""

from __future__ import annotations

from payscope.api.vocabulary import ID_MAX, ID_RE
from payscope.views.filters import Filter, Term
from payscope.widgets.text import visible


def id_problem(value: str, noun: str) -> str:
    """What is wrong with an id typed for the service, said for a person ("" if nothing)."""
    if ID_RE.fullmatch(value):
        return ""
    if len(value) > ID_MAX:
        return f"A {noun} id is {ID_MAX} characters at most."
    odd = sorted({c for c in value if not ID_RE.fullmatch(c)})
    return f"A {noun} id has only letters, digits, '_' and '-', not {visible(' '.join(odd))}."


def check_id(value: str, noun: str) -> str:
    """`value` if the service takes it as an id, else a ValueError saying why (for filters)."""
    problem = id_problem(value, noun)
    if problem:
        raise ValueError(f"`{visible(value)}`: {problem}")
    return value


def id_term(keys: tuple[str, ...], request_field: str, noun: str, example: str) -> Term:
    """`payment:pay_…`: an id the service filters on (`request_field` of the list request)."""

    def apply(value: str, result: Filter) -> None:
        result.server[request_field] = check_id(value, noun)

    return Term(keys, f"{keys[0]}:{example}", apply)
