"""A record's ``id`` (a CSV/TSV/Parquet ``id`` column) is carried to its output row, error rows
included, through the in-process and process engines, a resume, a ``--retry`` and the upgrade of
parts written before the column existed; a text input's rows have a null ``id`` unless a line is a
puzzle document with an ``"id"``."""
from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from batch_helpers import parts

from pipeline.batch import RESULT_COLUMNS, run_batch
from pipeline.batch.records import read_records
from pipeline.batch.worker import solve_records

EASY = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
OTHER = "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
FOUR = "..4.3...1.2....."


def _ids(out) -> list:
    """The output's ids, None for a null (pandas may read a missing string as NaN)."""
    return [None if pd.isna(v) else v for v in pd.read_parquet(out)["id"]]


def _csv(path, rows, header="id,puzzle"):
    path.write_text(header + "\n" + "".join(f"{i},{p}\n" for i, p in rows))
    return path


@pytest.mark.parametrize("workers", [1, 2])
def test_csv_ids_reach_every_row_error_rows_included(tmp_path, workers):
    rows = [("alpha", EASY), ("beta", "12345"), ("", FOUR), ("gamma", OTHER), ("delta", FOUR)]
    src = _csv(tmp_path / "in.csv", rows)
    summary = run_batch(src, tmp_path / "out", workers=workers, chunk_size=2, progress="none")
    assert summary.complete
    df = pd.read_parquet(tmp_path / "out")
    assert df["index"].tolist() == [0, 1, 2, 3, 4]
    assert _ids(tmp_path / "out") == ["alpha", "beta", None, "gamma", "delta"]   # an empty id is none
    assert df["status"].tolist() == ["optimal", "error", "optimal", "optimal", "optimal"]
    assert list(df.columns) == list(RESULT_COLUMNS)


def test_a_text_input_has_the_column_all_null(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text(f"{EASY}\nbad\n")
    run_batch(src, tmp_path / "out", workers=1, progress="none")
    df = pd.read_parquet(tmp_path / "out")
    assert "id" in df.columns and df["id"].isna().all() and len(df) == 2


def test_the_id_header_is_read_as_the_other_columns_are(tmp_path):
    src = _csv(tmp_path / "in.tsv", [("a 1", EASY)], header=" ID \tpuzzle")
    src.write_text(src.read_text().replace(",", "\t"))
    assert read_records(src)["id"] == ["a 1"]


def test_a_parquet_integer_id_column_is_its_digits(tmp_path):
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": pa.array([7, None, 9], pa.int64()), "puzzle": [EASY, FOUR, "x"]}), src)
    run_batch(src, tmp_path / "out", workers=1, progress="none")
    df = pd.read_parquet(tmp_path / "out")
    assert _ids(tmp_path / "out") == ["7", None, "9"]
    assert df["status"].tolist() == ["optimal", "optimal", "error"]


def test_a_resume_skips_done_records_and_keeps_their_ids(tmp_path):
    rows = [(f"r{k}", p) for k, p in enumerate([EASY, OTHER, FOUR, "bad", EASY])]
    src = _csv(tmp_path / "in.csv", rows)
    out = tmp_path / "out"
    first = run_batch(src, out, workers=1, chunk_size=2, limit=2, progress="none")
    assert first.solved_now == 2 and not first.complete
    second = run_batch(src, out, workers=1, chunk_size=2, progress="none")
    assert second.already_done == 2 and second.solved_now == 3 and second.complete
    df = pd.read_parquet(out)
    assert df["id"].tolist() == ["r0", "r1", "r2", "r3", "r4"]
    third = run_batch(src, out, workers=1, progress="none")
    assert third.already_done == 5 and third.solved_now == 0


def test_a_retry_keeps_the_ids_of_the_rows_it_solves_again(tmp_path):
    src = _csv(tmp_path / "in.csv", [("a", EASY), ("b", "bad"), ("c", FOUR)])
    out = tmp_path / "out"
    run_batch(src, out, workers=1, progress="none")
    summary = run_batch(src, out, workers=1, retry=("error",), progress="none")
    assert summary.retried == 1
    assert pd.read_parquet(out)["id"].tolist() == ["a", "b", "c"]


def test_parts_written_before_the_column_are_upgraded_on_resume(tmp_path):
    src = _csv(tmp_path / "in.csv", [("a", EASY), ("b", OTHER), ("c", FOUR)])
    out = tmp_path / "out"
    run_batch(src, out, workers=1, chunk_size=1, limit=2, progress="none")
    for path in parts(out):   # as an older version wrote them: no id column, same metadata
        table = pq.read_table(path)
        pq.write_table(table.drop_columns(["id"]).replace_schema_metadata(table.schema.metadata), path)
    summary = run_batch(src, out, workers=1, progress="none")
    assert summary.already_done == 2 and summary.solved_now == 1 and summary.complete
    df = pd.read_parquet(out)
    assert df["id"].tolist() == ["a", "b", "c"]
    assert all("id" in pq.read_schema(p).names for p in parts(out))


def test_the_id_is_not_part_of_the_records_identity(tmp_path):
    """Relabelling a record does not make its row foreign: a resume goes on (rows written keep the
    id they were written with)."""
    out = tmp_path / "out"
    run_batch(_csv(tmp_path / "in.csv", [("a", EASY), ("b", OTHER)]), out, workers=1, limit=1, progress="none")
    before = json.loads((out / "_batch.json").read_text())["fingerprint"]
    summary = run_batch(_csv(tmp_path / "in.csv", [("A", EASY), ("B", OTHER)]), out, workers=1, progress="none")
    assert summary.already_done == 1 and summary.complete
    assert json.loads((out / "_batch.json").read_text())["fingerprint"] == before
    assert pd.read_parquet(out)["id"].tolist() == ["a", "B"]


def test_an_id_does_not_change_how_a_record_is_solved():
    """The id rides after the rules: compact records stay on the bulk path, rules are still read."""
    plain = solve_records([(0, EASY, None, None, None), (1, FOUR, None, None, None)], {})
    named = solve_records([(0, EASY, None, None, None, "x"), (1, FOUR, None, None, None, "y")], {})
    assert named["id"] == ["x", "y"] and plain["id"] == [None, None]
    assert named["solution"] == plain["solution"] and named["status"] == plain["status"]
    ruled = solve_records([(0, FOUR, None, None, '[{"type": "diagonal"}]', "z")], {})
    assert ruled["id"] == ["z"] and ruled["rules"][0] is not None, ruled["error"]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_document_line_s_id_reaches_its_row_error_rows_included(tmp_path, workers):
    # a JSON puzzle document line had no way to name itself: "id" was an unknown key (an error row)
    lines = [{"id": "alpha", "size": 4, "givens": ["r1c3=4"]}, {"size": 4, "givens": ["r1c1=9"], "id": 7},
             {"id": "", "size": 4}, {"size": 4}, {"id": [1], "size": 4}, {"id": True, "size": 4}]
    src = tmp_path / "in.txt"
    src.write_text("# comment\n" + "".join(json.dumps(d) + "\n" for d in lines) + FOUR + "\n")
    summary = run_batch(src, tmp_path / "out", workers=workers, chunk_size=2, progress="none")
    assert summary.complete
    df = pd.read_parquet(tmp_path / "out")
    assert _ids(tmp_path / "out") == ["alpha", "7", None, None, None, None, None]   # an empty id is none
    assert df["status"].tolist() == ["optimal", "error", "optimal", "optimal", "error", "error", "optimal"]
    assert "digit 9" in df["error"][1]
    for k, kind in ((4, "array"), (5, "boolean")):
        assert df["error"][k] == f"line {k + 2}: text: the document's 'id' must be a string or an integer, found {kind}"
    # the id labels the record, as a table's does: the same document under another id is the same record
    other = tmp_path / "other.txt"
    other.write_text(json.dumps({"size": 4, "givens": ["r1c3=4"], "id": "beta"}) + "\n")
    assert read_records(other)["puzzle"] == read_records(src)["puzzle"][:1]
