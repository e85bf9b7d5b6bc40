"""auto's handoff: an engine given a short budget hands a long search to the next engine, and the
answer names the engine that gave it (pipeline/solvers/handoff.py)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS, CountResult, Solver, SolveResult
from pipeline.solvers.auto import AUTO_TABLE, pick_solver
from pipeline.solvers.handoff import handed_off

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                reason="dfsrules needs numba (the fast extra)")

KILLER = '{"size": 4, "rules": [{"rule": "cage", "sum": 3, "cells": ["r1c1", "r1c2"]}, ' \
         '{"rule": "cage", "sum": 3, "cells": ["r4c3", "r4c4"]}, {"rule": "cage", "sum": 4, "cells": ["r2c1", "r3c1"]}]}'


def _stuck(model, *, time_limit=None, check_unique=False):
    """An engine that always runs out of its time (what dfsrules does on a hard killer)."""
    return SolveResult("time_limit", None, None, time_limit or 0.0, 0, solver="stuck")


def _stuck_count(model, limit=2, *, time_limit=None, keep=None):
    return CountResult(0, [], "time_limit", time_limit or 0.0)


STUCK = Solver("stuck", "a search that never ends in its budget", solve=_stuck, count=_stuck_count, rule_rows=True,
               proves_unique=True)


def test_a_search_over_budget_is_answered_by_the_next_engine():
    model = build_model(parse_puzzle(KILLER))
    engine = handed_off(STUCK, SOLVERS["sat"], 0.5)
    result = engine.solve(model, check_unique=True)
    assert result.solver == "sat" and result.solved and verify_grid(result.grid, model.puzzle)
    assert result.message.startswith("stuck gave up after 0.5 s; sat answered")
    assert result.unique is not None   # the next engine proved it (or not) within the time left
    assert result.seconds >= 0.5   # the first engine's 0.5 s are part of the answer's time
    counted = engine.count(model, 1000)
    assert "stuck gave up" in counted.message and counted.count == SOLVERS["sat"].count(model, 1000).count
    assert counted.seconds >= 0.5


def test_within_budget_the_first_engine_answers():
    model = build_model(parse_puzzle(KILLER))
    result = handed_off(SOLVERS["dfsrules"], SOLVERS["sat"], 30.0).solve(model, check_unique=True)
    assert result.solver == "dfsrules" and result.unique is not None and "gave up" not in result.message


def test_auto_rows_hand_dfsrules_to_sat_and_a_dfs_count_too():
    rows = {row.question: row for row in AUTO_TABLE}
    for question in ("solve", "unique"):
        assert [(a, b) for a, b, _ in rows[question].handoff] == [("dfsrules", "sat")]
    assert [(a, b) for a, b, _ in rows["count"].handoff] == [("dfs", "sat"), ("dfsrules", "sat")]
    pick = pick_solver("count", build_model(parse_puzzle("." * 81)))
    assert pick.name == "dfs" and pick.handoff is not None and pick.handoff[0] == "sat"
    pick = pick_solver("unique", build_model(parse_puzzle(KILLER)))
    assert pick.name == "dfsrules" and pick.handoff is not None and pick.handoff[0] == "sat"
    assert pick.solver.name == "dfsrules" and pick.solver is not SOLVERS["dfsrules"]


def test_a_next_engine_that_cannot_take_the_model_leaves_the_first_answer_and_says_why():
    import dataclasses

    model = build_model(parse_puzzle(KILLER))
    unable = dataclasses.replace(SOLVERS["sat"], name="unable", model_problem=lambda model: "pindakaas is missing")
    engine = handed_off(STUCK, unable, 0.2)
    result = engine.solve(model, check_unique=True)
    assert result.status == "time_limit" and result.solver == "stuck"
    assert result.message == "unable cannot take over: pindakaas is missing"
    assert "unable cannot take over" in engine.count(model, 2).message


def test_picking_dfsrules_does_not_ask_whether_sat_could_take_over(monkeypatch):
    """Asking imports the SAT encoders and scipy's sparse rows: a rule puzzle's `solve` paid
    0.16-0.25 s for it before dfsrules started; it is asked only when the search is handed on."""
    asked = []
    sat = SOLVERS["sat"]
    monkeypatch.setitem(SOLVERS, "sat", __import__("dataclasses").replace(
        sat, model_problem=lambda model: asked.append(model) or None))
    pick = pick_solver("unique", build_model(parse_puzzle(KILLER)))
    assert pick.name == "dfsrules" and pick.handoff is not None and asked == []


def _anyof_model():
    import json
    doc = {"size": 4, "rules": [{"rule": "anyof", "branches": [
        [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 7}], [{"rule": "thermo", "cells": ["r1c1", "r2c1"]}]]}]}
    return build_model(parse_puzzle(json.dumps(doc)))


@pytest.mark.parametrize("question", ["solve", "unique", "count"])
def test_an_anyof_puzzle_goes_to_cpsat_first_and_to_the_row_without_it(question, monkeypatch):
    """An anyof (ISS Or) is big-M rows CP-SAT searches far faster than sat or HiGHS (ANYOF_FIRST's
    measurements); without ortools auto keeps its row's order and says what is missing."""
    model = _anyof_model()
    if SOLVERS["cpsat"].available():   # the reason it cannot run: ortools is absent
        pick = pick_solver(question, model)
        assert pick.name == "sat" and "cpsat" in pick.note
    else:
        pick = pick_solver(question, model)
        assert pick.name == "cpsat" and "anyof" in pick.reason
        import dataclasses
        monkeypatch.setitem(SOLVERS, "cpsat", dataclasses.replace(SOLVERS["cpsat"],
                                                                 available=lambda: "is not installed (test)"))
        pick = pick_solver(question, model)
        assert pick.name != "cpsat" and "cpsat is not installed (test)" in pick.note
    plain = build_model(parse_puzzle("1" + "." * 15, box="2x2"))
    assert pick_solver(question, plain).name != "cpsat"   # only a model with the kind


def test_the_same_handoff_is_made_once_and_a_new_engine_gets_its_own():
    """batch asks auto's pick for each rule group: the entry is made once per (first, then, seconds),
    never reused for another engine object of the same name."""
    sat = SOLVERS["sat"]
    first = handed_off(STUCK, sat, 0.5)
    assert handed_off(STUCK, sat, 0.5) is first
    assert handed_off(STUCK, sat, 0.25) is not first
    again = Solver("stuck", "the same name, another engine", solve=_stuck, count=_stuck_count, rule_rows=True,
                   proves_unique=True)
    other = handed_off(again, sat, 0.5)
    assert other is not first and other.name == "stuck"
    result = other.solve(build_model(parse_puzzle(KILLER)), check_unique=True)
    assert result.solver == "sat" and result.solved and verify_grid(result.grid, parse_puzzle(KILLER))


def test_a_killer_hands_over_sooner_than_other_rule_puzzles():
    """A killer (cages with sums, a unit rule beside them at most) gets KILLER_BUDGET; a cage beside
    another rule, or a cage without a sum, keeps the rows' budget."""
    from pipeline.solvers.auto import DFSRULES_BUDGET, KILLER_BUDGET

    def budget(doc: str) -> float:
        pick = pick_solver("unique", build_model(parse_puzzle(doc)))
        assert pick.name == "dfsrules" and pick.handoff is not None
        return pick.handoff[1]

    assert KILLER_BUDGET < DFSRULES_BUDGET
    assert budget(KILLER) == KILLER_BUDGET
    assert budget(KILLER.replace('"rules": [', '"rules": [{"rule": "diagonal"}, ')) == KILLER_BUDGET
    assert budget(KILLER.replace('"rules": [', '"rules": [{"rule": "antiknight"}, ')) == DFSRULES_BUDGET
    assert budget('{"size": 4, "rules": [{"rule": "cage", "cells": ["r1c1", "r3c3"]}]}') == DFSRULES_BUDGET


def test_little_killer_clues_keep_dfsrules_longer():
    """With a little killer, dfsrules gets LITTLE_KILLER_BUDGET, cages beside it or not: on ISS's 29
    little-killer entries the SAT engine was never faster, and three handed on after 1 s ran into a
    60 s limit there (dfsrules: 1.8-3.2 s)."""
    from pipeline.solvers.auto import DFSRULES_BUDGET, LITTLE_KILLER_BUDGET

    def budget(doc: str) -> float:
        pick = pick_solver("unique", build_model(parse_puzzle(doc)))
        assert pick.name == "dfsrules" and pick.handoff is not None
        return pick.handoff[1]

    little = '{"rule": "littlekiller", "sum": 23, "cells": ["r1c4", "r2c3", "r3c2", "r4c1"], "clue": "r0c5"}'
    assert LITTLE_KILLER_BUDGET > DFSRULES_BUDGET
    cage = '{"rule": "cage", "cells": ["r5c5", "r5c6"], "sum": 3}'
    assert budget('{"size": 9, "rules": [' + cage + ']}') < DFSRULES_BUDGET   # a killer alone
    assert budget('{"size": 9, "rules": [' + cage + ", " + little + ']}') == LITTLE_KILLER_BUDGET
    assert budget('{"size": 9, "rules": [' + little + ']}') == LITTLE_KILLER_BUDGET


def test_rellik_and_look_and_say_cages_hand_over_as_soon_as_a_killer():
    """A rellik cage or a look-and-say clue gets KILLER_BUDGET, beside other rules too (ISS's Hazy
    Rellik has kropki dots: dfsrules 13-37 s, sat 0.07-0.15 s); a little killer beside it keeps
    LITTLE_KILLER_BUDGET, and an equality cage (dfsrules faster on ISS's) keeps the rows' budget."""
    from pipeline.solvers.auto import DFSRULES_BUDGET, KILLER_BUDGET, LITTLE_KILLER_BUDGET

    def budget(*rules: str) -> float:
        pick = pick_solver("unique", build_model(parse_puzzle('{"size": 9, "rules": [' + ", ".join(rules) + "]}")))
        assert pick.name == "dfsrules" and pick.handoff is not None
        return pick.handoff[1]

    rellik = '{"rule": "rellik", "sum": 8, "cells": ["r9c7", "r9c8"]}'
    look = '{"rule": "lookandsay", "clue": "1617", "cells": ["r3c1", "r2c1", "r1c1"]}'
    dot = '{"rule": "kropki", "color": "white", "cells": ["r5c6", "r5c7"]}'
    little = '{"rule": "littlekiller", "sum": 23, "cells": ["r1c4", "r2c3", "r3c2", "r4c1"], "clue": "r0c5"}'
    assert budget(dot) == DFSRULES_BUDGET
    assert budget(rellik) == budget(rellik, dot) == budget(look) == budget(dot, look) == KILLER_BUDGET
    assert budget(rellik, little) == LITTLE_KILLER_BUDGET
    assert budget('{"rule": "equalitycage", "cells": ["r1c1", "r1c2", "r2c1", "r2c2"]}') == DFSRULES_BUDGET


def test_the_pick_counts_against_auto_s_time_limit(monkeypatch):
    """auto's pick may build the rule rows (a published puzzle's took 2.4 s before any engine's
    clock started): the engine gets what the pick left, and a pick that took all of it answers
    time_limit at once, naming why."""
    import time

    from pipeline.solvers import auto

    model = build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "thermo", "cells": ["r1c1", "r1c2"]}]}'))
    real_pick = auto.pick_solver

    def slow_pick(*args, **kwargs):
        time.sleep(0.3)
        return real_pick(*args, **kwargs)
    monkeypatch.setattr(auto, "pick_solver", slow_pick)
    solved = auto.auto_solve(model, time_limit=0.2, check_unique=True)
    counted = auto.auto_count(model, 2, time_limit=0.2)
    assert (solved.status, solved.message, solved.grid) == ("time_limit", auto.PICKED_PAST_LIMIT, None)
    assert (counted.status, counted.message, counted.count) == ("time_limit", auto.PICKED_PAST_LIMIT, 0)
    given: list[float | None] = []
    real_check = auto.solve_checking_uniqueness

    def spying_check(engine, m, time_limit, *args, **kwargs):
        given.append(time_limit)
        return real_check(engine, m, time_limit, *args, **kwargs)
    monkeypatch.setattr(auto, "solve_checking_uniqueness", spying_check)
    solved = auto.auto_solve(model, time_limit=30.0, check_unique=True)
    assert solved.status == "optimal" and verify_grid(solved.grid, model.puzzle)
    assert len(given) == 1 and given[0] is not None and given[0] <= 29.7


#: An empty 16x16 jigsaw (its layout from ``generate --variant jigsaw --size 16 --seed 3``) that
#: dfs finds no solution of in 3.4 million nodes, while the SAT engine counts two in 0.2 s.
JIGSAW16 = Path(__file__).resolve().parents[1] / "data" / "rules" / "jigsaw16_dfs_stuck.json"


def _declaring_give_up(answers: list[tuple[int, float, bool]], heard: list[bool]) -> Solver:
    """An engine whose count asks its ``give_up`` at the (solutions, seconds) of ``answers`` and
    records what it said in ``heard``; it stops (time_limit) at the first True."""
    def count(model, limit=2, *, time_limit=None, keep=None, give_up=None):
        for found, spent, _ in answers:
            said = give_up(found, spent)
            heard.append(said)
            if said:
                return CountResult(found, [], "time_limit", spent)
        return CountResult(limit, [], "limit", 0.0)
    return Solver("asks", "a count that asks give_up", solve=_stuck, count=_stuck_count, count_or_give_up=count,
                  rule_rows=True)


def test_a_count_is_handed_on_only_past_its_budget_and_while_finding_few_grids():
    """Within the budget the search goes on; past it, one that lists ENUMERATING grids a second
    or more goes on (a large enumeration), one that finds fewer is handed on, and the answer
    says how many the first engine had found."""
    from pipeline.solvers.handoff import ENUMERATING

    answers = [(0, 0.5, False), (10 * ENUMERATING, 2.0, False), (2 * ENUMERATING, 2.0, False),
               (2 * ENUMERATING - 1, 2.0, True)]
    heard: list[bool] = []
    first = _declaring_give_up(answers, heard)
    assert "give_up" not in first.count_options   # not a user option
    model = build_model(parse_puzzle(KILLER))
    counted = handed_off(first, SOLVERS["sat"], 1.0).count(model, 1000, time_limit=60)
    assert heard == [said for *_, said in answers]
    assert counted.solver == "sat" and counted.count == SOLVERS["sat"].count(model, 1000).count
    assert counted.message == f"asks gave up after 2.00 s; sat counted (asks had found {2 * ENUMERATING - 1})"


def test_a_dfs_count_listing_grids_stays_with_dfs_even_past_its_budget():
    """An enumeration is dfs's strength (25,000 grids a second and more, the SAT engine 5,000)."""
    model = build_model(parse_puzzle("." * 81))
    counted = handed_off(SOLVERS["dfs"], SOLVERS["sat"], 0.0).count(model, 20_000, time_limit=60)
    assert (counted.count, counted.status, counted.solver) == (20_000, "limit", "")
    assert "gave up" not in counted.message


def test_a_dfs_count_stuck_in_search_is_counted_by_sat():
    """The empty 16x16 jigsaw: dfs finds nothing for minutes; past the budget the SAT engine counts."""
    model = build_model(parse_puzzle(JIGSAW16.read_text()))
    counted = handed_off(SOLVERS["dfs"], SOLVERS["sat"], 0.0).count(model, 2, time_limit=60)
    assert (counted.count, counted.status, counted.solver) == (2, "limit", "sat")
    assert counted.message.startswith("dfs gave up after ") and counted.message.endswith(" s; sat counted")
    assert all(verify_grid(grid, model.puzzle).ok for grid in counted.grids)


def test_the_count_that_gives_up_refuses_what_count_refuses():
    """dfs takes no rule rows: its count_or_give_up refuses a killer as its count does, never
    counting the grid without the cages."""
    from pipeline.core.errors import SolveError

    model = build_model(parse_puzzle(KILLER))
    with pytest.raises(SolveError) as counted:
        SOLVERS["dfs"].count(model, 2)
    with pytest.raises(SolveError) as gave_up:
        SOLVERS["dfs"].count_or_give_up(model, 2, give_up=lambda found, spent: False)
    assert str(gave_up.value) == str(counted.value)


def test_a_next_engine_out_of_time_with_fewer_solutions_leaves_the_first_count():
    """A count is a lower bound once stopped: the larger of the two stands."""
    def first_count(model, limit=2, *, time_limit=None, keep=None, give_up=None):
        assert give_up(5, 2.0)
        return CountResult(5, [], "time_limit", 2.0)

    def slow_count(model, limit=2, *, time_limit=None, keep=None):
        return CountResult(2, [], "time_limit", time_limit or 0.0)

    first = Solver("first", "finds 5 then gives up", solve=_stuck, count=_stuck_count, count_or_give_up=first_count,
                   rule_rows=True)
    slow = Solver("slow", "finds 2 in the time left", solve=_stuck, count=slow_count, rule_rows=True)
    counted = handed_off(first, slow, 1.0).count(build_model(parse_puzzle(KILLER)), 100, time_limit=60)
    assert (counted.count, counted.status) == (5, "time_limit")


def test_a_search_that_will_not_finish_in_its_budget_is_handed_on_early():
    """Past EARLIEST of its budget, a search whose own estimate of the tree searched says it would
    take more than HOPELESS budgets at its pace is handed on; one on course to finish goes on, and
    without an estimate (or with ``estimate=False``) only the budget counts."""
    from pipeline.solvers.handoff import EARLIEST, ENUMERATING, HOPELESS, stuck_after

    budget = 0.25
    soon = EARLIEST * budget                   # the first moment the estimate is heard
    hopeless = soon / (HOPELESS * budget) / 2  # at this share searched it would take 2 * HOPELESS budgets
    on_course = soon / budget                  # it would finish right at the budget
    stuck = stuck_after(budget)
    assert stuck(0, soon, hopeless)
    assert not stuck(0, soon, on_course)
    assert not stuck(0, soon * 0.9, hopeless)  # too soon to judge
    assert not stuck(0, soon, None)            # an engine without an estimate
    assert not stuck_after(budget, estimate=False)(0, soon, hopeless)
    assert stuck(0, budget, on_course) and stuck_after(budget, estimate=False)(0, budget, None)   # past the budget
    assert not stuck(int(ENUMERATING * soon) + 1, soon, hopeless)   # listing grids fast goes on


def test_the_handoffs_solve_hears_the_first_engines_estimate():
    """handed_off's solve calls the engine's solve_or_give_up with a give_up that weighs progress:
    told 'hopeless' early, the engine stops and the next one answers."""
    heard: list[bool] = []

    def solve_or_give_up(model, *, time_limit=None, check_unique=False, give_up=None):
        for spent, progress in ((0.01, 0.0), (0.05, 0.5), (0.06, 0.001)):
            heard.append(give_up(0, spent, progress))
            if heard[-1]:
                return SolveResult("time_limit", None, None, spent, 0, solver="guess")
        return SolveResult("time_limit", None, None, 0.25, 0, solver="guess")

    first = Solver("guess", "estimates its progress", solve=_stuck, count=_stuck_count, rule_rows=True,
                   proves_unique=True, solve_or_give_up=solve_or_give_up)
    model = build_model(parse_puzzle(KILLER))
    result = handed_off(first, SOLVERS["sat"], 0.25).solve(model, check_unique=True)
    assert heard == [False, False, True]
    assert result.solver == "sat" and result.solved and result.message.startswith("guess gave up after 0.06 s")
    heard.clear()
    handed_off(first, SOLVERS["sat"], 0.25, estimate=False).solve(model, check_unique=True)
    assert heard == [False, False, False]


def test_little_killers_are_not_handed_on_by_the_estimate():
    """A killer's pick hands on by the estimate too; one with little killer clues keeps its whole
    budget (dfsrules was never slower there)."""
    cage = '{"rule": "cage", "cells": ["r5c5", "r5c6"], "sum": 3}'
    little = '{"rule": "littlekiller", "sum": 23, "cells": ["r1c4", "r2c3", "r3c2", "r4c1"], "clue": "r0c5"}'
    killer = pick_solver("unique", build_model(parse_puzzle('{"size": 9, "rules": [' + cage + ']}')))
    both = pick_solver("unique", build_model(parse_puzzle('{"size": 9, "rules": [' + cage + ", " + little + ']}')))
    assert killer.handoff is not None and killer.handoff[2] is True
    assert both.handoff is not None and both.handoff[2] is False


def test_a_dfs_count_that_will_not_finish_is_handed_on_by_its_estimate():
    """dfs keeps a share of its tree per stack row too: on the empty 16x16 jigsaw (nothing found in
    minutes) its estimate hands the count to sat long before a budget of 5 s runs out."""
    model = build_model(parse_puzzle(JIGSAW16.read_text()))
    budget = 5.0
    counted = handed_off(SOLVERS["dfs"], SOLVERS["sat"], budget).count(model, 2, time_limit=60)
    assert (counted.count, counted.solver) == (2, "sat")
    gave_up_after = float(counted.message.removeprefix("dfs gave up after ").split(" s;")[0])
    assert gave_up_after < budget / 2


def test_a_next_engine_that_cannot_start_in_the_time_left_leaves_it_to_the_first():
    """The next engine answers time_limit without starting when its set-up alone would outlast the
    time left (a batch record of ISS's "Sandwich snipe 18" under load: sat's 21.7 s of loading
    past a 3 s limit). The first engine, which had started, goes on for the rest of the limit."""
    from pipeline.core.stops import too_long_to_start
    from pipeline.solvers.base import without_give_up

    calls: list[str] = []

    def first_count(model, limit=2, *, time_limit=None, keep=None, give_up=None):
        calls.append("gave up" if give_up is not None else f"went on with {time_limit:.0f} s")
        if give_up is not None:
            return CountResult(0, [], "time_limit", 0.2)
        return CountResult(1, [], "complete", 0.3)

    def first_solve(model, *, time_limit=None, check_unique=False, give_up=None):
        calls.append("solve gave up" if give_up is not None else "solve went on")
        if give_up is not None:
            return SolveResult("time_limit", None, None, 0.2, 0, solver="first")
        return SolveResult("infeasible", None, None, 0.3, 0, solver="first")

    unable = too_long_to_start("setting up the SAT engine", 21.7, 1_000_000)

    def cannot_start_count(model, limit=2, *, time_limit=None, keep=None):
        return CountResult(0, [], "time_limit", 0.0, message=unable)

    def cannot_start_solve(model, *, time_limit=None, check_unique=False):
        return SolveResult("time_limit", None, None, 0.0, 0, solver="late", message=unable)

    first = Solver("first", "gives up at once", solve=first_solve, count=without_give_up(first_count),
                   count_or_give_up=first_count,
                   solve_or_give_up=first_solve, rule_rows=True, proves_unique=True)
    late = Solver("late", "cannot start in time", solve=cannot_start_solve, count=cannot_start_count, rule_rows=True,
                  proves_unique=True)
    model = build_model(parse_puzzle(KILLER))
    counted = handed_off(first, late, 1.0).count(model, 2, time_limit=60)
    assert calls == ["gave up", "went on with 60 s"]
    assert (counted.count, counted.status) == (1, "complete")
    assert counted.message == f"first gave up after 0.2 s; late could not start ({unable}); first went on"
    calls.clear()
    solved = handed_off(first, late, 1.0).solve(model, time_limit=60)
    assert calls == ["solve gave up", "solve went on"] and solved.status == "infeasible"
    assert "late could not start" in solved.message
    calls.clear()   # without a time limit the next engine always starts: no second call
    assert handed_off(first, late, 1.0).count(model, 2).status == "time_limit" and calls == ["gave up"]
