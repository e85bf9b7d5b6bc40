"""Puzzles: an immutable Puzzle, its units (rows, columns, boxes/regions, diagonals), parsers.

Cells are numbered row-major, ``cell = r*N + c`` (0-based). Digits in a grid are ``1..N`` and
``0`` marks an empty cell. Every parser raises :class:`PuzzleError` with a one-line message that
names what is wrong and where.
"""
from __future__ import annotations

import math
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import PuzzleError
from .variants import VARIANT_TABLE, VARIANTS, Variant, box_units, get_variant
from .verify import first_duplicate, unit_name

__all__ = ["VARIANTS", "COMPACT_DIGITS", "DEFAULT_PUZZLE", "Puzzle", "default_box", "parse_box", "parse_puzzle",
           "parse_grid", "parse_regions", "grid_to_string", "format_grid"]
# Compact cell alphabet: '.' and '0' are empty, then 1-9, then A-Z for 10..35.
COMPACT_DIGITS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_COMPACT_VALUE = {ch: i + 1 for i, ch in enumerate(COMPACT_DIGITS)}
_COMPACT_VALUE.update({ch.lower(): v for ch, v in list(_COMPACT_VALUE.items()) if ch.isalpha()})
_COMPACT_VALUE.update({".": 0, "0": 0})
REGION_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# Models are refused before they are built when their estimated memory exceeds this many bytes
# (environment SUDOKU_PIPELINE_MAX_BYTES overrides; default: half of this machine's memory).
MAX_BYTES_ENV = "SUDOKU_PIPELINE_MAX_BYTES"
# Bytes per nonzero of A (4 N^3 of them) across a build: CSR data and indices, the column table
# and the solver view's copy; measured peak RSS of build_model + Aeq at N = 64..144 is below it.
MODEL_BYTES_PER_NONZERO = 64
# Integers longer than this are refused before conversion (no int64 overflow, no huge ints).
MAX_TOKEN_DIGITS = 12


def memory_limit() -> int:
    """Bytes a model may need: ``$SUDOKU_PIPELINE_MAX_BYTES``, else half the physical memory."""
    env = os.environ.get(MAX_BYTES_ENV)
    if env:
        try:
            return max(int(float(env)), 1)
        except ValueError:
            raise PuzzleError(f"{MAX_BYTES_ENV}: {env!r} is not a number of bytes") from None
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def model_bytes(n: int) -> int:
    """Estimated peak bytes of building the model of an N x N grid (4 N^3 nonzeros)."""
    return MODEL_BYTES_PER_NONZERO * 4 * n ** 3


def _gib(b: float) -> str:
    return f"{b / 2**30:,.1f} GiB" if b >= 2**30 else f"{b / 2**20:,.0f} MiB"


def check_grid_size(n: int, where: str = "puzzle") -> None:
    """Refuse an N x N grid whose model could not be built in :func:`memory_limit` bytes.

    With 12 GiB allowed (half of 24 GiB) the largest N is 362; 8 GiB allow N = 319.
    """
    need, limit = model_bytes(n), memory_limit()
    if need > limit:
        largest = int(round((limit / (4 * MODEL_BYTES_PER_NONZERO)) ** (1 / 3)))
        while model_bytes(largest + 1) <= limit:
            largest += 1
        while largest > 1 and model_bytes(largest) > limit:
            largest -= 1
        raise PuzzleError(
            f"{where}: a {n}x{n} grid's model needs about {_gib(need)}, more than the {_gib(limit)} allowed "
            f"(largest N here: {largest}; set {MAX_BYTES_ENV} to allow more)"
        )


# The seed puzzle of SEEDS.md section 1 (23 clues): the built-in default.
DEFAULT_PUZZLE = "050079000000000500092000060080000407020600010070250080000040000008020000730001000"


def default_box(n: int) -> tuple[int, int]:
    """Box shape for an N x N grid: sqrt(N) x sqrt(N), else the most square h x w with h <= w."""
    h = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
    return h, n // h


def parse_box(text: str, n: int | None = None) -> tuple[int, int]:
    """Parse ``HxW`` (e.g. ``2x3``) and check that it tiles an N x N grid when N is known."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX*]\s*(\d+)\s*", str(text))
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise PuzzleError(f"box: {text!r} is not of the form HxW (e.g. 3x3 or 2x3)")
    h, w = int(m.group(1)), int(m.group(2))
    if n is not None and h * w != n:
        raise PuzzleError(f"box: {h}x{w} boxes do not tile a {n}x{n} grid (h*w must be {n})")
    return h, w


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
        return self.grid.shape[0]

    @property
    def spec(self) -> Variant:
        """The variant's table entry (:mod:`pipeline.variants`)."""
        return VARIANT_TABLE[self.variant]

    @property
    def has_boxes(self) -> bool:
        return self.spec.boxes

    @property
    def has_diagonals(self) -> bool:
        return self.spec.diagonals

    @property
    def n_clues(self) -> int:
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
        table entry (:mod:`pipeline.variants`): row, col, box|region, diag, anti, then its own."""
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
        box = f"{d['h']}x{d['w']}"
        return parse_puzzle(d["puzzle"], box=box, variant=d.get("variant", "classic"),
                            regions=d.get("regions"))


def _same_regions(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def grid_to_string(grid: np.ndarray) -> str:
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
    :mod:`pipeline.verify`, as verify_grid uses it)."""
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
# parsing
# ---------------------------------------------------------------------------------------------
def parse_puzzle(source, *, box=None, variant: str | None = None, regions=None,
                 size: int | None = None) -> Puzzle:
    """Build a Puzzle from a string, a path, ``-`` (stdin), a grid array or an N-by-3 array.

    ``box`` is ``"HxW"`` or ``(h, w)``; ``regions`` a string or path of one region id per cell
    (jigsaw); ``variant`` defaults to ``jigsaw`` when regions are given, else ``classic``.
    """
    if isinstance(source, Puzzle):
        return source
    if isinstance(source, np.ndarray) or (isinstance(source, (list, tuple)) and source and
                                           isinstance(source[0], (list, tuple, np.ndarray))):
        matrix = np.asarray(source)
        grid = _matrix_to_grid(matrix, box, size, "puzzle")
    else:
        text, where = _read_source(source, "puzzle")
        grid = _text_to_grid(text, where, box, size)
    n = grid.shape[0]
    if size is not None and size != n:
        raise PuzzleError(f"puzzle: --size {size} but the grid is {n}x{n}")
    h, w = _resolve_box(box, n)
    region_grid = None
    if regions is not None:
        region_grid = parse_regions(regions, n)
    if variant is None:
        variant = "jigsaw" if region_grid is not None else "classic"
    return Puzzle(grid=grid, h=h, w=w, variant=variant, regions=region_grid)


def parse_grid(source, *, box=None, size: int | None = None) -> np.ndarray:
    """Read a grid (any form :func:`parse_puzzle` takes) without checking the rules.

    Used to read a claimed solution, whose rule violations are a verdict, not a parse error.
    """
    if isinstance(source, np.ndarray):
        return _matrix_to_grid(source, box, size, "grid")
    text, where = _read_source(source, "grid")
    return _text_to_grid(text, where, box, size)


def _resolve_box(box, n: int) -> tuple[int, int]:
    if box is None:
        return default_box(n)
    if isinstance(box, str):
        return parse_box(box, n)
    h, w = box
    if h * w != n:
        raise PuzzleError(f"box: {h}x{w} boxes do not tile a {n}x{n} grid (h*w must be {n})")
    return int(h), int(w)


def _box_n(box) -> int | None:
    if box is None:
        return None
    h, w = parse_box(box) if isinstance(box, str) else box
    return h * w


def _read_source(source, what: str) -> tuple[str, str]:
    """Return (text, where) for a literal string, a path, or ``-`` for stdin."""
    if isinstance(source, Path):
        return _read_file(source, what), str(source)
    s = str(source)
    if s == "-":
        return sys.stdin.read(), "<stdin>"
    kind = _path_kind(s)
    if kind == "file":
        return _read_file(Path(s), what), s
    if "\n" in s or re.fullmatch(r"[0-9A-Za-z.,; \t]+", s.strip() or "/"):
        return s, what  # puzzle text, even where a directory has that name ('.')
    if kind is not None:
        raise PuzzleError(f"{what}: {s!r} is {kind}, not a puzzle file")
    raise PuzzleError(f"{what}: no such file {s!r} (and it is not a puzzle string)")


def _path_kind(s: str) -> str | None:
    """``"file"`` for a regular file, a description for another existing path (a directory, a
    FIFO, a device: never opened, so a FIFO cannot block), None when nothing is there."""
    if len(s) >= 4096 or "\n" in s:
        return None
    try:
        mode = os.stat(s).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _read_file(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise PuzzleError(f"{what}: no such file {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PuzzleError(f"{what}: cannot read {str(path)!r}: {e}") from None


_DECORATION = re.compile(r"^[\s\-+=|]*$")
_HEADER = re.compile(r"[A-Za-z_][A-Za-z_ ]+")


def _text_to_grid(text: str, where: str, box, size) -> np.ndarray:
    # (file line number, content) for every line that carries cells
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if line and not _DECORATION.match(line):
            lines.append((number, line))
    if not lines:
        raise PuzzleError(f"{where}: empty input: expected a puzzle")
    numbers = [k for k, _ in lines]
    if not any(ch in line for _, line in lines for ch in ",;"):
        # rows of compact cells, possibly decorated with '|' and spaces: "53.|.7.|..."
        compact = [re.sub(r"[|\s]", "", line) for _, line in lines]
        if len(compact) > 1 and all(len(row) == len(compact) for row in compact) and \
                any(len(tok) > 1 for _, line in lines for tok in re.split(r"[|\s]+", line)):
            return _compact_to_grid("".join(compact), where, box)
        if len(compact) == 1 and not re.search(r"\s", lines[0][1].replace("|", "")):
            return _compact_to_grid(compact[0], where, box)
        if len(compact) > 1 and all(not re.search(r"[|\s]", line) for _, line in lines):
            width = len(compact[0])
            for k, row in zip(numbers, compact):
                if len(row) != width:
                    raise PuzzleError(f"{where}: line {k} has {len(row)} cells; expected {width}")
            raise PuzzleError(f"{where}: grid is {len(compact)}-by-{width}: must be N-by-3 or N-by-N")
    rows = [_split_cells(line) for _, line in lines]
    if all("," in line for _, line in lines):
        rows = _drop_trailing_empty_column(rows)
    header = all(_HEADER.fullmatch(t) for t in rows[0])
    if header:
        rows, numbers = rows[1:], numbers[1:]
        if not rows:
            raise PuzzleError(f"{where}: only a header line: expected a puzzle")
    if len(rows) == 1 and len(rows[0]) > 3 and math.isqrt(len(rows[0])) ** 2 == len(rows[0]):
        n = math.isqrt(len(rows[0]))
        rows = [rows[0][i * n:(i + 1) * n] for i in range(n)]
        numbers = numbers * n
    width = len(rows[0])
    # an N-by-3 matrix is a clue list unless it is exactly 3x3 with nothing saying otherwise
    box_n = _box_n(box)
    clue_list = width == 3 and (len(rows) != 3 or header or (size or box_n or 3) != 3)
    for k, row in zip(numbers, rows):
        if len(row) != width:
            unit = "values; expected 3 (row,col,digit)" if clue_list else f"cells; expected {width}"
            raise PuzzleError(f"{where}: line {k} has {len(row)} {unit}")
    matrix = np.empty((len(rows), width), dtype=np.int64)
    for i, (k, row) in enumerate(zip(numbers, rows)):
        for j, tok in enumerate(row):
            # clue lists are located by file line, grids by their own row
            matrix[i, j] = _token_value(tok, where, k if clue_list else i + 1, j, clue_list)
    if clue_list:
        return _clue_list_to_grid(matrix, box, size, where, line_numbers=np.asarray(numbers))
    return _matrix_to_grid(matrix, box, size, where)


def _split_cells(line: str) -> list[str]:
    """Cells of one line. A comma-separated line is split on every comma, so empty fields (as
    Excel and MATLAB write empty cells: ``,,6,,7``) stay cells; other separators collapse."""
    if "," in line:
        return [tok.strip(" ;|\t") for tok in line.strip().split(",")]
    return re.split(r"[;|\s]+", line.strip(" ;|\t"))


def _drop_trailing_empty_column(rows: list[list[str]]) -> list[list[str]]:
    """A trailing comma on every line (``5,3,0,...,0,``) ends the line rather than adding an
    empty cell, when dropping it is what makes the shape N-by-N (or N-by-3, or one N*N line)."""
    if not rows or not all(len(row) > 1 and row[-1] == "" for row in rows):
        return rows
    width, height = len(rows[0]), len(rows)
    square_now = width == height or (height == 1 and math.isqrt(width) ** 2 == width)
    square_without = width - 1 == height or width - 1 == 3 or (height == 1 and math.isqrt(width - 1) ** 2 == width - 1)
    return [row[:-1] for row in rows] if square_without and not square_now else rows


_EMPTY_CELL = {"", "nan", "NaN", "NAN", "."}


def _token_value(tok: str, where: str, k: int, j: int, clue_list: bool) -> int:
    place = f"line {k}, field {j + 1}"
    if re.fullmatch(r"[+-]?\d+(\.0*)?", tok):  # MATLAB writes 5.0 sometimes
        digits = tok.lstrip("+-").split(".")[0].lstrip("0")
        if len(digits) > MAX_TOKEN_DIGITS:
            what = f"{place}: value {tok[:20]}{'...' if len(tok) > 20 else ''} is too large"
            raise PuzzleError(f"{where}: {what}" if clue_list else f"{where}: cell at row {k}, column {j + 1}: "
                              f"value {tok[:20]}{'...' if len(tok) > 20 else ''} is too large")
        return int(tok.split(".")[0])
    if not clue_list and tok in _EMPTY_CELL:
        return 0
    if not clue_list and tok in _COMPACT_VALUE:
        return _COMPACT_VALUE[tok]
    if clue_list:
        raise PuzzleError(f"{where}: {place}: {tok!r} is not an integer: entries must be integers")
    raise PuzzleError(f"{where}: bad cell {tok!r} at row {k}, column {j + 1}")


def _compact_to_grid(s: str, where: str, box, rows: int | None = None) -> np.ndarray:
    n_expected = _box_n(box)
    length = len(s)
    if n_expected is not None and length != n_expected ** 2:
        raise PuzzleError(f"{where}: wrong length: expected {n_expected ** 2} cells ({n_expected}x{n_expected}), found {length}")
    n = math.isqrt(length)
    check_grid_size(n, where)
    if n * n != length:
        lo, hi = n * n, (n + 1) ** 2
        raise PuzzleError(
            f"{where}: wrong length: expected a square number of cells "
            f"({lo} for {n}x{n} or {hi} for {n + 1}x{n + 1}), found {length}"
        )
    chars = np.frombuffer(s.encode("ascii", "replace"), dtype=np.uint8)
    lut = np.full(256, -1, dtype=np.int64)
    for ch, v in _COMPACT_VALUE.items():
        lut[ord(ch)] = v
    values = lut[chars]
    bad = np.flatnonzero((values < 0) | (values > n))
    if bad.size:
        k = bad[0]
        raise PuzzleError(
            f"{where}: bad character {s[k]!r} at position {k + 1} (row {k // n + 1}, column {k % n + 1}): "
            f"a {n}x{n} cell is '.' or '0' (empty) or one of {COMPACT_DIGITS[0]}..{COMPACT_DIGITS[n - 1]}"
        )
    return values.reshape(n, n)


def _matrix_to_grid(matrix: np.ndarray, box, size, where: str) -> np.ndarray:
    if matrix.ndim != 2:
        raise PuzzleError(f"{where}: input must be a 2-D matrix: must be N-by-3 or N-by-N")
    m, k = matrix.shape
    if not np.issubdtype(matrix.dtype, np.integer):
        try:
            values = matrix.astype(float)
        except (TypeError, ValueError):
            raise PuzzleError(f"{where}: entries must be numbers") from None
        if m == k:  # MATLAB and Excel write empty cells of a grid as NaN
            values = np.where(np.isnan(values), 0.0, values)
        as_int = np.rint(values)
        if not np.array_equal(as_int, values):  # also NaN and inf
            raise PuzzleError(f"{where}: entries must be integers")
        if np.abs(as_int).max(initial=0) > 2**31:
            raise PuzzleError(f"{where}: entry {as_int.flat[np.argmax(np.abs(as_int))]:.0f} is too large")
        matrix = as_int.astype(np.int64)
    if m == k:
        check_grid_size(m, where)
        return matrix
    if k != 3:
        raise PuzzleError(f"{where}: matrix is {m}-by-{k}: must be N-by-3 or N-by-N")
    return _clue_list_to_grid(matrix, box, size, where)


def _clue_list_to_grid(clues: np.ndarray, box, size, where: str, line_numbers=None) -> np.ndarray:
    """MATLAB-style ``[row col digit]`` rows (1-based) -> grid; ``line_numbers`` for messages."""
    lines = np.arange(1, clues.shape[0] + 1) if line_numbers is None else line_numbers
    # as the MATLAB seed (SEEDS.md section 1: "entries must be integers from 1 to 9"): 9x9 unless
    # --size or --box says otherwise; a bigger entry is an error, never a bigger grid
    n = size or _box_n(box) or 9
    check_grid_size(n, where)
    bad = np.argwhere((clues < 1) | (clues > n))
    if bad.size:
        line, col = bad[0]
        raise PuzzleError(
            f"{where}: line {lines[line]}: entries must be integers from 1 to {n}, found {clues[line, col]}"
        )
    r, c, d = (clues - 1).T
    cell = r * n + c
    order = np.lexsort((np.arange(cell.size), cell))
    same = np.flatnonzero((cell[order][1:] == cell[order][:-1]) & (d[order][1:] != d[order][:-1]))
    if same.size:
        a, b = order[same[0]], order[same[0] + 1]
        raise PuzzleError(
            f"{where}: cell ({r[a] + 1}, {c[a] + 1}) given two digits: {d[a] + 1} (line {lines[a]}) "
            f"and {d[b] + 1} (line {lines[b]})"
        )
    grid = np.zeros((n, n), dtype=np.int64)
    grid[r, c] = d + 1
    return grid


def parse_regions(source, n: int) -> np.ndarray:
    """Region ids, one per cell row-major (string, path or array) -> (N, N) numbers 0..N-1.

    Ids may be compact characters (``0-9A-Z``) or separated integers; regions are numbered in
    the sorted order of their ids, so ids ``0..N-1`` or ``1..N`` keep their own numbering.
    """
    if isinstance(source, np.ndarray):
        ids = source.ravel().astype(str)
    else:
        text, where = _read_source(source, "regions")
        text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
        tokens = re.split(r"[,;\s]+", text.strip())
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if len(tokens) == n == len(lines) and n > 1:   # grid form: N lines of N compact ids
            short = [k for k, tok in enumerate(tokens) if len(tok) != n]
            if short and sum(len(tok) == n for tok in tokens) > n // 2:
                k = short[0]
                raise PuzzleError(f"regions: {where}: line {k + 1} has {len(tokens[k])} ids; expected {n}")
            if not short:
                tokens = list("".join(tokens))
        ids = np.array(tokens if len(tokens) > 1 else list(tokens[0]))
    if ids.size != n * n:
        raise PuzzleError(f"regions: expected {n * n} cells (one region id per cell), found {ids.size}")
    labels, numbers = np.unique(ids, return_inverse=True)
    if all(re.fullmatch(r"\d+", x) for x in labels):
        labels_numeric = np.array([int(x) for x in labels])
        numbers = np.argsort(np.argsort(labels_numeric))[numbers]
    if labels.size != n:
        raise PuzzleError(f"regions: expected {n} regions of {n} cells each, found {labels.size} distinct ids")
    counts = np.bincount(numbers, minlength=n)
    wrong = np.flatnonzero(counts != n)
    if wrong.size:
        g = wrong[0]
        label = str(labels[g] if not all(x.isdigit() for x in labels) else sorted(labels, key=int)[g])
        raise PuzzleError(f"regions: expected {n} regions of {n} cells each; region {label!r} has {counts[g]} cells")
    return numbers.reshape(n, n)
