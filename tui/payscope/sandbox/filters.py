"""`Where`: the WHERE clause of a list route, built from its optional filters.

Column names come from the code, never from the request; every value is a bound parameter.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from payscope.sandbox.clock import iso, parse_iso


class Where:
    """Terms joined with AND; a filter left empty adds nothing."""

    def __init__(self) -> None:
        self.terms: list[str] = []
        self.args: list[Any] = []

    def equal(self, column: str, value: Any) -> None:
        """`column = value` when `value` is set (not None or empty)."""
        if value:
            self.terms.append(f"{column} = ?")
            self.args.append(value)

    def among(self, column: str, values: Iterable[Any] | None) -> None:
        """`column IN (values)` when there are any."""
        chosen = list(values or ())
        if chosen:
            self.terms.append(f"{column} IN ({','.join('?' * len(chosen))})")
            self.args.extend(chosen)

    def created(self, gte: str | None, lte: str | None, column: str = "created") -> None:
        """The inclusive time range a list filter gives, as the ISO text the column holds."""
        for bound, op in ((gte, ">="), (lte, "<=")):
            if bound:
                self.terms.append(f"{column} {op} ?")
                self.args.append(iso(parse_iso(bound)))

    def sql(self) -> str:
        """` WHERE ...`, or "" with no terms."""
        return f" WHERE {' AND '.join(self.terms)}" if self.terms else ""

    def page(
        self, conn: sqlite3.Connection, table: str, limit: int, offset: int, columns: str = "data"
    ) -> tuple[list[Any], int]:
        """One page of matching rows, newest first, and how many match in all."""
        clause = self.sql()
        rows = conn.execute(
            f"SELECT {columns} FROM {table}{clause} ORDER BY created DESC, rowid DESC "
            "LIMIT ? OFFSET ?",
            (*self.args, limit, offset),
        ).fetchall()
        total = int(conn.execute(f"SELECT COUNT(*) FROM {table}{clause}", self.args).fetchone()[0])
        return rows, total
