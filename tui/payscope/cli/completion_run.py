"""`payscope completion` and `payscope __complete` at work: the scripts made from payscope's
own parser, and the words a Tab asks for. Imported only when the subcommand runs
(`payscope.cli.completion` parses it; what is static and what is asked: there)."""

from __future__ import annotations

import argparse
import shlex
import sys
import tomllib
from dataclasses import dataclass, field

from payscope.cli.export import AREAS
from payscope.core import paths

# Metavars of values that are files or directories (completed as such).
_FILE_METAVARS = ("FILE", "PATH", "DIR", "BODY|@FILE", "STORY|FILE")


@dataclass
class Command:
    """What completes after one subcommand (or, named "", after `payscope` alone)."""

    name: str
    help: str = ""
    options: list[str] = field(default_factory=list)
    # option -> what its value is: a list of words, "profiles", "files" or "" (anything)
    values: dict[str, list[str] | str] = field(default_factory=dict)
    words: list[str] = field(default_factory=list)  # the positionals' fixed choices
    files: bool = False  # a positional is a file


def _value_kind(action: argparse.Action) -> list[str] | str:
    if action.choices is not None:
        return [str(c) for c in action.choices]
    if action.dest == "profile":
        return "profiles"
    metavar = str(action.metavar or "")
    return "files" if metavar in _FILE_METAVARS else ""


def _describe(parser: argparse.ArgumentParser, name: str, help_text: str) -> Command:
    command = Command(name, help_text)
    for action in parser._actions:  # argparse has no public way to list a parser's options
        if isinstance(action, argparse._SubParsersAction):
            continue
        if action.option_strings:
            if action.help == argparse.SUPPRESS:
                continue
            command.options += action.option_strings
            if action.nargs != 0:
                for option in action.option_strings:
                    command.values[option] = _value_kind(action)
        elif action.choices is not None:
            command.words += [str(c) for c in action.choices]
        elif str(action.metavar or "") in _FILE_METAVARS:
            command.files = True
    return command


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """The top level, then each subcommand shown in `payscope --help`, as `parser` (the whole
    command line's) has them."""
    top = _describe(parser, "", "")
    found = [top]
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: str(choice.help or "") for choice in action._choices_actions}
        for name, sub in action.choices.items():
            if name not in helps:
                continue  # hidden (__complete)
            top.words.append(name)
            found.append(_describe(sub, name, helps[name]))
    for command in found:
        if command.name == "trigger":
            command.words = scenario_names()
    return found


def _words(values: list[str]) -> str:
    return shlex.quote(" ".join(values))


def bash_script(parser: argparse.ArgumentParser) -> str:
    every = commands(parser)
    top = every[0]
    takes_value = sorted(o for o, kind in top.values.items())
    lines = [
        "# payscope completion for bash: `source <(payscope completion bash)`, or save it as",
        "# ~/.local/share/bash-completion/completions/payscope (made by payscope completion bash)",
        "_payscope() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" cmd="" i word',
        '    (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"',
        "    for (( i = 1; i < COMP_CWORD; i++ )); do",
        '        word="${COMP_WORDS[i]}"',
        '        case "$word" in',
        f"            {'|'.join(takes_value)}) (( i++ )) ;;",
        "            -*) ;;",
        '            *) cmd="$word"; break ;;',
        "        esac",
        "    done",
        '    local options="" values="-" words="" files=""',
        '    case "$cmd" in',
    ]
    for command in every:
        lines.append(f"        {shlex.quote(command.name) if command.name else chr(39) * 2})")
        lines.append(f"            options={_words(command.options)}")
        if command.words:
            lines.append(f"            words={_words(command.words)}")
        if command.files:
            lines.append("            files=1")
        lines.append('            case "$prev" in')
        kinds: dict[str, list[str]] = {}
        for option, kind in command.values.items():
            key = kind if isinstance(kind, str) else "words:" + " ".join(kind)
            kinds.setdefault(key, []).append(option)
        for key, options in kinds.items():
            if key == "profiles":
                action = 'values="$("${COMP_WORDS[0]}" __complete profiles 2>/dev/null)"'
            elif key == "files":
                action = 'values="" files=1'
            elif key.startswith("words:"):
                action = f"values={shlex.quote(key[len('words:') :])}"
            else:
                action = 'values=""'
            lines.append(f"                {'|'.join(options)}) {action} ;;")
        lines += ["            esac", "            ;;"]
    lines += [
        '        *) options="" ;;',
        "    esac",
        '    if [[ "$values" != "-" ]]; then',
        '        COMPREPLY=($(compgen -W "$values" -- "$cur"))',
        '    elif [[ "$cur" == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$options" -- "$cur"))',
        "    else",
        '        COMPREPLY=($(compgen -W "$words" -- "$cur"))',
        "    fi",
        '    if [[ -n "$files" ]]; then',
        '        COMPREPLY+=($(compgen -f -- "$cur"))',
        "    fi",
        "}",
        "complete -o default -F _payscope payscope",
        "",
    ]
    return "\n".join(lines)


def zsh_script(parser: argparse.ArgumentParser) -> str:
    return "\n".join(
        [
            "#compdef payscope",
            "# payscope completion for zsh: `source <(payscope completion zsh)` in ~/.zshrc",
            "# (made by payscope completion zsh; it uses zsh's bashcompinit)",
            "autoload -U +X bashcompinit && bashcompinit",
            bash_script(parser),
        ]
    )


def fish_script(parser: argparse.ArgumentParser) -> str:
    every = commands(parser)
    lines = [
        "# payscope completion for fish: save it as ~/.config/fish/completions/payscope.fish",
        "# (made by payscope completion fish)",
        "complete -c payscope -f",
    ]

    def condition(command: Command) -> str:
        if not command.name:
            return "__fish_use_subcommand"
        return f"__fish_seen_subcommand_from {command.name}"

    for command in every:
        cond = condition(command)
        if not command.name:
            for sub in every[1:]:
                lines.append(
                    f"complete -c payscope -n {shlex.quote(cond)} -a {shlex.quote(sub.name)} "
                    f"-d {shlex.quote(sub.help)}"
                )
        elif command.words:
            lines.append(f"complete -c payscope -n {shlex.quote(cond)} -a {_words(command.words)}")
        if command.files:
            lines.append(f"complete -c payscope -n {shlex.quote(cond)} -F")
        for option in command.options:
            flag = f"-l {option[2:]}" if option.startswith("--") else f"-s {option[1:]}"
            kind = command.values.get(option)
            extra = ""
            if kind == "profiles":
                extra = " -x -a '(payscope __complete profiles)'"
            elif kind == "files":
                extra = " -r -F"
            elif isinstance(kind, list):
                extra = f" -x -a {_words(kind)}"
            elif kind == "":
                extra = " -x"
            lines.append(f"complete -c payscope -n {shlex.quote(cond)} {flag}{extra}")
    return "\n".join(lines) + "\n"


def profile_names() -> list[str]:
    """The profiles of profiles.toml (read as plain TOML: nothing to validate for a Tab)."""
    try:
        data = tomllib.loads((paths.config_dir() / paths.CONFIG_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return []
    profiles = data.get("profiles")
    if not isinstance(profiles, dict):
        return []
    return sorted(name for name in profiles if name.isprintable() and " " not in name)


def scenario_names() -> list[str]:
    """The Trigger scenarios' names, from the one catalogue."""
    # Read only when asked for: a Tab that asks for the profiles does not load the catalogue.
    from payscope.api.scenarios import SCENARIOS

    return [s.name for s in SCENARIOS]


def words_of(kind: str, parser: argparse.ArgumentParser) -> list[str]:
    """What `payscope __complete KIND` prints, one a line."""
    if kind == "profiles":
        return profile_names()
    if kind == "scenarios":
        return scenario_names()
    if kind == "areas":
        return list(AREAS)
    return [c.name for c in commands(parser)[1:]]


def run(args: argparse.Namespace) -> int:
    # The whole command line's parser, handed over by `payscope.cli.main` (this module never
    # imports the package that imports it).
    parser: argparse.ArgumentParser = args.command_line
    if args.command == "__complete":
        for word in words_of(args.kind, parser):
            print(word)
        return 0
    script = {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}[args.shell](parser)
    sys.stdout.write(script)
    return 0
