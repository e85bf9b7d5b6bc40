"""``export`` of puzzles with rules beyond units: the summary counts the <= rows, and the MATLAB
lines it prints pass Aineq/bineq to intlinprog (naming files the export wrote); a samurai's
lines leave the grid to the vector's import (its columns are the present cells)."""
from __future__ import annotations

import re

from rule_models import RULES_DIR

from pipeline.cli.main import main
from pipeline.core.puzzle import parse_puzzle


def export(capsys, *args):
    code = main(["export", *map(str, args)])
    out = capsys.readouterr().out
    assert code == 0
    return out


def test_hint_passes_the_inequalities(capsys, tmp_path):
    out = export(capsys, RULES_DIR / "thermo9.json", "--to", tmp_path, "--formats", "csv")
    assert re.search(r"\(\d+ x 729, \d+ nonzeros, and \d+ <= rows\)", out)
    assert "x = intlinprog(f, 1:numel(f), Aineq, bineq, Aeq, beq, lb, ub);" in out
    named = re.findall(r"'([^']+\.csv)'", out)
    assert any(name.endswith("Aineq_ijv.csv") for name in named) and any(n.endswith("bineq.csv") for n in named)
    written = {p.name for p in tmp_path.iterdir()}
    assert all(name.rsplit("/", 1)[-1] in written | {"sudoku.csv"} for name in named)


def test_hint_of_a_samurai_keeps_the_vector(capsys, tmp_path):
    out = export(capsys, RULES_DIR / "samurai.json", "--to", tmp_path, "--formats", "csv")
    assert "intlinprog(f, 1:numel(f), [], [], Aeq, beq, lb, ub)" in out
    assert "reshape" not in out and "x.csv" in out


def test_plain_hint_is_unchanged(capsys, tmp_path):
    out = export(capsys, "1......2........", "--to", tmp_path, "--formats", "csv")
    assert "Aineq" not in out and "<= rows" not in out
    assert "x = intlinprog(f, 1:numel(f), [], [], Aeq, beq, lb, ub);" in out


def test_summary_names_the_rules(capsys, tmp_path):
    # an arrow and a little killer on a 9x9 grid: the line names them, not "classic 9x9" alone
    doc = tmp_path / "rules.json"
    doc.write_text('{"size": 9, "rules": [{"rule": "arrow", "cells": ["r1c1", "r1c2", "r1c3"]}, '
                   '{"rule": "littlekiller", "sum": 15, "cells": ["r2c1", "r3c2", "r4c3"]}]}')
    out = export(capsys, doc, "--to", tmp_path / "out", "--formats", "lp")
    head = out.splitlines()[0]
    summary = head[len("exported "):head.index(" (")]
    assert "arrow" in summary and "little killer" in summary, head
    assert summary.startswith("9x9 classic, 0 clues; ")
    assert re.search(r"\(\d+ x 729, \d+ nonzeros(, and \d+ <= rows)?\) in ijk/F, clues as rows, to ", head)
    # the same words as the puzzle's own summary
    assert summary == parse_puzzle(doc).summary()
    plain = export(capsys, "1......2........", "--to", tmp_path / "plain", "--formats", "lp").splitlines()[0]
    assert plain.startswith("exported 4x4 classic, 2 clues (")
