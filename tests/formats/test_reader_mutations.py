"""Issue 21, section 1: every model reader, given a file our writer wrote with ONE token, line or
table cell changed, either refuses it with a one-line FormatError naming the file, or returns the
very model the writer wrote (the model whose writing gives the original bytes back: the matrix,
right-hand sides, bounds, costs, integrality, names and metadata of the unchanged file).

Text formats: a token replaced, deleted or repeated, or a line deleted, repeated or replaced by
another. Parquet: a cell changed, a row dropped or repeated, in any of the three tables. .mat: an
array element changed or a variable of another type. A plain puzzle and one with rules, for each.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.io as sio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats import cnf, csv as csv_format, lp, matlab, mps, opb, parquet
from formats.agree import model_difference
from formats.base import ModelData
from formats.directory import export_model
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import COMMENT_TAG
from pipeline.core.puzzle import parse_puzzle

BUDGET = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.function_scoped_fixture])
NASTY = ["0", "1", "2", "-1", "0.5", "1e400", "inf", "-inf", "nan", "NaN", "x", "", "1_0", "E", "L", "<=", "=",
         "x_1_1_1", "C0000000", "R0000000", "RHS", "+", "-", ":", "*", "\\"]
MODELS = {
    "plain": lambda: build_model(parse_puzzle("1...........3...", box="2x2"), clues="bounds"),
    "rules": lambda: build_model(parse_puzzle(json.dumps({
        "size": 4, "box": "2x2", "givens": ["r1c1=1"],
        "rules": [{"rule": "thermo", "cells": ["r2c1", "r2c2", "r3c2"]},
                  {"rule": "cage", "cells": ["r4c3", "r4c4"], "sum": 7}, {"rule": "antiknight"}]}))),
}


def same_model(got: ModelData, want: ModelData, metadata: bool = True) -> str | None:
    """How ``got`` differs from ``want`` (None: the same model, names and ``metadata`` included)."""
    difference = model_difference(got, want)
    if difference:
        return difference
    for name in ("row_labels", "col_names"):
        a, b = getattr(got, name), getattr(want, name)
        if (a is None) != (b is None) or (a is not None and not np.array_equal(np.asarray(a, str), np.asarray(b, str))):
            return f"{name} differ"
    if metadata and got.metadata != want.metadata:
        keys = sorted(k for k in set(got.metadata) | set(want.metadata) if got.metadata.get(k) != want.metadata.get(k))
        return f"metadata differ: {keys}"
    return None


def refused_or_same(read, path: Path, want: ModelData, files: list[Path], metadata: bool = True) -> None:
    """``read(path)`` refuses in one line naming one of ``files``, or gives ``want`` (without
    comparing the metadata when the change removed the metadata comment: a foreign file then)."""
    try:
        got = read(path)
    except FormatError as e:
        message = str(e)
        assert "\n" not in message, message
        assert any(message.startswith(str(f)) for f in files), message
        return
    difference = same_model(got, want, metadata)
    assert difference is None, f"a changed file was read as another model: {difference}"


# -- text formats ---------------------------------------------------------------------------------
def _mps_fixed(model, path):
    mps.write(model, path, style="fixed")


TEXT = {  # name -> (write(model, directory) -> files to mutate, read(directory) -> ModelData)
    "mps": (lambda m, d: (mps.write(m, d / "m.mps"), [d / "m.mps"])[1], lambda d: mps.read(d / "m.mps")),
    "mps_fixed": (lambda m, d: (_mps_fixed(m, d / "m.mps"), [d / "m.mps", d / "m_names.csv"])[1],
                  lambda d: mps.read(d / "m.mps")),
    "lp": (lambda m, d: (lp.write(m, d / "m.lp"), [d / "m.lp"])[1], lambda d: lp.read(d / "m.lp")),
    "cnf": (lambda m, d: (cnf.write(m, d / "m.cnf"), [d / "m.cnf"])[1], lambda d: cnf.read(d / "m.cnf")),
    "opb": (lambda m, d: (opb.write(m, d / "m.opb"), [d / "m.opb"])[1], lambda d: opb.read(d / "m.opb")),
    "csv_ijv": (lambda m, d: sorted(p for p in (export_model(m, d, "csv", dense="never"), d)[1].glob("*.csv")
                                    if "long" not in p.name),
                lambda d: csv_format.read(d / "Aeq_ijv.csv")),
    "csv_long": (lambda m, d: sorted(p for p in (export_model(m, d, "csv", dense="never"), d)[1].glob("*.csv")
                                     if "ijv" not in p.name),
                 lambda d: csv_format.read(d / "Aeq_long.csv")),
}


@st.composite
def text_mutation(draw, text: str) -> str:
    lines = text.split("\n")
    i = draw(st.integers(0, len(lines) - 1))
    op = draw(st.sampled_from(["line_delete", "line_repeat", "line_other", "token_replace", "token_delete",
                               "token_repeat"]))
    if op == "line_delete":
        del lines[i]
    elif op == "line_repeat":
        lines.insert(i, lines[i])
    elif op == "line_other":
        lines[i] = lines[draw(st.integers(0, len(lines) - 1))]
    else:
        parts = re.split(r"([ ,\t]+)", lines[i])       # tokens and the separators between them
        tokens = list(range(0, len(parts), 2))
        k = tokens[draw(st.integers(0, len(tokens) - 1))]
        if op == "token_replace":
            others = [p for p in text.replace(",", " ").split()[:4000]]
            parts[k] = draw(st.sampled_from(NASTY) | st.sampled_from(others))
        elif op == "token_delete":
            parts[k] = ""
        else:
            parts[k] = parts[k] + (parts[k + 1] if k + 1 < len(parts) else " ") + parts[k]
        lines[i] = "".join(parts)
    return "\n".join(lines)


@pytest.mark.parametrize("model_name", sorted(MODELS))
@pytest.mark.parametrize("fmt", sorted(TEXT))
def test_text_reader_refuses_or_reads_the_same_model(tmp_path_factory, fmt, model_name):
    write, read = TEXT[fmt]
    d = tmp_path_factory.mktemp(f"{fmt}_{model_name}")
    files = write(MODELS[model_name](), d)
    want = read(d)
    originals = {f: f.read_text() for f in files}

    @BUDGET
    @given(which=st.sampled_from(files), data=st.data())
    def run(which, data):
        try:
            text = data.draw(text_mutation(originals[which]))
            which.write_text(text)
            tagged = COMMENT_TAG in originals[which]
            refused_or_same(read, d, want, files, metadata=COMMENT_TAG in text or not tagged)
        finally:
            which.write_text(originals[which])

    run()


# -- Parquet --------------------------------------------------------------------------------------
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_parquet_reader_refuses_or_reads_the_same_model(tmp_path, model_name):
    path = tmp_path / "m_coo.parquet"
    parquet.write(MODELS[model_name](), path)
    files = sorted(tmp_path.glob("*.parquet"))
    want = parquet.read(path)
    originals = {f: pq.read_table(f) for f in files}

    @BUDGET
    @given(which=st.sampled_from(files), data=st.data())
    def run(which, data):
        table = originals[which]
        meta = table.schema.metadata
        k = data.draw(st.integers(0, table.num_rows - 1))
        op = data.draw(st.sampled_from(["cell", "drop", "repeat"]))
        if op == "drop":
            changed = pa.concat_tables([table.slice(0, k), table.slice(k + 1)])
        elif op == "repeat":
            changed = pa.concat_tables([table.slice(0, k + 1), table.slice(k)])
        else:
            name = data.draw(st.sampled_from(table.column_names))
            values = table.column(name).to_pylist()
            values[k] = data.draw(st.sampled_from(values + [None, 0, 1, -1, 2.5, float("nan"), float("inf"), "x"]))
            try:
                column = pa.array(values, table.column(name).type)
            except (pa.ArrowException, TypeError, ValueError):
                column = pa.array([None if v is None else str(v) for v in values], pa.string())
            i = table.column_names.index(name)
            changed = table.set_column(i, pa.field(name, column.type, True), column)
        try:
            pq.write_table(changed.replace_schema_metadata(meta), which)
            refused_or_same(parquet.read, path, want, files)
        finally:
            pq.write_table(table, which)

    run()


# -- MATLAB .mat ----------------------------------------------------------------------------------
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_mat_reader_refuses_or_reads_the_same_model(tmp_path, model_name):
    path = tmp_path / "model.mat"
    matlab.write(MODELS[model_name](), path)
    want = matlab.read(path)
    original = path.read_bytes()
    raw = {k: v for k, v in sio.loadmat(path).items() if not k.startswith("__")}
    arrays = sorted(k for k in raw if k != "meta" and (hasattr(raw[k], "toarray") or raw[k].dtype.kind in "fiub"))

    @BUDGET
    @given(name=st.sampled_from(arrays), data=st.data())
    def run(name, data):
        changed = dict(raw)
        value = raw[name]
        if data.draw(st.booleans()):          # another type
            changed[name] = data.draw(st.sampled_from(["text", np.array([["a", "b"]]), np.array([1, 2], np.int8),
                                                       np.zeros((0, 0)), {"field": 1}]))
        else:                                  # one element
            dense = value.toarray() if hasattr(value, "toarray") else np.array(value, dtype=float)
            if dense.size == 0:
                return
            flat = dense.ravel()
            k = data.draw(st.integers(0, flat.size - 1))
            flat[k] = data.draw(st.sampled_from([0.0, 1.0, 2.0, -1.0, 0.5, np.nan, np.inf, -np.inf, 1e300]))
            dense = flat.reshape(dense.shape)
            changed[name] = type(value)(dense) if hasattr(value, "toarray") else dense
        try:
            sio.savemat(path, changed)
            refused_or_same(matlab.read, path, want, [path])
        finally:
            path.write_bytes(original)

    run()
