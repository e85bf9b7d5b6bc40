"""How rules look: a neutral drawing description that every renderer reads.

A rule says what it looks like with :meth:`Rule.glyphs(board) <pipeline.core.rules.base.Rule.glyphs>`,
a list of :class:`Glyph`; the notebook SVG (:mod:`pipeline.core.svg`) and ``draw`` (matplotlib,
:mod:`pipeline.tools.draw_rules`) both draw from it, so a rule that declares glyphs shows in both.
Cells are canvas numbers ``r * cols + c`` (0-based), as everywhere in the rules. The kinds:

``cage``
    A dashed outline inset inside ``cells``; ``label`` (a sum) in the top-left corner of the
    cage's first cell in row-major order; ``colour`` the outline's, when not the killer cages'
    (a chaos construction's distinct-region sets).
``line``
    A path through the centres of ``cells`` in order. ``style``: ``thermo`` (grey bulb on the
    first cell, thick grey line), ``arrow`` (circle on the first cell, thin line, arrowhead at
    the last), ``line`` (a plain line in ``colour``, e.g. German whispers green, renban purple).
``dot``
    A dot at the mean of the cells' centres: two orthogonal neighbours put it on their shared
    edge, a 2x2 block on its middle corner. ``colour`` ``black`` or ``white`` (hollow); ``label``
    written in it (``X``, ``V``, a ratio, a quadruple's digits). ``style`` ``chevron``: a
    greater-than sign pointing at the second cell instead of a dot.
``mark``
    Something in each of ``cells``: ``style`` ``square``, ``circle`` (grey unless ``colour``),
    ``ring`` (a hollow circle, dark unless ``colour``: counting circles, a pair's cells, apart
    from odd cells' grey discs) or ``text`` (``label`` small in the cell).
``outside``
    A clue beside the grid: ``cells`` holds one cell on the edge and ``step`` the ``(dr, dc)``
    direction into the grid; ``label`` sits one step outside that cell. A diagonal step adds a
    small arrow (a little killer). Renderers leave a margin when a puzzle has one.
``shade``
    ``cells`` filled with ``colour``; ``style`` ``regions`` instead colours each shade so touching
    ones differ (extra regions).

``name`` is the kind of the rule that made the glyph (filled in by :func:`rule_glyphs`): renderers
use it as the element's class (SVG) or gid (matplotlib).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:   # annotations only: the rules import this module
    from pipeline.core.rules.base import Board, Rule

__all__ = ["GLYPH_KINDS", "Glyph", "cage_loops", "numbered", "rule_glyphs", "rule_numbers", "rule_titles", "touching_colours",
           "CAGE_COLOUR", "CAGE_INSET", "THERMO_COLOUR", "PARITY_COLOUR", "WINDOW_FILL", "EXTRA_FILLS",
           "LINE_COLOUR", "RING_COLOUR", "CHAOS_COLOUR", "CHAOS_FILL", "CHAOS_SAME_COLOUR", "CHAOS_DISTINCT_COLOUR",
           "OUTSIDE_COLOURS", "DIAGONAL_SHADE", "outside_kind_colours", "outside_layout",
           "rule_caption", "text_spots", "cage_label_corners"]

#: Every kind of glyph, with the styles each takes ("" = the default).
GLYPH_KINDS = {"cage": ("",), "line": ("thermo", "arrow", "line"), "dot": ("", "chevron"),
               "mark": ("square", "circle", "ring", "text"), "outside": ("",), "shade": ("", "regions")}

# colours both renderers use (the notebook SVG and draw)
CAGE_COLOUR = "#222222"
CAGE_INSET = 0.09                     # cage outlines run this far (in cells) inside the cage's border
THERMO_COLOUR = "#c2c2c2"
PARITY_COLOUR = "#dddddd"             # even squares, odd circles
WINDOW_FILL = "#dde8f5"               # windoku windows: a pale blue, so grey thermometers stay visible
EXTRA_FILLS = ("#cfe8cf", "#d3e0f5", "#f5e0c4", "#e8d4ee")   # extra regions: touching ones differ
LINE_COLOUR = "#7a7a7a"               # a line glyph without a colour (and arrows)
RING_COLOUR = "#444444"               # ring marks: hollow circles
CHAOS_COLOUR = "#d95f02"              # a chaos construction's region clues (arrows, counted cells)
CHAOS_FILL = "#fbd3ad"                # ... and the cells whose digit they give
CHAOS_SAME_COLOUR = "#1b9e77"         # ... its same-region sets (a teal: the orange's Dark2 partner)
CHAOS_DISTINCT_COLOUR = "#7570b3"     # ... its distinct-region counts (a violet: apart from renban's purple)
#: Colours of outside clues when a picture has clues of several kinds outside its grid, with the
#: word a caption names each by (one kind alone stays black).
OUTSIDE_COLOURS = (("#000000", "black"), ("#1f5fbf", "blue"), ("#b2182b", "red"), ("#1b7837", "green"),
                   ("#762a83", "purple"), ("#8c510a", "brown"))
DIAGONAL_SHADE = "#00000014"          # black at 8 % opacity (Sudoku-X diagonals)


@dataclass(frozen=True)
class Glyph:
    """One thing a rule draws (see the module's docstring for the kinds).

    Parameters
    ----------
    kind : str
        ``cage``, ``line``, ``dot``, ``mark``, ``outside`` or ``shade``.
    cells : tuple of int
        Canvas numbers, in the order the kind reads them.
    style : str
        A style of the kind (:data:`GLYPH_KINDS`).
    label : str
        Text: a cage's sum, a dot's letter, an outside clue.
    colour : str
        A colour (``#rrggbb``, or ``black``/``white`` for dots); "" = the kind's default.
    step : (int, int)
        ``outside`` only: the direction into the grid.
    name : str
        The rule's kind (filled in by :func:`rule_glyphs`).

    Examples
    --------
    >>> Glyph("dot", (0, 1), colour="white", label="V").label
    'V'
    """

    kind: str
    cells: tuple[int, ...]
    style: str = ""
    label: str = ""
    colour: str = ""
    step: tuple[int, int] = (0, 0)
    name: str = ""

    def __post_init__(self) -> None:
        styles = GLYPH_KINDS.get(self.kind)
        if styles is None or self.style not in styles:
            raise ValueError(f"glyph {self.kind!r} style {self.style!r}: expected one of {GLYPH_KINDS}")
        object.__setattr__(self, "cells", tuple(int(c) for c in self.cells))


def touching_colours(units: list | np.ndarray, n_cells: int, cols: int, n_colours: int) -> np.ndarray:
    """A colour index (``0..n_colours-1``) per area, areas that touch or overlap differing.

    Greedy in the areas' order: each takes the lowest colour none of its already coloured
    neighbours has (when all are taken, colours repeat). Jigsaw regions and extra regions are
    coloured with it (colouring by number once gave neighbours one colour).

    Parameters
    ----------
    units : sequence of array of int
        Each area's row-major cell numbers.
    n_cells : int
        Cells of the grid (or canvas).
    cols : int
        Its width: cells ``k`` and ``k + 1`` touch unless ``k + 1`` starts a row.
    n_colours : int
        The palette's length.

    Returns
    -------
    ndarray of int

    Examples
    --------
    >>> touching_colours([[0, 1], [2, 3], [4, 5]], 6, 2, 4).tolist()   # three bands, each touching the next
    [0, 1, 0]
    """
    count = len(units)
    member = np.zeros((count, n_cells), dtype=np.float32)
    sizes = [len(u) for u in units]
    if count:
        member[np.repeat(np.arange(count), sizes), np.concatenate([np.asarray(u, dtype=np.int64) for u in units])] = 1
    grown = member.copy()   # each area and its orthogonal neighbours
    column = np.arange(n_cells) % cols
    grown[:, 1:] += member[:, :-1] * (column[1:] != 0)
    grown[:, :-1] += member[:, 1:] * (column[1:] != 0)
    grown[:, cols:] += member[:, :-cols]
    grown[:, :-cols] += member[:, cols:]
    touching = (grown @ member.T) > 0
    colour = np.full(count, -1, dtype=np.int64)
    for area in range(count):   # one step per area, not per cell
        taken = np.zeros(n_colours, dtype=bool)
        taken[colour[touching[area] & (colour >= 0)]] = True
        colour[area] = int(np.argmin(taken)) if not taken.all() else area % n_colours
    return colour


def rule_glyphs(rules: "list[Rule] | tuple[Rule, ...]", board: "Board", *,
                unit_shades: bool = True) -> list[Glyph]:
    """Every glyph of ``rules`` in rule order, each named by its rule's kind.

    Parameters
    ----------
    rules : sequence of Rule
        A puzzle's rules.
    board : Board
        The puzzle's board.
    unit_shades : bool
        Keep the shades of rules that add units (``draw`` paints those with the variant's
        units, under everything, and asks for them left out).

    Returns
    -------
    list of Glyph
    """
    out: list[Glyph] = []
    numbers = rule_numbers(rules)
    size = board.rows * board.cols
    for rule in rules:
        units = not unit_shades and bool(rule.units(board))
        for g in rule.glyphs(board):
            # an ISS variable's extra cells (numbered from rows * cols) have no place on the
            # canvas: a line through one was drawn down into the caption
            cells = tuple(c for c in g.cells if c < size)
            if cells and not (units and g.kind == "shade"):
                g = g if len(cells) == len(g.cells) else replace(g, cells=cells)
                out.append(numbered(g if g.name else replace(g, name=rule.kind), numbers.get(id(rule))))
    return out


def rule_numbers(rules: "list[Rule] | tuple[Rule, ...]") -> dict[int, int]:
    """``{id(rule): k}``, the 1-based number of each rule of a kind whose glyphs alike would not
    say which go together (:attr:`Rule.numbered_glyphs`: two same-values rules draw four "="
    cages), when the puzzle has two or more of that kind that differ (:meth:`Rule.number_key`:
    automaton lines of one name share a number); other rules are left out, and so are rules
    whose key is None (their glyphs say all: a contain-exactly cage with its values on it).

    Parameters
    ----------
    rules : sequence of Rule
        A puzzle's rules.

    Returns
    -------
    dict
    """
    by_kind: dict[str, list] = {}
    for rule in rules:
        if getattr(rule, "numbered_glyphs", False) and rule.number_key() is not None:
            by_kind.setdefault(rule.kind, []).append(rule)
    out: dict[int, int] = {}
    for group in by_kind.values():   # rules of equal :meth:`Rule.number_key` share a number
        keys = list(dict.fromkeys(rule.number_key() for rule in group))
        if len(keys) > 1:
            out.update({id(rule): keys.index(rule.number_key()) + 1 for rule in group})
    return out


def numbered(glyph: Glyph, number: int | None) -> Glyph:
    """``glyph`` with its rule's number after its label (``=2``), or as it is without a number.

    Parameters
    ----------
    glyph : Glyph
        One glyph of a rule.
    number : int, optional
        The rule's number (:func:`rule_numbers`), or None.

    Returns
    -------
    Glyph
    """
    return glyph if number is None else replace(glyph, label=f"{glyph.label}{number}")


def rule_titles(rules: "list[Rule] | tuple[Rule, ...]") -> list[str]:
    """How a picture's title names the rules, one phrase per kind in rule order
    (``29 killer cages``, ``anti-knight``): each kind's :meth:`Rule.title`.

    Parameters
    ----------
    rules : sequence of Rule
        A puzzle's rules.

    Returns
    -------
    list of str
    """
    by_kind: dict[str, list] = {}
    for rule in rules:
        by_kind.setdefault(rule.kind, []).append(rule)
    return [type(group[0]).title(group) for group in by_kind.values()]


def cage_loops(cells: "np.ndarray | list[int]", cols: int, inset: float = CAGE_INSET) -> list[np.ndarray]:
    """The outline of a cage: its border, ``inset`` cells inside, as closed loops of corners.

    The cage's boundary edges are chained into closed loops (at a corner where the cage touches
    itself diagonally the loop turns to hug the cell it came along, so each loop is simple),
    straight runs are merged, and each corner moves ``inset`` into the cage along both of its
    edges' inward normals (a convex corner moves inwards, a concave one outwards: the classic
    killer outline). A cage with a hole or in pieces has several loops.

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
    list of ndarray
        Each loop's ``(k, 2)`` corners ``(x, y)`` in cells (x = column, y = row, downwards),
        clockwise on the screen, the first corner not repeated.

    Examples
    --------
    >>> [loop.round(2).tolist() for loop in cage_loops([0, 1, 9], cols=9, inset=0.1)]   # an L
    [[[0.1, 0.1], [1.9, 0.1], [1.9, 0.9], [0.9, 0.9], [0.9, 1.9], [0.1, 1.9]]]
    """
    cells = np.unique(np.asarray(cells, dtype=np.int64))
    r, c = np.divmod(cells, cols)
    # the four sides of a cell, clockwise on the screen: start corner, end corner, neighbour (dr, dc)
    start = np.array([(0, 0), (1, 0), (1, 1), (0, 1)])
    end = np.array([(1, 0), (1, 1), (0, 1), (0, 0)])
    step = np.array([(-1, 0), (0, 1), (1, 0), (0, -1)])
    nr, nc = r[:, None] + step[:, 0], c[:, None] + step[:, 1]
    inside = (nc >= 0) & (nc < cols) & (nr >= 0) & np.isin(nr * cols + nc, cells)
    cell, side = np.nonzero(~inside)                       # the boundary edges, cell by cell
    origin = np.stack([c[cell], r[cell]], axis=1)
    tail, head = origin + start[side], origin + end[side]  # (x, y) of each edge, clockwise on screen
    direction = head - tail
    normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)   # into the cage
    # the edge after each edge: among those leaving its head, the sharpest right turn
    leaving: dict[tuple[int, int], list[int]] = {}
    for k, point in enumerate(map(tuple, tail.tolist())):
        leaving.setdefault(point, []).append(k)
    following = np.empty(len(tail), dtype=np.int64)
    for k, point in enumerate(map(tuple, head.tolist())):
        options = leaving[point]
        turn = [direction[k, 0] * direction[j, 1] - direction[k, 1] * direction[j, 0] for j in options]
        following[k] = options[int(np.argmax(turn))]
    loops = []
    done = np.zeros(len(tail), dtype=bool)
    for first in range(len(tail)):
        if done[first]:
            continue
        walk, k = [], first
        while not done[k]:
            done[k] = True
            walk.append(k)
            k = following[k]
        loop = np.array(walk)
        before = np.roll(loop, 1)
        corner = (direction[loop] != direction[before]).any(axis=1)
        points = tail[loop] + inset * (normal[loop] + normal[before])
        loops.append(points[corner].astype(float))
    return loops


def outside_kind_colours(glyphs: list[Glyph]) -> dict[str, tuple[str, str]]:
    """The colour and its word of each rule kind with ``outside`` glyphs among ``glyphs``, in
    order: black for all when one kind has them (sandwich sums, X-sums, skyscrapers and little
    killers are alike bare numbers on the edge).

    Parameters
    ----------
    glyphs : list of Glyph
        A picture's glyphs, named by their rules' kinds.

    Returns
    -------
    dict of str to (str, str)
    """
    kinds = list(dict.fromkeys(g.name for g in glyphs if g.kind == "outside"))
    return {kind: OUTSIDE_COLOURS[i % len(OUTSIDE_COLOURS)] for i, kind in enumerate(kinds)}


def rule_caption(rules: "list[Rule] | tuple[Rule, ...]", board: "Board") -> str:
    """A picture's caption, or ``""``: the rules it cannot show on cells (those without glyphs:
    anti-knight, non-consecutive, disjoint groups), then which colour is which kind of outside
    clue when clues of several kinds stand beside the grid. ``draw`` and the notebook SVG both
    print it under the grid.

    Parameters
    ----------
    rules : sequence of Rule
        A puzzle's rules.
    board : Board
        The puzzle's board.

    Returns
    -------
    str

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> p = parse_puzzle("0" * 81, rules=[{"rule": "antiknight"}, {"rule": "nonconsecutive"}])
    >>> rule_caption(p.rules, p.board)
    'anti-knight · non-consecutive'
    """
    words: list[str] = []
    own = {id(rule): rule.glyphs(board) for rule in rules}
    # what else each rule asks, said after its name or its label: asked once (a chaos
    # construction's lists its region clues), though the two loops below each look at it
    legends = {id(rule): rule.legend(board) for rule in rules}
    for rule in rules:
        if not own[id(rule)] or rule.caption_named:   # a global rule's title may say more (strict Kropki's colour)
            word = type(rule).title([rule]) if rule.global_rule else type(rule).noun or rule.kind
            legend = legends[id(rule)]
            word = f"{word} ({legend})" if legend else word
            if word not in words:
                words.append(word)
    size = board.rows * board.cols
    only: "dict[type[Rule], list[Rule]]" = {}
    partly: "dict[type[Rule], list[Rule]]" = {}
    for rule in rules:   # extra cells (ISS Var) have no place on the canvas: say what that leaves out
        cells = [c for g in own[id(rule)] for c in g.cells]
        if any(c >= size for c in cells):
            (partly if any(c < size for c in cells) else only).setdefault(type(rule), []).append(rule)
    if only:
        words.append("not drawn, on extra cells only: " + ", ".join(k.title(v) for k, v in only.items()))
    if partly:
        words.append("drawn without their extra cells: " + ", ".join(k.title(v) for k, v in partly.items()))
    glyphs = rule_glyphs(rules, board)
    numbers = rule_numbers(rules)
    for rule in rules:   # what a rule's glyphs cannot show, after its label (a pairwise rule's pairs)
        legend = legends[id(rule)]
        if legend and own[id(rule)] and not rule.caption_named:   # a rule without glyphs said it after its name, above
            label = next((g.label for g in own[id(rule)] if g.label), type(rule).noun or rule.kind)
            number = numbers.get(id(rule))
            word = f"{label}{'' if number is None else number}: {legend}"
            if word not in words:   # alike rules (equality cages) say it once
                words.append(word)
    keyed = outside_kind_colours(glyphs)
    if len(keyed) > 1:   # clues of several kinds outside the grid: which number is which
        nouns = {rule.kind: type(rule).noun or rule.kind for rule in rules}
        words += [f"{nouns.get(kind, kind)}s in {word}" for kind, (_, word) in keyed.items()]
    return " · ".join(words)


def cage_label_corners(cages: list[Glyph]) -> list[int | None]:
    """The corner of its first cell (row-major) each cage's label takes: 0 top-left (the one
    place when a cell holds one label), 1 top-right, 2 bottom-left, 3 bottom-right, in drawing
    order; None for a cage without a label or with the label another cage already wrote in that
    cell (ISS '250!': a row's, a column's and a box's ``\u2261`` at r1c1 are written once). Two labels
    at one corner were printed over each other (``\u2261`` on a sum cage's ``\u03a314`` read "\u226114").

    Parameters
    ----------
    cages : list of Glyph
        The ``cage`` glyphs, in drawing order.

    Returns
    -------
    list of int or None

    Examples
    --------
    >>> a, b = Glyph("cage", (36, 37), label="\u2261"), Glyph("cage", (36, 45), label="\u03a314")
    >>> cage_label_corners([a, a, b, Glyph("cage", (0, 1))])
    [0, None, 1, None]
    """
    written: dict[int, list[str]] = {}
    out: list[int | None] = []
    for g in cages:
        here = written.setdefault(min(g.cells), []) if g.label else None
        if here is None or g.label in here:
            out.append(None)
            continue
        out.append(len(here) % 4)   # past four labels in one cell they overlap again (none seen)
        here.append(g.label)
    return out


def text_spots(marks: list[Glyph]) -> dict[tuple[int, int], tuple[float, float]]:
    """Where each text mark's label stands in its cell when several share the cell (either/or
    branches giving a cell two digits, a whisper's difference on a sum line's first cell): side
    by side instead of on top of each other.

    Parameters
    ----------
    marks : list of Glyph
        Every glyph of a picture (only ``mark``/``text`` ones count), in drawing order.

    Returns
    -------
    dict
        ``{(id(glyph), cell): (dx, scale)}`` for the text marks of cells that hold more than one:
        the shift right from the cell's centre, in cells, and the font scale.

    Examples
    --------
    >>> a = Glyph("mark", (0,), style="text", label="1")
    >>> b = Glyph("mark", (0, 1), style="text", label="2")
    >>> sorted(text_spots([a, b]).values())
    [(-0.22, 1.0), (0.22, 1.0)]
    """
    texts = [g for g in marks if g.kind == "mark" and g.style == "text"]
    by_cell: dict[int, list[Glyph]] = {}
    for g in texts:
        for c in dict.fromkeys(g.cells):
            by_cell.setdefault(c, []).append(g)
    out: dict[tuple[int, int], tuple[float, float]] = {}
    for c, here in by_cell.items():
        n = len(here)
        if n > 1:
            width = 0.88 / n
            scale = min(1.0, round(width / (0.15 * max(len(g.label) for g in here)), 4))   # a character: ~0.15 cell
            for k, g in enumerate(here):
                out[(id(g), c)] = (round((k - (n - 1) / 2) * width, 4), scale)
    return out


def outside_layout(clues: list[Glyph], cols: int) -> tuple[list[float], list[float], list[str]]:
    """Where each outside clue of ``clues`` stands at its place and how large, and its colour:
    clues of several rules at one place (a sandwich sum and an X-sum on one row end, a little
    killer's diagonal clue below a column's sandwich sum) stand one above the other, smaller,
    instead of over each other (side by side, numbers above a column ran together: "4535").

    Parameters
    ----------
    clues : list of Glyph
        The ``outside`` glyphs, in drawing order.
    cols : int
        The canvas's columns (a glyph's cells are ``r * cols + c``): the place is the first cell
        one ``step`` back, whichever direction the clue looks in.

    Returns
    -------
    (shifts, scales, colours)
        Per clue: the shift downwards in cells, the font scale, the colour.

    Examples
    --------
    >>> a = Glyph("outside", (8,), label="19", step=(0, -1), name="sandwich")
    >>> b = Glyph("outside", (8,), label="6", step=(0, -1), name="xsum")
    >>> outside_layout([a, b], 9)
    ([-0.225, 0.225], [0.8, 0.8], ['#000000', '#1f5fbf'])
    >>> outside_layout([Glyph("outside", (0,), label="#10", step=(1, 0), name="fullrank")], 4)[1]   # three characters
    [0.6667]
    """
    colour = outside_kind_colours(clues)
    keys = [(g.cells[0] // cols - g.step[0], g.cells[0] % cols - g.step[1]) for g in clues]
    places: dict[tuple, list[int]] = {}
    for k, key in enumerate(keys):
        places.setdefault(key, []).append(k)
    shifts, scales = [], []
    for k, key in enumerate(keys):
        many, at = len(places[key]), places[key].index(k)
        shifts.append((at - (many - 1) / 2) * (0.9 / many))
        # a label of three or more characters is wider than its cell: smaller, so neighbours'
        # labels keep apart (full-rank clues over two columns of a 4x4 read "#10#15")
        scales.append(round(min(1.0, 1.6 / many, 2.0 / max(2, len(clues[k].label))), 4))
    return shifts, scales, [colour[g.name][0] for g in clues]
