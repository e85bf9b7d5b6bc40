"""spy: [A; B] with labelled families; density image for big models; --compare."""
from __future__ import annotations

import pytest

from pipeline.build import build_model
from pipeline.cli import main
from pipeline.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.spy import density

pytest.importorskip("matplotlib", reason="spy needs matplotlib (extra 'plot')")


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_density_counts_every_nonzero(clues):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues=clues)
    img = density(model, 50)
    assert img.sum() == model.nnz and img.shape == (50, 50)


@pytest.mark.parametrize("args", [
    [],
    ["--compare", "block/C"],
    ["--clues", "reduce", "--scheme", "block"],
    ["0" * 256, "--variant", "x"],
])
def test_spy_writes_picture(tmp_path, args):
    out = tmp_path / "s.png"
    assert main(["spy", *args, "--to", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_compare(tmp_path, capsys):
    assert main(["spy", "--compare", "nope/Q", "--to", str(tmp_path / "s.png")]) == 2
    assert capsys.readouterr().err.startswith("error:")
