"""Puzzles: an immutable, checked Puzzle, its units (rows, columns, boxes/regions, diagonals)
and its text forms.

Cells are numbered row-major, ``cell = r*N + c`` (0-based). Digits in a grid are ``1..N`` and
``0`` marks an empty cell. Reading inputs is :mod:`pipeline.core.parse` (re-exported here, as
before); :func:`parse_puzzle` is the one entry point from any input to a checked Puzzle.
Validation raises :class:`PuzzleError` with a one-line message that names what and where.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.parse import (COMPACT_DIGITS, MAX_BYTES_ENV, MAX_TOKEN_DIGITS, REGION_ALPHABET, check_grid_size,
                    compact_values, default_box, memory_limit, model_bytes, parse_box, parse_grid, parse_regions,
                    read_puzzle)
from pipeline.core.variants import VARIANT_TABLE, VARIANTS, Variant, box_units, get_variant
from pipeline.core.verify import first_duplicate, unit_name

__all__ = ["VARIANTS", "COMPACT_DIGITS", "REGION_ALPHABET", "DEFAULT_PUZZLE", "Puzzle", "default_box", "parse_box",
           "parse_puzzle", "parse_grid", "parse_regions", "grid_to_string", "format_grid", "check_grid_size",
           "memory_limit", "model_bytes", "MAX_BYTES_ENV", "MAX_TOKEN_DIGITS", "compact_values"]

# The seed puzzle of SEEDS.md section 1 (23 clues): the built-in default.
DEFAULT_PUZZLE = "050079000000000500092000060080000407020600010070250080000040000008020000730001000"


@dataclass(frozen=True, eq=False)
class Puzzle:
    """An N x N puzzle: box shape ``h x w``, variant, optional jigsaw regions and its clues."""

    grid: np.ndarray  # (N, N) int, 0 = empty
    h: int
    w: int
    variant: str = "classic"
    regions: np.ndarray | None = None  # (N, N) int region number 0..N-1 (jigsaw variants)

    def __post_init__(self):
        grid = np.array(self.grid, dtype=np.int64)
        grid.setflags(write=False)
        object.__setattr__(self, "grid", grid)
        if self.regions is not None:
            regions = np.array(self.regions, dtype=np.int64)
            regions.setflags(write=False)
            object.__setattr__(self, "regions", regions)
        _validate(self)

    # -- basic facts -----------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Side of the grid, which is also the number of digits."""
        return self.grid.shape[0]

    @property
    def spec(self) -> Variant:
        """The variant's table entry (:mod:`pipeline.core.variants`)."""
        return VARIANT_TABLE[self.variant]

    @property
    def has_boxes(self) -> bool:
        """True when the variant has ``h x w`` boxes (not latin, not jigsaw)."""
        return self.spec.boxes

    @property
    def has_diagonals(self) -> bool:
        """True when the variant adds the two main diagonals (the X variants)."""
        return self.spec.diagonals

    @property
    def n_clues(self) -> int:
        """Number of given cells."""
        return int(np.count_nonzero(self.grid))

    def clues(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """0-based (r, c, d) of the clues, ordered by r then c."""
        r, c = np.nonzero(self.grid)
        return r, c, self.grid[r, c] - 1

    def __eq__(self, other):
        return (
            isinstance(other, Puzzle)
            and (self.h, self.w, self.variant) == (other.h, other.w, other.variant)
            and np.array_equal(self.grid, other.grid)
            and _same_regions(self.regions, other.regions)
        )

    def __hash__(self):
        return hash((self.to_string(), self.h, self.w, self.variant, self.regions_string()))

    # -- units -----------------------------------------------------------------------------
    def unit_families(self) -> list[tuple[str, np.ndarray]]:
        """``[(family, cells)]`` in CONVENTIONS.md order (after ``cell``); ``cells`` is
        ``(n_units, N)`` of row-major cell numbers. Which families a puzzle has is its variant's
        table entry (:mod:`pipeline.core.variants`): row, col, box|region, diag, anti, then its own."""
        n = self.n
        spec = self.spec
        cells = np.arange(n * n).reshape(n, n)
        families = [("row", cells), ("col", cells.T)]
        if spec.boxes:
            # boxes numbered row-major over the grid: (block row, block column, p, q)
            families.append(("box", box_units(n, self.h, self.w)))
        if spec.regions and self.regions is not None:
            order = np.argsort(self.regions.ravel(), kind="stable")
            families.append(("region", order.reshape(n, n)))
        if spec.diagonals:
            i = np.arange(n)
            families.append(("diag", cells[i, i][None, :]))
            families.append(("anti", cells[i, n - 1 - i][None, :]))
        if spec.extra_units is not None:
            families.extend(spec.extra_units(n, self.h, self.w))
        return families

    # -- text forms ------------------------------------------------------------------------
    def to_string(self) -> str:
        """Compact form (``.`` for empty) when N <= 35, else space-separated integers."""
        return grid_to_string(self.grid)

    def regions_string(self) -> str | None:
        """Region ids as one compact line (``0-9A-Z``) when N <= 36, else space-separated; None without regions."""
        if self.regions is None:
            return None
        return "".join(REGION_ALPHABET[v] for v in self.regions.ravel()) if self.n <= 36 else \
            " ".join(map(str, self.regions.ravel()))

    def to_dict(self) -> dict:
        """The manifest's record of the puzzle."""
        return {
            "puzzle": self.to_string(),
            "n": self.n,
            "h": self.h,
            "w": self.w,
            "variant": self.variant,
            "regions": self.regions_string(),
            "n_clues": self.n_clues,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Puzzle":
        """The puzzle of a manifest record (:meth:`to_dict`), checked again on the way in."""
        box = f"{d['h']}x{d['w']}"
        return parse_puzzle(d["puzzle"], box=box, variant=d.get("variant", "classic"),
                            regions=d.get("regions"))


def _same_regions(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def grid_to_string(grid: np.ndarray) -> str:
    """Compact line (``.`` empty, ``1-9A-Z``) when N <= 35, else space-separated integers."""
    grid = np.asarray(grid)
    if grid.shape[0] <= len(COMPACT_DIGITS):
        alphabet = np.array(list("." + COMPACT_DIGITS))
        return "".join(alphabet[grid.ravel()])
    return " ".join(map(str, grid.ravel()))


def format_grid(grid: np.ndarray, h: int | None = None, w: int | None = None) -> str:
    """Human-readable grid (``.`` for empty), with box separators when the box shape is given."""
    grid = np.asarray(grid)
    n = grid.shape[0]
    width = len(str(n))
    cells = np.where(grid > 0, np.char.rjust(grid.astype(str), width), ".".rjust(width))
    lines = []
    for r in range(n):
        chunks = [" ".join(cells[r, k:k + w]) for k in range(0, n, w)] if w else [" ".join(cells[r])]
        line = " | ".join(chunks)
        if h and r and r % h == 0:
            lines.append("".join("+" if ch == "|" else "-" for ch in line))
        lines.append(line)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------
def _validate(p: Puzzle) -> None:
    grid = p.grid
    if grid.ndim != 2 or grid.shape[0] != grid.shape[1] or grid.shape[0] < 1:
        raise PuzzleError(f"puzzle: grid is {'-by-'.join(map(str, grid.shape))}: must be N-by-N")
    n = grid.shape[0]
    spec = get_variant(p.variant)
    if n < spec.min_n:
        latin = VARIANT_TABLE.get("latin")
        hint = (f" (a Latin square from {latin.min_n}x{latin.min_n}: --variant latin)"
                if latin is not None and p.variant != "latin" and latin.min_n <= n else "")
        raise PuzzleError(f"puzzle: a {n}x{n} grid is not a puzzle: {p.variant} puzzles are {spec.min_n}x{spec.min_n} "
                          f"and larger{hint}")
    if p.h * p.w != n:
        raise PuzzleError(f"box: {p.h}x{p.w} boxes do not tile a {n}x{n} grid (h*w must be {n})")
    bad = np.argwhere((grid < 0) | (grid > n))
    if bad.size:
        r, c = bad[0]
        raise PuzzleError(
            f"puzzle: cell ({r + 1}, {c + 1}) holds {grid[r, c]}: entries must be integers from 1 to {n} (0 for empty)"
        )
    jigsaw = spec.regions
    if jigsaw and p.regions is None:
        raise PuzzleError(f"regions: variant {p.variant} needs regions (one region id per cell, --regions)")
    if not jigsaw and p.regions is not None:
        with_regions = " or ".join(name for name, v in VARIANT_TABLE.items() if v.regions)
        raise PuzzleError(f"regions: regions are given but variant is {p.variant!r} (use {with_regions})")
    if p.regions is not None:
        _validate_regions(p.regions, n)
    _check_unit_duplicates(p)


def _validate_regions(regions: np.ndarray, n: int) -> None:
    if regions.shape != (n, n):
        raise PuzzleError(f"regions: expected {n * n} cells (one region id per cell), found {regions.size}")
    counts = np.bincount(regions.ravel(), minlength=n)
    if regions.min() < 0 or counts.size != n:
        raise PuzzleError(f"regions: expected {n} regions of {n} cells each, found {np.count_nonzero(counts)} regions")
    wrong = np.flatnonzero(counts != n)
    if wrong.size:
        g = wrong[0]
        raise PuzzleError(f"regions: expected {n} regions of {n} cells each; region {g + 1} has {counts[g]} cells")


def _check_unit_duplicates(p: Puzzle) -> None:
    """Two equal clues in one unit: name the unit and both cells (the rule-check kernel of
    :mod:`pipeline.core.verify`, as verify_grid uses it)."""
    found = first_duplicate(p.grid, p.unit_families())
    if found is not None:
        family, unit, digit, cells = found
        n = p.n
        a, b = sorted(int(x) for x in cells)
        raise PuzzleError(
            f"puzzle: digit {digit} appears twice in {unit_name(family, unit, article=True)}: cells "
            f"({a // n + 1}, {a % n + 1}) and ({b // n + 1}, {b % n + 1})"
        )


# ---------------------------------------------------------------------------------------------
# any input -> a checked Puzzle
# ---------------------------------------------------------------------------------------------
def parse_puzzle(source, *, box=None, variant: str | None = None, regions=None,
                 size: int | None = None) -> Puzzle:
    """Build a checked Puzzle from a string, a path, ``-`` (stdin), a grid array or an N-by-3 array.

    Parameters
    ----------
    source : str, pathlib.Path, ndarray, list of lists or Puzzle
        A compact line (``53..7....``; ``.``/``0`` empty, ``A-Z`` for 10..35), rows of cells
        separated by spaces, commas or ``|``, a CSV grid, an N-by-3 clue list (1-based
        ``row col digit``, one per line), a file holding any of these, ``-`` for stdin, or an
        N-by-N / N-by-3 array. A Puzzle is returned as it is.
    box : str or (int, int), optional
        Box shape ``"HxW"`` or ``(h, w)``; default: the most square ``h x w`` with ``h <= w``.
    variant : str, optional
        A name of the variant table (:data:`pipeline.core.variants.VARIANTS`); default ``jigsaw``
        when ``regions`` are given, else ``classic``.
    regions : str, pathlib.Path or ndarray, optional
        One region id per cell (jigsaw variants), as text, a file or an array.
    size : int, optional
        ``N`` for a clue list (default 9); for a grid it must agree with the grid.

    Returns
    -------
    Puzzle
        The puzzle, its clues checked against the variant's rules.

    Raises
    ------
    PuzzleError
        One line naming what is wrong and where: unreadable input, wrong shape or length, a
        bad cell, a box that does not tile the grid, an unknown variant, bad regions, a digit
        twice in a unit, or a model too large for the memory limit.

    Examples
    --------
    >>> p = parse_puzzle("1..." "..3." ".4.." "...2", box="2x2")
    >>> p.n, p.n_clues, p.variant
    (4, 4, 'classic')
    >>> parse_puzzle("11.." + "." * 12)
    Traceback (most recent call last):
        ...
    pipeline.core.errors.PuzzleError: puzzle: digit 1 appears twice in row 1: cells (1, 1) and (1, 2)
    """
    if isinstance(source, Puzzle):
        return source
    return Puzzle(*read_puzzle(source, box=box, variant=variant, regions=regions, size=size))

