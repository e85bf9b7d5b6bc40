"""``verify GRID --rule ...`` without ``--puzzle``: the rules named on the command line are checked
too (they were once dropped: a grid full of knight's-move repeats was reported valid)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def test_size_without_puzzle_is_the_grids_own_size_in_every_form(capsys, tmp_path):
    """``--size`` says how large the claimed grid is, whether it is one line, rows of cells or CSV."""
    assert main(["solve", "..2..1....4..4.."]) == 0
    rows = tmp_path / "g4.txt"
    rows.write_text(capsys.readouterr().out)
    csv = tmp_path / "g4.csv"
    csv.write_text("1,2,3,4\n3,4,1,2\n2,1,4,3\n4,3,2,1\n")
    for grid, where in ((str(rows), str(rows)), (str(csv), str(csv)), ("1,2,3,4,3,4,1,2,2,1,4,3,4,3,2,1", "grid")):
        assert main(["verify", grid, "--size", "9"]) == 2
        assert capsys.readouterr().err.strip().endswith(f"error: {where}: --size 9 but the grid is 4x4"), grid
        assert main(["verify", grid, "--size", "4"]) == 0
        assert capsys.readouterr().out.startswith("ok: valid classic 4x4 grid")


def test_a_layouts_grid_is_measured_by_its_whole_canvas(capsys, tmp_path):
    samurai = str(EXAMPLES / "samurai.json")
    assert main(["verify", "1234", "--puzzle", samurai]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "error: grid: wrong length: expected 441 cells (21x21 from the puzzle), found 4")
    assert main(["verify", "1221", "--puzzle", samurai]) == 1
    assert capsys.readouterr().out == "invalid: grid is 2x2, puzzle is 21x21\n"
    assert main(["solve", samurai]) == 0
    solution = tmp_path / "samurai.txt"
    solution.write_text(capsys.readouterr().out)
    assert main(["verify", str(solution), "--puzzle", samurai]) == 0
    assert capsys.readouterr().out.startswith("ok: valid classic samurai (5 grids of 9x9) solution")


def test_a_puzzle_document_given_as_the_grid_is_named_as_one(capsys, tmp_path):
    """A JSON document or an f-puzzles link where the grid goes used to be read as rows of cells
    (``line 2 has 2 cells``); it is one line naming what it is, also from standard input."""
    inline = json.dumps({"puzzle": "." * 81})
    for grid in (str(EXAMPLES / "samurai.json"), str(EXAMPLES / "antiknight_antiking.fpuzzles"), inline):
        assert main(["verify", grid, "--puzzle", str(EXAMPLES / "puzzle.txt")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "a puzzle document (JSON, f-puzzles or ISS) where a grid was expected" in err[0], err
    # the same document as the puzzle is read as one
    assert main(["verify", str(EXAMPLES / "solved.txt"), "--puzzle", str(EXAMPLES / "killer.json")]) in (0, 1)
    assert "a puzzle document" not in capsys.readouterr().err


def test_a_grid_of_a_value_set_is_read_in_its_values_in_every_printed_form(capsys, tmp_path):
    """On the values 0..3 a 0 is a value, not an empty cell: what ``solve`` prints (boxes and
    separator lines, or one line) verifies against the puzzle, and a wrong value is named."""
    puzzle = tmp_path / "v4.json"
    puzzle.write_text(json.dumps({"size": 4, "values": "0-3", "givens": "0..............."}))
    for form in ("grid", "line"):
        assert main(["solve", str(puzzle), "--format", form]) == 0
        printed = capsys.readouterr().out.strip()
        assert "0" in printed
        grid = tmp_path / f"{form}.txt"
        grid.write_text(printed + "\n")
        assert main(["verify", str(grid), "--puzzle", str(puzzle)]) == 0, form
        assert capsys.readouterr().out.startswith("ok: valid"), form
    line = (tmp_path / "line.txt").read_text().strip()
    swapped = line[1] + line[0] + line[2:]      # breaks row 1's clue and two columns
    assert main(["verify", swapped, "--puzzle", str(puzzle)]) == 1
    assert "invalid" in capsys.readouterr().out
    assert main(["verify", line[:-1] + "7", "--puzzle", str(puzzle)]) == 2
    assert capsys.readouterr().err.strip() == "error: grid: r4c4: 7 is not one of the values 0-3"


def test_verify_reads_the_extra_cells_solve_prints_after_the_grid(tmp_path):
    """solve prints a puzzle's extra cells as 'S: 1 2' lines after the grid; verify reads them
    back and judges the rules that use them (it refused the lines as a short grid row)."""
    import json
    import subprocess
    import sys

    doc = {"size": 4, "givens": "1234341221434321", "extra": [{"name": "S", "size": 2}, {"name": "T"}],
           "rules": [{"rule": "cage", "cells": ["r1c1", "S1", "S2"], "sum": 8},
                     {"rule": "thermo", "cells": ["T", "r1c2", "r2c2"]}]}
    puzzle = tmp_path / "extra.json"
    puzzle.write_text(json.dumps(doc))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, timeout=120)

    solved = run("solve", str(puzzle), "--no-unique-check")
    assert solved.returncode == 0 and "\nS: " in solved.stdout and "\nT: " in solved.stdout, solved.stderr
    answer = tmp_path / "answer.txt"
    answer.write_text(solved.stdout)
    ok = run("verify", str(answer), "--puzzle", str(puzzle))
    assert ok.returncode == 0 and ok.stdout.startswith("ok: "), ok.stdout + ok.stderr
    # T must be below r1c2 = 2: T = 1 only; a T of 3 breaks the thermometer, named
    broken = tmp_path / "broken.txt"
    broken.write_text("\n".join("T: 3" if line.startswith("T:") else line for line in solved.stdout.splitlines()))
    bad = run("verify", str(broken), "--puzzle", str(puzzle))
    assert bad.returncode == 1 and "thermo" in bad.stdout, bad.stdout + bad.stderr
    missing = tmp_path / "missing.txt"
    missing.write_text("\n".join(line for line in solved.stdout.splitlines() if not line.startswith("T:")))
    refused = run("verify", str(missing), "--puzzle", str(puzzle))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "extra cells T" in refused.stderr


def test_a_grid_without_its_extra_cells_is_judged_with_digits_found_for_them(tmp_path):
    """An outside probe: with no 'S:' lines the rules over extra cells were judged with the cells
    empty, so a grid no digits of them can complete was called valid (ISS's Bates Motel with
    digits 1 and 2 swapped). The cage {S, r1c1} adds up to 3: r1c1 is 1 or 2."""
    import json
    import subprocess
    import sys

    import numpy as np

    from pipeline.core.puzzle import parse_puzzle
    from pipeline.solvers.extra_cells import extra_cells_for

    doc = {"size": 4, "extra": [{"name": "S"}], "rules": [{"rule": "cage", "cells": ["S", "r1c1"], "sum": 3}]}
    puzzle = tmp_path / "extra.json"
    puzzle.write_text(json.dumps(doc))

    def run(grid):
        return subprocess.run([sys.executable, "-m", "pipeline", "verify", grid, "--puzzle", str(puzzle)],
                              capture_output=True, text=True, timeout=120)

    wrong = run("3412123443212143")
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert wrong.stdout == "invalid: no digits of the extra cells (S) meet the rules with this grid\n"
    right = run("1234341221434321")
    assert right.returncode == 0 and right.stdout.startswith("ok: "), right.stdout + right.stderr
    parsed = parse_puzzle(doc)
    digits, problem = extra_cells_for(np.array([int(c) for c in "1234341221434321"]).reshape(4, 4), parsed)
    assert problem is None and digits.tolist() == [2]
    assert extra_cells_for(np.zeros((4, 4), dtype=int), parse_puzzle({"size": 4})) == (None, None)


def test_import_of_a_grid_answer_finds_the_extra_cells_or_refuses_the_grid(tmp_path):
    """The same through ``import``: a MATLAB-style ``sudoku.csv`` holds the grid alone."""
    import json
    import subprocess
    import sys

    doc = {"size": 4, "extra": [{"name": "S"}], "rules": [{"rule": "cage", "cells": ["S", "r1c1"], "sum": 3}]}
    puzzle = tmp_path / "extra.json"
    puzzle.write_text(json.dumps(doc))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, timeout=120,
                              cwd=tmp_path)

    assert run("export", str(puzzle), "--to", "out", "--formats", "csv", "--quiet").returncode == 0
    for grid, code in (("3412123443212143", 1), ("1234341221434321", 0)):
        (tmp_path / "out" / "sudoku.csv").write_text("\n".join(",".join(grid[r * 4:r * 4 + 4]) for r in range(4)) + "\n")
        done = run("import", "out/sudoku.csv")
        assert done.returncode == code, done.stdout + done.stderr
    assert "S: 2" in done.stdout


def test_an_empty_grid_file_is_named_as_the_grid(capsys, tmp_path):
    """The grid verify checks, empty (or a header alone), is "expected a grid": it said "expected a
    puzzle" of the grid's own file (outside check)."""
    puzzle = tmp_path / "ok4.txt"
    puzzle.write_text("1...\n..3.\n.4..\n...2\n")
    for text, said in (("", "empty input"), ("# only a comment\n", "empty input"), ("c1,c2\n", "only a header line"),
                       # one column's name alone was read as 6 cells ("wrong length ... found 6")
                       ("puzzle\n", "only a header line ('puzzle')"), ("Solution\r\n", "only a header line ('Solution')"),
                       # words (a batch record "hello world" was "only a header line")
                       ("hello world\n", "'hello world' is words, not cells")):
        grid = tmp_path / "grid.txt"
        grid.write_text(text)
        assert main(["verify", str(grid), "--puzzle", str(puzzle)]) == 2
        assert capsys.readouterr().err == f"error: {grid}: {said}: expected a grid\n"


def test_a_rule_word_of_another_name_is_pointed_to_its_kind(capsys):
    """``--rule killer`` listed sixty kinds without saying that a killer cage is ``cage``."""
    with pytest.raises(SystemExit) as stop:
        main(["solve", str(EXAMPLES / "puzzle.txt"), "--rule", "killer"])
    assert stop.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("sudoku-pipeline solve: error: argument --rule: unknown rule 'killer' (did you mean 'cage'?); "
                           "expected one of windoku"), last


def test_a_grid_below_the_variants_least_side_is_refused_by_its_size_as_solve_refuses_it(capsys):
    """'verify 1234' said "grid: bad character '3' ... a 2x2 cell is ... one of 1..2": the
    character check ran before the size check ('verify 12..' named the size)."""
    assert main(["verify", "1234"]) == 2
    assert capsys.readouterr().err.startswith("error: puzzle: a 2x2 grid is not a puzzle: classic puzzles are 4x4 and "
                                              "larger (a Latin square from 2x2: --variant latin)")
    assert main(["verify", "1234", "--variant", "latin"]) == 2
    assert capsys.readouterr().err.startswith("error: grid: bad character '3' at position 3 (row 2, column 1): a 2x2 cell")
