"""The CNF writer's rule clauses are the in-process SAT engine's (pipeline/core/clauses_rules.py):
a sandwich's, a lunchbox's, a little killer's, an arrow's or a region-sum line's CNF holds the
engine's clauses for that puzzle (not their rows' pseudo-Boolean encodings, millions of clauses
for ISS's 'Between 1 and 9 Sudoku'), reads back, and external SAT solvers solve it as the engine
does with the rows' own encodings."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from formats import cnf
from pipeline.core import clauses_outside, clauses_rules, clauses_running
from pipeline.core.build import build_model
from pipeline.core.clauses_rules import list_tokens
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from arrow_puzzles import arrow_puzzle
from equal_sum_puzzles import equal_sum_puzzle
from little_killer_puzzles import little_killer_puzzle

pytest.importorskip("pysat.solvers")
from pipeline.solvers import get_solver, sat  # noqa: E402

#: A solved 9x9 (rows shifted by 3, bands by 1) for the outside clues below.
_GRID = np.array([[(3 * (r % 3) + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)])


def _outside_doc(lunch: bool) -> dict:
    """Sandwich and X-sum clues of :data:`_GRID` (and a lunchbox in row 5), a few givens."""
    rules = []
    for k in (0, 3, 7):
        line = _GRID[k]
        a, b = sorted((int(np.flatnonzero(line == 1)[0]), int(np.flatnonzero(line == 9)[0])))
        rules.append({"rule": "sandwich", "clue": f"r{k + 1}c0", "sum": int(line[a + 1:b].sum())})
        col = _GRID[:, k]
        rules.append({"rule": "xsum", "clue": f"r0c{k + 1}", "sum": int(col[:col[0]].sum())})
    if lunch:
        cells = _GRID[4, 1:6]
        lo, hi = sorted((int(np.argmin(cells)), int(np.argmax(cells))))
        rules.append({"rule": "lunchbox", "cells": [f"r5c{c}" for c in range(2, 7)],
                      "sum": int(cells[lo + 1:hi].sum())})
    givens = np.zeros(81, dtype=int)
    shown = np.arange(0, 81, 4)
    givens[shown] = _GRID.ravel()[shown]
    return {"size": 9, "givens": "".join(str(v) if v else "." for v in givens), "rules": rules}


def _docs() -> list[tuple[str, dict]]:
    out = [("sandwich", _outside_doc(False)), ("lunchbox", _outside_doc(True))]
    for seed in range(3):
        out.append((f"littlekiller{seed}", little_killer_puzzle(seed)[0]))
        out.append((f"arrow{seed}", arrow_puzzle(seed)[0]))
        out.append((f"regionsum{seed}", equal_sum_puzzle(seed)[0]))
    return out


DOCS = _docs()


def _rule_tokens(path) -> np.ndarray:
    """The rule clauses' literals of a pipeline CNF (its facts name where they are)."""
    got = cnf.read_cnf(path)
    facts = got.facts["rule_rows"]
    first, count = int(facts["first_clause"]), int(facts["clauses"])
    ends = got.clause_ends
    lo = int(ends[first - 1]) + 1 if first else 0
    return got.tokens[lo:int(ends[first + count - 1]) + 1].astype(np.int64)


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("name,doc", DOCS, ids=[name for name, _ in DOCS])
def test_cnf_holds_the_engines_rule_clauses(tmp_path, name, doc, clues):
    model = build_model(parse_puzzle(json.dumps(doc)), clues=clues)
    path = tmp_path / "model.cnf"
    cnf.write(model, path)
    engine = sat.SatEngine(model, fix_clues=True)
    try:
        want = list_tokens(engine._extra)
    finally:
        engine.close()
    assert np.array_equal(_rule_tokens(path), want)
    cnf.read(path)   # and reads back: the clauses again are the file's


def test_sandwich_cnf_is_the_engines_size(tmp_path):
    """Old writers gave the sandwiches' big-M rows their PB encodings: many times the engine's."""
    model = build_model(parse_puzzle(json.dumps(_outside_doc(True))))
    path = tmp_path / "model.cnf"
    cnf.write(model, path)
    engine = sat.SatEngine(model, fix_clues=True)
    try:
        assert cnf.read_cnf(path).facts["rule_rows"]["clauses"] == len(engine._extra)
    finally:
        engine.close()


def test_a_cnf_of_the_rows_own_encodings_still_reads(tmp_path, monkeypatch):
    """A file whose facts name no encodings (written before them) is checked against the rows'
    own encodings; one that names them is checked against those, whatever the switches now."""
    model = build_model(parse_puzzle(json.dumps(_outside_doc(True))))
    old, new = tmp_path / "old.cnf", tmp_path / "new.cnf"
    cnf.write(model, new)
    for switch in (clauses_rules, clauses_running, clauses_outside):
        for key in ("CAGE_COMBINATIONS", "OUTSIDE_SUMS", "COMBINED_SUMS", "RUNNING_SUMS", "EQUAL_SUMS", "EQUALSUM_SEGMENTS",
                    "LUNCHBOX_ENDS"):
            if hasattr(switch, key):
                monkeypatch.setattr(switch, key, False)
    cnf.write(model, old)
    text = old.read_text()
    facts = json.loads(text.split(cnf.CNF_TAG, 1)[1].split("\n", 1)[0])
    del facts["rule_rows"]["encodings"]
    line = f"c {cnf.CNF_TAG} {json.dumps(facts, separators=(',', ':'))}"
    old.write_text("\n".join(line if cnf.CNF_TAG in row else row for row in text.split("\n")))
    assert cnf.read_cnf(old).facts["rule_rows"]["clauses"] > cnf.read_cnf(new).facts["rule_rows"]["clauses"]
    cnf.read(old)
    cnf.read(new)


@pytest.mark.parametrize("solver", ["minisat", "cadical", "clasp"])
@pytest.mark.parametrize("name,doc", DOCS[:2] + DOCS[2:8:2] + DOCS[3:9:2] + DOCS[4:10:2],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_external_solvers_solve_the_exported_cnf(tmp_path, solver, name, doc, monkeypatch):
    if shutil.which(solver) is None:
        pytest.skip(f"{solver} is not installed")
    puzzle = parse_puzzle(json.dumps(doc))
    model = build_model(puzzle)
    got = get_solver(solver).solve(model, time_limit=60, workdir=tmp_path)
    unique = sat.count(model, 2, time_limit=60).count == 1
    # before: the rows' own encodings (every switch off) in the engine
    monkeypatch.setattr(clauses_rules, "CAGE_COMBINATIONS", False)
    monkeypatch.setattr(clauses_rules, "OUTSIDE_SUMS", False)
    monkeypatch.setattr(clauses_rules, "COMBINED_SUMS", False)
    monkeypatch.setattr(clauses_running, "RUNNING_SUMS", False)
    monkeypatch.setattr(clauses_running, "EQUAL_SUMS", False)
    monkeypatch.setattr(clauses_running, "EQUALSUM_SEGMENTS", False)
    before = sat.solve(model, time_limit=60)
    assert got.status == before.status, name
    if got.status == "optimal":
        assert verify_grid(got.grid, puzzle).ok, name
        assert np.array_equal(got.grid, before.grid) or not unique, name


def _with_rule_facts(path, change) -> None:
    """Rewrite ``path``'s facts comment with ``change(facts)`` applied (clauses left as they are)."""
    text = path.read_text()
    facts = json.loads(text.split(cnf.CNF_TAG, 1)[1].split("\n", 1)[0])
    change(facts)
    line = f"c {cnf.CNF_TAG} {json.dumps(facts, separators=(',', ':'))}"
    path.write_text("\n".join(line if cnf.CNF_TAG in row else row for row in text.split("\n")))


_DAMAGE = {
    # an unknown switch was ignored (the file read as if it were not there); a string "false" or
    # {"a": 1} read as true: the damaged file was taken as sound
    "unknown switch": (lambda f: f["rule_rows"]["encodings"].update(future=True), "not a switch of this version"),
    "string switch": (lambda f: f["rule_rows"]["encodings"].update(cage_combinations="false"), "true or false"),
    "object switch": (lambda f: f["rule_rows"]["encodings"].update(running_sums={"a": 1}), "true or false"),
    "number switch": (lambda f: f["rule_rows"]["encodings"].update(outside_sums=1), "true or false"),
    # these raised TypeError, ValueError or KeyError (a traceback from the command line)
    "rule_rows a list": (lambda f: f.update(rule_rows=[1]), "rule_rows is not a mapping"),
    "first_clause text": (lambda f: f["rule_rows"].update(first_clause="x"), "not integers"),
    "first_clause null": (lambda f: f["rule_rows"].update(first_clause=None), "not integers"),
    "clauses missing": (lambda f: f["rule_rows"].pop("clauses"), "rule_rows lacks clauses"),
    "aux a number": (lambda f: f["rule_rows"].update(aux_variables=5), "aux_variables"),
    "aux text": (lambda f: f["rule_rows"].update(aux_variables=["a", "b"]), "aux_variables"),
    "aux a mapping": (lambda f: f["rule_rows"].update(aux_variables={"a": 1}), "aux_variables"),
}


@pytest.mark.parametrize("damage", list(_DAMAGE))
def test_damaged_rule_facts_are_a_format_error(tmp_path, damage):
    change, message = _DAMAGE[damage]
    path = tmp_path / "model.cnf"
    cnf.write(build_model(parse_puzzle(json.dumps(_outside_doc(True)))), path)
    _with_rule_facts(path, change)
    with pytest.raises(cnf.FormatError, match=message):
        cnf.read(path)


@pytest.mark.parametrize("facts", ["[1, 2]", '"x"', "7"])
def test_facts_comment_that_is_no_object_is_a_format_error(tmp_path, facts):
    """A JSON list or string as the facts raised AttributeError (``.get`` of a list)."""
    path = tmp_path / "model.cnf"
    cnf.write(build_model(parse_puzzle(json.dumps(_outside_doc(True)))), path)
    text = path.read_text()
    path.write_text("\n".join(f"c {cnf.CNF_TAG} {facts}" if cnf.CNF_TAG in row else row for row in text.split("\n")))
    with pytest.raises(cnf.FormatError, match="not a JSON object"):
        cnf.read(path)
