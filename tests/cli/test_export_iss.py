"""``export --formats iss`` (issue 33, part 1): the puzzle's ISS string as ``puzzle.iss.txt`` in an
export directory, listed in the manifest; ``--to NAME.iss`` and ``--to -``; never part of
``--formats all`` (a samurai exports whole), and a puzzle ISS cannot hold refused in one line."""
from __future__ import annotations

import json

import pytest

from oracles import PROJECT
from formats.directory import exporting_formats, named_only_formats, resolve_formats
from formats.files import file_sha256
from pipeline.cli.main import main
from pipeline.core.puzzle import parse_puzzle

KILLER = PROJECT / "examples" / "killer.json"
SAMURAI = PROJECT / "examples" / "draw_samurai.json"
RULES = {"size": 9, "givens": ["r5c5=3"], "rules": [
    {"rule": "littlekiller", "sum": 20, "cells": ["r1c3", "r2c2", "r3c1"], "clue": "r0c4"},
    {"rule": "xv", "letter": "x", "cells": ["r9c1", "r9c2"]}, {"rule": "strictxv"},
    {"rule": "sum", "sum": 4, "cells": ["r1c1", "r5c9"], "weights": [2, -1]}]}


def call(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("source", [KILLER, "rules"])
def test_export_writes_the_puzzle_as_iss_and_lists_it(tmp_path, capsys, source):
    if source == "rules":
        source = tmp_path / "rules.json"
        source.write_text(json.dumps(RULES))
    out = tmp_path / "out"
    code, printed, err = call(capsys, "export", source, "--to", out, "--formats", "iss")
    assert code == 0, err
    text = (out / "puzzle.iss.txt").read_text()
    assert text.count("\n") == 1 and text.endswith("\n") and text.startswith(".")
    assert parse_puzzle(text.strip()).to_document() == parse_puzzle(str(source)).to_document()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"] == {"iss": ["puzzle.iss.txt"]}
    assert manifest["sha256"]["puzzle.iss.txt"] == file_sha256(out / "puzzle.iss.txt")
    assert call(capsys, "check", out)[0] == 0


def test_all_leaves_iss_out_and_a_samurai_exports_whole(tmp_path, capsys):
    assert "iss" not in exporting_formats() and named_only_formats() == ["iss"]
    assert [f.name for f in resolve_formats("all,iss")] == exporting_formats() + ["iss"]
    code, _, err = call(capsys, "export", SAMURAI, "--to", tmp_path / "all", "--quiet")
    assert code == 0, err
    assert not (tmp_path / "all" / "puzzle.iss.txt").exists()
    assert "iss" not in json.loads((tmp_path / "all" / "manifest.json").read_text())["files"]


@pytest.mark.parametrize("to", ["dir", "one.iss", "-"])
def test_a_puzzle_iss_cannot_hold_is_one_line(tmp_path, capsys, to):
    target = "-" if to == "-" else tmp_path / to
    code, out, err = call(capsys, "export", SAMURAI, "--to", target, "--formats", "iss")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "samurai layout has no ISS form" in lines[0], err
    written = tmp_path / to
    assert not written.exists() or (written.is_dir() and not any(written.iterdir()))   # no file written


def test_single_file_and_standard_output(tmp_path, capsys):
    path = tmp_path / "killer.iss"
    code, printed, err = call(capsys, "export", KILLER, "--to", path)
    assert code == 0 and "(iss, one file)" in printed and "import SOLUTION" not in printed, err
    text = path.read_text()
    assert parse_puzzle(text.strip()).to_document() == parse_puzzle(str(KILLER)).to_document()
    assert json.loads((tmp_path / "killer.iss.manifest.json").read_text())["files"] == {"iss": ["killer.iss"]}
    code, printed, err = call(capsys, "export", KILLER, "--to", "-", "--formats", "iss")
    assert code == 0 and printed == text, err
