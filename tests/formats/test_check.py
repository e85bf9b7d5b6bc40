"""``check DIR`` (issue 21 section 2): a whole set passes; a changed byte, a missing file, a file
of another export, a model that is not the manifest's and a killed export's leftovers are one
line each (exit 1)."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from formats.check import check_export
from formats.directory import export_model
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle

PROJECT = Path(__file__).resolve().parents[2]
OTHER_PUZZLE = "..1...2....23....44........5.3....6..1......5..6..........78.......9.....7...1.9."
FOUR = "1.......2......3"


def run(*args):
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "pipeline", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=PROJECT, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def exported(tmp_path):
    out = tmp_path / "out"
    export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), out, "all", mps_style="both")
    (out / "notes.txt").write_text("a user's file is not the set's business\n")
    (out / "sudoku.csv").write_text("the MATLAB script's answer\n")
    return out


def listed(out: Path) -> list[str]:
    return [n for names in json.loads((out / "manifest.json").read_text())["files"].values() for n in names]


def test_a_whole_set_passes_and_every_model_is_read_back(exported):
    result = check_export(exported)
    assert result.problems == []
    assert result.files == len(listed(exported)) == len(set(listed(exported)))
    # Aeq.csv, Aeq_ijv.csv, Aeq_long.csv, model.mps, model_fixed.mps, model.lp, Parquet, .mat, .cnf, .opb
    assert result.models == 10


@pytest.mark.parametrize("name", ["model.mps", "beq.csv", "model.mat", "model_rows.parquet", "solve_sudoku.m",
                                  "model.cnf"])
def test_a_changed_byte_is_found(exported, name):
    path = exported / name
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    assert check_export(exported).problems == [
        f"{path}: changed since the export (its SHA-256 is not the one manifest.json records)"]


def test_a_missing_file_is_found(exported):
    (exported / "model.lp").unlink()
    assert check_export(exported).problems == [f"{exported / 'model.lp'}: missing (manifest.json lists it)"]


def test_a_file_of_another_export_is_found(exported, tmp_path):
    other = tmp_path / "other"
    export_model(build_model(parse_puzzle(OTHER_PUZZLE)), other, "csv")
    export_model(build_model(parse_puzzle(OTHER_PUZZLE)), tmp_path / "lp", "lp")
    # B's model.lp dropped into an export of A that wrote no LP file; B's beq.csv over A's
    only_csv = tmp_path / "only_csv"
    export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), only_csv, "csv")
    shutil.copy(tmp_path / "lp" / "model.lp", only_csv / "model.lp")
    shutil.copy(other / "beq.csv", only_csv / "beq.csv")
    problems = check_export(only_csv).problems
    assert problems == [
        f"{only_csv / 'beq.csv'}: changed since the export (its SHA-256 is not the one manifest.json records)",
        f"{only_csv / 'model.lp'}: not part of this export (manifest.json does not list it): a file of another export",
    ]


def test_a_users_own_files_are_left_alone_and_named(exported, capsys):
    from pipeline.cli.main import main
    (exported / "notes.csv").write_text("my notes\n")
    (exported / "my_answer.csv").write_text("1,2,3\n")
    result = check_export(exported)
    assert not result.problems and result.others == ["my_answer.csv", "notes.csv"]
    assert main(["check", str(exported)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == f"{exported}: not checked, not written by an export: my_answer.csv, notes.csv"
    # a set with a problem names them too: they were left unsaid, as if checked
    with open(exported / "beq.csv", "a") as f:
        f.write("1\n")
    assert main(["check", str(exported)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{exported / 'beq.csv'}: changed since the export")
    assert out[-1] == f"{exported}: not checked, not written by an export: my_answer.csv, notes.csv"


def test_every_file_an_export_writes_is_a_registered_name(tmp_path):
    """The names check takes for another export's are the ones the writers use: a full export of
    a model with inequality rows and reduced columns writes none outside them."""
    from formats.base import FORMATS
    puzzle = parse_puzzle({"givens": "1" + "." * 80, "rules": [{"rule": "antiknight"}]})
    export_model(build_model(puzzle, clues="reduce"), tmp_path / "all", list(FORMATS), mps_style="both")
    names = {p.name for p in (tmp_path / "all").iterdir()} - {"manifest.json"}
    registered = {name for fmt in FORMATS.values() for name in fmt.file_names}
    assert names and names <= registered
    assert {"Aineq_ijv.csv", "kept_columns.csv", "model_fixed_names.csv", "puzzle.iss.txt"} <= names


def test_a_model_that_is_not_the_manifests_is_found_even_with_matching_digests(exported, tmp_path):
    """B's model.mps put in with its digest written into A's manifest: the hashes agree, the
    model read back does not."""
    b = tmp_path / "b"
    export_model(build_model(parse_puzzle(OTHER_PUZZLE)), b, "mps")
    shutil.copy(b / "model.mps", exported / "model.mps")
    meta = json.loads((exported / "manifest.json").read_text())
    meta["sha256"]["model.mps"] = hashlib.sha256((exported / "model.mps").read_bytes()).hexdigest()
    (exported / "manifest.json").write_text(json.dumps(meta, indent=2) + "\n")
    problems = check_export(exported).problems
    assert len(problems) == 1
    assert problems[0].startswith(f"{exported / 'model.mps'}: the model read back is not the manifest's: ")


def test_no_manifest_and_a_killed_exports_leftovers(exported):
    (exported / "manifest.json").unlink()
    problems = check_export(exported).problems
    assert problems == [f"{exported / 'manifest.json'}: missing: {exported} holds no whole export set"]
    (exported / ".sudoku-export.abcd1234.tmp").mkdir()
    assert check_export(exported).problems[1] == (f"{exported / '.sudoku-export.abcd1234.tmp'}: left by an "
                                                  f"interrupted export; export again to finish the clean-up")


def test_an_older_manifest_without_digests_says_so(exported):
    meta = json.loads((exported / "manifest.json").read_text())
    del meta["sha256"]
    (exported / "manifest.json").write_text(json.dumps(meta))
    result = check_export(exported)
    assert result.problems == [f"{exported / 'manifest.json'}: records no SHA-256 of its files (written by an "
                               f"older version); export again to record them"]
    assert result.models == 10     # the models are still read back


def test_a_file_whose_digest_the_manifest_lost_is_a_problem_line(exported):
    """A hand-edited manifest that keeps its SHA-256 map but drops a file's (or every file's) entry
    holds nothing to check those files against: each is a line, never counted whole."""
    meta = json.loads((exported / "manifest.json").read_text())
    del meta["sha256"]["solve_sudoku.m"]
    (exported / "manifest.json").write_text(json.dumps(meta))
    (exported / "solve_sudoku.m").write_text("system('echo changed');\n")
    result = check_export(exported)
    assert result.problems == [f"{exported / 'manifest.json'}: records no SHA-256 of 'solve_sudoku.m'; export again "
                               f"to record it"]
    assert result.files == len(listed(exported)) - 1
    meta["sha256"] = {}
    (exported / "manifest.json").write_text(json.dumps(meta))
    result = check_export(exported)
    assert len(result.problems) == len(listed(exported)) and result.files == 0 and result.models == 0
    assert all("records no SHA-256 of" in line for line in result.problems)


@pytest.mark.parametrize("key, value", [("shape", "x"), ("nonzeros", 0), ("index_base", "x"), ("objective", []),
                                        ("families", {}), ("rows", None), ("columns", None),
                                        ("formats", None), ("pipeline_version", [])])
def test_a_manifest_fact_edited_or_dropped_is_a_problem_line(exported, key, value):
    """What the manifest records of its model (read by users and scripts) is held against the
    model of the puzzle it records: an edited shape or a dropped row count was vouched for."""
    meta = json.loads((exported / "manifest.json").read_text())
    if value is None and key in ("rows", "columns"):
        del meta[key]
    else:
        meta[key] = value
    (exported / "manifest.json").write_text(json.dumps(meta))
    result = check_export(exported)
    assert len(result.problems) == 1, result.problems
    assert result.problems[0].startswith(f"{exported / 'manifest.json'}: records ") and repr(key) in result.problems[0]


@pytest.mark.parametrize("junk", [[], {}, 7, None])
def test_a_manifest_listing_something_that_is_no_name_is_a_problem_line(exported, junk):
    meta = json.loads((exported / "manifest.json").read_text())
    meta["files"]["mps"] = [junk, *meta["files"]["mps"]]
    (exported / "manifest.json").write_text(json.dumps(meta))
    result = check_export(exported)
    assert result.problems == [f"{exported / 'manifest.json'}: lists {json.dumps(junk)}, which is not a file name"]
    assert result.models == 8      # the two MPS files are not read back (their entry is broken); the rest are


def test_not_a_directory_is_bad_input(tmp_path):
    with pytest.raises(FormatError, match="no such export directory or exported file"):
        check_export(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(FormatError, match="is not a directory"):
        check_export(tmp_path / "file")


def test_cli_check(tmp_path):
    out = tmp_path / "out"
    code, _, err = run("export", FOUR, "--to", out, "--quiet")
    assert code == 0, err
    code, stdout, err = run("check", out)
    assert (code, err) == (0, "")
    n_files = len(listed(out))   # Aeq.csv, Aeq_ijv.csv, Aeq_long.csv, MPS, LP, Parquet, .mat, CNF, OPB:
    assert stdout.splitlines() == [f"{out}: whole: {n_files} files with the SHA-256 manifest.json records, 9 model "
                                   f"files read back as its model, nothing of another export"]
    (out / "model.opb").write_text("* changed\n")
    (out / "beq.csv").unlink()
    code, stdout, err = run("check", out)
    assert (code, err) == (1, "")
    assert stdout.splitlines() == [f"{out / 'beq.csv'}: missing (manifest.json lists it)",
                                   f"{out / 'model.opb'}: changed since the export (its SHA-256 is not the one "
                                   f"manifest.json records)"]
    code, stdout, err = run("check", tmp_path / "nowhere")
    assert (code, stdout) == (2, "")
    assert err == f"error: {tmp_path / 'nowhere'}: no such export directory or exported file\n"


def test_a_puzzle_with_two_extra_regions_exports_every_format_and_checks_whole(tmp_path):
    """Two extra regions once shared the row names extra_1_d: the Parquet writer was a traceback
    and the MPS/LP files named rows twice (GLPK and CBC refused them)."""
    doc = {"size": 4, "givens": "1.......2......3", "rules": [
        {"rule": "extraregion", "cells": ["r1c1", "r2c3", "r3c2", "r4c4"]},
        {"rule": "extraregion", "cells": ["r1c2", "r2c4", "r3c1", "r4c3"]}]}
    model = build_model(parse_puzzle(doc))
    out = tmp_path / "out"
    export_model(model, out, "all", mps_style="both")
    check_export(out)   # raises on any mismatch
    names = [line.split()[1] for line in (out / "model.mps").read_text().splitlines()
             if line.startswith(" E ")]
    assert len(names) == len(set(names)) and {"extra_1_1", "extra_2_4"} <= set(names)


@pytest.mark.parametrize("groups", [[{"name": "S", "size": 1}], [{"name": "S", "size": 2}, {"name": "T"}]])
def test_extra_cells_beside_an_extra_region_export_every_format_and_check_whole(tmp_path, groups):
    """An outside probe: the extra cells' rows were named extra_g_i, an extra region's extra_g_d,
    so a puzzle with both named rows twice (GLPK and CBC refused ISS's Bates Motel); and one group
    of extra cells came back from model.mat as a struct, not a list ('extra' must be a list)."""
    doc = {"size": 4, "extra": groups, "givens": "1...............",
           "rules": [{"rule": "extraregion", "cells": ["r1c1", "r1c2", "r2c1", "r2c2"]},
                     {"rule": "cage", "cells": ["S" if groups[0]["size"] == 1 else "S1", "r4c4"]}]}
    model = build_model(parse_puzzle(doc))
    out = tmp_path / "out"
    export_model(model, out, "all", mps_style="both")
    check_export(out)   # raises on any mismatch
    names = [line.split()[1] for line in (out / "model.mps").read_text().splitlines() if line.startswith(" E ")]
    assert len(names) == len(set(names)) and {"extra_1_1", "extracell_1_1"} <= set(names)


@pytest.mark.parametrize("doc", [{"size": 4, "layout": {"grids": ["r1c1", "r3c3"]}},
                                 {"box": "2x3", "layout": {"grids": ["r1c1", "r3c4"]}}])
def test_custom_layouts_export_every_format_and_check_whole(tmp_path, doc):
    """savemat turned the equal-length corners of a custom layout into one char matrix, so
    model.mat did not read back ("found 'r1c1r3c3'"); rectangular boxes did not export at all."""
    out = tmp_path / "out"
    export_model(build_model(parse_puzzle(doc)), out, "all")
    check_export(out)


def test_one_file_exports_in_the_directory_are_checked_against_their_own_manifests(tmp_path, capsys):
    """An outside check: ``check D`` after ``export --to D --formats lp`` and ``export --to D/killer.lp``
    said ``not checked, not written by an export: killer.lp`` (``check D/killer.lp`` checks it
    whole), named no ``killer.mps.gz`` at all, and said "1 files" and "1 model files"."""
    from pipeline.cli.main import main
    d = tmp_path / "D"
    killer = PROJECT / "examples" / "killer.json"
    assert main(["export", FOUR, "--to", str(d), "--formats", "lp", "--quiet"]) == 0
    assert main(["export", str(killer), "--to", str(d / "killer.lp"), "--quiet"]) == 0
    assert main(["export", str(killer), "--to", str(d / "killer.mps.gz"), "--quiet"]) == 0
    (d / "mine.mps.gz").write_bytes(b"a user's own")   # an export's ending, no manifest: named, not checked
    capsys.readouterr()
    assert main(["check", str(d)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{d}: whole: 1 file with the SHA-256 manifest.json records, 1 model file read back as its model, "
        f"nothing of another export",
        f"{d / 'killer.lp'}: whole: the SHA-256 killer.lp.manifest.json records, read back as its model",
        f"{d / 'killer.mps.gz'}: whole: the SHA-256 killer.mps.gz.manifest.json records, read back as its model",
        f"{d}: not checked, not written by an export: mine.mps.gz"]
    # a changed one-file export is the directory's problem; one whose file is gone too
    (d / "killer.lp").write_text((d / "model.lp").read_text())
    (d / "killer.mps.gz").unlink()
    assert main(["check", str(d)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{d / 'killer.lp'}: changed since the export (its SHA-256 is not the one killer.lp.manifest.json records)",
        f"{d / 'killer.mps.gz'}: missing (killer.mps.gz.manifest.json lists it)",
        f"{d}: not checked, not written by an export: mine.mps.gz"]
    # the gone file named itself: its manifest beside it says what is missing (it said "no such directory")
    assert main(["check", str(d / "killer.mps.gz")]) == 1
    assert capsys.readouterr().out == f"{d / 'killer.mps.gz'}: missing (killer.mps.gz.manifest.json lists it)\n"


def test_a_directory_of_one_file_exports_alone_is_checked(tmp_path, capsys):
    from pipeline.cli.main import main
    d = tmp_path / "D"
    assert main(["export", FOUR, "--to", str(d / "four.opb"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["check", str(d)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{d / 'four.opb'}: whole: the SHA-256 four.opb.manifest.json records, read back as its model"]


def _edit_with_digest(out: Path, name: str, line: int, text: str) -> None:
    """Line ``line`` (0-based) of ``name`` replaced by ``text``, its digest written into the
    manifest: only the content can tell."""
    lines = (out / name).read_text().splitlines()
    lines[line] = text
    (out / name).write_text("\n".join(lines) + "\n")
    meta = json.loads((out / "manifest.json").read_text())
    meta["sha256"][name] = hashlib.sha256((out / name).read_bytes()).hexdigest()
    (out / "manifest.json").write_text(json.dumps(meta, indent=2) + "\n")


@pytest.mark.parametrize("name, line, text, words", [
    ("A_ijv.csv", 0, "1,2,1", "A (the unit rows): 2 entries differ, the first at row 1, column x_1_1_1: 0 in the file"),
    ("B_ijv.csv", 0, "1,2,7", "cannot be read: last line must be the size row m,n,0"),   # no clue: no row
    ("Aineq_ijv.csv", 0, None, "Aineq: 1 entry differs, the first at row 1"),
    ("bineq.csv", 0, "5", "bineq: 1 value differs, the first on line 1: 5 in the file"),
    ("beq.csv", 3, "2", "beq: 1 value differs, the first on line 4: 2 in the file, 1 in the model"),
    ("lb.csv", 0, "1", "lb: 1 value differs, the first on line 1: 1 in the file, 0 in the model"),
    ("f.csv", 9, "3", "f: 1 value differs, the first on line 10: 3 in the file, 0 in the model"),
])
def test_an_edited_csv_file_with_its_digest_is_the_file_blamed(tmp_path, name, line, text, words):
    # A_ijv/B_ijv were never read back ("whole"), and an edit of Aineq_ijv, beq, lb or f was
    # blamed on the three Aeq files that read them, as "Aeq"
    out = tmp_path / "out"
    export_model(build_model(parse_puzzle(str(PROJECT / "examples" / "killer.json"))), out, "csv")
    if text is None:   # the first triplet's coefficient doubled
        i, j, _ = (out / name).read_text().splitlines()[line].split(",")
        text = f"{i},{j},2"
    _edit_with_digest(out, name, line, text)
    problems = check_export(out).problems
    assert len(problems) == 1 and problems[0].startswith(f"{out / name}: ")
    assert words in problems[0], problems[0]


def test_an_edited_clue_row_of_b_ijv_is_blamed_on_it(tmp_path):
    out = tmp_path / "out"
    export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), out, "csv")
    first = (out / "B_ijv.csv").read_text().splitlines()[0].split(",")
    _edit_with_digest(out, "B_ijv.csv", 0, f"{first[0]},{first[1]},7")
    assert check_export(out).problems == [
        f"{out / 'B_ijv.csv'}: not what an export of its model writes: B (the clue rows): 1 entry differs, the first "
        f"at row 1, column {build_model(parse_puzzle(DEFAULT_PUZZLE)).col_names[int(first[1]) - 1]}: 7 in the file, "
        "1 in the model"]


@pytest.mark.parametrize("stray", ["Aineq.csv", "Aineq_ijv.csv"])
def test_another_exports_inequality_file_is_named_alone(tmp_path, stray):
    """A killer export's Aineq copied beside a classic export's Aeq was read with it, and the
    intact Aeq was named as "not the model its metadata describes (edited by hand?)"."""
    killer = tmp_path / "killer"
    export_model(build_model(parse_puzzle((PROJECT / "examples" / "killer.json").read_text())), killer, "csv")
    classic = tmp_path / "classic"
    export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), classic, "csv")
    shutil.copy(killer / stray, classic / stray)
    assert check_export(classic).problems == [
        f"{classic / stray}: not part of this export (manifest.json does not list it): a file of another export"]


@pytest.mark.parametrize("key, value", [("order", "C"), ("scheme", "block")])
def test_a_manifest_edited_to_another_convention_is_caught(tmp_path, key, value):
    """The names x_i_j_k read alike in every order, so an edited "order" passed as whole, and
    every solver's answer then failed import; the convention each model file records must match."""
    out = tmp_path / "out"
    export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), out, "cnf,mps,opb")
    meta = json.loads((out / "manifest.json").read_text())
    original = meta[key]
    meta[key] = value
    (out / "manifest.json").write_text(json.dumps(meta))
    problems = check_export(out).problems
    said = f"written with {key} {original!r} where manifest.json says {value!r}: was manifest.json edited?"
    assert sum(said in p for p in problems) == 3, problems
