"""``draw --to X.svg`` on the core install (no matplotlib): the notebook renderer draws the
puzzle, ``--grid``/``--solution`` digits, ``--highlight`` shading and ``--candidates`` marks
(pipeline/cli/commands/draw.py). It used to refuse the last three for want of matplotlib."""
from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

import pytest

from oracles import PROJECT
from pipeline.cli.main import main
from pipeline.core.puzzle import parse_puzzle
from pipeline.tools.draw import candidates, read_grid, violations

NS = {"s": "http://www.w3.org/2000/svg"}
EXAMPLES = PROJECT / "examples"


@pytest.fixture
def no_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # what the core install has


def _draw(tmp_path, capsys, *args) -> ET.Element:
    target = tmp_path / "x.svg"
    assert main(["draw", *map(str, args), "--to", str(target)]) == 0
    assert capsys.readouterr().out == f"wrote {target} (the core install's SVG; the plot extra draws PNG and PDF too)\n"
    return ET.fromstring(target.read_text())


def _texts(root, name) -> list:
    group = root.find(f".//s:g[@class='{name}']", NS)
    return [] if group is None else group.findall("s:text", NS)


def test_a_wrong_grid_with_its_violations_shaded(tmp_path, capsys, no_matplotlib):
    puzzle = parse_puzzle(EXAMPLES / "puzzle.txt")
    root = _draw(tmp_path, capsys, EXAMPLES / "puzzle.txt", "--grid", EXAMPLES / "solved_wrong.txt",
                 "--highlight", "violations", "--highlight", "r9c9")
    grid = read_grid(str(EXAMPLES / "solved_wrong.txt"), puzzle)
    assert len(_texts(root, "solution")) == int(((grid != 0) & (puzzle.grid == 0)).sum())
    shaded = root.find(".//s:g[@class='highlight']/s:path", NS).get("d").count("M")
    want = violations(puzzle, grid)
    want[8, 8] = True
    assert 0 < shaded == int(want.sum())


def test_candidates_of_the_clues_and_of_a_solution(tmp_path, capsys, no_matplotlib):
    puzzle = parse_puzzle(EXAMPLES / "killer.json")
    marks = _texts(_draw(tmp_path, capsys, EXAMPLES / "killer.json", "--candidates"), "candidates")
    assert len(marks) == int(candidates(puzzle).sum()) > 0
    solved = _draw(tmp_path, capsys, EXAMPLES / "killer.json", "--solution", "--candidates", "--time-limit", "60")
    assert len(_texts(solved, "solution")) == 81 and _texts(solved, "candidates") == []


def test_a_value_set_draws_its_values(tmp_path, capsys, no_matplotlib):
    root = _draw(tmp_path, capsys, ".Shape~6x6~0-8.~R1C1_0~R2C2_8", "--candidates")
    assert sorted(t.text for t in _texts(root, "clues")) == ["0", "8"]
    first_row = {t.text for t in _texts(root, "candidates")
                 if float(t.get("y")) < float(root.get("height")) / 6}
    assert first_row == {str(v) for v in range(1, 9)}   # values 1..8, not 0 (the row has it); indices were 1..6


def test_png_still_names_the_plot_extra(tmp_path, capsys, no_matplotlib):
    assert main(["draw", "--candidates", "--to", str(tmp_path / "x.png")]) == 2
    assert "needs matplotlib (the plot extra)" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("symbols, first", [("letters", ["5", "C", "G"]), ("numbers", ["5", "12", "16"]),
                                            ("auto", ["5", "12", "16"])])   # auto: as grid16.txt spells them
def test_digits_past_nine_as_the_symbols_say(tmp_path, capsys, no_matplotlib, symbols, first):
    root = _draw(tmp_path, capsys, EXAMPLES / "grid16.txt", "--symbols", symbols, "--candidates")
    assert [t.text for t in _texts(root, "clues")][:3] == first
    assert {t.text for t in _texts(root, "candidates")} >= {first[1], first[2]}


def test_a_solution_whose_rule_rows_outlast_the_time_limit_is_not_started(tmp_path, capsys, no_matplotlib):
    # draw --solution built the rows outside the limit: 10.8 s for --time-limit 2
    import json
    doc = {"size": 25, "rules": [{"rule": "skyscraper", "clue": f"r0c{c}", "count": 3} for c in range(1, 26)]}
    (tmp_path / "sky.json").write_text(json.dumps(doc))
    target = tmp_path / "x.svg"
    assert main(["draw", str(tmp_path / "sky.json"), "--solution", "--time-limit", "1", "--to", str(target)]) == 1
    err = capsys.readouterr().err
    assert "no solution: not started: the time limit of 1 s is too short (building the rule rows alone" in err
    assert not target.exists()
