"""formats/agree.py: the model a file's metadata describes, built once while ``check`` shares its own."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
import scipy.sparse as sp

from formats.agree import described_model, model_difference, sharing_model
from formats.base import ModelData, read_model, write_model
from formats.directory import export_model
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import manifest_from_dict, model_metadata
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle


def _sharing(model):
    return sharing_model(manifest_from_dict(model_metadata(model)), model, ModelData.from_model(model))


def test_metadata_of_the_shared_model_gets_it_and_any_other_is_built():
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    meta = model_metadata(model)
    clue = next(k for k, c in enumerate(meta["puzzle"]) if c not in ".0")
    other_clue = {key: value for key, value in meta.items() if key != "n_clues"}   # one clue fewer
    other_clue["puzzle"] = meta["puzzle"][:clue] + "." + meta["puzzle"][clue + 1:]
    with _sharing(model):
        assert described_model(dict(meta), "f") is model                       # equal metadata: the same object
        assert described_model(dict(meta, sha256={}), "f") is model             # a field the build ignores
        for changed in (dict(meta, order="C" if meta["order"] == "F" else "F"), dict(meta, clue_encoding="bounds"),
                        other_clue):
            rebuilt = described_model(changed, "f")
            assert rebuilt is not model
            assert (rebuilt.Aeq.shape != model.Aeq.shape or (rebuilt.Aeq != model.Aeq).nnz
                    or (rebuilt.col_names != model.col_names).any() or (rebuilt.lb != model.lb).any())
    assert described_model(dict(meta), "f") is not model                        # only while in force


def test_a_file_that_differs_from_the_shared_model_is_still_refused(tmp_path):
    # sharing must not make the agreement check compare a model with itself: an edited LP is refused
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    export_model(model, tmp_path / "intact", "lp")
    export_model(model, tmp_path / "edited", "lp")
    path = tmp_path / "edited" / "model.lp"
    path.write_text(path.read_text().replace(" = 1\n", " = 2\n", 1))
    with _sharing(model), pytest.raises(FormatError, match=r"not the model its metadata describes"):
        read_model(path)
    with _sharing(model):
        assert read_model(tmp_path / "intact" / "model.lp").Aeq.nnz == model.Aeq.nnz


_MISSTATED = [("columns", 10**12), ("rows", 10**12), ("nonzeros", 7), ("shape", [100000, 100000, 100000]),
              ("shape", "abc"), ("families", {"cell": 10**12, "row": 16, "col": 16, "box": 16, "clue": 2})]


# the LP comment wraps its JSON across lines where "families" falls: not edited by a replace
@pytest.mark.parametrize("ext, key, value", [(ext, key, value) for ext in ("mps", "lp", "cnf", "opb", "mps.gz")
                                             for key, value in _MISSTATED if (ext, key) != ("lp", "families")])
def test_a_file_whose_metadata_misstates_its_model_is_refused(tmp_path, ext, key, value):
    # the file's model was compared with its puzzle's, but not what its metadata says of that
    # model: "columns": 10**12 beside 64 columns was read (and `check` called the file whole)
    # and handed on in ModelData.metadata
    path = write_model(build_model(parse_puzzle("1...........3...", box="2x2")), tmp_path / f"m.{ext}")
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if ext.endswith(".gz") else raw).decode()
    want = json.dumps(model_metadata(build_model(parse_puzzle("1...........3...", box="2x2")))[key],
                      separators=(",", ":"))
    assert f'"{key}":{want}' in text
    text = text.replace(f'"{key}":{want}', f'"{key}":{json.dumps(value, separators=(",", ":"))}', 1)
    path.write_bytes(gzip.compress(text.encode()) if ext.endswith(".gz") else text.encode())
    said = "the metadata counts" if (ext, key) == ("opb", "rows") else f"its metadata records '{key}' as "
    with pytest.raises(FormatError, match=rf"^{path}: .*{said}"):
        read_model(path)


def _copied(data: ModelData, aeq=None, col_names=None) -> ModelData:
    """``data`` with arrays of its own (as a reader returns them), some replaced."""
    return ModelData(data.Aeq.copy() if aeq is None else aeq, data.row_lower.copy(), data.row_upper.copy(),
                     data.lb.copy(), data.ub.copy(), np.array(data.cost), np.array(data.integrality),
                     np.array(data.row_labels), np.array(data.col_names) if col_names is None else col_names,
                     data.metadata)


def test_model_difference_names_the_first_entry_whatever_the_matrix_layout():
    want = ModelData.from_model(build_model(parse_puzzle(DEFAULT_PUZZLE)))
    assert model_difference(_copied(want), want) is None
    changed = want.Aeq.tocoo(copy=True)
    changed.data[[7, 3]] = 2.0                      # two entries, the first listed is not the first place
    unsorted = sp.csr_matrix(                        # built from the entries backwards
        (changed.data[::-1], (changed.row[::-1], changed.col[::-1])), shape=changed.shape)
    i, j = sorted(zip(changed.row[[7, 3]], changed.col[[7, 3]]))[0]
    said = (f"2 entries of Aeq differ, the first at row {want.row_labels[i]}, column {want.col_names[j]}: "
            "2 in the file, 1 in the model")
    assert model_difference(_copied(want, aeq=changed.tocsr()), want) == said
    assert model_difference(_copied(want, aeq=unsorted), want) == said
    same_but_unsorted = sp.csr_matrix((want.Aeq.data.copy(), want.Aeq.indices.copy(), want.Aeq.indptr.copy()),
                                      shape=want.Aeq.shape)
    same_but_unsorted.has_sorted_indices = False   # compared entry by entry, then: still the same
    assert model_difference(_copied(want, aeq=same_but_unsorted), want) is None
    names = np.array(want.col_names)
    names[5] = "x_other"
    assert model_difference(_copied(want, col_names=names), want) == "col names differ"


def test_model_difference_holds_no_copy_of_the_names_or_the_matrix():
    # the old comparison copied both models' names to str (twice) and listed both matrices'
    # entries to find none differing
    import tracemalloc
    want = ModelData.from_model(build_model(parse_puzzle('{"size": 16}')))
    got = _copied(want)
    tracemalloc.start()
    try:
        assert model_difference(got, want) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < np.asarray(want.col_names).nbytes / 4, peak    # the old code: twice the names
