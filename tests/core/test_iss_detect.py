"""The ISS check alone (pipeline/core/iss_detect.py): other formats are read, and a rule puzzle is
solved, without importing the ISS reader; with dfsrules, without python-sat and scipy's sparse
matrices either (what a `solve` process pays at start-up, issue 34)."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys

import pytest

from pipeline.core.iss_detect import looks_like_iss
from pipeline.core.puzzle import parse_puzzle

THERMO = {"size": 9, "givens": "........4............51.....2....6.7..8.6.42..........6.1..........7....9........",
          "rules": [{"rule": "thermo", "cells": ["r1c6", "r1c7", "r2c7", "r2c8", "r3c9"]},
                    {"rule": "thermo", "cells": ["r1c2", "r1c1", "r2c1", "r2c2", "r2c3", "r1c3"]},
                    {"rule": "thermo", "cells": ["r7c5", "r8c5", "r7c4", "r8c4"]},
                    {"rule": "thermo", "cells": ["r9c9", "r8c9", "r7c8"]},
                    {"rule": "thermo", "cells": ["r8c6", "r9c7", "r9c6", "r8c7", "r7c7"]},
                    {"rule": "thermo", "cells": ["r4c7", "r4c6", "r4c5"]}]}


@pytest.mark.parametrize(("text", "iss"), [(".Cage~15~R1C1~R1C2.~R3C3_4", True), (".AntiKnight", True),
                                           (".~R1C1_5", True), ("..3.2.6..", False), (".Aa", False),
                                           ('{"size": 4}', False), (None, False),
                                           ("..Cage~15~R1C1~R1C2", True), ("...~R1C1_5", True)])
def test_what_reads_as_an_iss_string(text, iss):
    assert looks_like_iss(text) is iss


def test_empty_items_before_the_first_read_as_iss_skips_them():
    """'..Shape~4x4...' fell to the grid reader ("wrong length"); ISS skips empty items anywhere."""
    text = ".Shape~4x4.Cage~7~R1C1~R1C2.AntiKing.~R2C2_3"
    assert parse_puzzle("." + text) == parse_puzzle(text)


def _modules_after_solve(path, *names: str) -> list[str]:
    code = ("import atexit, runpy, sys\n"
            f"atexit.register(lambda: print([m for m in {list(names)!r} if m in sys.modules], file=sys.stderr))\n"
            f"sys.argv = ['pipeline', 'solve', {str(path)!r}]\n"
            "runpy.run_module('pipeline', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"'))


def test_a_rule_puzzle_is_solved_without_the_iss_reader(tmp_path):
    path = tmp_path / "thermo.json"
    path.write_text(json.dumps(THERMO))
    assert _modules_after_solve(path, "pipeline.core.iss", "pipeline.core.iss_table") == []


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="dfsrules needs numba (the fast extra)")
def test_dfsrules_solves_without_asking_for_the_sat_encoders(tmp_path):
    path = tmp_path / "thermo.json"
    path.write_text(json.dumps(THERMO))
    assert _modules_after_solve(path, "pysat", "scipy.sparse") == []


def test_an_iss_string_is_still_read(tmp_path):
    path = tmp_path / "p.iss"
    path.write_text(".~R1C1_1.~R1C2_2.Shape~4x4")
    done = subprocess.run([sys.executable, "-m", "pipeline", "solve", str(path), "--format", "line"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.startswith("12"), done.stderr


def test_the_formats_page_lists_every_iss_type_the_reader_takes():
    from pathlib import Path

    from pipeline.core.iss_table import READERS

    page = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text(encoding="utf-8")
    section = page.split("## Reading ISS constraint strings", 1)[1].split("\n## ", 1)[0]
    listed = section.split("The constraint types read", 1)[1].split("\n- ", 1)[0]
    assert sorted(set(re.findall(r"`(\w+)`", listed))) == sorted(READERS)


@pytest.mark.parametrize("text,iss", [
    (".Shape~4x4" + ".AntiKing" * 250_000, True),          # 2.25 million characters
    (".AntiKing" * 250_000, True),
    ("1" * 2_100_000, False),                               # a (wrong) compact grid stays one
    (".A" + "." * 2_100_000, False),
])
def test_an_iss_string_past_the_limit_is_still_one_and_refused_by_its_length(text, iss):
    """An outside probe: past 2,000,000 characters an ISS string read as a compact grid ("wrong
    length: expected a square number of cells"); it is told by its start and refused by its size."""
    from pipeline.core.errors import PuzzleError
    from pipeline.core.puzzle import parse_puzzle
    assert looks_like_iss(text) is iss
    if iss:
        with pytest.raises(PuzzleError, match=r"ISS string of [0-9,]+ characters; at most 2,000,000"):
            parse_puzzle(text)
