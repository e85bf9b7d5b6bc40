"""ISS constraint strings: the puzzle format of sigh's Interactive Sudoku Solver, read into a puzzle document.

An ISS string is a run of constraints, each a ``.`` then a type and ``~``-separated arguments
(whitespace is ignored)::

    .Shape~6x6.Cage~15~R1C1~R1C2.Thermo~R2C1~R2C2.AntiKnight.~R1C1_5~R4C7_2_4_6_8

* ``.Shape~RxC[~range][~gridtype]``: the grid (default 9x9). A square grid of 1 to 16 cells a
  side is read, its values ``1..N`` or a range of at least ``N`` values (``~0-8`` on a 9x9: the
  document's ``"values": "0-8"``, givens and rule digits read as values; ``~9`` on a 6x6: the
  values 1..9, each row, column and box holding each at most once; there ``RegionSize~k`` gives
  boxes of ``k`` cells and a ``Jigsaw`` pieces of ``k`` cells, as extra regions); ``~Raw`` (no
  rows, columns or boxes as units: the ``raw`` variant) on a square grid of ``N`` values, where
  the types ISS marks REQUIRES_SUDOKU_GRID are refused by name; a ``Var`` cell is refused.
* ``.~R1C1_5~R2C3_7``: givens (the empty type); ``R4C7_2_4_6_8`` limits a cell to several digits
  (the ``pencilmarks`` rule; a cell limited to exactly the even or odd digits is an ``even`` /
  ``odd`` rule). A cell given twice keeps the digits both allow, as in ISS.
* ``.NoBoxes`` and ``.Jigsaw~LAYOUT`` (one region character per cell): no boxes (``latin``),
  jigsaw regions (``jigsaw``), or, without ``NoBoxes``, regions beside the boxes (``extraregion``).
* every other type through :data:`pipeline.core.iss_table.READERS` (Cage, Thermo, GreaterThan,
  WhiteDot, BlackDot, AllDifferent, Diagonal, AntiKnight, AntiKing, AntiConsecutive, Windoku,
  DisjointSets; the lines Arrow, PillArrow, DoubleArrow, Whisper, Renban, Palindrome, Between,
  Lockout, Entropic, Modular, Zipper, RegionSumLine; and :mod:`pipeline.core.iss_table2`'s
  LittleKiller, X, V, StrictXV, StrictKropki, Quad, Sum (a cage in one unit, else ``sum``),
  SameValues, Indexing, Pair, PairX; :mod:`pipeline.core.iss_table3`'s outside clues Skyscraper,
  HiddenSkyscraper, Sandwich, XSum, NumberedRoom, and CountingCircles, a Lunchbox over a whole row or column (a
  sandwich), ContainAtLeast (over a 2x2 square a quadruple) and ContainExact).

Cells are ``R<row>C<col>``, 1-based, rows and columns past 9 as ``a..g`` (base 17). A type the
table does not map (``Var``, ...) is refused in one
line naming the type, its place in the string and its character offset: nothing is dropped.
Composites (``.Or``/``.And``/``.Replicate~BITSET ... .End``) are expanded by
:mod:`pipeline.core.iss_composite`: an Or becomes an ``anyof`` rule, And and Replicate plain rules.
Writing is :mod:`pipeline.core.iss_write`.
"""
from __future__ import annotations

import re
from typing import Iterator, NamedTuple

import numpy as np

from pipeline.core.errors import clip, followed_by_text, PuzzleError
from pipeline.core.iss_detect import iss_string_end
from pipeline.core.iss_extra import doppel_link_rules, iss_extra_groups
from pipeline.core.iss_composite import OrGroup, expand_composites
from pipeline.core.iss_table import (ISS_TYPES, MAX_ISS_CHARS, READERS, IssArgError, IssGrid, disjoint_set_rules,
                                    iss_boxes, on_iss_boxes,
                                      looks_like_iss)
from pipeline.core.rect import iss_rect_box, rect_box_units
from pipeline.core.rules import RULES

__all__ = ["looks_like_iss", "document_from_iss", "iss_boxes", "MAX_ISS_CHARS"]

#: Composite ISS types: a branch of constraints, never a rule of its own (Or, And, Replicate and
#: End are read by :mod:`pipeline.core.iss_composite`; Container is ISS's internal root).
_COMPOSITE = frozenset({"Or", "And", "Replicate", "End", "Container"})
_READ_COMPOSITE = frozenset({"Or", "And", "Replicate", "End"})


class _Item(NamedTuple):
    number: int     # 1-based place in the string
    offset: int     # 1-based character offset of its '.'
    type: str
    args: list[str]
    raw: str


def _items(text: str, where: str) -> Iterator[_Item]:
    """The constraints of ``text`` in order, with their places."""
    start = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    if not text[start:].startswith("."):
        raise PuzzleError(f"{where}: an ISS constraint string starts with '.', found {text[start:start + 20]!r}")
    number = 0
    dots = [m.start() for m in re.finditer(r"\.", text)]
    for k, at in enumerate(dots):
        end = dots[k + 1] if k + 1 < len(dots) else len(text)
        raw = text[at:end]
        body = re.sub(r"\s+", "", raw[1:])
        if not body:
            continue
        number += 1
        kind, *args = body.split("~")
        yield _Item(number, at + 1, kind, args, raw.strip())


def _place(item: _Item) -> str:
    shown = item.raw if len(item.raw) <= 40 else item.raw[:37] + "..."
    return f"constraint {item.number}, {shown!r} at character {item.offset}"


#: ISS's types that REQUIRE_SUDOKU_GRID (its houses or boxes): invalid on a ``Raw`` grid.
_SUDOKU_GRID_ONLY = frozenset({
    "Jigsaw", "NoBoxes", "ChaosConstruction", "RegionSize", "RegionSameValues", "Windoku", "DisjointSets",
    "AntiKnight", "Doppelganger", "AntiKing", "FullRankTies", "Diagonal", "Indexing", "LittleKiller", "XSum",
    "Sandwich", "Skyscraper", "HiddenSkyscraper", "NumberedRoom", "FullRank"})


def _shape(item: _Item, where: str) -> tuple[int, int, tuple[int, ...], bool]:
    args = item.args
    if not args or len(args) > 3 or not args[0]:
        raise PuzzleError(f"{where}: ISS: Shape needs RxC[~values][~type] ({_place(item)})")
    m = re.fullmatch(r"([0-9]+)x([0-9]+)", args[0]) if len(args[0]) < 40 else None
    if m is None:
        raise PuzzleError(f"{where}: ISS: Shape {clip(args[0])!r} is not RxC ({_place(item)})")
    rows, cols = int(m.group(1)), int(m.group(2))
    if not (1 <= rows <= 16 and 1 <= cols <= 16):   # 10000x10000 said "is not RxC"
        raise PuzzleError(f"{where}: ISS: a {clip(m.group(1))}x{clip(m.group(2))} grid is outside ISS's 1x1 to 16x16 "
                          f"({_place(item)})")
    n = max(rows, cols)   # ISS's default values 1..max(R, C) (a rectangle: pipeline.core.rect)
    spec = args[1] if len(args) > 1 else ""
    # ISS ranges: "0-8" (the values low..high) or a count "9" (the values 1..9)
    m = re.fullmatch(r"([0-9]+)-([0-9]+)|([0-9]+)", spec) if spec and len(spec) < 40 else None
    if spec and m is None:
        raise PuzzleError(f"{where}: ISS: value range {clip(spec)!r} is not LOW-HIGH or a count ({_place(item)})")
    low, high = (1, n) if m is None else (int(m.group(1)), int(m.group(2))) if m.group(3) is None else (1, int(m.group(3)))
    if low not in (0, 1) or high - low + 1 > 16:   # ISS's CellGeometry: offset 0 or -1, at most 16 values
        raise PuzzleError(f"{where}: ISS: value range {clip(spec)!r} is not ISS's (values from 0 or 1, at most 16) "
                          f"({_place(item)})")
    if high - low + 1 < n:   # at least the grid's side (docs/conventions.md, "Value sets")
        raise PuzzleError(f"{where}: ISS: value range {spec!r} on a {rows}x{cols} grid gives {high - low + 1} values; "
                          f"a Sudoku grid needs at least {n} ({_place(item)})")
    if len(args) > 2 and args[2] not in ("Sudoku", "Raw"):
        raise PuzzleError(f"{where}: ISS: grid type {clip(args[2])!r} is not supported ({_place(item)})")
    raw = len(args) > 2 and args[2] == "Raw"
    if raw and (rows != cols or high - low + 1 != n):   # the raw variant: N values on an N x N grid
        raise PuzzleError(f"{where}: ISS: a Raw grid is read only square with as many values as its side, not "
                          f"{rows}x{cols} with {high - low + 1} ({_place(item)})")
    return rows, cols, tuple(range(low, high + 1)), raw


def _given(token: str, grid: IssGrid, span: tuple[int, ...] = ()) -> tuple[str, list[int]]:
    cell, *values = token.split("_")
    name = grid.cell(cell)
    if not values:
        raise IssArgError(f"given {clip(token)!r} has no digit")
    span = span or tuple(range(1, grid.n + 1))
    digits = []
    for v in values:
        if not re.fullmatch(r"[0-9]{1,3}", v) or int(v) not in span:
            raise IssArgError(f"given {clip(token, 30)!r}: {clip(v, 10)!r} is not a digit {span[0]}-{span[-1]}")
        digits.append(int(v))
    return name, digits


def _layout(item: _Item, n: int, where: str) -> np.ndarray:
    """Region numbers (N x N) of a ``Jigsaw`` layout (``Jigsaw~LAYOUT``, or ISS's older ``Jigsaw~9x9~LAYOUT``)."""
    if len(item.args) not in (1, 2):
        raise PuzzleError(f"{where}: ISS: Jigsaw takes one layout ({_place(item)})")
    layout = item.args[-1]
    if len(layout) != n * n:
        raise PuzzleError(f"{where}: ISS: Jigsaw layout has {len(layout)} cells; the grid has {n * n} "
                          f"({_place(item)})")
    chars, ids, counts = np.unique(np.array(list(layout)), return_inverse=True, return_counts=True)
    if (counts != n).any():
        k = int(np.flatnonzero(counts != n)[0])
        raise PuzzleError(f"{where}: ISS: Jigsaw region {str(chars[k])!r} has {counts[k]} cells, not {n} "
                          f"(partial layouts are not supported) ({_place(item)})")
    return ids.reshape(n, n)


def region_boxes(n: int, k: int) -> tuple[int, int] | None:
    """ISS's boxes of ``k`` cells on an ``n x n`` grid (``RegionSize~k``): ``(h, w)`` with ``h``
    the largest divisor of ``k`` from ``sqrt(k)`` down to 2 whose box tiles the grid (either way
    round), or None (no boxes).

    Parameters
    ----------
    n : int
        Grid side.
    k : int
        Cells of a box.

    Returns
    -------
    tuple of int or None
    """
    for small in range(int(np.sqrt(k)), 1, -1):
        if k % small == 0 and n % small == 0 and n % (k // small) == 0:
            return small, k // small
    return None


def region_box_rules(n: int, h: int, w: int) -> list[dict]:
    """The ``extraregion`` entries of ``RegionSize`` boxes of ``h x w`` cells, box by box
    (row-major), each box's cells row-major.

    Parameters
    ----------
    n : int
        Grid side.
    h, w : int
        Box shape (:func:`region_boxes`).

    Returns
    -------
    list of dict
    """
    rows, cols = np.divmod(np.arange(n * n), n)
    ids = (rows // h) * (n // w) + cols // w
    return [{"rule": "extraregion", "cells": [f"r{c // n + 1}c{c % n + 1}" for c in np.flatnonzero(ids == box)]}
            for box in range(n * n // (h * w))]


def item_types_on_boxes(kind: str) -> bool:
    """ISS types laid on the box shape (``RegionSize`` changes them): disjoint sets, windoku.

    Parameters
    ----------
    kind : str
        An ISS constraint type.
    """
    return kind in ("DisjointSets", "Windoku")


def _pieces(item: _Item, n: int, v: int, k: int, where: str) -> np.ndarray | None:
    """Jigsaw pieces on a grid of ``v > n`` values (ISS): ids ``(n, n)``, ``-1`` for the cells of
    the one region outside ``n..v`` cells (the rest of a partial grid, unconstrained), or None
    when the layout is one region. Every piece must have ``k`` cells (``RegionSize``, else ``n``)."""
    if len(item.args) not in (1, 2) or len(item.args[-1]) != n * n:
        raise PuzzleError(f"{where}: ISS: Jigsaw takes one layout of {n * n} cells ({_place(item)})")
    chars, ids, counts = np.unique(np.array(list(item.args[-1])), return_inverse=True, return_counts=True)
    if chars.size == 1:
        return None
    piece = (counts >= n) & (counts <= v)
    if (~piece).sum() > 1 or (counts[piece] != k).any():
        raise PuzzleError(f"{where}: ISS: Jigsaw regions of {', '.join(map(str, counts.tolist()))} cells: pieces "
                          f"have {k} cells and one other region at most ({_place(item)})")
    order = np.cumsum(piece) - 1
    return np.where(piece[ids], order[ids], -1).reshape(n, n)


def _box_tiling(regions: np.ndarray, n: int) -> tuple[int, int] | None:
    """The box shape whose boxes are exactly ``regions``, if any."""
    rows, cols = np.divmod(np.arange(n * n), n)
    flat = regions.ravel()
    for h in range(1, n + 1):
        if n % h == 0:
            boxes = (rows // h) * (n // (n // h)) + cols // (n // h)
            first = np.unique(boxes, return_index=True)[1]
            if np.array_equal(flat[first][boxes], flat) and len(np.unique(flat)) == n:
                return h, n // h
    return None


def document_from_iss(text: str, where: str = "puzzle") -> dict:
    """The puzzle document of an ISS constraint string.

    Parameters
    ----------
    text : str
        The string (``.Shape~6x6.Cage~15~R1C1~R1C2.~R3C3_4``).
    where : str
        How messages name the input (a file name).

    Returns
    -------
    dict
        A puzzle document (:mod:`pipeline.core.document`): size, box or variant and regions,
        givens as ``"r1c1=5"``, rules.

    Raises
    ------
    PuzzleError
        One line: a type the project cannot express (named, with its place and character
        offset), a bad argument, or a shape other than N x N with digits 1..N.

    Examples
    --------
    >>> doc = document_from_iss(".Shape~4x4.Cage~7~R1C1~R1C2.~R2C2_3")
    >>> doc["size"], doc["givens"], doc["rules"]
    (4, ['r2c2=3'], [{'rule': 'cage', 'cells': ['r1c1', 'r1c2'], 'sum': 7}])
    >>> document_from_iss(".Or.Thermo~R1C1~R1C2")
    Traceback (most recent call last):
        ...
    pipeline.core.errors.PuzzleError: puzzle: ISS: Or is never closed by .End (constraint 1, '.Or' at character 1)
    """
    if not isinstance(text, str):
        raise PuzzleError(f"{where}: an ISS constraint string is text, found {type(text).__name__}")
    if len(text) > MAX_ISS_CHARS:
        raise PuzzleError(f"{where}: ISS string of {len(text):,} characters; at most {MAX_ISS_CHARS:,}")
    end = iss_string_end(text)
    if end < len(text):   # a note or a second puzzle after it: ISS glued it to the last argument
        line = text.count("\n", 0, end)
        at = f"line {line + 1}, column {end - text.rfind(chr(10), 0, end)}" if line else f"character {end + 1}"
        raise followed_by_text(where, "an ISS constraint string", text[end:].rstrip(), at, "the string alone")
    items = list(_items(text, where))
    n, no_boxes, jigsaw, shape_item, region_size, raw = 9, False, None, None, None, False
    rect = (9, 9)   # ISS's rows x cols
    pieces = None   # a grid of more values: jigsaw pieces as extra regions
    span: tuple[int, ...] = tuple(range(1, 10))
    for item in items:   # the grid first: every cell is read against it
        if item.type == "Shape":
            rows, cols, values, is_raw = _shape(item, where)
            if shape_item is not None and (rows, cols, values, is_raw) != (*rect, span, raw):
                raise PuzzleError(f"{where}: ISS: a second Shape disagrees with {clip(shape_item.raw, 30)!r} ({_place(item)})")
            n, rect, span, shape_item, raw = max(rows, cols), (rows, cols), values, item, is_raw
        elif item.type == "NoBoxes":
            if item.args:
                raise PuzzleError(f"{where}: ISS: NoBoxes takes no arguments ({_place(item)})")
            no_boxes = True
        elif item.type == "RegionSize":
            if len(item.args) != 1 or not re.fullmatch(r"[0-9]{1,3}", item.args[0]) or int(item.args[0]) < 2:
                raise PuzzleError(f"{where}: ISS: RegionSize takes one region size of 2 cells or more ({_place(item)})")
            region_size = (int(item.args[0]), item)
        elif item.type in _COMPOSITE - _READ_COMPOSITE:
            raise PuzzleError(f"{where}: ISS: unsupported constraint type {item.type!r} ({_place(item)})")
    if raw:   # no houses: the raw variant, and nothing that needs ISS's Sudoku grid
        bad = next((item for item in items if item.type in _SUDOKU_GRID_ONLY), None)
        if bad is not None:
            raise PuzzleError(f"{where}: ISS: {bad.type} needs a Sudoku grid, not Raw ({_place(bad)})")
        doc_raw: dict = {"size": n, "variant": "raw"}
        if span != tuple(range(1, n + 1)):
            doc_raw["values"] = f"{span[0]}-{span[-1]}"
        return _read_body(items, doc_raw, [], IssGrid(n, None, span), span, None, where)
    if region_size is not None and region_size[0] == n:
        region_size = None   # the default: boxes and pieces of N cells
    if rect[0] != rect[1]:   # a rectangular grid (pipeline.core.rect): its shape, then the common reading
        rect_doc, rect_units, rect_rules = _rect_header(items, rect, span, no_boxes, region_size, where)
        return _read_body(items, rect_doc, rect_rules, IssGrid(n, rect_units, span, rows=rect[0], cols=rect[1]), span,
                          None, where)
    if region_size is not None and len(span) == n:
        raise PuzzleError(f"{where}: ISS: regions of {region_size[0]} cells on a {n}x{n} grid of {n} values are "
                          f"not supported (only with more values than the side) ({_place(region_size[1])})")
    for item in items:
        if item.type == "Jigsaw":
            if jigsaw is not None or pieces is not None:
                raise PuzzleError(f"{where}: ISS: a second Jigsaw layout is not supported ({_place(item)})")
            if len(span) > n:
                pieces = _pieces(item, n, len(span), n if region_size is None else region_size[0], where)
            else:
                jigsaw = (_layout(item, n, where), item)
    doc: dict = {"size": n}
    if span != tuple(range(1, n + 1)):   # a value set (0-8): givens and rule digits are values
        doc["values"] = f"{span[0]}-{span[-1]}"
    boxes = None if no_boxes else iss_boxes(n)
    units = None
    rules: list[dict] = []
    if region_size is not None:   # boxes of k cells (6x6~9 with RegionSize~9: four 3x3 boxes)
        k = region_size[0]
        if jigsaw is not None:
            raise PuzzleError(f"{where}: ISS: jigsaw pieces of {k} cells are not supported ({_place(region_size[1])})")
        dims = None if no_boxes else region_boxes(n, k)
        boxes = None
        if dims is not None:
            rules += region_box_rules(n, *dims)
            at_row, at_col = np.divmod(np.arange(n * n), n)
            units = ((at_row // dims[0]) * (n // dims[1]) + at_col // dims[1]).reshape(n, n)
    if pieces is not None:   # each piece a region of k cells, each value at most once
        # a piece that is a box (RegionSize's, or the grid's own) is that region: ISS's builder makes
        # each an AllDifferent, the same one twice; one region here, and the string written back clean
        boxed = [rule["cells"] for rule in (rules if boxes is None else region_box_rules(n, *boxes))]
        for piece in range(int(pieces.max()) + 1):
            in_r, in_c = np.nonzero(pieces == piece)
            cells = [f"r{r + 1}c{c + 1}" for r, c in zip(in_r, in_c)]
            if cells not in boxed:
                rules.append({"rule": "extraregion", "cells": cells})
    if jigsaw is not None and (no_boxes or boxes is None):   # ISS: no boxes (NoBoxes, or N prime)
        tiling = _box_tiling(jigsaw[0], n)
        if tiling is not None:   # regions that are boxes: a classic grid of that box shape
            doc["box"] = f"{tiling[0]}x{tiling[1]}"
        else:
            doc["variant"], doc["regions"] = "jigsaw", " ".join(map(str, jigsaw[0].ravel().tolist()))
        units = jigsaw[0]
    elif boxes is None:
        doc["variant"] = "latin"
    else:
        doc["box"] = f"{boxes[0]}x{boxes[1]}"
        h, w = boxes
        units = (np.arange(n)[:, None] // h) * (n // w) + np.arange(n)[None, :] // w
    if jigsaw is not None and boxes is not None:   # regions beside the boxes
        for region in range(n):
            in_r, in_c = np.nonzero(jigsaw[0] == region)
            rules.append({"rule": "extraregion", "cells": [f"r{r + 1}c{c + 1}" for r, c in zip(in_r, in_c)]})
    return _read_body(items, doc, rules, IssGrid(n, units, span), span, None if region_size is None else region_size[0],
                      where)


def _rect_header(items: list, rect: tuple[int, int], span: tuple[int, ...], no_boxes: bool,
                 region_size: tuple | None, where: str) -> tuple[dict, np.ndarray | None, list[dict]]:
    """A rectangular grid's document head (size, box or variant, regions, values), its units for
    the table's readers and the rules of its regions beside boxes (ISS: boxes of ``max(R, C)``
    cells when some ``h x w`` tiles the grid, else none; a Jigsaw's pieces of as many cells)."""
    rows, cols = rect
    n = max(rows, cols)
    if region_size is not None:
        raise PuzzleError(f"{where}: ISS: RegionSize on a {rows}x{cols} grid is not supported "
                          f"({_place(region_size[1])})")
    doc: dict = {"size": f"{rows}x{cols}"}
    if span != tuple(range(1, n + 1)):
        doc["values"] = f"{span[0]}-{span[-1]}"
    boxes = None if no_boxes else iss_rect_box(rows, cols, n)
    units, rules = None, []
    if boxes is not None:
        doc["box"] = f"{boxes[0]}x{boxes[1]}"
        units = rect_box_units(rows, cols, *boxes)
        ids = np.empty(rows * cols, dtype=np.int64)
        ids[units.ravel()] = np.repeat(np.arange(units.shape[0]), units.shape[1])
        units = ids.reshape(rows, cols)
    else:
        doc["variant"] = "latin"
    for item in items:
        if item.type != "Jigsaw":
            continue
        if len(item.args) not in (1, 2) or len(item.args[-1]) != rows * cols or "jigsaw" in str(doc.get("variant")):
            raise PuzzleError(f"{where}: ISS: Jigsaw takes one layout of {rows * cols} cells ({_place(item)})")
        chars, ids, counts = np.unique(np.array(list(item.args[-1])), return_inverse=True, return_counts=True)
        if (counts != n).any():
            raise PuzzleError(f"{where}: ISS: Jigsaw regions of {', '.join(map(str, counts.tolist()))} cells on a "
                              f"{rows}x{cols} grid: each has {n} ({_place(item)})")
        if boxes is None:
            doc["variant"], doc["regions"] = "jigsaw", " ".join(map(str, ids.tolist()))
            units = ids.reshape(rows, cols)
        else:
            rules += [{"rule": "extraregion", "cells": [f"r{c // cols + 1}c{c % cols + 1}"
                                                        for c in np.flatnonzero(ids == g)]} for g in range(chars.size)]
    return doc, units, rules


def _read_body(items: list, doc: dict, rules: list[dict], grid: IssGrid, span: tuple[int, ...],
               boxes_k: int | None, where: str) -> dict:
    """The givens and rules of the string's items on ``grid``, into ``doc`` (after its shape)."""
    allowed: dict[str, list[int]] = {}
    extra, grid.extra = iss_extra_groups(items, grid.n, where, grid.cols)   # Var cells (pipeline.core.iss_extra)
    if extra:
        doc["extra"] = extra
    if "DGR" in grid.extra:   # Doppelganger's cells: the missing digit of each row, column and box
        rules = rules + doppel_link_rules(grid.n, grid.units)

    def fail(item: _Item, message: str) -> PuzzleError:
        return PuzzleError(f"{where}: ISS: {message} ({_place(item)})")

    for element in expand_composites(items, grid, fail):   # Or groups; And and Replicate expanded
        if isinstance(element, OrGroup):   # an anyof rule (one branch: its rules; an empty branch: always true)
            branches = [_branch(branch, grid, span, boxes_k, where) for branch in element.branches]
            if not branches:
                raise fail(element.item, "an Or of no constraint never holds")
            if len(branches) == 1:
                rules += branches[0]
            elif all(branches):
                rules.append({"rule": "anyof", "branches": branches})
            continue
        if element.type in ("Shape", "NoBoxes", "Jigsaw", "RegionSize", "Var"):
            continue
        if element.type in ("", "Given"):
            _read_given(element, grid, span, allowed, where)
            continue
        rules += _read_one(element, grid, boxes_k, where)
    doc["givens"], limits = _givens(allowed, span, where)
    doc["rules"] = rules + limits
    return doc


def _read_given(item: _Item, grid: IssGrid, span: tuple[int, ...], allowed: dict[str, list[int]], where: str) -> None:
    """Narrow ``allowed`` (cell -> digits) by a given item (a cell given twice keeps the digits both allow)."""
    try:
        for token in item.args:
            cell, digits = _given(token, grid, span)
            allowed[cell] = [d for d in allowed[cell] if d in digits] if cell in allowed else digits
            if not allowed[cell]:
                raise IssArgError(f"{cell.upper()} is given digits that exclude each other")
    except IssArgError as e:
        raise PuzzleError(f"{where}: ISS: Given ({_place(item)}): {e}") from None


def _read_one(item: _Item, grid: IssGrid, boxes_k: int | None, where: str) -> list[dict]:
    """The rule entries of one constraint other than a given (through the table's readers);
    ``boxes_k``: ISS's ``RegionSize`` when not the side."""
    n = grid.n
    try:
        if item.type == "DisjointSets" and boxes_k is not None:   # the sets of ISS's boxes of k cells
            return disjoint_set_rules(item.args, n, region_boxes(n, boxes_k))
        if item.type == "DisjointSets" and grid.rows == grid.cols and not on_iss_boxes(grid):
            # ISS lays its sets on the boxes it gives the size, whatever the jigsaw (a 6x6's 3x2
            # boxes, written as a jigsaw, still get 2x3 sets)
            return disjoint_set_rules(item.args, n, iss_boxes(n))
        if item_types_on_boxes(item.type) and boxes_k is not None:   # ISS lays them on boxes of k cells
            raise PuzzleError(f"{where}: ISS: {item.type} with regions of {boxes_k} cells is not "
                              f"supported ({_place(item)})")
        reader = READERS.get(item.type)
        if reader is None:
            word = "unsupported" if item.type in ISS_TYPES else "unknown"
            raise PuzzleError(f"{where}: ISS: {word} constraint type {clip(item.type, 40)!r} ({_place(item)})")
        entries = reader(item.args, grid)
    except IssArgError as e:
        raise PuzzleError(f"{where}: ISS: {item.type or 'Given'} ({_place(item)}): {e}") from None
    missing = [e["rule"] for e in entries if e["rule"] not in RULES]
    if missing:
        raise PuzzleError(f"{where}: ISS: unsupported constraint type {item.type!r} (rule {missing[0]!r} is "
                          f"not registered) ({_place(item)})")
    return entries


def _branch(items: list[_Item], grid: IssGrid, span: tuple[int, ...], boxes_k: int | None, where: str) -> list[dict]:
    """The rule entries of one branch of an Or: its constraints' entries in order, then its givens
    as rules (cells given one digit: a ``pencilmarks`` rule of that digit, its cells together)."""
    entries: list[dict] = []
    allowed: dict[str, list[int]] = {}
    for item in items:
        if item.type in ("Shape", "NoBoxes", "Jigsaw", "RegionSize"):
            raise PuzzleError(f"{where}: ISS: {item.type} inside an Or is not supported ({_place(item)})")
        if item.type in ("", "Given"):
            _read_given(item, grid, span, allowed, where)
        else:
            entries += _read_one(item, grid, boxes_k, where)
    givens, limits = _givens(allowed, span, where)
    single: dict[int, list[str]] = {}
    for given in givens:
        cell, digit = given.split("=")
        single.setdefault(int(digit), []).append(cell)
    entries += [{"rule": "pencilmarks", "cells": cells, "digits": [d]} for d, cells in single.items()]
    return entries + limits


def _givens(allowed: dict[str, list[int]], span: tuple[int, ...], where: str) -> tuple[list[str], list[dict]]:
    """Givens (``"r1c1=5"``) and the rules of cells limited to several digits: ``even``, ``odd``,
    else ``pencilmarks`` (one rule per digit set, cells in order of appearance); ``span`` the
    grid's values (``1..N``, or ISS's range such as ``0-8``)."""
    givens: list[str] = []
    groups: dict[tuple[int, ...], list[str]] = {}
    n = len(span)
    evens, odds = tuple(v for v in span if v % 2 == 0), tuple(v for v in span if v % 2)
    for cell, digits in allowed.items():
        if len(digits) == 1 and cell[0] == "r":   # an extra cell's digit is a pencil mark (one digit)
            givens.append(f"{cell}={digits[0]}")
            continue
        key = tuple(sorted(set(digits)))
        groups.setdefault(key, []).append(cell)
    rules = []
    for key, cells in groups.items():
        kind = "even" if key == evens else "odd" if key == odds else "pencilmarks"
        if kind == "pencilmarks" and len(key) == n:
            continue   # every digit allowed: no limit at all
        if kind not in RULES:
            raise PuzzleError(f"{where}: ISS: unsupported pencil-mark givens {'_'.join(map(str, key))} at "
                              f"{cells[0].upper()} (rule {kind!r} is not registered)")
        rules.append({"rule": kind, "cells": cells} if kind != "pencilmarks" else
                     {"rule": kind, "cells": cells, "digits": list(key)})
    return givens, rules
