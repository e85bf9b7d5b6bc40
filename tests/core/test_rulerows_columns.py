"""pipeline/core/rulerows.py: ``R``'s columns come from one table of the canvas positions (a
gather per term, no division), the same columns as the convention gives each term one by one."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.conventions import Convention
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rulerows import build_rule_rows, kind_blocks, rules_by_kind
from pipeline.core.rules.auxcols import AuxRule

#: whole-grid rules whose terms outnumber the variables (the table path) or not.
RULES = [[{"rule": "strictkropki"}], [{"rule": "nonconsecutive"}], [{"rule": "antiknight"}],
         [{"rule": "antitaxicab"}], [{"rule": "fullrank", "clue": "r0c3", "rank": 5}],
         [{"rule": "equalsum", "segments": [["r1c1", "r1c2"], ["r2c3"]]}, {"rule": "strictkropki"}]]


def _reference(puzzle, conv: Convention) -> list[tuple[int, int, float]]:
    """The rule rows' nonzeros, each term's column asked of the convention alone (brute force)."""
    out = []
    base = {}
    blocks_of = [blocks for _, blocks in kind_blocks(puzzle)]
    blocks_of += [type(rule).rows_of([rule], puzzle.board, 1) for of_kind in rules_by_kind(puzzle)
                  for rule in of_kind if isinstance(rule, AuxRule)]   # one clue each in RULES
    for blocks in blocks_of:
        for block in blocks:
            base.setdefault((block.family, block.sense), []).append(block)
    rr = build_rule_rows(puzzle, conv)
    start = 0
    for family, sense, count in rr.families:
        blocks, first = base[(family, sense)], start
        for block in blocks:
            for r, c, d, v in zip(block.row.tolist(), block.cell.tolist(), block.digit.tolist(), block.coef.tolist()):
                out.append((first + r, int(conv.position(c // puzzle.cols, c % puzzle.cols, d)), float(v)))
            first += block.n_rows
        start += count
    return sorted(out)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: "+".join(e["rule"] for e in r))
@pytest.mark.parametrize("size", [9, 16])
@pytest.mark.parametrize("scheme,order", [("ijk", "F"), ("block", "C")])
def test_rule_columns_match_the_convention_term_by_term(rules, size, scheme, order):
    puzzle = parse_puzzle({"size": size, "rules": rules})
    model = build_model(puzzle, scheme=scheme, order=order)
    rr = build_rule_rows(puzzle, model.convention)
    row, col, val = rr.entries
    n = col < model.convention.n_vars     # the cell terms (the auxiliary ones are counted apart)
    got = sorted(zip(row[n].tolist(), col[n].tolist(), val[n].astype(float).tolist()))
    if not any(e["rule"] == "fullrank" for e in rules):
        assert got == _reference(puzzle, model.convention)
    else:   # the auxiliary rules' rows are numbered rule by rule: compare the columns' multiset
        assert sorted(c for _, c, _ in got) == sorted(c for _, c, _ in _reference(puzzle, model.convention))


def test_big_rule_rows_ask_the_convention_once_per_variable(monkeypatch):
    """A 16x16 strict Kropki has 16 times more terms than variables: the convention is asked for
    each variable's position once (the table), not for each term's (a division per term took
    8.8 s of one full-rank clue's 32 M terms at 100x100)."""
    puzzle = parse_puzzle({"size": 16, "rules": [{"rule": "strictkropki"}]})
    conv = build_model(puzzle).convention
    asked = []
    position = Convention.position

    def counting(self, r, c, d):
        asked.append(np.size(d))
        return position(self, r, c, d)

    monkeypatch.setattr(Convention, "position", counting)
    rr = build_rule_rows(puzzle, conv)
    assert rr.entries[1].size > 4 * conv.n_vars
    assert sum(asked) <= conv.n_vars
