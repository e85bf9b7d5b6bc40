"""Rebuild the generated rule examples: examples/samurai.json and examples/futoshiki.json.

Usage (from the repository root): python examples/make_rule_examples.py

Both are built with the independent oracle of the tests (tests/core/rule_oracle.py, OR-Tools
CP-SAT), not with the project: a random solution (fixed seed), then

* samurai: every cell given, then givens removed one at a time in a fixed random order whenever
  the puzzle stays unique, until MIN_SAMURAI_GIVENS are left or none can go;
* futoshiki (a 5x5 Latin square with greater-than signs): signs between orthogonal neighbours
  and givens (true for the solution), in a fixed random order, added until the puzzle is
  unique, then each removed again when the puzzle stays unique without it.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "core"))

import rule_oracle as oracle  # noqa: E402

MIN_SAMURAI_GIVENS = 120


def dumps(doc: dict) -> str:
    """JSON with one line per top-level key and per list item (rules, givens, grids)."""
    lines = []
    for key, value in doc.items():
        if isinstance(value, list) and value:
            items = ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in value)
            lines.append(f" {json.dumps(key)}: [\n{items}\n ]")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def unique(doc: dict) -> bool:
    return oracle.count(oracle.spec_from_document(doc), 2)[0] == 1


def samurai(seed: int = 2024) -> dict:
    doc = {"size": 9, "layout": "samurai"}
    spec = oracle.spec_from_document(doc)
    grid = oracle.solve_one(spec, seed)
    origins = spec.origins
    cells = sorted(spec.present())
    given = set(cells)
    for k in np.random.default_rng(seed).permutation(len(cells)):
        if len(given) <= MIN_SAMURAI_GIVENS:
            break
        trial = given - {cells[k]}
        doc["grids"] = grids_text(grid, trial, origins)
        if unique(doc):
            given = trial
    doc["grids"] = grids_text(grid, given, origins)
    assert unique(doc)
    return {"title": "Samurai (generated)", "source": "built for this project by examples/make_rule_examples.py",
            "notes": f"{len(given)} givens; five 9x9 grids, the centre one sharing a corner box with each",
            "size": 9, "box": "3x3", "layout": "samurai", "grids": doc["grids"]}


def grids_text(grid, given: set, origins) -> list[str]:
    """One compact line per grid (its 81 cells, '.' where not given)."""
    return ["".join(str(grid[r0 + r, c0 + c]) if (r0 + r, c0 + c) in given else "."
                    for r in range(9) for c in range(9)) for r0, c0 in origins]


def futoshiki(seed: int = 7, n: int = 5) -> dict:
    base = {"size": n, "variant": "latin"}
    grid = oracle.solve_one(oracle.spec_from_document(base), seed)
    rng = np.random.default_rng(seed)
    pairs = [((r, c), (r + dr, c + dc)) for r in range(n) for c in range(n) for dr, dc in ((0, 1), (1, 0))
             if r + dr < n and c + dc < n]
    clues = []            # ("sign", rule) or ("given", "r1c1=5"), true for the solution
    for k in rng.permutation(len(pairs)):
        a, b = pairs[k]
        big, small = (a, b) if grid[a] > grid[b] else (b, a)
        clues.append(("sign", {"rule": "greater", "cells": [f"r{big[0] + 1}c{big[1] + 1}",
                                                             f"r{small[0] + 1}c{small[1] + 1}"]}))
    for k in rng.permutation(n * n):
        r, c = divmod(int(k), n)
        clues.insert(int(rng.integers(0, len(clues))), ("given", f"r{r + 1}c{c + 1}={grid[r, c]}"))

    def doc_of(chosen):
        return dict(base, givens=[v for kind, v in chosen if kind == "given"],
                    rules=[v for kind, v in chosen if kind == "sign"])

    chosen = []
    for clue in clues:
        chosen.append(clue)
        if unique(doc_of(chosen)):
            break
    for clue in list(chosen):
        trial = [c for c in chosen if c is not clue]
        if unique(doc_of(trial)):
            chosen = trial
    doc = doc_of(chosen)
    assert unique(doc)
    return {"title": "Futoshiki (generated)", "source": "built for this project by examples/make_rule_examples.py",
            "notes": f"a {n}x{n} Latin square (no boxes) with {len(doc['rules'])} greater-than signs and "
                     f"{len(doc['givens'])} givens",
            "size": n, "variant": "latin", "givens": doc["givens"], "rules": doc["rules"]}


if __name__ == "__main__":
    for name, doc in (("futoshiki.json", futoshiki()), ("samurai.json", samurai())):
        (ROOT / "examples" / name).write_text(dumps(doc))
        print(name, file=sys.stderr)
