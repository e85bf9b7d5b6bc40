"""Helpers shared by the solution parsers: numbers, lines, name/value tables, status errors."""
from __future__ import annotations

import csv
import io
import re

import numpy as np

from pipeline.core.errors import clip, FormatError, NoSolutionReported, shortened

from formats.files import MAX_COUNT_DIGITS, is_count

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|infinity|nan)"
NUMBER_RE = re.compile(rf"^(?:{NUMBER})$", re.IGNORECASE)


def infeasible(where: str) -> NoSolutionReported:
    return NoSolutionReported(f"{where}: solver reports infeasible", "infeasible")


def no_solution(where: str, status: str) -> NoSolutionReported:
    """The solver says it found no solution (status ``no_solution``).

    Parameters
    ----------
    where : str
        The file, named in the message.
    status : str
        The solver's status word.
    """
    return NoSolutionReported(f"{where}: solver reports no solution (status: {status})", "no_solution")


def time_limit_reached(where: str, status: str) -> NoSolutionReported:
    """No solution because the solver's time limit stopped it.

    Parameters
    ----------
    where : str
        The file, named in the message.
    status : str
        The solver's status word.
    """
    return NoSolutionReported(f"{where}: solver reports no solution: time limit reached (status: {status})",
                              "time_limit")


def truncated(where: str, detail: str) -> FormatError:
    """A file that ends too early: one line naming what is cut off.

    Parameters
    ----------
    where : str
        The file, named in the message.
    detail : str
        What is cut off.
    """
    return FormatError(f"{where}: truncated: {detail}")


def parse_float(token: str, where: str, what: str) -> float:
    """``float(token)``, or a FormatError naming the file and what the number is.

    Parameters
    ----------
    token : str
        The text.
    where : str
        The file, named in the message.
    what : str
        What the number is, for the message.
    """
    try:
        if token.isascii():   # float() also reads other scripts' digits ('\u0664', fullwidth '\uff14')
            return float(token)
    except ValueError:
        pass
    raise FormatError(f"{where}: {what}: {token!r} is not a number") from None


def parse_floats(tokens: list[str], where: str, what: str, lines: list[int] | None = None) -> np.ndarray:
    """The tokens as floats in one call; a FormatError naming the first that is not a number.

    Parameters
    ----------
    tokens : list of str
        The texts.
    where : str
        The file, named in the message.
    what : str
        What the numbers are, for the message.
    lines : list of int, optional
        Their line numbers, for the message.
    """
    try:
        # float() also reads other scripts' digits, which no solver writes and the puzzle readers refuse
        if "".join(tokens).isascii():
            return np.array(tokens, dtype=float)
    except ValueError:
        pass
    for k, t in enumerate(tokens):
        if not t.isascii() or not NUMBER_RE.match(t):
            at = f"line {lines[k]}" if lines else what
            raise FormatError(f"{where}: {at}: {t!r} is not a number") from None
    raise FormatError(f"{where}: {what}: values are not all numbers") from None


def parse_count(token: str, where: str, what: str) -> int:
    """A non-negative ASCII decimal integer of at most
    :data:`~formats.files.MAX_COUNT_DIGITS` digits (:func:`~formats.files.is_count`), or a
    FormatError.

    Parameters
    ----------
    token : str
        The text.
    where : str
        The file, named in the message.
    what : str
        What the number is, for the message.

    Raises
    ------
    FormatError
        ``WHERE: WHAT: 'TOKEN' is not a count of up to 18 digits`` (a long token shortened).

    Examples
    --------
    >>> parse_count("729", "f", "columns")
    729
    """
    if not is_count(token):
        raise FormatError(f"{where}: {what}: {shortened(token)!r} is not a count of up to {MAX_COUNT_DIGITS} digits")
    return int(token)


def digit_tokens(tokens: np.ndarray) -> np.ndarray:
    """Which ``tokens`` (a numpy ``str`` array) pass :func:`~formats.files.is_count`, vectorised.

    ``numpy.char.isdigit`` accepts non-ASCII digits (``'²'``) that ``astype(int64)`` refuses,
    so the code points themselves are compared.

    Parameters
    ----------
    tokens : numpy.ndarray
        Strings (dtype ``<U``).

    Returns
    -------
    numpy.ndarray
        Boolean mask, True where the token converts to int64 safely.

    Examples
    --------
    >>> digit_tokens(np.array(["12", "x", "\u00b2", "", "1" * 19])).tolist()
    [True, False, False, False, False]
    """
    tokens = np.asarray(tokens, dtype=str)
    if tokens.size == 0 or tokens.dtype.itemsize == 0:
        return np.zeros(tokens.size, dtype=bool)
    width = tokens.dtype.itemsize // 4
    codes = np.ascontiguousarray(tokens).view(np.uint32).reshape(tokens.size, width)
    lengths = np.char.str_len(tokens)
    inside = np.arange(width) < lengths[:, None]
    digits = ((codes >= ord("0")) & (codes <= ord("9"))) | ~inside
    return digits.all(axis=1) & (lengths > 0) & (lengths <= MAX_COUNT_DIGITS)


def split_lines(text: str) -> list[str]:
    return text.splitlines()


def first_nonblank(head: str, k: int = 5) -> list[str]:
    """The first ``k`` lines of ``head`` that are not blank (format detection looks at them).

    Parameters
    ----------
    head : str
        Text.
    k : int
        How many lines.
    """
    out = []
    for line in head.splitlines():
        if line.strip():
            out.append(line)
            if len(out) == k:
                break
    return out


def name_value_table(body: str, name_col: int, value_col: int, min_tokens: int,
                      comment: str | None = None, max_tokens: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """Vectorised fast path (pandas' C parser) for well-formed rows; None sends the rows to the
    line-by-line reader, which names the bad line.

    Parameters
    ----------
    body : str
        Whitespace-separated rows.
    name_col, value_col : int
        Fields holding the name and the value.
    min_tokens : int
        Fields a row must have.
    comment : str, optional
        Lines starting with this are skipped.
    max_tokens : int, optional
        Fields a row may have at most (default: any number).
    """
    import pandas as pd  # lazily: solve and export never load pandas
    try:
        table = pd.read_csv(io.StringIO(body), sep=r"\s+", header=None, dtype=str, quoting=csv.QUOTE_NONE,
                            keep_default_na=False, na_values=[], comment=comment, engine="c")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None
    if table.shape[1] < min_tokens or (table.iloc[:, :min_tokens] == "").any().any():
        return None  # a short row: the loop reports it
    if max_tokens is not None and table.shape[1] > max_tokens:
        return None  # a long row: the loop reports it
    try:
        values = table[value_col].to_numpy().astype(float)
    except ValueError:
        return None
    return table[name_col].to_numpy(), values


def name_value_rows(rows: list[tuple[int, str]], where: str, *, name_col: int, value_col: int,
                     min_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """Names and values from ``(line number, line)`` rows; a short LAST row means truncation.

    Parameters
    ----------
    rows : list of (int, str)
        Line numbers and lines.
    where : str
        The file, named in the message.
    name_col, value_col : int
        Fields holding the name and the value.
    min_tokens : int
        Fields a row must have.
    """
    if len(rows) > 256:
        fast = name_value_table("\n".join(line for _, line in rows), name_col, value_col, min_tokens)
        if fast is not None:
            return fast
    return name_value_rows_slow(rows, where, name_col=name_col, value_col=value_col, min_tokens=min_tokens)


def name_value_rows_slow(rows: list[tuple[int, str]], where: str, *, name_col: int, value_col: int,
                          min_tokens: int, max_tokens: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The line-by-line reader of :func:`name_value_rows`: names the first bad line.

    Parameters
    ----------
    rows : list of (int, str)
        Line numbers and lines.
    where : str
        The file, named in the message.
    name_col, value_col : int
        Fields holding the name and the value.
    min_tokens : int
        Fields a row must have.
    max_tokens : int, optional
        Fields a row may have at most (default: any number).
    """
    names, values, numbers = [], [], []
    for k, (no, line) in enumerate(rows):
        tok = line.split()
        if len(tok) < min_tokens:
            if k == len(rows) - 1:
                raise truncated(where, f"line {no} is incomplete ({line.strip()!r})")
            raise FormatError(f"{where}: line {no}: expected {min_tokens} fields, found {line.strip()!r}")
        if max_tokens is not None and len(tok) > max_tokens:
            raise FormatError(f"{where}: line {no}: expected {max_tokens} fields (name value), found "
                              f"{len(tok)}: {clip(line.strip(), 60)!r}")
        names.append(tok[name_col])
        values.append(tok[value_col])
        numbers.append(no)
    return np.array(names, dtype=str), parse_floats(values, where, "value", numbers)


def name_value_block(lines: list[str], start: int, stop: int, where: str, *, name_col: int, value_col: int,
                      min_tokens: int, comment: str | None = None,
                      max_tokens: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``lines[start:stop]`` (blank lines, and ``comment`` lines, skipped).

    Parameters
    ----------
    lines : list of str
        The file's lines.
    start, stop : int
        The block.
    where : str
        The file, named in the message.
    name_col, value_col : int
        Fields holding the name and the value.
    min_tokens : int
        Fields a row must have.
    comment : str, optional
        Lines starting with this are skipped.
    max_tokens : int, optional
        Fields a row may have at most (a format of exactly ``name value`` lines).
    """
    block = lines[start:stop]
    if len(block) > 256:
        fast = name_value_table("\n".join(block), name_col, value_col, min_tokens, comment, max_tokens)
        if fast is not None:
            return fast
    rows = [(start + k + 1, line) for k, line in enumerate(block)
            if line.strip() and not (comment and line.lstrip().startswith(comment))]
    return name_value_rows_slow(rows, where, name_col=name_col, value_col=value_col, min_tokens=min_tokens,
                                max_tokens=max_tokens)
