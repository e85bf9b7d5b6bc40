"""What the command-line tests share (tests/cli/test_cli*.py): the puzzles with known answers, running
``python -m pipeline`` in a subprocess or ``pipeline.cli.main`` in process, reading a printed grid, the
one-error-line check and the list of subcommands (moved from test_cli.py when it was split).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from pipeline.cli.main import build_parser, main


PROJECT = Path(__file__).resolve().parents[2]

# from the data sets' reference answers (computed by a SAT solver, not by this project)
PUZZLE = "...2.5....9....73...2..9.6.2.....4.9....7....6.9.....1.8.4..1...63....8....6.8..."
SOLUTION = "378265914596814732142739568217386459854971623639542871785423196463197285921658347"
NO_SOLUTION = "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4."  # tdoku, 0
THREE_SOLUTIONS = "8.........95.......67.........472968...913245...856137....9.716...6.8492......583"  # tdoku, 3

CORE_COMMANDS = ["solve", "count", "build", "export", "import", "verify"]


def _env():
    """The environment of a subprocess that imports this checkout's packages."""
    return dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def run(*args, input=None, cwd=None):
    """``python -m pipeline ARGS`` in a subprocess -> (exit code, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "pipeline", *map(str, args)], input=input, capture_output=True,
                          text=True, cwd=cwd or PROJECT, env=_env(), timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def call(capsys, *args):
    """``pipeline.cli.main(ARGS)`` in process -> (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def parse_printed_grid(text: str) -> np.ndarray:
    """Read a grid printed with box separators, independently of the project's parser."""
    rows = []
    for line in text.strip().splitlines():
        if set(line.strip()) <= set("-+"):
            continue
        rows.append([int(t) for t in line.replace("|", " ").split()])
    return np.array(rows)


def assert_one_error_line(code, out, err, startswith="error: "):
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and "Traceback" not in out
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(startswith), err
    return lines[0]


def subcommands():
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return list(action.choices)
