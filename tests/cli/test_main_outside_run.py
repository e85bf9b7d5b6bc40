"""What ``main`` does around a command's own run is held to the same outcomes as the command:
an exception in its set-up (signal handling, the stand-ins for closed streams, the guarded
stdout) or one raised while a command's error is being reported is a bug, one ``internal
error: ...`` line and exit 70; a Ctrl-C there is ``interrupted`` and 130; and an error line that
stderr cannot take (``2>/dev/full``, a reader of stderr that went away) leaves the exit code as
it was (2 for bad input), not a traceback and Python's exit 1, which reads as "no solution".

The bugs are planted: in this process with monkeypatch, or in a subprocess by a ``python -c``
that patches ``pipeline.cli.main`` and then runs the ``pipeline`` module as ``python -m
pipeline`` would.
"""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pipeline.cli.commands import verify
from pipeline.cli.main import INTERNAL_ERROR_EXIT, TRACEBACK_VARIABLE, main
from pipeline.core import stops

PROJECT = Path(__file__).resolve().parents[2]
FOUR = "." * 16   # the empty 4x4
BAD = "12x4" + "." * 12   # a 4x4 with a character that is no digit: bad input, exit 2
cli_main = importlib.import_module("pipeline.cli.main")   # the module: pipeline.cli.main is also the function
HINT = f"(a bug; set {TRACEBACK_VARIABLE}=1 to see the traceback)"


def _raise(error: BaseException):
    def raise_it(*args, **kwargs):
        raise error
    return raise_it


@pytest.fixture
def no_traceback(monkeypatch):
    monkeypatch.delenv(TRACEBACK_VARIABLE, raising=False)
    return monkeypatch


def test_a_bug_while_reporting_bad_input_is_the_one_line(no_traceback, capsys):
    """The handler of a command's typed error failing is a bug like any other (it escaped main)."""
    no_traceback.setattr(cli_main, "_as_typed", _raise(RuntimeError("naming\nfailed")))
    assert main(["verify", BAD]) == INTERNAL_ERROR_EXIT
    out, err = capsys.readouterr()
    assert err == f"internal error: verify: RuntimeError: naming\\nfailed {HINT}\n"
    assert out == ""


def test_a_bug_in_mains_set_up_is_the_one_line_naming_the_command(no_traceback, capsys):
    no_traceback.setattr(cli_main, "_GuardedStdout", _raise(TypeError("no guard")))
    assert main(["verify", FOUR]) == INTERNAL_ERROR_EXIT
    assert capsys.readouterr().err == f"internal error: verify: TypeError: no guard {HINT}\n"


def test_a_bug_before_any_command_word_says_the_command(no_traceback, capsys):
    no_traceback.setattr(cli_main, "_GuardedStdout", _raise(TypeError("no guard")))
    assert main(["--help"]) == INTERNAL_ERROR_EXIT
    assert capsys.readouterr().err == f"internal error: the command: TypeError: no guard {HINT}\n"


def test_the_streams_are_given_back_after_a_bug_in_the_set_up(no_traceback, capsys):
    stdout, stdin = sys.stdout, sys.stdin
    no_traceback.setattr(cli_main, "_GuardedStdout", _raise(TypeError("no guard")))
    main(["verify", FOUR])
    assert sys.stdout is stdout and sys.stdin is stdin


def test_the_variable_lets_a_set_up_bug_through(monkeypatch):
    monkeypatch.setenv(TRACEBACK_VARIABLE, "1")
    monkeypatch.setattr(cli_main, "_GuardedStdout", _raise(TypeError("no guard")))
    with pytest.raises(TypeError, match="no guard"):
        main(["verify", FOUR])


def test_a_ctrl_c_in_the_set_up_is_an_interrupt(no_traceback, capsys):
    no_traceback.setattr(cli_main, "_GuardedStdout", _raise(KeyboardInterrupt()))
    assert main(["verify", FOUR]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_a_ctrl_c_while_reporting_bad_input_is_an_interrupt(no_traceback, capsys):
    no_traceback.setattr(cli_main, "_as_typed", _raise(KeyboardInterrupt()))
    assert main(["verify", BAD]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_a_commands_own_exit_passes_through(no_traceback):
    no_traceback.setattr(verify, "cmd_verify", _raise(SystemExit(3)))
    with pytest.raises(SystemExit) as exited:
        main(["verify", FOUR])
    assert exited.value.code == 3


def test_an_empty_command_word_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exited:
        main([""])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1
    assert "invalid choice: ''" in err and "'solve'" in err and "'verify'" in err, err


def _python_m_pipeline(patch: str, args: list[str], **run) -> subprocess.CompletedProcess:
    """``python -m pipeline ARGS`` in a subprocess, after ``patch`` (Python source) plants a bug."""
    script = textwrap.dedent(patch) + textwrap.dedent("""
        import runpy
        runpy.run_module("pipeline", run_name="__main__", alter_sys=True)
    """)
    environ = {name: value for name, value in os.environ.items() if name != TRACEBACK_VARIABLE}
    environ["PYTHONPATH"] = str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    run.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True, cwd=PROJECT,
                          env=environ, timeout=300, **run)


def test_the_real_command_lines_set_up_bug_is_the_one_line():
    bug = """
        import importlib
        m = importlib.import_module("pipeline.cli.main")
        def boom():
            raise OSError("set-up failed")
        m._stand_in_for_closed_streams = boom
    """
    proc = _python_m_pipeline(bug, ["verify", FOUR])
    assert proc.returncode == INTERNAL_ERROR_EXIT, proc.stderr
    assert proc.stderr == f"internal error: verify: OSError: set-up failed {HINT}\n"


def test_the_real_command_lines_set_up_ctrl_c_is_an_interrupt():
    bug = """
        import importlib
        m = importlib.import_module("pipeline.cli.main")
        def interrupted():
            raise KeyboardInterrupt
        m._stand_in_for_closed_streams = interrupted
    """
    proc = _python_m_pipeline(bug, ["verify", FOUR])
    assert (proc.returncode, proc.stderr) == (130, "interrupted\n")


FULL = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")


@FULL
def test_bad_input_stays_exit_2_when_stderr_is_full():
    with open("/dev/full", "w") as full:
        proc = _python_m_pipeline("", ["verify", BAD], stderr=full)
    assert proc.returncode == 2


def test_bad_input_stays_exit_2_when_the_reader_of_stderr_went_away():
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = _python_m_pipeline("", ["verify", BAD], stderr=write_end)
    finally:
        os.close(write_end)
    assert proc.returncode == 2


@FULL
def test_a_bug_stays_exit_70_when_stderr_is_full():
    bug = """
        from pipeline.cli.commands import verify
        def boom(args):
            raise RuntimeError("boom")
        verify.cmd_verify = boom
    """
    with open("/dev/full", "w") as full:
        proc = _python_m_pipeline(bug, ["verify", FOUR], stderr=full)
    assert proc.returncode == INTERNAL_ERROR_EXIT


def test_no_stop_is_left_half_started(no_traceback, capsys):
    """After a set-up bug the next command runs as usual (begin() resets what the last left)."""
    no_traceback.setattr(cli_main, "_GuardedStdout", _raise(TypeError("no guard")))
    main(["verify", FOUR])
    no_traceback.undo()
    capsys.readouterr()
    assert main(["verify", "1234341221434321"]) == 0
    assert not stops.interrupting()
