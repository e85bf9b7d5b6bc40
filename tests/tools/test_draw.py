"""draw: grids of every variant and size to SVG/PNG/PDF, candidates, highlights, errors."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.cli.main import main
from pipeline.tools.draw import candidates, input_symbols, parse_cells, violations
from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers.highs import solve

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


@pytest.mark.parametrize("argv", [["draw"], ["spy"], ["report", "."]])
def test_missing_matplotlib_names_the_extra(tmp_path, capsys, monkeypatch, argv):
    import sys
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main([*argv, "--to", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {argv[0]} needs matplotlib: pip install '.[plot]'\n"


def test_cells_as_explain_prints_them():
    # explain lists conflicting clues as "r1c2=5 r3c4=7" and differing cells as "r1c2 r3c4"
    mask = parse_cells("r1c2=5 r3c4=7,r9c9", 9)
    assert mask.sum() == 3 and mask[0, 1] and mask[2, 3] and mask[8, 8]
    with pytest.raises(PipelineError, match="r0c1"):
        parse_cells("r0c1=4", 9)


@pytest.mark.parametrize("text,n,want", [
    ("D92.....G...43.." * 16, 16, "letters"),                      # compact line
    ("\n".join(["D92.....G...43.."] * 16), 16, "letters"),         # compact rows
    ("\n".join([" ".join(["16"] + ["0"] * 15)] * 16), 16, "numbers"),  # separated cells
    ("1,1,12\n2,3,16\n", 16, "numbers"),                           # clue list
    ("0" * 81, 9, "numbers"),
])
def test_input_symbols_follow_the_input(text, n, want):
    assert input_symbols(text, n) == want


def test_letters_or_numbers_as_the_input_used(tmp_path, monkeypatch):
    """A compact 16x16 (letters) is drawn with letters, a space-separated one with numbers."""
    import pipeline.cli.commands.draw as draw_module
    from pipeline.core.puzzle import parse_puzzle as parse
    compact = tmp_path / "compact.txt"
    compact.write_text("D92.....G...43..4CF.....9D.2.6EB.E.1....F.8BC..AG56.....A3C....1.7G5A8....61...."
                       + "." * 176 + "\n")
    numbers = tmp_path / "numbers.txt"
    numbers.write_text("\n".join(" ".join(map(str, row)) for row in parse(compact.read_text()).grid) + "\n")
    drawn = {}
    real = draw_module.draw_grid

    def spy_on(puzzle, grid=None, **kw):
        fig = real(puzzle, grid, **kw)
        drawn["texts"] = sorted({t.get_text() for t in fig.axes[0].texts})
        return fig

    monkeypatch.setattr(draw_module, "draw_grid", spy_on)
    for src, extra, want in ((compact, [], "G"), (numbers, [], "16"), (numbers, ["--symbols", "letters"], "G"),
                             (compact, ["--symbols", "numbers"], "16")):
        assert main(["draw", str(src), *extra, "--to", str(tmp_path / "g.svg")]) == 0
        assert want in drawn["texts"], (src.name, extra, drawn["texts"])
        assert ({"G", "16"} - {want}).isdisjoint(drawn["texts"])


def test_stdin_puzzle_is_read_once(tmp_path, monkeypatch):
    import io
    import sys
    monkeypatch.setattr(sys, "stdin", io.StringIO("..43...1.2......\n"))
    out = tmp_path / "j.png"
    assert main(["draw", "-", "--regions", "0001011122332233", "--solution", "--to", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_missing_output_directory_is_one_line(tmp_path, capsys):
    assert main(["draw", "--to", str(tmp_path / "no" / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "no such directory" in err and err.count("\n") == 1


def test_highlight_violations_and_differences_mark_the_right_cells():
    from pipeline.tools.draw import highlight_mask
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    solution = solve(build_model(puzzle)).grid
    wrong = solution.copy()
    empty = np.argwhere(puzzle.grid == 0)
    (r1, c1), (r2, c2) = empty[0], empty[1]   # two empty cells of the same row
    wrong[r1, c1], wrong[r2, c2] = wrong[r2, c2], wrong[r1, c1]
    mask = highlight_mask(["violations"], puzzle, wrong, None)
    assert mask[r1, c1] and mask[r2, c2]
    diff = highlight_mask([f"diff:{''.join(map(str, solution.ravel()))}"], puzzle, wrong, None)
    assert set(map(tuple, np.argwhere(diff))) == {(r1, c1), (r2, c2)}
