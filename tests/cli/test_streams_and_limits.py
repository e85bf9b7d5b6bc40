"""Issue 21 section 5 (rest): closed standard streams and a ``--time-limit`` that bounds the whole
command.

Real subprocesses: a closed descriptor is what ``bash``'s ``<&-``, ``>&-`` and ``2>&-`` leave
(Python then starts with ``sys.stdin`` / ``sys.stdout`` / ``sys.stderr`` set to None). Timings
are compared with the asked limit plus the start-up this machine takes right now (measured in
the same test), with generous margins: the machine is shared and noisy, and no absolute speed
is claimed.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.core import stops

PROJECT = Path(__file__).resolve().parents[2]
PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
needs_bash = pytest.mark.skipif(not os.path.exists("/bin/bash"), reason="needs bash")


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def run_closed(args: list[str], closed: str) -> subprocess.CompletedProcess:
    """``python -m pipeline ARGS`` under bash with ``closed`` (``<&-``, ``>&-``, ``2>&-``, or
    several) applied; stdout and stderr captured unless closed."""
    command = ["bash", "-c", f'exec "$@" {closed}', "bash", sys.executable, "-m", "pipeline", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=PROJECT, env=_env(), timeout=300)


def _no_crash(proc: subprocess.CompletedProcess) -> None:
    for text in (proc.stdout, proc.stderr):
        assert "Traceback" not in text and "AttributeError" not in text, text


# ---------------------------------------------------------------------------------------------
# closed standard streams
# ---------------------------------------------------------------------------------------------
@needs_bash
@pytest.mark.parametrize("args", [["solve", "-"], ["count", "-"], ["draw", "-", "--to", "{tmp}/p.svg"],
                                  ["solve", "-", "--format", "json"]], ids=["solve", "count", "draw", "solve-json"])
def test_closed_stdin_is_one_error_line(args, tmp_path):
    proc = run_closed([a.format(tmp=tmp_path) for a in args], "<&-")
    _no_crash(proc)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "error: standard input is closed (nothing to read for '-')\n"
    assert proc.stdout == ""
    assert list(tmp_path.iterdir()) == []


@needs_bash
def test_closed_stdin_does_not_matter_when_stdin_is_not_read():
    proc = run_closed(["solve", PUZZLE, "--format", "line", "--no-unique-check"], "<&-")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, SOLUTION + "\n", "")


@needs_bash
@pytest.mark.parametrize("args", [["generate", "-n", "2", "--seed", "3"], ["count", "." * 16, "--list"]],
                         ids=["generate", "count"])
def test_closed_stdout_is_one_error_line(args):
    proc = run_closed(args, ">&-")
    _no_crash(proc)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == ["error: standard output: Bad file descriptor"]


@needs_bash
def test_closed_stderr_still_gives_the_answer():
    proc = run_closed(["solve", PUZZLE, "--format", "line"], "2>&-")
    assert (proc.returncode, proc.stdout) == (0, SOLUTION + "\n")


@needs_bash
@pytest.mark.parametrize("args,code", [(["solve", "12x"], 2), (["solve", "-"], 2),
                                       (["verify", "1" * 81], 1)], ids=["bad-puzzle", "closed-stdin", "invalid"])
def test_closed_stderr_drops_the_error_line_never_onto_stdout(args, code):
    proc = run_closed(args, "<&- 2>&-")
    assert proc.returncode == code
    assert "error" not in proc.stdout and "Traceback" not in proc.stdout, proc.stdout


@needs_bash
def test_every_stream_closed_still_exits_2():
    proc = run_closed(["solve", "-"], "<&- >&- 2>&-")
    assert proc.returncode == 2


# ---------------------------------------------------------------------------------------------
# --time-limit bounds the whole command
# ---------------------------------------------------------------------------------------------
def _timed(args: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, cwd=PROJECT,
                          env=_env(), timeout=600)
    return proc, time.monotonic() - start


def _start_up() -> float:
    """Seconds the command takes here now when it has nothing to do (loading its modules)."""
    return min(_timed(["solve", PUZZLE, "--format", "line", "--no-unique-check"])[1] for _ in range(2))


def _empty(n: int) -> str:
    """An N x N grid with one clue (space-separated integers above 35)."""
    cells = ["1"] + ["0"] * (n * n - 1)
    return " ".join(cells) if n > 35 else "".join(cells).replace("0", ".")


@pytest.mark.parametrize("n,limit,extra", [
    (100, 4.0, ["--no-unique-check"]),   # the case: 16.3 s for a limit of 5 s
    (81, 3.0, []),                       # build, solve and the uniqueness check in 3 s (8.2 s before)
    (64, 2.0, ["--solver", "sat"]),
])
def test_solve_time_limit_bounds_the_whole_command(n, limit, extra):
    start_up = _start_up()
    proc, seconds = _timed(["solve", _empty(n), "--time-limit", str(limit), "--format", "line", *extra])
    _no_crash(proc)
    # within 10% plus start-up; a generous second more for a loaded machine (the issue saw 3x)
    assert seconds <= 1.1 * limit + 1.5 * start_up + 1.5, (seconds, start_up, proc.stderr)
    if proc.returncode == 1:
        assert proc.stderr.startswith((f"no solution: time limit of {limit} s reached",
                                       f"no solution: not started: the time limit of {limit} s is too short (")), \
            proc.stderr
    else:   # solved in time (a fast machine): a verified answer
        assert proc.returncode == 0 and len(proc.stdout.split()) == n * n, proc.stderr


def test_count_time_limit_bounds_the_whole_command():
    start_up = _start_up()
    limit = 3.0
    proc, seconds = _timed(["count", _empty(81), "--solver", "highs", "--limit", "1000", "--time-limit", str(limit)])
    _no_crash(proc)
    assert seconds <= 1.1 * limit + 1.5 * start_up + 1.5, (seconds, start_up, proc.stderr)
    assert proc.stdout.split()[0].isdigit()


def test_a_build_longer_than_the_limit_is_not_started():
    """The empty 100x100 takes about a second to build; with 50 ms the command says so at once."""
    start_up = _start_up()
    proc, seconds = _timed(["solve", _empty(100), "--time-limit", "0.2"])
    assert proc.returncode == 1
    # on a loaded machine reading the 10,000 cells may itself outlast 0.2 s: then the alarm answers
    assert proc.stderr in ("no solution: time limit of 0.2 s reached\n",) or proc.stderr.startswith(
        "no solution: not started: the time limit of 0.2 s is too short (building the 100x100 model alone takes "
        "about "), proc.stderr
    assert proc.stderr.count("\n") == 1 and ("4,000,000 nonzeros" in proc.stderr or "(" not in proc.stderr)
    assert seconds <= 1.5 * start_up + 1.5, (seconds, start_up)


def test_rule_rows_longer_than_the_limit_are_not_built(tmp_path):
    """The rows of a non-consecutive 100x100 (8 million nonzeros) count in the build's estimate:
    with 2 s (the units alone would fit) the command says so at once instead of building them."""
    start_up = _start_up()
    doc = tmp_path / "nc.json"
    doc.write_text('{"size": 100, "rules": [{"rule": "nonconsecutive"}]}')
    proc, seconds = _timed(["count", str(doc), "--time-limit", "2"])
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1].startswith(
        "no solution: not started: the time limit of 2.0 s is too short (building the 100x100 model alone takes "
        "about "), proc.stderr
    assert proc.stdout.startswith("0 (not started: the time limit of 2.0 s is too short)"), proc.stdout
    assert "12,000,000 nonzeros" in proc.stderr   # 4 million of the units and 8 million of the rule
    assert seconds <= 1.5 * start_up + 1.5, (seconds, start_up)


# ---------------------------------------------------------------------------------------------
# the deadline in process
# ---------------------------------------------------------------------------------------------
def test_build_estimate_grows_with_the_model():
    small, large = stops.estimated_build_seconds(4 * 9 ** 3), stops.estimated_build_seconds(4 * 100 ** 3)
    assert 0 < small < large
    assert large >= stops.BUILD_CPU_SECONDS_PER_NONZERO * 4 * 100 ** 3   # never below the measured rate
    with_rules = stops.estimated_build_seconds(4 * 100 ** 3, 8 * 100 ** 3)
    assert with_rules >= large + stops.RULE_BUILD_CPU_SECONDS_PER_NONZERO * 8 * 100 ** 3


def test_deadline_refuses_a_build_it_cannot_finish_and_keeps_one_it_can():
    answers = []
    deadline = stops.Deadline(1.0, lambda reason: answers.append(reason) or 7)
    deadline.check_build(4 * 9 ** 3, "the 9x9 model")   # microseconds: goes on
    with pytest.raises(stops.DeadlineReached, match="building the huge model alone takes about"):
        deadline.check_build(10 ** 12, "the huge model")


def test_deadline_run_gives_the_time_limit_answer_when_the_alarm_rings():
    if not hasattr(stops.signal, "SIGALRM"):
        pytest.skip("no SIGALRM")
    answers = []

    def body(d: stops.Deadline) -> int:
        while True:   # Python code: the alarm's DeadlineReached lands here
            time.sleep(0.01)

    start = time.monotonic()
    code = stops.Deadline(0.3, lambda reason: answers.append(reason) or 5).run(body)
    assert code == 5 and answers == [None]
    assert 0.3 <= time.monotonic() - start < 3.0


def test_an_alarm_inside_a_finalizer_stops_the_command_after_it(capsys):
    """A python-sat solver freed as the limit passed: the alarm's DeadlineReached raised in its
    ``__del__`` was printed ("Exception ignored in ...", a traceback) and dropped. The stop now
    comes a moment later, outside the finalizer."""
    if not hasattr(stops.signal, "SIGALRM"):
        pytest.skip("no SIGALRM")
    answers, finalized = [], []

    class Freed:
        def __del__(self):
            end = time.monotonic() + 0.5
            while time.monotonic() < end:   # Python code the alarm lands in
                sum(range(1000))
            finalized.append(True)

    def body(d: stops.Deadline) -> int:
        Freed()   # freed at once, its __del__ outlasting the limit
        start = time.monotonic()
        while time.monotonic() - start < 10:   # the stop lost, this ends the test
            time.sleep(0.01)
        return 0

    stops.begin()   # a command starts: no stop taken yet (an earlier test's deadline stopped its own)
    code = stops.Deadline(0.2, lambda reason: answers.append(reason) or 5).run(body)
    assert code == 5 and answers == [None] and finalized == [True]
    assert "Exception ignored" not in capsys.readouterr().err


def test_deadline_without_a_limit_arms_nothing():
    deadline = stops.Deadline(None, lambda reason: 1)
    assert deadline.remaining() is None
    deadline.check_build(10 ** 15, "anything")
    assert deadline.run(lambda d: 0) == 0


def test_after_a_time_limit_answer_the_process_ends_without_the_interpreters_exit():
    """explain of an empty 100x100 with --time-limit 10 ran 13 s: the stop left 12.6 million
    clause lists of its SAT engine, which the interpreter's exit took 1.5-2 s to free after the
    answer. Once the limit has stopped the work and the answer is out, the process ends there
    (the atexit handler below never runs)."""
    script = ("import atexit, sys\n"
              "from pipeline.cli.main import main\n"
              "atexit.register(lambda: print('the interpreter exit ran', file=sys.stderr))\n"
              "sys.argv = ['pipeline', 'explain', '{\"size\": 36}', '--time-limit', '0.5']\n"
              "sys.exit(main())\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=PROJECT, env=_env(),
                          timeout=600)
    assert (proc.returncode, proc.stderr) == (1, "explain: no answer: time limit of 0.5 s reached\n")


def test_an_alarm_inside_set_name_stops_the_command_after_it():
    """CI, ``solve --solver highs --time-limit 0.2`` under load: exit 70, "internal error: solve:
    RuntimeError: Error calling __set_name__ on 'Field' instance 'warnings' in
    '_XPSphinxCapability'". The alarm rang while an import made scipy's class, and Python 3.11
    raises a RuntimeError in place of an exception out of ``__set_name__``. The stop now comes a
    moment later, outside it. The alarm is sent right inside the ``__set_name__`` here."""
    if not hasattr(stops.signal, "SIGALRM"):
        pytest.skip("no SIGALRM")
    answers, named = [], []

    class Field:
        def __set_name__(self, owner, name):
            stops.signal.raise_signal(stops.signal.SIGALRM)   # the limit passes here (its handler runs here)
            named.append(name)

    def body(d: stops.Deadline) -> int:
        class Capability:
            warnings = Field()
        start = time.monotonic()
        while time.monotonic() - start < 10:   # the stop lost, this ends the test
            time.sleep(0.01)
        return 0

    stops.begin()   # a command starts: no stop taken yet (an earlier test's deadline stopped its own)
    code = stops.Deadline(600, lambda reason: answers.append(reason) or 5).run(body)
    assert code == 5 and answers == [None] and named == ["warnings"]
