"""CP-SAT (pipeline/solvers/cpsat.py) and a batch pool worker's stop flag: the search ends in
place as ``interrupted`` (the worker was killed with its chunk before), and the flag is read
only while it is named. Run in a child process, as the other CP-SAT tests are (OR-Tools and
highspy in one process are kept apart there)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from oracles import PROJECT

SCRIPT = r"""
import threading, time
from pipeline.core import stops
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import get_solver

cpsat = get_solver("cpsat")
raised = threading.Event()
stops.watching_flag(raised.is_set)
try:
    timer = threading.Timer(0.5, raised.set)
    timer.start()
    start = time.monotonic()
    counted = cpsat.count(build_model(parse_puzzle("." * 81)), 10**9, keep=1)
    seconds = time.monotonic() - start
    assert counted.status == "interrupted" and 0 < counted.count < 10**9, counted
    assert seconds < 30, seconds
    solved = cpsat.solve(build_model(parse_puzzle(%(grid25)r)), threads=1)   # flag already up: ends at once
    assert solved.status == "interrupted" and solved.grid is None, solved
finally:
    stops.watching_flag(None)
assert stops.stop_requested() is False
empty = cpsat.count(build_model(parse_puzzle("." * 16)), 1000)
assert (empty.count, empty.status) == (288, "complete"), empty   # the flag is forgotten
assert cpsat.solve(build_model(parse_puzzle(%(grid25)r)), threads=1).status == "optimal"
print("ok")
"""


def test_a_raised_batch_flag_ends_a_cpsat_search_as_interrupted():
    if importlib.util.find_spec("ortools") is None:
        pytest.skip("ortools (the 'cpsat' extra) is not installed")
    script = SCRIPT % {"grid25": str(PROJECT / "examples" / "grid25.txt")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(PROJECT)})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
