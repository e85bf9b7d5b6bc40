"""Pictures without matplotlib: SVG text for notebooks (Jupyter's ``_repr_svg_``/``_repr_html_``).

The core layer cannot use matplotlib (``pipeline.tools.draw`` does, for files); these pictures
are plain strings, built with numpy, small enough to sit in a notebook:

* :func:`grid_svg`: a puzzle's grid, painted in layers (:data:`GRID_LAYERS`): jigsaw region
  fills, the X diagonals, thin cell lines, thick box/region borders, the clues, and optionally
  the filled-in digits of a solution in another colour. ``Puzzle._repr_svg_`` and
  ``Puzzle.picture(grid)`` use it.
* :func:`spy_svg`: the sparsity of a matrix with a coloured band per row family, binned to at
  most :data:`SPY_BINS` so a 100x100 model (10^6 columns) stays a few kilobytes.
* :func:`model_html`: a ``Model``'s shape per row family beside its spy picture.

The rules' cages, lines, dots, marks, outside clues and shades are the glyphs the rules declare
(:mod:`pipeline.core.glyphs`), painted by the layers of :mod:`pipeline.core.svg_glyphs`; a new
rule shows by declaring glyphs, with no change here. Another element of grid pictures: write a layer, a function
``layer(scene: GridScene) -> str`` returning one ``<g class="NAME">`` (or ``""`` when the puzzle
has none), reading what it draws from ``scene.puzzle`` and placing it with ``scene.x``/``scene.y``
and ``scene.cell``; then insert ``Layer("NAME", layer)`` into :data:`GRID_LAYERS` at its paint
position (later layers paint over earlier ones), or pass ``layers=`` to :func:`grid_svg`.
"""
from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, NamedTuple

import numpy as np

from pipeline.core.errors import PipelineError, clip
from pipeline.core.rules.base import value_span
from pipeline.core.glyphs import CAGE_INSET, Glyph, rule_caption, rule_glyphs, rule_titles, touching_colours
from pipeline.core.svg_glyphs import cage_layer, rules_over, rules_under

if TYPE_CHECKING:   # annotations only: puzzle.py imports this module
    import scipy.sparse as sp

    from pipeline.core.build import Model
    from pipeline.core.puzzle import Puzzle

SVG_NS = "http://www.w3.org/2000/svg"

# colours shared with pipeline.tools.draw and pipeline.tools.spy (one place)
CLUE_COLOUR = "#000000"
FILLED_COLOUR = "#1f5fbf"
HIGHLIGHT_COLOUR = "#ff9a8a"
MARK_COLOUR = "#555555"
THIN_COLOUR = "#888888"
DIAGONAL_SHADE = "#00000014"   # black at 8 % opacity
REGION_FILLS = ("#fde9c9", "#d9ecf9", "#e2f5d6", "#f6dcf0", "#fff6bf", "#dcdcf7", "#d7f2ef", "#f7e0d6")
BAND_COLOURS = {"cell": "#e8f0fb", "row": "#fbeee8", "col": "#e9f7e8", "box": "#f7f3dc", "region": "#f7f3dc",
                "diag": "#f1e6f8", "anti": "#e5f5f5", "clue": "#eeeeee",
                # families of the rules beyond units (units they add, then Aeq's and Aineq's rows)
                "window": "#e6eefa", "extra": "#e4f4e4", "disjoint": "#f4eadf", "cagesum": "#fbe9d2",
                "cage": "#fdf1e3", "thermo": "#ececec", "greater": "#f1e6f8", "kropki": "#e5f5f5",
                "parity": "#f7f3dc", "antiknight": "#e8f0fb", "antiking": "#fbeee8", "nonconsecutive": "#e9f7e8",
                "nonconsecutivepair": "#e9f7e8"}
OTHER_BAND = "#eeeeee"
SPY_INK = "#1f3f8f"

#: Largest picture side in pixels a grid gets by default (cells are 12 to 36 px).
GRID_PIXELS = 360
#: Spy pictures: at most this many row bins and column bins (pixels of ink).
SPY_BINS = (100, 200)


def _numbers(values) -> np.ndarray:
    """Coordinates as short text: integers plainly, others with two decimals (vectorised)."""
    values = np.round(np.asarray(values, dtype=float), 2)
    return np.char.mod("%g", values)


def _join(*columns) -> str:
    """Concatenate string columns (and constant strings) element-wise, then join all rows."""
    out = None
    for column in columns:
        out = column if out is None else np.char.add(out, column)
    return "".join(np.asarray(out).ravel().tolist()) if out is not None else ""


def _squares_path(x, y, side: float) -> str:
    """One path ``d`` drawing a ``side`` square at each (x, y) top-left corner."""
    s = _numbers(side).item()
    return _join("M", _numbers(x), " ", _numbers(y), f"h{s}v{s}h-{s}z")


# -- grid pictures -------------------------------------------------------------------------------
@dataclass(frozen=True)
class GridScene:
    """What a layer draws on: the puzzle, the optional solution grid and the geometry.

    Cell ``(r, c)`` (0-based) spans ``[x(c), x(c) + cell] x [y(r), y(r) + cell]`` in pixels.
    """

    puzzle: "Puzzle"
    grid: np.ndarray | None
    cell: float
    margin: float
    #: What the rules draw (:mod:`pipeline.core.glyphs`); :func:`grid_svg` fills it in.
    glyphs: tuple[Glyph, ...] = ()
    #: The text of each digit index ``0..V`` (``draw --symbols letters``); None: the numbers.
    names: tuple[str, ...] | None = None

    @property
    def n(self) -> int:
        """Side of the grid."""
        return self.puzzle.n

    @property
    def rows(self) -> int:
        """Rows of the canvas (``N`` without a layout; a samurai's 21)."""
        return self.puzzle.rows

    @property
    def cols(self) -> int:
        """Columns of the canvas."""
        return self.puzzle.cols

    @property
    def width(self) -> float:
        """Width of the whole picture in pixels."""
        return self.cols * self.cell + 2 * self.margin

    @property
    def height(self) -> float:
        """Height of the picture without its caption, in pixels."""
        return self.rows * self.cell + 2 * self.margin

    @property
    def present(self) -> np.ndarray:
        """``(rows, cols)`` True on the puzzle's cells (a layout leaves the rest of its canvas blank)."""
        return np.asarray(self.puzzle.present).reshape(self.rows, self.cols)

    def x(self, c):
        """Left edge of column(s) ``c`` (0-based; ``c = N`` is the right edge of the grid)."""
        return self.margin + np.asarray(c) * self.cell

    def y(self, r):
        """Top edge of row(s) ``r``."""
        return self.margin + np.asarray(r) * self.cell

    @property
    def units(self) -> np.ndarray | None:
        """``(rows, cols)`` unit number of each cell for the thick borders: jigsaw regions, else
        boxes numbered row-major over the canvas (a layout's grids sit on its box lattice), else
        None (a Latin square: only the frame is thick)."""
        p = self.puzzle
        if p.regions is not None:
            return np.asarray(p.regions)
        if p.has_boxes:
            r, c = np.arange(self.rows), np.arange(self.cols)
            return (r[:, None] // p.h) * (-(-self.cols // p.w)) + c[None, :] // p.w
        return None

    def digits(self, cells: np.ndarray, values: np.ndarray) -> str:
        """``<text>`` elements centred in ``cells`` showing ``values``.

        Parameters
        ----------
        cells : ndarray of int, shape (k, 2)
            0-based ``(r, c)`` of each cell to write in.
        values : ndarray of int, shape (k,)
            The number shown in each (written with ``%d``).

        Returns
        -------
        str
            The elements, joined; empty for no cells.
        """
        if len(cells) == 0:
            return ""
        cx, cy = _numbers(self.x(cells[:, 1] + 0.5)), _numbers(self.y(cells[:, 0] + 0.5))
        return _join('<text x="', cx, '" y="', cy, '">', self.labels(values), "</text>")

    def labels(self, digits) -> np.ndarray:
        """The text of digit indices ``1..V``: the values of a value set (an ISS ``0-8`` grid shows
        index 1 as 0), else the number itself."""
        digits = np.asarray(digits)
        values = self.puzzle.values
        if values is None and self.names is not None:
            return np.asarray(self.names)[digits]
        return np.char.mod("%d", digits if values is None else np.asarray(values)[digits - 1])

    def font_size(self) -> str:
        """Digit size: a little over half a cell; smaller once digits have two places."""
        return _numbers(self.cell * (0.6 if self.n <= 9 else 0.45)).item()


class Layer(NamedTuple):
    """One element of grid pictures: its name (the ``class`` of its ``<g>``) and its painter."""

    name: str
    draw: Callable[[GridScene], str]


def region_colours(regions: np.ndarray, n_colours: int = len(REGION_FILLS)) -> np.ndarray:
    """A colour index per cell of a jigsaw's region ids (``rows x cols``, ids ``0..R-1``), touching
    regions differing (:func:`touching_colours`): the notebook SVG and ``draw`` fill with it.

    Parameters
    ----------
    regions : ndarray of int
        Region id per cell.
    n_colours : int
        The palette's length.

    Returns
    -------
    ndarray of int, the shape of ``regions``
    """
    ids = np.asarray(regions)
    flat = ids.ravel()
    areas = np.split(np.argsort(flat, kind="stable"), np.cumsum(np.bincount(flat))[:-1])
    return touching_colours(areas, flat.size, ids.shape[1], n_colours)[ids]


def region_fills(scene: GridScene) -> str:
    """Jigsaw regions: a pastel fill per region, touching regions in different colours."""
    regions = scene.puzzle.regions
    if regions is None:
        return ""
    colour = region_colours(regions)
    paths = []
    for k, fill in enumerate(REGION_FILLS):   # at most eight colours: one path each
        r, c = np.nonzero(colour == k)
        if r.size:
            paths.append(f'<path fill="{fill}" d="{_squares_path(scene.x(c), scene.y(r), scene.cell)}"/>')
    return f'<g class="regions">{"".join(paths)}</g>'


def diagonal_shading(scene: GridScene) -> str:
    """The two long diagonals of the X variants (of each grid of a layout), lightly shaded."""
    if not scene.puzzle.has_diagonals:
        return ""
    n = scene.n
    i = np.arange(n)
    corners = scene.puzzle.layout.origins if scene.puzzle.layout is not None else ((0, 0),)
    cells = np.unique(np.concatenate([(r0 + i) * scene.cols + c0 + np.r_[i, n - 1 - i].reshape(2, n)
                                      for r0, c0 in corners], axis=None))   # the centre once when N is odd
    r, c = np.divmod(cells, scene.cols)
    return (f'<g class="diagonals"><path fill="{DIAGONAL_SHADE}" '
            f'd="{_squares_path(scene.x(c), scene.y(r), scene.cell)}"/></g>')


def _edges(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where the cell label changes between neighbours, the canvas's outside labelled -1:
    ``(vr, vc)`` the vertical edges (on line ``x = vc`` beside cell row ``vr``) and ``(hr, hc)``
    the horizontal ones (on line ``y = hr`` above cell column ``hc``)."""
    padded = np.pad(labels, 1, constant_values=-1)
    vr, vc = np.nonzero(padded[1:-1, 1:] != padded[1:-1, :-1])
    hr, hc = np.nonzero(padded[1:, 1:-1] != padded[:-1, 1:-1])
    return vr, vc, hr, hc


def thin_lines(scene: GridScene) -> str:
    """A thin line around every cell: the full lattice, or each present cell's edges on a layout's canvas."""
    present = scene.present
    if present.all():
        rows, cols = np.arange(scene.rows + 1), np.arange(scene.cols + 1)
        top, bottom = _numbers(scene.y(0)).item(), _numbers(scene.y(scene.rows)).item()
        left, right = _numbers(scene.x(0)).item(), _numbers(scene.x(scene.cols)).item()
        d = (_join("M", _numbers(scene.x(cols)), f" {top}V{bottom}")
             + _join(f"M{left} ", _numbers(scene.y(rows)), f"H{right}"))
    else:   # every edge of a present cell once: where the cell labels (each its own, absent -1) change
        labels = np.where(present, np.arange(present.size).reshape(present.shape), -1)
        vr, vc, hr, hc = _edges(labels)
        cell = _numbers(scene.cell).item()
        d = (_join("M", _numbers(scene.x(vc)), " ", _numbers(scene.y(vr)), f"v{cell}")
             + _join("M", _numbers(scene.x(hc)), " ", _numbers(scene.y(hr)), f"h{cell}"))
    return f'<g class="lines"><path fill="none" stroke="{THIN_COLOUR}" stroke-width="0.6" d="{d}"/></g>'


def unit_borders(scene: GridScene) -> str:
    """Thick lines where the unit (box or jigsaw region) changes, and the frame around the present
    cells; one path segment per cell edge, so a segment count is a border length in cells."""
    cell = _numbers(scene.cell).item()
    units = scene.units
    labels = np.where(scene.present, 0 if units is None else units, -1)
    vr, vc, hr, hc = _edges(labels)
    d = (_join("M", _numbers(scene.x(vc)), " ", _numbers(scene.y(vr)), f"v{cell}")
         + _join("M", _numbers(scene.x(hc)), " ", _numbers(scene.y(hr)), f"h{cell}"))
    width = 2.4 if scene.n <= 16 else 1.8
    return (f'<g class="borders"><path fill="none" stroke="#000000" stroke-width="{width}" '
            f'stroke-linecap="square" d="{d}"/></g>')


def clue_digits(scene: GridScene) -> str:
    """The clues, bold and black: one ``<text>`` per clue."""
    clues = np.asarray(scene.puzzle.grid)
    cells = np.argwhere(clues != 0)
    return (f'<g class="clues" fill="{CLUE_COLOUR}" font-weight="bold" font-size="{scene.font_size()}" '
            f'text-anchor="middle" dominant-baseline="central" font-family="sans-serif">'
            f'{scene.digits(cells, clues[clues != 0])}</g>')


def solution_digits(scene: GridScene) -> str:
    """The digits ``scene.grid`` fills in (cells that are not clues), in blue."""
    if scene.grid is None:
        return ""
    clues = np.asarray(scene.puzzle.grid)
    filled = (scene.grid != 0) & (clues == 0)
    return (f'<g class="solution" fill="{FILLED_COLOUR}" font-size="{scene.font_size()}" '
            f'text-anchor="middle" dominant-baseline="central" font-family="sans-serif">'
            f'{scene.digits(np.argwhere(filled), scene.grid[filled])}</g>')


def shade_layer(mask: np.ndarray) -> Layer:
    """A layer shading the cells of ``mask`` (``(N, N)`` bool), to paint under the lines: what
    ``draw --highlight`` marks.

    Parameters
    ----------
    mask : ndarray of bool

    Returns
    -------
    Layer
    """
    def shade(scene: GridScene) -> str:
        r, c = np.nonzero(np.asarray(mask))
        if not r.size:
            return ""
        return (f'<g class="highlight"><path fill="{HIGHLIGHT_COLOUR}" '
                f'd="{_squares_path(scene.x(c), scene.y(r), scene.cell)}"/></g>')
    return Layer("highlight", shade)


def mark_places(puzzle: "Puzzle", marks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Where pencil marks go: digit ``d`` of a cell in a ``ceil(sqrt(V))``-wide arrangement,
    inside a killer's cage outlines and below a cage's sum (the SVG and ``draw`` place them alike).

    Parameters
    ----------
    puzzle : Puzzle
    marks : ndarray of bool
        ``(rows, cols, V)``: ``[r, c, d-1]`` True to write digit ``d`` (an index ``1..V``) at ``(r, c)``.

    Returns
    -------
    (x, y, digits, size)
        Centres in cell units (column, row; 0 is the grid's left or top edge), the digit indices
        ``1..V``, and the mark height as a fraction of a cell.
    """
    rows, cols, n = marks.shape
    per_row = int(np.ceil(np.sqrt(n)))
    r, c, d = np.nonzero(marks)
    # each cell's area for marks: (left, right, top, bottom) in cell units
    area = np.tile([0.0, 1.0, 0.0, 1.0], (rows * cols, 1))
    cages = [rule for rule in puzzle.rules if rule.kind == "cage"]
    if cages:
        area[:] = [CAGE_INSET + 0.05, 0.95 - CAGE_INSET, CAGE_INSET + 0.05, 0.95 - CAGE_INSET]
        area[[int(rule.cells().min()) for rule in cages if getattr(rule, "total", None) is not None], 2] = 0.3
    left, right, top, bottom = area[r * cols + c].T
    x = c + left + (d % per_row + 0.5) / per_row * (right - left)
    y = r + top + (d // per_row + 0.55) / per_row * (bottom - top)
    return x, y, d + 1, float(area[0, 1] - area[0, 0]) / per_row * 0.6


def candidate_layer(marks: np.ndarray) -> Layer:
    """A layer writing pencil marks, small and grey: ``draw --candidates``.

    Parameters
    ----------
    marks : ndarray of bool
        ``(N, N, V)``, as :func:`mark_places` takes them.

    Returns
    -------
    Layer
    """
    def write(scene: GridScene) -> str:
        x, y, digits, size = mark_places(scene.puzzle, np.asarray(marks))
        if not digits.size:
            return ""
        texts = _join('<text x="', _numbers(scene.x(x)), '" y="', _numbers(scene.y(y)), '">',
                      scene.labels(digits), "</text>")
        return (f'<g class="candidates" fill="{MARK_COLOUR}" font-size="{_numbers(scene.cell * size).item()}" '
                f'text-anchor="middle" dominant-baseline="central" font-family="sans-serif">{texts}</g>')
    return Layer("candidates", write)


#: The layers of a grid picture in paint order (later ones paint over earlier ones).
GRID_LAYERS: list[Layer] = [
    Layer("regions", region_fills),
    Layer("diagonals", diagonal_shading),
    Layer("rules-under", rules_under),
    Layer("lines", thin_lines),
    Layer("cages", cage_layer),
    Layer("borders", unit_borders),
    Layer("rules-over", rules_over),
    Layer("clues", clue_digits),
    Layer("solution", solution_digits),
]


#: The longer side of a drawn picture, in inches (``draw --inches``, ``draw_grid(inches=)``): a 4x4
#: stays legible at the least; at the most a PNG is 6,600 px a side (174 MB to draw).
MIN_INCHES, MAX_INCHES = 2.0, 60.0


def picture_inputs(puzzle: "Puzzle", grid: object = None, names: object = None, *, what: str = "picture",
                   highlight: object = None, inches: object = None) -> np.ndarray | None:
    """Check what a picture of ``puzzle`` is given, in one line each: a Puzzle, a grid and a
    ``highlight`` mask of its canvas shape, ``names`` for every digit, ``inches`` in range.

    Parameters
    ----------
    puzzle : Puzzle
        What is drawn.
    grid, names, highlight, inches : optional
        As the drawing functions take them.
    what : str
        How messages name the caller.

    Returns
    -------
    ndarray of int or None
        ``grid`` as an array.

    Raises
    ------
    PipelineError
        A wrong type or shape: a broadcast ValueError or an AttributeError from deep inside before.
    """
    if not (hasattr(puzzle, "board") and hasattr(puzzle, "grid")):   # Puzzle imports this module
        raise PipelineError(f"{what}: takes a Puzzle (read one with read_puzzle), found {type(puzzle).__name__}")
    shape = np.shape(puzzle.grid)
    for name, value, kinds in (("grid", grid, "iu"), ("highlight", highlight, "b")):
        if value is None:
            continue
        array = np.asarray(value) if isinstance(value, (np.ndarray, list, tuple)) else None
        if array is None or array.shape != shape or array.dtype.kind not in kinds:
            found = (f"{array.shape} {array.dtype}" if array is not None else type(value).__name__)
            kind = "an integer" if kinds == "iu" else "a boolean"
            raise PipelineError(f"{what}: {name} must be {kind} array of the puzzle's {shape[0]}x{shape[1]} cells, "
                                f"found {found}")
    if grid is not None:   # a digit past the puzzle's was left out of the picture without a word
        entries = np.asarray(grid)
        top = int(getattr(puzzle, "n_values", puzzle.n))
        bad = np.argwhere((entries < 0) | (entries > top))
        if bad.size:
            r, c = (int(k) + 1 for k in bad[0])
            raise PipelineError(f"{what}: grid holds {int(entries[tuple(bad[0])])} at r{r}c{c}: its entries run "
                                f"0..{top} (0 empty)")
    if names is not None and (not isinstance(names, (list, tuple)) or len(names) < puzzle.n + 1):
        raise PipelineError(f"{what}: names must list the text of each digit 0..{puzzle.n} (index 0 empty), "
                            f"found {clip(repr(names), 30)}")
    if inches is not None and not (isinstance(inches, (int, float)) and not isinstance(inches, bool)
                                   and MIN_INCHES <= inches <= MAX_INCHES):
        raise PipelineError(f"{what}: inches must be from {MIN_INCHES:g} to {MAX_INCHES:g}, found {inches!r}")
    return None if grid is None else np.asarray(grid)


#: The pixels a cell may take in :func:`grid_svg` (an SVG of negative or NaN size draws nothing)
MIN_CELL, MAX_CELL = 0.01, 10_000.0   # draw --inches 60 of a 4x4: 1,440 px a cell


def _check_cell_and_layers(cell: object, layers: object) -> None:
    """One typed line for a ``cell`` or ``layers`` :func:`grid_svg` cannot draw with."""
    if cell is not None and not (isinstance(cell, (int, float, np.integer, np.floating)) and not isinstance(cell, bool)
                                 and MIN_CELL <= float(cell) <= MAX_CELL):
        raise PipelineError(f"grid_svg: cell must be a number of pixels from {MIN_CELL:g} to {MAX_CELL:g}, "
                            f"found {clip(repr(cell), 30)}")
    if layers is not None and (not isinstance(layers, (list, tuple))
                               or not all(isinstance(layer, Layer) for layer in layers)):
        raise PipelineError(f"grid_svg: layers must be a list of Layer entries (GRID_LAYERS holds them), "
                            f"found {clip(repr(layers), 30)}")


def grid_svg(puzzle: "Puzzle", grid: np.ndarray | None = None, *, cell: float | None = None,
             layers: list[Layer] | None = None, names: list[str] | None = None) -> str:
    """The grid of ``puzzle`` as SVG text: regions, diagonals, lines, borders, clues, solution.

    Parameters
    ----------
    puzzle : Puzzle
    grid : ndarray, optional
        (N, N) digits (0 = empty), e.g. a solution: its digits in cells that are not clues are
        drawn in blue. It is taken as given (``Puzzle.picture`` checks it).
    cell : float, optional
        Pixels per cell, :data:`MIN_CELL` to :data:`MAX_CELL` (default: the grid fits
        :data:`GRID_PIXELS`, cells 12 to 36 px).
    layers : list of Layer, optional
        What to paint, in order (default :data:`GRID_LAYERS`).
    names : list of str, optional
        The text of each digit index ``0..N`` (e.g. letters past 9); default the numbers (a
        value set always shows its values).

    Returns
    -------
    str
        An ``<svg>`` element (no XML declaration), valid XML.

    Raises
    ------
    PipelineError
        A ``grid``, ``names``, ``cell`` or ``layers`` it cannot draw with (one line naming it).

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> svg = grid_svg(parse_puzzle("1..." + "." * 12))
    >>> svg.startswith("<svg") and svg.count("<text") == 1
    True
    """
    grid = picture_inputs(puzzle, grid, names, what="grid_svg")
    _check_cell_and_layers(cell, layers)
    side = max(puzzle.rows, puzzle.cols)   # a layout's canvas (a samurai's 21) fits the picture, not one grid
    cell = float(cell) if cell is not None else float(min(36, max(12, GRID_PIXELS // side)))
    glyphs = tuple(rule_glyphs(puzzle.rules, puzzle.board))
    margin = 2.0 + (cell if any(g.kind == "outside" for g in glyphs) else 0.0)   # room for outside clues
    scene = GridScene(puzzle, None if grid is None else np.asarray(grid), cell, margin, glyphs,
                      None if names is None else tuple(names))
    body = "".join(layer.draw(scene) for layer in (GRID_LAYERS if layers is None else layers))
    caption, below = _caption(puzzle, scene.width, scene.height, cell)
    width = _numbers(scene.width).item()
    height = _numbers(scene.height + below).item()
    title = html.escape(picture_title(puzzle))
    return (f'<svg xmlns="{SVG_NS}" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
            f'<title>{title}</title><rect width="{width}" height="{height}" fill="#ffffff"/>{body}{caption}</svg>')


def _caption(puzzle: "Puzzle", side: float, top: float, cell: float) -> tuple[str, float]:
    """``(element, height)``: :func:`pipeline.core.glyphs.rule_caption` under the grid, wrapped
    to its width as ``draw`` wraps it (the title names the rules too, but a notebook shows no
    title, and the colours of several kinds of outside clue are said nowhere else)."""
    text = rule_caption(puzzle.rules, puzzle.board)
    if not text:
        return "", 0.0
    size = max(9.0, round(cell * 0.36, 1))
    lines = textwrap.wrap(text, max(12, int(side / (0.5 * size))), break_on_hyphens=False)
    step = size * 1.25
    x = _numbers(side / 2).item()
    spans = "".join(f'<tspan x="{x}" dy="{_numbers(size if k == 0 else step).item()}">{html.escape(line)}</tspan>'
                    for k, line in enumerate(lines))
    element = (f'<text class="caption" y="{_numbers(top).item()}" font-size="{size}" '
               f'fill="#333333" text-anchor="middle" font-family="sans-serif">{spans}</text>')
    return element, size * 0.5 + step * len(lines)


def picture_title(puzzle: "Puzzle") -> str:
    """A grid picture's title: size, variant, clues and the rules (``9x9 classic, 0 clues; 29
    killer cages``, ``...; 4 thermometers; anti-knight``).

    Parameters
    ----------
    puzzle : Puzzle

    Returns
    -------
    str
    """
    clues = f"{puzzle.n_clues} clue" + ("" if puzzle.n_clues == 1 else "s")
    span = value_span(puzzle.board)
    if span != f"1..{puzzle.n}":   # a value set of its own (0..8, 1,3,5,..., 1..5 on a 4x4) changes the puzzle
        clues = f"values {span}, {clues}"
    shape = f"{puzzle.rows}x{puzzle.cols} {puzzle.variant}"
    layout = puzzle.layout
    if layout is not None:   # a samurai is five 9x9 grids on a 21x21 canvas, not a 21x21 classic
        shape = f"{layout.name}: {len(layout.origins)} {layout.n}x{layout.n} {puzzle.variant} grids on a {shape.split()[0]} canvas"
    return "; ".join([f"{shape}, {clues}", *rule_titles(puzzle.rules)])


class SvgPicture:
    """An SVG picture that shows itself in Jupyter (``_repr_svg_``); ``.svg`` is its text."""

    def __init__(self, svg: str):
        self.svg = svg

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"<SvgPicture: {len(self.svg)} characters of SVG>"


# -- sparsity pictures ---------------------------------------------------------------------------
def sparsity_bins(matrix: "sp.spmatrix | np.ndarray", row_bins: int, col_bins: int) -> np.ndarray:
    """Nonzeros of ``matrix`` counted into a ``row_bins`` x ``col_bins`` image (at most the
    matrix's own rows and columns).

    Parameters
    ----------
    matrix : sparse matrix or ndarray
        The matrix whose nonzeros are counted.
    row_bins, col_bins : int
        Most bins along the rows and along the columns.

    Returns
    -------
    ndarray
        (min(row_bins, rows), min(col_bins, cols)) int64 counts.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> sparsity_bins(sp.eye(4, format="csr"), 2, 2).tolist()
    [[2, 0], [0, 2]]
    """
    import scipy.sparse as sp  # here, not at the top: puzzles and models are drawn without it

    coo = sp.coo_matrix(matrix)
    n_rows, n_cols = coo.shape
    rbins, cbins = max(1, min(row_bins, n_rows)), max(1, min(col_bins, n_cols))
    r = (coo.row.astype(np.int64) * rbins) // max(n_rows, 1)
    c = (coo.col.astype(np.int64) * cbins) // max(n_cols, 1)
    return np.bincount(r * cbins + c, minlength=rbins * cbins).reshape(rbins, cbins)


def spy_svg(matrix: "sp.spmatrix | np.ndarray", families: dict[str, int], *, bins: tuple[int, int] = SPY_BINS, pixels: tuple[int, int] = (200, 400)) -> str:
    """The sparsity of ``matrix`` with a coloured band per row family, as small SVG.

    Rows and columns are binned (at most ``bins``); a bin with any nonzero is ink. Runs of
    inked bins along a row are one rectangle each, in one path, so the text grows with the
    picture's detail, not with the nonzeros (vectorised: no Python loop per nonzero or bin).

    Parameters
    ----------
    matrix : sparse matrix
        E.g. ``model.Aeq``.
    families : dict
        Rows per family in row order (``model.family_counts()``); they must add up to the rows.
    bins : (int, int)
        Most row and column bins.
    pixels : (int, int)
        Largest height and width of the picture.

    Returns
    -------
    str
        An ``<svg>`` element: one ``<rect class="band">`` per family (with a ``<title>``), the
        ink as one ``<path class="ink">``, a frame.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> svg = spy_svg(sp.eye(4, format="csr"), {"cell": 2, "row": 2})
    >>> svg.count('class="band"')
    2
    """
    n_rows, n_cols = matrix.shape
    counts = sparsity_bins(matrix, *bins)
    rb, cb = counts.shape
    bh, bw = max(1, pixels[0] // rb), max(1, pixels[1] // cb)   # whole pixels per bin
    height, width = rb * bh, cb * bw
    bounds = np.cumsum([0] + list(families.values()))
    band_y = bounds * height / max(n_rows, 1)
    bands = "".join(
        f'<rect class="band" x="0" y="{_numbers(top).item()}" width="{width}" height="{_numbers(bottom - top).item()}" '
        f'fill="{BAND_COLOURS.get(name, OTHER_BAND)}"><title>{html.escape(name)}: {rows} rows</title></rect>'
        for (name, rows), top, bottom in zip(families.items(), band_y[:-1], band_y[1:]))
    # runs of inked bins along each row of bins: +1 where a run starts, -1 just after it ends
    inked = np.pad(counts > 0, ((0, 0), (1, 1)))
    step = np.diff(inked.astype(np.int8), axis=1)
    run_row, run_start = np.nonzero(step == 1)
    _, run_end = np.nonzero(step == -1)            # same row-major order: pairs with the starts
    d = _join("M", np.char.mod("%d", run_start * bw), " ", np.char.mod("%d", run_row * bh),
              "h", np.char.mod("%d", (run_end - run_start) * bw), f"v{bh}h", np.char.mod("%d", -(run_end - run_start) * bw),
              "z")
    ink = f'<path class="ink" fill="{SPY_INK}" d="{d}"/>' if run_row.size else ""
    title = html.escape(f"{n_rows} x {n_cols}, {int(np.count_nonzero(matrix) if isinstance(matrix, np.ndarray) else matrix.nnz)} nonzeros (binned {rb} x {cb})")
    return (f'<svg xmlns="{SVG_NS}" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
            f"<title>{title}</title>{bands}{ink}"
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="none" stroke="#999999"/></svg>')


def model_html(model: "Model") -> str:
    """A ``Model`` for notebooks: its convention and size, a table of rows per family (coloured
    as the bands) and the spy picture of ``Aeq``.

    Parameters
    ----------
    model : Model

    Returns
    -------
    str
        An HTML fragment.
    """
    p, conv = model.puzzle, model.convention
    # the families of Aeq in its row order (family_counts also holds Aineq's, and puts the clues
    # before the rules' = rows); the picture and the table are of Aeq
    families = dict(model.row_bands()[0])
    shape = f"box {p.h}x{p.w}" if p.has_boxes else ("regions" if p.regions is not None else "no boxes")
    caption = (f"Model: {p.n}x{p.n} {p.variant} ({shape}, {p.n_clues} clues), {conv.scheme} order {conv.order}, "
               f"clues as {model.clue_encoding}: {model.n_rows:,} rows x {model.n_cols:,} columns, "
               f"{model.nnz:,} nonzeros")
    rows = "".join(f'<tr><td style="background:{BAND_COLOURS.get(name, OTHER_BAND)}">{html.escape(name)}</td>'
                   f'<td style="text-align:right">{count:,}</td></tr>' for name, count in families.items())
    table = (f'<table class="families"><tr><th>family</th><th>rows</th></tr>{rows}'
             f'<tr><th>total</th><th style="text-align:right">{model.n_rows:,}</th></tr></table>')
    return (f'<div class="sudoku-pipeline-model"><p>{html.escape(caption)}</p>'
            f'<div style="display:flex;gap:1.5em;align-items:flex-start">{table}'
            f"{spy_svg(model.Aeq, families)}</div></div>")


__all__ = ["BAND_COLOURS", "CLUE_COLOUR", "FILLED_COLOUR", "GRID_LAYERS", "GridScene", "Layer", "REGION_FILLS",
           "SvgPicture", "clue_digits", "picture_title", "diagonal_shading", "grid_svg", "model_html", "region_fills",
           "solution_digits", "sparsity_bins", "spy_svg", "thin_lines", "unit_borders"]
