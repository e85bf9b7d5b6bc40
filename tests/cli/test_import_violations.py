"""``import`` of an answer that breaks rules lists every violation, as ``verify`` does (it once
printed only the first of sixteen knight's-move repeats)."""
from __future__ import annotations

import json

from pipeline.cli.main import main

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
