"""`payscope keys` at work: a profile's keys in the OS keyring (the rules it keeps:
`payscope.cli.keys`). Imported only when the subcommand runs."""

from __future__ import annotations

import argparse
import getpass
import sys

from payscope.api.terminal import say
from payscope.core import secrets
from payscope.core.secrets import KIND_LABELS, SecretsError

MAX_KEY_LENGTH = 4096


def _error(message: str) -> None:
    say(f"payscope keys: {message}", file=sys.stderr)


def _command(args: argparse.Namespace, action: str) -> str:
    parts = ["payscope keys", action]
    if args.profile != "default":
        parts.append(f"--profile {args.profile}")
    if args.kind != "secret":
        parts.append(f"--kind {args.kind}")
    return " ".join(parts)


def _refuse_argv_key(args: argparse.Namespace) -> int:
    # The value is never echoed: it may be a real key, and stderr ends up in logs.
    command = _command(args, "set")
    say(
        "payscope keys: refusing to take a key from the command line: arguments are saved in "
        "your shell history and visible to other users in the process list.\n"
        "  type it at a hidden prompt:   " + command + "\n"
        "  or pipe it in:                " + command + " < key.txt\n"
        "                                pass show payscope/key | " + command + "\n"
        "If that was a real key, remove it from your shell history (and consider rotating it).\n"
        "docs/configuration.md#keys explains where keys live.",
        file=sys.stderr,
    )
    return 2


def _read_key(args: argparse.Namespace) -> str:
    label = KIND_LABELS[args.kind]
    if sys.stdin is None:
        raise SecretsError("no standard input to read the key from")
    if sys.stdin.isatty():
        try:
            return getpass.getpass(f"{label} for profile {args.profile!r} (input hidden): ")
        except EOFError:
            return ""
    value = sys.stdin.read(MAX_KEY_LENGTH + 1)
    if len(value) > MAX_KEY_LENGTH:
        raise SecretsError(f"standard input is longer than {MAX_KEY_LENGTH} characters: not a key")
    # Only the newline that `echo` or a file adds; anything else is part of what was given.
    if value.endswith("\r\n"):
        return value[:-2]
    return value.removesuffix("\n")


def _describe(value: str, kind: str) -> str:
    found = secrets.key_kind(value)
    detail = "" if kind == "webhook" else f" ({found})"
    return f"{secrets.mask(value)}{detail}"


def _set(args: argparse.Namespace) -> int:
    store = secrets.backend()  # fail before asking for a key we could not keep
    value = _read_key(args)
    label = KIND_LABELS[args.kind]
    if not value:
        _error(
            f"no {label} given: type it at the prompt, or pipe it in "
            f"(`{_command(args, 'set')} < key.txt`)"
        )
        return 1
    secrets.set_secret(args.profile, value, args.kind, allow_production=args.allow_production)
    say(
        f"stored the {label} {_describe(value, args.kind)} for profile {args.profile!r} in the "
        f"OS keyring ({secrets.backend_name(store)}; service {secrets.SERVICE!r}, "
        f"user {secrets.username(args.profile, args.kind)!r})"
    )
    if args.kind == "secret" and secrets.env_api_key():
        say(
            f"note: {secrets.ENV_API_KEY} is set in this environment and overrides the stored key "
            "for runs started from it",
            file=sys.stderr,
        )
    return 0


def _show(args: argparse.Namespace) -> int:
    label = KIND_LABELS[args.kind]
    value = secrets.get_secret(args.profile, args.kind)
    if value is None:
        _error(
            f"no {label} stored for profile {args.profile!r}; add one with "
            f"`{_command(args, 'set')}` (it prompts, or reads stdin)"
        )
        return 1
    say(f"{args.profile} {label}: {_describe(value, args.kind)}, in the OS keyring")
    if args.kind == "secret" and secrets.env_api_key():
        say(
            f"note: {secrets.ENV_API_KEY} is set and overrides it for runs in this environment",
            file=sys.stderr,
        )
    return 0


def _delete(args: argparse.Namespace) -> int:
    label = KIND_LABELS[args.kind]
    if secrets.delete_secret(args.profile, args.kind):
        say(f"deleted the {label} of profile {args.profile!r} from the OS keyring")
    else:
        say(f"no {label} was stored for profile {args.profile!r}; nothing to delete")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run `payscope keys` with the arguments parsed by :mod:`payscope.cli`; return the exit
    code."""
    if args.value is not None:
        if args.action == "set":
            return _refuse_argv_key(args)
        _error(f"{args.action} takes no value; choose the profile with --profile NAME")
        return 2
    try:
        secrets.check_profile_name(args.profile)
        if args.action == "set":
            return _set(args)
        if args.action == "show":
            return _show(args)
        return _delete(args)
    except (SecretsError, ValueError) as exc:
        _error(str(exc))
        return 1
