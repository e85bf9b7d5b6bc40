"""Convert a puzzle between its exchange formats: the JSON puzzle document, f-puzzles and ISS strings.

``convert(source, fmt)`` reads any puzzle input (:func:`pipeline.core.puzzle.parse_puzzle`) and
writes it as :data:`PUZZLE_FORMATS` names; :func:`format_for_target` picks the format from a
target file's extension. The ``convert`` subcommand is the command-line face of these two.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pipeline.core.errors import PuzzleError
from pipeline.core.fpuzzles import document_from_fpuzzles, looks_like_fpuzzles
from pipeline.core.fpuzzles_write import fpuzzles_payload
from pipeline.core.parse import _read_source
from pipeline.core.textin import last_stdin_text
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import Puzzle, parse_puzzle

__all__ = ["PUZZLE_FORMATS", "TEXT_FIELDS", "convert", "format_for_target", "text_fields", "unwritten_fields",
           "write_puzzle"]

#: Format name -> (what it is, the file extensions that choose it).
PUZZLE_FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "json": ("the JSON puzzle document", (".json",)),
    "fpuzzles": ("an f-puzzles link (its payload compressed with LZ-string)", (".fpuzzles", ".fpz")),
    "iss": ("an ISS constraint string (Interactive Sudoku Solver)", (".iss", ".iss.txt")),
}
#: A document's free text (kept out of the model, so out of the Puzzle): what each format holds of it.
TEXT_FIELDS = ("title", "author", "source", "notes")
#: Format name -> document field -> its field there (f-puzzles' ``ruleset`` is read as ``notes``).
_FIELDS_IN = {"json": {key: key for key in TEXT_FIELDS},
              "fpuzzles": {"title": "title", "author": "author", "notes": "ruleset"},
              "iss": {}}


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


def text_fields(source: Any) -> dict[str, str]:
    """The free text (:data:`TEXT_FIELDS`) of a puzzle input that is a JSON document or an
    f-puzzles link (a dict, text or a file); empty for any other input, or one that does not read.

    Parameters
    ----------
    source : object
        What :func:`~pipeline.core.puzzle.parse_puzzle` was given.

    Returns
    -------
    dict of str to str
    """
    doc: Any = source
    if not isinstance(source, dict):
        try:
            if not isinstance(source, (str, Path)):
                return {}
            if str(source) == "-":   # read once already, by the parse
                text = last_stdin_text()
            elif isinstance(source, Path) or os.path.isfile(source):
                text, _ = _read_source(Path(source), "puzzle")
            else:   # the puzzle's own text: a document or a link given inline
                text = source
            doc = (document_from_fpuzzles(text) if looks_like_fpuzzles(text) else
                   json.loads(text) if text.lstrip().startswith("{") else {})
        except (PuzzleError, ValueError, RecursionError):
            return {}
    if not isinstance(doc, dict):
        return {}
    return {key: doc[key] for key in TEXT_FIELDS if isinstance(doc.get(key), str) and doc[key]}


def unwritten_fields(fields: dict[str, str], fmt: str) -> list[str]:
    """The fields of ``fields`` that format ``fmt`` has no place for (an ISS string: all of them).

    Parameters
    ----------
    fields : dict of str to str
        :func:`text_fields`' answer.
    fmt : str
        A name of :data:`PUZZLE_FORMATS`.

    Returns
    -------
    list of str
    """
    return [key for key in fields if key not in _FIELDS_IN.get(fmt, {})]


def write_puzzle(puzzle: Puzzle, fmt: str, where: str = "puzzle", fields: dict[str, str] | None = None) -> str:
    """The text of ``puzzle`` in format ``fmt`` (one line for f-puzzles and ISS, with a newline).

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.
    fmt : str
        A name of :data:`PUZZLE_FORMATS`.
    where : str
        How messages name the puzzle.
    fields : dict of str to str, optional
        Free text to write with it where the format has a place (:func:`text_fields`; the
        others: :func:`unwritten_fields`).
    """
    places = _FIELDS_IN.get(fmt, {})
    kept = {places[key]: value for key, value in (fields or {}).items() if key in places}
    if fmt == "json":
        return json.dumps({**kept, **puzzle.to_document()}, indent=1) + "\n"
    if fmt == "fpuzzles":
        return "https://www.f-puzzles.com/?load=" + fpuzzles_payload(puzzle, where, kept) + "\n"
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

    A document's or an f-puzzles link's title, author, source and notes go with it where the
    format has a place for them (:func:`unwritten_fields` names the others).

    Returns
    -------
    str

    Examples
    --------
    >>> convert(".Shape~4x4.AntiKing.~R1C1_2", "json").replace("\\n", "")
    '{ "size": 4, "box": "2x2", "givens": "2...............", "rules": [  {   "rule": "antiking"  } ]}'
    """
    return write_puzzle(parse_puzzle(source, **puzzle_options), fmt, fields=text_fields(source))
