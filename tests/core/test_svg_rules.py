"""The rules in notebook pictures (issue 32): the SVG of a killer, thermo, Kropki and anti-knight
puzzle shows what ``draw`` shows (cages with sums, thermometers, dots), its title names the
rules, and it stays valid XML."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from pipeline.core.glyphs import Glyph
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rules import RULES, Rule
from pipeline.core.svg import grid_svg

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NS = {"s": "http://www.w3.org/2000/svg"}


def _picture(name):
    puzzle = parse_puzzle(str(EXAMPLES / name))
    root = ET.fromstring(grid_svg(puzzle))           # well-formed XML, or this raises
    return puzzle, root


def _classed(root, tag, word):
    return [e for e in root.iter(f"{{{NS['s']}}}{tag}") if word in (e.get("class") or "").split()]


def test_killer_shows_one_dashed_outline_per_cage_and_every_sum():
    puzzle, root = _picture("killer.json")
    cages = [rule for rule in puzzle.rules if rule.kind == "cage"]
    paths = _classed(root, "path", "cage")
    assert len(paths) == len(cages) == 29
    assert all(p.get("d").count("M") >= 1 and p.get("d").endswith("Z") for p in paths)
    assert root.find(".//s:g[@class='cages']/s:g[@stroke-dasharray]", NS) is not None
    sums = [t.text for t in _classed(root, "text", "cage-sum")]
    assert sorted(sums) == sorted(str(rule.total) for rule in cages)
    assert root.find("s:title", NS).text == "9x9 classic, 0 clues; 29 killer cages"


def test_cage_sum_sits_in_the_top_left_corner_of_the_cage_first_cell():
    puzzle, root = _picture("killer.json")
    cell = (float(root.get("width")) - 4) / 9
    by_text = {}
    for t in _classed(root, "text", "cage-sum"):
        by_text.setdefault(t.text, []).append((float(t.get("x")), float(t.get("y"))))
    for rule in puzzle.rules:
        r, c = divmod(int(rule.cells().min()), 9)
        assert any(2 + c * cell < x < 2 + (c + 0.3) * cell and 2 + r * cell < y < 2 + (r + 0.4) * cell
                   for x, y in by_text[str(rule.total)]), rule.describe(puzzle.board)


def test_thermometers_have_a_bulb_on_their_first_cell_and_a_line():
    puzzle, root = _picture("thermo.json")
    thermos = [rule for rule in puzzle.rules if rule.kind == "thermo"]
    bulbs = _classed(root, "circle", "thermo-bulb")
    lines = _classed(root, "polyline", "thermo-line")
    assert len(bulbs) == len(lines) == len(thermos) == 4
    cell = (float(root.get("width")) - 4) / 9
    for rule, bulb, line in zip(thermos, bulbs, lines):
        r, c = divmod(int(rule.cells()[0]), 9)
        assert (float(bulb.get("cx")), float(bulb.get("cy"))) == pytest.approx((2 + (c + 0.5) * cell, 2 + (r + 0.5) * cell))
        assert len(line.get("points").split()) == rule.cells().size
    assert root.find("s:title", NS).text.endswith("; 4 thermometers")


def test_kropki_dots_one_per_dot_on_the_shared_edge_in_its_colour():
    puzzle, root = _picture("kropki.json")
    dots = [rule for rule in puzzle.rules if rule.kind == "kropki"]
    circles = _classed(root, "circle", "kropki")
    assert len(circles) == len(dots) == 34
    cell = (float(root.get("width")) - 4) / 9
    for rule, circle in zip(dots, circles):
        (ra, ca), (rb, cb) = divmod(rule.first, 9), divmod(rule.second, 9)
        want = (2 + ((ca + cb) / 2 + 0.5) * cell, 2 + ((ra + rb) / 2 + 0.5) * cell)
        assert (float(circle.get("cx")), float(circle.get("cy"))) == pytest.approx(want, abs=0.01)
        assert circle.get("fill") == ("#000000" if rule.color == "black" else "#ffffff")
    assert {c.get("fill") for c in circles} == {"#000000", "#ffffff"}
    assert root.find("s:title", NS).text.endswith("; 34 Kropki dots")


def test_global_rules_are_named_in_the_title_and_draw_nothing_on_cells():
    puzzle, root = _picture("antiknight_antiking.fpuzzles")
    assert root.find("s:title", NS).text == f"9x9 classic, {puzzle.n_clues} clues; anti-knight; anti-king"
    assert root.find(".//s:g[@class='rules-under']", NS) is None and root.find(".//s:g[@class='cages']", NS) is None


def test_every_built_in_rule_kind_draws_valid_xml():
    puzzle, root = _picture("draw_rules.json")
    assert len(_classed(root, "polyline", "chevron")) == sum(rule.kind == "greater" for rule in puzzle.rules)
    assert len(_classed(root, "circle", "odd")) == sum(len(r.cells()) for r in puzzle.rules if r.kind == "odd")
    assert _classed(root, "path", "windoku")
    assert "windoku" in root.find("s:title", NS).text


class _Arrowish(Rule):
    """A rule that only declares glyphs: the picture shows it without any change of svg.py."""
    kind = "arrowish"
    noun = "arrowish line"

    def glyphs(self, board):
        return [Glyph("line", (0, 1, 2), style="arrow"), Glyph("line", (9, 10), style="line", colour="#2a9d2a"),
                Glyph("mark", (40,), style="text", label="12"), Glyph("dot", (0, 1, 9, 10), colour="white", label="1234"),
                Glyph("outside", (0,), step=(1, 1), label="23"), Glyph("outside", (8,), step=(0, -1), label="7")]


def test_a_new_rule_shows_by_declaring_glyphs_and_outside_clues_get_a_margin():
    plain = parse_puzzle("0" * 81)
    puzzle = parse_puzzle("0" * 81)
    object.__setattr__(puzzle, "rules", (_Arrowish(),))   # a rule the registry does not know
    root = ET.fromstring(grid_svg(puzzle))
    assert root.find("s:title", NS).text == "9x9 classic, 0 clues; 1 arrowish line"
    assert len(_classed(root, "circle", "arrow-circle")) == 1 and len(_classed(root, "polyline", "arrow-head")) == 1
    labels = {t.text for t in root.iter(f"{{{NS['s']}}}text")}
    assert {"12", "1234", "23", "7"} <= labels
    side = float(root.get("width"))
    assert side > float(ET.fromstring(grid_svg(plain)).get("width"))      # a margin for the outside clues
    xs = np.array([float(t.get("x")) for t in _classed(root, "text", "outside")])
    assert xs.min() > 0 and xs.max() < side
    assert "arrowish" not in RULES


def test_counting_circles_and_a_pairs_cells_are_rings_not_the_grey_discs_of_odd_cells():
    """An outside probe: counting circles were the same light-grey disc as odd cells."""
    import json
    puzzle = parse_puzzle(json.dumps({"size": 4, "givens": "", "rules": [
        {"rule": "odd", "cells": ["r1c1"]}, {"rule": "countingcircles", "cells": ["r2c3", "r3c3"]}]}))
    root = ET.fromstring(grid_svg(puzzle))
    (odd,), counting = _classed(root, "circle", "odd"), _classed(root, "circle", "countingcircles")
    assert len(counting) == 2
    counting = counting[0]
    assert odd.get("fill") not in (None, "none") and odd.get("stroke") is None
    assert counting.get("fill") == "none" and counting.get("stroke")


def test_outside_clues_sharing_a_place_stand_side_by_side_in_the_svg_too():
    """The notebook SVG and draw place outside clues alike (pipeline.core.glyphs.outside_layout)."""
    import json
    puzzle = parse_puzzle(json.dumps({"size": 9, "givens": "", "rules": [
        {"rule": "sandwich", "clue": "r3c10", "sum": 19}, {"rule": "xsum", "clue": "r3c10", "sum": 6}]}))
    root = ET.fromstring(grid_svg(puzzle))
    (a,), (b,) = _classed(root, "text", "sandwich"), _classed(root, "text", "xsum")
    assert a.get("x") == b.get("x") and abs(float(a.get("y")) - float(b.get("y"))) > 10
    assert a.get("fill") != b.get("fill")


def test_a_little_killer_sharing_a_place_with_a_sandwich_sum_stands_beside_it():
    """A little killer's clue looks along a diagonal, so its first cell is another column's: the
    place is the cell one step back. Its 9 and the sandwich's 4 below column 3 were printed over
    each other, in both renderers."""
    import json

    from pipeline.tools.draw_rules import picture_glyphs
    from pipeline.core.glyphs import outside_layout
    puzzle = parse_puzzle(json.dumps({"size": 6, "rules": [
        {"rule": "littlekiller", "sum": 9, "cells": ["r6c2", "r5c1"], "clue": "r7c3"},
        {"rule": "sandwich", "clue": "r7c3", "sum": 4}, {"rule": "sandwich", "clue": "r0c3", "sum": 5}]}))
    root = ET.fromstring(grid_svg(puzzle))
    (killer,), below_and_above = _classed(root, "text", "littlekiller"), _classed(root, "text", "sandwich")
    below = max(below_and_above, key=lambda t: float(t.get("y")))
    assert killer.get("x") == below.get("x") and abs(float(killer.get("y")) - float(below.get("y"))) > 5
    clues = [g for g in picture_glyphs(puzzle) if g.kind == "outside"]
    shifts, scales, _ = outside_layout(clues, 6)
    assert shifts[0] == -shifts[1] != 0 and scales[:2] == [0.8, 0.8] and (shifts[2], scales[2]) == (0.0, 1.0)


def test_text_marks_sharing_a_cell_stand_side_by_side():
    # ISS either/or: two branches give r1c2 a 1 and a 2; both labels were written at the cell's
    # centre, one over the other (an unreadable glyph in every cell of ISS 'Either/Or')
    puzzle = parse_puzzle(".Or.~R1C2_1.~R1C1_1.End.Or.~R1C2_2.~R1C3_2.End")
    root = ET.fromstring(grid_svg(puzzle))
    texts = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.text in ("1", "2")
             and "anyof" in (t.get("class") or "")]
    spots = sorted((round(float(t.get("x")), 1), round(float(t.get("y")), 1)) for t in texts)
    assert len(spots) == 4 and len(set(spots)) == 4, spots
