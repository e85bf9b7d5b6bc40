"""Convert a puzzle between its exchange formats: the JSON puzzle document, f-puzzles and ISS strings.

``convert(source, fmt)`` reads any puzzle input (:func:`pipeline.core.puzzle.parse_puzzle`) and
writes it as :data:`PUZZLE_FORMATS` names; :func:`format_for_target` picks the format from a
target file's extension. The ``convert`` subcommand is the command-line face of these two.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline.core.errors import PuzzleError
from pipeline.core.fpuzzles_write import fpuzzles_payload
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import Puzzle, parse_puzzle

__all__ = ["PUZZLE_FORMATS", "convert", "format_for_target", "write_puzzle"]

#: Format name -> (what it is, the file extensions that choose it).
PUZZLE_FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "json": ("the JSON puzzle document", (".json",)),
    "fpuzzles": ("an f-puzzles link (its payload compressed with LZ-string)", (".fpuzzles", ".fpz")),
    "iss": ("an ISS constraint string (Interactive Sudoku Solver)", (".iss", ".iss.txt")),
}


def format_for_target(target: str, fmt: str | None = None) -> str:
    """The format to write ``target`` in: ``fmt`` when given, else by the file's extension.

    Parameters
    ----------
    target : str
        The output path (``-`` for standard output needs ``fmt``).
    fmt : str, optional
        A name of :data:`PUZZLE_FORMATS`.

    Returns
    -------
    str
    """
    if fmt is not None:
        if fmt not in PUZZLE_FORMATS:
            raise PuzzleError(f"convert: unknown format {fmt!r}; expected one of {', '.join(PUZZLE_FORMATS)}")
        return fmt
    # a '.gz' after the extension: gzip-compressed (atomic_open writes it so; every reader reads it)
    name = Path(target).name.lower().removesuffix(".gz")
    matches = [(len(ext), key) for key, (_, exts) in PUZZLE_FORMATS.items() for ext in exts if name.endswith(ext)]
    if not matches:
        raise PuzzleError(f"convert: cannot tell the format of {target!r} from its extension "
                          f"({', '.join(e for _, es in PUZZLE_FORMATS.values() for e in es)}, each with .gz "
                          f"allowed after it); give --format")
    return max(matches)[1]


def write_puzzle(puzzle: Puzzle, fmt: str, where: str = "puzzle") -> str:
    """The text of ``puzzle`` in format ``fmt`` (one line for f-puzzles and ISS, with a newline).

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.
    fmt : str
        A name of :data:`PUZZLE_FORMATS`.
    where : str
        How messages name the puzzle.
    """
    if fmt == "json":
        return json.dumps(puzzle.to_document(), indent=1) + "\n"
    if fmt == "fpuzzles":
        return "https://www.f-puzzles.com/?load=" + fpuzzles_payload(puzzle, where) + "\n"
    if fmt == "iss":
        return iss_from_puzzle(puzzle, where) + "\n"
    raise PuzzleError(f"convert: unknown format {fmt!r}; expected one of {', '.join(PUZZLE_FORMATS)}")


def convert(source: "str | Path | dict", fmt: str, **puzzle_options: Any) -> str:
    """Read a puzzle from any input form and write it in ``fmt``.

    Parameters
    ----------
    source : str, Path or dict
        What :func:`~pipeline.core.puzzle.parse_puzzle` reads (a document, an f-puzzles link,
        an ISS string, a grid, a file).
    fmt : str
        A name of :data:`PUZZLE_FORMATS`.
    **puzzle_options
        ``box``, ``variant``, ``regions``, ``size``, ``rules`` for ``parse_puzzle``.

    Returns
    -------
    str

    Examples
    --------
    >>> convert(".Shape~4x4.AntiKing.~R1C1_2", "json").replace("\\n", "")
    '{ "size": 4, "box": "2x2", "givens": "2...............", "rules": [  {   "rule": "antiking"  } ]}'
    """
    return write_puzzle(parse_puzzle(source, **puzzle_options), fmt)
