"""pipeline.solvers.highs: the one counting loop (count_with_cuts) that count and batch share."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from oracles import PROJECT

from pipeline.batch import run_batch
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers.highs import SPLIT_AT, count_with_cuts, highs_for, split_groups


def sudoku_completions(clues: str) -> int:
    """Brute force: the completions of a 4x4 (2x2 boxes) puzzle, cell by cell."""
    grid = [0 if ch == "." else int(ch) for ch in clues]

    def fits(k: int, v: int) -> bool:
        r, c = divmod(k, 4)
        peers = {4 * r + j for j in range(4)} | {4 * i + c for i in range(4)} | \
            {4 * (r // 2 * 2 + i) + c // 2 * 2 + j for i in range(2) for j in range(2)}
        return all(grid[p] != v for p in peers - {k})

    def fill(k: int) -> int:
        if k == 16:
            return 1
        if grid[k]:
            return fill(k + 1) if fits(k, grid[k]) else 0
        total = 0
        for v in range(1, 5):
            if fits(k, v):
                grid[k] = v
                total += fill(k + 1)
                grid[k] = 0
        return total

    return fill(0)


def test_brute_force_oracle():
    assert sudoku_completions("." * 16) == 288       # SEEDS.md: 288 4x4 Sudoku grids
    assert sudoku_completions("11" + "." * 14) == 0
    assert sudoku_completions("1234341221434321") == 1


@pytest.mark.parametrize("clues", ["." * 16, "1" + "." * 15, "12.." + "." * 12, "1...2..........."])
def test_count_with_cuts_splits_and_leaves_the_instance_as_found(clues):
    """Counts above SPLIT_AT go through splits; every cut and split bound is undone afterwards."""
    expected = sudoku_completions(clues)
    assert expected > SPLIT_AT           # the split path is what this test is about
    model = build_model(parse_puzzle(clues, box="2x2"), clues="bounds")
    h = highs_for(model)
    rows = h.getNumRow()
    lp = h.getLp()
    lower, upper = np.array(lp.col_lower_), np.array(lp.col_upper_)
    run = count_with_cuts(h, expected + 5, split_on=(model, model.lb, model.ub))
    assert (len(run.xs), run.status) == (expected, "complete")
    assert len({tuple(np.rint(x).astype(int)) for x in run.xs}) == expected   # all different
    assert h.getNumRow() == rows
    lp = h.getLp()
    np.testing.assert_array_equal(lp.col_lower_, lower)
    np.testing.assert_array_equal(lp.col_upper_, upper)


def test_count_with_cuts_stops_at_the_limit_and_counts_a_given_first_solution():
    model = build_model(parse_puzzle("." * 16, box="2x2"))
    h = highs_for(model)
    first = count_with_cuts(h, 1).xs[0]
    run = count_with_cuts(h, 3, first=first)
    assert (len(run.xs), run.status) == (3, "limit")
    np.testing.assert_array_equal(run.xs[0], first)
    assert run.seconds > 0 and run.nodes >= 0


def test_split_groups_are_the_open_candidates_of_free_cells():
    model = build_model(parse_puzzle("1...2...........", box="2x2"), clues="bounds")
    groups = split_groups(model, model.lb, model.ub)
    r, c, d = model.convention.cell_digit(np.concatenate(groups))
    cells = set(zip(r.tolist(), c.tolist()))
    assert (0, 0) not in cells and (1, 0) not in cells and len(cells) == 14
    assert [g.size for g in groups] == sorted((g.size for g in groups), reverse=True)
    # a bound closed by the caller removes that candidate
    ub = model.ub.copy()
    ub[groups[0][0]] = 0
    assert sum(g.size for g in split_groups(model, model.lb, ub)) == sum(g.size for g in groups) - 1


def test_batch_count_agrees_with_brute_force_beyond_a_split(tmp_path):
    """batch --count uses the same loop: counts above SPLIT_AT split on its per-puzzle bounds."""
    puzzles = ["." * 16, "1" + "." * 15, "12.." + "." * 12, "1...2...........", "1234341221434321"]
    path = tmp_path / "p.txt"
    path.write_text("\n".join(puzzles) + "\n")
    out = tmp_path / "out"
    run_batch(path, out, workers=1, count=100, box="2x2", progress="none")
    df = pd.read_parquet(out).sort_values("index")
    expected = [min(sudoku_completions(p), 100) for p in puzzles]
    assert df["n_solutions"].tolist() == expected
    assert df["error"].isna().all()


def test_new_highs_is_silent():
    """No banner or log on the process's stdout (HiGHS 1.16 prints one when a Highs is built,
    once per process: hence a fresh process)."""
    code = ("import numpy as np; from pipeline.solvers.highs import new_highs; h = new_highs(); "
            "h.addVars(1, np.array([0.0]), np.array([1.0])); h.run(); print('done')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=PROJECT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")


def test_another_thread_count_in_the_same_process_still_solves():
    """HiGHS keeps one thread pool per process: an instance asking for another ``threads`` than
    the pool was started with is refused before solving. solve() (HiGHS's default threads) then
    run_batch(workers=1) (threads=1) in one session used to give every row status 'Not Set'."""
    code = ("from pipeline.core.build import build_model; from pipeline.core.puzzle import parse_puzzle; "
            "from pipeline.solvers.highs import highs_for, run_once; "
            "m = build_model(parse_puzzle('.' * 16, box='2x2')); "
            "print(run_once(highs_for(m))[0], run_once(highs_for(m, threads=1))[0], run_once(highs_for(m))[0])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=PROJECT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "optimal optimal optimal\n", "")


def test_an_infeasible_verdict_of_highs_presolve_is_confirmed_without_it():
    """A helper's check: HiGHS 1.16's presolve called a 4x4 chaos square with its first row given
    infeasible (optimal with its presolve off; sat, cpsat and HiGHS's count found solutions).
    ``solve`` now confirms "infeasible" with HiGHS's presolve off; a true one stays infeasible."""
    import json

    from pipeline.core.verify import verify_grid
    from pipeline.solvers import get_solver
    puzzle = parse_puzzle(json.dumps({"size": 4, "variant": "latin", "rules": [{"rule": "chaos"}],
                                      "givens": "1234" + "." * 12}))
    result = get_solver("highs").solve(build_model(puzzle))
    assert result.status == "optimal" and verify_grid(result.grid, puzzle)
    # infeasible past singles (no 2x2 latin square with both diagonals): still infeasible
    no = parse_puzzle(json.dumps({"size": 2, "variant": "latin", "rules": [{"rule": "diagonal"}]}))
    assert get_solver("highs").solve(build_model(no)).status == "infeasible"


def test_run_confirmed_rechecks_an_infeasible_verdict_without_presolve():
    """The one confirm step batch's per-shape HiGHS and generate's HiGHS engine run: on the
    singles-presolved chaos square above, HiGHS 1.16 alone says infeasible; confirmed, it is
    optimal. A true infeasible stays so, and presolve "off" is never run twice."""
    import json

    from pipeline.core.presolve import presolve
    from pipeline.solvers.highs import highs_for, run_confirmed
    puzzle = parse_puzzle(json.dumps({"size": 4, "variant": "latin", "rules": [{"rule": "chaos"}],
                                      "givens": "1234" + "." * 12}))
    h = highs_for(presolve(build_model(puzzle), "singles").model)
    status, _, _, x = run_confirmed(h)
    assert status == "optimal" and x is not None
    assert h.getOptionValue("presolve")[1] == "choose"          # restored after the second run
    no = build_model(parse_puzzle(json.dumps({"size": 2, "variant": "latin", "rules": [{"rule": "diagonal"}]})))
    assert run_confirmed(highs_for(no))[0] == "infeasible"
    assert run_confirmed(highs_for(no, options={"presolve": "off"}), restore="off")[0] == "infeasible"
