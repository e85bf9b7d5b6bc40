"""Numeric CSV: a MATLAB ``sudoku.csv`` grid (N x N digits), or a positional x vector; either
also in MATLAB's matrix syntax (``mat2str(S)``, ``x = [...];``) or as Octave displays it (``S =``
over the rows).

Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.core.cells_text import matlab_matrix_problem, matlab_matrix_rows, usual_width
from pipeline.core.errors import FormatError

from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.solutions.common import NUMBER_RE, parse_floats, split_lines


#: No grid has more digits than this (the decoder checks the puzzle's own range with the manifest).
MAX_DIGIT = 1 << 20


def _fields(line: str) -> list[str]:
    """A row's values: split at each comma or semicolon when it has one (an empty field, as MATLAB's
    ``writematrix`` writes NaN, is an empty cell: ``0``), else at white space."""
    s = line.strip()
    if "," not in s and ";" not in s:
        return s.split()
    return [t for f in re.split(r"[,;]", s) for t in (f.split() or ["0"])]


def _table(lines: list[str]) -> list[list[str]]:
    """The non-blank lines' fields; a separator ending every row (``1,2,3,``) ends it, not a field."""
    rows = [(_fields(line), line.rstrip()) for line in lines if line.strip() and line.strip() not in ",;"]
    if rows and all(text.endswith((",", ";")) for _, text in rows):
        return [fields[:-1] for fields, _ in rows]
    return [fields for fields, _ in rows]


def _numeric_table(head: str) -> list[list[str]] | None:
    rows = _table(head.splitlines()[:200])
    if not all(NUMBER_RE.match(t) for tok in rows for t in tok):
        return None
    return rows or None


def _detect_grid(head: str) -> bool:
    """Rows of numbers of one width, two or more; or evidently a grid of digits with a ragged row
    (most rows of one width, every value a whole number), which the grid reader then names
    ("line 9 has 2 cells; expected 9") rather than detection failing as an unrecognised format."""
    rows = _numeric_table(_without_names_row(head))
    if rows is None or len(rows) < 2:
        return False
    width = usual_width([len(r) for r in rows])
    usual = sum(len(r) == width for r in rows)
    if usual == len(rows):
        return width >= 2
    return width >= 2 and 2 * usual > len(rows) and all(_WHOLE.fullmatch(t) for r in rows for t in r)


#: a grid cell's value as MATLAB writes it (``5``, sometimes ``5.0``)
_WHOLE = re.compile(r"[0-9]+(?:\.0*)?")


#: A column's name in a row of names over the numbers (pandas ``to_csv``, MATLAB ``writetable``:
#: ``x`` over a vector, ``Var1,...,Var9`` over a grid); never a SAT solver's answer word, whose
#: readers come first anyway, nor a number's word (``nan``, ``inf``: a vector starting with NaN
#: lost it as a header and was one value short).
_HEADER = re.compile(r"(?!(?:UN)?SAT(?:ISFIABLE)?$|INDET$|(?i:nan|inf|infinity)$)[A-Za-z_][A-Za-z0-9_]*")


def _without_names_row(text: str) -> str:
    """``text`` without a first row of column names as wide as the row under it: a vector's
    one-word header, a MATLAB ``writetable`` grid's ``Var1,...,Var9``."""
    first, _, rest = text.lstrip("\ufeff").lstrip().partition("\n")
    names = [t.strip('"') for t in _fields(first)]
    second = next((line for line in rest.splitlines() if line.strip()), "")
    if all(_HEADER.fullmatch(t) for t in names) and len(_fields(second)) == len(names):
        return rest
    return text


def _detect_vector(head: str) -> bool:
    rows = _numeric_table(head)
    if rows is None:   # a column under a header: one value per line, at least two
        rows = _numeric_table(_without_names_row(head))
        return rows is not None and len(rows) >= 2 and all(len(r) == 1 for r in rows)
    return len(rows) == 1 or all(len(r) == 1 for r in rows)


def _read_table(text: str) -> list[list[str]]:
    return _table(split_lines(text))


def _parse_grid(text: str, where: str, *, first_line: int = 1, row: str = "line {}") -> RawSolution:
    """N lines of N integers (MATLAB ``writematrix(grid, 'sudoku.csv')``; ``writetable``'s row of
    names over them is skipped); a gattai layout's canvas (rows x columns, 0 outside its grids).

    A row of another width than most is named as the puzzle reader names it (``line 9 has 2
    cells; expected 9``): ``first_line`` is the number of ``text``'s first line in the file, ``row``
    how a row is called (``row {} of the MATLAB matrix`` for matrix syntax)."""
    body = _without_names_row(text)
    lines = split_lines(body)
    first_line += text[:len(text) - len(body)].count("\n")   # a row of names skipped
    numbers = [first_line + k for k, line in enumerate(lines) if line.strip() and line.strip() not in ",;"]
    rows = _table(lines)
    if not rows:
        raise FormatError(f"{where}: empty file")
    n = usual_width([len(r) for r in rows])
    bad = next((i for i, r in enumerate(rows) if len(r) != n), None)
    if bad is not None:
        raise FormatError(f"{where}: {row.format(numbers[bad])} has {len(rows[bad])} cells; expected {n}")
    return grid_solution(parse_floats([t for r in rows for t in r], where, "cell").reshape(len(rows), n), where)


def grid_solution(grid: np.ndarray, where: str) -> RawSolution:
    """A grid answer of numbers (from a CSV, a MAT-file, ...), each checked to be a digit.

    Parameters
    ----------
    grid : numpy.ndarray
        Two dimensions of numbers: rows x columns of the grid (or of a gattai canvas).
    where : str
        Named in the error message.
    """
    # a gattai canvas (samurai, 0 outside every grid) and a rectangle (6x9) need not be square,
    # and a puzzle of more values than the side has digits past it: the shape, the cells to fill
    # and the digits' range are the manifest's to say (pipeline.core.decode)
    grid = np.asarray(grid, dtype=float)
    bad = ~np.isfinite(grid) | (grid != np.rint(grid)) | (grid < 0) | (grid > MAX_DIGIT)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise FormatError(f"{where}: cell ({r + 1}, {c + 1}) = {grid[r, c]:.15g} is not a digit")   # 15 digits: 4.0000001 is not shown as 4
    return RawSolution("grid", np.empty(0), grid=grid.astype(np.int64))


def _parse_vector(text: str, where: str) -> RawSolution:
    """One value per line (under a one-word header, or none), or one row: the x vector in the
    export's column order."""
    rows = _read_table(_without_names_row(text))
    if len(rows) == 1:
        tokens = rows[0]
    elif all(len(r) == 1 for r in rows):
        tokens = [r[0] for r in rows]
    else:
        bad = next(i for i, r in enumerate(rows) if len(r) != 1)
        raise FormatError(f"{where}: line {bad + 1} has {len(rows[bad])} values; a vector has one value per line "
                          f"or a single row")
    return RawSolution("positions", parse_floats(tokens, where, "value"), dense=True, full_ok=True)


#: MATLAB's matrix syntax (``[4 1 7; ...]``, ``x = [0;1;...];``) or Octave's display of a
#: variable (``S =``, a blank line, the rows), told by its first characters
_MATLAB_TEXT = re.compile(r"\A\ufeff?\s*(?:(?:[A-Za-z]\w*\s*=\s*)?\[\s*[-+0-9.]|[A-Za-z]\w*\s*=[ \t]*\r?\n\s*[-+0-9.])")
_DISPLAY_NAME = re.compile(r"\A\ufeff?\s*[A-Za-z]\w*\s*=[ \t]*\r?\n")


def _detect_matlab_text(head: str) -> bool:
    return _MATLAB_TEXT.match(head) is not None


def _parse_matlab_text(text: str, where: str) -> RawSolution:
    """A grid or an x vector written as MATLAB writes a matrix, or as Octave displays one."""
    rows = matlab_matrix_rows(text)
    first_line, row = 1, "row {} of the MATLAB matrix"
    if rows is None:
        display = _DISPLAY_NAME.match(text)
        if display is None:
            raise FormatError(f"{where}: {matlab_matrix_problem(text) or 'not a MATLAB matrix'}")
        rows = text[display.end():]
        first_line, row = 1 + text[:display.end()].count("\n"), "line {}"
    table = _read_table(rows)
    if len(table) == 1 or all(len(row) == 1 for row in table):
        return _parse_vector(rows, where)
    return _parse_grid(rows, where, first_line=first_line, row=row)


register_solution_format(SolutionFormat("matlab_text", "MATLAB matrix syntax (mat2str, x = [...];) or Octave's "
                                        "display: a grid or the x vector", _detect_matlab_text, _parse_matlab_text))
register_solution_format(SolutionFormat("matlab_grid", "MATLAB sudoku.csv: N x N digits",
                                        _detect_grid, _parse_grid))
register_solution_format(SolutionFormat("vector", "x vector CSV in export column order",
                                        _detect_vector, _parse_vector))
