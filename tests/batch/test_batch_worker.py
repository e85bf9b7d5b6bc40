"""A worker's chunk (pipeline.batch.worker): every record isolated, one row per record.

A bad record (a letter above N in a 9x9 or 16x16 line, an integer token >= 2**63, a wrong length,
anything) becomes ``status = error`` with its reason; the chunk's other records are solved.
"""
from __future__ import annotations

import json

import pandas as pd
import pytest
from batch_helpers import MIXED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracles import grid_of, is_valid_solution
from pipeline.batch import run_batch
from pipeline.batch.config import SolveOptions
from pipeline.batch.records import read_records
from pipeline.batch.worker import RESULT_COLUMNS, solve_records

GOOD_9 = MIXED[0]
GOOD_4 = MIXED[3]
BAD_RECORDS = {
    "letter above 9 in a 9x9 line": GOOD_9[:40] + "Z" + GOOD_9[41:],
    "letter above 16 in a 16x16 line": "." * 100 + "Q" + "." * 155,
    "integer token >= 2**63": "1,1," + str(2 ** 63),
    "huge integer grid cell": " ".join([str(10 ** 23)] + ["0"] * 80),
    "wrong length": "12345",
    "empty variant table entry": None,
}
STATUSES = {"optimal", "infeasible", "error", "time_limit", "invalid", "non_integral", "no_solution"}


@pytest.mark.parametrize("solver", ["highs", "sat"])
def test_a_bad_record_is_its_own_error_row_and_the_chunk_is_solved(solver):
    records = []
    for k, text in enumerate(BAD_RECORDS.values()):
        records += [(2 * k, GOOD_9, None, None), (2 * k + 1, text, None, None)]
    columns = solve_records(records, SolveOptions(solver=solver))
    assert columns["index"] == [r[0] for r in records]
    for status, text, solution, error in zip(columns["status"], columns["puzzle"], columns["solution"],
                                             columns["error"]):
        if text == GOOD_9:
            assert status == "optimal" and is_valid_solution(grid_of(solution), 3, 3, clues=grid_of(GOOD_9))
        else:
            assert status == "error" and error and "\n" not in error and solution is None


def test_a_failing_bulk_step_is_redone_record_by_record(monkeypatch):
    """A bulk step that raises because of one record (here: propagation over the shape's block)
    costs that record only: the shape is redone record by record."""
    from pipeline.batch import highs_shape

    real = highs_shape.propagate
    poisoned = grid_of(MIXED[1]).ravel()

    def propagate(clues, template, *args, **kwargs):
        if (clues == poisoned).all(axis=1).any():
            raise MemoryError("simulated")
        return real(clues, template, *args, **kwargs)

    monkeypatch.setattr(highs_shape, "propagate", propagate)
    columns = solve_records([(0, GOOD_9, None, None), (1, MIXED[1], None, None), (2, GOOD_9, None, None)],
                            SolveOptions())
    assert columns["status"] == ["optimal", "memory_limit", "optimal"]   # a status --retry names
    assert columns["error"][1] == "MemoryError: simulated"


def test_a_grid_too_large_for_the_memory_limit_is_a_memory_limit_row(monkeypatch):
    # its refusal ahead of the build was status "error", which --retry memory_limit passed by
    monkeypatch.setenv("SUDOKU_PIPELINE_MAX_BYTES", str(2 * 10 ** 9))
    columns = solve_records([(0, GOOD_9, None, None), (1, '{"size": 400}', None, None)], SolveOptions())
    assert columns["status"] == ["optimal", "memory_limit"]
    assert "a 400x400 grid's model needs about" in columns["error"][1]


def test_a_record_with_rules_too_large_for_the_memory_limit_is_a_memory_limit_row(monkeypatch):
    # with rules the limit is met in the record's parse, whose refusal was status "error"
    monkeypatch.setenv("SUDOKU_PIPELINE_MAX_BYTES", "100000")
    columns = solve_records([(0, GOOD_9, None, None, '[{"rule": "antiknight"}]')], SolveOptions())
    assert columns["status"] == ["memory_limit"]
    assert "a 9x9 grid's model needs about 182 KiB, more than the 98 KiB allowed" in columns["error"][0]


_LINE_CHARS = st.sampled_from(list("0123456789.abcxyzABCPQZ,;| -+#\t") + ["é", "\u00a0", "∞"])
_LINE = st.one_of(
    st.text(_LINE_CHARS, max_size=120),
    st.sampled_from(MIXED + list(v for v in BAD_RECORDS.values() if v)),
    st.builds(lambda k, c: GOOD_9[:k] + c + GOOD_9[k + 1:], st.integers(0, 80), _LINE_CHARS),
    st.builds(lambda v: f"1,1,{v}", st.integers(-2 ** 70, 2 ** 70)),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_LINE, min_size=1, max_size=12))
def test_fuzzed_batch_input_gives_one_row_per_record(tmp_path_factory, lines):
    work = tmp_path_factory.mktemp("fuzz")
    src = work / "in.txt"
    src.write_text("\n".join(line.replace("\r", " ").replace("\n", " ") for line in lines) + "\n",
                   encoding="utf-8")
    expected = read_records(src)["puzzle"]
    summary = run_batch(src, work / "out", workers=1, chunk_size=5, time_limit=5.0, progress="none")
    assert summary.complete and summary.solved_now == len(expected)
    df = pd.read_parquet(work / "out")
    assert list(df.columns) == list(RESULT_COLUMNS)
    assert df["index"].tolist() == list(range(len(expected)))
    assert df["puzzle"].tolist() == expected
    assert set(df["status"]) <= STATUSES
    errors = df[df["status"] == "error"]
    assert errors["error"].map(lambda e: isinstance(e, str) and e and "\n" not in e).all()


def test_a_record_naming_a_file_is_text_not_the_files_contents(tmp_path):
    """A record (or a document in one) that is a path is not opened: the file holds a valid grid
    that would solve if it were read."""
    secret = tmp_path / "secret.txt"
    secret.write_text("1234\n3412\n2143\n4321\n")
    records = [(0, str(secret), None, None), (1, json.dumps({"size": 4, "givens": str(secret)}), None, None)]
    columns = solve_records(records, SolveOptions(solver="sat"))
    assert columns["status"] == ["error", "error"], columns["error"]
    assert all("1234" not in e for e in columns["error"])


def test_a_process_workers_chunk_counts_the_whole_process_cpu(monkeypatch):
    """HiGHS searches on its own threads even with threads=1: the chunk's thread time saw 0.1 of
    0.6 CPU seconds, so _batch.json's cpu_workers missed most of a 2-worker run (an outside check)."""
    import time
    import types

    import pipeline.batch.worker as worker

    clocks = {"process": iter([10.0, 17.0]), "thread": iter([1.0, 2.0])}
    fake = types.SimpleNamespace(perf_counter=time.perf_counter, process_time=lambda: next(clocks["process"]),
                                 thread_time=lambda: next(clocks["thread"]))
    monkeypatch.setattr(worker, "time", fake)
    monkeypatch.setattr(worker, "_WHOLE_PROCESS", [True])
    columns = worker.solve_records([(0, "1" + "." * 15, None, None)], {"solver": "sat"})
    assert columns[worker.CPU_KEY] == 7.0
