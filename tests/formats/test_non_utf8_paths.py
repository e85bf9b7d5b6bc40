"""Paths whose names are not UTF-8 (a byte Python keeps as a surrogate): pyarrow cannot take them
as text, so the Parquet files, a single-file export's staged name, batch's parts and inputs and
the report went through open files or bytes; they gave a traceback before."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from formats.parquet import read

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def main(args: list[str]) -> int:
    """The command as a user runs it (the CLI's own streams, which show such a name)."""
    done = subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True)
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    return done.returncode


@pytest.fixture
def odd_dir(tmp_path):
    path = tmp_path / os.fsdecode(b"o\xff")
    try:
        path.mkdir()
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system does not take a name that is not UTF-8")
    return path


def test_every_format_exported_into_and_read_back_from_a_name_that_is_not_utf8(odd_dir):
    assert main(["export", PUZZLE, "--to", str(odd_dir / "all"), "--quiet"]) == 0
    data = read(odd_dir / "all" / "model_coo.parquet")
    assert data.Aeq.shape == (341, 729)
    assert main(["export", PUZZLE, "--to", str(odd_dir / "one.lp"), "--quiet"]) == 0
    assert main(["export", PUZZLE, "--to", str(odd_dir / "one.parquet"), "--quiet"]) == 0
    assert np.array_equal(read(odd_dir / "one.parquet").Aeq.toarray(), data.Aeq.toarray())
    assert not [p.name for p in odd_dir.iterdir() if p.name.startswith(".")]   # nothing staged left


def test_a_batch_into_a_name_that_is_not_utf8_resumes_and_reads_its_parquet_input(odd_dir, tmp_path):
    pytest.importorskip("matplotlib", reason="report needs the plot extra (matplotlib)")
    source = odd_dir / "in.txt"
    source.write_text("\n".join([PUZZLE, "bad", PUZZLE]) + "\n")
    out = odd_dir / "out"
    assert main(["batch", str(source), str(out), "--limit", "1", "--progress", "none"]) == 0
    assert main(["batch", str(source), str(out), "--progress", "none"]) == 0   # the resume reads the parts
    rows = pd.concat([pd.read_parquet(open(p, "rb")) for p in sorted(out.glob("*.parquet"))])
    assert sorted(rows["status"]) == ["error", "optimal", "optimal"]
    parts = odd_dir / "parts.parquet"
    rows[["puzzle"]].to_parquet(open(parts, "wb"))
    assert main(["batch", str(parts), str(tmp_path / "again"), "--progress", "none"]) == 0
    assert sorted(pd.read_parquet(tmp_path / "again")["status"]) == ["error", "optimal", "optimal"]
    assert main(["report", str(out), "--to", str(odd_dir / "r.html")]) == 0
    assert "o\ufffd" in (odd_dir / "r.html").read_text()
