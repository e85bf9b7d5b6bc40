"""Under --grid/--solution the small labels (cage sums, text marks: sum-line totals, whisper
``≥k``, modular ``mod k``, either/or digits) and the filled digits of their cells do not overlap,
judged on the boxes matplotlib lays them out in (not on pixels)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from pipeline.core.glyphs import Glyph  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402
from pipeline.core.rules import Rule  # noqa: E402
from pipeline.tools.draw import draw_grid  # noqa: E402

SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


class _Labels(Rule):
    kind = "labelled"

    def glyphs(self, board):
        return [Glyph("cage", (0, 1), label="45"), Glyph("cage", (10, 11, 19), label="23"),
                Glyph("mark", (0,), style="text", label="\u22655"), Glyph("mark", (40,), style="text", label="mod 3"),
                Glyph("mark", (60,), style="text", label="12"), Glyph("mark", (60,), style="text", label="7"),
                Glyph("mark", (80,), style="text", label="1")]


def _digit_boxes(fig, renderer):
    """(cell, (x0, y0, x1, y1)) in pixels of every filled digit's outline."""
    ax = fig.axes[0]
    scale = fig.dpi / 72.0   # sizes=[1]: the outline's points drawn as pixels at the figure's dpi
    out = []
    for coll in ax.collections:
        if not str(coll.get_gid() or "").startswith("filled-"):
            continue
        ext = coll.get_paths()[0].get_extents()
        for x, y in coll.get_offsets():
            px, py = ax.transData.transform((x, y))
            out.append((int(y) * 9 + int(x), (px + ext.x0 * scale, py + ext.y0 * scale,
                                               px + ext.x1 * scale, py + ext.y1 * scale)))
    return out


def _label_boxes(fig, renderer):
    ax = fig.axes[0]
    out = []
    for t in ax.texts:
        if t.get_gid() == "caption" or not t.get_text():
            continue
        x, y = t.get_position()
        patch = t.get_bbox_patch()
        box = (patch if patch is not None else t).get_window_extent(renderer)
        if patch is not None:
            box = box.union([box, t.get_window_extent(renderer)])
        out.append((int(y) * 9 + int(x), (box.x0, box.y0, box.x1, box.y1), t.get_text()))
    return out


def _overlaps(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    digits = _digit_boxes(fig, renderer)
    labels = _label_boxes(fig, renderer)
    assert digits and labels
    hits = []
    for cell, (a0, b0, a1, b1), text in labels:
        for dcell, (x0, y0, x1, y1) in digits:
            if dcell == cell and a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
                hits.append((cell, text))
    return hits


@pytest.mark.parametrize("inches", [None, 4.0, 9.0])
def test_small_labels_stay_clear_of_the_filled_digits_of_their_cells(inches):
    import matplotlib.pyplot as plt
    puzzle = parse_puzzle("0" * 81)
    object.__setattr__(puzzle, "rules", (_Labels(),))
    grid = np.array([int(ch) for ch in SOLUTION]).reshape(9, 9)
    fig = draw_grid(puzzle, grid, inches=inches)
    try:
        assert _overlaps(fig) == []
    finally:
        plt.close(fig)


def test_a_killers_cage_sums_stay_clear_of_its_solution_digits():
    import matplotlib.pyplot as plt
    puzzle = parse_puzzle("0" * 81, rules=[{"rule": "cage", "cells": ["r1c1", "r1c2", "r2c1"], "sum": 12},
                                           {"rule": "cage", "cells": ["r5c5", "r5c6"], "sum": 16}])
    grid = np.array([int(ch) for ch in SOLUTION]).reshape(9, 9)
    fig = draw_grid(puzzle, grid)
    try:
        assert _overlaps(fig) == []
        sizes = {c.get_gid(): c.get_paths()[0].get_extents().height for c in fig.axes[0].collections
                 if str(c.get_gid() or "").startswith("filled-")}
        assert sizes   # the digits are drawn
        # one size for every filled digit: each digit is one collection (a few small digits among
        # big ones looked misprinted)
        gids = [c.get_gid() for c in fig.axes[0].collections if str(c.get_gid() or "").startswith("filled-")]
        assert len(gids) == len(set(gids)) == 9
    finally:
        plt.close(fig)


# ISS '250!' (reduced): row 5's exact-contents cage puts its "≡" tag, and a weighted sum its "Σ14",
# in r5c1's top-left corner: they were printed over each other ("≡14"); the row listed twice (as a
# row, a column and a box put three tags at r1c1) writes its tag once
ROW5 = [f"R5C{c}" for c in range(1, 10)]
TAGGED = (".Shape~9x9~0-8~Raw" + "".join(f".ContainExact~0_0_0_2_2_2_5_5_5~{'~'.join(cells)}" for cells in (ROW5, ROW5[::-1]))
          + ".Sum~14_=_1_1_1_1_1_-1~R8C1~R7C1~R6C1~R5C1~R5C2~R9C1")


def test_cage_labels_sharing_a_cell_take_its_corners_in_turn_and_do_not_overlap():
    import matplotlib.pyplot as plt
    fig = draw_grid(parse_puzzle(TAGGED))
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in fig.axes[0].texts if t.get_gid() == "cage-sum"]
        assert sorted(text for text, _ in boxes) == ["\u03a314", "\u2261"]   # the tag once
        (_, a), (_, b) = boxes
        assert not a.overlaps(b) and abs(a.y1 - b.y1) < 1              # side by side under the cell's top
    finally:
        plt.close(fig)


def test_the_notebook_svg_puts_a_cells_second_cage_label_in_its_top_right_corner():
    import re

    from pipeline.core.svg import grid_svg

    sums = re.findall(r'<text class="cage-sum" x="([\d.]+)" y="([\d.]+)"( text-anchor="end")?>([^<]*)<',
                      grid_svg(parse_puzzle(TAGGED)))
    assert sorted(text for *_, text in sums) == ["\u03a314", "\u2261"]
    (first_x, first_y, first_end, _), (second_x, second_y, second_end, _) = sums   # in drawing order
    assert first_y == second_y and float(second_x) > float(first_x) + 10 and second_end and not first_end
