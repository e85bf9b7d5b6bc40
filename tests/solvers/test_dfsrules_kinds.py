"""The rule kinds ``dfsrules`` took after the first list (issue 33's ISS kinds: contain exactly /
at least, look-and-say, rellik and equality cages, equal sums, value indexing, the hidden
skyscraper and the global rules), each held to the SAT engine: on 4x4 and 6x6 grids, a base grid
(the SAT engine's, under the kind's global rule) gives instances that hold on it, or, now and
then, instances from another grid or a given of another digit (a "lie", often no solution), and some of its givens; the counts
to 2, and the grids themselves when there are fewer than 2, equal the SAT engine's, and every kind's seeds reach puzzles with
no, one and several solutions. ``doppelganger`` (values 0..N, more than the side) is refused by
``dfsrules`` before its kind is looked at."""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "core"))

from pipeline.core.build import build_model  # noqa: E402
from pipeline.core.errors import PuzzleError, SolveError  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402
from pipeline.core.verify import verify_grid  # noqa: E402
from pipeline.solvers import SOLVERS, get_solver  # noqa: E402
from pipeline.solvers.dfsrules import KNOWN_KINDS, model_problem  # noqa: E402

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)

GLOBAL_KINDS = ("antitaxicab", "dutchflatmates", "globalentropy", "globalmod", "regionsamevalues")
CELL_KINDS = ("containatleast", "containexact", "equalitycage", "equalsum", "hiddenskyscraper", "lookandsay",
              "rellik", "valueindexing")
SEEDS = 40
ORTHO = ((0, 1), (1, 0), (0, -1), (-1, 0))


def name(rc: tuple[int, int]) -> str:
    return f"r{rc[0] + 1}c{rc[1] + 1}"


def pattern_grid(rng, n: int, h: int, w: int) -> np.ndarray:
    """A shuffled solved n x n sudoku with h x w boxes (digits 1..n)."""
    g = np.array([[(w * (r % h) + r // h + c) % n for c in range(n)] for r in range(n)]) + 1
    rows = np.concatenate([band * h + rng.permutation(h) for band in rng.permutation(n // h)])
    cols = np.concatenate([stack * w + rng.permutation(w) for stack in rng.permutation(n // w)])
    return rng.permutation(np.arange(1, n + 1))[g[rows][:, cols] - 1]


def walk(rng, n: int, length: int) -> list[tuple[int, int]]:
    """Distinct orthogonally connected cells (up to ``length``)."""
    path = [(int(rng.integers(n)), int(rng.integers(n)))]
    while len(path) < length:
        steps = [(r + dr, c + dc) for r, c in path for dr, dc in ORTHO
                 if 0 <= r + dr < n and 0 <= c + dc < n and (r + dr, c + dc) not in path]
        if not steps:
            break
        path.append(steps[int(rng.integers(len(steps)))])
    return path


def outside_line(clue: tuple[int, int], n: int) -> list[tuple[int, int]]:
    r, c = clue
    if r == 0:
        return [(i, c - 1) for i in range(n)]
    if r == n + 1:
        return [(i, c - 1) for i in reversed(range(n))]
    if c == 0:
        return [(r - 1, i) for i in range(n)]
    return [(r - 1, i) for i in reversed(range(n))]


def cells_summing(rng, g: np.ndarray, total: int) -> list | None:
    for _ in range(200):
        p = walk(rng, len(g), int(rng.integers(1, 4)))
        if sum(int(g[c]) for c in p) == total:
            return p
    return None


def instance(kind: str, g: np.ndarray, rng) -> dict | None:   # noqa: C901 - one branch per kind
    """One instance of ``kind`` that holds on ``g`` (None: none found this time)."""
    n = len(g)
    p = walk(rng, n, int(rng.integers(2, n + 1)))
    got = [int(g[c]) for c in p]
    if kind in ("containexact", "containatleast"):
        keep = sorted(rng.permutation(len(got))[:int(rng.integers(1, len(got) + 1))])
        values = sorted(got[i] for i in keep) if kind == "containatleast" else sorted(got)
        if kind == "containexact" and rng.random() < 0.5:   # the values of some cells only: exact counts of them
            values = sorted(v for v in got if v in {got[i] for i in keep})
        return {"rule": kind, "cells": [name(c) for c in p], "values": values}
    if kind == "lookandsay":
        seen = sorted(set(got))
        picked = [seen[int(i)] for i in rng.permutation(len(seen))[:int(rng.integers(1, 3))]]
        absent = [v for v in range(1, n + 1) if v not in got]
        pairs = [(got.count(v), v) for v in picked] + ([(0, absent[int(rng.integers(len(absent)))])] if absent else [])
        return {"rule": kind, "clue": "".join(f"{c}{v}" for c, v in pairs), "cells": [name(c) for c in p]}
    if kind == "rellik":
        p, got = p[:4], got[:4]
        sums = {sum(s) for r in range(1, len(got) + 1) for s in itertools.combinations(got, r)}
        free = [t for t in range(1, 4 * n) if t not in sums]
        if len(set(got)) < len(got) or not free:
            return None
        return {"rule": kind, "sum": free[int(rng.integers(len(free)))], "cells": [name(c) for c in p]}
    if kind == "equalitycage":
        p, got = p[:2 * (len(p) // 2)], got[:2 * (len(p) // 2)]
        half = n // 2
        if (len(set(got)) < len(got) or 2 * sum(v % 2 == 0 for v in got) != len(got)
                or 2 * sum(v <= half for v in got) != len(got)):
            return None
        return {"rule": kind, "cells": [name(c) for c in p]}
    if kind == "equalsum":
        first = p[:int(rng.integers(1, 4))]
        others = [cells_summing(rng, g, sum(int(g[c]) for c in first)) for _ in range(int(rng.integers(1, 3)))]
        if any(o is None for o in others):
            return None
        return {"rule": kind, "segments": [[name(c) for c in s] for s in [first, *others]]}
    if kind == "valueindexing":
        b = got[1] if len(got) > 2 else 0
        if not 1 <= b <= len(p) - 2 or got[1 + b] != got[0]:
            return None
        return {"rule": kind, "cells": [name(c) for c in p]}
    if kind == "hiddenskyscraper":
        i = int(rng.integers(1, n + 1))
        clue = [(0, i), (n + 1, i), (i, 0), (i, n + 1)][int(rng.integers(4))]
        line = [int(g[c]) for c in outside_line(clue, n)]
        hidden = [line[j] for j in range(1, n) if line[j] < max(line[:j])]
        return {"rule": kind, "clue": f"r{clue[0]}c{clue[1]}", "digit": hidden[0]} if hidden else None
    raise AssertionError(kind)


def base_grid(doc: dict, rng) -> np.ndarray | None:
    """A grid of ``doc`` (its global rules), from a few random givens when they allow one."""
    n = doc["size"]
    for givens in (int(rng.integers(1, 4)), 0):
        chars = ["."] * (n * n)
        for i in rng.permutation(n * n)[:givens]:
            chars[int(i)] = str(int(rng.integers(1, n + 1)))
        try:
            found = get_solver("sat").solve(build_model(parse_puzzle({**doc, "givens": "".join(chars)})))
        except PuzzleError:
            return None
        if found.solved:
            return np.asarray(found.grid)
    return None


def document(kind: str, seed: int) -> dict | None:
    """A puzzle with one to four instances of ``kind`` and some givens (None: no base grid)."""
    rng = np.random.default_rng(seed)
    n, h, w = (6, 2, 3) if kind in ("globalentropy", "globalmod") or seed % 2 else (4, 2, 2)
    doc: dict = {"size": n, "box": f"{h}x{w}", "rules": []}
    if kind in GLOBAL_KINDS:
        doc["rules"] = [{"rule": kind}]
        if kind == "regionsamevalues":   # an extra region as large as a row: no rows (the largest units agree)
            doc["rules"].append({"rule": "extraregion",
                                 "cells": [name((int(r), c)) for c, r in enumerate(rng.permutation(n))]})
        g = base_grid(doc, rng)
        if g is None:
            return None
    else:
        g = pattern_grid(rng, n, h, w)
        lie = pattern_grid(rng, n, h, w) if rng.random() < 0.25 else g
        for _ in range(int(rng.integers(1, 5))):
            for _attempt in range(50):
                got = instance(kind, lie, rng)
                if got is not None:
                    doc["rules"].append(got)
                    break
        if not doc["rules"]:
            return None
    chars = ["."] * (n * n)
    for i in rng.permutation(n * n)[:int(rng.integers(0, n * n // 2))]:
        chars[int(i)] = str(int(g.flat[int(i)]))
    if kind in GLOBAL_KINDS and rng.random() < 0.3:   # a lie: a given of another digit
        i = int(rng.integers(n * n))
        chars[i] = str(int(g.flat[i]) % n + 1)
    doc["givens"] = "".join(chars)
    return doc


def agree(doc: dict) -> int:
    """dfsrules' count to 2 of ``doc`` and its grids equal the SAT engine's (-1: refused)."""
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return -1
    model = build_model(puzzle)
    assert model_problem(model) is None, doc
    got, want = get_solver("dfsrules").count(model, 2), get_solver("sat").count(model, 2)
    assert (got.count, got.status) == (want.count, want.status), doc
    if got.count < 2:   # every grid found (two of several may differ)
        assert [np.asarray(g, np.int64).tolist() for g in got.grids] == \
            [np.asarray(g, np.int64).tolist() for g in want.grids], doc
    for grid in got.grids:
        assert verify_grid(grid, puzzle).ok, doc
    return got.count


@pytest.mark.parametrize("kind", GLOBAL_KINDS + CELL_KINDS)
def test_random_puzzles_of_the_kind_count_as_the_sat_engine(kind):
    assert kind in KNOWN_KINDS
    counts = [agree(doc) for doc in (document(kind, seed) for seed in range(SEEDS)) if doc is not None]
    assert {0, 1, 2} <= set(counts), counts   # puzzles with no, one and several solutions among them


def test_doppelganger_is_refused_for_its_values_before_its_kind():
    doc = {"size": 4, "box": "2x2", "values": "0-4", "rules": [{"rule": "doppelganger"}]}
    reason = model_problem(build_model(parse_puzzle(doc)))
    assert reason and "5 values on a 4x4 grid" in reason
    with pytest.raises(SolveError, match="dfsrules assumes each unit holds every one of 4 digits"):
        get_solver("dfsrules").count(build_model(parse_puzzle(doc)), 2)
