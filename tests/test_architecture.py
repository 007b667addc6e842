"""The layers below the UI never import Textual, and the API contract stays free of the
sandbox and the listener (see the architecture card). Checked on the source itself, so it
holds whether or not import-linter runs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BELOW_UI = ["tui/api", "tui/sandbox", "tui/webhooks", "tui/config.py", "tui/secrets.py"]


def _python_files(rel: str) -> list[Path]:
    path = ROOT / rel
    if path.is_file():
        return [path]
    return sorted(path.rglob("*.py"))


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _offenders(rels: list[str], forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for rel in rels:
        for path in _python_files(rel):
            for module in _imported_modules(path):
                if module == forbidden or module.startswith(forbidden):
                    bad.append(f"{path.relative_to(ROOT)} imports {module}")
    return bad


def test_layers_below_the_ui_never_import_textual() -> None:
    assert _offenders(BELOW_UI, ("textual", "textual.")) == []


def test_api_never_imports_the_sandbox_or_the_listener() -> None:
    forbidden = ("tui.sandbox", "tui.webhooks")
    assert _offenders(["tui/api"], forbidden) == []


def test_the_checker_sees_a_textual_import(tmp_path: Path) -> None:
    # Guard against a checker that passes because it looks at nothing.
    offender = tmp_path / "leak.py"
    offender.write_text("from textual.app import App\n", encoding="utf-8")
    assert "textual.app" in _imported_modules(offender)
    assert _python_files("tui/api"), "tui/api has no Python files to check"


def test_importing_the_lower_layers_does_not_load_textual() -> None:
    code = (
        "import sys, importlib\n"
        "for m in ['tui.api', 'tui.api.client', 'tui.config', 'tui.secrets',"
        " 'tui.webhooks.signing']:\n"
        "    try: importlib.import_module(m)\n"
        "    except ModuleNotFoundError as e:\n"
        "        if not e.name.startswith('tui'): raise\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "False"
