"""The box shape a printed grid draws with its ``|`` columns and ``---+---`` lines.

:func:`~pipeline.core.gridtext.format_grid` prints boxes that way; reading such a grid back with
the default box of its side lost any other shape (a 6x6 of 3x2 boxes came back as 2x3), so the
reader (:func:`pipeline.core.parse.read_puzzle`) asks :func:`drawn_box` when no box is given.
"""
from __future__ import annotations

import re

__all__ = ["RULED_LINE", "drawn_box", "drawn_rows"]

#: a line of box lines and spaces alone (the grid reader's decoration, no cells): ``------+-------``
RULED_LINE = re.compile(r"^[\s\-+=|]*$")


def drawn_box(text: str, n: int) -> tuple[int, int] | None:
    """The box shape drawn into a printed ``n x n`` grid by its ``|`` columns and ``---+---``
    lines (as :func:`~pipeline.core.gridtext.format_grid` prints them), or None when the text
    draws none or draws them unevenly.

    A 6x6 of 3x2 boxes printed by ``solve`` read back as 2x3 boxes (the default) before: the
    lines are the only place the shape is written. One kind of line is enough when the other
    side follows (``n`` divided by it).

    Parameters
    ----------
    text : str
        The grid's text, one row a line.
    n : int
        The grid's side, as read.

    Returns
    -------
    (int, int) or None

    Examples
    --------
    >>> drawn_box("1 3 | 4 5 | 2 6\\n4 5 | 2 6 | 1 3\\n2 6 | 1 3 | 4 5\\n----+-----+----\\n"
    ...           "3 4 | 5 2 | 6 1\\n5 2 | 6 1 | 3 4\\n6 1 | 3 4 | 5 2", 6)
    (3, 2)
    >>> drawn_box("53..7....\\n6..195...", 9) is None
    True
    """
    rows: list[str] = []
    bands: list[int] = [0]   # content lines between drawn horizontal lines
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if RULED_LINE.match(line):
            if "-" in line or "=" in line:
                bands.append(0)
            continue
        rows.append(line)
        bands[-1] += 1
    if len(rows) != n or ("|" not in text and len(bands) == 1):
        return None
    h = w = None
    bands = [k for k in bands if k]   # a border line above or below the grid makes an empty band
    if len(bands) > 1:
        if len(set(bands)) != 1 or n % bands[0]:
            return None
        h = bands[0]
    if any("|" in row for row in rows):
        widths = set()
        for row in rows:
            chunks = [chunk.split() for chunk in row.strip("|").split("|")]
            # "5 3 . | ..." holds cells separated by spaces, "53.|..." compact cells
            counts = [len(tokens) if len(tokens) > 1 else sum(len(t) for t in tokens) for tokens in chunks]
            if len(set(counts)) != 1 or sum(counts) != n:
                return None
            widths.add(counts[0])
        if len(widths) != 1:
            return None
        w = widths.pop()
    if h is None and w is not None:
        h = n // w
    elif w is None and h is not None:
        w = n // h
    return (h, w) if h is not None and w is not None and h * w == n else None


def drawn_rows(rows: list, box: object = None) -> str:
    """Rows of cells as text, with box lines every ``w`` columns and ``h`` rows when ``box`` is
    ``"HxW"`` (a JSON answer's ``"box"``: its rows alone said no shape), which :func:`drawn_box`
    reads back; without a box (or another value), the rows alone.

    Parameters
    ----------
    rows : list of list
        The rows' cells.
    box : str, optional
        ``"HxW"``.

    Returns
    -------
    str

    Examples
    --------
    >>> print(drawn_rows([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]], "2x2"), end="")
    1 2 | 3 4
    3 4 | 1 2
    ---
    2 1 | 4 3
    4 3 | 2 1
    >>> drawn_box(drawn_rows([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]], "2x2"), 4)
    (2, 2)
    """
    sides = re.fullmatch(r"([0-9]{1,3})x([0-9]{1,3})", box) if isinstance(box, str) else None
    h, w = (int(sides.group(1)), int(sides.group(2))) if sides else (0, 0)
    lines = []
    for r, row in enumerate(rows):
        if r and h and r % h == 0:
            lines.append("---")
        cells = [str(v) for v in row]
        lines.append(" | ".join(" ".join(cells[k:k + w]) for k in range(0, len(cells), w)) if w else " ".join(cells))
    return "\n".join(lines) + "\n"
