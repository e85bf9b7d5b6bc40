"""explain on random small puzzles with rules and no solution, held to the independent oracle
(CP-SAT on integer cells, tests/core/rule_oracle.py): the minimal conflicting set of clues and
rules has no solution and each member is needed; removing the fewest makes the puzzle solvable,
and when they are two, no single removal does.

Here beside the oracle (tests/core is where it lives); the code under test is
pipeline/tools/explain.py and explain_rules.py.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings

import rule_oracle as oracle
from random_puzzles import SINGLE, puzzle_documents
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import shape_and_clues
from pipeline.tools.explain import explain

pytest.importorskip("pysat")

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def _document(doc: dict, shape, clues: list, rule_names: list) -> dict:
    """``doc``'s shape with only ``clues`` ((r, c, digit), 0-based cells) and the rules named
    (every rule is a member: rows beyond units, or units such as windoku windows)."""
    board = shape.base_board
    rules = [rule.to_dict(board) for rule in shape.rules if rule.describe(board) in rule_names]
    return {**{k: v for k, v in doc.items() if k not in ("rules", "givens")}, "rules": rules,
            "givens": [f"r{r + 1}c{c + 1}={d}" for r, c, d in clues]}


def _solvable(doc: dict) -> bool:
    return oracle.count(oracle.spec_from_document(doc), 1)[0] > 0


@SETTINGS
@given(doc=puzzle_documents(shapes=SINGLE))
def test_explain_of_random_rule_puzzles_without_a_solution_agrees_with_the_oracle(doc):
    assume(not _solvable(doc))
    try:
        shape, grid = shape_and_clues(doc)
    except PuzzleError:   # a shape the project refuses (test_rules_oracle_engines holds those to the oracle)
        return
    board = shape.base_board
    names = [rule.describe(board) for rule in shape.rules]
    assume(len(set(names)) == len(names))   # members are told apart by their descriptions
    clues = [(int(r), int(c), int(grid[r, c])) for r, c in zip(*grid.nonzero())]
    try:
        e = explain(doc)
    except PuzzleError as err:   # only when the grid's own units have no solution
        assert "units alone have no solution" in str(err)
        assert not _solvable(_document(doc, shape, [], []))
        return
    assert e.status in ("infeasible", "invalid"), e.status
    members = [("clue", x) for x in e.conflict] + [("rule", x) for x in e.conflict_rules]
    assert members, "an empty conflict: the units alone would have no solution"

    def without(drop):
        kept = [m for m in members if m not in drop]
        return _document(doc, shape, [v for k, v in kept if k == "clue"], [v for k, v in kept if k == "rule"])
    assert not _solvable(without([]))
    for member in members:
        assert _solvable(without([member])), f"{member} is not needed in {members}"
    removed = [("clue", x) for x in e.remove] + [("rule", x) for x in e.remove_rules]
    everything = [("clue", x) for x in clues] + [("rule", x) for x in names]
    assert all(m in everything for m in removed)

    def rest(drop):
        kept = [m for m in everything if m not in drop]
        return _document(doc, shape, [v for k, v in kept if k == "clue"], [v for k, v in kept if k == "rule"])
    assert removed and _solvable(rest(removed))
    if len(removed) == 2:   # proved optimal: no single removal makes it solvable
        assert not any(_solvable(rest([m])) for m in everything)
