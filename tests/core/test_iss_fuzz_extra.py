"""Every ISS constraint type the reader knows, given extra cells (ISS ``Var``) where it takes cells:
it reads, or it is refused with a one-line :class:`PuzzleError`, never another exception.

``.Shape~6x6.Var~L~loop~6x6.Lunchbox~5~VL1~VL2`` stopped with a bare ``ValueError`` (a reader
wrote a Var cell back as a grid id). This module puts, in each cell place of each type's
template, Var cells (all of them, or one among grid cells), an id past its group (``VL99``), an
id of another declared group (``VM1``) or of none (``VQ1``), a group's bare prefix (``VL``) and
Doppelganger's ``DGR1``, on 4x4, 6x6, 9x9 and 0-indexed 6x6 grids; what reads is built
(:func:`build_model`) under the same contract. A Hypothesis test draws arguments of every type
from a pool of such tokens, and a few strings go through ``python -m pipeline solve``.
The larger sweep (rectangles, more values, Var shapes, the ISS writer back) is ``-m slow``.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_table import READERS
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle

PROJECT = Path(__file__).resolve().parents[2]
#: ISS type -> items with a cell place ``{c}``, a row or column place ``{h}``, a var group place ``{v}``.
TEMPLATES = {
    "AllDifferent": ["AllDifferent~{c}~{c}~{c}"], "AntiConsecutive": ["AntiConsecutive"], "AntiKing": ["AntiKing"],
    "AntiKnight": ["AntiKnight"], "AntiTaxicab": ["AntiTaxicab"], "Arrow": ["Arrow~{c}~{c}~{c}"],
    "Between": ["Between~{c}~{c}~{c}"], "Binary": ["Binary~EAEBEAAQAAAAE~~{c}~{c}"],
    "BinaryX": ["BinaryX~eoH75ev378GvwD~_x~{c}~{c}~{c}"], "BlackDot": ["BlackDot~{c}~{c}"],
    "Cage": ["Cage~5~{c}~{c}", "Cage~~{c}~{c}"], "ChaosArrow": ["ChaosConstruction.ChaosArrow~{c}"],
    "ChaosConstruction": ["ChaosConstruction"],
    "ChaosCount": ["ChaosCount~{c}", "ChaosConstruction.ChaosCount~{c}~1"],
    "ConnectedValues": ["ConnectedValues~{v}~1", "ConnectedValues~{v}~2~1", "ConnectedValues~{c}"],
    "ContainAtLeast": ["ContainAtLeast~1_2~{c}~{c}~{c}~{c}"], "ContainExact": ["ContainExact~1_2~{c}~{c}~{c}~{c}"],
    "CountDistinct": ["CountDistinct~{c}~{c}~{c}", "ChaosConstruction.CountDistinct~{c}~CC1~CC2"],
    "CountingCircles": ["CountingCircles~{c}~{c}~{c}"], "Diagonal": ["Diagonal~1"], "DisjointSets": ["DisjointSets"],
    "Doppelganger": ["Doppelganger.Thermo~{c}~{c}"], "DoubleArrow": ["DoubleArrow~{c}~{c}~{c}"],
    "DutchFlatmates": ["DutchFlatmates"], "Entropic": ["Entropic~{c}~{c}~{c}"],
    "EqualSum": ["EqualSum~{c}~{c}~-~{c}~{c}"], "EqualityCage": ["EqualityCage~{c}~{c}"],
    "FullRank": ["FullRank~{h}~2~", "FullRank~{h}~~2"], "FullRankTies": ["FullRankTies~any"],
    "GlobalEntropy": ["GlobalEntropy"], "GlobalMod": ["GlobalMod"], "GreaterThan": ["GreaterThan~{c}~{c}"],
    "HiddenSkyscraper": ["HiddenSkyscraper~{h}~3~", "HiddenSkyscraper~{h}~~3"],
    "Indexing": ["Indexing~C~{c}", "Indexing~R~{c}~{c}"], "LittleKiller": ["LittleKiller~8~{c}"],
    "Lockout": ["Lockout~2~{c}~{c}~{c}"], "LookAndSay": ["LookAndSay~11~{c}~{c}"],
    "Lunchbox": ["Lunchbox~3~{c}~{c}~{c}", "Lunchbox~5~{c}~{c}"], "Modular": ["Modular~2~{c}~{c}~{c}"],
    "NFA": ["NFA~AjFAGhA~_x~{c}~{c}", "NFA~AjFAGhA~_x~{c}~-~{c}"],
    "NumberedRoom": ["NumberedRoom~{h}~2~", "NumberedRoom~{h}~~2"], "Pair": ["Pair~EAEBEAAQAAAAE~_~{c}~{c}"],
    "PairX": ["PairX~-v_7_-v_7_-v_D~_x~{c}~{c}~{c}"], "Palindrome": ["Palindrome~{c}~{c}~{c}"],
    "PillArrow": ["PillArrow~2~{c}~{c}~{c}"], "Quad": ["Quad~{c}~1~2"],
    "Regex": ["Regex~Lj8oW140N118NDcxKSo~{c}~{c}~{c}"], "RegionSameValues": ["RegionSameValues"],
    "RegionSumLine": ["RegionSumLine~{c}~{c}~{c}"], "RellikCage": ["RellikCage~4~{c}~{c}"],
    "Renban": ["Renban~{c}~{c}"], "SameValues": ["SameValues~2~{c}~{c}", "SameValues~{c}~{c}~{c}~{c}"],
    "Sandwich": ["Sandwich~3~{h}"], "Skyscraper": ["Skyscraper~{h}~2", "Skyscraper~{h}~~2"],
    "StrictKropki": ["StrictKropki.WhiteDot~{c}~{c}"], "StrictXV": ["StrictXV.X~{c}~{c}"],
    "Sum": ["Sum~3~{c}~{c}", "Sum~3_=_1_2~{c}~{c}", "Sum~3_=_1_1~{c}~{c}", "Sum~3_=_1_-1~{c}~{c}~{c}"],
    "SumLine": ["SumLine~5~{c}~{c}~{c}", "SumLine~5~{c}~{c}~{c}~LOOP"], "Thermo": ["Thermo~{c}~{c}"],
    "V": ["V~{c}~{c}"], "ValueIndexing": ["ValueIndexing~{c}~{c}~{c}"], "Whisper": ["Whisper~2~{c}~{c}"],
    "WhiteDot": ["WhiteDot~{c}~{c}"], "Windoku": ["Windoku"], "X": ["X~{c}~{c}"],
    "XSum": ["XSum~{h}~5~", "XSum~{h}~~5"], "Zipper": ["Zipper~{c}~{c}~{c}"],
    # the items the reader takes itself: givens, and composites whose children take cells
    "Given": ["~{c}_1", "~{c}_1_2~{c}_3"],
    "Or": ["Or.Thermo~{c}~{c}.Cage~3~{c}~{c}.End", "Or.And.X~{c}~{c}.V~{c}~{c}.End.~{c}_1.End"],
    "Replicate": ["Replicate~B~{c}.Thermo~{c}~{c}.End", "Replicate~D.~{c}_1.End"],
}
GRID_CELLS = ("R1C1", "R1C2", "R2C2", "R2C1")   # on every grid tried, orthogonal neighbours in turn
HOUSES = ("R1", "C2", "R2")
#: What replaces one place: a var cell, past its group, of another group, of no group, a bare prefix...
ODD_IDS = ("VL99", "VM1", "VQ1", "VE", "VL", "VL0", "DGR1", "CC1")
VARS = ".Var~L~loop~2x2.Var~M~~3.Var~E"   # VL1..VL4 (2 a row), VM1..VM3, VE (one cell)
SHAPES = ("", ".Shape~4x4", ".Shape~6x6", ".Shape~6x6~0-5")
SLOW_SHAPES = SHAPES + (".Shape~4x4~0-4", ".Shape~9x9~0-9", ".Shape~4x6", ".Shape~16x16")
SLOW_VARS = (VARS, ".Var~L~loop~6x6.Var~M~~3", "")
_PLACE = re.compile(r"\{([chv])\}")


def _fill(template: str, tokens: list[str]) -> str:
    it = iter(tokens)
    return _PLACE.sub(lambda m: next(it), template)


def variants(template: str) -> list[str]:
    """The template with grid cells; with var cells everywhere; then each place in turn a var
    cell, each odd id, and (among var cells) a cell of the other group."""
    places = _PLACE.findall(template)
    cells, houses = iter(GRID_CELLS * 4), iter(HOUSES * 4)
    base = [next(cells) if p == "c" else next(houses) if p == "h" else "VL" for p in places]
    var = [f"VL{i % 4 + 1}" if p != "v" else "VL" for i, p in enumerate(places)]
    out = [_fill(template, base), _fill(template, var)]
    for i in range(len(places)):
        for odd in (var[i], *ODD_IDS):
            out.append(_fill(template, base[:i] + [odd] + base[i + 1:]))
        out.append(_fill(template, var[:i] + ["VM2"] + var[i + 1:]))
    return list(dict.fromkeys(out))


def outcome(text: str, write_back: bool = False) -> str:
    """``refused``, ``read`` (refused when built) or ``built``; fails on any other exception or a
    message of more than one line."""
    try:
        document_from_iss(text)
    except PuzzleError as e:
        assert "\n" not in str(e), f"{text}: a message of several lines: {e}"
        return "refused"
    try:   # no other exception: pytest fails the test with the traceback and the string in it
        puzzle = parse_puzzle(text)
        build_model(puzzle)
        if write_back:
            document_from_iss(iss_from_puzzle(puzzle))
    except PuzzleError as e:
        assert "\n" not in str(e), f"{text}: a message of several lines: {e}"
        return "read"
    return "built"


def test_every_type_the_reader_knows_has_templates():
    """A new reader needs its template here, so that the fuzz tries it too."""
    assert set(READERS) <= set(TEMPLATES)
    assert set(TEMPLATES) - set(READERS) == {"Given", "Or", "Replicate"}


@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_var_cells_in_every_cell_place_read_or_are_refused_in_one_line(kind):
    seen = {"refused": 0, "read": 0, "built": 0}
    for template in TEMPLATES[kind]:
        for body in variants(template):
            for shape in SHAPES:
                for declared in (VARS, ""):
                    seen[outcome(f"{shape}{declared}.{body}")] += 1
    assert sum(seen.values()) >= len(SHAPES) * 2   # each type tried on every shape, with and without Var


def test_var_cells_read_where_iss_takes_any_cells():
    """Not every case is a refusal: the usual line and cage types read over Var cells alone."""
    for kind in ("Thermo", "Cage", "Renban", "Whisper", "Arrow", "Lunchbox", "ContainAtLeast", "SumLine", "X", "Sum"):
        text = f".Shape~6x6{VARS}.{variants(TEMPLATES[kind][0])[1]}"
        assert "L1" in str(document_from_iss(text)["rules"]), text


TOKENS = st.sampled_from(["VL1", "VL2", "VL4", "VL99", "VL0", "VL", "VM1", "VE", "VQ1", "DGR1", "R1C1", "R1C2",
                          "R2C1", "R9C9", "R1", "C2", "CC1", "1", "2", "0", "-1", "1_2", "3_=_1_2", "-", "LOOP", "",
                          "C", "R", "any", "_x", "AjFAGhA", "EAEBEAAQAAAAE"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(READERS)), args=st.lists(TOKENS, max_size=6), shape=st.sampled_from(SHAPES),
       declared=st.sampled_from([VARS, ".Var~L~~4"]))
def test_any_arguments_of_var_and_grid_cells_read_or_are_refused_in_one_line(kind, args, shape, declared):
    outcome(f"{shape}{declared}.{'~'.join([kind, *args])}")


CLI_CASES = [
    ".Shape~6x6.Var~L~loop~6x6.Lunchbox~5~VL1~VL2",   # the colleague's string: a lunchbox no grid keeps
    ".Shape~4x4.Var~L~~2x2.Thermo~VL1~VL2~R1C1",      # reads and solves
    ".Shape~4x4.Var~L~~2x2.Quad~VL1~1",               # refused: a quad sits on grid cells
    ".Shape~6x6~0-5.Var~L~loop~6x6.Sum~3_=_1_2~VL1~R1C1",
]


@pytest.mark.parametrize("text", CLI_CASES)
def test_solve_answers_or_refuses_in_one_line(text, tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text(text + "\n")
    code = main(["solve", str(path)])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2) and "Traceback" not in err
    if code == 2:
        assert out == "" and len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    else:
        assert out.strip()


def test_solve_through_python_m_pipeline_never_shows_a_traceback(tmp_path):
    for i, text in enumerate(CLI_CASES[:3]):
        path = tmp_path / f"p{i}.txt"
        path.write_text(text + "\n")
        run = subprocess.run([sys.executable, "-m", "pipeline", "solve", str(path)], capture_output=True, text=True,
                             cwd=PROJECT, timeout=120)
        assert "Traceback" not in run.stderr, (text, run.stderr)
        assert run.returncode in (0, 1, 2), (text, run.returncode)
        if run.returncode == 2:
            assert len(run.stderr.strip().splitlines()) == 1, (text, run.stderr)
        else:
            assert run.stdout.strip(), text


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_the_larger_sweep_with_the_writer_back(kind):
    for template in TEMPLATES[kind]:
        for body in variants(template):
            for shape in SLOW_SHAPES:
                for declared in SLOW_VARS:
                    outcome(f"{shape}{declared}.{body}", write_back=True)
