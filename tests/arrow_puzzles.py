"""Random 9x9 arrow puzzles for the running sums' tests (tests/core/test_clauses_running.py):
arrows, pill arrows and double arrows drawn on a random solution, with some of its givens."""
from __future__ import annotations

import numpy as np

from little_killer_puzzles import _solution

STEPS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def _walk(rng, grid: np.ndarray, start: tuple[int, int], used: set, target: int) -> list | None:
    """A king's walk from next to ``start`` over cells outside ``used`` whose digits add up to
    ``target`` (None when a try misses)."""
    path, total, at = [], 0, start
    while total < target:
        free = [(at[0] + dr, at[1] + dc) for dr, dc in STEPS
                if 0 <= at[0] + dr < 9 and 0 <= at[1] + dc < 9 and (at[0] + dr, at[1] + dc) not in used
                and (at[0] + dr, at[1] + dc) not in path and (at[0] + dr, at[1] + dc) != start]
        if not free:
            return None
        at = free[int(rng.integers(len(free)))]
        path.append(at)
        total += int(grid[at])
    return path if total == target else None


def _name(cells: list) -> list[str]:
    return [f"r{r + 1}c{c + 1}" for r, c in cells]


def arrow_puzzle(seed: int) -> tuple[dict, np.ndarray, bool]:
    """A 9x9 with 2-5 arrows, 1-3 two-digit pill arrows (tens digit at most 3) and 0-1 double
    arrows of a random solution (one sum off by one now and then: often no solution) and 14-28
    of its givens; the document, the solution, and whether it is held."""
    rng = np.random.default_rng(seed)
    grid = _solution(rng)
    lie = rng.random() < 0.25
    rules: list[dict] = []
    used: set = set()
    wanted = {"arrow": int(rng.integers(2, 6)), "pillarrow": int(rng.integers(1, 4)), "doublearrow": int(rng.integers(0, 2))}
    for kind, many in wanted.items():
        made, tries = 0, 0
        while made < many and tries < 400:
            tries += 1
            head = [(int(rng.integers(9)), int(rng.integers(9)))]
            if kind == "pillarrow":
                head.append((head[0][0], head[0][1] + 1))
                if head[1][1] > 8 or grid[head[0]] > 3:
                    continue
            if any(h in used for h in head):
                continue
            values = [int(grid[h]) for h in head]
            target = 10 * values[0] + values[1] if kind == "pillarrow" else values[0]
            if kind == "doublearrow":
                other = (int(rng.integers(9)), int(rng.integers(9)))
                if other in used or other == head[0]:
                    continue
                target += int(grid[other])
            path = _walk(rng, grid, head[-1], used | set(head), target)
            if path is None or len(path) > 9:
                continue
            if kind == "doublearrow":
                if other in path:
                    continue
                cells = head + path + [other]
            else:
                cells = head + path
            used |= set(cells)
            rules.append({"rule": kind, "cells": _name(cells)})
            made += 1
    givens = np.zeros((9, 9), dtype=int)
    shown = rng.choice(81, size=int(rng.integers(14, 29)), replace=False)
    givens.flat[shown] = grid.ravel()[shown]
    held = not (lie and _wrong_head(rng, rules, givens, grid))
    doc = {"size": 9, "givens": "".join(str(v) if v else "." for v in givens.ravel()), "rules": rules}
    return doc, grid, held


def _wrong_head(rng: np.random.Generator, rules: list[dict], givens: np.ndarray, grid: np.ndarray) -> bool:
    """Give one arrow's head a digit other than the solution's (one its units allow), so its sum
    is off; True when it did (a head with no such digit is left unchanged)."""
    cell = rules[int(rng.integers(len(rules)))]["cells"][0]
    r, c = int(cell[1]) - 1, int(cell[3]) - 1
    box = givens[r // 3 * 3:r // 3 * 3 + 3, c // 3 * 3:c // 3 * 3 + 3].ravel()
    seen = (set(givens[r]) | set(givens[:, c]) | set(box)) - {givens[r, c]}
    other = [v for v in range(1, 10) if v not in seen and v != grid[r, c]]
    if other:
        givens[r, c] = other[int(rng.integers(len(other)))]
    return bool(other)


def shared_arrow_puzzle(seed: int) -> tuple[dict, np.ndarray, bool]:
    """A 9x9 whose 3-6 arrows and pill arrows (tens digit at most 3) end on one shared tail of
    1-3 cells (as ISS's "Triple digits"), drawn on a random solution, the rest of each line its
    own, with 22-36 givens; now and then one head's given is off (often no solution). The
    document, the solution, and whether it is held."""
    rng = np.random.default_rng(seed)
    grid = _solution(rng)
    start = (int(rng.integers(9)), int(rng.integers(9)))
    tail = None
    while tail is None:
        tail = _walk(rng, grid, start, set(), int(rng.integers(3, 12)))
        tail = tail if tail is not None and len(tail) <= 3 else None
    shared = int(sum(grid[c] for c in tail))
    used = set(tail)
    rules: list[dict] = []
    many = int(rng.integers(3, 7))
    for _ in range(400):
        if len(rules) >= many:
            break
        kind = "pillarrow" if rng.random() < 0.6 else "arrow"
        head = [(int(rng.integers(9)), int(rng.integers(8)))]
        if kind == "pillarrow":
            head.append((head[0][0], head[0][1] + 1))
        if any(h in used for h in head) or (kind == "pillarrow" and grid[head[0]] > 3):
            continue
        target = 10 * int(grid[head[0]]) + int(grid[head[1]]) if kind == "pillarrow" else int(grid[head[0]])
        own = _walk(rng, grid, head[-1], used | set(head), target - shared) if target > shared else None
        if own is None or len(own) > 9:
            continue
        used |= set(head)      # the own parts may cross each other, never a head or the tail
        rules.append({"rule": kind, "cells": _name(head + own + tail)})
    givens = np.zeros((9, 9), dtype=int)
    shown = rng.choice(81, size=int(rng.integers(22, 37)), replace=False)
    givens.flat[shown] = grid.ravel()[shown]
    held = not (rng.random() < 0.25 and rules and _wrong_head(rng, rules, givens, grid))
    doc = {"size": 9, "givens": "".join(str(v) if v else "." for v in givens.ravel()), "rules": rules}
    return doc, grid, held
