"""Rule instances drawn from a solved grid: ``generate --rule whisper`` (issue 33, part 3).

A *sampler* takes the full grid generate made, the board and an RNG, and returns puzzle-document
rule entries (``{"rule": "whisper", "cells": [...]}``) that are TRUE of that grid, as
:func:`~pipeline.tools.generate.killer.random_cages` draws cages. Every entry is read by the
rule's own ``from_dict`` and kept only when its ``violations`` find nothing on the grid
(:func:`entries_hold`), so a sampler's own arithmetic is a search heuristic, never the judge.

How each family is drawn (``count`` instances at most, :func:`default_count` by default):

* **lines** (thermo, whisper, renban, palindrome, between, lockout, entropic, modular, zipper,
  regionsum, arrow, pillarrow, doublearrow, pair, sum, cage): random king-adjacent paths
  (orthogonal for cages and sums) of cells no earlier line of the call used (a family that finds
  no such place may cross the earlier families' lines), grown by a
  randomised depth-first search that prunes with a cheap test on the digits so far (increasing
  for a thermometer, a difference of at least ``diff`` for a whisper, a running sum below the
  circle for an arrow, ...) and accepts a path the rule holds on;
* **pairs**: greater signs, Kropki dots (difference 1 or ratio 2) and X/V (sum 10 or 5) on random
  orthogonal neighbours that satisfy them; ``strictkropki`` / ``strictxv`` mark *every* such pair
  and add the global rule (their full grid is drawn without the strict rule);
* **cells**: even/odd cells by parity, pencil marks (the cell's digit and one or two others),
  quadruples (some digits of a random 2x2), indexing cells (``(r, c) = v`` with ``c`` at
  ``(r, v)``), two dominoes of the same digits (same values), counting circles (for a few digits
  ``d``, ``d`` cells holding ``d``);
* **outside clues**: little killer diagonals and skyscraper, sandwich, X-sum and numbered-room
  clues, their values computed from the grid on random sides.

A family with no sampler (``diagonal``, ``extraregion``) is refused by :func:`sampler_for` in one line.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.rules import RULES, Board, Rule, cell_name, rule_from_dict

__all__ = ["SAMPLERS", "default_count", "entries_hold", "sample_entries", "sampler_for"]

#: depth-first search nodes one path may visit before its start is given up.
PATH_BUDGET = 400
#: starts tried per line asked for.
STARTS_PER_LINE = 12


@dataclass
class Draw:
    """What a sampler works on: the grid's values (flat canvas), the board, the RNG, the count."""

    grid: np.ndarray          # (rows * cols,) 1-based digits of the full grid
    board: Board
    rng: np.random.Generator
    count: int
    values: np.ndarray = field(init=False)   # (rows * cols,) the cells' values
    used: set = field(default_factory=set)   # cells of the lines drawn so far

    def __post_init__(self) -> None:
        self.values = self.board.grid_values(self.grid)

    def name(self, cell: int) -> str:
        return cell_name(int(cell), self.board)

    def names(self, cells) -> list[str]:
        return [self.name(c) for c in cells]


def entries_hold(entries: list[dict], grid: np.ndarray, board: Board) -> bool:
    """Do the rule entries read on ``board`` and hold on the full ``grid`` (their own ``violations``)?

    Parameters
    ----------
    entries : list of dict
        Puzzle-document rule entries; read together, so a strict rule learns the marked pairs.
    grid : numpy.ndarray
        The full grid, flat canvas ``(rows * cols,)`` of 1-based digits.
    board : Board
        The puzzle's board.

    Returns
    -------
    bool
        False when an entry does not read (a bad line for its rule) or the grid breaks one.
    """
    try:
        rules = [rule_from_dict(e, board) for e in entries]
    except PuzzleError:
        return False
    bound: tuple[Rule, ...] = tuple(rules)
    return not any(r.bind(bound).violations(grid, board) for r in rules)


def _king_neighbours(board: Board, orthogonal: bool) -> list[list[int]]:
    steps = [(0, 1), (1, 0), (0, -1), (-1, 0)] + ([] if orthogonal else [(1, 1), (1, -1), (-1, 1), (-1, -1)])
    out: list[list[int]] = []
    for cell in range(board.n_cells):
        r, c = divmod(cell, board.cols)
        out.append([(r + dr) * board.cols + c + dc for dr, dc in steps
                    if 0 <= r + dr < board.rows and 0 <= c + dc < board.cols
                    and board.present[(r + dr) * board.cols + c + dc]])
    return out


def _lines(d: Draw, lengths: tuple[int, int], entry: Callable[[list[int]], dict | None],
           prefix: Callable[[list[int]], bool] | None = None, orthogonal: bool = False) -> list[dict]:
    """Up to ``d.count`` entries of paths of ``lengths`` cells (unused by earlier lines) that the
    rule holds on: ``entry(path)`` the entry of a path (None: not this one), ``prefix(values)``
    False prunes a path whose digits so far cannot lead to one."""
    nbrs = _king_neighbours(d.board, orthogonal)
    low, high = lengths
    out: list[dict] = []
    for _ in range(d.count * STARTS_PER_LINE):
        if len(out) >= d.count:
            break
        free = [c for c in np.flatnonzero(d.board.present).tolist() if c not in d.used]
        if len(free) < low:
            break
        target = int(d.rng.integers(low, high + 1))
        e = _grow(d, [free[int(d.rng.integers(len(free)))]], target, nbrs, entry, prefix, [PATH_BUDGET])
        if e is not None:
            out.append(e)
            d.used.update(_cells_of(e, d.board))
    return out


def _grow(d: Draw, path: list[int], target: int, nbrs: list[list[int]], entry: Callable[[list[int]], dict | None],
          prefix: Callable[[list[int]], bool] | None, budget: list[int]) -> dict | None:
    """Randomised depth-first search from ``path`` for a ``target``-cell path the rule holds on
    (its entry), within ``budget[0]`` nodes (shared by the whole search)."""
    budget[0] -= 1
    if budget[0] < 0:
        return None
    if prefix is not None and not prefix([int(d.values[c]) for c in path]):
        return None
    if len(path) == target:
        e = entry(path)
        return e if e is not None and entries_hold([e], d.grid, d.board) else None
    options = [c for c in nbrs[path[-1]] if c not in d.used and c not in path]
    for k in d.rng.permutation(len(options)).tolist():
        found = _grow(d, path + [options[k]], target, nbrs, entry, prefix, budget)
        if found is not None:
            return found
    return None


def _cells_of(entry: dict, board: Board) -> list[int]:
    return rule_from_dict(entry, board).cells().tolist()


def _cells_entry(kind: str, d: Draw, **extra) -> Callable[[list[int]], dict]:
    return lambda path: {"rule": kind, "cells": d.names(path), **extra}


def _top(d: Draw) -> int:
    return int(d.board.n_values)


def _line_sampler(kind: str, lengths: Callable[[Draw], tuple[int, int]],
                  prefix: Callable[[Draw], Callable[[list[int]], bool] | None] = lambda d: None,
                  orthogonal: bool = False) -> Callable[[Draw], list[dict]]:
    def sample(d: Draw) -> list[dict]:
        return _lines(d, lengths(d), _cells_entry(kind, d), prefix(d), orthogonal)
    return sample


def _increasing(v: list[int]) -> bool:
    return all(a < b for a, b in zip(v, v[1:]))


def _whisper_prefix(d: Draw) -> Callable[[list[int]], bool]:
    diff = (_top(d) + 1) // 2
    return lambda v: all(abs(a - b) >= diff for a, b in zip(v, v[1:]))


def _renban_prefix(high: int) -> Callable[[list[int]], bool]:
    return lambda v: len(set(v)) == len(v) and max(v) - min(v) < high


def _windows_prefix(key: Callable[[int], int]) -> Callable[[list[int]], bool]:
    return lambda v: len({key(x) for x in v[-3:]}) == len(v[-3:])


def _between_prefix(v: list[int]) -> bool:
    mid = v[1:]
    return not mid or all(x > v[0] for x in mid) or all(x < v[0] for x in mid)


def _arrow_prefix(v: list[int]) -> bool:
    return sum(v[1:]) <= v[0]


def _pill_prefix(top: int) -> Callable[[list[int]], bool]:
    """The line (after the 2-cell pill) sums at most the pill's number, which its 6 cells can reach."""
    return lambda v: len(v) < 2 or sum(v[2:]) <= 10 * v[0] + v[1] <= 6 * top


def _pill_entry(d: Draw) -> Callable[[list[int]], dict | None]:
    """A pill arrow whose pill reads in reading order, its second cell right, down or down-right
    of the first (ISS reads a pill so; one read otherwise could not be written as an ISS string)."""
    entry = _cells_entry("pillarrow", d)

    def reads_in_order(path: list[int]) -> dict | None:
        (r0, c0), (r1, c1) = divmod(path[0], d.board.cols), divmod(path[1], d.board.cols)
        return entry(path) if r1 >= r0 and c1 >= c0 else None
    return reads_in_order


def _short(d: Draw, most: int) -> tuple[int, int]:
    return 3, max(3, min(most, _top(d)))


def _sum_entry(kind: str, d: Draw) -> Callable[[list[int]], dict]:
    return lambda path: {"rule": kind, "cells": d.names(path), "sum": int(d.values[path].sum())}


def _cages(d: Draw) -> list[dict]:
    return _lines(d, (2, min(4, _top(d))), _sum_entry("cage", d),
                  lambda v: len(set(v)) == len(v), orthogonal=True)


def _sums(d: Draw) -> list[dict]:
    return _lines(d, (2, 4), _sum_entry("sum", d), orthogonal=True)


def _pairs_rule(d: Draw) -> list[dict]:
    top = _top(d)

    def entry(path: list[int]) -> dict:
        seen = [[int(d.values[a]), int(d.values[b])] for a, b in zip(path, path[1:])]
        decoys = [[int(x), int(y)] for x, y in d.rng.integers(1, top + 1, size=(2, 2))]
        allowed = sorted({tuple(p) for p in seen + decoys})
        return {"rule": "pair", "cells": d.names(path), "allowed": [list(p) for p in allowed]}
    return _lines(d, (2, 3), entry)


# -- pairs of neighbours ----------------------------------------------------------------------
def _ortho_pairs(d: Draw) -> np.ndarray:
    pairs = d.board.orthogonal_pairs()
    return pairs[d.rng.permutation(len(pairs))]


def _dot(a: int, b: int, kind: str) -> str | None:
    """The Kropki colour or X/V letter of two values (None: no mark), a 1-2 pair white or black."""
    if kind == "kropki":
        if abs(a - b) == 1:
            return "white"
        return "black" if max(a, b) == 2 * min(a, b) else None
    return {10: "x", 5: "v"}.get(a + b)


def _marks(kind: str, every: bool) -> Callable[[Draw], list[dict]]:
    key = "color" if kind == "kropki" else "letter"

    def sample(d: Draw) -> list[dict]:
        out: list[dict] = []
        for a, b in _ortho_pairs(d).tolist():
            va, vb = int(d.values[a]), int(d.values[b])
            mark = _dot(va, vb, kind)
            if mark is None:
                continue
            if kind == "kropki" and abs(va - vb) == 1 and max(va, vb) == 2 * min(va, vb) and d.rng.random() < 0.5:
                mark = "black"   # 1-2 is both; either dot holds
            out.append({"rule": kind, key: mark, "cells": d.names(sorted((a, b)))})
            if not every and len(out) >= d.count:
                break
        out.sort(key=lambda e: e["cells"])
        return out + ([{"rule": "strict" + kind}] if every else [])
    return sample


def _greater(d: Draw) -> list[dict]:
    out = []
    for a, b in _ortho_pairs(d)[: d.count].tolist():
        big, small = (a, b) if d.values[a] > d.values[b] else (b, a)
        out.append({"rule": "greater", "cells": d.names([big, small])})
    return out


# -- cells --------------------------------------------------------------------------------------
def _parity(kind: str) -> Callable[[Draw], list[dict]]:
    def sample(d: Draw) -> list[dict]:
        want = 0 if kind == "even" else 1
        cells = np.flatnonzero(d.board.present & (d.values % 2 == want))
        if cells.size == 0:
            return []
        chosen = np.sort(d.rng.choice(cells, size=min(d.count, cells.size), replace=False))
        return [{"rule": kind, "cells": d.names(chosen)}]
    return sample


def _pencilmarks(d: Draw) -> list[dict]:
    cells = np.flatnonzero(d.board.present)
    chosen = np.sort(d.rng.choice(cells, size=min(d.count, cells.size), replace=False))
    values = d.board.value_of
    out = []
    for c in chosen.tolist():
        others = values[values != d.values[c]]
        extra = d.rng.choice(others, size=min(int(d.rng.integers(1, 3)), others.size), replace=False)
        marks = sorted({int(d.values[c]), *map(int, extra)})
        out.append({"rule": "pencilmarks", "cells": [d.name(c)], "digits": marks})
    return out


def _quadruple(d: Draw) -> list[dict]:
    b = d.board
    tops = [r * b.cols + c for r in range(b.rows - 1) for c in range(b.cols - 1)]
    out: list[dict] = []
    for k in d.rng.permutation(len(tops)).tolist():
        square = [tops[k], tops[k] + 1, tops[k] + b.cols, tops[k] + b.cols + 1]
        if len(out) >= d.count or not b.present[square].all() or d.used.intersection(square):
            continue
        keep = d.rng.choice(4, size=int(d.rng.integers(2, 5)), replace=False)
        out.append({"rule": "quadruple", "cells": d.names(square),
                    "digits": sorted(int(d.values[square[i]]) for i in keep)})
        d.used.update(square)
    return out


def _indexing(d: Draw) -> list[dict]:
    b = d.board
    if b.grids or b.rows != b.n or b.values:
        return []
    grid = d.grid.reshape(b.rows, b.cols)
    r, c = np.divmod(np.arange(b.n_cells), b.cols)
    out = []
    for by in d.rng.permutation(["column", "row"]).tolist():
        hit = grid[r, grid[r, c] - 1] == c + 1 if by == "column" else grid[grid[r, c] - 1, c] == r + 1
        cells = np.flatnonzero(hit)
        if cells.size:
            chosen = np.sort(d.rng.choice(cells, size=min(max(1, d.count // 2), cells.size), replace=False))
            out.append({"rule": "indexing", "by": by, "cells": d.names(chosen)})
    return out


def _samevalues(d: Draw) -> list[dict]:
    pairs = _ortho_pairs(d).tolist()
    out: list[dict] = []
    by_values: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for a, b in pairs:
        if a in d.used or b in d.used:
            continue
        va, vb = int(d.values[a]), int(d.values[b])
        key = (min(va, vb), max(va, vb))
        mates = [p for p in by_values.get(key, []) if not {a, b} & set(p)]
        if mates and len(out) < d.count:
            other = mates[0]
            out.append({"rule": "samevalues", "groups": [d.names(sorted(other)), d.names(sorted((a, b)))]})
            d.used.update((a, b, *other))
            by_values[key].remove(other)
            continue
        by_values.setdefault(key, []).append((a, b))
    return out


def _counting_circles(d: Draw) -> list[dict]:
    top = _top(d)
    digits = d.rng.permutation(np.arange(1, min(top, 4) + 1))[: int(d.rng.integers(2, 4))]
    cells: list[int] = []
    for v in sorted(digits.tolist()):
        holding = np.flatnonzero(d.board.present & (d.values == v))
        if holding.size >= v:
            cells += d.rng.choice(holding, size=v, replace=False).tolist()
    return [{"rule": "countingcircles", "cells": d.names(sorted(cells))}] if cells else []


# -- outside clues ------------------------------------------------------------------------------
def _sides(d: Draw) -> list[tuple[str, list[int]]]:
    """Every outside clue position beside a row or column (``r0c3``) and its cells inwards."""
    b = d.board
    if b.grids or b.rows != b.n or b.cols != b.n:
        return []
    n = b.n
    out = []
    for k in range(n):
        col = [r * n + k for r in range(n)]
        row = [k * n + c for c in range(n)]
        out += [(f"r0c{k + 1}", col), (f"r{n + 1}c{k + 1}", col[::-1]),
                (f"r{k + 1}c0", row), (f"r{k + 1}c{n + 1}", row[::-1])]
    return [out[i] for i in d.rng.permutation(len(out)).tolist()]


def _outside(kind: str) -> Callable[[Draw], list[dict]]:
    def sample(d: Draw) -> list[dict]:
        out = []
        for clue, cells in _sides(d):
            v = [int(d.values[c]) for c in cells]
            if kind == "skyscraper":
                e = {"count": _seen(v)}
            elif kind == "sandwich":
                lo, hi = sorted((v.index(min(v)), v.index(max(v))))
                e = {"sum": sum(v[lo + 1: hi])}
            elif kind == "xsum":
                e = {"sum": sum(v[: v[0]])} if 1 <= v[0] <= len(v) else {}
            else:
                e = {"digit": v[v[0] - 1]} if 1 <= v[0] <= len(v) else {}
            entry = {"rule": kind, "clue": clue, **e}
            if e and entries_hold([entry], d.grid, d.board):
                out.append(entry)
            if len(out) >= d.count:
                break
        return out
    return sample


def _seen(v: list[int]) -> int:
    """Skyscrapers seen: cells taller than every cell before them (an equal one hides)."""
    return sum(1 for i, x in enumerate(v) if all(x > y for y in v[:i]))


def _little_killer(d: Draw) -> list[dict]:
    b = d.board
    if b.grids:
        return []
    out = []
    starts = [(r, c) for r in range(b.rows + 2) for c in range(b.cols + 2)
              if (r in (0, b.rows + 1)) != (c in (0, b.cols + 1))]
    options = [(r, c, dr, dc) for r, c in starts for dr in (-1, 1) for dc in (-1, 1)]
    for k in d.rng.permutation(len(options)).tolist():
        r, c, dr, dc = options[k]
        cells = []
        rr, cc = r + dr, c + dc
        while 1 <= rr <= b.rows and 1 <= cc <= b.cols:
            cells.append((rr - 1) * b.cols + cc - 1)
            rr, cc = rr + dr, cc + dc
        if len(cells) < 2 or not b.present[cells].all():
            continue
        entry = {"rule": "littlekiller", "sum": int(d.values[cells].sum()), "cells": d.names(cells),
                 "clue": f"r{r}c{c}"}
        if entries_hold([entry], d.grid, d.board):
            out.append(entry)
        if len(out) >= d.count:
            break
    return out


#: kind -> sampler ``sample(draw) -> entries``.
SAMPLERS: dict[str, Callable[[Draw], list[dict]]] = {
    "cage": _cages,
    "thermo": _line_sampler("thermo", lambda d: _short(d, 6), lambda d: _increasing),
    "greater": _greater,
    "kropki": _marks("kropki", every=False),
    "even": _parity("even"),
    "odd": _parity("odd"),
    "pencilmarks": _pencilmarks,
    "arrow": lambda d: _lines(d, (2, 4), _cells_entry("arrow", d), _arrow_prefix),
    "pillarrow": lambda d: _lines(d, (4, 8), _pill_entry(d), _pill_prefix(_top(d))) if _top(d) <= 9 else [],
    "doublearrow": _line_sampler("doublearrow", lambda d: (3, 5)),
    "whisper": _line_sampler("whisper", lambda d: (3, 6), _whisper_prefix),
    "renban": lambda d: _lines(d, _short(d, 5), _cells_entry("renban", d), _renban_prefix(_short(d, 5)[1])),
    "palindrome": _line_sampler("palindrome", lambda d: (3, 6)),
    "between": _line_sampler("between", lambda d: (3, 5), lambda d: _between_prefix),
    "lockout": _line_sampler("lockout", lambda d: (3, 5)),
    "entropic": _line_sampler("entropic", lambda d: (3, 6),
                              lambda d: _windows_prefix(lambda x: (x - 1) * 3 // max(_top(d), 3))),
    "modular": _line_sampler("modular", lambda d: (3, 6), lambda d: _windows_prefix(lambda x: x % 3)),
    "zipper": _line_sampler("zipper", lambda d: (3, 7)),
    "regionsum": _line_sampler("regionsum", lambda d: (2, 6)),
    "littlekiller": _little_killer,
    "xv": _marks("xv", every=False),
    "strictxv": _marks("xv", every=True),
    "strictkropki": _marks("kropki", every=True),
    "quadruple": _quadruple,
    "sum": _sums,
    "samevalues": _samevalues,
    "pair": _pairs_rule,
    "indexing": _indexing,
    "skyscraper": _outside("skyscraper"),
    "sandwich": _outside("sandwich"),
    "xsum": _outside("xsum"),
    "numberedroom": _outside("numberedroom"),
    "countingcircles": _counting_circles,
}

#: default instances per family, as a share of the side N (at least 1).
_PER_SIDE = {"greater": 1.5, "kropki": 1.5, "xv": 1.5, "even": 1.0, "odd": 1.0, "pencilmarks": 1.0,
             "skyscraper": 1.0, "sandwich": 1.0, "xsum": 1.0, "numberedroom": 1.0, "cage": 1.0,
             "littlekiller": 0.5, "quadruple": 0.5, "indexing": 1.0, "samevalues": 0.25, "pair": 0.34,
             "sum": 0.5, "countingcircles": 0.1}


def default_count(kind: str, n: int) -> int:
    """Instances of ``kind`` drawn on an ``n x n`` grid when ``--rule-count`` is not given
    (two thirds of ``n`` for a line family; strict forms mark every pair whatever the count).

    Parameters
    ----------
    kind : str
        A family of :data:`SAMPLERS`.
    n : int
        The grid side.

    Returns
    -------
    int
    """
    return max(1, int(round(_PER_SIDE.get(kind, 2 / 3) * n)))


def sampler_for(kind: str) -> Callable[[Draw], list[dict]]:
    """The sampler of ``kind``; PuzzleError in one line naming a family without one.

    Parameters
    ----------
    kind : str
        A rule kind.

    Returns
    -------
    callable
    """
    sampler = SAMPLERS.get(kind)
    if sampler is None:
        known = ", ".join(k for k in SAMPLERS if k in RULES)
        raise PuzzleError(f"generate: --rule {kind}: no sampler draws {kind} rules from a grid (families "
                          f"with one: {known}; rules its name alone gives: {', '.join(k for k in RULES.bare_kinds() if k not in SAMPLERS)})")
    return sampler


def sample_entries(kinds: list[str], grid: np.ndarray, board: Board, rng: np.random.Generator,
                   count: int | None = None) -> list[dict]:
    """Rule entries of each family in ``kinds``, drawn from the full ``grid`` (module docstring).

    Parameters
    ----------
    kinds : list of str
        Families, each with a sampler (:func:`sampler_for` refuses the others).
    grid : numpy.ndarray
        The full grid (canvas ``(rows, cols)`` or flat), 1-based digits.
    board : Board
        The puzzle's board.
    rng : numpy.random.Generator
        The only source of randomness.
    count : int, optional
        Instances per family (default :func:`default_count`).

    Returns
    -------
    list of dict
        Entries true of ``grid``, family by family; lines of one call share no cell, unless a
        family finds no place left once the earlier families' are taken (its lines may then cross
        theirs: four line families on a 6x6).

    Raises
    ------
    PuzzleError
        A family without a sampler, or one of which no instance fits the grid (named).

    Examples
    --------
    >>> from pipeline.core.puzzle import Puzzle
    >>> grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    >>> board = Puzzle(np.zeros((4, 4), dtype=int), 2, 2).base_board
    >>> es = sample_entries(["even"], grid, board, np.random.default_rng(0))
    >>> es[0]["rule"], entries_hold(es, grid.ravel(), board)
    ('even', True)
    """
    samplers = [(kind, sampler_for(kind)) for kind in kinds]
    flat = np.asarray(grid, dtype=np.int64).ravel()
    d = Draw(flat, board, rng, 0)
    out: list[dict] = []
    seen: set[str] = set()
    for kind, sampler in samplers:
        d.count = count if count is not None else default_count(kind, board.n)
        drawn = [e for e in sampler(d) if json.dumps(e, sort_keys=True) not in seen]
        if not drawn and d.used:   # the earlier families' lines took every place: this one may cross them
            taken, d.used = d.used, set()
            drawn = [e for e in sampler(d) if json.dumps(e, sort_keys=True) not in seen]
            d.used |= taken
        if not drawn:
            raise PuzzleError(f"generate: --rule {kind}: no {kind} rule fits this {board.rows}x{board.cols} grid")
        seen.update(json.dumps(e, sort_keys=True) for e in drawn)
        out += drawn
    return out


# the later families' samplers (issue 33's last kinds) join SAMPLERS
import pipeline.tools.generate.samplers_more  # noqa: E402,F401
