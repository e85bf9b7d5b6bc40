"""The field separator of a CSV input: ``,``, ``;`` (as spreadsheets write CSV in locales whose
decimal mark is a comma) or a tab, told from its header, the one place batch decides it.

A ``.tsv`` is tab-separated. Any other table is split by the separator whose fields of its
header (quoted fields as the csv module reads them) name the ``puzzle`` column; a header that
names it whichever way it is split (``puzzle;a,puzzle``) is refused, as its rows could be read
two ways. A header of one field reads alike every way and is split at ``,``, as it always was;
a header that names no ``puzzle`` column is split at its only separator, so the refusal of a
table with no ``puzzle`` column lists its columns as written.
"""
from __future__ import annotations

import csv
import zlib
from pathlib import Path

from formats.files import open_text

from pipeline.core.errors import FormatError, PipelineError, clip

__all__ = ["SEPARATORS", "header_separator", "table_separator"]

#: The separators a CSV input may use, the default first.
SEPARATORS = (",", ";", "\t")
#: Characters of a header read to tell its separator (no header of record columns is longer).
_HEADER_CHARS = 1 << 16


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
    if path.name.lower().endswith((".tsv", ".tsv.gz")):
        return "\t"
    header = ""
    try:
        with open_text(path) as f:
            for line in iter(lambda: f.readline(_HEADER_CHARS), ""):
                if line.strip():
                    header = line
                    break
    except (FormatError, OSError, EOFError, zlib.error):
        return ","   # the table's reader names what is wrong with the file
    return header_separator(header, repr(str(path))) if header else ","
