"""The mapping table's second batch (issue 33): ISS types of the rules of that batch, merged into
:data:`pipeline.core.iss_table.READERS` and :data:`~pipeline.core.iss_table.WRITERS`.

* ``LittleKiller~SUM~R1C2``: the diagonal ISS starts at that cell (from the left edge down-right,
  the right edge up-left, the top edge down-left, the bottom edge up-right: one clue per diagonal
  line of two or more cells) -> ``littlekiller`` with its cells and the outside ``clue``. A little
  killer that is not one of ISS's diagonals is written as ``Sum`` (the same meaning).
* ``X`` / ``V~cells``: one ``xv`` entry per orthogonally adjacent pair; ``StrictXV``,
  ``StrictKropki``: the global rules.
* ``Quad~TOPLEFT~d~d``: ``quadruple`` (a multiset of digits, as ISS's required values).
  Its top-left cell may be a Var cell: the 2x2 square of its group's layout, a ``containatleast``.
* ``Sum~S~cells`` and ``Sum~S_=_w1_w2..~cells`` (coefficients, ISS: integers up to 100 in size):
  a cage when there are no coefficients and the cells share a row, column or box (ISS's Sum lets
  digits repeat, which such cells cannot), else ``sum`` with ``weights``. The writer gives a ``sum``
  whose cells share a unit explicit coefficients (``_=_1_1``), so it reads back as ``sum``.
* ``SameValues~K~cells``: K consecutive groups of equal size -> ``samevalues``.
* ``Indexing~C|R~cells`` -> ``indexing`` (``by`` column / row).
* ``Pair`` / ``PairX~KEY~[_name~]cells[~~[_name~]cells...]`` (and the legacy ``Binary`` /
  ``BinaryX``, whose key swaps ``-`` and ``_``): KEY is ISS's base64url bit table of the allowed
  value pairs (bit ``i V + j`` for the values at 0-based positions ``i``, ``j`` of the grid's
  ``V`` values, which a value set may make more than the side, as 9 on a ``6x6~0-8`` grid:
  ``a - 1``, ``b - 1`` on a 1..N grid, ``a``, ``b`` on a 0..N-1 one; six bits a
  character, lowest first, trailing ``A`` left off) -> one ``pair`` entry per named group
  (``all`` for PairX, whose table ISS requires
  symmetric).
"""
from __future__ import annotations

from typing import Callable
from urllib.parse import quote, unquote

import numpy as np

from pipeline.core.iss_grid import IssArgError, IssGrid
from pipeline.core.rules.kropki import partner_table
from pipeline.core.errors import clip
from pipeline.core.rules.cellnames import cell_position

__all__ = ["READERS2", "WRITERS2", "iss_diagonals", "pair_key", "pair_table"]

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
#: ISS's largest coefficient of a Sum.
MAX_COEFFICIENT = 100


def _int(text: str, what: str) -> int:
    try:
        if not text.isascii():   # int() takes any script's digits ('١٠' is 10)
            raise ValueError(text)
        return int(text)
    except ValueError:
        raise IssArgError(f"{what} {clip(text)!r} is not a whole number") from None


def _name(rc: tuple[int, int]) -> str:
    return f"r{rc[0] + 1}c{rc[1] + 1}"


# -- little killer ---------------------------------------------------------------------------
def iss_diagonals(n: int) -> dict[tuple[int, int], tuple[int, int]]:
    """ISS's little-killer clue cells of an ``n x n`` grid: first cell (0-based) -> direction.

    Parameters
    ----------
    n : int
        Grid side.

    Returns
    -------
    dict
        ``(r, c) -> (dr, dc)``: left edge rows ``0..n-2`` down-right, right edge rows ``1..n-2``
        up-left, top edge columns ``1..n-1`` down-left, bottom edge columns ``1..n-2`` up-right
        (each diagonal line of two or more cells once).
    """
    out: dict[tuple[int, int], tuple[int, int]] = {}
    out.update({(r, 0): (1, 1) for r in range(n - 1)})
    out.update({(r, n - 1): (-1, -1) for r in range(1, n - 1)})
    out.update({(0, c): (1, -1) for c in range(1, n)})
    out.update({(n - 1, c): (-1, 1) for c in range(1, n - 1)})
    return out


def _walk(start: tuple[int, int], step: tuple[int, int], n: int) -> list[tuple[int, int]]:
    k = np.arange(n)
    r, c = start[0] + k * step[0], start[1] + k * step[1]
    inside = np.cumprod((r >= 0) & (r < n) & (c >= 0) & (c < n)).astype(bool)
    return list(zip(r[inside].tolist(), c[inside].tolist()))


def _read_little_killer(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) != 2:
        raise IssArgError(f"expected a sum and a cell (LittleKiller~SUM~R1C2), found {len(args)} argument(s)")
    total = _int(args[0], "sum")
    start = grid.rc(args[1])
    step = iss_diagonals(grid.n).get(start)
    if step is None:
        raise IssArgError(f"{args[1]} starts none of ISS's little-killer diagonals (a cell on the grid's edge)")
    cells = _walk(start, step, grid.n)
    clue = (start[0] - step[0], start[1] - step[1])
    return [{"rule": "littlekiller", "sum": total, "cells": [_name(rc) for rc in cells], "clue": _name(clue)}]


def _write_little_killer(entry: dict, grid: IssGrid) -> list[str]:
    cells = [grid.rc(grid.to_iss(c)) for c in entry["cells"]]
    for start, step in iss_diagonals(grid.n).items():
        if start in (cells[0], cells[-1]):
            line = _walk(start, step, grid.n)
            if line in (cells, cells[::-1]):   # the sum does not depend on the side of the clue
                return [f"LittleKiller~{entry['sum']}~{grid.to_iss(_name(start))}"]
    # a part of a diagonal (or a corner's one cell): ISS's Sum, which lets digits repeat too
    return _write_sum({"sum": entry["sum"], "cells": entry["cells"], "weights": [1] * len(cells)}, grid)


# -- X, V, quadruples, indexing, same values ------------------------------------------------
def _read_xv(letter: str) -> Callable[[list[str], IssGrid], list[dict]]:
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        grid.cells(args, 2)
        return [{"rule": "xv", "letter": letter, "cells": list(pair)} for pair in grid.adjacent_pairs(args)]
    return read


def _write_xv(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join([entry["letter"].upper(), *(grid.to_iss(c) for c in entry["cells"])])]


def _read_quad(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) < 2:
        raise IssArgError("expected the top-left cell and 1 to 4 digits")
    group, r, c = grid.place(args[0])
    if group:   # a var cell: the square of its group's layout (ISS's cell graph), else ISS refuses it too
        square = [grid.at(group, r + dr, c + dc) for dr, dc in ((0, 0), (0, 1), (1, 0), (1, 1))]
        if None in square:
            raise IssArgError(f"{args[0]} is the top-left cell of no 2x2 square of its Var group")
        # ISS's Quad is its non-strict RequiredValues, as ContainAtLeast: the quadruple is a
        # square of the grid, so these cells are a containatleast (written back as ContainAtLeast)
        return [{"rule": "containatleast", "cells": square, "values": sorted(_int(v, "digit") for v in args[1:])}]
    if r + 1 >= grid.n or c + 1 >= grid.n:
        raise IssArgError(f"{args[0]} is the top-left cell of no 2x2 square of the grid")
    cells = [_name((r, c)), _name((r, c + 1)), _name((r + 1, c)), _name((r + 1, c + 1))]
    return [{"rule": "quadruple", "cells": cells, "digits": sorted(_int(v, "digit") for v in args[1:])}]


def _write_quad(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["Quad", grid.to_iss(entry["cells"][0]), *map(str, entry["digits"])])]


def _read_indexing(args: list[str], grid: IssGrid) -> list[dict]:
    if not args or args[0] not in ("C", "R"):
        raise IssArgError(f"the indexing type must be C (column) or R (row), found {clip((args or [''])[0])!r}")
    return [{"rule": "indexing", "by": "column" if args[0] == "C" else "row", "cells": grid.cells(args[1:])}]


def _write_indexing(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["Indexing", "C" if entry["by"] == "column" else "R", *(grid.to_iss(c) for c in entry["cells"])])]


def _read_same_values(args: list[str], grid: IssGrid) -> list[dict]:
    if not args:
        raise IssArgError("expected the number of sets and cells")
    sets, cells = _int(args[0], "number of sets"), grid.cells(args[1:], 2)
    if sets < 2 or len(cells) % sets:
        raise IssArgError(f"{len(cells)} cells do not make {sets} sets of one size (2 or more sets)")
    size = len(cells) // sets
    return [{"rule": "samevalues", "groups": [cells[k * size:(k + 1) * size] for k in range(sets)]}]


def _write_same_values(entry: dict, grid: IssGrid) -> list[str]:
    cells = [grid.to_iss(c) for group in entry["groups"] for c in group]
    return ["~".join(["SameValues", str(len(entry["groups"])), *cells])]


# -- Sum -------------------------------------------------------------------------------------
def _read_sum(args: list[str], grid: IssGrid) -> list[dict]:
    """A cage when there are no coefficients and the cells share a unit; else ``sum``."""
    if not args:
        raise IssArgError("expected a sum and cells")
    head, tokens = args[0].split("_"), args[1:]
    grid.cells(tokens)
    total = _int(head[0], "sum")
    if len(head) == 1:
        # extra cells (ISS Var) share no unit with anything: a plain sum (the unit check refused them)
        on_grid = not grid.any_extra(tokens)
        rcs = [grid.rc(t) for t in tokens] if on_grid else []
        if on_grid and len(set(rcs)) == len(rcs) and grid.in_one_unit(tokens):   # distinct digits anyway: a cage
            return [{"rule": "cage", "cells": grid.cells(tokens), "sum": total}]
        weights = [1] * len(tokens)
    else:
        if head[1] != "=":
            raise IssArgError(f"coefficients are written SUM_=_W1_W2..., found {clip(args[0], 30)!r}")
        weights = [_int(w, "coefficient") for w in head[2:]]
        if len(weights) != len(tokens) or any(abs(w) > MAX_COEFFICIENT for w in weights):
            raise IssArgError(f"expected one coefficient from -{MAX_COEFFICIENT} to {MAX_COEFFICIENT} per cell "
                              f"({len(tokens)}), found {len(weights)}")
    merged: dict[str, int] = {}
    for cell, weight in zip(grid.cells(tokens), weights):   # a cell listed twice: its coefficients add
        merged[cell] = merged.get(cell, 0) + weight
    merged = {cell: w for cell, w in merged.items() if w}     # a coefficient of 0 says nothing
    if not merged:
        raise IssArgError("every coefficient is 0 (no cell in the sum)")
    entry: dict = {"rule": "sum", "sum": total, "cells": list(merged)}
    if any(w != 1 for w in merged.values()):
        entry["weights"] = list(merged.values())
    return [entry]


def _write_sum(entry: dict, grid: IssGrid) -> list[str]:
    cells = [grid.to_iss(c) for c in entry["cells"]]
    weights = entry.get("weights")
    on_grid = all(cell_position(c) is not None for c in entry["cells"])   # else extra cells: no unit
    if weights is None and (not on_grid or not grid.in_one_unit(cells)):
        return ["~".join(["Sum", str(entry["sum"]), *cells])]
    # coefficients (all 1 for cells of one unit, which ISS's plain Sum would read as a cage)
    head = "_".join([str(entry["sum"]), "=", *map(str, weights or [1] * len(cells))])
    return ["~".join(["Sum", head, *cells])]


# -- Pair, PairX -----------------------------------------------------------------------------
def pair_table(key: str, n: int) -> np.ndarray:
    """The ``(n, n)`` bool table of ISS's pair key ``key`` (``table[a-1, b-1]``: ``(a, b)`` allowed).

    Parameters
    ----------
    key : str
        Base64url characters, six bits each, lowest bit first; bit ``(a-1) n + (b-1)``.
    n : int
        The number of values.

    Returns
    -------
    ndarray of bool
    """
    codes = np.array([_B64.find(ch) for ch in key], dtype=np.int64)
    if (codes < 0).any():
        raise IssArgError(f"pair key {clip(key)!r} has a character that is not base64url")
    if len(key) > -(-n * n // 6):
        raise IssArgError(f"pair key {clip(key)!r} is longer than the {n * n} bits of {n} values")
    bits = ((codes[:, None] >> np.arange(6)[None, :]) & 1).ravel().astype(bool)
    table = np.zeros(n * n, dtype=bool)
    table[:min(bits.size, n * n)] = bits[:n * n]
    return table.reshape(n, n)


def pair_key(table: np.ndarray) -> str:
    """ISS's key of an ``(n, n)`` bool table (the inverse of :func:`pair_table`).

    Parameters
    ----------
    table : ndarray of bool, shape (n, n)
        Allowed 0-based value pairs.

    Returns
    -------
    str
    """
    flat = np.asarray(table, dtype=np.int64).ravel()
    bits = np.concatenate([flat, np.zeros(-flat.size % 6, dtype=np.int64)]).reshape(-1, 6)
    codes = (bits << np.arange(6)[None, :]).sum(axis=1)
    return "".join(_B64[k] for k in codes.tolist()).rstrip("A")


def _uri_encode(name: str) -> str:
    """As ISS writes a group's name: encodeURIComponent, then ``.`` and ``~`` escaped too."""
    return quote(name, safe="!*'()").replace(".", "%2E").replace("~", "%7E")


def _read_pair(every: bool, legacy: bool = False) -> Callable[[list[str], IssGrid], list[dict]]:
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        if not args:
            raise IssArgError("expected a key and cells")
        key = args[0].translate(str.maketrans("-_", "_-")) if legacy else args[0]
        table = pair_table(key, len(grid.values))   # ISS keys by the number of values, not the side
        if not table.any():
            raise IssArgError(f"pair key {clip(key)!r} allows no pair of values")
        if every and not np.array_equal(table, table.T):
            raise IssArgError(f"the key {clip(key)!r} of an all-pairs rule is not symmetric (ISS refuses it too)")
        # the key indexes value positions (ISS's 0..N-1 grid: position 0 is the value 0)
        allowed = [[grid.values[a], grid.values[b]] for a, b in zip(*np.nonzero(table))]
        groups: list[tuple[str, list[str]]] = []
        name, cells = "", list[str]()
        for item in args[1:] + [""]:
            if not item or item.startswith("_"):
                if cells:
                    groups.append((name, cells))
                cells = []
                if item:
                    name = unquote(item[1:])
            else:
                cells.append(item)
        if not groups:
            raise IssArgError("expected cells")
        out = []
        for name, tokens in groups:
            entry: dict = {"rule": "pair", "cells": grid.cells(tokens, 2), "allowed": allowed}
            if every:
                entry["all"] = True
            if name:
                entry["name"] = name
            out.append(entry)
        return out
    return read


def _write_pair(entry: dict, grid: IssGrid) -> list[str]:
    table = np.zeros((len(grid.values),) * 2, dtype=bool)   # over every value, as ISS's fnToKey
    pairs = grid.value_positions(np.array(entry["allowed"], dtype=np.int64).reshape(-1, 2))   # values -> positions
    table[pairs[:, 0], pairs[:, 1]] = True
    every = bool(entry.get("all"))
    if every:
        table &= table.T   # what "all" means, and the symmetric key ISS requires
    name = [f"_{_uri_encode(entry['name'])}"] if entry.get("name") else []
    return ["~".join(["PairX" if every else "Pair", pair_key(table), *name, *(grid.to_iss(c) for c in entry["cells"])])]


def _global(kind: str) -> Callable[[list[str], IssGrid], list[dict]]:
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        if args:
            raise IssArgError(f"takes no arguments, found {len(args)}")
        return [{"rule": kind}]
    return read


#: ISS type -> reader, merged into :data:`pipeline.core.iss_table.READERS` (``Sum`` replaces its entry).
READERS2: dict[str, Callable[[list[str], IssGrid], list[dict]]] = {
    "LittleKiller": _read_little_killer,
    "X": _read_xv("x"),
    "V": _read_xv("v"),
    "StrictXV": _global("strictxv"),
    "StrictKropki": _global("strictkropki"),
    "Quad": _read_quad,
    "Sum": _read_sum,
    "SameValues": _read_same_values,
    "Indexing": _read_indexing,
    "Pair": _read_pair(False),
    "PairX": _read_pair(True),
    "Binary": _read_pair(False, legacy=True),
    "BinaryX": _read_pair(True, legacy=True),
}

def _write_kropki(entry: dict, grid: IssGrid) -> list[str]:
    """``WhiteDot`` (a difference of 1) or ``BlackDot`` (a ratio of 2); a dot of another value is
    the ``Pair`` of its digit table (the rule's own :func:`partner_table`), over ISS's value positions."""
    cells = [grid.to_iss(c) for c in entry["cells"]]
    if "value" not in entry:
        return ["~".join(["WhiteDot" if entry["color"] == "white" else "BlackDot", *cells])]
    table = partner_table(entry["color"], entry["value"], np.array(grid.values, dtype=np.int64))
    if not table.any():   # ISS refuses a key that allows nothing; the dot cannot be met anyway
        raise IssArgError(f"a {entry['color']} Kropki dot of value {entry['value']} allows no pair of the "
                          f"values {grid.values[0]}-{grid.values[-1]}")
    return ["~".join(["Pair", pair_key(table), *cells])]


def _write_strict_kropki(entry: dict, grid: IssGrid) -> list[str]:
    """ISS's ``StrictKropki`` gives every dot; the dots of one colour alone are a ``Pair`` per
    unmarked neighbour pair, which needs the puzzle's dots (:mod:`pipeline.core.iss_write` writes them)."""
    if entry.get("color") is not None:
        raise IssArgError(f"only the {entry['color']} dots all given: written from the whole puzzle (iss_from_puzzle)")
    return ["StrictKropki"]


#: Rule kind -> writer, merged into :data:`pipeline.core.iss_table.WRITERS`.
WRITERS2: dict[str, Callable[[dict, IssGrid], list[str]]] = {
    "littlekiller": _write_little_killer,
    "xv": _write_xv,
    "strictxv": lambda entry, grid: ["StrictXV"],
    "kropki": _write_kropki,
    "strictkropki": _write_strict_kropki,
    "quadruple": _write_quad,
    "sum": _write_sum,
    "samevalues": _write_same_values,
    "indexing": _write_indexing,
    "pair": _write_pair,
}
