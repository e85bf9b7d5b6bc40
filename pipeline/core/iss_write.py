"""A puzzle as an ISS constraint string (sigh's Interactive Sudoku Solver), the inverse of :mod:`pipeline.core.iss`.

The string opens in ISS's web page (``https://sigh.github.io/Interactive-Sudoku-Solver/?q=`` + the
string, URL-encoded) and reads back through :func:`pipeline.core.iss.document_from_iss` as the
same puzzle. The grid: ``.Shape~NxN`` (omitted for 9x9); boxes of another shape than ISS's own,
jigsaw regions and a Latin square as ``.NoBoxes`` (+ ``.Jigsaw~LAYOUT``); the rules through
:data:`pipeline.core.iss_table.WRITERS`; the givens last, as ISS writes them (``.~R1C1_5~...``),
cells limited to several digits (even, odd, pencil marks) among them. A puzzle ISS cannot hold
(a layout, a grid past 16x16, a rule kind without an ISS type, a grid cell's pencil marks of one
digit: ISS reads ``~R1C1_5`` as a given) is refused in one line.
"""
from __future__ import annotations

import numpy as np

from pipeline.core.iss_extra import IMPLICIT_GROUPS, is_doppel_link, iss_prefixes, iss_var_items
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import iss_boxes, region_box_rules, region_boxes
from pipeline.core.iss_table import WRITERS, IssArgError, IssGrid, iss_cell_id
from pipeline.core.iss_table2 import pair_key
from pipeline.core.puzzle import Puzzle
from pipeline.core.rules.cellnames import cell_name
from pipeline.core.rules.xv import StrictKropki
from pipeline.core.rect import iss_rect_box, rect_box_units

__all__ = ["iss_from_puzzle", "iss_link"]

#: ISS's page: a string appended (URL-encoded) as ``?q=`` opens the puzzle there.
ISS_PAGE = "https://sigh.github.io/Interactive-Sudoku-Solver/"
_LAYOUT_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _grid_items(puzzle: Puzzle, where: str) -> list[str]:
    """Shape, NoBoxes, Jigsaw and Diagonal items for the puzzle's grid and variant."""
    n = puzzle.n
    items = [] if n == 9 else [f"Shape~{n}x{n}"]
    if puzzle.values is not None:   # ISS's ranges: 1..V or 0..V-1 (V >= N)
        v = len(puzzle.values)
        if puzzle.values not in (tuple(range(v)), tuple(range(1, v + 1))):
            raise PuzzleError(f"{where}: the values {list(puzzle.values)[:10]} have no ISS form (ISS takes 1-V or 0-(V-1))")
        items = [f"Shape~{n}x{n}~0-{v - 1}" if puzzle.values[0] == 0 else f"Shape~{n}x{n}~{v}"]
    spec = puzzle.spec
    if puzzle.variant == "raw":   # ISS's Raw grid: no houses, N values (the range always written)
        low = 0 if puzzle.values is not None and puzzle.values[0] == 0 else 1
        return [f"Shape~{n}x{n}~{low}-{low + n - 1}~Raw"]
    known = {"classic", "latin", "jigsaw", "x", "jigsaw_x"}
    if puzzle.variant not in known or spec.extra_units is not None:
        raise PuzzleError(f"{where}: variant {puzzle.variant!r} has no ISS form")
    regions = None
    if spec.regions and puzzle.regions is not None:
        regions = np.asarray(puzzle.regions)
    elif spec.boxes and iss_boxes(n) != (puzzle.h, puzzle.w):   # boxes ISS would not draw: a jigsaw of them
        rows, cols = np.divmod(np.arange(n * n), n)
        regions = ((rows // puzzle.h) * (n // puzzle.w) + cols // puzzle.w).reshape(n, n)
    if regions is not None:
        ids = np.unique(regions, return_inverse=True)[1].ravel()
        items += ["NoBoxes", "Jigsaw~" + "".join(_LAYOUT_CHARS[k] for k in ids)]
    elif not spec.boxes and iss_boxes(n) is not None:
        items.append("NoBoxes")
    if spec.diagonals:
        items += ["Diagonal~-1", "Diagonal~1"]
    return items


def _rect_items(puzzle: Puzzle, where: str) -> tuple[list[str], np.ndarray | None]:
    """Shape, NoBoxes and Jigsaw items of a rectangular grid (:mod:`pipeline.core.rect`) and the
    unit numbers (``rows x cols``: boxes or regions, None for none) its reader will see."""
    rows, cols, n = puzzle.rows, puzzle.cols, puzzle.n
    values = puzzle.values or tuple(range(1, n + 1))
    v = len(values)
    if values not in (tuple(range(v)), tuple(range(1, v + 1))):
        raise PuzzleError(f"{where}: the values {list(values)[:10]} have no ISS form (ISS takes 1-V or 0-(V-1))")
    if max(rows, cols) > 16 or v > 16:
        raise PuzzleError(f"{where}: a {rows}x{cols} grid of {v} values is larger than ISS's largest (16)")
    span = "" if values == tuple(range(1, max(rows, cols) + 1)) else f"~0-{v - 1}" if values[0] == 0 else f"~{v}"
    items = [f"Shape~{rows}x{cols}{span}"]
    default = iss_rect_box(rows, cols, max(rows, cols))
    regions = np.asarray(puzzle.regions) if puzzle.regions is not None else None
    if puzzle.spec.boxes and (puzzle.h, puzzle.w) != default:
        if n != max(rows, cols):
            raise PuzzleError(f"{where}: {puzzle.h}x{puzzle.w} boxes on a {rows}x{cols} grid have no ISS form")
        ids = np.empty(rows * cols, dtype=np.int64)
        units = rect_box_units(rows, cols, puzzle.h, puzzle.w)
        ids[units.ravel()] = np.repeat(np.arange(units.shape[0]), units.shape[1])
        regions = ids.reshape(rows, cols)
    if regions is not None:
        ids = np.unique(regions, return_inverse=True)[1].ravel()
        items += (["NoBoxes"] if default is not None else []) + ["Jigsaw~" + "".join(_LAYOUT_CHARS[k] for k in ids)]
        return items, ids.reshape(rows, cols)
    if not puzzle.spec.boxes:
        return items + (["NoBoxes"] if default is not None else []), None
    units = rect_box_units(rows, cols, puzzle.h, puzzle.w)
    ids = np.empty(rows * cols, dtype=np.int64)
    ids[units.ravel()] = np.repeat(np.arange(units.shape[0]), units.shape[1])
    return items, ids.reshape(rows, cols)


def _region_size(puzzle: Puzzle) -> int | None:
    """``k`` when the puzzle's extra regions are exactly ISS's ``RegionSize~k`` boxes (a latin grid
    of more values than the side, ``k != N``), else None."""
    n = puzzle.n
    extras = [entry for entry in puzzle.rules_dicts() if entry["rule"] == "extraregion"]
    if puzzle.n_values <= n or puzzle.variant != "latin" or not extras or len(extras[0]["cells"]) == n:
        return None
    k = len(extras[0]["cells"])
    boxes = region_boxes(n, k)
    return k if boxes is not None and region_box_rules(n, *boxes) == extras else None


def _pieces_layout(puzzle: Puzzle) -> tuple[int, str] | None:
    """``(k, layout)`` when a latin grid of more values than the side has extra regions that ISS
    reads back from a ``Jigsaw`` layout: disjoint, all of ``k`` cells, the cells left over (if
    any) too many or too few to be a piece; else None."""
    n, v = puzzle.n, puzzle.n_values
    # the rules' own cells (canvas numbers, r * n + c with no layout), not their names read back
    extras = [rule.cells() for rule in puzzle.rules if rule.kind == "extraregion"]
    if v <= n or puzzle.variant != "latin" or not extras or len(extras) >= len(_LAYOUT_CHARS):
        return None
    k = extras[0].size
    ids = np.full(n * n, len(extras))
    for piece, at in enumerate(extras):
        if at.size != k or not n <= k <= v or (ids[at] != len(extras)).any():
            return None
        ids[at] = piece
    rest = int(np.count_nonzero(ids == len(extras)))
    if n <= rest <= v:   # the rest would read as one more piece
        return None
    return k, "".join(_LAYOUT_CHARS[i] for i in ids.tolist())


def _units(puzzle: Puzzle) -> np.ndarray | None:
    """The regions or boxes the string's reader will see (N x N unit numbers), or None: what tells
    the writer whether cells share a unit (a ``sum`` there is written with explicit coefficients)."""
    n = puzzle.n
    if puzzle.spec.regions and puzzle.regions is not None:
        return np.asarray(puzzle.regions).reshape(n, n)
    if puzzle.spec.boxes:
        rows, cols = np.divmod(np.arange(n * n), n)
        return ((rows // puzzle.h) * (n // puzzle.w) + cols // puzzle.w).reshape(n, n)
    return None


def _one_colour_strict_kropki(puzzle: Puzzle, color: str, grid: IssGrid) -> list[str]:
    """Only the dots of one colour all given: ISS's ``StrictKropki`` gives both, so each orthogonal
    pair without a dot is a ``Pair`` whose key allows what the rule does not forbid (the rule's own
    pairs and table: one source for what "unmarked" and "forbidden" mean)."""
    rule = next(r for r in puzzle.rules if isinstance(r, StrictKropki) and r.color == color)
    board = puzzle.board
    key = pair_key(~rule.forbidden(board.value_of))   # 0-based digits: ISS's value positions
    return ["~".join(["Pair", key, grid.to_iss(cell_name(int(a), board)), grid.to_iss(cell_name(int(b), board))])
            for a, b in rule.pairs(board)]


def iss_from_puzzle(puzzle: Puzzle, where: str = "puzzle") -> str:
    """The ISS constraint string of ``puzzle``.

    Parameters
    ----------
    puzzle : Puzzle
        An N x N puzzle, N from 1 to 16 (no layout).
    where : str
        How messages name the puzzle.

    Returns
    -------
    str

    Raises
    ------
    PuzzleError
        One line: a layout, a grid larger than ISS's 16x16, a variant or a rule ISS has no type for
        (named, with its place in the puzzle's rules).

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> iss_from_puzzle(parse_puzzle({"size": 4, "givens": "1" + "." * 15, "rules": [{"rule": "antiknight"}]}))
    '.Shape~4x4.AntiKnight.~R1C1_1'
    """
    if puzzle.layout is not None:
        raise PuzzleError(f"{where}: a {puzzle.layout.name} layout has no ISS form (ISS holds one grid)")
    n = puzzle.n
    if n > 16:
        raise PuzzleError(f"{where}: a {n}x{n} grid is larger than ISS's largest, 16x16")
    rect = _rect_items(puzzle, where) if puzzle.is_rect else None   # a rectangular grid: its own items
    items = _grid_items(puzzle, where) if rect is None else rect[0]
    region_size = _region_size(puzzle) if rect is None else None
    if region_size is not None:   # its boxes of k cells: ISS's RegionSize (no NoBoxes: they are the boxes)
        items = [item for item in items if item != "NoBoxes"] + [f"RegionSize~{region_size}"]
    pieces = None if region_size is not None or rect is not None else _pieces_layout(puzzle)
    if pieces is not None:   # jigsaw pieces of k cells on a grid of more values
        region_size = pieces[0]
        items += ([] if pieces[0] == n else [f"RegionSize~{pieces[0]}"]) + [f"Jigsaw~{pieces[1]}"]
    grid = IssGrid(n, _units(puzzle), puzzle.values) if rect is None else \
        IssGrid(n, rect[1], puzzle.values, rows=puzzle.rows, cols=puzzle.cols)   # values: a pair key indexes them
    givens: list[str] = []
    doppel = any(rule.kind == "doppelganger" for rule in puzzle.rules)   # its DG cells come with it
    grid.extra_groups, grid.implicit = puzzle.extra, frozenset(IMPLICIT_GROUPS["Doppelganger"] if doppel else ())
    items += iss_var_items(puzzle.extra, grid.implicit)   # extra cells (pipeline.core.iss_extra)
    grid.extra = iss_prefixes(puzzle.extra, grid.implicit, grid.cols)   # where ISS lays them (a pill's reading order)
    for k, entry in puzzle.rules_as_given():
        if region_size is not None and entry["rule"] == "extraregion":
            continue
        if doppel and is_doppel_link(entry):
            continue
        if puzzle.values is not None and entry["rule"] in ("even", "odd"):   # their values, as pencil marks
            parity = 0 if entry["rule"] == "even" else 1
            entry = {"rule": "pencilmarks", "cells": entry["cells"],
                     "digits": [v for v in puzzle.values if v % 2 == parity]}
        if entry["rule"] == "strictkropki" and entry.get("color"):   # no ISS type: a Pair per unmarked pair
            items += _one_colour_strict_kropki(puzzle, entry["color"], grid)
            continue
        writer = WRITERS.get(entry["rule"])
        if writer is None:
            raise PuzzleError(f"{where}: rules[{k}] ({entry['rule']}) has no ISS constraint type")
        try:
            written = writer(entry, grid)
        except IssArgError as e:
            raise PuzzleError(f"{where}: rules[{k}] ({entry['rule']}): {e}") from None
        for item in written:
            if item.startswith("~R") and item.count("_") == 1:   # a grid cell of one digit: ISS's given
                cell, digit = item[1:].split("_")
                raise PuzzleError(f"{where}: rules[{k}] ({entry['rule']}) limits {cell} to one digit ({digit}), which "
                                  f"ISS reads as a given (a pencil mark is not a clue): no ISS form")
            if item.startswith("~"):
                givens.append(item[1:])
            else:
                items.append(item)
    rows, cols = np.nonzero(puzzle.grid)
    shown = puzzle.shown(puzzle.grid)   # givens in values (a value set: 0..N-1)
    givens = [f"{iss_cell_id(r, c)}_{shown[r, c]}" for r, c in zip(rows.tolist(), cols.tolist())] + givens
    if givens:
        items.append("~" + "~".join(givens))
    # an empty 9x9 grid says its shape: an empty string is no puzzle to read back
    return "".join("." + item for item in items) or f".Shape~{n}x{n}"


def iss_link(puzzle: Puzzle, where: str = "puzzle") -> str:
    """The link that opens ``puzzle`` in ISS's web page.

    Parameters
    ----------
    puzzle : Puzzle
        As for :func:`iss_from_puzzle`.
    where : str
        How messages name the puzzle.
    """
    from urllib.parse import quote

    return ISS_PAGE + "?q=" + quote(iss_from_puzzle(puzzle, where), safe=".~_")
