"""Parquet format: round trips, what pandas/pyarrow see (types, metadata), atomicity, speed."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import formats.parquet as pqf
from formats.base import ModelData, format_for, read_model, write_model
from oracles import SETS_DIR, assert_same_model_data, round_trip_cases, round_trip_puzzles
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import model_metadata

DATA = SETS_DIR
PUZZLES = round_trip_puzzles()
CASES = round_trip_cases(PUZZLES)
assert_same = assert_same_model_data



@pytest.mark.parametrize("name,scheme,order,enc", CASES)
def test_round_trip(tmp_path, name, scheme, order, enc):
    model = build_model(PUZZLES[name], scheme, order, enc)
    pqf.export(model, tmp_path)
    want = ModelData.from_model(model)
    assert_same(pqf.read(tmp_path), want)  # the directory
    assert_same(read_model(tmp_path / pqf.COO_NAME), want)  # the COO file, by extension


def test_single_file_write_and_sibling_paths(tmp_path):
    model = build_model(PUZZLES["6x6"], "block", "F", "reduce")
    write_model(model, tmp_path / "six.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["six.parquet", "six_cols.parquet", "six_rows.parquet"]
    want = ModelData.from_model(model)
    for name in ("six.parquet", "six_rows.parquet", "six_cols.parquet"):
        assert_same(pqf.read(tmp_path / name), want)
    assert format_for("six.parquet").name == "parquet"


def test_custom_objective_round_trip(tmp_path):
    p = PUZZLES["default"]
    model = build_model(p, "ijk", "C", "reduce", objective=np.linspace(0, 1, p.n ** 3))
    pqf.export(model, tmp_path)
    assert_same(pqf.read(tmp_path), ModelData.from_model(model))


def test_coo_only_rebuilds_from_metadata(tmp_path):
    model = build_model(PUZZLES["x"] if "x" in PUZZLES else PUZZLES["default"], "block", "C", "bounds")
    pqf.export(model, tmp_path)
    (tmp_path / pqf.ROWS_NAME).unlink()
    (tmp_path / pqf.COLS_NAME).unlink()
    assert_same(pqf.read(tmp_path / pqf.COO_NAME), ModelData.from_model(model))


@pytest.mark.parametrize("enc", ["rows", "reduce"])
def test_pandas_and_pyarrow_view(tmp_path, enc):
    model = build_model(PUZZLES["default"], "block", "F", enc)
    pqf.export(model, tmp_path)
    want_meta = model_metadata(model)
    for table, name in (("coo", pqf.COO_NAME), ("rows", pqf.ROWS_NAME), ("cols", pqf.COLS_NAME)):
        meta = json.loads(pq.read_schema(tmp_path / name).metadata[pqf.META_KEY])
        assert meta.pop("table") == table
        assert meta == want_meta
        # the same key is visible at the Parquet level (what non-Arrow readers see)
        assert pqf.META_KEY in pq.read_metadata(tmp_path / name).metadata

    coo = pd.read_parquet(tmp_path / pqf.COO_NAME)
    assert list(coo.columns) == ["row", "col", "value"]
    assert coo.dtypes.tolist() == [np.int32, np.int32, np.float64]
    a = model.Aeq.tocoo()
    np.testing.assert_array_equal(coo["row"], a.row)  # 0-based, row-major like CSR
    np.testing.assert_array_equal(coo["col"], a.col)
    schema = pq.read_schema(tmp_path / pqf.COO_NAME)
    assert schema.field("row").metadata == {b"index_base": b"0"}
    assert want_meta["index_base"]["parquet"] == 0

    rows = pd.read_parquet(tmp_path / pqf.ROWS_NAME)
    assert list(rows.columns) == ["label", "family", "lower", "upper"]
    np.testing.assert_array_equal(rows["label"], model.row_labels)
    np.testing.assert_array_equal(rows["family"], rows["label"].str.split("_").str[0])
    assert (rows["lower"] == 1).all() and (rows["upper"] == 1).all()

    cols = pd.read_parquet(tmp_path / pqf.COLS_NAME)
    assert list(cols.columns) == ["name", "r", "c", "d", "I", "J", "p", "q", "n", "position",
                                  "lb", "ub", "integer", "cost"]
    np.testing.assert_array_equal(cols["name"], model.col_names)
    np.testing.assert_array_equal(cols["position"], model.columns)
    conv = model.convention
    r, c, d = conv.cell_digit(model.columns)
    np.testing.assert_array_equal(cols[["r", "c", "d"]].to_numpy(), np.column_stack([r, c, d]) + 1)
    np.testing.assert_array_equal(cols["r"], (cols["I"] - 1) * conv.h + cols["p"])
    np.testing.assert_array_equal(cols["c"], (cols["J"] - 1) * conv.w + cols["q"])
    assert cols["integer"].dtype == bool and cols["integer"].all()


def test_ijk_columns_and_types(tmp_path):
    model = build_model(PUZZLES["jigsaw"] if "jigsaw" in PUZZLES else PUZZLES["default"], "ijk", "C")
    pqf.export(model, tmp_path)
    schema = pq.read_schema(tmp_path / pqf.COLS_NAME)
    assert schema.names == ["name", "r", "c", "d", "i", "j", "k", "position", "lb", "ub", "integer", "cost"]
    # only plain types, which every reader (MATLAB parquetread included) knows
    assert {str(f.type) for f in schema} <= {"string", "int32", "double", "bool"}
    cols = pq.read_table(tmp_path / pqf.COLS_NAME).to_pandas()
    np.testing.assert_array_equal(cols[["i", "j", "k"]].to_numpy(), cols[["r", "c", "d"]].to_numpy())


def test_wide_indices_switch_to_int64():
    assert pqf._index_type(2**31 - 1) == pa.int32()
    assert pqf._index_type(2**31) == pa.int64()


def test_atomic_write_keeps_old_file(tmp_path, monkeypatch):
    model = build_model(PUZZLES["4x4"])
    path = pqf.write_coo(model, tmp_path / "m.parquet")
    before = path.read_bytes()

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", boom)   # the writer imports pyarrow.parquet when it writes
    with pytest.raises(OSError):
        pqf.write_coo(build_model(PUZZLES["default"]), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.parquet"]  # no temporaries left


def test_read_errors(tmp_path):
    with pytest.raises(FormatError, match="no such file"):
        pqf.read(tmp_path / "nothing.parquet")
    pq.write_table(pa.table({"row": [0], "col": [0], "value": [1.0]}), tmp_path / "bare.parquet")
    with pytest.raises(FormatError, match="sudoku_pipeline"):
        pqf.read(tmp_path / "bare.parquet")
    (tmp_path / "junk.parquet").write_bytes(b"PAR1 but not really")
    with pytest.raises(FormatError):
        pqf.read(tmp_path / "junk.parquet")


@pytest.mark.parametrize("raw,said", [
    (b'{"rows": 1, "columns": \x95}', "metadata is not JSON"),   # not UTF-8: a UnicodeDecodeError traceback
    (b"[1, 2]", "metadata is not a JSON object"),                 # an AttributeError traceback
    (b'{"rows": "3x", "columns": 1}', "'rows', 'inequalities' and 'columns' are not all integers"),
    (b'{"rows": 1, "columns": 1, "nonzeros": 1, "inequality_nonzeros": "a"}', "'inequality_nonzeros' is 'a'"),
])
def test_metadata_of_another_shape_is_one_line(tmp_path, raw, said):
    """A changed byte of the schema's metadata made it no UTF-8 (json.loads raised a
    UnicodeDecodeError, not a JSONDecodeError) and a hand-made one was a list or held text where
    a count goes: each a traceback of read_model and of check, not an error line."""
    path = tmp_path / "m.parquet"
    table = pa.table({"row": [0], "col": [0], "value": [1.0]})
    pq.write_table(table.replace_schema_metadata({pqf.META_KEY: raw}), path)
    with pytest.raises(FormatError, match=rf"^{re.escape(str(path))}: .*{re.escape(said)}"):
        pqf.read(path)


def test_a_damaged_page_is_one_line(tmp_path):
    """pyarrow's message for a damaged page header runs over lines ("Couldn't deserialize thrift:
    No more data to read.\\nDeserializing page header failed.\\n"): the error printed them all."""
    path = pqf.write_coo(build_model(PUZZLES["4x4"]), tmp_path / "m.parquet")
    data = bytearray(path.read_bytes())
    data[4:40] = bytes(36)   # the first page's header, zeroed
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"not a readable Parquet file") as raised:
        pqf.read(path)
    assert "\n" not in str(raised.value)


def test_a_label_that_is_not_utf8_is_one_line(tmp_path):
    """One changed byte of a label in model_rows.parquet left text that is no UTF-8: pyarrow's
    to_numpy raised ArrowException ('Wrapping row_\\ufffd_5 failed'), a traceback of read_model."""
    path = pqf.write(build_model(PUZZLES["4x4"]), tmp_path / "model_coo.parquet")
    rows = tmp_path / "model_rows.parquet"
    table = pq.read_table(rows)
    labels = pa.array([b"row_\xff_1", *[s.encode() for s in table.column("label").to_pylist()[1:]]], pa.binary())
    bad = table.set_column(table.column_names.index("label"), "label", labels.cast(pa.string(), safe=False))
    pq.write_table(bad, rows)
    with pytest.raises(FormatError, match=rf"^{re.escape(str(rows))}: column 'label' does not read .*not UTF-8\?$"):
        pqf.read(path)
