"""`payscope` with no subcommand: the TUI. Imported only when it starts (`payscope.cli` parses
the command line).

On a first run the background sandbox starts now, before any heavier import
(tui/payscope/app/launch.py). On the others the first frame shows the page cached by the last
run (tui/payscope/areas/payments/cache.py) while the client starts.
"""

from __future__ import annotations

import argparse
import os
from typing import NoReturn

from payscope.app.launch import spawn_at_launch
from payscope.core.paths import ENV_SANDBOX_MODE


def run(args: argparse.Namespace) -> NoReturn:
    """Start the TUI as `args` say; the process ends with it."""
    if os.environ.get(ENV_SANDBOX_MODE, "") != "in-process":
        spawn_at_launch(args.profile, args.seed)
    # The App and Textual only now, once a first run's background sandbox is on its way.
    from payscope.app import exit_now, run_tui

    exit_now(run_tui(args))
