"""CSV reader (formats/csv.py): the triplet size row ``m,n,0`` is checked before it sizes anything."""
from __future__ import annotations

import hashlib
import json

import pytest

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

    from formats.csv import _values, write_triplets
    m = sp.csr_matrix((np.array(data, dtype=float), ([0, 0, 2, 3], [1, 4, 0, 4])), shape=(5, 12345678))
    coo = m.tocoo()
    buffer = io.BytesIO()
    pacsv.write_csv(pa.table({"0": coo.row.astype(np.int64) + 1, "1": coo.col.astype(np.int64) + 1,
                              "2": _values(coo.data)}), buffer,
                    pacsv.WriteOptions(include_header=False, quoting_style="none"))
    write_triplets(m, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_bytes() == buffer.getvalue() + b"5,12345678,0\n"
