"""The recipes of docs/architecture.md, each done for real: a new model format, a new solver, a
new variant, a new rule and a new subcommand, each one module-sized addition through its registry."""
from __future__ import annotations

import json
from pathlib import Path
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


def _export_json_coo(model, directory):
    path = Path(directory) / "model.coo.json"
    _write_json_coo(model, path)
    return [path]


def test_recipe_a_format_with_an_export_and_one_file(tmp_path):
    """An outside check followed the recipe with an ``export`` and ``file_names``: ``check``
    then failed on every export ("lists 'model.jcoo', which is not a file of an export"), a
    second export was refused, and ``--to x.ext`` wrote a directory: the endings and the one-file
    formats were lists beside the registry. Now the entry alone says both."""
    from formats.check import check_export
    from formats.directory import export_model
    from formats.single import export_file, single_format_names

    register(Format("json-coo", (".coo.json",), "toy: COO triplets in JSON", write=_write_json_coo,
                    read=_read_json_coo, export=_export_json_coo, file_names=("model.coo.json",), one_file=True))
    try:
        model = build_model(parse_puzzle(SEED))
        for _ in range(2):   # a second export into the same directory replaces the first
            written = export_model(model, tmp_path / "out", ["json-coo", "mps"])
            assert [p.name for p in written["json-coo"]] == ["model.coo.json"]
            found = check_export(tmp_path / "out")
            assert found.problems == [] and found.files == 2, found.problems
        assert "json-coo" in single_format_names()
        one = export_file(model, tmp_path / "m.coo.json")
        assert (tmp_path / "m.coo.json").is_file() and list(one) == ["json-coo", "manifest"]
        assert check_export(tmp_path / "m.coo.json").problems == []
    finally:
        FORMATS.pop("json-coo")


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


# -- recipe: a rule beyond units ----------------------------------------------------------------
from dataclasses import dataclass  # noqa: E402

from pipeline.core.rules import RULES, Rule, Rows, register_rule, unregister_rule  # noqa: E402
from pipeline.core.rules.base import cell_name, check_keys, parse_cells  # noqa: E402


@dataclass(frozen=True, eq=False)
class LowCells(Rule):
    """Marked cells hold at most ``limit``: rows ``low_k_i`` (``<= 0``), one per marked cell, the
    sum of its variables of the digits above the limit."""

    cell_list: tuple[int, ...]
    limit: int

    kind = "low"
    families = ("low",)
    description = "low cells: they hold at most the limit"

    @classmethod
    def from_dict(cls, data, board, where):
        check_keys(data, {"cells", "limit"}, where)
        limit = data.get("limit")
        if not isinstance(limit, int) or not 1 <= limit <= board.n:
            raise PuzzleError(f"{where}: limit must be a digit 1..{board.n}, found {limit!r}")
        return cls(tuple(int(c) for c in parse_cells(data.get("cells"), board, where)), limit)

    def to_dict(self, board):
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list], "limit": self.limit}

    def cells(self):
        return np.array(self.cell_list, dtype=np.int64)

    def rows(self, board, index):
        cells = self.cells()
        above = np.arange(self.limit, board.n)               # 0-based digits above the limit
        row = np.repeat(np.arange(cells.size), above.size)   # one row per cell, vectorised
        labels = np.stack([np.full(cells.size, index), np.arange(1, cells.size + 1)], axis=1)
        return [Rows("low", row, np.repeat(cells, above.size), np.tile(above, cells.size),
                     np.ones(row.size, dtype=np.int64), np.zeros(cells.size, dtype=np.int64), "L", labels)]

    def violations(self, grid, board):
        return [{"message": f"{cell_name(c, board)} is a low cell (at most {self.limit}) but holds {grid[c]}",
                 "cells": [int(c)]} for c in self.cell_list if grid[c] > self.limit]


def _all_4x4_grids() -> list:
    """Every 4x4 Sudoku grid, row by row over permutations (independent of any solver)."""
    from itertools import permutations

    rows = [np.array(p) for p in permutations(range(1, 5))]
    grids = [[]]
    for r in range(4):
        grids = [g + [row] for g in grids for row in rows
                 if all(row[c] != other[c] for other in g for c in range(4))
                 and (r % 2 == 0 or all(set(row[b:b + 2]).isdisjoint(g[-1][b:b + 2]) for b in (0, 2)))]
    return [np.stack(g) for g in grids]


@pytest.fixture
def low_rule():
    register_rule(LowCells)
    yield LowCells
    unregister_rule("low")


def test_recipe_add_a_rule(low_rule, tmp_path):
    from pipeline.solvers.highs import count_solutions, solve


    doc = {"size": 4, "rules": [{"rule": "low", "cells": ["r1c1", "r2c3"], "limit": 2}]}
    puzzle = parse_puzzle(json.dumps(doc))
    model = build_model(puzzle)
    assert model.n_ineq == 2 and list(model.ineq_labels) == ["low_1_1", "low_1_2"]
    grid = solve(model).grid
    assert grid[0, 0] <= 2 and grid[1, 2] <= 2 and verify_grid(grid, puzzle)
    # every 4x4 Sudoku grid (288, by brute force) with both cells low, against HiGHS's count
    everything = _all_4x4_grids()
    low = sum(1 for x in everything if x[0, 0] <= 2 and x[1, 2] <= 2)
    assert len(everything) == 288 and count_solutions(model, limit=300).count == low
    # verify names the broken rule; a bad entry is one line naming it
    broken = next(x for x in everything if x[0, 0] > 2)
    verdict = verify_grid(broken, puzzle)
    assert not verdict and f"r1c1 is a low cell (at most 2) but holds {broken[0, 0]}" in verdict.message
    with pytest.raises(PuzzleError, match=r"rules\[0\] \(low\): limit must be a digit 1..4, found 9"):
        parse_puzzle(json.dumps({"size": 4, "rules": [{"rule": "low", "cells": ["r1c1"], "limit": 9}]}))
    # every format carries the new rows: the LP file has them as <= rows
    from formats.directory import export_model

    export_model(model, tmp_path, "lp")
    assert "low_1_1:" in (tmp_path / "model.lp").read_text()


def test_recipe_rule_is_gone_afterwards():
    assert "low" not in RULES
