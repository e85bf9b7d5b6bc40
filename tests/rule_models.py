"""Models with rules beyond units for the format tests: the vendored fixtures of tests/data/rules
(a killer 9x9, an anti-knight/thermometer/Kropki 9x9, a samurai) and random small puzzles with
every kind of rule, plus each format's write-and-read-back as the round-trip tests use it.

What a format cannot carry is said here once (:func:`expected`): CNF, OPB and the CSV triplet
and dense forms have no row names; everything else must come back exactly.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from oracles import PROJECT

from formats import cnf, csv as csv_format, lp, matlab, mps, opb, parquet
from formats.base import ModelData
from formats.directory import export_model
from pipeline.core.manifest import comment_line, COMMENT_TAG, model_metadata
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle

RULES_DIR = PROJECT / "tests" / "data" / "rules"
FIXTURES = ("killer9", "thermo9", "samurai")


def fixture_document(name: str) -> str:
    """The JSON text of a vendored rule puzzle (``killer9``, ``thermo9``, ``samurai``)."""
    return (RULES_DIR / f"{name}.json").read_text()


def fixture_puzzle(name: str):
    return parse_puzzle(fixture_document(name))


def conventions(puzzle) -> list[tuple[str, str, str]]:
    """(scheme, order, clues): block only where boxes form one lattice (not on a layout's canvas)."""
    schemes = ("ijk", "block") if puzzle.has_boxes and puzzle.layout is None else ("ijk",)
    return [(s, o, c) for s in schemes for o in "FC" for c in ("rows", "bounds", "reduce")]


# ---------------------------------------------------------------------------------------------
# random small puzzles with rules
# ---------------------------------------------------------------------------------------------
def solution_grid(h: int, w: int, rng) -> np.ndarray:
    """A valid Sudoku grid of h x w boxes: the pattern grid with digits, rows in bands, bands,
    columns in stacks and stacks shuffled."""
    n = h * w
    r, c = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    base = (w * (r % h) + r // h + c) % n
    rows = np.concatenate([b * h + rng.permutation(h) for b in rng.permutation(w)])
    cols = np.concatenate([s * w + rng.permutation(w) for s in rng.permutation(h)])
    digits = rng.permutation(n) + 1
    return digits[base[rows][:, cols]]


def _name(r: int, c: int) -> str:
    return f"r{r + 1}c{c + 1}"


def random_document(rng, size: int) -> dict:
    """A 4x4 (2x2 boxes) or 6x6 (2x3) puzzle whose rules all hold on one random solution: cages
    (with and without sums), thermometers, Kropki dots, greater signs, even/odd cells, some
    givens, and any of the global rules (anti-knight, anti-king, non-consecutive, a diagonal)."""
    h, w = (2, 2) if size == 4 else (2, 3)
    grid = solution_grid(h, w, rng)
    n = size
    rules = []
    for _ in range(int(rng.integers(0, 4))):                      # cages
        k = int(rng.integers(1, n))
        flat = rng.choice(n * n, size=k, replace=False)
        cells = [divmod(int(f), n) for f in flat]
        values = [int(grid[r, c]) for r, c in cells]
        if len(set(values)) < len(values):
            continue
        entry = {"rule": "cage", "cells": [_name(r, c) for r, c in cells]}
        if rng.random() < 0.7:
            entry["sum"] = sum(values)
        rules.append(entry)
    for _ in range(int(rng.integers(0, 3))):                      # thermometers
        r, c = (int(v) for v in rng.integers(0, n, size=2))
        path = [(r, c)]
        while len(path) < int(rng.integers(2, 5)):
            r, c = path[-1]
            up = [(rr, cc) for rr in (r - 1, r, r + 1) for cc in (c - 1, c, c + 1)
                  if 0 <= rr < n and 0 <= cc < n and grid[rr, cc] > grid[r, c]]
            if not up:
                break
            path.append(up[int(rng.integers(len(up)))])
        if len(path) >= 2:
            rules.append({"rule": "thermo", "cells": [_name(*p) for p in path]})
    for _ in range(int(rng.integers(0, 4))):                      # dots and signs
        r, c = (int(v) for v in rng.integers(0, n - 1, size=2))
        a, b = (r, c), ((r, c + 1) if rng.random() < 0.5 else (r + 1, c))
        va, vb = int(grid[a]), int(grid[b])
        if abs(va - vb) == 1:
            rules.append({"rule": "kropki", "color": "white", "cells": [_name(*a), _name(*b)]})
        elif va == 2 * vb or vb == 2 * va:
            rules.append({"rule": "kropki", "color": "black", "cells": [_name(*a), _name(*b)]})
        else:
            big, small = (a, b) if va > vb else (b, a)
            rules.append({"rule": "greater", "cells": [_name(*big), _name(*small)]})
    for kind, parity in (("even", 0), ("odd", 1)):                # parity
        if rng.random() < 0.5:
            cells = np.argwhere(grid % 2 == parity)
            pick = cells[rng.choice(len(cells), size=min(2, len(cells)), replace=False)]
            rules.append({"rule": kind, "cells": [_name(int(r), int(c)) for r, c in pick]})
    full = [f"{_name(r, c)}={grid[r, c]}" for r in range(n) for c in range(n)]
    extra = [{"rule": kind} for kind in ("antiknight", "antiking", "nonconsecutive") if rng.random() < 0.3]
    if rng.random() < 0.2:
        extra.append({"rule": "diagonal", "which": "main" if rng.random() < 0.5 else "anti"})
    for rule in extra:          # global rules only where they hold on the solution: a feasible puzzle
        try:
            parse_puzzle(json.dumps({"size": n, "box": f"{h}x{w}", "rules": [rule], "givens": full}))
        except PuzzleError:
            continue
        rules.append(rule)
    givens = [f"{_name(int(r), int(c))}={grid[r, c]}" for r, c in np.argwhere(rng.random((n, n)) < 0.25)]
    doc = {"size": n, "box": f"{h}x{w}", "rules": rules}
    if givens:
        doc["givens"] = givens
    return doc


# ---------------------------------------------------------------------------------------------
# each format written and read back
# ---------------------------------------------------------------------------------------------
#: name -> (write and read back in a fresh directory, has row labels, metadata it gives back)
def _csv(form: str):
    def run(model, d: Path, **_):
        export_model(model, d, "csv", dense="always" if form == "dense" else "never")
        got = csv_format.read({"ijv": d / "Aeq_ijv.csv", "long": d / "Aeq_long.csv", "dense": d / "Aeq.csv"}[form])
        # the export's own facts (file digests, the writing version) are not the model's metadata
        assert set(got.metadata.pop("sha256")) >= {"Aeq_ijv.csv", "beq.csv"}
        got.metadata.pop("pipeline_version")
        return got
    return run


def _one(module, name: str, **options):
    def run(model, d: Path, **more):
        path = d / name
        module.write(model, path, **options, **more)
        return module.read(path)
    return run


def _parquet_coo_only(model, d: Path, **_):
    path = d / "m.parquet"
    parquet.write_coo(model, path)
    return parquet.read(path)


FORMATS = {
    "csv_ijv": (_csv("ijv"), False, "manifest"),
    "csv_long": (_csv("long"), True, "manifest"),
    "csv_dense": (_csv("dense"), False, "manifest"),
    "mps_free": (_one(mps, "m.mps"), True, "comment"),
    "mps_fixed": (_one(mps, "m.mps", style="fixed"), True, "comment"),
    "lp": (_one(lp, "m.lp"), True, "comment"),
    "parquet": (_one(parquet, "m_coo.parquet"), True, "manifest"),
    "parquet_coo_only": (_parquet_coo_only, True, "manifest"),
    "mat": (_one(matlab, "m.mat"), True, "manifest"),
    "cnf": (_one(cnf, "m.cnf"), False, "numbered"),
    "opb": (_one(opb, "m.opb"), False, "numbered"),
}


def expected(model, fmt: str) -> ModelData:
    """``ModelData.from_model(model)`` as format ``fmt`` can give it back (no row names where the
    file has none) with the metadata the format carries."""
    want = ModelData.from_model(model)
    _, labelled, meta = FORMATS[fmt]
    if not labelled:
        want.row_labels = None
    if meta == "comment":
        want.metadata = json.loads(comment_line(model).split(COMMENT_TAG, 1)[1])
    else:
        want.metadata = model_metadata(model)
    return want


def write_and_read(model, fmt: str, directory: Path, **options) -> ModelData:
    """Write ``model`` in ``fmt`` into ``directory`` (created) and read it back."""
    directory.mkdir(parents=True, exist_ok=True)
    return FORMATS[fmt][0](model, directory, **options)
