"""Input records (pipeline.batch.records): text/CSV/TSV/Parquet, fingerprint and per-record hashes."""
from __future__ import annotations

import gzip

import pandas as pd
import pytest
from batch_helpers import MIXED
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.batch.records import detect_input_format, read_records, record_hashes, records_fingerprint
from pipeline.core.errors import PipelineError


def test_every_input_form_gives_the_same_records(tmp_path):
    frame = pd.DataFrame({"puzzle": MIXED, "variant": ["classic", None, "", "latin"], "other": range(4)})
    (tmp_path / "a.txt").write_text("# a comment\n\n" + "\n".join(f"  {p}  " for p in MIXED) + "\n")
    with gzip.open(tmp_path / "a.txt.gz", "wt") as f:
        f.write("\n".join(MIXED) + "\n")
    frame.to_csv(tmp_path / "a.csv", index=False)
    frame.to_csv(tmp_path / "a.tsv", index=False, sep="\t")
    frame.to_parquet(tmp_path / "a.parquet")
    text = read_records(tmp_path / "a.txt")
    assert text == read_records(tmp_path / "a.txt.gz")
    assert text["puzzle"] == MIXED and text["variant"] == [None] * 4 and text["regions"] == [None] * 4
    for name in ("a.csv", "a.tsv", "a.parquet"):
        table = read_records(tmp_path / name)
        assert table["puzzle"] == MIXED
        assert table["variant"] == ["classic", None, None, "latin"]   # empty text and NaN mean "not given"
        assert table["regions"] == [None] * 4
    assert [detect_input_format(tmp_path / n) for n in ("a.txt", "a.csv", "a.tsv", "a.parquet")] == \
        ["text", "csv", "csv", "parquet"]


def test_bad_inputs_are_one_line_errors(tmp_path):
    with pytest.raises(PipelineError, match="no such input file"):
        read_records(tmp_path / "missing.txt")
    (tmp_path / "x.csv").write_text("grid,id\n" + MIXED[0] + ",1\n")
    with pytest.raises(PipelineError, match=r"has no 'puzzle' column \(columns: grid, id\)"):
        read_records(tmp_path / "x.csv")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(PipelineError, match="cannot read .* as parquet"):
        read_records(tmp_path / "bad.parquet")


_FIELD = st.one_of(st.none(), st.text(max_size=12))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(_FIELD, _FIELD, _FIELD), min_size=1, max_size=6), k=st.integers(0, 5),
       new=st.text(min_size=1, max_size=12))
def test_hashes_and_fingerprint_tell_records_apart(rows, k, new):
    records = {"puzzle": [r[0] for r in rows], "regions": [r[1] for r in rows], "variant": [r[2] for r in rows]}
    hashes = record_hashes(records)
    assert hashes.shape == (len(rows),) and hashes.dtype.name == "uint64"
    assert record_hashes(records).tolist() == hashes.tolist() and records_fingerprint(records) == records_fingerprint(records)
    k %= len(rows)
    if records["puzzle"][k] == new:
        return
    changed = {**records, "puzzle": records["puzzle"][:k] + [new] + records["puzzle"][k + 1:]}
    assert records_fingerprint(changed) != records_fingerprint(records)
    other = record_hashes(changed)
    assert other[k] != hashes[k]
    assert [a == b for j, (a, b) in enumerate(zip(other, hashes)) if j != k] == [True] * (len(rows) - 1)
