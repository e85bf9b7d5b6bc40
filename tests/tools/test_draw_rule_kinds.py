"""draw: the rules beyond units and gattai layouts (issue 15): every rule kind draws, cages, thermometers,
Kropki dots, chevrons, shading, samurai layouts, candidates and marks among the rules' glyphs, outside clues.
Moved from test_draw.py (at the 800-line limit).
"""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.cli.main import main
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rules import RULES
from pipeline.core.verify import grid_violations
from pipeline.solvers.highs import solve
from pipeline.tools.draw import (CAGE_INSET, PARITY_COLOUR, THERMO_COLOUR, WINDOW_FILL, cage_outline, candidates,
                                 draw_grid, edge_segments, highlight_mask, rule_caption)

pytest.importorskip("matplotlib", reason="draw needs matplotlib (extra 'plot')")

from matplotlib.path import Path as MplPath  # noqa: E402


EVERY_RULE = {"size": 9, "box": "3x3", "givens": "5" + "." * 80, "rules": [
    {"rule": "windoku"}, {"rule": "diagonal", "which": "anti"},
    {"rule": "extraregion", "cells": [f"r9c{c}" for c in range(1, 10)]}, {"rule": "disjointgroups"},
    {"rule": "cage", "cells": ["r2c1", "r2c2", "r3c1"], "sum": 12}, {"rule": "cage", "cells": ["r5c5", "r5c6"]},
    {"rule": "cage", "cells": ["r1c4", "r1c5", "r2c5", "r3c5", "r3c4"], "sum": 25},
    {"rule": "thermo", "cells": ["r8c1", "r7c2", "r6c3", "r6c4"]}, {"rule": "greater", "cells": ["r4c4", "r4c5"]},
    {"rule": "greater", "cells": ["r6c8", "r5c8"]}, {"rule": "kropki", "color": "white", "cells": ["r6c6", "r6c7"]},
    {"rule": "kropki", "color": "black", "cells": ["r7c7", "r8c7"]},
    {"rule": "kropki", "color": "white", "cells": ["r8c8", "r8c9"], "value": 3},
    {"rule": "even", "cells": ["r3c9", "r2c9"]}, {"rule": "odd", "cells": ["r4c9"]},
    {"rule": "antiknight"}, {"rule": "antiking"}, {"rule": "nonconsecutive"},
    {"rule": "pencilmarks", "cells": ["r1c9"], "digits": [1, 3, 7]},
    {"rule": "littlekiller", "sum": 30, "cells": [f"r{k}c{k + 2}" for k in range(1, 8)], "clue": "r0c2"},
    {"rule": "xv", "letter": "x", "cells": ["r7c4", "r7c5"]}, {"rule": "xv", "letter": "v", "cells": ["r8c4", "r8c5"]},
    {"rule": "strictxv"}, {"rule": "strictkropki"},
    {"rule": "quadruple", "cells": ["r2c6", "r2c7", "r3c6", "r3c7"], "digits": [1, 2]},
    {"rule": "sum", "sum": 5, "cells": ["r4c1", "r5c1"], "weights": [2, -1]},
    {"rule": "samevalues", "groups": [["r6c1", "r6c2"], ["r7c8", "r7c9"]]},
    {"rule": "pair", "cells": ["r9c2", "r9c3", "r9c4"], "allowed": [[1, 2], [2, 3]]},
    {"rule": "indexing", "by": "column", "cells": ["r5c9"]},
    {"rule": "arrow", "cells": ["r5c2", "r5c3", "r5c4"]}, {"rule": "pillarrow", "cells": ["r8c2", "r8c3", "r7c3", "r6c5"]},
    {"rule": "doublearrow", "cells": ["r1c6", "r1c7", "r1c8"]}, {"rule": "whisper", "cells": ["r3c2", "r3c3", "r4c3"]},
    {"rule": "renban", "cells": ["r4c7", "r4c8", "r5c8"]}, {"rule": "palindrome", "cells": ["r6c5", "r7c6"]},
    {"rule": "between", "cells": ["r9c5", "r8c6", "r9c7"]}, {"rule": "lockout", "cells": ["r4c2", "r5c3", "r6c4"]},
    {"rule": "entropic", "cells": ["r1c2", "r1c3", "r1c4"]}, {"rule": "modular", "cells": ["r3c8", "r2c8", "r1c8"]},
    {"rule": "zipper", "cells": ["r7c3", "r7c4", "r7c5"]}, {"rule": "regionsum", "cells": ["r4c3", "r4c4", "r5c4"]},
    {"rule": "skyscraper", "clue": "r10c3", "count": 4}, {"rule": "sandwich", "clue": "r5c0", "sum": 20},
    {"rule": "xsum", "clue": "r3c10", "sum": 15}, {"rule": "numberedroom", "clue": "r0c7", "digit": 6},
    {"rule": "countingcircles", "cells": ["r9c8", "r8c9"]},
    {"rule": "fullrank", "clue": "r0c9", "rank": 30}, {"rule": "fullrankties", "ties": "any"},
    {"rule": "sumline", "cells": ["r2c3", "r2c4"], "sum": 10}, {"rule": "lunchbox", "cells": ["r7c1", "r8c1", "r9c1"], "sum": 0},
    {"rule": "regex", "pattern": "[1-8]+", "cells": ["r2c3", "r2c4"]},
    {"rule": "automaton", "cells": ["r3c6", "r4c6"], "states": 1, "start": [0], "accept": [0],
     "transitions": [[0, v, 0] for v in range(1, 10)]}, {"rule": "chaos"},
    {"rule": "lookandsay", "clue": "1102", "cells": ["r6c2", "r7c1"]}, {"rule": "rellik", "sum": 4, "cells": ["r6c3", "r7c2"]},
    {"rule": "equalitycage", "cells": ["r2c2", "r2c3"]}, {"rule": "equalsum", "segments": [["r3c3"], ["r3c7", "r4c6"]]},
    {"rule": "valueindexing", "cells": ["r5c7", "r6c7", "r7c7", "r8c7"]}]}


EVERY_RULE["rules"] += [{"rule": kind} for kind in ("globalentropy", "globalmod", "antitaxicab", "dutchflatmates",
                                                     "regionsamevalues")]
EVERY_RULE["rules"] += [{"rule": "containexact", "cells": ["r8c8", "r8c9", "r9c8"], "values": [4]},
                        {"rule": "containatleast", "cells": ["r1c8", "r1c9", "r2c9"], "values": [7]}]
#: Kinds that need another value set than 1..9, drawn on a grid of their own below.
NEEDS_OTHER_VALUES = {"doppelganger": {"size": 9, "values": "0-9", "givens": "0" + "." * 80,
                                       "rules": [{"rule": "doppelganger"}, {"rule": "regionsamevalues"}]},
                      # kinds drawn on a puzzle of their own (added after the every-rule puzzle was set)
                      "countdistinct": {"size": 9, "rules": [{"rule": "countdistinct", "clue": "r1c1",
                                                              "cells": ["r2c2", "r2c3", "r3c3"]}]},
                      "hiddenskyscraper": {"size": 9, "rules": [{"rule": "hiddenskyscraper", "clue": "r0c2", "digit": 3}]},
                      "anyof": {"size": 9, "rules": [{"rule": "anyof", "branches": [
                          [{"rule": "thermo", "cells": ["r1c1", "r1c2", "r1c3"]}],
                          [{"rule": "cage", "cells": ["r2c1", "r2c2"], "sum": 5}]]}]},
                      "connectedvalues": {"size": 9, "rules": [{"rule": "connectedvalues", "values": [1, 3]}]}}


def _every_rule_puzzle():
    return parse_puzzle(json.dumps(EVERY_RULE))


def _gid(fig, gid):
    found = [a for a in fig.axes[0].get_children() if a.get_gid() == gid]
    assert found, f"no artist {gid!r}"
    return found


def _inside(path, points):
    """Even-odd rule over a path's loops (matplotlib's contains_points ORs the loops, so a
    cage's hole would count as inside)."""
    hits = sum(MplPath(loop).contains_points(points).astype(int) for loop in path.to_polygons())
    return hits % 2 == 1


def _centre(cell, cols=9):
    r, c = divmod(cell, cols)
    return np.array([c + 0.5, r + 0.5])


def test_document_with_every_rule_kind_lists_them_all():
    assert {entry["rule"] for entry in EVERY_RULE["rules"]} == set(RULES) - set(NEEDS_OTHER_VALUES)


@pytest.mark.parametrize("kind", sorted(NEEDS_OTHER_VALUES))
def test_kinds_of_other_value_sets_draw(tmp_path, kind):
    doc = tmp_path / f"{kind}.json"
    doc.write_text(json.dumps(NEEDS_OTHER_VALUES[kind]))
    out = tmp_path / f"{kind}.svg"
    assert main(["draw", str(doc), "--to", str(out)]) == 0
    assert b"<svg" in out.read_bytes()[:400]


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_every_rule_kind_draws(tmp_path, suffix):
    doc = tmp_path / "every.json"
    doc.write_text(json.dumps(EVERY_RULE))
    out = tmp_path / f"every.{suffix}"
    assert main(["draw", str(doc), "--candidates", "--to", str(out)]) == 0
    data = out.read_bytes()
    assert data[:4] == b"\x89PNG" if suffix == "png" else b"<svg" in data[:400]


@pytest.mark.parametrize("cells,corners,loops", [
    ([0, 1], 4, 1),                      # a domino
    ([0, 1, 9], 6, 1),                   # an L: one concave corner
    ([0, 1, 2, 9, 11, 18, 19, 20], 8, 2),  # a ring around r2c2: an outer loop and a hole
    ([0, 10], 8, 2),                     # two cells touching at a corner: two squares
    ([4, 12, 13, 14, 22], 12, 1),        # a plus
])
def test_cage_outline_follows_the_border_inside_the_cells(cells, corners, loops):
    path = cage_outline(cells, 9, inset=0.1)
    codes = path.codes
    assert (codes == MplPath.MOVETO).sum() == loops and (codes == MplPath.CLOSEPOLY).sum() == loops
    assert (codes == MplPath.LINETO).sum() + loops == corners
    everything = np.array([_centre(k) for k in range(27)])
    assert set(np.flatnonzero(_inside(path, everything)).tolist()) == set(cells)
    # every vertex sits `inset` inside a cell's border: never on a grid line
    frac = path.vertices % 1
    assert np.all(np.isclose(frac, 0.1) | np.isclose(frac, 0.9))


def test_cages_are_dashed_outlines_with_the_sum_at_the_first_cell():
    puzzle = _every_rule_puzzle()
    fig = draw_grid(puzzle)
    (outlines,) = _gid(fig, "cages")
    from pipeline.core.glyphs import rule_glyphs

    # every rule drawn as a cage (killer cages, weighted sums, same-value groups, ...), in rule order
    cages = [g for g in rule_glyphs(puzzle.rules, puzzle.board) if g.kind == "cage"]
    paths = outlines.get_paths()
    assert len(paths) == len(cages) >= 3
    dashes = outlines.get_linestyle()[0]
    assert dashes[1] is not None and len(dashes[1]) >= 2       # dashed, not solid
    centres = np.array([_centre(k) for k in range(81)])
    for glyph, path in zip(cages, paths):
        assert set(np.flatnonzero(_inside(path, centres)).tolist()) == set(glyph.cells)
        assert path.vertices[:, 0].min() == pytest.approx(min(c % 9 for c in glyph.cells) + CAGE_INSET)
    sums = {t.get_text(): t.get_position() for t in _gid(fig, "cage-sum")}
    assert {"12", "25"} <= set(sums) and set(sums) == {g.label for g in cages if g.label}   # no sum, no label
    for text, first in (("12", 9), ("25", 3)):              # r2c1, r1c4: the top row's leftmost cell
        x, y = sums[text]
        r, c = divmod(first, 9)
        assert c < x < c + 0.25 and r < y < r + 0.25
    import matplotlib.pyplot as plt
    plt.close(fig)


def test_thermometer_bulb_and_line_through_the_centres():
    puzzle = _every_rule_puzzle()
    fig = draw_grid(puzzle)
    (bulbs,) = _gid(fig, "thermo-bulbs")
    (lines,) = _gid(fig, "thermo-lines")
    thermo = next(rule for rule in puzzle.rules if rule.kind == "thermo")
    assert np.allclose(bulbs.get_offsets(), [_centre(thermo.cells()[0])])
    assert np.allclose(lines.get_segments()[0], [_centre(k) for k in thermo.cells()])
    assert lines.get_capstyle() == "round" and lines.get_zorder() < 4   # under the digits
    from matplotlib.colors import to_rgba
    assert np.allclose(bulbs.get_facecolor()[0], to_rgba(THERMO_COLOUR))


def test_kropki_dots_on_edge_midpoints_in_their_colours():
    puzzle = _every_rule_puzzle()
    fig = draw_grid(puzzle)
    (dots,) = _gid(fig, "kropki")
    kropki = [rule for rule in puzzle.rules if rule.kind == "kropki"]
    want = [(_centre(rule.first) + _centre(rule.second)) / 2 for rule in kropki]
    assert np.allclose(dots.get_offsets(), want)
    faces = dots.get_facecolor()[:, :3]
    for rule, face in zip(kropki, faces):
        assert np.allclose(face, 0.0 if rule.color == "black" else 1.0)
    (x, y), = [w for rule, w in zip(kropki, want) if rule.value == 3]
    assert any(t.get_text() == "3" and np.allclose(t.get_position(), (x, y)) for t in fig.axes[0].texts)


def test_greater_chevrons_point_to_the_smaller_cell():
    puzzle = _every_rule_puzzle()
    fig = draw_grid(puzzle)
    (chevrons,) = _gid(fig, "greater")
    signs = [rule for rule in puzzle.rules if rule.kind == "greater"]
    for rule, (arm, tip, other) in zip(signs, chevrons.get_segments()):
        big, small = _centre(rule.larger), _centre(rule.smaller)
        assert np.allclose((arm + other) / 2 + (tip - (arm + other) / 2) / 2, (big + small) / 2)  # on the edge
        assert np.linalg.norm(tip - small) < np.linalg.norm(tip - big)
        assert np.linalg.norm(arm - small) > np.linalg.norm(tip - small)


def test_even_squares_odd_circles_windows_and_extra_regions_are_shaded():
    from matplotlib.colors import to_rgba
    puzzle = _every_rule_puzzle()
    fig = draw_grid(puzzle)
    (even,) = _gid(fig, "even")
    (odd,) = _gid(fig, "odd")
    squares = np.array([p.vertices[:4].mean(axis=0) for p in even.get_paths()])
    assert np.allclose(sorted(squares.tolist()), sorted([_centre(k).tolist() for k in (26, 17)]))
    assert np.allclose(even.get_facecolor()[0], to_rgba(PARITY_COLOUR))
    assert np.allclose(odd.get_offsets(), [_centre(35)])
    windows = [c for c in fig.axes[0].collections if c.get_facecolor().shape[0] and
               np.allclose(c.get_facecolor()[0], to_rgba(WINDOW_FILL))]
    assert len(windows) == 1 and len(windows[0].get_paths()) == 36
    caption = _gid(fig, "caption")[0].get_text().replace("\n", " ")   # wrapped to the grid's width
    # the rules drawn with no glyph of their own are named in the caption (global rules)
    assert caption.startswith("disjoint groups · anti-knight · anti-king · non-consecutive")
    assert caption == rule_caption(puzzle)
    strict = parse_puzzle({"size": 9, "rules": [{"rule": "strictkropki", "color": "white"}, {"rule": "strictxv"}]})
    assert rule_caption(strict) == "strict XV · strict Kropki (white dots)"   # which dots are all given


def test_candidates_follow_the_rules_that_see_cells():
    puzzle = parse_puzzle("5" + "." * 80, rules=[
        {"rule": "antiknight"}, {"rule": "cage", "cells": ["r1c1", "r5c5"]},
        {"rule": "even", "cells": ["r9c9"]}, {"rule": "odd", "cells": ["r8c8"]}])
    marks = candidates(puzzle)
    assert not marks[1, 2, 4] and not marks[2, 1, 4]          # a knight's move from r1c1's 5
    assert marks[3, 3, 4]                                       # not seen
    assert not marks[4, 4, 4]                                   # the cage's other cell
    assert not marks[8, 8, 0::2].any() and marks[8, 8, 1::2].all()
    assert not marks[7, 7, 1::2].any()
    killer = parse_puzzle(json.dumps({"size": 4, "givens": "", "rules": [
        {"rule": "cage", "cells": ["r1c1", "r2c2"], "sum": 3}]}))
    solution = solve(build_model(killer)).grid
    filled = solution.copy()
    filled[0, 0] = 0
    assert candidates(killer, filled)[0, 0, solution[0, 0] - 1]   # the answer always stays


def test_violations_highlight_a_broken_cage():
    puzzle = parse_puzzle(json.dumps({"size": 4, "givens": "", "rules": [
        {"rule": "cage", "cells": ["r1c1", "r2c2", "r3c3"], "sum": 6}]}))
    grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])   # units fine; 1 + 4 + 4
    assert {v["kind"] for v in grid_violations(grid, puzzle)} == {"rule"}
    mask = highlight_mask(["violations"], puzzle, grid, None)
    assert set(map(tuple, np.argwhere(mask))) == {(0, 0), (1, 1), (2, 2)}


def test_violations_highlight_through_the_command(tmp_path, monkeypatch):
    import pipeline.cli.commands.draw as draw_module
    doc = tmp_path / "k.json"
    doc.write_text(json.dumps({"size": 4, "givens": "", "rules": [
        {"rule": "cage", "cells": ["r1c1", "r2c2", "r3c3"], "sum": 6}]}))
    grid = tmp_path / "g.txt"
    grid.write_text("1234\n3412\n2143\n4321\n")
    seen = {}
    real = draw_module.draw_grid
    monkeypatch.setattr(draw_module, "draw_grid", lambda p, g=None, **kw: seen.update(kw) or real(p, g, **kw))
    assert main(["draw", str(doc), "--grid", str(grid), "--highlight", "violations", "--to", str(tmp_path / "v.png")]) == 0
    assert set(map(tuple, np.argwhere(seen["highlight"]))) == {(0, 0), (1, 1), (2, 2)}


def _segment_edges(segments):
    """Unit edges ((x0, y0), (x1, y1)) covered by axis-aligned segments along grid lines."""
    edges = set()
    for (x0, y0), (x1, y1) in np.asarray(segments).round().astype(int).tolist():
        if y0 == y1:
            edges |= {((x, y0), (x + 1, y0)) for x in range(min(x0, x1), max(x0, x1))}
        else:
            edges |= {((x0, y), (x0, y + 1)) for y in range(min(y0, y1), max(y0, y1))}
    return edges


def test_samurai_absent_cells_are_blank():
    puzzle = parse_puzzle(json.dumps({"size": 9, "layout": "samurai", "givens": ""}))
    present = puzzle.present.reshape(21, 21)
    solution = solve(build_model(puzzle)).grid
    fig = draw_grid(puzzle, solution)
    ax = fig.axes[0]
    places = np.concatenate([c.get_offsets() for c in ax.collections
                             if (c.get_gid() or "").startswith(("clues-", "filled-"))])
    assert len(places) == present.sum()                         # a digit in every present cell ...
    for x, y in places:                                         # ... and none in an absent one
        assert present[int(y), int(x)]

    def touches_present(edge):
        (x0, y0), (x1, y1) = edge
        if y0 == y1:   # horizontal: the cells above and below
            near = [(y0 - 1, x0), (y0, x0)]
        else:
            near = [(y0, x0 - 1), (y0, x0)]
        return any(0 <= r < 21 and 0 <= c < 21 and present[r, c] for r, c in near)

    for gid in ("thin-lines", "thick-lines"):
        edges = _segment_edges(_gid(fig, gid)[0].get_segments())
        assert edges and all(touches_present(e) for e in edges), gid
    thick = _segment_edges(_gid(fig, "thick-lines")[0].get_segments())
    for r0, c0 in puzzle.layout.origins:                        # each grid's box lines are thick
        for k in range(0, 10, 3):
            assert ((c0 + k, r0), (c0 + k, r0 + 1)) in thick and ((c0, r0 + k), (c0 + 1, r0 + k)) in thick
    assert ((9, 1), (10, 1)) not in _segment_edges(_gid(fig, "thin-lines")[0].get_segments())   # a gap between grids


def test_samurai_grid_and_highlight_through_the_command(tmp_path):
    doc = tmp_path / "s.json"
    doc.write_text(json.dumps({"size": 4, "box": "2x2", "layout": {"grids": ["r1c1", "r3c3"]}, "givens": ""}))
    puzzle = parse_puzzle(str(doc))
    solution = solve(build_model(puzzle)).grid
    grid = tmp_path / "g.txt"
    grid.write_text("\n".join("".join(str(v) if v else "." for v in row) for row in solution) + "\n")
    out = tmp_path / "s.png"
    assert main(["draw", str(doc), "--grid", str(grid), "--highlight", "violations", "--highlight", "r6c6",
                 "--to", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert main(["draw", str(doc), "--solution", "--candidates", "--to", str(out)]) == 0


def test_edge_segments_join_runs_and_skip_gaps():
    horizontal = np.array([[True, True, False, True]])
    vertical = np.zeros((0, 5), dtype=bool)
    assert edge_segments(horizontal, vertical).tolist() == [[[0, 0], [2, 0]], [[3, 0], [4, 0]]]


def test_rules_document_draws_deterministically(tmp_path):
    doc = tmp_path / "every.json"
    doc.write_text(json.dumps(EVERY_RULE))
    digests = set()
    for name in ("a", "b"):
        out = tmp_path / f"{name}.svg"
        assert main(["draw", str(doc), "--to", str(out)]) == 0
        digests.add(hashlib.sha256(out.read_bytes()).hexdigest())
    assert len(digests) == 1


def test_killer_candidates_sit_inside_the_outlines_and_below_the_sums():
    puzzle = parse_puzzle(json.dumps({"size": 4, "givens": "", "rules": [
        {"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}, {"rule": "cage", "cells": ["r2c2", "r3c2"]}]}))
    fig = draw_grid(puzzle, show_candidates=True)
    (sum_label,) = _gid(fig, "cage-sum")
    collections = [c for c in fig.axes[0].collections if (c.get_gid() or "").startswith("candidates-")]
    marks = np.concatenate([c.get_offsets() for c in collections])
    assert len(marks) == int(candidates(puzzle).sum())
    assert sorted(c.get_gid() for c in collections) == [f"candidates-{d}" for d in "1234"]   # one per digit
    for x, y in marks:
        assert CAGE_INSET < x % 1 < 1 - CAGE_INSET and CAGE_INSET < y % 1 < 1 - CAGE_INSET
        if int(x) == 0 and int(y) == 0:          # the first cell of the cage with a sum
            assert y > sum_label.get_position()[1] + 0.2


def test_marks_are_one_collection_per_digit_however_many_there_are():
    """An outside report: ``draw --candidates`` of an empty 100x100 ran 10 minutes in 9.5 GB (a
    text artist per mark; 25x25: 42 s). Each digit's outline is now one collection stamped at
    its marks' places, where :func:`mark_places` puts them."""
    from pipeline.core.puzzle import Puzzle
    from pipeline.core.svg import mark_places

    puzzle = Puzzle(np.zeros((25, 25), dtype=int), 5, 5)
    fig = draw_grid(puzzle, show_candidates=True)
    ax = fig.axes[0]
    collections = {c.get_gid(): c for c in ax.collections if (c.get_gid() or "").startswith("candidates-")}
    assert len(collections) == 25 and not [t for t in ax.texts if t.get_text().isdigit()]
    xs, ys, digits, _ = mark_places(puzzle, candidates(puzzle))
    for d in range(1, 26):
        at = collections[f"candidates-{d}"].get_offsets()
        assert np.array_equal(np.asarray(at), np.column_stack([xs[digits == d], ys[digits == d]]))
    assert sum(len(c.get_offsets()) for c in collections.values()) == 25 ** 3


def test_windoku_windows_on_a_jigsaw_are_hatched_and_keep_the_region_colours():
    """An outside probe: on a jigsaw the windows' pale blue fill replaced the regions' fills, and
    looked like the blue region's own: neither the windows nor those cells' regions showed."""
    from matplotlib.colors import to_rgba

    from pipeline.tools.draw import WINDOW_FILL, WINDOW_HATCH
    from pipeline.tools.generate import generate

    g = next(generate(size=9, seed=1, variant="jigsaw", rules=[{"rule": "windoku"}]))
    fig = draw_grid(g.puzzle)
    (windows,) = _gid(fig, "windows")
    assert windows.get_hatch() == "///" and len(windows.get_paths()) == 36
    assert np.allclose(windows.get_edgecolor()[0], to_rgba(WINDOW_HATCH))
    fills = [c for c in fig.axes[0].collections if len(c.get_facecolor()) and c.get_gid() != "windows"]
    assert not any(np.allclose(f, to_rgba(WINDOW_FILL)) for c in fills for f in c.get_facecolor())
    plain = draw_grid(parse_puzzle("0" * 81, rules=[{"rule": "windoku"}]))   # no regions: filled as before
    assert not [a for a in plain.axes[0].get_children() if a.get_gid() == "windows"]
    assert any(np.allclose(f, to_rgba(WINDOW_FILL)) for c in plain.axes[0].collections for f in c.get_facecolor())


def test_outside_clues_of_several_kinds_are_told_apart_and_never_overlap():
    """An outside probe: a sandwich sum and an X-sum on one row end were printed on top of each
    other, and skyscraper, sandwich, X-sum and numbered-room clues were all bare black numbers.
    Clues sharing a place now stand side by side; several kinds get a colour each, which the
    caption names; one kind alone stays black."""
    from matplotlib.colors import to_rgba

    from pipeline.core.glyphs import OUTSIDE_COLOURS

    puzzle = parse_puzzle(json.dumps({"size": 9, "givens": "", "rules": [
        {"rule": "sandwich", "clue": "r3c10", "sum": 19}, {"rule": "xsum", "clue": "r3c10", "sum": 6},
        {"rule": "sandwich", "clue": "r0c2", "sum": 7}]}))
    fig = draw_grid(puzzle)
    texts = {(t.get_gid(), t.get_text()): t for t in fig.axes[0].texts}
    a, b = texts[("sandwich", "19")], texts[("xsum", "6")]
    assert a.get_position()[0] == b.get_position()[0] and abs(a.get_position()[1] - b.get_position()[1]) > 0.3
    above = draw_grid(parse_puzzle(json.dumps({"size": 9, "givens": "", "rules": [   # above a column: one over
        {"rule": "sandwich", "clue": "r0c1", "sum": 35}, {"rule": "xsum", "clue": "r0c1", "sum": 45}]})))
    c, d = [t for t in above.axes[0].texts if t.get_text() in ("35", "45")]   # the other ("4535" side by side)
    assert c.get_position()[0] == d.get_position()[0] and abs(c.get_position()[1] - d.get_position()[1]) > 0.3
    assert to_rgba(a.get_color()) != to_rgba(b.get_color())
    assert to_rgba(texts[("sandwich", "7")].get_color()) == to_rgba(a.get_color()) == to_rgba(OUTSIDE_COLOURS[0][0])
    (caption,) = _gid(fig, "caption")
    assert caption.get_text().replace("\n", " ") == "sandwich clues in black · X-sum clues in blue"
    alone = draw_grid(parse_puzzle(json.dumps({"size": 9, "givens": "", "rules": [
        {"rule": "sandwich", "clue": "r3c10", "sum": 19}]})))
    assert not [t for t in alone.axes[0].texts if t.get_gid() == "caption"]


def test_no_two_rule_kinds_share_the_grey_disc_or_the_grey_arrow():
    """An outside probe: counting circles, pill cells and double-arrow ends were the grey disc of
    odd cells, and a value-indexing line the grey arrow of a sum arrow: the puzzle as drawn was not
    the puzzle. The grey disc now means odd cells alone, the grey arrow sum arrows alone."""
    from pipeline.tools.draw_rules import picture_glyphs

    glyphs = picture_glyphs(_every_rule_puzzle())
    discs = {g.name for g in glyphs if g.kind == "mark" and g.style == "circle" and not g.colour}
    assert discs == {"odd"}
    grey_arrows = {g.name for g in glyphs if g.kind == "line" and g.style == "arrow" and not g.colour}
    assert grey_arrows == {"arrow", "pillarrow"}   # a pill arrow is an arrow, its pill drawn in rings
    shaded = {g.name for g in glyphs if g.kind == "shade"}
    assert "lunchbox" in shaded and "cage" not in shaded   # a lunchbox is a shaded cage, a killer's plain
