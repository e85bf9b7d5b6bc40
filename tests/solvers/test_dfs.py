"""The ``dfs`` engine (pipeline/solvers/dfs.py and its compiled kernel): counts and solutions
against the SAT engine and published counts, every unit family it reads, its limits and refusals."""
from __future__ import annotations

import csv
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracles import PROJECT, box_regions, is_valid_solution, region_string, shuffled_sudoku
from pipeline.core.build import build_model
from pipeline.core.errors import SolveError
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import get_solver

pytest.importorskip("numba", reason="the dfs engine needs numba (pip install '.[fast]')")

from pipeline.solvers.dfs import MAX_DFS_N, grids_of, search_grids, search_puzzle, shape_tables, start_masks  # noqa: E402

dfs, sat = get_solver("dfs"), get_solver("sat")
SETS = PROJECT / "tests" / "data" / "sets"


def _lines(name: str) -> list[str]:
    return [s.strip() for s in (SETS / name).read_text().splitlines() if s.strip() and not s.startswith("#")]


def test_the_published_counts_of_the_tdoku_test_set():
    with open(SETS / "9x9_tdoku_test_counts.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    grids = np.array([[0 if ch in ".0" else int(ch) for ch in r["puzzle"]] for r in rows])
    # counted in full (up to 847 solutions): test_highs_solve.py counts the largest only to its cap
    counts, solutions, nodes, unfinished, searched = search_grids(grids, parse_puzzle("." * 81), 10**4, 10**7)
    assert searched == len(rows)
    want = [int(r["n_solutions"]) for r in rows]
    assert counts.tolist() == want and not unfinished.any() and (nodes > 0).all()
    for row, count, solution in zip(rows, counts, solutions):
        if count:
            assert verify_grid(solution.reshape(9, 9), parse_puzzle(row["puzzle"])).ok
        else:
            assert not solution.any()


def test_the_hardest_set_agrees_with_the_reference_solutions():
    with open(SETS / "9x9_forum_hardest_1106.ref.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    grids = np.array([[0 if ch in ".0" else int(ch) for ch in r["puzzle"]] for r in rows])
    counts, solutions, _, _, _ = search_grids(grids, parse_puzzle("." * 81), 2, 10**6, total_budget=500)
    assert counts.tolist() == [1] * len(rows)
    assert ["".join(map(str, s)) for s in solutions] == [r["solution"] for r in rows]


@pytest.mark.parametrize("name, box", [("9x9_x.txt", None), ("16x16_classic.txt", None), ("16x16_x.txt", None)])
def test_solve_with_the_uniqueness_proof_agrees_with_sat(name, box):
    variant = "x" if "_x" in name else None
    for text in _lines(name)[:4]:
        model = build_model(parse_puzzle(text, variant=variant))
        got, want = dfs.solve(model, check_unique=True), sat.solve(model, check_unique=True)
        assert got.status == want.status == "optimal" and got.unique == want.unique
        assert verify_grid(got.grid, model.puzzle).ok
        assert np.array_equal(got.x, want.x) == bool(want.unique)   # a unique puzzle: the same answer
        assert got.solver == "dfs" and got.nodes > 0


def test_jigsaw_regions_and_a_unit_rule_are_read_from_the_unit_families():
    with open(SETS / "jigsaw.csv", newline="") as f:
        rows = list(csv.DictReader(f))[:6]
    for row in rows:
        model = build_model(parse_puzzle(row["puzzle"], regions=row["regions"], variant="jigsaw"))
        assert dfs.count(model, 3).count == sat.count(model, 3).count
    windoku = build_model(parse_puzzle("." * 81, rules=[{"rule": "windoku"}]))
    assert not windoku.has_rules   # windows are units: dfs takes them
    found = dfs.count(windoku, 5)
    assert found.count == 5 and found.status == "limit"
    for grid in found.grids:
        assert verify_grid(grid, windoku.puzzle).ok


def test_every_grid_of_the_empty_4x4_once():
    found = dfs.count(build_model(parse_puzzle("." * 16)), 1000)
    assert (found.count, found.status) == (288, "complete")
    assert len({g.tobytes() for g in found.grids}) == 288
    assert all(is_valid_solution(g, 2, 2) for g in found.grids)


def test_a_limit_past_the_kernels_int64_counts_every_grid():
    # 2**63 wrapped to a negative limit in the kernel: the empty 4x4 was "1 (complete)", unique
    for limit in (2 ** 63, 2 ** 64 + 1):
        found = dfs.count(build_model(parse_puzzle("." * 16)), limit, keep=1)
        assert (found.count, found.status) == (288, "complete")


def test_a_count_past_the_found_buffer_keeps_every_grid():
    found = search_puzzle(parse_puzzle("." * 81), 600, keep=600)   # the buffer holds 256 at a time
    assert found.count == 600 and found.status == "limit" and len(found.grids) == 600
    assert len({g.tobytes() for g in found.grids}) == 600


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), shape=st.sampled_from([(2, 2), (2, 3), (3, 2), (3, 3)]),
       variant=st.sampled_from(["classic", "x", "jigsaw"]), keep=st.floats(0.0, 0.6))
def test_counts_agree_with_sat_on_random_clue_sets(seed, shape, variant, keep):
    """Clues kept from a valid grid (a Sudoku-X or a jigsaw grid of box regions when asked):
    dfs and SAT count the same solutions up to 3, and dfs's grids are valid."""
    rng = np.random.default_rng(seed)
    h, w = shape
    solved = shuffled_sudoku(h, w, rng)
    regions = region_string(box_regions(h, w)) if variant == "jigsaw" else None
    if variant == "x":   # a random Sudoku-X grid is rare: keep the clues, the variant decides
        solved = np.where(rng.random(solved.shape) < keep, solved, 0)
    clues = np.where(rng.random(solved.shape) < keep, solved, 0)
    try:
        puzzle = parse_puzzle(clues, box=f"{h}x{w}", variant=variant, regions=regions)
    except Exception:   # clues that break the variant's own units: nothing to compare
        return
    model = build_model(puzzle)
    got, want = dfs.count(model, 3), sat.count(model, 3)
    assert (got.count, got.status) == (want.count, want.status)
    for grid in got.grids:
        assert verify_grid(grid, puzzle).ok


def test_a_contradiction_is_infeasible_and_a_model_with_rule_rows_is_refused():
    # no clash among the clues and none that singles see: only the search finds there is no solution
    model = build_model(parse_puzzle("..2." "..1." "12.." "....", box="2x2"))
    result = dfs.solve(model, check_unique=True)
    assert (result.status, result.grid, result.unique) == ("infeasible", None, None)
    assert sat.solve(model).status == "infeasible" and dfs.count(model, 2).count == 0
    killer = build_model(parse_puzzle(str(PROJECT / "examples" / "killer.json")))
    with pytest.raises(SolveError, match=r"^solver dfs: .*(does not handle|rules)"):
        dfs.solve(killer)


def test_a_time_limit_stops_the_search():
    found = dfs.count(build_model(parse_puzzle("." * 256)), 10**9, time_limit=0.2)
    assert found.status == "time_limit" and 0 < found.count < 10**9 and found.seconds < 10


def test_the_tables_and_the_mask_helpers():
    tables = shape_tables(parse_puzzle("." * 81))
    assert tables.n_peers.tolist() == [20] * 81 and tables.units.shape == (27, 9)
    assert set(tables.peers[0].tolist()) == {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 18, 19, 20, 27, 36, 45, 54, 63, 72}
    masks = start_masks(np.array([[0, 3, 9]]), 9)
    assert masks.tolist() == [[511, 4, 256]]
    assert grids_of(masks[:, 1:]).tolist() == [[3, 9]]
    big = Puzzle(np.zeros((65, 65), dtype=int), 5, 13)
    with pytest.raises(SolveError, match=rf"^solver dfs: grids up to {MAX_DFS_N}x{MAX_DFS_N}"):
        shape_tables(big)


def test_without_numba_dfs_says_what_to_install_and_auto_batch_falls_back(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nsys.modules['numba'] = None\n")
    env = {"PYTHONPATH": f"{site}:{PROJECT}", "PATH": "/usr/bin:/bin"}
    puzzle = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    proc = subprocess.run([sys.executable, "-m", "pipeline", "solve", puzzle, "--solver", "dfs"], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=300)
    [line] = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and line.startswith("error: solver dfs: needs numba (the fast extra): ")
    assert line.endswith(f"-m pip install -e '{PROJECT}[fast]'")   # the checkout's install stays editable
    src = tmp_path / "in.txt"
    src.write_text(puzzle + "\n")
    proc = subprocess.run([sys.executable, "-m", "pipeline", "batch", str(src), str(tmp_path / "out"), "--workers", "1",
                           "--progress", "none", "-v"], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    notes = [s for s in proc.stderr.splitlines() if s.startswith("note: solver auto")]
    assert len(notes) == 1 and "dfs needs numba" in notes[0] and "using sat instead" in notes[0]


def test_a_stop_request_is_seen_between_compiled_calls():
    grids = np.array([[0 if ch in ".0" else int(ch) for ch in line] for line in _lines("9x9_forum_hardest_1106.txt")[:20]])
    asked = []

    def stop():
        asked.append(1)
        return len(asked) >= 2
    first = search_grids(grids, parse_puzzle("." * 81), 1, 10**6, total_budget=1, stop=stop)
    assert first.searched == 2 and (first.counts[:2] == 1).all() and not first.counts[2:].any()
    alone = search_puzzle(parse_puzzle("." * 256), 10**9, keep=1, stop=lambda: True)
    assert alone.status == "stopped" and alone.count >= 1


def test_a_count_keeps_only_the_grids_asked_for():
    model = build_model(parse_puzzle("." * 16))
    found = dfs.count(model, 1000, keep=1)
    assert (found.count, found.status, len(found.grids)) == (288, "complete", 1)
    assert len(dfs.count(model, 1000, keep=0).grids) == 0 and len(dfs.count(model, 5, keep=9).grids) == 5
    with pytest.raises(SolveError, match=r"^solver dfs: count: keep must be an integer at least 0, found -1$"):
        dfs.count(model, 5, keep=-1)


def test_the_count_command_keeps_the_grids_it_prints(capsys):
    from pipeline.cli.main import main

    assert main(["count", "." * 16, "--solver", "dfs", "--limit", "1000", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "288 (solutions)" and len(set(lines[1:])) == 288


def test_the_search_estimates_its_progress_between_slices():
    """give_up hears the share of the tree searched (the kernel's shares per stack row): in [0, 1),
    never falling, near the true share on an even tree (a 17-clue grid less a clue: its 1,995,795
    grids are listed at a steady pace), and a give_up that says stop ends the search."""
    line = (PROJECT / "tests" / "data" / "dev" / "9x9_sudoku17.txt").read_text().split()[0]
    first_clue = next(i for i, ch in enumerate(line) if ch not in ".0")
    puzzle = parse_puzzle(line[:first_clue] + "." + line[first_clue + 1:])
    heard: list[tuple[int, float]] = []

    def listen(found: int, spent: float, progress: float | None = None) -> bool:
        assert progress is not None
        heard.append((found, progress))
        return False

    limit = 400_000
    listed = search_puzzle(puzzle, limit, keep=0, give_up=listen)
    assert (listed.count, listed.status) == (limit, "limit") and len(heard) >= 2
    shares = [progress for _, progress in heard]
    assert all(0.0 <= p < 1.0 for p in shares) and shares == sorted(shares)
    found, share = heard[-1]
    assert 0.2 < share / (found / 1_995_795) < 5   # Knuth's estimate: the right order on an even tree
    stopped = search_puzzle(puzzle, limit, keep=0, give_up=lambda found, spent, progress=None: True)
    assert stopped.status == "time_limit" and stopped.count < limit
