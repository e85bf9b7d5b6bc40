"""``import`` of an ``x`` solved from another export's model (another index convention) says so:
it failed as "cell (r, c) holds several digits" or as broken clues, without a word of why, where
``solve_sudoku.m`` already hints at the convention (the MATLAB round trip's finding)."""
from __future__ import annotations

import itertools
import json

from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle

CONVENTIONS = list(itertools.product(("ijk", "block"), ("F", "C")))
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: unique puzzles (the only valid grid is the answer, so no other reading can pass by chance): a
#: 6x6 of 2x3 boxes (block's p, q differ in range), the same with a rule beyond units, a killer
PUZZLES = [{"size": 6, "box": "2x3", "givens": ".......25.6..5.6....3..24...2......3"},
           {"size": 6, "box": "2x3", "givens": "..6.......2..5.2....4..1....6.......", "rules": [{"rule": "antiknight"}]},
           json.loads((EXAMPLES / "killer.json").read_text())]


def _x_file(tmp_path, doc: dict, scheme: str, order: str, grid=None):
    """An answer as MATLAB writes ``x`` (one value a line) in ``scheme``/``order``: of ``grid``,
    else of the puzzle's solution."""
    puzzle = parse_puzzle(json.dumps(doc))
    grid = pipeline.solve(puzzle).grid if grid is None else grid
    conv = build_model(puzzle, scheme, order).convention
    rows, cols = np.indices(grid.shape)
    x = np.zeros(conv.n_vars)
    x[conv.position(rows.ravel(), cols.ravel(), grid.ravel() - 1)] = 1
    path = tmp_path / f"x_{scheme}_{order}.csv"
    path.write_text("\n".join(f"{v:g}" for v in x) + "\n")
    return path, grid


@pytest.mark.parametrize("doc", PUZZLES, ids=["6x6", "6x6-antiknight", "killer"])
@pytest.mark.parametrize("exported", CONVENTIONS, ids="/".join)
def test_an_x_of_another_convention_names_the_one_it_reads_in(capsys, tmp_path, doc, exported):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    assert main(["export", str(path), "--to", str(tmp_path / "out"), "--formats", "csv", "--scheme", exported[0],
                 "--order", exported[1], "--quiet"]) == 0
    hinted = 0
    for solved in CONVENTIONS:
        answer, grid = _x_file(tmp_path, doc, *solved)
        capsys.readouterr()
        code = main(["import", str(answer), "--manifest", str(tmp_path / "out"), "--format", "json"])
        out, err = capsys.readouterr()
        if code == 0:   # its own, or another whose reading maps this solution onto itself (a 6x6 can)
            assert json.loads(out)["verified"] is True and "hint" not in err, err
            assert solved == exported or np.array_equal(np.array(json.loads(out)["grid"]), grid)
            continue
        hinted += 1
        said = "it reads as a valid grid in the "
        named = f"{solved[0]}/{solved[1]}"
        manifest = f"not the manifest's {exported[0]}/{exported[1]}: was it solved from another export's model?"
        if code == 2:   # several digits in a cell: the whole answer is refused, in one line
            assert err.count("\n") == 1 and err.startswith(f"error: {answer}: cell (") and said in err, err
            assert named in err and manifest in err
        else:           # one digit a cell, a grid that breaks the clues or the units
            assert code == 1, err
            lines = err.splitlines()
            assert lines[-1].startswith(f"hint: {said}") and named in lines[-1] and manifest in lines[-1], err
            assert all(line.startswith("invalid: ") for line in lines[:-1]) and len(lines) > 1, err
            assert json.loads(out)["hint"] == lines[-1].removeprefix("hint: ")
    assert hinted >= 2   # at least the other order and the other scheme of the same order


def test_an_answer_that_is_no_solution_in_any_convention_gets_no_hint(capsys, tmp_path):
    doc = PUZZLES[0]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    assert main(["export", str(path), "--to", str(tmp_path / "out"), "--formats", "csv", "--quiet"]) == 0
    _, grid = _x_file(tmp_path, doc, "ijk", "F")
    grid[0, [0, 1]] = grid[0, [1, 0]]   # two cells swapped: one digit a cell, no solution in any reading
    answer, _ = _x_file(tmp_path, doc, "ijk", "F", grid)
    capsys.readouterr()
    assert main(["import", str(answer), "--manifest", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "invalid: " in err and "hint" not in err and "convention" not in err, err


@pytest.mark.parametrize("doc", PUZZLES[:2], ids=["6x6", "6x6-antiknight"])
@pytest.mark.parametrize("exported", CONVENTIONS, ids="/".join)
def test_an_x_of_another_reduced_export_names_the_convention_too(capsys, tmp_path, doc, exported):
    """A ``--clues reduce`` export's x has one value per kept column, in its own convention's
    order: the hint read the file's values at the manifest's positions only, and said nothing."""
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    assert main(["export", str(path), "--to", str(tmp_path / "out"), "--formats", "csv", "--scheme", exported[0],
                 "--order", exported[1], "--clues", "reduce", "--quiet"]) == 0
    puzzle = parse_puzzle(json.dumps(doc))
    grid = pipeline.solve(puzzle).grid
    rows, cols = np.indices(grid.shape)
    hinted = 0
    for solved in CONVENTIONS:
        model = build_model(puzzle, *solved, "reduce")
        full = np.zeros(model.convention.n_vars)
        full[model.convention.position(rows.ravel(), cols.ravel(), grid.ravel() - 1)] = 1
        answer = tmp_path / f"x_{'_'.join(solved)}.csv"
        answer.write_text("\n".join(f"{v:g}" for v in full[model.columns]) + "\n")
        capsys.readouterr()
        code = main(["import", str(answer), "--manifest", str(tmp_path / "out")])
        err = capsys.readouterr().err
        if code == 0:
            continue
        hinted += 1
        assert f"it reads as a valid grid in the {solved[0]}/{solved[1]}" in err, err
        assert f"not the manifest's {exported[0]}/{exported[1]}" in err, err
    assert hinted >= 2


@pytest.mark.parametrize("doc", PUZZLES[:2], ids=["6x6", "6x6-antiknight"])   # the killer has no clues to reduce
def test_a_reduced_exports_x_read_with_a_full_manifest_names_reduce(capsys, tmp_path, doc):
    """MATLAB's ``x`` of a ``--clues reduce`` export (one value per kept column) read with the
    full export's manifest said only "expected 729 values ..., found 301"."""
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    assert main(["export", str(path), "--to", str(tmp_path / "full"), "--formats", "csv", "--quiet"]) == 0
    puzzle = parse_puzzle(json.dumps(doc))
    reduced = build_model(puzzle, "ijk", "F", "reduce")
    answer, _ = _x_file(tmp_path, doc, "ijk", "F")
    kept = np.loadtxt(answer)[reduced.columns[reduced.columns < reduced.convention.n_vars]]
    answer.write_text("\n".join(f"{v:g}" for v in kept) + "\n")
    capsys.readouterr()
    assert main(["import", str(answer), "--manifest", str(tmp_path / "full")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"found {kept.size}; a --clues reduce export of this puzzle has {kept.size} " \
        "columns: was it solved from that export's model? give that export's --manifest" in err, err
    # one value short of it: no such export, no hint
    answer.write_text("\n".join(f"{v:g}" for v in kept[:-1]) + "\n")
    assert main(["import", str(answer), "--manifest", str(tmp_path / "full")]) == 2
    assert "--clues reduce" not in capsys.readouterr().err


def test_a_reduced_answer_by_names_read_with_a_full_manifest_names_reduce(capsys, tmp_path):
    """A CBC answer of a reduce export lists its variables by name: against the full export's
    manifest the clue cells came out empty, with one ``invalid:`` line per clue and no word of why."""
    doc = PUZZLES[0]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    assert main(["export", str(path), "--to", str(tmp_path / "full"), "--formats", "csv", "--quiet"]) == 0
    puzzle = parse_puzzle(json.dumps(doc))
    reduced = build_model(puzzle, "ijk", "F", "reduce")
    grid = pipeline.solve(puzzle).grid
    names = reduced.convention.names(reduced.columns)
    rows, cols = np.indices(grid.shape)
    chosen = set(reduced.convention.position(rows.ravel(), cols.ravel(), grid.ravel() - 1).tolist())
    lines = [f"{k} {name} 1 0" for k, (name, col) in enumerate(zip(names, reduced.columns)) if int(col) in chosen]
    answer = tmp_path / "answer.sol"
    answer.write_text("Optimal - objective value 0.00000000\n" + "\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["import", str(answer), "--manifest", str(tmp_path / "full")]) == 1
    err = capsys.readouterr().err.splitlines()
    clues = int((puzzle.grid > 0).sum())
    assert err[-1] == (f"hint: its {clues} clue cells have no digit, and with the clues it is a valid grid: a --clues "
                       "reduce export has no columns for them: was it solved from that export's model? give that "
                       "export's --manifest"), err
    # the same names against the reduce export's own manifest import
    assert main(["export", str(path), "--to", str(tmp_path / "red"), "--formats", "csv", "--clues", "reduce",
                 "--quiet"]) == 0
    assert main(["import", str(answer), "--manifest", str(tmp_path / "red")]) == 0
