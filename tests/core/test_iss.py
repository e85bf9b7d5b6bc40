"""ISS constraint strings: the reader maps each supported type to its rule, the writer is its
inverse (hypothesis round trips over random documents), unsupported types are refused in one
line naming the type and its place, random text gives a PuzzleError at worst, and ISS's own
published puzzles (../shared/data/iss) read or are refused by type, and solve to their solutions."""
from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracles import ISS_COLLECTION
from pipeline.core.build import build_model
from pipeline.core.convert import write_puzzle
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss, looks_like_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.lzstring import compress_to_base64, decompress_from_base64
from pipeline.core.puzzle import parse_puzzle

ISS_FILE = ISS_COLLECTION


def test_each_type_maps_to_its_rule():
    doc = document_from_iss(".Cage~15~R1C1~R1C2.Thermo~R2C1~R2C2~R2C3.GreaterThan~R3C1~R3C2.WhiteDot~R4C1~R4C2"
                            ".BlackDot~R5C1~R5C2.AntiKnight.AntiKing.AntiConsecutive.Windoku.DisjointSets"
                            ".Diagonal~1.Diagonal~-1.AllDifferent~R9C1~R9C2.Sum~12~R7C7~R8C8.~R1C9_5~R6C6_2_4_6_8")
    kinds = [e["rule"] for e in doc["rules"]]
    assert kinds == ["cage", "thermo", "greater", "kropki", "kropki", "antiknight", "antiking", "nonconsecutive",
                     "windoku", "disjointgroups", "diagonal", "diagonal", "cage", "cage", "even"]
    assert doc["rules"][0] == {"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 15}
    assert [e["which"] for e in doc["rules"] if e["rule"] == "diagonal"] == ["anti", "main"]
    assert doc["rules"][12] == {"rule": "cage", "cells": ["r9c1", "r9c2"]}   # AllDifferent: no sum
    assert doc["givens"] == ["r1c9=5"] and doc["box"] == "3x3"


def test_shapes_jigsaw_and_letters():
    assert document_from_iss(".Shape~6x6.~R1C1_6")["box"] == "2x3"
    assert document_from_iss(".Shape~7x7")["variant"] == "latin"   # ISS: no boxes for a prime side
    assert document_from_iss(".Shape~16x16.~RgCg_16")["givens"] == ["r16c16=16"]
    layout = "".join("abcd"[(r // 2 + c) % 4] for r in range(4) for c in range(4))
    jig = document_from_iss(f".Shape~4x4.NoBoxes.Jigsaw~{layout}")
    assert jig["variant"] == "jigsaw" and parse_puzzle(jig).regions is not None
    boxes = "".join(str((r // 3) * 3 + c // 3) for r in range(9) for c in range(9))
    assert document_from_iss(f".NoBoxes.Jigsaw~{boxes}")["box"] == "3x3"   # regions that are boxes
    extra = document_from_iss(f".Jigsaw~{boxes[::-1]}")   # without NoBoxes: regions beside the boxes
    assert [e["rule"] for e in extra["rules"]] == ["extraregion"] * 9
    assert document_from_iss(".NoBoxes")["variant"] == "latin"


@pytest.mark.parametrize("text, words", [
    (".Cage~3~R1C1~R1C2.Container.Thermo~R1C1~R1C2", ["unsupported constraint type 'Container'", "constraint 2",
                                                      "'.Container'", "character 18"]),
    (".Frobnicate~1", ["unknown constraint type 'Frobnicate'"]),
    (".Or.Cage~3~R1C1~R1C2", ["Or is never closed by .End"]),
    (".Shape~9x9~0-7", ["value range '0-7'", "needs at least 9"]),
    (".Shape~6x9.RegionSize~6", ["RegionSize on a 6x9 grid"]),
    (".Cage~3~R0C1~R1C2", ["'R0C1' is not a cell"]),
    (".~R1C1_10", ["not a digit 1-9"]),
    (".Sum~10_=_1~R1C1~R5C5", ["Sum", "one coefficient", "per cell (2), found 1"]),
    (".Sum~0_=_0~R1C1", ["every coefficient is 0"]),
    (".LittleKiller~10~R5C5", ["R5C5 starts none of ISS's little-killer diagonals"]),
    (".LittleKiller~R1C2~10", ["sum 'R1C2' is not a whole number"]),
    (".Quad~R9C9~1", ["R9C9 is the top-left cell of no 2x2 square"]),
    (".PairX~C~R1C1~R1C2", ["PairX", "not symmetric"]),
    (".Pair~B!~R1C1~R1C2", ["not base64url"]),
    (".SameValues~3~R1C1~R1C2~R1C3~R1C4", ["4 cells do not make 3 sets"]),
    (".X~R1C1~R3C3", ["no two of its cells are orthogonal neighbours"]),
])
def test_refusals_are_one_line(text, words):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(text)
    message = str(e.value)
    assert "\n" not in message and all(w in message for w in words), message


def test_writer_refuses_what_iss_cannot_hold():
    with pytest.raises(PuzzleError, match="larger than ISS's largest"):
        iss_from_puzzle(parse_puzzle("." * 25 * 25))


def test_writer_refuses_a_pencil_mark_of_one_digit():
    """It was written ``~R2C3_3``, which reads back as a given: the puzzle gained a clue."""
    doc = {"size": 4, "rules": [{"rule": "pencilmarks", "cells": ["r2c3"], "digits": [3]}]}
    with pytest.raises(PuzzleError) as e:
        iss_from_puzzle(parse_puzzle(doc))
    assert str(e.value) == ("puzzle: rules[0] (pencilmarks) limits R2C3 to one digit (3), which ISS reads as a "
                            "given (a pencil mark is not a clue): no ISS form")
    doc["rules"][0]["digits"] = [1, 2]   # several digits stay ISS's pencil-mark givens
    text = iss_from_puzzle(parse_puzzle(doc))
    assert text == ".Shape~4x4.~R2C3_1_2" and parse_puzzle(text).rules_dicts()[0]["digits"] == [1, 2]


@pytest.mark.parametrize("color, value, values", [("white", 3, None), ("white", 2, [0, 1, 2, 3]),
                                                  ("black", 3, None), ("black", 3, [0, 1, 2, 3])])
def test_a_kropki_dot_of_another_value_is_written_as_its_pair(color, value, values):
    """The writer refused them ("no ISS type"); ISS's Pair holds any relation of two cells."""
    from pipeline.solvers import SOLVERS

    doc = {"size": 4, "rules": [{"rule": "kropki", "color": color, "value": value, "cells": [a, b]}
                                for a, b in (("r1c1", "r1c2"), ("r4c1", "r4c2"))]}
    if values:
        doc["values"] = values
    puzzle = parse_puzzle(doc)
    text = iss_from_puzzle(puzzle)
    assert ".Pair~" in text and "Dot" not in text
    back = parse_puzzle(text)
    assert [r["rule"] for r in back.rules_dicts()] == ["pair"] * 2
    count = SOLVERS["sat"].count
    counted = count(build_model(puzzle), 300).count
    assert 0 < counted < 288 and count(build_model(back), 300).count == counted


def test_detection_as_argument_file_and_batch_line(tmp_path):
    text = ".Shape~4x4.Cage~3~R1C1~R1C2.~R4C4_4"
    assert looks_like_iss(text) and looks_like_iss(".AntiKnight.Windoku") and looks_like_iss(" .~R1C1_5\n")
    assert not looks_like_iss("..3.2.6.." + "." * 72) and not looks_like_iss(".A.." + "." * 12)
    path = tmp_path / "p.iss"
    path.write_text(text + "\n")
    assert parse_puzzle(str(path)) == parse_puzzle(text) == parse_puzzle(text + "\n")   # batch: literal_text
    assert parse_puzzle(text).rules_dicts() == [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]


# -- round trips ----------------------------------------------------------------------------------
@st.composite
def documents(draw):
    """Random puzzle documents of the rules ISS can hold, in the reader's canonical form."""
    n = draw(st.sampled_from([4, 6, 9]))
    h, w = {4: (2, 2), 6: (2, 3), 9: (3, 3)}[n]
    cell = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    name = lambda rc: f"r{rc[0] + 1}c{rc[1] + 1}"   # noqa: E731
    rules: list[dict] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["cage", "cagesum", "thermo", "greater", "white", "black"]))
        r, c = draw(cell)
        if kind in ("cage", "cagesum"):
            cells = [name((r, k)) for k in range(draw(st.integers(1, n)))]
            rule = {"rule": "cage", "cells": cells}
            if kind == "cagesum":
                rule["sum"] = draw(st.integers(len(cells) * (len(cells) + 1) // 2, n * len(cells)))
            rules.append(rule)
        elif kind == "thermo" and c + 1 < n:
            rules.append({"rule": "thermo", "cells": [name((r, c)), name((r, c + 1))]})
        elif c + 1 < n:
            pair = [name((r, c)), name((r, c + 1))]
            rules.append({"rule": "greater", "cells": pair} if kind == "greater" else
                         {"rule": "kropki", "color": kind, "cells": pair})
    for kind in draw(st.lists(st.sampled_from(["antiknight", "antiking", "nonconsecutive", "disjointgroups"]),
                              unique=True, max_size=2)):
        rules.append({"rule": kind})
    if draw(st.booleans()):
        rules.append({"rule": "diagonal", "which": draw(st.sampled_from(["main", "anti"]))})
    givens = sorted(set(draw(st.lists(st.tuples(cell, st.integers(1, n)), max_size=3, unique_by=lambda g: g[0]))))
    # ISS keeps one set of digits per cell: a given cell's parity is the given itself
    parity = sorted(set(draw(st.lists(cell, max_size=3))) - {rc for rc, _ in givens})
    if parity:
        rules.append({"rule": draw(st.sampled_from(["even", "odd"])), "cells": [name(rc) for rc in parity]})
    return {"size": n, "box": f"{h}x{w}", "givens": [f"{name(rc)}={d}" for rc, d in givens], "rules": rules}


def _puzzle_or_none(doc):
    try:
        return parse_puzzle(doc)
    except PuzzleError:   # clues that clash, a thermometer over a given: not a puzzle, nothing to convert
        return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_document_iss_document_round_trip(doc):
    puzzle = _puzzle_or_none(doc)
    if puzzle is None:
        return
    text = iss_from_puzzle(puzzle)
    assert looks_like_iss(text)
    again = parse_puzzle(text)
    assert again.to_document() == puzzle.to_document()
    assert iss_from_puzzle(again) == text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_fpuzzles_json_iss_json_round_trip(doc):
    puzzle = _puzzle_or_none(doc)
    kinds = {e["rule"] for e in puzzle.rules_dicts()} if puzzle is not None else set()
    # f-puzzles has no sign, and reads nonconsecutive beside Kropki dots with the dotted pairs exempt
    # (the writer refuses both: test_fpuzzles.py)
    if puzzle is None or "greater" in kinds or {"nonconsecutive", "kropki"} <= kinds:
        return
    link = write_puzzle(puzzle, "fpuzzles").strip()
    from_link = parse_puzzle(link)
    as_json = write_puzzle(from_link, "json")
    from_iss = parse_puzzle(write_puzzle(parse_puzzle(json.loads(as_json)), "iss").strip())
    def canonical(doc):   # f-puzzles lists its elements by kind: white dots before black ones
        return {**doc, "rules": sorted(json.dumps(e, sort_keys=True) for e in doc.get("rules", []))}

    assert canonical(json.loads(write_puzzle(from_iss, "json"))) == canonical(json.loads(as_json)) == \
        canonical(puzzle.to_document())


def _units(puzzle) -> set:
    return {tuple(sorted(u)) for _, units in puzzle.unit_families() for u in np.asarray(units).tolist()}


@pytest.mark.parametrize("doc", [
    {"size": 6, "box": "3x2", "givens": ["r1c1=1"]},   # boxes ISS would not draw: NoBoxes + Jigsaw
    {"size": 9, "variant": "x"},
    {"size": 4, "variant": "latin"},
    {"size": 4, "variant": "jigsaw", "regions": "0001" "0221" "3221" "3331"},
])
def test_other_box_shapes_and_variants_keep_their_units(doc):
    puzzle = parse_puzzle(doc)
    again = parse_puzzle(iss_from_puzzle(puzzle))
    assert _units(again) == _units(puzzle) and np.array_equal(again.grid, puzzle.grid)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=".~_-0123456789RCrcxSapeCgThrmoDtWBlckAKnigJswNo \n", max_size=80))
def test_random_text_gives_puzzle_error_at_worst(text):
    try:
        parse_puzzle(document_from_iss("." + text))
    except PuzzleError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_lzstring_compression_round_trips(text):
    assert decompress_from_base64(compress_to_base64(text)) == text.encode("utf-16-le", "surrogatepass").decode(
        "utf-16-le", "replace")


def test_lzstring_matches_the_reference_library():
    lz = pytest.importorskip("lzstring")
    for text in ('{"size":9,"title":"example"}', "abababababab" * 20, "", "ünïcödé ★" * 5):
        assert compress_to_base64(text) == lz.LZString().compressToBase64(text)


# -- ISS's own puzzles ----------------------------------------------------------------------------
def _collection():
    if not ISS_FILE.is_file():
        pytest.skip(f"{ISS_FILE} is absent (../shared is not beside the project)")
    return [json.loads(line) for line in ISS_FILE.read_text().splitlines() if line.strip()]


def _short(grid: np.ndarray, n: int) -> str:
    """ISS's short solution: digits, or letters A.. for 1.. when the grid's values pass 9."""
    return "".join(str(v) if n < 10 else chr(64 + v) for v in grid.ravel().tolist())


def test_collection_reads_or_refuses_by_type():
    refused: Counter = Counter()
    read = 0
    for entry in _collection():
        try:
            puzzle = parse_puzzle(entry["input"])
        except PuzzleError as e:
            message = str(e)
            assert "\n" not in message, message
            m = re.search(r"constraint type '(\w+)'", message)
            refused[m.group(1) if m else message.split(": ", 1)[-1][:40]] += 1
            continue
        read += 1
        assert parse_puzzle(iss_from_puzzle(puzzle)).to_document() == puzzle.to_document()
    print(f"\nISS collections: {read} of {read + sum(refused.values())} read; refused most: {refused.most_common(8)}")
    assert read >= 100


# Solving every readable entry to its published solution (or, without one, to an answer the
# independent CP-SAT oracle agrees with): tests/core/test_iss_collection.py, one test per entry.


@pytest.mark.parametrize("color", ["white", "black"])
@pytest.mark.parametrize("values", [None, [0, 1, 2, 3]])
def test_one_colour_strict_kropki_is_written_as_a_pair_per_unmarked_neighbour_pair(color, values):
    """ISS's StrictKropki gives both colours; the writer refused one colour alone."""
    from pipeline.solvers import SOLVERS

    grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])   # its dots all drawn: it solves
    shown = grid - 1 if values else grid
    dots = []
    for (r, c), (r2, c2) in [(((r, c), (r, c + 1))) for r in range(4) for c in range(3)] + \
            [(((r, c), (r + 1, c))) for r in range(3) for c in range(4)]:
        a, b = shown[r, c], shown[r2, c2]
        if (abs(a - b) == 1) if color == "white" else (a == 2 * b or b == 2 * a):
            dots.append({"rule": "kropki", "color": color, "cells": [f"r{r + 1}c{c + 1}", f"r{r2 + 1}c{c2 + 1}"]})
    doc = {"size": 4, "rules": [{"rule": "strictkropki", "color": color}, *dots]}
    if values:
        doc["values"] = values
    puzzle = parse_puzzle(doc)
    text = iss_from_puzzle(puzzle)
    assert text.count(".Pair~") == 24 - len(dots) and "StrictKropki" not in text   # 24 orthogonal pairs
    count = SOLVERS["sat"].count
    counted = count(build_model(puzzle), 300).count
    assert 0 < counted < 288 and count(build_model(parse_puzzle(text)), 300).count == counted


@pytest.mark.parametrize("text, said", [
    # a Var cell where a constraint takes grid cells only: the message said 'VL1' was no cell of the
    # grid, although the string declares it (a Replicate anchored on a Var cell, as in "Entropic
    # Lines", now reads: tests/core/test_rule_anyof.py; ContainAtLeast over Var cells, as in "Xin
    # Yang v2": tests/core/test_rule_contains.py)
    # (a Quad on a Var cell now reads: the square of its group, tests/core/test_iss_var_quad_pill.py)
    (".Shape~6x6.Var~L~loop~6x6.LittleKiller~8~VL1",
     "'VL1' is an extra cell (ISS Var), not a cell of the 6x6 grid, and this constraint takes grid cells only"),
    # ISS's "Chaos Construction: Thermo Knots" (an NFA line over region cells)
    (".ChaosConstruction.NoBoxes.Thermo~CC11~CC12",
     "'CC11' is a chaos construction region cell (CC), which only the chaos clues"),
])
def test_a_refused_cell_id_says_what_kind_of_cell_it_is(text, said):
    with pytest.raises(PuzzleError) as e:
        document_from_iss(text)
    assert said in str(e.value), str(e.value)


@pytest.mark.parametrize("text, said", [
    # a declared Var's prefix past its cells: it said "'VL37' is not a cell of the 6x6 grid"
    (".Shape~6x6.Var~L~loop~6x6.Thermo~R1C1~VL37", "'VL37' is none of the extra cells (ISS Var) of its prefix: "
                                                 "'VL1' to 'VL36'"),
    (".Shape~6x6.Var~L~loop~6x6.Thermo~R1C1~VL01", "'VL01' is none of the extra cells (ISS Var) of its prefix: "
                                                 "'VL1' to 'VL36'"),
    (".Shape~6x6.Var~C.Thermo~R1C1~VC1", "'VC1' is none of the extra cells (ISS Var) of its prefix: 'VC' alone "
                                        "(one cell)"),
])
def test_an_extra_cell_id_past_its_var_names_the_var_s_ids(text, said):
    with pytest.raises(PuzzleError) as e:
        document_from_iss(text)
    assert said in str(e.value), str(e.value)
