"""The output directory (pipeline.batch.output): parts tied to their input, foreign parts refused."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest
from batch_helpers import MIXED, parts

from pipeline.batch import run_batch
from pipeline.batch.output import METADATA_KEY, existing_indices
from pipeline.batch.records import read_records, record_hashes, records_fingerprint
from pipeline.core.errors import PipelineError

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
