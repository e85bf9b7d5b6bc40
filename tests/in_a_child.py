"""One reader's call in a child process, for the tests of files that once crashed the interpreter
(scipy.io on a damaged MAT-file): a crash there fails a test instead of ending the suite."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])


def outcome_in_a_child(statement: str, path: str | os.PathLike) -> str:
    """Run ``statement`` (Python that reads the file ``sys.argv[1]``) in a child process.

    Parameters
    ----------
    statement : str
        One line of Python, its imports included (``from formats import read_model;
        read_model(sys.argv[1])``).
    path : str or path
        The file, passed as ``sys.argv[1]``.

    Returns
    -------
    str
        The FormatError's message, ``read`` when the statement returned, or how the child died.
    """
    code = ("import sys\nfrom pipeline.core.errors import FormatError\n"
            f"try:\n    {statement}\n    print('read')\nexcept FormatError as e:\n    print(e)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120,
                          env=env)
    return done.stdout.strip() if done.returncode == 0 else f"died: {done.returncode} {done.stderr[-300:]}"
