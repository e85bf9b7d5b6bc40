"""The ``dfsrules`` kernel's hidden skyscraper handler (pipeline/solvers/dfsrules_hidden.py): the
rule's rows are left out of the engine's tables, so the handler alone must hold the rule. Its
counts to 2, and its grids, equal the SAT engine's (which reads the rule's rows) on generated
hidden skyscraper puzzles of 4x4, 6x6 and 9x9: as generated (one solution), with half their givens
or all of them removed (several) and with a clue changed (often none), and the same relabelled onto
the values ``0..N-1`` (heights compare by the values' order); ``auto`` picks it and the answer's
vector meets every row of the model; and ISS's published hidden skyscraper puzzles that it takes
solve to their published grid."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import residual, verify_grid
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers.auto import pick_solver
from pipeline.solvers.dfsrules import rule_tables
from pipeline.solvers.dfsrules_hidden_rows import HID_AT
from pipeline.tools.generate.puzzles import generate
from dfsrules_agree import agree_with_sat as _agree, iss_entry_params, solves_iss_entry

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)



def _variants(generated, rng) -> list[dict]:
    """The generated puzzle, the same with half its givens gone, with none, and with one clue's
    digit changed."""
    doc = generated.puzzle.to_document()
    grid = np.asarray(generated.puzzle.grid).reshape(-1)
    fewer = json.loads(json.dumps(doc))
    shown = np.flatnonzero(grid)
    gone = rng.choice(shown, size=shown.size // 2, replace=False) if shown.size else shown
    kept = grid.copy()
    kept[gone] = 0
    fewer["givens"] = "".join(str(v) if v else "." for v in kept)
    bare = {**json.loads(json.dumps(doc)), "givens": "." * grid.size}
    changed = json.loads(json.dumps(doc))
    rule = changed["rules"][int(rng.integers(len(changed["rules"])))]
    rule["digit"] = int(rule["digit"]) % doc["size"] + 1
    return [doc, fewer, bare, changed]


def _from_zero(doc: dict) -> dict:
    """``doc`` on the values ``0..N-1``: every value one lower (the same order, so the same grids)."""
    n = doc["size"]
    givens = [f"r{i // n + 1}c{i % n + 1}={int(ch) - 1}" for i, ch in enumerate(doc["givens"]) if ch != "."]
    rules = [{**rule, "digit": int(rule["digit"]) - 1} for rule in doc["rules"]]
    return {**doc, "values": list(range(n)), "givens": givens, "rules": rules}


@pytest.mark.parametrize("size,count,seed", [(4, 6, 1), (6, 5, 2), (9, 3, 3)])
def test_generated_hidden_skyscrapers_count_as_the_sat_engine(size, count, seed):
    rng = np.random.default_rng(seed)
    seen = set()
    for generated in generate(size=size, count=count, seed=seed, rules=[{"rule": "hiddenskyscraper"}]):
        for doc in _variants(generated, rng):
            got = _agree(parse_puzzle(doc))
            seen.add(min(got, 2))
            assert _agree(parse_puzzle(_from_zero(doc))) == got
    assert seen >= {1, 2}   # unique and several (a changed clue leaves none more often than not)


def test_auto_picks_dfsrules_and_the_answer_meets_every_row():
    for generated in generate(size=9, count=2, seed=7, rules=[{"rule": "hiddenskyscraper"}]):
        model = build_model(generated.puzzle)
        pick = pick_solver("unique", model)
        assert pick.name == "dfsrules", pick.reason
        got = get_solver("dfsrules").solve(model, check_unique=True)
        want = get_solver("sat").solve(model, check_unique=True)
        assert (got.status, got.unique) == (want.status, want.unique) == ("optimal", True)
        assert np.array_equal(got.grid, want.grid) and verify_grid(got.grid, generated.puzzle).ok
        assert residual(model, got.x) <= 1e-9


def test_the_handler_takes_the_rows_place():
    """The rule's rows are not in the kernel's linear rows (nor its pair tables); its lines are,
    from the clue inwards, with the clue's digit index."""
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "hiddenskyscraper", "clue": "r1c0", "digit": 2},
                                              {"rule": "hiddenskyscraper", "clue": "r5c2", "digit": 3}]}
    tables = rule_tables(parse_puzzle(doc))
    rint = tables.rint
    assert tables.n_lin == 0 and tables.n_pairs == 0 and rint[HID_AT] == 2
    assert rint[rint[HID_AT + 1]:rint[HID_AT + 1] + 3].tolist() == [0, 4, 8]
    assert rint[rint[HID_AT + 2]:rint[HID_AT + 2] + 8].tolist() == [0, 1, 2, 3, 13, 9, 5, 1]
    assert rint[rint[HID_AT + 3]:rint[HID_AT + 3] + 2].tolist() == [1, 2]
    assert rint[HID_AT + 6] == 8


def test_one_line_holds_its_meaning():
    """Every grid of a 4x4 with two clues on one row, counted whole, read by the rule's text: from
    the left the first cell lower than one before it holds the clue, the cells before it rising."""
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "hiddenskyscraper", "clue": "r1c0", "digit": 2},
                                              {"rule": "hiddenskyscraper", "clue": "r1c5", "digit": 1}]}
    puzzle = parse_puzzle(doc)
    found = get_solver("dfsrules").count(build_model(puzzle), 1000)
    want = get_solver("sat").count(build_model(puzzle), 1000)
    assert found.status == "complete" and found.count == want.count > 0

    def first_hidden(line):
        return next((v for j, v in enumerate(line) if j and v < max(line[:j])), None)

    rows = {tuple(g[0].tolist()) for g in found.grids}
    assert rows == {p for p in itertools.permutations(range(1, 5)) if first_hidden(p) == 2 and first_hidden(p[::-1]) == 1}
    assert get_solver("dfsrules").count(build_model(parse_puzzle(
        {**doc, "givens": ["r1c1=2"]})), 2).count == 0   # the clue's digit first is never hidden


@pytest.mark.parametrize("entry", iss_entry_params(".HiddenSkyscraper~"))
def test_iss_hidden_skyscraper_entries_it_takes_solve_to_their_solution(entry):
    solves_iss_entry(entry)
