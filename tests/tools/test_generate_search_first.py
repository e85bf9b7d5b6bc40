"""The counting engine that asks the compiled rule search first
(:mod:`pipeline.tools.generate.search_first`): its answers are the SAT engine's, question by
question; the SAT clauses are made only when a question is handed on; a seed makes the same
puzzle either way; without the compiled search the shape's counting engine answers alone."""
import time

import numpy as np
import pytest

import pipeline.tools.generate.engine as engine_module
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers.base import SOLVERS
from pipeline.tools.generate import generate
from pipeline.tools.generate.clock import OutOfTime
from pipeline.tools.generate.engine import ShapeEngine, engine_for
from pipeline.tools.generate.search_first import SearchFirstEngine, search_first_takes

pytest.importorskip("numba", reason="the rule search (dfsrules) needs numba (pip install '.[fast]')")

SOLUTION = np.array([[int(ch) for ch in line] for line in (
    "534678912", "672195348", "198342567", "859761423", "426853791", "713924856", "961537284",
    "287419635", "345286179")])
def _rules_obeyed_by_solution():
    """Thermometers read off the solution (increasing runs) and the sandwich sums of its first
    columns: rules the solution obeys whatever they are."""
    rules = []
    for r in range(0, 9, 2):
        run = [0]
        for c in range(1, 9):
            if SOLUTION[r, c] > SOLUTION[r, run[-1]] and len(run) < 4:
                run.append(c)
            elif len(run) >= 3:
                break
            else:
                run = [c]
        if len(run) >= 3:
            rules.append({"rule": "thermo", "cells": [f"r{r + 1}c{c + 1}" for c in run]})
    for c in range(3):
        col = list(SOLUTION[:, c])
        a, b = sorted((col.index(1), col.index(9)))
        rules.append({"rule": "sandwich", "clue": f"r0c{c + 1}", "sum": int(sum(col[a + 1:b]))})
    return rules


@pytest.fixture(scope="module")
def shape():
    return parse_puzzle("." * 81, rules=_rules_obeyed_by_solution())


def _trials(rng, n=12):
    """Clue grids of the solution, from many clues to few (removal's questions)."""
    for keep in np.linspace(0.6, 0.1, n):
        mask = rng.random((9, 9)) < keep
        yield np.where(mask, SOLUTION, 0)


def test_the_shape_is_one_the_search_takes(shape):
    assert search_first_takes(shape)
    assert isinstance(engine_for(shape), SearchFirstEngine)
    assert isinstance(engine_for(shape, rule_engine="sat"), ShapeEngine)   # named: that engine alone


def test_each_answer_is_the_sat_engines_and_sat_is_never_made(shape):
    first, sat = engine_for(shape), engine_for(shape, rule_engine="sat")
    act_first, act_sat = first.exclude(SOLUTION), sat.exclude(SOLUTION)
    answers = []
    for grid in _trials(np.random.default_rng(3)):
        a, b = first.determines(grid, act_first), sat.determines(grid, act_sat)
        assert a == b, grid
        answers.append(a)
        if not a:   # the witness: another solution of these clues
            other = first.last_other
            assert other is not None and not np.array_equal(other, SOLUTION)
            assert np.array_equal(other[grid > 0], grid[grid > 0])
            assert first.count(other * (grid > 0), 2) == 2
    assert True in answers and False in answers   # the trials ask both ways
    assert first.answered == len(answers) + answers.count(False) and first.handed_on == 0   # and the counts
    assert first._inner is None and first.undecided == 0
    first.retire(act_first)
    sat.retire(act_sat)
    assert first.count(np.zeros((9, 9), dtype=int), 3) == sat.count(np.zeros((9, 9), dtype=int), 3) == 3


def test_a_question_the_search_gives_up_goes_to_the_counting_engine(shape):
    eng = SearchFirstEngine(shape, lambda: ShapeEngine(shape))
    eng.solver = _always_stuck(eng.solver)
    act = eng.exclude(SOLUTION)
    few = np.where(np.random.default_rng(1).random((9, 9)) < 0.15, SOLUTION, 0)
    sat = engine_for(shape, rule_engine="sat")
    assert eng.determines(few, act) == sat.determines(few, sat.exclude(SOLUTION))
    assert eng.handed_on == 1 and eng._inner is not None and eng.answered == 0
    eng.retire(act)
    assert eng._inner_acts == {} and eng.excluded == {}


def _always_stuck(solver):
    """The dfsrules entry with a search that gives up at once (as a stuck one does)."""
    import dataclasses
    from pipeline.core.errors import SolveError

    def stuck(*args, **kwargs):
        raise SolveError("given up")
    return dataclasses.replace(solver, count_or_give_up=stuck)


def test_a_past_deadline_is_out_of_time(shape):
    eng = engine_for(shape)
    act = eng.exclude(SOLUTION)
    with pytest.raises(OutOfTime):
        eng.determines(np.zeros((9, 9), dtype=int), act, deadline=time.perf_counter() - 1)


@pytest.mark.parametrize("rule", ["thermo", "kropki"])
def test_a_seed_makes_the_same_puzzle_with_the_search_first_or_not(rule, monkeypatch):
    made = next(generate(size=9, seed=4, rules=[{"rule": rule}]))
    monkeypatch.setattr(engine_module, "search_first_takes", lambda shape: False)
    without = next(generate(size=9, seed=4, rules=[{"rule": rule}]))
    assert made.puzzle == without.puzzle and np.array_equal(made.solution, without.solution)
    assert made.minimal == without.minimal


def test_without_the_compiled_search_the_counting_engine_answers_alone(shape, monkeypatch):
    import dataclasses
    monkeypatch.setitem(SOLVERS, "dfsrules", dataclasses.replace(SOLVERS["dfsrules"],
                                                                 available=lambda: "needs numba"))
    assert not search_first_takes(shape)
    assert not isinstance(engine_for(shape), SearchFirstEngine)


def test_the_search_retires_once_the_counting_engine_answers_faster_on_the_shape(shape, monkeypatch):
    """A 16x16 with anti-knight took 18 s with the search first against 11 s without: the
    search's answers and give-ups cost 0.15 s a question there, the SAT engine's 0.07 s. Once the
    counting engine has answered faster on average, it takes every question."""
    import pipeline.tools.generate.search_first as module

    eng = SearchFirstEngine(shape, lambda: ShapeEngine(shape))
    slow = {"calls": 0}

    def stuck(self, clue_grid, limit, deadline):
        slow["calls"] += 1
        time.sleep(0.5)   # a search that gives up, far slower than SAT answers this shape (even on a loaded machine)
        return None
    monkeypatch.setattr(module.SearchFirstEngine, "_searched", stuck)
    sat = engine_for(shape, rule_engine="sat")
    act, sat_act = eng.exclude(SOLUTION), sat.exclude(SOLUTION)
    for grid in _trials(np.random.default_rng(5), n=8):
        assert eng.determines(grid, act) == sat.determines(grid, sat_act)
    assert eng.search_retired and slow["calls"] == module.COMPARE_AFTER


def test_the_search_hands_a_hopeless_question_on_early_unless_little_killers_are_in_it():
    """As auto's handoff: past 15% of its budget, a search that estimates it would need four budgets
    gives the question up; with little killer clues it keeps its whole budget."""
    thermo = parse_puzzle({"size": 9, "rules": [{"rule": "thermo", "cells": ["r1c1", "r1c2", "r1c3"]}]})
    little = parse_puzzle({"size": 9, "rules": [{"rule": "littlekiller", "sum": 23, "clue": "r0c5",
                                                 "cells": ["r1c4", "r2c3", "r3c2", "r4c1"]}]})
    for puzzle, hands_on in ((thermo, True), (little, False)):
        eng = SearchFirstEngine(puzzle, lambda shape=puzzle: ShapeEngine(shape), seconds=0.25)
        assert eng._give_up(0, 0.1, 1e-6) is hands_on   # a millionth of the tree in 0.1 s
        assert eng._give_up(0, 0.1, 0.5) is False and eng._give_up(0, 0.3, 0.5) is True
