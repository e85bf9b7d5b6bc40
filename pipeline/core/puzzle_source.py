"""What a puzzle source holds before the puzzle is checked: a document (JSON, an f-puzzles link,
an ISS string; from text, a file or standard input) or a plain grid read by
:func:`pipeline.core.parse.read_puzzle`; and how messages name rule entries (:func:`entry_names`).

:func:`pipeline.core.puzzle.parse_puzzle` checks what is read here into a Puzzle
(:mod:`pipeline.core.puzzle` re-exports :func:`entry_names`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.core.document import looks_like_document, read_document, refuse_json_of_no_document
from pipeline.core.errors import PuzzleError, SeveralPuzzles
from pipeline.core.fpuzzles import looks_like_fpuzzles, read_fpuzzles
from pipeline.core.iss_detect import looks_like_iss
from pipeline.core.layout import Layout
from pipeline.core.parse import literal_text, read_puzzle
from pipeline.core.source_text import _path_kind
from pipeline.core.textin import read_stdin, read_text_file

__all__ = ["entry_names"]


@dataclass(frozen=True)
class _Parts:
    grid: np.ndarray
    h: int
    w: int
    variant: str
    regions: np.ndarray | None
    layout: Layout | None = None
    rule_entries: list | None = None   # None: no rules given at all
    where: str = "rules"
    rule_names: list[str] | None = None   # how messages name each entry (default: by where)
    values: tuple[int, ...] | None = None   # the document's value set
    extra: tuple = ()   # the document's extra cells (pipeline.core.extracells)


def _read_parts(source, box, variant, regions, size, rules, rules_where: str = "--rule") -> _Parts:
    """What a puzzle source holds, before the puzzle is checked."""
    rows = isinstance(source, (list, tuple)) and bool(source) and isinstance(source[0], (list, tuple, np.ndarray))
    if not isinstance(source, (str, os.PathLike, dict, np.ndarray)) and not rows and not hasattr(source, "__array__"):
        # None, a number or a list of no rows would be read as its text ('bad character N', "[]": 2 cells)
        what = f"an empty {type(source).__name__}" if isinstance(source, (list, tuple)) and not source else \
            f"a {type(source).__name__} of {type(source[0]).__name__}" if isinstance(source, (list, tuple)) else \
            type(source).__name__
        raise PuzzleError(f"puzzle: expected text, a file path, a grid (array or list of rows) or a puzzle "
                          f"document (dict), found {what}")
    text, where, read = _document_text(source)
    if text is not None or isinstance(source, dict):
        doc: dict | str = source if isinstance(source, dict) else str(text)
        where = where or "puzzle"   # a dict has no file name
        # an ISS string stays text: read_document reads it (importing the ISS reader only then)
        fpuzzles_names = None
        if text is not None and not looks_like_iss(text) and not looks_like_document(text):
            doc, fpuzzles_names = read_fpuzzles(text, where)
            where = f"{where} (f-puzzles)"
            fpuzzles_names = [f"{where}: {name}" for name in fpuzzles_names]
        parts = read_document(doc, box=box, variant=variant, regions=regions, size=size, extra_rules=rules,
                              where=where)
        # the document's own entries by their place in its list (an f-puzzles element by its own
        # name), the command line's as --rule K
        extra = len(rules or [])
        own = len(parts.rules) - extra
        names = (fpuzzles_names or parts.rule_names or entry_names(f"{where}: rules", own)) \
            + entry_names(rules_where, extra)
        return _Parts(parts.grid, parts.h, parts.w, parts.variant, parts.regions, parts.layout, parts.rules,
                      f"{where}: rules", names, parts.values, parts.extra)
    stdin_text = None
    if isinstance(source, str) and source == "-":
        if not where.strip():
            raise PuzzleError("<stdin>: empty input: expected a puzzle")
        source = stdin_text = literal_text(where)   # standard input, read once by _document_text: never a path
    # a file's text as _document_text read it, not the file read again; a .json clue list: the rows
    # NumPy read from it (its messages still name the file), not scanned again; a .json grid: the
    # rows json.loads read, not parsed again
    file_text, value = read or (None, None)
    alphabet: list = []   # the value set of a 16x16 grid in 0-F, when it is one
    try:
        if isinstance(value, np.ndarray):
            plain = read_puzzle(value, box=box, variant=variant, regions=regions, size=size, where=str(source))
        else:
            plain = read_puzzle(source, box=box, variant=variant, regions=regions, size=size, text=file_text,
                                rows=value, alphabet=alphabet)
    except SeveralPuzzles as e:   # standard input's text goes along, for a table of one record
        raise SeveralPuzzles(str(e), stdin_text=stdin_text) from None
    return _Parts(plain.grid, plain.h, plain.w, plain.variant, plain.regions, None,
                  list(rules) if rules else None, rules_where, values=alphabet[0] if alphabet else None)


def entry_names(where: str, count: int) -> list[str]:
    """How messages name the entries of a rule list: the command line's ``--rule`` options
    counted from 1 (``--rule 2``), a JSON list's entries by index (``rules[1]``).

    Parameters
    ----------
    where : str
        ``--rule``, or the list's name.
    count : int
        Entries in the list.

    Returns
    -------
    list of str
    """
    return [f"--rule {k + 1}" if where == "--rule" else f"{where}[{k}]" for k in range(count)]


def _document_text(source) -> tuple[str | None, str, tuple[str, np.ndarray | list | None] | None]:
    """``(text, where, None)`` when ``source`` (a string, a path, or ``-``) holds a JSON puzzle
    document, an f-puzzles link or an ISS constraint string; ``(None, text, None)`` for standard
    input holding another puzzle form (it cannot be read twice); ``(None, "", (text, value))`` for
    a file holding another puzzle form (read once: the grid reader takes its text), ``value``
    the ``(N, 3)`` rows of a ``.json`` clue list or the rows ``json.loads`` read of a ``.json``
    grid (:func:`refuse_json_of_no_document`), else None; ``(None, "", None)`` otherwise."""
    if isinstance(source, str) and (looks_like_document(source) or looks_like_fpuzzles(source)
                                    or looks_like_iss(source)):
        return source, "puzzle", None
    if isinstance(source, str) and source == "-":
        text = read_stdin()
        if looks_like_document(text) or looks_like_fpuzzles(text) or looks_like_iss(text):
            return text, "<stdin>", None
        return None, text, None
    if isinstance(source, (str, Path)) and _path_kind(str(source)) == "file":
        text = read_text_file(Path(source), "puzzle")
        if looks_like_document(text) or looks_like_fpuzzles(text) or looks_like_iss(text):
            return text, str(source), None
        if str(source).lower().endswith(".json"):   # JSON, but not a document: say so, not 'bad character'
            return None, "", (text, refuse_json_of_no_document(text, str(source)))
        return None, "", (text, None)
    return None, "", None
