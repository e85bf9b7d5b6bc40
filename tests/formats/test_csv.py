"""CSV reader (formats/csv.py): the triplet size row ``m,n,0`` is checked before it sizes anything."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rule_models import random_document

from formats import read_model, write_model
from formats.base import ModelData
from formats.check import check_export
from formats.csv import read_triplets
from formats.directory import export_model
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle


def with_size_row(path, row: str) -> None:
    lines = path.read_text().rstrip("\n").split("\n")
    path.write_text("\n".join(lines[:-1] + [row]) + "\n")


@pytest.mark.parametrize("row", ["999999999,999999999,0", "999999999999,729,0", "1e300,729,0", "348,729,0",
                                 "347,730,0"])
def test_check_refuses_a_size_row_that_is_not_the_manifests(tmp_path, row):
    # 999999999 x 999999999 once took 4 GB and 10 s and blamed lb.csv; 999999999999 rows a
    # MemoryError traceback, 1e300 an OverflowError inside scipy
    out = tmp_path / "out"
    export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), out, "csv")
    path = out / "Aeq_ijv.csv"
    with_size_row(path, row)
    meta = json.loads((out / "manifest.json").read_text())
    meta["sha256"]["Aeq_ijv.csv"] = hashlib.sha256(path.read_bytes()).hexdigest()   # reach the reader
    (out / "manifest.json").write_text(json.dumps(meta))
    problems = check_export(out).problems
    assert len(problems) == 1 and "\n" not in problems[0]
    assert f"Aeq_ijv.csv: size row {row} is not the 347x729 matrix the manifest describes" in \
        problems[0].replace("1e+300", "1e300")


@pytest.mark.parametrize("row", ["999999999999,729,0", "1e300,729,0", "729,99999999999,0"])
def test_a_size_row_without_a_manifest_is_bounded(tmp_path, row):
    path = tmp_path / "A_ijv.csv"
    path.write_text(f"1,1,1\n{row}\n")
    with pytest.raises(FormatError, match=r"A_ijv.csv: size row .* exceeds 16777216 rows or columns"):
        read_triplets(path)


@given(index=st.sampled_from([0, -1, 3, 1e19, 1e308, -1e308, 2.0**63, -2.0**63, -0.0]), column=st.booleans(),
       extra=st.integers(0, 2))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_an_index_outside_the_size_row_is_named_with_its_line(tmp_path, index, column, extra):
    # 1e308 or 2**63 was cast to int64 first: a RuntimeWarning on stderr beside the error, and the
    # error named no line; now every index is held against the size row as read
    path = tmp_path / "A_ijv.csv"
    bad = f"1,{index!r},1" if column else f"{index!r},1,1"
    path.write_text("% a comment\n" + "".join(f"{k + 1},{k + 1},1\n" for k in range(extra))
                    + bad + "\n2,2,0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FormatError) as caught:
            read_triplets(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: line {extra + 2}: index (") and "outside the 2x2 size row" in message


def test_a_size_row_that_fits_is_read(tmp_path):
    path = tmp_path / "A_ijv.csv"
    path.write_text("1,2,1\n2,3,0\n")
    assert read_triplets(path, (2, 3)).toarray().tolist() == [[0, 1, 0], [0, 0, 0]]


@pytest.mark.parametrize("data", [[1, 1, 1, 1], [1, -3, 12, 1], [2, 2, 2, 2], [0.5, 1, -2.25, 3]])
def test_triplets_text_is_pyarrows(tmp_path, data):
    # issue 34: integer triplets are rendered by formats.text (a constant value as the line end);
    # the text stays what pyarrow's CSV writer gave, and floats still go through pyarrow
    import io

    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import scipy.sparse as sp

    from formats.csv import write_triplets
    m = sp.csr_matrix((np.array(data, dtype=float), ([0, 0, 2, 3], [1, 4, 0, 4])), shape=(5, 12345678))
    coo = m.tocoo()
    buffer = io.BytesIO()
    pacsv.write_csv(pa.table({"0": coo.row.astype(np.int64) + 1, "1": coo.col.astype(np.int64) + 1,
                              "2": coo.data.astype(np.int32) if (coo.data == np.rint(coo.data)).all() else coo.data}),
                    buffer,
                    pacsv.WriteOptions(include_header=False, quoting_style="none"))
    write_triplets(m, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_bytes() == buffer.getvalue() + b"5,12345678,0\n"


# ----------------------------------------------------------------------------------------------
# one-file writes (formats.write_model(model, "x.csv")): what Aeq alone cannot hold goes beside
# ----------------------------------------------------------------------------------------------
def _models():
    """Models whose one-file CSV needs siblings: cage sums, clues as bounds, an objective, ``<=`` rows."""
    cage = build_model(parse_puzzle({"size": 4, "rules": [{"rule": "cage", "sum": 3, "cells": ["r1c1", "r1c2"]}]}))
    bounds = build_model(parse_puzzle("1.....3..4.....2"), clues="bounds")
    plain = build_model(parse_puzzle("1.....3..4.....2"))
    costly = dataclasses.replace(plain, objective=np.arange(plain.puzzle.n ** 3, dtype=float))
    thermo = build_model(parse_puzzle({"size": 4, "rules": [{"rule": "thermo", "cells": ["r1c1", "r1c2", "r1c3"]}]}))
    return {"cage": cage, "bounds": bounds, "objective": costly, "thermo": thermo, "plain": plain}


def _same(model, path) -> bool:
    got, want = read_model(path), ModelData.from_model(model)
    return (all(np.array_equal(getattr(got, k), getattr(want, k)) for k in ("row_lower", "row_upper", "lb", "ub", "cost"))
            and (got.Aeq != want.Aeq).nnz == 0)


@pytest.mark.parametrize("name", ["Aeq_ijv.csv", "A.csv", "model_long.csv", "x.ijv.csv"])
@pytest.mark.parametrize("kind", ["cage", "bounds", "objective", "thermo", "plain"])
def test_a_one_file_csv_reads_back_as_the_model(tmp_path, name, kind):
    # a cage's sum, the clues as bounds and an objective were dropped without a word
    model = _models()[kind]
    write_model(model, tmp_path / name)
    assert _same(model, tmp_path / name)


def test_two_one_file_csvs_in_one_directory_keep_their_own_vectors(tmp_path):
    # both wrote beq.csv and bineq.csv, so the second model's sums were read back as the first's
    a, b = (build_model(parse_puzzle({"size": 4, "rules": [{"rule": "cage", "sum": s, "cells": ["r1c1", "r2c3"]}]}))
            for s in (3, 7))
    write_model(a, tmp_path / "a_Aeq_ijv.csv")
    write_model(b, tmp_path / "b_Aeq_ijv.csv")
    assert _same(a, tmp_path / "a_Aeq_ijv.csv") and _same(b, tmp_path / "b_Aeq_ijv.csv")
    names = {p.name for p in tmp_path.iterdir()}
    assert {"a_Aeq_ijv_beq.csv", "b_Aeq_ijv_beq.csv", "a_Aeq_ijv_bineq.csv", "b_Aeq_ijv_bineq.csv"} <= names
    assert not names & {"beq.csv", "bineq.csv"}


def test_a_one_file_csv_written_again_leaves_no_stale_sibling(tmp_path):
    models = _models()
    write_model(models["thermo"], tmp_path / "m.csv")
    write_model(models["cage"], tmp_path / "m.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.csv", "m_beq.csv"]
    write_model(models["plain"], tmp_path / "m.csv")
    assert [p.name for p in tmp_path.iterdir()] == ["m.csv"] and _same(models["plain"], tmp_path / "m.csv")


def test_an_export_directorys_shared_vectors_are_not_another_files(tmp_path):
    models = _models()
    export_model(models["cage"], tmp_path, "csv")      # beq.csv holds the cage's sum
    write_model(models["plain"], tmp_path / "mine.csv")
    assert _same(models["plain"], tmp_path / "mine.csv")
    assert _same(models["cage"], tmp_path / "Aeq_ijv.csv")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([4, 6]), clues=st.sampled_from(["rows", "bounds", "reduce"]),
       name=st.sampled_from(["m_ijv.csv", "m.csv", "m_long.csv"]), costly=st.booleans())
def test_random_rule_models_round_trip_through_one_csv_file(tmp_path_factory, seed, size, clues, name, costly):
    rng = np.random.default_rng(seed)
    model = build_model(parse_puzzle(json.dumps(random_document(rng, size))), clues=clues)
    if costly:
        model = dataclasses.replace(model, objective=rng.integers(-3, 4, size ** 3).astype(float))
    directory = tmp_path_factory.mktemp("one")
    write_model(model, directory / name)
    assert _same(model, directory / name)
