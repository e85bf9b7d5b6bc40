"""draw: grids of every variant and size to SVG/PNG/PDF, candidates, highlights, errors."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from pipeline.build import build_model
from pipeline.cli import main
from pipeline.draw import candidates, parse_cells, violations
from pipeline.errors import PipelineError
from pipeline.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solve import solve

pytest.importorskip("matplotlib", reason="draw needs matplotlib (extra 'plot')")


def test_candidates_exclude_digits_seen_in_units():
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    marks = candidates(puzzle)
    grid = puzzle.grid
    assert not marks[grid != 0].any()
    for r, c, d in np.argwhere(marks)[:200]:
        assert d + 1 not in grid[r] and d + 1 not in grid[:, c]
    solution = solve(build_model(puzzle)).grid
    empty = grid == 0
    # the solution digit is always a candidate
    rr, cc = np.nonzero(empty)
    assert marks[rr, cc, solution[rr, cc] - 1].all()


def test_violations_mark_both_duplicates_and_changed_clues():
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    solution = solve(build_model(puzzle)).grid
    assert not violations(puzzle, solution).any()
    broken = solution.copy()
    broken[0, 0], broken[0, 1] = broken[0, 1], broken[0, 0]
    bad = violations(puzzle, broken)
    assert bad[0, 0] and bad[0, 1]


def test_parse_cells_rejects_out_of_range():
    assert parse_cells("r1c2, r9c9", 9).sum() == 2
    with pytest.raises(PipelineError, match="r10c1"):
        parse_cells("r10c1", 9)


@pytest.mark.parametrize("suffix", ["svg", "png", "pdf"])
def test_draw_is_deterministic(tmp_path, suffix):
    digests = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.{suffix}"
        assert main(["draw", DEFAULT_PUZZLE, "--solution", "--highlight", "r1c1", "--to", str(out)]) == 0
        digests.append(hashlib.sha256(out.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    assert not list(tmp_path.glob(".*tmp"))


@pytest.mark.parametrize("args", [
    ["1" + "0" * 15],
    ["0" * 36, "--box", "2x3", "--candidates"],
    [DEFAULT_PUZZLE, "--variant", "x"],
    ["..43...1.2......", "--regions", "0001011122332233"],
    ["0" * 81, "--regions", "".join(str(i // 9) for i in range(81)), "--variant", "jigsaw_x"],
    ["0" * 256, "--symbols", "letters"],
    ["0" * 625, "--variant", "latin"],
])
def test_every_variant_and_size_draws(tmp_path, args):
    out = tmp_path / "g.svg"
    assert main(["draw", *args, "--to", str(out)]) == 0
    assert out.read_text().lstrip().startswith("<?xml")


def test_highlight_violations_needs_grid(tmp_path, capsys):
    assert main(["draw", "--highlight", "violations", "--to", str(tmp_path / "x.png")]) == 2
    assert "--grid" in capsys.readouterr().err


def test_bad_suffix_is_one_line_error(tmp_path, capsys):
    assert main(["draw", "--to", str(tmp_path / "x.gif")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1


def test_missing_matplotlib_names_the_extra(tmp_path, capsys, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["draw", "--to", str(tmp_path / "x.png")]) == 2
    assert "pip install '.[plot]'" in capsys.readouterr().err
