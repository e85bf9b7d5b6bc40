"""Full rank, sum lines and lunchboxes (issue 33): rules with auxiliary columns, and their ISS
mapping (FullRank, FullRankTies, SumLine, Lunchbox).

The oracle is written from ISS's definitions (js/sudoku_constraint.js, js/solver/handlers.js),
never from the rows: every 4x4 grid (288) is judged directly in Python and the SAT engine's count
must match; HiGHS counts a few (its no-good cuts need every auxiliary column fixed by the grid).
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from oracles import ISS_COLLECTION, every_4x4_sudoku
from pipeline import api
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

ISS_FILE = ISS_COLLECTION
TYPES = ("FullRank", "FullRankTies", "SumLine", "Lunchbox")


def _grids4() -> list[np.ndarray]:
    return every_4x4_sudoku()


GRIDS = _grids4()


# -- the oracle ------------------------------------------------------------------------------
def lines_of(g: np.ndarray) -> list[tuple[int, ...]]:
    """The 4N lines in ISS's order: row 1 forwards, backwards, row 2 ..., column 1 down, up, ..."""
    n = g.shape[0]
    out = []
    for i in range(n):
        out += [tuple(g[i]), tuple(g[i, ::-1])]
    for j in range(n):
        out += [tuple(g[:, j]), tuple(g[::-1, j])]
    return out


def line_number(clue: str, n: int) -> int:
    r, c = (int(v) for v in clue[1:].split("c"))
    if c in (0, n + 1):
        return 2 * (r - 1) + (c == n + 1)
    return 2 * n + 2 * (c - 1) + (r == n + 1)


def rank_of(g: np.ndarray, clue: str) -> tuple[int, bool]:
    """(1 + lines strictly lower, does another line read the same)."""
    lines = lines_of(g)
    k = line_number(clue, g.shape[0])
    others = lines[:k] + lines[k + 1:]
    return 1 + sum(b < lines[k] for b in others), lines[k] in others


def sumline_holds(values: list[int], total: int, loop: bool) -> bool:
    """Some split of the line (a loop: from any start) into consecutive runs adding up to ``total``."""
    def splits(seq: list[int]) -> bool:
        if not seq:
            return True
        return any(sum(seq[:j]) == total and splits(seq[j:]) for j in range(1, len(seq) + 1))
    starts = range(len(values)) if loop else [0]
    return any(splits(values[s:] + values[:s]) for s in starts)


def lunchbox_holds(values: list[int], total: int) -> bool:
    if len(set(values)) != len(values):
        return False
    i, j = sorted((values.index(min(values)), values.index(max(values))))
    return sum(values[i + 1:j]) == total


def _rc(name: str) -> tuple[int, int]:
    r, c = (int(v) for v in name[1:].split("c"))
    return r - 1, c - 1


def holds(g: np.ndarray, rules: list[dict], table: np.ndarray | None = None) -> bool:
    """Does the grid (digits 1..4; ``table`` maps them to values) keep every rule?"""
    vals = g if table is None else table[g - 1]
    ties = next((r["ties"] for r in rules if r["rule"] == "fullrankties"), "unclued")
    for rule in rules:
        kind = rule["rule"]
        if kind == "fullrank":
            rank, tied = rank_of(g, rule["clue"])
            if rank != rule["rank"] or (tied and ties != "any"):
                return False
        elif kind == "fullrankties" and ties == "none" and len(set(lines_of(g))) != 4 * g.shape[0]:
            return False
        elif kind == "sumline":
            if not sumline_holds([int(vals[_rc(c)]) for c in rule["cells"]], rule["sum"], rule.get("loop", False)):
                return False
        elif kind == "lunchbox" and not lunchbox_holds([int(vals[_rc(c)]) for c in rule["cells"]], rule["sum"]):
            return False
    return True


def _ranked(g: np.ndarray, clues: list[str], tied: bool = False) -> list[dict]:
    """Clues read off ``g`` (those whose line ties another only with ``tied``)."""
    return [{"rule": "fullrank", "clue": c, "rank": int(rank_of(g, c)[0])} for c in clues if tied or not rank_of(g, c)[1]]


G0, G1 = GRIDS[1], GRIDS[200]      # no line of G0 ties; every line of G1 ties another
CASES = {
    "rank one clue": [{"rule": "fullrank", "clue": "r5c1", "rank": 5}],
    "rank three clues": _ranked(G0, ["r0c1", "r3c0", "r5c4"]),
    "rank ties any": _ranked(G1, ["r0c2", "r2c5", "r5c1"], tied=True) + [{"rule": "fullrankties", "ties": "any"}],
    "rank ties none": _ranked(G0, ["r4c0"]) + [{"rule": "fullrankties", "ties": "none"}],
    "rank ties unclued": _ranked(G0, ["r1c5", "r5c3"]) + [{"rule": "fullrankties", "ties": "unclued"}],
    "sumline": [{"rule": "sumline", "cells": ["r1c1", "r1c2", "r2c2", "r2c1"], "sum": 5}],
    "sumline long": [{"rule": "sumline", "cells": ["r1c1", "r2c2", "r3c3", "r4c4", "r4c3", "r3c2"], "sum": 4}],
    "sumline loop": [{"rule": "sumline", "cells": ["r2c2", "r2c3", "r3c3", "r3c2"], "sum": 5, "loop": True}],
    "sumline loop 7": [{"rule": "sumline", "cells": ["r1c1", "r1c2", "r1c3", "r2c3", "r2c2", "r2c1"], "sum": 7,
                        "loop": True}],
    "lunchbox diagonal": [{"rule": "lunchbox", "cells": ["r1c1", "r2c2", "r3c3"], "sum": 2}],
    "lunchbox row": [{"rule": "lunchbox", "cells": ["r1c1", "r1c2", "r1c3", "r1c4"], "sum": 5}],
    "lunchbox touching": [{"rule": "lunchbox", "cells": ["r1c1", "r2c3", "r3c2", "r4c4"], "sum": 0}],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_counts_match_brute_force_over_every_4x4(name):
    rules = CASES[name]
    want = [g for g in GRIDS if holds(g, rules)]
    assert 0 < len(want) < len(GRIDS), name
    puzzle = parse_puzzle({"size": 4, "rules": rules})
    got = api.count(puzzle, limit=300, solver="sat")
    assert (got.count, got.status) == (len(want), "complete"), name
    for g in GRIDS[::5]:
        assert bool(verify_grid(g, puzzle)) == holds(g, rules), (name, g.tolist())


@pytest.mark.parametrize("name", ["rank ties none", "sumline loop", "lunchbox diagonal"])
def test_highs_counts_each_grid_once(name):
    """HiGHS cuts off whole 0-1 points: the auxiliary columns must follow from the grid."""
    rules = CASES[name]
    want = sum(holds(g, rules) for g in GRIDS)
    assert api.count(parse_puzzle({"size": 4, "rules": rules}), limit=300, solver="highs").count == want


@pytest.mark.parametrize("values", [[0, 1, 2, 3], [1, 2, 4, 7]])
@pytest.mark.parametrize("entry", [
    {"rule": "sumline", "cells": ["r1c1", "r1c2", "r2c2", "r3c2"], "sum": 4},
    {"rule": "sumline", "cells": ["r1c1", "r1c2", "r1c3", "r2c3", "r2c2", "r2c1"], "sum": 3, "loop": True},
    {"rule": "lunchbox", "cells": ["r1c1", "r2c2", "r3c3", "r4c4"], "sum": 2},
    {"rule": "fullrank", "clue": "r0c2", "rank": 6}])
def test_value_sets_count_as_brute_force(entry, values):
    table = np.array(values)
    if entry["rule"] == "sumline":      # the first sum that some grids keep and some break
        entry = next(dict(entry, sum=k) for k in range(1, 30)
                     if 0 < sum(holds(g, [dict(entry, sum=k)], table) for g in GRIDS) < len(GRIDS))
    want = [g for g in GRIDS if holds(g, [entry], table)]
    assert 0 < len(want) < len(GRIDS)
    puzzle = parse_puzzle({"size": 4, "values": values, "rules": [entry]})
    got = api.count(puzzle, limit=300, solver="sat")
    assert got.count == len(want)


def test_a_9x9_full_rank_solves_to_its_grid():
    base = np.array([[(3 * (r % 3) + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)])
    g = np.random.default_rng(3).permutation(9)[base - 1] + 1
    clues = ["r0c2", "r4c0", "r10c7", "r6c10", "r0c5", "r2c0", "r10c1", "r9c10", "r0c9", "r5c0"]
    rules = _ranked(g, clues)
    puzzle = parse_puzzle({"size": 9, "givens": "".join(str(v) if k % 4 == 0 else "." for k, v in
                                                         enumerate(g.ravel())), "rules": rules})
    result = api.solve(puzzle, solver="sat")
    assert np.array_equal(np.asarray(result.grid).reshape(9, 9), g)


@pytest.mark.parametrize("entry, words", [
    ({"rule": "fullrank", "clue": "r0c2", "rank": 17}, "'rank' must be from 1 to 16"),
    ({"rule": "fullrank", "clue": "r2c2", "rank": 3}, "not a place outside"),
    ({"rule": "fullrankties", "ties": "some"}, "'ties' must be one of"),
    ({"rule": "fullrankties"}, "'ties' is required, one of unclued, any, none (e.g. {\"rule\": \"fullrankties\""),
    ({"rule": "sumline", "cells": ["r1c1", "r1c2"], "sum": 0}, "'sum' must be from 1"),
    ({"rule": "sumline", "cells": ["r1c1", "r1c1"], "sum": 3}, "listed twice"),
    ({"rule": "sumline", "cells": ["r1c1"], "sum": 3, "loop": "yes"}, "'loop' must be true or false"),
    ({"rule": "lunchbox", "cells": ["r1c1"], "sum": 0}, "cell"),
    ({"rule": "lunchbox", "cells": ["r1c1", "r2c2", "r3c3"], "sum": 4}, "'sum' must be from"),
])
def test_bad_entries_are_refused_in_one_line(entry, words):
    with pytest.raises(PuzzleError) as err:
        parse_puzzle({"size": 4, "rules": [entry]})
    assert words in str(err.value) and "\n" not in str(err.value)


def test_full_rank_refuses_a_layout_or_a_rectangle():
    with pytest.raises(PuzzleError, match="full rank"):
        parse_puzzle({"size": 6, "box": "2x3", "values": [1, 2, 3, 4, 5, 6, 7], "rules": [
            {"rule": "fullrank", "clue": "r0c1", "rank": 3}]})


def test_model_names_its_auxiliary_columns():
    puzzle = parse_puzzle({"size": 4, "rules": CASES["rank one clue"] + CASES["lunchbox diagonal"]})
    from pipeline.core.build import build_model
    model = build_model(puzzle)
    names = list(model.aux_names)
    assert names[:2] == ["aux_fullrank_1_1_1", "aux_fullrank_1_1_2"] and len(names) == 15 * 5 + 6
    assert names[-1] == "aux_lunchbox_1_2_3"


# -- ISS ---------------------------------------------------------------------------------------
def test_iss_items_read_as_the_entries():
    doc = document_from_iss(".Shape~4x4.FullRank~C1~10~.FullRank~R2~~3.FullRankTies~any"
                            ".SumLine~5~R1C1~R1C2~R2C2~R2C1~LOOP.Lunchbox~2~R1C1~R2C2~R3C3.Lunchbox~5~R3C1~R3C2~R3C3~R3C4")
    assert doc["rules"] == [
        {"rule": "fullrank", "clue": "r0c1", "rank": 10}, {"rule": "fullrank", "clue": "r2c5", "rank": 3},
        {"rule": "fullrankties", "ties": "any"},
        {"rule": "sumline", "cells": ["r1c1", "r1c2", "r2c2", "r2c1"], "sum": 5, "loop": True},
        {"rule": "lunchbox", "cells": ["r1c1", "r2c2", "r3c3"], "sum": 2},
        {"rule": "sandwich", "clue": "r3c0", "sum": 5}]


@pytest.mark.parametrize("text", [".Shape~4x4.FullRank~R5~3~", ".Shape~4x4.FullRankTies~sometimes",
                                  ".Shape~4x4.SumLine~x~R1C1~R1C2", ".Shape~4x4.Lunchbox~3~R1C1"])
def test_bad_iss_items_are_refused_in_one_line(text):
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(text)
    assert "\n" not in str(err.value)


@st.composite
def documents(draw):
    n = draw(st.sampled_from([4, 6, 9]))
    names = [f"r{r}c{c}" for r in range(1, n + 1) for c in range(1, n + 1)]
    rules: list[dict] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["fullrank", "sumline", "lunchbox"]))
        if kind == "fullrank":
            k, end = draw(st.integers(1, n)), draw(st.sampled_from([0, n + 1]))
            clue = draw(st.sampled_from([f"r{k}c{end}", f"r{end}c{k}"]))
            rules.append({"rule": "fullrank", "clue": clue, "rank": draw(st.integers(1, 4 * n))})
        elif kind == "sumline":
            cells = draw(st.lists(st.sampled_from(names), min_size=1, max_size=6, unique=True))
            entry = {"rule": "sumline", "cells": cells, "sum": draw(st.integers(1, 30))}
            if draw(st.booleans()):
                entry["loop"] = True
            rules.append(entry)
        else:
            cells = draw(st.lists(st.sampled_from(names), min_size=3, max_size=min(5, n), unique=True))
            # a whole row or column in order reads back as the sandwich of the same meaning
            lines = [[f"r{k}c{j}" for j in range(1, n + 1)] for k in range(1, n + 1)]
            lines += [[f"r{j}c{k}" for j in range(1, n + 1)] for k in range(1, n + 1)]
            assume(cells not in lines and cells[::-1] not in lines)
            rules.append({"rule": "lunchbox", "cells": cells, "sum": draw(st.integers(0, 3))})
    if draw(st.booleans()):
        rules.append({"rule": "fullrankties", "ties": draw(st.sampled_from(["any", "none"]))})
    return {"size": n, "rules": rules}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_iss_round_trip(doc):
    puzzle = parse_puzzle(json.dumps(doc))
    assert parse_puzzle(iss_from_puzzle(puzzle)).to_document() == puzzle.to_document()


def _collection() -> list[dict]:
    if not ISS_FILE.is_file():
        pytest.skip(f"{ISS_FILE} is absent (../shared is not beside the project)")
    pattern = re.compile(r"\.(" + "|".join(TYPES) + r")[~.]")
    entries = [json.loads(line) for line in ISS_FILE.read_text().splitlines() if line.strip()]
    return [e for e in entries if pattern.search(e["input"])]


def test_collection_puzzles_read_and_keep_their_solutions():
    read, checked, refused = 0, 0, {}
    for entry in _collection():
        try:
            puzzle = parse_puzzle(entry["input"])
        except PuzzleError as e:
            m = re.search(r"constraint type '(\w+)'", str(e))
            assert m and m.group(1) not in TYPES, str(e)     # refused for another type only
            refused[entry["name"]] = m.group(1)
            continue
        read += 1
        assert parse_puzzle(iss_from_puzzle(puzzle)).to_document() == puzzle.to_document()
        solution = entry.get("solution")
        if solution and len(solution) == puzzle.n ** 2:
            grid = np.array([int(ch) for ch in solution]).reshape(puzzle.n, puzzle.n)
            if "values" in puzzle.to_document():            # 0..N-1: the digits are the values
                grid = grid + 1
            assert verify_grid(grid, puzzle), entry["name"]
            checked += 1
    print(f"\nISS collection, {'/'.join(TYPES)}: {read} read ({checked} solutions verified), refused {refused}")
    assert read >= 20 and checked >= 19
