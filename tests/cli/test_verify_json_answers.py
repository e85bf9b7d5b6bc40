"""``verify`` takes the JSON answer ``solve --format json`` (and ``import``) prints, as it takes the
grid ``solve`` prints: it was refused as 'a puzzle document where a grid was expected'."""
from __future__ import annotations

import json

import pytest

from pipeline.cli.main import main
from pipeline.core.errors import PuzzleError
from pipeline.core.parse import parse_grid

PUZZLES = [
    "1........2......",                                                              # classic 4x4
    json.dumps({"size": 4, "box": "2x2", "values": "0-3", "givens": "0..............."}),  # a value set
    json.dumps({"size": 6, "box": "2x3", "givens": "1" + "." * 35, "rules": [{"rule": "antiknight"}]}),
]


@pytest.mark.parametrize("puzzle", PUZZLES, ids=["classic", "values", "antiknight"])
def test_solves_json_answer_verifies_against_its_puzzle(capsys, tmp_path, puzzle):
    assert main(["solve", puzzle, "--format", "json", "--no-unique-check"]) == 0
    answer = tmp_path / "answer.json"
    answer.write_text(capsys.readouterr().out)
    assert main(["verify", str(answer), "--puzzle", puzzle]) == 0
    assert capsys.readouterr().out.startswith("ok: valid ")
    grid = json.loads(answer.read_text())["grid"]
    grid[0][0], grid[0][1] = grid[0][1], grid[0][0]   # two cells swapped: a column repeats, or a clue is lost
    answer.write_text(json.dumps({"grid": grid}))
    assert main(["verify", str(answer), "--puzzle", puzzle]) == 1
    assert capsys.readouterr().out.startswith("invalid: ")


def test_the_rules_alone_read_the_answer_grid():
    assert parse_grid('{"grid": [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]], "status": "optimal"}'
                      ).tolist()[1] == [3, 4, 1, 2]


@pytest.mark.parametrize("grid", ["[[1, 2], [3]]", "[[1, 2], [3, true]]", "[]", "[[1.5]]", "3", f"[[{10 ** 40}]]"])
def test_a_grid_field_that_is_no_grid_is_one_line(grid):
    with pytest.raises(PuzzleError) as e:
        parse_grid('{"grid": ' + grid + "}")
    assert "\n" not in str(e.value)


def test_a_puzzle_document_is_still_no_grid():
    with pytest.raises(PuzzleError, match="a puzzle document .* where a grid was expected"):
        parse_grid('{"size": 4, "givens": "1..............."}')
