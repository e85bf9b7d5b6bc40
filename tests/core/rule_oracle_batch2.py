"""Brute force for the rules of issue 33's second batch (little killer, XV and the strict rules,
quadruple, weighted sum, same values, pairwise, indexing), written from the rules' plain meaning
(the ISS descriptions), never from the project's rows.

:func:`predicate` turns one document entry into a plain-Python check of a 4x4 grid (``(4, 4)``
array, 0-based ``(r, c)``); :func:`brute_count` filters the 288 4x4 Sudoku grids (the Latin
squares of tests/core/rule_oracle.py that its own checker passes: units and givens) with the
predicates of every entry. :func:`agree` holds the project's engines to that count: the SAT
engine counting in full, HiGHS and CP-SAT up to a small cap, and every grid they return through
``verify_grid`` and the predicates.
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np

import rule_oracle as oracle

__all__ = ["predicate", "brute_count", "brute_grids", "agree", "cell", "name", "ORTHO"]

ORTHO = [((r, c), (r, c + 1)) for r in range(4) for c in range(3)] + [((r, c), (r + 1, c)) for r in range(3) for c in range(4)]


def cell(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"r(\d+)c(\d+)", text)
    assert m, text
    return int(m.group(1)) - 1, int(m.group(2)) - 1


def name(rc) -> str:
    return f"r{rc[0] + 1}c{rc[1] + 1}"


def _cells(entry):
    return [cell(t) for t in entry.get("cells", [])]


def _marked(entries, kind):
    return {frozenset(cell(t) for t in e["cells"]) for e in entries if e["rule"] == kind}


def predicate(entry: dict, entries: list):
    """``ok(grid)`` for one entry (``entries``: all the puzzle's, for the strict rules)."""
    kind = entry["rule"]
    cells = _cells(entry)
    if kind in ("littlekiller", "sum"):
        weights = entry.get("weights", [1] * len(cells))
        return lambda g: sum(w * g[c] for w, c in zip(weights, cells)) == entry["sum"]
    if kind == "xv":
        total = {"x": 10, "v": 5}[entry["letter"].lower()]
        return lambda g: g[cells[0]] + g[cells[1]] == total
    if kind == "kropki":
        a, b = cells
        return lambda g: abs(g[a] - g[b]) == 1 if entry["color"] == "white" else (g[a] == 2 * g[b] or g[b] == 2 * g[a])
    if kind in ("strictxv", "strictkropki"):
        marked = _marked(entries, "xv" if kind == "strictxv" else "kropki")
        free = [p for p in ORTHO if frozenset(p) not in marked]
        if kind == "strictxv":
            bad = lambda x, y: x + y in (5, 10)  # noqa: E731
        else:   # "color": only the white (consecutive) or only the black (double) dots are all given
            color = entry.get("color")
            bad = lambda x, y: (color != "black" and abs(x - y) == 1  # noqa: E731
                                or color != "white" and (x == 2 * y or y == 2 * x))
        return lambda g: not any(bad(g[p], g[q]) for p, q in free)
    if kind == "quadruple":
        need = Counter(entry["digits"])
        return lambda g: not need - Counter(int(g[c]) for c in cells)
    if kind == "samevalues":
        groups = [[cell(t) for t in grp] for grp in entry["groups"]]
        return lambda g: len({tuple(sorted(int(g[c]) for c in grp)) for grp in groups}) == 1
    if kind == "pair":
        allowed = {tuple(p) for p in entry["allowed"]}
        if entry.get("all"):
            pairs = [(cells[i], cells[j]) for i in range(len(cells)) for j in range(i + 1, len(cells))]
            ok = lambda x, y: (x, y) in allowed and (y, x) in allowed  # noqa: E731
        else:
            pairs = list(zip(cells, cells[1:]))
            ok = lambda x, y: (x, y) in allowed  # noqa: E731
        return lambda g: all(ok(int(g[p]), int(g[q])) for p, q in pairs)
    if kind == "indexing":
        if entry["by"] == "column":   # (r, c) = v  =>  (r, v) = c
            return lambda g: all(g[r, g[r, c] - 1] == c + 1 for r, c in cells)
        return lambda g: all(g[g[r, c] - 1, c] == r + 1 for r, c in cells)
    raise AssertionError(f"no predicate for {kind}")


def brute_grids(doc: dict) -> list[np.ndarray]:
    """Every 4x4 grid solving ``doc`` (units and givens by the oracle's checker, rules by
    :func:`predicate`)."""
    assert doc["size"] == 4
    entries = doc.get("rules", [])
    base = oracle.checker(oracle.spec_from_document({k: v for k, v in doc.items() if k != "rules"}))
    preds = [predicate(e, entries) for e in entries]
    out = []
    for rows in oracle.latin_squares(4):
        g = np.array(rows)
        if base(g) and all(p(g) for p in preds):
            out.append(g)
    return out


def brute_count(doc: dict) -> int:
    return len(brute_grids(doc))


def agree(doc: dict, *, highs_cap: int = 3, cpsat: bool = False, clues: str = "rows") -> int:
    """The SAT engine's full count (and HiGHS's, CP-SAT's up to a cap) against brute force;
    returns the count. A puzzle the project refuses must have no solution."""
    from pipeline.core.build import build_model
    from pipeline.core.errors import PuzzleError
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.core.verify import verify_grid
    from pipeline.solvers import highs, sat

    want = brute_grids(doc)
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError as e:
        assert not want, f"refused a puzzle with {len(want)} solution(s): {e}"
        return 0
    model = build_model(puzzle, clues=clues)
    got = sat.count(model, 300)
    assert got.status == "complete"
    assert got.count == len(want), (got.count, len(want), doc)
    assert {g.tobytes() for g in got.grids} == {g.tobytes() for g in want}
    for g in got.grids:
        assert verify_grid(g, puzzle).ok
    h = highs.count_solutions(model, limit=highs_cap)
    assert h.count == min(len(want), highs_cap), (h.count, len(want), doc)
    if cpsat:
        from pipeline.solvers import cpsat as cp
        c = cp.count(model, highs_cap)
        assert c.count == min(len(want), highs_cap)
    return len(want)
