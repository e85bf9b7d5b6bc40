"""Pictures out: matplotlib imported lazily and headless (Agg, a fixed SVG hash salt), a picture
file's format from its suffix, the figure written deterministically and atomically, and where
the ``wrote FILE`` line goes. ``draw``, ``spy`` and ``report`` share these. Split from
:mod:`pipeline.tools.draw` (which re-exports every name, as the commands import them from there)
to keep that module under the 800-line limit.
"""
from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TextIO

from formats.files import atomic_open, is_special_file, refuse_directory_name, write_failure
from pipeline.core.errors import PipelineError
from pipeline.core.extras import install_hint

if TYPE_CHECKING:  # annotations only: matplotlib is imported lazily
    from matplotlib.figure import Figure

__all__ = ["FORMATS", "figure_format", "load_matplotlib", "said_to", "save_figure", "write_figure"]

FORMATS = ("svg", "png", "pdf")


def load_matplotlib(command: str = "drawing") -> ModuleType:
    """Import matplotlib with the headless Agg backend.

    Parameters
    ----------
    command : str
        What needs it, for the error message (``draw``, ``spy``, ``report``).

    Returns
    -------
    module
        ``matplotlib.pyplot``.

    Raises
    ------
    PipelineError
        One line naming the ``plot`` extra when matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        raise PipelineError(f"{command} needs matplotlib (the plot extra): {install_hint('plot')}") from None
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "sudoku-pipeline"
    import matplotlib.pyplot as plt
    return plt


def write_figure(fig: Figure, path: str | os.PathLike) -> Path:
    """:func:`save_figure`, then close ``fig``: the commands' last step (``main()`` may be
    called many times in one process, and open figures would pile up).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (closed afterwards).
    path : str or Path
        ``.svg``, ``.png`` or ``.pdf``.
    """
    try:
        return save_figure(fig, path)
    finally:
        load_matplotlib().close(fig)


def figure_format(path: str | os.PathLike) -> str:
    """The picture format of ``path``'s suffix, one of :data:`FORMATS`. The commands ask before
    anything else, matplotlib's import included: on the core install ``draw --to x.xyz`` said
    that draw needs matplotlib, not that ``.xyz`` is no picture format.

    Parameters
    ----------
    path : str or Path
        The file ``--to`` names.

    Returns
    -------
    str

    Raises
    ------
    PipelineError
        When the suffix is not one of svg, png, pdf (a device or pipe without a suffix: svg),
        or the path is empty.
    """
    refuse_directory_name(path)   # before Path() drops the slash
    if not str(path):   # an unset shell variable: Path("") is ".", and the error named --to .
        raise PipelineError("--to: empty path; name a picture file (.svg, .png or .pdf)")
    if str(path) == "-":   # export's and convert's standard output: a picture takes it by name
        raise PipelineError("--to -: a picture goes to a file (.svg, .png or .pdf); for standard output give "
                            "--to /dev/stdout (SVG)")
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if not path.suffix and is_special_file(path):   # /dev/stdout, a pipe: SVG, text a terminal can take
        return "svg"
    if fmt not in FORMATS:
        found = f"unknown picture format {path.suffix!r}" if path.suffix else "no format suffix"
        raise PipelineError(f"--to {path}: {found}; the file name must end in .svg, .png or .pdf "
                            "(a device or pipe without one gets SVG)")
    return fmt


def said_to(target: str | os.PathLike) -> TextIO:
    """Where a command's ``wrote FILE`` line goes: standard error when the picture went to a
    device, pipe or descriptor link (``--to /dev/stdout``: the line would follow the picture).

    Parameters
    ----------
    target : str or Path
        The file ``--to`` names.

    Returns
    -------
    file
    """
    return sys.stderr if is_special_file(target) else sys.stdout


def save_figure(fig: Figure, path: str | os.PathLike) -> Path:
    """Write ``fig`` to ``path`` (format from the suffix) deterministically and atomically.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    path : str or Path
        ``.svg``, ``.png`` or ``.pdf``.

    Raises
    ------
    PipelineError
        When the suffix is not one of svg, png, pdf.
    """
    fmt = figure_format(path)   # as given: Path() drops a trailing slash, which it refuses
    path = Path(path)
    metadata = {"svg": {"Date": None, "Creator": None}, "pdf": {"CreationDate": None, "ModDate": None, "Creator": None,
                                                                 "Producer": None},
                "png": {"Software": None}}[fmt]
    folder = path.parent if str(path.parent) else Path(".")
    # a missing directory is made, as every other command's output's is (atomic_open); a file
    # standing where a directory is named is refused before the drawing
    if not folder.is_dir() and (folder.exists() or any(p.exists() and not p.is_dir() for p in folder.parents)):
        raise write_failure(path, NotADirectoryError(20, "Not a directory"))
    # drawn in memory, then written: matplotlib's PDF writer, when a write fails mid-stream (a
    # full disk, /dev/full), raises an AttributeError from its close() over the OSError
    picture = io.BytesIO()
    fig.savefig(picture, format=fmt, metadata=metadata, bbox_inches="tight", dpi=110)
    with atomic_open(path, "wb") as f:
        f.write(picture.getbuffer())
    return path
