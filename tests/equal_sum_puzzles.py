"""Random 9x9 region-sum and zipper puzzles for the shared totals' tests
(tests/core/test_clauses_equal_sums.py): lines that hold on a random solution, now and then one
that does not (often no solution), and some of the solution's givens."""
from __future__ import annotations

import numpy as np

from arrow_puzzles import STEPS, _name
from little_killer_puzzles import _solution


def _line(rng, used: set, length: int) -> list | None:
    """A king's walk of ``length`` cells outside ``used`` (None when a try runs into a corner)."""
    at = (int(rng.integers(9)), int(rng.integers(9)))
    if at in used:
        return None
    path = [at]
    while len(path) < length:
        free = [(at[0] + dr, at[1] + dc) for dr, dc in STEPS
                if 0 <= at[0] + dr < 9 and 0 <= at[1] + dc < 9 and (at[0] + dr, at[1] + dc) not in used
                and (at[0] + dr, at[1] + dc) not in path]
        if not free:
            return None
        at = free[int(rng.integers(len(free)))]
        path.append(at)
    return path


def _holds(kind: str, digits: list[int], boxes: list[int]) -> bool:
    """Does a line with these digits (and these boxes) keep its rule?"""
    if kind == "zipper":
        half = len(digits) // 2
        sums = {a + b for a, b in zip(digits[:half], digits[::-1][:half])}
        return len(sums) == 1 and (len(digits) % 2 == 0 or sums == {digits[half]})
    cuts = [0] + [i for i in range(1, len(boxes)) if boxes[i] != boxes[i - 1]] + [len(boxes)]
    return len(cuts) > 2 and len({sum(digits[a:b]) for a, b in zip(cuts[:-1], cuts[1:])}) == 1


def equal_sum_puzzle(seed: int) -> tuple[dict, np.ndarray, bool]:
    """A 9x9 with 1-3 region-sum lines and 1-3 zippers of a random solution (a quarter of the
    seeds add a line that does not hold on it) and 24-40 of its givens; the document, the
    solution, and whether it is held."""
    rng = np.random.default_rng(seed)
    grid = _solution(rng)
    rules: list[dict] = []
    used: set = set()
    held = rng.random() >= 0.25
    wanted = [("regionsum", int(rng.integers(1, 4))), ("zipper", int(rng.integers(1, 4)))]
    for kind, many in wanted:
        made, tries = 0, 0
        while made < many and tries < 20000:
            tries += 1
            path = _line(rng, used, int(rng.integers(3, 8)))
            if path is None:
                continue
            if not _holds(kind, [int(grid[p]) for p in path], [p[0] // 3 * 3 + p[1] // 3 for p in path]):
                continue
            used |= set(path)
            rules.append({"rule": kind, "cells": _name(path)})
            made += 1
    if not held:
        while True:
            path = _line(rng, used, int(rng.integers(3, 6)))
            if path is not None and not _holds("zipper", [int(grid[p]) for p in path], []):
                rules.append({"rule": "zipper", "cells": _name(path)})
                break
    givens = np.zeros((9, 9), dtype=int)
    shown = rng.choice(81, size=int(rng.integers(24, 41)), replace=False)
    givens.flat[shown] = grid.ravel()[shown]
    if not held:   # the line that does not hold gets no givens (they would break it at once: refused)
        for cell in rules[-1]["cells"]:
            givens[int(cell[1]) - 1, int(cell[3]) - 1] = 0
    doc = {"size": 9, "givens": "".join(str(v) if v else "." for v in givens.ravel()), "rules": rules}
    return doc, grid, held
