"""The mapping table between ISS constraint types and the puzzle document's rule entries.

:mod:`pipeline.core.iss` reads an ISS constraint string (``.Cage~15~R1C1~R1C2.~R1C1_5``) and
:mod:`pipeline.core.iss_write` writes one; both go through the two tables of this module:

* :data:`READERS`: ISS type -> ``read(args, grid) -> [rule entries]``, the entries of
  :data:`pipeline.core.rules.RULES` the constraint means (``args`` are its ``~``-separated
  arguments, whitespace removed; ``grid`` an :class:`IssGrid`);
* :data:`WRITERS`: rule kind -> ``write(entry, grid) -> [ISS items]``, the items (``"Cage~15~R1C1~R1C2"``,
  no leading dot; ``"~R1C1_2_4"`` for pencil-mark givens, gathered into the string's one given
  item) of one rule entry as ``Rule.to_dict`` writes it.

A type missing from :data:`READERS` is refused by name (never dropped); a type whose entries name
a rule kind not registered (yet) is refused the same way. Shapes, givens, ``NoBoxes`` and
``Jigsaw`` shape the document itself (size, variant, regions) and are read in :mod:`pipeline.core.iss`.
Adding a mapping for a new rule is one reader here (``"Arrow": _read_arrow``) and one writer
(``"arrow": _write_arrow``), each a few lines over the helpers of :class:`IssGrid`.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from pipeline.core.errors import clip
from pipeline.core.iss_detect import ISS_TYPES, MAX_ISS_CHARS, looks_like_iss
from pipeline.core.iss_chaos import READERS_CHAOS, WRITERS_CHAOS, region_readers
from pipeline.core.iss_grid import IssArgError, IssGrid, iss_cell_id
from pipeline.core.iss_nfa import READERS_NFA, WRITERS_NFA
from pipeline.core.iss_table2 import READERS2, WRITERS2
from pipeline.core.iss_table3 import READERS3, WRITERS3
from pipeline.core.iss_table4 import READERS4, WRITERS4
from pipeline.core.iss_table5 import READERS5, WRITERS5
from pipeline.core.iss_table6 import READERS6, WRITERS6
from pipeline.core.iss_table8 import READERS8, WRITERS8
from pipeline.core.rules.cellnames import cell_position

__all__ = ["IssArgError", "IssGrid", "READERS", "WRITERS", "ISS_TYPES", "MAX_ISS_CHARS", "disjoint_set_rules",
           "iss_cell_id", "looks_like_iss"]


def _no_args(args: list[str]) -> None:
    if args:
        raise IssArgError(f"takes no arguments, found {len(args)}")


def _global(kind: str) -> Callable[[list[str], IssGrid], list[dict]]:
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        _no_args(args)
        return [{"rule": kind}]
    return read


def _int(text: str, what: str) -> int:
    try:
        if not text.isascii():   # int() takes any script's digits ('١٠' is 10)
            raise ValueError(text)
        return int(text)
    except ValueError:
        raise IssArgError(f"{what} {clip(text)!r} is not a whole number") from None


def iss_boxes(n: int) -> tuple[int, int] | None:
    """The boxes ISS gives an N x N grid: ``(h, w)``, h the largest divisor of N from ``sqrt(N)``
    down to 2 (h <= w), or None (N prime or below 4: no boxes).

    Parameters
    ----------
    n : int
        Grid side.
    """
    for small in range(int(np.sqrt(n)), 1, -1):
        if n % small == 0:
            return small, n // small
    return None


def on_iss_boxes(grid: IssGrid) -> bool:
    """Are ``grid``'s units the boxes ISS gives its size (:func:`iss_boxes`), where ISS lays its
    ``DisjointSets``?

    Parameters
    ----------
    grid : IssGrid

    Returns
    -------
    bool
    """
    dims, n = iss_boxes(grid.n), grid.n
    if dims is None or grid.units is None or np.size(grid.units) != n * n:
        return False
    rows, cols = np.divmod(np.arange(n * n), n)
    boxes = (rows // dims[0]) * (n // dims[1]) + cols // dims[1]
    units = np.unique(np.asarray(grid.units).ravel(), return_inverse=True)[1].ravel()
    return bool(np.array_equal(np.unique(boxes, return_inverse=True)[1].ravel(), units))


def _write_disjoint_groups(entry: dict, grid: IssGrid) -> list[str]:
    """``DisjointSets`` on ISS's own boxes; on other boxes (a 6x6's 3x2, written as a jigsaw) each
    set apart as an ``AllDifferent`` (ISS would lay ``DisjointSets`` on its 2x3 boxes): the cells
    at one position of every box, the position row-major in the box."""
    if on_iss_boxes(grid):
        return ["DisjointSets"]
    n = grid.n
    if grid.units is None or np.size(grid.units) != n * n:
        raise IssArgError("disjoint groups need one N x N grid with boxes")
    first_box = np.flatnonzero(np.asarray(grid.units).ravel() == np.asarray(grid.units).flat[0])
    h = np.unique(first_box // n).size                       # the boxes' shape, from the first one
    return [item for group in disjoint_set_rules([], n, (h, first_box.size // h))
            for item in _items("AllDifferent", *_cells_of(group, grid))]


def disjoint_set_rules(args: list[str], n: int, dims: tuple[int, int] | None) -> list[dict]:
    """ISS's ``DisjointSets`` on boxes of ``h x w`` cells other than the grid's (``RegionSize``):
    the cells at one position of every box hold distinct values, one sumless ``cage`` per position
    (row-major in the box; each set's cells box by box, row-major); none when there are no such
    boxes (``dims`` None: ISS then has no sets).

    Parameters
    ----------
    args : list of str
        The constraint's arguments (it takes none).
    n : int
        Grid side.
    dims : (int, int) or None
        The boxes' ``(h, w)`` (:func:`pipeline.core.iss.region_boxes`).

    Returns
    -------
    list of dict
    """
    _no_args(args)
    if dims is None:
        return []
    h, w = dims
    rows, cols = np.divmod(np.arange(n * n), n)
    position = (rows % h) * w + cols % w
    box = (rows // h) * (n // w) + cols // w
    order = np.lexsort((box, position))        # by position, then box (boxes row-major)
    sets = np.split(order, h * w)
    return [{"rule": "cage", "cells": [f"r{c // n + 1}c{c % n + 1}" for c in cells.tolist()]} for cells in sets]


def _read_cage(args: list[str], grid: IssGrid) -> list[dict]:
    if not args:
        raise IssArgError("expected a sum and cells")
    cells = grid.cells(args[1:])
    total = _int(args[0], "sum") if args[0].strip() else 0
    distinct = list(dict.fromkeys(cells))
    entry: dict = {"rule": "cage", "cells": distinct}
    if total and len(distinct) < len(cells):
        # ISS: the cells distinct as a set, while its Sum counts a cell listed twice twice
        # (sum_handler.js adds the coefficients of a repeated cell): a cage and a weighted sum
        weights = [cells.count(c) for c in distinct]
        return [entry, {"rule": "sum", "sum": total, "cells": distinct, "weights": weights}]
    if total:   # ISS: a sum of 0 (or none) means any sum, the cells distinct
        entry["sum"] = total
    return [entry]


def _read_cells(kind: str, at_least: int = 1) -> Callable[[list[str], IssGrid], list[dict]]:
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        return [{"rule": kind, "cells": grid.cells(args, at_least)}]
    return read


def _entropic_values(grid: IssGrid) -> None:
    """ISS's Entropic line takes the values 1-9 only (its groups 123, 456, 789)."""
    if grid.values != tuple(range(1, 10)):
        raise IssArgError(f"ISS's Entropic line needs the values 1-9; this grid's values are "
                          f"{grid.values[0]}-{grid.values[-1]}")


def _read_entropic(args: list[str], grid: IssGrid) -> list[dict]:
    _entropic_values(grid)
    return [{"rule": "entropic", "cells": grid.cells(args, 2)}]


def _write_entropic(entry: dict, grid: IssGrid) -> list[str]:
    _entropic_values(grid)
    return _items("Entropic", *_cells_of(entry, grid))


def _read_all_different(args: list[str], grid: IssGrid) -> list[dict]:
    cells = grid.cells(args)
    if len(cells) == grid.n and all(cell_position(c) is not None for c in cells):
        return [{"rule": "extraregion", "cells": cells}]
    # a cage without a sum: distinct digits (also for N cells with extra cells: a unit is grid cells)
    return [{"rule": "cage", "cells": cells}]


def _read_dot(color: str) -> Callable[[list[str], IssGrid], list[dict]]:
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        grid.cells(args, 2)
        return [{"rule": "kropki", "color": color, "cells": list(pair)} for pair in grid.adjacent_pairs(args)]
    return read


def _read_greater(args: list[str], grid: IssGrid) -> list[dict]:
    grid.cells(args, 2)
    return [{"rule": "greater", "cells": list(pair)} for pair in grid.adjacent_pairs(args)]


def _read_diagonal(args: list[str], grid: IssGrid) -> list[dict]:
    if args not in (["1"], ["-1"]):
        raise IssArgError(f"direction must be 1 or -1, found {clip('~'.join(args))!r}")
    return [{"rule": "diagonal", "which": "anti" if args == ["1"] else "main"}]


def _pill_in_reading_order(rcs: list[tuple[int, int]]) -> bool:
    """ISS reads a pill's cells sorted row-major, each one right, down or down-right of the last."""
    return all((r2 - r, c2 - c) in ((0, 1), (1, 0), (1, 1)) for (r, c), (r2, c2) in zip(rcs, rcs[1:]))


def _read_pill_arrow(args: list[str], grid: IssGrid) -> list[dict]:
    if not args or args[0] not in ("2", "3"):
        raise IssArgError(f"pill size must be 2 or 3, found {clip((args or [''])[0])!r}")
    size = int(args[0])
    cells = grid.cells(args[1:], size + 1)
    # ISS reads the pill in reading order: of the grid, or of one Var group's layout (its cell
    # graph joins no two groups, nor a group to the grid)
    pill = sorted(grid.place(t) for t in args[1:size + 1])
    if len({group for group, _, _ in pill}) > 1 or not _pill_in_reading_order([p[1:] for p in pill]):
        raise IssArgError("pill cells must be adjacent and in reading order when sorted")
    return [{"rule": "pillarrow", "pill": size, "cells": [grid.at(*p) for p in pill] + cells[size:]}]


def _read_line_with(kind: str, key: str, default: int | None = None) -> Callable[[list[str], IssGrid], list[dict]]:
    """A line whose first argument is a number (``Whisper~5~...``, ``Lockout~4~...``,
    ``Modular~3~...``); ``default`` when ISS lets it out (German whispers: 5)."""
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        if default is not None and args and not (args[0].isascii() and args[0].lstrip("-").isdigit()):
            value, cells = default, args
        else:
            if not args:
                raise IssArgError(f"expected the {key} and cells")
            value, cells = _int(args[0], key), args[1:]
        return [{"rule": kind, key: value, "cells": grid.cells(cells, 2)}]
    return read


#: ISS type -> its reader. Shape, Given (the empty type), NoBoxes and Jigsaw are the document's own.
READERS: dict[str, Callable[[list[str], IssGrid], list[dict]]] = {
    "Cage": _read_cage,
    "Thermo": _read_cells("thermo", 2),
    "GreaterThan": _read_greater,
    "WhiteDot": _read_dot("white"),
    "BlackDot": _read_dot("black"),
    "AllDifferent": _read_all_different,
    "Diagonal": _read_diagonal,
    "AntiKnight": _global("antiknight"),
    "AntiKing": _global("antiking"),
    "AntiConsecutive": _global("nonconsecutive"),
    "Windoku": _global("windoku"),
    "DisjointSets": _global("disjointgroups"),
    "Arrow": _read_cells("arrow", 2),
    "PillArrow": _read_pill_arrow,
    "DoubleArrow": _read_cells("doublearrow", 3),
    "Whisper": _read_line_with("whisper", "diff", 5),
    "Renban": _read_cells("renban", 2),
    "Palindrome": _read_cells("palindrome", 2),
    "Between": _read_cells("between", 3),
    "Lockout": _read_line_with("lockout", "diff"),
    "Entropic": _read_entropic,
    "Modular": _read_line_with("modular", "mod"),
    "Zipper": _read_cells("zipper", 3),
    "RegionSumLine": _read_cells("regionsum", 2),
}


# -- writers ---------------------------------------------------------------------------------
def _items(kind: str, *args: object) -> list[str]:
    return ["~".join([kind, *map(str, args)])]


def _cells_of(entry: dict, grid: IssGrid) -> list[str]:
    return [grid.to_iss(c) for c in entry["cells"]]


def _write_cage(entry: dict, grid: IssGrid) -> list[str]:
    if "sum" not in entry:   # AllDifferent over N cells reads as an extra region: a sumless Cage then
        return _items("AllDifferent" if len(entry["cells"]) != grid.n else "Cage~", *_cells_of(entry, grid))
    if entry["sum"] == 0:   # ISS reads Cage~0 as a cage without a sum (0-based values): the sum apart
        sumless = {key: value for key, value in entry.items() if key != "sum"}
        return _write_cage(sumless, grid) + _items("Sum", 0, *_cells_of(entry, grid))
    return _items("Cage", entry["sum"], *_cells_of(entry, grid))


def _write_extra_region(entry: dict, grid: IssGrid) -> list[str]:
    return _items("AllDifferent", *_cells_of(entry, grid))


def _write_global(iss_type: str) -> Callable[[dict, IssGrid], list[str]]:
    def write(entry: dict, grid: IssGrid) -> list[str]:
        return [iss_type]
    return write


def _write_digits(digits: Callable[[int], list[int]]) -> Callable[[dict, IssGrid], list[str]]:
    """Cells limited to some digits: ISS's pencil-mark givens (``.~R1C1_2_4_6_8``)."""
    def write(entry: dict, grid: IssGrid) -> list[str]:
        values = "_".join(map(str, digits(grid.n) if "digits" not in entry else entry["digits"]))
        return [f"~{grid.to_iss(c)}_{values}" for c in entry["cells"]]
    return write


def _write_cells(iss_type: str) -> Callable[[dict, IssGrid], list[str]]:
    def write(entry: dict, grid: IssGrid) -> list[str]:
        return _items(iss_type, *_cells_of(entry, grid))
    return write


def _write_pill_arrow(entry: dict, grid: IssGrid) -> list[str]:
    size = entry.get("pill", 2)
    pill = [grid.place(grid.to_iss(c)) for c in entry["cells"][:size]]
    if pill != sorted(pill) or len({group for group, _, _ in pill}) > 1 or \
            not _pill_in_reading_order([p[1:] for p in pill]):
        raise IssArgError("ISS reads a pill's cells in reading order (each right, down or down-right of the last); "
                          "this pill's are not")
    return _items("PillArrow", size, *_cells_of(entry, grid))


def _write_line_with(iss_type: str, key: str, default: Callable[[int], int]) -> Callable[[dict, IssGrid], list[str]]:
    """A line with its number first, always written (ISS's defaults are not the document's)."""
    def write(entry: dict, grid: IssGrid) -> list[str]:
        # the document leaves out a default reckoned from its values (V), not its side: 6x6~9's whisper 5
        return _items(iss_type, entry.get(key, default(len(grid.values))), *_cells_of(entry, grid))
    return write


#: Rule kind -> its writer (a kind missing here is refused by name when written).
WRITERS: dict[str, Callable[[dict, IssGrid], list[str]]] = {
    "cage": _write_cage,
    "thermo": lambda entry, grid: _items("Thermo", *_cells_of(entry, grid)),
    "greater": lambda entry, grid: _items("GreaterThan", *_cells_of(entry, grid)),
    "extraregion": _write_extra_region,
    "diagonal": lambda entry, grid: _items("Diagonal", 1 if entry.get("which", "main") == "anti" else -1),
    "antiknight": _write_global("AntiKnight"),
    "antiking": _write_global("AntiKing"),
    "nonconsecutive": _write_global("AntiConsecutive"),
    "windoku": _write_global("Windoku"),
    "disjointgroups": _write_disjoint_groups,
    "even": _write_digits(lambda n: list(range(2, n + 1, 2))),
    "odd": _write_digits(lambda n: list(range(1, n + 1, 2))),
    "pencilmarks": _write_digits(lambda n: []),
    "arrow": _write_cells("Arrow"),
    "pillarrow": _write_pill_arrow,
    "doublearrow": _write_cells("DoubleArrow"),
    "whisper": _write_line_with("Whisper", "diff", lambda n: (n + 1) // 2),
    "renban": _write_cells("Renban"),
    "palindrome": _write_cells("Palindrome"),
    "between": _write_cells("Between"),
    "lockout": _write_line_with("Lockout", "diff", lambda n: max(1, (n - 1) // 2)),
    "entropic": _write_entropic,
    "modular": _write_line_with("Modular", "mod", lambda n: 3),
    "zipper": _write_cells("Zipper"),
    "regionsum": _write_cells("RegionSumLine"),
}


# The further mappings live in modules of their own for length (each imports IssGrid from
# pipeline.core.iss_grid, never this table, so each imports alone); they are merged here in this
# order, later entries replacing earlier ones of the same type:
# the second batch (issue 33: LittleKiller, X, V, StrictXV, StrictKropki, Quad, Sum, SameValues,
# Indexing, Pair, PairX; its Sum replaces the one above);
# the outside clues and counting circles (issue 33: Skyscraper, Sandwich, XSum, NumberedRoom,
# CountingCircles; a Lunchbox over a whole row or column, ContainAtLeast, ContainExact);
# chaos construction (issue 33: ChaosConstruction -> the global rule chaos), whose region cells
# extend the SameValues and AllDifferent read so far;
# regular-language lines (issue 33: NFA -> automaton, Regex -> regex);
# full rank, sum lines and lunchboxes (issue 33: FullRank, FullRankTies, SumLine, Lunchbox over any
# cells; iss_table3's whole-line Lunchbox reader kept for rows and columns);
# global rules (issue 33: GlobalEntropy, GlobalMod, AntiTaxicab, DutchFlatmates, Doppelganger,
# RegionSameValues);
# look-and-say, rellik and equality cages, equal sums and value indexing (issue 33: LookAndSay,
# RellikCage, EqualityCage, EqualSum, ValueIndexing);
# connected values (issue 33: ConnectedValues over the grid or a var group -> connectedvalues).
READERS.update(READERS2)
WRITERS.update(WRITERS2)
READERS.update(READERS3)
WRITERS.update(WRITERS3)
READERS.update(READERS_CHAOS)
READERS.update(region_readers(READERS))
WRITERS.update(WRITERS_CHAOS)
READERS.update(READERS_NFA)
WRITERS.update(WRITERS_NFA)
READERS.update(READERS4)
WRITERS.update(WRITERS4)
READERS.update(READERS6)
WRITERS.update(WRITERS6)
READERS.update(READERS5)
WRITERS.update(WRITERS5)
READERS.update(READERS8)
WRITERS.update(WRITERS8)
