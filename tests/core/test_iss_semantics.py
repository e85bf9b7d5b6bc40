"""ISS constructs that once were refused, read as ISS means them (issue 33): a Cage or a line that
lists a cell twice, a jigsaw on a grid without boxes (a RegionSumLine is cut by its pieces),
DisjointSets on ``RegionSize`` boxes, CountDistinct over ordinary cells, NFA over chaos-region
cells, and the value ranges ISS's ``Shape`` refuses. Each meaning is written here from ISS's source
(js/solver/sudoku_builder.js, sum_handler.js, handlers.js) and checked against the project's
model on small grids by brute force, or on ISS's own collection entries."""
from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest

from oracles import ISS_COLLECTION
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers.highs import count_solutions

ISS_FILE = ISS_COLLECTION


def _sudokus_4x4() -> list[np.ndarray]:
    """Every 4x4 grid with 2x2 boxes (288), as (4, 4) arrays of 1..4."""
    perms = list(itertools.permutations(range(1, 5)))
    out = []
    for rows in itertools.product(perms, repeat=4):
        g = np.array(rows)
        if all(len(set(g[:, c])) == 4 for c in range(4)) and \
                all(len(set(g[r:r + 2, c:c + 2].ravel())) == 4 for r in (0, 2) for c in (0, 2)):
            out.append(g)
    return out


SUDOKUS_4X4 = _sudokus_4x4()


def _cell(token: str) -> tuple[int, int]:
    return int(token[1]) - 1, int(token[3]) - 1


def _project_solutions(text: str, limit: int = 300) -> set[bytes]:
    """The 4x4 grids the project's model admits for an ISS string (HiGHS counting, all of them)."""
    puzzle = parse_puzzle(document_from_iss(text))
    got = count_solutions(build_model(puzzle), limit=limit)
    assert got.status == "complete"
    return {np.asarray(g, dtype=np.int64).reshape(4, 4).tobytes() for g in got.grids}


def _agrees(text: str, meaning) -> int:
    """The project's solutions of ``text`` are exactly the 4x4 sudokus ``meaning`` accepts, and
    verify judges every sudoku as ``meaning`` does; returns how many there are."""
    want = {g.astype(np.int64).tobytes() for g in SUDOKUS_4X4 if meaning(g)}
    assert _project_solutions(text) == want
    puzzle = parse_puzzle(document_from_iss(text))
    for g in SUDOKUS_4X4[::7]:
        assert verify_grid(g, puzzle).ok == meaning(g)
    return len(want)


def _entry(name: str) -> dict:
    if not ISS_FILE.is_file():
        pytest.skip(f"{ISS_FILE} is absent (../shared is not beside the project)")
    for line in ISS_FILE.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["name"] == name:
            return entry
    pytest.skip(f"ISS collection entry {name!r} not in {ISS_FILE}")


def _solves_to_published(name: str) -> None:
    import pipeline
    entry = _entry(name)
    result = pipeline.solve(pipeline.read_puzzle(entry["input"]), time_limit=60)
    assert result.grid is not None
    values = parse_puzzle(document_from_iss(entry["input"])).board.value_of
    line = "".join(str(int(values[d - 1])) for d in np.asarray(result.grid).ravel())
    assert line == entry["solution"]


# -- Jigsaw on a grid without boxes; DisjointSets on RegionSize boxes -------------------------
def test_jigsaw_on_a_prime_grid_is_a_jigsaw_as_with_noboxes():
    """ISS gives a 5x5 grid no boxes, so its jigsaw pieces are the only regions (and cut a
    RegionSumLine): the same document as with NoBoxes."""
    layout = "0001102211023312234433444"
    text = f".Shape~5x5.Jigsaw~{layout}.RegionSumLine~R1C1~R1C2~R1C3~R2C3"
    doc = document_from_iss(text)
    assert doc == document_from_iss(text + ".NoBoxes")
    assert doc["variant"] == "jigsaw"
    assert not [r for r in doc["rules"] if r["rule"] == "extraregion"]


def test_disjoint_sets_on_region_size_boxes_are_the_box_positions():
    """ISS's disjointSetRegions with RegionSize~9 on 6x6: four 3x3 boxes; the cells at one position
    of every box hold distinct values (9 sets of 4 cells)."""
    doc = document_from_iss(".Shape~6x6~9.RegionSize~9.DisjointSets")
    sets = [r["cells"] for r in doc["rules"] if r["rule"] == "cage"]
    want: dict[tuple[int, int], list[str]] = {}
    for r, c in itertools.product(range(6), range(6)):
        want.setdefault((r % 3, c % 3), []).append(f"r{r + 1}c{c + 1}")
    assert sorted(map(sorted, sets)) == sorted(map(sorted, want.values()))
    assert all("sum" not in r for r in doc["rules"] if r["rule"] == "cage")
    with pytest.raises(PuzzleError, match="DisjointSets.*takes no arguments"):
        document_from_iss(".Shape~6x6~9.RegionSize~9.DisjointSets~3")


def _sets_of(dims: tuple[int, int], n: int) -> list[list[str]]:
    h, w = dims
    want: dict[tuple[int, int], list[str]] = {}
    for r, c in itertools.product(range(n), range(n)):
        want.setdefault((r % h, c % w), []).append(f"r{r + 1}c{c + 1}")
    return sorted(map(sorted, want.values()))


def test_disjoint_sets_lie_on_the_boxes_iss_gives_the_size_whatever_the_jigsaw():
    """ISS's disjointSetRegions take the size's own boxes (a 6x6's 2x3): the project read
    DisjointSets over a jigsaw of 3x2 boxes as 3x2 sets, and so wrote 3x2 disjoint groups as a
    string ISS reads with 2x3 sets (a unique puzzle ISS counted 0)."""
    three_by_two = "".join("001122"[c] if r < 3 else "334455"[c] for r in range(6) for c in range(6))
    doc = document_from_iss(f".Shape~6x6.NoBoxes.Jigsaw~{three_by_two}.DisjointSets")
    assert sorted(map(sorted, [r["cells"] for r in doc["rules"] if r["rule"] == "cage"])) == _sets_of((2, 3), 6)
    puzzle = parse_puzzle({"size": 6, "box": "3x2", "givens": "...2......5...5...5...1.3.16...2..3.",
                           "rules": [{"rule": "disjointgroups"}]})
    text = iss_from_puzzle(puzzle)
    assert "DisjointSets" not in text and text.count("AllDifferent~") == 6
    again = parse_puzzle(document_from_iss(text))
    assert sorted(map(sorted, [r.to_dict(again.board)["cells"] for r in again.rules])) == _sets_of((3, 2), 6)
    assert count_solutions(build_model(again), limit=2)[0] == count_solutions(build_model(puzzle), limit=2)[0] == 1
    on_own = parse_puzzle({"size": 6, "box": "2x3", "rules": [{"rule": "disjointgroups"}]})
    assert iss_from_puzzle(on_own) == ".Shape~6x6.DisjointSets"


def test_a_cage_of_sum_0_keeps_its_sum_in_iss():
    """ISS reads Cage~0 as a cage without a sum: a 0-based one-cell cage of sum 0 lost its sum."""
    puzzle = parse_puzzle({"size": 4, "values": "0-3", "givens": ".......1..3..0..",
                           "rules": [{"rule": "cage", "cells": ["r1c1"], "sum": 0}]})
    text = iss_from_puzzle(puzzle)
    assert "Cage~0" not in text and "Sum~0~R1C1" in text
    again = parse_puzzle(document_from_iss(text))
    assert count_solutions(build_model(again), limit=3)[0] == count_solutions(build_model(puzzle), limit=3)[0] == 1


@pytest.mark.parametrize("doc, said", [
    ({"size": 6, "givens": "1" + "." * 35, "rules": [{"rule": "entropic", "cells": ["r1c1", "r1c2", "r1c3"]}]},
     "ISS's Entropic line needs the values 1-9; this grid's values are 1-6"),
    ({"size": 9, "values": "0-8", "rules": [{"rule": "entropic", "cells": ["r1c1", "r1c2", "r1c3"]}]},
     "ISS's Entropic line needs the values 1-9; this grid's values are 0-8"),
    ({"size": 6, "rules": [{"rule": "dutchflatmates"}]},
     "ISS's DutchFlatmates needs the values 1-9; this grid's values are 1-6"),
])
def test_rules_iss_takes_on_1_to_9_only_are_refused_elsewhere(doc, said):
    """ISS refuses these strings ('Entropic Line requires exactly 9 values', 'Dutch Flatmates is not
    compatible with grid 6x6'); the writer wrote them, and the reader read them."""
    with pytest.raises(PuzzleError, match=re.escape(said)):
        iss_from_puzzle(parse_puzzle(doc))
    with pytest.raises(PuzzleError, match=re.escape(said.split(";")[0])):   # read as ISS reads it
        document_from_iss(".Shape~6x6.DutchFlatmates" if "dutch" in said.lower() else
                          ".Shape~6x6.Entropic~R1C1~R1C2~R1C3")


@pytest.mark.parametrize("name", ["6x6: 9-value disjoint sets", "0-indexed: 6x6 9-value disjoint sets", "Septa"])
def test_collection_entries_solve_to_their_published_solution(name):
    _solves_to_published(name)


# -- a Cage listing a cell twice ---------------------------------------------------------------
def test_cage_listing_a_cell_twice_counts_it_twice_and_keeps_the_cells_distinct():
    """ISS: Sum(cells, total) adds the coefficients of a repeated cell (r2c3 counts twice);
    AllDifferent(cells) dedupes them (the three cells distinct)."""
    text = ".Shape~4x4.Cage~9~R1C1~R2C2~R3C3~R3C3.~R4C4_1"

    def meaning(g):
        a, b, c = g[0, 0], g[1, 1], g[2, 2]
        return a + b + 2 * c == 9 and len({a, b, c}) == 3 and g[3, 3] == 1

    def set_sum(g):   # what reading the cage as a set would mean
        return g[0, 0] + g[1, 1] + g[2, 2] == 9 and g[3, 3] == 1

    assert _agrees(text, meaning) > 0
    assert {g.tobytes() for g in SUDOKUS_4X4 if meaning(g)} != {g.tobytes() for g in SUDOKUS_4X4 if set_sum(g)}
    # a sumless cage listing a cell twice: only distinct cells
    assert _agrees(".Shape~4x4.Cage~0~R1C1~R2C2~R2C2~R3C3.~R4C4_1~R1C1_2",
                   lambda g: len({g[0, 0], g[1, 1], g[2, 2]}) == 3 and g[3, 3] == 1 and g[0, 0] == 2) > 0


@pytest.mark.parametrize("name", ["Event horizon", "Event Horizon [simplified]"])
def test_event_horizon_solves_to_its_published_solution(name):
    _solves_to_published(name)


# -- a Whisper coming back to a cell -----------------------------------------------------------
def test_whisper_loop_is_its_consecutive_pairs():
    """ISS yields one BinaryConstraint per consecutive pair: a loop closing on its first cell
    adds the closing pair (r2c3, r1c1)."""
    line = ["R1C1", "R2C2", "R3C3", "R2C3", "R1C1"]
    text = ".Shape~4x4.Whisper~2~" + "~".join(line)

    def meaning(g):
        return all(abs(g[_cell(a)] - g[_cell(b)]) >= 2 for a, b in zip(line, line[1:]))

    count = _agrees(text, meaning)
    open_line = {g.tobytes() for g in SUDOKUS_4X4
                 if all(abs(g[_cell(a)] - g[_cell(b)]) >= 2 for a, b in zip(line[:-1], line[1:-1]))}
    assert 0 < count < len(open_line)   # the closing pair says something


def test_whisper_stepping_to_the_same_cell_is_refused_in_one_line():
    with pytest.raises(PuzzleError, match=r"steps from r1c2 to itself") as e:
        document_and_puzzle = parse_puzzle(document_from_iss(".Shape~4x4.Whisper~2~R1C1~R1C2~R1C2~R2C2"))
        del document_and_puzzle
    assert "\n" not in str(e.value)


def test_merry_xv_mas_solves_to_its_published_solution():
    _solves_to_published("Merry X/V-mas")


# -- value ranges ------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, reads", [("0-8", True), ("9", True), ("1-16", True), ("16", True), ("2-10", False),
                                         ("3-11", False), ("0-16", False), ("17", False), ("1-17", False)])
def test_shape_value_ranges_are_iss_cell_geometry_ones(spec, reads):
    """ISS's CellGeometry takes a value offset of 0 or -1 (values from 1 or 0) and at most 16 values."""
    text = f".Shape~9x9~{spec}"
    if reads:
        assert document_from_iss(text)["size"] == 9
    else:
        with pytest.raises(PuzzleError, match=r"value range .* is not ISS's"):
            document_from_iss(text)


# -- CountDistinct over grid cells -------------------------------------------------------------
@pytest.mark.parametrize("clue, counted", [("R1C1", ["R2C1", "R2C2", "R3C3", "R4C4"]),
                                           ("R1C2", ["R3C1", "R4C2", "R3C4", "R3C1"]),   # a repeat counts once
                                           ("R2C2", ["R2C2", "R3C3", "R4C4"])])          # the clue among them
def test_count_distinct_is_the_number_of_values_the_cells_hold(clue, counted):
    """ISS's CountDistinct (NValue): value(clue) = |{values of the counted cells}|."""
    text = ".Shape~4x4.CountDistinct~" + "~".join([clue, *counted]) + ".~R4C1_2~R1C4_3"   # givens: fewer to count

    def meaning(g):
        return g[_cell(clue)] == len({g[_cell(c)] for c in counted}) and g[3, 0] == 2 and g[0, 3] == 3

    count = _agrees(text, meaning)
    assert 0 < count < len(SUDOKUS_4X4)
    import cpsat_oracle   # the collection test's second engine reads the kind from its meaning too
    assert cpsat_oracle.count(document_from_iss(text), cap=10 ** 4)[0] == count


def test_count_distinct_round_trips_and_refuses_in_one_line():
    from pipeline.core.iss_write import iss_from_puzzle
    text = ".Shape~4x4.CountDistinct~R1C1~R2C1~R2C2~R3C3"
    puzzle = parse_puzzle(document_from_iss(text))
    assert document_from_iss(iss_from_puzzle(puzzle)) == document_from_iss(text)
    with pytest.raises(PuzzleError, match=r"rules\[0\] \(countdistinct\): missing 'clue'"):
        parse_puzzle({"size": 4, "rules": [{"rule": "countdistinct", "cells": ["r1c1"]}]})
    with pytest.raises(PuzzleError, match="CountDistinct.*expected the clue cell"):
        document_from_iss(".Shape~4x4.CountDistinct~R1C1")


def test_count_different_circles_solves_to_its_published_solution():
    _solves_to_published("Count Different (Circles)")


# -- a 0-indexed sandwich: ISS's search and its own check disagree -----------------------------
def test_a_0_indexed_sandwich_with_more_cells_between_is_a_second_solution():
    """'0-indexed: Sums and indexing' is published as unique, but a second grid keeps every rule:
    row 5's cells between its 0 and its 8 (five of them) add to 17, as the published grid's four do.
    ISS builds a Sandwich as its Lunchbox handler, which on a grid of values 0..N-1 remaps the
    combinations per distance but keeps the distance range of the unshifted sum
    (handlers.js ``Lunchbox.initialize``: ``_distances = distanceRange[sum]``), so its search never
    tries five cells; given the second grid in full, ISS accepts it (node, 2026-12-06)."""
    entry = _entry("0-indexed: Sums and indexing")
    puzzle = parse_puzzle(document_from_iss(entry["input"]))
    second = "015746823278351406364280571453108267607423185182675034521037648830564712746812350"
    for line in (entry["solution"], second):
        values = np.array([int(c) for c in line]).reshape(9, 9)
        row = list(values[4])
        low, high = sorted((row.index(0), row.index(8)))
        assert sum(row[low + 1:high]) == 17
        assert verify_grid(values + 1, puzzle).ok, line   # digits 1..9 stand for the values 0..8
    assert second != entry["solution"]   # two grids keep every rule: the puzzle is not unique
