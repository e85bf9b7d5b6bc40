"""The index conventions of docs/conventions.md: the single source of truth for variable positions.

Every writer, reader and decoder maps between a flat variable position and the cell/digit
``(r, c, d)`` through this module. Positions here are 0-based; names and MATLAB are 1-based.

* scheme ``ijk``:   array shape ``(N, N, N)`` indexed ``[r, c, d]``.
* scheme ``block``: array shape ``(N/h, N/w, h, w, N)`` indexed ``[I, J, p, q, n]`` with
  ``r = I*h + p`` and ``c = J*w + q`` (0-based).
* order ``F`` flattens first-index-fastest (MATLAB ``reshape``), ``C`` last-index-fastest.
* names ``x_i_j_k`` / ``x_I_J_p_q_n`` (1-based): :meth:`Convention.name_table` renders them as a
  byte table for the writers, :meth:`Convention.names` as strings.
"""
from __future__ import annotations

import functools
import numbers
from typing import Literal
from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import ConventionError, clip
from pipeline.core.names import NameDictionary
from pipeline.core.variants import get_variant

SCHEMES = ("ijk", "block")
ORDERS = ("F", "C")


def decimal_table(stop: int, digits: int, start: int = 0) -> np.ndarray:
    """ASCII digits of ``start..stop-1``, zero-padded to ``digits``: a ``(stop - start, digits)``
    uint8 table, built one digit column at a time (no ``(n, digits)`` integer temporary).

    Parameters
    ----------
    stop : int
        One past the last number.
    digits : int
        Width of each row (zero padded).
    start : int
        The first number.
    """
    out = np.empty((max(stop - start, 0), digits), dtype=np.uint8)
    value = np.arange(start, stop, dtype=np.int64)
    for k in range(digits - 1, -1, -1):
        value, out[:, k] = np.divmod(value, 10)
    out += ord("0")
    return out


def _index_tokens(size: int) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int, int]]]:
    """``"_<a+1>"`` for the 0-based indices ``a`` of one name part: a ``(size, 1 + D)`` uint8 table,
    left-aligned and zero-padded, each token's length, and the ``(d, lo, hi)`` ranges of the
    indices ``lo..hi-1`` whose number has ``d`` digits (contiguous ranges)."""
    digits = len(str(size))
    tokens = np.zeros((size, 1 + digits), dtype=np.uint8)
    tokens[:, 0] = ord("_")
    lengths = np.empty(size, dtype=np.int64)
    ranges = []
    for d in range(1, digits + 1):
        lo, hi = 10 ** (d - 1) - 1, min(size, 10 ** d - 1)
        tokens[lo:hi, 1:1 + d] = decimal_table(hi + 1, d, start=lo + 1)
        lengths[lo:hi] = 1 + d
        ranges.append((d, lo, hi))
    return tokens, lengths, ranges


#: The largest grid side a convention numbers: its ``N^3`` positions stay within int64.
MAX_SIDE = 2 ** 20


@dataclass(frozen=True)
class Convention:
    """One index convention for an ``N x N`` grid with ``h x w`` boxes.

    Parameters
    ----------
    scheme : {"ijk", "block"}
        Variable array ``x[i, j, k]`` (shape ``(N, N, N)``) or ``x[I, J, p, q, n]`` (shape
        ``(N/h, N/w, h, w, N)``).
    order : {"F", "C"}
        Flattening order: first index fastest (MATLAB ``reshape``) or last index fastest.
    h, w : int
        Box height and width (``N = h * w``).

    Raises
    ------
    ConventionError
        Unknown scheme or order, or a box side below 1.

    Examples
    --------
    >>> conv = Convention("ijk", "F", 3, 3)
    >>> pos = conv.position(0, 4, 6)            # row 1, column 5, digit 7 (0-based in)
    >>> int(pos), conv.names([pos]).tolist(), [int(v) for v in conv.cell_digit(pos)]
    (522, ['x_1_5_7'], [0, 4, 6])
    >>> conv.positions_from_names(["x_1_5_7"]).tolist()
    [522]
    >>> block = Convention("block", "C", 3, 3)
    >>> block.shape, block.names([0]).tolist()
    ((3, 3, 3, 3, 9), ['x_1_1_1_1_1'])
    >>> conv.permutation_to(block)[:3].tolist()     # x_block = x_ijk[perm]
    [0, 81, 162]
    """

    scheme: str
    order: str
    h: int
    w: int
    #: ``(rows, cols)`` of a gattai canvas (samurai: 21 x 21 for 9x9 grids); None for one N x N grid.
    canvas: tuple[int, int] | None = None
    #: ``V``, the digits of the last index when a value set has more values than the side
    #: (``6x6~9``: 9); None (or ``N``) for the ``N`` digits of every other puzzle.
    digits: int | None = None

    def __post_init__(self):
        if self.scheme not in SCHEMES:
            raise ConventionError(f"scheme: unknown scheme {self.scheme!r}; expected one of {', '.join(SCHEMES)}")
        if self.order not in ORDERS:
            raise ConventionError(f"order: unknown order {self.order!r}; expected F or C")
        for side in (self.h, self.w):
            if isinstance(side, bool) or not isinstance(side, numbers.Integral):
                raise ConventionError(f"box: sides must be whole numbers, found {type(side).__name__} {side!r:.20}")
        if self.h < 1 or self.w < 1:
            raise ConventionError(f"box: {self.h}x{self.w} is not a valid box shape")
        if self.h * self.w > MAX_SIDE:   # N^3 positions must be numbered in int64
            raise ConventionError(f"box: {clip(self.h)}x{clip(self.w)} boxes make a grid side above {MAX_SIDE:,}")
        object.__setattr__(self, "h", int(self.h))
        object.__setattr__(self, "w", int(self.w))
        if self.canvas is not None:
            canvas = (int(self.canvas[0]), int(self.canvas[1]))
            object.__setattr__(self, "canvas", None if canvas == (self.n, self.n) else canvas)
        if self.digits is not None:
            digits = int(self.digits)
            if digits < self.n:
                raise ConventionError(f"digits: {digits} values for a {self.n}x{self.n} grid; at least {self.n}")
            object.__setattr__(self, "digits", None if digits == self.n else digits)
        if self.canvas is not None and self.scheme != "ijk":
            raise ConventionError("scheme: a gattai layout (several grids on one canvas) or a rectangular grid has only "
                                  "the ijk scheme")

    @property
    def n(self) -> int:
        """Side of the grid and number of digits."""
        return self.h * self.w

    @property
    def v(self) -> int:
        """Digits of the last index: ``V`` (``N`` unless a value set has more values)."""
        return self.n if self.digits is None else self.digits

    @property
    def n_vars(self) -> int:
        """Number of positions, ``N^3`` (``rows * cols * N`` for a layout's canvas, ``N * N * V``
        for a value set of ``V > N`` values)."""
        return self.rows * self.cols * self.v

    @property
    def rows(self) -> int:
        """Rows of the grid (of the canvas for a gattai layout)."""
        return self.n if self.canvas is None else self.canvas[0]

    @property
    def cols(self) -> int:
        """Columns of the grid (of the canvas for a gattai layout)."""
        return self.n if self.canvas is None else self.canvas[1]

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of the variable array in this scheme (before flattening): ``(rows, cols, N)``
        for ``ijk`` (``(N, N, N)`` without a layout)."""
        n = self.n
        if self.scheme == "ijk":
            return (self.rows, self.cols, self.v)
        return (n // self.h, n // self.w, self.h, self.w, self.v)

    @property
    def index_names(self) -> tuple[str, ...]:
        """Names of the scheme's indices, as in the variable names: ``(i, j, k)`` or ``(I, J, p, q, n)``."""
        return ("i", "j", "k") if self.scheme == "ijk" else ("I", "J", "p", "q", "n")

    def describe(self) -> str:
        """One-line description for messages, e.g. ``ijk/F (9x9, boxes 3x3)``."""
        if self.canvas is not None:
            return f"{self.scheme}/{self.order} ({self.rows}x{self.cols} canvas of {self.n}x{self.n} grids, boxes {self.h}x{self.w})"
        if self.digits is not None:
            return f"{self.scheme}/{self.order} ({self.n}x{self.n} of {self.v} values, boxes {self.h}x{self.w})"
        return f"{self.scheme}/{self.order} ({self.n}x{self.n}, boxes {self.h}x{self.w})"

    @property
    def _np_order(self) -> Literal["C", "F"]:
        """``order`` as numpy's flattening order (checked on construction: ``F`` or ``C``)."""
        return "F" if self.order == "F" else "C"

    # -- position <-> scheme tuple -------------------------------------------------------
    def tuple_to_position(self, *idx: np.ndarray) -> np.ndarray:
        """0-based scheme indices -> 0-based flat position (vectorised)."""
        return np.ravel_multi_index(idx, self.shape, order=self._np_order)

    def position_to_tuple(self, pos: np.ndarray) -> tuple[np.ndarray, ...]:
        """0-based flat position -> 0-based scheme indices (vectorised)."""
        return np.unravel_index(np.asarray(pos), self.shape, order=self._np_order)

    # -- position <-> (r, c, d) ------------------------------------------------------------
    def position(self, r, c, d) -> np.ndarray:
        """0-based (row, column, digit) -> 0-based flat position, vectorised over arrays.

        Parameters
        ----------
        r : int or array_like of int
            0-based rows.
        c : int or array_like of int
            0-based columns, broadcast with ``r``.
        d : int or array_like of int
            0-based digits (digit - 1), broadcast with ``r`` and ``c``.
        """
        r, c, d = (self._checked_index(values, name, size) for values, name, size in
                   ((r, "row", self.rows), (c, "column", self.cols), (d, "digit", self.v)))
        if self.scheme == "ijk":
            return self.tuple_to_position(r, c, d)
        return self.tuple_to_position(r // self.h, c // self.w, r % self.h, c % self.w, d)

    def _checked_index(self, values, name: str, size: int) -> np.ndarray:
        """``values`` as integers in ``0..size-1``, or one line naming the first that is not
        (numpy said "invalid entry in coordinates array")."""
        values = np.asarray(values)
        if values.dtype.kind not in "iu":
            if values.dtype.kind == "b" or values.size and not np.issubdtype(values.dtype, np.number):
                raise ConventionError(f"{name}: 0-based indices must be integers, found {values.dtype}")
            whole = np.isfinite(values) & (values == np.round(values)) if values.size else values.astype(bool)
            if not whole.all():
                raise ConventionError(f"{name}: 0-based index {values[~whole].ravel()[0].item()!r} is not a whole number")
            values = values.astype(np.int64)
        outside = (values < 0) | (values >= size)
        if outside.any():
            raise ConventionError(f"{name}: 0-based index {int(values[outside].ravel()[0])} is outside 0..{size - 1}")
        return values

    def cell_digit(self, pos) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """0-based flat position -> 0-based (row, column, digit), vectorised."""
        t = self.position_to_tuple(self._checked_index(pos, "position", self.n_vars))
        if self.scheme == "ijk":
            r, c, d = t
            return r, c, d
        big_i, big_j, p, q, d = t
        return big_i * self.h + p, big_j * self.w + q, d

    def all_cell_digit(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(r, c, d) of every position 0..N^3-1, in position order."""
        return self.cell_digit(np.arange(self.n_vars))

    # -- names -----------------------------------------------------------------------------
    def name_table(self, pos=None) -> np.ndarray:
        """Names of positions ``pos`` (default all, in position order) as an ``(n, W)`` uint8 table.

        Row ``k`` holds the ASCII name of ``pos[k]`` (``x_i_j_k`` / ``x_I_J_p_q_n``, 1-based)
        left-aligned and zero-padded to ``W``, the length of the longest name of the convention
        (the same for any ``pos``), so ``table.view(f"S{W}").ravel()`` gives the names as bytes.

        Built from per-index digit tables with no Python work per name: all positions as a
        Cartesian product (one broadcast copy per index and digit count), a few positions by
        gathering their index parts.
        """
        if pos is None:
            return self._all_names_table()
        pos = np.asarray(pos).reshape(-1)
        if pos.dtype.kind not in "iu" and pos.size:
            raise ConventionError(f"position: positions must be integers, found {pos.dtype}")
        pos = self._checked_index(pos.astype(np.int64, copy=False), "position", self.n_vars)
        if 4 * pos.size < self.n_vars:
            return self._names_table_of(pos)
        if pos.size == self.n_vars and np.array_equal(pos, np.arange(pos.size)):
            return self._all_names_table()
        table = self._all_names_table()
        width = table.shape[1]
        return table.view(f"V{width}").ravel()[pos].view(np.uint8).reshape(-1, width)

    def _all_names_table(self) -> np.ndarray:
        """:meth:`name_table` of every position: built from the last index backwards, each level
        ``"_<a>" + suffix`` for all (a, suffix), one broadcast copy per digit count of ``a`` (the
        numbers with ``d`` digits are a contiguous range). Order C puts the new index slowest,
        order F fastest, so the rows come out in position order without a transpose."""
        suffix = np.zeros((1, 0), dtype=np.uint8)
        for level, size in reversed(list(enumerate(self.shape))):
            lead = 1 if level == 0 else 0                  # the leading "x"
            tokens, _, ranges = _index_tokens(size)
            count, tail = suffix.shape
            width = lead + tokens.shape[1] + tail
            if self.order == "C":
                table = np.zeros((size, count, width), dtype=np.uint8)
                view = table
            else:
                table = np.zeros((count, size, width), dtype=np.uint8)
                view = table.transpose(1, 0, 2)              # view[a, s] is table[s, a]
            if lead:
                view[:, :, 0] = ord("x")
            for d, lo, hi in ranges:
                view[lo:hi, :, lead:lead + 1 + d] = tokens[lo:hi, None, :1 + d]
                view[lo:hi, :, lead + 1 + d:lead + 1 + d + tail] = suffix[None, :, :]
            suffix = table.reshape(size * count, width)
        return suffix

    def _names_table_of(self, pos: np.ndarray) -> np.ndarray:
        """:meth:`name_table` of a few positions: each index part's ``"_<a>"`` gathered from its
        digit table and placed after the previous parts (its zero padding is overwritten by the
        next part)."""
        parts = self.position_to_tuple(pos)
        tables = [_index_tokens(size)[:2] for size in self.shape]
        width = 1 + sum(tokens.shape[1] for tokens, _ in tables)
        out = np.zeros((pos.size, width), dtype=np.uint8)
        out[:, 0] = ord("x")
        flat = out.reshape(-1)
        at = np.arange(pos.size, dtype=np.int64) * width + 1   # flat offset of the next part
        for part, (tokens, lengths) in zip(parts, tables):
            flat[at[:, None] + np.arange(tokens.shape[1])] = tokens[part]
            at += lengths[part]
        return out

    def names(self, pos=None) -> np.ndarray:
        """Variable names (``x_i_j_k`` or ``x_I_J_p_q_n``, 1-based) for positions (default all)."""
        pos = np.arange(self.n_vars) if pos is None else np.asarray(pos)
        if pos.dtype.kind not in "iu" and pos.size:
            raise ConventionError(f"position: positions must be integers, found {pos.dtype}")
        table = self.name_table(pos)
        longest = table.shape[1]                # the str dtype is as wide as the longest name here
        while longest > 1 and not table[:, longest - 1].any():
            longest -= 1
        # ASCII bytes -> UCS-4 code points: a plain uint8 -> uint32 cast (10x astype(str))
        text = np.empty((table.shape[0], longest), dtype=np.uint32)
        text[...] = table[:, :longest]
        return text.view(f"U{longest}").reshape(pos.shape)

    def positions_from_names(self, names, where: str = "names") -> np.ndarray:
        """Names -> 0-based positions; raises ConventionError naming the first bad name.

        Only the canonical spelling is accepted (``x_1_5_7``, not ``x_01_5_7`` or ``x_1.0_5_7``):
        names are looked up among this convention's own names.

        Parameters
        ----------
        names : array_like of str or bytes
            Variable names, any shape (flattened).
        where : str
            What the message names as the names' source (a file, a column).
        """
        names = np.asarray(names).ravel()
        if names.size == 0:
            return np.zeros(0, dtype=np.int64)
        if names.dtype.kind not in "SU":
            names = names.astype(str)
        pos = _name_index(self).indices(names)
        bad = np.flatnonzero(pos < 0)
        if bad.size == 0:
            return pos
        shown = names[bad[0]]
        shown = shown.decode("utf-8", "replace") if isinstance(shown, bytes) else str(shown)
        raise ConventionError(
            f"{where}: variable name {shown!r} does not fit scheme {self.describe()} "
            f"(expected {'x_' + '_'.join(self.index_names)}, 1-based, within {self.shape})"
        )

    # -- between conventions ---------------------------------------------------------------
    def permutation_to(self, other: "Convention") -> np.ndarray:
        """``perm`` with ``x_other = x_self[perm]`` for the same assignment."""
        if other.n != self.n or other.canvas != self.canvas or other.v != self.v:
            raise ConventionError(f"conventions: cannot map {self.describe()} onto {other.describe()}")
        r, c, d = other.all_cell_digit()
        return self.position(r, c, d)


@functools.lru_cache(maxsize=4)
def _name_index(conv: Convention) -> NameDictionary:
    """Dictionary of all names of ``conv`` in position order (built once per convention)."""
    table = np.ascontiguousarray(conv.name_table())
    return NameDictionary(table.view(f"S{table.shape[1]}").ravel())


def make_convention(scheme: str, order: str, h: int, w: int, variant: str = "classic",
                    canvas: tuple[int, int] | None = None, digits: int | None = None) -> Convention:
    """A Convention, refusing ``block`` where the puzzle has no rectangular boxes (and on a
    gattai ``canvas``, where boxes of different grids are not one lattice of N x N).

    Parameters
    ----------
    scheme : {'ijk', 'block'}
        Variable indexing.
    order : {'F', 'C'}
        Memory order.
    h, w : int
        Box shape.
    variant : str
        The puzzle's variant (``block`` needs boxes).
    canvas : (int, int), optional
        ``(rows, cols)`` of a gattai layout's canvas.
    digits : int, optional
        ``V``, the values of a value set larger than the side (the last index's size).
    """
    if scheme == "block" and not get_variant(variant).boxes:
        raise ConventionError(
            f"scheme: 'block' is defined only for puzzles with rectangular boxes, not for variant {variant!r}"
        )
    return Convention(scheme, order, h, w, canvas, digits)
