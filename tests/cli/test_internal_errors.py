"""An exception the command line does not expect is a bug: one ``internal error: ...`` line on
stderr and exit 70 (sysexits' EX_SOFTWARE), never a traceback and never exit 1, which says "no
solution". With ``SUDOKU_PIPELINE_TRACEBACK=1`` it propagates as before, traceback and all.

No command has a legitimate way to fail like this, so the bug is planted: a command's function
(or, for export, the writer its forked children run) replaced by one that raises, in this process
with monkeypatch, or in a subprocess by a ``python -c`` that patches it and then runs the
``pipeline`` module as ``python -m pipeline`` would.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pipeline.cli.commands import verify
from pipeline.cli.main import INTERNAL_ERROR_EXIT, SIGPIPE_EXIT, TRACEBACK_VARIABLE, main
from pipeline.core import stops

PROJECT = Path(__file__).resolve().parents[2]
FOUR = "." * 16   # the empty 4x4
HINT = f"(a bug; set {TRACEBACK_VARIABLE}=1 to see the traceback)"


def _boom(args):
    raise RuntimeError("boom\nsecond")


@pytest.fixture
def planted(monkeypatch):
    """``verify`` raises a RuntimeError with a line break in its message."""
    monkeypatch.delenv(TRACEBACK_VARIABLE, raising=False)
    monkeypatch.setattr(verify, "cmd_verify", _boom)
    return monkeypatch


def test_a_bug_is_one_line_and_its_own_exit_code(planted, capsys):
    code = main(["verify", FOUR])
    out, err = capsys.readouterr()
    assert code == INTERNAL_ERROR_EXIT == 70
    assert err == f"internal error: verify: RuntimeError: boom\\nsecond {HINT}\n"
    assert "Traceback" not in err and out == ""


def test_the_exit_code_is_no_other_outcomes():
    """0 success, 1 a negative answer, 2 bad input or lost output, 130 interrupted, 141 a reader
    that went away: a bug must be told apart from each."""
    assert INTERNAL_ERROR_EXIT not in (0, 1, 2, 130, SIGPIPE_EXIT)


def test_a_long_message_stays_one_bounded_line(planted, capsys):
    def long_boom(args):
        raise ValueError("x" * 5000 + "\r\n" + "word " * 2000)

    planted.setattr(verify, "cmd_verify", long_boom)
    assert main(["verify", FOUR]) == INTERNAL_ERROR_EXIT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("internal error: verify: ValueError: xxx") and err.endswith(
        f"{HINT}\n")
    assert len(err) < 600, len(err)


def test_a_message_that_cannot_be_read_still_gets_its_line(planted, capsys):
    class Unprintable(Exception):
        def __str__(self):
            raise TypeError("no text")

    def raise_it(args):
        raise Unprintable()

    planted.setattr(verify, "cmd_verify", raise_it)
    assert main(["verify", FOUR]) == INTERNAL_ERROR_EXIT
    assert capsys.readouterr().err.startswith("internal error: verify: Unprintable: (its message could not be read)")


def test_an_empty_message_names_the_type_alone(planted, capsys):
    def raise_it(args):
        raise AssertionError

    planted.setattr(verify, "cmd_verify", raise_it)
    assert main(["verify", FOUR]) == INTERNAL_ERROR_EXIT
    assert capsys.readouterr().err == f"internal error: verify: AssertionError {HINT}\n"


@pytest.mark.parametrize("value", ["1", "yes"])
def test_the_variable_lets_the_traceback_through(planted, capsys, value):
    planted.setenv(TRACEBACK_VARIABLE, value)
    with pytest.raises(RuntimeError, match="boom"):
        main(["verify", FOUR])
    assert "internal error" not in capsys.readouterr().err


@pytest.mark.parametrize("value", ["", "0"])
def test_the_variable_empty_or_zero_keeps_the_line(planted, capsys, value):
    planted.setenv(TRACEBACK_VARIABLE, value)
    assert main(["verify", FOUR]) == INTERNAL_ERROR_EXIT
    assert capsys.readouterr().err.startswith("internal error: verify: RuntimeError: boom")


def test_an_interrupt_turned_into_another_error_is_still_an_interrupt(planted, capsys):
    """A C extension that met Ctrl-C may raise its own error: that is ``interrupted``, 130."""
    def interrupted(args):
        stops.shutdown_started()   # what a Ctrl-C under a command's own handler sets
        raise ImportError("initialization failed")

    planted.setattr(verify, "cmd_verify", interrupted)
    assert main(["verify", FOUR]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def _python_m_pipeline(patch: str, args: list[str], **env: str) -> subprocess.CompletedProcess:
    """``python -m pipeline ARGS`` in a subprocess, after ``patch`` (Python source) plants a bug."""
    script = textwrap.dedent(patch) + textwrap.dedent("""
        import runpy
        runpy.run_module("pipeline", run_name="__main__", alter_sys=True)
    """)
    environ = {name: value for name, value in os.environ.items() if name != TRACEBACK_VARIABLE}
    environ.update(env, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=PROJECT,
                          env=environ, timeout=300)


VERIFY_BUG = """
    from pipeline.cli.commands import verify
    def boom(args):
        raise RuntimeError("boom\\nsecond")
    verify.cmd_verify = boom
"""


def test_the_real_command_line_shows_the_one_line():
    proc = _python_m_pipeline(VERIFY_BUG, ["verify", FOUR])
    assert proc.returncode == INTERNAL_ERROR_EXIT, proc.stderr
    assert proc.stderr == f"internal error: verify: RuntimeError: boom\\nsecond {HINT}\n"
    assert proc.stdout == ""


def test_the_real_command_line_shows_the_traceback_when_asked():
    proc = _python_m_pipeline(VERIFY_BUG, ["verify", FOUR], **{TRACEBACK_VARIABLE: "1"})
    assert proc.returncode == 1, proc.stderr    # Python's own exit for an uncaught exception
    assert "Traceback" in proc.stderr and proc.stderr.rstrip().endswith("RuntimeError: boom\nsecond")


def test_a_bug_in_exports_forked_writer_is_the_one_line_in_the_parent(tmp_path):
    """export writes its formats in forked children: a child's unexpected error comes back to the
    parent and ends there as the one line, the partial export removed."""
    bug = """
        import os
        from formats import directory
        parent, write = os.getpid(), directory._write_formats
        def in_children(*a, **k):
            if os.getpid() != parent:
                raise RuntimeError("child boom")
            return write(*a, **k)
        directory._write_formats = in_children
    """
    out = tmp_path / "out"
    proc = _python_m_pipeline(bug, ["export", FOUR, "--to", str(out), "--workers", "2", "--formats", "csv,lp"])
    assert proc.returncode == INTERNAL_ERROR_EXIT, proc.stderr
    assert proc.stderr == f"internal error: export: RuntimeError: child boom {HINT}\n"
    assert not out.exists()
