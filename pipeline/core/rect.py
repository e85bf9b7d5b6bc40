"""Rectangular grids: ``R x C`` cells (``R != C``) over ``V`` values (ISS's ``.Shape~6x8``).

A rectangular puzzle is one grid of ``rows x cols`` cells, no layout. Its nominal side
``N = h*w`` (the box shape; a boxless grid keeps a nominal ``h x w``) is at least the longer
side, the values are ``1..N`` unless a value set says otherwise (``V >= N``), and every unit
(its rows of ``cols`` cells, its columns of ``rows`` cells, its boxes or regions of ``N``
cells) holds each value at most once: a unit of ``V`` cells then holds every value, exactly as
``= 1`` rows would say (docs/conventions.md, "Rectangular grids"). The variables are
``x[i, j, k]`` over ``(rows, cols, V)``, the ``ijk`` formulas of a gattai canvas.

The document form is ``{"size": "6x8", "box": "2x4", "givens": ..., ...}``: ``size`` as
``"RxC"``; ``box`` defaults to ISS's boxes of ``N = max(R, C)`` cells (the most square
``h x w`` tiling the grid either way round) and must be given (or ``"variant": "latin"``)
when none tiles it.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from pipeline.core.errors import clip, PuzzleError, json_kind
from pipeline.core.parse import COMPACT_DIGITS, default_box, literal_text, parse_box, read_grid_text, whole_number
from pipeline.core.rules.cellnames import given_pattern
from pipeline.core.values import parse_values, values_spec, wrong_cell_count

__all__ = ["rect_size", "iss_rect_box", "rect_box_units", "rect_regions", "read_rect_document", "validate_rect",
           "check_rect_rules",
           "rect_spec", "RECT_VARIANTS", "RECT_RULE_KINDS"]

_SIZE = re.compile(r"^\s*([0-9]{1,3})\s*[xX]\s*([0-9]{1,3})\s*$")
_GIVEN = given_pattern(5)
_COMPACT = "0" + COMPACT_DIGITS   # the values 0..35, one character each
#: The variants a rectangular grid may have (no diagonals: a rectangle has no long diagonal).
RECT_VARIANTS = ("classic", "latin", "jigsaw")
#: Rule kinds checked on rectangular grids: rules over the cells they list, and the outside clues
#: and indexing, which take a rectangle's lines, and the neighbour rules (pairs of cells a step
#: apart on the rows x cols canvas). Another rule over the whole grid's geometry (windows,
#: diagonals, little killers, chaos, full rank, region sets, connectivity, ...) reads the side as
#: N and is refused until checked on rectangles.
RECT_RULE_KINDS = frozenset({
    "antiking", "antiknight", "nonconsecutive", "arrow", "automaton", "between", "cage", "countdistinct", "doublearrow", "entropic", "equalitycage",
    "equalsum", "even", "greater", "hiddenskyscraper", "indexing", "kropki", "lockout", "lookandsay", "lunchbox",
    "modular", "numberedroom", "odd", "pair", "palindrome", "pencilmarks", "pillarrow", "quadruple", "regex",
    "regionsum", "rellik", "renban", "samevalues", "sandwich", "skyscraper", "sum", "sumline", "thermo",
    "valueindexing", "whisper", "xsum", "xv", "zipper", "anyof", "containexact",
    "containatleast"})
#: The largest side (as ISS's 16, with room).
MAX_SIDE = 64


def rect_size(size: object) -> tuple[int, int] | None:
    """``(rows, cols)`` of a document's ``"size": "RxC"`` with ``R != C``; None for any other size.

    Parameters
    ----------
    size : object
        The document's ``size``.

    Returns
    -------
    tuple of int or None

    Examples
    --------
    >>> rect_size("6x8"), rect_size("9x9"), rect_size(9)
    ((6, 8), None, None)
    """
    m = _SIZE.match(size) if isinstance(size, str) else None
    if m is None or m.group(1) == m.group(2) or int(m.group(1)) == int(m.group(2)):
        return None
    return int(m.group(1)), int(m.group(2))


def square_side(size: str) -> int | None:
    """The side of a document's ``"size"`` written as text for a square grid (``"9"``, ``"9x9"``),
    or None (a rectangle, or not a size).

    Parameters
    ----------
    size : str
        The document's ``size``.

    Returns
    -------
    int or None

    Examples
    --------
    >>> square_side("9"), square_side(" 16x16 "), square_side("6x8"), square_side("nine")
    (9, 16, None, None)
    """
    text = size.strip()
    if text.isascii() and text.isdigit() and len(text) <= 3:
        return int(text)
    m = _SIZE.match(size)
    return int(m.group(1)) if m is not None and int(m.group(1)) == int(m.group(2)) else None


def rect_spec(rows: int, cols: int) -> str:
    """The document's ``size`` of a rectangular grid (``"6x8"``).

    Parameters
    ----------
    rows, cols : int
        The grid's shape.
    """
    return f"{rows}x{cols}"


def iss_rect_box(rows: int, cols: int, k: int) -> tuple[int, int] | None:
    """ISS's boxes of ``k`` cells on a ``rows x cols`` grid: the most square ``h x w`` (the small
    side from ``sqrt(k)`` down to 2, short side along the rows first) that tiles the grid; None
    when none does (the grid has no boxes).

    Parameters
    ----------
    rows, cols : int
        The grid's shape.
    k : int
        Cells of a box.

    Returns
    -------
    tuple of int or None

    Examples
    --------
    >>> iss_rect_box(6, 8, 8), iss_rect_box(5, 10, 10), iss_rect_box(9, 8, 9), iss_rect_box(4, 7, 7)
    ((2, 4), (5, 2), None, None)
    """
    for small in range(int(np.sqrt(k)), 1, -1):
        if k % small:
            continue
        large = k // small
        if rows % small == 0 and cols % large == 0:
            return small, large
        if large != small and rows % large == 0 and cols % small == 0:
            return large, small
    return None


def rect_box_units(rows: int, cols: int, h: int, w: int) -> np.ndarray:
    """``(rows*cols / (h*w), h*w)`` row-major cell numbers of the ``h x w`` boxes, numbered row-major.

    Parameters
    ----------
    rows, cols : int
        The grid's shape.
    h, w : int
        Box shape (tiling the grid).
    """
    cells = np.arange(rows * cols).reshape(rows // h, h, cols // w, w).transpose(0, 2, 1, 3)
    return cells.reshape(-1, h * w)


def rect_regions(source: object, rows: int, cols: int, k: int, where: str) -> np.ndarray:
    """Jigsaw regions of a rectangular grid: ``rows*cols / k`` regions of ``k`` cells, numbered in
    the sorted order of their ids (as square grids' regions are).

    Parameters
    ----------
    source : str, list or ndarray
        One id per cell, row-major (compact characters, or ids separated by spaces or commas).
    rows, cols : int
        The grid's shape.
    k : int
        Cells of each region (the nominal side ``N``).
    where : str
        How messages name the regions.

    Returns
    -------
    ndarray of int, shape (rows, cols)
    """
    if isinstance(source, np.ndarray):
        ids = source.ravel().astype(str)
    else:
        if isinstance(source, list):
            source = " ".join(" ".join(map(str, r)) if isinstance(r, list) else str(r) for r in source)
        if not isinstance(source, str):
            raise PuzzleError(f"{where}: regions must be text or a list, found {json_kind(source)}")
        tokens = [t for t in re.split(r"[,;\s]+", source.strip()) if t]
        ids = np.array(tokens if len(tokens) == rows * cols else list("".join(tokens)))
    if ids.size != rows * cols:
        raise PuzzleError(f"{where}: expected {rows * cols} region ids (one per cell), found {ids.size}")
    labels, numbers = np.unique(ids, return_inverse=True)
    if all(re.fullmatch(r"\d+", x) for x in labels):
        numbers = np.argsort(np.argsort(np.array([int(x) for x in labels])))[numbers]
    counts = np.bincount(numbers, minlength=labels.size)
    if (counts != k).any():
        g = int(np.flatnonzero(counts != k)[0])
        raise PuzzleError(f"{where}: expected {rows * cols // k} regions of {k} cells each; region {g + 1} has "
                          f"{counts[g]} cells")
    return numbers.reshape(rows, cols).astype(np.int64)


def _cells_of(givens: object, rows: int, cols: int, where: str) -> list:
    """The ``rows*cols`` entries of ``givens`` (None empty), row-major, before values are read."""
    if isinstance(givens, list) and all(isinstance(row, list) for row in givens):
        if len(givens) != rows or any(len(row) != cols for row in givens):
            raise PuzzleError(f"{where}: expected {rows} rows of {cols} entries")
        return [v for row in givens for v in row]
    text = "\n".join(givens) if isinstance(givens, list) and all(isinstance(r, str) for r in givens) else givens
    if not isinstance(text, str):
        raise PuzzleError(f"{where}: must be a string, a list of rows or a list of \"r1c1=v\"")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    compact = "".join("".join(line.split()).replace("|", "") for line in lines)
    if len(compact) == rows * cols and all(ch == "." or ch.upper() in _COMPACT for ch in compact):
        return [None if ch == "." else _COMPACT.index(ch.upper()) for ch in compact]
    cells = [tok for line in lines for tok in re.split(r"[\s,|]+", line.strip()) if tok]
    if len(cells) != rows * cols:
        raise PuzzleError(wrong_cell_count(lines, compact, len(cells), f"{rows}x{cols}", rows * cols, where))
    return [None if tok == "." else tok for tok in cells]


def _digit(value: int, values: tuple[int, ...], where: str) -> int:
    if value not in values:
        raise PuzzleError(f"{where}: {value} is not one of the values {values_spec(values)}")
    return values.index(value) + 1


def _givens(givens: object, rows: int, cols: int, values: tuple[int, ...], zero_empty: bool,
            where: str) -> np.ndarray:
    """The ``rows x cols`` digit grid (1-based, 0 empty) of ``givens`` written in values (``0`` is
    empty when the values are the default ``1..N``)."""
    grid = np.zeros((rows, cols), dtype=np.int64)
    if givens is None or givens == "" or givens == []:
        return grid
    if isinstance(givens, list) and givens and all(isinstance(g, str) and "=" in g for g in givens):
        for k, text in enumerate(givens):
            m = _GIVEN.match(text)
            if m is None:
                raise PuzzleError(f"{where}[{k}]: {clip(text, 30)!r} is not like \"r1c1=5\"")
            r, c, v = (int(m.group(i)) for i in (1, 2, 3))
            if not (1 <= r <= rows and 1 <= c <= cols):
                raise PuzzleError(f"{where}[{k}]: cell r{r}c{c} is outside the {rows}x{cols} grid")
            d = _digit(v, values, f"{where}[{k}]")
            if grid[r - 1, c - 1] and grid[r - 1, c - 1] != d:
                raise PuzzleError(f"{where}[{k}]: r{r}c{c} is given twice")
            grid[r - 1, c - 1] = d
        return grid
    if isinstance(givens, str):
        givens = literal_text(givens)
    flat = grid.ravel()
    for k, item in enumerate(_cells_of(givens, rows, cols, where)):
        at = f"{where}: r{k // cols + 1}c{k % cols + 1}"
        value = None if item is None or isinstance(item, bool) else whole_number(item)
        if value is None and isinstance(item, str) and re.fullmatch(r"-?[0-9]{1,5}", item):
            value = int(item)
        if item is not None and value is None:
            raise PuzzleError(f"{at}: {clip(item)!r} is not a value")
        if value is None or (zero_empty and value == 0):
            continue
        flat[k] = _digit(int(value), values, at)
    return grid


def read_rect_document(doc: dict, shape: tuple[int, int], box: "tuple[int, int] | None", variant: str | None,
                       regions: object, where: str) -> tuple:
    """The parts of a document of a rectangular grid (``"size": "RxC"``).

    Parameters
    ----------
    doc : dict
        The document (its keys already checked).
    shape : (int, int)
        ``(rows, cols)``.
    box : (int, int) or None
        The document's (or the command line's) box shape.
    variant : str or None
        The variant (default ``jigsaw`` with regions, else ``classic``).
    regions : object
        ``--regions`` (the document's own ``regions`` win; both is an error).
    where : str
        How messages name the document.

    Returns
    -------
    tuple
        ``(grid, h, w, variant, regions, values)``.
    """
    rows, cols = shape
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise PuzzleError(f"{where}: a {rows}x{cols} grid; rectangular grids have sides 1 to {MAX_SIDE}")
    if doc.get("layout") is not None or doc.get("grids") is not None:
        raise PuzzleError(f"{where}: a {rows}x{cols} grid is one grid: no 'layout' or 'grids'")
    own = doc.get("regions")
    if own is not None and regions is not None:
        raise PuzzleError(f"{where}: regions are given both in the document and by --regions")
    region_source = own if own is not None else regions
    if variant is None:
        variant = "jigsaw" if region_source is not None else "classic"
    if variant not in RECT_VARIANTS:
        raise PuzzleError(f"{where}: variant {variant!r} on a {rows}x{cols} grid; a rectangular grid takes "
                          f"{', '.join(RECT_VARIANTS)}")
    side = max(rows, cols)
    if box is None:
        found = iss_rect_box(rows, cols, side) if variant == "classic" else None
        if variant == "classic" and found is None:
            raise PuzzleError(f"{where}: no boxes of {side} cells tile the {rows}x{cols} grid: give 'box' or "
                              "\"variant\": \"latin\"")
        box = found or default_box(side)
    h, w = int(box[0]), int(box[1])
    n = h * w
    if n < side:
        raise PuzzleError(f"{where}: box {h}x{w} holds {n} values; the {rows}x{cols} grid's rows or columns need "
                          f"{side}")
    if variant == "classic" and (rows % h or cols % w):
        raise PuzzleError(f"{where}: box {h}x{w} does not tile the {rows}x{cols} grid")
    values = parse_values(doc["values"], n, where) if doc.get("values") is not None else None
    grid = _givens(doc.get("givens"), rows, cols, values or tuple(range(1, n + 1)), values is None,
                   f"{where}: givens")
    region_grid = None
    if region_source is not None:
        if isinstance(region_source, str):
            region_source = literal_text(region_source) if "\n" in region_source else region_source
        region_grid = rect_regions(region_source, rows, cols, n, f"{where}: regions")
    return grid, h, w, variant, region_grid, values


def validate_rect(p: Any) -> None:
    """Check a rectangular puzzle's shape (one line naming what): variant, boxes, side, values,
    digits and regions (``p`` a :class:`pipeline.core.puzzle.Puzzle` with ``rows != cols``).

    Parameters
    ----------
    p : Puzzle
        The puzzle.
    """
    rows, cols, n = p.rows, p.cols, p.h * p.w
    if p.variant not in RECT_VARIANTS:
        raise PuzzleError(f"puzzle: variant {p.variant!r} on a {rows}x{cols} grid; a rectangular grid takes "
                          f"{', '.join(RECT_VARIANTS)}")
    if n < max(rows, cols):
        raise PuzzleError(f"box: {p.h}x{p.w} gives {n} values; the {rows}x{cols} grid needs {max(rows, cols)}")
    if p.variant == "classic" and (rows % p.h or cols % p.w):
        raise PuzzleError(f"box: {p.h}x{p.w} boxes do not tile the {rows}x{cols} grid")
    if p.values is not None and len(p.values) < n:
        raise PuzzleError(f"values: {len(p.values)} values for a {rows}x{cols} grid of {n}; at least {n}")
    if p.values is not None and any(b <= a for a, b in zip(p.values, p.values[1:])):
        raise PuzzleError(f"values: {list(p.values)[:12]} must ascend without repeats")
    bad = np.argwhere((p.grid < 0) | (p.grid > p.n_values))
    if bad.size:
        r, c = bad[0]
        raise PuzzleError(f"puzzle: cell ({r + 1}, {c + 1}) holds {p.grid[r, c]}: entries must be integers from 1 "
                          f"to {p.n_values} (0 for empty)")
    if (p.variant == "jigsaw") != (p.regions is not None):
        raise PuzzleError("regions: a rectangular jigsaw needs regions, and only a jigsaw has them")
    if p.regions is not None:
        rect_regions(np.asarray(p.regions), rows, cols, n, "regions")
    if p.layout is not None:
        raise PuzzleError("layout: a rectangular grid is one grid")
    check_rect_rules(p)


def check_rect_rules(p: Any) -> None:
    """The rules a rectangular grid takes: those over listed cells, outside clues, indexing and
    neighbour rules (:data:`RECT_RULE_KINDS`); a rule that reads the grid's side is refused by name.

    Parameters
    ----------
    p : Puzzle
        A rectangular puzzle with its rules.

    Raises
    ------
    PuzzleError
        One line naming the rule.
    """
    rows, cols = p.rows, p.cols
    for k, rule in enumerate(p.rules):
        for kind in [rule.kind] + [inner.kind for branch in getattr(rule, "branches", ()) for inner in branch]:
            if kind not in RECT_RULE_KINDS:
                raise PuzzleError(f"rules[{p.rule_number(k) - 1}] ({rule.kind}): {kind} is not checked on rectangular grids yet (it reads "
                                  f"the grid's side); on a {rows}x{cols} grid the rules over listed cells, outside "
                                  "clues, indexing and neighbour rules are")


def box_text(box: object) -> tuple[int, int]:
    """A ``"HxW"`` (or pair) as ``(h, w)``.

    Parameters
    ----------
    box : str or (int, int)
        The box shape.
    """
    if isinstance(box, str):
        return parse_box(box)
    pair: Any = box   # a pair, as the document's readers hand it
    return int(pair[0]), int(pair[1])


def read_rect_grid(source: object, rows: int, cols: int, values: tuple[int, ...] | None, n: int) -> np.ndarray:
    """A claimed solution of a rectangular puzzle, written as ``solve`` prints it (in values; box
    separator lines skipped) -> its digit grid (``rows x cols``, 1-based, 0 empty).

    Parameters
    ----------
    source : str, path or ndarray
        A compact line, rows of values, a file of either or ``-``; an array of values.
    rows, cols : int
        The grid's shape.
    values : tuple of int or None
        The value set (None: ``1..n``, ``0`` empty).
    n : int
        The nominal side (the default values).

    Returns
    -------
    ndarray of int
    """

    span = values or tuple(range(1, n + 1))
    if isinstance(source, np.ndarray):
        return _givens(np.asarray(source).tolist(), rows, cols, span, values is None, "grid")
    text, where = read_grid_text(source)
    lines = [line for line in text.splitlines() if not re.fullmatch(r"[\s\-+|=]*", line)]
    if len(lines) > 1 and len(lines) != rows:   # a grid's rows say its shape: not reflowed into another
        raise PuzzleError(f"{where}: the grid has {len(lines)} rows, the puzzle {rows} ({rows}x{cols})")
    return _givens(lines, rows, cols, span, values is None, where)
