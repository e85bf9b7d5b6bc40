"""Fixtures shared by the CLI tests."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

ONE_TO_G, ZERO_TO_F = "123456789ABCDEFG", "0123456789ABCDEF"
SHIFT = str.maketrans(ONE_TO_G, ZERO_TO_F)


@pytest.fixture
def hexadoku(data_dir, tmp_path):
    """(puzzle file, its text, the answer in 0-F): the data set's first 16x16 with one solution,
    written in 0-F with every '0' clue removed (so it reads as 1-G), and its reference answer."""
    with open(Path(data_dir) / "sets" / "16x16_classic.ref.csv", newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["n_solutions_capped"] == "1")
    text = row["puzzle"].translate(SHIFT).replace("0", ".")
    answer = row["solution"].translate(SHIFT)
    assert "0" not in text and "G" not in text and "0" in answer  # either reading of the puzzle
    path = tmp_path / "p.txt"
    path.write_text(text + "\n")
    return path, text, answer
