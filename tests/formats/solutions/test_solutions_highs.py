"""HiGHS solution files (formats/solutions/highs.py): the pretty style's fixed-width columns."""
from __future__ import annotations

import re

import pytest

from solution_files import highs_solve, manifest_of, write_mps
from formats.solutions import read_solution
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import parse_puzzle


@pytest.fixture(scope="module")
def pretty(tmp_path_factory):
    """A 4x4 export, HiGHS's pretty answer (style 1) of it, and its lines."""
    model = build_model(parse_puzzle("1...........3..."))
    work = tmp_path_factory.mktemp("highs")
    h = highs_solve(write_mps(model, work / "model.mps"))
    h.writeSolution(str(work / "hi.sol"), 1)
    return manifest_of(model), work, (work / "hi.sol").read_text().splitlines()


def _edited(work, lines, no, old, new):
    """The answer with ``old`` replaced by ``new`` on line ``no`` (1-based), as a tester's sed."""
    assert old in lines[no - 1]
    edited = [*lines]
    edited[no - 1] = lines[no - 1].replace(old, new, 1)
    path = work / f"edit_{no}_{new.strip()}.sol"
    path.write_text("\n".join(edited) + "\n")
    return path


def test_a_value_wider_than_its_column_is_refused_not_cut(pretty):
    """An outside probe: ' -0 ' edited to ' 0.5 ' runs one character past the Primal column's
    right edge; cut at the header's position it read '0.' (0), and import printed a grid."""
    man, work, lines = pretty
    no = next(k + 1 for k, line in enumerate(lines) if k >= 2 and " -0 " in line)
    path = _edited(work, lines, no, " -0 ", " 0.5 ")
    with pytest.raises(FormatError, match=rf"^{re.escape(str(path))}: line {no}: '0\.5' runs across the Primal "
                                          rf"column's boundary at character \d+ \(misaligned with the header\)$"):
        read_solution(path, man)
