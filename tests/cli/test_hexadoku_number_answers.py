"""A 16x16 puzzle written in ``0-F`` with no ``0`` clue reads as ``1-G``; its ``0-F`` answer is read
in ``0-F`` when written as a string (``tests/cli/test_hexadoku_answers.py``). The same answer written
as numbers 0..15 (rows of numbers, a boxed grid, a JSON array or solve's JSON answer) read its ``0``
cells as empty, so ``verify --puzzle`` said "16 cells are empty" of a right answer and ``draw --grid``
left them blank: it follows the string's rule (:func:`pipeline.core.hexadoku.zero_based_numbers`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pipeline
import pipeline.cli.commands.draw as draw_module
from pipeline.cli.main import main
from pipeline.core.claimed import read_claimed_grid
from pipeline.core.puzzle import parse_puzzle

ZERO_TO_F = "0123456789ABCDEF"


@pytest.fixture
def hexadoku(hexadoku):
    """(puzzle file, its text, the answer as rows of values 0..15): the string tests' 16x16
    (tests/cli/conftest.py), its 0-F answer as numbers."""
    path, text, answer = hexadoku
    return path, text, [[ZERO_TO_F.index(ch) for ch in answer[16 * r:16 * r + 16]] for r in range(16)]


def _numbers(rows: list[list[int]]) -> str:
    return "\n".join(" ".join(map(str, row)) for row in rows) + "\n"


def _boxed(rows: list[list[int]]) -> str:
    """As a printed grid: boxes 4x4 parted by '|' and ruled lines."""
    lines = []
    for r, row in enumerate(rows):
        if r and r % 4 == 0:
            lines.append("-" * 60)
        lines.append(" | ".join(" ".join(f"{v:2d}" for v in row[c:c + 4]) for c in range(0, 16, 4)))
    return "\n".join(lines) + "\n"


FORMS = {
    "numbers": _numbers,
    "boxed": _boxed,
    "json array": json.dumps,
    "json answer": lambda rows: json.dumps({"grid": rows}),
    # MATLAB's matrix syntax read its rows without the answer's alphabet: its 0 cells were empty
    "matlab matrix": lambda rows: "[" + ";\n".join(" ".join(map(str, row)) for row in rows) + "]\n",
    "flat json array": lambda rows: json.dumps([v for row in rows for v in row]),
}


def _verify(capsys, puzzle: Path, grid: str, tmp_path: Path, *more: str) -> tuple[int, str]:
    (tmp_path / "a.txt").write_text(grid)
    code = main(["verify", *more, "--puzzle", str(puzzle), str(tmp_path / "a.txt")])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("form", FORMS)
def test_verify_reads_a_0_to_15_answer_of_numbers(hexadoku, tmp_path, capsys, form):
    path, text, rows = hexadoku
    grid = FORMS[form](rows)
    code, out = _verify(capsys, path, grid, tmp_path)
    assert code == 0 and out.startswith("ok: valid classic 16x16 solution"), out
    assert out.count("\n") == 1
    assert pipeline.verify(text, grid)  # the API reads it so too


def test_a_wrong_0_to_15_answer_is_refused_by_its_rules(hexadoku, tmp_path, capsys):
    path, text, rows = hexadoku
    # two cells of row 1 swapped, neither a 0 (so the grid stays 0-based) nor a clue: a column breaks
    a, b = [k for k in range(16) if rows[0][k] and text[k] == "."][:2]
    rows[0][a], rows[0][b] = rows[0][b], rows[0][a]
    code, out = _verify(capsys, path, _numbers(rows), tmp_path)
    assert code == 1 and "twice" in out and "empty" not in out, out
    assert not pipeline.verify(text, _numbers(rows))


@pytest.mark.parametrize("form", ["numbers", "json array"])
def test_the_same_answer_in_1_to_16_still_verifies(hexadoku, tmp_path, capsys, form):
    path, _, rows = hexadoku
    # the value 0 is 16 in 1-G, the rest alike (the clues mean the same values either way)
    code, out = _verify(capsys, path, FORMS[form]([[v or 16 for v in row] for row in rows]), tmp_path)
    assert code == 0 and out.startswith("ok: "), out


def test_numbers_with_0_twice_a_row_keep_0_empty(hexadoku, tmp_path, capsys):
    """0 twice in a row is no 0-based grid: its 0 cells are empty, as before."""
    path, _, rows = hexadoku
    rows = [[v or 16 for v in row] for row in rows]
    rows[0][:2] = [0, 0]
    code, out = _verify(capsys, path, _numbers(rows), tmp_path)
    assert code == 1 and "2 cells are empty: (1, 1) and (1, 2)" in out, out


def test_an_empty_cell_of_a_0_to_15_answer_is_named_alone(hexadoku, tmp_path, capsys):
    """A '.' among the numbers stays empty; the 0 cells are values, not 17 empty cells."""
    path, text, rows = hexadoku
    k = next(c for c in range(16) if rows[0][c] and text[c] == ".")
    text = _numbers(rows).split("\n")
    text[0] = " ".join("." if c == k else str(v) for c, v in enumerate(rows[0]))
    code, out = _verify(capsys, path, "\n".join(text), tmp_path)
    assert code == 1 and out == f"invalid: cell (1, {k + 1}) is empty\n", out


def test_draw_shows_a_0_to_15_answer_in_0_to_F(hexadoku, tmp_path, monkeypatch, capsys):
    path, text, rows = hexadoku
    (tmp_path / "a.txt").write_text(_boxed(rows))
    drawn, real = {}, draw_module.draw_grid

    def spy_on(puzzle, grid=None, **kw):
        fig = real(puzzle, grid, **kw)
        drawn.update({c.get_gid(): len(c.get_offsets()) for c in fig.axes[0].collections
                      if (c.get_gid() or "").startswith("filled-")})
        return fig

    monkeypatch.setattr(draw_module, "draw_grid", spy_on)
    assert main(["draw", str(path), "--grid", str(tmp_path / "a.txt"), "--to", str(tmp_path / "d.svg")]) == 0
    assert drawn.get("filled-0") == 16  # each 0 cell is the value 0, none empty
    assert sum(drawn.values()) == text.count(".") and "filled-16" not in drawn, drawn


def test_verify_without_a_puzzle_reads_a_0_to_15_grid_as_a_0_to_F_string(hexadoku, tmp_path, capsys):
    _, _, rows = hexadoku
    (tmp_path / "a.json").write_text(json.dumps(rows))
    assert main(["verify", str(tmp_path / "a.json")]) == 0
    assert capsys.readouterr().out.startswith("ok: valid classic 16x16 grid")


def test_read_claimed_grid_reads_an_array_of_0_to_15_as_the_string(hexadoku):
    _, text, rows = hexadoku
    puzzle = parse_puzzle(text)
    as_string = read_claimed_grid("".join(ZERO_TO_F[v] for row in rows for v in row), puzzle)[0]
    assert (read_claimed_grid(np.array(rows), puzzle)[0] == as_string).all()
    assert (read_claimed_grid(np.array(rows, dtype=float), puzzle)[0] == as_string).all()
