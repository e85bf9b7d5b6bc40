"""A layout's answer as solve prints it reads back everywhere a grid is taken: verify --puzzle,
draw --grid and draw --highlight diff:, in each of solve's forms (grid, line, JSON), on a square
canvas (a samurai) and on a wide one (two grids side by side)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WIDE = {"size": 9, "layout": {"grids": ["r1c1", "r1c4"]}, "givens": ""}   # a 9x12 canvas


@pytest.fixture(params=["wide", "samurai"])
def puzzle(request, tmp_path):
    if request.param == "samurai":
        return str(EXAMPLES / "samurai.json")
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(WIDE))
    return str(path)


def _answer(puzzle: str, form: str, tmp_path: Path, capsys) -> str:
    assert main(["solve", puzzle, "--format", form]) == 0
    path = tmp_path / f"answer_{form}.txt"
    path.write_text(capsys.readouterr().out)
    return str(path)


@pytest.mark.parametrize("form", ["grid", "line", "json"])
def test_verify_reads_solves_answer_of_a_layout(puzzle, form, tmp_path, capsys):
    # a 9x12 canvas read as a square: "matrix is 9-by-12: must be N-by-3 or N-by-N"
    answer = _answer(puzzle, form, tmp_path, capsys)
    assert main(["verify", answer, "--puzzle", puzzle]) == 0
    assert capsys.readouterr().out.startswith("ok: valid")


@pytest.mark.parametrize("form", ["grid", "json"])
def test_draw_takes_solves_answer_of_a_layout_as_its_grid(puzzle, form, tmp_path, capsys):
    # only the compact line was read: "a samurai canvas has 21x21 = 441 cells, found 1011 characters"
    pytest.importorskip("matplotlib", reason="draw needs matplotlib (extra 'plot')")
    answer = _answer(puzzle, form, tmp_path, capsys)
    assert main(["draw", puzzle, "--grid", answer, "--to", str(tmp_path / "a.svg")]) == 0
    assert main(["draw", puzzle, "--solution", "--highlight", f"diff:{answer}", "--to", str(tmp_path / "b.svg")]) == 0
    assert (tmp_path / "a.svg").read_bytes().startswith(b"<?xml")


def test_a_grid_of_another_shape_is_one_line_naming_the_option(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="draw needs matplotlib (extra 'plot')")
    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps(WIDE))
    answer = _answer(str(wide), "grid", tmp_path, capsys)
    assert main(["draw", str(EXAMPLES / "samurai.json"), "--grid", answer, "--to", str(tmp_path / "c.svg")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --grid {answer}: ") and err.count("\n") == 1 and not (tmp_path / "c.svg").exists()


@pytest.mark.parametrize("form", ["grid", "json"])
def test_an_answer_of_another_layouts_shape_is_refused_not_reflowed(form, tmp_path, capsys):
    # a 9x12 answer read for a 12x9 puzzle, cell after cell: 78 made-up violations, a picture
    wide, tall = tmp_path / "wide.json", tmp_path / "tall.json"
    wide.write_text(json.dumps(WIDE))
    tall.write_text(json.dumps({**WIDE, "layout": {"grids": ["r1c1", "r4c1"]}}))
    answer = _answer(str(wide), form, tmp_path, capsys)
    assert main(["verify", answer, "--puzzle", str(tall)]) == 2
    assert capsys.readouterr().err.endswith(f"{answer}: the grid has 9 rows, the puzzle 12 (12x9)\n")
    pytest.importorskip("matplotlib", reason="draw needs matplotlib (extra 'plot')")
    assert main(["draw", str(tall), "--grid", answer, "--to", str(tmp_path / "t.svg")]) == 2
    assert "the grid has 9 rows, the puzzle 12" in capsys.readouterr().err


def test_draw_refuses_a_digit_in_a_layouts_absent_cell(tmp_path, capsys):
    # verify named it; the picture left it out without a word
    pytest.importorskip("matplotlib", reason="draw needs matplotlib (extra 'plot')")
    offset = tmp_path / "offset.json"
    offset.write_text(json.dumps({**WIDE, "layout": {"grids": ["r1c1", "r4c4"]}}))
    line = _answer(str(offset), "line", tmp_path, capsys)
    filled = tmp_path / "filled.txt"
    filled.write_text(Path(line).read_text().replace(".", "5", 1))
    assert main(["draw", str(offset), "--grid", str(filled), "--to", str(tmp_path / "x.svg")]) == 2
    assert capsys.readouterr().err == (f"error: --grid {filled}: r1c10 holds 5 but is outside every grid of the "
                                       "layout\n")
    assert not (tmp_path / "x.svg").exists()
