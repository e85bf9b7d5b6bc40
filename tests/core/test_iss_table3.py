"""ISS strings of the outside clues and counting circles (pipeline/core/iss_table3.py): Skyscraper,
XSum, NumberedRoom, Sandwich (a right or bottom clue as a whole-line Lunchbox), CountingCircles,
ContainAtLeast over a 2x2 square (elsewhere: tests/core/test_rule_contains.py); and Pair keys on a 0..N-1 grid (the key indexes value positions).
Hypothesis round trips document -> ISS -> document, the readers' meanings by hand, refusals, and
ISS's own puzzles of these types: they read, and their published solutions keep every rule."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pipeline
from oracles import ISS_COLLECTION
from pipeline.cli.main import main
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_table2 import pair_table
from pipeline.core.iss_table3 import clue_line, clue_place
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

ISS_FILE = ISS_COLLECTION
NEW_TYPES = ("Skyscraper", "HiddenSkyscraper", "XSum", "NumberedRoom", "Sandwich", "CountingCircles", "Pair", "PairX")
BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}
#: kind -> (value key, lowest and highest clue on an n-digit grid)
CLUES = {"skyscraper": ("count", lambda n: (1, n)), "xsum": ("sum", lambda n: (1, n * n)),
         "numberedroom": ("digit", lambda n: (1, n)), "sandwich": ("sum", lambda n: (0, (n - 2) * (n + 1) // 2)),
         "hiddenskyscraper": ("digit", lambda n: (1, n))}


def _places(n: int) -> list[str]:
    ends = [(0, k) for k in range(1, n + 1)] + [(n + 1, k) for k in range(1, n + 1)]
    ends += [(k, 0) for k in range(1, n + 1)] + [(k, n + 1) for k in range(1, n + 1)]
    return [f"r{r}c{c}" for r, c in ends]


@st.composite
def outside_documents(draw):
    """Random documents of outside clues (every side, each place once per kind) and counting circles."""
    n = draw(st.sampled_from([4, 6, 9, 16]))
    h, w = BOXES[n]
    zero = draw(st.booleans())        # ISS's 0..N-1 grid: every clue takes the values' meaning
    rules: list[dict] = []
    for kind in draw(st.lists(st.sampled_from(sorted(CLUES)), min_size=1, max_size=4)):
        key, span = CLUES[kind]
        lo, hi = span(n)
        if zero and kind in ("numberedroom", "hiddenskyscraper"):   # a value of the set
            lo, hi = lo - 1, hi - 1
        elif zero and kind != "skyscraper":   # sums of the values 0..N-1
            hi = (n - 2) * (n - 1) // 2 if kind == "sandwich" else (n - 1) ** 2
        for place in draw(st.lists(st.sampled_from(_places(n)), min_size=1, max_size=3, unique=True)):
            if not any(e["rule"] == kind and e["clue"] == place for e in rules):
                rules.append({"rule": kind, "clue": place, key: draw(st.integers(lo, hi))})
    if draw(st.booleans()):
        cells = draw(st.lists(st.tuples(st.integers(1, n), st.integers(1, n)), min_size=1, max_size=6, unique=True))
        rules.append({"rule": "countingcircles", "cells": [f"r{r}c{c}" for r, c in cells]})
    return {"size": n, "box": f"{h}x{w}", "givens": [], "rules": rules, **({"values": f"0-{n - 1}"} if zero else {})}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outside_documents())
def test_document_iss_document_round_trip(doc):
    puzzle = parse_puzzle(doc)
    text = iss_from_puzzle(puzzle)
    again = parse_puzzle(text)
    assert again.to_document() == puzzle.to_document(), text
    assert iss_from_puzzle(again) == text


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([4, 9, 16]).flatmap(lambda n: st.tuples(st.just(n), st.sampled_from(_places(n)))))
def test_clue_places_and_iss_lines_are_inverse(case):
    n, place = case
    line, direction = clue_line(place, n)
    assert re.fullmatch(r"[RC](\d+)", line) and 1 <= int(line[1:]) <= n   # ISS's line ids are decimal
    assert clue_place(line, direction, n) == place


def test_the_readers_meanings():
    rules = document_from_iss(".Skyscraper~R1~3~2.XSum~C2~27~.NumberedRoom~C1~~6.Sandwich~8~R4"
                              ".CountingCircles~R5C5~R6C6.ContainAtLeast~1_2~R2C2~R2C1~R1C1~R1C2")["rules"]
    assert rules[:2] == [{"rule": "skyscraper", "clue": "r1c0", "count": 3},     # from the left
                         {"rule": "skyscraper", "clue": "r1c10", "count": 2}]    # from the right
    assert rules[2] == {"rule": "xsum", "clue": "r0c2", "sum": 27}               # from the top
    assert rules[3] == {"rule": "numberedroom", "clue": "r10c1", "digit": 6}     # from the bottom
    assert rules[4] == {"rule": "sandwich", "clue": "r4c0", "sum": 8}            # ISS: left or top only
    assert rules[5] == {"rule": "countingcircles", "cells": ["r5c5", "r6c6"]}
    assert rules[6] == {"rule": "quadruple", "cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "digits": [1, 2]}
    # decimal line numbers on a 16x16 grid (cells stay base 17)
    assert document_from_iss(".Shape~16x16.Skyscraper~C12~~5")["rules"] == [
        {"rule": "skyscraper", "clue": "r17c12", "count": 5}]


def test_a_sandwich_from_the_right_or_bottom_is_a_whole_line_lunchbox():
    doc = {"size": 9, "rules": [{"rule": "sandwich", "clue": "r10c3", "sum": 11},
                                {"rule": "sandwich", "clue": "r0c3", "sum": 11}]}
    text = iss_from_puzzle(parse_puzzle(doc))
    assert text == ".Lunchbox~11~" + "~".join(f"R{r}C3" for r in range(9, 0, -1)) + ".Sandwich~11~C3"
    assert document_from_iss(text)["rules"] == doc["rules"]
    # a whole row in order from the left is ISS's Sandwich itself
    assert document_from_iss(".Lunchbox~5~" + "~".join(f"R2C{c}" for c in range(1, 10)))["rules"] == [
        {"rule": "sandwich", "clue": "r2c0", "sum": 5}]


@pytest.mark.parametrize("text, words", [
    (".Skyscraper~R1~0", ["Skyscraper", "a clue of 0"]),
    (".XSum~C3~~0", ["XSum", "a clue of 0"]),
    (".Skyscraper~R10~3", ["'R10' is not a row (R1..R9)"]),
    (".Skyscraper~RaC1~3", ["'RaC1' is not a row"]),
    (".Skyscraper~C1", ["expected a row or column and one or two clues"]),
    (".Sandwich~C1~8", ["'8' is not a row"]),   # ISS: the sum first
    (".HiddenSkyscraper~C4~10~", ["hiddenskyscraper", "'digit' must be from 1 to 9"]),
    (".Shape~9x9~0-8.HiddenSkyscraper~C4~9~", ["'digit' must be from 0 to 8"]),
    (".Shape~9x9~0-8.NumberedRoom~C4~~9", ["'digit' must be from 0 to 8"]),
])
def test_refusals_are_one_line(text, words):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(text)
    message = str(e.value)
    assert "\n" not in message and all(w in message for w in words), message


def test_value_sets_read_and_write_with_iss_meaning():
    # every clue reads on ISS's 0..N-1 and 1..V grids (the rules follow ISS's semantics there)
    text = (".Shape~9x9~0-8.Skyscraper~R1~2~3.HiddenSkyscraper~C2~0~.XSum~R3~~7.NumberedRoom~C4~0~8"
            ".Sandwich~12~R5.CountingCircles~R9C9~R8C8")
    puzzle = parse_puzzle(text)
    kinds = [r["rule"] for r in puzzle.to_document()["rules"]]
    assert sorted(kinds) == sorted(["skyscraper", "skyscraper", "hiddenskyscraper", "xsum", "numberedroom",
                                    "numberedroom", "sandwich", "countingcircles"])
    assert {"rule": "hiddenskyscraper", "clue": "r0c2", "digit": 0} in puzzle.to_document()["rules"]
    assert parse_puzzle(iss_from_puzzle(puzzle)).to_document() == puzzle.to_document()
    # on 7x7~9 a Sandwich is ISS's Lunchbox over its line: the sum between the line's smallest
    # and largest values (a row holds 7 of the 9)
    rules = document_from_iss(".Shape~7x7~9.Sandwich~10~C3.Lunchbox~4~" + "~".join(f"R2C{c}" for c in range(1, 8)))["rules"]
    assert rules == [{"rule": "lunchbox", "cells": [f"r{r}c3" for r in range(1, 8)], "sum": 10},
                     {"rule": "lunchbox", "cells": [f"r2c{c}" for c in range(1, 8)], "sum": 4}]
    # ISS has no form for a skyscraper or X-sum clue of 0 (a value set where a line sees none)
    zero = parse_puzzle({"size": 4, "values": "0-5", "rules": [{"rule": "skyscraper", "clue": "r0c1", "count": 0}]})
    with pytest.raises(PuzzleError, match="clue of 0 has no ISS form"):
        iss_from_puzzle(zero)


# -- Pair keys on a grid of the values 0..N-1 ---------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.sampled_from([4, 9]).flatmap(lambda n: st.tuples(
    st.just(n), st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=10),
    st.booleans())))
def test_pair_on_a_zero_based_grid_round_trips(case):
    n, pairs, every = case
    if every:
        pairs |= {(b, a) for a, b in pairs}
    rule = {"rule": "pair", "cells": ["r1c1", "r2c3"], "allowed": [list(p) for p in sorted(pairs)]}
    if every:
        rule["all"] = True
    puzzle = parse_puzzle({"size": n, "values": f"0-{n - 1}", "rules": [rule]})
    text = iss_from_puzzle(puzzle)
    assert text.startswith(f".Shape~{n}x{n}~0-{n - 1}.Pair")
    # ISS's key: bit i*N + j for the values at positions i, j, i.e. the values themselves on 0..N-1
    table = pair_table(text.split("~")[3], n)
    assert {(int(a), int(b)) for a, b in zip(*np.nonzero(table))} == pairs
    assert parse_puzzle(text).to_document() == puzzle.to_document()


def test_pair_key_reads_value_positions():
    # bit 1 (positions 0, 1): the values 1, 2 on a 1..9 grid, the values 0, 1 on a 0..8 one
    assert document_from_iss(".Pair~C~R1C1~R1C2")["rules"][0]["allowed"] == [[1, 2]]
    assert document_from_iss(".Shape~9x9~0-8.Pair~C~R1C1~R1C2")["rules"][0]["allowed"] == [[0, 1]]


# -- ISS's own puzzles --------------------------------------------------------------------------
def _collection_with_new_types():
    if not ISS_FILE.is_file():
        pytest.skip(f"{ISS_FILE} is absent (../shared is not beside the project)")
    entries = [json.loads(line) for line in ISS_FILE.read_text().splitlines() if line.strip()]
    pattern = re.compile(r"\.(" + "|".join(NEW_TYPES) + r")[~.]")
    return [e for e in entries if pattern.search(e["input"])]


def _solution_digits(solution: str, puzzle) -> np.ndarray:
    """ISS's solution string as the puzzle's digits 1..N (a 0..N-1 grid lists its values)."""
    if puzzle.values is not None:
        return np.searchsorted(np.array(puzzle.values), [int(ch) for ch in solution]) + 1
    return np.array([int(ch) if ch.isdigit() else ord(ch) - 64 for ch in solution])


def test_collection_puzzles_of_these_types_read_and_keep_their_solutions():
    read, verified, refused = 0, 0, {}
    for entry in _collection_with_new_types():
        try:
            puzzle = parse_puzzle(entry["input"])
        except PuzzleError as e:
            m = re.search(r"constraint type '(\w+)'", str(e))
            assert not (m and m.group(1) in NEW_TYPES), str(e)   # refused for another type, or by its values
            refused[entry["name"]] = str(e)[:60]
            continue
        read += 1
        assert parse_puzzle(iss_from_puzzle(puzzle)).to_document() == puzzle.to_document()
        solution = entry.get("solution")
        # a chaos puzzle's verify is a search for its regions (tens of seconds for one entry):
        # test_iss_collection.py solves and checks those
        if solution and len(solution) == puzzle.n ** 2 and not any(r.kind == "chaos" for r in puzzle.rules):
            grid = _solution_digits(solution, puzzle).reshape(puzzle.n, puzzle.n)
            assert verify_grid(grid, puzzle), entry["name"]   # a clue read from the wrong end fails here
            verified += 1
    print(f"\nISS collection, outside clues, circles, pairs: {read} read ({verified} solutions kept), "
          f"{len(refused)} refused for other reasons")
    assert read >= 20 and verified >= 20


def test_a_lunchbox_over_var_cells_is_no_sandwich_and_reads_as_a_lunchbox():
    """It stopped with a traceback ("ValueError: not enough values to unpack"): the whole-line
    check wrote the Var cell 'L1' as a grid id."""
    rules = document_from_iss(".Shape~6x6.Var~L~loop~6x6.Lunchbox~5~VL1~VL2~R1C1")["rules"]
    assert rules == [{"rule": "lunchbox", "cells": ["L1", "L2", "r1c1"], "sum": 5}]


@pytest.mark.parametrize("cells, total", [("VL1~VL2~VL3", 1), ("VL1~VL2~R1C1", 1)])
def test_an_impossible_lunchbox_over_var_cells_is_a_puzzle_with_no_solution(cells, total, capsys):
    """A sum its cells can hold (0 to 5 for one cell between) that no values make (1 is never
    between a smallest and a largest): a model with no solution, exit 1, as on grid cells."""
    for text in (f".Shape~6x6.Var~L~loop~6x6.Lunchbox~{total}~{cells}", f".Shape~6x6.Lunchbox~{total}~R1C1~R1C2~R1C3"):
        assert pipeline.count(pipeline.read_puzzle(text), limit=1).count == 0
        assert main(["solve", text]) == 1
        assert "no solution" in capsys.readouterr().err


@pytest.mark.parametrize("text, grid_text", [
    (".Shape~6x6.Var~L~loop~6x6.Lunchbox~5~VL1~VL2", ".Shape~6x6.Lunchbox~5~R1C1~R1C2"),
    (".Shape~6x6.Var~L~loop~6x6.Sum~50~VL1~VL2", None),
])
def test_a_clue_beyond_what_its_cells_can_hold_is_refused_over_var_cells_as_over_grid_cells(text, grid_text, capsys):
    """A lunchbox of two cells has nothing between them (sum 0), as a cage of two cells sums 3 to
    11: a sum beyond that is bad input (exit 2, one line), over Var cells as over grid cells (a
    killer cage of sum 50 in two cells is refused so too)."""
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(text)
    if grid_text is not None:
        with pytest.raises(PuzzleError) as on_grid:
            parse_puzzle(grid_text)
        assert str(e.value) == str(on_grid.value) == "puzzle: rules[0] (lunchbox): 'sum' must be from 0 to 0, found 5"
    assert main(["solve", text]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: {e.value}\n"
