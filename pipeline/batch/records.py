"""Input records: one puzzle per line of a text file, or the rows of a CSV/TSV/Parquet table.

A record is ``(puzzle, regions, variant, rules)``, each ``str`` or ``None`` (``rules``: a JSON
list of rule entries as in a puzzle document, from a ``rules`` column; a text line may instead
be a whole puzzle document on one line); a table's ``id`` column, the record's name, is read
beside it (:data:`ID_COLUMN`), as is a text line's puzzle document's ``"id"``. Text and CSV input is UTF-8: UTF-16 or UTF-32 is
refused in one line, and a text line holding other bytes is its record's error row naming the
byte and its offset. Its identity for resume is a
hash per record (:func:`record_hashes`) and one fingerprint of all of them
(:func:`records_fingerprint`), written into ``_batch.json`` and into every part's metadata.
"""
from __future__ import annotations

import codecs
import csv
import hashlib
import io
import itertools
import json
import math
import os
import re
import warnings
import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Protocol, TextIO, cast

import numpy as np

from formats.files import arrow_target, open_binary, open_text

from pipeline.core import stops
from pipeline.core.errors import DuplicateKey, PipelineError, clip, json_kind, loads_keys_once, some_of
from pipeline.core.limits import MAX_BYTES_ENV, memory_limit
from pipeline.core.textin import BINARY_HEAD, GZIP_MAGIC, MAX_TEXT_BYTES, binary_kind, size_text
from pipeline.batch.separator import table_separator
from pipeline.batch.text import one_line

__all__ = ["detect_input_format", "read_records", "records_fingerprint", "record_hashes"]

_UNIT_SEP, _RECORD_SEP = "\x1f", b"\x1e"
#: The input columns a record is read from (any others are ignored).
RECORD_COLUMNS = ("puzzle", "regions", "variant", "rules")
#: The input column of a record's name, carried as it is to the output's ``id`` column (text; an
#: integer column of a Parquet input as its digits). Not part of a record's identity for resume
#: (:func:`record_hashes`): it labels the record, it does not change what is solved.
ID_COLUMN = "id"
_BOM = "\ufeff"
#: Byte-order marks of text batch does not read, longest first (UTF-32 LE starts as UTF-16 LE's).
_OTHER_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
               (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))
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


def _document_ids(puzzles: list[str]) -> list[str | None]:
    """The ``"id"`` of each puzzle document line (text, or an integer's digits; None where there is
    none), taken out of the record in place: it labels the record as a table's ``id`` column does,
    and is neither a key of the document nor part of the record's identity. A line whose id is of
    another type becomes a :data:`BAD_ROW` record; a line that is no JSON object is left to its parse."""
    ids: list[str | None] = [None] * len(puzzles)
    for k, line in enumerate(puzzles):
        if not (line.startswith("{") and f'"{ID_COLUMN}"' in line):   # no parse of a line without one
            continue
        try:
            doc = loads_keys_once(line)
        except (ValueError, RecursionError, DuplicateKey):   # its own message from its parse
            continue
        if not isinstance(doc, dict) or ID_COLUMN not in doc:
            continue
        value = doc.pop(ID_COLUMN)
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            puzzles[k] = (f"{BAD_ROW}text: the document's {ID_COLUMN!r} must be a string or an integer, found "
                          f"{json_kind(value)}{BAD_ROW}{line}")
            continue
        ids[k] = _text_or_none(value)
        puzzles[k] = json.dumps(doc, ensure_ascii=False)
    return ids


def _text_or_none(value) -> str | None:
    """A cell of an input table as text; empty strings, None and NaN mean "not given"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():   # an integer id column with a null reads as float64
        return str(int(value))
    text = str(value).strip()
    return text or None


def read_records(path: str | os.PathLike, fmt: str = "auto") -> dict[str, list]:
    """Records of an input file: ``{"puzzle": [...], "regions": [...], "variant": [...], "rules": [...], "id": [...]}``.

    Parameters
    ----------
    path : str or Path
        Text (one puzzle per line, or one puzzle document as JSON on one line; blank lines and
        ``#`` comments are not records), CSV/TSV or Parquet (a ``puzzle`` column, optional
        ``regions``, ``variant`` and ``rules``, a JSON list of rule entries, and ``id``, the
        record's name, text or a Parquet integer column; others ignored).
    fmt : {"auto", "text", "csv", "parquet"}

    Returns
    -------
    dict of str to list
        Values are ``str`` or ``None`` (plain lists: pandas would turn missing text into NaN);
        ``id`` is None for a table without an ``id`` column and for a text line that is no puzzle
        document with an ``"id"`` (:func:`_document_ids`).
        A text input also has ``line``: each record's line in the file (1-based; comments and
        blank lines are not records, so a record's index is not its line).

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
    if fmt in ("text", "csv"):
        _refuse_other_encodings(path)
    if fmt == "text":
        puzzles, numbers = _text_puzzles(path)
        return {"puzzle": puzzles, "regions": [None] * len(puzzles), "variant": [None] * len(puzzles),
                "rules": [None] * len(puzzles), "id": _document_ids(puzzles), "line": numbers}
    if fmt not in ("csv", "parquet"):
        raise PipelineError(f"batch: unknown input format {fmt!r}; expected auto, text, csv or parquet")
    import pandas as pd  # only here: text input needs none of its 0.3 s import (batch start-up)

    most = memory_limit() // RECORD_BYTES   # records held at once: pandas is stopped past them
    try:
        if fmt == "csv":
            sep = table_separator(path)
            with warnings.catch_warnings():
                # a first row with more fields than the header would become an index and shift
                # every column (index_col=False), and then its extra fields would be dropped with
                # only a warning: a malformed file, refused as any other row of the wrong length is
                warnings.simplefilter("error", pd.errors.ParserWarning)
                try:
                    # bytes that are not UTF-8 become U+FFFD in their own row, which that record's
                    # parse then refuses: an error row, as in a text batch, not a refused file
                    frame = pd.read_csv(path, dtype=str, keep_default_na=False, sep=sep,
                                        compression=_compression(path), nrows=most + 1,
                                        index_col=False, encoding_errors="replace")
                except pd.errors.EmptyDataError:   # no bytes at all: no records, as an empty text file has
                    frame = pd.DataFrame({"puzzle": pd.Series([], dtype=str)})
                except pd.errors.ParserError as e:   # a row of another width: an error row, not a lost file
                    _refuse_unclosed_quote(path, sep, e)
                    with _csv_field_limit(MAX_TEXT_BYTES):
                        # the row reader drops a row its csv module refuses without a word
                        _refuse_what_the_row_reader_drops(path, sep)
                        frame = _csv_with_bad_rows(path, sep)
        else:
            _check_parquet_columns(path, most)
            with arrow_target(path) as source:
                frame = pd.read_parquet(source)
    except PipelineError:
        raise
    except pd.errors.ParserWarning:
        raise PipelineError(f"batch: cannot read {str(path)!r} as csv: a row has more fields than the header "
                            "(quote a field that holds the separator)") from None
    except Exception as e:  # pandas/pyarrow raise many types for a bad file
        stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
        raise PipelineError(f"batch: cannot read {str(path)!r} as {fmt}: {one_line(e)}") from None
    if len(frame) > most:
        refuse_too_many_records(path, len(frame))
    frame = frame.rename(columns=record_column_names(frame.columns, path))
    if "puzzle" not in frame.columns:
        names = [str(c) for c in frame.columns]
        hint = ""
        if names and all(re.fullmatch(r"Unnamed: \d+", name) for name in names):
            hint = "; its first row is the header, and it names no column: name the puzzles' column 'puzzle'"
        shown = some_of([clip(name, 40) for name in names], 10)   # a 100,000-column header was a 790 KB line
        raise PipelineError(f"batch: {str(path)!r} has no 'puzzle' column (columns: {shown}){hint}")
    twice = next((c for c in (*RECORD_COLUMNS, ID_COLUMN) if fmt == "csv" and f"{c}.1" in frame.columns and c in frame.columns), None)
    if twice is not None:   # pandas renames the second 'puzzle' to 'puzzle.1', and the first was read alone
        raise PipelineError(f"batch: {str(path)!r}: column {twice!r} appears twice in the header; name it once")
    out = {}
    for column in (*RECORD_COLUMNS, ID_COLUMN):
        values = frame[column].tolist() if column in frame.columns else [None] * len(frame)
        out[column] = [_text_or_none(v) for v in values]
    if fmt == "csv":
        _mark_bytes_not_utf8(path, frame, out)
    return out


def _mark_bytes_not_utf8(path: Path, frame, records: dict[str, list]) -> None:
    """Make each CSV record that holds a byte that is not UTF-8 (pandas reads it as U+FFFD) an
    error row naming its field: a variant written with a Latin-1 e was an unknown variant with
    U+FFFD in it, a puzzle's bad byte a bad character U+FFFD, and the output kept U+FFFD for the
    byte. Only a file with U+FFFD in a record's field is decoded again, strictly, to tell a
    replaced byte from a U+FFFD written in the file."""
    hits = {column: np.flatnonzero(frame[column].astype(str).str.contains("\ufffd", regex=False).to_numpy(dtype=bool))
            for column in RECORD_COLUMNS if column in frame.columns}
    if not any(k.size for k in hits.values()) or _is_utf8(path):
        return
    for column, rows in hits.items():
        for k in rows.tolist():
            if bad_row_parts(records["puzzle"][k]) is not None:
                continue   # already an error row (another field, or a row of another width)
            shown = records[column][k] or ""
            records["puzzle"][k] = (f"{BAD_ROW}csv: the {column} field holds a byte that is not UTF-8 text "
                                    f"({clip(shown, 60)!r}, the byte shown as U+FFFD); save the file as UTF-8"
                                    f"{BAD_ROW}{records['puzzle'][k] or ''}")


def _compression(path: Path) -> str | None:
    """``"gzip"`` when the file's bytes are gzip's, whatever its name: pandas tells by the name, so
    gzip bytes named ``.csv`` were "a row has more fields than the header", and text named
    ``.csv.gz`` a broken gzip stream."""
    try:
        with open(path, "rb") as f:
            return "gzip" if f.read(2) == GZIP_MAGIC else None
    except OSError:
        return None   # the reader names what is wrong


def _is_utf8(path: Path) -> bool:
    """Does the file (through gzip) decode as UTF-8, read a MiB at a time?"""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    try:
        with open_binary(path) as f:
            while chunk := f.read(1 << 20):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    except (OSError, EOFError, zlib.error):
        return True   # unreadable: the reader named it already
    return True


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


class _LineSource(Protocol):
    """What :func:`bounded_lines` reads: a text stream, or :class:`_CountedLines` around one."""

    def readline(self, size: int = -1, /) -> str: ...


def _utf8_size(text: str) -> int:
    """Bytes ``text`` was read from (UTF-8, each undecodable byte one escaped character)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))


class _CountedLines:
    """A text stream's ``readline`` that counts the bytes it has read (``size``)."""

    def __init__(self, stream: TextIO):
        self.stream, self.size = stream, 0

    def readline(self, size: int = -1, /) -> str:
        line = self.stream.readline(size)
        self.size += _utf8_size(line)
        return line


def bounded_lines(stream: _LineSource, most: int) -> Iterator[str]:
    """The lines of a text stream, each at most ``most`` characters held: a longer line (a gzip
    bomb of one line, 500 MB in a ``puzzle`` cell) is read through a chunk at a time and becomes
    a :data:`BAD_ROW` record, an error row showing its start, as a puzzle file that long is refused.

    Parameters
    ----------
    stream : io.TextIOBase
        Opened for reading (anything with its ``readline``).
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
        # an undecodable byte in it (read as an escaped character) is shown as U+FFFD
        shown = line[:LONG_LINE_SHOWN].encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        yield (f"{BAD_ROW}text: a line of {length:,} characters, more than a puzzle's {size_text(most)}"
               f"{BAD_ROW}{shown}...")


#: An undecodable byte as ``errors="surrogateescape"`` reads it (U+DC80 to U+DCFF).
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def _utf8_lines(path: Path, errors: str) -> TextIO:
    """A (possibly gzipped) file as UTF-8 text, undecodable bytes handled as ``errors`` says."""
    # newline="": every byte of a line ending stays in the line, so sizes are the file's bytes
    # (gzip's: the text inside it), and a line ends at \n, \r\n or \r as it did
    return io.TextIOWrapper(cast(BinaryIO, open_binary(path)), encoding="utf-8", errors=errors, newline="")


def _text_puzzles(path: Path) -> tuple[list[str], list[int]]:
    """The records of a text input, streamed a line at a time, and their lines in the file.

    Parameters
    ----------
    path : pathlib.Path
        The text file (gzip-compressed or not).

    Returns
    -------
    (list of str, list of int)
        The records, and each one's line (1-based). A line holding bytes that are not UTF-8 is a
        :data:`BAD_ROW` record naming the byte, its line and its offset in the file (a
        replacement character made the parse say "bad character '\\ufffd'", naming no byte).

    Raises
    ------
    PipelineError
        A broken gzip stream or a read error.
    """
    try:
        try:
            with _utf8_lines(path, "strict") as f:
                lines = _held_lines(path, bounded_lines(f, MAX_TEXT_BYTES))
        except UnicodeDecodeError:   # rare: read it again, a line at a time, counting bytes
            return _located_text_puzzles(path)
    except (OSError, EOFError, zlib.error) as e:
        raise PipelineError(f"batch: cannot read {str(path)!r} as text: {one_line(e)}") from None
    if lines and lines[0].startswith(_BOM):   # as solve and the CSV reader: a BOM is not record 0's
        lines[0] = lines[0][len(_BOM):].strip()
    # a comment is a line that starts with '#'; a '#' later in a line is the record's (an error)
    numbers = [k for k, line in enumerate(lines, start=1) if line and not line.startswith("#")]
    records = [lines[k - 1] for k in numbers]
    _refuse_one_document_over_lines(path, records)
    return records, numbers


#: Bytes a record of a text input takes while the input is held, besides its text (its ``str``,
#: the list slots, its line number): 5 million one-character lines of a 44 KB ``.gz`` took 1.1 GB.
RECORD_BYTES = 240
#: Lines read between two looks at the memory they hold.
_LINES_A_LOOK = 1 << 16


def refuse_too_many_records(path: Path, count: int, text_bytes: int = 0) -> None:
    """Refuse, in one line, an input whose ``count`` records (of ``text_bytes`` characters in
    all) need more memory held at once than :func:`~pipeline.core.limits.memory_limit` allows:
    a few KB of gzip can hold a hundred million lines, and batch holds every record (its
    fingerprint and resumable chunks are over all of them).

    Parameters
    ----------
    path : pathlib.Path
        The input, for the message.
    count : int
        Records read so far.
    text_bytes : int
        Their characters.
    """
    need, allowed = count * RECORD_BYTES + text_bytes, memory_limit()
    if need > allowed:
        raise PipelineError(f"batch: {str(path)!r} holds at least {count:,} records, which need about "
                            f"{size_text(need)} held at once, more than the {size_text(allowed)} allowed "
                            f"(${MAX_BYTES_ENV}); split it into smaller inputs")


def _held_lines(path: Path, stream: Iterable[str]) -> list[str]:
    """The stripped lines of ``stream``, refused as soon as they would hold more memory than
    allowed (:func:`refuse_too_many_records`), looked at every ``_LINES_A_LOOK`` lines."""
    lines: list[str] = []
    held = 0
    stream = iter(stream)
    while True:
        block = [line.strip() for line in itertools.islice(stream, _LINES_A_LOOK)]
        lines += block
        held += sum(map(len, block))
        refuse_too_many_records(path, len(lines), held)
        if len(block) < _LINES_A_LOOK:
            return lines


def _refuse_one_document_over_lines(path: Path, records: list[str]) -> None:
    """Refuse, in one line, a text input that is one JSON document written over several lines (a
    pretty-printed puzzle document, or a list of them): each of its lines was an error row ('bad
    cell "size": 4') and the run said complete. Only a first record of a lone '{' or '[' is
    looked at further."""
    if len(records) < 2 or records[0] not in ("{", "["):
        return
    try:
        document = json.loads("\n".join(records))
    except (ValueError, RecursionError):
        return   # not one document: its lines are records, each answered
    what = "a list of JSON documents" if isinstance(document, list) else "one JSON document"
    raise PipelineError(f"batch: {str(path)!r} is {what} over {len(records)} lines; batch reads a record per "
                        f"line: write each document on one line (JSON Lines), or give one document to solve")


def _located_text_puzzles(path: Path) -> tuple[list[str], list[int]]:
    """:func:`_text_puzzles` of a file holding bytes that are not UTF-8: the same records, those
    lines' each an error row saying where its first such byte is. A Python loop per line, with
    a byte count, which a file without such bytes never pays for."""
    puzzles: list[str] = []
    numbers: list[int] = []
    with _utf8_lines(path, "surrogateescape") as f:
        counted, end = _CountedLines(f), 0
        for number, line in enumerate(bounded_lines(counted, MAX_TEXT_BYTES), start=1):
            start, end = end, counted.size
            text = line.strip()
            if number == 1 and text.startswith(_BOM):
                text = text[len(_BOM):].strip()
            if not text or text.startswith("#"):   # a comment in Latin-1 is still a comment
                continue
            if not text.isascii() and _ESCAPED_BYTE.search(text) is not None:
                text = _undecodable_line(line, start)
            puzzles.append(text)
            numbers.append(number)
            if number % _LINES_A_LOOK == 0:
                refuse_too_many_records(path, number, end)
    return puzzles, numbers


def _undecodable_line(line: str, start: int) -> str:
    """The :data:`BAD_ROW` record of a text line (read with ``surrogateescape``), which
    starts at byte ``start`` of the file and holds bytes that are not UTF-8."""
    raw = line.encode("utf-8", "surrogateescape")
    try:
        raw.decode("utf-8")
        reason, at = "", 0   # not reached: an escaped byte never decodes
    except UnicodeDecodeError as e:
        reason, at = e.reason, e.start
    # no line number here: batch starts every text error row with ``line N:`` (its _locate_errors)
    return (f"{BAD_ROW}text: not UTF-8 text (byte 0x{raw[at]:02x} at offset {start + at}: "
            f"{reason}){BAD_ROW}{raw.decode('utf-8', 'replace').strip()}")


def _refuse_other_encodings(path: Path) -> None:
    """Refuse, in one line, a text or CSV input in UTF-16 or UTF-32 (its every line would be an
    error row, "wrong length ... found 164", or its header no column) or one that is an archive or
    another binary file (:func:`pipeline.core.textin.binary_kind`: zip, bzip2, xz, Parquet, ...).

    Only its first bytes are read (through gzip), so a file of any size is told apart at once.

    Parameters
    ----------
    path : pathlib.Path
        The input file.

    Raises
    ------
    PipelineError
        It starts with a UTF-16 or UTF-32 byte-order mark, or with a NUL byte (such text without
        one), naming the byte, its offset and the encoding; or it is a binary file, named by kind.
    """
    try:
        with open_binary(path) as f:
            head = f.read(BINARY_HEAD)
    except (OSError, EOFError, zlib.error):
        return   # the reader says what is wrong with it, naming the file
    binary = binary_kind(head)
    if binary is not None:   # an archive read as text was a "complete" run of error rows
        how = "--input-format parquet reads it" if head.startswith(b"PAR1") else "unpack it first (gzip is read as it is)"
        raise PipelineError(f"batch: {str(path)!r} is {binary.split(' (')[0]}, not puzzle text or CSV: {how}")
    head = head[:4]   # the encodings are told apart by four bytes
    kind = next((name for bom, name in _OTHER_BOMS if head.startswith(bom)), None)
    at, why = 0, f"a {kind} byte-order mark"
    if kind is None:
        if 0 not in head:
            return
        # ASCII as UTF-16 or UTF-32 without a mark has a NUL beside each character (UTF-8 text
        # never starts with one), and where the first NUL is tells the byte order
        at = head.index(0)
        kind = ("UTF-32" if head.count(0) >= 3 else "UTF-16") + ("BE" if at == 0 else "LE")
        why = f"a NUL byte, as {kind} text without a byte-order mark has"
    raise PipelineError(f"batch: {str(path)!r} is not UTF-8 text (byte 0x{head[at]:02x} at offset {at}: {why}); "
                        f"batch reads UTF-8: convert it first (iconv -f {kind} -t UTF-8)")


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
    raise _unclosed_quote(path, f"line {line}" if line is not None else f"record {row}")


def _unclosed_quote(path: Path, where: str) -> PipelineError:
    """The refusal of a CSV with a quote that never closes, at ``where`` (its line)."""
    return PipelineError(f"batch: cannot read {str(path)!r} as csv: {where}: a quoted field opens there and never "
                         f"closes, so every row after it would be part of it; close the quote or remove it")


@contextmanager
def _csv_field_limit(most: int) -> Iterator[None]:
    """The csv module's field limit raised to ``most`` while the row reader reads: at its 128 KiB
    default a larger cell (a big grid's regions) was a row dropped without a word."""
    before = csv.field_size_limit()
    csv.field_size_limit(max(before, most))
    try:
        yield
    finally:
        csv.field_size_limit(before)


def _refuse_what_the_row_reader_drops(path: Path, sep: str) -> None:
    """Refuse, in one line naming its line, a CSV that pandas' row-by-row reader would read in part.

    That reader (:func:`_csv_with_bad_rows`) reads with the csv module in strict mode and, given a
    callable for rows of another width, drops every row the module cannot read without a word: a
    quote that never closes (and with it every row after it), text after a closing quote
    (``"ab"c``), a field past the module's limit. The same reader with the same dialect is run
    through first, at the csv module's speed (no Python loop while nothing is wrong).

    Parameters
    ----------
    path : pathlib.Path
        The CSV (or TSV) file.
    sep : str
        Its field separator.

    Raises
    ------
    PipelineError
        Naming the line of the record that cannot be read and why.
    """
    def rows(f: TextIO):   # pandas' dialect: '"' doubled inside quotes, no escape character
        return csv.reader(f, delimiter=sep, quotechar='"', doublequote=True, strict=True)

    try:
        with open_text(path) as f:
            deque(rows(f), maxlen=0)
        return
    except csv.Error:
        pass
    with open_text(path) as f:   # again, a row at a time: where did the bad record start
        reader, line = rows(f), 1
        try:
            for _ in reader:
                line = reader.line_num + 1
        except csv.Error as e:
            if "unexpected end of data" in str(e):
                raise _unclosed_quote(path, f"line {line}") from None
            if "expected after" in str(e):
                why = ("text follows the closing quote of a quoted field; a quote inside a quoted field is "
                       "written twice (\"\")")
            elif "field larger than field limit" in str(e):
                why = f"a field holds more than {size_text(csv.field_size_limit())} of text"
            else:
                why = one_line(e)
            raise PipelineError(f"batch: cannot read {str(path)!r} as csv: line {line}: {why}") from None


def _csv_with_bad_rows(path: Path, sep: str):
    """The CSV read row by row with the csv module, each row of another width than the header
    kept as a record whose puzzle field says so (:data:`BAD_ROW`).

    The rows are those pandas' fast reader gives: a blank or whitespace-only line is no record, a
    line that is only ``""`` is one (an empty record, its error row), a short row is filled with
    empty fields. pandas' row-by-row reader, given a callable for bad rows, also dropped the
    ``""`` lines, so a record went missing whenever the file held a row of another width. Only
    files with such a row come here (the fast reader read the others).
    """
    import pandas as pd

    class Lines:   # the physical lines of the csv module's current row: is it blank?
        def __init__(self, f: TextIO):
            self.f, self.raw = f, list[str]()

        def __iter__(self):
            return self

        def __next__(self) -> str:
            line = next(self.f)
            self.raw.append(line)
            return line

    # the header as pandas names it (a byte-order mark dropped, a second 'puzzle' as 'puzzle.1')
    columns = list(pd.read_csv(path, dtype=str, nrows=0, sep=sep, encoding_errors="replace",
                               compression=_compression(path)).columns)
    at = columns.index("puzzle") if "puzzle" in columns else 0
    header_read = False
    records: list[list[str]] = []
    with open_text(path) as f:
        lines = Lines(f)
        for fields in csv.reader(lines, delimiter=sep, quotechar='"', doublequote=True, strict=True):
            blank = not "".join(lines.raw).strip()
            lines.raw.clear()
            if blank:
                continue
            if not header_read:
                header_read = True
                continue
            if len(fields) > len(columns):
                shown = sep.join(fields)
                row = [""] * len(columns)
                row[at] = (f"{BAD_ROW}csv: a row of {len(fields)} fields where the header has {len(columns)} "
                           f"({shown[:60]}{'...' if len(shown) > 60 else ''}); quote a field that holds the "
                           f"separator{BAD_ROW}{shown}")
                fields = row
            records.append(fields + [""] * (len(columns) - len(fields)))
    return pd.DataFrame(records, columns=columns, dtype=object)


def _check_parquet_columns(path: Path, most: int) -> None:
    """Refuse, in one line, a Parquet input whose ``puzzle``, ``regions`` or ``variant`` column
    does not hold text (an int64 ``puzzle`` would read ``1`` as a 1x1 grid, a binary or list
    column its Python repr), or of more than ``most`` rows (its footer says, before any is read:
    a run-length encoded column holds millions in a few bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with arrow_target(path) as source:
        table = pq.ParquetFile(source)
        schema, rows = table.schema_arrow, table.metadata.num_rows
    if rows > most:
        refuse_too_many_records(path, rows)
    named = record_column_names(schema.names, path)
    for given in named:
        if schema.names.count(given) > 1:   # pyarrow said "Column puzzle does not exist in schema"
            raise PipelineError(f"batch: {str(path)!r}: column {given!r} appears {schema.names.count(given)} times; "
                                "a record has one of each")
        kind = schema.field(given).type
        value = kind.value_type if pa.types.is_dictionary(kind) else kind
        if named[given] == ID_COLUMN and pa.types.is_integer(value):
            continue   # a numbered collection: its ids are read as their digits
        string_view = getattr(pa.types, "is_string_view", lambda _: False)   # pyarrow 16+
        if not (pa.types.is_string(value) or pa.types.is_large_string(value) or string_view(value)
                or pa.types.is_null(value)):
            raise PipelineError(f"batch: {str(path)!r}: column {given!r} is {kind}, not text: puzzles, regions, "
                                f"variants and rules are strings")


def record_column_names(names: Iterable[object], path: Path) -> dict[str, str]:
    """``{column as written: record column}`` for the columns of a table that name a record's
    field, case and surrounding spaces aside (``Puzzle``, `` puzzle ``: a spreadsheet's header, and
    what the one-puzzle reader takes); refuses two columns that name the same field.

    Parameters
    ----------
    names : iterable of object
        The table's column names.
    path : Path
        The input, named in the message.
    """
    found: dict[str, str] = {}
    for name in names:
        field = str(name).strip().lower()
        if field not in RECORD_COLUMNS and field != ID_COLUMN:
            continue
        first = next((given for given, same in found.items() if same == field and given != name), None)
        if first is not None:
            raise PipelineError(f"batch: {str(path)!r}: columns {first!r} and {str(name)!r} both name the {field!r} "
                                "field; keep one")
        found[str(name)] = field
    return found


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
