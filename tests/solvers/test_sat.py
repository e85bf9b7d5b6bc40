"""The in-process SAT engine ('sat') and CP-SAT ('cpsat'): solve in every convention and clue
encoding, counts against known counts, limits, time limits, engine reuse, registry entries."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from oracles import SETS_DIR, round_trip_cases, round_trip_puzzles

from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.errors import SolveError
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers import SOLVERS, get_solver
from pipeline.core.verify import verify_grid

pytest.importorskip("pysat.solvers", reason="python-sat (the 'sat' extra) is not installed")
from pipeline.core import clauses_rules
from pipeline.solvers import sat, sat_rules, sat_slices

PUZZLES = round_trip_puzzles()
CASES = round_trip_cases(PUZZLES)
EMPTY4 = build_model(parse_puzzle("." * 16, box="2x2"))
EMPTY9 = build_model(parse_puzzle("." * 81))


@pytest.mark.parametrize("amo", ["pairwise", "seqcounter"])
@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_solves_every_convention_and_clue_encoding(case, amo):
    name, scheme, order, enc = case
    puzzle = PUZZLES[name]
    model = build_model(puzzle, scheme=scheme, order=order, clues=enc)
    result = get_solver("sat").solve(model, amo=amo)
    assert result.status == "optimal" and result.solver == "sat"
    assert verify_grid(result.grid, puzzle)
    assert result.x.shape == (model.n_cols,)
    np.testing.assert_array_equal(model.full_vector(result.x), model.full_vector(result.x).round())
    residual = model.Aeq @ result.x - model.beq
    assert not residual.any() and (result.x >= model.lb).all()


@pytest.mark.parametrize("amo", ["pairwise", "seqcounter", "ladder", "bitwise", "totalizer"])
@pytest.mark.parametrize("backend", [None, "minisat22", "glucose4"])
def test_empty_4x4_has_288_grids_all_distinct_and_valid(amo, backend):
    result = sat.count(EMPTY4, 1000, amo=amo, sat_backend=backend)
    assert (result.count, result.status) == (288, "complete")
    assert len({g.tobytes() for g in result.grids}) == 288
    assert all(verify_grid(g, EMPTY4.puzzle) for g in result.grids)


def test_counts_match_the_tdoku_reference_counts():
    path = SETS_DIR / "9x9_tdoku_test_counts.csv"
    if not path.exists():
        pytest.skip(f"data set missing: {path}")
    table = pd.read_csv(path)
    table = table[table.n_solutions <= 40].head(25)
    for text, expected in zip(table.puzzle, table.n_solutions):
        model = build_model(parse_puzzle(text))
        result = sat.count(model, 100)
        assert (result.count, result.status) == (expected, "complete"), text


def test_limit_stops_the_count_and_the_engine_stays_reusable():
    first = sat.count(EMPTY9, 50, reuse=True)
    assert (first.count, first.status) == (50, "limit")
    assert len({g.tobytes() for g in first.grids}) == 50
    # a count's blocking clauses are retired afterwards: counting again finds every grid again
    assert sat.count(EMPTY4, 1000, reuse=True).count == 288
    assert sat.count(EMPTY4, 1000, reuse=True).count == 288


def test_one_shared_engine_solves_many_puzzles_with_clues_as_assumptions():
    path = SETS_DIR / "9x9_forum_hardest_1106.txt"
    if not path.exists():
        pytest.skip(f"data set missing: {path}")
    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()][:30]
    engine = sat.engine_for(build_model(parse_puzzle(lines[0])))
    for text in lines:
        puzzle = parse_puzzle(text)
        result = sat.solve(build_model(puzzle), reuse=True)
        assert result.status == "optimal" and verify_grid(result.grid, puzzle)
        assert sat.is_unique(build_model(puzzle), reuse=True)
    assert sat.engine_for(build_model(parse_puzzle(lines[-1]))) is engine


def test_uniqueness():
    assert sat.is_unique(build_model(parse_puzzle(DEFAULT_PUZZLE))) is True
    assert sat.is_unique(EMPTY4) is False


def test_contradictory_clues_are_infeasible():
    # row 1 forces 1..3 into its cells; column 4 already holds the 4 that cell (1,4) needs
    model = build_model(parse_puzzle("123." "...." "...." "...4", box="2x2"))
    assert get_solver("sat").solve(model).status == "infeasible"
    assert sat.count(model, 5).count == 0


@pytest.mark.parametrize("reuse", [False, True])
@pytest.mark.parametrize("backend", ["minisat22", None])
def test_time_limit_is_honoured(backend, reuse):
    # counting 10^6 solutions of the empty 9x9 cannot finish in a fraction of a second; the limit
    # covers the engine's set-up too, so a shared engine is made first (a fresh worker took 0.3 s)
    if reuse:
        sat.count(EMPTY9, 1, sat_backend=backend, reuse=True)
    result = sat.count(EMPTY9, 10**6, time_limit=0.3, sat_backend=backend, reuse=reuse)
    # a fresh engine's set-up may take the whole 0.3 s on a loaded machine (a fresh clone's run
    # beside other work found none): only the shared engine must have counted some
    assert result.status == "time_limit" and (0 if not reuse else 1) <= result.count < 10**6


def test_every_backend_offered_solves():
    """``--sat-backend``'s choices are the backends this python-sat builds: it lists
    ``cryptosat`` and ``minisatgh`` too, which failed with 'unknown or unusable' (outside check)."""
    offered = sat.sat_backends()
    assert "cadical153" in offered and "minisatgh" not in offered
    for name in offered:
        assert get_solver("sat").solve(EMPTY4, sat_backend=name).status == "optimal", name


def test_unknown_backend_is_a_one_line_error():
    with pytest.raises(SolveError, match="unknown or unusable --sat-backend 'nope'"):
        sat.SatEngine(EMPTY4, backend="nope")
    assert "cadical153" in sat.sat_backends()


def test_engine_refuses_another_convention_or_puzzle():
    engine = sat.SatEngine(EMPTY4)
    other = build_model(EMPTY4.puzzle, scheme="block")
    with pytest.raises(SolveError, match="engine built for"):
        engine.solve(other)
    fixed = sat.SatEngine(build_model(parse_puzzle(DEFAULT_PUZZLE)), fix_clues=True)
    assert fixed.solve(build_model(parse_puzzle(DEFAULT_PUZZLE))).status == "optimal"
    with pytest.raises(SolveError, match="another puzzle's clues"):
        fixed.solve(build_model(parse_puzzle("." * 81)))


def test_registry_entries():
    entry = get_solver("sat", need="count")
    assert entry.in_process and entry.available() is None
    assert {"sat", "cpsat", "minisat", "picosat", "cadical", "cryptominisat", "clasp", "minisat+",
            "sat4j"} <= set(SOLVERS)


# ---------------------------------------------------------------------------------------------
# CP-SAT: in a fresh interpreter (ortools' bundled HiGHS clashes with highspy once other tests
# have loaded it into this process)
# ---------------------------------------------------------------------------------------------
CPSAT_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
from conftest import round_trip_cases, round_trip_puzzles
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import get_solver
from pipeline.core.verify import verify_grid
entry = get_solver("cpsat")
puzzles = round_trip_puzzles()
for name, scheme, order, enc in round_trip_cases(puzzles):
    model = build_model(puzzles[name], scheme=scheme, order=order, clues=enc)
    result = entry.solve(model, threads=1)
    assert result.status == "optimal" and verify_grid(result.grid, puzzles[name]), (name, scheme, order, enc)
empty = build_model(parse_puzzle("." * 16, box="2x2"))
full = entry.count(empty, 1000)
assert (full.count, full.status) == (288, "complete"), full
assert entry.count(empty, 10).status == "limit"
print("ok")
"""


def test_cpsat_solves_every_case_and_counts_the_empty_4x4():
    if importlib.util.find_spec("ortools") is None:
        pytest.skip("ortools (the 'cpsat' extra) is not installed")
    tests_dir = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", CPSAT_SCRIPT, str(tests_dir)], check=False, capture_output=True,
                          text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(tests_dir.parent)})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


@pytest.mark.parametrize("scheme,order", [("ijk", "F"), ("block", "C")])
def test_check_unique_is_proved_on_the_solving_engine(scheme, order):
    unique = sat.solve(build_model(parse_puzzle(DEFAULT_PUZZLE), scheme, order), check_unique=True)
    assert unique.solved and unique.unique is True
    assert unique.proof_seconds is not None and 0 < unique.proof_seconds <= unique.seconds   # seconds hold the proof
    loose_text = DEFAULT_PUZZLE[:27] + "." * 54   # seed 000's first band only: many solutions
    loose = build_model(parse_puzzle(loose_text), scheme, order)
    assert get_solver("highs").count(loose, 2).count == 2   # an independent engine agrees
    several = sat.solve(loose, check_unique=True)
    assert several.solved and several.unique is False
    assert verify_grid(several.grid, parse_puzzle(loose_text))
    not_asked = sat.solve(loose)
    assert not_asked.unique is None and not_asked.proof_seconds is None   # not asked: not checked


@pytest.mark.parametrize("bulb_below, unique", [(2, True), (3, False)])
def test_the_proof_tells_apart_answers_that_differ_in_an_extra_cell_only(bulb_below, unique):
    """A whole grid given, and a thermometer from an extra cell S into r1c1: S has one digit below
    2 and two below 3. The proof's blocking clause holds the extra cells' digits too, so the grid
    alone being settled does not make the answer unique; the count of another engine agrees."""
    solved = {2: "2143341212344321", 3: "3142241313244231"}[bulb_below]
    assert verify_grid(np.array([int(c) for c in solved]).reshape(4, 4), parse_puzzle(solved, box="2x2"))
    doc = {"size": 4, "givens": solved, "extra": [{"name": "S"}],
           "rules": [{"rule": "thermo", "cells": ["S", "r1c1"]}]}
    model = build_model(parse_puzzle(json.dumps(doc)))
    result = sat.solve(model, check_unique=True)
    assert result.solved and result.unique is unique
    assert get_solver("highs").count(model, 3).count == (1 if unique else 2)


@pytest.mark.parametrize("backend", ["kissat404", "kissat", "ks"])
def test_a_non_incremental_backend_is_refused_not_run(backend):
    """python-sat's Kissat aborts the process when a clause is added after a search (a count's
    blocking clause, a retired activation literal after a time limit): the engine refuses it
    with one line, and it is not among the --sat-backend choices."""
    assert "kissat404" not in sat.sat_backends() and "cadical153" in sat.sat_backends()
    model = build_model(parse_puzzle("." * 16))
    with pytest.raises(SolveError, match=r"^solver sat: --sat-backend '.*' solves once, non-incrementally"):
        sat.SatEngine(model, backend=backend)


def test_a_count_keeps_only_the_grids_asked_for():
    """The count goes on to the limit; only the first ``keep`` grids are held (the count
    command's default without --list: one), so a large --limit does not fill the memory."""
    model = build_model(parse_puzzle("." * 16, box="2x2"))
    sat_count = SOLVERS["sat"].count
    found = sat_count(model, 1000, keep=1)
    assert (found.count, found.status, len(found.grids)) == (288, "complete", 1)
    assert verify_grid(found.grids[0], model.puzzle)
    assert len(sat_count(model, 1000, keep=0).grids) == 0 and len(sat_count(model, 7, keep=100).grids) == 7
    assert len(sat_count(model, 1000).grids) == 288
    with pytest.raises(SolveError, match=r"^solver sat: count: keep must be an integer at least 0, found -1$"):
        sat_count(model, 5, keep=-1)


class _Recording:
    """A real python-sat solver whose budget calls are recorded."""

    def __init__(self, solver):
        self.solver, self.decisions = solver, []

    def dec_budget(self, budget):
        self.decisions.append(budget)
        self.solver.dec_budget(budget)

    def __getattr__(self, name):
        return getattr(self.solver, name)


def test_slices_get_a_decision_budget_only_under_a_deadline():
    # an open 36x36 makes few conflicts: 2,000 of them took 1.3 s, so a slice bounded by
    # conflicts alone held the deadline's alarm back for seconds
    engine = sat.SatEngine(build_model(parse_puzzle("." * 1296)), fix_clues=True)
    timed = _Recording(engine.solver)
    assert sat_slices.run_sliced(timed, [], time.perf_counter() + 0.3) is None
    assert timed.decisions and all(d >= sat_slices.MIN_DECISIONS for d in timed.decisions)
    free = _Recording(sat.SatEngine(EMPTY4, fix_clues=True).solver)
    assert sat_slices.run_sliced(free, []) is True and free.decisions == []


def test_the_search_and_the_proof_get_what_is_left_of_the_time_limit(monkeypatch):
    """``solve(check_unique=True, time_limit=T)``: the search gets T less the set-up, and the proof
    T less both (each had T of its own before, so a published killer took 4.6 s of a 3 s limit)."""
    given: list[tuple[str, float]] = []   # (call, the time_limit it got)
    for name in ("solve", "prove_unique"):
        real = getattr(sat.SatEngine, name)

        def spy(self, model, *args, _real=real, _name=name, **kwargs):
            given.append((_name, kwargs["time_limit"]))
            time.sleep(0.2)                     # a search that takes time of its own
            return _real(self, model, *args, **kwargs)
        monkeypatch.setattr(sat.SatEngine, name, spy)
    result = sat.solve(EMPTY9, time_limit=30.0, check_unique=True)
    assert result.status == "optimal" and result.unique is False
    assert [call for call, _ in given] == ["solve", "prove_unique"]
    assert given[0][1] < 30.0 and given[1][1] <= given[0][1] - 0.2


def test_a_rule_encoding_that_outlasts_the_time_limit_is_a_time_limit_at_once(monkeypatch):
    """Weighted rows can encode to millions of clauses (an ISS full-rank 9x9: 12.5 million, 69 s to
    list and load) that no nonzero count foresees: solve and count check the encoding's size
    against the time left and answer time_limit with the reason, instead of overrunning the limit
    by minutes. Made to happen on a small thermo puzzle by pricing each clause at 10 s."""
    import json
    puzzle = parse_puzzle(json.dumps({"size": 4, "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2", "r2c1"],
                                                              "sum": 7}]}))
    model = build_model(puzzle)
    monkeypatch.setattr(sat_rules, "SETUP_SECONDS_PER_CLAUSE", 10.0)
    monkeypatch.setattr(clauses_rules, "CAGE_COMBINATIONS", False)   # the sum row goes through the encoder
    started = time.perf_counter()
    result = sat.solve(model, time_limit=5.0)
    counted = sat.count(model, 2, time_limit=5.0)
    assert time.perf_counter() - started < 30.0   # neither waits out its limit much; wide: a loaded machine
    assert result.status == "time_limit" and "clauses into the SAT solver alone takes about" in result.message
    assert counted.status == "time_limit" and "past the time limit" in counted.message
    assert sat.solve(model).status == "optimal"   # without a limit it is set up and solved


CAGE_4 = {"size": 4, "box": "2x2", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]}
FREE_EXTRA = {"size": 4, "givens": "1234341221434321", "extra": [{"name": "S", "size": 2}],
              "rules": [{"rule": "cage", "cells": ["S1", "S2"]}]}


@pytest.mark.parametrize("first, second", [
    (CAGE_4, {**CAGE_4, "values": "0-3"}),                                # a cage's sum counts values
    (FREE_EXTRA, {**FREE_EXTRA, "extra": [{"name": "S", "size": 3}]}),     # one more free extra cell
])
def test_the_shared_engine_keeps_apart_puzzles_that_differ_in_values_or_extra_cells(first, second):
    """Same rules, other values or extra cells: other rows. The shape's cached engine (``reuse``,
    as batch and generate use it) counts each as a fresh engine does, in either order."""
    from pipeline.solvers.sat import count

    models = [build_model(parse_puzzle(doc)) for doc in (first, second)]
    fresh = [count(m, 500).count for m in models]
    assert fresh[0] != fresh[1]
    for order in (models, models[::-1]):
        sat.close_engines()   # the first of the order builds the shape's engine
        assert {id(m): count(m, 500, reuse=True).count for m in order} == {id(m): c for m, c in zip(models, fresh)}


def test_an_engine_whose_clauses_load_past_the_deadline_stops_there():
    """Loading a 100x100's 15.8 million clauses took about a minute that no time limit could cut
    short (a count with --time-limit 80 ran 95 s); the engine now stops between two chunks."""
    model = build_model(parse_puzzle("." * 256))
    with pytest.raises(sat.SetupOutlasts, match=r"^loading the SAT solver's [\d,]+ clauses took the whole time limit$"):
        sat.SatEngine(model, fix_clues=True, deadline=time.perf_counter())
    engine = sat.SatEngine(model, fix_clues=True, deadline=time.perf_counter() + 600)
    try:
        assert engine.solve(model).status == "optimal"
    finally:
        engine.close()
    # generate's engines keep their clause lists and load fresh solvers from them: the same limit
    with pytest.raises(sat.SetupOutlasts, match="took the whole time limit$"):
        sat.SatEngine(model, keep_clauses=True, deadline=time.perf_counter())
    kept = sat.SatEngine(model, keep_clauses=True, deadline=time.perf_counter() + 600)
    try:
        with pytest.raises(sat.SetupOutlasts, match="took the whole time limit$"):
            kept.fresh_solver(deadline=time.perf_counter())
        sat.delete_solver(kept.fresh_solver(deadline=time.perf_counter() + 600))
    finally:
        kept.close()


def test_a_large_fresh_solver_goes_without_the_inprocessing_no_slice_bounds(monkeypatch):
    """generate --variant jigsaw --size 64 --time-limit 20 stopped 13 s late: one CaDiCaL
    inprocessing round over the 64x64's millions of clauses (variable elimination, subsumption,
    vivification, probing) ran 16 s inside one decision slice. A fresh solver above LARGE_FORMULA
    clauses is configured without them before its first clause; smaller ones are as before."""
    from pysat import solvers

    asked = []
    real = solvers.Solver.configure
    monkeypatch.setattr(solvers.Solver, "configure", lambda self, options: (asked.append(dict(options)),
                                                                            real(self, options))[1])
    model = build_model(parse_puzzle("." * 81))
    engine = sat.SatEngine(model, keep_clauses=True)
    try:
        for large, expected in ((False, []), (True, [sat.LARGE_FORMULA_INPROCESSING_OFF])):
            asked.clear()
            monkeypatch.setattr(sat, "LARGE_FORMULA", 0 if large else sat_slices.LARGE_FORMULA)
            solver = engine.fresh_solver(deadline=time.perf_counter() + 600 if large else None)
            try:
                assert asked == expected
                assert solver.nof_clauses() == len(engine.rule_clauses) and solver.solve() is True
            finally:
                sat.delete_solver(solver)
    finally:
        engine.close()


class _Scripted:
    """A solver stand-in whose searches never finish; its statistics say what a slice cost."""

    def __init__(self, clauses, propagations_per_conflict):
        self.clauses, self.per = clauses, propagations_per_conflict
        self.conflict_budgets, self.decision_budgets, self.conflicts = [], [], 0

    def nof_clauses(self):
        return self.clauses

    def conf_budget(self, budget):
        self.conflict_budgets.append(budget)

    def dec_budget(self, budget):
        self.decision_budgets.append(budget)

    def accum_stats(self):
        return {"conflicts": self.conflicts, "propagations": self.per * self.conflicts, "decisions": 3 * self.conflicts}

    def solve_limited(self, assumptions=()):
        self.conflicts += self.conflict_budgets[-1]
        return True if len(self.conflict_budgets) == 6 else None


class _RootRestarting(_Scripted):
    """A formula whose answer needs ``needed`` decisions in one call without a conflict: a slice
    stopped by its decision budget goes back to the root, as every solver's call does."""

    def __init__(self, needed):
        super().__init__(10, 1)
        self.needed, self.decisions = needed, 0

    def accum_stats(self):
        return {"conflicts": 0, "propagations": 0, "decisions": self.decisions}

    def solve_limited(self, assumptions=()):
        budget = self.decision_budgets[-1]
        assert len(self.decision_budgets) < 50, "the slices make the same decisions for ever"
        self.decisions += min(budget, self.needed)
        return True if budget >= self.needed else None


def test_a_decision_budget_grows_until_a_slice_can_reach_the_answer():
    """ISS's "City Planning" needs 67,056 decisions without a conflict to its answer: in slices of
    20,000 decisions, each starting again from the root, a --time-limit 60 ran out with "no
    solution" where no limit solved it in 6 s. A slice that meets (almost) no conflict doubles
    the next one's decisions."""
    stuck = _RootRestarting(67_056)
    assert sat_slices.run_sliced(stuck, [], time.perf_counter() + 60) is True
    assert stuck.decision_budgets == [20_000, 40_000, 80_000]
    # the same without a deadline on a formula of many clauses (their decision budgets too)
    large = _RootRestarting(300_000)
    large.clauses = sat_slices.LARGE_FORMULA + 1
    assert sat_slices.run_sliced(large, []) is True and large.decision_budgets[-1] >= 300_000


def test_a_time_limit_does_not_stop_a_search_that_needs_many_decisions():
    """The same puzzle end to end (the clone's copy of ISS's collection): the answer with a time
    limit, as without one."""
    entry = next(json.loads(line) for line in (Path(__file__).resolve().parents[1] / "data" / "iss" / "collections.jsonl").read_text().splitlines()
                 if json.loads(line)["name"] == "City Planning")
    puzzle = parse_puzzle(entry["input"])
    result = sat.solve(build_model(puzzle), time_limit=120)
    assert result.status == "optimal" and verify_grid(result.grid, puzzle).ok


def test_slices_of_costly_conflicts_are_cut_by_their_propagations():
    """A full-rank 9x9's conflicts took 25,000 propagations and 10 ms each: slices of 2,000 and
    10,000 conflicts held a Ctrl-C 15 s and 80 s. After the first slice the budget is what fits
    PROPAGATION_SLICE; a formula of many clauses starts small and gets a decision budget too."""
    costly = _Scripted(8_300_000, 25_000)
    assert sat_slices.run_sliced(costly, []) is True
    assert costly.conflict_budgets[0] == sat_slices.FIRST_LARGE_SLICE
    assert all(b <= sat_slices.PROPAGATION_SLICE // 25_000 for b in costly.conflict_budgets[1:])
    assert costly.decision_budgets == [sat_slices.DECISION_SLICE] * 6
    # cheap conflicts (a hard 25x25: 240 propagations each) keep the fixed schedule, without decisions
    cheap = _Scripted(752_500, 240)
    assert sat_slices.run_sliced(cheap, []) is True
    assert cheap.conflict_budgets == [2_000, 4_000, 8_000, 10_000, 10_000, 10_000] and cheap.decision_budgets == []


class _Clocked(_Scripted):
    """Costly conflicts on a clock of its own: each takes ``seconds_each`` (no real time passes)."""

    def __init__(self, seconds_each):
        super().__init__(771_069, 2_900)
        self.now, self.each = 100.0, seconds_each

    def solve_limited(self, assumptions=()):
        self.now += self.each * self.conflict_budgets[-1]
        self.conflicts += self.conflict_budgets[-1]


def test_a_deadline_is_not_outlasted_by_a_slice_of_costly_conflicts(monkeypatch):
    """ISS's "X-Sum" (771,069 clauses): its first slice of 2,000 conflicts took 3-5 s on a loaded
    machine, so ``solve --time-limit 5`` answered after 10.7 s. Under a deadline the first slice is
    FIRST_LARGE_SLICE conflicts and later ones fit the time left at the pace measured."""
    costly = _Clocked(seconds_each=0.002)
    monkeypatch.setattr(sat_slices, "time", types.SimpleNamespace(perf_counter=lambda: costly.now))
    assert sat_slices.run_sliced(costly, [], deadline=costly.now + 1.0) is None
    assert costly.conflict_budgets[0] == sat_slices.FIRST_LARGE_SLICE
    assert costly.now <= 100.0 + 1.0 + 0.002 * sat_slices.MIN_CONFLICTS


def test_a_shared_engine_made_under_a_deadline_stops_and_is_not_kept():
    """A batch's shape engine (``reuse``) is made under the record's deadline too: ISS's "Full rank
    2" built its 12.5 million clauses for 41 s and 4 GB under a 10 s limit (outside check)."""
    model = build_model(parse_puzzle("." * 36 ** 2))
    key = sat._shape_key(model, "auto", sat.DEFAULT_BACKEND)
    sat._ENGINES.pop(key, None)
    with pytest.raises(sat.SetupOutlasts):
        sat._engine(model, "auto", None, True, deadline=time.perf_counter())
    assert key not in sat._ENGINES


@pytest.mark.parametrize("rule", [
    {"rule": "sumline", "cells": ["r2c3", "r2c4"], "sum": 10},
    {"rule": "skyscraper", "clue": "r0c2", "count": 3},
    {"rule": "countingcircles", "cells": ["r1c1", "r2c2", "r4c4"]},
])
def test_a_layout_with_auxiliary_columns_solves_and_counts(rule):
    """A samurai whose rule adds auxiliary columns (after the canvas's cell digits): the absent
    cells' units indexed the auxiliary columns into the canvas (an outside check's IndexError)."""
    puzzle = parse_puzzle(json.dumps({"size": 9, "box": "3x3", "layout": "samurai", "rules": [rule]}))
    model = build_model(puzzle)
    assert model.n_aux > 0
    result = get_solver("sat").solve(model)
    assert result.status == "optimal" and verify_grid(result.grid, puzzle).ok
    assert get_solver("sat").count(model, 3).count == 3


def test_fixed_slices_hears_each_slice_of_a_long_search_and_nothing_else():
    # generate's progress lines stopped while one --minimal proof ran for minutes
    from pysat.examples.genhard import PHP
    from pysat.solvers import Solver

    from pipeline.solvers.sat_slices import fixed_slices, run_sliced

    heard: list[int] = []
    with Solver(name="cadical153", bootstrap_with=PHP(8).clauses) as solver:   # thousands of conflicts
        with fixed_slices(between=lambda: heard.append(1)):
            assert run_sliced(solver) is False
        slices = len(heard)
        assert slices >= 2
        assert run_sliced(solver) is False and len(heard) == slices     # outside: not called



def test_a_count_stops_where_its_blocking_clauses_would_pass_the_memory_allowed(monkeypatch, capsys):
    """Each solution found stays in the solver as a blocking clause: an empty 9x9 counted to 10^11
    grew without bound (about 0.75 KB a solution). Half the memory allowed bounds them now."""
    monkeypatch.setenv("SUDOKU_PIPELINE_MAX_BYTES", "20000000")
    model = build_model(parse_puzzle("." * 81))
    result = sat.count(model, limit=10 ** 11)
    clause = sat.BYTES_PER_BLOCKING_LITERAL * (81 + 1)   # a literal per cell and the count's own
    assert result.status == "memory_limit" and result.count == 10_000_000 // clause
    assert all(verify_grid(g, model.puzzle).ok for g in result.grids[:50])
    assert main(["count", "." * 81, "--solver", "sat", "--limit", str(10 ** 11)]) == 0
    assert capsys.readouterr().out == (f"{result.count} (at least: stopped at the memory allowed "
                                       f"(SUDOKU_PIPELINE_MAX_BYTES), which holds a clause for each solution found)\n")
    assert sat.count(model, limit=100).status == "limit"   # a limit within it is met as before
