"""The output directory (pipeline.batch.output): parts tied to their input, foreign parts refused."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from batch_helpers import MIXED, parts
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.batch import run_batch
from pipeline.cli.main import main
from pipeline.batch.config import BatchConfigError
from pipeline.batch.output import METADATA_KEY, arrow_column, existing_indices
from pipeline.batch.records import read_records, record_hashes, records_fingerprint
from pipeline.core.errors import PipelineError

ROOT = Path(__file__).resolve().parents[2]
OTHER = [MIXED[0].replace("4", ".", 1), MIXED[1], MIXED[0], MIXED[3]]   # a different record 0


def _run(tmp_path, name, records, **options):
    src = tmp_path / f"{name}.txt"
    src.write_text("\n".join(records) + "\n")
    out = tmp_path / name
    run_batch(src, out, workers=1, chunk_size=1, progress="none", **options)
    return src, out


def test_parts_carry_the_fingerprint_and_a_hash_per_row(tmp_path):
    src, out = _run(tmp_path, "a", MIXED)
    records = read_records(src)
    hashes = record_hashes(records)
    for path in parts(out):
        table = pq.read_table(path)
        meta = json.loads(table.schema.metadata[METADATA_KEY])
        assert meta["fingerprint"] == records_fingerprint(records)
        index = table.column("index").to_numpy()
        assert [int(h, 16) for h in meta["row_hashes"]] == hashes[index].tolist()
    assert sorted(existing_indices(out, records_fingerprint(records), hashes).tolist()) == list(range(len(MIXED)))


def test_resume_refuses_a_part_copied_from_another_run(tmp_path):
    """Same number of records, same index: a part of another input must not pass as done."""
    src, out = _run(tmp_path, "mine", MIXED, limit=2)          # records 0 and 1 done
    _, other = _run(tmp_path, "other", OTHER)
    foreign = parts(other)[2]                                   # record 2 of the other input
    shutil.copy(foreign, out / foreign.name)
    with pytest.raises(PipelineError, match=rf"{foreign.name} in .* was not written for this input"):
        run_batch(src, out, workers=1, progress="none")
    (out / foreign.name).unlink()
    assert run_batch(src, out, workers=1, progress="none").complete


def test_resume_refuses_a_legacy_part_whose_puzzles_differ(tmp_path):
    """A part without batch metadata (an older writer) is checked by its puzzle column."""
    src, out = _run(tmp_path, "mine", MIXED, limit=1)
    _, other = _run(tmp_path, "other", OTHER)
    table = pq.read_table(parts(other)[0])
    pq.write_table(table.replace_schema_metadata(None), out / parts(other)[0].name)
    with pytest.raises(PipelineError, match="its row for record 0 holds another puzzle"):
        run_batch(src, out, workers=1, progress="none")


def test_a_part_with_an_index_beyond_the_input_is_refused(tmp_path):
    src, out = _run(tmp_path, "mine", MIXED[:2], limit=1)
    _, other = _run(tmp_path, "other", OTHER)
    shutil.copy(parts(other)[3], out / parts(other)[3].name)
    with pytest.raises(PipelineError, match="it holds index 3, the input has 2 records"):
        run_batch(src, out, workers=1, progress="none")
    assert np.array_equal(existing_indices(out), [0, 3])   # without the checks: just the indices


@pytest.mark.parametrize("column, values, message", [
    ("index", ["a"], "column 'index' is string, not int64"),         # said "a worker failed (ValueError"
    ("solution", [1], "column 'solution' is int64, not string"),     # passed: read_parquet(OUT) failed
])
def test_a_part_with_a_column_of_another_type_is_refused_in_one_line(tmp_path, column, values, message):
    src, out = _run(tmp_path, "mine", MIXED[:2], limit=1)
    path = parts(out)[0]
    table = pq.read_table(path)
    i = table.schema.get_field_index(column)
    pq.write_table(table.set_column(i, column, pa.array(values)).replace_schema_metadata(table.schema.metadata), path)
    with pytest.raises(PipelineError) as err:
        run_batch(src, out, workers=1, progress="none")
    assert str(err.value) == (f"batch: part {path.name} is not a batch part ({message}); "
                              "delete it and rerun to solve its records again")


@pytest.mark.parametrize("change, message", [
    # a part without 'index' said "a worker failed (KeyError" (exit 1) and report exit 70
    (lambda table: table.drop_columns(["index"]), "it has no 'index' column"),
    (lambda table: table.rename_columns(["idx" if n == "index" else n for n in table.column_names]),
     "it has no 'index' column"),
    # a null index read as -2**63
    (lambda table: table.set_column(0, "index", pa.array([None] * len(table), pa.int64())),
     "its 'index' column has nulls"),
], ids=["dropped", "renamed", "nulls"])
def test_a_part_without_a_whole_index_column_is_refused_in_one_line(tmp_path, capsys, change, message):
    from pipeline.cli.main import main

    src, out = _run(tmp_path, "mine", MIXED[:2], limit=1)
    path = parts(out)[0]
    table = pq.read_table(path)
    assert table.column_names[0] == "index"
    pq.write_table(change(table).replace_schema_metadata(table.schema.metadata), path)
    said = (f"part {path.name} is not a batch part ({message}); delete it and rerun to solve its records again")
    with pytest.raises(PipelineError) as err:
        run_batch(src, out, workers=1, progress="none")
    assert str(err.value) == f"batch: {said}"
    assert main(["report", str(out), "--to", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err == f"error: report: {said}\n"
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("meta", ["[1]", '{"fingerprint": "FP", "row_hashes": ["zz"]}'])
def test_a_part_whose_batch_metadata_is_not_batchs_is_foreign(tmp_path, meta):
    """Metadata that is JSON but not write_part's object said "a worker failed (AttributeError"
    or "(ValueError: invalid literal for int() with base 16"."""
    src, out = _run(tmp_path, "mine", MIXED[:2], limit=1)
    path = parts(out)[0]
    table = pq.read_table(path)
    fingerprint = json.loads(table.schema.metadata[METADATA_KEY])["fingerprint"]
    pq.write_table(table.replace_schema_metadata({METADATA_KEY: meta.replace("FP", fingerprint)}), path)
    with pytest.raises(PipelineError, match=r"was not written for this input \(another input's fingerprint\)"):
        run_batch(src, out, workers=1, progress="none")


# ---------------------------------------------------------------------------------------------
# --overwrite deletes only what this tool wrote (issue 21 section 2)
# ---------------------------------------------------------------------------------------------
def _spark_dataset(out, notes: bool):
    """A Spark-style dataset: a part file of another tool and its _SUCCESS (and a user's notes)."""
    import pyarrow as pa

    out.mkdir()
    pq.write_table(pa.table({"puzzle": ["1" * 81], "value": [1]}), out / "part-00000-1a2b.snappy.parquet")
    (out / "_SUCCESS").write_bytes(b"")
    if notes:
        (out / "notes.txt").write_text("mine\n")
    return {p.name: p.read_bytes() for p in out.iterdir()}


@pytest.mark.parametrize("notes", [False, True], ids=["without-notes", "with-notes"])
def test_overwrite_refuses_a_dataset_it_did_not_write_and_touches_nothing(tmp_path, capsys, notes):
    from pipeline.cli.main import main

    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    out = tmp_path / "spark"
    before = _spark_dataset(out, notes)
    code = main(["batch", str(src), str(out), "--overwrite", "--workers", "1", "--progress", "none"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("error: batch: --overwrite deletes only the files of a batch output, and ")
    assert "part-00000-1a2b.snappy.parquet" in err and "nothing was deleted" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before      # no _batch.lock left either


def test_overwrite_of_its_own_output_beside_a_users_file_is_refused_first(tmp_path):
    src, out = _run(tmp_path, "a", MIXED)
    (out / "notes.txt").write_text("mine\n")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(PipelineError, match=r"holds others \(notes\.txt\); nothing was deleted"):
        run_batch(src, out, workers=1, overwrite=True, progress="none")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_overwrite_with_retry_is_refused_before_anything_is_deleted(tmp_path):
    """An outside probe: --retry error --overwrite deleted every part, then said the directory held
    no output to retry."""
    src, out = _run(tmp_path, "a", MIXED)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(BatchConfigError, match=r"^overwrite cannot go with retry \(--retry\).*nothing was deleted\)$"):
        run_batch(src, out, workers=1, overwrite=True, retry=("error",), progress="none")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_overwrite_with_an_engine_that_is_not_installed_deletes_nothing(tmp_path, monkeypatch):
    """--engine dask without dask was refused after --overwrite had deleted the parts."""
    import importlib.util

    src, out = _run(tmp_path, "a", MIXED)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    with pytest.raises(PipelineError, match=r"^batch: --engine dask needs dask\[distributed\]"):
        run_batch(src, out, workers=1, overwrite=True, engine="dask", progress="none")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_overwrite_deletes_its_own_files_and_records_the_version(tmp_path):
    from importlib.metadata import version

    src, out = _run(tmp_path, "a", MIXED)
    (out / ".DS_Store").write_bytes(b"x")          # hidden files are neither deleted nor a reason to refuse
    (out / ".part-0000000009.parquet.abcd1234.tmp").write_bytes(b"half")   # a killed run's temporary file
    run_batch(src, out, workers=1, chunk_size=2, overwrite=True, progress="none")
    names = sorted(p.name for p in out.iterdir())
    assert names == [".DS_Store", "_SUCCESS", "_batch.json", "_batch.lock", "part-0000000000.parquet",
                     "part-0000000002.parquet"]
    assert json.loads((out / "_batch.json").read_text())["pipeline_version"] == version("sudoku-pipeline")


def test_a_refusal_inside_the_lock_leaves_no_lock_file(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    out = tmp_path / "empty"
    out.mkdir()
    with pytest.raises(PipelineError, match="--retry needs an existing batch output"):
        run_batch(src, out, workers=1, retry=["error"], progress="none")
    assert list(out.iterdir()) == []


# -- the result columns as Arrow arrays, without pa.array (and so without importing pandas) ----
_TEXT = st.one_of(st.none(), st.text())
_INT = st.one_of(st.none(), st.integers(-2**63, 2**63 - 1))
_FLOAT = st.one_of(st.none(), st.floats(allow_nan=False), st.integers(-2**53, 2**53))


@settings(max_examples=200, deadline=None)
@given(strings=st.lists(_TEXT, max_size=40), ints=st.lists(_INT, max_size=40), floats=st.lists(_FLOAT, max_size=40))
def test_arrow_column_builds_what_pa_array_builds(strings, ints, floats):
    for values, kind in ((strings, pa.string()), (ints, pa.int64()), (floats, pa.float64())):
        built = arrow_column(values, kind)
        built.validate(full=True)
        assert built.type == kind and built.equals(pa.array(values, type=kind))
        assert built.to_pylist() == [None if v is None else (float(v) if kind == pa.float64() else v) for v in values]


def test_arrow_column_leaves_other_types_to_pa_array():
    assert arrow_column([1.0, None], pa.float64()).to_pylist() == [1.0, None]
    assert arrow_column([np.int64(3)], pa.int64()).to_pylist() == [3]
    for values, kind in (([1], pa.string()), ([1.5], pa.int64()), ([True], pa.int64())):
        try:
            expected = pa.array(values, type=kind).to_pylist()
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            with pytest.raises(type(e)):
                arrow_column(values, kind)
        else:
            assert arrow_column(values, kind).to_pylist() == expected


def test_a_text_batch_run_does_not_import_pandas(tmp_path):
    """pa.array's first call imports pandas (0.3 s); a batch of text records needs none of it."""
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    check = ("import sys\nfrom pipeline.batch import run_batch\n"
             f"s = run_batch({str(src)!r}, {str(tmp_path / 'out')!r}, workers=1, progress='none')\n"
             "print(s.solved_now, 'pandas' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(len(MIXED)), "False"]
    table = pq.read_table(tmp_path / "out")
    assert table.num_rows == len(MIXED) and set(table.column("status").to_pylist()) <= {"optimal", "infeasible", "error"}


JIGSAWS = [("..43...1.2......", "0001011122332233"), ("1...............", "0011001122332233"),
           ("...4............", "0111001203223332"), (".2..............", "0001011122332233")]


def test_rows_keep_a_jigsaws_regions_and_a_resumed_older_output_gets_them_too(tmp_path):
    # the regions were not in the rows (report could draw no jigsaw); an output of the version
    # before them, resumed, read whole without the column (pandas takes the first part's schema)
    import pandas as pd

    src = tmp_path / "jig.csv"
    src.write_text("puzzle,regions,variant\n" + "".join(f"{p},{r},jigsaw\n" for p, r in JIGSAWS))
    out = tmp_path / "out"
    assert main(["batch", str(src), str(out), "--workers", "1", "--chunk-size", "2", "--limit", "2"]) == 0
    for path in parts(out):   # as the older version wrote them: no regions column, metadata kept
        table = pq.read_table(path)
        pq.write_table(table.drop(["regions"]).replace_schema_metadata(table.schema.metadata), path)
    assert "regions" not in pq.read_schema(parts(out)[0]).names
    assert main(["batch", str(src), str(out), "--workers", "1", "--chunk-size", "2"]) == 0
    frame = pd.read_parquet(out)
    assert frame["regions"].tolist() == [r for _, r in JIGSAWS] and (frame["status"] == "optimal").all()
    assert all("regions" in pq.read_schema(p).names for p in parts(out))


@pytest.mark.parametrize(("edit", "said"), [({"version": 2}, "a run record of version 2;"),
                                            ({"version": None}, "a run record of version null;"),
                                            ({"kind": "another tool"}, 'a run record of kind "another tool";')])
def test_resume_refuses_a_run_record_of_another_version_or_kind(tmp_path, edit, said):
    """A ``_batch.json`` of version 2 was resumed as if this version had laid out its parts."""
    src, out = _run(tmp_path, "a", MIXED, limit=2)
    record = json.loads((out / "_batch.json").read_text())
    (out / "_batch.json").write_text(json.dumps({**record, **edit}))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(PipelineError, match=rf"^batch: .*_batch.json' is {said} this tool resumes version 1 of "
                                            r"'sudoku-pipeline batch'; use --overwrite or another output directory$"):
        run_batch(src, out, workers=1, progress="none")
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != "_batch.lock"} == \
        {k: v for k, v in before.items() if k != "_batch.lock"}


def test_resume_of_a_record_written_before_its_kind_was_recorded(tmp_path):
    src, out = _run(tmp_path, "a", MIXED, limit=2)
    record = json.loads((out / "_batch.json").read_text())
    del record["kind"]
    (out / "_batch.json").write_text(json.dumps(record))
    assert run_batch(src, out, workers=1, progress="none").complete


@pytest.mark.parametrize("make, held", [(lambda out: (out / "_SUCCESS").mkdir(), "a _SUCCESS folder"),
                                        (lambda out: (out / "_SUCCESS").write_text(""), "a _SUCCESS file")])
def test_an_output_without_its_run_record_says_what_it_holds(tmp_path, make, held):
    """A directory holding only a _SUCCESS was said to have parts."""
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    out = tmp_path / "out"
    out.mkdir()
    make(out)
    with pytest.raises(PipelineError, match=rf"^batch: '{out}' holds {held} but no _batch.json; use --overwrite"):
        run_batch(src, out, workers=1, progress="none")

