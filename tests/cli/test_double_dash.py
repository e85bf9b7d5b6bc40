"""``--`` on the command line: before the command it ends the top-level options (``sudoku-pipeline
-- solve X`` runs ``solve X``; argparse of Python < 3.12 took ``--`` for the command, "invalid
choice: '--'"), after it the command's own (``solve -- -p.txt`` reads the file ``-p.txt``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli.main import main

PROJECT = Path(__file__).resolve().parents[2]

# from the data sets' reference answers (computed by a SAT solver, not by this project)
PUZZLE = "...2.5....9....73...2..9.6.2.....4.9....7....6.9.....1.8.4..1...63....8....6.8..."
SOLUTION = "378265914596814732142739568217386459854971623639542871785423196463197285921658347"


def _call(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "words",
    [
        ["--", "solve", "--format", "line", "p.txt"],
        ["--", "solve", "p.txt", "--format", "line"],  # the command's options are still its own
        ["solve", "--format", "line", "--", "-p.txt"],  # a file whose name begins with '-'
        ["--", "solve", "--format", "line", "--", "-p.txt"],
    ],
)
def test_double_dash_before_and_after_the_command(capsys, monkeypatch, tmp_path, words):
    monkeypatch.chdir(tmp_path)
    for name in ("p.txt", "-p.txt"):
        Path(name).write_text(PUZZLE + "\n")
    assert _call(capsys, *words) == (0, SOLUTION + "\n", "")


def test_double_dash_then_an_option_is_refused_in_one_line(capsys):
    for words in (["--", "--version"], ["--", "--", "solve", PUZZLE]):
        with pytest.raises(SystemExit) as stop:
            main(words)
        _, err = capsys.readouterr()
        assert stop.value.code == 2
        assert err.count("\n") == 1 and "after '--' comes a command, not" in err and "invalid choice: '--'" not in err


def test_a_lone_double_dash_asks_for_the_command(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--"])
    assert stop.value.code == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err


def test_double_dash_on_the_real_command_line(tmp_path):
    """``python -m pipeline -- solve -- -p.txt`` in a subprocess (``main()`` reads ``sys.argv``)."""
    (tmp_path / "-p.txt").write_text(PUZZLE + "\n")
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "--", "solve", "--format", "line", "--", "-p.txt"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, SOLUTION + "\n", "")
