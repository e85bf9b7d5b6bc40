"""pipeline/tools/draw.py: the grids candidates and violations take, and how the digits of a
large grid are rendered (split from test_draw.py, which is at the module-size limit)."""
from __future__ import annotations

import io

import numpy as np
import pytest

from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.tools.draw import candidates, draw_grid, violations


@pytest.mark.parametrize("grid, match", [
    (np.full((4, 4), 2.5), r"grid: an array of digit indices 1\.\.V, rows x columns .* found 2-d float64$"),
    (np.ones((3, 3), int), r"grid is 3x3, the puzzle's canvas is 4x4$"),
    ([[1, 2], [3]], r"grid: not a rectangular array"),
])
@pytest.mark.parametrize("function", [candidates, violations])
def test_candidates_and_violations_refuse_a_grid_that_is_no_digit_array(function, grid, match):
    """An outside probe: a grid of 2.5s was an IndexError in both; a 3x3 grid on a 4x4 puzzle
    an IndexError in candidates and an all-False mask (nothing broken) from violations."""
    with pytest.raises(PuzzleError, match=rf"^{function.__name__}: {match}"):
        function(parse_puzzle("1" + "0" * 15), grid)


def test_whole_floats_are_digits():
    """A grid of whole floats (as a CSV reads) was an IndexError too."""
    puzzle = parse_puzzle("1" + "0" * 15)
    assert int(candidates(puzzle, puzzle.grid.astype(float)).sum()) == 53
    assert int(violations(puzzle, np.ones((4, 4))).sum()) == 16


def test_each_digit_is_rendered_once_and_stamped_at_its_places(monkeypatch):
    """The digits' glyph collections had no edge colour ("none": an empty colour list), which kept
    matplotlib from its one-marker path (Agg's draw_markers) and drew every glyph as a path of its
    own: an empty 200x200's 8 million pencil marks took 76 s to draw to PNG, 9 s now."""
    pytest.importorskip("matplotlib", reason="draw needs matplotlib (extra 'plot')")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import RendererAgg

    stamped = []
    update = RendererAgg._update_methods   # sets the renderer's drawing methods on the instance

    def spied(self):
        update(self)
        real = self.draw_markers

        def draw_markers(gc, marker_path, marker_trans, path, *args):
            stamped.append(len(path.vertices))   # one glyph laid out once, at len(path) places
            return real(gc, marker_path, marker_trans, path, *args)
        self.draw_markers = draw_markers

    monkeypatch.setattr(RendererAgg, "_update_methods", spied)
    puzzle = parse_puzzle("1" + "." * 255)   # 16x16, one clue: 4,041 pencil marks
    fig = draw_grid(puzzle, show_candidates=True)
    fig.savefig(io.BytesIO(), format="png", dpi=40)
    plt.close(fig)
    marks = candidates(puzzle)
    # the clue, then each digit's marks: one glyph stamped at all its places
    assert sorted(stamped) == sorted([1] + marks.sum(axis=(0, 1)).tolist()) and sum(stamped) == marks.sum() + 1
