"""generate --rule for families with cells (issue 33, part 3): every sampler's entries hold on the grid
they were drawn from (checked by the rule's own violations()), seeds reproduce, a generated puzzle of
each family has exactly one solution (SAT count to 2) and that solution is the grid, a family without
a sampler is refused in one line, and the CLI writes the drawn rules."""
import json
import subprocess
import sys

import numpy as np
import pytest

from oracles import PROJECT
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle, parse_puzzle, with_rules
from pipeline.core.verify import verify_grid
from pipeline.tools.generate import count_up_to, generate
from pipeline.tools.generate.engine import counting_engine, engine_for
from pipeline.tools.generate.samplers import SAMPLERS, default_count, entries_hold, sample_entries, sampler_for

BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3)}


def side_of(kind: str) -> int:
    """The smallest grid the family is tested on (entropic needs N divisible by 3)."""
    return 6 if kind == "entropic" else 4


def full_grid(n: int, seed: int) -> tuple[Puzzle, np.ndarray]:
    h, w = BOXES[n]
    shape = Puzzle(np.zeros((n, n), dtype=np.int64), h, w)
    return shape, engine_for(shape).random_full_grid(np.random.default_rng(seed))


@pytest.mark.parametrize("n", [6, 9])
@pytest.mark.parametrize("kind", sorted(SAMPLERS))
def test_every_sampled_entry_holds_on_its_grid(kind, n):
    shape, grid = full_grid(n, 11)
    entries = sample_entries([kind], grid, shape.base_board, np.random.default_rng(5))
    assert entries and all(e["rule"] in (kind, "kropki", "xv") for e in entries)
    assert any(e["rule"] == kind for e in entries)
    puzzle = with_rules(np.zeros((n, n), dtype=np.int64), shape.h, shape.w, "classic", None, None, entries)
    board = puzzle.base_board
    for rule in puzzle.rules:   # bound as a puzzle binds them (strict rules know the marked pairs)
        assert rule.violations(grid.ravel(), board) == [], (rule, rule.to_dict(board))
    if not kind.startswith("strict"):
        assert sum(e["rule"] == kind for e in entries) <= default_count(kind, n)
    # the grid is a solution of the rules alone
    assert verify_grid(grid, puzzle).ok


def test_strict_forms_mark_every_pair():
    shape, grid = full_grid(6, 2)
    entries = sample_entries(["strictxv"], grid, shape.base_board, np.random.default_rng(0))
    a, b = shape.base_board.orthogonal_pairs().T
    sums = grid.ravel()[a] + grid.ravel()[b]
    assert entries[-1] == {"rule": "strictxv"}
    assert len(entries) - 1 == int(np.isin(sums, (5, 10)).sum())


def test_rule_count_and_seeds_reproduce():
    shape, grid = full_grid(9, 3)
    board = shape.base_board
    draw = [sample_entries(["whisper", "thermo"], grid, board, np.random.default_rng(8), count=2) for _ in range(2)]
    assert draw[0] == draw[1]
    assert [e["rule"] for e in draw[0]] == ["whisper"] * 2 + ["thermo"] * 2
    # lines of one draw share no cell
    cells = [c for e in draw[0] for c in e["cells"]]
    assert len(cells) == len(set(cells))
    other = sample_entries(["whisper", "thermo"], grid, board, np.random.default_rng(9), count=2)
    assert other != draw[0]
    g1, g2 = (next(generate(size=6, seed=4, rules=[{"rule": "renban"}], rule_count=3)) for _ in range(2))
    assert g1.puzzle == g2.puzzle and np.array_equal(g1.solution, g2.solution)
    assert sum(r.kind == "renban" for r in g1.puzzle.rules) <= 3


@pytest.mark.parametrize("kind", sorted(SAMPLERS))
def test_generated_puzzle_of_each_family_is_unique_with_the_grid_as_solution(kind):
    n = side_of(kind)
    g = next(generate(size=n, seed=7, rules=[{"rule": kind}]))
    p = g.puzzle
    assert any(r.kind == kind for r in p.rules)
    assert counting_engine(p) == "sat" and count_up_to(p, 2) == 1
    assert verify_grid(g.solution, p).ok   # the one solution is the grid the rules came from
    givens = np.asarray(p.grid)
    assert np.array_equal(givens[givens > 0], g.solution[givens > 0])
    assert p.n_clues < n * n


def test_families_combine_with_each_other_and_with_rules_without_cells():
    g = next(generate(size=6, seed=2, rules=[{"rule": "whisper"}, {"rule": "thermo"}, {"rule": "antiknight"}]))
    kinds = {r.kind for r in g.puzzle.rules}
    assert kinds == {"whisper", "thermo", "antiknight"}
    assert count_up_to(g.puzzle, 2) == 1 and verify_grid(g.solution, g.puzzle).ok


@pytest.mark.parametrize("seed", range(4))
def test_line_families_that_fill_a_small_grid_cross_the_earlier_ones_rather_than_fail(seed):
    """Four line families on a 6x6 (four lines each by default) left the last no free cell: 'no
    arrow rule fits'. Each family still gets its lines, every one true of the grid."""
    kinds = ["whisper", "thermo", "renban", "arrow", "palindrome"]
    shape, grid = full_grid(6, seed)
    entries = sample_entries(kinds, grid, shape.base_board, np.random.default_rng(seed))
    assert {e["rule"] for e in entries} == set(kinds)
    assert entries_hold(entries, np.asarray(grid).ravel(), shape.base_board)


def test_refusals():
    with pytest.raises(PuzzleError, match=r"^generate: --rule extraregion: no sampler draws extraregion rules"):
        sampler_for("extraregion")
    with pytest.raises(PuzzleError, match=r"^generate: --rule extraregion: no sampler"):
        generate(size=4, seed=1, rules=[{"rule": "extraregion"}])   # when called, not at the first puzzle
    with pytest.raises(PuzzleError, match=r"^generate: --rule entropic: no entropic rule fits this 4x4 grid$"):
        next(generate(size=4, seed=1, rules=[{"rule": "entropic"}]))
    with pytest.raises(PuzzleError, match=r"^rule_count: must be from 1 to 32 on a 4x4 grid \(no family has more "
                                          r"instances there\), found 0$"):
        next(generate(size=4, seed=1, rules=[{"rule": "thermo"}], rule_count=0))
    r = subprocess.run([sys.executable, "-m", "pipeline", "generate", "--rule", "extraregion", "--seed", "1"],
                       capture_output=True, text=True, cwd=PROJECT)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith("error: generate: --rule extraregion: no sampler draws extraregion rules")
    # without --seed the seed line is printed once the options are checked: the error stays the only line
    r = subprocess.run([sys.executable, "-m", "pipeline", "generate", "--rule", "extraregion"],
                       capture_output=True, text=True, cwd=PROJECT)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_rules_without_cells_keep_their_path():
    """A bare kind that reads without cells (diagonal) is still a rule of the full grid, not sampled."""
    g = next(generate(size=4, seed=3, rules=[{"rule": "diagonal"}]))
    assert [r.kind for r in g.puzzle.rules] == ["diagonal"]
    assert np.unique(np.diag(g.solution)).size == 4


def test_cli_whisper_json():
    r = subprocess.run([sys.executable, "-m", "pipeline", "generate", "--rule", "whisper", "--seed", "3",
                        "--format", "json"], capture_output=True, text=True, cwd=PROJECT)
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout)
    assert row["seed"] == 3 and row["unique"] and row["rules"]
    assert {e["rule"] for e in row["rules"]} == {"whisper"}
    puzzle = parse_puzzle(json.dumps(row["document"]))
    assert count_up_to(puzzle, 2) == 1
    solution = np.array([int(ch) for ch in row["solution"]]).reshape(9, 9)
    assert verify_grid(solution, puzzle).ok


@pytest.mark.parametrize("size", [4, 6, 9])
def test_pill_arrows_read_in_reading_order_so_iss_can_hold_them(size):
    """An outside probe: ``generate --rule pillarrow`` made pills read down-left (r5c2, r6c1),
    which ``convert --to x.iss`` refused: ISS reads a pill's cells right, down or down-right."""
    from pipeline.core.iss import document_from_iss
    from pipeline.core.iss_write import iss_from_puzzle

    for seed in range(1, 4):
        g = next(generate(size=size, seed=seed, rules=[{"rule": "pillarrow"}]))
        pills = [rule for rule in g.puzzle.rules if rule.kind == "pillarrow"]
        assert pills
        for rule in pills:
            (r0, c0), (r1, c1) = divmod(int(rule.cells()[0]), size), divmod(int(rule.cells()[1]), size)
            assert r1 >= r0 and c1 >= c0 and (r1, c1) != (r0, c0)
        back = parse_puzzle(json.dumps(document_from_iss(iss_from_puzzle(g.puzzle))))
        assert count_up_to(back, 2) == 1
        assert verify_grid(g.solution, back).ok
