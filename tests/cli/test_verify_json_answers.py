"""``verify`` takes the JSON answer ``solve --format json`` (and ``import``) prints, as it takes the
grid ``solve`` prints: it was refused as 'a puzzle document where a grid was expected'."""
from __future__ import annotations

import json

import pytest

from pipeline.cli.main import main
from pipeline.core.errors import PuzzleError
from pipeline.core.parse import default_box, parse_grid

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


@pytest.mark.parametrize("box", ["3x2", "4x2", "2x4"])
@pytest.mark.parametrize("form", ["json", "grid"])
def test_an_answer_of_other_boxes_verifies_without_its_puzzle(capsys, tmp_path, box, form):
    """``solve P --box 3x2 --format json | verify -`` said "box 1 has digit 4 twice" of a valid
    answer: the rules alone took the side's squarest boxes. solve's JSON now names other boxes
    ("box"), and its grid draws them; verify reads the shape from either."""
    h, w = map(int, box.split("x"))
    assert main(["solve", "1" + "." * ((h * w) ** 2 - 1), "--box", box,
                 "--format", form, "--no-unique-check"]) == 0
    answer = tmp_path / "answer.txt"
    answer.write_text(capsys.readouterr().out)
    if form == "json":   # the side's squarest (2x4 for 8) goes without saying
        assert json.loads(answer.read_text()).get("box") == (None if (h, w) == default_box(h * w) else box)
    assert main(["verify", str(answer)]) == 0
    assert capsys.readouterr().out == f"ok: valid classic {h * w}x{h * w} grid (rules only: no --puzzle, no clues checked)\n"
    drawn: list = []
    parse_grid(str(answer), drawn=drawn)
    assert drawn == [(h, w) if form == "grid" or (h, w) != default_box(h * w) else None]
    assert main(["verify", str(answer), "--box", f"{w}x{h}"]) == 1   # a box given wins: the other shape breaks
    capsys.readouterr()


def test_the_squarest_boxes_are_not_named():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "pipeline", "solve", "1" + "." * 35, "--format", "json", "--no-unique-check"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "box" not in json.loads(r.stdout)


@pytest.mark.parametrize("box, others", [("3x2", ["3x2"]), ("4x3", ["4x3"]), ("2x6", ["2x6"])])
def test_a_line_of_other_boxes_is_told_the_box_it_is_valid_with(capsys, box, others):
    """A ``--format line`` answer says nothing of its boxes: a 6x6 of 3x2 boxes read as the
    default 2x3 broke them with no word of why (a carried-over finding)."""
    h, w = map(int, box.split("x"))
    assert main(["solve", "1" + "." * ((h * w) ** 2 - 1), "--box", box, "--format", "line", "--no-unique-check"]) == 0
    line = capsys.readouterr().out.strip()
    assert main(["verify", line]) == 1
    out = capsys.readouterr().out.splitlines()
    dh, dw = default_box(h * w)
    assert out[-1] == (f"hint: the grid is valid with --box {' or --box '.join(others)} (its boxes were taken as "
                       f"{dh}x{dw}, the default for {h * w}x{h * w})")
    assert all(text.startswith("invalid: box ") for text in out[:-1]) and len(out) > 1
    assert main(["verify", line, "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["hint"] == out[-1].removeprefix("hint: ")
    assert main(["verify", line, "--box", box]) == 0


def test_a_grid_valid_with_no_box_shape_gets_no_hint(capsys):
    line = "1234" "3412" "2143" "4311"   # a repeat in row 4: no box shape mends it
    assert main(["verify", line]) == 1
    assert "hint" not in capsys.readouterr().out


def test_a_grid_of_other_boxes_checked_against_its_puzzle_is_told_the_box_too(capsys, tmp_path):
    """With ``--puzzle`` (a line of givens says nothing of its boxes) the hint was left out."""
    assert main(["solve", "12345" + "." * 31, "--box", "3x2", "--format", "line", "--no-unique-check"]) == 0
    line = capsys.readouterr().out.strip()
    assert main(["verify", line, "--puzzle", "12345" + "." * 31]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "hint: the grid is valid with --box 3x2 (its boxes were taken as 2x3, the default for 6x6)"
    assert main(["verify", line, "--puzzle", "12345" + "." * 31, "--box", "3x2"]) == 0
    wrong = line.replace("1", "x").replace("2", "1").replace("x", "2")   # breaks the clues: no box mends it
    assert main(["verify", wrong, "--puzzle", "12345" + "." * 31]) == 1
    assert "hint" not in capsys.readouterr().out


def test_a_latin_square_that_breaks_every_box_shape_is_told_so(capsys):
    line = "".join("123456"[k:] + "123456"[:k] for k in range(6))   # cyclic rows: no box shape holds
    assert main(["verify", line]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        "hint: the grid is a valid Latin square (each digit once a row and a column): give --variant latin if its "
        "puzzle has no boxes")
    assert main(["verify", line, "--variant", "latin"]) == 0


@pytest.mark.parametrize("extra, status, message", [
    ([], "infeasible", "the puzzle has no solution (infeasible)"),
    (["--time-limit", "0.001"], "time_limit", "not started: the time limit of 0.001 s is too short"),
])
def test_solve_in_json_without_an_answer_prints_an_object_too(capsys, extra, status, message):
    """A script reading ``solve --format json``'s stdout got nothing when there was no answer,
    where count, rate and explain print an object."""
    puzzle = (("419.6....2.....7...........3..4.1..........91....5..6....2.34...51.........7.....")
              if status == "infeasible" else "." * 36 ** 2)
    code = main(["solve", puzzle, "--format", "json", *extra])
    out, err = capsys.readouterr()
    answer = json.loads(out)
    assert code == 1 and answer["grid"] is None and answer["line"] is None and answer["status"] == status
    assert answer["message"].startswith(message) and err == f"no solution: {answer['message']}\n"
