"""Running code in a fresh interpreter, for tests of what a path imports."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.waits import HANG


def modules_loaded(code: str, names: tuple[str, ...]) -> list[str]:
    """Which of the modules `names` a fresh interpreter has loaded once `code` has run."""
    script = f"{code}\nimport sys\nprint(sorted(m for m in {names!r} if m in sys.modules))\n"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG
    )
    assert out.returncode == 0, out.stderr
    loaded: list[str] = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    return loaded
