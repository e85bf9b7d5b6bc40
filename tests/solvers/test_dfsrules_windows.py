"""The ``dfsrules`` kernel's window handler (pipeline/solvers/dfsrules_windows.py) for global
entropy and global mod: the rules' rows stay, the handler adds its deductions. Its counts to 2,
and its grids, equal the SAT engine's on generated puzzles of both rules (6x6 and 9x9: as
generated, with half or all of their givens removed, and with a given changed); on a hand-made
position it keeps a window's one high digit out of the cells that see each of its places before
any branch; and its tables."""
from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import SOLVERS
from pipeline.solvers.dfs import shape_tables, start_masks
from pipeline.solvers.dfsrules import rule_tables
from pipeline.solvers.dfsrules_windows_rows import WINDOW_BY_RATIO
from pipeline.tools.generate.puzzles import generate
from dfsrules_agree import agree_with_sat as _agree

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)


def _variants(generated, rng) -> list[dict]:
    """The generated puzzle, the same with half its givens gone, with none, and with one given's
    digit changed."""
    doc = generated.puzzle.to_document()
    n = doc["size"]
    grid = np.asarray(generated.puzzle.grid).reshape(-1)
    shown = np.flatnonzero(grid)
    gone = rng.choice(shown, size=shown.size // 2, replace=False) if shown.size else shown
    kept = grid.copy()
    kept[gone] = 0
    text = lambda g: "".join(str(v) if v else "." for v in g)   # noqa: E731
    docs = [doc, {**json.loads(json.dumps(doc)), "givens": text(kept)},
            {**json.loads(json.dumps(doc)), "givens": "." * grid.size}]
    at = int(rng.choice(shown))
    for step in range(1, n):   # a given changed to a digit its houses' givens leave it
        changed = grid.copy()
        changed[at] = (changed[at] + step - 1) % n + 1
        other = {**json.loads(json.dumps(doc)), "givens": text(changed)}
        try:
            parse_puzzle(other)
        except PuzzleError:
            continue
        return docs + [other]
    return docs


@pytest.mark.parametrize("kind", ["globalentropy", "globalmod"])
@pytest.mark.parametrize("size,count,seed", [(6, 4, 1), (9, 2, 2)])
def test_generated_window_rules_count_as_the_sat_engine(kind, size, count, seed):
    rng = np.random.default_rng(seed)
    seen = set()
    for generated in generate(size=size, count=count, seed=seed, rules=[{"rule": kind}]):
        for doc in _variants(generated, rng):
            seen.add(min(_agree(parse_puzzle(doc), where=doc), 2))
    assert seen >= {1, 2}


def _root(doc: dict) -> np.ndarray:
    """``doc``'s candidate masks after the kernel's propagation at the root."""
    from pipeline.solvers.dfsrules_kernel import propagate   # numba: loaded only where dfsrules runs

    puzzle = parse_puzzle(doc)
    shape, rules = shape_tables(puzzle), rule_tables(puzzle)
    n_cells = puzzle.n * puzzle.n
    givens = np.asarray(puzzle.grid, dtype=np.int64).reshape(1, -1)
    state = start_masks(givens, puzzle.n)[0] & rules.allowed
    assert propagate(state, np.zeros(n_cells, dtype=np.bool_), -1, shape.peers, shape.n_peers, shape.units,
                     shape.cell_units, shape.n_cell_units, shape.full, rules.rint, rules.compat,
                     rules.scratch(shape))
    return state


def test_a_windows_one_high_digit_leaves_the_cells_that_see_each_of_its_places():
    """Global entropy, 9x9: the window r1c3-r2c4 spans boxes 1 and 2; 8 and 9 in box 1 (r3c1,
    r2c2) and in column 4 (r7c4, r9c4) leave it one high digit, 7, and the 7 at r2c7 leaves that
    r1c3 or r1c4: the rest of row 1 loses 7, a cell seeing only one of the two keeps it (ISS's
    required values; the rule's rows, one at a time, left it everywhere)."""
    doc = {"size": 9, "box": "3x3", "rules": [{"rule": "globalentropy"}],
           "givens": ["r3c1=8", "r2c2=9", "r7c4=8", "r9c4=9", "r2c7=7"]}
    state = _root(doc)
    seven = np.uint64(1 << 6)
    assert state[2] & seven and state[3] & seven
    for cell in (0, 1, 4, 5):   # r1c1, r1c2, r1c5, r1c6
        assert not state[cell] & seven, cell
    assert state[20] & seven   # r3c3 sees r1c3 alone


def test_a_row_digit_locked_in_a_box_gives_a_window_its_required_value():
    """Global entropy, 9x9 (the bench set's line at index 509, 0-based): row 9 keeps 6 only in r9c1 and r9c3 (box 7),
    so box 7's other cells lose it (locked candidates, ISS's SameValues); r8c2 without 6, the window
    r7c2-r8c3 (1 at r8c3) has one middle digit left, 4, in r7c2, r7c3 and r8c2: box 7's other cells
    lose 4 (the windows' required values), and r9c1 and r9c3 keep 6 and 9 alone. Before the window
    puzzles got locked candidates they kept 4, 6 and 9; and they branch by conflicts per candidate
    from two candidates up (``by_ratio`` 2)."""
    doc = {"size": 9, "box": "3x3", "rules": [{"rule": "globalentropy"}],
           "givens": "......82...........2........1.................................6..1.......5.832..7"}
    state = _root(doc)
    four, six, nine = (np.uint64(1 << (d - 1)) for d in (4, 6, 9))
    assert not state[64] & six   # r8c2
    assert state[72] == six | nine and state[74] == six | nine   # r9c1, r9c3
    assert all(not state[c] & four for c in (54, 63, 72, 74))   # r7c1, r8c1, r9c1, r9c3
    assert rule_tables(parse_puzzle(doc)).rint[31] == WINDOW_BY_RATIO == 2
    assert rule_tables(parse_puzzle({**doc, "rules": [{"rule": "antiking"}]})).rint[31] == 1


def test_the_window_tables_name_each_windows_cells_and_classes():
    from pipeline.solvers.dfsrules_windows_rows import WIN_AT

    doc = {"size": 6, "box": "2x3", "rules": [{"rule": "globalentropy"}, {"rule": "globalmod"}]}
    rint = rule_tables(parse_puzzle(doc)).rint
    assert rint[WIN_AT] == 50
    cells = rint[rint[WIN_AT + 1]:rint[WIN_AT + 1] + 200].reshape(50, 4)
    assert cells[0].tolist() == [0, 1, 6, 7] and cells[25].tolist() == [0, 1, 6, 7]
    masks = rint[rint[WIN_AT + 2]:rint[WIN_AT + 2] + 150].reshape(50, 3)
    assert masks[0].tolist() == [3, 12, 48] and masks[25].tolist() == [9, 18, 36]
    assert rint[rint[WIN_AT + 3] + 7] - rint[rint[WIN_AT + 3] + 6] == 2 * 2   # r1c2: two windows of each rule
