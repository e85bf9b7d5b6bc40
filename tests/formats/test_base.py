"""formats/base.py: read_model's refusal of what is no model file's path."""
from __future__ import annotations

import re

import pytest

from formats import read_model, write_model
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import parse_puzzle


@pytest.mark.parametrize("path, fmt", [(None, None), (None, "mps"), (3, None)])
def test_read_model_of_no_path_names_the_type(path, fmt):
    """An outside probe: read_model(None) said "no format named or matching 'None'" (and a
    TypeError traceback with a format named)."""
    with pytest.raises(FormatError, match=rf"^read_model: path must be a file's path \(str or os\.PathLike\), "
                                          rf"not {type(path).__name__}$"):
        read_model(path, fmt)


def test_read_model_of_a_directory_names_the_model_files_in_it(tmp_path):
    """read_model('out') said "no format named or matching 'out'"."""
    model = build_model(parse_puzzle("1...........3...", box="2x2"))
    for name in ("model.mps", "model.lp"):
        write_model(model, tmp_path / name)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(FormatError, match=rf"^{re.escape(str(tmp_path))}: a directory, not a model file; read a model "
                                          rf"file in it: {re.escape(str(tmp_path / 'model.lp'))}, "
                                          rf"{re.escape(str(tmp_path / 'model.mps'))}$"):
        read_model(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FormatError, match=rf"^{re.escape(str(empty))}: a directory, not a model file$"):
        read_model(str(empty))


def test_read_model_of_a_manifest_says_it_is_one_and_how_to_check_it(tmp_path):
    """read_model('out/manifest.json') said "no format named or matching ..."."""
    from formats import export_model

    export_model(build_model(parse_puzzle("1...........3...", box="2x2")), tmp_path, formats=["mps"])
    manifest = tmp_path / "manifest.json"
    with pytest.raises(FormatError, match=rf"^{re.escape(str(manifest))}: a manifest, not a model file: read a model "
                                          rf"file it lists, or check the export with 'python -m pipeline check "
                                          rf"{re.escape(str(tmp_path))}'$"):
        read_model(manifest)
