"""Input parsing: puzzle text, files, arrays, clue lists and regions -> grids (no rules checked).

Every parser raises :class:`~pipeline.core.errors.PuzzleError` with a one-line message that names
what is wrong and where. The results are plain arrays; :func:`pipeline.core.puzzle.parse_puzzle`
turns them into a checked :class:`~pipeline.core.puzzle.Puzzle`, so this module does not know the
Puzzle type (and ``pipeline.core.puzzle`` can re-export these names without an import cycle).

The compact cell alphabet (``.``/``0`` empty, ``1-9``, then ``A-Z`` for 10..35) is decoded in one
place, :func:`compact_values`, for one line or many lines at once (batch input). A 16x16 puzzle
written in the hexadoku alphabet ``0-F`` (``0`` cells, ``.`` or ``-`` empty, no ``G``) is read
as the values 0..15 when :func:`read_puzzle` is asked to (``alphabet``), its ambiguous kin refused.
"""
from __future__ import annotations

import json
import math
import os
import re
from functools import lru_cache
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeAlias

import numpy as np

from pipeline.core.errors import clip, followed_by_text, PuzzleError
# the memory guards live in limits; parse re-exports them, as it did before they moved
from pipeline.core.boxlines import RULED_LINE, drawn_box, drawn_rows
from pipeline.core.cells_text import drop_trailing_empty_column as _drop_trailing_empty_column
from pipeline.core.cells_text import (letter_past_digits, matlab_matrix_problem, matlab_matrix_rows, matrix_of_rows,
                                      nested_list_rows, plain_clue_list, refuse_number_column)
from pipeline.core.cells_text import rows_as_text as _rows_text, unseen_character as _unseen
from pipeline.core.cells_text import several_puzzles as _several_puzzles, split_cells as _split_cells
from pipeline.core.cells_text import token_matrix, usual_width as _usual_width
from pipeline.core.cells_text import MAX_TOKEN_DIGITS, whole_number   # imported from here by rules and documents
from pipeline.core.cells_text import COMPACT_DIGITS, REGION_ALPHABET   # the compact cell alphabet, imported from here
# where a source's text comes from lives in source_text; read_source and _path_kind are imported from here too
from pipeline.core.source_text import MAX_PATH_CHARS as MAX_PATH_CHARS, _path_kind as _path_kind, _read_source
from pipeline.core.source_text import read_source as read_source
from pipeline.core.hexadoku import (AMBIGUOUS, ONE_TO_G, ZERO_BASED_SIDE, ambiguous_message, zero_based_digits,
                                    zero_based_kinds, zero_based_numbers)
from pipeline.core.limits import MAX_BYTES_ENV, check_grid_size, memory_limit, model_bytes
from pipeline.core.textin import MAX_TEXT_BYTES, read_stdin
from pipeline.core.fpuzzles import looks_like_fpuzzles
from pipeline.core.iss_detect import looks_like_iss
from pipeline.core.variants import least_side
# box shapes, the numbers-to-grid readers and the regions parser live in their own modules (split
# for the 800-line limit); parse re-exports the names its callers import from here
from pipeline.core.box_shape import _box_n, _resolve_box, default_box as default_box, parse_box as parse_box
from pipeline.core.clue_list import MAX_CLUE_LIST_SIZE as MAX_CLUE_LIST_SIZE, _clue_list_to_grid, _matrix_to_grid
from pipeline.core.regions_text import REGION_BYTES_PER_CELL as REGION_BYTES_PER_CELL, parse_regions as parse_regions
from pipeline.core.regions_text import region_text_bytes as region_text_bytes

#: What a puzzle, grid or regions argument may be: text, a path (``str`` or ``os.PathLike``),
#: ``"-"`` (stdin), an array or nested lists (checked at run time, named in the error).
Source: TypeAlias = Any
#: A box shape: ``"HxW"``, ``(h, w)`` or None (the default for N).
Box: TypeAlias = str | tuple[int, int] | None

__all__ = ["COMPACT_DIGITS", "REGION_ALPHABET", "MAX_BYTES_ENV", "MAX_TEXT_BYTES", "MAX_TOKEN_DIGITS", "read_stdin",
           "PuzzleParts", "region_text_bytes",
           "compact_values", "default_box", "literal_text", "whole_number", "looks_like_document", "parse_box", "read_puzzle", "parse_grid", "parse_regions",
           "read_grid_text",
           "check_grid_size", "memory_limit", "model_bytes"]


@lru_cache(maxsize=None)
def _compact_table() -> np.ndarray:
    """Byte -> cell value of the compact alphabet (either letter case), ``-1`` for any other byte."""
    table = np.full(256, -1, dtype=np.int64)
    for value, char in enumerate("." + COMPACT_DIGITS):
        table[ord(char)] = value
        table[ord(char.lower())] = value
    table[ord("0")] = 0
    table.setflags(write=False)
    return table


def compact_values(texts: str | Sequence[str], n: int) -> np.ndarray:
    """Decode compact grid lines, all at once: ``P`` strings of ``N*N`` characters -> ``(P, N*N)``.

    Parameters
    ----------
    texts : str or sequence of str
        One line or many, each exactly ``N*N`` characters of the compact alphabet.
    n : int
        The grid size ``N``.

    Returns
    -------
    ndarray of int64, shape (P, N*N)
        Cell values row-major, ``0`` for empty (``.`` or ``0``), ``-1`` for a character outside
        the alphabet. Values above ``N`` are returned as they are: the caller names them.

    Raises
    ------
    PuzzleError
        When a line is not ``N*N`` characters long.

    Examples
    --------
    >>> compact_values(["1.2A", "0b3?"], 2).tolist()
    [[1, 0, 2, 10], [0, 11, 3, -1]]
    """
    texts = [texts] if isinstance(texts, str) else list(texts)
    size = n * n
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    wrong = np.flatnonzero(lengths != size)
    if wrong.size:
        k = int(wrong[0])
        raise PuzzleError(f"compact grid {k + 1}: {lengths[k]} characters; expected {size} ({n}x{n})")
    raw = np.frombuffer("".join(texts).encode("ascii", "replace"), dtype=np.uint8)
    return _compact_table()[raw].reshape(len(texts), size)


class PuzzleParts(NamedTuple):
    """What :func:`read_puzzle` found: the fields of a :class:`~pipeline.core.puzzle.Puzzle`."""

    grid: np.ndarray
    h: int
    w: int
    variant: str
    regions: np.ndarray | None


def read_puzzle(source: Source, *, box: Box = None, variant: str | None = None, regions: Source | None = None,
                size: int | None = None, where: str | None = None, size_name: str = "--size",
                text: str | None = None, rows: list | None = None, alphabet: list | None = None) -> PuzzleParts:
    """Parse any puzzle input into its parts (see :func:`pipeline.core.puzzle.parse_puzzle`).

    Parameters
    ----------
    source : str, path, ndarray or list
        As :func:`pipeline.core.puzzle.parse_puzzle` takes.
    box : str or (int, int), optional
        Box shape.
    variant : str, optional
        Default classic (jigsaw with regions).
    regions : str, path or ndarray, optional
        Jigsaw region ids.
    size : int, optional
        N of an N-by-3 clue list; a grid must have this size.
    where : str, optional
        How messages name the input (default: its file name, else ``puzzle``).
    size_name : str
        How messages name ``size`` (a puzzle document says ``'size'``).
    text : str, optional
        The text of ``source`` (a file path) when the caller read it already: not read again.
    rows : list, optional
        What ``json.loads(text)`` gave when the caller parsed it already (a ``.json`` file's
        grid as an array of rows): not parsed again.
    alphabet : list, optional
        Given, a 16x16 grid written in the hexadoku alphabet ``0-F`` (``0`` a value: it has
        ``0`` cells, ``.`` or ``-`` cells and no ``G``) is read as the values 0..15: the grid
        holds the digits 1..16 and the value set ``(0, ..., 15)`` is appended to the list; one
        whose ``0`` could be either reading is refused (:func:`_zero_based`). Without it ``0``
        is empty, as ever (a document's givens: its ``"values"`` says the alphabet).
    """
    if not isinstance(source, (str, os.PathLike, np.ndarray, list, tuple, dict)) and hasattr(source, "__array__"):
        source = np.asarray(source)   # a DataFrame, a numpy scalar: the array they hold, not their text
    source = _rows_text(source, where or "puzzle") or source   # rows holding "5", "" or None: as their JSON text
    if isinstance(source, np.ndarray) or (isinstance(source, (list, tuple)) and source and
                                           isinstance(source[0], (list, tuple, np.ndarray))):
        matrix = matrix_of_rows(source, where or "puzzle")   # True is no 1, 10**30 no rounded float
        grid = _matrix_to_grid(matrix, box, size, where or "puzzle")
        text = None
    else:
        text, read_from = _read_source(source, "puzzle") if text is None else (text, str(source))
        grid = _text_to_grid(text, where or read_from, box, size, size_name, least=least_side(variant, regions is not None),
                             rows=rows, alphabet=alphabet)
    n = grid.shape[0]
    if size is not None and size != n:
        raise PuzzleError(f"{where or 'puzzle'}: {size_name} {size} but the grid is {n}x{n}")
    if box is None and text is not None and grid.shape[1] == n:   # the box lines of a printed grid (format_grid's)
        box = drawn_box(text, n)
    h, w = _resolve_box(box, n)
    region_grid = None if regions is None else parse_regions(regions, n)
    if variant is None:
        variant = "jigsaw" if region_grid is not None else "classic"
    return PuzzleParts(grid, h, w, variant, region_grid)


def looks_like_document(text: str) -> bool:
    """Does ``text`` hold a JSON puzzle document (its first non-blank character is ``{``)?

    Parameters
    ----------
    text : str
        A file's or the command line's text.
    """
    return text.lstrip("\ufeff \t\r\n").startswith("{")


def literal_text(text: str) -> str:
    """``text`` as content that is never taken for a file path (a trailing newline: a path has
    none), for text that came from standard input, a puzzle document's field or a batch record.

    Parameters
    ----------
    text : str
        Puzzle or region text.

    Examples
    --------
    >>> literal_text("/etc/passwd")
    '/etc/passwd\\n'
    """
    return text if text.endswith("\n") else text + "\n"


def parse_grid(source: Source, *, box: Box = None, size: int | None = None,
               size_from: str | None = None, drawn: list | None = None, least: int = 1,
               alphabet: list | None = None) -> np.ndarray:
    """Read a grid (any form :func:`~pipeline.core.puzzle.parse_puzzle` takes) without checking the rules.

    Used to read a claimed solution, whose rule violations are a verdict, not a parse error.

    Parameters
    ----------
    source : str, path, ndarray or list
        As :func:`pipeline.core.puzzle.parse_puzzle` takes.
    box : str or (int, int), optional
        Box shape.
    size : int, optional
        N of an N-by-3 clue list, the puzzle's side; a compact line of ``size ** 2`` cells is
        expected, one of another square length is read as that grid (verify's verdict names
        the shapes) unless ``size_from`` is given.
    size_from : str, optional
        Where ``size`` comes from when the user gave it for the grid itself (``--size``): then a
        compact line must have ``size ** 2`` cells, and the message names it.
    drawn : list, optional
        Gets the box shape the text draws (:func:`~pipeline.core.boxlines.drawn_box`, None if none).
    least : int
        The variant's least side: a compact grid below it is returned with its bad characters, for
        the size check to refuse it by its size.
    alphabet : list, optional
        As :func:`read_puzzle`'s: a 16x16 grid in ``0-F`` gets the value set 0..15 appended (its
        digits 1..16 returned); an :class:`~pipeline.core.hexadoku.Alphabet` with ``answer``
        reads a grid of either reading (no ``.`` nor ``-``) as ``0-F``, an answer having no
        empty cells, and a 16x16 of numbers 0..15 by the same rule. Without it ``0`` is empty.
    """
    if not isinstance(source, (str, os.PathLike, np.ndarray, list, tuple, dict)) and hasattr(source, "__array__"):
        source = np.asarray(source)   # a DataFrame: the array it holds, not its printed text (as read_puzzle)
    if isinstance(source, (list, tuple)) and source and all(
            hasattr(row, "__array__") and not isinstance(row, (np.ndarray, np.generic)) for row in source):
        source = [np.asarray(row) for row in source]   # rows that are Series: their values, not their printed text
    if isinstance(source, (list, tuple)) and source and not isinstance(source[0], (list, tuple, np.ndarray)) and any(
            isinstance(v, (str, np.generic)) for v in source):   # their str() is no grid's text: "np.int64(1)", "('1...'"
        raise PuzzleError(f"grid: expected text, a file path, an array or a list of rows, found a "
                          f"{type(source).__name__} of {type(source[0]).__name__}")
    # an array of text ('1e0', '\u0665' in it): read as its text is, as read_puzzle reads it (astype(float) took 1, 5)
    rows = _rows_text(source, "grid") if isinstance(source, (np.ndarray, list, tuple)) else None
    if rows is None and isinstance(source, (list, tuple)) and source and isinstance(source[0], (list, tuple, np.ndarray)):
        # rows (lists, tuples, numpy rows) read as read_puzzle reads them: their str() is no grid's text
        source = matrix_of_rows(source, "grid")
    if isinstance(source, np.ndarray) and rows is None:
        grid = _matrix_to_grid(source, box, size, "grid")   # NaN is empty, 0 a cell written 0
        return _answer_numbers(grid, source == 0, alphabet) if source.dtype.kind in "iuf" else grid
    source = source if rows is None else literal_text(rows)
    inline = isinstance(source, str) and (looks_like_document(source) or looks_like_fpuzzles(source)
                                          or looks_like_iss(source))
    text, where = (str(source), "grid") if inline else _read_source(source, "grid")
    text = _answer_rows(text, where) or text   # solve's JSON answer: its grid
    if looks_like_document(text) or looks_like_fpuzzles(text) or looks_like_iss(text):
        # its JSON read as rows of cells would be "line 2 has 2 cells"
        raise PuzzleError(f"{where}: a puzzle document (JSON, f-puzzles or ISS) where a grid was expected: a grid is "
                          "its cells alone (one line, rows of cells, or CSV)")
    grid = _text_to_grid(text, where, box, size, size_from or "the puzzle", strict=size_from is not None,
                         expected="a grid", least=least, alphabet=alphabet)
    if size_from is not None and grid.shape[0] != size:   # any form (rows of cells, CSV), as parse_puzzle
        raise PuzzleError(f"{where}: {size_from} {size} but the grid is {grid.shape[0]}x{grid.shape[1]}")
    if drawn is not None:
        drawn.append(drawn_box(text, grid.shape[0]) if grid.shape[0] == grid.shape[1] else None)
    return grid


def _answer_rows(text: str, where: str) -> str | None:
    """The ``"grid"`` of the JSON answer ``solve --format json`` and ``import`` print, as rows of
    cells; None for any other text (a puzzle document has no ``"grid"``: it gets its own message)."""
    if not looks_like_document(text):
        return None
    try:
        answer = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(answer, dict) or "grid" not in answer or "givens" in answer or "rules" in answer:
        return None
    rows = answer["grid"]
    if not (isinstance(rows, list) and rows and all(isinstance(row, list) and row for row in rows)
            and all(isinstance(v, int) and not isinstance(v, bool) and abs(v) <= 2**31 for row in rows for v in row)):
        raise PuzzleError(f"{where}: its 'grid' is not a list of rows of whole numbers, as solve's JSON prints it")
    return drawn_rows(rows, answer.get("box"))   # solve's "box": boxes other than the side's squarest


def read_grid_text(source: Source) -> tuple[str, str]:
    """:func:`read_source` for a grid: the JSON answer ``solve --format json`` (and ``import``)
    prints gives its ``"grid"`` as rows of cells, so a grid reader takes it as it takes the grid
    ``solve`` prints.

    Parameters
    ----------
    source : str or path
        As :func:`parse_grid` takes (not an array).

    Returns
    -------
    (str, str)
        The text, and the file's name or ``grid``.
    """
    text, where = _read_source(source, "grid")
    return _answer_rows(text, where) or text, where


_HEADER = re.compile(r"[A-Za-z_][A-Za-z0-9_ ]+")   # "row", "col1": no cell is a letter and more
_NAME = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_ ]*")   # a header name, one letter too (r, c, v)
_INTEGER = re.compile(r"\s*[+-]?\d+\s*")


def _text_to_grid(text: str, where: str, box, size, size_name: str = "--size", strict: bool = True,
                  expected: str = "a puzzle", least: int = 1, rows: list | None = None,
                  alphabet: list | None = None) -> np.ndarray:
    if (clues := plain_clue_list(text)) is not None:   # [[1, 1, 5], ...] by NumPy: json.loads took 50 bytes a character
        return _clue_list_to_grid(clues, box, size, where)
    matrix_rows = matlab_matrix_rows(text)   # [1 2 3; 2 1 1]
    converted = refuse_number_column(matrix_rows or nested_list_rows(text, where, rows), where)   # [[5, 3, 0], ...]
    if converted is None and (problem := matlab_matrix_problem(text)):
        raise PuzzleError(f"{where}: {problem}")
    if matrix_rows is not None:   # a message's "line N" is the matrix's row N
        try:
            return _text_to_grid(matrix_rows, where, box, size, size_name, strict, expected, least,
                                 alphabet=alphabet)   # an answer's 0..15 as any grid of numbers
        except PuzzleError as e:
            raise PuzzleError(re.sub(r"\b[Ll]ine (\d+)", r"row \1 of the MATLAB matrix", str(e))) from None
    text = converted or text
    # (file line number, content) for every line that carries cells
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip(" \r\n\ufeff") if "\t" in raw else raw.strip()   # a tab at an end: an empty cell
        if line.startswith("#"):   # a comment is a whole line; a '#' anywhere else is a bad cell
            continue
        if line and (not RULED_LINE.match(line) or line.strip("\t") == ""):   # tabs alone: empty cells
            lines.append((number, line))
    if not lines:
        raise PuzzleError(f"{where}: empty input: expected {expected}")
    numbers = [k for k, _ in lines]
    if not any(ch in line for _, line in lines for ch in ",;"):
        # rows of compact cells, possibly decorated with '|' and spaces: "53.|.7.|..."
        compact = [re.sub(r"[|\s]", "", line) for _, line in lines]
        if len(compact) > 1 and compact[0].lower() == "puzzle":   # a one-column CSV of batch's input
            raise _several_puzzles(where, "a table with a 'puzzle' column")
        if len(compact) > 1 and all(len(row) == len(compact) for row in compact) and \
                any(len(tok) > 1 for _, line in lines for tok in re.split(r"[|\s]+", line)):
            return _compact_to_grid("".join(compact), where, box, size, size_name, strict, least, alphabet)
        if len(compact) == 1 and compact[0].lower() in ("puzzle", "solution", "grid", "givens"):
            # a CSV's header with no row under it (letters are cells of big grids, so only names)
            raise PuzzleError(f"{where}: only a header line ({compact[0]!r}): expected {expected}")
        if len(compact) == 1 and not re.search(r"\s", lines[0][1].replace("|", "")):
            return _compact_to_grid(compact[0], where, box, size, size_name, strict, least, alphabet)
        if len(compact) == 1:   # one line of groups ("53..7.... 6..195... ..."), or a puzzle and more
            grouped = _one_line_groups(lines[0][1].replace("|", " ").split(), where)
            if grouped is not None:
                return _compact_to_grid(grouped, where, box, size, size_name, strict, least, alphabet)
        if len(compact) > 1 and all(not re.search(r"[|\s]", line) for _, line in lines):
            width = _usual_width([len(text) for text in compact])
            for k, text in zip(numbers, compact):
                if len(text) != width:
                    raise PuzzleError(f"{where}: line {k} has {len(text)} cells; expected {width}")
            if width >= 16 and math.isqrt(width) ** 2 == width:   # whole puzzles, one a line
                raise _several_puzzles(where, f"{len(compact)} lines of {width} cells")
            raise PuzzleError(f"{where}: grid is {len(compact)}-by-{width}: must be N-by-3 or N-by-N")
    if any(name.strip(' "\'').lower() == "puzzle" for name in re.split(r"[,;\t]", lines[0][1])):
        raise _several_puzzles(where, "a table with a 'puzzle' column")   # any other names: before a row is split
    first = len(_split_cells(lines[0][1], where))
    if first == len(lines) > 3:   # an N x N grid of N lines: refused by its size before N*N cells are read
        check_grid_size(first, where)
    rows = [_split_cells(line, where) for _, line in lines]
    if any(all(sep in line for _, line in lines) for sep in ",;\t"):
        rows = _drop_trailing_empty_column(rows, where, lines[0][1][-1])
    if len(rows) == 1 and len(rows[0]) > 1 and _is_puzzle_length(len(rows[0][0])) and _is_compact(rows[0][0]):
        rest, side = lines[0][1].split(rows[0][0], 1)[1], math.isqrt(len(rows[0][0]))   # "530...079,extra"
        raise followed_by_text(where, f"a {side}x{side} puzzle string", rest)
    # NaN is how MATLAB and Excel write an empty cell: a first row of them is a grid row, not names
    header = all(_HEADER.fullmatch(t) and t.strip().lower() != "nan" for t in rows[0]) or _letter_header(rows)
    if header:
        if "puzzle" in (t.strip().lower() for t in rows[0]):
            raise _several_puzzles(where, "a table with a 'puzzle' column")
        rows, numbers = rows[1:], numbers[1:]
        if not rows and not any(ch in lines[0][1] for ch in ",;\t"):   # "hello world": words, not a CSV header
            raise PuzzleError(f"{where}: {clip(repr(lines[0][1]), 40)} is words, not cells: expected {expected}")
        if not rows:
            raise PuzzleError(f"{where}: only a header line: expected {expected}")
    if len(rows) == 1 and len(rows[0]) > 3 and math.isqrt(len(rows[0])) ** 2 == len(rows[0]):
        n = math.isqrt(len(rows[0]))
        rows = [rows[0][i * n:(i + 1) * n] for i in range(n)]
        numbers = numbers * n
    width = _usual_width([len(row) for row in rows])
    # an N-by-3 matrix is a clue list unless it is exactly 3x3 with nothing saying otherwise
    box_n = _box_n(box)
    clue_list = width == 3 and (len(rows) != 3 or header or (size or box_n or 3) != 3)
    for k, row in zip(numbers, rows):
        if len(row) != width:
            unit = "values; expected 3 (row,col,digit)" if clue_list else f"cells; expected {width}"
            raise PuzzleError(f"{where}: line {k} has {len(row)} {unit}")
    side = width if len(rows) == width else 0   # an N x N grid's letters past N are named, not "holds 33"
    if alphabet is not None and not clue_list and side == ZERO_BASED_SIDE and (cells := _hex_cells(rows)):
        return _compact_to_grid(cells, where, box, size, size_name, strict, least, alphabet)   # 0-F, separated
    matrix = token_matrix(rows, clue_list)   # plain numbers by NumPy (a Python call a cell took seconds)
    if matrix is None:   # anything else cell by cell: its value, or the first bad cell's message
        matrix = np.empty((len(rows), width), dtype=np.int64)
        for i, (k, row) in enumerate(zip(numbers, rows)):
            for j, tok in enumerate(row):
                # clue lists are located by file line, grids by their own row
                matrix[i, j] = _token_value(tok, where, k if clue_list else i + 1, j, clue_list, side)
    if clue_list:
        return _clue_list_to_grid(matrix, box, size, where, line_numbers=np.asarray(numbers))
    if side == ZERO_BASED_SIDE and getattr(alphabet, "answer", False):   # an answer's numbers 0..15
        written = ~np.isin(np.char.strip(np.asarray(rows, dtype=str)), [*_EMPTY_CELL, "-"])
        matrix = _answer_numbers(matrix, (matrix == 0) & written, alphabet)
    return _matrix_to_grid(matrix, box, size, where)


def _answer_numbers(grid: np.ndarray, zeros: np.ndarray, alphabet: list | None) -> np.ndarray:
    """A claimed 16x16 answer of numbers (``zeros``: its cells written ``0``) read as compact cells
    are (:func:`~pipeline.core.hexadoku.zero_based_numbers`): values 0..15 give their digits and
    the value set to ``alphabet``; a puzzle's numbers keep ``0`` empty."""
    square = grid.shape == zeros.shape == (ZERO_BASED_SIDE, ZERO_BASED_SIDE)
    digits = zero_based_numbers(grid, zeros) if square and getattr(alphabet, "answer", False) else None
    if digits is None or alphabet is None:
        return grid
    alphabet.append(tuple(range(ZERO_BASED_SIDE)))
    return digits


def _letter_header(rows: list[list[str]]) -> bool:
    """Whether the first of several 3-field rows is names, some of one letter, over rows of
    integers: the ``i,j,k``, ``r,c,v`` or ``row,col,v`` header of an N-by-3 clue list. Alone a
    letter is a cell (10..35), but a 3-wide grid is no puzzle, so three names over a row of
    integer triples are a header (and a later row's letter is named as that row's bad entry)."""
    if len(rows) < 2 or len(rows[0]) != 3 or not all(_NAME.fullmatch(t) for t in rows[0]):
        return False
    return any(len(row) == 3 and all(_INTEGER.fullmatch(t) for t in row) for row in rows[1:])


def _one_line_groups(tokens: list[str], where: str) -> str | None:
    """The cells of one line of space-separated groups of compact cells, as a site shows a grid's
    rows on one line (``53..7.... 6..195... ...``): the groups joined, when they are groups of
    compact cells of one length, two or more, adding up to a square of 16 or more; None for a
    line of fields (a clue list, a grid of numbers). A puzzle followed by other text is refused."""
    if len(tokens) < 2:
        return None
    compact, square = _is_compact, _is_puzzle_length

    joined = "".join(tokens)
    # groups of one length (rows, or a box's width): numbers of a grid or a clue list vary in
    # length ("9 10 .") or are single characters, and n*n of them of length L make no square
    # unless L is one, so they are never taken for groups
    if len({len(t) for t in tokens}) == 1 and len(tokens[0]) >= 2 and all(map(compact, tokens)) and square(len(joined)):
        return joined
    # a puzzle string or its groups (numbers are a grid's fields), then other text: refused by name
    width, groups = len(tokens[0]), 1
    while groups < len(tokens) and len(tokens[groups]) == width and compact(tokens[groups]):
        groups += 1
    alone = compact(tokens[0]) and square(width)
    grouped = width >= 2 and groups >= 2 and square(groups * width) and not all(t.isdigit() for t in tokens[groups:])
    if alone or grouped:
        groups = 1 if alone else groups
        what = "puzzle string" if alone else f"puzzle in {groups} groups"
        side = math.isqrt(groups * width)
        raise followed_by_text(where, f"a {side}x{side} {what}", " ".join(tokens[groups:]),
                               alone="the puzzle alone (a '#' comment takes a line of its own)")
    return None


def _is_compact(token: str) -> bool:
    """Whether ``token`` is compact cells alone (digits, letter-digits, ``.``)."""
    return token.isascii() and bool((_compact_table()[np.frombuffer(token.encode(), dtype=np.uint8)] >= 0).all())


_HEX_CELLS = re.compile(r"[0-9A-Fa-f.-]+")


def _hex_cells(rows: list[list[str]]) -> str | None:
    """The cells of a grid of separated cells as one compact line (an empty field ``.``) when
    every cell is one character of ``0-F``, ``.`` or ``-`` and a letter and a ``0`` are among
    them: a hexadoku's ``0 A . F`` cells, read as compact cells are (:func:`_zero_based`).
    None otherwise: in a grid of numbers (``0 5 12``) ``0`` stays empty."""
    tokens = [t.strip() or "." for row in rows for t in row]
    if any(len(t) != 1 for t in tokens):
        return None
    cells = "".join(tokens)
    # only 0-F: a 'G' or a letter past it keeps the cell-by-cell reading and its messages
    return cells if "0" in cells and _HEX_CELLS.fullmatch(cells) and re.search("[A-Fa-f]", cells) else None


def _is_puzzle_length(length: int) -> bool:
    """Whether ``length`` cells make a square grid of 4x4 or more."""
    return length >= 16 and math.isqrt(length) ** 2 == length


_EMPTY_CELL = {"", "nan", "NaN", "NAN", "."}


def _token_value(tok: str, where: str, k: int, j: int, clue_list: bool, side: int = 0) -> int:
    place = f"line {k}, field {j + 1}"
    # [0-9], not \d: \d and int() take any script's digits ('٥' is 5), which a puzzle string
    # refuses; a cell of a grid or clue list is read as the same characters
    if re.fullmatch(r"[+-]?[0-9]+(\.0*)?", tok):  # MATLAB writes 5.0 sometimes
        digits = tok.lstrip("+-").split(".")[0].lstrip("0")
        if len(digits) > MAX_TOKEN_DIGITS:
            what = f"{place}: value {tok[:20]}{'...' if len(tok) > 20 else ''} is too large"
            raise PuzzleError(f"{where}: {what}" if clue_list else f"{where}: cell at row {k}, column {j + 1}: "
                              f"value {tok[:20]}{'...' if len(tok) > 20 else ''} is too large")
        return int(tok.split(".")[0])
    if not clue_list and tok in _EMPTY_CELL:
        return 0
    if not clue_list and len(tok) == 1 and tok.isascii() and 0 <= _compact_table()[ord(tok)] <= (side or 99):
        return int(_compact_table()[ord(tok)])
    if not clue_list and side and len(tok) == 1 and tok.isascii() and _compact_table()[ord(tok)] > side:
        raise PuzzleError(letter_past_digits(tok, k, j + 1, side, where))
    if clue_list:
        raise PuzzleError(f"{where}: {place}: {tok!r} is not an integer: entries must be integers")
    raise PuzzleError(f"{where}: bad cell {tok!r} at row {k}, column {j + 1}")


def _compact_to_grid(s: str, where: str, box, size: int | None = None, size_name: str = "--size",
                     strict: bool = True, least: int = 1, alphabet: list | None = None) -> np.ndarray:
    """The grid of a compact line; ``alphabet`` (when given) gets the value set of a 0-F grid."""
    n_expected = _box_n(box)
    length = len(s)
    if n_expected is not None and length != n_expected ** 2:
        h, w = parse_box(box) if isinstance(box, str) else box
        raise PuzzleError(f"{where}: wrong length: expected {n_expected ** 2} cells ({n_expected}x{n_expected}, from the "
                          f"box {h}x{w}), found {length}{_unseen(s)}")
    wrong_length = (f"{where}: wrong length: expected {size ** 2} cells ({size}x{size} from {size_name}), "
                    f"found {length}{_unseen(s)}") if size is not None and length != size ** 2 else None
    if wrong_length and (strict or math.isqrt(length) ** 2 != length):
        # the size the user gave says how long the line must be (a square of the wrong side
        # would otherwise be read as a small grid and refused for its digits); a claimed
        # solution (not strict) of another square size is read: its shape is verify's verdict
        raise PuzzleError(wrong_length)
    n = math.isqrt(length)
    if n * n != length:   # the shape first: a memory estimate of a grid that is none says nothing
        lo, hi = n * n, (n + 1) ** 2
        raise PuzzleError(
            f"{where}: wrong length: expected a square number of cells "
            f"({lo} for {n}x{n} or {hi} for {n + 1}x{n + 1}), found {length}{_unseen(s)}"
        )
    check_grid_size(n, where)
    values = compact_values([s], n)[0]
    if alphabet is not None and n == ZERO_BASED_SIDE and "0" in s:
        values = _zero_based(s, values, where, alphabet)
    bad = np.flatnonzero((values < 0) | (values > n))
    if bad.size and wrong_length:   # not even a grid of its own side: its length is what is wrong
        raise PuzzleError(wrong_length)
    # below the variant's least side a string of digits is refused by its size (Puzzle's check), but a
    # character no digit 1-9 nor blank ('badrecord') is named: such a string is no small grid
    alien = bad[(values[bad] < 0) | (values[bad] > 9)]
    if bad.size and (n >= least or alien.size):
        k = bad[0] if n >= least else alien[0]
        last = COMPACT_DIGITS[min(n, len(COMPACT_DIGITS)) - 1]   # one character a digit: up to Z (35)
        beyond = f"; digits past {last} need a grid of separated numbers" if n > len(COMPACT_DIGITS) else ""
        raise PuzzleError(
            f"{where}: bad character {s[k]!r} at position {k + 1} (row {k // n + 1}, column {k % n + 1}): "
            f"a {n}x{n} cell is '.' or '0' (empty) or one of {COMPACT_DIGITS[0]}..{last}{beyond}"
        )
    return values.reshape(n, n)


def _zero_based(s: str, values: np.ndarray, where: str, alphabet: list) -> np.ndarray:
    """The cells of the compact 16x16 grid ``s`` (``values``: its ``1-G`` reading) by the one rule
    of :mod:`pipeline.core.hexadoku`: ``0-F`` gives its digits and appends the value set 0..15 to
    ``alphabet``; ``1-G`` keeps ``values``; either reading is refused, as a guess could lose the
    ``0`` clues without a word (a claimed answer's, :class:`~pipeline.core.hexadoku.Alphabet`,
    is ``0-F``: an answer has no empty cells)."""
    raw = np.frombuffer(s.encode("ascii", "replace"), dtype=np.uint8)
    kind = zero_based_kinds(raw[None], values[None], getattr(alphabet, "answer", False))[0]
    if kind == AMBIGUOUS:
        raise PuzzleError(ambiguous_message(where))
    if kind == ONE_TO_G:
        return values
    alphabet.append(tuple(range(ZERO_BASED_SIDE)))
    return zero_based_digits(raw, values)
