"""Draw a puzzle (``python -m pipeline draw``): boxes, jigsaw regions, diagonals, the rules beyond
units, gattai layouts, clues, filled-in digits, pencil-mark candidates and highlighted cells, to
SVG, PNG or PDF.

Rules are drawn from the glyphs they declare (:mod:`pipeline.core.glyphs`, painted by
:mod:`pipeline.tools.draw_rules`; the notebook SVG reads the same ones): killer cages as dashed
outlines with their sums, thermometers, arrows and lines, Kropki dots and greater-than chevrons,
even squares and odd circles, outside clues; windoku windows, extra regions and diagonals are
shaded with the variant's units. Rules without glyphs (anti-knight, anti-king, non-consecutive,
disjoint groups) are named in a caption under the grid.
A gattai layout (samurai) is drawn as its grids on the canvas: absent cells stay blank.

Every layer is one matplotlib collection built with numpy from arrays of cells, edges or rules,
so a 25x25 killer with hundreds of cages draws about as fast as a plain grid; only text (digits,
cage sums) is one artist per string.

matplotlib is an optional extra (``plot``); it is imported lazily, headless
(Agg), and the output is deterministic (no dates, fixed SVG hash salt) and written atomically.
"""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.claimed import read_claimed_grid
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.core.rules.cellnames import cell_pattern
from pipeline.core.rules.neighbours import KING_DIAGONAL, KNIGHT
from pipeline.core.rules.pencilmarks import PencilMarks
from pipeline.core.parse import _path_kind
from pipeline.core.puzzle import COMPACT_DIGITS, Puzzle
from pipeline.core.svg import (CLUE_COLOUR, FILLED_COLOUR, HIGHLIGHT_COLOUR, MARK_COLOUR, picture_inputs,  # noqa: F401
                               REGION_FILLS, mark_places, region_colours, touching_colours)   # as the notebook pictures
from pipeline.core.verify import digit_array, grid_violations
from pipeline.tools.draw_rules import (CAGE_COLOUR, CAGE_INSET, EXTRA_FILLS, PARITY_COLOUR, THERMO_COLOUR,  # noqa: F401
                                       WINDOW_FILL, cage_outline, draw_glyphs, picture_glyphs, rule_caption)
# matplotlib's loading and the picture files live in figure_files (split for the 800-line limit);
# draw re-exports the names, as draw, spy and report import them from here
from pipeline.tools.figure_files import FORMATS as FORMATS, figure_format as figure_format
from pipeline.tools.figure_files import load_matplotlib as load_matplotlib, said_to as said_to
from pipeline.tools.figure_files import save_figure as save_figure, write_figure as write_figure

if TYPE_CHECKING:  # annotations only: matplotlib is imported lazily
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: A --highlight cell, ``r3c5`` or ``r3c5=7`` (no spaces: the list is split at them and commas).
_HIGHLIGHT = re.compile(rf"{cell_pattern('+', '')}(?:=(-?[0-9]+))?")
DIAGONAL_SHADE = ("#000000", 0.08)   # colour, alpha: over region fills, as Sudoku-X always was
#: Font sizes, in cells, under ``--grid``/``--solution``: small labels (cage sums, text marks),
#: and the filled digits of cells holding one; the label's box ends above (below) the digit's.
LABEL_WITH_DIGITS = 0.22
DIGIT_BY_LABELS = 0.4


def candidates(puzzle: Puzzle, grid: np.ndarray | None = None) -> np.ndarray:
    """Pencil marks: which digits each empty cell may hold given the filled cells.

    A digit is ruled out where a filled cell *sees* it: through a unit (rows, columns, boxes or
    regions, diagonals, windoku windows, extra regions, disjoint groups), a killer cage (digits
    are distinct in a cage), or an anti-knight / anti-king move (within one grid of a layout);
    even and odd cells keep digits of their parity only, cells with given pencil marks those
    digits only. Nothing is propagated beyond that: cage sums, thermometers, Kropki dots,
    greater-than signs and non-consecutive neighbours are left for the solver.

    Parameters
    ----------
    puzzle : Puzzle
        Its units and rules; its clues are the filled cells unless ``grid`` is given.
    grid : ndarray, optional
        ``(rows, cols)`` digits on the puzzle's canvas (``(N, N)`` without a layout), 0 = empty.

    Returns
    -------
    ndarray
        ``(rows, cols, V)`` bool (``V`` digits: ``N`` unless a value set has more), ``[r, c, d-1]``
        True when digit ``d`` is still possible at (r, c); all False on filled cells and on a
        layout's absent cells.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> int(candidates(parse_puzzle("1" + "0" * 15)).sum())
    53
    """
    n, rows, cols = puzzle.n_values, puzzle.rows, puzzle.cols   # digit indices 1..V (V > N with a value set)
    flat = (puzzle.grid if grid is None else _canvas_digits(puzzle, grid, "candidates")).ravel()
    flat = np.where((flat >= 0) & (flat <= n), flat, 0)   # a wrong grid's out-of-range cell sees nothing
    used = np.zeros((rows * cols, n + 1), dtype=bool)     # column 0 collects the empty cells
    for _, units in puzzle.unit_families():
        present = np.zeros((units.shape[0], n + 1), dtype=bool)
        present[np.repeat(np.arange(units.shape[0]), units.shape[1]), flat[units].ravel()] = True
        # every cell of a unit sees the digits present anywhere in that unit
        np.logical_or.at(used, units.ravel(), np.repeat(present, units.shape[1], axis=0))
    size = rows * cols   # an ISS variable's extra cells lie past the canvas: not drawn, not seen
    cages = [cells[cells < size] for cells in (rule.cells() for rule in puzzle.rules if rule.kind == "cage")]
    if cages:   # cages of any size at once: (cage, cell) pairs
        member = np.concatenate(cages)
        cage = np.repeat(np.arange(len(cages)), [c.size for c in cages])
        seen = np.zeros((len(cages), n + 1), dtype=bool)
        seen[cage, flat[member]] = True
        np.logical_or.at(used, member, seen[cage])
    board = puzzle.board
    steps = {"antiknight": KNIGHT, "antiking": KING_DIAGONAL}   # the rules' own moves
    for kind in sorted({rule.kind for rule in puzzle.rules} & set(steps)):
        pairs = board.offset_pairs(steps[kind])   # orthogonal king steps share a row or column already
        used[pairs[:, 0], flat[pairs[:, 1]]] = True
        used[pairs[:, 1], flat[pairs[:, 0]]] = True
    possible = ~used[:, 1:]
    for rule in puzzle.rules:
        if rule.kind in ("even", "odd"):
            values = np.arange(1, n + 1) if puzzle.values is None else np.asarray(puzzle.values)
            wrong = (values % 2) == (0 if rule.kind == "odd" else 1)   # the parity of the value, not the index
            possible[np.ix_(rule.cells()[rule.cells() < size], wrong)] = False
        elif isinstance(rule, PencilMarks):   # given pencil marks: those digits only
            possible[np.ix_(rule.cells()[rule.cells() < size], ~np.isin(np.arange(1, n + 1), rule.digits))] = False
    possible[(flat != 0) | ~puzzle.present] = False
    return possible.reshape(rows, cols, n)


def violations(puzzle: Puzzle, grid: np.ndarray) -> np.ndarray:
    """Cells of ``grid`` that break a rule (a digit twice in a unit, a broken cage, thermometer,
    dot, ...) or disagree with a clue.

    The ``unit``, ``rule`` and ``clue`` entries of :func:`pipeline.core.verify.grid_violations`,
    as a mask.

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and clues.
    grid : numpy.ndarray
        ``(N, N)`` digits, 0 = empty.

    Returns
    -------
    ndarray
        ``(rows, cols)`` bool over the puzzle's canvas.
    """
    bad = np.zeros((puzzle.rows, puzzle.cols), dtype=bool)
    for violation in grid_violations(_canvas_digits(puzzle, grid, "violations"), puzzle):
        if violation["kind"] in ("unit", "rule", "clue"):
            for r, c in violation["cells"]:
                bad[r - 1, c - 1] = True
    return bad


def _canvas_digits(puzzle: Puzzle, grid: object, what: str) -> np.ndarray:
    """``grid`` as integer digit indices of the puzzle's canvas shape, or one PuzzleError line:
    ``2.5`` was an IndexError deep in the masks, another shape an IndexError or (violations) an
    all-False mask, as if the grid broke nothing."""
    digits = digit_array(grid, f"{what}: grid")
    if digits.shape != puzzle.grid.shape:
        raise PuzzleError(f"{what}: grid is {'x'.join(map(str, digits.shape))}, the puzzle's canvas is "
                          f"{'x'.join(map(str, puzzle.grid.shape))}")
    return digits


def parse_cells(text: str, rows: int, cols: int | None = None, digits: frozenset[int] | None = None) -> np.ndarray:
    """Parse cells ``"r1c2,r3c4"`` (1-based) into a ``(rows, cols)`` bool mask.

    Commas or spaces separate cells, and a cell may carry its digit (``r1c2=5``), so the lists
    ``explain`` prints (conflicting clues, cells where solutions differ) can be pasted as they are.

    Parameters
    ----------
    text : str
        The cells.
    rows : int
        Rows of the grid (its side N, or a layout's canvas rows).
    cols : int, optional
        Columns (default ``rows``).
    digits : frozenset of int, optional
        The digits a cell's ``=D`` may name (the puzzle's digits and values); any when None.

    Returns
    -------
    ndarray
        ``(rows, cols)`` bool, True on the listed cells.

    Raises
    ------
    PipelineError
        On a malformed or out-of-range cell.

    Examples
    --------
    >>> parse_cells("r1c2=5 r3c4=7", 4).nonzero()
    (array([0, 2]), array([1, 3]))
    """
    cols = rows if cols is None else cols
    mask = np.zeros((rows, cols), dtype=bool)
    for token in text.replace(",", " ").split():
        m = _HIGHLIGHT.fullmatch(token)
        if not m or not (1 <= int(m.group(1)) <= rows and 1 <= int(m.group(2)) <= cols):
            bound = f"1 <= R, C <= {rows}" if rows == cols else f"1 <= R <= {rows}, 1 <= C <= {cols}"
            raise PipelineError(f"--highlight: {token!r} is not a cell rRcC with {bound}")
        if m.group(3) is not None and digits is not None and int(m.group(3)) not in digits:
            shown = f"{min(digits)}..{max(digits)}" if len(digits) == max(digits) - min(digits) + 1 else str(sorted(digits))
            raise PipelineError(f"--highlight: {token!r} names a digit that is not one of the puzzle's ({shown})")
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
    >>> input_symbols('{"size": 16, "givens": "' + "D92.....G...43.." * 16 + '"}', 16)   # a document's givens
    'letters'
    """
    if n <= 9:
        return "numbers"
    if text.lstrip().startswith("{"):   # a puzzle document: its givens string is what was spelt
        try:
            givens = json.loads(text).get("givens")
        except (ValueError, AttributeError):
            givens = None
        if isinstance(givens, str):
            text = givens
    for line in text.splitlines():
        line = line.strip()
        if len(line) in (n, n * n) and re.fullmatch(r"[0-9A-Za-z.]+", line):
            return "letters"
    return "numbers"


def symbol_table(n: int, symbols: str = "numbers") -> list[str]:
    """Text of digits 0..N (index 0 is empty): numbers, or letters A.. for N > 9 when asked.

    Parameters
    ----------
    n : int
        Grid side.
    symbols : {'numbers', 'letters'}
        How digits are shown.
    """
    if symbols == "letters" and n > 9:
        return [""] + list(COMPACT_DIGITS[:n]) if n <= len(COMPACT_DIGITS) else [""] + [str(d) for d in range(1, n + 1)]
    return [""] + [str(d) for d in range(1, n + 1)]


# -- geometry: arrays of cells, edges and outlines (y grows downwards: cell (r, c) spans
#    [c, c+1] x [r, r+1], its centre is (c + 0.5, r + 0.5)) ---------------------------------------
def _squares(cells: np.ndarray, cols: int, inset: float = 0.0) -> np.ndarray:
    """``(K, 4, 2)`` corners of the cells' squares, ``inset`` cells in from each side."""
    r, c = np.divmod(np.asarray(cells, dtype=np.int64), cols)
    x0, y0, x1, y1 = c + inset, r + inset, c + 1 - inset, r + 1 - inset
    return np.stack([np.stack([x0, y0], -1), np.stack([x1, y0], -1), np.stack([x1, y1], -1),
                     np.stack([x0, y1], -1)], axis=1).astype(float)


def _centres(cells: np.ndarray, cols: int) -> np.ndarray:
    """``(..., 2)`` centres ``(x, y)`` of canvas cells."""
    r, c = np.divmod(np.asarray(cells, dtype=np.int64), cols)
    return np.stack([c + 0.5, r + 0.5], axis=-1)


def _runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs of True along each row of a 2-D mask: ``(row, start, end)`` (``end`` exclusive)."""
    padded = np.zeros((mask.shape[0], mask.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    step = np.diff(padded, axis=1)
    line, start = np.nonzero(step == 1)
    _, end = np.nonzero(step == -1)   # row-major order pairs each start with its end
    return line, start, end


def edge_segments(horizontal: np.ndarray, vertical: np.ndarray) -> np.ndarray:
    """``(S, 2, 2)`` line segments of marked cell edges, consecutive edges joined.

    Parameters
    ----------
    horizontal : ndarray
        ``(rows + 1, cols)`` bool: the edge on line ``y`` above cell ``(y, x)``.
    vertical : ndarray
        ``(rows, cols + 1)`` bool: the edge on line ``x`` left of cell ``(y, x)``.

    Examples
    --------
    >>> h = np.array([[True, True], [False, False], [True, True]])
    >>> v = np.array([[True, False, True], [True, False, True]])
    >>> edge_segments(h, v).tolist()
    [[[0, 0], [2, 0]], [[0, 2], [2, 2]], [[0, 0], [0, 2]], [[2, 0], [2, 2]]]
    """
    y, x0, x1 = _runs(horizontal)
    x, y0, y1 = _runs(vertical.T)
    flat = np.stack([np.stack([x0, y], -1), np.stack([x1, y], -1)], axis=1)
    upright = np.stack([np.stack([x, y0], -1), np.stack([x, y1], -1)], axis=1)
    return np.concatenate([flat, upright]).reshape(-1, 2, 2)


# -- layers ---------------------------------------------------------------------------------------
class _Canvas:
    """What the layers share: the axes, the canvas size, sizes in points and the colour behind
    each cell (a cage sum's label is backed with it, so the dashed outline stops at the label)."""

    def __init__(self, ax, puzzle: Puzzle, cell_points: float):
        self.ax, self.puzzle = ax, puzzle
        self.rows, self.cols = puzzle.rows, puzzle.cols
        self.cell_points = cell_points
        self.background = np.ones((self.rows * self.cols, 3))

    def shade(self, cells, colours, *, alpha: float = 1.0, zorder: float = 0.0, inset: float = 0.0):
        """Fill cells (one colour or one per cell) as one collection, and remember the colour."""
        from matplotlib.collections import PolyCollection
        from matplotlib.colors import to_rgba_array

        cells = np.asarray(cells, dtype=np.int64)
        if not cells.size:
            return None
        rgb = to_rgba_array(colours)[:, :3]
        if inset == 0.0:
            self.background[cells] = self.background[cells] * (1 - alpha) + rgb * alpha
        layer = PolyCollection(list(_squares(cells, self.cols, inset)), facecolors=colours, edgecolors="none",
                               alpha=alpha if alpha < 1 else None, zorder=zorder)
        self.ax.add_collection(layer)
        return layer

    def circles(self, cells_or_points, diameter: float | np.ndarray, *, points: bool = False, zorder: float, **style):
        """Circles (``diameter`` in cells) at cell centres, or at ``points`` ``(x, y)``, as one collection."""
        from matplotlib.collections import EllipseCollection

        centres = np.asarray(cells_or_points, dtype=float) if points else _centres(cells_or_points, self.cols)
        centres = centres.reshape(-1, 2)
        size = np.full(len(centres), float(diameter)) if np.ndim(diameter) == 0 else np.asarray(diameter, float)
        layer = EllipseCollection(size, size, np.zeros(len(centres)), units="xy", offsets=centres,
                                  offset_transform=self.ax.transData, zorder=zorder, **style)
        self.ax.add_collection(layer)
        return layer


#: the hatching of windoku windows over jigsaw regions (a darker tone of WINDOW_FILL)
WINDOW_HATCH = "#5b7fae"
#: the hatching of extra regions over jigsaw regions (darker tones of EXTRA_FILLS, touching ones differ)
EXTRA_HATCHES = ("#3f8a3f", "#4a6aa5", "#b07a2a", "#8a5a9e")


def _draw_unit_shading(canvas: _Canvas) -> None:
    """Rule and variant units that are areas: windoku windows, extra regions, diagonals."""
    diagonal = []
    for family, units in canvas.puzzle.unit_families():
        if family == "window" and canvas.puzzle.regions is not None:
            # a fill would replace the regions' own (and look like one of them): hatched instead
            from matplotlib.collections import PolyCollection
            canvas.ax.add_collection(PolyCollection(list(_squares(units.ravel(), canvas.cols, 0.0)),
                                                    facecolors="none", edgecolors=WINDOW_HATCH, linewidths=0.0,
                                                    hatch="///", zorder=0.2, gid="windows"))
        elif family == "window":
            canvas.shade(units.ravel(), WINDOW_FILL, zorder=0.2)
        elif family == "extra":   # one family holds every extra region: touching ones differ
            tone = touching_colours(units, canvas.rows * canvas.cols, canvas.cols, len(EXTRA_FILLS))
            if canvas.puzzle.regions is not None:
                # a fill would replace the regions' own, and the pale green one matched a region's
                # green (the extra region vanished there): hatched the other way from windows instead
                from matplotlib.collections import PolyCollection
                edges = np.repeat(np.array(EXTRA_HATCHES)[tone], units.shape[1])
                canvas.ax.add_collection(PolyCollection(list(_squares(units.ravel(), canvas.cols, 0.0)),
                                                        facecolors="none", edgecolors=edges.tolist(), linewidths=0.0,
                                                        hatch="\\\\\\", zorder=0.3, gid="extra"))
            else:
                canvas.shade(units.ravel(), np.repeat(np.array(EXTRA_FILLS)[tone], units.shape[1]), zorder=0.3)
        elif family in ("diag", "anti"):
            diagonal.append(units.ravel())
    if diagonal:
        colour, alpha = DIAGONAL_SHADE
        canvas.shade(np.unique(np.concatenate(diagonal)), colour, alpha=alpha, zorder=1)


def _unit_owner(puzzle: Puzzle) -> np.ndarray:
    """``(rows, cols)`` the box or region of each cell (whole grid: 0; absent cells: -1): thick
    lines run where it changes."""
    owner = np.where(puzzle.present, 0, -1)
    if puzzle.regions is not None:
        owner = puzzle.regions.ravel().copy()
    elif puzzle.has_boxes:
        boxes = next(units for family, units in puzzle.unit_families() if family == "box")
        owner[boxes.ravel()] = np.repeat(np.arange(boxes.shape[0]), boxes.shape[1])
    return owner.reshape(puzzle.rows, puzzle.cols)


def draw_grid(puzzle: Puzzle, grid: np.ndarray | None = None, *, show_candidates: bool = False,
              highlight: np.ndarray | None = None, symbols: str = "numbers", title: str | None = None,
              ax: Axes | None = None, inches: float | None = None) -> Figure:
    """Draw ``puzzle`` (its rules, and ``grid``'s filled-in digits) on a matplotlib axes.

    Parameters
    ----------
    puzzle : Puzzle
        Any variant, rules and layout (a samurai is drawn as its grids on the canvas).
    grid : ndarray, optional
        ``(rows, cols)`` digits on the puzzle's canvas (``(N, N)`` without a layout); cells that
        are not clues are drawn in colour as filled-in digits.
    show_candidates : bool
        Pencil marks on empty cells (what :func:`candidates` leaves).
    highlight : ndarray, optional
        ``(rows, cols)`` bool cells to shade.
    symbols : {"numbers", "letters"}
    title : str, optional
    ax : matplotlib Axes, optional
    inches : float, optional
        Figure side (default grows with the canvas); font sizes follow it.

    Returns
    -------
    matplotlib.figure.Figure
    """
    grid = picture_inputs(puzzle, grid, what="draw_grid", highlight=highlight, inches=inches)
    if symbols not in ("numbers", "letters"):
        raise PipelineError(f"draw_grid: symbols must be numbers or letters, found {symbols!r}")
    plt = load_matplotlib()
    from matplotlib.collections import LineCollection

    n, rows, cols = puzzle.n, puzzle.rows, puzzle.cols
    glyphs = picture_glyphs(puzzle)
    edge = 1 if any(g.kind == "outside" for g in glyphs) else 0   # a cell's margin for outside clues
    side = max(rows, cols) + 2 * edge
    size = inches or max(4.0, min(12.0, 0.45 * side))
    if ax is None:
        fig, ax = plt.subplots(figsize=(size * (cols + 2 * edge) / side, size * (rows + 2 * edge) / side))
    else:
        fig = ax.figure
    ax.set_xlim(-edge, cols + edge)
    ax.set_ylim(rows + edge, -edge)
    ax.set_aspect("equal")
    ax.axis("off")
    cell_points = 72 * size / side
    canvas = _Canvas(ax, puzzle, cell_points)
    present = puzzle.present.reshape(rows, cols)
    if puzzle.regions is not None:
        canvas.shade(np.arange(rows * cols), np.array(REGION_FILLS)[region_colours(puzzle.regions).ravel()])
    _draw_unit_shading(canvas)
    if highlight is not None:
        canvas.shade(np.flatnonzero(np.asarray(highlight) & present), HIGHLIGHT_COLOUR, zorder=1)
    # thin lines along every edge of a present cell, thick ones where the box or region changes
    # (and around the grids: absent cells are owner -1), so a layout's absent cells stay blank
    padded = np.pad(present, 1)
    h_edge, v_edge = padded[:-1, 1:-1] | padded[1:, 1:-1], padded[1:-1, :-1] | padded[1:-1, 1:]
    owner = np.pad(_unit_owner(puzzle), 1, constant_values=-1)
    h_thick = h_edge & (owner[:-1, 1:-1] != owner[1:, 1:-1])
    v_thick = v_edge & (owner[1:-1, :-1] != owner[1:-1, 1:])
    ax.add_collection(LineCollection(list(edge_segments(h_edge, v_edge)), colors="#888888", linewidths=0.6, zorder=2,
                                     gid="thin-lines"))
    thick_w = 2.4 if n <= 16 else 1.8
    ax.add_collection(LineCollection(list(edge_segments(h_thick, v_thick)), colors="#000000", linewidths=thick_w, zorder=3,
                                     capstyle="projecting", gid="thick-lines"))
    small = max(5.0, cell_points * (0.24 if n <= 9 else 0.2))
    if grid is not None:   # small labels keep to their corner, clear of the filled digits (DIGIT_BY_LABELS)
        small = _true_cell_points(ax, cols + 2 * edge, rows + 2 * edge) * LABEL_WITH_DIGITS
    draw_glyphs(canvas, glyphs, small)
    # a value set: each digit shows its value (0..8, or 1..9 on a 6x6~9 grid of V > N values)
    text = [""] + [str(v) for v in puzzle.values] if puzzle.values is not None else symbol_table(n, symbols)
    big = cell_points * (0.55 if n <= 9 else 0.45)
    clue = puzzle.grid
    r, c = np.nonzero(clue)
    _stamp(ax, c + 0.5, r + 0.5, clue[r, c], text, big, CLUE_COLOUR, "clues", bold=True)
    if grid is not None:
        grid = np.asarray(grid)
        filled = (grid > 0) & (grid <= puzzle.n_values) & (clue == 0) & present
        # when a filled cell holds a label, every filled digit is the smaller size (between a cage sum
        # above and a text mark below): one size reads evenly, where a few small digits looked misprinted
        labelled = (filled & _labelled_cells(glyphs, rows, cols)).any()
        points = min(big, _true_cell_points(ax, cols + 2 * edge, rows + 2 * edge) * DIGIT_BY_LABELS) if labelled else big
        r, c = np.nonzero(filled)
        _stamp(ax, c + 0.5, r + 0.5, grid[r, c], text, points, FILLED_COLOUR, "filled")
    if show_candidates:
        filled = clue if grid is None else np.where(clue != 0, clue, grid)
        marks = candidates(puzzle, filled)
        xs, ys, digits, size = mark_places(puzzle, marks)
        _stamp(ax, xs, ys, digits, text, cell_points * size, MARK_COLOUR, "candidates", narrow=True)
    caption = rule_caption(puzzle)
    if caption:   # wrapped to the grid's width (ten global rules made a picture three grids wide)
        points = max(7.0, min(11.0, cell_points / 3))
        width = max(20, int((cols + 2 * edge) * cell_points / (0.55 * points)))
        ax.text(cols / 2, rows + edge + 0.15, "\n".join(textwrap.wrap(caption, width, break_on_hyphens=False)), ha="center", va="top",
                fontsize=points, color="#333333", gid="caption", parse_math=False)
    if title:
        ax.set_title(title, parse_math=False)
    return fig


def _true_cell_points(ax: Axes, width: int, height: int) -> float:
    """A cell's side in points as the axes lay it out (``width`` x ``height`` cells, equal
    aspect): the nominal ``cell_points`` counts the whole figure, margins included, so fonts
    sized by it are about 1.3 times larger against the cells than their factor says."""
    points = 72.0 / ax.figure.dpi   # the axes' box is in pixels
    return min(ax.bbox.width * points / width, ax.bbox.height * points / height)


def _labelled_cells(glyphs: list, rows: int, cols: int) -> np.ndarray:
    """``(rows, cols)`` bool: cells holding a small label (a cage's sum in its first cell, a text
    mark: a sum line's total, a whisper's ``≥k``, a modular line's ``mod k``, an either/or digit),
    whose filled digits are drawn smaller to stay clear of it."""
    cells = [min(g.cells) for g in glyphs if g.kind == "cage" and g.label]
    cells += [c for g in glyphs if g.kind == "mark" and g.style == "text" for c in g.cells]
    mask = np.zeros(rows * cols, dtype=bool)
    mask[np.asarray(cells, dtype=np.int64)] = True
    return mask.reshape(rows, cols)


def _stamp(ax: Axes, xs: np.ndarray, ys: np.ndarray, digits: np.ndarray, text: list[str], points: float,
           colour: str, gid: str, bold: bool = False, narrow: bool = False) -> None:
    """Digits as one collection of glyph outlines per digit, centred on ``(xs, ys)`` (data
    units), ``points`` high: the collection ``{gid}-{text[d]}`` holds digit ``d``'s places. A
    text artist per digit took 42 s and 250 MB for the pencil marks of an empty 25x25 (15,625),
    10 minutes and 9.5 GB for a 100x100's, and 30 s for a 100x100's digits; an outline is laid
    out once and stamped at each place (SVG and PDF write it once, too). ``narrow``: a label of
    several characters is made smaller to keep to its slot (pencil marks "10" to "25" ran into
    each other)."""
    from matplotlib.collections import PathCollection
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath
    from matplotlib.transforms import Affine2D, IdentityTransform

    prop = FontProperties(size=points, weight="bold" if bold else "normal")
    order = np.argsort(digits, kind="stable")   # each digit's places in one pass, not a scan per digit
    kinds, starts = np.unique(digits[order], return_index=True)
    for d, places in zip(kinds.tolist(), np.split(order, starts[1:])):
        high = points * (min(1.0, 1.4 / len(text[d])) if narrow else 1.0)
        outline = TextPath((0, 0), text[d], size=high, prop=prop)
        box = outline.get_extents()
        # outlines in points, about their centre; sizes=[1] makes the collection scale points to
        # pixels at the dpi the figure is drawn at
        centred = outline.transformed(Affine2D().translate(-(box.x0 + box.x1) / 2, -(box.y0 + box.y1) / 2))
        # an edge colour of its own (transparent; "none" is an empty colour list) lets matplotlib
        # render the glyph once and stamp it at every place (Agg's draw_markers): drawn as a path
        # each, an empty 200x200's 8 million pencil marks took 76 s to a PNG, now 9 s
        glyphs = PathCollection([centred], sizes=[1.0], offsets=np.column_stack([xs[places], ys[places]]),
                                offset_transform=ax.transData, facecolors=colour, edgecolors=(0, 0, 0, 0),
                                linewidths=0.0, zorder=4, gid=f"{gid}-{text[d]}")
        glyphs.set_transform(IdentityTransform())
        ax.add_collection(glyphs, autolim=False)


def read_grid(source: str, puzzle: Puzzle, box: str | None = None, what: str | None = None,
              reading: list | None = None) -> np.ndarray:
    """A filled-in grid for ``puzzle`` as ``verify`` reads one (:func:`~pipeline.core.claimed.read_claimed_grid`:
    ``solve``'s grid, line or JSON answer, in the puzzle's values; with a layout its whole canvas,
    ``.`` on absent cells), checked to have the puzzle's shape.

    Parameters
    ----------
    source : str
        Text, a file or ``-``.
    puzzle : Puzzle
        The puzzle the grid fills.
    box : str, optional
        Box shape for reading the grid.
    what : str, optional
        How messages name the grid.
    reading : list, optional
        As :func:`~pipeline.core.claimed.read_claimed_grid`'s: gets the puzzle in 0-F when a
        0-F answer is read for a puzzle read as 1-G (the grid is then in its digits).

    Returns
    -------
    ndarray of int

    Raises
    ------
    PipelineError
        When it cannot be read or its shape is not the puzzle's.
    """
    what = what or f"--grid {source}"
    try:   # as verify reads it: solve's grid, line or JSON answer, a layout's canvas with its separators
        grid, _ = read_claimed_grid(source, puzzle, box=box, reading=reading)
    except PuzzleError as e:
        raise PipelineError(f"{what}: {str(e).removeprefix(f'{source}: ')}") from None
    if grid.shape != puzzle.grid.shape:
        rows, cols = puzzle.grid.shape
        raise PipelineError(f"{what}: grid is {grid.shape[0]}x{grid.shape[1]}, puzzle is {rows}x{cols}")
    outside = np.argwhere((grid != 0) & ~np.asarray(puzzle.present).reshape(grid.shape))
    if outside.size:   # a layout's absent cell: verify names it, the picture would leave it out
        r, c = (int(k) + 1 for k in outside[0])
        raise PipelineError(f"{what}: r{r}c{c} holds {grid[r - 1, c - 1]} but is outside every grid of the layout")
    return grid


def highlight_mask(spec: list[str], puzzle: Puzzle, grid: np.ndarray | None,
                   box: str | None) -> np.ndarray:
    """Union of ``--highlight`` specs: cell lists, ``violations``, ``conflicts:CELLS``, ``diff:FILE``.

    Parameters
    ----------
    spec : list of str
        The ``--highlight`` values.
    puzzle : Puzzle
        The drawn puzzle.
    grid : numpy.ndarray or None
        The drawn grid (``violations`` and ``diff`` need one).
    box : str or None
        Box shape for reading a ``diff:FILE`` grid.

    Returns
    -------
    ndarray of bool, shape (rows, cols)
    """
    mask = np.zeros((puzzle.rows, puzzle.cols), dtype=bool)
    # explain lists clues as rRcC=D in digits, or in the values of a value set
    digits = frozenset(range(1, puzzle.n_values + 1)) | frozenset(int(v) for v in puzzle.value_of)
    for item in spec:
        if item == "violations":
            if grid is None:
                raise PipelineError("--highlight violations needs --grid FILE")
            mask |= violations(puzzle, grid)
        elif item.startswith("diff:"):
            if grid is None:
                raise PipelineError("--highlight diff:FILE needs --grid or --solution")
            mask |= read_grid(item.split(":", 1)[1], puzzle, box, f"--highlight {item}") != grid
        else:
            mask |= _listed_cells(item, puzzle, digits)
    return mask


def _listed_cells(item: str, puzzle: Puzzle, digits: frozenset[int]) -> np.ndarray:
    """A ``--highlight`` cell list (or ``conflicts:CELLS``) as a mask; refused when it names no cell,
    or a cell outside every grid of a layout (shading it would draw nothing, without a word)."""
    cells = parse_cells(item.split(":", 1)[1] if item.startswith("conflicts:") else item, puzzle.rows, puzzle.cols,
                        digits)
    if not cells.any():
        raise PipelineError(f"--highlight: {item!r} names no cell (expected cells like r1c2,r3c4)")
    outside = np.argwhere(cells & ~np.asarray(puzzle.present).reshape(puzzle.rows, puzzle.cols))
    if outside.size:
        r, c = outside[0] + 1
        raise PipelineError(f"--highlight: r{r}c{c} is not part of the puzzle (outside every grid of the layout)")
    return cells


def _puzzle_text(source: str) -> str:
    """The text of a PUZZLE argument (a file's contents, or the argument itself)."""
    if _path_kind(source) == "file":   # parse's test: not too long for a path, no newline, a regular file
        try:
            return Path(source).read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            pass
    return source
