"""The index conventions of CONVENTIONS.md: the single source of truth for variable positions.

Every writer, reader and decoder maps between a flat variable position and the cell/digit
``(r, c, d)`` through this module. Positions here are 0-based; names and MATLAB are 1-based.

* scheme ``ijk``:   array shape ``(N, N, N)`` indexed ``[r, c, d]``.
* scheme ``block``: array shape ``(N/h, N/w, h, w, N)`` indexed ``[I, J, p, q, n]`` with
  ``r = I*h + p`` and ``c = J*w + q`` (0-based).
* order ``F`` flattens first-index-fastest (MATLAB ``reshape``), ``C`` last-index-fastest.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import ConventionError

SCHEMES = ("ijk", "block")
ORDERS = ("F", "C")


@dataclass(frozen=True)
class Convention:
    """One index convention for an ``N x N`` grid with ``h x w`` boxes."""

    scheme: str
    order: str
    h: int
    w: int

    def __post_init__(self):
        if self.scheme not in SCHEMES:
            raise ConventionError(f"scheme: unknown scheme {self.scheme!r}; expected one of {', '.join(SCHEMES)}")
        if self.order not in ORDERS:
            raise ConventionError(f"order: unknown order {self.order!r}; expected F or C")
        if self.h < 1 or self.w < 1:
            raise ConventionError(f"box: {self.h}x{self.w} is not a valid box shape")

    @property
    def n(self) -> int:
        """Side of the grid and number of digits."""
        return self.h * self.w

    @property
    def n_vars(self) -> int:
        return self.n ** 3

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of the variable array in this scheme (before flattening)."""
        n = self.n
        if self.scheme == "ijk":
            return (n, n, n)
        return (n // self.h, n // self.w, self.h, self.w, n)

    @property
    def index_names(self) -> tuple[str, ...]:
        return ("i", "j", "k") if self.scheme == "ijk" else ("I", "J", "p", "q", "n")

    def describe(self) -> str:
        return f"{self.scheme}/{self.order} ({self.n}x{self.n}, boxes {self.h}x{self.w})"

    # -- position <-> scheme tuple -------------------------------------------------------
    def tuple_to_position(self, *idx: np.ndarray) -> np.ndarray:
        """0-based scheme indices -> 0-based flat position (vectorised)."""
        return np.ravel_multi_index(idx, self.shape, order=self.order)

    def position_to_tuple(self, pos: np.ndarray) -> tuple[np.ndarray, ...]:
        """0-based flat position -> 0-based scheme indices (vectorised)."""
        return np.unravel_index(np.asarray(pos), self.shape, order=self.order)

    # -- position <-> (r, c, d) ------------------------------------------------------------
    def position(self, r, c, d) -> np.ndarray:
        """0-based (row, column, digit) -> 0-based flat position, vectorised over arrays."""
        r, c, d = np.asarray(r), np.asarray(c), np.asarray(d)
        if self.scheme == "ijk":
            return self.tuple_to_position(r, c, d)
        return self.tuple_to_position(r // self.h, c // self.w, r % self.h, c % self.w, d)

    def cell_digit(self, pos) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """0-based flat position -> 0-based (row, column, digit), vectorised."""
        t = self.position_to_tuple(pos)
        if self.scheme == "ijk":
            return t
        big_i, big_j, p, q, d = t
        return big_i * self.h + p, big_j * self.w + q, d

    def all_cell_digit(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(r, c, d) of every position 0..N^3-1, in position order."""
        return self.cell_digit(np.arange(self.n_vars))

    # -- names -----------------------------------------------------------------------------
    def names(self, pos=None) -> np.ndarray:
        """Variable names (``x_i_j_k`` or ``x_I_J_p_q_n``, 1-based) for positions (default all)."""
        pos = np.arange(self.n_vars) if pos is None else np.asarray(pos)
        parts = self.position_to_tuple(pos)
        numbers = np.char.mod("%d", np.arange(1, max(self.shape) + 1)).astype(object)
        out = np.full(pos.shape, "x", dtype=object)
        for part in parts:
            out = out + "_" + numbers[part]
        return out.astype(str)

    def positions_from_names(self, names, where: str = "names") -> np.ndarray:
        """Names -> 0-based positions; raises ConventionError naming the first bad name."""
        names = pd.Series(np.asarray(names, dtype=str))
        k = len(self.shape)
        parts = names.str.split("_", expand=True)
        ok = pd.Series(parts.shape[1] == k + 1, index=names.index)
        if parts.shape[1] == k + 1:
            idx = parts.iloc[:, 1:].apply(pd.to_numeric, errors="coerce")
            ok = (parts[0] == "x") & idx.notna().all(axis=1)
            idx = idx.fillna(0).to_numpy(np.int64) - 1
            ok &= ((idx >= 0) & (idx < np.array(self.shape))).all(axis=1)
            if ok.all():
                return self.tuple_to_position(*idx.T)
        first = names[~ok].iloc[0] if (~ok).any() else names.iloc[0]
        raise ConventionError(
            f"{where}: variable name {first!r} does not fit scheme {self.describe()} "
            f"(expected {'x_' + '_'.join(self.index_names)}, 1-based, within {self.shape})"
        )

    # -- between conventions ---------------------------------------------------------------
    def permutation_to(self, other: "Convention") -> np.ndarray:
        """``perm`` with ``x_other = x_self[perm]`` for the same assignment."""
        if other.n != self.n:
            raise ConventionError(f"conventions: cannot map {self.describe()} onto {other.describe()}")
        r, c, d = other.all_cell_digit()
        return self.position(r, c, d)


def make_convention(scheme: str, order: str, h: int, w: int, variant: str = "classic") -> Convention:
    """A Convention, refusing ``block`` where the puzzle has no rectangular boxes."""
    if scheme == "block" and variant not in ("classic", "x"):
        raise ConventionError(
            f"scheme: 'block' is defined only for puzzles with rectangular boxes, not for variant {variant!r}"
        )
    return Convention(scheme, order, h, w)
