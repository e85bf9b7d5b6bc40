"""The hexadoku alphabet ``0-F``: which 16x16 grids of compact cells are written in it, one grid
or many at once, and their digits.

A 16x16 grid is usually written ``1-G`` (``.`` or ``0`` empty) but hexadoku writes it ``0-F``
(``0`` a value, ``.`` or ``-`` empty). The one rule that tells them apart lives here, for the
puzzle reader (:func:`pipeline.core.parse.read_puzzle`, one grid) and for ``batch``'s compact
records (all of a chunk's at once, by NumPy): a grid with ``0`` cells, no ``G`` (nor a letter past
it), at most one ``0`` a row and a column, and ``.`` or ``-`` cells is ``0-F``; the same grid
without ``.`` or ``-`` is either reading, refused for a puzzle (:func:`ambiguous_message`) and
``0-F`` for a claimed answer (``verify``: an answer has no empty cells); anything else is ``1-G``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ZERO_BASED_SIDE", "ONE_TO_G", "ZERO_TO_F", "AMBIGUOUS", "Alphabet", "zero_based_kinds",
           "zero_based_digits", "zero_based_numbers", "ambiguous_message"]

#: The one side whose grids are commonly written in a 0-based alphabet: hexadoku's 0-F.
ZERO_BASED_SIDE = 16

#: What :func:`zero_based_kinds` says of a grid: ``1-G`` as ever, ``0-F``, or either reading.
ONE_TO_G, ZERO_TO_F, AMBIGUOUS = 0, 1, 2

_ZERO, _DOT, _DASH = ord("0"), ord("."), ord("-")


class Alphabet(list):
    """What :func:`pipeline.core.parse.read_puzzle` and :func:`~pipeline.core.parse.parse_grid`
    append the value set ``(0, ..., 15)`` to when the grid is ``0-F`` (a plain list does as well).

    ``answer=True`` says the grid is a claimed answer, which has no empty cells: a grid that
    could be either reading (no ``.`` nor ``-``) is then ``0-F``, not refused."""

    def __init__(self, answer: bool = False):
        super().__init__()
        self.answer = answer


def zero_based_kinds(raw: np.ndarray, values: np.ndarray, answer: bool = False) -> np.ndarray:
    """Which of ``P`` compact 16x16 grids are written in ``0-F``, all at once.

    Parameters
    ----------
    raw : numpy.ndarray
        ``(P, 256)`` uint8: each grid's characters (ASCII; anything else one byte, as ``?``).
    values : numpy.ndarray
        ``(P, 256)``: their ``1-G`` reading (:func:`pipeline.core.parse.compact_values`: ``.`` and
        ``0`` are 0, ``G`` is 16, a character outside the alphabet -1).
    answer : bool
        The grids are claimed answers (no empty cells): the ambiguous kind is ``0-F``.

    Returns
    -------
    numpy.ndarray
        ``(P,)`` int8: :data:`ONE_TO_G` (a ``G`` or a letter past it, no ``0``, or two ``0`` in a
        row or column: the value 0 twice is no ``0-F`` grid, so ``0`` can only be empty),
        :data:`ZERO_TO_F` (``0`` cells and ``.`` or ``-`` for empty) or :data:`AMBIGUOUS`.

    Examples
    --------
    >>> from pipeline.core.parse import compact_values
    >>> latin = "".join(("0123456789ABCDEF" * 2)[r:r + 16] for r in range(16))   # a full 0-F grid
    >>> texts = ["0" + "." * 255, "0" * 256, "G0" + "." * 254, latin]
    >>> raw = np.frombuffer("".join(texts).encode(), dtype=np.uint8).reshape(4, 256)
    >>> zero_based_kinds(raw, compact_values(texts, 16)).tolist()
    [1, 0, 0, 2]
    """
    raw = np.asarray(raw).reshape(len(raw), ZERO_BASED_SIDE * ZERO_BASED_SIDE)
    kinds = np.full(len(raw), ONE_TO_G, dtype=np.int8)
    zero = raw == _ZERO
    some = np.flatnonzero(zero.any(axis=1))   # most records of a data set have no '0' (or '0' for '.')
    some = some[~(np.asarray(values)[some] >= ZERO_BASED_SIDE).any(axis=1)]
    side = (len(some), ZERO_BASED_SIDE, ZERO_BASED_SIDE)
    counted = zero[some].reshape(side).view(np.uint8)   # '0' cells a column (axis 1) and a row (axis 2)
    twice = ((counted.sum(axis=1, dtype=np.uint8) > 1) | (counted.sum(axis=2, dtype=np.uint8) > 1)).any(axis=1)
    some = some[~twice]
    marked = ((raw[some] == _DOT) | (raw[some] == _DASH)).any(axis=1)
    kinds[some] = np.where(marked | answer, ZERO_TO_F, AMBIGUOUS)
    return kinds


def zero_based_digits(raw: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The digits (``1..16``, 0 empty) of ``0-F`` grids: ``0`` is 1, ``1-9A-F`` are 2..16, ``-``
    is empty as ``.``; a character outside the alphabet stays -1 (the caller names it).

    Parameters
    ----------
    raw : numpy.ndarray
        The grids' characters (uint8), any shape.
    values : numpy.ndarray
        Their ``1-G`` reading, the same shape.

    Examples
    --------
    >>> from pipeline.core.parse import compact_values
    >>> raw = np.frombuffer(b"0F-.", dtype=np.uint8)
    >>> zero_based_digits(raw, compact_values("0F-.", 2)[0]).tolist()
    [1, 16, 0, 0]
    """
    digits = np.where(values > 0, values + 1, values)
    digits = np.where(raw == _ZERO, 1, digits)
    return np.where(raw == _DASH, 0, digits)


def zero_based_numbers(values: np.ndarray, zeros: np.ndarray) -> np.ndarray | None:
    """The digits (``1..16``, 0 empty) of a claimed 16x16 answer written as numbers (``0 15 3``,
    a JSON array) when it is ``0-F`` by the rule of compact cells (:func:`zero_based_kinds` with
    ``answer``: ``0`` cells, no 16, at most one ``0`` a row and a column); None when it is ``1-G``.

    Parameters
    ----------
    values : numpy.ndarray
        ``(16, 16)``: the numbers as read with ``0`` empty (an empty cell is 0 too).
    zeros : numpy.ndarray
        ``(16, 16)`` bool: the cells written ``0`` (not an empty cell).

    Examples
    --------
    >>> latin = np.add.outer(np.arange(16), np.arange(16)) % 16   # a full grid of the values 0..15
    >>> zero_based_numbers(latin, latin == 0)[0, :3].tolist()
    [1, 2, 3]
    >>> zero_based_numbers(latin + 1, latin < 0) is None   # 1..16: no 0 cell
    True
    """
    values = np.asarray(values).reshape(1, -1)
    raw = np.where(np.asarray(zeros).reshape(1, -1), _ZERO, np.where(values == 0, _DOT, ord("1"))).astype(np.uint8)
    if zero_based_kinds(raw, values, answer=True)[0] == ONE_TO_G:
        return None
    return zero_based_digits(raw, values).reshape(np.shape(zeros))


def ambiguous_message(where: str, n: int = ZERO_BASED_SIDE) -> str:
    """The one-line refusal of a puzzle whose ``0`` could be either reading (:data:`AMBIGUOUS`).

    Parameters
    ----------
    where : str
        What the message names (a file, ``puzzle``).
    n : int
        The grid's side.
    """
    return (f"{where}: ambiguous {n}x{n} grid: '0' cells but no 'G' and no '.' or '-': write its empty "
            f"cells as '.' (digits 1-G: each '0'; digits 0-F: '0' is then a digit), or a full 0-F grid "
            f"as a document with \"values\": \"0-15\"")
