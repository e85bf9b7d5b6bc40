"""The optional extras and the one way a message tells how to install one.

A hint has to be a command that works where the user is: in a checkout (an editable install, as
``make`` makes in ``.venv``) ``pip install '.[fast]'`` would replace the editable install with a
frozen copy, so later edits to the checkout stop taking effect; there the hint is
``.venv/bin/python -m pip install -e '.[fast]'``. An installed wheel gets
``python -m pip install 'sudoku-pipeline[fast]'``. Either way the interpreter is the one running,
so the package lands where it is looked for.
"""
from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

__all__ = ["EXTRAS", "DISTRIBUTION", "install_hint", "checkout_root"]

#: The distribution name on PyPI / in pyproject.toml.
DISTRIBUTION = "sudoku-pipeline"

#: Optional extras and what each adds (pyproject.toml's ``[project.optional-dependencies]``).
#: Everything else, every rule family included, works with the core install.
EXTRAS = {
    "fast": "numba: the dfs engine (batch's and counting's fastest engine on grids up to 16x16)",
    "cpsat": "OR-Tools CP-SAT (--solver cpsat)",
    "plot": "matplotlib: draw's PNG and PDF, spy and report",
    "dask": "dask[distributed]: batch --engine dask",
    "progress": "tqdm: progress bars (batch and generate print log lines without it)",
    "test": "the test suite's tools and interop solvers (pytest, hypothesis, pyscipopt, pulp, Jupyter)",
    "lint": "ruff, import-linter and mypy",
}


@functools.cache
def checkout_root() -> Path | None:
    """The source checkout this package runs from (its ``pyproject.toml`` names this
    distribution), or None when it is an installed copy (a wheel).

    Returns
    -------
    pathlib.Path or None
    """
    root = Path(__file__).resolve().parents[2]
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return root if f'name = "{DISTRIBUTION}"' in text else None


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it lies inside it (shorter to type), but
    not from the filesystem's root, where ``tmp/v/bin/python`` reads as a typo for ``/tmp/...``."""
    try:
        cwd = Path.cwd()
        if cwd == Path(cwd.anchor):
            return str(path)
        return os.path.relpath(path) if cwd in path.parents or path == cwd else str(path)
    except (OSError, ValueError):
        return str(path)


def install_hint(extra: str | None) -> str:
    """The command that installs ``extra`` (None: the core dependencies) the way this package
    was installed.

    Parameters
    ----------
    extra : str or None
        A key of :data:`EXTRAS`, or None for the core dependencies.

    Returns
    -------
    str
        E.g. ``.venv/bin/python -m pip install -e '.[fast]'`` in a checkout,
        ``python -m pip install 'sudoku-pipeline[fast]'`` for an installed wheel.

    Examples
    --------
    >>> "[plot]" in install_hint("plot")
    True
    """
    python = _shown(Path(sys.executable)) if sys.executable else "python"
    if python == Path(sys.executable).name:
        python = f"./{python}"
    suffix = f"[{extra}]" if extra else ""
    root = checkout_root()
    if root is not None:
        target = "." if Path.cwd() == root else str(root)
        return f"{python} -m pip install -e '{target}{suffix}'"
    return f"{python} -m pip install '{DISTRIBUTION}{suffix}'"
