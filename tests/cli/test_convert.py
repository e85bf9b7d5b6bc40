"""The convert subcommand: the target's extension or --format picks the format, '-' writes to
stdout, and an unsupported ISS type is one line with exit 2."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli.main import main

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "thermo.json")

ISS = ".Shape~4x4.Cage~7~R1C1~R1C2.AntiKing.~R2C2_3"


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pipeline", "convert", *args], capture_output=True, text=True, cwd=cwd)


def test_iss_to_fpuzzles_file_to_json_stdout_to_iss(tmp_path):
    target = tmp_path / "p.fpuzzles"
    assert run(ISS, "--to", str(target)).returncode == 0
    assert target.read_text().startswith("https://www.f-puzzles.com/?load=N4Ig")
    doc = json.loads(run(str(target), "--to", "-").stdout)
    # a link has no order across its kinds of element: the reader's comes back
    assert sorted(doc["rules"], key=json.dumps) == [{"rule": "antiking"}, {"rule": "cage", "cells": ["r1c1", "r1c2"],
                                                                             "sum": 7}]
    back = run(json.dumps(doc), "--to", "-", "--format", "iss")
    assert back.returncode == 0 and sorted(back.stdout.strip().split(".")) == sorted(ISS.split("."))


def test_iss_to_json_to_iss_keeps_the_string_as_written(tmp_path):
    """The rules in the order the string gave them, although the model takes them in another."""
    text = ".Shape~4x4.AntiKing.Cage~7~R1C1~R1C2.~R2C2_3"
    doc = json.loads(run(text, "--to", "-").stdout)
    assert [entry["rule"] for entry in doc["rules"]] == ["antiking", "cage"]
    back = run(json.dumps(doc), "--to", "-", "--format", "iss")
    assert back.returncode == 0 and back.stdout.strip() == text


def test_unsupported_type_is_one_line_exit_2(tmp_path):
    done = run(".Shape~9x9~0-8~Torus", "--to", str(tmp_path / "x.json"))   # a grid type ISS does not have
    assert done.returncode == 2 and "grid type 'Torus' is not supported" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "x.json").exists()


def test_what_f_puzzles_would_read_as_another_puzzle_is_refused(tmp_path):
    """A 6x8 was written as an 8x8 and a 0..5 value set as 1..6 (another solution), exit 0."""
    for source, said in ((".Shape~6x8.~R1C1_1", "a 6x8 grid has no f-puzzles form"),
                         (".Shape~6x6~0-8.~R1C1_0", "the value set 0-8 has no f-puzzles form (a 6x6 f-puzzles grid holds the digits 1-6)"),
                         # extra cells: the link kept a cage over S1, S2 that it could not read back
                         ('{"size": 4, "extra": [{"name": "S", "size": 2}], "rules": [{"rule": "cage", '
                          '"cells": ["S1", "S2", "r1c1"], "sum": 9}]}', "extra cells (S) have no f-puzzles form")):
        done = run(source, "--to", str(tmp_path / "x.fpuzzles"))
        assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert not (tmp_path / "x.fpuzzles").exists()


def test_a_windoku_goes_to_f_puzzles_as_its_windows(tmp_path):
    """window_units(...) or [] raised 'truth value of an array is ambiguous'."""
    doc = {"size": 9, "givens": "1" + "." * 80, "rules": [{"rule": "windoku"}]}
    target = tmp_path / "w.fpuzzles"
    assert run(json.dumps(doc), "--to", str(target)).returncode == 0
    back = json.loads(run(str(target), "--to", "-").stdout)
    assert len(back["rules"]) == 4 and {r["rule"] for r in back["rules"]} == {"extraregion"}


@pytest.mark.parametrize("ext", ["json.gz", "iss.gz", "fpuzzles.gz", "iss.txt.gz"])
def test_convert_writes_gzip_that_every_command_reads_back(tmp_path, capsys, ext):
    """export wrote p.iss.gz, which solve could not read; convert refused the extension."""
    import gzip

    out = tmp_path / f"thermo.{ext}"
    assert main(["convert", EXAMPLE, "--to", str(out)]) == 0
    assert gzip.decompress(out.read_bytes())   # really compressed
    capsys.readouterr()
    assert main(["solve", str(out), "--format", "line"]) == 0
    from_gz = capsys.readouterr().out
    assert main(["solve", EXAMPLE, "--format", "line"]) == 0
    assert from_gz == capsys.readouterr().out


def test_pencil_marks_go_to_f_puzzles_as_the_cells_given_marks(tmp_path):
    """The reader read givenPencilMarks, the writer refused a pencilmarks rule (an outside probe).
    Two rules on one cell are both kept (their common digits); none left is refused."""
    from pipeline import api
    doc = {"size": 4, "givens": "1" + "." * 15, "rules": [
        {"rule": "pencilmarks", "cells": ["r2c2", "r3c3"], "digits": [2, 4]},
        {"rule": "pencilmarks", "cells": ["r2c2"], "digits": [1, 2]}]}
    target = tmp_path / "p.fpuzzles"
    assert run(json.dumps(doc), "--to", str(target)).returncode == 0
    back = json.loads(run(str(target), "--to", "-").stdout)
    marks = {cell: r["digits"] for r in back["rules"] for cell in r["cells"]}
    assert marks == {"r2c2": [2], "r3c3": [2, 4]}
    assert api.count(str(target), limit=1000).count == api.count(doc, limit=1000).count == 12
    doc["rules"][1]["digits"] = [1, 3]
    done = run(json.dumps(doc), "--to", str(tmp_path / "q.fpuzzles"))
    assert done.returncode == 2 and "the marks of r2c2 leave no digit" in done.stderr


def test_a_documents_free_text_goes_where_the_target_holds_it_and_the_rest_is_said(tmp_path, capsys):
    # title, author, source and notes were dropped without a word, JSON to JSON too
    doc = {"title": "T", "author": "A", "source": "S", "notes": "N", "size": 4, "givens": "1..............."}
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(doc))
    assert main(["convert", str(src), "--to", "-"]) == 0
    out = capsys.readouterr()
    assert {k: json.loads(out.out)[k] for k in ("title", "author", "source", "notes")} == \
        {"title": "T", "author": "A", "source": "S", "notes": "N"} and "note:" not in out.err
    link = tmp_path / "doc.fpz"
    assert main(["convert", str(src), "--to", str(link)]) == 0
    assert "no place for the puzzle's source: not written" in capsys.readouterr().err
    assert main(["convert", str(link), "--to", "-"]) == 0   # f-puzzles' ruleset reads back as notes
    back = json.loads(capsys.readouterr().out)
    assert (back["title"], back["author"], back["notes"]) == ("T", "A", "N") and "source" not in back
    assert main(["convert", str(src), "--to", str(tmp_path / "doc.iss")]) == 0
    assert "has no place for the puzzle's title, author, source, notes: not written" in capsys.readouterr().err
    assert main(["convert", str(Path(__file__).resolve().parents[2] / "examples" / "puzzle.txt"), "--to",
                 str(tmp_path / "plain.iss")]) == 0
    assert "note:" not in capsys.readouterr().err   # a grid has no free text


def test_free_text_goes_along_from_inline_text_and_standard_input(tmp_path, monkeypatch, capsys):
    # a document or link given inline (with a '/' in it) or on stdin lost its title without a word
    import io

    doc = {"title": "T", "source": "https://example.com/p", "size": 4, "givens": "1..............."}
    assert main(["convert", json.dumps(doc), "--to", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "https://example.com/p"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(doc).encode())))
    assert main(["convert", "-", "--to", str(tmp_path / "d.iss")]) == 0
    assert "has no place for the puzzle's title, source: not written" in capsys.readouterr().err
    link = tmp_path / "d.fpz"
    assert main(["convert", json.dumps(doc), "--to", str(link)]) == 0
    capsys.readouterr()
    assert main(["convert", link.read_text().strip(), "--to", "-"]) == 0   # the link itself, inline
    assert json.loads(capsys.readouterr().out)["title"] == "T"
