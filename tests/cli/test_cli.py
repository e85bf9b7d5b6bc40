"""The command line, both as ``python -m pipeline`` in a subprocess and as ``pipeline.cli.main``.

Exit codes: 0 success, 1 a negative answer (no solution, invalid grid), 2 bad input with
exactly one line on stderr (``error: ...``) and never a traceback.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracles import grid_of, is_valid_solution
from pipeline.cli.main import main
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_grid, parse_puzzle
from pipeline.core.verify import verify_grid

# the puzzles, runners and checks every test_cli*.py file shares
from cli_helpers import (CORE_COMMANDS, NO_SOLUTION, PROJECT, PUZZLE, SOLUTION, THREE_SOLUTIONS, _env, assert_one_error_line, call,
                         parse_printed_grid, run, subcommands)


# ---------------------------------------------------------------------------------------------
# help
# ---------------------------------------------------------------------------------------------
def test_every_core_subcommand_exists():
    assert set(CORE_COMMANDS) <= set(subcommands())


def test_top_level_help_subprocess():
    code, out, err = run("--help")
    assert code == 0 and err == "" and out.startswith("usage: sudoku-pipeline")
    for name in CORE_COMMANDS:
        assert name in out


@pytest.mark.parametrize("command", subcommands())
def test_subcommand_help(capsys, command):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 0
    assert out.startswith(f"usage: sudoku-pipeline {command}")
    assert err == ""


def test_subcommand_help_subprocess():
    for command in ("solve", "export"):
        code, out, err = run(command, "--help")
        assert code == 0 and out.startswith(f"usage: sudoku-pipeline {command}") and "Traceback" not in err


# ---------------------------------------------------------------------------------------------
# solve
# ---------------------------------------------------------------------------------------------
def test_solve_grid_subprocess():
    code, out, err = run("solve", PUZZLE)
    assert code == 0, err
    assert "|" in out and "-+-" in out
    np.testing.assert_array_equal(parse_printed_grid(out), grid_of(SOLUTION))


@pytest.mark.parametrize("scheme,order,clues", [("ijk", "F", "rows"), ("block", "C", "reduce"), ("ijk", "C", "bounds")])
def test_solve_formats_in_process(capsys, scheme, order, clues):
    common = ["--scheme", scheme, "--order", order, "--clues", clues]
    code, out, err = call(capsys, "solve", PUZZLE, "--format", "line", *common)
    assert (code, out, err) == (0, SOLUTION + "\n", "")
    code, out, _ = call(capsys, "solve", PUZZLE, "--format", "json", *common)
    assert code == 0
    doc = json.loads(out)
    assert doc["grid"] == grid_of(SOLUTION).tolist()
    assert doc["line"] == SOLUTION
    assert doc["verified"] is True and doc["status"] == "optimal"
    code, out, _ = call(capsys, "solve", PUZZLE, "--format", "grid", *common)
    np.testing.assert_array_equal(parse_printed_grid(out), grid_of(SOLUTION))


def test_solve_from_stdin_subprocess():
    code, out, err = run("solve", "-", "--format", "line", input=PUZZLE + "\n")
    assert (code, out.strip()) == (0, SOLUTION), err


def test_solve_from_files(capsys, tmp_path):
    grid_file = tmp_path / "puzzle.txt"
    grid_file.write_text("\n".join(PUZZLE[9 * r:9 * r + 9] for r in range(9)) + "\n")
    assert call(capsys, "solve", grid_file, "--format", "line")[:2] == (0, SOLUTION + "\n")
    g = grid_of(PUZZLE)
    clue_file = tmp_path / "clues.csv"
    clue_file.write_text("row,col,digit\n" + "".join(f"{r + 1},{c + 1},{g[r, c]}\n" for r, c in np.argwhere(g)))
    assert call(capsys, "solve", clue_file, "--format", "line")[:2] == (0, SOLUTION + "\n")


def test_solve_variants(capsys):
    code, out, _ = call(capsys, "solve", "." * 36, "--format", "line")           # 6x6: 2x3 boxes by default
    assert code == 0 and is_valid_solution(grid_of(out.strip()), 2, 3)
    code, out, _ = call(capsys, "solve", "." * 36, "--box", "3x2", "--format", "line")
    assert code == 0 and is_valid_solution(grid_of(out.strip()), 3, 2)
    code, out, _ = call(capsys, "solve", "." * 81, "--variant", "x", "--format", "line")
    assert code == 0 and is_valid_solution(grid_of(out.strip()), 3, 3, "x")
    regions = "0001011122332233"
    code, out, _ = call(capsys, "solve", "..43...1.2......", "--regions", regions, "--format", "line")
    assert (code, out.strip()) == (0, "2143342112344312")  # jigsaw.ref.csv, janko chaos 1
    code, out, _ = call(capsys, "solve", "." * 25, "--variant", "latin", "--format", "line")
    assert code == 0 and is_valid_solution(grid_of(out.strip()), 1, 5, "latin")


def test_no_solution_exit_1_subprocess():
    code, out, err = run("solve", NO_SOLUTION)
    assert code == 1 and out == ""
    assert err.splitlines() == ["no solution: the puzzle has no solution (infeasible)"]


def test_no_solution_exit_1_in_process(capsys):
    code, out, err = call(capsys, "solve", NO_SOLUTION, "--clues", "reduce")
    assert code == 1 and out == ""
    assert err == "no solution: the puzzle has no solution (infeasible)\n"


def test_time_limit_exit_1(capsys):
    code, out, err = call(capsys, "solve", "." * 36 ** 2, "--time-limit", "0.001")
    assert code == 1 and out == ""
    # the limit covers the whole command: a build that alone outlasts it is not started (issue 21)
    assert re.fullmatch(r"no solution: not started: the time limit of 0\.001 s is too short \(building the 36x36 "
                        r"model alone takes about \d+(\.\d)? m?s here: 186,624 nonzeros\)\n", err), err


# ---------------------------------------------------------------------------------------------
# count
# ---------------------------------------------------------------------------------------------
def test_count_subprocess():
    # the number always, a word beside it; no solution is exit 1 like solve
    assert run("count", PUZZLE)[:2] == (0, "1 (unique)\n")
    assert run("count", NO_SOLUTION)[:2] == (1, "0 (no solution)\n")


@pytest.mark.parametrize("solver", ["sat", "highs"])
def test_count_in_process(capsys, solver):
    s = ("--solver", solver)
    assert call(capsys, "count", THREE_SOLUTIONS, "--limit", "10", "--clues", "bounds", *s)[:2] == (0, "3 (solutions)\n")
    assert call(capsys, "count", THREE_SOLUTIONS, "--limit", "3", *s)[:2] == (0, "3 (at least: stopped at --limit 3)\n")
    code, out, err = call(capsys, "count", THREE_SOLUTIONS, *s)     # default --limit 2
    assert (code, out, err) == (0, "2 (at least: stopped at --limit 2)\n", "")
    assert call(capsys, "count", "." * 9, "--variant", "latin", "--limit", "20", *s)[:2] == (0, "12 (solutions)\n")
    assert call(capsys, "count", PUZZLE, "--scheme", "block", "--order", "C", *s)[:2] == (0, "1 (unique)\n")


def test_count_json_and_list(capsys):
    code, out, _ = call(capsys, "count", THREE_SOLUTIONS, "--limit", "10", "--list", "--format", "json")
    doc = json.loads(out)
    from pipeline.cli.args import default_count_solver

    assert code == 0 and (doc["count"], doc["complete"], doc["unique"], doc["solver"]) == (
        3, True, False, default_count_solver())
    puzzle = parse_puzzle(THREE_SOLUTIONS)
    grids = [parse_grid(line) for line in doc["solutions"]]
    assert len(set(doc["solutions"])) == 3 and all(verify_grid(g, puzzle) for g in grids)
    code, out, _ = call(capsys, "count", THREE_SOLUTIONS, "--limit", "10", "--list")
    lines = out.splitlines()
    assert lines[0] == "3 (solutions)" and sorted(lines[1:]) == sorted(doc["solutions"])
    code, out, _ = call(capsys, "count", NO_SOLUTION, "--format", "json")
    assert code == 1 and json.loads(out)["count"] == 0 and json.loads(out)["unique"] is False


def test_count_default_engine_is_dfs_up_to_16x16_else_sat():
    from pipeline.cli.args import default_count_solver
    from pipeline.core.build import build_model
    from pipeline.solvers import SOLVERS

    small = "dfs" if SOLVERS["dfs"].available() is None else "sat"
    assert default_count_solver() == small
    assert default_count_solver(build_model(parse_puzzle("." * 256))) == small
    assert default_count_solver(build_model(parse_puzzle("." * 625))) == "sat"


def test_solve_reports_several_solutions(capsys):
    code, out, err = call(capsys, "solve", THREE_SOLUTIONS, "--format", "json")
    assert code == 0 and json.loads(out)["unique"] is False
    assert "more than one solution" in err
    code, out, err = call(capsys, "solve", PUZZLE, "--format", "json", "--unique")
    assert json.loads(out)["unique"] is True and err == ""
    code, out, err = call(capsys, "solve", THREE_SOLUTIONS, "--format", "json", "--no-unique-check")
    assert json.loads(out)["unique"] is None and err == ""


def test_an_unfinished_uniqueness_check_is_said_beside_the_grid(capsys, monkeypatch):
    """A check the time limit ended leaves ``unique`` unknown: grid and line output say so on
    stderr, as they do for a puzzle with several solutions (the grid alone looked proved)."""
    import pipeline.cli.commands.solve as solve_command

    monkeypatch.setattr(solve_command, "_uniqueness", lambda *args: None)   # the check ran out of time
    for fmt in ("grid", "line", "json"):
        code, out, err = call(capsys, "solve", PUZZLE, "--solver", "highs", "--format", fmt)
        assert code == 0 and err == "note: uniqueness not proved: the time limit ended the check (JSON \"unique\": null)\n"
    assert json.loads(out)["unique"] is None
    code, out, err = call(capsys, "solve", PUZZLE, "--solver", "highs", "--no-unique-check")
    assert code == 0 and err == ""


@pytest.mark.parametrize("solver", ["sat", "cpsat", "highs"])
def test_solve_with_in_process_engines(capsys, solver):
    code, out, err = call(capsys, "solve", PUZZLE, "--solver", solver, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["solver"] == solver and doc["verified"] and doc["unique"] is True
    # the proof is a step of its own for these three (SAT: a count on the solver that found the
    # answer; HiGHS and CP-SAT: another engine's count), and ``seconds`` include it
    assert doc["proof_seconds"] is not None and 0 < doc["proof_seconds"] <= doc["seconds"]
    code, out, err = call(capsys, "solve", PUZZLE, "--solver", solver, "--format", "json", "--no-unique-check")
    assert json.loads(out)["proof_seconds"] is None
    code, out, err = call(capsys, "solve", NO_SOLUTION, "--solver", solver)
    assert code == 1 and err == "no solution: the puzzle has no solution (infeasible)\n"


@pytest.mark.parametrize("backend", ["minisat22", "glucose4"])
@pytest.mark.parametrize("amo", ["pairwise", "seqcounter"])
def test_sat_backend_and_amo(capsys, backend, amo):
    code, out, _ = call(capsys, "solve", PUZZLE, "--solver", "sat", "--sat-backend", backend, "--amo", amo,
                        "--format", "line")
    assert code == 0 and verify_grid(parse_grid(out.strip()), parse_puzzle(PUZZLE))


def test_export_amo_reaches_the_cnf(tmp_path, capsys):
    call(capsys, "export", PUZZLE, "--to", str(tmp_path), "--formats", "cnf", "--amo", "seqcounter", "--quiet")
    head = (tmp_path / "model.cnf").read_text()[:4000]
    assert "seqcounter" in head


# ---------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------
def test_build_subprocess():
    code, out, err = run("build", DEFAULT_PUZZLE)
    assert code == 0, err
    fields = {line.split()[0]: line.split()[1] for line in out.splitlines() if len(line.split()) == 2}
    assert (fields["rows"], fields["columns"], fields["nonzeros"]) == ("347", "729", "2939")
    assert [fields[f] for f in ("cell", "row", "col", "box", "clue")] == ["81", "81", "81", "81", "23"]


@pytest.mark.parametrize("args, line", [
    (["examples/samurai.json"], "samurai: 5 9x9 classic grids on a 21x21 canvas, 120 clues (boxes 3x3)"),
    (["examples/jigsaw.txt", "--variant", "jigsaw", "--regions", "examples/jigsaw_regions.txt"], "9x9 jigsaw, 20 clues"),
    (["examples/killer.json"], "9x9 classic, 0 clues; 29 killer cages (boxes 3x3)"),
])
def test_build_names_the_puzzle_as_its_summary_does(capsys, monkeypatch, args, line):
    """A samurai showed as "classic 9x9" and a jigsaw with "boxes 3x3" (outside check)."""
    monkeypatch.chdir(PROJECT)
    code, out, _ = call(capsys, "build", *args)
    assert code == 0 and out.splitlines()[0] == f"puzzle     {line}"


def test_build_says_which_rows_are_inequalities(capsys, monkeypatch):
    # "rows 353" then families adding up to 389: the 36 cage rows are <= rows of Aineq
    monkeypatch.chdir(PROJECT)
    code, out, _ = call(capsys, "build", "examples/killer.json")
    lines = out.splitlines()
    assert code == 0 and lines[2] == "rows       353 in Aeq (=), 36 in Aineq (<=)"
    assert lines[4] == "nonzeros   3645 in Aeq, 108 in Aineq"
    assert lines[5:] == ["  cell     81 =", "  row      81 =", "  col      81 =", "  box      81 =", "  cagesum  29 =",
                         "  cage     36 <="]


def test_build_json_in_process(capsys):
    code, out, _ = call(capsys, "build", DEFAULT_PUZZLE, "--json")
    doc = json.loads(out)
    assert code == 0
    assert (doc["rows"], doc["columns"], doc["nonzeros"]) == (347, 729, 2939)
    assert doc["families"] == {"cell": 81, "row": 81, "col": 81, "box": 81, "clue": 23}
    code, out, _ = call(capsys, "build", "." * 81, "--variant", "x", "--clues", "bounds", "--json")
    doc = json.loads(out)
    assert (doc["rows"], doc["columns"], doc["nonzeros"]) == (342, 729, 342 * 9)
    assert doc["families"] == {"cell": 81, "row": 81, "col": 81, "box": 81, "diag": 9, "anti": 9}
    code, out, _ = call(capsys, "build", DEFAULT_PUZZLE, "--clues", "reduce", "--json")
    doc = json.loads(out)
    assert doc["columns"] < 729 and doc["variables_total"] == 729 and "clue" not in doc["families"]


# ---------------------------------------------------------------------------------------------
# export
# ---------------------------------------------------------------------------------------------
def test_export_subprocess(tmp_path):
    out_dir = tmp_path / "out"
    code, out, err = run("export", DEFAULT_PUZZLE, "--to", out_dir, "--formats", "csv")
    assert code == 0, err
    assert (out_dir / "manifest.json").is_file()
    for name in ("Aeq.csv", "Aeq_ijv.csv", "beq.csv", "lb.csv", "ub.csv", "f.csv"):
        assert (out_dir / name).is_file(), name
        assert name in out
    assert "In MATLAB" in out
    meta = json.loads((out_dir / "manifest.json").read_text())
    assert (meta["rows"], meta["columns"], meta["scheme"], meta["order"]) == (347, 729, "ijk", "F")
    assert len((out_dir / "Aeq.csv").read_text().splitlines()) == 347


@pytest.mark.parametrize("puzzle, warned", [("examples/thermo.json", True), ("examples/puzzle.txt", False)])
def test_the_matlab_lines_say_glpk_may_need_a_time_limit_on_rules(capsys, tmp_path, puzzle, warned):
    """GLPK (Octave's glpk) finds no grid of examples/thermo.json in minutes: an Octave user is
    told of sudoku_time_limit where the model has rows of rules beyond units, and only there."""
    code, out, err = call(capsys, "export", str(PROJECT / puzzle), "--to", tmp_path, "--formats", "matlab")
    assert code == 0, err
    assert ("sudoku_time_limit = 60; before run stops it" in out) is warned


def test_export_in_process(capsys, tmp_path):
    code, out, err = call(capsys, "export", PUZZLE, "--to", tmp_path, "--formats", "csv", "--scheme", "block",
                          "--order", "C", "--clues", "reduce", "--quiet")
    assert code == 0 and err == ""
    assert "In MATLAB" not in out
    meta = json.loads((tmp_path / "manifest.json").read_text())
    assert (meta["scheme"], meta["order"], meta["clue_encoding"]) == ("block", "C", "reduce")
    assert len(meta["kept_columns"]) == meta["columns"]


# ---------------------------------------------------------------------------------------------
# verify
# ---------------------------------------------------------------------------------------------
def test_verify_subprocess(tmp_path):
    code, out, err = run("verify", SOLUTION, "--puzzle", PUZZLE)
    assert (code, out) == (0, "ok: valid classic 9x9 solution, all 23 clues kept\n")
    bad = SOLUTION[:-2] + SOLUTION[-1] + SOLUTION[-2]   # last two cells swapped: both columns break
    code, out, err = run("verify", bad, "--puzzle", PUZZLE)
    assert code == 1
    assert out == ("invalid: column 8 has digit 7 twice: cells (6, 8) and (9, 8)\n"
                   "invalid: column 9 has digit 4 twice: cells (1, 9) and (9, 9)\n")
    code, out, err = run("verify", "-", input=bad)        # no --puzzle: the rules alone
    assert code == 1 and len(out.splitlines()) == 2 and err == ""


def test_verify_in_process(capsys, tmp_path):
    grid_file = tmp_path / "sudoku.csv"                    # as MATLAB's writetable/writematrix writes it
    np.savetxt(grid_file, grid_of(SOLUTION), fmt="%d", delimiter=",")
    assert call(capsys, "verify", grid_file, "--puzzle", PUZZLE)[:2] == \
        (0, "ok: valid classic 9x9 solution, all 23 clues kept\n")
    relabelled = SOLUTION.translate(str.maketrans("12", "21"))
    code, out, _ = call(capsys, "verify", relabelled, "--puzzle", PUZZLE)
    assert code == 1 and out.startswith("invalid: clue at ")
    code, out, _ = call(capsys, "verify", PUZZLE, "--puzzle", PUZZLE)
    empty = [i for i, ch in enumerate(PUZZLE) if ch == "."]
    assert code == 1 and out.startswith(f"invalid: {len(empty)} cells are empty: (1, 1), (1, 2), (1, 3), (1, 5), ")
    assert out.endswith(f"and ({empty[-1] // 9 + 1}, {empty[-1] % 9 + 1})\n") and len(out.splitlines()) == 1


def test_verify_reads_a_claimed_grid_of_another_square_size_as_a_verdict(capsys):
    # a grid of its own side, the wrong one for the puzzle: verify's verdict, exit 1 (not bad input)
    code, out, _ = call(capsys, "verify", "1221", "--puzzle", PUZZLE)
    assert (code, out) == (1, "invalid: grid is 2x2, puzzle is 9x9\n")


def test_verify_without_a_puzzle_says_a_grid_it_cannot_read_needs_one(capsys):
    """A 5x10 grid read alone has no shape: the line says --puzzle reads it (a user was left guessing)."""
    code, _, err = call(capsys, "verify", "1234567890" * 5)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("error: ") and err.rstrip().endswith("is read against its puzzle: --puzzle PUZZLE")


# ---------------------------------------------------------------------------------------------
# bad input: exit 2, one line, no traceback
# ---------------------------------------------------------------------------------------------
BAD = [
    (["solve", "123"], "error: puzzle: wrong length: expected a square number of cells (1 for 1x1 or 4 for 2x2), found 3"),
    (["solve", "/no/such/puzzle.txt"], "error: puzzle: no such file '/no/such/puzzle.txt'"),
    (["solve", "nonexist.txt"], "error: puzzle: no such file 'nonexist.txt'"),   # was '12 cells'
    (["solve", "." * 81, "--variant", "jigsaw", "--regions", "regions.txt"], "error: regions: no such file 'regions.txt'"),
    (["solve", "11" + "." * 79], "error: puzzle: digit 1 appears twice in row 1: cells (1, 1) and (1, 2)"),
    (["solve", PUZZLE, "--box", "2x3"], "error: puzzle: wrong length: expected 36 cells (6x6, from the box 2x3), found 81"),
    (["build", "." * 16, "--regions", "0011001122332233", "--scheme", "block"],
     "error: scheme: 'block' is defined only for puzzles with rectangular boxes, not for variant 'jigsaw'"),
    (["count", PUZZLE, "--limit", "0"], "error: count: --limit must be at least 1, found 0"),
    (["build", "." * 16, "--regions", "001100112233223"],
     "error: regions: expected 16 cells (one region id per cell), found 15"),
    (["verify", "12345", "--puzzle", PUZZLE],
     "error: grid: wrong length: expected 81 cells (9x9 from the puzzle), found 5"),
    # a square length that is no grid of its own side either: its length is what is wrong
    (["verify", "1234", "--puzzle", PUZZLE],
     "error: grid: wrong length: expected 81 cells (9x9 from the puzzle), found 4"),
    # --size is the grid's own size: a square of another side is refused, not read
    (["verify", "1221", "--size", "9"], "error: grid: wrong length: expected 81 cells (9x9 from --size), found 4"),
    (["export", PUZZLE, "--to", "{tmp}/out", "--formats", "nope"], None),
    (["import", "/no/such/solution.sol"], None),
]


@pytest.mark.parametrize("args,message", BAD, ids=[" ".join(a)[:40] for a, _ in BAD])
def test_bad_input_in_process(capsys, tmp_path, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    line = assert_one_error_line(*call(capsys, *args))
    if message:
        assert line == message


@pytest.mark.parametrize("args", [["solve", "123"], ["solve", "11" + "." * 79, "--format", "json"],
                                  ["export", PUZZLE, "--to", "{tmp}/file/sub", "--formats", "csv"]])
def test_bad_input_subprocess(tmp_path, args):
    (tmp_path / "file").write_text("not a directory")
    code, out, err = run(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert out == ""
    assert_one_error_line(code, out, err)


@pytest.mark.parametrize("args", [["export"], ["solve", PUZZLE, "--scheme", "kji"], ["frobnicate"],
                                  ["solve", PUZZLE, "--limit", "3"]])
def test_usage_errors_exit_2_with_one_line(capsys, args):
    with pytest.raises(SystemExit) as exit_:
        main(args)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and "error: " in lines[0] and "Traceback" not in err


def test_usage_error_subprocess():
    code, out, err = run("solve", PUZZLE, "--order", "Z")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "error: " in err and "Traceback" not in err


def test_negative_time_limit_is_bad_input(capsys):
    assert_one_error_line(*call(capsys, "solve", PUZZLE, "--time-limit", "-1"))


def test_puzzle_defaults_to_the_seed(capsys):
    """Without PUZZLE the commands use seed 000's puzzle, the one make export exports."""
    code, out, _ = call(capsys, "build")
    assert code == 0 and "23 clues" in out and "347" in out
    code, out, _ = call(capsys, "solve", "--format", "line")
    assert code == 0 and out.strip()[1:3] == "56" and len(out.strip()) == 81


def test_export_says_when_the_dense_csv_is_skipped(capsys, tmp_path):
    """36x36: 5,184 x 46,656 = 242M entries, over the dense limit: skipped, and said so."""
    code, out, _ = call(capsys, "export", "." * 36 ** 2, "--to", tmp_path, "--formats", "csv", "--quiet")
    assert code == 0 and "dense Aeq.csv skipped: 241,864,704 entries" in out
    assert not (tmp_path / "Aeq.csv").exists() and (tmp_path / "Aeq_ijv.csv").exists()


# ---------------------------------------------------------------------------------------------
# issue 11 item 17: count's output and exit codes match solve's
# ---------------------------------------------------------------------------------------------
def test_count_states_the_number_and_a_word_always(capsys):
    for puzzle, number, word, code in [(PUZZLE, 1, "unique", 0), (THREE_SOLUTIONS, 3, "solutions", 0),
                                       (NO_SOLUTION, 0, "no solution", 1)]:
        got = call(capsys, "count", puzzle, "--limit", "5")
        assert got[:2] == (code, f"{number} ({word})\n")
        answer = json.loads(call(capsys, "count", puzzle, "--limit", "5", "--format", "json")[1])
        assert (answer["count"], answer["word"], answer["complete"]) == (number, word, True)
        # solve agrees on the exit code
        assert call(capsys, "solve", puzzle, "--no-unique-check")[0] == code


def test_count_stopped_by_its_engine_says_so(capsys):
    """A limit the build fits in: the engine itself stops (25x25 empty grid, HiGHS, 0.3 s)."""
    code, out, err = call(capsys, "count", "." * 625, "--solver", "highs", "--time-limit", "0.3")
    if code == 0 or "alone takes about" in err:
        pytest.skip(f"this machine found a solution, or is too busy to build in the limit: {out!r} {err!r}")
    assert (code, out) == (1, "0 (at least: time limit of 0.3 s reached)\n")
    assert err == "no solution: time limit of 0.3 s reached (count stopped before any solution)\n"


def test_count_time_limit_stop_is_said_as_solve_says_it(capsys):
    """25x25 empty grid: HiGHS cannot reach a first solution within 1 ms."""
    empty = "." * 625
    code, out, err = call(capsys, "count", empty, "--solver", "highs", "--time-limit", "0.001")
    if code == 0:
        pytest.skip(f"this machine found a solution within the limit: {out!r}")
    assert (code, out) == (1, "0 (not started: the time limit of 0.001 s is too short)\n")
    # the limit covers the whole command: a build that alone outlasts it is not started (issue 21)
    assert re.fullmatch(r"no solution: not started: the time limit of 0\.001 s is too short \(building the 25x25 "
                        r"model alone takes about \d+(\.\d)? m?s here: 62,500 nonzeros\)\n", err), err
    solve_code, solve_out, solve_err = call(capsys, "solve", empty, "--solver", "highs", "--time-limit", "0.001")
    same = re.compile(r"about \d+(\.\d)? m?s").sub   # each command times this machine's build anew: not compared
    assert solve_code == code and same("about", err).startswith(same("about", solve_err).strip())
    code, out, _ = call(capsys, "count", empty, "--solver", "highs", "--time-limit", "0.001", "--format", "json")
    answer = json.loads(out)
    assert code == 1 and (answer["count"], answer["status"], answer["complete"], answer["time_limit"]) == \
        (0, "time_limit", False, 0.001)


def test_a_count_stopped_by_its_deadline_says_how_long_it_ran():
    """The JSON's seconds are the time the command ran, also when the command's deadline (not the
    engine) gives the time-limit answer: it said 0.0 after 20 s."""
    slow = PROJECT / "tests" / "data" / "rules" / "killer12_slow_highs.json"
    proc = subprocess.run([sys.executable, "-m", "pipeline", "count", str(slow), "--solver", "highs", "--format",
                           "json", "--time-limit", "1.5"], capture_output=True, text=True, cwd=PROJECT, env=_env(),
                          timeout=300)
    answer = json.loads(proc.stdout)
    if answer["count"]:
        pytest.skip(f"this machine counted a solution within the limit: {answer}")
    assert proc.returncode == 1 and answer["status"] == "time_limit" and 1.3 <= answer["seconds"] < 60, answer


def test_the_command_line_works_without_python_sat(monkeypatch, capsys, tmp_path):
    """python-sat is a core dependency; a broken install without it still parses every command,
    HiGHS solves and counts, export writes the MIP formats, and the SAT engine says what is
    missing with a hint that reinstalls the core the way the package was installed."""
    for name in [m for m in sys.modules if m == "pysat" or m.startswith("pysat.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pysat", None)   # import pysat now raises ImportError
    from pipeline.solvers.sat import sat_backends
    assert sat_backends() == ()
    assert main(["export", "--to", str(tmp_path / "out"), "--formats", "csv,mps", "--quiet"]) == 0
    assert main(["solve", DEFAULT_PUZZLE, "--format", "line", "--no-unique-check"]) == 0
    capsys.readouterr()
    assert main(["solve", DEFAULT_PUZZLE, "--solver", "sat"]) == 2
    err = capsys.readouterr().err
    assert "a core dependency that is missing" in err and "pip install -e" in err and "[sat]" not in err


def test_an_error_line_quoting_a_huge_argument_stays_short(capsys):
    """A 5,000-character argument was echoed whole in its error line (and in a batch error row)."""
    from pipeline.batch.text import one_line

    huge = "/" + "a" * 5000
    assert main(["solve", huge]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 500 and "...(5003 characters)" in err
    assert one_line(ValueError(f"no such file {huge!r}")).endswith("...(5003 characters)")


@pytest.mark.parametrize("argv0, given, expected", [("sudoku-pipeline", None, "1"), ("-m", None, "1"),
                                                    ("sudoku-pipeline", "3", "3"), ("notebook.py", None, None)])
def test_a_command_keeps_numpys_blas_to_one_thread_and_the_library_leaves_it_alone(argv0, given, expected):
    """numpy's OpenBLAS starts a thread per core on import that spins for about 0.1 s: a command
    asks for one thread (a user's own setting stays); importing the library changes nothing."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    # python -m pipeline: argv[0] is '-m' while the package loads, and the interpreter's command line names it
    run_as = "; sys.orig_argv = [sys.executable, '-m', 'pipeline']" if argv0 == "-m" else ""
    code = (f"import sys; sys.argv = [{argv0!r}]{run_as}\nimport os, pipeline, numpy\n"
            "print(os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    setting, threads = proc.stdout.split()
    assert setting == str(expected)
    if expected == "1" and os.path.isdir("/proc/self/task"):
        assert threads == "1"   # no BLAS threads at all


def test_a_clue_shortfall_says_why_removal_stopped(capsys):
    # above 16x16 without --minimal removal stops where singles stop: "no further clue removable"
    # alone was untrue there (a helper's report)
    import argparse

    import numpy as np

    from pipeline.cli.commands.generate import _noting_shortfalls
    from pipeline.core.puzzle import Puzzle
    from pipeline.tools.generate import Generated

    def shortfall(n, h, w, minimal):
        grid = np.zeros((n, n), dtype=np.int64)
        grid[0] = np.arange(1, n + 1)
        made = Generated(Puzzle(grid, h, w), grid, 1, 0, 0.1, minimal=None, target=1)
        list(_noting_shortfalls([made], argparse.Namespace(target_clues=1, minimal=minimal, symmetry="none")))
        return capsys.readouterr().err
    assert "(no further clue removable while singles solve the puzzle; --minimal removes more;" in shortfall(20, 4, 5, False)
    assert "(no further clue removable; fewest of 10 grids)" in shortfall(20, 4, 5, True)
    assert "(no further clue removable; fewest of 10 grids)" in shortfall(16, 4, 4, False)


@pytest.mark.parametrize("args", [["build", "--size", "12"], ["solve", "--box", "2x3"], ["solve", "--variant", "jigsaw"]])
def test_options_that_do_not_fit_the_default_puzzle_say_it_was_read(capsys, args):
    # "expected 144 cells, found 81" never said where 81 cells came from: no PUZZLE was given
    code, _, err = call(capsys, *args)
    assert code == 2 and err.count("\n") == 1
    assert err.rstrip().endswith("(no PUZZLE was given: the built-in seed puzzle, 9x9 with 23 clues, was read)")
