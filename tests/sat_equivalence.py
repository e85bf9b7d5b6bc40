"""Checks shared by the tests of the SAT engine's own encodings of rule rows (running sums,
gated sums, combined sums, ...): the clauses hold on the grid a puzzle's clues came from, they
change no count, a CNF written before an encoding's switch still reads; and the vendored ISS
entries by name. Each test module passes its puzzle and how to switch its encoding off."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
from pysat.solvers import Solver

from formats import cnf

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.clauses import clause_list, encode
from pipeline.solvers import sat, sat_rules


#: ISS's published puzzles vendored with the tests (name, input, solution a line)
ISS_COLLECTION = Path(__file__).resolve().parent / "data" / "iss" / "collections.jsonl"


def iss_entry(name: str) -> str:
    """The ISS constraint string of the vendored collection's entry ``name`` (LookupError when absent)."""
    for line in ISS_COLLECTION.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["name"] == name:
            return entry["input"]
    raise LookupError(name)


def grid_literals(model, grid: np.ndarray) -> list[int]:
    """The literals of a 9x9 ``grid``'s values in ``model``'s positions."""
    r, c = np.divmod(np.arange(81), 9)
    return (model.convention.position(r, c, grid.ravel() - 1).astype(np.int64) + 1).tolist()


def assert_holds_on(doc: dict, grid: np.ndarray, clues: str) -> None:
    """The engine, with the encoding on, accepts ``grid`` (the grid ``doc``'s clues came from)."""
    model = build_model(parse_puzzle(json.dumps(doc)), clues=clues)
    engine = sat.SatEngine(model, fix_clues=True)
    try:
        outcome = engine.solve_assumed(grid_literals(model, grid), time_limit=60)
    finally:
        engine.close()
    assert outcome.status == "optimal"


def assert_counts_alike(doc: dict, clues: str, switch_off: Callable[[], None]) -> None:
    """``doc`` counted to 2 with the encoding on, then off (``switch_off()`` between the two
    engines' set-ups): the same count, and the same grid when there is one."""
    model = build_model(parse_puzzle(json.dumps(doc)), clues=clues)
    ours = sat.SatEngine(model, fix_clues=True)
    switch_off()
    theirs = sat.SatEngine(model, fix_clues=True)
    try:
        a, b = ours.count(model, 2, time_limit=60), theirs.count(model, 2, time_limit=60)
    finally:
        ours.close()
        theirs.close()
    assert a.status != "time_limit" and b.status != "time_limit"
    assert a.count == b.count
    if a.count == 1:
        assert np.array_equal(np.asarray(a.grids[0]), np.asarray(b.grids[0]))


def cadical_within(model, conflicts: int) -> bool | None:
    """CaDiCaL on ``model``'s unit rows and the SAT engine's rule clauses, within ``conflicts``:
    True (a solution), False (none) or None (the budget ran out)."""
    units = encode(model, "pairwise")
    extra, _ = sat_rules.rules_beyond_units(model, units.n_vars, units.amo, view=True)
    solver = Solver(name="cadical153", bootstrap_with=clause_list(units) + extra)
    try:
        solver.conf_budget(conflicts)
        return solver.solve_limited()
    finally:
        solver.delete()


def assert_cnf_before_switch_reads(tmp_path, monkeypatch, model, module, switch: str, key: str, *,
                                   adds: bool = False, between: Callable[[], None] = lambda: None) -> None:
    """A CNF of ``model`` written before the encoding switch ``module.<switch>`` existed (its
    facts without ``key``: the encoding off) still reads, and one written with it reads with the
    switch on; the file written before has more rule clauses (fewer when the encoding ``adds``
    clauses beside the rows). ``between()`` runs while the switch is off (a test's own checks)."""
    old, new = tmp_path / "old.cnf", tmp_path / "new.cnf"
    cnf.write(model, new)
    monkeypatch.setattr(module, switch, False)
    between()
    cnf.write(model, old)
    monkeypatch.setattr(module, switch, True)
    text = old.read_text()
    facts = json.loads(text.split(cnf.CNF_TAG, 1)[1].split("\n", 1)[0])
    assert facts["rule_rows"]["encodings"].pop(key) is False
    line = f"c {cnf.CNF_TAG} {json.dumps(facts, separators=(',', ':'))}"
    old.write_text("\n".join(line if cnf.CNF_TAG in row else row for row in text.split("\n")))
    assert cnf.read_cnf(new).facts["rule_rows"]["encodings"][key] is True
    before, after = (cnf.read_cnf(path).facts["rule_rows"]["clauses"] for path in (old, new))
    assert before < after if adds else before > after
    cnf.read(old)
    cnf.read(new)
