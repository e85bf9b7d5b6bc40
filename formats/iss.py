"""The puzzle as an ISS constraint string (sigh's Interactive Sudoku Solver): ``puzzle.iss.txt``,
one line, in an export directory (``export --formats iss``) or as the one file ``--to NAME.iss``.

A puzzle format, not a model format: it is written only when named (``Format.in_all`` is False),
so ``--formats all`` never meets a puzzle ISS cannot hold (a layout, a grid past 16x16, a rule
without an ISS type); naming it for such a puzzle is refused in one line naming what.
"""
from __future__ import annotations

import os
from pathlib import Path

from pipeline.core.build import Model
from pipeline.core.errors import FormatError, PuzzleError
from pipeline.core.iss_write import iss_from_puzzle

from formats.base import Format, atomic_open, register

#: The file's name in an export directory.
FILE_NAME = "puzzle.iss.txt"


def iss_text(model: Model) -> str:
    """The ISS string of the model's puzzle, one line with its newline.

    Parameters
    ----------
    model : Model
        The exported model (its ``puzzle``; the convention and clue encoding do not matter).

    Returns
    -------
    str

    Raises
    ------
    FormatError
        The puzzle has no ISS form (one line naming the layout, size, variant or rule).
    """
    try:
        return iss_from_puzzle(model.puzzle, where="iss") + "\n"
    except PuzzleError as e:
        raise FormatError(f"format {e}") from None


def write(model: Model, path: str | os.PathLike) -> None:
    """Write the one-line ISS string of the model's puzzle to ``path`` (atomically; refused
    before the file is opened when the puzzle has no ISS form).

    Parameters
    ----------
    model : Model
        The exported model.
    path : str or Path
        The file (``.gz`` compresses it).
    """
    data = iss_text(model).encode("ascii")
    with atomic_open(path, "wb") as f:
        f.write(data)


def export(model: Model, directory: str | os.PathLike) -> list[Path]:
    """``puzzle.iss.txt`` in ``directory``.

    Parameters
    ----------
    model : Model
        The exported model.
    directory : str or Path
        The (staging) export directory.

    Returns
    -------
    list of Path
    """
    path = Path(directory) / FILE_NAME
    write(model, path)
    return [path]


FORMAT = register(Format("iss", (".iss.txt", ".iss"), "the puzzle as an ISS constraint string (one line)",
                         export=export, write=write, in_all=False, file_names=(FILE_NAME,), cost=0.01, one_file=True, gzip=True))
