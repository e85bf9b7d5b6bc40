"""The order a user gave their rules in: kept by what writes a puzzle back (a document, an
f-puzzles link, an ISS string) and named by messages (``rules[k]`` is their ``k``), although the
model takes them in row order (:meth:`pipeline.core.puzzle.Puzzle.rules_as_given`)."""
from __future__ import annotations

import itertools
import json

import pytest

from pipeline.core.errors import PuzzleError
from pipeline.core.fpuzzles_write import fpuzzles_from_puzzle
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle

THERMO = {"rule": "thermo", "cells": ["r1c1", "r1c2", "r1c3"]}
LOCKOUT = {"rule": "lockout", "cells": ["r5c1", "r5c2", "r5c3", "r5c4"]}
ANTIKNIGHT = {"rule": "antiknight"}
ORDERS = list(itertools.permutations([THERMO, LOCKOUT, ANTIKNIGHT]))


def test_the_model_takes_these_rules_in_another_order():
    """So the tests below can fail: row order differs from some order given."""
    row_orders = {tuple(rule.kind for rule in parse_puzzle(json.dumps({"size": 9, "rules": list(rules)})).rules)
                  for rules in ORDERS}
    assert len(row_orders) == 1 and list(row_orders)[0] != ("thermo", "lockout", "antiknight")


@pytest.mark.parametrize("rules", ORDERS)
def test_a_document_written_back_keeps_the_order_given(rules):
    puzzle = parse_puzzle(json.dumps({"size": 9, "rules": list(rules)}))
    assert puzzle.to_document()["rules"] == list(rules)
    again = parse_puzzle(json.dumps(puzzle.to_document()))
    assert again == puzzle and again.to_document() == puzzle.to_document()
    assert [place for place, _ in puzzle.rules_as_given()] == [0, 1, 2]


@pytest.mark.parametrize("rules", ORDERS)
def test_an_iss_string_lists_the_rules_in_the_order_given(rules):
    text = iss_from_puzzle(parse_puzzle(json.dumps({"size": 9, "rules": list(rules)})))
    names = {"thermo": ".Thermo~", "lockout": ".Lockout~", "antiknight": ".AntiKnight"}
    at = [text.index(names[rule["rule"]]) for rule in rules]
    assert at == sorted(at)


@pytest.mark.parametrize("rules", ORDERS)
def test_a_rule_the_link_cannot_carry_is_named_by_its_place_given(rules):
    """Lockout lines have no f-puzzles element: the message names the entry where the user put it."""
    puzzle = parse_puzzle(json.dumps({"size": 9, "rules": list(rules)}))
    with pytest.raises(PuzzleError, match=rf"rules\[{rules.index(LOCKOUT)}\] \(lockout\) has no f-puzzles element"):
        fpuzzles_from_puzzle(puzzle)


@pytest.mark.parametrize("first", [True, False])
def test_a_rule_a_rectangle_refuses_is_named_by_its_place_given(first):
    rules = [{"rule": "globalmod"}, THERMO] if first else [THERMO, {"rule": "globalmod"}]
    with pytest.raises(PuzzleError, match=rf"^rules\[{0 if first else 1}\] \(globalmod\)"):
        parse_puzzle(json.dumps({"size": "4x6", "box": "2x3", "rules": rules}))
