"""Export files the way other tools write them (issue 32, part 4): ``export --to NAME.lp`` is one
file with ``NAME.lp.manifest.json`` beside it, ``--to -`` one format on standard output; a
manifest given as a puzzle is refused naming ``import``/``check``; and ``solve_sudoku.m``
combines the variables that make up the whole model of a rule puzzle.
"""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp

from oracles import PROJECT
from formats import read_model
from formats.agree import model_difference
from formats.base import ModelData
from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle

KILLER = PROJECT / "examples" / "killer.json"     # 29 cage sums (= rows) and 36 <= rows, no clues
THERMO = PROJECT / "examples" / "thermo.json"     # <= rows only, 8 clues
PLAIN = "...2.5....9....73...2..9.6.2.....4.9....7....6.9.....1.8.4..1...63....8....6.8..."
# (file name, format name as the manifest records it)
ONE_FILE = [("single.mps", "mps"), ("single.lp", "lp"), ("single.cnf", "cnf"), ("single.opb", "opb"),
            ("single.mat", "matlab")]


def call(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(code, out, err) -> str:
    assert code == 2, (code, out, err)
    assert out == "" and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    return err


def killer_model(clues: str = "rows"):
    return build_model(parse_puzzle(str(KILLER)), "ijk", "F", clues)


# ---------------------------------------------------------------------------------------------
# --to NAME.ext: one file, its manifest beside it, read back as the model
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, fmt", ONE_FILE)
@pytest.mark.parametrize("puzzle", [KILLER, PLAIN], ids=["killer", "plain"])
def test_one_file_per_extension_reads_back_as_the_model(capsys, tmp_path, name, fmt, puzzle):
    out = tmp_path / "sub" / name
    code, printed, err = call(capsys, "export", puzzle, "--to", out)
    assert code == 0, err
    assert sorted(p.name for p in out.parent.iterdir()) == [name, name + ".manifest.json"]
    assert out.is_file()
    model = build_model(parse_puzzle(str(puzzle)))
    difference = model_difference(read_model(out), ModelData.from_model(model))
    assert not difference, difference
    manifest = json.loads((out.parent / (name + ".manifest.json")).read_text())
    assert manifest["files"] == {fmt: [name]}
    assert set(manifest["sha256"]) == {name}
    assert manifest["rows"] == model.n_rows and manifest["columns"] == model.n_cols
    assert f"to {out} ({fmt}, one file)" in printed


@pytest.mark.parametrize("name", ["m.lp.gz", "m.mps.gz", "m.cnf.gz", "m.opb.gz"])
def test_gz_after_the_extension_keeps_working(capsys, tmp_path, name):
    out = tmp_path / name
    code, _, err = call(capsys, "export", KILLER, "--to", out)
    assert code == 0, err
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    gzip.decompress(out.read_bytes())   # a whole gzip stream
    assert not model_difference(read_model(out), ModelData.from_model(killer_model()))
    assert call(capsys, "check", out)[0] == 0


def test_formats_that_agree_with_the_extension_are_taken(capsys, tmp_path):
    code, _, err = call(capsys, "export", PLAIN, "--to", tmp_path / "a.mat", "--formats", "mat")
    assert code == 0, err
    assert (tmp_path / "a.mat.manifest.json").is_file()


@pytest.mark.parametrize("name, formats, words", [
    ("a.lp", "mps", "the extension says lp but formats says mps"),
    ("a.mat", "lp,mat", "one file holds one format"),
    ("a.cnf", "csv", "csv is several files"),
    ("a.mat.gz", None, "cannot be gzip-compressed"),
])
def test_extension_and_formats_that_disagree_are_one_error(capsys, tmp_path, name, formats, words):
    extra = ["--formats", formats] if formats else []
    line = one_error_line(*call(capsys, "export", PLAIN, "--to", tmp_path / name, *extra))
    assert words in line and name in line
    assert list(tmp_path.iterdir()) == []


def test_fixed_mps_is_not_one_file(capsys, tmp_path):
    line = one_error_line(*call(capsys, "export", PLAIN, "--to", tmp_path / "a.mps", "--mps-style", "fixed"))
    assert "give a directory" in line
    assert list(tmp_path.iterdir()) == []


def test_a_directory_in_the_way_of_the_file_is_refused(capsys, tmp_path):
    (tmp_path / "old.lp").mkdir()
    line = one_error_line(*call(capsys, "export", PLAIN, "--to", tmp_path / "old.lp"))
    assert "is a directory" in line
    assert list((tmp_path / "old.lp").iterdir()) == []


def test_a_trailing_separator_or_a_several_file_extension_stays_a_directory(capsys, tmp_path):
    code, _, err = call(capsys, "export", PLAIN, "--to", f"{tmp_path / 'd.lp'}/", "--formats", "lp")
    assert code == 0, err
    assert (tmp_path / "d.lp" / "model.lp").is_file() and (tmp_path / "d.lp" / "manifest.json").is_file()
    code, _, err = call(capsys, "export", PLAIN, "--to", tmp_path / "t.parquet", "--formats", "parquet")
    assert code == 0, err
    assert (tmp_path / "t.parquet" / "manifest.json").is_file()


# ---------------------------------------------------------------------------------------------
# --to -: one format on standard output, no manifest
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("formats, name", [("lp", "x.lp"), ("mps", "x.mps"), ("opb", "x.opb"), ("cnf", "x.cnf"),
                                           ("mat", "x.mat")])
def test_to_stdout_writes_the_bytes_of_the_file(capsysbinary, tmp_path, monkeypatch, formats, name):
    monkeypatch.chdir(tmp_path)
    assert main(["export", str(KILLER), "--to", "-", "--formats", formats]) == 0
    streamed, err = capsysbinary.readouterr()
    assert err == b""
    assert list(tmp_path.iterdir()) == []          # no directory named '-', no manifest
    assert main(["export", str(KILLER), "--to", name, "--quiet"]) == 0
    capsysbinary.readouterr()
    if formats != "mat":    # the .mat header carries its time of writing
        assert streamed == (tmp_path / name).read_bytes()
    copy = tmp_path / ("copy" + Path(name).suffix)
    copy.write_bytes(streamed)
    assert not model_difference(read_model(copy), ModelData.from_model(killer_model()))


@pytest.mark.parametrize("formats", [None, "lp,mps", "all", "csv"])
def test_to_stdout_with_several_or_no_one_file_format_is_one_error(capsys, tmp_path, monkeypatch, formats):
    monkeypatch.chdir(tmp_path)
    extra = ["--formats", formats] if formats else []
    line = one_error_line(*call(capsys, "export", PLAIN, "--to", "-", *extra))
    assert "standard output" in line
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# check and import read the single file's manifest
# ---------------------------------------------------------------------------------------------
def test_check_takes_the_file_or_its_manifest_and_sees_a_change(capsys, tmp_path):
    out = tmp_path / "k.opb"
    assert call(capsys, "export", KILLER, "--to", out)[0] == 0
    for given in (out, tmp_path / "k.opb.manifest.json"):
        code, printed, _ = call(capsys, "check", given)
        assert code == 0 and printed.startswith(f"{out}: whole"), printed
    (tmp_path / "other.csv").write_text("1\n")        # what else lies there is not the file's business
    assert call(capsys, "check", out)[0] == 0
    out.write_text(out.read_text() + "* a comment added\n")
    code, printed, _ = call(capsys, "check", out)
    assert code == 1 and "changed since the export" in printed and "k.opb.manifest.json" in printed


def test_check_of_a_manifest_with_a_changed_model_file(capsys, tmp_path):
    """A manifest whose digest matches a file that is not its model (re-recorded by hand)."""
    out = tmp_path / "k.lp"
    assert call(capsys, "export", KILLER, "--to", out)[0] == 0
    assert call(capsys, "export", PLAIN, "--to", tmp_path / "p.lp")[0] == 0
    shutil.copy(tmp_path / "p.lp", out)
    manifest = tmp_path / "k.lp.manifest.json"
    meta = json.loads(manifest.read_text())
    meta["sha256"]["k.lp"] = json.loads((tmp_path / "p.lp.manifest.json").read_text())["sha256"]["p.lp"]
    manifest.write_text(json.dumps(meta))
    code, printed, _ = call(capsys, "check", manifest)
    assert code == 1 and "is not the manifest's" in printed


def test_import_finds_or_is_given_the_single_manifest(capsys, tmp_path):
    out = tmp_path / "k.lp"
    assert call(capsys, "export", KILLER, "--to", out)[0] == 0
    code, line, err = call(capsys, "solve", KILLER, "--format", "line")
    assert code == 0, err
    model = killer_model()
    digits = np.array([int(ch) for ch in line.strip()]).reshape(9, 9)
    r, c = np.divmod(np.arange(81), 9)
    x = np.zeros(model.n_cols)
    x[model.convention.position(r, c, digits.ravel() - 1)] = 1
    names = model.col_names
    answer = tmp_path / "k.sol"    # a name value list (Gurobi's .sol)
    answer.write_text("".join(f"{n} {int(v)}\n" for n, v in zip(names, x)))
    for extra in ([], ["--manifest", tmp_path / "k.lp.manifest.json"], ["--manifest", out]):
        code, printed, err = call(capsys, "import", answer, "--format", "line", *extra)
        assert code == 0, err
        assert printed.strip() == line.strip()



def test_import_given_a_directory_of_one_file_exports_uses_its_manifest(capsys, tmp_path):
    """An outside check: ``import W/clasp.cnf.sol --manifest W``, W holding ``model.cnf.manifest.json``
    alone (``solve --workdir W``), said ``manifest W/manifest.json: no such file``; without
    --manifest the error suggested ``NAME.lp.manifest.json`` and named none of the manifests there."""
    work = tmp_path / "W"
    assert call(capsys, "export", PLAIN, "--to", work / "model.cnf")[0] == 0
    code, line, err = call(capsys, "solve", PLAIN, "--format", "line")
    assert code == 0, err
    model = build_model(parse_puzzle(PLAIN))
    r, c = np.divmod(np.arange(81), 9)
    true = set(model.convention.position(r, c, np.array([int(ch) for ch in line.strip()]) - 1).tolist())
    answer = work / "clasp.cnf.sol"   # a SAT competition answer: variable v is position v - 1
    answer.write_text("s SATISFIABLE\nv " + " ".join(str(v + 1) if v in true else str(-(v + 1))
                                                      for v in range(729)) + " 0\n")
    code, printed, err = call(capsys, "import", answer, "--format", "line", "--manifest", work)
    assert (code, printed.strip()) == (0, line.strip()), err
    code, printed, err = call(capsys, "import", answer)
    assert one_error_line(code, printed, err) == (
        f"error: {answer}: no manifest given and no manifest.json beside it nor clasp.*.manifest.json: "
        f"pass --manifest {work / 'model.cnf.manifest.json'}\n")
    shutil.copy(work / "model.cnf.manifest.json", work / "other.lp.manifest.json")
    code, printed, err = call(capsys, "import", answer, "--manifest", work)
    assert one_error_line(code, printed, err) == (
        f"error: manifest {work}: holds no manifest.json and 2 one-file manifests (model.cnf.manifest.json, "
        f"other.lp.manifest.json): pass --manifest with one of them\n")
    code, printed, err = call(capsys, "import", answer)
    assert one_error_line(code, printed, err).endswith(
        "nor clasp.*.manifest.json: pass --manifest with one of model.cnf.manifest.json, other.lp.manifest.json\n")


# ---------------------------------------------------------------------------------------------
# a manifest is not a puzzle
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["out", "m.lp"])
def test_solve_of_a_manifest_names_import_and_check(capsys, tmp_path, target):
    to = tmp_path / target
    assert call(capsys, "export", PLAIN, "--to", to, "--formats", "lp", "--quiet")[0] == 0
    manifest = to / "manifest.json" if target == "out" else tmp_path / "m.lp.manifest.json"
    line = one_error_line(*call(capsys, "solve", manifest))
    assert "manifest, not a puzzle" in line and "'import " in line and "'check " in line
    assert "unknown key" not in line


# ---------------------------------------------------------------------------------------------
# solve_sudoku.m combines the variables that make up the whole model
# ---------------------------------------------------------------------------------------------
def _triplets(path: Path) -> sp.csr_matrix:
    """What MATLAB's ``spconvert(load(path))`` gives (the last row ``m,n,0`` sets the size)."""
    t = np.loadtxt(path, delimiter=",", ndmin=2)
    m, n = int(t[-1, 0]), int(t[-1, 1])
    body = t[:-1]
    return sp.csr_matrix((body[:, 2], (body[:, 0].astype(int) - 1, body[:, 1].astype(int) - 1)), shape=(m, n))


def _same(a, b) -> bool:
    a, b = sp.csr_matrix(a), sp.csr_matrix(b)
    return a.shape == b.shape and (a != b).nnz == 0


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
@pytest.mark.parametrize("puzzle", [KILLER, THERMO], ids=["killer", "thermo"])
def test_the_script_combines_the_whole_model(capsys, tmp_path, puzzle, clues):
    """The script's glpk call stacks [Aeq; Aineq] with [beq; bineq] from model.mat (S.Aeq,
    S.Aineq) or from Aeq_ijv.csv and Aineq_ijv.csv: those, rebuilt here, are the whole model
    (its = rows, cage sums included, and its <= rows); A_ijv.csv with B_ijv.csv is not."""
    out = tmp_path / "e"
    assert call(capsys, "export", puzzle, "--to", out, "--formats", "csv,mat", "--clues", clues, "--quiet")[0] == 0
    model = build_model(parse_puzzle(str(puzzle)), "ijk", "F", clues)
    assert model.n_ineq > 0
    script = (out / "solve_sudoku.m").read_text()
    assert "Aeq = S.Aeq; beq = S.beq;" in script and "Aineq = S.Aineq; bineq = S.bineq;" in script
    assert "Aeq = ijv(load(fullfile(model_dir, 'Aeq_ijv.csv')));" in script
    assert "Aineq = ijv(load(fullfile(model_dir, 'Aineq_ijv.csv')));" in script
    assert "glpk(f, [Aeq; Aineq], [beq; bineq], lb, ub, [repmat('S', m, 1); repmat('U', mi, 1)]" in script
    assert "'A_ijv.csv'" not in script and "'B_ijv.csv'" not in script
    raw = sio.loadmat(out / "model.mat")
    for route in ("mat", "csv"):
        if route == "mat":
            aeq, beq, aineq, bineq = raw["Aeq"], raw["beq"].ravel(), raw["Aineq"], raw["bineq"].ravel()
            lb = raw["lb"].ravel()
        else:
            aeq, aineq = _triplets(out / "Aeq_ijv.csv"), _triplets(out / "Aineq_ijv.csv")
            beq, bineq = np.loadtxt(out / "beq.csv", ndmin=1), np.loadtxt(out / "bineq.csv", ndmin=1)
            lb = np.loadtxt(out / "lb.csv", ndmin=1)
        assert _same(aeq, model.Aeq) and np.array_equal(beq, model.beq)
        assert _same(aineq, model.Aineq) and np.array_equal(bineq, model.bineq)
        assert np.array_equal(lb, model.lb)
        # what glpk gets, as ModelData: the whole model
        stacked = sp.vstack([sp.csr_matrix(aeq), sp.csr_matrix(aineq)], format="csr")
        want = ModelData.from_model(model)
        assert _same(stacked, want.Aeq)
        assert np.array_equal(np.concatenate([beq, bineq]), want.row_upper)
    units, clue_rows = _triplets(out / "A_ijv.csv"), _triplets(out / "B_ijv.csv")
    cage_sums = int(np.char.startswith(model.row_labels.astype(str), "cagesum").sum())
    assert cage_sums == (29 if puzzle == KILLER else 0)
    if clues == "reduce":
        assert _same(units, model.Aeq)                  # the reduced model's = rows, cage sums included
    else:
        assert _same(units, model.A)                    # the unit rows only
    if clues == "rows":
        assert _same(clue_rows, model.B)                # the clue rows only (none for the killer)
    else:
        assert clue_rows.shape == (0, model.n_cols)     # the size line only
    if clues != "reduce":   # A_ijv.csv and B_ijv.csv miss exactly the cage sums
        assert units.shape[0] + clue_rows.shape[0] == model.Aeq.shape[0] - cage_sums


def test_the_script_solves_the_killer_in_octave(capsys, tmp_path):
    """Real GNU Octave: model.mat and the CSV route, each clue encoding, one session."""
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        pytest.skip("GNU Octave not installed (make solvers): solve_sudoku.m not run")
    lines = ["more off;"]
    cases = []
    for clues in ("rows", "bounds", "reduce"):
        d = tmp_path / clues
        assert call(capsys, "export", KILLER, "--to", d, "--formats", "csv,mat", "--clues", clues, "--quiet")[0] == 0
        for route in ("mat", "csv"):
            answer = d / f"sudoku_{route}.csv"
            cases.append(answer)
            lines.append(f"clear sudoku_use_csv sudoku_out; sudoku_draw = false; "
                         f"sudoku_use_csv = {'true' if route == 'csv' else 'false'}; sudoku_out = '{answer}'; "
                         f"try, run('{d / 'solve_sudoku.m'}'); catch err, disp(err.message); end")
    done = subprocess.run([exe, "--no-gui", "--quiet", "--eval", "\n".join(lines)], capture_output=True, text=True,
                          timeout=600)
    code, want, err = call(capsys, "solve", KILLER, "--format", "line")
    assert code == 0, err
    for answer in cases:
        assert answer.is_file(), (answer, done.stdout[-2000:], done.stderr[-2000:])
        code, got, err = call(capsys, "import", answer, "--format", "line")
        assert code == 0, err
        assert got.strip() == want.strip(), answer


def test_every_cell_given_and_reduced_exports_an_empty_model_solvers_read(tmp_path, capsys):
    """A solved grid with --clues reduce: no rows, no columns. Every file reads back; the LP's
    note says GLPK's LP reader refuses it, and glpsol's answer to the MPS file imports."""
    grid = "".join(str(v) for v in [4, 1, 7, 3, 6, 9, 8, 2, 5])   # row 1 of examples/solved.txt
    solved = (PROJECT / "examples" / "solved.txt").read_text().split()
    assert "".join(solved)[:9] == grid
    out = tmp_path / "o"
    assert main(["export", "".join(solved), "--clues", "reduce", "--to", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err == ("note: model.lp holds no constraint (the clues fix every variable): GLPK's LP reader refuses "
                   "such a file; its MPS reader, CBC and HiGHS take it\n")
    for name in ("model.lp", "model.mps", "model.mat", "Aeq_ijv.csv", "model_coo.parquet", "model.opb"):
        assert read_model(out / name).Aeq.shape == (0, 0), name
    assert main(["check", str(out)]) == 0
    glpsol = shutil.which("glpsol")
    if glpsol is None:
        print("glpsol not found (make solvers installs it): the empty MPS not solved")
        return
    subprocess.run([glpsol, "--freemps", str(out / "model.mps"), "-w", str(tmp_path / "glpk.txt")],
                   capture_output=True, check=True, timeout=60)
    capsys.readouterr()
    assert main(["import", str(tmp_path / "glpk.txt"), "--manifest", str(out / "manifest.json")]) == 0
    assert "".join(capsys.readouterr().out.split()).replace("|", "").startswith(grid)


# the printed MATLAB lines, run in GNU Octave with intlinprog and writematrix as thin glpk/csvwrite shims
_SHIMS = {
    "intlinprog.m": "function x = intlinprog(f, intcon, A, b, Aeq, beq, lb, ub)\n"
                    "  ctype = [repmat('S', size(Aeq, 1), 1); repmat('U', size(A, 1), 1)];\n"
                    "  x = glpk(f, [Aeq; A], [beq; b], lb, ub, ctype, repmat('I', numel(f), 1), 1);\n"
                    "end\n",
    "writematrix.m": "function writematrix(S, path)\n  csvwrite(path, S);\nend\n",
}


@pytest.mark.parametrize("document", [
    PLAIN,
    # a value set wider than the side: the grid is written in digits 1..9, as solve_sudoku.m does
    '{"size": 6, "values": "0-8", "givens": "1' + "." * 35 + '"}',
    # extra cells: their columns follow the cell block
    '{"size": 6, "givens": ".43.....62...14..2....3......1....5.", "extra": [{"name": "S", "size": 2}], '
    '"rules": [{"rule": "cage", "sum": 7, "cells": ["S1", "r1c1"]}, {"rule": "sum", "sum": 9, "cells": ["S1", "S2"]}]}',
], ids=["9x9", "values", "extra"])
def test_the_printed_matlab_lines_run_and_their_answer_imports(capsys, tmp_path, document):
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        pytest.skip("GNU Octave not installed (make solvers): the printed MATLAB lines not run")
    out = tmp_path / "e"
    code, printed, err = call(capsys, "export", document, "--to", out, "--formats", "csv")
    assert code == 0, err
    body = printed.split("In MATLAB:\n", 1)[1].split("\nThen: ", 1)[0]
    for name, text in _SHIMS.items():
        (tmp_path / name).write_text(text)
    done = subprocess.run([exe, "--no-gui", "--quiet", "--eval", f"addpath('{tmp_path}');\n{body}"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    code, shown, err = call(capsys, "import", out / "sudoku.csv", "--manifest", out / "manifest.json")
    assert code == 0 and "ok: valid" in shown + err, (shown, err)
    if document == PLAIN:   # unique: the same grid as solve's
        assert shown.splitlines()[:11] == call(capsys, "solve", document)[1].splitlines()[:11]


# ---------------------------------------------------------------------------------------------
# --workers: the formats side by side (formats.forked), the same files
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5"])
def test_workers_must_be_a_positive_whole_number(capsys, tmp_path, bad):
    with pytest.raises(SystemExit) as stop:
        main(["export", str(PLAIN), "--to", str(tmp_path / "out"), "--workers", bad])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert f"argument --workers: '{bad}' is not a positive whole number of processes" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="--workers 2 forks (POSIX)")
def test_workers_write_the_same_files(capsys, tmp_path):
    from golden.golden import file_digest
    sets = []
    for workers in ("1", "3"):
        out = tmp_path / workers
        code, _, err = call(capsys, "export", KILLER, "--to", out, "--workers", workers, "--quiet")
        assert code == 0, err
        sets.append({p.name: file_digest(p) for p in out.iterdir()})
    assert sets[0] == sets[1] and len(sets[0]) > 15
