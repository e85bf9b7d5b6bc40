"""pipeline/core/puzzle_checks.py and ``with_other_clues``: a checked puzzle with other clues is
checked for what clues can break, with the messages a new puzzle gets, and shares what was built
from its shape and rules."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.core.build import build_model
from pipeline.core.errors import ClueConflictError, PuzzleError
from pipeline.core.puzzle import Puzzle, parse_puzzle, rules_key, shape_cache, with_other_clues, with_rules
from pipeline.core.rules import rule_from_dict
from pipeline.core.puzzle_checks import check_clues
from pipeline.core.rulerows import kind_blocks

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "core"))
from random_puzzles import puzzle_documents  # noqa: E402

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _outcome(make):
    """``("ok", puzzle)`` or ``(error type, message)``."""
    try:
        return "ok", make()
    except PuzzleError as e:   # ClueConflictError included: its type is compared too
        return type(e).__name__, str(e)


def _same_model(shared, fresh) -> None:
    """A, B, the inequality rows and the columns' names alike."""
    for name in ("A", "B", "Aineq"):
        assert (getattr(shared, name) != getattr(fresh, name)).nnz == 0, name
    assert np.array_equal(shared.bineq, fresh.bineq) and list(shared.col_names) == list(fresh.col_names)


def _parsed(doc: dict) -> Puzzle | None:
    try:
        return parse_puzzle(doc)
    except PuzzleError:
        return None   # the random rules contradict their own givens: nothing to start from


@SETTINGS
@given(puzzle_documents(), st.data())
def test_other_clues_get_the_outcome_a_new_puzzle_gets(doc, data):
    """Random clues (out of range now and then, repeats in units, clues that break a rule, cells
    outside a layout's grids): the same error type and message as making the puzzle anew, or
    the same puzzle."""
    puzzle = _parsed(doc)
    if puzzle is None:
        return
    assert puzzle.board is not None   # built before: shared, not built again
    top = puzzle.n_values + 1
    digit = st.one_of(st.integers(1, puzzle.n_values), st.integers(1, puzzle.n_values), st.sampled_from([-1, top]))
    cells = data.draw(st.lists(st.tuples(st.integers(0, puzzle.grid.size - 1), digit), max_size=puzzle.grid.size // 3))
    grid = np.zeros(puzzle.grid.size, dtype=np.int64)
    for cell, digit in cells:
        grid[cell] = digit
    grid = grid.reshape(puzzle.grid.shape)
    fresh = _outcome(lambda: Puzzle(grid, puzzle.h, puzzle.w, puzzle.variant, puzzle.regions, puzzle.rules,
                                    puzzle.layout, puzzle.values, puzzle.extra))
    other = _outcome(lambda: with_other_clues(puzzle, grid))
    assert other[0] == fresh[0]
    if fresh[0] != "ok":
        assert other[1] == fresh[1]
        return
    made, new = other[1], fresh[1]
    assert np.array_equal(made.grid, new.grid) and not made.grid.flags.writeable
    assert made.rules == new.rules and made.layout == new.layout and made.values == new.values
    assert made.board is puzzle.board and shape_cache(made) is shape_cache(puzzle)
    for (name, units), (name_new, units_new) in zip(made.unit_families(), new.unit_families(), strict=True):
        assert name == name_new and np.array_equal(units, units_new)


@SETTINGS
@given(puzzle_documents())
def test_a_model_from_other_clues_equals_a_fresh_one(doc):
    """The shared rule rows give the model a new puzzle would get (A, B and the column names)."""
    puzzle = _parsed(doc)
    if puzzle is None:
        return
    empty = with_other_clues(puzzle, np.zeros(puzzle.grid.shape, dtype=np.int64))
    kind_blocks(empty)   # built on the template, read by the puzzle made from it
    again = with_other_clues(empty, puzzle.grid)
    shared, fresh = build_model(again), build_model(parse_puzzle(doc))
    _same_model(shared, fresh)
    # A's unit table too is built once for the shape (and convention), and read-only
    assert shared.unit_positions is build_model(empty).unit_positions and not shared.unit_positions.flags.writeable


def test_an_empty_grid_is_not_checked_again():
    """No clue, nothing to break: the template of a batch's rule group costs no check."""
    puzzle = parse_puzzle({"size": 4, "box": "2x2", "givens": ["r1c1=1"], "rules": [{"rule": "antiknight"}]})
    empty = with_other_clues(puzzle, np.zeros(16, dtype=np.int64))
    assert not empty.grid.any() and empty.rules == puzzle.rules
    check_clues(empty)   # and it passes


@pytest.mark.parametrize("grid, error, message", [
    ([[1, 1, 0, 0]] + [[0] * 4] * 3, ClueConflictError, r"puzzle: digit 1 appears twice in row 1: cells \(1, 1\) and \(1, 2\)"),
    ([[5, 0, 0, 0]] + [[0] * 4] * 3, PuzzleError, r"puzzle: cell \(1, 1\) holds 5: entries must be integers from 1 to 4"),
    ([[1, 0, 0, 0], [0, 0, 1, 0], [0] * 4, [0] * 4], ClueConflictError, "puzzle: the clues break a rule: "),
    ([[0] * 5] * 5, PuzzleError, "puzzle: 25 cells of clues for a 4x4 puzzle"),
])
def test_what_other_clues_can_break(grid, error, message):
    """A repeat in a unit, a clue out of range, a clue that breaks the anti-knight rule (r1c1 and
    r2c3 are a knight's move apart), a grid of another size: one line each."""
    puzzle = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "antiknight"}]})
    with pytest.raises(error, match=message):
        with_other_clues(puzzle, np.array(grid))


def test_the_bench_set_shares_rows_across_clues():
    """Every family of the rule bench: the puzzle rebuilt from its empty template has the rows and
    clues of the parsed one."""
    for line in (ROOT / "bench" / "dfsrules_set.jsonl").read_text().splitlines()[::10]:
        doc = json.loads(line)["document"]
        puzzle = parse_puzzle(doc)
        again = with_other_clues(with_other_clues(puzzle, np.zeros_like(puzzle.grid)), puzzle.grid)
        shared, fresh = build_model(again), build_model(puzzle)
        _same_model(shared, fresh)


def test_the_rules_key_is_all_but_the_clues():
    """Other clues keep it; another value set, other extra cells or another canvas change it."""
    doc = {"size": 4, "box": "2x2", "givens": ["r1c1=1"],
           "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]}
    puzzle = parse_puzzle(doc)
    assert rules_key(with_other_clues(puzzle, np.zeros((4, 4), dtype=np.int64))) == rules_key(puzzle)
    others = [{**doc, "givens": [], "values": "0-3"}, {**doc, "extra": [{"name": "S", "size": 1}]},
              {**doc, "rules": []}]
    assert len({rules_key(puzzle), *(rules_key(parse_puzzle(d)) for d in others)}) == 4



def _checked_in_full(grid, bare: Puzzle, entries: list):
    """What reading rules was before check_rules_added: the rules read against the bare puzzle's
    board, then the whole puzzle made and checked anew."""
    board = Puzzle(grid, bare.h, bare.w, bare.variant, bare.regions, (), bare.layout, bare.values, bare.extra).base_board
    rules = tuple(rule_from_dict(entry, board, f"rules[{k}]") for k, entry in enumerate(entries))
    return Puzzle(grid, bare.h, bare.w, bare.variant, bare.regions, rules, bare.layout, bare.values, bare.extra)


@SETTINGS
@given(puzzle_documents(), st.data())
def test_rules_are_read_with_the_outcome_of_a_full_check(doc, data):
    """with_rules checks again only what the rules can break (check_rules_added): random documents
    with random clues (out of range, repeats in a rule's units, clues that break a rule) get the
    error type and message of checking everything anew, or an equal puzzle with the same units."""
    bare = _parsed(dict(doc, rules=[]))
    if bare is None or not doc.get("rules"):
        return
    top = bare.n_values + 1
    digit = st.one_of(st.integers(1, bare.n_values), st.sampled_from([-1, top]))
    grid = bare.grid.copy()
    for cell, value in data.draw(st.lists(st.tuples(st.integers(0, grid.size - 1), digit), max_size=4)):
        grid.flat[cell] = value
    ruled = _parsed(dict(doc, givens=[]))
    if ruled is not None and data.draw(st.booleans()):   # a digit twice in a unit, a rule's own now and then
        family, units = data.draw(st.sampled_from(ruled.unit_families()))
        unit = units[data.draw(st.integers(0, units.shape[0] - 1))]
        a, b = data.draw(st.lists(st.sampled_from(unit.tolist()), min_size=2, max_size=2, unique=True))
        grid.flat[a] = grid.flat[b] = data.draw(st.integers(1, bare.n_values))
    read = _outcome(lambda: with_rules(grid, bare.h, bare.w, bare.variant, bare.regions, bare.layout, doc["rules"],
                                       "rules", None, bare.values, bare.extra))
    full = _outcome(lambda: _checked_in_full(grid, bare, doc["rules"]))
    assert read[0] == full[0]
    if full[0] != "ok":
        assert read[1] == full[1]
        return
    made, checked = read[1], full[1]
    assert made == checked and made.rules_dicts() == checked.rules_dicts()
    for (name, units), (name_full, units_full) in zip(made.unit_families(), checked.unit_families(), strict=True):
        assert name == name_full and np.array_equal(units, units_full)


def test_a_clue_twice_on_a_rules_own_unit_is_refused_as_before():
    """Two 1s on the main diagonal of a 4x4 (in no row, column or box together): only the rule's
    unit holds them twice, and reading the rules says so."""
    doc = {"size": 4, "box": "2x2", "givens": "1..............1", "rules": [{"rule": "diagonal"}]}
    with pytest.raises(ClueConflictError, match="digit 1 appears twice in the main diagonal"):
        parse_puzzle(doc)


RECT_RULES = ({"rule": "antiknight"}, {"rule": "antiking"}, {"rule": "globalmod"}, {"rule": "antitaxicab"},
              {"rule": "globalentropy"}, {"rule": "thermo", "cells": ["r1c1", "r1c2", "r2c2"]},
              {"rule": "cage", "sum": 5, "cells": ["r2c1", "r2c2"]}, {"rule": "kropki", "color": "white",
                                                                   "cells": ["r1c3", "r1c4"]})


@SETTINGS
@given(st.sampled_from([("2x4", "2x2"), ("4x6", "2x3"), ("4x8", "2x4")]),
       st.lists(st.sampled_from(RECT_RULES), min_size=1, max_size=3, unique_by=lambda r: repr(r)),
       st.lists(st.tuples(st.integers(0, 23), st.integers(1, 6)), max_size=4))
def test_rectangles_read_their_rules_with_the_outcome_of_a_full_check(size, rules, clues):
    """The same on rectangular grids, whose rule kinds are checked too (a rule that reads the grid's
    side is refused by name; rect.check_rect_rules)."""
    bare = _parsed({"size": size[0], "box": size[1]})
    assert bare is not None
    grid = bare.grid.copy()
    for cell, value in clues:
        grid.flat[cell % grid.size] = min(value, bare.n_values)
    read = _outcome(lambda: with_rules(grid, bare.h, bare.w, bare.variant, bare.regions, bare.layout, list(rules),
                                       "rules", None, bare.values, bare.extra))
    full = _outcome(lambda: _checked_in_full(grid, bare, list(rules)))
    assert read[0] == full[0] and (read[0] == "ok" or read[1] == full[1])
    if read[0] == "ok":
        assert read[1] == full[1]


def test_a_rule_no_grid_keeps_is_not_blamed_on_clues_there_are_none_of():
    """A regex no line of its length matches, on a puzzle without clues: it said "the clues
    break a rule" (an outside check)."""
    doc = {"size": 9, "rules": [{"rule": "regex", "pattern": "1111", "cells": ["r1c1", "r1c2", "r1c3"]}]}
    with pytest.raises(ClueConflictError, match=r"^puzzle: a rule no grid can keep: rules\[0\] \(regex\): regex '1111'"):
        parse_puzzle(json.dumps(doc))


def test_a_rule_from_the_command_line_is_named_as_it_was_given_in_every_message():
    """A clue conflict named a --rule rule 'rules[0]' (a document's, 0-based) where its other
    messages (a cage sum no digits make) said '--rule 1'; a document's rules keep 'rules[k]'."""
    with pytest.raises(ClueConflictError, match=r"^puzzle: the clues break a rule: --rule 1 \(antiknight\): r1c1 and "
                                                r"r2c3 are a knight's move apart and both hold 1$"):
        parse_puzzle("1.....1.........", rules=[{"rule": "antiknight"}])
    with pytest.raises(ClueConflictError, match=r"^puzzle: the clues break a rule: rules\[0\] \(antiknight\): "):
        parse_puzzle({"size": 4, "givens": "1.....1.........", "rules": [{"rule": "antiknight"}]})
    even, odd = {"rule": "even", "cells": ["r1c1"]}, {"rule": "odd", "cells": ["r1c1"]}
    with pytest.raises(PuzzleError, match=r"^--rule 2 \(odd\): r1c1 is marked both even and odd \(first by --rule 1\)$"):
        parse_puzzle("." * 16, rules=[even, odd])
    with pytest.raises(PuzzleError, match=r"^--rule 1 \(odd\): r1c1 is marked both even and odd \(first by rules\[0\]\)$"):
        parse_puzzle({"size": 4, "rules": [even]}, rules=[odd])
    with pytest.raises(PuzzleError, match=r"^rules\[1\] \(odd\): r1c1 is marked both even and odd \(first by rules\[0\]\)$"):
        parse_puzzle({"size": 4, "rules": [even, odd]})
