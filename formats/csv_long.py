"""The long-form CSV files (``Aeq_long.csv``, ``Aineq_long.csv``): ``row_label,col_name,value``, one
line per nonzero, written a chunk of rows at a time (pyarrow's CSV writer over dictionary arrays:
each label and name rendered once), and read into dictionary-encoded arrays
(:func:`read_long_entries`) that :mod:`formats.csv` maps onto the model's columns.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.errors import FormatError

from formats.base import atomic_open, open_text, read_regular
from formats.text import Tokens, first_repeat, name_array, table_strings

#: The header a long-form file starts with (the one the bytes reader takes; any other order of
#: the columns, extra columns or quoted fields go through pandas).
LONG_HEADER = b"row_label,col_name,value"

_CHUNK = 1 << 20  # lines a write


def write_csv_chunks(f: BinaryIO, columns: list) -> None:
    """Append header-less CSV text of equal-length arrays (numeric, or pyarrow arrays) to ``f``,
    ``_CHUNK`` lines at a time.

    Parameters
    ----------
    f : binary file
        Where the text goes.
    columns : list
        NumPy or pyarrow arrays of one length, one per CSV column.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    n = len(columns[0])
    options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    for start in range(0, n, _CHUNK):
        table = pa.table({str(k): col[start:start + _CHUNK] for k, col in enumerate(columns)})
        pacsv.write_csv(table, f, options)


def write_long(model: Model, path: str | os.PathLike, *, inequalities: bool = False) -> Path:
    """``row_label,col_name,value`` (header), one line per nonzero of ``Aeq`` (or of ``Aineq``).

    A row without nonzeros (a rule row that ``reduce`` emptied and the clues break) is one line
    with an empty ``col_name`` and value 0, so that the row is not lost.

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The CSV file.
    inequalities : bool
        Write ``Aineq`` (with its row labels) instead of ``Aeq``.
    """
    import pyarrow as pa
    matrix = (model.Aineq if inequalities else model.Aeq).tocsr()
    empty = np.diff(matrix.indptr) == 0
    line_ends = np.cumsum(np.diff(matrix.indptr) + empty)    # a row's lines: its nonzeros, or one
    integer = all_integral(matrix.data)
    # dictionary arrays: each label/name is rendered once, the rows just index them
    labels = pa.array(np.asarray(model.ineq_labels if inequalities else model.row_labels, dtype=str))
    names = name_array(model, with_empty=bool(empty.any()))
    with atomic_open(path, "wb") as f:
        f.write(b"row_label,col_name,value\n")
        # a chunk of rows at a time: the whole matrix as COO (rows, columns and values of 7 M
        # nonzeros, and their copies) was 0.26 GB above the model
        lo = 0
        while lo < matrix.shape[0]:
            start = int(line_ends[lo - 1]) if lo else 0
            hi = max(int(np.searchsorted(line_ends, start + _CHUNK, side="right")), lo + 1)
            rows, cols, data = _long_lines(matrix, empty, lo, hi, model.n_cols)
            write_csv_chunks(f, [pa.DictionaryArray.from_arrays(pa.array(rows), labels),
                                  pa.DictionaryArray.from_arrays(pa.array(cols), names),
                                  data.astype(np.int32) if integer else data])
            lo = hi
    return Path(path)


def all_integral(data: np.ndarray) -> bool:
    """Are all values integers below 2^31 (written ``1``, not ``1.0``, here and in the triplets)?
    A chunk at a time: no temporary of the whole matrix's size."""
    return all(np.all(part == np.rint(part)) and np.abs(part).max() < 2**31 for part in value_parts(data))


def value_parts(data: np.ndarray) -> list[np.ndarray]:
    """``data`` in views of ``_CHUNK`` values: a test over them makes temporaries of that size."""
    return [data[lo:lo + _CHUNK] for lo in range(0, data.size, _CHUNK)]


def _long_lines(matrix: sp.csr_matrix, empty: np.ndarray, lo: int, hi: int,
                n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``lo..hi-1`` as ``write_long``'s lines: row, column and value of each nonzero in
    row order, an empty row's one line with column ``n_cols`` (the empty name) and value 0."""
    p0, p1 = int(matrix.indptr[lo]), int(matrix.indptr[hi])
    lines = np.diff(matrix.indptr[lo:hi + 1]) + empty[lo:hi]
    rows = np.repeat(np.arange(lo, hi, dtype=np.int32), lines)
    if not empty[lo:hi].any():
        return rows, matrix.indices[p0:p1].astype(np.int32), matrix.data[p0:p1]
    nonzero = ~np.repeat(empty[lo:hi], lines)
    cols = np.full(rows.size, n_cols, dtype=np.int32)
    data = np.zeros(rows.size)
    cols[nonzero], data[nonzero] = matrix.indices[p0:p1], matrix.data[p0:p1]
    return rows, cols, data


@dataclass
class LongEntries:
    """A long-form file's nonzeros, dictionary-encoded: no Python string per line.

    Attributes
    ----------
    rows : numpy.ndarray
        Code of each entry's row label (an index into ``row_labels``).
    row_labels : numpy.ndarray of str
        The distinct row labels by first appearance, those of rows without nonzeros included.
    cols : numpy.ndarray
        Code of each entry's column name (an index into ``col_names``).
    col_names : numpy.ndarray of str
        The distinct column names by first appearance.
    values : numpy.ndarray of float
        Each entry's value (finite).
    lines : numpy.ndarray
        Each entry's 1-based line in the file, for messages.
    """

    rows: np.ndarray
    row_labels: np.ndarray
    cols: np.ndarray
    col_names: np.ndarray
    values: np.ndarray
    lines: np.ndarray


def read_long_entries(path: Path) -> LongEntries:
    """The entries of a long-form file (``row_label,col_name,value``), checked: every line has a
    label, every value is a finite number, no (row, column) pair comes twice. A line with an
    empty ``col_name`` is a row without nonzeros: its label counts, it has no entry.

    The file as written (:func:`write_long`, or any file with that header and no quotes) is cut
    into fields on its bytes; other CSV (columns in another order, quoted fields) goes through
    pandas, which made a Python string per label and name and left the allocator's pages of
    them behind (0.65 GB after an empty 100x100's ``Aeq_long.csv``).

    Parameters
    ----------
    path : Path
        The file.

    Raises
    ------
    FormatError
        Not a long-form CSV, or a bad line (named by its number).
    """
    buf = np.frombuffer(read_regular(path), np.uint8)
    entries = _entries_from_bytes(path, buf)
    if entries is None:
        del buf
        entries = _entries_by_pandas(path)
    again = first_repeat(entries.cols.astype(np.int64) * max(entries.row_labels.size, 1) + entries.rows)
    if again is not None:
        raise FormatError(f"{path}: line {entries.lines[again]}: entry ({entries.row_labels[entries.rows[again]]}, "
                          f"{entries.col_names[entries.cols[again]]}) listed twice")
    return entries


def _line_spans(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (past the last byte, a final CR left out) of every line of ``buf``."""
    breaks = np.flatnonzero(buf == 10)
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [buf.size]])
    carriage = ends > starts
    carriage[carriage] = buf[ends[carriage] - 1] == 13
    return starts, ends - carriage


def _entries_from_bytes(path: Path, buf: np.ndarray) -> LongEntries | None:
    """:func:`read_long_entries` on the bytes, or None when the file is not plainly
    ``LONG_HEADER`` and three unquoted fields a line (blank lines skipped)."""
    if (buf == ord('"')).any() or (buf == 0).any():
        return None
    starts, ends = _line_spans(buf)
    filled = np.flatnonzero(ends > starts)
    if filled.size == 0 or bytes(buf[starts[filled[0]]:ends[filled[0]]]) != LONG_HEADER:
        return None
    commas = np.flatnonzero(buf == ord(","))
    starts, ends = starts[filled], ends[filled]
    first_comma = np.searchsorted(commas, starts)
    if (np.diff(np.append(first_comma, commas.size)) != 2).any():
        return None
    commas = commas.reshape(-1, 2)[1:]
    starts, ends, lines = starts[1:], ends[1:], filled[1:] + 1
    labels = Tokens.from_spans(buf, starts, commas[:, 0])
    unlabelled = np.flatnonzero(labels.lengths == 0)
    if unlabelled.size:
        raise FormatError(f"{path}: line {lines[unlabelled[0]]}: a row without a label")
    rows, label_table = labels.factorize(np.arange(len(labels)))
    entry = np.flatnonzero(commas[:, 1] > commas[:, 0] + 1)    # an empty name: a row without nonzeros
    cols, name_table = Tokens.from_spans(buf, commas[entry, 0] + 1, commas[entry, 1]).factorize(np.arange(entry.size))
    values = Tokens.from_spans(buf, commas[entry, 1] + 1, ends[entry])
    blank = np.flatnonzero(values.lengths == 0)
    if blank.size:
        raise FormatError(f"{path}: line {lines[entry[blank[0]]]}: the value is not a finite number")

    def bad_value(k: int, text: str) -> FormatError:
        line = lines[entry[k]]
        try:
            float(text)
            if "_" not in text:
                return FormatError(f"{path}: line {line}: the value is not a finite number")
        except ValueError:
            pass
        return FormatError(f"{path}: line {line}: the value {text!r} is not a number")

    numbers = values.numbers(np.arange(entry.size), bad_value)
    return LongEntries(rows[entry], table_strings(label_table), cols, table_strings(name_table), numbers, lines[entry])


def _entries_by_pandas(path: Path) -> LongEntries:
    """:func:`read_long_entries` through ``pandas.read_csv``: quoted fields, any column order."""
    import pandas as pd
    with open_text(path) as f:
        try:
            table = pd.read_csv(f, dtype={"row_label": str, "col_name": str})
        except FormatError:   # the file itself unreadable (a damaged gzip stream)
            raise
        except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
            raise FormatError(f"{path}: not a long-form CSV ({str(e).splitlines()[0]})") from None
    missing = [c for c in ("row_label", "col_name", "value") if c not in table.columns]
    if missing:
        raise FormatError(f"{path}: missing column(s) {', '.join(missing)}")
    lines = _data_lines(path, len(table))     # each data line's line in the file, for messages
    no_label = np.flatnonzero(table["row_label"].isna().to_numpy())
    if no_label.size:
        raise FormatError(f"{path}: line {lines[no_label[0]]}: a row without a label")
    rows, row_labels = pd.factorize(table["row_label"])
    entry = table["col_name"].notna().to_numpy()
    rows, table, lines = rows[entry], table[entry], lines[entry]
    numbers = pd.to_numeric(table["value"], errors="coerce").to_numpy(float)
    wrong = np.flatnonzero(np.isnan(numbers) & table["value"].notna().to_numpy()
                           & (table["value"].astype(str).str.strip().str.lower() != "nan").to_numpy())
    if wrong.size:
        raise FormatError(f"{path}: line {lines[wrong[0]]}: the value {str(table['value'].iloc[wrong[0]])!r} is not a number")
    bad = np.flatnonzero(~np.isfinite(numbers))
    if bad.size:
        raise FormatError(f"{path}: line {lines[bad[0]]}: the value is not a finite number")
    cols, col_names = pd.factorize(table["col_name"])
    return LongEntries(rows, np.asarray(row_labels, str), cols, np.asarray(col_names, str), numbers, lines)


def _data_lines(path: Path, count: int) -> np.ndarray:
    """1-based file lines of the first ``count`` data lines (after the header; blank lines
    skipped, as :func:`data_line` counts them)."""
    with open_text(path) as f:
        filled = np.array([number for number, line in enumerate(f, 1) if line.strip()], dtype=np.int64)
    return filled[1:count + 1]


def data_line(path: str | os.PathLike, k: int, *, comment: str | None = None, header: bool = False) -> int:
    """1-based file line of the ``k``-th (0-based) data line: blank (and ``comment``) lines do
    not count, nor a header. Only on the way to an error, so a Python loop is fine.

    Parameters
    ----------
    path : str or Path
        The file.
    k : int
        The data line, 0-based.
    comment : str, optional
        Lines starting with this (after blanks) do not count either.
    header : bool
        The first counted line is a header.
    """
    with open_text(path) as f:
        seen = -1 - header
        for number, line in enumerate(f, 1):
            text = line.strip()
            if text and not (comment and text.startswith(comment)):
                seen += 1
                if seen == k:
                    return number
    return number if "number" in locals() else 1
