"""A 16x16 puzzle written in hexadoku's ``0-F`` with no ``0`` clue reads as ``1-G`` (its clues
mean the same values either way, bar ``0`` and ``G``): its ``0-F`` answer's ``0`` cells read as
empty, so ``verify --puzzle`` said "16 cells are empty" of a right answer and ``draw --grid`` left
them blank. Such an answer (``0`` cells, no ``G``) is read in ``0-F``."""

from __future__ import annotations

from pathlib import Path


import pipeline
import pipeline.cli.commands.draw as draw_module
from pipeline.cli.main import main

def _verify(capsys, puzzle: Path, answer: str, tmp_path: Path) -> tuple[int, str]:
    (tmp_path / "a.txt").write_text(answer + "\n")
    code = main(["verify", "--puzzle", str(puzzle), str(tmp_path / "a.txt")])
    return code, capsys.readouterr().out


def test_verify_reads_a_0_to_F_answer_of_a_puzzle_with_no_0_clue(hexadoku, tmp_path, capsys):
    path, text, answer = hexadoku
    code, out = _verify(capsys, path, answer, tmp_path)
    assert code == 0 and out.startswith("ok: valid classic 16x16 solution"), out
    assert pipeline.verify(text, answer)  # the API reads it so too


def test_verify_refuses_a_wrong_0_to_F_answer_by_its_rules(hexadoku, tmp_path, capsys):
    path, text, answer = hexadoku
    # two cells of row 1 swapped, neither a '0' (so the grid stays 0-F) nor a clue: a column breaks
    a, b = [k for k in range(16) if answer[k] != "0" and text[k] == "."][:2]
    wrong = list(answer)
    wrong[a], wrong[b] = wrong[b], wrong[a]
    code, out = _verify(capsys, path, "".join(wrong), tmp_path)
    assert code == 1 and "twice" in out and "empty" not in out, out
    assert not pipeline.verify(text, "".join(wrong))


def test_the_same_answer_in_1_to_G_still_verifies(hexadoku, tmp_path, capsys):
    path, _, answer = hexadoku
    code, out = _verify(capsys, path, answer.replace("0", "G"), tmp_path)  # '0' is G in 1-G, the rest alike
    assert code == 0 and out.startswith("ok: "), out


def test_an_answer_with_0_twice_a_row_keeps_0_empty(hexadoku, tmp_path, capsys):
    """'0' twice in a row is no 0-F grid: its '0' cells are empty, as before."""
    path, _, answer = hexadoku
    partial = answer.replace("0", "G")
    partial = "00" + partial[2:]
    code, out = _verify(capsys, path, partial, tmp_path)
    assert code == 1 and "2 cells are empty: (1, 1) and (1, 2)" in out, out


def test_draw_shows_the_0_to_F_answer_in_0_to_F(hexadoku, tmp_path, monkeypatch, capsys):
    path, text, answer = hexadoku
    (tmp_path / "a.txt").write_text(answer + "\n")
    drawn, real = {}, draw_module.draw_grid

    def spy_on(puzzle, grid=None, **kw):
        fig = real(puzzle, grid, **kw)
        drawn.update(
            {
                c.get_gid(): len(c.get_offsets())
                for c in fig.axes[0].collections
                if (c.get_gid() or "").startswith("filled-")
            }
        )
        return fig

    monkeypatch.setattr(draw_module, "draw_grid", spy_on)
    assert main(["draw", str(path), "--grid", str(tmp_path / "a.txt"), "--to", str(tmp_path / "d.svg")]) == 0
    assert drawn.get("filled-0") == answer.count("0") == 16  # each '0' cell is the value 0, none empty
    assert sum(drawn.values()) == text.count(".") and "filled-16" not in drawn, drawn
