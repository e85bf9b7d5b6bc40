"""Issue 21 section 3: signals never crash the process.

Real subprocesses of ``python -m pipeline``; SIGINT and SIGTERM sent at several moments (after
polling for progress where the command shows any: lines on stdout, a temporary file growing,
batch parts), one signal or several in a row. Every case must end with exit 130 and stderr
``interrupted`` (one line: no traceback, no ``fatal error`` from CaDiCaL, no second report),
and what reached stdout (or ``--to FILE``) must be whole lines, each a puzzle with exactly one
solution: the seed's puzzles from the first on, none lost, none cut.
"""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from pipeline.batch import MANIFEST
from pipeline.core import stops
from pipeline.core.puzzle import parse_puzzle
from pipeline.tools.generate import count_up_to, generate

PROJECT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _default_sigint() -> None:
    # a test runner started in the background may hand SIGINT down ignored: the command must see it
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Command:
    """``python -m pipeline ARGS`` in its own process group, its stdout read line by line."""

    def __init__(self, *args: str, cwd: Path = PROJECT):
        self.proc = subprocess.Popen([sys.executable, "-m", "pipeline", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=_env(), start_new_session=True,
                                     preexec_fn=_default_sigint)
        self.lines: list[bytes] = []
        self.err = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.append(line)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.err = self.proc.stderr.read()

    def wait_for(self, condition, timeout: float = 240.0) -> bool:
        """Poll until ``condition()`` or the process ends; True when the condition held."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if condition():
                return True
            if self.proc.poll() is not None:
                return condition()
            time.sleep(0.01)
        raise AssertionError("no progress in time")

    def catches(self, signum: int) -> bool:
        """The process has a handler for ``signum`` (Linux: ``SigCgt`` in /proc; elsewhere: after
        half a second). SIGTERM is caught once ``pipeline`` starts loading: before that the
        interpreter itself is starting (a Ctrl-C then is "Fatal Python error: init_import_site",
        before it the kernel's default), as for any Python program."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            time.sleep(0.5)
            return True
        mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
        return bool(mask >> (signum - 1) & 1)

    def signal(self, signum: int, times: int = 1, gap: float = 0.05, group: bool = False) -> None:
        for _ in range(times):
            try:
                if group:
                    os.killpg(self.proc.pid, signum)
                else:
                    self.proc.send_signal(signum)
            except ProcessLookupError:
                return
            time.sleep(gap)

    def finish(self, timeout: float = 120.0) -> tuple[int, str]:
        try:
            self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._reader.join(10)
        self._err_reader.join(10)
        return self.proc.returncode, self.err.decode(errors="replace")


def assert_interrupted(code: int, err: str) -> None:
    assert code == 130, (code, err)
    assert err == "interrupted\n", err   # one line: no traceback, no "fatal error", no second report


def assert_seed_puzzles(lines: list[bytes], *, seed: int, size: int = 9) -> None:
    """Whole lines, each a puzzle with exactly one solution, the seed's puzzles 0, 1, ... in order."""
    assert all(line.endswith(b"\n") for line in lines), lines[-1:]
    texts = [line.decode().strip() for line in lines]
    for text in texts:
        assert len(text) == size * size
        assert count_up_to(parse_puzzle(text), 2) == 1, text
    if texts:
        expected = [g.puzzle.grid for g in generate(size=size, seed=seed, count=len(texts))]
        assert [parse_puzzle(t).grid.tolist() for t in texts] == [g.tolist() for g in expected]


# ---------------------------------------------------------------------------------------------
# generate: streamed puzzles survive any number of signals
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("after_lines,signum,times", [
    (0, signal.SIGINT, 1),      # while loading or making the first puzzle
    (1, signal.SIGINT, 2),      # a second Ctrl-C a moment later: once crashed CaDiCaL (free(): invalid pointer)
    (5, signal.SIGINT, 5),      # a burst
    (3, signal.SIGTERM, 2),     # what timeout and service managers send
])
def test_generate_interrupted_keeps_whole_unique_puzzles(after_lines, signum, times):
    cmd = Command("generate", "-n", "5000", "--seed", "21")
    if after_lines:
        cmd.wait_for(lambda: len(cmd.lines) >= after_lines)
    else:
        cmd.wait_for(lambda: cmd.catches(signal.SIGTERM))
    cmd.signal(signum, times=times, gap=0.15)
    code, err = cmd.finish()
    if code == 0:
        pytest.skip("generate finished before the signal")
    assert_interrupted(code, err)
    assert len(cmd.lines) >= after_lines
    assert_seed_puzzles(cmd.lines, seed=21)


def test_generate_16x16_interrupted_inside_the_sat_engine():
    """16x16: most of the time is inside CaDiCaL; Ctrl-C there used to abort the process (exit 134,
    'solver in invalid state') or crash on the second one."""
    cmd = Command("generate", "--size", "16", "-n", "100", "--seed", "5")
    cmd.wait_for(lambda: len(cmd.lines) >= 1)
    time.sleep(0.3)
    cmd.signal(signal.SIGINT, times=3, gap=0.1)
    code, err = cmd.finish()
    assert_interrupted(code, err)
    assert_seed_puzzles(cmd.lines, seed=5, size=16)


def test_generate_to_file_interrupted_keeps_the_finished_puzzles(tmp_path):
    """--to FILE: the puzzles are written into a temporary file beside FILE, which is renamed onto
    FILE at the end, and also after an interrupt: FILE has the finished puzzles, whole."""
    target = tmp_path / "g.txt"
    target.write_text("old\n")

    def written() -> int:
        return sum(p.read_bytes().count(b"\n") for p in tmp_path.iterdir() if p != target)

    cmd = Command("generate", "-n", "5000", "--seed", "8", "--to", str(target))
    cmd.wait_for(lambda: written() >= 3)
    cmd.signal(signal.SIGINT, times=2, gap=0.1)
    code, err = cmd.finish()
    assert_interrupted(code, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt"]   # no temporary file left
    lines = target.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 3
    assert_seed_puzzles(lines, seed=8)


# ---------------------------------------------------------------------------------------------
# count: the SAT engine and HiGHS, signals at several moments
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("solver,size,delay,times", [
    ("sat", 16, 0.0, 3),
    ("sat", 16, 2.5, 2),      # well inside the counting loop (died by SIGSEGV before)
    ("sat", 25, 4.0, 4),
    ("highs", 25, 3.0, 2),    # inside HiGHS's C code: its interrupt callback ends the run
])
def test_count_interrupted_by_repeated_signals(solver, size, delay, times):
    cmd = Command("count", "." * size * size, "--solver", solver, "--limit", "100000000")
    cmd.wait_for(lambda: cmd.catches(signal.SIGTERM))
    time.sleep(delay)
    cmd.signal(signal.SIGINT, times=times, gap=0.2)
    code, err = cmd.finish()
    assert_interrupted(code, err)
    assert cmd.lines == []


def test_solve_inside_a_long_highs_run_ends_at_once():
    """HiGHS runs in a thread of its own and the stop reaches it through its interrupt
    callback: the command answers itself, instead of the watchdog ending the process after its
    grace (a signal once raised inside the callback was also taken for a solver error)."""
    cmd = Command("solve", "examples/grid25.txt", "--solver", "highs", "--presolve", "none")
    cmd.wait_for(lambda: cmd.catches(signal.SIGTERM))
    time.sleep(3.0)   # inside HiGHS (minutes for this puzzle without singles first)
    start = time.monotonic()
    cmd.signal(signal.SIGTERM)
    code, err = cmd.finish()
    assert_interrupted(code, err)
    assert time.monotonic() - start < stops.INTERRUPT_GRACE, time.monotonic() - start


def _needs_ortools() -> None:
    if importlib.util.find_spec("ortools") is None:
        pytest.skip("ortools (the 'cpsat' extra) is not installed")


@pytest.mark.parametrize("args", [
    ("count", "." * 256, "--solver", "cpsat", "--limit", "100000000"),
    ("solve", "examples/grid25.txt", "--solver", "cpsat"),   # about 70 s with its uniqueness check
], ids=["count", "solve"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_cpsat_stopped_by_a_signal_is_interrupted_not_a_time_limit(args, signum):
    """CP-SAT's own SIGINT handler used to take the Ctrl-C and end its search as if its time
    limit had passed (``time limit reached``, exit 1); SIGTERM waited for the watchdog's grace."""
    _needs_ortools()
    cmd = Command(*args)
    cmd.wait_for(lambda: cmd.catches(signal.SIGTERM))
    time.sleep(1.5)
    start = time.monotonic()
    cmd.signal(signum)
    code, err = cmd.finish()
    assert_interrupted(code, err)
    # the search is asked to stop at once, not ended by the watchdog after its grace
    assert time.monotonic() - start < stops.INTERRUPT_GRACE, time.monotonic() - start


CPSAT_CTRL_C = """
import os, signal, threading, time
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import get_solver
signal.signal(signal.SIGINT, signal.default_int_handler)
model = build_model(parse_puzzle("." * 256))
threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    result = get_solver("cpsat").count(model, 10 ** 8, time_limit=60)
    print("returned", result.status, result.count)
except KeyboardInterrupt:
    print("KeyboardInterrupt")
"""


CPSAT_AFTER_A_STOP = """
from pipeline.core import stops
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import get_solver
stops.shutdown_started()   # an earlier command of this process was stopped (batch's first Ctrl-C)
entry = get_solver("cpsat")
model = build_model(parse_puzzle("." * 16))
print(entry.solve(model).status, entry.count(model, 3).count)
"""


def test_cpsat_is_not_stopped_by_an_earlier_commands_stop():
    """The engine once read the process-wide 'a stop has started' flag after each search: in a
    process where an earlier command had been stopped, every CP-SAT search was an interrupt."""
    _needs_ortools()
    done = subprocess.run([sys.executable, "-c", CPSAT_AFTER_A_STOP], capture_output=True, text=True, timeout=120,
                          env=_env(), cwd=PROJECT)
    assert done.stdout.split() == ["optimal", "3"], (done.stdout, done.stderr[-2000:])


def test_cpsat_ctrl_c_in_the_api_raises_keyboard_interrupt():
    """Outside the command line CP-SAT catches Ctrl-C itself (the search ends at once); the
    engine raises it as the KeyboardInterrupt Python code expects, not a ``time_limit`` count."""
    _needs_ortools()
    done = subprocess.run([sys.executable, "-c", CPSAT_CTRL_C], capture_output=True, text=True, timeout=120,
                          env=_env(), cwd=PROJECT, preexec_fn=_default_sigint)
    assert done.stdout.strip() == "KeyboardInterrupt", (done.stdout, done.stderr[-2000:])


# A command whose Ctrl-C lands inside code run from a string: the solvers load on first use, so a
# signal may meet a dataclass's generated methods (or numba's wrappers) inside exec().
INTERRUPTED_INSIDE_EXEC = """
import sys
import importlib
cli = importlib.import_module("pipeline.cli.main")

def parser_interrupted_inside_exec(*args, **kwargs):
    exec("raise KeyboardInterrupt")

cli.build_parser = parser_interrupted_inside_exec
sys.argv = ["sudoku-pipeline", "solve", "{puzzle}"]
sys.exit(cli.main())
"""


def test_interrupt_inside_code_run_from_a_string_still_exits_130(tmp_path):
    """CPython marks a KeyboardInterrupt that leaves ``exec`` of a string as unhandled, even when
    ``main`` catches and reports it, and under ``python -m`` its exit then kills the process with
    SIGINT (exit -2 instead of 130; CI saw it once in test_signal_while_the_command_loads)."""
    (tmp_path / "interrupted_inside_exec.py").write_text(INTERRUPTED_INSIDE_EXEC.format(puzzle="." * 81))
    done = subprocess.run([sys.executable, "-m", "interrupted_inside_exec"], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env=_env(), preexec_fn=_default_sigint)
    assert_interrupted(done.returncode, done.stderr)


LIBRARY_USER = """
import os, signal
print(os.environ.get("OPENBLAS_NUM_THREADS"), signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


def test_a_program_run_with_dash_m_that_imports_the_library_keeps_its_own_ctrl_c(tmp_path):
    """``sys.argv[0]`` is ``-m`` while the packages of any ``python -m`` target load, so a user's
    ``python -m mypkg.cli`` whose package imports ``pipeline`` had its Ctrl-C taken over (the
    process ended at once: no KeyboardInterrupt, no ``finally``) and OPENBLAS_NUM_THREADS set."""
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("import pipeline\n")
    (package / "cli.py").write_text(LIBRARY_USER)
    env = _env()
    env.pop("OPENBLAS_NUM_THREADS", None)
    done = subprocess.run([sys.executable, "-m", "mypkg.cli"], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env=env, preexec_fn=_default_sigint)
    assert done.stdout.split() == ["None", "True"], done.stderr
    ours = subprocess.run([sys.executable, "-X", "utf8", "-m", "pipeline", "--version"], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=env)
    assert ours.returncode == 0 and ours.stdout.startswith("sudoku-pipeline")


def test_the_module_run_is_read_from_the_interpreter_s_command_line(monkeypatch):
    import pipeline

    for argv, module in ((["python", "-m", "pipeline", "solve"], "pipeline"), (["python", "-u", "-mpipeline.cli"],
                         "pipeline.cli"), (["python", "-X", "dev", "-m", "mypkg.cli"], "mypkg.cli"),
                         (["python", "script.py", "-m", "pipeline"], None), (["python", "-c", "pass"], None)):
        monkeypatch.setattr(sys, "orig_argv", argv)
        assert pipeline._module_run() == module, argv


@pytest.mark.parametrize("delay", [0.0, 0.1, 0.25, 0.5, 0.8])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_while_the_command_loads(delay, signum):
    """From the moment ``pipeline`` starts loading: a signal inside an extension module's
    initialisation once became "ImportError: initialization failed" (highspy, exit 1), and one
    swallowed by a third-party import would leave the command running."""
    cmd = Command("count", "." * 81, "--solver", "sat", "--limit", "100000000")
    cmd.wait_for(lambda: cmd.catches(signal.SIGTERM))
    time.sleep(delay)
    cmd.signal(signum)
    code, err = cmd.finish(timeout=60)
    assert_interrupted(code, err)


# ---------------------------------------------------------------------------------------------
# batch: SIGTERM to the process group is taken as Ctrl-C is
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("workers,times", [("2", 1), ("2", 2), ("1", 1)])
def test_batch_workers_stuck_in_one_long_highs_run_are_ended(tmp_path, workers, times):
    """Each worker in a HiGHS run of minutes (a 25x25 without propagation): the client waited
    for their current puzzle without bound (20 minutes and three signals, then SIGKILL). Now
    each worker's HiGHS run ends in place on the stop flag (a worker that does not is killed a
    moment later, at once after a second signal), the unfinished puzzles stay unwritten for a
    resume, and no process of the run is left. With one worker, in the client's own process, the
    watchdog once ended it after its grace with no summary; HiGHS is now interrupted and the run
    says what it did."""
    line = "".join((PROJECT / "examples" / "grid25.txt").read_text().split())
    src = tmp_path / "in.txt"
    src.write_text((line + "\n") * 3)
    out = tmp_path / "out"
    cmd = Command("batch", str(src), str(out), "--workers", workers, "--solver", "highs", "--no-propagate",
                  "--progress", "none")
    cmd.wait_for(lambda: (out / MANIFEST).exists())
    time.sleep(2.0)   # the workers are inside HiGHS
    start = time.monotonic()
    cmd.signal(signal.SIGINT, times=times, gap=0.3)
    code, err = cmd.finish(timeout=60)
    assert code == 130 and err.count("\n") == 1 and "interrupted; rerun the same command to resume" in err, \
        (code, err)
    assert time.monotonic() - start < 15, time.monotonic() - start
    with pytest.raises(ProcessLookupError):   # no worker of the run's process group is left
        os.killpg(cmd.proc.pid, 0)
    assert not list(out.glob("part-*"))


@pytest.mark.parametrize("signum,times", [(signal.SIGTERM, 1), (signal.SIGTERM, 3), (signal.SIGINT, 3)])
def test_batch_signal_to_the_process_group_then_resume(data_dir, tmp_path, signum, times):
    records = (data_dir / "sets" / "9x9_norvig_top95.txt").read_text().split()
    records = records * max(1, -(-400 // len(records)))
    src = tmp_path / "in.txt"
    src.write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    options = ["--workers", "2", "--chunk-size", "8", "--no-propagate", "--progress", "none"]
    cmd = Command("batch", str(src), str(out), *options)
    cmd.wait_for(lambda: len(list(out.glob("part-*"))) >= 2)
    cmd.signal(signum, times=times, gap=0.1, group=True)
    code, err = cmd.finish()
    if code == 0:
        pytest.skip("the batch finished before the signal")
    assert code == 130, err
    assert "worker failed" not in err and "Traceback" not in err and "BrokenProcessPool" not in err, err
    assert err.count("\n") == 1 and "interrupted; rerun the same command to resume" in err, err
    assert json.loads((out / MANIFEST).read_text())["status"] == "interrupted"
    kept = len(pd.read_parquet(out))
    rerun = subprocess.run([sys.executable, "-m", "pipeline", "batch", str(src), str(out), *options],
                           capture_output=True, text=True, cwd=PROJECT, env=_env(), timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    df = pd.read_parquet(out)
    assert sorted(df["index"].tolist()) == list(range(len(records)))   # every record once
    assert (df["status"] == "optimal").all()
    assert f"{kept:,} already done" in rerun.stderr


ORDERLY_STOP = """
import os, signal, sys, threading, time
from pipeline.core import stops
stops.install(watch=True)
taken = []
def take(signum, frame):   # as batch's own handler: the stop reached Python, the end is orderly
    stops.shutdown_started()
    stops.stopping_in_order()
    taken.append(signum)
signal.signal(signal.SIGINT, take)
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
while not taken:
    time.sleep(0.02)
time.sleep(stops.INTERRUPT_GRACE + 1.0)   # an orderly end longer than the grace (a loaded machine)
print("summary", flush=True)
stops.finish()
sys.exit(130)
"""


def test_a_stop_taken_in_python_gets_the_orderly_grace_not_the_watchdogs_exit():
    """batch with one worker took Ctrl-C in its own handler, then wrote its rows and summary; on a
    loaded machine that took more than INTERRUPT_GRACE and the watchdog ended the process with a
    bare 'interrupted' instead of the summary."""
    done = subprocess.run([sys.executable, "-c", ORDERLY_STOP], capture_output=True, text=True, timeout=60,
                          env=_env(), cwd=PROJECT)
    assert (done.returncode, done.stdout, done.stderr) == (130, "summary\n", ""), (done.returncode, done.stdout,
                                                                                   done.stderr[-2000:])


def test_a_second_stop_cuts_the_orderly_grace_short():
    """The orderly end's grace is for a first Ctrl-C: a second one gives main the usual grace,
    then the watchdog ends a process still not done (main stuck here in a long sleep)."""
    script = ORDERLY_STOP.replace("time.sleep(stops.INTERRUPT_GRACE + 1.0)", "time.sleep(40)").replace(
        "threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()",
        "threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
        "threading.Timer(3.5, os.kill, (os.getpid(), signal.SIGINT)).start()")
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env=_env(), cwd=PROJECT)
    took = time.monotonic() - start
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "interrupted\n"), (done.returncode, done.stdout,
                                                                                        done.stderr[-2000:])
    assert took < 3.5 + stops.INTERRUPT_GRACE + 10, took   # not the 30 s grace (nor the 40 s sleep)


@pytest.mark.skipif(importlib.util.find_spec("pyscipopt") is None, reason="pyscipopt not installed (extra 'scip')")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_scip_solve_stops_at_the_signal_and_leaves_no_work_directory(tmp_path, signum):
    """SCIP solved in this process, in C: Ctrl-C and SIGTERM waited for its time limit (or for ever
    without one), and a kill left /tmp/sudoku-scip-* behind. It runs in a child process now."""
    import numpy as np
    from oracles import pattern_grid
    grid = pattern_grid(7, 7)
    rng = np.random.default_rng(3)
    grid[rng.random(grid.shape) < 0.5] = 0   # half given: SCIP searches for minutes at 49x49
    src = tmp_path / "g49.txt"
    src.write_text("\n".join(" ".join(map(str, row)) for row in grid) + "\n")
    work = tmp_path / "tmp"
    work.mkdir()
    cmd = subprocess.Popen([sys.executable, "-m", "pipeline", "solve", str(src), "--solver", "scip"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=PROJECT, start_new_session=True,
                           env={**_env(), "TMPDIR": str(work)}, preexec_fn=_default_sigint)
    end = time.monotonic() + 120
    while not any(work.glob("sudoku-scip-*/model.mps")) and time.monotonic() < end and cmd.poll() is None:
        time.sleep(0.05)   # the export is written: the solve is under way
    time.sleep(1.0)
    assert cmd.poll() is None, cmd.stderr.read()
    cmd.send_signal(signum)
    try:
        _, err = cmd.communicate(timeout=15)
    finally:
        cmd.kill()
    assert cmd.returncode == 130 and err.decode().strip().splitlines()[-1] == "interrupted", err
    assert list(work.iterdir()) == []
