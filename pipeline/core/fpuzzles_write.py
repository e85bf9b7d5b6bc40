"""A puzzle as f-puzzles JSON and as its compressed payload, the inverse of :mod:`pipeline.core.fpuzzles`.

Every element the reader supports is written (killer cages, thermometers, Kropki dots, odd and
even cells, extra regions, diagonals, the global rules, quadruples, arrows and pill arrows,
clones for ``samevalues`` of one-cell groups, and f-puzzles' ``negative`` list for the strict
rules: ``difference`` and ``ratio`` for ``strictkropki``'s colours, ``xv`` for ``strictxv``; every
white dot given beside a white dot of another difference is ``nonconsecutive``, as the reader
reads it beside dots);
boxes other than f-puzzles' default for the size (every composite size has one, see
``pipeline.core.fpuzzles._default_box``) and jigsaw regions go in each cell's ``region``; a Latin square has no ``region`` when its size has no box shape (a prime: the
readers give it no boxes) and each row as its region otherwise; a windoku's four windows are
written as extra regions (the same units). Anything
else (a layout, a greater-than sign, ``nonconsecutive`` beside Kropki dots,
which f-puzzles reads with the dotted pairs exempt) is refused in one line naming it.
"""
from __future__ import annotations

import json
import re

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.fpuzzles import _BOXES, LINE_ELEMENTS, diagonal_direction, no_box_shape
from pipeline.core.lzstring import compress_to_base64
from pipeline.core.puzzle import Puzzle
from pipeline.core.rules import window_units

__all__ = ["fpuzzles_from_puzzle", "fpuzzles_payload"]

_GLOBAL = {"antiknight": "antiknight", "antiking": "antiking", "nonconsecutive": "nonconsecutive",
           "disjointgroups": "disjointgroups"}


def _cell(name: str) -> str:
    return name.upper()


#: Our line kinds and the f-puzzles elements that draw them (:data:`pipeline.core.fpuzzles.LINE_ELEMENTS`).
_LINE_OF = {kind: element for element, kind in LINE_ELEMENTS.items()}


def _little_killer(entry: dict) -> dict:
    """A little killer's ``littlekillersum`` entry: its clue outside the grid, the diagonal's cells
    and the direction from the clue to them."""
    clue, first = (tuple(int(v) for v in re.findall(r"\d+", name)) for name in (entry["clue"], entry["cells"][0]))
    return {"cell": _cell(entry["clue"]), "cells": [_cell(c) for c in entry["cells"]],
            "direction": diagonal_direction(clue, first),
            "value": str(entry["sum"])}


def _strict_kropki(data: dict, color: str | None, given: list, k: int, where: str) -> None:
    """f-puzzles' words for ``strictkropki`` (every dot of ``color``, or of both, given). Its
    ``negative`` constraints ban the dots' own values (a value-2 white dot: a difference of 2 on every
    pair without a dot), ours a difference of 1 and a ratio of 2: a white dot of another value is
    written ``nonconsecutive`` instead, which f-puzzles reads beside dots as every white dot given,
    any dotted pair exempt; a black dot of another ratio has no form."""
    values: dict[str, set[int]] = {"white": set(), "black": set()}
    for _, entry in given:
        if entry["rule"] == "kropki":
            values[entry["color"]].add(entry.get("value", 1 if entry["color"] == "white" else 2))
    if color in (None, "black") and values["black"] - {2}:
        raise PuzzleError(f"{where}: rules[{k}] (strictkropki) beside a black dot of ratio "
                          f"{min(values['black'] - {2})} has no f-puzzles form (f-puzzles' negative ratio would ban "
                          "that ratio on the pairs without a dot)")
    if color in (None, "white"):
        if values["white"] - {1}:
            data["nonconsecutive"] = True
        else:
            data.setdefault("negative", []).append("difference")
    if color in (None, "black"):
        data.setdefault("negative", []).append("ratio")


def _pill_arrow(entry: dict, k: int, where: str) -> dict:
    """A pill arrow's ``arrow`` entry: the pill's cells (f-puzzles reads them in reading order, so
    another order is refused) and one line from the pill through the shaft."""
    size = int(entry.get("pill", 2))
    pill, shaft = entry["cells"][:size], entry["cells"][size:]
    places = [tuple(int(v) for v in re.findall(r"\d+", name)) for name in pill]
    if places != sorted(places):
        raise PuzzleError(f"{where}: rules[{k}] (pillarrow): the pill {', '.join(pill)} is not in reading order, "
                          "as f-puzzles reads a pill")
    first = tuple(int(v) for v in re.findall(r"\d+", shaft[0]))
    start = min(range(size), key=lambda i: max(abs(places[i][0] - first[0]), abs(places[i][1] - first[1])))
    return {"cells": [_cell(c) for c in pill], "lines": [[_cell(pill[start])] + [_cell(c) for c in shaft]]}


def fpuzzles_from_puzzle(puzzle: Puzzle, where: str = "puzzle") -> dict:
    """The f-puzzles JSON object of ``puzzle``.

    Parameters
    ----------
    puzzle : Puzzle
        An N x N puzzle (N from 1 to 64, no layout).
    where : str
        How messages name the puzzle.

    Returns
    -------
    dict

    Raises
    ------
    PuzzleError
        A layout, a rectangular grid, a value set, extra cells, a variant or a rule f-puzzles has
        no element for (one line naming it).
    """
    n = puzzle.n
    if puzzle.layout is not None:
        raise PuzzleError(f"{where}: a {puzzle.layout.name} layout has no f-puzzles form")
    if puzzle.rows != puzzle.cols:   # read back, it would be another puzzle: refused, never written
        raise PuzzleError(f"{where}: a {puzzle.rows}x{puzzle.cols} grid has no f-puzzles form (its grids are square)")
    if puzzle.values is not None:
        v = puzzle.values   # name the set, so "its digits" cannot be read as the puzzle's own
        shown = f"{v[0]}-{v[-1]}" if tuple(v) == tuple(range(v[0], v[-1] + 1)) else ",".join(map(str, v))
        raise PuzzleError(f"{where}: the value set {shown} has no f-puzzles form (a {n}x{n} f-puzzles grid "
                          f"holds the digits 1-{n})")
    if puzzle.extra:   # its rules would name cells (S1) the link cannot declare: unreadable
        raise PuzzleError(f"{where}: extra cells ({', '.join(e.name for e in puzzle.extra)}) have no f-puzzles form "
                          "(its cells are the grid's)")
    if not 1 <= n <= 64:
        raise PuzzleError(f"{where}: a {n}x{n} grid is beyond f-puzzles' 64x64")
    spec = puzzle.spec
    if puzzle.variant not in ("classic", "x", "jigsaw", "jigsaw_x", "latin"):
        raise PuzzleError(f"{where}: variant {puzzle.variant!r} has no f-puzzles form (f-puzzles grids have boxes "
                          "or regions)")
    cells: list[list[dict]] = [[{} for _ in range(n)] for _ in range(n)]
    for r, c in zip(*np.nonzero(puzzle.grid)):
        cells[int(r)][int(c)] = {"value": int(puzzle.grid[r, c]), "given": True}
    regions = None
    if puzzle.variant == "latin":
        # no boxes: a grid of no box shape is written without regions (f-puzzles' importers give it
        # none, see no_box_shape); any other size gets each row as a region, as dclamage/SudokuSolver
        # writes a prime size's (SudokuSolver/SolverFactory.cs: every cell's region), read back as latin
        if not no_box_shape(n):
            regions = np.repeat(np.arange(n), n).reshape(n, n)
    elif spec.regions and puzzle.regions is not None:
        regions = np.unique(np.asarray(puzzle.regions), return_inverse=True)[1].reshape(n, n)
    elif _BOXES.get(n) != (puzzle.h, puzzle.w):
        rows, cols = np.divmod(np.arange(n * n), n)
        regions = ((rows // puzzle.h) * (n // puzzle.w) + cols // puzzle.w).reshape(n, n)
    if regions is not None:
        for r in range(n):
            for c in range(n):
                cells[r][c]["region"] = int(regions[r, c])
    data: dict = {"size": n, "grid": cells}
    if spec.diagonals:
        data["diagonal+"] = data["diagonal-"] = True
    board = puzzle.base_board
    given = list(puzzle.rules_as_given())
    dots = any(entry["rule"] == "kropki" for _, entry in given)
    for k, entry in given:
        kind = entry["rule"]
        if kind == "nonconsecutive" and dots:
            raise PuzzleError(f"{where}: rules[{k}] (nonconsecutive) beside Kropki dots has no f-puzzles form "
                              "(f-puzzles exempts the dotted pairs); strictkropki with color white says that")
        if kind in _GLOBAL:
            data[_GLOBAL[kind]] = True
        elif kind == "strictxv":
            data.setdefault("negative", []).append("xv")
        elif kind == "strictkropki":
            _strict_kropki(data, entry.get("color"), given, k, where)
        elif kind == "quadruple":
            data.setdefault("quadruple", []).append({"cells": [_cell(c) for c in entry["cells"]],
                                                     "values": list(entry["digits"])})
        elif kind == "samevalues" and all(len(group) == 1 for group in entry["groups"]):
            first = _cell(entry["groups"][0][0])
            data.setdefault("clone", []).append({"cells": [first] * (len(entry["groups"]) - 1),
                                                 "cloneCells": [_cell(g[0]) for g in entry["groups"][1:]]})
        elif kind == "pillarrow":
            data.setdefault("arrow", []).append(_pill_arrow(entry, k, where))
        elif kind == "diagonal":
            data["diagonal-" if entry.get("which", "main") == "main" else "diagonal+"] = True
        elif kind == "cage":
            cage: dict = {"cells": [_cell(c) for c in entry["cells"]]}
            if "sum" in entry:
                cage["value"] = str(entry["sum"])
            data.setdefault("killercage", []).append(cage)
        elif kind == "thermo":
            data.setdefault("thermometer", []).append({"lines": [[_cell(c) for c in entry["cells"]]]})
        elif kind == "kropki":
            dot: dict = {"cells": [_cell(c) for c in entry["cells"]]}
            if "value" in entry:
                dot["value"] = str(entry["value"])
            data.setdefault("difference" if entry["color"] == "white" else "ratio", []).append(dot)
        elif kind in ("odd", "even"):
            data.setdefault(kind, []).extend({"cell": _cell(c)} for c in entry["cells"])
        elif kind == "extraregion":
            data.setdefault("extraregion", []).append({"cells": [_cell(c) for c in entry["cells"]]})
        elif kind in _LINE_OF and set(entry) == {"rule", "cells"}:   # a whisper of another difference: none
            data.setdefault(_LINE_OF[kind], []).append({"lines": [[_cell(c) for c in entry["cells"]]]})
        elif kind == "arrow" and set(entry) == {"rule", "cells"}:
            line = [_cell(c) for c in entry["cells"]]   # circle first, as the link draws it
            data.setdefault("arrow", []).append({"cells": line[:1], "lines": [line]})
        elif kind == "xv" and set(entry) == {"rule", "letter", "cells"}:
            data.setdefault("xv", []).append({"cells": [_cell(c) for c in entry["cells"]],
                                              "value": entry["letter"].upper()})
        elif kind == "littlekiller" and "clue" in entry:
            data.setdefault("littlekillersum", []).append(_little_killer(entry))
        elif kind == "sandwich" and set(entry) == {"rule", "clue", "sum"}:
            data.setdefault("sandwichsum", []).append({"cell": _cell(entry["clue"]), "value": str(entry["sum"])})
        elif kind == "pencilmarks":   # the setter's marks, each cell's its own (two rules on a cell: both)
            for name in entry["cells"]:
                r, c = (int(v) - 1 for v in re.findall(r"\d+", name))   # rRcC: rules_dicts names grid cells
                marks = sorted(set(entry["digits"]) & set(cells[r][c].get("givenPencilMarks", entry["digits"])))
                if not marks:
                    raise PuzzleError(f"{where}: rules[{k}] (pencilmarks): the marks of {name} leave no digit")
                cells[r][c]["givenPencilMarks"] = marks
        elif kind == "windoku":
            windows = window_units(board.rows, board.cols, board.h, board.w)
            for window in () if windows is None else windows:
                data.setdefault("extraregion", []).append(
                    {"cells": [f"R{int(c) // board.cols + 1}C{int(c) % board.cols + 1}" for c in window]})
        else:   # f-puzzles' minimum and maximum cells read as greater-than signs: say where they went
            why = (" (f-puzzles draws no greater-than sign; the minimum and maximum cells it reads are such "
                   "signs, and are not written back)" if kind == "greater" else "")
            raise PuzzleError(f"{where}: rules[{k}] ({kind}) has no f-puzzles element{why}")
    return data


def fpuzzles_payload(puzzle: Puzzle, where: str = "puzzle", extra: dict[str, str] | None = None) -> str:
    """The compressed payload of ``puzzle``'s f-puzzles JSON (``https://www.f-puzzles.com/?load=`` + it).

    Parameters
    ----------
    puzzle : Puzzle
        As for :func:`fpuzzles_from_puzzle`.
    where : str
        How messages name the puzzle.
    extra : dict of str to str, optional
        Free-text fields of the f-puzzles JSON (``title``, ``author``, ``ruleset``).
    """
    data = {**fpuzzles_from_puzzle(puzzle, where), **(extra or {})}
    return compress_to_base64(json.dumps(data, separators=(",", ":")))
