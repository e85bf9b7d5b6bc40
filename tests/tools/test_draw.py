"""draw: grids of every variant and size to SVG/PNG/PDF, candidates, highlights, errors."""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.cli.main import main
from pipeline.tools.draw import candidates, draw_grid, input_symbols, parse_cells, violations
from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers.highs import solve

pytest.importorskip("matplotlib", reason="draw needs matplotlib (extra 'plot')")


def _glyph_gids(fig, kind: str) -> list[str]:
    """The gids of ``fig``'s digit collections of one kind (clues, filled, candidates)."""
    return [c.get_gid() for c in fig.axes[0].collections if (c.get_gid() or "").startswith(f"{kind}-")]


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
    from pipeline.core.extras import install_hint
    assert err == f"error: {argv[0]} needs matplotlib (the plot extra): {install_hint('plot')}\n"
    assert "pip install -e '" in err   # the checkout's editable install stays editable


@pytest.mark.parametrize("argv", [["draw"], ["spy"]])
@pytest.mark.parametrize("name, found", [("x.xyz", "unknown picture format '.xyz'"), ("x", "no format suffix")])
def test_an_unknown_target_format_is_named_before_the_missing_matplotlib(tmp_path, capsys, monkeypatch, argv,
                                                                         name, found):
    # the core install said "draw needs matplotlib" for --to x.xyz, which no install draws
    import sys
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    target = tmp_path / name
    assert main([*argv, "--to", str(target)]) == 2
    assert capsys.readouterr().err == (f"error: --to {target}: {found}; the file name must end in .svg, .png "
                                       f"or .pdf (a device or pipe without one gets SVG)\n")


@pytest.mark.parametrize("command", ["draw", "spy"])
def test_an_empty_to_is_named_as_an_empty_path(tmp_path, capsys, monkeypatch, command):
    # --to "" (an unset shell variable) said "--to .: no format suffix", naming a path not typed
    monkeypatch.chdir(tmp_path)
    assert main([command, "1" + "." * 15, "--to", ""]) == 2 and list(tmp_path.iterdir()) == []
    assert capsys.readouterr().err == "error: --to: empty path; name a picture file (.svg, .png or .pdf)\n"


@pytest.mark.parametrize("command", ["draw", "spy"])
def test_to_dash_points_to_dev_stdout_and_writes_nothing(tmp_path, capsys, monkeypatch, command):
    # export's --to - is standard output; a picture's said "no format suffix", which did not help
    monkeypatch.chdir(tmp_path)
    assert main([command, "1" + "." * 15, "--to", "-"]) == 2
    assert capsys.readouterr().err == ("error: --to -: a picture goes to a file (.svg, .png or .pdf); for standard "
                                       "output give --to /dev/stdout (SVG)\n")
    assert list(tmp_path.iterdir()) == []


def test_a_picture_to_standard_output_is_svg_and_the_wrote_line_goes_to_stderr():
    """An outside probe: ``draw --to /dev/stdout`` (or a pipe) had 'no format suffix' and no way
    round it; the SVG now goes there, and 'wrote ...' to standard error, not into the picture."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pipeline", "draw", "1" + "." * 15, "--to", "/dev/stdout"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.lstrip().startswith("<?xml") and done.stdout.rstrip().endswith("</svg>")
    assert done.stderr.startswith("wrote /dev/stdout")


def test_the_core_install_draws_its_svg_to_standard_output_too(capfd, monkeypatch):
    """Without matplotlib the core renderer drew a name ending .svg only: --to /dev/stdout said
    'draw needs matplotlib' there (the wheel on a core install)."""
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["draw", "1" + "." * 15, "--to", "/dev/stdout"]) == 0
    out, err = capfd.readouterr()
    assert "<svg" in out and out.rstrip().endswith("</svg>")
    assert err.startswith("wrote /dev/stdout (the core install's SVG")


def test_cells_as_explain_prints_them():
    # explain lists conflicting clues as "r1c2=5 r3c4=7" and differing cells as "r1c2 r3c4"
    mask = parse_cells("r1c2=5 r3c4=7,r9c9", 9)
    assert mask.sum() == 3 and mask[0, 1] and mask[2, 3] and mask[8, 8]
    with pytest.raises(PipelineError, match="r0c1"):
        parse_cells("r0c1=4", 9)


def test_a_highlighted_clue_names_one_of_the_puzzles_digits():
    from pipeline.tools.draw import highlight_mask
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    assert highlight_mask(["conflicts:r1c2=9 r2c2"], puzzle, None, None).sum() == 2
    for bad in ("conflicts:r1c2=10", "conflicts:r1c2=0", "r3c3=-1"):
        with pytest.raises(PipelineError, match=r"names a digit that is not one of the puzzle's \(1\.\.9\)"):
            highlight_mask([bad], puzzle, None, None)
    values = parse_puzzle({"size": 4, "values": "0-3", "givens": "0..." + "." * 12})
    assert highlight_mask(["conflicts:r1c1=0"], values, None, None).sum() == 1   # explain's values


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
        drawn["texts"] = sorted({gid.split("-", 1)[1] for gid in _glyph_gids(fig, "clues")})
        return fig

    monkeypatch.setattr(draw_module, "draw_grid", spy_on)
    document = tmp_path / "doc.json"   # generate's form of a rule puzzle: the compact line as its givens
    document.write_text(json.dumps({"size": 16, "givens": compact.read_text().strip()}))
    for src, extra, want in ((compact, [], "G"), (numbers, [], "16"), (numbers, ["--symbols", "letters"], "G"),
                             (compact, ["--symbols", "numbers"], "16"), (document, [], "G")):
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


def test_a_missing_output_directory_is_made_and_a_file_in_its_way_is_one_line(tmp_path, capsys):
    """As generate, convert and export make theirs; a file where a directory is named is refused."""
    assert main(["draw", "--to", str(tmp_path / "no" / "x.svg")]) == 0
    assert (tmp_path / "no" / "x.svg").read_text().startswith("<?xml")
    (tmp_path / "file").write_text("")
    assert main(["draw", "--to", str(tmp_path / "file" / "x.svg")]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith("error:") and "file is not a directory" in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["file", "no", "x.svg"]


def test_a_highlight_of_no_cell_or_of_a_cell_outside_the_layout_is_refused():
    """Both drew the picture without any shading and without a word."""
    from pipeline.tools.draw import highlight_mask
    samurai = parse_puzzle(json.dumps({"layout": "samurai", "givens": ""}))
    present = np.asarray(samurai.present).reshape(samurai.rows, samurai.cols)
    r, c = np.argwhere(~present)[0] + 1
    with pytest.raises(PipelineError, match=rf"^--highlight: r{r}c{c} is not part of the puzzle \(outside every grid"):
        highlight_mask([f"r1c1,r{r}c{c}"], samurai, None, None)
    assert highlight_mask(["r1c1"], samurai, None, None).sum() == 1
    for empty in (",", "", " ", "conflicts:"):
        with pytest.raises(PipelineError, match=r"names no cell"):
            highlight_mask([empty], parse_puzzle(DEFAULT_PUZZLE), None, None)


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


def test_an_svg_needs_no_matplotlib(tmp_path, capsys, monkeypatch):
    """The core install draws a puzzle and its solution to SVG (the README's draw line runs
    there); PNG, PDF and the options that need matplotlib still name the plot extra."""
    import sys
    import xml.etree.ElementTree as ET

    from oracles import PROJECT

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    target = tmp_path / "thermo.svg"
    assert main(["draw", str(PROJECT / "examples" / "thermo.json"), "--solution", "--to", str(target)]) == 0
    root = ET.fromstring(target.read_text())
    assert root.find("{http://www.w3.org/2000/svg}title").text.endswith("4 thermometers")
    assert main(["draw", str(PROJECT / "examples" / "thermo.json"), "--to", str(tmp_path / "x.png")]) == 2
    assert "plot extra" in capsys.readouterr().err


@pytest.mark.parametrize("core_svg", [True, False])
def test_solution_of_a_puzzle_without_one_is_a_negative_answer_exit_1_and_no_file(tmp_path, capsys, monkeypatch,
                                                                                   core_svg):
    """As ``solve`` answers it (exit 1, ``no solution: ...``); it was exit 2, the code of bad input."""
    import sys

    from oracles import PROJECT

    if core_svg:
        monkeypatch.setitem(sys.modules, "matplotlib", None)
    target = tmp_path / ("x.svg" if core_svg else "x.png")
    code = main(["draw", str(PROJECT / "examples" / "puzzle.txt"), "--rule", "antiknight", "--solution",
                 "--to", str(target)])
    assert code == 1
    assert capsys.readouterr().err == "no solution: the puzzle has no solution (infeasible); nothing drawn\n"
    assert list(tmp_path.iterdir()) == []


def test_solution_is_solved_by_auto_s_pick_within_the_time_limit(tmp_path, capsys):
    """--solution always used HiGHS, without a time limit: a 25x25 ran past two minutes."""
    from oracles import PROJECT

    grid25 = str(PROJECT / "examples" / "grid25.txt")
    assert main(["draw", grid25, "--solution", "--to", str(tmp_path / "x.svg"), "--time-limit", "0.001"]) == 1
    assert capsys.readouterr().err == "no solution: time limit of 0.001 s reached; nothing drawn\n"
    assert list(tmp_path.iterdir()) == []
    assert main(["draw", grid25, "--solution", "--to", str(tmp_path / "x.svg"), "--time-limit", "nan"]) == 2


@pytest.mark.parametrize("value", ["1.9", "61", "nan", "inf"])
def test_inches_out_of_range_is_one_line(value, tmp_path, capsys):
    assert main(["draw", "0" * 81, "--inches", value, "--to", str(tmp_path / "x.png")]) == 2
    assert capsys.readouterr().err.startswith("error: --inches: must be from 2 to 60, got ")
    assert not (tmp_path / "x.png").exists()


def test_inches_sets_the_pictures_side_and_wide_marks_keep_to_their_slots(tmp_path, monkeypatch):
    """An outside probe: a 25x25's pencil marks were unreadable at the largest picture draw made
    (12 in), and marks "10".."25" ran into each other."""
    import pipeline.cli.commands.draw as draw_command
    made = {}
    real = draw_command.draw_grid

    def spy(*args, **kwargs):
        made["fig"] = real(*args, **kwargs)
        return made["fig"]
    monkeypatch.setattr(draw_command, "draw_grid", spy)
    assert main(["draw", "0" * 625, "--box", "5x5", "--candidates", "--inches", "30", "--symbols", "numbers",
                 "--to", str(tmp_path / "big.png")]) == 0
    assert max(made["fig"].get_size_inches()) == pytest.approx(30)
    heights = {c.get_gid(): c.get_paths()[0].get_extents().height for c in made["fig"].axes[0].collections
               if (c.get_gid() or "").startswith("candidates-")}
    assert heights["candidates-25"] < heights["candidates-5"]   # two characters: smaller


def test_letters_for_a_value_set_are_refused_not_ignored(tmp_path, capsys):
    """An outside probe: ``--symbols letters`` drew a 0..15 value set's 10-15 as numbers."""
    assert main(["draw", ".Shape~16x16~0-15.~R1C1_15", "--symbols", "letters", "--to", str(tmp_path / "i.png")]) == 2
    assert capsys.readouterr().err == ("error: --symbols letters: a puzzle with a value set draws its values "
                                       "(0..15), not letters\n")


def test_letters_past_35_values_are_refused_not_drawn_as_numbers(tmp_path, capsys):
    # a 36x36 with --symbols letters drew numbers without a word: A-Z spell 10-35 only
    target = tmp_path / "x.svg"
    assert main(["draw", "." * 36 * 36, "--symbols", "letters", "--to", str(target)]) == 2
    assert capsys.readouterr().err == ("error: --symbols letters: a 36x36 grid has 36 digits; the letters spell digits "
                                       "up to 35 (A-Z for 10-35): draw it with numbers\n")
    assert not target.exists()


def test_drawing_the_solution_of_a_puzzle_with_several_says_so(tmp_path, capsys):
    # solve says "one of them"; draw --solution drew one of 288 without a word
    assert main(["draw", "." * 16, "--solution", "--to", str(tmp_path / "a.svg")]) == 0
    assert "note: the puzzle has more than one solution; this draws one of them" in capsys.readouterr().err
    assert main(["draw", DEFAULT_PUZZLE, "--solution", "--to", str(tmp_path / "b.svg")]) == 0
    assert "more than one" not in capsys.readouterr().err


@pytest.mark.parametrize("kwargs, words", [
    ({"grid": np.ones((4, 4), int)}, "draw_grid: grid must be an integer array of the puzzle's 9x9 cells"),
    ({"highlight": np.ones((2, 2), bool)}, "draw_grid: highlight must be a boolean array of the puzzle's 9x9 cells"),
    ({"inches": -1}, "draw_grid: inches must be from 2 to 60, found -1"),
    ({"inches": 1e6}, "draw_grid: inches must be from 2 to 60, found 1000000.0"),
    ({"symbols": "nope"}, "draw_grid: symbols must be numbers or letters, found 'nope'"),
    ({"grid": np.full((9, 9), 99)}, "draw_grid: grid holds 99 at r1c1: its entries run 0..9 (0 empty)"),
    ({"grid": np.eye(9, dtype=int) * -1}, "draw_grid: grid holds -1 at r1c1"),
])
def test_draw_grid_refuses_what_does_not_fit_in_one_line(kwargs, words):
    # a broadcast ValueError, matplotlib's own error, or a 1e8 x 1e8 pixel figure before
    with pytest.raises(PipelineError) as err:
        draw_grid(parse_puzzle(DEFAULT_PUZZLE), **kwargs)
    assert str(err.value).startswith(words)
