"""The names of the files in a sandbox's data dir (standard library only, nothing imported).

What reads them at the TUI's launch (`tui.sandbox.daemon`, `tui.prefetch`) runs beside
Textual's import: importing `tui.sandbox.db` there for a file name brought pydantic and
orjson with it (about 0.1 s of CPU taken from the first paint).
"""

from __future__ import annotations

DB_FILE = "sandbox.sqlite3"
