"""A stop (Ctrl-C, SIGTERM) handled right after something is created and before it is recorded
for its clean-up must not leave it behind: the race CI met in the export's fork (a child the
parent did not know), here for the temporary directories of a solver run, of a table read from
standard input and of an export to a stream (:func:`pipeline.core.stops.temporary_directory`)."""
from __future__ import annotations

import io
import os
import signal
import tempfile

import pytest

from formats.single import export_stream
from pipeline.batch.worker import one_row_table_text
from pipeline.core import stops
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers.workdir import work_directory


@pytest.fixture(params=["python", "command line"])
def stop_handling(request, monkeypatch):
    """SIGINT raising KeyboardInterrupt Python's own way, or through the command line's handlers
    (:func:`stops.install`); this worker's handlers and stops' state are restored afterwards."""
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    if request.param == "python":
        signal.signal(signal.SIGINT, signal.default_int_handler)
    else:
        monkeypatch.setattr(stops._S, "installed", stops._S.installed)
        stops.begin()
        stops.install(watch=False)
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    stops.begin()


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
    real_mkdtemp = tempfile.mkdtemp

    def mkdtemp_then_signal(*args, **kwargs):
        made = real_mkdtemp(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)
        return made

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp_then_signal)
    with pytest.raises(KeyboardInterrupt):
        run()
    assert list(tmp_path.iterdir()) == []
