"""`payscope completion bash|zsh|fish`: a completion script made from payscope's own parser,
and `payscope __complete KIND`, which the scripts ask for what changes without a new payscope.

What is static and what is asked:
- subcommands, options and their fixed choices (formats, areas, `sandbox status|stop`...) and
  the scenario names are written into the script when it is printed, from the parser and the
  one scenario catalogue (tui/payscope/api/scenarios.py): a Tab then costs no Python start (about
  0.1 s
  each), and a new payscope brings them by printing the script again;
- profile names are asked at each Tab (`payscope __complete profiles`, which reads only
  profiles.toml): they change whenever the user adds one, and a stale list would be wrong.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, examples_epilog, text

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("completion", "__complete")
# What `payscope __complete KIND` lists (the completion scripts ask it).
COMPLETION_KINDS = ("profiles", "scenarios", "areas", "commands")
EXAMPLES = ["source <(payscope completion bash)"]


def add_parser(subparsers: Subparsers) -> None:
    completion = subparsers.add_parser(
        "completion",
        epilog=examples_epilog(EXAMPLES, "completion"),
        help="print a shell completion script (bash, zsh, fish)",
        description=text(
            "Print the completion script of SHELL: subcommands, options, profile "
            "names, areas and scenario names. Install: `payscope completion bash > "
            "~/.local/share/bash-completion/completions/payscope` (see docs/cli.md for zsh and "
            "fish)."
        ),
        formatter_class=Formatter,
    )
    completion.add_argument("shell", choices=["bash", "zsh", "fish"])

    hidden = subparsers.add_parser("__complete", formatter_class=Formatter)
    hidden.add_argument("kind", choices=COMPLETION_KINDS)


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope completion` and `payscope __complete` (the exit code)."""
    from payscope.cli import completion_run  # the whole parser's walk, once the subcommand runs

    return completion_run.run(args)
