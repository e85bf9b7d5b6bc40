"""``import`` of an answer that breaks rules lists every violation, as ``verify`` does (it once
printed only the first of sixteen knight's-move repeats)."""
from __future__ import annotations

import json

import numpy as np

from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers.highs import solve

PUZZLE = {"size": 4, "box": "2x2", "rules": [{"rule": "antiknight"}]}
ANSWER = "1,2,3,4\n3,4,1,2\n2,1,4,3\n4,3,2,1\n"   # a sudoku whose every digit repeats a knight's move apart


def test_import_lists_every_violation_verify_lists(capsys, tmp_path):
    doc = tmp_path / "p.json"
    doc.write_text(json.dumps(PUZZLE))
    assert main(["export", str(doc), "--to", str(tmp_path / "out"), "--formats", "csv", "--quiet"]) == 0
    answer = tmp_path / "out" / "sudoku.csv"
    answer.write_text(ANSWER)
    capsys.readouterr()
    assert main(["verify", str(answer), "--puzzle", str(doc)]) == 1
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 16 and all(line.startswith("invalid: ") and "knight's move" in line for line in listed)
    assert main(["import", str(answer)]) == 1
    assert capsys.readouterr().err.splitlines() == listed
    assert main(["import", str(answer), "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is False and [f"invalid: {v['message']}" for v in out["violations"]] == listed


SKYSCRAPERS = {"size": 4, "box": "2x2", "givens": "..2.............",
               "rules": [{"rule": "skyscraper", "clue": "r5c4", "count": 4}, {"rule": "skyscraper", "clue": "r5c1", "count": 2},
                         {"rule": "skyscraper", "clue": "r2c0", "count": 2}, {"rule": "skyscraper", "clue": "r2c5", "count": 2}]}


def test_an_answer_whose_auxiliary_columns_break_the_rows_is_not_verified(capsys, tmp_path):
    """A valid grid with a skyscraper's auxiliary columns edited: the exit status was 1, but the
    JSON said ``"verified": true`` and stderr named ``|Aeq x - beq|`` for an ``Aineq`` row."""
    doc = tmp_path / "p.json"
    doc.write_text(json.dumps(SKYSCRAPERS))
    assert main(["export", str(doc), "--to", str(tmp_path / "out"), "--formats", "lp", "--quiet"]) == 0
    model = build_model(parse_puzzle(SKYSCRAPERS))
    x = np.rint(solve(model, threads=1).x)
    answer = tmp_path / "out" / "answer.sol"
    answer.write_text("".join(f"{name} {v:g}\n" for name, v in zip(model.col_names, x)))
    capsys.readouterr()
    assert main(["import", str(answer), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] is True
    aux = np.flatnonzero(model.columns >= model.convention.n_vars)
    x[aux[0]] = 1 - x[aux[0]]
    answer.write_text("".join(f"{name} {v:g}\n" for name, v in zip(model.col_names, x)))
    assert main(["import", str(answer), "--format", "json"]) == 1
    out, err = capsys.readouterr()
    verdict = json.loads(out)
    assert verdict["verified"] is False and verdict["violations"] == [] and verdict["residual"] >= 1
    labels = set(model.row_labels) | set(model.ineq_labels)
    broken = verdict["message"].removeprefix("the grid is valid, but the answer breaks row ").split(" (A")[0]
    assert broken in labels and str(model.col_names[aux[0]]).startswith("aux_")
    assert err == f"invalid: {verdict['message']} (residual {verdict['residual']:g})\n"
