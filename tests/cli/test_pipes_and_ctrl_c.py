"""The command line when its reader goes away (a closed pipe, ``| head``) and on Ctrl-C: it ends
quietly, with 141 or one line and 130 (issue 11 item 10; moved from test_cli.py)."""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest

from cli_helpers import PROJECT, PUZZLE, SOLUTION, THREE_SOLUTIONS, _env


@pytest.mark.parametrize("args", [["solve", PUZZLE, "--no-unique-check"], ["count", THREE_SOLUTIONS, "--list"],
                                  ["solve", "--help"], ["verify", SOLUTION, "--format", "json"]])
def test_closed_stdout_ends_quietly(args):
    """The reader closes its end before anything is written: every write fails with EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "pipeline", *args], stdout=write_end, stderr=subprocess.PIPE,
                              text=True, cwd=PROJECT, env=_env(), timeout=300)
    finally:
        os.close(write_end)
    assert proc.stderr == "", proc.stderr
    assert proc.returncode == 128 + signal.SIGPIPE


def test_piped_into_head_ends_quietly():
    if not shutil.which("head") or not shutil.which("bash"):
        pytest.skip("no bash/head")
    command = f"set -o pipefail; {shlex.quote(sys.executable)} -m pipeline solve {PUZZLE} | head -1"
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=PROJECT, env=_env(),
                          timeout=300)
    assert proc.stdout.count("\n") == 1 and proc.stderr == ""
    assert proc.returncode in (0, 128 + signal.SIGPIPE)   # 0 when solve wrote all before head left


@pytest.mark.parametrize("fmt", ["mps", "lp", "opb", "mat", "cnf"])
def test_export_to_stdout_piped_into_a_reader_that_leaves_is_141_never_a_silent_short_file(fmt):
    """A write larger than the buffer goes to the pipe at once; the kernel's short write when the
    reader left was returned as it was, so the command dropped the rest and exited 0."""
    if not shutil.which("head") or not shutil.which("bash"):
        pytest.skip("no bash/head")
    command = (f"{shlex.quote(sys.executable)} -m pipeline export examples/grid16.txt --box 4x4 --to - "
               f"--formats {fmt} | (sleep 0.5; head -c 10 > /dev/null); exit ${{PIPESTATUS[0]}}")
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=PROJECT, env=_env(),
                          timeout=300)
    assert proc.stderr == ""
    assert proc.returncode == 128 + signal.SIGPIPE


@pytest.mark.parametrize("command", ["export examples/grid16.txt --box 4x4 --to /dev/stdout --formats lp",
                                     "draw examples/grid16.txt --box 4x4 --candidates --inches 30 --to /dev/stdout"])
def test_to_dev_stdout_piped_into_a_reader_that_leaves_is_141_as_with_a_dash(command):
    """--to /dev/stdout (as the docs show for draw) opens the pipe as a file: its broken pipe was
    'error: /dev/stdout: cannot write: Broken pipe' and exit 2."""
    if not shutil.which("head") or not shutil.which("bash") or not os.path.exists("/dev/stdout"):
        pytest.skip("no bash/head or /dev/stdout")
    line = (f"{shlex.quote(sys.executable)} -m pipeline {command} | (sleep 0.5; head -c 10 > /dev/null); "
            f"exit ${{PIPESTATUS[0]}}")
    proc = subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd=PROJECT, env=_env(), timeout=300)
    assert proc.stderr == ""
    assert proc.returncode == 128 + signal.SIGPIPE


# main() as the command line runs it (argv from sys.argv, so the Ctrl-C watchdog is on), after a
# 'ready' line once every import is done: from then on a Ctrl-C must end in one line and 130
CLI_AFTER_READY = "import sys, pipeline.cli; print('ready', flush=True); sys.exit(pipeline.cli.main())"


@pytest.mark.parametrize("args", [["count", "." * 625, "--solver", "highs", "--limit", "100000"],   # in C (HiGHS)
                                  ["count", "." * 256, "--solver", "sat", "--limit", "10000000", "--list"],
                                  # compiled dfs (holds the GIL): a minimal 25x25 it searches for minutes
                                  ["count", (PROJECT / "tests" / "data" / "sets" / "25x25_gecode.txt").read_text()
                                   .split()[0], "--solver", "dfs"],
                                  ["verify", "-"]])                                # blocked reading stdin
def test_ctrl_c_prints_one_line_and_exits_130(args):
    proc = subprocess.Popen([sys.executable, "-c", CLI_AFTER_READY, *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=PROJECT, env=_env())
    try:
        assert proc.stdout.readline() == "ready\n"
        time.sleep(1.5)          # usually inside the engine by now; earlier must end the same way
        if proc.poll() is not None:
            pytest.skip("the command finished before Ctrl-C")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err
    assert err == "interrupted\n"
