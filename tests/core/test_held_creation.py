"""A stop (Ctrl-C, SIGTERM) handled right after something is created and before it is recorded
for its clean-up must not leave it behind: the race CI met in the export's fork (a child the
parent did not know), here for the temporary directories of a solver run, of a table read from
standard input and of an export to a stream (:func:`pipeline.core.stops.temporary_directory`)."""
from __future__ import annotations

import io
import tempfile

import pytest

from formats.single import export_stream
from pipeline.batch.worker import one_row_table_text
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers.workdir import work_directory
from stop_handling import HANDLINGS, signalling_after, sigint_handled


@pytest.fixture(params=HANDLINGS)
def stop_handling(request, monkeypatch):
    """SIGINT handled Python's way or the command line's (:func:`stop_handling.sigint_handled`)."""
    with sigint_handled(request.param, monkeypatch):
        yield


def _solver_run() -> None:
    with work_directory(None, "cadical"):
        pass


def _table_from_stdin() -> None:
    one_row_table_text("puzzle\n1...........3..2\n")


def _export_to_a_stream() -> None:
    export_stream(build_model(parse_puzzle("1...........3..2")), io.BytesIO(), "cnf")


@pytest.mark.parametrize("run", [_solver_run, _table_from_stdin, _export_to_a_stream],
                         ids=["solver workdir", "stdin table", "export stream"])
def test_a_signal_right_after_mkdtemp_leaves_no_directory(tmp_path, monkeypatch, stop_handling, run):
    """Inside tempfile.TemporaryDirectory a Ctrl-C after mkdtemp, before its finalizer was set,
    left the directory (/tmp/sudoku-cadical-*, sudoku-stdin-*, sudoku-export-*) behind."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(tempfile, "mkdtemp", signalling_after(tempfile.mkdtemp))
    with pytest.raises(KeyboardInterrupt):
        run()
    assert list(tmp_path.iterdir()) == []
