"""``export`` of puzzles with rules beyond units: the summary counts the <= rows, and the MATLAB
lines it prints pass Aineq/bineq to intlinprog (naming files the export wrote); a samurai's
lines leave the grid to the vector's import (its columns are the present cells)."""
from __future__ import annotations

import re

from rule_models import RULES_DIR

from pipeline.cli.main import main


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
