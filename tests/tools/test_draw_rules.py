"""draw paints the glyphs rules declare (pipeline.tools.draw_rules), the same ones the notebook
SVG paints: a new rule that declares glyphs shows in draw without a change of draw (issue 32)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from pipeline.core.glyphs import Glyph  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402
from pipeline.core.rules import Rule  # noqa: E402
from pipeline.tools.draw import draw_grid, rule_caption  # noqa: E402
from pipeline.tools.draw_rules import picture_glyphs  # noqa: E402


class _Lines(Rule):
    kind = "lineish"

    def glyphs(self, board):
        return [Glyph("line", (0, 1, 2), style="arrow"), Glyph("line", (9, 10, 11), style="line", colour="#2a9d2a"),
                Glyph("mark", (40,), style="text", label="12"), Glyph("dot", (0, 1, 9, 10), colour="white", label="1234"),
                Glyph("outside", (0,), step=(1, 1), label="23"), Glyph("shade", (80,), colour="#ffeeaa")]


def _children(fig, gid):
    return [a for a in fig.axes[0].get_children() if a.get_gid() == gid]


def test_a_rule_that_declares_glyphs_draws_them_with_a_margin_for_outside_clues():
    import matplotlib.pyplot as plt
    puzzle = parse_puzzle("0" * 81)
    object.__setattr__(puzzle, "rules", (_Lines(),))
    fig = draw_grid(puzzle)
    try:
        texts = {t.get_text(): t.get_position() for t in fig.axes[0].texts}
        assert {"12", "1234", "23"} <= set(texts)
        assert np.allclose(texts["23"], (-0.5, -0.5))                 # one diagonal step outside r1c1
        assert fig.axes[0].get_xlim() == (-1, 10)                     # room for it
        assert np.allclose(_children(fig, "lineish-circles")[0].get_offsets(), [[0.5, 0.5]])
        lines = [a for a in _children(fig, "lineish") if hasattr(a, "get_segments")]
        assert sum(len(a.get_segments()) for a in lines) == 3         # the plain line, the arrow's shaft and head
        (dot,) = [a for a in _children(fig, "lineish") if hasattr(a, "get_offsets") and len(a.get_offsets()) == 1
                  and np.allclose(a.get_offsets(), [[1.0, 1.0]])]    # the 2x2 block's middle corner
        assert rule_caption(puzzle) == ""
        assert _children(fig, "outside-arrows")
    finally:
        plt.close(fig)


def test_unit_rules_shades_are_left_to_the_unit_layer_and_the_rest_are_the_rules_glyphs():
    puzzle = parse_puzzle("0" * 81, rules=[{"rule": "windoku"}, {"rule": "thermo", "cells": ["r1c1", "r1c2"]},
                                           {"rule": "antiknight"}])
    glyphs = picture_glyphs(puzzle)
    assert [(g.kind, g.name) for g in glyphs] == [("line", "thermo")]
    assert rule_caption(puzzle) == "anti-knight"


def test_text_marks_sharing_a_cell_are_drawn_side_by_side():
    # ISS either/or gives r1c2 a 1 in one branch and a 2 in another: both were written at the
    # same spot, one glyph over the other
    import matplotlib.pyplot as plt
    fig = draw_grid(parse_puzzle(".Or.~R1C2_1.~R1C1_1.End.Or.~R1C2_2.~R1C3_2.End"))
    try:
        spots = [tuple(np.round(t.get_position(), 2)) for t in fig.axes[0].texts if t.get_text() in ("1", "2")]
        assert len(spots) == 4 and len(set(spots)) == 4, spots
    finally:
        plt.close(fig)


def test_an_extra_region_on_a_jigsaw_is_hatched_not_filled_over_the_region_colours():
    # its pale green fill replaced the regions' own: on the jigsaw's green region the extra
    # region's cells looked like any other cell of that region
    import matplotlib.pyplot as plt
    regions = "".join(str(r // 9 // 3 * 3 + r % 9 // 3) for r in range(81))[::-1]   # boxes, renumbered: a jigsaw
    puzzle = parse_puzzle({"givens": "0" * 81, "regions": regions,
                           "rules": [{"rule": "extraregion", "cells": [f"r{k}c{k}" for k in range(1, 10)]}]})
    fig = draw_grid(puzzle)
    try:
        (hatched,) = _children(fig, "extra")
        assert hatched.get_hatch() == "\\\\\\" and len(hatched.get_paths()) == 9
        assert not hatched.get_facecolor().any()
    finally:
        plt.close(fig)


def test_a_chaos_constructions_arrows_and_counts_are_drawn_not_counted_in_the_caption():
    # 'Chaos Construction: 6x6' drew an empty grid over "not drawn: 18 chaos arrows"
    import matplotlib.pyplot as plt
    puzzle = parse_puzzle(".Shape~6x6.ChaosConstruction.NoBoxes.ChaosArrow~R1C2~0~CC2~CC3~CC4~CC5~CC6"
                          ".ChaosArrow~R4C2~0~CC20~CC19.ChaosCount~R1C4.AllDifferent~CC1~CC36")
    fig = draw_grid(puzzle)
    try:
        shafts = [a for a in _children(fig, "chaos") if hasattr(a, "get_segments")]
        assert sum(len(a.get_segments()) for a in shafts) == 4          # two arrows: shaft and head each
        assert np.allclose(_children(fig, "chaos-circles")[0].get_offsets(), [[1.5, 0.5], [1.5, 3.5]])
        caption = next(t.get_text() for t in fig.axes[0].texts if t.get_gid() == "caption").replace("\n", " ")
        assert caption.startswith("chaos construction (")
        assert "chaos arrow" not in caption and "chaos count" not in caption
        assert "not drawn" not in caption and "orange lines: cells in different regions" in caption
    finally:
        plt.close(fig)
