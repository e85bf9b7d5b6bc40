"""Draw a puzzle grid (``python -m pipeline draw``): boxes, jigsaw regions, diagonals, clues,
filled-in digits, pencil-mark candidates and highlighted cells, to SVG, PNG or PDF.

matplotlib is an optional extra (``pip install '.[plot]'``); it is imported lazily, headless
(Agg), and the output is deterministic (no dates, fixed SVG hash salt) and written atomically.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from formats.files import WriteFailed, atomic_path, write_failure

from pipeline.core.errors import PipelineError
from pipeline.core.parse import _path_kind
from pipeline.core.puzzle import COMPACT_DIGITS, Puzzle, parse_grid
from pipeline.core.verify import grid_violations

FORMATS = ("svg", "png", "pdf")
CLUE_COLOUR = "#000000"
FILLED_COLOUR = "#1f5fbf"
HIGHLIGHT_COLOUR = "#ff9a8a"
REGION_FILLS = ("#fde9c9", "#d9ecf9", "#e2f5d6", "#f6dcf0", "#fff6bf", "#dcdcf7", "#d7f2ef", "#f7e0d6")


def load_matplotlib(command: str = "drawing"):
    """Import matplotlib with the headless Agg backend.

    Parameters
    ----------
    command : str
        What needs it, for the error message (``draw``, ``spy``, ``report``).

    Returns
    -------
    module
        ``matplotlib.pyplot``.

    Raises
    ------
    PipelineError
        One line naming the ``plot`` extra when matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        raise PipelineError(f"{command} needs matplotlib: pip install '.[plot]'") from None
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "sudoku-pipeline"
    import matplotlib.pyplot as plt
    return plt


def candidates(puzzle: Puzzle, grid: np.ndarray | None = None) -> np.ndarray:
    """Pencil marks: which digits each empty cell may hold given the filled cells.

    Parameters
    ----------
    puzzle : Puzzle
        Its units give the rules; its clues are the filled cells unless ``grid`` is given.
    grid : ndarray, optional
        (N, N) digits, 0 = empty.

    Returns
    -------
    ndarray
        (N, N, N) bool, ``[r, c, d-1]`` True when digit ``d`` is still possible at (r, c);
        all False on filled cells.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> int(candidates(parse_puzzle("1" + "0" * 15)).sum())
    53
    """
    n = puzzle.n
    flat = (puzzle.grid if grid is None else np.asarray(grid)).ravel()
    used = np.zeros((n * n, n + 1), dtype=bool)
    for _, units in puzzle.unit_families():
        present = np.zeros((units.shape[0], n + 1), dtype=bool)
        present[np.repeat(np.arange(units.shape[0]), n), flat[units].ravel()] = True
        # every cell of a unit sees the digits present anywhere in that unit
        np.logical_or.at(used, units.ravel(), np.repeat(present, n, axis=0))
    possible = ~used[:, 1:]
    possible[flat != 0] = False
    return possible.reshape(n, n, n)


def violations(puzzle: Puzzle, grid: np.ndarray) -> np.ndarray:
    """Cells of ``grid`` that break a rule (a digit twice in a unit) or disagree with a clue.

    The ``unit`` and ``clue`` entries of :func:`pipeline.core.verify.grid_violations`, as a mask.

    Returns
    -------
    ndarray
        (N, N) bool.
    """
    bad = np.zeros((puzzle.n, puzzle.n), dtype=bool)
    for violation in grid_violations(grid, puzzle):
        if violation["kind"] in ("unit", "clue"):
            for r, c in violation["cells"]:
                bad[r - 1, c - 1] = True
    return bad


def parse_cells(text: str, n: int) -> np.ndarray:
    """Parse cells ``"r1c2,r3c4"`` (1-based) into an (N, N) bool mask.

    Commas or spaces separate cells, and a cell may carry its digit (``r1c2=5``), so the lists
    ``explain`` prints (conflicting clues, cells where solutions differ) can be pasted as they are.

    Parameters
    ----------
    text : str
        The cells.
    n : int
        Grid side.

    Returns
    -------
    ndarray
        (N, N) bool, True on the listed cells.

    Raises
    ------
    PipelineError
        On a malformed or out-of-range cell.

    Examples
    --------
    >>> parse_cells("r1c2=5 r3c4=7", 4).nonzero()
    (array([0, 2]), array([1, 3]))
    """
    mask = np.zeros((n, n), dtype=bool)
    for token in text.replace(",", " ").split():
        m = re.fullmatch(r"[rR](\d+)[cC](\d+)(?:=\w+)?", token)
        if not m or not (1 <= int(m.group(1)) <= n and 1 <= int(m.group(2)) <= n):
            raise PipelineError(f"--highlight: {token!r} is not a cell rRcC with 1 <= R, C <= {n}")
        mask[int(m.group(1)) - 1, int(m.group(2)) - 1] = True
    return mask


def input_symbols(text: str, n: int) -> str:
    """How a puzzle's text spells digits above 9: ``"letters"`` for the compact form, else ``"numbers"``.

    The compact form writes each cell as one character (``A`` = 10, ...), so a line without
    separators holding a row (N characters) or the whole grid (N*N) means letters; rows of
    separated cells, CSV and clue lists mean numbers.

    Parameters
    ----------
    text : str
        The puzzle as given (a line or a file's text).
    n : int
        Grid side.

    Returns
    -------
    str
        ``"letters"`` or ``"numbers"`` (always numbers for N <= 9).

    Examples
    --------
    >>> input_symbols("D92.....G...43.." * 16, 16)
    'letters'
    >>> input_symbols("16 0 0 3 0 0 0 0 0 0 0 0 0 0 0 0", 16)
    'numbers'
    """
    if n <= 9:
        return "numbers"
    for line in text.splitlines():
        line = line.strip()
        if len(line) in (n, n * n) and re.fullmatch(r"[0-9A-Za-z.]+", line):
            return "letters"
    return "numbers"


def symbol_table(n: int, symbols: str = "numbers") -> list[str]:
    """Text of digits 0..N (index 0 is empty): numbers, or letters A.. for N > 9 when asked."""
    if symbols == "letters" and n > 9:
        return [""] + list(COMPACT_DIGITS[:n]) if n <= len(COMPACT_DIGITS) else [""] + [str(d) for d in range(1, n + 1)]
    return [""] + [str(d) for d in range(1, n + 1)]


def draw_grid(puzzle: Puzzle, grid: np.ndarray | None = None, *, show_candidates: bool = False,
              highlight: np.ndarray | None = None, symbols: str = "numbers", title: str | None = None,
              ax=None, inches: float | None = None):
    """Draw ``puzzle`` (and ``grid``'s filled-in digits) on a matplotlib axes.

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray, optional
        (N, N) digits; cells that are not clues are drawn in colour as filled-in digits.
    show_candidates : bool
        Pencil marks on empty cells.
    highlight : ndarray, optional
        (N, N) bool cells to shade.
    symbols : {"numbers", "letters"}
    title : str, optional
    ax : matplotlib Axes, optional
    inches : float, optional
        Figure side (default grows with N); font sizes follow it.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = load_matplotlib()
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Rectangle

    n = puzzle.n
    size = inches or max(4.0, min(12.0, 0.45 * n))
    if ax is None:
        fig, ax = plt.subplots(figsize=(size, size))
    else:
        fig = ax.figure
    ax.set_xlim(0, n)
    ax.set_ylim(n, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    # y grows downwards: cell (r, c) spans [c, c+1] x [r, r+1]
    if puzzle.regions is not None:
        fills = np.array(REGION_FILLS)[puzzle.regions % len(REGION_FILLS)]
        for (r, c), colour in np.ndenumerate(fills):
            ax.add_patch(Rectangle((c, r), 1, 1, facecolor=colour, edgecolor="none", zorder=0))
    if puzzle.has_diagonals:
        i = np.arange(n)
        for r, c in zip(np.r_[i, i], np.r_[i, n - 1 - i]):
            ax.add_patch(Rectangle((c, r), 1, 1, facecolor="#000000", alpha=0.08, edgecolor="none", zorder=1))
    if highlight is not None:
        for r, c in np.argwhere(highlight):
            ax.add_patch(Rectangle((c, r), 1, 1, facecolor=HIGHLIGHT_COLOUR, edgecolor="none", zorder=1))
    # thin lines everywhere, thick ones where the unit (box or region) changes
    k = np.arange(n + 1)
    thin = [[(x, 0), (x, n)] for x in k] + [[(0, y), (n, y)] for y in k]
    ax.add_collection(LineCollection(thin, colors="#888888", linewidths=0.6, zorder=2))
    unit = puzzle.regions if puzzle.regions is not None else (
        (np.arange(n)[:, None] // puzzle.h) * (n // puzzle.w) + np.arange(n)[None, :] // puzzle.w
        if puzzle.has_boxes else None)
    thick_w = 2.4 if n <= 16 else 1.8
    segments = [[(0, 0), (n, 0)], [(0, n), (n, n)], [(0, 0), (0, n)], [(n, 0), (n, n)]]
    if unit is not None:
        vr, vc = np.nonzero(unit[:, 1:] != unit[:, :-1])   # vertical border right of (vr, vc)
        segments += [[(c + 1, r), (c + 1, r + 1)] for r, c in zip(vr, vc)]
        hr, hc = np.nonzero(unit[1:, :] != unit[:-1, :])   # horizontal border below (hr, hc)
        segments += [[(c, r + 1), (c + 1, r + 1)] for r, c in zip(hr, hc)]
    ax.add_collection(LineCollection(segments, colors="#000000", linewidths=thick_w, zorder=3,
                                     capstyle="projecting"))
    text = symbol_table(n, symbols)
    cell_points = 72 * size / n
    big = cell_points * (0.55 if n <= 9 else 0.45)
    clue = puzzle.grid
    for (r, c), d in np.ndenumerate(clue):
        if d:
            ax.text(c + 0.5, r + 0.52, text[d], ha="center", va="center", fontsize=big,
                    fontweight="bold", color=CLUE_COLOUR, zorder=4)
    if grid is not None:
        grid = np.asarray(grid)
        for r, c in np.argwhere((grid != 0) & (clue == 0)):
            ax.text(c + 0.5, r + 0.52, text[grid[r, c]], ha="center", va="center", fontsize=big,
                    color=FILLED_COLOUR, zorder=4)
    if show_candidates:
        filled = clue if grid is None else np.where(clue != 0, clue, grid)
        marks = candidates(puzzle, filled)
        side = int(np.ceil(np.sqrt(n)))
        small = cell_points / side * 0.6
        for r, c, d in np.argwhere(marks):
            ax.text(c + (d % side + 0.5) / side, r + (d // side + 0.55) / side, text[d + 1],
                    ha="center", va="center", fontsize=small, color="#555555", zorder=4)
    if title:
        ax.set_title(title)
    return fig


def write_figure(fig, path) -> Path:
    """:func:`save_figure`, then close ``fig``: the commands' last step (``main()`` may be
    called many times in one process, and open figures would pile up)."""
    try:
        return save_figure(fig, path)
    finally:
        load_matplotlib().close(fig)


def save_figure(fig, path) -> Path:
    """Write ``fig`` to ``path`` (format from the suffix) deterministically and atomically.

    Raises
    ------
    PipelineError
        When the suffix is not one of svg, png, pdf.
    """
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise PipelineError(f"--to {path}: the file name must end in .svg, .png or .pdf")
    metadata = {"svg": {"Date": None, "Creator": None}, "pdf": {"CreationDate": None, "ModDate": None, "Creator": None,
                                                                 "Producer": None},
                "png": {"Software": None}}[fmt]
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():   # a picture is not written into a directory made up on the way
        if folder.exists() or any(p.exists() and not p.is_dir() for p in folder.parents):
            raise write_failure(path, NotADirectoryError(20, "Not a directory"))
        raise WriteFailed(path, f"cannot write (no such directory {folder})")
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=fmt, metadata=metadata, bbox_inches="tight", dpi=110)
    return path


def highlight_mask(spec: list[str], puzzle: Puzzle, grid: np.ndarray | None, box) -> np.ndarray:
    """Union of ``--highlight`` specs: cell lists, ``violations``, ``conflicts:CELLS``, ``diff:FILE``."""
    n = puzzle.n
    mask = np.zeros((n, n), dtype=bool)
    for item in spec:
        if item == "violations":
            if grid is None:
                raise PipelineError("--highlight violations needs --grid FILE")
            mask |= violations(puzzle, grid)
        elif item.startswith("conflicts:"):
            mask |= parse_cells(item.split(":", 1)[1], n)
        elif item.startswith("diff:"):
            if grid is None:
                raise PipelineError("--highlight diff:FILE needs --grid or --solution")
            other = parse_grid(item.split(":", 1)[1], box=box)
            if other.shape != (n, n):
                raise PipelineError(f"--highlight {item}: grid is {other.shape[0]}x{other.shape[1]}, puzzle is {n}x{n}")
            mask |= other != grid
        else:
            mask |= parse_cells(item, n)
    return mask


def _puzzle_text(source: str) -> str:
    """The text of a PUZZLE argument (a file's contents, or the argument itself)."""
    if _path_kind(source) == "file":   # parse's test: not too long for a path, no newline, a regular file
        try:
            return Path(source).read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            pass
    return source
