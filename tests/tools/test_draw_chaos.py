"""A chaos construction's same-, different- and distinct-region clues are drawn (the marks of
pipeline.core.rules.chaosclues.relation_glyphs), by draw and the notebook SVG alike, and the
caption says what the marks mean instead of counting them as not drawn."""
from __future__ import annotations

import re

import numpy as np
import pytest

from pipeline.core.glyphs import CHAOS_DISTINCT_COLOUR, rule_caption
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.svg import grid_svg

# two same-region sets (neighbours r2c3 r3c3; r2c4 r5c6 apart), three different-region sets
# (neighbours r2c1 r2c2, a pair apart, three cells), two distinct-region counts
# ('Uncovering Tunnels' and 'The Fountain' mark their rows and neighbourhoods like these)
CHAOS = (".Shape~6x6.ChaosConstruction.NoBoxes"
         ".SameValues~2~CC9~CC15.SameValues~2~CC10~CC30"
         ".AllDifferent~CC7~CC8.AllDifferent~CC1~CC36.AllDifferent~CC19~CC20~CC26"
         ".CountDistinct~R6C1~CC31~CC32~CC33.CountDistinct~R1C6~CC5~CC6~CC11~CC12")
SAME, DIFFERENT, DISTINCT = 2, 3, 2


def _count(svg: str, pattern: str) -> int:
    return len(re.findall(f'class="{pattern}"', svg))


def test_the_notebook_svg_draws_one_mark_a_region_clue():
    puzzle = parse_puzzle(CHAOS)
    svg = grid_svg(puzzle)
    assert _count(svg, "(?:dot|line) chaossame") == SAME
    assert _count(svg, "(?:dot|line) chaosdifferent") == DIFFERENT
    assert _count(svg, "cage chaosdistinct") == DISTINCT
    assert _count(svg, "mark chaosdistinct-clue") == DISTINCT
    assert _count(svg, "dot-label chaosdifferent") == 1                  # the neighbours' ≠ on their edge
    assert re.search(f'class="cage chaosdistinct" stroke="{CHAOS_DISTINCT_COLOUR}"', svg)


def test_the_caption_says_what_the_marks_mean_and_counts_none_as_not_drawn():
    puzzle = parse_puzzle(CHAOS)
    caption = rule_caption(puzzle.rules, puzzle.board)
    assert "not drawn" not in caption and "region set" not in caption
    assert "= on an edge or teal lines: cells in one region" in caption
    assert "\u2260 on an edge or orange lines: cells in different regions" in caption
    assert "violet outlines: the ringed digit counts the regions" in caption
    only_pairs = parse_puzzle(".Shape~4x4.NoBoxes.ChaosConstruction.AllDifferent~CC1~CC2")
    words = rule_caption(only_pairs.rules, only_pairs.board)
    assert words == "chaos construction (\u2260 on an edge: cells in different regions)"   # no line drawn: none named


def test_draw_paints_the_marks_by_name():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from pipeline.tools.draw import draw_grid

    fig = draw_grid(parse_puzzle(CHAOS))
    try:
        def marks(gid: str) -> int:   # dots (a collection's offsets) and lines (its segments) or outlines
            found = 0
            for a in fig.axes[0].get_children():
                if a.get_gid() == gid:
                    found += len(a.get_segments()) if hasattr(a, "get_segments") else len(a.get_paths()) \
                        if gid == "chaosdistinct" else len(a.get_offsets())
            return found

        assert marks("chaossame") == SAME and marks("chaosdifferent") == DIFFERENT
        assert marks("chaosdistinct") == DISTINCT and marks("chaosdistinct-clue") == DISTINCT
        (outlines,) = [a for a in fig.axes[0].get_children() if a.get_gid() == "chaosdistinct"]
        assert np.allclose(outlines.get_edgecolor()[0][:3], [0x75 / 255, 0x70 / 255, 0xb3 / 255])
        assert not [a for a in fig.axes[0].get_children() if a.get_gid() == "cages"]   # no killer cage made up
        caption = next(t.get_text() for t in fig.axes[0].texts if t.get_gid() == "caption")
        assert "not drawn" not in caption
    finally:
        plt.close(fig)
