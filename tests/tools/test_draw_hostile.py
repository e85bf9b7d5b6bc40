"""draw and report under hostile input: text a user wrote (a rule's name, a title) is drawn as
written, never read as markup by the picture library."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from pipeline.cli.main import main  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402
from pipeline.tools.draw import draw_grid, write_figure  # noqa: E402

_DOLLARS = {"size": 4, "givens": "1...............",
            "rules": [{"rule": "pair", "cells": ["r1c1", "r1c2"], "allowed": [[1, 2], [2, 1]], "name": "$\\frac{$"}]}


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_dollar_signs_in_a_rule_name_are_drawn_as_text_not_parsed_as_mathtext(tmp_path, capsys, suffix):
    # a pairwise rule named '$\frac{$' ended draw in matplotlib's mathtext ParseException traceback
    doc = tmp_path / "pair.json"
    doc.write_text(json.dumps(_DOLLARS))
    out = tmp_path / f"pair.{suffix}"
    assert main(["draw", str(doc), "--to", str(out)]) == 0
    assert out.stat().st_size > 0
    assert "wrote" in capsys.readouterr().out


def test_a_title_with_dollar_signs_is_drawn_as_written(tmp_path):
    fig = draw_grid(parse_puzzle(json.dumps(_DOLLARS)), title="cost: $5 or $6^$")
    write_figure(fig, tmp_path / "t.png")   # parsed as mathtext it raised ParseException
    assert fig.axes[0].get_title() == "cost: $5 or $6^$"


def _iss(name: str) -> str:
    """An ISS collection entry's constraint string (tests/data/iss, ISS's own examples)."""
    path = Path(__file__).resolve().parents[1] / "data" / "iss" / "collections.jsonl"
    return next(json.loads(line)["input"] for line in path.open(encoding="utf-8") if f'"name": "{name}"' in line)


@pytest.mark.parametrize("name", ["House of Cards", "Inset"])
def test_a_rule_over_iss_variable_cells_draws_with_candidates(tmp_path, name):
    # ISS variables are cells past the canvas: a line through one (House of Cards) ended draw in
    # 'IndexError: index 36 is out of bounds for axis 0 with size 36', and --candidates over a
    # cage holding one (Inset) too
    source = tmp_path / "iss.txt"
    source.write_text(_iss(name))
    out = tmp_path / "iss.png"
    assert main(["draw", str(source), "--candidates", "--to", str(out)]) == 0
    assert out.stat().st_size > 0
