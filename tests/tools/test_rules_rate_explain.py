"""rate and explain on puzzles with rules beyond units: rate never deduces against the rules and
its final grid verifies with them; explain names clues and rules in its conflicting sets (checked
minimal and optimal by HiGHS), with exact messages where the answer is deterministic."""
import json
import subprocess
import sys

import numpy as np
import pytest

from oracles import PROJECT
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import get_solver
from pipeline.solvers.highs import count_solutions as highs_count
from pipeline.tools.explain import explain, minimal_conflict
from pipeline.tools.explain_rules import rule_label
from pipeline.tools.generate import generate
from pipeline.tools.rate import rate

# r1c2=2 keeps 2 out of the cage r2c1..r2c2 (sum 3 needs 1 and 2), all in the top-left box
INFEASIBLE = {"size": 4, "givens": "12..............",
              "rules": [{"rule": "antiknight"}, {"rule": "cage", "cells": ["r2c1", "r2c2"], "sum": 3}]}
TWO_CELL = {"size": 4, "givens": "1...............", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 7}]}
MULTIPLE = {"size": 4, "givens": "1...............", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]}


def count(p: Puzzle, limit: int = 1000) -> int:
    return highs_count(build_model(p, "ijk", "C", clues="bounds"), limit=limit).count


def highs_solutions(p: Puzzle) -> list[np.ndarray]:
    return highs_count(build_model(p, "ijk", "C", clues="bounds"), limit=1000).grids


@pytest.fixture(scope="module")
def killer():
    """A generated 6x6 killer with cages only (unique: test_generate_rules checks it)."""
    return next(generate(size=6, seed=1, cages_only=True))


def test_rate_unique_killer_never_deduces_against_the_solution(killer):
    p, solution = killer.puzzle, killer.solution
    r = rate(p)
    assert r.solved and r.counts["rule"] > 0
    assert np.array_equal(r.solution, solution) and verify_grid(r.solution, p).ok
    flat = solution.ravel()
    for step in r.steps:   # guesses too: they take the solution's digit, never a wrong one
        if step.digit is not None:
            (row, col), = step.cells
            assert flat[row * 6 + col] == step.digit, step.text()
        for row, col, d in step.removed:
            assert flat[row * 6 + col] != d, step.text()
    rule_steps = [s for s in r.steps if s.technique == "rule"]
    assert all(s.rule.startswith("cage r") for s in rule_steps)


@pytest.mark.parametrize("extra", ["twice", "overlapping"])
def test_rate_overlapping_cages_never_rule_out_the_solution(killer, extra):
    # the 45 rule counted a cell in two cages twice: a cage listed twice, or one more cage over
    # cells of others, made the rater remove the solution's digits and answer "no solution"
    p, solution = killer.puzzle, killer.solution
    doc = p.to_document()
    cages = [e for e in doc["rules"] if e["rule"] == "cage"]
    if extra == "twice":
        doc["rules"].append(dict(cages[0]))
    else:   # two cells of different cages side by side, with their true sum
        first = next(c for c in cages if len(c["cells"]) >= 2)
        cell = first["cells"][0]
        row, col = int(cell[1:cell.index("c")]) - 1, int(cell[cell.index("c") + 1:]) - 1
        other = (row, col + 1) if col < 5 else (row, col - 1)
        doc["rules"].append({"rule": "cage", "cells": [cell, f"r{other[0] + 1}c{other[1] + 1}"],
                             "sum": int(solution[row, col] + solution[other])})
    grown = parse_puzzle(doc)
    assert count(grown, 2) == 1
    r = rate(grown)
    assert r.solved and np.array_equal(r.solution, solution), r.label
    for step in r.steps:
        for row, col, d in step.removed:
            assert solution[row, col] != d, step.text()


def test_rate_a_cell_in_two_cages_of_a_4x4_is_rated_not_infeasible():
    p = parse_puzzle({"size": 4, "rules": [{"rule": "cage", "cells": ["r1c1"], "sum": 3},
                                           {"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 7}]})
    assert count(p, 30) == 24
    r = rate(p)
    assert r.label != "no solution" and r.solution is not None and verify_grid(r.solution, p).ok


def test_rate_rule_step_text_is_exact():
    r = rate(parse_puzzle(json.dumps(MULTIPLE)))
    first_rule = next(s for s in r.steps if s.technique == "rule")
    assert first_rule.text() == "rule: r1c1 r1c2 => r1c2<>3, r1c2<>4 (cage r1c1..r1c2 (sum 3))"
    assert first_rule.to_dict()["rule"] == "cage r1c1..r1c2 (sum 3)"


def test_rate_two_solutions_reaches_one_that_obeys_the_rules():
    p = parse_puzzle(json.dumps(MULTIPLE))
    r = rate(p)
    assert r.solved and verify_grid(r.solution, p).ok
    assert any(np.array_equal(r.solution, g) for g in highs_solutions(p))
    assert "the rater guesses" in r.text() or r.guesses == 0
    assert r.unique is False and "several solutions" in r.text()


@pytest.mark.parametrize("doc", [INFEASIBLE, TWO_CELL])
def test_rate_infeasible_rule_puzzle_has_no_solution(doc):
    r = rate(parse_puzzle(json.dumps(doc)))
    assert not r.solved and r.label == "no solution" and r.solution is None


def test_rate_anti_knight_grid_obeys_the_rule():
    g = next(generate(size=6, seed=2, rules=[{"rule": "antiknight"}]))
    r = rate(g.puzzle)
    assert r.solved and np.array_equal(r.solution, g.solution) and verify_grid(r.solution, g.puzzle).ok


def test_explain_infeasible_names_a_cage_exactly():
    e = explain(json.dumps(INFEASIBLE))
    assert e.text() == (
        "no solution.\n"
        "minimal conflicting clues and rules (2; these alone have no solution, without any one of them they "
        "have): r1c2=2; cage r2c1..r2c2 (sum 3)\n"
        "fewest clues and rules to remove (1, proved optimal by SAT with a totalizer): cage r2c1..r2c2 (sum 3)")
    d = e.to_dict()
    assert d["conflict"] == [(0, 1, 2)] and d["conflict_rules"] == ["cage r2c1..r2c2 (sum 3)"]
    assert d["maxsat"] == "rules-sat"


def test_explain_two_cell_cage_conflict_exactly():
    e = explain(json.dumps(TWO_CELL))
    assert e.text() == (
        "no solution.\n"
        "minimal conflicting clues and rules (2; these alone have no solution, without any one of them they "
        "have): r1c1=1; cage r1c1..r1c2 (sum 7)\n"
        "fewest clues and rules to remove (1, proved optimal by SAT with a totalizer): r1c1=1")


def _subset(p: Puzzle, clues, rule_names) -> Puzzle:
    grid = np.zeros_like(p.grid)
    for r, c, d in clues:
        grid[r, c] = d
    board = p.base_board
    rules = tuple(rule for rule in p.rules if rule.describe(board) in rule_names or rule.kind == "windoku")
    return Puzzle(grid, p.h, p.w, p.variant, p.regions, rules, p.layout)


def test_explain_conflict_is_minimal_and_removal_optimal_by_highs(killer):
    """Break the generated killer by a wrong clue in a cage: the conflict mixes clues and cages."""
    p = killer.puzzle
    grid = np.array(p.grid)
    grid[0, 0] = killer.solution[0, 1]          # r1c1 gets r1c2's digit (cage r1c1..r1c2 sums 3)
    grid[2, 2] = killer.solution[2, 2]          # and a correct clue elsewhere
    bad = Puzzle(grid, p.h, p.w, p.variant, p.regions, p.rules)
    assert count(bad, 1) == 0
    e = explain(bad)
    assert e.status == "infeasible" and e.conflict_rules
    members = [("clue", c) for c in e.conflict] + [("rule", r) for r in e.conflict_rules]
    assert count(_subset(bad, e.conflict, e.conflict_rules), 1) == 0
    for k in range(len(members)):
        rest = members[:k] + members[k + 1:]   # without any one member: a solution exists
        assert count(_subset(bad, [v for t, v in rest if t == "clue"], [v for t, v in rest if t == "rule"]), 1) > 0
    # removing the fewest makes it solvable, and no smaller set of clues and rules does
    kept_clues = [c for c in zip(*np.nonzero(bad.grid)) if (int(c[0]), int(c[1]), int(bad.grid[c])) not in e.remove]
    clues = [(int(r), int(c), int(bad.grid[r, c])) for r, c in kept_clues]
    board = bad.base_board
    names = [rule.describe(board) for rule in bad.rules if rule.describe(board) not in e.remove_rules]
    assert count(_subset(bad, clues, names), 1) == 1
    size = len(e.remove) + len(e.remove_rules)
    assert size == 1
    all_clues = [(int(r), int(c), int(bad.grid[r, c])) for r, c in zip(*np.nonzero(bad.grid))]
    assert count(_subset(bad, all_clues, [rule.describe(board) for rule in bad.rules]), 1) == 0


def _check_conflict_and_removal(bad: Puzzle, e) -> None:
    """The conflicting set has no solution and each member is needed; the removal solves it."""
    board = bad.base_board
    members = [("clue", c) for c in e.conflict] + [("rule", r) for r in e.conflict_rules]
    assert count(_subset(bad, e.conflict, e.conflict_rules), 1) == 0
    for k in range(len(members)):
        rest = members[:k] + members[k + 1:]
        assert count(_subset(bad, [v for t, v in rest if t == "clue"], [v for t, v in rest if t == "rule"]), 1) > 0
    clues = [(int(r), int(c), int(bad.grid[r, c])) for r, c in zip(*np.nonzero(bad.grid))]
    kept = [x for x in clues if x not in e.remove]
    names = [rule.describe(board) for rule in bad.rules if rule.describe(board) not in e.remove_rules]
    assert count(_subset(bad, kept, names), 1) > 0


def test_explain_names_rules_that_only_add_units():
    # windoku is switched like the others: anti-knight with anti-king has 9x9 solutions, all three do not
    rules = [{"rule": "windoku"}, {"rule": "antiking"}, {"rule": "antiknight"}]
    e = explain("." * 81, rules=rules)
    assert e.status == "infeasible" and sorted(e.conflict_rules) == ["antiking", "antiknight", "windoku"]
    assert len(e.remove_rules) == 1 and e.remove == []
    sat_count = get_solver("sat").count   # HiGHS takes minutes to prove this 9x9 infeasible
    for k in range(3):
        assert sat_count(build_model(parse_puzzle("." * 81, rules=rules[:k] + rules[k + 1:])), 1).count == 1
    assert sat_count(build_model(parse_puzzle("." * 81, rules=rules)), 1).count == 0


def test_explain_rules_that_conflict_without_a_clue():
    # the at-most-one rows of every rule are switchable: anti-king alone has no 4x4 solution
    e = explain("." * 16, rules=[{"rule": "antiknight"}, {"rule": "antiking"}])
    assert e.status == "infeasible" and e.conflict == [] and e.conflict_rules == ["antiking"]
    assert e.remove == [] and e.remove_rules == ["antiking"]
    bad = parse_puzzle("." * 16, rules=[{"rule": "antiknight"}, {"rule": "antiking"}])
    assert count(bad, 1) == 0
    _check_conflict_and_removal(bad, e)


def test_explain_clues_that_break_a_rule_directly():
    text = "." * 2 + "1" + "." * 10 + "1" + "." * 67     # r1c3 and r2c5 hold 1: a knight's move apart
    e = explain(text, rules=[{"rule": "antiknight"}])
    assert e.status == "invalid" and e.message == ("puzzle: the clues break a rule: rules[0] (antiknight): r1c3 and "
                                                   "r2c5 are a knight's move apart and both hold 1")
    assert e.conflict == [(0, 2, 1), (1, 4, 1)] and e.conflict_rules == ["antiknight"]
    assert len(e.remove) + len(e.remove_rules) == 1
    knight = [{"rule": "antiknight"}]
    with pytest.raises(PuzzleError, match="break a rule"):   # the conflicting set alone: refused
        parse_puzzle(text, rules=knight)
    assert count(parse_puzzle(text), 1) == 1 and count(parse_puzzle("." * 2 + "1" + "." * 78, rules=knight), 1) == 1
    assert count(parse_puzzle("." * 13 + "1" + "." * 67, rules=knight), 1) == 1   # without any one member: solvable
    e = explain("11" + "." * 79, rules=[{"rule": "antiknight"}])   # twice in a row, with rules: explained too
    assert e.status == "invalid" and e.conflict == [(0, 0, 1), (0, 1, 1)] and e.conflict_rules == []


def test_explain_multiple_and_unique_rule_puzzles(killer):
    e = explain(json.dumps(MULTIPLE))
    assert e.status == "multiple" and e.count == count(parse_puzzle(json.dumps(MULTIPLE))) == 24
    assert e.text().startswith("24 solutions.\n")
    added = parse_puzzle(json.dumps(MULTIPLE))
    grid = np.array(added.grid)
    for r, c, d in e.add:
        grid[r, c] = d
    assert count(Puzzle(grid, added.h, added.w, added.variant, added.regions, added.rules), 2) == 1
    u = explain(killer.puzzle)
    assert u.status == "unique" and u.text().startswith("unique solution.\nrating: ")


def test_units_only_helpers_refuse_rule_puzzles():
    with pytest.raises(PuzzleError, match="explained over clues and rules"):
        minimal_conflict(parse_puzzle(json.dumps(INFEASIBLE)))


def test_cli_explain_and_rate_read_documents_and_rules():
    def run(*args):
        return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, cwd=PROJECT)
    r = run("explain", "1" + "." * 15, "--rule", json.dumps(TWO_CELL["rules"][0]))
    assert r.returncode == 1 and r.stdout.splitlines()[1].endswith("r1c1=1; cage r1c1..r1c2 (sum 7)"), r.stderr
    r = run("explain", json.dumps(INFEASIBLE), "--format", "json")
    assert json.loads(r.stdout)["remove_rules"] == ["cage r2c1..r2c2 (sum 3)"] and "--maxsat" not in r.stderr
    r = run("explain", json.dumps(INFEASIBLE), "--format", "json", "--maxsat", "highs")   # named: told it is not used
    assert json.loads(r.stdout)["maxsat"] == "rules-sat"
    assert r.stderr.splitlines() == ["note: --maxsat highs is for one grid without rules; with rules or a layout "
                                     "the fewest removals of clues and rules are proved by rules-sat (SAT with a "
                                     "totalizer)"]
    r = run("explain", "12.." "..34" "...." "....", "--maxsat", "highs", "--format", "json")   # units alone: used
    assert json.loads(r.stdout)["maxsat"] == "highs" and not r.stderr, r.stderr
    r = run("rate", json.dumps(MULTIPLE))
    assert r.returncode == 0 and r.stdout.startswith(("easy", "medium", "hard", "expert")), r.stderr


@pytest.mark.parametrize("name", ["killer", "thermo", "futoshiki", "samurai"])
def test_rate_examples_with_rules_reach_a_grid_that_verifies(name):
    """The vendored examples (each unique): rate solves them, possibly guessing, and its grid
    satisfies every unit, clue and rule (a samurai: the whole canvas)."""
    p = parse_puzzle(str(PROJECT / "examples" / f"{name}.json"))
    r = rate(p)
    assert r.solved and verify_grid(r.solution, p).ok
    if p.layout is None:
        assert np.array_equal(r.solution, highs_solutions(p)[0])


def test_rate_computes_the_rule_bounds_once_per_candidate_state(monkeypatch):
    """A step's check and its rule technique see the same candidates: one computation serves
    both, and any change of the candidates computes afresh (the rating is the same either way)."""
    import pipeline.tools.rate as rate_module

    puzzle = parse_puzzle(str(PROJECT / "examples" / "killer.json"))
    expected = rate(puzzle)
    states: list[bytes] = []
    real = rate_module.rule_bounds

    def counting(terms, cand):
        states.append(cand.tobytes())
        return real(terms, cand)

    monkeypatch.setattr(rate_module, "rule_bounds", counting)
    again = rate(puzzle)
    assert again.to_dict() == expected.to_dict() and again.solved
    assert states and all(a != b for a, b in zip(states, states[1:]))   # never twice in a row for one state


def test_explain_numbers_rules_that_read_the_same():
    """Two rules with one description are told apart by their place in the puzzle's rules, in the
    text and in the JSON (``conflict_rule_numbers``): a script maps the answer back to its entries.
    Identical rules are one entry (removing one copy removes nothing)."""
    dot = {"rule": "kropki", "color": "white", "cells": ["r1c1", "r1c2"]}
    turned = {**dot, "cells": ["r1c2", "r1c1"]}   # the same dot, written the other way round
    e = explain(parse_puzzle({"size": 4, "givens": "", "rules": [dot, {**dot, "value": 3}, dot, turned]}))
    assert e.status == "infeasible"
    assert e.conflict_rules[0] == "white dot r1c1-r1c2 (rules 1 and 3, the same)" or \
        e.conflict_rules[0].startswith("white dot r1c2-r1c1")
    assert e.remove_rules == ["white dot r1c1-r1c2 (difference 3)"] and e.remove_rule_numbers == [[2]]
    assert sorted(e.conflict_rule_numbers) in ([[1, 3], [2]], [[2], [4]])
    d = e.to_dict()
    assert d["conflict_rule_numbers"] == e.conflict_rule_numbers and "white dot" in e.text()
    units_only = explain("11" + "." * 14, box="2x2").to_dict()
    assert "conflict_rule_numbers" not in units_only and "conflict_rules" not in units_only


# rules whose rows hold auxiliary columns (the counting circles' indicators), and a rule over an
# extra cell: the rater's bounds over cells alone had ruled out the solution's digits of the
# first ("no solution" for a unique puzzle) and indexed past the grid for the second
COUNTING_CIRCLES = ('{"size": 4, "rules": [{"rule": "countingcircles", "cells": '
                    '["r1c1", "r1c2", "r2c2", "r3c1", "r4c1", "r4c2", "r4c4", "r2c3", "r2c4"]}]}')
EXTRA_CELL = ('{"size": 4, "givens": "1234341221434.21", "extra": [{"name": "S", "size": 1}], '
              '"rules": [{"rule": "cage", "cells": ["r1c1", "S"], "sum": 4}]}')


@pytest.mark.parametrize("doc", [COUNTING_CIRCLES, EXTRA_CELL, '{"size": 4, "rules": [{"rule": "skyscraper", '
                                 '"clue": "r0c1", "count": 2}, {"rule": "skyscraper", "clue": "r2c0", "count": 1}]}'])
def test_rate_leaves_out_rows_it_cannot_bound_and_reaches_the_solution(doc):
    from pipeline.core.rules.bounds import rule_terms

    p = parse_puzzle(doc)
    assert rule_terms(p.rules, p.base_board, extra_cells=False).left_out == tuple(range(len(p.rules)))
    solution = get_solver("sat").solve(build_model(p)).grid
    r = rate(p, solution)
    assert r.solved and verify_grid(r.solution, p).ok
    flat = solution.ravel()
    for step in r.steps:
        for row, col, d in step.removed:
            assert flat[row * p.cols + col] != d, step.text()


def test_explain_refuses_conflicts_over_rules_it_cannot_switch():
    """An infeasible counting-circles puzzle: no "minimal conflict" of the rule alone (the rule
    alone has a solution), but one line saying such rules are not supported."""
    doc = json.loads(COUNTING_CIRCLES)
    doc["givens"] = "1" + "." * 15
    assert get_solver("sat").count(build_model(parse_puzzle(COUNTING_CIRCLES)), 2).count == 1
    e = explain(parse_puzzle(json.dumps(doc)))
    assert e.status == "infeasible" and not e.conflict and not e.conflict_rules
    assert "rules of these kinds: set of counting circles (not supported yet" in e.message
    from pipeline.tools.generate.lazy_engine import LazyRuleEngine

    with pytest.raises(PuzzleError, match=r"^rules with auxiliary columns \(set of counting circles\)"):
        LazyRuleEngine(parse_puzzle(COUNTING_CIRCLES))


def test_explain_names_the_pairs_a_strict_rule_exempts_when_its_marks_are_left_out():
    # the set {strictkropki} means strict Kropki with the puzzle's dotted pairs exempt (the dots
    # themselves are not in it): the label says which pairs, so the set reads as it was proved
    dots = [{"rule": "kropki", "color": "white", "cells": ["r3c3", "r3c4"]},
            {"rule": "kropki", "color": "black", "cells": ["r4c1", "r4c2"]}]
    e = explain("1.3" + "." * 13, rules=[{"rule": "strictkropki", "color": "white"}, *dots])
    assert e.status == "infeasible"
    assert e.conflict_rules == ["strictkropki (the 2 pairs with dots exempt: r3c3-r3c4, r4c1-r4c2)"]
    one = explain("1.3" + "." * 13, rules=[{"rule": "strictkropki", "color": "white"}, dots[0]])
    assert one.conflict_rules == ["strictkropki (the pair with a dot exempt: r3c3-r3c4)"]
    bare = parse_puzzle("." * 16, rules=[{"rule": "strictkropki"}])   # no dot: nothing exempt, nothing said
    assert rule_label(bare, (0,)) == bare.rules[0].describe(bare.base_board)
