"""An independent oracle for puzzles with rules beyond units: OR-Tools CP-SAT and brute force.

Written from the rules' plain meaning (issue 15 and the rules' docstrings), never from the
project's model rows: one integer variable ``1..N`` per cell, ``AllDifferent`` per unit, a linear
sum per cage, ``<`` along a thermometer, a table of allowed pairs per Kropki dot, parity by the
cell's domain, and ``!=`` (or a forbidden table) between every pair of cells a knight's or a
king's move apart or orthogonal neighbours (non-consecutive). Its units are computed here too:
rows, columns and ``h x w`` boxes of every grid of a layout, jigsaw regions, the diagonals, the
windoku windows, the disjoint groups.

The oracle reads puzzles in two forms of its own, never through the project's readers:

* :func:`spec_from_document`: the puzzle documents the tests write (``size``/``box``,
  ``variant``, ``regions``, ``givens`` as ``"r1c1=5"`` strings or one compact line, ``layout``
  ``"samurai"`` or ``{"grids": [...]}`` with ``grids`` per-grid lines, ``rules``);
* :func:`spec_from_fpuzzles`: f-puzzles' JSON object (``grid`` with ``value``/``given``/``region``/
  ``givenPencilMarks``,
  ``killercage``, ``thermometer``, ``difference``, ``ratio``, ``odd``/``even``, ``extraregion``,
  ``diagonal+``/``diagonal-``, ``antiknight``, ``antiking``, ``nonconsecutive`` (pairs with a Kropki
  dot exempt, as f-puzzles' solvers read it), ``disjointgroups``, ``xv``, ``clone``, ``quadruple``,
  ``minimum``/``maximum``, arrows with a circle of one cell or a pill of two or three, and the
  ``negative`` list: ``difference`` as non-consecutive, ``ratio`` no 1:2 and ``xv`` no sum of 5
  or 10 between unmarked neighbours).

:func:`count` counts solutions up to a cap with CP-SAT; :func:`brute_count` enumerates every
grid of a small single-grid puzzle (4x4) and filters it with :func:`check`, the plain-Python
predicates, which also judge any grid a solver returns.
"""
from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Spec", "spec_from_document", "spec_from_fpuzzles", "count", "check", "checker", "brute_count", "solve_one",
           "KNIGHT", "KING"]

KNIGHT = [(1, 2), (2, 1), (1, -2), (2, -1), (-1, 2), (-2, 1), (-1, -2), (-2, -1)]
KING = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
ORTHOGONAL = [(0, 1), (1, 0), (0, -1), (-1, 0)]
_CELL = re.compile(r"^[rR](\d+)[cC](\d+)$")


@dataclass
class Spec:
    """A puzzle as the oracle sees it: ``N`` digits, grids of side ``N`` at ``origins`` on a
    ``rows x cols`` canvas, ``h x w`` boxes (None: a Latin square), optional jigsaw ``regions``
    (lists of cells replacing the boxes), ``givens`` {(r, c): digit} (0-based cells) and
    ``rules`` as ``(kind, params)``."""

    n: int
    h: int | None
    w: int | None
    origins: list = field(default_factory=lambda: [(0, 0)])
    regions: list | None = None
    diagonals: tuple = ()           # "main", "anti"
    givens: dict = field(default_factory=dict)
    rules: list = field(default_factory=list)

    @property
    def rows(self) -> int:
        return max(r for r, _ in self.origins) + self.n

    @property
    def cols(self) -> int:
        return max(c for _, c in self.origins) + self.n

    def present(self) -> set:
        return {(r0 + r, c0 + c) for r0, c0 in self.origins for r in range(self.n) for c in range(self.n)}

    def units(self) -> list[list[tuple[int, int]]]:
        """Every unit (cells holding each digit once), written from the plain meaning."""
        n, out = self.n, []
        for r0, c0 in self.origins:
            out += [[(r0 + r, c0 + c) for c in range(n)] for r in range(n)]
            out += [[(r0 + r, c0 + c) for r in range(n)] for c in range(n)]
            if self.regions is None and self.h is not None:
                h, w = self.h, self.w
                for br in range(0, n, h):
                    for bc in range(0, n, w):
                        out.append([(r0 + br + p, c0 + bc + q) for p in range(h) for q in range(w)])
        if self.regions is not None:
            out += [list(region) for region in self.regions]
        if "main" in self.diagonals:
            out.append([(i, i) for i in range(n)])
        if "anti" in self.diagonals:
            out.append([(i, n - 1 - i) for i in range(n)])
        for kind, params in self.rules:
            out += _rule_units(self, kind, params)
        return out


def _rule_units(spec: Spec, kind: str, params: dict) -> list:
    n = spec.n
    if kind == "windoku":
        # the h x w windows one cell in from the boxes' corners, one line apart: square boxes only
        # (the 9x9 hyper sudoku's four windows; one window for 4x4, nine for 16x16)
        if spec.h != spec.w:
            raise NotImplementedError("oracle: windoku windows are defined for square boxes only")
        b = spec.h
        starts = [1 + k * (b + 1) for k in range(b - 1)]
        return [[(top + p, left + q) for p in range(b) for q in range(b)] for top in starts for left in starts]
    if kind == "diagonal":
        if params.get("which", "main") == "main":
            return [[(i, i) for i in range(n)]]
        return [[(i, n - 1 - i) for i in range(n)]]
    if kind == "extraregion":
        return [list(params["cells"])]
    if kind == "disjointgroups":
        h, w = spec.h, spec.w
        return [[(br + p, bc + q) for br in range(0, n, h) for bc in range(0, n, w)] for p in range(h) for q in range(w)]
    return []


# ------------------------------------------------------------------------------------------------
# reading
# ------------------------------------------------------------------------------------------------
def _cell(text: str) -> tuple[int, int]:
    m = _CELL.match(text.strip())
    if m is None:
        raise ValueError(f"oracle: not a cell {text!r}")
    return int(m.group(1)) - 1, int(m.group(2)) - 1


def _box_of(doc: dict) -> tuple[int, int]:
    if "box" in doc:
        h, w = (int(v) for v in doc["box"].lower().split("x"))
        return h, w
    n = doc["size"]
    h = max(k for k in range(1, int(n ** 0.5) + 1) if n % k == 0)
    return h, n // h


def _compact_cells(text: str, n: int) -> list[int]:
    digits = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return [0 if ch in ".0" else digits.index(ch.upper()) + 1 for ch in text if not ch.isspace()]


def spec_from_document(doc: dict) -> Spec:
    """The oracle's reading of a puzzle document in the forms the tests write."""
    h, w = _box_of(doc)
    n = doc.get("size", h * w)
    variant = doc.get("variant", "jigsaw" if doc.get("regions") else "classic")
    origins = [(0, 0)]
    layout = doc.get("layout")
    if layout == "samurai":
        far = 2 * (n - h)
        origins = [(0, 0), (0, far), (far, 0), (far, far), (n - h, n - w)]
    elif isinstance(layout, dict):
        origins = [_cell(g) for g in layout["grids"]]
    spec = Spec(n, None if variant in ("latin",) else h, None if variant in ("latin",) else w, origins)
    if variant in ("x", "jigsaw_x"):
        spec.diagonals = ("main", "anti")
    if doc.get("regions"):
        ids = [ch for ch in doc["regions"] if not ch.isspace()]
        groups: dict = {}
        for k, g in enumerate(ids):
            groups.setdefault(g, []).append(divmod(k, n))
        spec.regions = list(groups.values())
    givens = doc.get("givens")
    if isinstance(givens, list):
        for text in givens:
            cell, digit = text.split("=")
            spec.givens[_cell(cell)] = int(digit)
    elif isinstance(givens, str) and givens:
        for k, d in enumerate(_compact_cells(givens, n)):
            if d:
                spec.givens[divmod(k, spec.cols)] = d
    for k, text in enumerate(doc.get("grids") or []):
        r0, c0 = origins[k]
        for j, d in enumerate(_compact_cells(text, n)):
            if d:
                r, c = divmod(j, n)
                spec.givens[(r0 + r, c0 + c)] = d
    for entry in doc.get("rules") or []:
        params = {key: value for key, value in entry.items() if key != "rule"}
        if "cells" in params:
            params["cells"] = [_cell(c) for c in params["cells"]]
        spec.rules.append((entry["rule"], params))
    return spec


_FP_BOXES = {4: (2, 2), 6: (2, 3), 8: (2, 4), 9: (3, 3), 10: (2, 5), 12: (3, 4), 16: (4, 4)}


def spec_from_fpuzzles(data: dict) -> Spec:
    """The oracle's own reading of an f-puzzles JSON object (the elements listed above)."""
    n = data["size"]
    h, w = _FP_BOXES[n]
    spec = Spec(n, h, w)
    regions: dict = {}
    for r, row in enumerate(data["grid"]):
        for c, cell in enumerate(row):
            if cell.get("given") and cell.get("value"):
                spec.givens[(r, c)] = int(cell["value"])
            if "region" in cell:
                regions.setdefault(cell["region"], []).append((r, c))
            if cell.get("givenPencilMarks"):
                spec.rules.append(("pencilmarks", {"cells": [(r, c)], "digits": list(cell["givenPencilMarks"])}))
    if regions:
        spec.regions = list(regions.values())
    diagonals = []
    if data.get("diagonal-"):
        diagonals.append("main")
    if data.get("diagonal+"):
        diagonals.append("anti")
    spec.diagonals = tuple(diagonals)
    for key in ("antiknight", "antiking", "disjointgroups"):
        if data.get(key):
            spec.rules.append((key, {}))
    negative = data.get("negative") or []
    dotted = {tuple(sorted(_cell(c) for c in dot["cells"])) for key in ("difference", "ratio")
              for dot in data.get(key) or []}
    if data.get("nonconsecutive") or "difference" in negative:
        spec.rules.append(("nonconsecutive", {"except": dotted}))
    if "ratio" in negative:
        spec.rules.append(("notdouble", {"except": dotted}))
    marked = {tuple(sorted(_cell(c) for c in mark["cells"])) for mark in data.get("xv") or []}
    if "xv" in negative:
        spec.rules.append(("notxv", {"except": marked}))
    for mark in data.get("xv") or []:
        spec.rules.append(("xv", {"cells": [_cell(c) for c in mark["cells"]], "sum": {"X": 10, "V": 5}[mark["value"]]}))
    for clone in data.get("clone") or []:
        for a, b in zip(clone["cells"], clone["cloneCells"]):
            spec.rules.append(("equal", {"cells": [_cell(a), _cell(b)]}))
    for quad in data.get("quadruple") or []:
        spec.rules.append(("quad", {"cells": [_cell(c) for c in quad["cells"]], "digits": [int(v) for v in quad["values"]]}))
    for key in ("minimum", "maximum"):
        for entry in data.get(key) or []:
            r, c = _cell(entry["cell"])
            for dr, dc in ORTHOGONAL:
                if 0 <= r + dr < n and 0 <= c + dc < n:
                    pair = [(r, c), (r + dr, c + dc)]
                    spec.rules.append(("greater", {"cells": pair if key == "maximum" else pair[::-1]}))
    for arrow in data.get("arrow") or []:
        circle = sorted(_cell(c) for c in arrow["cells"])   # a pill reads in reading order
        for line in arrow["lines"]:
            shaft = [_cell(c) for c in line if _cell(c) not in circle]
            spec.rules.append(("pill", {"cells": circle + shaft, "pill": len(circle)}))
    for cage in data.get("killercage") or []:
        params = {"cells": [_cell(c) for c in cage["cells"]]}
        if cage.get("value") not in (None, ""):
            params["sum"] = int(cage["value"])
        spec.rules.append(("cage", params))
    for thermo in data.get("thermometer") or []:
        for line in thermo["lines"]:
            spec.rules.append(("thermo", {"cells": [_cell(c) for c in line]}))
    for key, color in (("difference", "white"), ("ratio", "black")):
        for dot in data.get(key) or []:
            params = {"cells": [_cell(c) for c in dot["cells"]], "color": color}
            if dot.get("value") not in (None, ""):
                params["value"] = int(dot["value"])
            spec.rules.append(("kropki", params))
    for key in ("odd", "even"):
        cells = [_cell(e["cell"]) for e in data.get(key) or []]
        if cells:
            spec.rules.append((key, {"cells": cells}))
    for region in data.get("extraregion") or []:
        spec.rules.append(("extraregion", {"cells": [_cell(c) for c in region["cells"]]}))
    return spec


# ------------------------------------------------------------------------------------------------
# the rules' plain meaning, as pairs and predicates
# ------------------------------------------------------------------------------------------------
def _pairs(spec: Spec, offsets) -> list:
    """Pairs of cells ``offsets`` apart within one grid: in a layout, rules between neighbours
    act within each grid (docs/conventions.md), never across two grids side by side."""
    n = spec.n
    return sorted({tuple(sorted([(r0 + r, c0 + c), (r0 + r + dr, c0 + c + dc)])) for r0, c0 in spec.origins
                   for r in range(n) for c in range(n) for dr, dc in offsets
                   if 0 <= r + dr < n and 0 <= c + dc < n})


def _kropki_ok(color: str, value: int, a: int, b: int) -> bool:
    if color == "white":
        return abs(a - b) == value
    return a == value * b or b == value * a


def _global_pairs(spec: Spec) -> list:
    """(pairs, predicate that the two values must satisfy) of every global rule."""
    out = []
    for kind, params in spec.rules:
        if kind == "antiknight":
            out.append((_pairs(spec, KNIGHT), lambda a, b: a != b))
        elif kind == "antiking":
            out.append((_pairs(spec, KING), lambda a, b: a != b))
        elif kind in _EXEMPTING:
            exempt = params.get("except", set())
            out.append(([p for p in _pairs(spec, ORTHOGONAL) if p not in exempt], _EXEMPTING[kind]))
    return out


#: Global rules between unmarked orthogonal neighbours: what two neighbours' values must satisfy.
_EXEMPTING = {"nonconsecutive": lambda a, b: abs(a - b) != 1,
              "notdouble": lambda a, b: a != 2 * b and b != 2 * a,
              "notxv": lambda a, b: a + b not in (5, 10)}


def _pill_ok(p: dict, vals: list) -> bool:
    """A circle's digits read as one number (a pill's in reading order) equal its shaft's sum."""
    k = p["pill"]
    return int("".join(map(str, vals[:k]))) == sum(vals[k:])


def _quad_ok(p: dict, vals: list) -> bool:
    return all(vals.count(d) >= p["digits"].count(d) for d in p["digits"])


def checker(spec: Spec):
    """``ok(grid)``: does a grid (``rows x cols``, 0 on absent cells) solve ``spec``? Plain Python."""
    present = spec.present()
    absent = [(r, c) for r in range(spec.rows) for c in range(spec.cols) if (r, c) not in present]
    units = spec.units()
    pairs = _global_pairs(spec)

    def ok(grid) -> bool:
        grid = np.asarray(grid)
        if any(grid[cell] != 0 for cell in absent) or any(not 1 <= grid[cell] <= spec.n for cell in present):
            return False
        value = lambda cell: int(grid[cell])
        if any(len({value(c) for c in unit}) != len(unit) for unit in units):
            return False
        if any(value(cell) != d for cell, d in spec.givens.items()):
            return False
        for kind, p in spec.rules:
            vals = [value(c) for c in p.get("cells", [])]
            if kind == "cage" and (len(set(vals)) != len(vals) or ("sum" in p and sum(vals) != p["sum"])):
                return False
            if kind == "thermo" and any(a >= b for a, b in zip(vals, vals[1:])):
                return False
            if kind == "greater" and not vals[0] > vals[1]:
                return False
            if kind == "kropki" and not _kropki_ok(p["color"], p.get("value", 1 if p["color"] == "white" else 2),
                                                   *vals):
                return False
            if kind in ("even", "odd") and any(v % 2 != (kind == "odd") for v in vals):
                return False
            if kind == "pencilmarks" and any(v not in p["digits"] for v in vals):
                return False
            if kind == "xv" and sum(vals) != p["sum"] or kind == "equal" and vals[0] != vals[1]:
                return False
            if kind == "pill" and not _pill_ok(p, vals) or kind == "quad" and not _quad_ok(p, vals):
                return False
        return all(rule_ok(value(a), value(b)) for cells, rule_ok in pairs for a, b in cells)

    return ok


def check(spec: Spec, grid) -> bool:
    """Does ``grid`` (``rows x cols``, 0 on absent cells) solve ``spec``? Plain Python."""
    return checker(spec)(grid)


# ------------------------------------------------------------------------------------------------
# CP-SAT
# ------------------------------------------------------------------------------------------------
def _model(spec: Spec):
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    n = spec.n
    var = {}
    for cell in sorted(spec.present()):
        var[cell] = m.NewIntVar(1, n, f"v_{cell[0]}_{cell[1]}")
    for unit in spec.units():
        m.AddAllDifferent([var[c] for c in unit])
    for cell, d in spec.givens.items():
        m.Add(var[cell] == d)
    digits = range(1, n + 1)
    for kind, p in spec.rules:
        vs = [var[c] for c in p.get("cells", [])]
        if kind == "cage":
            m.AddAllDifferent(vs)
            if "sum" in p:
                m.Add(sum(vs) == p["sum"])
        elif kind == "thermo":
            for a, b in zip(vs, vs[1:]):
                m.Add(a < b)
        elif kind == "greater":
            m.Add(vs[0] > vs[1])
        elif kind == "kropki":
            value = p.get("value", 1 if p["color"] == "white" else 2)
            allowed = [(a, b) for a in digits for b in digits if _kropki_ok(p["color"], value, a, b)]
            m.AddAllowedAssignments(vs, allowed)
        elif kind in ("even", "odd"):
            for v in vs:
                m.AddAllowedAssignments([v], [(d,) for d in digits if d % 2 == (kind == "odd")])
        elif kind == "pencilmarks":
            for v in vs:
                m.AddAllowedAssignments([v], [(d,) for d in p["digits"]])
        elif kind == "xv":
            m.Add(sum(vs) == p["sum"])
        elif kind == "equal":
            m.Add(vs[0] == vs[1])
        elif kind == "pill":
            k = p["pill"]
            m.Add(sum(10 ** (k - 1 - i) * v for i, v in enumerate(vs[:k])) == sum(vs[k:]))
        elif kind == "quad":
            for d in set(p["digits"]):
                hits = []
                for v in vs:
                    hit = m.NewBoolVar("")
                    m.Add(v == d).OnlyEnforceIf(hit)
                    m.Add(v != d).OnlyEnforceIf(hit.Not())
                    hits.append(hit)
                m.Add(sum(hits) >= p["digits"].count(d))
    for pairs, ok in _global_pairs(spec):
        forbidden = [(a, b) for a in digits for b in digits if not ok(a, b)]
        for a, b in pairs:
            m.AddForbiddenAssignments([var[a], var[b]], forbidden)
    return m, var


def _grid_of(spec: Spec, var: dict, value) -> np.ndarray:
    grid = np.zeros((spec.rows, spec.cols), dtype=np.int64)
    for cell, v in var.items():
        grid[cell] = value(v)
    return grid


def count(spec: Spec, cap: int = 2, time_limit: float | None = None) -> tuple[int, list[np.ndarray]]:
    """Solutions of ``spec`` up to ``cap`` (CP-SAT enumerating, one worker): (count, grids).
    RuntimeError when ``time_limit`` seconds pass first."""
    from ortools.sat.python import cp_model

    m, var = _model(spec)
    found: list[np.ndarray] = []

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            found.append(_grid_of(spec, var, self.Value))
            if len(found) >= cap:
                self.StopSearch()

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = time_limit
    status = solver.Solve(m, Collect())
    # complete: the search ended (OPTIMAL/INFEASIBLE) or stopped at the cap (FEASIBLE); a FEASIBLE
    # below the cap is a time limit in the middle of the enumeration
    if not (status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) or len(found) >= cap):
        raise RuntimeError(f"oracle: CP-SAT stopped with {solver.StatusName(status)} after {len(found)} solution(s)")
    return len(found), found


def solve_one(spec: Spec, seed: int = 0) -> np.ndarray | None:
    """One solution, varied by ``seed`` (the first found under a random objective over the cell
    values)."""
    from ortools.sat.python import cp_model

    m, var = _model(spec)
    rng = np.random.default_rng(seed)
    cells = sorted(var)
    m.Minimize(sum(int(k) * var[c] for k, c in zip(rng.integers(-50, 51, len(cells)), cells)))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed % 1000
    solver.parameters.stop_after_first_solution = True   # any solution: optimality would cost seconds
    solver.parameters.max_time_in_seconds = 20.0
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return _grid_of(spec, var, solver.Value)


@functools.lru_cache(maxsize=None)
def latin_squares(n: int) -> tuple:
    """Every Latin square of order ``n`` (576 for 4), as tuples of rows."""
    perms = list(itertools.permutations(range(1, n + 1)))
    out = []

    def extend(rows):
        if len(rows) == n:
            out.append(tuple(rows))
            return
        for p in perms:
            if all(p[c] != row[c] for row in rows for c in range(n)):
                extend(rows + [p])

    extend([])
    return tuple(out)


def brute_count(spec: Spec, cap: int = 10 ** 9) -> int:
    """Solutions of a single-grid ``spec`` of side <= 4: every Latin square filtered with
    :func:`check` (a second oracle that shares nothing with CP-SAT)."""
    if spec.origins != [(0, 0)] or spec.n > 4:
        raise ValueError("oracle: brute force is for one grid of side <= 4")
    ok = checker(spec)
    total = 0
    for rows in latin_squares(spec.n):
        if ok(np.array(rows)):
            total += 1
            if total >= cap:
                break
    return total
