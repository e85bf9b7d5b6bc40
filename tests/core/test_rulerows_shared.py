"""pipeline/core/rulerows.py: the kinds' rows are built once per puzzle (``kind_blocks``) and
shared by ``R`` and the ``dfsrules`` tables, read-only; ``has_rule_rows`` (``Model.has_rules``)
answers as ``R`` would without building it."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle, shape_cache
from pipeline.core.rulerows import ALWAYS_ADD_ROWS, build_rule_rows, has_rule_rows, kind_blocks, rules_by_kind

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "core"))
from random_puzzles import puzzle_documents  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _documents() -> list[dict]:
    """The examples and the rule bench's set: every kind the project ships puzzles of."""
    out = [json.loads(line)["document"] for line in (ROOT / "bench" / "dfsrules_set.jsonl").open()]
    for path in sorted((ROOT / "examples").glob("*.json")):
        try:
            out.append(json.loads(path.read_text()))
        except json.JSONDecodeError:
            continue
    return out


def _parsed(doc):
    try:
        return parse_puzzle(doc)
    except PuzzleError:
        return None


@SETTINGS
@given(doc=puzzle_documents())
def test_has_rule_rows_answers_as_R_on_random_puzzles(doc):
    puzzle = _parsed(doc)
    if puzzle is None:
        return
    model = build_model(puzzle)
    assert has_rule_rows(puzzle) == (build_rule_rows(puzzle, model.convention).rhs.size > 0)


def test_has_rule_rows_answers_as_R_on_the_shipped_puzzles():
    checked = 0
    for doc in _documents():
        puzzle = _parsed(doc)
        if puzzle is None:
            continue
        fresh = build_model(puzzle)
        want = build_rule_rows(puzzle, fresh.convention).rhs.size > 0
        assert has_rule_rows(puzzle) == want == build_model(parse_puzzle(doc)).has_rules
        checked += 1
    assert checked >= 240


def test_the_blocks_are_built_once_shared_and_read_only():
    doc = json.loads((ROOT / "bench" / "dfsrules_set.jsonl").open().readline())["document"]
    puzzle = parse_puzzle(doc)
    first = kind_blocks(puzzle)
    assert first and all(again[1] is blocks for again, (_, blocks) in zip(kind_blocks(puzzle), first))
    block = first[0][1][0]
    with pytest.raises(ValueError, match="read-only"):
        block.coef[0] = 7
    # R reads the same blocks: its rows are theirs, in order
    R = build_model(puzzle).R
    assert R.rhs.size == sum(b.n_rows for _, blocks in first for b in blocks)
    assert np.array_equal(R.rhs, np.concatenate([b.rhs for _, blocks in first for b in blocks]).astype(float))


def test_a_kind_left_out_is_not_built():
    """dfsrules leaves sandwich clues' rows out (its kernel handles them): they are not built."""
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "sandwich", "clue": "r1c0", "sum": 5},
                                              {"rule": "thermo", "cells": ["r2c1", "r2c2"]}]}
    puzzle = parse_puzzle(doc)
    assert [of_kind[0].kind for of_kind, _ in kind_blocks(puzzle, frozenset({"sandwich"}))] == ["thermo"]
    assert set(shape_cache(puzzle)["kind_blocks"]) == {"thermo"}
    assert [of_kind[0].kind for of_kind, _ in kind_blocks(puzzle)] == [k[0].kind for k in rules_by_kind(puzzle)]
    assert set(shape_cache(puzzle)["kind_blocks"]) == {"thermo", "sandwich"}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(4, "2x2"), (6, "2x3"), (9, "3x3")]), st.data())
def test_every_rule_of_an_always_adding_kind_adds_rows(shape, data):
    """ALWAYS_ADD_ROWS lets has_rule_rows skip building a kind's rows: each such rule must add some."""
    n, box = shape
    assert ALWAYS_ADD_ROWS == {"sandwich"}   # a kind added here needs its sampler below
    line = data.draw(st.integers(1, n))
    clue = f"r{line}c0" if data.draw(st.booleans()) else f"r0c{line}"
    total = data.draw(st.integers(0, n * (n - 1) // 2 - 1))
    puzzle = _parsed({"size": n, "box": box, "rules": [{"rule": "sandwich", "clue": clue, "sum": total}]})
    if puzzle is None:
        return
    of_kind, = rules_by_kind(puzzle)
    assert sum(b.n_rows for b in type(of_kind[0]).rows_of(of_kind, puzzle.board)) > 0
