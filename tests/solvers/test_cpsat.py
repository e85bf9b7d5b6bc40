"""CP-SAT (pipeline/solvers/cpsat.py) and a batch pool worker's stop flag: the search ends in
place as ``interrupted`` (the worker was killed with its chunk before), and the flag is read
only while it is named. Run in a child process, as the other CP-SAT tests are (OR-Tools and
highspy in one process are kept apart there)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from oracles import PROJECT

SCRIPT = r"""
import threading, time
from pipeline.core import stops
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import get_solver

import pipeline.solvers.cpsat as cpsat_module

cpsat = get_solver("cpsat")
# the flag goes up once the count's search has found a grid (the first solution's values are
# read), not after a set time: on a loaded machine the build outlasted 0.5 s, and a flag already
# up let the count find none
raised = threading.Event()
real_values = cpsat_module._values

def values_then_raised(*args):
    raised.set()
    return real_values(*args)

cpsat_module._values = values_then_raised
stops.watching_flag(raised.is_set)
try:
    start = time.monotonic()
    counted = cpsat.count(build_model(parse_puzzle("." * 81)), 10**9, keep=1)
    seconds = time.monotonic() - start
    assert counted.status == "interrupted" and 0 < counted.count < 10**9, counted
    assert seconds < 30, seconds
    solved = cpsat.solve(build_model(parse_puzzle(%(grid25)r)), threads=1)   # flag already up: ends at once
    assert solved.status == "interrupted" and solved.grid is None, solved
finally:
    stops.watching_flag(None)
assert stops.stop_requested() is False
empty = cpsat.count(build_model(parse_puzzle("." * 16)), 1000)
assert (empty.count, empty.status) == (288, "complete"), empty   # the flag is forgotten
assert cpsat.solve(build_model(parse_puzzle(%(grid25)r)), threads=1).status == "optimal"
print("ok")
"""


def test_a_raised_batch_flag_ends_a_cpsat_search_as_interrupted():
    if importlib.util.find_spec("ortools") is None:
        pytest.skip("ortools (the 'cpsat' extra) is not installed")
    script = SCRIPT % {"grid25": str(PROJECT / "examples" / "grid25.txt")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(PROJECT)})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_the_model_build_counts_against_the_time_limit(monkeypatch):
    """CP-SAT gets what the build left of the time limit, and a build that took all of it
    answers time_limit at once (a published full-rank puzzle took 10 s of a 3 s limit)."""
    pytest.importorskip("ortools", reason="ortools (the 'cpsat' extra) is not installed")
    import time

    from pipeline.core.build import build_model
    from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
    from pipeline.solvers import cpsat

    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    real_build, real_new = cpsat.build_cp_model, cpsat._new_solver
    limits: list[float | None] = []

    def slow_build(m):
        time.sleep(0.3)
        return real_build(m)

    def spying_new(cp_model, time_limit):
        limits.append(time_limit)
        return real_new(cp_model, time_limit)
    monkeypatch.setattr(cpsat, "build_cp_model", slow_build)
    monkeypatch.setattr(cpsat, "_new_solver", spying_new)
    for run in (cpsat.solve, lambda m, **kw: cpsat.count(m, 2, **kw)):
        assert run(model, time_limit=0.2).status == "time_limit" and limits == []
    assert cpsat.solve(model, time_limit=30.0).status == "optimal"
    assert cpsat.count(model, 2, time_limit=30.0).status == "complete"
    assert len(limits) == 2 and all(limit <= 29.7 for limit in limits)
    assert cpsat.solve(model, time_limit=0.2).message == cpsat.BUILT_PAST_LIMIT


def test_a_search_the_time_limit_ends_says_no_raw_status_word(monkeypatch):
    # CP-SAT's UNKNOWN came through as the message, and a batch row's error read "solver: UNKNOWN"
    pytest.importorskip("ortools", reason="ortools (the 'cpsat' extra) is not installed")
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
    from pipeline.solvers import cpsat
    real_new = cpsat._new_solver
    monkeypatch.setattr(cpsat, "_new_solver", lambda cp_model, left: real_new(cp_model, 1e-9))   # ends at once
    result = cpsat.solve(build_model(parse_puzzle(DEFAULT_PUZZLE)), time_limit=30.0)
    assert result.status == "time_limit" and not result.message


#: Found by a differential check: CP-SAT (OR-Tools 9.10) listed one grid of this puzzle three times
#: as three solutions (a model without auxiliary columns: nothing was deduplicated).
WINDOKU_ZIPPER_XSUM = {"size": 9, "box": "3x3", "rules": [
    {"rule": "windoku"}, {"rule": "zipper", "cells": ["r1c8", "r2c7", "r3c8"]},
    {"rule": "zipper", "cells": ["r2c4", "r3c4", "r2c3", "r1c4"]}, {"rule": "xsum", "clue": "r9c0", "sum": 36}],
    "givens": ["r1c8=8", "r2c6=2", "r4c2=5", "r4c8=7"]}


def test_count_lists_each_grid_once():
    pytest.importorskip("ortools", reason="ortools (the 'cpsat' extra) is not installed")
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.core.verify import verify_grid
    from pipeline.solvers import get_solver

    puzzle = parse_puzzle(WINDOKU_ZIPPER_XSUM)
    model = build_model(puzzle)
    counted = get_solver("cpsat").count(model, 6, keep=6)
    assert counted.count == len(counted.grids) == 6, counted.status
    assert len({grid.tobytes() for grid in counted.grids}) == 6
    assert all(verify_grid(grid, puzzle) for grid in counted.grids)
    # the same number as the SAT engine's, every one of its grids among them
    by_sat = get_solver("sat").count(model, 6, keep=6)
    assert by_sat.count == 6


def test_a_model_with_free_auxiliary_columns_is_counted_a_search_per_grid(monkeypatch):
    """A chaos construction's region columns are not fixed by its grid: CP-SAT's enumeration
    listed every division of each grid (49 s for two grids of a 4x4). Each grid found is excluded
    instead, and the next search runs: the same grids as the SAT engine's, one search per grid and
    one more that proves there are no others."""
    pytest.importorskip("ortools", reason="ortools (the 'cpsat' extra) is not installed")
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.solvers import cpsat, get_solver

    model = build_model(parse_puzzle({"size": 4, "givens": "12...3.....4....", "rules": [{"rule": "chaos"}]}))
    assert not model.solution_columns.all()
    searches: list[int] = []
    real_run = cpsat._run

    def counting_run(solver, cp, callback=None):
        searches.append(1)
        return real_run(solver, cp, callback)
    monkeypatch.setattr(cpsat, "_run", counting_run)
    counted = cpsat.count(model, 50, keep=50, time_limit=120.0)
    by_sat = get_solver("sat").count(model, 50, keep=50)
    assert (counted.status, by_sat.status) == ("complete", "complete")
    assert counted.count == by_sat.count == len(searches) - 1 >= 2
    assert {g.tobytes() for g in counted.grids} == {g.tobytes() for g in by_sat.grids}
    searches.clear()
    first_two = cpsat.count(model, 2, keep=0, time_limit=120.0)
    assert (first_two.count, first_two.status, first_two.grids, len(searches)) == (2, "limit", [], 2)


def test_ortools_is_imported_with_stop_signals_held(monkeypatch):
    """A Ctrl-C while ortools imports (a second on a loaded machine) was raised inside protobuf's C
    code calling back into Python, printed there as a traceback, then reported again: the import
    runs with the stop signals held (:class:`pipeline.core.stops.deferred`), the stop raised after."""
    import builtins

    from pipeline.core import stops
    from pipeline.solvers import cpsat

    seen = []
    real_import = builtins.__import__

    def spying_import(name, *args, **kwargs):
        if name.startswith("ortools"):
            seen.append(stops._S.deferring)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", spying_import)
    cpsat._import_problem()
    assert seen and all(depth > 0 for depth in seen), seen
