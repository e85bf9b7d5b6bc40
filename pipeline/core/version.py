"""The package's version, one source of truth: the installed distribution's metadata.

The version is written once, in ``pyproject.toml``; an installed wheel (or editable install)
carries it in its metadata, which :data:`__version__` reads. A checkout that was never installed
(``PYTHONPATH=. python -m pipeline``) has no metadata, so the version is then read from the
checkout's own ``pyproject.toml``; only when neither exists is it ``0+unknown``.
"""
from __future__ import annotations

import re
from pathlib import Path

#: The distribution name in ``pyproject.toml`` (``pip install sudoku-pipeline``).
DISTRIBUTION = "sudoku-pipeline"

#: What the version is when neither the metadata nor a checkout's pyproject.toml says it.
UNKNOWN_VERSION = "0+unknown"

# pyproject.toml's [project] table: name and version are plain "key = 'value'" lines
_PROJECT_TABLE = re.compile(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", re.M | re.S)
_KEY = r'^{}\s*=\s*["\']([^"\']+)["\']\s*$'


def _checkout_version(pyproject: Path) -> str | None:
    """The ``[project]`` version of ``pyproject`` if it is this distribution's, else None."""
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return None
    table = _PROJECT_TABLE.search(text)
    if table is None:
        return None
    name = re.search(_KEY.format("name"), table.group(1), re.M)
    version = re.search(_KEY.format("version"), table.group(1), re.M)
    if name is None or version is None or name.group(1) != DISTRIBUTION:
        return None
    return version.group(1)


def package_version() -> str:
    """The version of sudoku-pipeline that is running.

    Returns
    -------
    str
        The installed distribution's version (``importlib.metadata``); for a checkout that is not
        installed, the version in its ``pyproject.toml``; else :data:`UNKNOWN_VERSION`.

    Examples
    --------
    >>> import pipeline
    >>> package_version() == pipeline.__version__
    True
    """
    from importlib import metadata  # here, not at the top: it costs a command ~25 ms of start-up

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    # pipeline/core/version.py -> the checkout's root holds pyproject.toml
    return _checkout_version(Path(__file__).resolve().parents[2] / "pyproject.toml") or UNKNOWN_VERSION


def __getattr__(name: str) -> str:
    """``__version__``: the running package's version, e.g. ``"0.1.0"`` (also
    ``pipeline.__version__``), read on first use rather than on import (PEP 562), so a command
    that never prints it does not pay for reading the metadata; then kept as a module global,
    which later lookups find without coming here."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()["__version__"] = version = package_version()
    return version


def __dir__() -> list[str]:
    """The module's names with ``__version__`` (provided by :func:`__getattr__`)."""
    return sorted({*globals(), "__version__"})

__all__ = ["DISTRIBUTION", "UNKNOWN_VERSION", "__version__", "package_version"]  # noqa: F822  (__getattr__)
