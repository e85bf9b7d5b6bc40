"""The rules in notebook pictures: SVG for the glyphs rules declare (:mod:`pipeline.core.glyphs`).

Three layers of :data:`pipeline.core.svg.GRID_LAYERS` paint them, each one ``<g>``:

* ``rules-under`` (over region fills, under the cell lines): shades, thermometers, arrows and
  other lines, even squares and odd circles;
* ``cages`` (over the thin lines, under the thick borders): dashed outlines inset inside the
  cells, the sum in the top-left corner of the cage's first cell on a white halo;
* ``rules-over`` (over the borders): dots and greater-than chevrons on edges and corners, text
  marks, clues outside the grid (a little killer's with a diagonal arrow).

Every element carries ``class`` = its glyph kind and the rule's kind (``class="dot kropki"``), so
a picture's parts can be counted. Coordinates come from the scene (``scene.x``, ``scene.y``,
``scene.cell``), built with numpy; loops run over glyphs, not over cells.
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.glyphs import (CAGE_COLOUR, CAGE_INSET, EXTRA_FILLS, LINE_COLOUR, PARITY_COLOUR, RING_COLOUR,
                                  THERMO_COLOUR, Glyph, cage_label_corners, cage_loops, outside_layout, text_spots,
                                  touching_colours)

if TYPE_CHECKING:   # annotations only: svg imports this module
    from pipeline.core.svg import GridScene

__all__ = ["cage_layer", "rules_over", "rules_under"]


def _n(value: float) -> str:
    """A coordinate as short text."""
    return f"{round(float(value), 2):g}"


def _points(points: np.ndarray) -> str:
    """``x,y x,y ...`` of an ``(k, 2)`` array."""
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in np.asarray(points).tolist())


def _centres(scene: "GridScene", cells) -> np.ndarray:
    """``(k, 2)`` pixel centres of canvas cells."""
    r, c = np.divmod(np.asarray(cells, dtype=np.int64), scene.puzzle.cols)
    return np.stack([scene.x(c + 0.5), scene.y(r + 0.5)], axis=-1).reshape(-1, 2)


def _class(glyph: Glyph, extra: str = "") -> str:
    names = " ".join(part for part in (extra or glyph.kind, glyph.name) if part)
    return html.escape(names, quote=True)


def _of(scene: "GridScene", *kinds: str) -> list[Glyph]:
    return [g for g in scene.glyphs if g.kind in kinds]


def _group(name: str, body: list[str], attributes: str = "") -> str:
    return f'<g class="{name}"{attributes}>{"".join(body)}</g>' if body else ""


# -- under the lines: shades, lines, shaped marks ------------------------------------------------
def _shades(scene: "GridScene") -> list[str]:
    shades = _of(scene, "shade")
    out = []
    regions = [g for g in shades if g.style == "regions"]
    tints: "np.ndarray | list[int]" = touching_colours([np.array(g.cells) for g in regions], scene.puzzle.rows * scene.puzzle.cols,
                             scene.puzzle.cols, len(EXTRA_FILLS)) if regions else []
    fills = iter(tints)
    for g in shades:
        colour = EXTRA_FILLS[int(next(fills))] if g.style == "regions" else (g.colour or PARITY_COLOUR)
        r, c = np.divmod(np.array(g.cells, dtype=np.int64), scene.puzzle.cols)
        side = _n(scene.cell)
        d = "".join(f"M{_n(x)} {_n(y)}h{side}v{side}h-{side}z" for x, y in zip(scene.x(c).tolist(), scene.y(r).tolist()))
        out.append(f'<path class="{_class(g)}" fill="{html.escape(colour)}" d="{d}"/>')
    return out


def _lines(scene: "GridScene") -> list[str]:
    cell, out = scene.cell, list[str]()
    for g in _of(scene, "line"):
        centres = _centres(scene, g.cells)
        if g.style == "thermo":
            colour = g.colour or THERMO_COLOUR
            out.append(f'<polyline class="{_class(g, "thermo-line")}" points="{_points(centres)}" fill="none" '
                       f'stroke="{colour}" stroke-width="{_n(0.3 * cell)}" stroke-linecap="round" '
                       f'stroke-linejoin="round"/>')
            out.append(f'<circle class="{_class(g, "thermo-bulb")}" cx="{_n(centres[0, 0])}" cy="{_n(centres[0, 1])}" '
                       f'r="{_n(0.37 * cell)}" fill="{colour}"/>')
        elif g.style == "arrow":
            colour = g.colour or LINE_COLOUR
            radius = 0.38 * cell
            shaft = centres.copy()
            if len(shaft) > 1:   # the shaft starts on the circle
                first = shaft[1] - shaft[0]
                shaft[0] = shaft[0] + first / np.linalg.norm(first) * radius
                last = shaft[-1] - shaft[-2]
                last /= np.linalg.norm(last)
                side = np.array([-last[1], last[0]])
                tip = shaft[-1]
                head = np.stack([tip - 0.22 * cell * last + 0.14 * cell * side, tip,
                                 tip - 0.22 * cell * last - 0.14 * cell * side])
                out.append(f'<polyline class="{_class(g, "arrow-line")}" points="{_points(shaft)}" fill="none" '
                           f'stroke="{colour}" stroke-width="{_n(0.05 * cell)}" stroke-linejoin="round"/>'
                           f'<polyline class="{_class(g, "arrow-head")}" points="{_points(head)}" fill="none" '
                           f'stroke="{colour}" stroke-width="{_n(0.05 * cell)}" stroke-linejoin="round"/>')
            out.append(f'<circle class="{_class(g, "arrow-circle")}" cx="{_n(centres[0, 0])}" cy="{_n(centres[0, 1])}" '
                       f'r="{_n(radius)}" fill="none" stroke="{colour}" stroke-width="{_n(0.05 * cell)}"/>')
        else:
            out.append(f'<polyline class="{_class(g)}" points="{_points(centres)}" fill="none" '
                       f'stroke="{html.escape(g.colour or LINE_COLOUR)}" stroke-width="{_n(0.16 * cell)}" '
                       f'stroke-opacity="0.8" stroke-linecap="round" stroke-linejoin="round"/>')
    return out


def _shaped_marks(scene: "GridScene") -> list[str]:
    cell, out = scene.cell, list[str]()
    for g in _of(scene, "mark"):
        if g.style == "text":
            continue
        colour = html.escape(g.colour or PARITY_COLOUR)
        centres = _centres(scene, g.cells)
        if g.style == "square":
            d = "".join(f"M{_n(x - 0.35 * cell)} {_n(y - 0.35 * cell)}h{_n(0.7 * cell)}v{_n(0.7 * cell)}"
                        f"h{_n(-0.7 * cell)}z" for x, y in centres.tolist())
            out.append(f'<path class="{_class(g)}" fill="{colour}" d="{d}"/>')
        elif g.style == "ring":
            stroke = html.escape(g.colour or RING_COLOUR)
            out.extend(f'<circle class="{_class(g)}" cx="{_n(x)}" cy="{_n(y)}" r="{_n(0.39 * cell)}" fill="none" '
                       f'stroke="{stroke}" stroke-width="{_n(max(0.8, cell / 28))}"/>' for x, y in centres.tolist())
        else:
            out.extend(f'<circle class="{_class(g)}" cx="{_n(x)}" cy="{_n(y)}" r="{_n(0.35 * cell)}" fill="{colour}"/>'
                       for x, y in centres.tolist())
    return out


def rules_under(scene: "GridScene") -> str:
    """Shades, lines and shaped marks: one ``<g class="rules-under">``, "" without any."""
    return _group("rules-under", _shades(scene) + _lines(scene) + _shaped_marks(scene))


# -- cages ---------------------------------------------------------------------------------------
def cage_layer(scene: "GridScene") -> str:
    """Killer cages: one dashed ``<path class="cage ...">`` per cage (a loop per piece or hole,
    in the glyph's colour when it has one) and one ``<text class="cage-sum">`` per labelled cage; "" without cages."""
    cages = _of(scene, "cage")
    if not cages:
        return ""
    cell, cols = scene.cell, scene.puzzle.cols
    paths, sums = [], []
    font = 0.26 * cell if scene.n <= 9 else 0.22 * cell
    for g, corner in zip(cages, cage_label_corners(cages)):
        d = "".join("M" + "L".join(f"{_n(scene.x(x))} {_n(scene.y(y))}" for x, y in loop.tolist()) + "Z"
                    for loop in cage_loops(list(g.cells), cols, CAGE_INSET))
        stroke = f' stroke="{html.escape(g.colour)}"' if g.colour else ""   # a chaos distinct-region set's violet
        paths.append(f'<path class="{_class(g)}"{stroke} d="{d}"/>')
        if corner is not None:   # a second label in the cell: its top-right corner, ...
            r, c = divmod(min(g.cells), cols)
            x = scene.x(c + 1) - 0.05 * cell if corner % 2 else scene.x(c) + 0.05 * cell
            y = scene.y(r + 1) - 0.08 * cell if corner // 2 else scene.y(r) + 0.05 * cell + 0.8 * font
            anchor = ' text-anchor="end"' if corner % 2 else ""
            sums.append(f'<text class="cage-sum" x="{_n(x)}" y="{_n(y)}"{anchor}>{html.escape(g.label)}</text>')
    dash = f"{_n(max(1.5, 0.09 * cell))} {_n(max(1.0, 0.06 * cell))}"
    return (f'<g class="cages"><g fill="none" stroke="{CAGE_COLOUR}" stroke-width="{_n(max(0.6, cell / 36))}" '
            f'stroke-dasharray="{dash}">{"".join(paths)}</g>'
            f'<g fill="{CAGE_COLOUR}" font-size="{_n(font)}" font-family="sans-serif" stroke="#ffffff" '
            f'stroke-width="{_n(0.12 * cell)}" paint-order="stroke" stroke-linejoin="round">{"".join(sums)}</g></g>')


# -- over the borders: dots, chevrons, text marks, outside clues ---------------------------------
def _dots(scene: "GridScene") -> list[str]:
    cell, out = scene.cell, list[str]()
    for g in _of(scene, "dot"):
        centres = _centres(scene, g.cells)
        x, y = centres.mean(axis=0)
        if g.style == "chevron":   # pointing at the second cell
            toward = centres[1] - centres[0]
            toward /= np.linalg.norm(toward)
            across = np.array([-toward[1], toward[0]])
            middle = np.array([x, y])
            tip, back = middle + 0.09 * cell * toward, middle - 0.09 * cell * toward
            arms = np.stack([back + 0.13 * cell * across, tip, back - 0.13 * cell * across])
            out.append(f'<polyline class="{_class(g, "chevron")}" points="{_points(arms)}" fill="none" '
                       f'stroke="#000000" stroke-width="{_n(max(1.0, cell / 20))}" stroke-linecap="round"/>')
            continue
        black = g.colour == "black"
        radius = (0.11 if not g.label else 0.15 if len(g.label) <= 2 else 0.24) * cell
        out.append(f'<circle class="{_class(g)}" cx="{_n(x)}" cy="{_n(y)}" r="{_n(radius)}" '
                   f'fill="{"#000000" if black else "#ffffff"}" stroke="#000000" stroke-width="{_n(max(0.6, cell / 36))}"/>')
        if g.label:   # a quadruple's digits may stand in two rows
            lines = g.label.split("\n")
            size = (0.2 if len(g.label) <= 2 else 0.16 if max(map(len, lines)) <= 3 else 0.13) * cell
            top = y + 0.35 * size - 0.55 * size * (len(lines) - 1)
            out.extend(f'<text class="{_class(g, "dot-label")}" x="{_n(x)}" y="{_n(top + 1.1 * size * k)}" '
                       f'font-size="{_n(size)}" fill="{"#ffffff" if black else "#000000"}">{html.escape(line)}</text>'
                       for k, line in enumerate(lines))
    return out


def _text_marks(scene: "GridScene") -> list[str]:
    cell, out = scene.cell, list[str]()
    spots = text_spots(_of(scene, "mark"))   # marks sharing a cell stand side by side
    for g in _of(scene, "mark"):
        if g.style != "text":
            continue
        for c, (x, y) in zip(g.cells, _centres(scene, g.cells).tolist()):
            dx, scale = spots.get((id(g), c), (0.0, 1.0))
            out.append(f'<text class="{_class(g)}" x="{_n(x + dx * cell)}" y="{_n(y + 0.35 * cell)}" '
                       f'font-size="{_n(0.22 * cell * scale)}" '
                       f'fill="{html.escape(g.colour or "#555555")}">{html.escape(g.label)}</text>')
    return out


def _outside(scene: "GridScene") -> list[str]:
    cell, out = scene.cell, list[str]()
    clues = _of(scene, "outside")
    shifts, scales, colours = outside_layout(clues, scene.puzzle.board.cols)   # side by side where they share a place
    for g, shift, scale, colour in zip(clues, shifts, scales, colours):
        step = np.array([g.step[1], g.step[0]], dtype=float)   # (dx, dy)
        inner = _centres(scene, g.cells[:1])[0]
        spot = inner - step * cell
        shown = spot + np.array([0.0, shift * cell])
        size = 0.4 * cell * scale
        out.append(f'<text class="{_class(g)}" x="{_n(shown[0])}" y="{_n(shown[1] + 0.35 * size)}" '
                   f'font-size="{_n(size)}" fill="{colour}">{html.escape(g.label)}</text>')
        if g.step[0] and g.step[1]:   # a little killer: a short arrow along the diagonal
            unit = step / np.linalg.norm(step)
            start, tip = spot + 0.3 * cell * unit, spot + 0.55 * cell * unit
            side = np.array([-unit[1], unit[0]])
            head = np.stack([tip - 0.12 * cell * unit + 0.08 * cell * side, tip,
                             tip - 0.12 * cell * unit - 0.08 * cell * side])
            out.append(f'<path class="{_class(g, "outside-arrow")}" fill="none" stroke="#000000" '
                       f'stroke-width="{_n(max(0.8, cell / 30))}" d="M{_points(start[None])}L{_points(tip[None])}'
                       f'M{_points(head).replace(" ", "L")}"/>')
    return out


def rules_over(scene: "GridScene") -> str:
    """Dots, chevrons, text marks and outside clues: one ``<g class="rules-over">``, "" without any."""
    return _group("rules-over", _dots(scene) + _text_marks(scene) + _outside(scene),
                  ' text-anchor="middle" font-family="sans-serif"')
