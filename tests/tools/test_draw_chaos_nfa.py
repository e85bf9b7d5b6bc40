"""A chaos construction's automata (the chaos entry's ``"automata"``, ISS ``NFA`` over ``CC<k>``
cells as in "Chaos Construction: Thermo Knots") are drawn as automaton lines are, by the notebook
SVG and by draw (matplotlib) alike: a teal line through the centres of the cells read (a region
step ``@r2c2`` at its cell), ``nfa`` on the first cell, rings on the region steps' cells when not
every cell's region is read, and the automata's names in the caption. They were once not drawn."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from pipeline.core.glyphs import rule_caption
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rules.automaton import AUTOMATON_COLOUR
from pipeline.core.rules.nfa import Nfa, nfa_to_iss
from pipeline.core.svg import grid_svg

N = 4
NS = {"s": "http://www.w3.org/2000/svg"}
#: Accepts every word over the values and the break symbol: the picture, not the rule, is tested.
ANY = nfa_to_iss(Nfa.make(1, [0], [0], [(0, s, 0) for s in range(N + 1)]))
#: Thermo Knots' way: each cell's region then its digit, r1c1 -> r1c2 -> r2c2.
KNOT = {"cells": ["@r1c1", "r1c1", "@r1c2", "r1c2", "@r2c2", "r2c2"], "nfa": ANY, "name": "knot"}
#: Digits with one region between: r4c1 -> r4c2 (its region) -> r4c3.
TAIL = {"cells": ["r4c1", "@r4c2", "r4c3"], "nfa": ANY, "name": "tail"}


def _puzzle(*automata: dict):
    return parse_puzzle({"size": N, "variant": "latin", "rules": [{"rule": "chaos", "automata": list(automata)}]})


def _classed(root, tag: str, word: str) -> list:
    return [e for e in root.iter(f"{{{NS['s']}}}{tag}") if word in (e.get("class") or "").split()]


def _centres(cells: list[tuple[int, int]], cell: float) -> list[float]:
    """Pixel centres ``x, y`` (flat) of 1-based (row, column) cells in a notebook SVG (its grid
    starts at 2, 2)."""
    return [v for r, c in cells for v in (2 + (c - 0.5) * cell, 2 + (r - 0.5) * cell)]


def test_the_svg_draws_each_line_through_its_cells_centres():
    root = ET.fromstring(grid_svg(_puzzle(KNOT, TAIL)))
    cell = (float(root.get("width")) - 4) / N
    lines = _classed(root, "polyline", "chaosnfa")
    assert len(lines) == 2 and {e.get("stroke") for e in lines} == {AUTOMATON_COLOUR}
    points = [[float(v) for p in e.get("points").split() for v in p.split(",")] for e in lines]
    # a cell read twice in a row (its region, then its digit) is one point of the path
    assert points[0] == pytest.approx(_centres([(1, 1), (1, 2), (2, 2)], cell))
    assert points[1] == pytest.approx(_centres([(4, 1), (4, 2), (4, 3)], cell))
    labels = {t.text: (float(t.get("x")), float(t.get("y"))) for t in _classed(root, "text", "chaosnfa")}
    assert set(labels) == {"nfa1", "nfa2"}                            # two names: numbered as automaton lines are
    (x, y), (left, top) = labels["nfa1"], _centres([(1, 1)], cell)
    assert abs(x - left) < cell / 2 and abs(y - top) < cell / 2       # on the line's first cell
    rings = [v for e in _classed(root, "circle", "chaosnfa-region") for v in (float(e.get("cx")), float(e.get("cy")))]
    assert rings == pytest.approx(_centres([(1, 1), (1, 2), (2, 2), (4, 2)], cell))   # row-major


def test_lines_reading_every_cell_region_ring_none_and_the_caption_says_it():
    """Thermo Knots' lines read each cell's region: a ring on every cell of every line would say
    nothing; one label on a cell two lines start from."""
    again = dict(KNOT, cells=["@r1c1", "r1c1", "@r2c1", "r2c1"])
    puzzle = _puzzle(KNOT, again)
    root = ET.fromstring(grid_svg(puzzle))
    assert len(_classed(root, "polyline", "chaosnfa")) == 2
    assert not _classed(root, "circle", "chaosnfa-region")
    assert [t.text for t in _classed(root, "text", "chaosnfa")] == ["nfa"]
    caption = rule_caption(puzzle.rules, puzzle.board)
    assert caption == "chaos construction (nfa: knot; the nfa lines read each cell's region number)"
    mixed = _puzzle(KNOT, TAIL)
    words = rule_caption(mixed.rules, mixed.board)
    assert "nfa1: knot; nfa2: tail; rings on the nfa lines: the cells whose region numbers they read" in words


def test_draw_paints_the_lines_and_rings():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from pipeline.tools.draw import draw_grid

    fig = draw_grid(_puzzle(KNOT, TAIL))
    try:
        children = fig.axes[0].get_children()
        (lines,) = [a for a in children if a.get_gid() == "chaosnfa" and hasattr(a, "get_segments")]
        segments = [np.asarray(s).tolist() for s in lines.get_segments()]
        assert segments == [[[0.5, 0.5], [1.5, 0.5], [1.5, 1.5]], [[0.5, 3.5], [1.5, 3.5], [2.5, 3.5]]]
        assert np.allclose(lines.get_edgecolor()[0][:3], [0x2a / 255, 0x9d / 255, 0x8f / 255])
        (rings,) = [a for a in children if a.get_gid() == "chaosnfa-region"]
        assert sorted(map(tuple, np.asarray(rings.get_offsets()).tolist())) == [(0.5, 0.5), (1.5, 0.5), (1.5, 1.5),
                                                                                (1.5, 3.5)]
        texts = sorted(t.get_text() for t in fig.axes[0].texts if t.get_text().startswith("nfa"))
        assert texts == ["nfa1", "nfa2"]
    finally:
        plt.close(fig)
