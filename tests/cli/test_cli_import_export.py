"""The command line's import and export as a user meets them (moved from test_cli.py, which
had grown past 800 lines): exit 1 for a solver's negative answer, the export hint's paths and
command, the dense CSV rule, damaged answers and manifests, special files and permissions."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from oracles import grid_of
from pipeline.core.build import build_model
from pipeline.cli.main import main
from pipeline.core.decode import vector_from_grid
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_grid, parse_puzzle
from pipeline.core.verify import verify_grid

# the shared puzzles and runners (tests/cli/cli_helpers.py, as test_cli.py uses them)
from cli_helpers import (NO_SOLUTION, PROJECT, PUZZLE, SOLUTION, assert_one_error_line, call, parse_printed_grid,
                         run)


def test_import_of_an_infeasible_answer_is_exit_1(tmp_path, capsys):
    code, _, err = call(capsys, "export", NO_SOLUTION, "--to", tmp_path, "--formats", "cnf,mps", "--quiet")
    assert code == 0, err
    answers = []
    if shutil.which("minisat"):
        subprocess.run(["minisat", str(tmp_path / "model.cnf"), str(tmp_path / "minisat.txt")], capture_output=True,
                       timeout=120)
        answers.append(tmp_path / "minisat.txt")
    if shutil.which("cbc"):
        subprocess.run(["cbc", str(tmp_path / "model.mps"), "solve", "solu", str(tmp_path / "cbc.txt")],
                       capture_output=True, timeout=120)
        answers.append(tmp_path / "cbc.txt")
    if not answers:
        pytest.skip("neither minisat nor cbc is installed: no real solver wrote an infeasible answer")
    for answer in answers:
        code, out, err = call(capsys, "import", answer, "--manifest", tmp_path / "manifest.json")
        assert (code, out) == (1, ""), (answer, err)
        assert err.startswith(f"no solution: {answer}: solver reports infeasible") and len(err.splitlines()) == 1
        # --format json: an object on stdout as solve prints one (it printed nothing)
        code, out, err = call(capsys, "import", answer, "--manifest", tmp_path / "manifest.json", "--format", "json")
        said = json.loads(out)
        assert code == 1 and (said["grid"], said["verified"], said["status"]) == (None, False, "infeasible")
        assert err == f"no solution: {said['message']}\n"


@pytest.mark.parametrize("manifest", [".", "./", "manifest.json"])
def test_import_with_the_current_directory_as_the_manifest(tmp_path, capsys, monkeypatch, manifest):
    # '--manifest .' inside an export raised "PosixPath('.') has an empty name"
    code, _, err = call(capsys, "export", "." * 16, "--to", tmp_path, "--formats", "csv", "--quiet")
    assert code == 0, err
    (tmp_path / "sudoku.csv").write_text("1,2,3,4\n3,4,1,2\n2,1,4,3\n4,3,2,1\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = call(capsys, "import", "sudoku.csv", "--manifest", manifest)
    assert code == 0, err
    assert err.startswith("ok: valid classic 4x4 solution") and out.split("|")[0].split() == ["1", "2"]


@pytest.mark.parametrize("text,words", [("s UNKNOWN\n", "time limit reached"), ("s INDETERMINATE\n", "time limit")])
def test_import_of_a_stopped_solver_is_exit_1(tmp_path, capsys, text, words):
    """SAT-competition output of a solver stopped by its time limit (what solve says as exit 1)."""
    assert call(capsys, "export", PUZZLE, "--to", tmp_path, "--formats", "cnf", "--quiet")[0] == 0
    (tmp_path / "answer.txt").write_text(text)
    code, out, err = call(capsys, "import", tmp_path / "answer.txt", "--format", "json")
    assert code == 1 and err.startswith("no solution: ") and words in err and len(err.splitlines()) == 1
    assert json.loads(out) == {"grid": None, "verified": False, "status": "time_limit",
                               "message": err.removeprefix("no solution: ").strip()}


# ---------------------------------------------------------------------------------------------
# issue 11 item 15: every path export's hint names exists or is what the printed lines write
# ---------------------------------------------------------------------------------------------
MATLAB_STRING = re.compile(r"'((?:[^']|'')*)'")


def hint_paths(out: str) -> tuple[list[str], str, list[str]]:
    """(paths the MATLAB lines load or run, path the by-hand lines write, the 'Then:' argv)."""
    loaded, written, then = [], None, None
    for line in out.splitlines():
        strings = [m.replace("''", "'") for m in MATLAB_STRING.findall(line.split("%")[0])]
        if "load(" in line or "run(" in line:
            loaded += strings
        elif "writematrix(" in line:
            written = strings[-1]
        elif line.startswith("Then: "):
            then = shlex.split(line[len("Then: "):])
    return loaded, written, then


@pytest.mark.parametrize("scheme,order,clues", [("ijk", "F", "rows"), ("block", "C", "reduce"), ("ijk", "C", "bounds")])
def test_export_hint_names_the_files_and_its_command_works(tmp_path, scheme, order, clues):
    cwd = tmp_path / "work"
    cwd.mkdir()
    out_dir = "it's out"                                   # a space and a quote: both languages quote it
    code, out, err = run("export", PUZZLE, "--to", out_dir, "--formats", "csv", "--scheme", scheme, "--order", order,
                         "--clues", clues, cwd=cwd)
    assert code == 0, err
    loaded, written, then = hint_paths(out)
    assert loaded and all((cwd / p).is_file() for p in loaded), loaded
    assert then[:4] == ["python", "-m", "pipeline", "import"] and then[4] == written
    # what MATLAB's printed lines would write there: the grid S (ijk/F) or the rounded vector x
    model = build_model(parse_puzzle(PUZZLE), scheme, order, clues)
    grid = grid_of(SOLUTION)
    if written.endswith("sudoku.csv"):
        np.savetxt(cwd / written, grid, fmt="%d", delimiter=",")
    else:
        x = vector_from_grid(grid, model.convention)[model.columns]
        np.savetxt(cwd / written, x, fmt="%d", delimiter=",")
    code, got, err = run(*then[3:], cwd=cwd)
    assert code == 0, err
    assert (parse_printed_grid(got) == grid).all()


def test_with_the_script_the_by_hand_lines_name_their_own_answer(tmp_path):
    """With solve_sudoku.m the 'Then:' line imports the script's grid; the by-hand lines of a
    block/C export write the vector x.csv, which a line of its own imports (the 'Then:' line named
    sudoku.csv, a file only the script writes)."""
    code, out, err = run("export", PUZZLE, "--to", "out", "--formats", "csv,mat", "--scheme", "block", "--order", "C",
                         cwd=tmp_path)
    assert code == 0, err
    _, written, then = hint_paths(out)
    assert written == "out/x.csv" and then[4] == "out/sudoku.csv"
    by_hand = next(line for line in out.splitlines() if line.startswith("  (by hand: "))
    argv = shlex.split(by_hand.strip()[len("(by hand: "):-1])
    model = build_model(parse_puzzle(PUZZLE), "block", "C")
    np.savetxt(tmp_path / written, vector_from_grid(grid_of(SOLUTION), model.convention)[model.columns],
               fmt="%d", delimiter=",")
    code, got, err = run(*argv[3:], cwd=tmp_path)
    assert code == 0 and argv[4] == written, err
    assert (parse_printed_grid(got) == grid_of(SOLUTION)).all()


def test_export_hint_run_line_works_in_octave(tmp_path):
    if not shutil.which("octave"):
        pytest.skip("octave is not installed: solve_sudoku.m cannot run")
    code, out, err = run("export", PUZZLE, "--to", "it's out", "--formats", "csv,mat", cwd=tmp_path)
    assert code == 0, err
    run_line = next(line for line in out.splitlines() if "run(" in line)
    octave = subprocess.run(["octave", "--no-gui", "--quiet", "--eval", run_line.split("%")[0].strip()],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert octave.returncode == 0, octave.stderr[-2000:]
    then = hint_paths(out)[2]
    code, got, err = run(*then[3:], cwd=tmp_path)
    assert code == 0, err
    assert (parse_printed_grid(got) == grid_of(SOLUTION)).all()


def test_export_without_csv_or_mat_prints_no_matlab_lines(capsys, tmp_path):
    code, out, _ = call(capsys, "export", PUZZLE, "--to", tmp_path, "--formats", "mps,lp")
    assert code == 0 and "In MATLAB" not in out and "Then:" not in out


# ---------------------------------------------------------------------------------------------
# issue 11 item 21: the dense Aeq.csv only while small, unless --dense always
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,written", [(16, True), (25, False)])
def test_dense_csv_by_default_only_while_small(capsys, tmp_path, n, written):
    rows, cols = 4 * n * n, n ** 3                 # cell, row, column and box rows of an empty grid
    code, out, _ = call(capsys, "export", "." * n * n, "--to", tmp_path, "--formats", "csv", "--quiet")
    assert code == 0 and (tmp_path / "Aeq.csv").exists() == written
    assert ("dense Aeq.csv skipped" in out) == (not written)
    if not written:
        assert f"dense Aeq.csv skipped: {rows * cols:,} entries > 8,000,000; --dense always writes it" in out
    else:
        assert (tmp_path / "Aeq.csv").stat().st_size == 2 * rows * cols    # "0," or "1," / "1\n" per entry


def test_dense_flag_forces_or_drops_the_dense_csv(capsys, tmp_path):
    code, out, _ = call(capsys, "export", "--to", tmp_path / "never", "--formats", "csv", "--dense", "never")
    assert code == 0 and not (tmp_path / "never" / "Aeq.csv").exists() and "skipped" not in out
    code, out, _ = call(capsys, "export", "--to", tmp_path / "always", "--formats", "csv", "--dense", "always")
    assert code == 0 and len((tmp_path / "always" / "Aeq.csv").read_text().splitlines()) == 347


# ---------------------------------------------------------------------------------------------
# issue 11 items 2, 7, 8, 11, 23 as a user meets them: import and export from the command line
# ---------------------------------------------------------------------------------------------
HIGHS_HEAD = "Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective 0\n"
DAMAGED_ANSWERS = {
    "highs raw, bare # Columns": HIGHS_HEAD + "# Columns\n",
    "highs raw, # Columns abc": HIGHS_HEAD + "# Columns abc\nx_1_1_1 1\n",
    "glpsol -w, cut s line": "s mip 347 729\nj 1\n",
    "glpsol -w, empty value": "s mip 347 729 o 0\n" + "j 1 \n" * 729,
    "glpsol -o, Columns: abc": "Problem:    sudoku\nRows:       347\nColumns:    abc\n",
    "highs, leading blank line": "\n" + HIGHS_HEAD,
    "highs, BOM": "\ufeff" + HIGHS_HEAD,
    "cplex xml, objectiveValue abc": ('<?xml version="1.0"?>\n<CPLEXSolution version="1.2">\n<header '
                                      'objectiveValue="abc" solutionStatusString="integer optimal solution"/>\n'
                                      '<variables>\n<variable name="x_1_1_1" index="0" value="1"/>\n</variables>\n'
                                      '</CPLEXSolution>\n'),
    "vector of inf": "inf\n" * 729,
}


@pytest.fixture(scope="module")
def seed_export(tmp_path_factory):
    out = tmp_path_factory.mktemp("seed_export")
    assert main(["export", PUZZLE, "--to", str(out), "--formats", "csv,mps", "--quiet"]) == 0
    return out


@pytest.mark.parametrize("name", list(DAMAGED_ANSWERS))
def test_import_of_a_damaged_answer_is_one_line(capsys, tmp_path, seed_export, name):
    capsys.readouterr()
    answer = tmp_path / "answer.sol"
    answer.write_text(DAMAGED_ANSWERS[name], encoding="utf-8")
    line = assert_one_error_line(*call(capsys, "import", answer, "--manifest", seed_export / "manifest.json"))
    assert str(answer) in line


@pytest.mark.parametrize("content", ["[]", '"text"', "null", "[" * 100000, "{}",
                                     '{"puzzle": "-", "n": 9}'])
def test_import_with_a_broken_manifest_is_one_line(capsys, tmp_path, content):
    (tmp_path / "manifest.json").write_text(content)
    np.savetxt(tmp_path / "sudoku.csv", grid_of(SOLUTION), fmt="%d", delimiter=",")
    assert_one_error_line(*call(capsys, "import", tmp_path / "sudoku.csv"))


def test_import_with_a_tampered_manifest_puzzle_is_refused(capsys, tmp_path, seed_export):
    meta = json.loads((seed_export / "manifest.json").read_text())
    first_clue = next(i for i, ch in enumerate(meta["puzzle"]) if ch not in ".0")
    meta["puzzle"] = meta["puzzle"][:first_clue] + "." + meta["puzzle"][first_clue + 1:]   # n_clues, rows kept
    (tmp_path / "manifest.json").write_text(json.dumps(meta))
    wrong = grid_of(SOLUTION)
    np.savetxt(tmp_path / "sudoku.csv", wrong, fmt="%d", delimiter=",")
    line = assert_one_error_line(*call(capsys, "import", tmp_path / "sudoku.csv"))
    assert "n_clues" in line or "rows" in line


@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "directory"])
def test_special_files_are_named_for_what_they_are(capsys, tmp_path, seed_export, special):
    path = {"/dev/zero": Path("/dev/zero"), "fifo": tmp_path / "fifo", "directory": tmp_path}[special]
    if special == "fifo":
        os.mkfifo(path)
    kind = {"/dev/zero": "a device", "fifo": "a FIFO", "directory": "a directory"}[special]
    cases = [["import", path, "--manifest", seed_export / "manifest.json"], ["solve", path]]
    if special != "directory":   # --manifest DIR reads DIR/manifest.json
        cases.append(["import", seed_export / "Aeq.csv", "--manifest", path])
    for args in cases:
        line = assert_one_error_line(*call(capsys, *args))
        assert kind in line, (args, line)


def test_export_files_get_the_umask_permissions(capsys, tmp_path):
    old = os.umask(0o022)
    try:
        # every format: Parquet went through its own temporary-path copy that left 0600
        assert call(capsys, "export", "--to", tmp_path, "--formats", "all", "--quiet")[0] == 0
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert set(modes.values()) == {0o644}, modes


@pytest.mark.parametrize("head", ["Optimal - objective value 0.00000000", "Optimal - objective 0.0",
                                  "Feasible solution - objective 0.0", "Integer solution - objective value 0"])
def test_import_reads_cbc_family_headers(capsys, tmp_path, seed_export, head):
    body = (PROJECT / "examples" / "cbc_solution.txt").read_text().split("\n", 1)[1]
    (tmp_path / "answer.sol").write_text(head + "\n" + body)
    (tmp_path / "seed").mkdir()
    assert call(capsys, "export", "--to", tmp_path / "seed", "--formats", "mps", "--quiet")[0] == 0  # its model
    code, out, err = call(capsys, "import", tmp_path / "answer.sol", "--manifest", tmp_path / "seed" / "manifest.json",
                          "--format", "line")
    assert code == 0, err
    assert verify_grid(parse_grid(out.strip()), parse_puzzle(DEFAULT_PUZZLE))


def test_a_one_file_export_whose_manifest_fails_leaves_the_pair_of_before(capsys, tmp_path, monkeypatch):
    # a full disk at the manifest left the new .lp without one; now the pair of before stays, and
    # no hidden file is left beside it
    import errno

    import formats.single as single

    target = tmp_path / "m.lp"
    assert main(["export", DEFAULT_PUZZLE, "--to", str(target), "--quiet"]) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(single, "write_manifest", full_disk)
    assert main(["export", "examples/thermo.json", "--to", str(target), "--quiet"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_an_answer_older_than_the_export_beside_it_is_noted(tmp_path, capsys):
    """A MATLAB out/sudoku.csv left from the export before (make export PUZZLE=other) was judged
    against the new model with no word of why it fails."""
    import os

    from pipeline.cli.main import main

    out = tmp_path / "out"
    assert main(["export", "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
                 "--to", str(out), "--formats", "csv"]) == 0
    answer = out / "sudoku.csv"
    answer.write_text("\n".join(",".join(row) for row in
                                ["417369825", "632158947", "958724316", "825437169", "791586432",
                                 "346912758", "289643571", "573291684", "164875293"]) + "\n")
    capsys.readouterr()
    assert main(["import", str(answer)]) == 0
    assert "note:" not in capsys.readouterr().err
    before = os.stat(out / "manifest.json").st_mtime - 3600
    os.utime(answer, (before, before))
    assert main(["import", str(answer)]) == 0
    assert f"note: {answer} is older than {out / 'manifest.json'}: the model was exported again since" \
        in capsys.readouterr().err


def test_import_of_clasps_enumeration_says_which_model_it_read(tmp_path, capsys):
    """``clasp -n 2``'s two models were silently reduced to the last: import now says so."""
    code, _, _ = call(capsys, "export", "1...........4...", "--to", tmp_path, "--formats", "cnf", "--quiet")
    assert code == 0
    model = build_model(parse_puzzle("1...........4..."))
    blocks = []
    for k, rows in enumerate(["1234341221434321", "1423324121344312"], 1):
        x = vector_from_grid(parse_grid(rows), model.convention)
        blocks.append(f"c Answer: {k}\nv " + " ".join(str(v + 1) if x[v] else str(-(v + 1)) for v in range(x.size))
                      + " 0\n")
    answer = tmp_path / "clasp.txt"
    answer.write_text("".join(blocks) + "s SATISFIABLE\n")
    code, out, err = call(capsys, "import", answer, "--format", "line")
    assert code == 0 and out.strip() == "1423324121344312"
    assert f"note: {answer}: clasp's enumeration of 2 models (c Answer: 1..2): the last, Answer 2, read; the " \
           f"others are not\n" in err
