"""``python -m pipeline solve`` on a 16x16 puzzle file written in the hexadoku alphabet ``0-F``
(``0`` a value, ``.`` empty): it solves the puzzle the file holds, every ``0`` clue kept, and
prints the answer line in the same alphabet; an ambiguous grid is refused with exit 2."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
ONE_TO_G, ZERO_TO_F = "123456789ABCDEFG", "0123456789ABCDEF"


def _run(*args):
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "pipeline", *map(str, args)], capture_output=True, text=True,
                          cwd=PROJECT, env=env, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def _first_16x16(data_dir: Path) -> tuple[str, str]:
    """The data set's first 16x16 puzzle with one solution and its reference answer (1-G)."""
    with open(data_dir / "sets" / "16x16_classic.ref.csv", newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["n_solutions_capped"] == "1")
    return row["puzzle"], row["solution"]


def test_solve_a_0_to_F_file_keeps_every_clue(data_dir, tmp_path):
    puzzle, solution = _first_16x16(data_dir)
    shift = str.maketrans(ONE_TO_G, ZERO_TO_F)   # the same puzzle, each digit written one lower
    text = puzzle.translate(shift)
    assert "0" in text and "." in text and "G" not in text   # it has '0' clues: the old reader lost them
    path = tmp_path / "hexadoku.txt"
    path.write_text("\n".join(text[k:k + 16] for k in range(0, 256, 16)) + "\n")
    code, out, err = _run("solve", path, "--format", "line")
    assert code == 0, err
    answer = out.strip()
    assert answer == solution.translate(shift)   # the reference answer, in 0-F
    kept = [k for k, ch in enumerate(text) if ch != "."]
    assert all(answer[k] == text[k] for k in kept)   # every clue, the '0' ones too


def test_solve_refuses_an_ambiguous_file(data_dir, tmp_path):
    _, solution = _first_16x16(data_dir)
    path = tmp_path / "full.txt"   # a full 0-F grid: or 1-G with '0' empty and no 'G'?
    path.write_text(solution.translate(str.maketrans(ONE_TO_G, ZERO_TO_F)) + "\n")
    code, out, err = _run("solve", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "ambiguous 16x16 grid" in err and "Traceback" not in err


def test_verify_reads_a_full_0_to_F_answer_in_0_to_F(data_dir, tmp_path):
    # no --puzzle: a full grid, '0' once a row and a column, no 'G': an answer has no empty cells,
    # so it is a 0-F answer (it was read as 1-G with its 16 '0' cells empty: "16 cells are empty")
    _, solution = _first_16x16(data_dir)
    answer = solution.translate(str.maketrans(ONE_TO_G, ZERO_TO_F))
    path = tmp_path / "answer.txt"
    for text in (answer, "\n".join(" ".join(answer[k:k + 16]) for k in range(0, 256, 16))):
        path.write_text(text + "\n")
        code, out, err = _run("verify", path)
        assert (code, err) == (0, ""), out
        assert out.startswith("ok: valid classic 16x16 grid")
    total = int(answer[0], 16) + int(answer[1], 16)   # a --rule speaks values, as solve reads it
    cage = '{"rule": "cage", "cells": ["R1C1", "R1C2"], "sum": %d}'
    assert _run("verify", path, "--rule", cage % total)[0] == 0
    assert _run("verify", path, "--rule", cage % (total + 2))[0] == 1
    swapped = answer[0] + answer[2] + answer[1] + answer[3:]   # r1c2 and r1c3 exchanged: columns break
    path.write_text(swapped + "\n")
    code, out, err = _run("verify", path)
    assert code == 1 and "empty" not in out
    assert f"column 2 has value {int(answer[2], 16)} twice" in out


def test_verify_keeps_1_to_G_and_its_messages(data_dir, tmp_path):
    _, solution = _first_16x16(data_dir)
    path = tmp_path / "answer.txt"
    path.write_text(solution + "\n")
    assert _run("verify", path)[0] == 0
    path.write_text("0" + solution[1:] + "\n")   # a 'G' in it: 1-G, '0' an empty cell as ever
    code, out, _ = _run("verify", path)
    assert code == 1 and out == "invalid: cell (1, 1) is empty\n"


def test_draw_shows_a_0_to_F_answer_in_its_puzzle_values(data_dir, tmp_path, monkeypatch, capsys):
    # draw --grid reads the answer as verify --puzzle does, in the 0-F puzzle's values 0..15: its
    # '0' cells are the value 0 (drawn "0"), not empty, in each form solve prints it
    import pipeline.cli.commands.draw as draw_module
    from pipeline.cli.main import main
    puzzle, solution = _first_16x16(data_dir)
    shift = str.maketrans(ONE_TO_G, ZERO_TO_F)
    text, answer = puzzle.translate(shift), solution.translate(shift)
    (tmp_path / "p.txt").write_text(text + "\n")
    drawn, real = {}, draw_module.draw_grid

    def spy_on(puzzle, grid=None, **kw):
        fig = real(puzzle, grid, **kw)
        drawn.update({c.get_gid(): len(c.get_offsets()) for c in fig.axes[0].collections
                      if (c.get_gid() or "").startswith("filled-")})
        return fig

    monkeypatch.setattr(draw_module, "draw_grid", spy_on)
    zeros = [k for k, ch in enumerate(answer) if ch == "0" and text[k] == "."]   # filled '0' cells
    assert zeros   # the old reading left them empty
    for form in ("line", "grid", "json"):
        capsys.readouterr()
        assert main(["solve", str(tmp_path / "p.txt"), "--format", form]) == 0
        (tmp_path / "a.txt").write_text(capsys.readouterr().out)
        drawn.clear()
        assert main(["draw", str(tmp_path / "p.txt"), "--grid", str(tmp_path / "a.txt"),
                     "--to", str(tmp_path / "d.svg")]) == 0
        assert drawn.get("filled-0") == len(zeros), (form, drawn)
        assert sum(drawn.values()) == text.count(".") and "filled-16" not in drawn, form
