"""The PUZZLE argument's help and the README's list of input forms name every form the readers
take, ISS constraint strings included (issue 33), and such a string is read as text or as a file."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from pipeline.cli.main import build_parser, main

PROJECT = Path(__file__).resolve().parents[2]
ISS = ".Shape~6x6~0-8.~R1C1_0~R2C2_8"


def _help(command: str) -> str:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return " ".join(sub.choices[command].format_help().split())


@pytest.mark.parametrize("command", ["solve", "count", "export"])
def test_puzzle_help_names_iss_strings(command):
    text = _help(command)
    puzzle = text[text.index("PUZZLE a compact line"):]
    assert "f-puzzles link" in puzzle and "ISS" in puzzle and "constraint string" in puzzle


def test_readme_puzzle_list_names_iss_strings():
    readme = " ".join((PROJECT / "README.md").read_text().split())
    sentence = re.search(r"Every command reads a `PUZZLE`:(.*?)standard input", readme).group(1)
    assert "f-puzzles link" in sentence and "ISS" in sentence
    cli = " ".join((PROJECT / "docs" / "cli.md").read_text().split())
    listed = re.search(r"`PUZZLE` is (.*?)standard input", cli).group(1)
    assert "ISS" in listed and "JSON puzzle document" in listed


@pytest.mark.parametrize("as_file", [False, True])
def test_an_iss_string_is_a_puzzle(capsys, tmp_path, as_file):
    path = tmp_path / "p.iss.txt"
    path.write_text(ISS + "\n")
    assert main(["solve", str(path) if as_file else ISS, "--format", "line"]) == 0
    line = capsys.readouterr().out.strip()
    assert line[0] == "0" and line[7] == "8"
