"""The pattern engine: a constructive fill of few-clue classic grids (issue 34, large grids)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers.auto import pick_solver
from pipeline.solvers.pattern import _band_permutation, base_grid, fit

BOXES = [(2, 2), (2, 3), (3, 2), (3, 3), (3, 4), (4, 3), (4, 4), (5, 5), (2, 5), (6, 6), (7, 7), (10, 10)]


@pytest.mark.parametrize("h,w", BOXES)
def test_the_closed_form_grid_is_a_solution_for_every_box_shape(h, w):
    n = h * w
    grid = base_grid(n, h, w) + 1
    assert verify_grid(grid, parse_puzzle(grid, box=f"{h}x{w}"))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(BOXES[:9]), st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_a_fit_is_a_solution_that_keeps_every_clue(box, seed, clues):
    """Clues taken from a random transform of the pattern: whatever fit returns verifies."""
    h, w = box
    n = h * w
    rng = np.random.default_rng(seed)
    full = rng.permutation(n)[base_grid(n, h, w)[np.ix_(_band_permutation(rng, w, h), _band_permutation(rng, h, w))]] + 1
    grid = np.zeros((n, n), dtype=int)
    cells = rng.choice(n * n, size=min(clues, n * n), replace=False)
    grid.flat[cells] = full.flat[cells]
    puzzle = parse_puzzle(grid, box=f"{h}x{w}")
    found = fit(puzzle)
    if clues == 1:
        assert found is not None   # one clue always fits (a relabelling of the identity)
    if found is not None:
        assert verify_grid(found, puzzle)
        assert (found.flat[cells] == full.flat[cells]).all()


#: The first 8 clues of the default puzzle (SEEDS.md): solvable, and no transform tried fits them.
UNFIT = "050079000000000500092000060080000000000000000000000000000000000000000000000000000"


def test_clues_that_fit_no_transform_are_left_to_the_next_engine():
    puzzle = parse_puzzle(UNFIT)
    model = build_model(puzzle)
    assert fit(puzzle) is None
    assert "no relabelled pattern fits" in SOLVERS["pattern"].problem_with(model)
    assert pick_solver("solve", model).name != "pattern"
    assert get_solver("auto").solve(model).solved   # the next engine of the row answers


@pytest.mark.parametrize("document,why", [
    ('{"size": 4, "rules": [{"rule": "antiknight"}]}', "rules beyond units"),
    ("1" + "." * 80, None),
])
def test_it_takes_plain_classic_grids_only(document, why):
    model = build_model(parse_puzzle(document))
    pick = pick_solver("solve", model)
    assert (pick.name == "pattern") == (why is None)
    assert pick_solver("unique", model).name != "pattern"   # it proves nothing
    assert pick_solver("solve").name != "pattern"            # never picked without a model to fit


def test_x_jigsaw_and_many_clues_are_refused_with_a_reason():
    x = build_model(parse_puzzle("1" + "." * 80, variant="x"))
    assert "classic puzzles with boxes only" in SOLVERS["pattern"].problem_with(x)
    full = base_grid(9, 3, 3) + 1
    crowded = build_model(parse_puzzle(np.where(np.arange(81).reshape(9, 9) % 3 == 0, full, 0)))
    assert "clues per digit" in SOLVERS["pattern"].problem_with(crowded)


def test_named_pattern_without_a_fit_says_so(capsys):
    assert main(["solve", UNFIT, "--solver", "pattern", "--no-unique-check"]) == 2
    assert "no relabelled pattern fits" in capsys.readouterr().err


@pytest.mark.parametrize("n", [36, 64, 100])
def test_a_one_clue_large_grid_goes_to_the_pattern_engine(n, capsys):
    side = int(n ** 0.5)
    line = "7" + "." * (n * n - 1)
    assert main(["solve", line, "--box", f"{side}x{side}", "--no-unique-check", "--format", "json", "-v"]) == 0
    out, err = capsys.readouterr()
    assert "auto picked pattern" in err and '"solver": "pattern"' in out and '"verified": true' in out


def test_the_result_names_the_engine_and_decodes():
    model = build_model(parse_puzzle("." * 40 + "5" + "." * 40))
    result = get_solver("pattern").solve(model)
    assert result.solver == "pattern" and result.grid[4, 4] == 5
    assert np.array_equal(model.decode(result.x), result.grid)


@pytest.mark.parametrize("h, w", [(2, 3), (3, 3), (4, 5)])
def test_a_full_grid_is_its_own_answer(h, w):
    # every cell given: "more than 6 clues per digit" sent it to sat (24 s for a full 100x100)
    from pipeline.solvers.pattern import base_grid
    n = h * w
    rng = np.random.default_rng(n)
    grid = rng.permutation(n)[base_grid(n, h, w) - 1] + 1   # the pattern, relabelled
    model = build_model(parse_puzzle(grid, box=f"{h}x{w}"))
    assert pick_solver("solve", model).name == "pattern"
    r = SOLVERS["pattern"].solve(model)
    assert r.status == "optimal" and np.array_equal(r.grid, grid) and verify_grid(r.grid, model.puzzle).ok
