"""Glyphs (pipeline.core.glyphs): what each built-in rule looks like, the same for the notebook
SVG and draw, and how picture titles name the rules."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pipeline.core.glyphs import GLYPH_KINDS, Glyph, cage_loops, rule_caption, rule_glyphs, rule_titles
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rules import RULES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_every_built_in_rule_kind_declares_glyphs_or_is_global():
    puzzle = parse_puzzle(str(EXAMPLES / "draw_rules.json"))
    glyphs = rule_glyphs(puzzle.rules, puzzle.board)
    for rule in puzzle.rules:
        mine = [g for g in glyphs if g.name == rule.kind]
        assert bool(mine) != RULES[rule.kind].global_rule or rule.kind == "windoku", rule.kind
    for g in glyphs:
        assert g.style in GLYPH_KINDS[g.kind]
        assert all(puzzle.present.ravel()[c] for c in g.cells)


def test_killer_glyphs_are_its_cages_with_their_sums():
    puzzle = parse_puzzle(str(EXAMPLES / "killer.json"))
    glyphs = rule_glyphs(puzzle.rules, puzzle.board)
    assert [g.kind for g in glyphs] == ["cage"] * len(puzzle.rules)
    assert [g.label for g in glyphs] == [str(rule.total) for rule in puzzle.rules]
    assert sorted(c for g in glyphs for c in g.cells) == list(range(81))   # this killer covers the grid


def test_kropki_and_greater_glyphs_keep_colour_value_and_direction():
    puzzle = parse_puzzle("0" * 16, rules=[
        {"rule": "kropki", "color": "black", "cells": ["r1c1", "r1c2"]},
        {"rule": "kropki", "color": "white", "cells": ["r2c1", "r2c2"], "value": 3},
        {"rule": "greater", "cells": ["r4c4", "r3c4"]}])
    glyphs = rule_glyphs(puzzle.rules, puzzle.board)   # in row order: greater before kropki
    black, white = [g for g in glyphs if g.name == "kropki"]
    (sign,) = [g for g in glyphs if g.name == "greater"]
    assert (black.colour, black.label, white.colour, white.label) == ("black", "", "white", "3")
    assert (sign.style, sign.cells) == ("chevron", (15, 11))


@pytest.mark.parametrize("rules,want", [
    ([{"rule": "antiknight"}, {"rule": "antiking"}], ["anti-knight", "anti-king"]),
    ([{"rule": "thermo", "cells": ["r1c1", "r1c2"]}], ["1 thermometer"]),
    ([{"rule": "even", "cells": ["r1c1", "r1c2"]}, {"rule": "even", "cells": ["r2c2"]}], ["3 even cells"]),
    ([{"rule": "diagonal", "which": "main"}, {"rule": "diagonal", "which": "anti"}], ["both diagonals"]),
])
def test_titles_count_and_name_the_rules(rules, want):
    assert rule_titles(parse_puzzle("0" * 81, rules=rules).rules) == want


def test_a_glyph_of_an_unknown_kind_or_style_is_refused():
    with pytest.raises(ValueError, match="glyph"):
        Glyph("blob", (0,))
    with pytest.raises(ValueError, match="glyph"):
        Glyph("line", (0, 1), style="zigzag")


def test_cage_loops_of_a_ring_are_an_outer_loop_and_a_hole():
    loops = cage_loops([0, 1, 2, 9, 11, 18, 19, 20], 9, inset=0.1)
    assert sorted(len(loop) for loop in loops) == [4, 4]
    frac = np.concatenate(loops) % 1
    assert np.all(np.isclose(frac, 0.1) | np.isclose(frac, 0.9))


def test_two_same_values_rules_number_their_cages_and_one_keeps_its_plain_mark():
    """Four alike "=" cages did not say which two go together."""
    from pipeline.core.glyphs import rule_glyphs
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.tools.draw_rules import picture_glyphs
    two = parse_puzzle({"size": 9, "rules": [
        {"rule": "samevalues", "groups": [["r1c1"], ["r5c5"]]},
        {"rule": "cage", "cells": ["r3c3", "r3c4"], "sum": 5},
        {"rule": "samevalues", "groups": [["r1c2", "r1c3"], ["r9c8", "r9c9"]]}]})
    for glyphs in (rule_glyphs(two.rules, two.board), picture_glyphs(two)):   # both renderers' glyphs
        labels = [(g.name, g.label) for g in glyphs]   # the puzzle keeps its rules by kind
        assert labels == [("cage", "5"), ("samevalues", "=1"), ("samevalues", "=1"),
                          ("samevalues", "=2"), ("samevalues", "=2")]
    one = parse_puzzle({"size": 9, "rules": [{"rule": "samevalues", "groups": [["r1c1"], ["r5c5"]]}]})
    assert [g.label for g in rule_glyphs(one.rules, one.board)] == ["=", "="]


def test_the_caption_lists_each_pairwise_rules_allowed_pairs_after_its_label():
    """A pairwise rule's line and rings did not say which pairs it allows: its first cell says
    ``P`` (``P1``, ``P2`` with several) and the caption lists the pairs after that label."""
    many = [[a, b] for a in range(1, 10) for b in range(1, 10) if abs(a - b) >= 5]   # 20 pairs
    two = parse_puzzle({"size": 9, "rules": [
        {"rule": "antiknight"},
        {"rule": "pair", "cells": ["r1c1", "r1c2", "r1c3"], "allowed": [[3, 4], [1, 2], [2, 3]]},
        {"rule": "pair", "cells": ["r5c5", "r6c6"], "allowed": [[1, 9], [9, 1]], "all": True, "name": "ends"},
        {"rule": "pair", "cells": ["r9c1", "r9c2"], "allowed": many}]})
    labels = [(g.cells, g.label) for g in rule_glyphs(two.rules, two.board) if g.kind == "mark" and g.style == "text"]
    assert labels == [((0,), "P1"), ((40,), "P2"), ((72,), "P3")]
    shown = ", ".join(f"{a}-{b}" for a, b in sorted(map(tuple, many))[:12])
    assert rule_caption(two.rules, two.board).split(" · ") == [
        "anti-knight", "P1: 1-2, 2-3, 3-4", "P2: 'ends' 1-9, 9-1 (every two cells, both orders)",
        f"P3: {shown} and {len(many) - 12} more"]
    one = parse_puzzle({"size": 4, "rules": [{"rule": "pair", "cells": ["r1c1", "r1c2"], "allowed": [[1, 2]]}]})
    assert rule_caption(one.rules, one.board) == "P: 1-2"


def test_an_iss_variables_extra_cells_are_left_out_of_the_glyphs():
    # House of Cards (ISS): automaton lines run through skyscraper variables, cells 36.. of a 6x6;
    # the notebook SVG drew those lines down from the grid into the caption
    path = Path(__file__).resolve().parents[1] / "data" / "iss" / "collections.jsonl"
    text = next(json.loads(line)["input"] for line in path.open(encoding="utf-8") if '"name": "House of Cards"' in line)
    puzzle = parse_puzzle(text)
    glyphs = rule_glyphs(puzzle.rules, puzzle.board)
    assert glyphs and max(max(g.cells) for g in glyphs) < 36
    assert (0, 1, 2, 3, 4, 5) in [g.cells for g in glyphs]   # a line from r1c1 along row 1, its count cut off


def test_a_line_s_non_standard_parameter_is_written_on_its_first_cell():
    # a whisper of difference 4 (Dutch), a lockout of 5, a modular line of mod 4 drew exactly
    # as the standard ones: the picture said nothing of the number
    puzzle = parse_puzzle("0" * 81, rules=[
        {"rule": "whisper", "cells": ["r1c1", "r1c2", "r1c3"], "diff": 4},
        {"rule": "whisper", "cells": ["r2c1", "r2c2"]},
        {"rule": "lockout", "cells": ["r3c1", "r3c2", "r3c3"], "diff": 5},
        {"rule": "lockout", "cells": ["r4c1", "r4c2", "r4c3"]},
        {"rule": "modular", "cells": ["r5c1", "r5c2", "r5c3", "r5c4"], "mod": 4},
        {"rule": "modular", "cells": ["r6c1", "r6c2", "r6c3"]},
    ])
    texts = [(g.name, g.cells, g.label) for g in rule_glyphs(puzzle.rules, puzzle.board)
             if g.kind == "mark" and g.style == "text"]
    assert texts == [("whisper", (0,), "\u22654"), ("lockout", (18,), "\u22655"), ("modular", (36,), "mod 4")]


def test_the_caption_names_rules_whose_extra_cells_the_picture_leaves_out():
    # ISS 'Dutch-pelgänger': whispers through the doppelganger cells (DGC2, DGR6, ...) lie wholly
    # off the canvas and vanished from the picture without a word
    puzzle = parse_puzzle(".Shape~9x9~0-9.Doppelganger.Whisper~4~R9C4~R8C5~R7C6.Whisper~4~DGC2~DGC3~DGC4"
                          ".Whisper~4~DGR6~DGR7~DGR8")
    caption = rule_caption(puzzle.rules, puzzle.board)
    assert "not drawn, on extra cells only: 2 German whispers" in caption
    assert "drawn without their extra cells: 27 killer cages" in caption


def test_a_regex_line_shows_where_it_is_read_from_and_its_pattern_in_the_caption():
    # the pattern (ISS 'Easy as a Quattroquadri': [124578]*3.* and two more) was in no picture
    puzzle = parse_puzzle("0" * 81, rules=[
        {"rule": "regex", "pattern": "[1-4]*3.*", "cells": ["r1c3", "r1c2", "r1c1"]},
        {"rule": "regex", "pattern": "9.*", "cells": ["r2c1", "r2c2"]}])
    texts = [(g.cells, g.label) for g in rule_glyphs(puzzle.rules, puzzle.board) if g.style == "text"]
    assert texts == [((2,), "re1"), ((9,), "re2")]
    assert rule_caption(puzzle.rules, puzzle.board) == "re1: [1-4]*3.* · re2: 9.*"


def test_outside_labels_of_three_characters_are_smaller_so_neighbours_keep_apart():
    # ISS '4x4: Full Rank - with ties': "#10" over column 1 and "#15" over column 2 read "#10#15"
    from pipeline.core.glyphs import outside_layout
    puzzle = parse_puzzle(".Shape~4x4.FullRank~C1~10~.FullRank~C2~15~.FullRank~R4~5~.FullRankTies~any")
    clues = [g for g in rule_glyphs(puzzle.rules, puzzle.board) if g.kind == "outside"]
    _, scales, _ = outside_layout(clues, puzzle.board.cols)
    assert {g.label: s for g, s in zip(clues, scales)} == {"#10": 0.6667, "#15": 0.6667, "#5": 1.0}


def test_equality_cages_and_same_values_cages_have_distinct_labels_and_the_caption_says_eq_once():
    # both were "=": a puzzle with both did not say which cage is which
    puzzle = parse_puzzle(".EqualityCage~R1C1~R1C2.EqualityCage~R3C2~R3C3.SameValues~2~R5C5~R6C6~R7C7~R8C8")
    labels = {(g.name, g.label) for g in rule_glyphs(puzzle.rules, puzzle.board)}
    assert labels == {("equalitycage", "eq"), ("samevalues", "=")}
    assert rule_caption(puzzle.rules, puzzle.board) == "eq: distinct, as many even as odd and as many low as high"


def test_an_automaton_line_shows_nfa_where_it_is_read_from_and_its_name_in_the_caption():
    # ISS 'Sequence sudoku': seven NFA lines named "Arithmetic series" drew as plain lines, the
    # rule nowhere; lines of one name share a label, other names and unnamed ones are numbered

    def line(cells: list[str], name: str = "") -> dict:
        rule = {"rule": "automaton", "cells": cells, "states": 1, "start": [0], "accept": [0],
                "transitions": [[0, v, 0] for v in range(1, 10)]}
        return {**rule, "name": name} if name else rule
    puzzle = parse_puzzle("0" * 81, rules=[line(["r1c1", "r1c2"], "Arithmetic series"),
                                           line(["r2c1", "r2c2"], "Arithmetic series"),
                                           line(["r3c1", "r3c2"], "Palindrome"), line(["r4c1", "r4c2"])])
    texts = [(g.cells, g.label) for g in rule_glyphs(puzzle.rules, puzzle.board) if g.style == "text"]
    assert texts == [((0,), "nfa1"), ((9,), "nfa1"), ((18,), "nfa2"), ((27,), "nfa3")]
    assert rule_caption(puzzle.rules, puzzle.board) == \
        "nfa1: Arithmetic series · nfa2: Palindrome · nfa3: an unnamed automaton (not drawn)"
    one = parse_puzzle("0" * 81, rules=[line(["r1c1", "r1c2"], "Arithmetic series"),
                                        line(["r2c1", "r2c2"], "Arithmetic series")])
    assert rule_caption(one.rules, one.board) == "nfa: Arithmetic series"


def test_the_caption_says_what_a_chaos_constructions_region_clues_look_like():
    # ISS 'Stretching', 'Let there be chaos': the clues were not drawn and the caption said only
    # "chaos construction"; arrows and counts were drawn next, the other sorts tallied as "not
    # drawn"; now every sort is drawn and the caption says what each mark means
    puzzle = parse_puzzle(".Shape~4x4.NoBoxes.ChaosConstruction.ChaosArrow~R1C1~0~CC1~-~CC1~CC5~CC9"
                          ".ChaosArrow~R1C2~0~CC2~-~CC2~CC6.ChaosCount~R2C1~0~CC5~CC1~CC2"
                          ".AllDifferent~CC1~CC16")
    caption = rule_caption(puzzle.rules, puzzle.board)
    assert caption.startswith("chaos construction (orange arrows: ")
    assert caption.endswith("orange lines: cells in different regions)") and "not drawn" not in caption
    assert "chaos arrow" not in caption and "chaos count" not in caption


def test_a_chaos_constructions_arrows_and_counts_are_drawn():
    # 'Chaos Construction: 6x6' drew its 18 arrows as a caption line only
    puzzle = parse_puzzle(".Shape~4x4.NoBoxes.ChaosConstruction.ChaosArrow~R1C1~0~CC1~-~CC1~CC5~CC9"
                          ".ChaosArrow~R4C4~1~CC15~CC14.ChaosCount~R2C1~0~CC5~CC1~CC2.ChaosCount~R3C3")
    glyphs = rule_glyphs(puzzle.rules, puzzle.board)
    arrows = [g.cells for g in glyphs if g.kind == "line" and g.style == "arrow"]
    assert arrows == [(0, 4, 8), (14, 13)]                        # the one-cell arm left out
    assert [g.cells for g in glyphs if g.kind == "mark" and g.style == "ring"] == [(15,)]   # clue off its arrow
    assert [g.cells for g in glyphs if g.kind == "mark" and g.style == "square"] == [(4,), (10,)]
    assert [g.cells for g in glyphs if g.kind == "cage"] == [(0, 1, 4)]   # R3C3's default neighbourhood: no outline
    assert [(g.cells, g.label) for g in glyphs if g.style == "text"] == [((15,), "-1")]
    assert "not drawn" not in rule_caption(puzzle.rules, puzzle.board)
    bare = parse_puzzle(".Shape~4x4.NoBoxes.ChaosConstruction")
    assert rule_caption(bare.rules, bare.board) == "chaos construction"


def test_the_caption_asks_each_rules_legend_once(monkeypatch):
    """rule_caption asked the legend of every rule without glyphs (anti-knight) or named in the
    caption (a chaos construction, whose legend walks its region clues) twice: once after its
    name, once more in the loop of the drawn rules' labels, which then threw it away."""
    puzzle = parse_puzzle(".Shape~4x4.NoBoxes.ChaosConstruction.AllDifferent~CC1~CC2", rules=[
        {"rule": "antiknight"}, {"rule": "pair", "cells": ["r1c1", "r1c2"], "allowed": [[1, 2]]}])
    calls: dict[int, int] = {}
    for kind in {type(rule) for rule in puzzle.rules}:
        def counted(rule, board, _legend=kind.legend):
            calls[id(rule)] = calls.get(id(rule), 0) + 1
            return _legend(rule, board)
        monkeypatch.setattr(kind, "legend", counted)
    caption = rule_caption(puzzle.rules, puzzle.board)
    assert {"anti-knight", "P: 1-2"} <= set(caption.split(" · ")) and "chaos construction (" in caption, caption
    assert calls == {id(rule): 1 for rule in puzzle.rules}
