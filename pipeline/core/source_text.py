"""The text of a puzzle, grid or regions argument and how messages name it: a literal string, a
file path, or ``-`` for standard input (:func:`read_source`); what kind of thing a path is
(``_path_kind``: a regular file, a directory, a FIFO, a device, nothing), never opening
anything but a regular file. A missing file, a directory or a web link is refused in one line.

:mod:`pipeline.core.parse` reads the text into grids and re-exports :func:`read_source`.
"""
from __future__ import annotations

import math
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.core.cells_text import COMPACT_DIGITS
from pipeline.core.errors import PuzzleError, clip
from pipeline.core.textin import read_stdin, read_text_file

if TYPE_CHECKING:
    from pipeline.core.parse import Source

__all__ = ["MAX_PATH_CHARS", "read_source"]

# a string this long (or with a line break) is puzzle text, never a path: PATH_MAX on Linux
MAX_PATH_CHARS = 4096


def read_source(source: Source, what: str = "grid") -> tuple[str, str]:
    """The text of a puzzle or grid argument and how messages name it: a literal string, a file
    path, or ``-`` for stdin (a missing file, a directory or a web link is one line).

    Parameters
    ----------
    source : str or path
        As :func:`parse_grid` takes (not an array).
    what : str
        How messages name it when it is literal text.

    Returns
    -------
    (str, str)
        The text, and the file's name or ``what``.
    """
    return _read_source(source, what)


def _read_source(source, what: str, limit: int | None = None, why: str = "") -> tuple[str, str]:
    """Return (text, where) for a literal string, a path, or ``-`` for stdin (a file or stdin at
    most ``limit`` bytes, :data:`MAX_TEXT_BYTES` by default; ``why`` ends the message beyond it)."""
    if isinstance(source, Path):
        kind = _path_kind(str(source))
        if kind not in ("file", None):   # as for the same path given as text
            raise PuzzleError(f"{what}: {str(source)!r} is {kind}, not a puzzle file")
        return read_text_file(source, what, limit, why), str(source)
    s = str(source)
    if s == "-":
        return read_stdin(what, limit, why), "<stdin>"
    if not s.strip():   # '' said "no such file ''"
        raise PuzzleError(f"{what}: empty input: expected " + ("region ids" if what == "regions" else f"a {what}"))
    kind = _path_kind(s)
    if kind == "file":
        return read_text_file(Path(s), what, limit, why), s
    # a name that is no square number of cells is not a grid's text (the names below hold no spaces)
    cells = len(s.strip())
    grid_sized = math.isqrt(cells) ** 2 == cells
    if kind is None and len(s) < MAX_PATH_CHARS and _FILE_NAME.fullmatch(s) and (
            not grid_sized or cells <= 81 or what == "regions"):
        # 'nonexist.txt' is also 12 cells of text: name the missing file, not the cell count; so
        # too for a name of a square length where its extension's letters cannot be cells (up to
        # 9x9, digits only) or ids ('.' is no region id): 'nonexistfile.txt' read as 16 region ids
        raise PuzzleError(f"{what}: no such file {s!r}")
    if kind is None and re.fullmatch(r"[A-Za-z_][\w\-]{0,62}", s) and not grid_sized:
        # a short bare word that is no square number of cells: a file name not found ('nonexist')
        raise PuzzleError(f"{what}: no such file {s!r} (and it is not a puzzle string)")
    if kind == "a directory" and not (grid_sized and (what == "regions" or _compact_cells(s.strip()))):
        # 'examples' is not 8 cells, and 'adir' no 2x2 grid's cells
        raise PuzzleError(f"{what}: {s!r} is a directory, not a puzzle file")
    if kind not in (None, "a directory") and _FILE_NAME.fullmatch(s):   # 'fifo.csv' was 8 cells of text
        raise PuzzleError(f"{what}: {s!r} is {kind}, not a puzzle file")
    if "\n" in s or re.fullmatch(r"[0-9A-Za-z.,; \t]+", s.strip() or "/"):
        return s.removeprefix("\ufeff"), what  # puzzle text (a BOM dropped as a file's is), even in a directory '.'
    if kind is None and s.strip() and (not re.search(r"[/\\]", s) or s.lstrip("\ufeff \t").startswith("[")):
        # no path separator and no such file: puzzle text with a stray character (a pasted
        # full-width digit), for the parser to name it and its position; a leading BOM (pasted
        # from a file) is dropped as a file's is; a matrix's '\u0035' or "1/2" is no path either
        return s.removeprefix("\ufeff"), what
    if kind is not None:
        raise PuzzleError(f"{what}: {s!r} is {kind}, not a puzzle file")
    if re.match(r"\s*(https?://|www\.|sudokupad\.app/)", s, re.IGNORECASE):
        # a link that is not an f-puzzles one (those are read above): nothing here can fetch it
        raise PuzzleError(f"{what}: {clip(s, 100)!r} is a web link the pipeline cannot read; of links, it reads "
                          "f-puzzles ones (...?load=N4Ig... or sudokupad.app/fpuzzles...): share a SudokuPad "
                          "short or scl link's puzzle as an f-puzzles link")
    raise PuzzleError(f"{what}: no such file {s!r} (and it is not a puzzle string)")


def _compact_cells(s: str) -> bool:
    """Could ``s`` be a compact line of its square grid's cells ('.', '0' and the grid's digits)?"""
    side = math.isqrt(len(s))
    digits = COMPACT_DIGITS[:side]
    return set(s) <= set(".0" + digits + digits.lower())


#: A file name with one of the extensions the readers know: never a compact puzzle or region line
#: (whose length is a square number of cells), so a missing one is "no such file"; ``.fpz`` and
#: ``.iss`` are the names convert writes (a missing 'p.fpz' said "wrong length ... found 5").
_FILE_NAME = re.compile(r"[\w\-./]+\.(txt|csv|tsv|json|fpuzzles|fpz|iss|parquet|gz|sol|mat)", re.IGNORECASE)


def _path_kind(s: str) -> str | None:
    """``"file"`` for a regular file, a description for another existing path (a directory, a
    FIFO, a device: never opened, so a FIFO cannot block), None when nothing is there."""
    if len(s) >= MAX_PATH_CHARS or "\n" in s:
        return None
    try:
        mode = os.stat(s).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"
