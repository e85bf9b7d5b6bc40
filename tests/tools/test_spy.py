"""spy: [A; B] with labelled families; density image for big models; --compare."""
from __future__ import annotations

import re

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.cli.main import main
from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.tools.spy import compare_convention, density, label_positions, spy_axes, spy_figure

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


# -- models with rules: Aeq's rule rows and Aineq's families (issue 15) ------------------------------
import json  # noqa: E402

from pipeline.tools.spy import row_bands  # noqa: E402

RULES_DOC = {"size": 9, "givens": "5" + "." * 80, "rules": [
    {"rule": "windoku"}, {"rule": "cage", "cells": ["r1c2", "r2c1", "r5c5"], "sum": 12},
    {"rule": "thermo", "cells": ["r9c1", "r8c2", "r7c3"]}, {"rule": "kropki", "color": "black", "cells": ["r6c6", "r6c7"]},
    {"rule": "even", "cells": ["r3c9"]}, {"rule": "antiknight"}]}


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_bands_follow_the_rows_of_aeq_and_aineq(clues):
    model = build_model(parse_puzzle(json.dumps(RULES_DOC)), clues=clues)
    equal, below = row_bands(model)
    assert sum(rows for _, rows in equal) == model.n_rows and sum(rows for _, rows in below) == model.n_ineq
    # each band's rows carry its family's labels, in order
    labels = np.concatenate([model.row_labels, model.ineq_labels])
    start = 0
    for family, rows in equal + below:
        assert {label.rsplit("_")[0] if "_" in label else label for label in labels[start:start + rows]} == {family}
        start += rows
    assert [family for family, _ in below] == ["cage", "thermo", "kropki", "parity", "antiknight"]
    assert "cagesum" in dict(equal) and "window" in dict(equal)


def test_rules_model_shows_aineq_below_aeq_with_a_label_per_family():
    model = build_model(parse_puzzle(json.dumps(RULES_DOC)))
    fig = spy_figure([model])
    ax = fig.axes[0]
    texts = _labels(fig)
    equal, below = row_bands(model)
    for family, rows in equal + below:
        assert sum(text.startswith(family) and f"{rows} rows" in text for text in texts) == 1, family
    assert "Aeq (=)" in texts and "Aineq (<=)" in texts
    assert ax.get_ylim() == (model.n_rows + model.n_ineq, 0)
    offsets = ax.collections[0].get_offsets()
    assert len(offsets) == model.nnz + model.ineq_nnz
    ineq_rows = offsets[:, 1] > model.n_rows
    assert ineq_rows.sum() == model.ineq_nnz
    # negative coefficients (the thermometer's -v(c), the dot's partners) are marked apart
    colours = ax.collections[0].get_facecolors()
    assert len(np.unique(colours, axis=0)) == 2
    assert "+ " + str(model.ineq_nnz) in ax.get_xlabel()


def test_plain_models_have_no_aineq_band():
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    fig = spy_figure([model])
    texts = _labels(fig)
    assert "Aineq (<=)" not in texts and "Aeq (=)" not in texts
    assert len(np.unique(fig.axes[0].collections[0].get_facecolors(), axis=0)) == 1
    assert fig.axes[0].get_ylim() == (model.n_rows, 0)


def test_rules_density_counts_both_matrices():
    model = build_model(parse_puzzle(json.dumps(RULES_DOC)))
    assert density(model, 40).sum() == model.nnz + model.ineq_nnz


def test_spy_of_a_document_with_rules(tmp_path):
    doc = tmp_path / "r.json"
    doc.write_text(json.dumps(RULES_DOC))
    out = tmp_path / "s.png"
    assert main(["spy", str(doc), "--compare", "reduce", "--to", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("spec, words", [("C/F", "names two orders, 'C' and 'F'"),
                                         ("reduce/rows", "names two clue encodings, 'reduce' and 'rows'"),
                                         ("", "names no scheme"), ("/", "names no scheme"),
                                         ("F", "names the convention drawn already (ijk/F, clues as rows)"),
                                         ("ijk/rows", "names the convention drawn already")])
def test_a_compare_spec_naming_nothing_or_two_of_a_kind_is_refused(spec, words):
    # C/F drew the last one twice side by side, and '' the same convention twice, without a word
    with pytest.raises(PipelineError, match=re.escape(f"--compare {spec!r}: {words}")):
        compare_convention(spec, "ijk", "F", "rows")


def test_cli_compare_empty_is_refused_and_writes_nothing(tmp_path, capsys):
    target = tmp_path / "s.svg"
    assert main(["spy", "--compare", "", "--to", str(target)]) == 2
    assert capsys.readouterr().err.startswith("error: --compare '': names no scheme") and not target.exists()


def test_spy_figure_takes_one_model_and_refuses_what_is_none(tmp_path):
    # spy_figure(model) was "object of type 'Model' has no len()", a path "'str' object has no attribute 'n_ineq'"
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    assert len(spy_figure(model).axes) == 1
    with pytest.raises(PipelineError, match=r"^spy_figure: takes a Model or a list of them .*found str$"):
        spy_figure("examples/puzzle.txt")


def test_a_panel_title_with_dollar_signs_is_drawn_as_written(tmp_path):
    # read as mathtext, "$\\frac{$" raised ParseException when the figure was drawn
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    spy_axes(ax, build_model(parse_puzzle(DEFAULT_PUZZLE)), title="cost: $\\frac{$")
    fig.savefig(tmp_path / "spy.png")
    assert ax.get_title() == "cost: $\\frac{$"
    plt.close(fig)
