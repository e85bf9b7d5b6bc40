"""Notebook pictures (pipeline.core.svg): valid XML whose content says what the puzzle, the
solution and the model are (issue 19 item 5)."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from oracles import PROJECT
from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, parse_puzzle
from pipeline.core.glyphs import CAGE_INSET
from pipeline.core.svg import (GRID_LAYERS, SPY_BINS, Layer, candidate_layer, grid_svg, mark_places, shade_layer,
                               spy_svg)
from pipeline.solvers import get_solver

NS = {"s": "http://www.w3.org/2000/svg"}
# the README's 4x4 jigsaw
JIGSAW = parse_puzzle("..43...1.2......", variant="jigsaw", regions="0001011122332233")


def _svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def _group(root, name):
    found = root.findall(f".//s:g[@class='{name}']", NS)
    assert len(found) <= 1
    return found[0] if found else None


def _placed(root, group_name, puzzle) -> dict:
    group = _group(root, group_name)
    if group is None:
        return {}
    width = float(root.get("width"))
    cell = (width - 4) / puzzle.n
    out = {}
    for t in group.findall("s:text", NS):
        c = (float(t.get("x")) - 2) / cell - 0.5
        r = (float(t.get("y")) - 2) / cell - 0.5
        assert abs(c - round(c)) < 1e-6 and abs(r - round(r)) < 1e-6   # centred in its cell
        assert (int(round(r)), int(round(c))) not in out
        out[int(round(r)), int(round(c))] = int(t.text)
    return out


def _segments(root, name) -> list[str]:
    path = _group(root, name).find("s:path", NS)
    return re.findall(r"M[^M]+", path.get("d"))


def _solution(puzzle):
    result = get_solver("highs").solve(build_model(puzzle))
    assert result.solved
    return result.grid


def _clue_map(puzzle):
    r, c = np.nonzero(puzzle.grid)
    return {(int(a), int(b)): int(puzzle.grid[a, b]) for a, b in zip(r, c)}


def test_puzzle_repr_draws_its_clues_and_box_borders():
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    root = _svg(puzzle._repr_svg_())
    assert _placed(root, "clues", puzzle) == _clue_map(puzzle)    # 23 clues, each where it belongs
    assert _group(root, "solution") is None and _group(root, "regions") is None
    assert _group(root, "diagonals") is None
    # the frame (4 x 9 cell edges) and the box borders: 2 vertical and 2 horizontal lines of 9 edges
    assert len(_segments(root, "borders")) == 4 * 9 + 4 * 9
    assert len(_segments(root, "lines")) == 2 * 10


def test_solved_grid_shows_clues_black_and_filled_digits_blue():
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    grid = _solution(puzzle)
    picture = puzzle.picture(grid)
    root = _svg(picture._repr_svg_())
    clues = _placed(root, "clues", puzzle)
    filled = _placed(root, "solution", puzzle)
    assert clues == _clue_map(puzzle)
    assert len(filled) == 81 - puzzle.n_clues and not set(filled) & set(clues)
    assert all(grid[r, c] == d for (r, c), d in filled.items())
    assert _group(root, "solution").get("fill") != _group(root, "clues").get("fill")
    # a partly filled grid: only its non-zero, non-clue cells
    partial = np.where(np.arange(81).reshape(9, 9) % 2 == 0, grid, 0)
    shown = _placed(_svg(puzzle.picture(partial).svg), "solution", puzzle)
    assert shown == {k: v for k, v in filled.items() if partial[k] != 0}


def test_jigsaw_regions_fill_every_cell_and_borders_follow_them():
    grid = _solution(JIGSAW)
    root = _svg(JIGSAW.picture(grid).svg)
    n = JIGSAW.n
    squares = sum(len(re.findall(r"M", p.get("d"))) for p in _group(root, "regions").findall("s:path", NS))
    assert squares == n * n
    regions = JIGSAW.regions
    changes = int((regions[:, 1:] != regions[:, :-1]).sum() + (regions[1:, :] != regions[:-1, :]).sum())
    assert len(_segments(root, "borders")) == 4 * n + changes
    assert _placed(root, "clues", JIGSAW) == _clue_map(JIGSAW)
    assert len(_placed(root, "solution", JIGSAW)) == n * n - JIGSAW.n_clues


@pytest.mark.parametrize("n,box", [(9, "3x3"), (4, "2x2")])
def test_x_variant_shades_both_diagonals(n, box):
    puzzle = parse_puzzle("." * n * n, box=box, variant="x")
    root = _svg(grid_svg(puzzle))
    squares = re.findall(r"M([\d.]+) ([\d.]+)h", _group(root, "diagonals").find("s:path", NS).get("d"))
    assert len(squares) == 2 * n - n % 2 and len(set(squares)) == len(squares)   # odd N: the centre once


def test_latin_square_has_only_the_frame_thick():
    puzzle = parse_puzzle("1" + "." * 24, variant="latin")
    root = _svg(grid_svg(puzzle))
    assert len(_segments(root, "borders")) == 4 * 5
    assert _placed(root, "clues", puzzle) == {(0, 0): 1}


def test_big_grids_two_digit_numbers_and_picture_size():
    puzzle = parse_puzzle((PROJECT / "examples" / "grid16.txt").read_text(), box="4x4")
    root = _svg(grid_svg(puzzle))
    placed = _placed(root, "clues", puzzle)
    assert placed == _clue_map(puzzle) and max(placed.values()) >= 10
    assert float(root.get("width")) <= 16 * 36 + 4


def test_picture_refuses_a_grid_of_another_shape_or_range():
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    with pytest.raises(PuzzleError, match="9x9"):
        puzzle.picture(np.zeros((4, 4), dtype=int))
    with pytest.raises(PuzzleError, match="0..9"):
        puzzle.picture(np.full((9, 9), 10))
    with pytest.raises(PuzzleError, match="integers"):
        puzzle.picture(np.zeros((9, 9)))


@pytest.mark.parametrize("options, said", [
    ({"cell": -5}, "grid_svg: cell must be a number of pixels from 0.01 to 10000, found -5"),
    ({"cell": 0}, "grid_svg: cell must be a number of pixels from 0.01 to 10000, found 0"),
    ({"cell": float("nan")}, "grid_svg: cell must be a number of pixels from 0.01 to 10000, found nan"),
    ({"cell": float("inf")}, "grid_svg: cell must be a number of pixels from 0.01 to 10000, found inf"),
    ({"cell": "abc"}, "grid_svg: cell must be a number of pixels from 0.01 to 10000, found 'abc'"),
    ({"layers": ["nope"]}, "grid_svg: layers must be a list of Layer entries (GRID_LAYERS holds them), found ['nope']"),
    ({"layers": GRID_LAYERS[0]}, "grid_svg: layers must be a list of Layer entries"),
])
def test_grid_svg_refuses_a_cell_or_layers_it_cannot_draw_with(options, said):
    """A helper's API round: cell=-5 drew an SVG of width -16, NaN one of width nan, and
    layers=["nope"] was an AttributeError from inside the drawing."""
    with pytest.raises(PipelineError) as caught:
        grid_svg(parse_puzzle("1......3.4......"), **options)
    assert str(caught.value).startswith(said) and "\n" not in str(caught.value)
    assert grid_svg(parse_puzzle("1......3.4......"), cell=np.float64(20.5)).startswith("<svg")


def test_a_new_layer_is_one_function_in_the_list():
    """Another element of grid pictures: a layer function inserted into the list (rules draw
    through their glyphs, tests/core/test_svg_rules.py)."""
    def dots(scene):
        return f'<g class="dots"><circle cx="{scene.x(1)}" cy="{scene.y(1)}" r="3"/></g>'

    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    after = [layer.name for layer in GRID_LAYERS].index("borders") + 1
    layers = GRID_LAYERS[:after] + [Layer("dots", dots)] + GRID_LAYERS[after:]
    root = _svg(grid_svg(puzzle, layers=layers))
    names = [g.get("class") for g in root.findall("s:g", NS)]
    assert names == ["lines", "borders", "dots", "clues"]   # paint order; empty layers leave nothing
    assert len(_group(root, "dots").findall("s:circle", NS)) == 1


def _ink_runs(root) -> int:
    """Inked bins of a spy picture: the run widths over the bin width."""
    d = root.find("s:path[@class='ink']", NS).get("d")
    runs = re.findall(r"M(\d+) (\d+)h(\d+)v(\d+)h-(\d+)z", d)
    assert "".join(f"M{a} {b}h{c}v{e}h-{f}z" for a, b, c, e, f in runs) == d
    return runs


def test_spy_bands_and_ink_match_the_matrix():
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    families = model.family_counts()
    root = _svg(spy_svg(model.Aeq, families))
    bands = root.findall("s:rect[@class='band']", NS)
    assert [b.find("s:title", NS).text for b in bands] == [f"{k}: {v} rows" for k, v in families.items()]
    height = float(root.get("height"))
    heights = np.array([float(b.get("height")) for b in bands])
    np.testing.assert_allclose(heights, np.array(list(families.values())) * height / model.n_rows, atol=0.01)
    # the ink: bins computed here independently from the dense matrix
    rows, cols = min(SPY_BINS[0], model.n_rows), min(SPY_BINS[1], model.n_cols)
    dense = model.Aeq.toarray() != 0
    row_bin = np.arange(model.n_rows) * rows // model.n_rows
    col_bin = np.arange(model.n_cols) * cols // model.n_cols
    expected = np.zeros((rows, cols), dtype=bool)
    r, c = np.nonzero(dense)
    expected[row_bin[r], col_bin[c]] = True
    bw, bh = int(root.get("width")) // cols, int(root.get("height")) // rows
    drawn = np.zeros_like(expected)
    for x, y, w, h, _ in _ink_runs(root):
        assert int(h) == bh
        drawn[int(y) // bh, int(x) // bw:(int(x) + int(w)) // bw] = True
    np.testing.assert_array_equal(drawn, expected)


def test_spy_of_a_large_model_stays_small():
    puzzle = Puzzle(np.zeros((49, 49), dtype=np.int64), 7, 7)
    model = build_model(puzzle)
    text = spy_svg(model.Aeq, model.family_counts())
    root = _svg(text)
    assert int(root.get("width")) <= 400 and int(root.get("height")) <= 200
    assert len(text) < 60_000, len(text)   # 470,596 nonzeros, a few tens of kilobytes


@pytest.mark.parametrize("clues", ["rows", "reduce"])
def test_model_html_tables_rows_per_family_and_holds_the_spy(clues):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues=clues)
    root = ET.fromstring(model._repr_html_())   # XHTML-clean: parses as XML
    table = root.find(".//table")
    cells = [[td.text for td in tr] for tr in table.findall("tr")]
    assert cells[0] == ["family", "rows"]
    assert {name: int(count.replace(",", "")) for name, count in cells[1:-1]} == model.family_counts()
    assert cells[-1] == ["total", f"{model.n_rows:,}"]
    caption = root.find("p").text
    assert f"{model.n_rows:,} rows x {model.n_cols:,} columns, {model.nnz:,} nonzeros" in caption
    assert f"clues as {clues}" in caption
    assert root.find(".//{http://www.w3.org/2000/svg}svg") is not None


def _touching_pairs(labels: np.ndarray) -> set[tuple[int, int]]:
    """Pairs of labels that share an edge somewhere (a brute-force neighbour walk)."""
    rows, cols = labels.shape
    pairs = set()
    for r in range(rows):
        for c in range(cols):
            for rr, cc in ((r + 1, c), (r, c + 1)):
                if rr < rows and cc < cols and labels[r, c] != labels[rr, cc]:
                    pairs.add((int(labels[r, c]), int(labels[rr, cc])))
    return pairs


@pytest.mark.parametrize("regions", [
    (PROJECT / "examples" / "jigsaw_regions.txt").read_text().split()[0],
    # regions 0 and 8 touch: colouring by number (id % 8) gave them one colour
    "000011111" "000011111" "022223333" "822223333" "844445555" "888445556" "886666677" "888666777" "888867777",
])
def test_touching_regions_get_different_colours(regions):
    from pipeline.core.svg import touching_colours
    labels = np.array([int(ch) for ch in regions]).reshape(9, 9)
    units = [np.flatnonzero(labels.ravel() == k) for k in range(9)]
    colour = touching_colours(units, 81, 9, 8)
    assert all(colour[a] != colour[b] for a, b in _touching_pairs(labels))
    assert colour.min() >= 0 and colour.max() < 8


def test_overlapping_or_touching_areas_differ_and_far_ones_share():
    from pipeline.core.svg import touching_colours
    # a 4x4: two areas overlapping in cell 5, a third touching the second, a fourth far off
    colour = touching_colours([[0, 1, 5], [5, 6], [7, 11], [12]], 16, 4, 4).tolist()
    assert colour[0] != colour[1] and colour[1] != colour[2] and colour[3] == 0
    # cell 3 ends a row and cell 4 starts the next: they do not touch
    assert touching_colours([[3], [4]], 16, 4, 4).tolist() == [0, 0]


def test_a_value_set_shows_its_values_not_the_digit_indices():
    # an ISS 6x6 of values 0..8: index 1 is the value 0 (the picture wrote "1" and "9")
    puzzle = parse_puzzle(".Shape~6x6~0-8.~R1C1_0~R2C2_8")
    assert _placed(_svg(puzzle.picture().svg), "clues", puzzle) == {(0, 0): 0, (1, 1): 8}


def test_shaded_cells_are_one_square_each_under_the_lines():
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    mask = np.zeros((9, 9), dtype=bool)
    mask[0, 1] = mask[8, 8] = True
    layers = list(GRID_LAYERS)
    layers.insert(1, shade_layer(mask))
    root = _svg(grid_svg(puzzle, layers=layers))
    shaded = _segments(root, "highlight")
    cell = (float(root.get("width")) - 4) / 9
    corners = {tuple(round((float(v) - 2) / cell) for v in re.match(r"M([\d.]+) ([\d.]+)", s).groups()) for s in shaded}
    assert corners == {(1, 0), (8, 8)}   # (x, y) corners: column then row
    names = [g.get("class") for g in root.findall("s:g", NS)]
    assert names.index("highlight") < names.index("lines")
    assert _group(_svg(grid_svg(puzzle, layers=[shade_layer(np.zeros((9, 9), bool))])), "highlight") is None


@pytest.mark.parametrize("source, n_values", [("1" + "." * 15, 4), (".Shape~6x6~0-8.~R1C1_0", 9)])
def test_pencil_marks_are_written_in_their_cells_places(source, n_values):
    puzzle = parse_puzzle(source)
    n = puzzle.n
    rng = np.random.default_rng(3)
    marks = rng.random((n, n, n_values)) < 0.4
    root = _svg(grid_svg(puzzle, layers=[candidate_layer(marks)]))
    texts = _group(root, "candidates").findall("s:text", NS)
    assert len(texts) == marks.sum()
    cell = (float(root.get("width")) - 4) / n
    per_row = int(np.ceil(np.sqrt(n_values)))
    shown = list(puzzle.values) if puzzle.values is not None else list(range(1, n + 1))
    got = set()
    for t in texts:
        x, y = (float(t.get("x")) - 2) / cell, (float(t.get("y")) - 2) / cell
        r, c = int(y), int(x)
        slot = int((x - c) * per_row) + per_row * int((y - r) * per_row)   # the digit's place in the cell
        assert int(t.text) == shown[slot]
        got.add((r, c, slot))
    assert got == {tuple(k) for k in np.argwhere(marks)}


def test_pencil_marks_keep_inside_cage_outlines_and_below_a_sum():
    puzzle = parse_puzzle(PROJECT / "examples" / "killer.json")
    marks = np.ones((9, 9, 9), dtype=bool)
    x, y, digits, size = mark_places(puzzle, marks)
    cx, cy = x - np.floor(x), y - np.floor(y)
    assert cx.min() > CAGE_INSET and cx.max() < 1 - CAGE_INSET and cy.max() < 1 - CAGE_INSET
    first = {int(rule.cells().min()) for rule in puzzle.rules if rule.kind == "cage"}
    at_first = np.isin(np.floor(y).astype(int) * 9 + np.floor(x).astype(int), list(first))
    assert cy[at_first].min() > 0.3 > cy[~at_first].min()
    assert 0 < size < 1 / 3 and sorted(set(digits.tolist())) == list(range(1, 10))


def test_a_caption_under_the_grid_names_hidden_rules_and_the_outside_clue_colours():
    """A notebook shows no ``<title>``: the caption under the grid says what cells cannot (the
    anti-knight rule) and which colour is which kind of outside clue, as ``draw`` does."""
    puzzle = parse_puzzle({"size": 9, "givens": "." * 81, "rules": [
        {"rule": "antiknight"}, {"rule": "sandwich", "clue": "r0c3", "sum": 10},
        {"rule": "xsum", "clue": "r3c0", "sum": 20}]})
    root = _svg(grid_svg(puzzle))
    captions = [el for el in root.iter(f"{{{NS['s']}}}text") if el.get("class") == "caption"]
    assert len(captions) == 1
    words = " ".join("".join(captions[0].itertext()).split())
    assert words == "anti-knight · sandwich clues in black · X-sum clues in blue"
    width, height = float(root.get("width")), float(root.get("height"))
    assert height > width and float(captions[0].get("y")) >= width - 1   # below the square, inside the picture
    outside = {el.get("class"): el.get("fill") for el in root.iter(f"{{{NS['s']}}}text") if "outside" in (el.get("class") or "")}
    assert outside == {"outside sandwich": "#000000", "outside xsum": "#1f5fbf"}


def test_a_long_caption_wraps_to_the_grid_width_and_a_plain_puzzle_has_none():
    rules = [{"rule": kind} for kind in ("antiknight", "antiking", "nonconsecutive", "disjointgroups", "antitaxicab")]
    root = _svg(grid_svg(parse_puzzle({"size": 9, "givens": "." * 81, "rules": rules}), cell=20))
    (caption,) = [el for el in root.iter(f"{{{NS['s']}}}text") if el.get("class") == "caption"]
    lines = [span.text for span in caption]
    assert len(lines) >= 2 and all(len(line) * 0.5 * float(caption.get("font-size")) <= float(root.get("width"))
                                   for line in lines)
    plain = _svg(grid_svg(parse_puzzle(DEFAULT_PUZZLE)))
    assert plain.get("width") == plain.get("height")
    assert not [el for el in plain.iter(f"{{{NS['s']}}}text") if el.get("class") == "caption"]


@pytest.mark.parametrize("kwargs, words", [
    ({"grid": np.ones((4, 4), int)}, "grid_svg: grid must be an integer array of the puzzle's 9x9 cells, found (4, 4) int"),
    ({"grid": "x"}, "grid_svg: grid must be an integer array of the puzzle's 9x9 cells, found str"),
    ({"names": ["a"]}, "grid_svg: names must list the text of each digit 0..9"),
    ({"grid": np.pad([[10]], ((2, 6), (4, 4)))}, "grid_svg: grid holds 10 at r3c5: its entries run 0..9 (0 empty)"),
])
def test_grid_svg_refuses_what_does_not_fit_the_puzzle_in_one_line(kwargs, words):
    # broadcast ValueErrors and IndexErrors from deep inside before
    with pytest.raises(PipelineError) as err:
        grid_svg(parse_puzzle(DEFAULT_PUZZLE), **kwargs)
    assert str(err.value).startswith(words) and "\n" not in str(err.value)
    with pytest.raises(PipelineError, match="^grid_svg: takes a Puzzle"):
        grid_svg("examples/puzzle.txt")


def _canvas_edges(present: np.ndarray, labels: np.ndarray) -> int:
    """Cell edges between a present cell and an absent, outside or differently labelled one,
    counted from each present cell's four sides (an edge inside the puzzle is seen twice)."""
    rows, cols = present.shape
    frame = inner = 0
    for r, c in zip(*np.nonzero(present)):
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            q, p = r + dr, c + dc
            if not (0 <= q < rows and 0 <= p < cols) or not present[q, p]:
                frame += 1
            elif labels[q, p] != labels[r, c]:
                inner += 1
    return frame + inner // 2


@pytest.mark.parametrize("example", ["samurai.json", "draw_samurai.json"])
def test_a_samurai_is_drawn_on_its_whole_canvas(example):
    """The picture was one 9x9 grid wide: every digit past the first grid fell outside it."""
    puzzle = parse_puzzle((PROJECT / "examples" / example).read_text())
    grid = _solution(puzzle)
    root = _svg(grid_svg(puzzle, grid, cell=20))
    width, height = float(root.get("width")), float(root.get("height"))
    assert width == 21 * 20 + 4 and height >= 21 * 20 + 4
    texts = [t for name in ("clues", "solution") for t in _group(root, name).findall("s:text", NS)]
    assert len(texts) == int(puzzle.present.sum())   # every cell of the five grids, none twice
    placed = {(round((float(t.get("y")) - 2) / 20 - 0.5), round((float(t.get("x")) - 2) / 20 - 0.5)) for t in texts}
    present = puzzle.present.reshape(21, 21)
    assert placed == set(zip(*map(np.ndarray.tolist, np.nonzero(present))))
    boxes = (np.arange(21)[:, None] // 3) * 7 + np.arange(21)[None, :] // 3
    assert len(_segments(root, "borders")) == _canvas_edges(present, boxes)
    assert len(_segments(root, "lines")) == _canvas_edges(present, np.arange(21 * 21).reshape(21, 21))


def test_a_rectangular_grid_is_drawn_rows_by_columns():
    puzzle = parse_puzzle({"size": "6x8", "box": "2x4", "givens": "1" + "." * 47})
    root = _svg(grid_svg(puzzle, cell=20))
    assert (float(root.get("width")), float(root.get("height"))) == (8 * 20 + 4, 6 * 20 + 4)
    assert len(_segments(root, "lines")) == 9 + 7
    boxes = (np.arange(6)[:, None] // 2) * 2 + np.arange(8)[None, :] // 4
    assert len(_segments(root, "borders")) == _canvas_edges(np.ones((6, 8), dtype=bool), boxes)
