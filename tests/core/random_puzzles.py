"""Random small puzzles with rules, as puzzle documents (hypothesis strategies).

A puzzle is drawn in three steps: a shape (4x4 with 2x2 boxes, 6x6 with 2x3 boxes, a 4x4 Latin
square, 4x4 Sudoku-X, a 4x4 jigsaw, a samurai of 4x4 grids, two 4x4 grids side by side or
overlapping in a box), the global rules (anti-knight, anti-king, non-consecutive, disjoint
groups, windoku where it is defined, a diagonal, an extra region), then a base solution of that
(the oracle's CP-SAT with a random objective: none when the global rules admit none) from which
the local rules are read off: cages along orthogonal walks of distinct digits (with the true sum,
no sum, or a sum off by one), thermometers along increasing king steps, Kropki dots and
greater-than signs between neighbours, even/odd cells, givens. A "lie" now and then (a wrong
sum, a reversed thermometer, a dot of the wrong colour, a flipped sign or parity) makes puzzles
with no solution too; a small base leaves many solutions.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import rule_oracle as oracle

SHAPES = {
    "4x4": {"size": 4, "box": "2x2"},
    "6x6": {"size": 6, "box": "2x3"},
    "latin4": {"size": 4, "box": "2x2", "variant": "latin"},
    "x4": {"size": 4, "box": "2x2", "variant": "x"},
    "jigsaw4": {"size": 4, "box": "2x2", "regions": "0001021122312333"},
    "samurai4": {"size": 4, "box": "2x2", "layout": "samurai"},
    "pair4": {"size": 4, "box": "2x2", "layout": {"grids": ["r1c1", "r1c5"]}},      # side by side
    "overlap4": {"size": 4, "box": "2x2", "layout": {"grids": ["r1c1", "r3c3"]}},   # one shared box
}
SINGLE = ("4x4", "6x6", "latin4", "x4", "jigsaw4")
KINDS = ("cage", "thermo", "kropki", "greater", "even", "odd")


def name(cell) -> str:
    return f"r{cell[0] + 1}c{cell[1] + 1}"


def _neighbours(cell, present, offsets):
    return [(cell[0] + dr, cell[1] + dc) for dr, dc in offsets if (cell[0] + dr, cell[1] + dc) in present]


@st.composite
def puzzle_documents(draw, shapes=tuple(SHAPES)):
    """A puzzle document (dict) with random rules; see the module docstring."""
    shape = draw(st.sampled_from(shapes))
    doc = dict(SHAPES[shape])
    n = doc["size"]
    h, w = (int(v) for v in doc["box"].split("x"))
    rules: list[dict] = []
    single = shape in SINGLE
    for kind in ("antiknight", "antiking", "nonconsecutive"):
        # no 4x4 sudoku is anti-king or non-consecutive: rarely, to keep most puzzles solvable
        if draw(st.integers(0, 9)) < (1 if n == 4 and kind != "antiknight" else 2):
            rules.append({"rule": kind})
    if single and shape not in ("latin4", "jigsaw4"):
        if draw(st.integers(0, 9)) < 2:
            rules.append({"rule": "disjointgroups"})
        if h == w and draw(st.integers(0, 9)) < 2:
            rules.append({"rule": "windoku"})
    if single and shape != "x4" and draw(st.integers(0, 9)) < 2:
        rules.append({"rule": "diagonal", "which": draw(st.sampled_from(["main", "anti"]))})
    if single and draw(st.integers(0, 9)) < 1:
        cells = draw(st.permutations([(r, c) for r in range(n) for c in range(n)]))[:n]
        rules.append({"rule": "extraregion", "cells": [name(c) for c in cells]})
    doc["rules"] = rules
    spec = oracle.spec_from_document(doc)
    seed = draw(st.integers(0, 2 ** 20))
    base = oracle.solve_one(spec, seed)
    present = sorted(spec.present())
    liar = draw(st.integers(0, 3)) == 0     # a quarter of the puzzles may lie, now and then
    lie = lambda: liar and draw(st.integers(0, 4)) == 0
    value = (lambda cell: int(base[cell])) if base is not None else (lambda cell: draw(st.integers(1, n)))
    parity: dict = {}
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(KINDS))
        start = draw(st.sampled_from(present))
        if kind == "cage":
            cells, digits = [start], {value(start)}
            for _ in range(draw(st.integers(0, min(3, n - 1)))):
                options = [c for c in _neighbours(cells[-1], present, oracle.ORTHOGONAL)
                           if c not in cells and value(c) not in digits]
                if not options:
                    break
                cells.append(draw(st.sampled_from(options)))
                digits.add(value(cells[-1]))
            entry = {"rule": "cage", "cells": [name(c) for c in cells]}
            mode = draw(st.integers(0, 9))
            total = sum(value(c) for c in cells) + (draw(st.sampled_from([-1, 1])) if mode == 0 else 0)
            k = len(cells)
            if mode != 1 and k * (k + 1) // 2 <= total <= k * (2 * n - k + 1) // 2:
                entry["sum"] = total
            rules.append(entry)
        elif kind == "thermo":
            cells = [start]
            for _ in range(draw(st.integers(1, 3))):
                options = [c for c in _neighbours(cells[-1], present, oracle.KING)
                           if c not in cells and value(c) > value(cells[-1])]
                if not options:
                    break
                cells.append(draw(st.sampled_from(options)))
            if len(cells) >= 2:
                rules.append({"rule": "thermo", "cells": [name(c) for c in (cells[::-1] if lie() else cells)]})
        elif kind in ("kropki", "greater"):
            other = draw(st.sampled_from(_neighbours(start, present, oracle.ORTHOGONAL)))
            a, b = value(start), value(other)
            if kind == "greater":
                big, small = (start, other) if (a > b) != lie() else (other, start)
                rules.append({"rule": "greater", "cells": [name(big), name(small)]})
                continue
            entry = {"rule": "kropki", "cells": [name(start), name(other)]}
            if max(a, b) == 2 * min(a, b) and draw(st.booleans()):
                entry["color"] = "black"
            elif max(a, b) % min(a, b) == 0 and max(a, b) > min(a, b) and draw(st.booleans()):
                entry.update(color="black", value=max(a, b) // min(a, b))
            elif a != b:
                entry["color"] = "white"
                if abs(a - b) != 1:
                    entry["value"] = abs(a - b)
            else:
                continue
            if lie():
                entry["color"] = "white" if entry["color"] == "black" else "black"
                entry.pop("value", None)
            rules.append(entry)
        else:
            cells = [c for c in draw(st.lists(st.sampled_from(present), min_size=1, max_size=3, unique=True))
                     if c not in parity]
            wanted = 0 if kind == "even" else 1
            cells = [c for c in cells if (value(c) % 2 == wanted) != lie()]
            if cells:
                parity.update((c, kind) for c in cells)
                rules.append({"rule": kind, "cells": [name(c) for c in cells]})
    givens = draw(st.lists(st.sampled_from(present), max_size=len(present) // 2, unique=True))
    doc["givens"] = [f"{name(c)}={draw(st.integers(1, n)) if lie() else value(c)}" for c in givens]
    doc["rules"] = rules
    return doc


def canvas(grid) -> np.ndarray:
    """A project grid as the oracle's ``rows x cols`` array."""
    return np.asarray(grid, dtype=np.int64)
