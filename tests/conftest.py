"""Shared fixtures and independent oracles for the core unit tests.

The oracles here are written from docs/conventions.md, not from the pipeline's code: the position
formulas, the unit definitions (rows, columns, boxes, regions, diagonals) and valid solved
grids built from a closed formula. Tests compare the pipeline against them.

Fixtures:

* ``data_dir``  the data sets: ``../shared/data`` beside the project when it is there, else the
  vendored sample ``tests/data`` (same layout and file names, fewer puzzles; see
  ``tests/data/README.md``), so every test runs from a clone alone. ``SUDOKU_TEST_DATA=sample``
  forces the sample, ``SUDOKU_TEST_DATA=/some/dir`` names another copy of the shared layout.
* ``oracle``    a namespace of the helpers below, for tests that prefer a fixture to an import.

Test modules import the helpers as ``from oracles import ...``: this module registers itself
under that name, because ``import conftest`` is ambiguous once another test directory has its
own ``conftest.py`` (pytest replaces ``sys.modules["conftest"]`` for each one).
"""
from __future__ import annotations

import functools
import itertools
import os
import signal
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

PROJECT = Path(__file__).resolve().parents[1]
#: ../shared/data beside the project (SUDOKU_SHARED_DATA names another place: an empty directory
#: checks that every test needing it skips with a reason, as on a clone without it)
SHARED_DATA_DIR = Path(os.environ.get("SUDOKU_SHARED_DATA") or PROJECT.parent / "shared" / "data")
SAMPLE_DATA_DIR = PROJECT / "tests" / "data"

if str(PROJECT) not in sys.path:  # `python -m pytest` from elsewhere still imports the project
    sys.path.insert(0, str(PROJECT))

sys.modules.setdefault("oracles", sys.modules[__name__])

# Hypothesis's default 200 ms deadline per example is a timing assertion: under load (the suite
# beside a benchmark, -n 2 on a shared machine) one example that parses a large grid or calls a
# solver takes longer, and the test fails with nothing wrong. The suite's profile drops it, and the
# too_slow health check (the same kind of check, on data generation), for every @given (a test's own
# settings(...) inherit it); speed belongs to the benchmarks. Loaded here, before any test module
# builds its settings. HYPOTHESIS_PROFILE names another profile.
try:
    from hypothesis import HealthCheck as _HealthCheck
    from hypothesis import settings as _hypothesis_settings
except ImportError:   # a core install's test run without the [test] extra
    _hypothesis_settings = None
if _hypothesis_settings is not None:
    _hypothesis_settings.register_profile("suite", deadline=None, suppress_health_check=[_HealthCheck.too_slow])
    _hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))

# A suite started in the background by a non-interactive shell (`make test &`, nohup) inherits
# SIGINT ignored, and Python then keeps it ignored: the Ctrl-C tests (in this process and in the
# commands they start) would see no KeyboardInterrupt. The product rightly keeps an inherited
# SIG_IGN; the tests restore Python's handler, which exec resets to the default for children.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _choose_data_dir() -> Path:
    """The full shared sets when present (or named by ``SUDOKU_TEST_DATA``), else the sample."""
    wanted = os.environ.get("SUDOKU_TEST_DATA", "")
    if wanted == "sample":
        return SAMPLE_DATA_DIR
    if wanted:
        return Path(wanted).resolve()
    return SHARED_DATA_DIR if (SHARED_DATA_DIR / "sets").is_dir() else SAMPLE_DATA_DIR


DATA_DIR = _choose_data_dir()
USING_SAMPLE = DATA_DIR == SAMPLE_DATA_DIR
#: ISS's published puzzles (issue 33): ../shared's when it is there, else the vendored copy, so the
#: ISS tests run from a clone alone (SUDOKU_SHARED_DATA pointing at an empty dir takes the copy)
ISS_COLLECTION = next((path for path in (SHARED_DATA_DIR / "iss" / "collections.jsonl",
                                         SAMPLE_DATA_DIR / "iss" / "collections.jsonl") if path.is_file()),
                      SAMPLE_DATA_DIR / "iss" / "collections.jsonl")


def data_missing_reason() -> str | None:
    if (DATA_DIR / "sets").is_dir():
        return None
    return f"data sets not found at {DATA_DIR} (neither ../shared/data nor the sample tests/data)"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The data sets (``../shared/data`` or the sample ``tests/data``, same layout); the test is
    skipped (reason printed) only when neither exists."""
    reason = data_missing_reason()
    if reason:
        print(f"SKIP: {reason}")
        pytest.skip(reason)
    return DATA_DIR


# ---------------------------------------------------------------------------------------------
# positions, straight from docs/conventions.md
# ---------------------------------------------------------------------------------------------
def oracle_position(scheme: str, order: str, h: int, w: int, r, c, d) -> np.ndarray:
    """0-based (row, column, digit) -> 0-based flat position, from the written formulas.

    ijk/F: 1-based ``i + N*(j-1) + N^2*(k-1)``; ijk/C: 0-based ``(i*N + j)*N + k``; block:
    look the tuple ``(I, J, p, q, n)`` up in ``arange(N^3)`` reshaped to ``(N/h, N/w, h, w, N)``
    with the given order (which is what MATLAB's ``reshape`` / NumPy's ``reshape`` mean).
    """
    n = h * w
    r, c, d = (np.asarray(v, dtype=np.int64) for v in (r, c, d))
    if scheme == "ijk":
        if order == "F":
            i, j, k = r + 1, c + 1, d + 1
            return i + n * (j - 1) + n ** 2 * (k - 1) - 1
        return (r * n + c) * n + d
    table = np.arange(n ** 3).reshape((n // h, n // w, h, w, n), order=order)
    return table[r // h, c // w, r % h, c % w, d]


def oracle_name(scheme: str, h: int, w: int, r: int, c: int, d: int) -> str:
    if scheme == "ijk":
        return f"x_{r + 1}_{c + 1}_{d + 1}"
    return f"x_{r // h + 1}_{c // w + 1}_{r % h + 1}_{c % w + 1}_{d + 1}"


def oracle_vector(grid, scheme: str, order: str, h: int, w: int) -> np.ndarray:
    """0/1 vector of a (partial) grid over all N^3 positions."""
    grid = np.asarray(grid)
    n = h * w
    x = np.zeros(n ** 3)
    r, c = np.nonzero(grid)
    x[oracle_position(scheme, order, h, w, r, c, grid[r, c] - 1)] = 1
    return x


# ---------------------------------------------------------------------------------------------
# units (constraint families), straight from the rules
# ---------------------------------------------------------------------------------------------
def oracle_units(n: int, h: int, w: int, variant: str, regions=None) -> list[tuple[str, list[list[tuple[int, int]]]]]:
    """``[(family, [unit cells (r, c) 0-based])]`` in docs/conventions.md order, without ``cell``.

    Boxes are numbered row-major over the grid; regions by their number ``0..N-1``.
    """
    fams = [("row", [[(r, c) for c in range(n)] for r in range(n)]),
            ("col", [[(r, c) for r in range(n)] for c in range(n)])]
    if variant in ("classic", "x"):
        boxes = [[] for _ in range(n)]
        for r in range(n):
            for c in range(n):
                boxes[(r // h) * (n // w) + c // w].append((r, c))
        fams.append(("box", boxes))
    elif variant in ("jigsaw", "jigsaw_x"):
        regs = [[] for _ in range(n)]
        for r in range(n):
            for c in range(n):
                regs[int(regions[r][c])].append((r, c))
        fams.append(("region", regs))
    if variant in ("x", "jigsaw_x"):
        fams.append(("diag", [[(i, i) for i in range(n)]]))
        fams.append(("anti", [[(i, n - 1 - i) for i in range(n)]]))
    return fams


def oracle_rows(n: int, h: int, w: int, variant: str, regions=None) -> list[tuple[str, list[tuple[int, int, int]]]]:
    """Every rule row of ``A`` as ``(label, [(r, c, d) 0-based])`` in docs/conventions.md order."""
    rows = [(f"cell_{r + 1}_{c + 1}", [(r, c, d) for d in range(n)]) for r in range(n) for c in range(n)]
    for fam, units in oracle_units(n, h, w, variant, regions):
        for u, cells in enumerate(units):
            for d in range(n):
                label = f"{fam}_{d + 1}" if fam in ("diag", "anti") else f"{fam}_{u + 1}_{d + 1}"
                rows.append((label, [(r, c, d) for r, c in cells]))
    return rows


def oracle_matrix(n, h, w, variant, scheme, order, regions=None, clues=None) -> tuple[np.ndarray, list[str]]:
    """Dense ``[A; B]`` and its row labels, from the definitions (``clues`` a grid or None)."""
    rows = oracle_rows(n, h, w, variant, regions)
    if clues is not None:
        clues = np.asarray(clues)
        rows += [(f"clue_{r + 1}_{c + 1}_{clues[r, c]}", [(r, c, clues[r, c] - 1)])
                 for r in range(n) for c in range(n) if clues[r, c]]
    dense = np.zeros((len(rows), n ** 3), dtype=np.int8)
    for k, (_, rcd) in enumerate(rows):
        r, c, d = np.array(rcd).T
        dense[k, oracle_position(scheme, order, h, w, r, c, d)] = 1
    return dense, [label for label, _ in rows]


def is_valid_solution(grid, h, w, variant="classic", regions=None, clues=None) -> bool:
    grid = np.asarray(grid)
    n = grid.shape[0]
    for _, units in oracle_units(n, h, w, variant, regions):
        for cells in units:
            if sorted(int(grid[r, c]) for r, c in cells) != list(range(1, n + 1)):
                return False
    if clues is not None:
        clues = np.asarray(clues)
        if np.any((clues > 0) & (clues != grid)):
            return False
    return True


_UNIT_WORD = {"row": "row", "col": "column", "box": "box", "region": "region",
              "diag": "main diagonal", "anti": "anti-diagonal"}


def oracle_first_violation(grid, h, w, variant="classic", regions=None) -> str | None:
    """The message verify must give for a full grid of digits with a broken unit: the first
    family in docs/conventions.md order, its first broken unit, the smallest repeated digit and the
    first two cells (row-major) holding it."""
    grid = np.asarray(grid)
    n = grid.shape[0]
    for fam, units in oracle_units(n, h, w, variant, regions):
        for u, cells in enumerate(units):
            values = [int(grid[r, c]) for r, c in cells]
            repeated = sorted({v for v in values if values.count(v) > 1})
            if repeated:
                v = repeated[0]
                a, b = sorted((r, c) for r, c in cells if grid[r, c] == v)[:2]
                where = _UNIT_WORD[fam] + ("" if fam in ("diag", "anti") else f" {u + 1}")
                return f"{where} has digit {v} twice: cells ({a[0] + 1}, {a[1] + 1}) and ({b[0] + 1}, {b[1] + 1})"
    return None


# ---------------------------------------------------------------------------------------------
# solved grids
# ---------------------------------------------------------------------------------------------
def every_4x4_sudoku() -> list[np.ndarray]:
    """Every 4x4 sudoku (digits 1..4, boxes 2x2): the 288 grids, each a fresh ``(4, 4)`` array,
    by brute force over rows that are permutations (the rule tests' counting oracle)."""
    perms = list(itertools.permutations(range(1, 5)))
    out = []
    for rows in itertools.product(perms, repeat=4):
        g = np.array(rows)
        if all(len(set(g[:, j])) == 4 for j in range(4)) and all(
                len(set(g[r:r + 2, c:c + 2].ravel())) == 4 for r in (0, 2) for c in (0, 2)):
            out.append(g)
    return out


def pattern_grid(h: int, w: int) -> np.ndarray:
    """A valid Sudoku solution with h x w boxes: ``(w*(r mod h) + r div h + c) mod N + 1``."""
    n = h * w
    r, c = np.indices((n, n))
    return (w * (r % h) + r // h + c) % n + 1


def latin_grid(n: int) -> np.ndarray:
    r, c = np.indices((n, n))
    return (r + c) % n + 1


def shuffled_sudoku(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A random-looking valid Sudoku: the pattern grid with digits relabelled, bands, stacks,
    rows within bands and columns within stacks permuted (all validity-preserving)."""
    n = h * w
    g = pattern_grid(h, w)
    bands = rng.permutation(n // h)
    rows = np.concatenate([b * h + rng.permutation(h) for b in bands])
    stacks = rng.permutation(n // w)
    cols = np.concatenate([s * w + rng.permutation(w) for s in stacks])
    relabel = np.concatenate([[0], rng.permutation(n) + 1])
    return relabel[g[np.ix_(rows, cols)]]


@functools.lru_cache(maxsize=None)
def _x_solution(h: int, w: int) -> np.ndarray | None:
    """A Sudoku-X solution with h x w boxes (found by HiGHS, checked by the oracle), or None."""
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import Puzzle
    from pipeline.solvers.highs import solve

    n = h * w
    result = solve(build_model(Puzzle(np.zeros((n, n), dtype=int), h, w, "x")))
    if result.grid is None:
        return None
    assert is_valid_solution(result.grid, h, w, "x")
    return result.grid


def x_solution(h: int, w: int) -> np.ndarray | None:
    g = _x_solution(h, w)
    return None if g is None else g.copy()


def box_regions(h: int, w: int, labels=None) -> np.ndarray:
    """Regions equal to the h x w boxes, region ids permuted by ``labels`` (a valid jigsaw)."""
    n = h * w
    r, c = np.indices((n, n))
    box = (r // h) * (n // w) + c // w
    return box if labels is None else np.asarray(labels)[box]


def region_string(regions) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return "".join(alphabet[v] for v in np.asarray(regions).ravel())


def compact(grid) -> str:
    alphabet = ".123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return "".join(alphabet[v] for v in np.asarray(grid).ravel())


def grid_of(text: str) -> np.ndarray:
    """Compact row-major text ('.' or '0' empty, 1-9 then A-Z) -> grid, independently."""
    alphabet = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    values = [0 if ch in ".0" else alphabet.index(ch.upper()) + 1 for ch in text.strip()]
    n = int(round(len(values) ** 0.5))
    assert n * n == len(values), text
    return np.array(values, dtype=np.int64).reshape(n, n)


@pytest.fixture(scope="session")
def oracle():
    return SimpleNamespace(
        position=oracle_position, name=oracle_name, vector=oracle_vector, units=oracle_units,
        rows=oracle_rows, matrix=oracle_matrix, is_valid=is_valid_solution,
        first_violation=oracle_first_violation, pattern_grid=pattern_grid, latin_grid=latin_grid,
        shuffled_sudoku=shuffled_sudoku, x_solution=x_solution, box_regions=box_regions,
        region_string=region_string, compact=compact, grid_of=grid_of,
    )


# ---------------------------------------------------------------------------------------------
# the format round-trip set (tests/formats/*): one puzzle per shape and variant, every convention
# ---------------------------------------------------------------------------------------------
SETS_DIR = DATA_DIR / "sets"
SIX = ("123456" "4.6123" "2315.4" "564231" "3.2645" "64531.")  # 6x6 with 2x3 boxes, some blanks
FOUR = "1.3..4.22.....21"
LATIN5 = "12..." "....1" "3...." ".4..." "..5.."


def round_trip_puzzles() -> dict:
    """name -> Puzzle: default, 4x4, 6x6 (2x3 boxes), Latin square, and (with the data) jigsaw, X."""
    import pandas as pd

    from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle

    out = {
        "default": parse_puzzle(DEFAULT_PUZZLE),
        "4x4": parse_puzzle(FOUR),
        "6x6": parse_puzzle(SIX, box="2x3"),
        "latin5": parse_puzzle(LATIN5, variant="latin"),
    }
    if (SETS_DIR / "jigsaw.csv").exists():
        table = pd.read_csv(SETS_DIR / "jigsaw.csv")
        row = table[table.puzzle.str.len() == 81].iloc[0]
        out["jigsaw"] = parse_puzzle(row.puzzle, regions=row.regions, variant=row.variant)
    if (SETS_DIR / "9x9_x.txt").exists():
        out["x"] = parse_puzzle((SETS_DIR / "9x9_x.txt").read_text().splitlines()[0], variant="x")
    return out


def round_trip_cases(puzzles: dict) -> list[tuple[str, str, str, str]]:
    """(name, scheme, order, clue encoding) for every convention a puzzle has."""
    return [(name, scheme, order, enc)
            for name, p in puzzles.items()
            for scheme in (("ijk", "block") if p.has_boxes else ("ijk",))
            for order in "FC"
            for enc in ("rows", "bounds", "reduce")]


def assert_same_model_data(got, want, *, metadata: bool = True) -> None:
    """Field-by-field equality of two ModelData (sparse matrices compared by their nonzeros)."""
    import scipy.sparse as sp

    assert got.Aeq.shape == want.Aeq.shape
    assert (sp.csr_matrix(got.Aeq) != sp.csr_matrix(want.Aeq)).nnz == 0
    for name in ("row_lower", "row_upper", "lb", "ub", "cost"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
    np.testing.assert_array_equal(np.asarray(got.integrality, bool), np.asarray(want.integrality, bool))
    np.testing.assert_array_equal(got.row_labels, want.row_labels)
    np.testing.assert_array_equal(got.col_names, want.col_names)
    if metadata:
        assert got.metadata == want.metadata
