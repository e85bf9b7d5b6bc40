"""rate and solve --steps: replaying the steps reaches the unique solution; no step removes a
candidate the solution uses or places a digit it lacks (solution from HiGHS, not the rater)."""
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from oracles import DATA_DIR, PROJECT, data_missing_reason
from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.tools.generate import generate
from pipeline.core.puzzle import parse_puzzle
from pipeline.tools.rate import (DIFFICULTIES, TECHNIQUES, _Rater, cage_fillings, human_steps, rate, replay,
                                 solved_by_easy_steps)
from pipeline.solvers.highs import solve


def check_invariants(puzzle, solution=None):
    if solution is None:
        solution = solve(build_model(puzzle)).grid
    rating = rate(puzzle)
    assert rating.solved
    grid, cand = replay(puzzle, rating.steps)
    assert (grid == solution).all()
    for s in rating.steps:
        if s.digit is not None:
            r, c = s.cells[0]
            assert solution[r, c] == s.digit, s.text()
        for r, c, d in s.removed:
            assert solution[r, c] != d, s.text()
    assert rating.counts["guess"] == rating.guesses == sum(s.technique == "guess" for s in rating.steps)
    assert rating.label in DIFFICULTIES and rating.unique is True
    return rating


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), shape=st.sampled_from([(None, 4, "classic"), ("2x3", None, "classic"),
                                                          (None, 9, "classic"), (None, 9, "x"),
                                                          (None, 6, "jigsaw"), (None, 7, "latin")]))
def test_invariants_on_generated(seed, shape):
    box, size, variant = shape
    check_invariants(next(generate(box=box, size=size, variant=variant, seed=seed)).puzzle)


def test_invariants_16x16():
    check_invariants(next(generate(size=16, seed=3)).puzzle)


@pytest.mark.skipif(data_missing_reason() is not None, reason=str(data_missing_reason()))
def test_invariants_on_norvig_top95():
    lines = (DATA_DIR / "sets" / "9x9_norvig_top95.txt").read_text().split()
    labels = [check_invariants(parse_puzzle(x)).label for x in lines[:20]]
    assert set(labels) <= set(DIFFICULTIES)


def test_every_technique_below_guess_is_used_somewhere():
    counts = dict.fromkeys(TECHNIQUES, 0)
    for g in generate(size=9, seed=1, count=30):
        for k, v in check_invariants(g.puzzle).counts.items():
            counts[k] += v
    assert counts["naked single"] > 0 and counts["hidden single"] > 0
    assert counts["pointing"] + counts["claiming"] > 0
    assert counts["naked pair"] + counts["hidden pair"] > 0


def test_no_solution_is_reported():
    r = rate(parse_puzzle("12.." "..3." ".3.." "....", box="2x2"))
    assert not r.solved and r.label == "no solution" and r.solution is None


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, cwd=PROJECT)


def test_rate_and_solve_steps_cli():
    g = next(generate(size=9, seed=12))
    puzzle = g.puzzle.to_string()
    r = run_cli("rate", puzzle, "--format", "json", "--steps")
    assert r.returncode == 0, r.stderr
    rating = json.loads(r.stdout)
    s = run_cli("solve", puzzle, "--steps", "--format", "json")
    assert s.returncode == 0, s.stderr
    out = json.loads(s.stdout)
    assert out["steps"] == rating["steps"] and out["rating"]["label"] == rating["label"]
    grid = np.array(g.puzzle.grid)
    for step in out["steps"]:
        if step["digit"] is not None:
            grid[tuple(step["cells"][0])] = step["digit"]
    assert (grid == np.array(out["grid"])).all()
    text = run_cli("solve", puzzle, "--steps")
    assert text.returncode == 0 and "rating: " in text.stdout
    assert run_cli("rate", "12.....3.3......", "--box", "2x2").returncode == 1


def test_minimal_25x25_is_rated_by_guessing_the_solution():
    # trial-and-error guessing with the whole ladder at every node never ended on these; the
    # rater now guesses the solver's digit, so it needs one ladder pass per step
    row = pd.read_csv(DATA_DIR / "sets" / "25x25_gecode.ref.csv").iloc[2]   # HiGHS takes minutes here
    puzzle = parse_puzzle(row["puzzle"])
    reference = parse_puzzle(row["solution"], size=25).grid
    rating = check_invariants(puzzle, reference)
    assert rating.label == "expert" and rating.guesses > 0
    assert rating.steps[-1].technique != "guess" or rating.guesses == len(rating.steps)


def test_given_solution_gives_the_same_steps_and_a_wrong_one_is_refused():
    g = next(generate(size=9, seed=4))
    found, given = rate(g.puzzle), rate(g.puzzle, g.solution, unique=True)
    assert [s.to_dict() for s in found.steps] == [s.to_dict() for s in given.steps]
    wrong = g.solution.copy()
    wrong[0, [0, 1]] = wrong[0, [1, 0]]
    with pytest.raises(PuzzleError, match="^solution: "):
        rate(g.puzzle, wrong)


def test_several_solutions_are_said():
    text = "1..." + "." * 12
    rating = rate(parse_puzzle(text))
    assert rating.solved and rating.unique is False and "several solutions" in rating.text()
    r = run_cli("rate", text)
    assert r.returncode == 0 and "more than one solution" in r.stderr
    assert rate(next(generate(size=4, seed=2)).puzzle).unique is True


@pytest.mark.parametrize("command", ["rate", "explain"])
def test_time_limit_stops_the_whole_command_with_one_line(command):
    # the first vendored minimal 25x25 takes seconds to solve: half a second stops it
    line = (DATA_DIR / "sets" / "25x25_gecode.txt").read_text().split()[0]
    r = run_cli(command, line, "--time-limit", "0.5")
    assert r.returncode == 1 and r.stdout == "" and r.stderr == f"{command}: no answer: time limit of 0.5 s reached\n"
    r = run_cli(command, line, "--time-limit", "0.5", "--format", "json")
    assert r.returncode == 1 and json.loads(r.stdout)["status"] == "time_limit"
    r = run_cli(command, line, "--time-limit", "nan")
    assert r.returncode == 2 and "--time-limit: must be a finite number" in r.stderr
    ok = run_cli(command, "1.3." "..1." ".3.." "...3", "--box", "2x2", "--time-limit", "60")
    assert ok.returncode == 0, ok.stderr


@settings(max_examples=40, deadline=None)
@given(shape=st.sampled_from([(4, None), (6, None), (9, None), (9, "antiknight")]), seed=st.integers(0, 10_000),
       keep=st.floats(0.2, 0.9))
def test_solved_by_easy_steps_is_what_rate_labels_easy(shape, seed, keep):
    """The test generate's easy removal uses agrees with rate, on clue subsets of a full grid
    (unique or not: several solutions need a guess, which is never easy)."""
    n, rule = shape
    rules = [{"rule": rule}] if rule else None
    full = next(generate(size=n, seed=seed % 50, full=True, rules=rules))
    rng = np.random.default_rng(seed)
    grid = np.where(rng.random((n, n)) < keep, full.solution, 0)
    doc = {"size": n, "givens": [f"r{r + 1}c{c + 1}={grid[r, c]}" for r, c in zip(*np.nonzero(grid))]}
    if rules:
        doc["rules"] = rules
    puzzle = parse_puzzle(doc)
    assert solved_by_easy_steps(puzzle)(puzzle.grid) == (rate(puzzle).label == "easy")


def test_a_rectangular_grid_is_refused_by_the_rater_in_one_line_and_explained_unrated(capsys):
    """rate, solve --steps and explain of a unique 6x8 ended in a numpy traceback: the rater's
    units are of one length."""
    from pipeline.cli.main import main
    from pipeline.tools.explain import explain

    full = "135724682468135731754286428631755713682468245713"   # a 6x8 grid (2x4 boxes)
    doc = f'{{"size": "6x8", "givens": "{full}"}}'
    for argv in (["rate", doc], ["solve", doc, "--steps"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err == ("error: rate: a 6x8 grid has no human-technique steps or rating yet (the techniques take units "
                       "of one length); solve and count take it\n"), err
    found = explain(parse_puzzle(doc))
    assert found.status == "unique" and found.rating is None
    assert found.text().endswith("not a value set or a rectangle)")


def test_a_puzzle_without_a_solution_is_labelled_on_stdout_and_said_why_on_stderr(capsys):
    """Both streams said only 'no solution'."""
    from pipeline.cli.main import main

    assert main(["rate", "12.....3.3......", "--box", "2x2"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("no solution") and err == "no solution: the puzzle has none, so no rating\n"


def test_a_value_set_is_refused_in_one_line_that_names_the_values_once():
    """An outside probe: the line said "values 0..8" twice (the summary names them already)."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-m", "pipeline", "rate", ".Shape~6x6~0-8.~R1C1_0"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == ("error: rate: a puzzle with a value set (6x6 classic, values 0..8, 1 clue) is not rated: "
                           "the techniques name the digits 1..N\n")


@settings(max_examples=60, deadline=None)
@given(data=st.data(), distinct=st.booleans())
def test_cage_fillings_are_what_brute_force_lists(data, distinct):
    import itertools
    n = data.draw(st.sampled_from([4, 6, 9]))
    k = data.draw(st.integers(1, 4))
    cand = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=k, max_size=k)))
    total = data.draw(st.integers(k, k * n))
    values = list(range(1, n + 1))
    fillings = [f for f in itertools.product(*[np.flatnonzero(row).tolist() for row in cand])
                if sum(values[d] for d in f) == total and (not distinct or len(set(f)) == k)]
    allowed, needed = cage_fillings(cand, total, values, distinct)
    want = np.zeros_like(cand)
    for f in fillings:
        want[np.arange(k), list(f)] = True
    assert (allowed == want).all()
    if distinct and fillings:
        assert needed == functools_and([sum(1 << d for d in f) for f in fillings])
    else:
        assert needed == 0


def functools_and(masks):
    out = -1
    for m in masks:
        out &= m
    return out


def test_the_45_rule_knows_a_row_s_innies_and_outies():
    """Row 1 of a 4x4 adds up to 10: a cage of three of its cells leaves the fourth (innies); the
    cages row 2 touches cover it and reach into row 3 (outies)."""
    puzzle = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "cage", "cells": ["r1c1", "r1c2", "r1c3"], "sum": 6},
        {"rule": "cage", "cells": ["r2c1", "r2c2"], "sum": 7}, {"rule": "cage", "cells": ["r2c3", "r2c4", "r3c4"], "sum": 7}]})
    virtual = {(tuple(int(c) for c in cells), total, distinct) for cells, total, _, distinct in _Rater(puzzle).virtual_cages}
    assert ((3,), 4, True) in virtual       # r1c4: 10 - 6
    assert ((11,), 4, True) in virtual      # r3c4: 7 + 7 - 10, the outie of row 2
    assert ((3, 6, 7), 7, True) in virtual   # rows 1-2: 20 - 6 - 7, three cells of one box
    assert not any(3 in cells and 11 in cells for cells, _, _ in virtual)


def test_a_killer_without_givens_is_rated_by_cage_combinations_and_the_45_rule():
    """A generated 9x9 of 23 cages and no givens: the rater guessed on every such puzzle before."""
    puzzle = parse_puzzle(str(PROJECT / "tests" / "data" / "rules" / "killer9_cages_only.json"))
    rating = check_invariants(puzzle)
    assert rating.guesses == 0 and rating.label == "medium"
    assert rating.counts["cage combination"] > 0 and rating.counts["45 rule"] > 0
    steps = [s for s in rating.steps if s.technique == "45 rule"]
    assert all(s.rule and ("innies" in s.rule or "outies" in s.rule) for s in steps)


@pytest.mark.parametrize("tool", ["rate", "explain"])
@pytest.mark.parametrize("count, status", [(0, "time_limit"), (1, "time_limit"), (0, "stopped")])
def test_a_count_cut_short_is_never_read_as_the_answer(tool, count, status, monkeypatch):
    """rate and explain read their count as the answer: one the time limit cut short (0 found, or
    1 before the proof) is not 'no solution' nor 'unique' but the command's time-limit stop, and
    another stop is a SolveError naming the tool; a finished count is read as before."""
    from pipeline.core.errors import SolveError
    from pipeline.core.stops import DeadlineReached
    from pipeline.solvers import CountResult
    from pipeline.tools import explain as explain_module, rate as rate_module

    puzzle = parse_puzzle("1.3." "..1." ".3.." "...3", box="2x2")
    (grid,) = rate_module.auto_count(build_model(puzzle), 2, keep=1).grids   # its one solution
    cut = CountResult(count, [grid][:count], status, 2.0)
    module = rate_module if tool == "rate" else explain_module
    monkeypatch.setattr(module, "auto_count", lambda model, limit, keep=None, time_limit=None: cut)
    run = (lambda: rate_module.rate(puzzle)) if tool == "rate" else (lambda: explain_module.explain(puzzle))
    with pytest.raises(DeadlineReached if status == "time_limit" else SolveError) as stopped:
        run()
    if status != "time_limit":
        assert str(stopped.value) == f"{tool}: the count stopped (stopped) before it could tell"
    whole = CountResult(1, [grid], "complete", 0.1)
    monkeypatch.setattr(module, "auto_count", lambda model, limit, keep=None, time_limit=None: whole)
    assert (run().solved if tool == "rate" else run().status == "unique")


@pytest.mark.parametrize("call, words", [
    (lambda p: rate("examples/puzzle.txt"), "rate: takes a Puzzle (read one with read_puzzle), found str"),
    (lambda p: rate(p, unique="x"), "unique: must be True, False or None, found 'x'"),
    # a solution of non-integers raised IndexError ("arrays used as indices must be of integer
    # type"), NaN a ValueError, a ragged list a ValueError; 5 said "grid is , puzzle is 4x4"
    (lambda p: rate(p, solution=np.full((4, 4), 2.5)),
     "solution: an array of digit indices 1..V, rows x columns (as solve's result.grid), found 2-d float64"),
    (lambda p: rate(p, solution=np.full((4, 4), np.nan)),
     "solution: an array of digit indices 1..V, rows x columns (as solve's result.grid), found 2-d float64"),
    (lambda p: rate(p, solution=5),
     "solution: an array of digit indices 1..V, rows x columns (as solve's result.grid), found 0-d int64"),
])
def test_rate_refuses_what_is_not_a_puzzle_in_one_line(call, words):
    # "'str' object has no attribute 'values'"; unique="x" came back as the rating's unique
    with pytest.raises(PuzzleError) as err:
        call(parse_puzzle("1.3." "..1." ".3.." "...3", box="2x2"))
    assert str(err.value) == words


def test_rate_takes_a_solution_of_whole_floats():
    puzzle = parse_puzzle("1.3." "..1." ".3.." "...3", box="2x2")
    solution = solve(build_model(puzzle)).grid
    assert rate(puzzle, solution=solution.astype(float)).solved


def test_human_steps_refuses_an_unknown_fmt():
    """An outside probe: human_steps(P, fmt='xml') answered in text without a word."""
    puzzle = parse_puzzle("1" + "0" * 15)
    with pytest.raises(PipelineError, match=r"^human_steps: fmt must be one of text, json, found 'xml'$"):
        human_steps(puzzle, fmt="xml")
    assert human_steps(puzzle, fmt="text").splitlines()[-1].startswith("rating: ")
    assert set(human_steps(puzzle, fmt="json")) == {"steps", "rating"}


def test_a_cage_over_extra_cells_is_left_to_the_guesses():
    """A killer cage over ISS ``Var`` cells (outside the grid) has no candidates to combine: rate
    raised IndexError (index 16 is out of bounds) in the cage combination technique."""
    puzzle = parse_puzzle(".Shape~4x4.Var~S~~2.Var~T~top.Cage~8~R1C1~VS1~VS2.Thermo~VT~R1C2~R2C2.~VS1_3_4")
    rating = rate(puzzle)
    assert rating.solved and rating.unique is False and "cage combination" not in rating.counts
    grid, _ = replay(puzzle, rating.steps)
    assert (grid == rating.solution).all() and (grid > 0).all()
