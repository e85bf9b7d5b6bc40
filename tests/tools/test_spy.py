"""spy: [A; B] with labelled families; density image for big models; --compare."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.cli.main import main
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.tools.spy import compare_convention, density, label_positions, spy_figure

pytest.importorskip("matplotlib", reason="spy needs matplotlib (extra 'plot')")


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_density_counts_every_nonzero(clues):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues=clues)
    img = density(model, 50)
    assert img.sum() == model.nnz and img.shape == (50, 50)


@pytest.mark.parametrize("args", [
    [],
    ["--compare", "block/C"],
    ["--compare", "C"],
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


@pytest.mark.parametrize("spec,want", [
    ("C", ("ijk", "C", "rows")), ("block", ("block", "F", "rows")), ("block/C", ("block", "C", "rows")),
    ("C/block", ("block", "C", "rows")), ("reduce", ("ijk", "F", "reduce")),
])
def test_compare_names_what_changes(spec, want):
    assert compare_convention(spec, "ijk", "F", "rows") == want


def _labels(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_every_row_family_is_a_labelled_band():
    model = build_model(parse_puzzle("0" * 81, variant="x"), clues="rows")
    fig = spy_figure([model])
    ax = fig.axes[0]
    labels = " ".join(_labels(fig))
    for family, rows in model.family_counts().items():
        assert f"{family}" in labels and f"{rows} rows" in labels, family
    assert ax.collections and not ax.images  # 9x9: one marker per nonzero, like MATLAB's spy
    offsets = ax.collections[0].get_offsets()
    assert len(offsets) == model.nnz


def test_big_models_are_a_density_image():
    model = build_model(parse_puzzle("0" * 256))
    ax = spy_figure([model]).axes[0]
    assert ax.images and not ax.collections  # N >= 16: binned, never a marker per nonzero
    assert ax.images[0].get_array().count() > 0


def test_thin_band_labels_do_not_overlap():
    ys = label_positions(np.array([100.0, 300.0, 405.0, 415.0, 425.0]), 450)
    assert np.all(np.diff(ys) >= 0.045 * 450 - 1e-9) and ys[-1] <= 450
