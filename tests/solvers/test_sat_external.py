"""Real SAT/PB solvers on our CNF/OPB exports: seed 000, a 16x16, a jigsaw and a Sudoku-X, and
the rule fixtures of tests/data/rules (a killer: cage sums as PB rows; anti-knight, thermometers,
Kropki dots; a samurai), in every convention and clue encoding, both at-most-one encodings for
CNF (and, on the rule puzzles, every PB and card encoding of the rule rows through CaDiCaL);
each solver's own output is
imported and verified against the puzzle's rules. A missing binary skips with the reason printed."""
from __future__ import annotations

import os
import shutil

import pytest
from interop_helpers import registry_solver_or_skip
from oracles import SETS_DIR, round_trip_puzzles
from rule_models import FIXTURES, conventions, fixture_puzzle

from formats import cnf, opb
from pipeline.core.clauses_pb import CARD_ENCODINGS, DEFAULT_CARD, DEFAULT_PB, PB_ENCODINGS
from formats.solutions import read_solution
from pipeline.core.build import build_model
from pipeline.core.errors import SolveError
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers import SOLVERS, get_solver
from pipeline.core.verify import verify_grid

pytestmark = pytest.mark.interop
EXTERNAL = ["minisat", "picosat", "cadical", "cryptominisat", "clasp", "minisat+", "sat4j"]
RUNS = [(name, fmt) for name in EXTERNAL for fmt in SOLVERS[name].reads]


def puzzles() -> dict:
    out = {"seed000": parse_puzzle(DEFAULT_PUZZLE)}
    found = round_trip_puzzles()
    for key in ("jigsaw", "x"):
        if key in found:
            out[key] = found[key]
    sixteen = SETS_DIR / "16x16_classic.txt"
    if sixteen.exists():
        out["16x16"] = parse_puzzle(sixteen.read_text().splitlines()[0])
    for name in FIXTURES:
        out[name] = fixture_puzzle(name)
    return out


def cases_of(puzzle_name: str):
    """(scheme, order, clues) of a puzzle: every convention it has (ijk only on a layout's canvas)."""
    return conventions(PUZZLES[puzzle_name])


PUZZLES = puzzles()


available = registry_solver_or_skip


#: sat4j starts a JVM for every run (3-9 s a puzzle here, two thirds of this test's time): the
#: suite gives it two puzzles, a classic and a killer; the slow collection (``make test-slow``,
#: part of ``make bench``) every puzzle.
SAT4J_IN_SUITE = ("seed000", "killer9")
ANSWER_CASES = [pytest.param(name, fmt, puzzle_name, id=f"{name}-{fmt}-{puzzle_name}",
                             marks=[pytest.mark.slow] if name == "sat4j" and puzzle_name not in SAT4J_IN_SUITE else [])
                for name, fmt in RUNS for puzzle_name in PUZZLES]


@pytest.mark.parametrize("name, fmt, puzzle_name", ANSWER_CASES)
def test_solver_answers_import_and_verify(tmp_path, name, fmt, puzzle_name):
    solver = available(name)
    puzzle = PUZZLES[puzzle_name]
    amos = ["pairwise", "seqcounter"] if fmt == "cnf" else [None]
    for scheme, order, enc in cases_of(puzzle_name):
        model = build_model(puzzle, scheme=scheme, order=order, clues=enc)
        for amo in amos:
            workdir = tmp_path / f"{scheme}{order}{enc}{amo}"
            result = solver.solve(model, file_format=fmt, amo=amo, time_limit=60, workdir=workdir)
            where = f"{name} {fmt} {scheme}/{order}/{enc} amo={amo}"
            assert result.status == "optimal", f"{where}: {result.status} {result.message}"
            assert verify_grid(result.grid, puzzle), where
            assert any(workdir.glob("*.sol")), where  # the solver's own answer file is kept


@pytest.mark.parametrize("name, fmt", RUNS, ids=[f"{n}-{f}" for n, f in RUNS])
def test_unsatisfiable_is_infeasible(tmp_path, name, fmt):
    solver = available(name)
    model = build_model(parse_puzzle("123." "...." "...." "...4", box="2x2"))
    result = solver.solve(model, file_format=fmt, workdir=tmp_path)
    assert result.status == "infeasible", result.message


@pytest.mark.parametrize("name, fmt", RUNS, ids=[f"{n}-{f}" for n, f in RUNS])
def test_a_row_the_reduced_clues_settle_unkept_is_infeasible(tmp_path, name, fmt):
    # --clues reduce: row 2's cells hold 3 and 3, so a row is left with no variable and = 1; the
    # OPB writer once refused it ("row ... has no variable") where the answer is "no solution"
    solver = available(name)
    model = build_model(parse_puzzle("12.....3.3......", box="2x2"), clues="reduce")
    result = solver.solve(model, file_format=fmt, workdir=tmp_path)
    assert result.status == "infeasible", result.message


@pytest.mark.parametrize("fmt", ["cnf", "opb"])
@pytest.mark.parametrize("puzzle_name", list(PUZZLES))
def test_scip_reads_cnf_and_opb_and_its_solution_imports(tmp_path, fmt, puzzle_name):
    pyscipopt = pytest.importorskip("pyscipopt", reason="pyscipopt not installed")
    puzzle = PUZZLES[puzzle_name]
    for scheme, order, enc in cases_of(puzzle_name)[::2]:
        model = build_model(puzzle, scheme=scheme, order=order, clues=enc)
        path = tmp_path / f"{scheme}{order}{enc}.{fmt}"
        (cnf.write if fmt == "cnf" else opb.write)(model, path)
        scip = pyscipopt.Model()
        scip.hideOutput()
        scip.readProblem(str(path))
        scip.optimize()
        sol = path.with_suffix(".sol")
        scip.writeBestSol(str(sol))
        answer = read_solution(sol, model)
        assert answer.format == "scip_numbered"
        assert verify_grid(answer.grid(), puzzle), path.name


def test_time_limit_reaches_the_solver():
    """A time limit of 0+ seconds: the solver's own option and the subprocess timeout are set;
    an easy model still solves (the limit is an upper bound, not a wait)."""
    solver = available("cadical")
    model = build_model(PUZZLES["seed000"])
    assert solver.solve(model, time_limit=5).status == "optimal"
    assert get_solver("minisat", check_available=False).reads == ("cnf",)


@pytest.mark.parametrize("puzzle_name", ["killer9", "thermo9"])
@pytest.mark.parametrize("card, pb", [(DEFAULT_CARD, pb) for pb in PB_ENCODINGS] +
                         [(card, DEFAULT_PB) for card in CARD_ENCODINGS if card != DEFAULT_CARD])
def test_every_rule_encoding_solves_with_the_cadical_binary(tmp_path, puzzle_name, card, pb):
    """The CNF of a rule puzzle written with each card / PB encoding of its rule rows: the
    CaDiCaL binary's answer imports and is the puzzle's (unique) solution."""
    import subprocess

    available("cadical")
    puzzle = PUZZLES[puzzle_name]
    model = build_model(puzzle, "ijk", "C", "bounds")
    path = tmp_path / "m.cnf"
    cnf.write(model, path, card=card, pb=pb)
    answer = tmp_path / "cadical.sol"
    with open(answer, "wb") as out:
        subprocess.run(["cadical", "-q", str(path)], stdout=out, timeout=120, check=False)
    solution = read_solution(answer, model)
    assert verify_grid(solution.grid(), puzzle).ok, (card, pb)


@pytest.mark.parametrize("puzzle_name", ["killer9", "samurai"])
@pytest.mark.parametrize("name", EXTERNAL)
def test_solve_command_hands_rule_models_to_the_binary(name, puzzle_name, capsys):
    """``solve --solver NAME`` on a puzzle with rules beyond units (a killer) and on a samurai:
    the engine declares ``rule_rows`` and its verified answer is the puzzle's solution."""
    import json

    from pathlib import Path

    from pipeline.cli.main import main

    available(name)
    assert SOLVERS[name].rule_rows
    document = Path(__file__).parents[1] / "data" / "rules" / f"{puzzle_name}.json"
    assert main(["solve", str(document), "--solver", name, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["solver"] == name and out["status"] == "optimal" and out["verified"] is True


@pytest.mark.parametrize("name, fmt", RUNS, ids=[f"{n}-{f}" for n, f in RUNS])
def test_relative_workdir_reaches_the_binary(tmp_path, monkeypatch, name, fmt):
    """A relative ``workdir``: the binary runs inside it, so it must be handed paths that do not
    repeat the directory (``wd/model.cnf`` from ``wd`` is ``wd/wd/model.cnf``)."""
    from pathlib import Path

    solver = available(name)
    monkeypatch.chdir(tmp_path)
    model = build_model(PUZZLES["seed000"])
    result = solver.solve(model, file_format=fmt, time_limit=60, workdir=Path("wd"))
    assert result.status == "optimal", result.message
    assert result.workdir == Path("wd") and any(Path("wd").glob("*.sol"))
    # the kept files hold the model's manifest, so the kept answer imports (it had none)
    from formats.directory import import_solution

    answer = next(Path("wd").glob("*.sol"))
    imported = import_solution(answer, Path("wd") / f"model.{fmt}.manifest.json")
    assert (imported.grid == result.grid).all()


@pytest.mark.skipif(not shutil.which("sh"), reason="needs sh")
def test_a_binary_that_crashes_is_named_with_its_signal_not_a_missing_answer_file(tmp_path, monkeypatch):
    """A segfaulting minisat was reported as '.../minisat.cnf.sol: no such file'."""
    fake = tmp_path / "bin" / "minisat"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'I am a broken minisat' >&2\nkill -SEGV $$\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    with pytest.raises(SolveError, match=r"^solver minisat: was killed by SIGSEGV without an answer "
                                         r"\(I am a broken minisat\)$"):
        get_solver("minisat").solve(build_model(parse_puzzle(DEFAULT_PUZZLE)))


@pytest.mark.skipif(not shutil.which("sh"), reason="needs sh")
def test_a_binary_that_fails_saying_why_on_standard_output_is_quoted(tmp_path, monkeypatch):
    """A JVM that cannot start (sat4j under a low ulimit -v) prints its reason on standard output,
    which goes to the answer file: the error line named only the exit code."""
    fake = tmp_path / "bin" / "minisat"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Error occurred during initialization of VM'\n"
                    "echo 'Could not allocate compressed class space'\necho 'third line'\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    with pytest.raises(SolveError, match=r"^solver minisat: exited with code 1 without an answer \(Error occurred "
                                         r"during initialization of VM: Could not allocate compressed class space\)$"):
        get_solver("minisat").solve(build_model(parse_puzzle(DEFAULT_PUZZLE)), workdir=tmp_path / "wd")


@pytest.mark.skipif(not shutil.which("sh"), reason="needs sh")
@pytest.mark.parametrize("name, code, said", [("minisat", 0, "minisat.cnf.sol missing"),
                                              ("minisat", 10, "minisat.cnf.sol missing"),
                                              ("picosat", 20, "picosat.cnf.sol is empty")])
def test_a_binary_that_exits_normally_without_an_answer_names_itself(tmp_path, monkeypatch, name, code, said):
    """A binary that ends with a normal code but writes no answer (its answer file could not be
    written, a wrapper script): the error line was '/tmp/sudoku-minisat-.../minisat.cnf.sol: no
    such file', a temporary file already removed, without the solver's name."""
    fake = tmp_path / "bin" / name
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\nexit {code}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    with pytest.raises(SolveError, match=rf"^solver {name}: exited with code {code} without writing an answer "
                                         rf"\({said}\)$"):
        get_solver(name).solve(build_model(parse_puzzle(DEFAULT_PUZZLE)))


SKYSCRAPER_4 = {"size": 4, "box": "2x2", "givens": "..2.............",
                "rules": [{"rule": "skyscraper", "clue": "r5c4", "count": 4}]}


@pytest.mark.parametrize("name, fmt", RUNS, ids=[f"{n}-{f}" for n, f in RUNS])
def test_a_model_with_auxiliary_columns_is_solved(tmp_path, name, fmt):
    # a differential check: every SAT/PB program raised IndexError on a skyscraper puzzle (the
    # answer's auxiliary columns were looked up in the grid's positions)
    solver = available(name)
    puzzle = parse_puzzle(SKYSCRAPER_4)
    model = build_model(puzzle, "block", "C", "reduce")
    assert model.n_aux
    result = solver.solve(model, file_format=fmt, time_limit=60, workdir=tmp_path)
    assert result.status == "optimal", result.message
    assert verify_grid(result.grid, puzzle) and result.grid[3].tolist()[3] == 1   # column 4 seen from below: 1..4
