"""Real SAT/PB solvers on our CNF/OPB exports: seed 000, a 16x16, a jigsaw and a Sudoku-X, in
every convention and clue encoding, both at-most-one encodings for CNF; each solver's own output
is imported and verified. A missing binary skips with the reason printed."""
from __future__ import annotations

import pytest
from oracles import SETS_DIR, round_trip_cases, round_trip_puzzles

from formats import cnf, opb
from formats.solutions import read_solution
from pipeline.core.build import build_model
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
    return out


PUZZLES = puzzles()


def available(name: str):
    reason = SOLVERS[name].available()
    if reason:
        print(f"SKIP {name}: {reason}")
        pytest.skip(f"{name}: {reason}")
    return SOLVERS[name]


@pytest.mark.parametrize("puzzle_name", list(PUZZLES))
@pytest.mark.parametrize("name, fmt", RUNS, ids=[f"{n}-{f}" for n, f in RUNS])
def test_solver_answers_import_and_verify(tmp_path, name, fmt, puzzle_name):
    solver = available(name)
    puzzle = PUZZLES[puzzle_name]
    cases = round_trip_cases({puzzle_name: puzzle})
    amos = ["pairwise", "seqcounter"] if fmt == "cnf" else [None]
    for _, scheme, order, enc in cases:
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


@pytest.mark.parametrize("fmt", ["cnf", "opb"])
@pytest.mark.parametrize("puzzle_name", list(PUZZLES))
def test_scip_reads_cnf_and_opb_and_its_solution_imports(tmp_path, fmt, puzzle_name):
    pyscipopt = pytest.importorskip("pyscipopt", reason="pyscipopt not installed")
    puzzle = PUZZLES[puzzle_name]
    for _, scheme, order, enc in round_trip_cases({puzzle_name: puzzle})[::2]:
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
