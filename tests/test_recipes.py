"""The recipes of docs/architecture.md, each done for real: a new model format, a new solver, a
new variant and a new subcommand, each one module-sized addition through its registry."""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import formats
from formats.base import FORMATS, Format, ModelData, atomic_open, register
from pipeline import build_model, parse_puzzle
from pipeline.cli import commands
from pipeline.cli.main import build_parser
from pipeline.cli.main import main as cli_main
from pipeline.core.errors import FormatError, PuzzleError
from pipeline.core.manifest import model_metadata
from pipeline.solvers import SOLVERS, Solver, SolveResult, get_solver, register_solver
from pipeline.core.variants import VARIANT_TABLE, Family, Variant, register_variant, unregister_variant
from pipeline.core.verify import verify_grid

SEED = "050079000000000500092000060080000407020600010070250080000040000008020000730001000"


# -- recipe 1: a model format -----------------------------------------------------------------
def _write_json_coo(model, path):
    a = model.Aeq.tocoo()
    doc = {"metadata": model_metadata(model), "shape": list(a.shape), "row": a.row.tolist(),
           "col": a.col.tolist(), "rhs": model.beq.tolist(), "lb": model.lb.tolist()}
    with atomic_open(path) as f:
        json.dump(doc, f)


def _read_json_coo(path):
    try:
        doc = json.loads(path.read_text())
        a = sp.csr_matrix((np.ones(len(doc["row"])), (doc["row"], doc["col"])), shape=tuple(doc["shape"]))
    except (OSError, ValueError, KeyError) as e:
        raise FormatError(f"{path}: not a json-coo model ({e})") from None
    n = a.shape[1]
    rhs = np.asarray(doc["rhs"], float)
    return ModelData(a, rhs, rhs.copy(), np.asarray(doc["lb"], float), np.ones(n), np.zeros(n),
                     np.ones(n, bool), metadata=doc["metadata"])


@pytest.fixture
def json_coo_format():
    fmt = register(Format("json-coo", (".coo.json",), "toy: COO triplets in JSON", write=_write_json_coo,
                          read=_read_json_coo))
    yield fmt
    FORMATS.pop("json-coo")


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_recipe_add_a_model_format(json_coo_format, tmp_path, clues):
    model = build_model(parse_puzzle(SEED), clues=clues)
    path = formats.write_model(model, tmp_path / "m.coo.json")       # found by its extension
    back = formats.read_model(path)
    want = ModelData.from_model(model)
    assert (back.Aeq != want.Aeq).nnz == 0
    np.testing.assert_array_equal(back.row_lower, want.row_lower)
    np.testing.assert_array_equal(back.lb, want.lb)
    assert back.metadata["clue_encoding"] == clues


# -- recipe 2: a solver -----------------------------------------------------------------------
def _scipy_milp_solve(model, *, time_limit=None):
    from scipy.optimize import Bounds, LinearConstraint, milp

    from pipeline.core.decode import grid_from_vector

    options = {"time_limit": time_limit} if time_limit else {}
    res = milp(model.cost, integrality=np.ones(model.n_cols), bounds=Bounds(model.lb, model.ub),
               constraints=LinearConstraint(model.Aeq, model.beq, model.beq), options=options)
    if res.x is None:
        return SolveResult("infeasible" if res.status == 2 else "time_limit", None, None, 0.0, 0, solver="scipy-milp")
    x = np.rint(res.x)
    grid = grid_from_vector(model.full_vector(x), model.convention)
    return SolveResult("optimal", x, float(res.fun), 0.0, 0, grid, solver="scipy-milp")


@pytest.fixture
def scipy_solver():
    solver = register_solver(Solver("scipy-milp", "scipy.optimize.milp on the solver view", solve=_scipy_milp_solve))
    yield solver
    SOLVERS.pop("scipy-milp")


def test_recipe_add_a_solver(scipy_solver):
    assert get_solver("scipy-milp") is scipy_solver and scipy_solver.in_process
    puzzle = parse_puzzle(SEED)
    result = get_solver("scipy-milp").solve(build_model(puzzle, clues="bounds"))
    assert result.solved and verify_grid(result.grid, puzzle)


def test_recipe_solver_reports_infeasible(scipy_solver):
    # two clues that together leave cell (1,1) no digit: rows and columns forbid all of 1..4
    puzzle = parse_puzzle(".12.3...4.......", box="2x2")
    assert get_solver("scipy-milp").solve(build_model(puzzle)).status == "infeasible"


# -- recipe 3: a variant ----------------------------------------------------------------------
def _windows(n, h, w):
    """Windoku: four extra 3x3 windows with top-left corners (2,2), (2,6), (6,2), (6,6), 1-based."""
    if (n, h, w) != (9, 3, 3):
        raise PuzzleError("variant windoku: defined for 9x9 grids with 3x3 boxes only")
    cells = np.arange(81).reshape(9, 9)
    return [("window", np.stack([cells[r:r + 3, c:c + 3].ravel() for r in (1, 5) for c in (1, 5)]))]


@pytest.fixture
def windoku():
    variant = register_variant(Variant("windoku", "classic plus four 3x3 windows", boxes=True,
                                       extra_units=_windows, extra_families={"window": Family("window", "window")}))
    yield variant
    unregister_variant("windoku")


def test_recipe_add_a_variant(windoku):
    assert "windoku" in VARIANT_TABLE
    puzzle = parse_puzzle("." * 81, variant="windoku")
    model = build_model(puzzle, clues="bounds")
    assert model.family_counts()["window"] == 4 * 9
    assert "window_4_9" in set(model.row_labels)
    result = get_solver("highs").solve(model) if "highs" in SOLVERS else None
    if result is None:
        from pipeline.solvers.highs import solve

        result = solve(model)
    grid = result.grid
    assert verify_grid(grid, puzzle)
    # the windows really hold every digit once
    for r in (1, 5):
        for c in (1, 5):
            assert sorted(grid[r:r + 3, c:c + 3].ravel()) == list(range(1, 10))
    # a valid classic grid (the shifted-rows pattern) breaks window 1: verify names it
    r, c = np.indices((9, 9))
    pattern = (3 * (r % 3) + r // 3 + c) % 9 + 1
    assert verify_grid(pattern, parse_puzzle("." * 81))
    verdict = verify_grid(pattern, puzzle)
    assert not verdict and verdict.message.startswith("window 1 has digit")


def test_recipe_variant_messages_use_its_words(windoku):
    grid = np.zeros((9, 9), int)
    grid[1, 1] = grid[3, 3] = 5          # same window, different row/column/box? (2,2) and (4,4): box 1 and 5
    with pytest.raises(PuzzleError, match="digit 5 appears twice in window 1"):
        parse_puzzle(grid, variant="windoku")


# -- recipe 4: a subcommand ---------------------------------------------------------------------
TOY_COMMAND = '''"""The ``clues`` subcommand: how many clues a puzzle has (a toy for the recipe)."""
from __future__ import annotations

import argparse

from pipeline.cli.args import add_puzzle_args, puzzle_from_args


def cmd_clues(args: argparse.Namespace) -> int:
    puzzle = puzzle_from_args(args)
    print(f"{puzzle.n_clues} clues ({puzzle.n}x{puzzle.n} {puzzle.variant})")
    return 0 if puzzle.n_clues else 1


def add_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("clues", help="count a puzzle's clues")
    add_puzzle_args(p)
    p.set_defaults(func=cmd_clues)
'''


@pytest.fixture
def clues_command(tmp_path, monkeypatch):
    """The module written, importable, and its name in COMMAND_MODULES (undone afterwards)."""
    (tmp_path / "toy_clues_command.py").write_text(TOY_COMMAND)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(commands, "COMMAND_MODULES", commands.COMMAND_MODULES + ("toy_clues_command",))
    yield "toy_clues_command"
    sys.modules.pop("toy_clues_command", None)


def test_recipe_add_a_subcommand(clues_command, capsys):
    assert cli_main(["clues", SEED]) == 0
    assert capsys.readouterr().out == f"{parse_puzzle(SEED).n_clues} clues (9x9 classic)\n"
    assert cli_main(["clues", "." * 16, "--box", "2x2"]) == 1
    # the shared options and their errors come with it: one line, exit 2
    assert cli_main(["clues", "1.2.", "--box", "3x3"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert "count a puzzle's clues" in build_parser().format_help()


def test_recipe_subcommand_is_gone_afterwards():
    assert "toy_clues_command" not in commands.COMMAND_MODULES
    assert "count a puzzle's clues" not in build_parser().format_help()
