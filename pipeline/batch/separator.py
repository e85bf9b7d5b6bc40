"""The field separator of a CSV input: ``,``, ``;`` (as spreadsheets write CSV in locales whose
decimal mark is a comma) or a tab, told from its header, the one place batch decides it.

A ``.tsv`` is tab-separated. Any other table is split by the separator whose fields of its
header (quoted fields as the csv module reads them) name the ``puzzle`` column; a header that
names it whichever way it is split (``puzzle;a,puzzle``) is refused, as its rows could be read
two ways. A header of one field reads alike every way and is split at ``,``, as it always was;
a header that names no ``puzzle`` column is split at its only separator, so the refusal of a
table with no ``puzzle`` column lists its columns as written.

A table whose header is written with one separator and its rows with another (``puzzle;id`` over
rows ``...,7``) is refused as a whole, naming both: when none of its first rows
(:data:`_SAMPLE_ROWS`) has the header's fields at the header's separator and most of them have that
many at another one. A row of another width among rows that fit stays that row's error.
"""
from __future__ import annotations

import csv
import zlib
from pathlib import Path
from typing import TextIO

from formats.files import open_text

from pipeline.core.errors import FormatError, PipelineError, clip

__all__ = ["SEPARATORS", "header_separator", "refuse_other_row_separator", "table_separator"]

#: The separators a CSV input may use, the default first.
SEPARATORS = (",", ";", "\t")
#: Characters of a header read to tell its separator (no header of record columns is longer).
_HEADER_CHARS = 1 << 16
#: Rows after the header, and characters in all, read to tell whether the rows use the header's
#: separator (the rows of a table all use one: its first ones tell).
_SAMPLE_ROWS, _SAMPLE_CHARS = 1000, 1 << 20


def header_separator(header: str, where: str = "csv") -> str:
    """The separator of a table whose first line is ``header``.

    Parameters
    ----------
    header : str
        The table's first non-blank line (a byte-order mark is dropped).
    where : str
        How a refusal names the table.

    Returns
    -------
    str
        One of :data:`SEPARATORS`.

    Raises
    ------
    PipelineError
        The header names a ``puzzle`` column when split at more than one separator.

    Examples
    --------
    >>> header_separator("puzzle;solution"), header_separator("id,puzzle"), header_separator("puzzle")
    (';', ',', ',')
    >>> header_separator('"a;b",puzzle'), header_separator("puzzles;variant")
    (',', ';')
    """
    header = header.lstrip("\ufeff").rstrip("\r\n")
    naming = []
    for sep in SEPARATORS:
        try:
            fields = next(csv.reader([header], delimiter=sep, quotechar='"', doublequote=True), [])
        except csv.Error:
            continue
        if len(fields) > 1 and "puzzle" in (f.strip().lower() for f in fields):
            naming.append(sep)
    if len(naming) > 1:
        shown = " and ".join(repr(sep) for sep in naming)
        raise PipelineError(f"batch: {where}: cannot tell its separator: its header {clip(repr(header), 60)} names a "
                            f"'puzzle' column split at {shown}; quote the names that hold the other")
    if naming:
        return naming[0]
    present = [sep for sep in SEPARATORS if sep in header]
    return present[0] if len(present) == 1 else ","


def table_separator(path: str | Path) -> str:
    """The separator of the CSV or TSV file at ``path`` (gzipped or not): tab for a ``.tsv``,
    else :func:`header_separator` of its first non-blank line (``,`` for an empty file).

    Parameters
    ----------
    path : str or Path
        The input table.

    Returns
    -------
    str
        One of :data:`SEPARATORS`.

    Raises
    ------
    PipelineError
        As :func:`header_separator`; a file that cannot be opened is left to the table's reader.
    """
    path = Path(path)
    header, rows = "", list[str]()
    try:
        with open_text(path) as f:
            for line in iter(lambda: f.readline(_HEADER_CHARS), ""):
                if line.strip():
                    header = line
                    break
            rows = _first_rows(f)
    except (FormatError, OSError, EOFError, zlib.error):
        return ","   # the table's reader names what is wrong with the file
    where = repr(str(path))
    if path.name.lower().endswith((".tsv", ".tsv.gz")):
        sep = "\t"
    else:
        sep = header_separator(header, where) if header else ","
    if header:
        refuse_other_row_separator(header, rows, sep, where)
    return sep


def _first_rows(stream: TextIO) -> list[str]:
    """The next :data:`_SAMPLE_ROWS` lines of ``stream`` (at most :data:`_SAMPLE_CHARS`
    characters in all; a line longer than :data:`_HEADER_CHARS` ends them)."""
    rows: list[str] = []
    size = 0
    while len(rows) < _SAMPLE_ROWS and size < _SAMPLE_CHARS:
        line = stream.readline(_HEADER_CHARS)
        if not line or (len(line) == _HEADER_CHARS and not line.endswith(("\n", "\r"))):
            break
        rows.append(line)
        size += len(line)
    return rows


def _field_counts(lines: list[str], sep: str) -> list[int] | None:
    """Fields of each non-blank record of ``lines`` split at ``sep`` (quoted fields as the csv
    module reads them), or None when the csv module refuses them."""
    try:
        return [len(fields) for fields in csv.reader(lines, delimiter=sep, quotechar='"', doublequote=True) if fields]
    except csv.Error:
        return None


def refuse_other_row_separator(header: str, rows: list[str], sep: str, where: str = "csv") -> None:
    """Refuse a table whose header is split at ``sep`` and whose rows at another separator: none
    of ``rows`` has the header's fields at ``sep`` (two or more) and more than half have that
    many at another of :data:`SEPARATORS`. Each of its records was an error row ("bad character
    ','", or its id and puzzle read as one field); a row of another width among rows that fit
    stays that row's error.

    Parameters
    ----------
    header : str
        The table's first non-blank line.
    rows : list of str
        Lines that follow it (the table's first rows).
    sep : str
        The separator told from the header.
    where : str
        How the refusal names the table.

    Raises
    ------
    PipelineError
        The rows are split at another separator than the header.

    Examples
    --------
    >>> refuse_other_row_separator("puzzle;id", ["1.3,7", "..4,8"], ";", "'t.csv'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pipeline.core.errors.PipelineError: batch: 't.csv': its header 'puzzle;id' is split at ';' but its rows at ','...
    """
    header = header.lstrip("\ufeff").rstrip("\r\n")
    width = (_field_counts([header], sep) or [0])[0]
    counts = _field_counts(rows, sep)
    if width < 2 or not counts or width in counts:
        return
    for other in SEPARATORS:
        fit = sum(n == width for n in (_field_counts(rows, other) or [])) if other != sep else 0
        if 2 * fit > len(counts):
            # "its only row", not "its first 1 rows"
            sample = "its only row" if len(counts) == 1 else f"its first {len(counts)} rows"
            none = "it has not" if len(counts) == 1 else "none has"
            have = "it has" if len(counts) == 1 else f"{fit} have"
            raise PipelineError(f"batch: {where}: its header {clip(repr(header), 60)} is split at {sep!r} but its rows "
                                f"at {other!r} ({sample}: {none} the header's {width} fields at {sep!r}, {have} "
                                f"them at {other!r}); write the header and the rows with one separator")
