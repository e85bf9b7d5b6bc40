"""``verify GRID --rule ...`` without ``--puzzle``: the rules named on the command line are checked
too (they were once dropped: a grid full of knight's-move repeats was reported valid)."""
from __future__ import annotations

import json
from pathlib import Path

from pipeline.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_verify_checks_the_rules_given_on_the_command_line(capsys):
    grid = str(EXAMPLES / "solved.txt")
    assert main(["verify", grid]) == 0
    capsys.readouterr()
    assert main(["verify", grid, "--rule", "antiknight", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and out["violations"]
    assert all("knight's move apart" in v["message"] for v in out["violations"])


def test_a_grid_that_keeps_the_rules_is_valid_and_the_message_names_them(capsys):
    assert main(["solve", str(EXAMPLES / "miracle.json"), "--format", "line"]) == 0
    line = capsys.readouterr().out.strip()
    assert main(["verify", line, "--rule", "antiknight", "--rule", "antiking", "--rule", "nonconsecutive"]) == 0
    assert capsys.readouterr().out.strip() == ("ok: valid classic 9x9 grid with antiknight, antiking, nonconsecutive "
                                               "(rules only: no --puzzle, no clues checked)")
