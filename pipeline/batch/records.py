"""Input records: one puzzle per line of a text file, or the rows of a CSV/TSV/Parquet table.

A record is ``(puzzle, regions, variant, rules)``, each ``str`` or ``None`` (``rules``: a JSON
list of rule entries as in a puzzle document, from a ``rules`` column; a text line may instead
be a whole puzzle document on one line). Its identity for resume is a
hash per record (:func:`record_hashes`) and one fingerprint of all of them
(:func:`records_fingerprint`), written into ``_batch.json`` and into every part's metadata.
"""
from __future__ import annotations

import csv
import hashlib
import math
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import numpy as np

from formats.files import open_text

from pipeline.core.errors import PipelineError
from pipeline.core.textin import MAX_TEXT_BYTES, size_text
from pipeline.batch.text import one_line

__all__ = ["detect_input_format", "read_records", "records_fingerprint", "record_hashes"]

_UNIT_SEP, _RECORD_SEP = "\x1f", b"\x1e"
#: The input columns a record is read from (any others are ignored).
RECORD_COLUMNS = ("puzzle", "regions", "variant", "rules")
_BOM = "\ufeff"
#: Bytes of a record's hash (blake2b): 2^-64 odds that a foreign row passes as the input's.
RECORD_HASH_BYTES = 8


def detect_input_format(path: str | os.PathLike) -> str:
    """``text``, ``csv`` or ``parquet`` from the file name (``.gz`` ignored).

    Examples
    --------
    >>> detect_input_format("puzzles.tsv.gz"), detect_input_format("p.parquet"), detect_input_format("p.txt")
    ('csv', 'parquet', 'text')
    """
    name = Path(path).name.lower()
    name = name[:-3] if name.endswith(".gz") else name
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith((".csv", ".tsv")):
        return "csv"
    return "text"


def _text_or_none(value) -> str | None:
    """A cell of an input table as text; empty strings, None and NaN mean "not given"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    return text or None


def read_records(path: str | os.PathLike, fmt: str = "auto") -> dict[str, list]:
    """Records of an input file: ``{"puzzle": [...], "regions": [...], "variant": [...], "rules": [...]}``.

    Parameters
    ----------
    path : str or Path
        Text (one puzzle per line, or one puzzle document as JSON on one line; blank lines and
        ``#`` comments are not records), CSV/TSV or Parquet (a ``puzzle`` column, optional
        ``regions``, ``variant`` and ``rules``, a JSON list of rule entries; others ignored).
    fmt : {"auto", "text", "csv", "parquet"}

    Returns
    -------
    dict of str to list
        Values are ``str`` or ``None`` (plain lists: pandas would turn missing text into NaN).

    Raises
    ------
    PipelineError
        The file is missing, unreadable, or has no ``puzzle`` column.
    """
    if str(path) == "-" and not Path(path).exists():
        raise PipelineError("batch: reads its puzzles from a file (text, CSV or Parquet), not standard input ('-'): "
                            "save them to a file first (a rerun resumes from it)")
    path = Path(path)
    if path.is_dir():
        raise PipelineError(f"batch: {str(path)!r} is a directory, not an input file")
    if not path.is_file():
        if path.exists():   # a device or a FIFO: "no such file" named the wrong reason
            raise PipelineError(f"batch: {str(path)!r} is not a regular file (a device, a FIFO or a socket); "
                                f"batch reads regular files")
        if path.is_symlink():
            raise PipelineError(f"batch: {str(path)!r} is a symbolic link that leads nowhere (a loop or a missing file)")
        raise PipelineError(f"batch: no such input file {str(path)!r}")
    fmt = detect_input_format(path) if fmt == "auto" else fmt
    if fmt == "text":
        with open_text(path) as f:
            lines = [line.strip() for line in bounded_lines(f, MAX_TEXT_BYTES)]
        if lines and lines[0].startswith(_BOM):   # as solve and the CSV reader: a BOM is not record 0's
            lines[0] = lines[0][len(_BOM):].strip()
        # a comment is a line that starts with '#'; a '#' later in a line is the record's (an error)
        puzzles = [line for line in lines if line and not line.startswith("#")]
        return {"puzzle": puzzles, "regions": [None] * len(puzzles), "variant": [None] * len(puzzles),
                "rules": [None] * len(puzzles)}
    if fmt not in ("csv", "parquet"):
        raise PipelineError(f"batch: unknown input format {fmt!r}; expected auto, text, csv or parquet")
    import pandas as pd  # only here: text input needs none of its 0.3 s import (batch start-up)

    try:
        if fmt == "csv":
            tsv = path.name.lower().endswith((".tsv", ".tsv.gz"))
            with warnings.catch_warnings():
                # a first row with more fields than the header would become an index and shift
                # every column (index_col=False), and then its extra fields would be dropped with
                # only a warning: a malformed file, refused as any other row of the wrong length is
                warnings.simplefilter("error", pd.errors.ParserWarning)
                try:
                    # bytes that are not UTF-8 become U+FFFD in their own row, which that record's
                    # parse then refuses: an error row, as in a text batch, not a refused file
                    frame = pd.read_csv(path, dtype=str, keep_default_na=False, sep="\t" if tsv else ",",
                                        index_col=False, encoding_errors="replace")
                except pd.errors.ParserError as e:   # a row of another width: an error row, not a lost file
                    _refuse_unclosed_quote(path, "\t" if tsv else ",", e)
                    frame = _csv_with_bad_rows(path, "\t" if tsv else ",")
        else:
            _check_parquet_columns(path)
            frame = pd.read_parquet(path)
    except PipelineError:
        raise
    except pd.errors.ParserWarning:
        raise PipelineError(f"batch: cannot read {str(path)!r} as csv: a row has more fields than the header "
                            "(quote a field that holds the separator)") from None
    except Exception as e:  # pandas/pyarrow raise many types for a bad file
        raise PipelineError(f"batch: cannot read {str(path)!r} as {fmt}: {one_line(e)}") from None
    if "puzzle" not in frame.columns:
        raise PipelineError(f"batch: {str(path)!r} has no 'puzzle' column (columns: {', '.join(map(str, frame.columns))})")
    twice = next((c for c in RECORD_COLUMNS if fmt == "csv" and f"{c}.1" in frame.columns and c in frame.columns), None)
    if twice is not None:   # pandas renames the second 'puzzle' to 'puzzle.1', and the first was read alone
        raise PipelineError(f"batch: {str(path)!r}: column {twice!r} appears twice in the header; name it once")
    out = {}
    for column in RECORD_COLUMNS:
        values = frame[column].tolist() if column in frame.columns else [None] * len(frame)
        out[column] = [_text_or_none(v) for v in values]
    return out


#: Starts the puzzle field of a CSV row that could not be read as one (more fields than the
#: header's), and ends the message that follows: ``BAD_ROW + message + BAD_ROW + the row``.
#: :func:`pipeline.batch.worker.parse_record` answers it with the message as the record's error
#: (the row is an error row, the others are solved); the output's ``puzzle`` shows the row.
BAD_ROW = "\x07"   # not whitespace: fields are stripped


def bad_row_parts(text: object) -> tuple[str, str] | None:
    """``(message, the row as read)`` of a :data:`BAD_ROW` puzzle field, else None.

    Parameters
    ----------
    text : object
        A record's puzzle field.
    """
    if not isinstance(text, str) or not text.startswith(BAD_ROW):
        return None
    message, _, row = text[len(BAD_ROW):].partition(BAD_ROW)
    return message, row


#: How much of a line past the bound its error row keeps.
LONG_LINE_SHOWN = 200


def bounded_lines(stream: TextIO, most: int) -> Iterator[str]:
    """The lines of a text stream, each at most ``most`` characters held: a longer line (a gzip
    bomb of one line, 500 MB in a ``puzzle`` cell) is read through a chunk at a time and becomes
    a :data:`BAD_ROW` record, an error row showing its start, as a puzzle file that long is refused.

    Parameters
    ----------
    stream : io.TextIOBase
        Opened for reading.
    most : int
        Characters a line may hold (:data:`pipeline.core.textin.MAX_TEXT_BYTES`).

    Yields
    ------
    str
    """
    while line := stream.readline(most + 1):
        if len(line) <= most or line.endswith(("\n", "\r")):
            yield line
            continue
        length = len(line)
        while rest := stream.readline(1 << 20):   # the rest of it, never held whole
            length += len(rest)
            if rest.endswith(("\n", "\r")):
                break
        yield (f"{BAD_ROW}text: a line of {length:,} characters, more than a puzzle's {size_text(most)}"
               f"{BAD_ROW}{line[:LONG_LINE_SHOWN]}...")


def puzzle_as_written(text: object) -> str | None:
    """A record's ``puzzle`` as its output row holds it: the field, or the whole row a CSV reader
    could not split (not the reader's marker).

    Parameters
    ----------
    text : object
        A record's puzzle field.
    """
    if text is None:
        return None
    bad = bad_row_parts(text)
    return (str(text) if bad is None else bad[1]).strip()


def _refuse_unclosed_quote(path: Path, sep: str, error: Exception) -> None:
    """One line naming the line where a quoted field opens and never closes. Every row after it
    would be read as part of that field: pandas' row-by-row reader drops them without a word,
    so the file is refused rather than solved in part."""
    found = re.search(r"EOF inside string starting at row (\d+)", str(error))
    if found is None:
        return
    row, line = int(found.group(1)), None   # pandas counts records, the header as 0
    try:
        if row == 0:
            line = 1
        else:
            with open_text(path) as f:
                reader = csv.reader(f, delimiter=sep)
                for k, _ in enumerate(reader, start=1):
                    if k == row:   # the line after the record before it
                        line = reader.line_num + 1
                        break
    except (OSError, csv.Error, UnicodeDecodeError):
        pass
    where = f"line {line}" if line is not None else f"record {row}"
    raise PipelineError(f"batch: cannot read {str(path)!r} as csv: {where}: a quoted field opens there and never "
                        f"closes, so every row after it would be part of it; close the quote or remove it")


def _csv_with_bad_rows(path: Path, sep: str):
    """The CSV read row by row (pandas' Python engine), each row of another width than the header
    kept as a record whose puzzle field says so (:data:`BAD_ROW`)."""
    import pandas as pd

    columns = list(pd.read_csv(path, dtype=str, nrows=0, sep=sep, encoding_errors="replace").columns)
    at = columns.index("puzzle") if "puzzle" in columns else 0

    def bad_row(fields: list[str]) -> list[str]:
        row = [""] * len(columns)
        shown = sep.join(fields)
        row[at] = (f"{BAD_ROW}csv: a row of {len(fields)} fields where the header has {len(columns)} "
                   f"({shown[:60]}{'...' if len(shown) > 60 else ''}); quote a field that holds the separator"
                   f"{BAD_ROW}{shown}")
        return row

    return pd.read_csv(path, dtype=str, keep_default_na=False, sep=sep, index_col=False, engine="python",
                       encoding_errors="replace",
                       on_bad_lines=bad_row)


def _check_parquet_columns(path: Path) -> None:
    """Refuse, in one line, a Parquet input whose ``puzzle``, ``regions`` or ``variant`` column
    does not hold text (an int64 ``puzzle`` would read ``1`` as a 1x1 grid, a binary or list
    column its Python repr)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    for column in RECORD_COLUMNS:
        if column not in schema.names:
            continue
        if schema.names.count(column) > 1:   # pyarrow said "Column puzzle does not exist in schema"
            raise PipelineError(f"batch: {str(path)!r}: column {column!r} appears {schema.names.count(column)} times; "
                                "a record has one of each")
        kind = schema.field(column).type
        value = kind.value_type if pa.types.is_dictionary(kind) else kind
        string_view = getattr(pa.types, "is_string_view", lambda _: False)   # pyarrow 16+
        if not (pa.types.is_string(value) or pa.types.is_large_string(value) or string_view(value)
                or pa.types.is_null(value)):
            raise PipelineError(f"batch: {str(path)!r}: column {column!r} is {kind}, not text: puzzles, regions, "
                                f"variants and rules are strings")


#: Marks a field whose text would otherwise read as a missing one (``None``) or as marked itself.
_LITERAL = "\x1b"


def _field_text(value) -> str:
    """A field as hashed: a missing one is ``None`` (as it always was, so resumes of older runs
    hold); a text that equals ``None`` or starts with the mark gets the mark in front, so the
    text "None" and a missing field no longer hash alike."""
    if value is None:
        return "None"
    text = str(value)
    return _LITERAL + text if text == "None" or text.startswith(_LITERAL) else text


def _record_bytes(records: dict[str, list]):
    rules = records.get("rules") or [None] * len(records["puzzle"])
    for *row, rule in zip(records["puzzle"], records["regions"], records["variant"], rules):
        # a record without rules hashes as before rules existed (a resume of an older run holds)
        yield _UNIT_SEP.join(map(_field_text, row if rule is None else [*row, rule])).encode("utf-8", "replace")


def records_fingerprint(records: dict[str, list]) -> str:
    """SHA-256 of the records (puzzle, regions, variant, rules), so a rerun can tell it is the same input."""
    digest = hashlib.sha256()
    for data in _record_bytes(records):
        digest.update(data + _RECORD_SEP)
    return digest.hexdigest()


def record_hashes(records: dict[str, list]) -> np.ndarray:
    """One 64-bit hash per record (blake2b of its puzzle, regions and variant), as ``uint64``.

    A part stores the hashes of its rows, so a resume can tell a part of this input from one
    copied in from another run even when the indices fit.

    Examples
    --------
    >>> r = {"puzzle": ["1.", "1."], "regions": [None, None], "variant": [None, "x"]}
    >>> h = record_hashes(r)
    >>> h.dtype.name, bool(h[0] != h[1])
    ('uint64', True)
    """
    raw = b"".join(hashlib.blake2b(data, digest_size=RECORD_HASH_BYTES).digest()
                   for data in _record_bytes(records))
    return np.frombuffer(raw, dtype="<u8").copy()
