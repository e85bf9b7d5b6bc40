"""The ``check`` subcommand: is an export directory one whole set (or a single exported file whole)?"""
from __future__ import annotations

import argparse

from formats.check import SetCheck, check_export
from pipeline.core.errors import some_of


def cmd_check(args: argparse.Namespace) -> int:
    """One line per problem (exit 1), or one line saying the set is whole (exit 0), one for each
    one-file export found beside it; then, either way, one naming the files of an export's ending
    not checked."""
    result = check_export(args.directory)
    for line in result.problems:
        print(line)
    if result.problems:
        _print_not_checked(result)
        return 1
    if result.single is not None:
        print(_single_whole(result))
        return 0
    if result.manifest is not None:
        print(f"{result.directory}: whole: {_count(result.files, 'file')} with the SHA-256 manifest.json records, "
              f"{_count(result.models, 'model file')} read back as its model, nothing of another export")
    for single in result.singles:
        print(_single_whole(single))
    _print_not_checked(result)
    return 0


def _print_not_checked(result: SetCheck) -> None:
    """The line naming files of an export's ending that no manifest lists (a set with problems
    named them too: they are not its problem, nor checked)."""
    if result.others:
        print(f"{result.directory}: not checked, not written by an export: {some_of(result.others)}")


def _single_whole(result: SetCheck) -> str:
    """The line of a whole one-file export."""
    return (f"{result.single}: whole: the SHA-256 {result.manifest.name if result.manifest else 'its manifest'} "
            f"records, read back as its model")


def _count(n: int, noun: str) -> str:
    """``1 file``, ``2 files``, ``0 files``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``check``."""
    p = subparsers.add_parser("check", help="check that an export directory holds one whole set: every file's "
                                            "SHA-256 and model against manifest.json, no files of another export "
                                            "(or one exported file against its NAME.manifest.json; one-file "
                                            "exports in the directory against theirs)")
    p.add_argument("directory", metavar="PATH", help="an export directory (export --to DIR), or a single exported "
                                                     "file (export --to NAME.lp) or its NAME.lp.manifest.json")
    p.set_defaults(func=cmd_check)
