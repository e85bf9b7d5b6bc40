"""Random 9x9 equal-sum puzzles (ISS ``EqualSum``) for the segments' shared totals' tests
(tests/core/test_clauses_equal_sums.py): rules whose segments of 1-4 cells (anywhere, a cell may
lie in several segments) add up alike on a random solution, now and then one that does not (often
no solution), and some of the solution's givens."""
from __future__ import annotations

import numpy as np

from little_killer_puzzles import _solution


def _segment(rng, grid: np.ndarray, total: int | None) -> list[int] | None:
    """1-4 distinct cells (flat indices) adding up to ``total`` on ``grid`` (any total when None;
    None when a few tries find none)."""
    for _ in range(200):
        cells = rng.choice(81, size=int(rng.integers(1, 5)), replace=False)
        if total is None or int(grid.flat[cells].sum()) == total:
            return sorted(int(c) for c in cells)
    return None


def _name(cells: list[int]) -> list[str]:
    return [f"r{c // 9 + 1}c{c % 9 + 1}" for c in cells]


def equalsum_rule_puzzle(seed: int) -> tuple[dict, np.ndarray, bool]:
    """A 9x9 with 1-3 equal-sum rules of 2-5 segments each that hold on a random solution (a
    quarter of the seeds add a rule of two segments that does not) and 24-40 of its givens; the
    document, the solution, and whether it is held."""
    rng = np.random.default_rng(seed)
    grid = _solution(rng)
    rules: list[dict] = []
    for _ in range(int(rng.integers(1, 4))):
        first = _segment(rng, grid, None)
        total = int(grid.flat[first].sum())
        segments = [first]
        while len(segments) < int(rng.integers(2, 6)):
            more = _segment(rng, grid, total)
            if more is None:
                break
            segments.append(more)
        if len(segments) > 1:
            rules.append({"rule": "equalsum", "segments": [_name(s) for s in segments]})
    held = rng.random() >= 0.25
    off: list[int] = []
    if not held:
        first = _segment(rng, grid, None)
        other = [c for c in _segment(rng, grid, None) if c not in first] or [int(c) for c in range(81) if c not in first][:1]
        if int(grid.flat[first].sum()) == int(grid.flat[other].sum()):
            other = other + [c for c in range(81) if c not in first and c not in other][:1]
        rules.append({"rule": "equalsum", "segments": [_name(first), _name(other)]})
        off = first + other
    givens = np.zeros((9, 9), dtype=int)
    shown = rng.choice(81, size=int(rng.integers(24, 41)), replace=False)
    givens.flat[shown] = grid.ravel()[shown]
    givens.flat[off] = 0   # the rule that does not hold gets no givens (they would break it at once: refused)
    doc = {"size": 9, "givens": "".join(str(v) if v else "." for v in givens.ravel()), "rules": rules}
    return doc, grid, held
