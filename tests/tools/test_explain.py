"""explain: minimal conflict sets really are infeasible and minimal (brute removal); the fewest
removals (RC2 and HiGHS agree on the number) make the puzzle solvable; several solutions get a
set of clues that makes them unique; the counts of the tdoku test file agree."""
import csv
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from oracles import DATA_DIR, PROJECT, data_missing_reason
from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.tools.explain import explain, fewest_removals, minimal_conflict
from pipeline.tools.generate import count_up_to, generate
from pipeline.core.puzzle import Puzzle, parse_puzzle


def only(p, clues):
    grid = np.zeros_like(np.asarray(p.grid))
    for r, c, d in clues:
        grid[r, c] = d
    return Puzzle(grid, p.h, p.w, p.variant, p.regions)


def make_infeasible(p: Puzzle, rng) -> Puzzle | None:
    """Change one clue of a unique puzzle so that no rule breaks directly but no solution is left."""
    for cell in rng.permutation(np.flatnonzero(p.grid)):
        for d in rng.permutation(p.n) + 1:
            grid = np.array(p.grid)
            grid.flat[cell] = d
            try:
                q = Puzzle(grid, p.h, p.w, p.variant, p.regions)
            except PuzzleError:
                continue
            if count_up_to(q, 1) == 0:
                return q
    return None


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), shape=st.sampled_from([(None, 9, "classic"), ("2x3", None, "classic"),
                                                          (None, 6, "jigsaw"), (None, 9, "x")]))
def test_conflict_set_is_infeasible_and_minimal(seed, shape):
    box, size, variant = shape
    p = next(generate(box=box, size=size, variant=variant, seed=seed)).puzzle
    q = make_infeasible(p, np.random.default_rng(seed))
    if q is None:  # every single change breaks a rule directly: nothing to explain beyond that
        assert all(count_up_to(p, 2) == 1 for _ in [0])
        return
    e = explain(q)
    assert e.status == "infeasible" and e.conflict
    assert count_up_to(only(q, e.conflict), 1) == 0  # infeasible
    for i in range(len(e.conflict)):  # minimal, by brute removal
        assert count_up_to(only(q, e.conflict[:i] + e.conflict[i + 1:]), 1) >= 1
    # one changed clue: removing one clue suffices, and nothing fewer (0) does
    assert len(e.remove) == 1 and e.maxsat == "rc2"
    assert len(fewest_removals(q, "highs")) == 1
    kept = [x for x in zip(*np.nonzero(q.grid), q.grid[np.nonzero(q.grid)])]
    kept = [(int(r), int(c), int(d)) for r, c, d in kept if (r, c, d) not in set(e.remove)]
    assert count_up_to(only(q, kept), 1) >= 1


def test_fewest_removals_two_conflicts():
    # two independent conflicts need two removals; both methods prove the same optimum
    p = Puzzle(np.array([[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 0], [0, 0, 0, 0]]), 2, 2)
    assert minimal_conflict(p) and count_up_to(only(p, minimal_conflict(p)), 1) == 0
    g = np.array([[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 1, 2], [3, 0, 0, 0]])
    q = Puzzle(g, 2, 2)
    assert count_up_to(q, 1) == 0
    rc2, highs = fewest_removals(q, "rc2"), fewest_removals(q, "highs")
    assert len(rc2) == len(highs)
    for removal in (rc2, highs):
        left = [(r, c, int(g[r, c])) for r, c in zip(*np.nonzero(g)) if (r, c, int(g[r, c])) not in removal]
        assert count_up_to(only(q, left), 1) >= 1
    for k in range(len(rc2)):  # nothing smaller works: every subset of one size less stays infeasible
        import itertools
        clues = [(int(r), int(c), int(g[r, c])) for r, c in zip(*np.nonzero(g))]
        for drop in itertools.combinations(clues, k):
            assert count_up_to(only(q, [x for x in clues if x not in drop]), 1) == 0


def test_invalid_multiple_unique():
    e = explain("11" + "." * 79)
    assert e.status == "invalid" and "twice" in e.message
    assert e.conflict == [(0, 0, 1), (0, 1, 1)] and len(e.remove) == 1 and e.remove[0] in e.conflict
    two = explain("11" + "." * 7 + "2" + "." * 8 + "2" + "." * 62)  # two separate breaks: two removals
    assert two.status == "invalid" and len(two.remove) == 2
    g = next(generate(size=9, seed=9))
    u = explain(g.puzzle)
    assert u.status == "unique" and u.rating["label"] and "rating:" in u.text()
    grid = np.array(g.puzzle.grid)
    grid.flat[np.flatnonzero(grid)[:4]] = 0
    p = Puzzle(grid, 3, 3)
    e = explain(p)
    assert e.status == "multiple" and e.count == count_up_to(p, 100) and e.differing_cells
    added = np.array(grid)
    for r, c, d in e.add:
        assert added[r, c] == 0 and ((r, c) in e.differing_cells or e.count_capped)
        added[r, c] = d
    assert count_up_to(Puzzle(added, 3, 3), 2) == 1
    assert "greedy" in e.text()


def test_count_is_capped():
    e = explain("." * 16, box="2x2", cap=10)
    assert e.status == "multiple" and e.count == 10 and e.count_capped and "at least 10" in e.text()
    # the cells listed are those the solutions found differ in: a cell outside may differ in others
    assert f"cells where they differ ({len(e.differing_cells)}, among the 10 solutions found): " in e.text()
    assert ", among the" not in explain("12.." "34.." "...." "....", box="2x2").text()


@pytest.mark.skipif(data_missing_reason() is not None, reason=str(data_missing_reason()))
def test_tdoku_counts():
    with open(DATA_DIR / "sets" / "9x9_tdoku_test_counts.csv") as f:
        rows = list(csv.DictReader(f))
    zero = 0
    for row in rows:
        want = int(row["n_solutions"])
        e = explain(row["puzzle"], cap=max(want, 1) + 1)
        if want == 0:
            zero += 1
            assert e.status in ("invalid", "infeasible") and e.count == 0
            if e.status == "infeasible":
                assert count_up_to(only(Puzzle(np.zeros((9, 9), dtype=int), 3, 3), e.conflict), 1) == 0
        else:
            assert e.count == want and not e.count_capped
            assert e.status == ("unique" if want == 1 else "multiple")
    assert zero == 10


def test_cli_text_and_json_and_exit_codes():
    run = [sys.executable, "-m", "pipeline", "explain"]
    r = subprocess.run(run + ["12.....3.3......", "--box", "2x2"], capture_output=True, text=True, cwd=PROJECT)
    assert r.returncode == 1 and "minimal conflicting clues" in r.stdout
    r = subprocess.run(run + ["1234" "3412" "...." "....", "--box", "2x2", "--format", "json"],
                       capture_output=True, text=True, cwd=PROJECT)
    d = json.loads(r.stdout)
    assert r.returncode == 0 and d["status"] == "multiple" and d["add_method"] == "greedy" and d["count"] >= 2


def test_verbose_says_the_first_count_is_autos_and_the_rest_sats():
    r = subprocess.run([sys.executable, "-m", "pipeline", "explain", "1234" "3412" "...." "....", "--box", "2x2",
                        "--verbose"], capture_output=True, text=True, cwd=PROJECT)
    said = [s for s in r.stderr.splitlines() if s.startswith("solver:")]
    assert r.returncode == 0 and len(said) == 2, r.stderr
    assert said[0].startswith("solver: auto picked sat (counting")
    assert said[1].startswith("solver: explain's first count goes to auto's pick for the puzzle")


def test_named_sat_counts_with_sat_and_auto_with_autos_pick(monkeypatch):
    """``solver="sat"`` makes every count the SAT engine's (auto's pick is never asked); the
    default asks it, and both give the same answer on a rule puzzle with several solutions."""
    import pipeline.tools.explain as explain_module
    p = Puzzle(np.zeros((4, 4), dtype=int), 2, 2)
    thermo = [{"rule": "thermo", "cells": ["r1c1", "r1c2", "r1c3"]}]
    text = "1..." "...." "...." "...."
    asked = []
    real = explain_module.auto_count
    monkeypatch.setattr(explain_module, "auto_count", lambda *a, **k: asked.append(1) or real(*a, **k))
    named = explain(text, box="2x2", rules=thermo, solver="sat")
    assert asked == [] and named.status == "multiple"
    picked = explain(text, box="2x2", rules=thermo)
    assert asked and (picked.status, picked.count) == (named.status, named.count)
    assert explain(p, solver="sat").count == explain(p).count
    with pytest.raises(PuzzleError, match="solver: explain counts with one of auto, sat, not 'highs'"):
        explain(p, solver="highs")


def test_verbose_with_named_sat_does_not_say_auto_counts():
    r = subprocess.run([sys.executable, "-m", "pipeline", "explain", "1234" "3412" "...." "....", "--box", "2x2",
                        "--solver", "sat", "--verbose"], capture_output=True, text=True, cwd=PROJECT)
    assert r.returncode == 0 and "auto's pick" not in r.stderr and "auto picked" not in r.stderr, r.stderr


@pytest.mark.parametrize("solver", ["auto", "sat"])
@pytest.mark.parametrize("values, cage_sum", [("0-3", 5), ("1-4", 7), ("2-5", 9)])
def test_clues_to_add_with_a_value_set_make_it_unique(solver, values, cage_sum):
    """A value set's cage sums are in values: the clue counter's shape keeps the value set (it read
    the sums as digits 1..N, counted no solution and added no clue for 0-3)."""
    from pipeline.core.puzzle import parse_puzzle
    low = int(values[0])
    doc = {"size": 4, "values": values, "givens": f"{low} {low + 1} . . | . . . . | . . . . | . . . .",
           "rules": [{"rule": "cage", "cells": ["r1c3", "r1c4"], "sum": cage_sum}]}
    e = explain(json.dumps(doc), solver=solver)
    assert e.status == "multiple" and e.add, e
    grid = [row.split() for row in doc["givens"].split(" | ")]
    for r, c, value in e.add:
        grid[r][c] = str(value)
    doc["givens"] = " | ".join(" ".join(row) for row in grid)
    assert count_up_to(parse_puzzle(json.dumps(doc)), 2) == 1


@pytest.mark.parametrize("solver", ["auto", "sat"])
def test_a_rule_on_an_extra_cell_is_explained(solver):
    """Rules may name extra cells outside the grid: the clue counter's shape keeps them (it
    raised IndexError), and the clues it adds make the puzzle unique."""
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.solvers.auto import auto_count
    doc = {"size": 4, "givens": "1" + "." * 15, "extra": [{"name": "S", "size": 1}],
           "rules": [{"rule": "cage", "cells": ["r1c2", "S"], "sum": 7}]}
    p = parse_puzzle(json.dumps(doc))
    assert count_up_to(p, 1000) == auto_count(build_model(p), 1000).count == 48
    e = explain(json.dumps(doc), solver=solver)
    assert e.status == "multiple" and e.count == 48 and e.add
    grid = list(doc["givens"])
    for r, c, value in e.add:
        grid[4 * r + c] = str(value)
    assert count_up_to(parse_puzzle(json.dumps({**doc, "givens": "".join(grid)})), 2) == 1


def _count(doc: dict) -> int:
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.solvers.auto import auto_count
    return auto_count(build_model(parse_puzzle(json.dumps(doc))), 2).count


@pytest.mark.parametrize("solver", ["auto", "sat"])
@pytest.mark.parametrize("values, cage_sum", [("0-3", 4), ("2-5", 8), ("1-4", 6)])
def test_a_value_set_conflict_is_infeasible_and_minimal(solver, values, cage_sum):
    """The conflict over clues and rules of a value-set puzzle is checked by counting: its members
    alone have no solution, and without any one of them they have (the rule engine read the cage
    sum as digits 1..N and named the cage alone)."""
    low = int(values[0])
    doc = {"size": 4, "values": values, "givens": f"{low} {low + 1} . . | . . . . | . . . . | . . . .",
           "rules": [{"rule": "cage", "cells": ["r1c3", "r1c4"], "sum": cage_sum}]}
    assert _count(doc) == 0
    e = explain(json.dumps(doc), solver=solver)
    assert e.status == "infeasible" and e.conflict_rule_numbers == [[1]]

    def only(clues, keep_cage):
        rows = [["."] * 4 for _ in range(4)]
        for r, c, value in clues:
            rows[r][c] = str(value)
        return {**doc, "givens": " | ".join(" ".join(row) for row in rows), "rules": doc["rules"] if keep_cage else []}
    assert _count(only(e.conflict, True)) == 0
    assert _count(only(e.conflict, False)) > 0
    assert all(_count(only([x for x in e.conflict if x != drop], True)) > 0 for drop in e.conflict)


def test_an_infeasible_puzzle_with_extra_cells_says_what_is_not_explained():
    """A rule on an extra cell, no solution: the status and one line saying no conflict set is
    made for extra cells (the rule engine raised IndexError, then ValueError); exit 1."""
    doc = {"size": 4, "givens": "1 2 . . | . . . . | . . . . | . . . .", "extra": [{"name": "S", "size": 2}],
           "rules": [{"rule": "cage", "cells": ["r1c2", "S1"], "sum": 3},
                     {"rule": "cage", "cells": ["r1c1", "S1"], "sum": 5}]}
    assert _count(doc) == 0
    from pipeline.tools.explain import NO_CONFLICTS_WITH_EXTRA_CELLS
    e = explain(json.dumps(doc))
    assert e.status == "infeasible" and e.message == NO_CONFLICTS_WITH_EXTRA_CELLS and e.conflict == []
    r = subprocess.run([sys.executable, "-m", "pipeline", "explain", json.dumps(doc)], capture_output=True, text=True,
                       cwd=PROJECT)
    assert r.returncode == 1 and r.stdout == f"no solution: {NO_CONFLICTS_WITH_EXTRA_CELLS}\n" and not r.stderr


def test_more_values_than_the_side_conflict_and_removals_are_checked_by_counting():
    """Values 0-4 on a 4x4 (each unit holds four of five): the rule engine's cage sums range over
    all five values (it took the first four and named a satisfiable cage alone)."""
    doc = {"size": 4, "values": "0-4", "givens": "0 1 . . | . . . . | . . . . | . . . .",
           "rules": [{"rule": "cage", "cells": ["r1c3", "r1c4"], "sum": 7},
                     {"rule": "cage", "cells": ["r2c3", "r2c4"], "sum": 7}]}
    assert _count(doc) == 0
    e = explain(json.dumps(doc))

    def keep(clues, rule_numbers):
        rows = [["."] * 4 for _ in range(4)]
        for r, c, value in clues:
            rows[r][c] = str(value)
        return {**doc, "givens": " | ".join(" ".join(row) for row in rows),
                "rules": [doc["rules"][k - 1] for group in rule_numbers for k in group]}
    conflict = [("clue", x) for x in e.conflict] + [("rule", g) for g in e.conflict_rule_numbers]

    def members(kept):
        return keep([x for kind, x in kept if kind == "clue"], [g for kind, g in kept if kind == "rule"])
    assert _count(members(conflict)) == 0
    assert all(_count(members([m for m in conflict if m != drop])) > 0 for drop in conflict)
    given = [(0, 0, 0), (0, 1, 1)]
    removed_rules = {k for group in e.remove_rule_numbers for k in group}
    left = keep([x for x in given if x not in e.remove], [[k] for k in (1, 2) if k not in removed_rules])
    assert _count(left) > 0 and len(e.remove) + len(e.remove_rule_numbers) == 1


def test_a_bad_cap_names_the_keyword_in_the_api():
    """``explain(cap=0)`` names its keyword; ``explain --cap 0`` its option (tests/cli/test_cli_option_values.py)."""
    with pytest.raises(PuzzleError) as err:
        explain("." * 16, box="2x2", cap=0)
    assert str(err.value) == "cap: must be an integer of at least 2, found 0" and err.value.option == "cap"


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_rule_numbers_are_the_documents_places_whatever_the_row_order(order):
    """The puzzle keeps its rules in row order (greater before xv): explain numbered that order,
    so the V named rule 2 was rule 1 of the document, in either order (an outside check)."""
    rules = [{"rule": "xv", "cells": ["r1c3", "r2c3"], "letter": "v"}, {"rule": "greater", "cells": ["r3c2", "r2c2"]}]
    doc = {"size": 4, "box": "2x2", "givens": "..2..1.3.2.4...2", "rules": [rules[k] for k in order]}
    e = explain(json.dumps(doc))
    assert e.status == "infeasible" and e.conflict_rules == ["V r1c3-r2c3"]
    place = order.index(0) + 1   # where the V stands in this document
    assert e.conflict_rule_numbers == [[place]] and e.remove_rule_numbers == [[place]]
    assert doc["rules"][place - 1]["rule"] == "xv"


def test_identical_rules_are_numbered_as_the_document_lists_them():
    """An anti-knight first, then the same cage twice: the two cages are rules 2 and 3."""
    cage = {"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}
    doc = {"size": 4, "box": "2x2", "givens": "3...............", "rules": [{"rule": "antiknight"}, cage, dict(cage)]}
    assert _count(doc) == 0
    e = explain(json.dumps(doc))
    assert e.conflict_rule_numbers == [[2, 3]]
    assert e.conflict_rules == ["cage r1c1..r1c2 (sum 3) (rules 2 and 3, the same)"]


def test_cli_explain_too_large_advises_only_what_explain_can_change(monkeypatch, capsys):
    # explain has no --amo and counts with sat alone: "--amo seqcounter" and "another --solver"
    # were advice it could not take
    monkeypatch.setenv("SUDOKU_PIPELINE_MAX_BYTES", "2e8")
    assert main(["explain", '{"size": 36}']) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs about" in err, err
    assert err.rstrip().endswith("(set SUDOKU_PIPELINE_MAX_BYTES to allow more)"), err


@pytest.mark.parametrize("kwargs, words", [
    ({"cap": None}, "cap: must be an integer of at least 2, found None"),
    ({"cap": 2.5}, "cap: must be an integer of at least 2, found 2.5"),
    ({"cap": "3"}, "cap: must be an integer of at least 2, found '3'"),
    ({"foo": 1}, "explain: unknown option 'foo' (the puzzle's options: box, regions, rules, size, variant)"),
])
def test_explain_api_options_are_checked_in_one_line(kwargs, words):
    # a TypeError from deep inside (shape_and_clues, islice, '<' between str and int)
    with pytest.raises(PuzzleError) as err:
        explain("12.....3.3......", box="2x2", **kwargs)
    assert str(err.value) == words


def test_explain_of_a_read_puzzle_refuses_options_that_read_text():
    # explain(p, box="2x2") ignored the box without a word
    p = parse_puzzle("12.....3.3......", box="2x2")
    with pytest.raises(PuzzleError, match=r"^explain: box is for reading text; this puzzle is read already$"):
        explain(p, box="2x2")
    assert explain(p, box=None).status == "infeasible"


def test_the_unsat_core_is_searched_in_slices(monkeypatch):
    """The core's solve calls ran whole: an infeasible 25x25 held a 5 s --time-limit to 13.9 s
    and Ctrl-C for seconds. They go through run_sliced now, whose slices let the command's alarm
    and Ctrl-C in between two."""
    import pipeline.tools.explain as explain_module
    calls = []

    def spying(solver, assumptions=(), deadline=None):
        calls.append(len(assumptions))
        return real(solver, assumptions, deadline)
    real = explain_module.run_sliced
    monkeypatch.setattr(explain_module, "run_sliced", spying)
    p = parse_puzzle("12.." "..3." ".3.." "....", box="2x2")
    assert minimal_conflict(p) == [(0, 0, 1), (0, 1, 2), (1, 2, 3)]
    assert calls and calls[0] == 4   # the first search assumed every clue


@pytest.mark.parametrize("maxsat", ["x", None, 3])
def test_explain_checks_maxsat_whatever_the_puzzle(maxsat):
    # an unknown method was refused only once a puzzle's clues broke a rule; a unique or
    # multiple puzzle took maxsat="x" without a word
    with pytest.raises(PuzzleError) as err:
        explain("1.3." "..1." ".3.." "...3", box="2x2", maxsat=maxsat)
    assert str(err.value) == f"maxsat: unknown method {maxsat!r}; expected one of rc2, highs"


def test_a_cap_whose_grids_would_not_fit_is_refused_up_front(monkeypatch, capsys):
    # every grid up to the cap is kept: --cap 1000000000 on an empty 9x9 grew by 170 MB a second
    # until the machine ran out; 10,000,000 4x4 grids need more than this allowance
    monkeypatch.setenv("SUDOKU_PIPELINE_MAX_BYTES", "2e8")
    with pytest.raises(PipelineError, match=r"^explain \(lower --cap\): keeping 10,000,000 grids of 16 cells"):
        explain("." * 16, box="2x2", cap=10_000_000)
    assert main(["explain", "." * 16, "--box", "2x2", "--cap", "10000000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "(set SUDOKU_PIPELINE_MAX_BYTES to allow more)" in err, err


@pytest.mark.parametrize("text, fewest", [
    ('{"size": "4x6", "givens": "4.......3..4....3.12...6"}', [(3, 1, 2)]),   # a rectangle, no solution by search
    (".Shape~6x6~0-8.~R1C1_0.~R1C2_0", [(0, 0, 0)]),   # a value set, two 0s in a row
])
def test_highs_removals_take_the_puzzles_own_shape(text, fewest):
    """``--maxsat highs`` built its model on an N x N square of the digits 1..N: a 4x6 grid or a
    value set stopped with "objective: expected 216 costs, found 144" (RC2 answered)."""
    by_rc2, by_highs = explain(text), explain(text, maxsat="highs")
    assert by_highs.maxsat == "highs" and by_highs.status == by_rc2.status
    assert by_highs.conflict == by_rc2.conflict and len(by_highs.remove) == len(by_rc2.remove) == 1
    assert by_highs.remove == fewest
