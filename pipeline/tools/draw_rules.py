"""The rules in ``draw``'s pictures: matplotlib for the glyphs rules declare (:mod:`pipeline.core.glyphs`).

The notebook SVG (:mod:`pipeline.core.svg_glyphs`) reads the same glyphs, so a rule that declares
glyphs shows in both. Killer cages are dashed outlines inset inside the cells with the sum in the
top-left corner of the cage's first cell; thermometers a grey bulb and a thick rounded line
through the cells' centres; arrows a circle, a thin line and a head; other lines a coloured line;
dots (white, black; a label written in the dot) and greater-than chevrons (pointing at the smaller
cell) sit on the edge or corner between their cells; square marks are grey squares, circle marks
grey circles, text marks small text; outside clues sit beside the grid (a diagonal one with an
arrow). Shades of rules that add units (windoku windows, extra regions, diagonals) are painted
with the variant's units by ``draw``; other shades here. Rules without glyphs (anti-knight,
anti-king, non-consecutive, disjoint groups) are named in a caption under the grid.

Every kind is one matplotlib collection per rule kind (the collection's gid is the rule's kind,
or ``cages``/``cage-sum``/``thermo-lines``/``thermo-bulbs``); only text is one artist per string.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.core.glyphs import (CAGE_COLOUR, CAGE_INSET, EXTRA_FILLS, LINE_COLOUR, PARITY_COLOUR, RING_COLOUR,
                                  THERMO_COLOUR, WINDOW_FILL, Glyph, cage_loops, outside_kind_colours,
                                  cage_label_corners, outside_layout, rule_glyphs, text_spots)
from pipeline.core.glyphs import rule_caption as caption_of_rules

if TYPE_CHECKING:  # annotations only: matplotlib is imported lazily
    from matplotlib.path import Path as MplPath

    from pipeline.core.puzzle import Puzzle

__all__ = ["outside_colours", "CAGE_COLOUR", "CAGE_INSET", "EXTRA_FILLS", "PARITY_COLOUR", "THERMO_COLOUR", "WINDOW_FILL", "cage_outline",
           "draw_glyphs", "picture_glyphs", "rule_caption"]


def cage_outline(cells: "np.ndarray | list[int]", cols: int, inset: float = CAGE_INSET) -> "MplPath":
    """The outline of a cage (:func:`pipeline.core.glyphs.cage_loops`) as one matplotlib Path.

    Parameters
    ----------
    cells : array_like of int
        Canvas numbers ``r * cols + c`` of the cage.
    cols : int
        Columns of the canvas.
    inset : float
        Distance from the cells' border, in cells.

    Returns
    -------
    matplotlib.path.Path
        Vertices in data coordinates (x = column, y = row, downwards); each loop is a MOVETO,
        one LINETO per further corner and a CLOSEPOLY.

    Examples
    --------
    >>> path = cage_outline([0, 1, 9], cols=9, inset=0.1)       # r1c1, r1c2, r2c1: an L
    >>> path.vertices[:-1].round(2).tolist()
    [[0.1, 0.1], [1.9, 0.1], [1.9, 0.9], [0.9, 0.9], [0.9, 1.9], [0.1, 1.9]]
    """
    from matplotlib.path import Path

    vertices: list = []
    codes: list = []
    for points in cage_loops(cells, cols, inset):
        vertices += [*points.tolist(), points[0].tolist()]
        codes += [Path.MOVETO] + [Path.LINETO] * (len(points) - 1) + [Path.CLOSEPOLY]
    return Path(np.array(vertices, dtype=float), codes)


def picture_glyphs(puzzle: "Puzzle") -> list[Glyph]:
    """The glyphs ``draw`` paints here: every rule's, less the shades of rules that add units
    (``draw`` paints those with the variant's units, under everything).

    Parameters
    ----------
    puzzle : Puzzle

    Returns
    -------
    list of Glyph, each named by its rule's kind
    """
    return rule_glyphs(puzzle.rules, puzzle.board, unit_shades=False)


def rule_caption(puzzle: "Puzzle") -> str:
    """The caption under ``puzzle``'s picture (:func:`pipeline.core.glyphs.rule_caption`), or ``""``.

    Parameters
    ----------
    puzzle : Puzzle

    Returns
    -------
    str

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> rule_caption(parse_puzzle("0" * 81, rules=[{"rule": "antiknight"}, {"rule": "nonconsecutive"}]))
    'anti-knight · non-consecutive'
    """
    return caption_of_rules(puzzle.rules, puzzle.board)


def outside_colours(puzzle: "Puzzle") -> dict[str, tuple[str, str]]:
    """The colour and its word of each rule kind with clues outside ``puzzle``'s grid
    (:func:`pipeline.core.glyphs.outside_kind_colours` of its picture's glyphs).

    Parameters
    ----------
    puzzle : Puzzle

    Returns
    -------
    dict of str to (str, str)
    """
    return outside_kind_colours(picture_glyphs(puzzle))


def _centres(cells: Any, cols: int) -> np.ndarray:
    r, c = np.divmod(np.asarray(cells, dtype=np.int64), cols)
    return np.stack([c + 0.5, r + 0.5], axis=-1)


def _by_name(glyphs: list[Glyph]) -> dict[str, list[Glyph]]:
    out: dict[str, list[Glyph]] = {}
    for g in glyphs:
        out.setdefault(g.name, []).append(g)
    return out


def _cages(canvas: Any, cages: list[Glyph], font: float) -> None:
    from matplotlib.collections import PathCollection
    from matplotlib.colors import to_hex

    ax, cols = canvas.ax, canvas.cols
    width = max(0.5, min(1.1, canvas.cell_points / 32))
    plain = [g for g in cages if not g.colour]   # killer cages; coloured outlines (chaos distinct sets) apart, named
    for gid, group in [("cages", plain)] * bool(plain) + list(_by_name([g for g in cages if g.colour]).items()):
        ax.add_collection(PathCollection([cage_outline(list(g.cells), cols) for g in group], facecolors="none",
                                         edgecolors=[g.colour or CAGE_COLOUR for g in group], linewidths=width,
                                         linestyles=[(0, (3.2, 2.2))], zorder=2.5, gid=gid))
    for g, corner in zip(cages, cage_label_corners(cages)):
        if corner is None:
            continue
        first = min(g.cells)          # row-major: the top row's leftmost cell
        r, c = divmod(first, cols)
        right, low = corner % 2, corner // 2   # a second label in the cell: its top-right corner, ...
        ax.text(c + (0.95 if right else 0.05), r + (0.96 if low else 0.04), g.label, ha="right" if right else "left",
                va="bottom" if low else "top", fontsize=font, color=CAGE_COLOUR,
                zorder=2.8, gid="cage-sum", parse_math=False,
                bbox=dict(boxstyle="square,pad=0.12", facecolor=to_hex(canvas.background[first]), edgecolor="none"))


def _lines(canvas: Any, lines: list[Glyph]) -> None:
    from matplotlib.collections import LineCollection

    thermos = [g for g in lines if g.style == "thermo"]
    if thermos:
        canvas.ax.add_collection(LineCollection([_centres(g.cells, canvas.cols) for g in thermos],
                                                colors=[g.colour or THERMO_COLOUR for g in thermos],
                                                linewidths=0.3 * canvas.cell_points, capstyle="round",
                                                joinstyle="round", zorder=1.5, gid="thermo-lines"))
        canvas.circles(np.array([g.cells[0] for g in thermos]), 0.74, facecolors=[g.colour or THERMO_COLOUR for g in thermos],
                       edgecolors="none", zorder=1.5, gid="thermo-bulbs")
    for name, group in _by_name([g for g in lines if g.style == "line"]).items():
        canvas.ax.add_collection(LineCollection([_centres(g.cells, canvas.cols) for g in group],
                                                colors=[g.colour or LINE_COLOUR for g in group], alpha=0.8,
                                                linewidths=0.16 * canvas.cell_points, capstyle="round",
                                                joinstyle="round", zorder=1.6, gid=name))
    for name, group in _by_name([g for g in lines if g.style == "arrow"]).items():
        shafts, colours = [], []
        for g in group:
            shaft = _centres(g.cells, canvas.cols).astype(float)
            if len(shaft) > 1:
                first = shaft[1] - shaft[0]
                shaft[0] += first / np.linalg.norm(first) * 0.38
                last = (shaft[-1] - shaft[-2]) / np.linalg.norm(shaft[-1] - shaft[-2])
                side = np.array([-last[1], last[0]])
                shafts += [shaft, np.stack([shaft[-1] - 0.22 * last + 0.14 * side, shaft[-1],
                                            shaft[-1] - 0.22 * last - 0.14 * side])]
                colours += [g.colour or LINE_COLOUR] * 2
        canvas.ax.add_collection(LineCollection(shafts, colors=colours, linewidths=max(0.8, canvas.cell_points / 20),
                                                joinstyle="round", zorder=1.6, gid=name))
        canvas.circles(np.array([g.cells[0] for g in group]), 0.76, facecolors="none",
                       edgecolors=[g.colour or LINE_COLOUR for g in group], linewidths=max(0.8, canvas.cell_points / 20),
                       zorder=1.6, gid=f"{name}-circles")


def _dots(canvas: Any, dots: list[Glyph], font: float) -> None:
    from matplotlib.collections import LineCollection

    for name, group in _by_name(dots).items():
        chevrons = [g for g in group if g.style == "chevron"]
        if chevrons:
            ends = np.array([_centres(g.cells[:2], canvas.cols) for g in chevrons], dtype=float)
            toward = ends[:, 1] - ends[:, 0]
            toward /= np.linalg.norm(toward, axis=1, keepdims=True)       # towards the second (smaller) cell
            across = np.stack([-toward[:, 1], toward[:, 0]], axis=1)
            middle = ends.mean(axis=1)
            tip, back = middle + 0.09 * toward, middle - 0.09 * toward
            arms = np.stack([back + 0.13 * across, tip, back - 0.13 * across], axis=1)
            canvas.ax.add_collection(LineCollection(list(arms), colors="#000000",
                                                    linewidths=max(1.0, canvas.cell_points / 20), capstyle="round",
                                                    joinstyle="miter", zorder=3.6, gid=name))
        round_ = [g for g in group if g.style != "chevron"]
        if not round_:
            continue
        middle = np.array([_centres(g.cells, canvas.cols).mean(axis=0) for g in round_])
        black = np.array([g.colour == "black" for g in round_])
        size = np.array([0.22 if not g.label else 0.3 if len(g.label) <= 2 else 0.48 for g in round_])
        canvas.circles(middle, size, points=True, zorder=3.5, gid=name,
                       facecolors=np.where(black, "#000000", "#ffffff").tolist(), edgecolors="#000000",
                       linewidths=max(0.6, canvas.cell_points / 36))
        for (x, y), g, dark in zip(middle.tolist(), round_, black.tolist()):
            if g.label:
                canvas.ax.text(x, y, g.label, ha="center", va="center", fontsize=font * (1 if len(g.label) <= 2 else 0.65),
                               zorder=3.6, color="#ffffff" if dark else "#000000", parse_math=False)


def _marks(canvas: Any, marks: list[Glyph], font: float) -> None:
    spots = text_spots(marks)
    for name, group in _by_name(marks).items():
        for style in ("square", "circle"):
            shaped = [g for g in group if g.style == style]
            if not shaped:
                continue
            cells = np.concatenate([np.array(g.cells, dtype=np.int64) for g in shaped])
            colours = np.repeat([g.colour or PARITY_COLOUR for g in shaped], [len(g.cells) for g in shaped])
            if style == "square":
                layer = canvas.shade(cells, colours.tolist(), zorder=1.4, inset=0.15)
                layer.set_gid(name)
            else:
                canvas.circles(cells, 0.7, facecolors=colours.tolist(), edgecolors="none", zorder=1.4, gid=name)
        rings = [g for g in group if g.style == "ring"]
        if rings:
            cells = np.concatenate([np.array(g.cells, dtype=np.int64) for g in rings])
            edges = np.repeat([g.colour or RING_COLOUR for g in rings], [len(g.cells) for g in rings])
            canvas.circles(cells, 0.78, facecolors="none", edgecolors=edges.tolist(),
                           linewidths=max(0.8, canvas.cell_points / 28), zorder=1.4, gid=name)
        for g in group:
            if g.style == "text":
                for c, (x, y) in zip(g.cells, _centres(g.cells, canvas.cols).reshape(-1, 2).tolist()):
                    dx, scale = spots.get((id(g), c), (0.0, 1.0))   # marks sharing a cell: side by side
                    canvas.ax.text(x + dx, y + 0.3, g.label, ha="center", va="center", fontsize=font * scale,
                                   color=g.colour or "#555555", zorder=3.7, gid=name, parse_math=False)


def _outside(canvas: Any, clues: list[Glyph], font: float) -> None:
    from matplotlib.collections import LineCollection

    arrows = []
    shifts, scales, colours = outside_layout(clues, canvas.cols)
    for g, shift, scale, colour in zip(clues, shifts, scales, colours):
        step = np.array([g.step[1], g.step[0]], dtype=float)   # (dx, dy)
        spot = _centres(g.cells[:1], canvas.cols)[0] - step
        canvas.ax.text(spot[0], spot[1] + shift, g.label, ha="center", va="center", fontsize=font * scale,
                       color=colour, zorder=4, gid=g.name, parse_math=False)
        if g.step[0] and g.step[1]:   # a little killer: a short arrow along the diagonal
            unit = step / np.linalg.norm(step)
            tip, side = spot + 0.55 * unit, np.array([-unit[1], unit[0]])
            arrows += [np.stack([spot + 0.3 * unit, tip]),
                       np.stack([tip - 0.12 * unit + 0.08 * side, tip, tip - 0.12 * unit - 0.08 * side])]
    if arrows:
        canvas.ax.add_collection(LineCollection(arrows, colors="#000000", linewidths=max(0.8, canvas.cell_points / 30),
                                                zorder=4, gid="outside-arrows"))


def draw_glyphs(canvas: Any, glyphs: list[Glyph], small: float) -> None:
    """Paint ``glyphs`` on ``draw``'s canvas (its axes, ``cols``, ``cell_points``, ``background``
    and the ``shade``/``circles`` helpers), each kind at its depth: shades and marks under the
    lines, cages over the thin lines, dots and chevrons over the thick ones.

    Parameters
    ----------
    canvas : draw's _Canvas
        Where to paint.
    glyphs : list of Glyph
        :func:`picture_glyphs` of the puzzle.
    small : float
        Font size of cage sums (points); dot labels are a little smaller.
    """
    by_kind: dict[str, list[Glyph]] = {}
    for g in glyphs:
        by_kind.setdefault(g.kind, []).append(g)
    for name, group in _by_name(by_kind.get("shade", [])).items():
        cells = np.concatenate([np.array(g.cells, dtype=np.int64) for g in group])
        colours = np.repeat([g.colour or EXTRA_FILLS[0] for g in group], [len(g.cells) for g in group])
        layer = canvas.shade(cells, colours.tolist(), zorder=0.4)
        if layer is not None:
            layer.set_gid(name)
    if "line" in by_kind:
        _lines(canvas, by_kind["line"])
    _marks(canvas, by_kind.get("mark", []), small)
    if "cage" in by_kind:
        _cages(canvas, by_kind["cage"], small)
    _dots(canvas, by_kind.get("dot", []), small * 0.85)
    _outside(canvas, by_kind.get("outside", []), small * 1.6)
