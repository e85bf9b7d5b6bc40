"""Cells of one line of grid text (comma, semicolon, tab or space separated), as
:mod:`pipeline.core.parse` reads a grid or a clue list."""
from __future__ import annotations

import csv
import json
import math
import re
import unicodedata
from collections import Counter
from itertools import chain

import numpy as np

from pipeline.core.errors import PuzzleError, SeveralPuzzles, clip, json_failure

__all__ = ["COMPACT_DIGITS", "MAX_TOKEN_DIGITS", "REGION_ALPHABET", "drop_trailing_empty_column", "letter_past_digits", "matlab_matrix_problem", "matlab_matrix_rows", "matrix_of_rows", "nested_list_rows", "plain_clue_list",
           "refuse_number_column", "rows_as_text", "several_puzzles", "split_cells", "token_matrix", "unseen_character", "whole_number"]

# Compact cell alphabet (pipeline.core.parse re-exports it): '.' and '0' are empty, then 1-9, then A-Z for 10..35.
COMPACT_DIGITS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
REGION_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def several_puzzles(where: str, what: str) -> SeveralPuzzles:
    """The error for a file of many puzzles given where one is read (``batch`` reads those).

    Parameters
    ----------
    where : str
        How the message names the input.
    what : str
        What was found (``"9 lines of 81 cells"``).

    Returns
    -------
    SeveralPuzzles
    """
    return SeveralPuzzles(f"{where}: {what}: puzzles one a row, as batch reads them; this reads one puzzle "
                          f"('python -m pipeline batch FILE OUTDIR' solves them all)")


# Integers longer than this are refused before conversion (no int64 overflow, no huge ints).
MAX_TOKEN_DIGITS = 12


def whole_number(value: object) -> int | None:
    """``value`` as an int when it is a whole number of at most :data:`MAX_TOKEN_DIGITS` digits,
    else None: an int (not a bool) or a float with nothing after the point. JSON written from
    numpy or by ``json.dumps`` of floats says ``5.0`` for 5, and a document means the same by it.

    Parameters
    ----------
    value : object
        A parsed JSON value (or a numpy scalar).

    Returns
    -------
    int or None

    Examples
    --------
    >>> whole_number(5), whole_number(5.0), whole_number(5.5), whole_number(True), whole_number("5")
    (5, 5, None, None, None)
    """
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (float, np.floating)):
        if not (math.isfinite(value) and float(value).is_integer()):
            return None
        value = int(value)
    if not isinstance(value, (int, np.integer)) or len(str(abs(int(value)))) > MAX_TOKEN_DIGITS:
        return None
    return int(value)


def split_cells(line: str, where: str = "puzzle") -> list[str]:
    """Cells of one line. A line separated by commas, else semicolons, else tabs is split on every
    one, so empty fields (as Excel and MATLAB write empty cells: ``,,6,,7``) stay cells; spaces
    and ``|`` collapse.

    Parameters
    ----------
    line : str
        One line of the text.
    where : str
        How a message names the input.

    Returns
    -------
    list of str

    Raises
    ------
    PuzzleError
        A quoted field longer than the csv module reads (131,072 characters: no cell is).

    Examples
    --------
    >>> split_cells('5,"3",,7'), split_cells("5 3 | . 7"), split_cells("5;;7")
    (['5', '3', '', '7'], ['5', '3', '.', '7'], ['5', '', '7'])
    """
    if "," in line:
        # a quoted field ("4", or "5,5" holding a comma) is one cell, as any CSV reader takes it
        try:
            fields = next(csv.reader([line.strip()], skipinitialspace=True)) if '"' in line else line.strip().split(",")
        except csv.Error as e:   # a field past the module's limit: a traceback before
            raise PuzzleError(f"{where}: a quoted field that is no cell ({e})") from None
        return [tok.strip(" ;|\t") for tok in fields]
    for sep in ";\t":   # a spreadsheet's other separators (Excel's ';', a pasted range's tab): empty
        # fields are empty cells there too, never collapsed into their neighbours
        if sep in line:
            return [tok.strip(" |\t") for tok in line.split(sep)]
    return re.split(r"[|\s]+", line.strip(" |\t"))


def drop_trailing_empty_column(rows: list[list[str]], where: str = "puzzle", last: str = ",") -> list[list[str]]:
    """A trailing comma on every line (``5,3,0,...,0,``) ends the line rather than adding an
    empty cell, when dropping it is what makes the shape N-by-N (or N-by-3, or one N*N line).
    One line of several characters then the separator (a puzzle string and a comma, as a batch
    line ``530070000...079,``) is refused by that separator: dropped, it left one cell of 81
    digits ("cell at row 1, column 1: value 53007000060019500009... is too large").

    Parameters
    ----------
    rows : list of list of str
        Each line's cells.
    where : str
        How a message names the input.
    last : str
        The first line's last character (its separator, when the line ends in one).

    Returns
    -------
    list of list of str

    Raises
    ------
    PuzzleError
        One line of one field of several characters then an empty last field.

    Examples
    --------
    >>> drop_trailing_empty_column([["1", "2", ""], ["3", "4", ""]])
    [['1', '2'], ['3', '4']]
    """
    if not rows or not all(len(row) > 1 and row[-1] == "" for row in rows):
        return rows
    if len(rows) == 1 and len(rows[0]) == 2 and len(rows[0][0]) > 1:
        raise PuzzleError(f"{where}: {len(rows[0][0])} characters then a trailing {last!r} (an empty last cell): a "
                          f"puzzle string is its cells alone; drop the {last!r}")
    width, height = len(rows[0]), len(rows)
    square_now = width == height or (height == 1 and math.isqrt(width) ** 2 == width)
    square_without = width - 1 == height or width - 1 == 3 or (height == 1 and math.isqrt(width - 1) ** 2 == width - 1)
    return [row[:-1] for row in rows] if square_without and not square_now else rows


def letter_past_digits(char: str, row: int, column: int, n: int, where: str = "puzzle") -> str:
    """The message for a one-letter cell of a grid of separated cells (``5,3,x,...``) whose value as a
    letter-digit (``A`` is 10 ... ``Z`` 35) is past the grid's ``n`` digits: the character named, as
    a compact line names it, rather than the value it would be ("cell (9, 1) holds 33").

    Parameters
    ----------
    char : str
        The cell's one character.
    row, column : int
        Where it is (from 1).
    n : int
        The grid's side.
    where : str
        How a message names the input.

    Returns
    -------
    str

    Examples
    --------
    >>> letter_past_digits("x", 9, 1, 9)
    "puzzle: bad cell 'x' at row 9, column 1: not a digit of a 9x9 grid (a cell is 1 to 9, or 0, '.' or nothing for empty)"
    """
    letters = "" if n < 10 else f", A to {'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[n - 10]}"
    return (f"{where}: bad cell {char!r} at row {row}, column {column}: not a digit of a {n}x{n} grid "
            f"(a cell is 1 to {n}{letters}, or 0, '.' or nothing for empty)")


def usual_width(widths: list[int]) -> int:
    """The width most rows have (the first row's on a tie), which the odd row is measured against:
    a short first line was blamed on every other line ("line 2 has 9 cells; expected 8"). The
    puzzle reader and the solution grid reader (:mod:`formats.solutions.tables`) both use it.

    Parameters
    ----------
    widths : list of int
        Each row's number of cells (at least one row).

    Examples
    --------
    >>> usual_width([2, 9, 9, 9])
    9
    """
    counts = Counter(widths)
    top = max(counts.values())
    return next(w for w in widths if counts[w] == top)


#: MATLAB's matrix syntax: ``[1 2 3; 2 1 1]``, optionally ``name = ...;``, over lines or on one
_MATLAB_START = r"\A\s*(?:[A-Za-z]\w*\s*=\s*)?(?P<cast>(?:u?int(?:8|16|32|64)|double|single)\s*\(\s*)?\["
#: (the body unrolled, ``[^[]]*(?:\[...\][^[]]*)*``: a group repeated for every character kept a
#: backtracking frame a character, some 200 bytes each, 12 GB for a 64 MiB one-line matrix)
_MATLAB_MATRIX = re.compile(_MATLAB_START + r"(?P<body>[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*)\](?(cast)\s*\))\s*;?\s*\Z")
#: rows in brackets of their own, one under the other: ``[[1 2 3]; [2 1 1]]`` (vertical concatenation)
_MATLAB_STACKED = re.compile(r"\s*\[[^\[\]]*\](?:\s*[;\n]\s*\[[^\[\]]*\])*\s*;?\s*")
#: one row of a MATLAB matrix: numbers (NaN for an empty cell) separated by spaces or commas
_MATLAB_NUMBER = r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|NaN)"
_MATLAB_ROW = re.compile(rf"\s*(?:{_MATLAB_NUMBER}(?:\s*,\s*|\s+|\s*\Z))+", re.I)


def _matrix_rows(body: str) -> list[str]:
    """A matrix body's rows (``;`` or a line break between them), each without a trailing comma."""
    return [re.sub(r"\s*,\s*\Z", "", row.strip()) for row in re.split(r"[;\n]", body) if row.strip()]


def _row_tokens(row: str) -> list[str]:
    """A row's values (commas or spaces between them)."""
    return re.split(r"\s*,\s*|\s+", row)


def _without_comments(text: str) -> str:
    """``text`` without MATLAB's comments (``%{`` ... ``%}`` blocks, ``%`` to the end of a line,
    and Octave's ``#``) and line continuations (``...`` and the rest of its line)."""
    if "%" not in text and "..." not in text and "#" not in text:
        return text
    text = re.sub(r"^[ \t]*%\{[ \t]*$.*?^[ \t]*%\}[ \t]*$", "", text, flags=re.M | re.S)
    return re.sub(r"\.\.\.[^\n]*(?:\n|\Z)", " ", re.sub(r"[%#][^\n]*", "", text))


def matlab_matrix_rows(text: str) -> str | None:
    """The rows of a matrix written in MATLAB's syntax, one a line with commas between the
    values: ``[1 2 3; 2 1 1]`` (a ``[row col digit]`` clue list or a grid, as MATLAB's
    ``mat2str`` or a user writes it), or lines of space-separated numbers each ending in ``;``
    (``1 2 3;``), with MATLAB's ``%`` comments and ``...`` continuations; None for any other text (a CSV with ``;`` between its fields is not one: its
    values are not separated by spaces).

    Parameters
    ----------
    text : str
        The whole puzzle text.

    Returns
    -------
    str or None

    Examples
    --------
    >>> matlab_matrix_rows("[1 2 3; 2 1 1]")
    '1,2,3\\n2,1,1'
    >>> matlab_matrix_rows("1;2;3") is None
    True
    """
    text = _without_comments(text)
    bracketed = _MATLAB_MATRIX.match(text)
    if bracketed is not None:
        body = bracketed.group("body")
        if "[" in body:   # rows in brackets of their own, stacked; side by side is another reading's
            if not _MATLAB_STACKED.fullmatch(body):
                return None
            body = body.replace("[", " ").replace("]", ";")
    else:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        # every line "1 2 3;": a ';' ends it, spaces separate its values
        if not lines or not all(line.endswith(";") and re.search(r"[0-9.]\s+[+-]?[0-9N]", line) for line in lines):
            return None
        body = "\n".join(lines)
    rows = _matrix_rows(body)   # [1,2,3,;...]: a row may end in ','
    # token by token: _MATLAB_ROW over a whole row kept a backtracking frame a value (400 bytes a cell)
    if not rows or not all(re.fullmatch(_MATLAB_NUMBER, token, re.I) for row in rows for token in _row_tokens(row)):
        return None
    return "\n".join(",".join(_plain_number(token) for token in _row_tokens(row)) for row in rows)


def _plain_number(token: str) -> str:
    """A number in exponent form (``1e0``, ``1.6E1``) as the integer it is, for the cell readers."""
    if "e" not in token.lower() or "nan" in token.lower():
        return token
    value = float(token)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else token


#: the start of a matrix in MATLAB's syntax: ``[`` or ``name = [``
_MATLAB_OPENING = re.compile(_MATLAB_START + r"(?!\s*\[)")


def matlab_matrix_problem(text: str) -> str | None:
    """What keeps text that opens a MATLAB matrix (``[`` or ``x = [``) from being one, for the
    message when :func:`matlab_matrix_rows` did not read it; None for text that opens none.

    Parameters
    ----------
    text : str
        The whole puzzle text.

    Returns
    -------
    str or None

    Examples
    --------
    >>> matlab_matrix_problem("x = [1 1 5; 1 2 3;")
    "the MATLAB matrix opened with '[' has no closing ']'"
    >>> matlab_matrix_problem("[1 1 5; 2 2 x]")
    "row 2 of the MATLAB matrix, '2 2 x': 'x' is not a number"
    >>> matlab_matrix_problem("1 1 5") is None
    True
    """
    uncommented = _without_comments(text)
    if not uncommented.strip() and text.lstrip().startswith("%"):
        return "only MATLAB comments ('%'), no matrix"
    text = uncommented
    if not _MATLAB_OPENING.match(text):
        later = re.search(r"^[ \t]*[A-Za-z]\w*\s*=\s*\[", text, re.M)
        before = text[:later.start()].strip() if later else ""
        if before and not re.search(r"[\[\]]", before):
            return (f"text before the MATLAB matrix, {clip(before.splitlines()[0], 40)!r}: give the matrix alone "
                    f"(clues = [1 2 3; 2 1 1];)")
        return None
    opens, closes = text.count("["), text.count("]")
    if closes == 0:
        return "the MATLAB matrix opened with '[' has no closing ']'"
    if opens > 1 or closes > 1:
        return (f"{max(opens, closes)} '[' ... ']' pairs: give one MATLAB matrix (a [row col digit] list "
                f"or a grid), [1 2 3; 2 1 1]")
    body, _, after = text[text.index("[") + 1:].partition("]")
    after = re.sub(r"\A\s*\)?\s*;?", "", after).strip() if "(" in text[:text.index("[")] else after.strip().lstrip(";").strip()
    if after:
        return f"text after the MATLAB matrix's ']': {clip(after, 40)!r}"
    rows = _matrix_rows(body)
    for k, row in enumerate(rows, start=1):
        for token in _row_tokens(row):
            if not _MATLAB_ROW.fullmatch(token):
                return f"row {k} of the MATLAB matrix, {clip(row, 40)!r}: {clip(token, 20)!r} is not a number"
    if rows:
        return (f"{clip(' '.join(text.split()), 40)!r} is not a MATLAB matrix as written: [1 2 3; 2 1 1], "
                f"x = [...]; or x = int8([...]);")
    return "the MATLAB matrix has no rows"


def plain_clue_list(text: str) -> np.ndarray | None:
    """The ``(N, 3)`` integers of a clue list written as JSON rows of three plain whole numbers
    (``[[1, 1, 5], [2, 3, 7], ...]``), read by NumPy from the text's bytes: ``json.loads`` made a
    Python list and an int of every value, some 50 bytes a character (790 MB for a 16 MB file).
    None for any other text, which :func:`nested_list_rows` reads as before: a sign, a fraction, an
    exponent, ``null``, a quoted cell, a leading zero, a number of ten digits or more, rows of
    another length, and three rows or fewer (exactly three are a 3x3 grid unless a size says otherwise;
    short lists keep the text path's messages: the memory is a long list's).

    Parameters
    ----------
    text : str
        The whole puzzle text.

    Returns
    -------
    ndarray or None
        ``int64``, one row a clue, as the same rows read as text give.

    Examples
    --------
    >>> plain_clue_list("[[1, 1, 5],\\n [2, 3, 7],\\n [4, 4, 1],\\n [9, 9, 9]]").tolist()
    [[1, 1, 5], [2, 3, 7], [4, 4, 1], [9, 9, 9]]
    >>> plain_clue_list("[[1, 1, 5], [2, 3, 7], [4, 4, 1], [9, 9, 9.5]]") is None
    True
    """
    stripped = text.lstrip("\ufeff").strip()   # as nested_list_rows reads it
    if not (stripped.startswith("[[") and stripped.endswith("]") and stripped.isascii()):
        return None
    raw = np.frombuffer(stripped.encode("ascii"), dtype=np.uint8)
    space = (raw == 32) | (raw == 9) | (raw == 10) | (raw == 13)   # JSON's whitespace
    digit = (raw >= 48) & (raw <= 57)
    if not (space | digit | (raw == 44) | (raw == 91) | (raw == 93)).all():
        return None
    # whitespace between two digits ('1 2') is no JSON: a run of it may not have a digit on both sides
    run_start = space[1:-1] & ~space[:-2]
    run_end = space[1:-1] & ~space[2:]
    if (digit[:-2][run_start] & digit[2:][run_end]).any():
        return None
    chars = raw[~space]
    if chars[-2] != 93:   # not ']]' at the end
        return None
    inner = chars[2:-2]   # the rows' values, ',' between them and '],[' between rows
    del raw, space, digit, run_start, run_end
    close, opening = np.flatnonzero(inner == 93), np.flatnonzero(inner == 91)
    if close.size != opening.size or not np.array_equal(close + 2, opening) or (inner[close + 1] != 44).any():
        return None
    keep = np.ones(inner.size, dtype=bool)
    keep[close + 1] = keep[opening] = False
    values = inner[keep]   # digits, ',' between a row's values, ']' between rows
    del chars, inner, keep, close, opening
    sep = (values < 48) | (values > 57)
    kinds = values[sep]
    rows = (kinds.size + 1) // 3
    if not values.size or sep[0] or sep[-1] or (sep[1:] & sep[:-1]).any() or kinds.size % 3 != 2 or rows < 4:
        return None   # an empty value, a row of other than three, or three rows or fewer (short: the text path's messages)
    if not np.array_equal(kinds, np.tile(np.array([44, 44, 93], dtype=np.uint8), rows)[:-1]):
        return None
    first = np.concatenate(([True], sep[:-1]))
    if ((values[:-1] == 48) & first[:-1] & ~sep[1:]).any():   # '05' is no JSON number
        return None
    # ten digits in a row: the text reader names the value (the gaps between separators are the values)
    if (np.diff(np.concatenate(([-1], np.flatnonzero(sep), [values.size]))) > 10).any():
        return None
    spaced = np.where(sep, np.uint8(32), values)
    del values, sep, first
    clues = np.fromstring(spaced.tobytes(), dtype=np.int64, sep=" ")
    return clues.reshape(rows, 3) if clues.size == rows * 3 else None


def nested_list_rows(text: str, where: str = "puzzle", parsed: list | None = None) -> str | None:
    """The rows of a grid written as nested lists (JSON's or Python's ``[[5, 3, 0], ...]``; ``null``,
    ``None`` or ``""`` for an empty cell, a cell's text in quotes), one a line with commas between the
    values; None for text that does not start with ``[[``.

    Parameters
    ----------
    text : str
        The whole puzzle text.
    where : str
        How a message names the input.
    parsed : list, optional
        What ``json.loads(text)`` gave when the caller parsed the text already (a ``.json``
        file's grid): taken as it is unless Python's ``None`` or quotes make the text read here
        another text.

    Returns
    -------
    str or None

    Raises
    ------
    PuzzleError
        Text that starts with ``[[`` but is not an array of rows of cells.

    Examples
    --------
    >>> nested_list_rows("[[1, 0], [null, '2']]")
    '1,0\\n,2'
    """
    stripped = text.lstrip("\ufeff").strip()
    if not stripped.startswith("[["):
        return None
    python = re.sub(r"\bNone\b", "null", stripped)
    try:
        # the caller's value is this text's unless 'None' or a quote turned it into another
        rows = parsed if parsed is not None and python == stripped and "'" not in python else \
            json.loads(python if "'" not in python else python.replace("'", '"'))
    except (ValueError, RecursionError) as e:
        reason = e.msg if isinstance(e, json.JSONDecodeError) else json_failure(e)
        raise PuzzleError(f"{where}: not an array of rows ({clip(reason, 60)})") from None
    for k, row in enumerate(rows if isinstance(rows, list) else [rows], start=1):
        if not isinstance(row, list):
            raise PuzzleError(f"{where}: item {k} of the array of rows is no row: {clip(json.dumps(row), 30)}")
        for j, value in enumerate(row, start=1):
            if value is not None and type(value) not in (int, float, str) or isinstance(value, str) and (
                    re.search(r'[,;"\s]', value.strip())):
                raise PuzzleError(f"{where}: row {k}, column {j}: {clip(json.dumps(value), 30)} is not a cell "
                                  f"(a number, its text, or null for an empty one)")
    if not any(rows):
        raise PuzzleError(f"{where}: the array of rows holds no cells")
    return "\n".join(",".join("" if v is None else v.strip() if isinstance(v, str) else repr(v) for v in row)
                     for row in rows)


def rows_as_text(rows: object, where: str = "puzzle") -> str | None:
    """The text :func:`nested_list_rows` makes of rows (lists) holding a cell's text or ``None``
    (``[["5", ""], [None, 3]]``), so that such rows read as the same array written as JSON text
    reads; None for anything else (rows of numbers alone are read as an array).

    Parameters
    ----------
    rows : object
        A document's ``givens`` or a list given to the reader; a 2-D array of text or objects (or
        rows that are such arrays) is read as the lists it holds.
    where : str
        How a message names the input.

    Returns
    -------
    str or None

    Examples
    --------
    >>> rows_as_text([["1", None], [0, ""]])
    '1,\\n0,'
    >>> rows_as_text([[1, 0], [0, 2]]) is None
    True
    """
    if isinstance(rows, np.ndarray) and rows.ndim == 2 and rows.dtype.kind in "OU":
        rows = rows.tolist()   # astype(float) took '\u0665' and '1e0' as 5 and 1: read as the rows' text is
    elif isinstance(rows, (list, tuple)) and any(isinstance(row, np.ndarray) and row.dtype.kind in "OU" for row in rows):
        rows = [row.tolist() if isinstance(row, np.ndarray) else row for row in rows]
    if not (isinstance(rows, (list, tuple)) and rows and all(isinstance(row, (list, tuple)) for row in rows)):
        return None
    if not any(v is None or isinstance(v, str) for row in rows for v in row):
        return None
    try:
        text = json.dumps(rows)
    except (TypeError, ValueError):   # a numpy scalar among them: read as an array, as before
        return None
    return nested_list_rows(text, where)


def unseen_character(text: str) -> str:
    """What a message about ``text``'s length adds when it holds a character that prints as
    nothing (a NUL byte, a zero-width space, a BOM inside it): the first such, and where; else "".

    Parameters
    ----------
    text : str
        One line of compact cells.

    Returns
    -------
    str

    Examples
    --------
    >>> unseen_character("12\\x003")
    ", among them '\\\\x00' at position 3, which shows as nothing"
    >>> unseen_character("1234")
    ''
    """
    for k, ch in enumerate(text):
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            return f", among them {ch!r} at position {k + 1}, which shows as nothing"
    return ""


def refuse_number_column(rows: str | None, where: str = "puzzle") -> str | None:
    """``rows`` (what :func:`matlab_matrix_rows` or :func:`nested_list_rows` made of a matrix) as
    they are, unless every row is one number: a matrix's number is one cell, so ``[[1234], [3412],
    ...]`` (or MATLAB's ``[1234; 3412; ...]``) is N-by-1, not a grid whose rows are those digits.

    Parameters
    ----------
    rows : str or None
        The matrix's rows, one a line with commas between the values, or None (not a matrix).
    where : str
        How a message names the input.

    Returns
    -------
    str or None
        ``rows``.

    Raises
    ------
    PuzzleError
        Every row is one number and one of them has more than one character (a single digit a
        row is a column of cells, read as the rows say).

    Examples
    --------
    >>> refuse_number_column("1,2\\n3,4")
    '1,2\\n3,4'
    """
    if rows is None:
        return None
    values = rows.splitlines()
    if values and all("," not in v and re.fullmatch(_MATLAB_NUMBER, v.strip(), re.I) for v in values) and (
            any(len(v.strip()) > 1 for v in values)):
        longest = max(values, key=lambda v: len(v.strip())).strip()
        raise PuzzleError(f"{where}: matrix is {len(values)}-by-1 (each row one number, such as {clip(longest, 24)}, "
                          "one cell): must be N-by-3 or N-by-N; a line of cells is text, not a number")
    return rows


def pandas_missing(value: object) -> bool:
    """Is ``value`` pandas' ``pd.NA`` (checked by its type, not importing pandas)? ``astype(float)``
    refuses it where it reads None as NaN."""
    kind = type(value)
    return kind.__name__ == "NAType" and kind.__module__.startswith("pandas")


def refuse_non_number(value: object, row: int, column: int, where: str) -> None:
    """Refuse an entry of a matrix of rows that ``astype(float)`` cannot read as a number (text
    that is no number, an object, a dict, a complex number), naming it and where it is; None and
    pandas' ``pd.NA`` (empty cells) and anything ``float()`` reads pass.

    Parameters
    ----------
    value : object
        The entry.
    row, column : int
        Where it is, 1-based.
    where : str
        How a message names the input.

    Raises
    ------
    PuzzleError
        ``entries must be numbers`` (``real numbers`` for a complex one), its place and its value.

    Examples
    --------
    >>> refuse_non_number(None, 1, 1, "grid")
    >>> refuse_non_number("x", 2, 3, "grid")
    Traceback (most recent call last):
    ...
    pipeline.core.errors.PuzzleError: grid: entries must be numbers: row 2, column 3 holds 'x'
    """
    if value is None or isinstance(value, (int, float, np.integer, np.floating)) or pandas_missing(value):
        return
    complex_ = isinstance(value, (complex, np.complexfloating))
    if not complex_:
        try:
            float(value)   # type: ignore[arg-type]   # Decimal, Fraction, "5": read as astype(float) reads them
            return
        except (TypeError, ValueError, ArithmeticError):
            pass
    raise PuzzleError(f"{where}: entries must be {'real ' if complex_ else ''}numbers: row {row}, column {column} "
                      f"holds {clip(repr(value), 30)}")


def matrix_of_rows(source: object, where: str = "puzzle") -> np.ndarray:
    """A grid or clue list given as a list of rows (or an array of objects) as the matrix
    ``np.asarray`` makes of it, refusing first what that would misread: ``True`` among numbers
    (``asarray`` makes it the digit 1; a bool array and JSON's ``true`` are refused too), a number too
    large for a cell (named as written: its float would round it) and a fraction, each by its row
    and column, and rows of several lengths.

    Parameters
    ----------
    source : list, tuple or ndarray
        The rows.
    where : str
        How a message names the input.

    Returns
    -------
    ndarray

    Raises
    ------
    PuzzleError
        One line naming the entry and where it is.

    Examples
    --------
    >>> matrix_of_rows([[1, 2, 3]]).tolist()
    [[1, 2, 3]]
    """
    rows = source.tolist() if isinstance(source, np.ndarray) and source.dtype == object else source
    if isinstance(rows, (list, tuple)):
        for r, row in enumerate(rows, start=1):
            for c, v in enumerate(row if isinstance(row, (list, tuple, np.ndarray)) else [row], start=1):
                if isinstance(v, (bool, np.bool_)):
                    raise PuzzleError(f"{where}: row {r}, column {c}: {v} is a bool, not a cell (a number, 0 for "
                                      "an empty one)")
                if not isinstance(v, (int, float, np.integer, np.floating)):
                    refuse_non_number(v, r, c, where)   # an object, a dict, b'x': by its place, before asarray
                    continue
                # an int as it is (10**400 is past a float: isfinite raised OverflowError), a float16 as a
                # float (its abs() > 2**31 overflowed with a RuntimeWarning)
                v = int(v) if isinstance(v, (int, np.integer)) else float(v)
                if isinstance(v, float) and not math.isfinite(v):
                    continue
                if abs(v) > 2**31:
                    shown = clip(str(v), 40) if isinstance(v, float) or abs(v) < 10 ** 40 else \
                        f"of about {int(v.bit_length() * 0.30103):,} digits"   # (str() stops at 4,300 digits)
                    raise PuzzleError(f"{where}: row {r}, column {c}: entry {shown} is too large")
                if not float(v).is_integer():
                    raise PuzzleError(f"{where}: row {r}, column {c}: {v} is not an integer: entries must be integers")
    try:
        return np.asarray(source)
    except ValueError:   # rows of several lengths
        raise PuzzleError(f"{where}: the grid's rows are of different lengths") from None


def token_matrix(rows: list[list[str]], clue_list: bool) -> np.ndarray | None:
    """The ``int64`` matrix of rows of cells of one width when every cell is a plain number
    (``[+-]?[0-9]+``, optionally ``.`` and zeros: MATLAB's ``5.0``) of at most
    :data:`MAX_TOKEN_DIGITS` characters, or, in a grid, empty or ``.`` (0), read by NumPy from
    the cells' bytes: a Python call a cell took seconds for a long clue list. None for anything
    else (a letter, ``NaN``, a sign alone, another script's digit, a long cell, an empty value
    in a clue list): the cell-by-cell reader then gives that cell's value or its message.

    Parameters
    ----------
    rows : list of list of str
        The cells, every row as long as the first.
    clue_list : bool
        The rows are ``row,col,digit`` clues (an empty cell is no value there).

    Returns
    -------
    ndarray or None
        ``(len(rows), width)``, the values the cell-by-cell reader gives.

    Examples
    --------
    >>> token_matrix([["5", "", "+3"], [".", "-0", "7.00"]], clue_list=False).tolist()
    [[5, 0, 3], [0, 0, 7]]
    >>> token_matrix([["5", "", "3"]], clue_list=True) is None
    True
    """
    width = len(rows[0]) if rows else 0
    if not width:
        return None
    try:
        raw = np.frombuffer(("\n".join(chain.from_iterable(rows)) + "\n").encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    sep = raw == 10
    ends = np.flatnonzero(sep).astype(np.int32 if raw.size < 2 ** 31 else np.int64)   # each cell's end: a '\n'
    if ends.size != len(rows) * width:   # a cell holding a line break: cell by cell
        return None
    starts = np.concatenate((ends[:1] * 0, ends[:-1] + 1))
    if (ends - starts).max() > MAX_TOKEN_DIGITS:   # (a long cell's message names it)
        return None
    digit = (raw >= 48) & (raw <= 57)
    sign = (raw == 43) | (raw == 45)
    dot = raw == 46
    if not (digit | sign | dot | sep).all():
        return None
    first = np.zeros(raw.size, dtype=bool)
    first[starts] = True
    signs = np.flatnonzero(sign)
    if not first[signs].all() or not digit[signs + 1].all():   # a sign first, then a digit
        return None
    del sign
    dots = np.flatnonzero(dot)
    alone = first[dots] & sep[np.minimum(dots + 1, raw.size - 1)]   # the cell '.'
    if clue_list and (alone.any() or (first & sep).any()):   # '.' or nothing is no value of a clue
        return None
    points = dots[~alone]
    if not digit[points - 1].all():   # '.5', '+.0': a digit before the point
        return None
    cell_of_point = np.searchsorted(ends, points)
    for offset in range(1, MAX_TOKEN_DIGITS):   # after the point: zeros alone (a cell is 12 characters at most)
        at = points + offset
        if (raw[at[at < ends[cell_of_point]]] != 48).any():
            return None
    int_end = ends.copy()   # the whole part ends at the point or the cell's end
    int_end[cell_of_point] = points
    int_end[np.searchsorted(ends, dots[alone])] = dots[alone]   # the cell '.': no digits, 0
    negative = raw[starts] == 45
    floor = starts + (negative | (raw[starts] == 43)) - 1   # before the whole part: a '\n' or a sign, worth 0
    worth = np.where(digit, raw - 48, 0).astype(np.uint8)   # (after a point: zeros, worth 0 too)
    del raw, digit, dot, first
    at = int_end - 1
    values = np.zeros(ends.size, dtype=np.int64)
    for power in range(MAX_TOKEN_DIGITS):   # the whole part's digits from its last: at most 12
        np.maximum(at, floor, out=at)
        values += worth[at] * np.int64(10 ** power)
        at -= 1
    values[negative] *= -1
    return values.reshape(len(rows), width)
