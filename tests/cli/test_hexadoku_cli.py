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
