"""Value sets: the one place where a digit of the model becomes the value a user reads and writes.

A puzzle's cells hold ``V`` possible values, ``1..N`` by default. A puzzle document may say
``"values": "0-8"`` (a range) or ``"values": [0, 1, 2, ...]`` (ascending, distinct integers):
digit ``k`` (0-based, the last index of ``x[r, c, k]``) then stands for ``values[k]``
(docs/conventions.md, "Value sets"). Inside the project a grid keeps holding 1-based digits
(``0`` empty); every user-facing form (the document's givens, printed and JSON grids, rule
entries) speaks values, through the functions here and :class:`pipeline.core.rules.Board`'s
``value_of``.

Givens of a document with a value set: ``.`` (or ``null`` in a list of rows) is an empty cell
and every other entry is a value, so ``0`` is the value 0 when the set holds it (it never means
empty there); ``"r1c1=0"`` strings name values too.
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.core.errors import clip, PuzzleError, json_kind
from pipeline.core.parse import COMPACT_DIGITS, read_grid_text, whole_number
from pipeline.core.rules.cellnames import given_pattern

__all__ = ["MAX_ABS_VALUE", "MAX_VALUES", "parse_values", "values_spec", "value_grid_text", "read_value_givens", "parse_value_grid",
           "grid_values"]

#: Values lie in ``-MAX_ABS_VALUE..MAX_ABS_VALUE`` (sum rows stay small integers).
MAX_ABS_VALUE = 9999
#: At most this many values (the variables' last index).
MAX_VALUES = 400
#: a range of up to 18-digit ends: too wide a range is said as too many values, not as no range
_RANGE = re.compile(r"^\s*(-?[0-9]{1,18})\s*-\s*(-?[0-9]{1,18})\s*$")
_GIVEN = given_pattern(5)
_COMPACT = "0" + COMPACT_DIGITS   # "0123456789ABC...": the values 0..35 as one character each


def parse_values(spec: object, n: int, where: str) -> tuple[int, ...] | None:
    """The value set of a document's ``"values"``: None when it is the default ``1..n``.

    Parameters
    ----------
    spec : str or list of int
        ``"0-8"`` (first and last value, both included) or the values in ascending order.
    n : int
        The grid's side (at least ``n`` values: every row holds ``n`` distinct ones).
    where : str
        How messages name the document.

    Returns
    -------
    tuple of int or None

    Raises
    ------
    PuzzleError
        Not a range or a list of integers, not ascending, too few, too many or too large values.

    Examples
    --------
    >>> parse_values("0-8", 9, "doc")
    (0, 1, 2, 3, 4, 5, 6, 7, 8)
    >>> parse_values([1, 2, 3, 4], 4, "doc") is None
    True
    """
    if isinstance(spec, str):
        m = _RANGE.match(spec)
        if m is None:
            raise PuzzleError(f"{where}: 'values' {clip(spec)!r} is not a range like \"0-8\" or a list of integers")
        low, high = int(m.group(1)), int(m.group(2))
        if high < low:
            raise PuzzleError(f"{where}: 'values' {spec.strip()} runs backwards")
        values = list(range(low, high + 1)) if high - low < MAX_VALUES else []
        if not values:
            raise PuzzleError(f"{where}: 'values' {spec.strip()} has {high - low + 1} values; at most {MAX_VALUES}")
    elif isinstance(spec, list):
        values = []
        for k, item in enumerate(spec):
            value = whole_number(item) if not isinstance(item, bool) else None
            if value is None:
                raise PuzzleError(f"{where}: values[{k}] is {clip(item)!r}, not an integer")
            values.append(int(value))
        if len(values) > MAX_VALUES:
            raise PuzzleError(f"{where}: 'values' lists {len(values)} values; at most {MAX_VALUES}")
        step = next((k for k in range(1, len(values)) if values[k] <= values[k - 1]), None)
        if step is not None:
            raise PuzzleError(f"{where}: 'values' must ascend without repeats; values[{step}] = {values[step]} "
                              f"follows {values[step - 1]}")
    else:
        raise PuzzleError(f"{where}: 'values' must be a range like \"0-8\" or a list of integers, "
                          f"found {json_kind(spec)}")
    big = next((v for v in values if abs(v) > MAX_ABS_VALUE), None)
    if big is not None:
        raise PuzzleError(f"{where}: value {big} is out of range (values lie in -{MAX_ABS_VALUE}..{MAX_ABS_VALUE})")
    if len(values) < n:
        raise PuzzleError(f"{where}: 'values' has {len(values)} values; a {n}x{n} grid needs at least {n}")
    return None if values == list(range(1, n + 1)) else tuple(values)


def values_spec(values: tuple[int, ...]) -> str | list[int]:
    """The document's ``"values"`` for a value set: ``"0-8"`` for a run, else the list.

    Parameters
    ----------
    values : tuple of int
        Ascending values.

    Returns
    -------
    str or list of int

    Examples
    --------
    >>> values_spec((0, 1, 2, 3)), values_spec((1, 3, 5))
    ('0-3', [1, 3, 5])
    """
    if list(values) == list(range(values[0], values[0] + len(values))):
        return f"{values[0]}-{values[-1]}"
    return list(values)


def checked_digit_grid(grid: object, rows: int, cols: int, n_values: int, what: str) -> np.ndarray:
    """``grid`` as a ``rows x cols`` array of digit indices ``0..V``, or one line saying why not
    (``Puzzle.picture`` and ``Puzzle.shown`` take a caller's grid).

    Parameters
    ----------
    grid : array_like
        Digits, 0 empty.
    rows, cols : int
        The puzzle's shape (its canvas for a layout).
    n_values : int
        ``V``: the largest digit index.
    what : str
        The caller, named in the message.

    Returns
    -------
    ndarray of int
    """
    arr = np.asarray(grid) if grid is not None else None
    if arr is None or arr.shape != (rows, cols) or not np.issubdtype(arr.dtype, np.integer):
        found = "None" if arr is None else f"{'x'.join(map(str, arr.shape)) or 'a single'} {arr.dtype}"
        raise PuzzleError(f"{what}: the grid must be {rows}x{cols} integers, found {found}")
    if arr.size and (arr.min() < 0 or arr.max() > n_values):
        raise PuzzleError(f"{what}: grid values must be 0..{n_values}")
    return arr


def grid_values(grid: np.ndarray, values: tuple[int, ...] | None) -> np.ndarray:
    """A grid of digits (``1..V``, 0 empty) as values; empty cells stay 0, so read them with the
    digit grid's mask when 0 is a value.

    Parameters
    ----------
    grid : ndarray of int
        Digits, 0 empty.
    values : tuple of int or None
        The value set (None: ``1..N``, the grid itself).

    Returns
    -------
    ndarray of int
    """
    grid = np.asarray(grid, dtype=np.int64)
    if values is None:
        return grid
    table = np.concatenate([[0], np.array(values, dtype=np.int64)])
    return table[np.clip(grid, 0, len(values))]


def value_grid_text(grid: np.ndarray, values: tuple[int, ...]) -> str:
    """A digit grid written in values: one character per cell (``.`` empty, ``0-9A-Z`` the
    values 0..35) when every value fits, else values separated by spaces (``.`` empty).

    Parameters
    ----------
    grid : ndarray of int
        Digits (``1..V``, 0 empty), any shape (written row-major).
    values : tuple of int
        The value set.

    Returns
    -------
    str

    Examples
    --------
    >>> value_grid_text(np.array([1, 0, 4]), (0, 1, 2, 3))
    '0.3'
    """
    flat = np.asarray(grid, dtype=np.int64).ravel()
    shown = grid_values(flat, values)
    if min(values) >= 0 and max(values) < len(_COMPACT):
        return "".join("." if d == 0 else _COMPACT[v] for d, v in zip(flat.tolist(), shown.tolist()))
    return " ".join("." if d == 0 else str(v) for d, v in zip(flat.tolist(), shown.tolist()))


def _digit(value: int, values: tuple[int, ...], where: str) -> int:
    """The 1-based digit of a value; PuzzleError when the set lacks it."""
    try:
        return values.index(value) + 1
    except ValueError:
        span = values_spec(values)
        raise PuzzleError(f"{where}: {value} is not one of the values {span}") from None


def wrong_cell_count(lines: list[str], compact: str, found: int, shape: str, cells: int, where: str) -> str:
    """The one line for givens text of a value set that is not ``cells`` cells: a compact line
    (no separators) is counted in characters, other text in its separated entries.

    Parameters
    ----------
    lines : list of str
        The givens' lines, comments left out.
    compact : str
        The lines without whitespace and ``|``.
    found : int
        The separated entries found.
    shape : str
        The grid, as messages name it (``4x4``).
    cells : int
        The cells it has.
    where : str
        How the message names the givens.

    Returns
    -------
    str

    Examples
    --------
    >>> wrong_cell_count(["12..34..5..."], "12..34..5...", 1, "4x4", 16, "givens")
    "givens: a compact line of 12 characters; a 4x4 grid has 16 cells (one character each, '.' empty, or values separated by spaces or commas)"
    """
    if len(lines) == 1 and found == 1:
        return (f"{where}: a compact line of {len(compact)} character{'' if len(compact) == 1 else 's'}; a {shape} grid has {cells} cells (one "
                "character each, '.' empty, or values separated by spaces or commas)")
    return f"{where}: {found} {'entry' if found == 1 else 'entries'}; a {shape} grid has {cells} cells"


def read_value_givens(givens: object, n: int, values: tuple[int, ...], where: str) -> np.ndarray:
    """The ``n x n`` digit grid (1-based, 0 empty) of a document's ``givens`` written in values.

    Parameters
    ----------
    givens : str, list of str, list of lists or list of "r1c1=v", or None
        One compact line or rows of it (``.`` empty, ``0-9A-Z`` values 0..35, spaces and ``|``
        ignored), rows of space- or comma-separated values (``.`` empty), rows of integers
        (``null`` empty), or ``"r1c1=0"`` strings.
    n : int
        The grid's side.
    values : tuple of int
        The value set.
    where : str
        How messages name the givens.

    Returns
    -------
    ndarray of int, shape (n, n)

    Examples
    --------
    >>> read_value_givens("0...", 2, (0, 1, 2), "givens").tolist()
    [[1, 0], [0, 0]]
    """
    grid = np.zeros((n, n), dtype=np.int64)
    if givens is None or givens == "" or givens == []:
        return grid
    if isinstance(givens, list) and givens and all(isinstance(g, str) and "=" in g for g in givens):
        for k, text in enumerate(givens):
            m = _GIVEN.match(text)
            if m is None:
                raise PuzzleError(f"{where}[{k}]: {clip(text, 30)!r} is not like \"r1c1=5\"")
            r, c, v = (int(m.group(i)) for i in (1, 2, 3))
            if not (1 <= r <= n and 1 <= c <= n):
                raise PuzzleError(f"{where}[{k}]: cell r{r}c{c} is outside the {n}x{n} grid")
            d = _digit(v, values, f"{where}[{k}]")
            if grid[r - 1, c - 1] and grid[r - 1, c - 1] != d:
                raise PuzzleError(f"{where}[{k}]: r{r}c{c} is given twice")
            grid[r - 1, c - 1] = d
        return grid
    if isinstance(givens, list) and all(isinstance(row, list) for row in givens):
        cells: list = [v for row in givens for v in row]
        if len(givens) != n or any(len(row) != n for row in givens):
            raise PuzzleError(f"{where}: expected {n} rows of {n} entries")
    else:
        text = "\n".join(givens) if isinstance(givens, list) and all(isinstance(r, str) for r in givens) else givens
        if not isinstance(text, str):
            raise PuzzleError(f"{where}: must be a string, a list of rows or a list of \"r1c1=v\"")
        lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        compact = "".join("".join(line.split()).replace("|", "") for line in lines)
        if len(compact) == n * n and all(ch == "." or ch.upper() in _COMPACT for ch in compact):
            cells = [None if ch == "." else _COMPACT.index(ch.upper()) for ch in compact]
        else:
            cells = [tok for line in lines for tok in re.split(r"[\s,|]+", line.strip()) if tok]
            cells = [None if tok == "." else tok for tok in cells]
        if len(cells) != n * n:
            raise PuzzleError(wrong_cell_count(lines, compact, len(cells), f"{n}x{n}", n * n, where))
    flat = grid.ravel()
    for k, item in enumerate(cells):
        if item is None:
            continue
        value = whole_number(item) if not isinstance(item, bool) else None
        if value is None and isinstance(item, str) and re.fullmatch(r"-?[0-9]{1,5}", item):
            value = int(item)
        if value is None:
            raise PuzzleError(f"{where}: r{k // n + 1}c{k % n + 1}: {clip(item)!r} is not a value")
        flat[k] = _digit(int(value), values, f"{where}: r{k // n + 1}c{k % n + 1}")
    return grid


#: A line of a printed grid that only separates boxes (``------+------``).
_SEPARATOR_LINE = re.compile(r"[\s\-+|=]*")


def parse_value_grid(source: "str | np.ndarray", n: int, values: tuple[int, ...]) -> np.ndarray:
    """A claimed solution written in a puzzle's values (as ``solve`` prints a grid of the values
    0..8: ``0`` is a value there, ``.`` an empty cell) -> its digit grid (``1..V``, 0 empty).

    Parameters
    ----------
    source : str, path or ndarray
        A compact line, rows of values (box separators ``|`` and ``---+---`` lines are skipped),
        a file of either, ``-`` for stdin, or an array of values.
    n : int
        The grid's side.
    values : tuple of int
        The puzzle's value set.

    Returns
    -------
    ndarray of int, shape (n, n)

    Raises
    ------
    PuzzleError
        A cell that is no value of the set, or not ``n * n`` cells (one line naming the cell).

    Examples
    --------
    >>> parse_value_grid("0 1 | 2 3\\n----+----\\n2 3 | 0 1\\n1 0 | 3 2\\n3 2 | 1 0", 4, (0, 1, 2, 3))[0].tolist()
    [1, 2, 3, 4]
    """
    if isinstance(source, np.ndarray):
        return read_value_givens(np.asarray(source).tolist(), n, values, "grid")
    text, where = read_grid_text(source)
    lines = [line for line in text.splitlines() if not _SEPARATOR_LINE.fullmatch(line)]
    return read_value_givens(lines, n, values, where)
