"""One-file exports (:func:`formats.single.export_file`): what a failure leaves behind."""
from __future__ import annotations

import numpy as np
import pytest

import formats.single as single_module
from formats.single import export_file
from pipeline.core.build import build_model
from pipeline.core.puzzle import Puzzle


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failed_one_file_export_removes_the_directories_it_made_and_no_other(tmp_path, monkeypatch, failure):
    """``export --to new/deeper/m.lp`` that fails at its manifest (a full disk, Ctrl-C) left
    ``new/deeper`` behind, empty; a directory that was there before stays, with its files."""
    def failing(*args, **kwargs):   # the model's file is written by then: it fails part-way
        raise failure
    monkeypatch.setattr(single_module, "write_manifest", failing)
    model = build_model(Puzzle(np.zeros((4, 4), dtype=int), 2, 2))
    with pytest.raises((type(failure), OSError)):
        export_file(model, tmp_path / "new" / "deeper" / "m.lp", "lp")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("mine")
    with pytest.raises((type(failure), OSError)):
        export_file(model, tmp_path / "kept" / "m.lp", "lp")
    assert [p.name for p in (tmp_path / "kept").iterdir()] == ["notes.txt"]
