"""The mapping table's outside clues and counting circles (issue 33), merged into
:data:`pipeline.core.iss_table.READERS` and :data:`~pipeline.core.iss_table.WRITERS`.

ISS names a whole row or column by ``R<k>`` / ``C<k>`` (``k`` in decimal, 1-based: ``R12`` on a
16x16 grid) and reads it from one end: direction ``1`` from the left (a row) or the top (a
column), ``-1`` from the right or the bottom. The document's ``clue`` is the place outside the grid
at that end: ``R3`` direction 1 is ``r3c0``, direction -1 ``r3c10`` on a 9x9; ``C3`` direction 1
``r0c3``, direction -1 ``r10c3``.

* ``Skyscraper`` / ``HiddenSkyscraper`` / ``XSum`` / ``NumberedRoom~R3~A~B``: the clue ``A``
  read from the left or top, ``B`` from the right or bottom, either left empty -> ``skyscraper``
  (``count``), ``hiddenskyscraper`` (``digit``), ``xsum`` (``sum``), ``numberedroom``
  (``digit``), one entry per clue. ISS refuses a clue of 0 for Skyscraper and XSum. Each entry
  is written as its own item (``Skyscraper~C3~4``, ``Skyscraper~C3~~2``), which ISS reads as it
  reads the two clues of one item.
* ``Sandwich~S~R3``: ISS clues a sandwich from the left or the top only -> ``sandwich`` at
  ``r3c0`` / ``r0c3``. A sandwich clued from the right or the bottom (the same sum: the digits
  between the 1 and the N do not depend on the side) is written as ISS's ``Lunchbox~S~cells`` of
  its line read from the clue, which is what ISS's Sandwich itself builds; a ``Lunchbox`` over a
  whole row or column in order (either way) reads back as that sandwich. A lunchbox over other
  cells is :mod:`pipeline.core.iss_table4`'s ``lunchbox``.
* ``CountingCircles~cells`` -> ``countingcircles``.
* ``ContainAtLeast~d_d~cells`` over the 4 cells of a 2x2 square of the grid (1 to 4 values) is
  ISS's ``Quad`` -> ``quadruple``; over any other cells (extra cells, ISS ``Var``, too: "Xin Yang
  v2") -> ``containatleast`` (``values`` as listed, repeats kept: each is in the cells at least
  as often as listed; ISS's non-strict ``RequiredValues``),
  and written back so (a ``containatleast`` over a 2x2 square reads back as that quadruple,
  which means the same).
* ``ContainExact~v_v~cells`` -> ``containexact`` (``values`` as listed, repeats kept: each is in
  the cells exactly as often as listed, other values free; ISS's strict ``RequiredValues``), and
  written back so.

Values: ISS grids hold ``1..V`` or ``0..V-1`` (``V >= N``), and every clue here reads and writes
on each: the project's rules follow ISS's semantics on any value set (docs/conventions.md,
"Value sets": a 0 is no skyscraper, X is the first cell's value, sums add values, the numbered
and hidden skyscraper's clue is a value, a value below 1 is in no counting circle). A sandwich
needs ``N`` values (its ends are the set's smallest and largest); with more, ISS's Sandwich is
its Lunchbox over the line (the sum between the line's smallest and largest values): it reads
as a ``lunchbox`` over the line's cells read from the top or the left.
"""
from __future__ import annotations

import re
from typing import Callable

import numpy as np

from pipeline.core.iss_grid import IssArgError, IssGrid
from pipeline.core.errors import clip
from pipeline.core.rules.cellnames import cell_position

__all__ = ["READERS3", "WRITERS3", "clue_place", "clue_line"]

_LINE = re.compile(r"([RC])([0-9]{1,2})")


def _int(text: str, what: str) -> int:
    try:
        if not text.isascii():   # int() takes any script's digits ('١٠' is 10)
            raise ValueError(text)
        return int(text)
    except ValueError:
        raise IssArgError(f"{what} {clip(text)!r} is not a whole number") from None


def _n_values(grid: IssGrid) -> bool:
    """Does the grid hold exactly ``N`` values (a row or column holds each: a sandwich's ends)?"""
    return len(grid.values) == grid.n


def clue_place(line: str, direction: int, n: int, shape: tuple[int, int] | None = None) -> str:
    """The document's outside place (``"r3c0"``) of ISS's line ``R3`` / ``C3`` read in ``direction``.

    Parameters
    ----------
    line : str
        ``R<k>`` or ``C<k>``, ``k`` from 1 to ``n`` (decimal).
    direction : int
        1: from the left or the top; -1: from the right or the bottom.
    n : int
        Grid side.
    shape : (int, int), optional
        ``(rows, cols)`` of a rectangular grid (default ``(n, n)``).

    Returns
    -------
    str

    Raises
    ------
    IssArgError
        Not a row or column of the grid.

    Examples
    --------
    >>> clue_place("R3", 1, 9), clue_place("R3", -1, 9), clue_place("C12", -1, 16)
    ('r3c0', 'r3c10', 'r17c12')
    """
    rows, cols = shape or (n, n)
    m = _LINE.fullmatch(line)
    if m is None or not 1 <= int(m.group(2)) <= (rows if m.group(1) == "R" else cols):
        raise IssArgError(f"{clip(line)!r} is not a row (R1..R{rows}) or column (C1..C{cols}) of the grid")
    k = int(m.group(2))
    end = 0 if direction == 1 else (cols if m.group(1) == "R" else rows) + 1
    return f"r{k}c{end}" if m.group(1) == "R" else f"r{end}c{k}"


def clue_line(clue: str, n: int, shape: tuple[int, int] | None = None) -> tuple[str, int]:
    """ISS's line and direction (``("R3", 1)``) of a document's outside place (``"r3c0"``): the
    inverse of :func:`clue_place`.

    Parameters
    ----------
    clue : str
        Row or column 0 or ``n + 1`` beside a row's or column's end (not a corner).
    n : int
        Grid side.
    shape : (int, int), optional
        ``(rows, cols)`` of a rectangular grid (default ``(n, n)``).

    Returns
    -------
    tuple of (str, int)
    """
    rows, cols = shape or (n, n)
    r, c = cell_position(clue) or (-1, -1)
    if 1 <= c <= cols and r in (0, rows + 1):
        return f"C{c}", 1 if r == 0 else -1
    if 1 <= r <= rows and c in (0, cols + 1):
        return f"R{r}", 1 if c == 0 else -1
    raise IssArgError(f"clue {clip(clue)!r} is not beside a row's or column's end (ISS clues only those)")


def _line_cells(line: str, direction: int, grid: IssGrid) -> list[str]:
    """ISS ids of the line's cells read in ``direction``."""
    k, n = int(line[1:]), grid.cols if line[0] == "R" else grid.rows
    cells = [f"r{k}c{j}" if line[0] == "R" else f"r{j}c{k}" for j in range(1, n + 1)]
    return [grid.to_iss(c) for c in (cells if direction == 1 else cells[::-1])]


# -- the clues of a whole line from either end ---------------------------------------------
def _read_double(kind: str, key: str, zero_ok: bool) -> Callable[[list[str], IssGrid], list[dict]]:
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        if len(args) not in (2, 3):
            raise IssArgError(f"expected a row or column and one or two clues (R3~A~B), found {len(args)} argument(s)")
        out = []
        for direction, text in zip((1, -1), args[1:]):
            if not text:   # no clue at that end
                continue
            value = _int(text, "clue")
            if value == 0 and not zero_ok:
                raise IssArgError("a clue of 0 (ISS refuses it too)")
            out.append({"rule": kind, "clue": clue_place(args[0], direction, grid.n, (grid.rows, grid.cols)),
                        key: value})
        clue_place(args[0], 1, grid.n, (grid.rows, grid.cols))   # the line is checked even when both clues are empty
        return out
    return read


def _write_double(iss_type: str, key: str, zero_ok: bool) -> Callable[[dict, IssGrid], list[str]]:
    def write(entry: dict, grid: IssGrid) -> list[str]:
        if not zero_ok and entry[key] == 0:
            raise IssArgError(f"a {entry['rule']} clue of 0 has no ISS form (ISS refuses it)")
        line, direction = clue_line(entry["clue"], grid.n, (grid.rows, grid.cols))
        values = [str(entry[key]), ""] if direction == 1 else ["", str(entry[key])]
        return ["~".join([iss_type, line, *values]).rstrip("~")]
    return write


# -- sandwich and lunchbox -----------------------------------------------------------------
def _read_sandwich(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) != 2:
        raise IssArgError(f"expected a sum and a row or column (Sandwich~S~R3), found {len(args)} argument(s)")
    clue, total = clue_place(args[1], 1, grid.n), _int(args[0], "sum")
    if not _n_values(grid):   # ISS's Lunchbox over the line: the sum between its smallest and largest
        return [{"rule": "lunchbox", "cells": grid.cells(_line_cells(args[1], 1, grid)), "sum": total}]
    return [{"rule": "sandwich", "clue": clue, "sum": total}]


def _read_lunchbox(args: list[str], grid: IssGrid) -> list[dict]:
    if not args:
        raise IssArgError("expected a sum and cells")
    total = _int(args[0], "sum") if args[0] else 0
    named = grid.cells(args[1:], 2)
    if grid.any_extra(args[1:]):   # no whole line:
        raise IssArgError("a lunchbox over extra cells is no sandwich")   # to_iss crashed on 'L1' while reading
    cells = [grid.to_iss(c) for c in named]   # ids as ISS writes them: R1C1
    for line in [f"{axis}{k}" for axis in "RC" for k in range(1, grid.n + 1)]:
        for direction in (1, -1):
            if cells == _line_cells(line, direction, grid) and _n_values(grid):
                return [{"rule": "sandwich", "clue": clue_place(line, direction, grid.n), "sum": total}]
    raise IssArgError("unsupported: a lunchbox over cells other than a whole row or column in order "
                      "(a sandwich) has no project rule")


def _write_sandwich(entry: dict, grid: IssGrid) -> list[str]:
    line, direction = clue_line(entry["clue"], grid.n)
    if direction == 1:
        return [f"Sandwich~{entry['sum']}~{line}"]
    # ISS clues a sandwich from the left or top only: its line from this end as a lunchbox
    return ["~".join(["Lunchbox", str(entry["sum"]), *_line_cells(line, direction, grid)])]


# -- counting circles, ContainAtLeast, ContainExact ---------------------------------------------
def _read_counting_circles(args: list[str], grid: IssGrid) -> list[dict]:
    cells = grid.cells(args)
    return [{"rule": "countingcircles", "cells": cells}]


def _write_counting_circles(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["CountingCircles", *(grid.to_iss(c) for c in entry["cells"])])]


def _read_contain_at_least(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) < 2:
        raise IssArgError("expected values and cells")
    cells = grid.cells(args[1:])   # grid cells and extra (Var) cells, as "Xin Yang v2" lists them
    values = [_int(v, "value") for v in args[0].split("_")]
    on_grid = not grid.any_extra(args[1:])
    rcs = np.array(sorted({grid.rc(t) for t in args[1:]})) if on_grid else np.zeros((0, 2), dtype=np.int64)
    square = len(args) == 5 and len(rcs) == 4 and np.array_equal(rcs - rcs[0], [[0, 0], [0, 1], [1, 0], [1, 1]])
    if not square or not 1 <= len(values) <= 4:   # any other cells: the rule takes them and checks the values
        return [{"rule": "containatleast", "cells": cells, "values": sorted(values)}]
    return [{"rule": "quadruple", "cells": [f"r{r + 1}c{c + 1}" for r, c in rcs.tolist()], "digits": sorted(values)}]


def _read_contain_exact(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) < 2:
        raise IssArgError("expected values and cells (ContainExact~1_2~R1C1~R1C2)")
    return [{"rule": "containexact", "cells": grid.cells(args[1:]),
             "values": sorted(_int(v, "value") for v in args[0].split("_"))}]


def _write_contain(kind: str) -> Callable[[dict, IssGrid], list[str]]:
    def write(entry: dict, grid: IssGrid) -> list[str]:
        return ["~".join([kind, "_".join(str(v) for v in entry["values"]), *(grid.to_iss(c) for c in entry["cells"])])]
    return write


#: ISS type -> reader, merged into :data:`pipeline.core.iss_table.READERS`.
READERS3: dict[str, Callable[[list[str], IssGrid], list[dict]]] = {
    "Skyscraper": _read_double("skyscraper", "count", zero_ok=False),
    "HiddenSkyscraper": _read_double("hiddenskyscraper", "digit", zero_ok=True),
    "XSum": _read_double("xsum", "sum", zero_ok=False),
    "NumberedRoom": _read_double("numberedroom", "digit", zero_ok=True),
    "Sandwich": _read_sandwich,
    "Lunchbox": _read_lunchbox,
    "CountingCircles": _read_counting_circles,
    "ContainAtLeast": _read_contain_at_least,
    "ContainExact": _read_contain_exact,
}

#: Rule kind -> writer, merged into :data:`pipeline.core.iss_table.WRITERS`.
WRITERS3: dict[str, Callable[[dict, IssGrid], list[str]]] = {
    "skyscraper": _write_double("Skyscraper", "count", zero_ok=False),
    "hiddenskyscraper": _write_double("HiddenSkyscraper", "digit", zero_ok=True),
    "xsum": _write_double("XSum", "sum", zero_ok=False),
    "numberedroom": _write_double("NumberedRoom", "digit", zero_ok=True),
    "sandwich": _write_sandwich,
    "countingcircles": _write_counting_circles,
    "containexact": _write_contain("ContainExact"),
    "containatleast": _write_contain("ContainAtLeast"),
}
