"""Grids printed by the command line on a puzzle with a value set (issue 33): every command
shows the values, as ``solve`` does, never the digit indices 1..V."""
from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.cli.main import main
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.values import parse_value_grid
from pipeline.core.verify import verify_grid

# 6x6 with the values 0..8 (nine values on a side of six): R1C1 holds 0, R2C2 holds 8
VALUE_SET = ".Shape~6x6~0-8.~R1C1_0~R2C2_8"


def call(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def value_set_file(tmp_path):
    path = tmp_path / "values.txt"
    path.write_text(VALUE_SET + "\n")
    return path


def _check_value_line(line: str) -> None:
    """A listed grid is in values: the givens' values where they stand, and it solves the puzzle."""
    assert len(line) == 36 and set(line) <= set("012345678"), line
    assert line[0] == "0" and line[7] == "8", line   # R1C1 = 0, R2C2 = 8 (digit indices: 1 and 9)
    puzzle = parse_puzzle(VALUE_SET)
    grid = parse_value_grid(line, 6, tuple(range(9)))
    assert verify_grid(grid, puzzle).ok


def test_count_list_prints_values(capsys, value_set_file):
    code, out, _ = call(capsys, "count", value_set_file, "--list", "--limit", "3")
    lines = out.strip().splitlines()
    assert code == 0 and lines[0].startswith("3 ")
    assert len(lines) == 4
    for line in lines[1:]:
        _check_value_line(line)


def test_count_list_json_prints_values(capsys, value_set_file):
    code, out, _ = call(capsys, "count", value_set_file, "--list", "--limit", "2", "--format", "json")
    solutions = json.loads(out)["solutions"]
    assert code == 0 and len(solutions) == 2
    for line in solutions:
        _check_value_line(line)


def test_count_list_and_solve_agree_on_one_solution(capsys, tmp_path):
    # a unique 0..3 puzzle: count --list and solve --format line print the same line
    path = tmp_path / "unique.txt"
    path.write_text(".Shape~4x4~0-3.~R1C1_0~R1C2_1~R1C3_2~R2C1_2~R2C2_3~R3C1_1~R3C3_3~R4C4_0\n")
    code, out, _ = call(capsys, "count", path, "--list")
    assert code == 0 and out.splitlines()[0].startswith("1 ")
    listed = out.splitlines()[1]
    code, solved, _ = call(capsys, "solve", path, "--format", "line")
    assert code == 0 and solved.strip() == listed
    assert listed[0] == "0" and "4" not in listed


def test_count_list_without_a_value_set_prints_digits(capsys):
    code, out, _ = call(capsys, "count", "1..." "..3." ".4.." "...2", "--list")
    assert code == 0
    line = out.splitlines()[1]
    assert np.array_equal(sorted(line[:4]), list("1234"))


def test_api_grid_is_digit_indices_and_shown_gives_the_cli_values(capsys, value_set_file):
    # pipeline.solve(p).grid holds digits 1..V (README, api.solve); puzzle.shown(grid) the values
    import pipeline
    from pipeline.core.values import value_grid_text
    puzzle = pipeline.read_puzzle(value_set_file)
    result = pipeline.solve(puzzle, unique=False)
    assert result.grid.min() >= 1 and result.grid[0, 0] == 1 and result.grid[1, 1] == 9
    shown = puzzle.shown(result.grid)
    assert shown[0, 0] == 0 and shown[1, 1] == 8
    _check_value_line(value_grid_text(result.grid, puzzle.values))
    assert "".join(map(str, shown.ravel().tolist())) == value_grid_text(result.grid, puzzle.values)


def test_rate_refuses_a_value_set_in_one_line(capsys, value_set_file):
    # rate raised an IndexError (9 values, 6 candidates a cell)
    code, out, err = call(capsys, "rate", value_set_file)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "value set" in err and "0..8" in err and "Traceback" not in err


def _explained(text: str):
    from pipeline.tools.explain import explain

    return explain(text)


def _clues_iss(shape: str, clues) -> str:
    return shape + ".~" + "~".join(f"R{r + 1}C{c + 1}_{v}" for r, c, v in clues)


def test_explain_names_values_on_an_infeasible_puzzle_of_a_value_set():
    """The conflict and the fewest removals are clues in values (0 is a value, not an empty cell),
    and they are right: the conflicting clues alone have no solution, the rest without the
    removals has one."""
    import pipeline
    from pipeline.core.puzzle import parse_puzzle

    shape = ".Shape~6x6~0-5"
    text = shape + ".~R1C1_0~R1C4_3~R1C5_5~R2C1_5~R2C4_4~R3C1_4~R3C3_0~R3C4_1~R4C1_3~R4C2_1~R4C4_5~R4C6_2" \
                   "~R5C1_2~R5C4_0~R5C5_1~R6C1_1~R6C4_2"
    found = _explained(text)
    assert found.status == "infeasible" and found.conflict and found.remove
    clues = {(int(t[1]) - 1, int(t[3]) - 1, int(t[5])) for t in text.split("~")[3:]}
    assert set(found.conflict) <= clues and set(found.remove) <= clues
    assert pipeline.count(parse_puzzle(_clues_iss(shape, found.conflict))).count == 0
    assert pipeline.count(parse_puzzle(_clues_iss(shape, sorted(clues - set(found.remove)))), 1).count == 1
    assert "r3c3=0" in found.text() or any(v == 0 for _, _, v in found.conflict + found.remove)


def test_explain_adds_clues_in_values_until_a_puzzle_of_more_values_is_unique():
    """6x6 with the values 0..8 (more values than the side: units hold each at most once)."""
    import pipeline
    from pipeline.core.puzzle import parse_puzzle

    shape = ".Shape~6x6~0-8"
    found = _explained(shape + ".~R1C1_0~R1C2_8")
    assert found.status == "multiple" and found.add
    assert all(0 <= v <= 8 for _, _, v in found.add)
    completed = parse_puzzle(_clues_iss(shape, [(0, 0, 0), (0, 1, 8), *found.add]))
    assert pipeline.count(completed).count == 1


def test_explain_of_a_unique_puzzle_of_a_value_set_says_it_is_not_rated(capsys, value_set_file):
    import pipeline

    puzzle = pipeline.read_puzzle(value_set_file)
    solved = pipeline.solve(puzzle, unique=False)
    full = puzzle.shown(solved.grid)
    shape = ".Shape~6x6~0-8"
    text = _clues_iss(shape, [(r, c, int(full[r, c])) for r in range(6) for c in range(6)])
    found = _explained(text)
    assert found.status == "unique" and found.rating is None
    assert found.text().endswith("rating: none (the rater takes the digits 1..N of a square grid, not a value set or a "
                                 "rectangle)")
