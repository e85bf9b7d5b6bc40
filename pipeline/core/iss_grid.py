"""The grid an ISS string describes (:class:`IssGrid`): its side, units, values and cell ids both
ways, with the error its readers raise (:class:`IssArgError`). A module of its own, below
:mod:`pipeline.core.iss_table` and the modules of further mappings it merges (``iss_table2`` ...),
so that each of those imports alone (none imports the table back).
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.core.errors import clip
from pipeline.core.iss_extra import (doc_to_iss_extra, extra_adjacent_pairs, iss_extra_at, iss_extra_ids, iss_extra_name,
                                     iss_extra_place)
from pipeline.core.rules.cellnames import cell_position

__all__ = ["CHAOS_CELL", "IssArgError", "IssGrid", "iss_cell_id"]

#: ISS writes a row or column number in base 17: 1..9, then a..g for 10..16.
_DIGITS = "123456789abcdefg"
#: A chaos construction's region cell (``CC11``), the one pattern :mod:`pipeline.core.iss_chaos` reads too.
CHAOS_CELL = re.compile(r"[Cc][Cc]([0-9]+)")


class IssArgError(ValueError):
    """A constraint's arguments are wrong (the reader adds which constraint and where)."""


def iss_cell_id(row: int, col: int) -> str:
    """``R1C1`` of 0-based ``(row, col)``, as ISS writes it (``RaCg`` for row 10, column 16).

    Parameters
    ----------
    row, col : int
        0-based, below 16.
    """
    return f"R{_DIGITS[row]}C{_DIGITS[col]}"


class IssGrid:
    """The grid a string describes, for the table's functions: its side ``n``, its unit of each
    cell (boxes or jigsaw regions; None for none) and its values (``1..n``, or ISS's ``0..n-1``:
    a pair key indexes value positions), with cell and value conversions both ways."""

    def __init__(self, n: int, units: np.ndarray | None = None, values: tuple[int, ...] | None = None,
                 rows: int | None = None, cols: int | None = None):
        self.n = n
        self.rows, self.cols = rows or n, cols or n   # a rectangle's shape (pipeline.core.rect)
        self.units = units
        self.values: tuple[int, ...] = tuple(values) if values else tuple(range(1, n + 1))
        #: Extra cells (pipeline.core.iss_extra): ISS prefix (``VS``) -> (document group, cells);
        #: ``extra_groups``/``implicit`` the puzzle's groups and those a constraint declares (writing).
        self.extra: dict[str, tuple[str, int, int]] = {}
        self.extra_groups: tuple = ()
        self.implicit: frozenset[str] = frozenset()

    @property
    def one_to_n(self) -> bool:
        """Are the values ``1..n`` (no value set)?"""
        return self.values == tuple(range(1, self.n + 1))

    def value_positions(self, values: "np.ndarray | list") -> np.ndarray:
        """0-based positions of values in the grid's value set (ISS's pair-key index).

        Parameters
        ----------
        values : array_like of int
            Values of the set.

        Returns
        -------
        ndarray of int

        Raises
        ------
        IssArgError
            A value outside the set.
        """
        table = np.array(self.values, dtype=np.int64)
        values = np.asarray(values, dtype=np.int64)
        at = np.clip(np.searchsorted(table, values), 0, table.size - 1)   # the values ascend
        if values.size and not np.array_equal(table[at], values):
            bad = values[table[at] != values].ravel()[0]
            raise IssArgError(f"{int(bad)} is not one of the values {self.values[0]}-{self.values[-1]}")
        return at

    def rc(self, token: str) -> tuple[int, int]:
        """0-based ``(row, col)`` of an ISS cell id (``R1C1``, ``r3c5``, ``RaCa``)."""
        if len(token) == 4 and token[0] in "Rr" and token[2] in "Cc":
            r, c = _DIGITS.find(token[1].lower()), _DIGITS.find(token[3].lower())
            if 0 <= r < self.rows and 0 <= c < self.cols:
                return r, c
        if CHAOS_CELL.fullmatch(token):   # ISS's chaos construction lane: only chaos clues take it
            raise IssArgError(f"{clip(token)!r} is a chaos construction region cell (CC), which only the chaos "
                              f"clues (ChaosCount, ChaosArrow, SameValues, AllDifferent, CountDistinct) and NFA take")
        if self.extra and iss_extra_name(token, self.extra) is not None:
            raise IssArgError(f"{clip(token)!r} is an extra cell (ISS Var), not a cell of the "
                              f"{self.rows}x{self.cols} grid, and this constraint takes grid cells only")
        ids = iss_extra_ids(token, self.extra)
        if ids:   # a declared Var's prefix past its cells ('VL37' of 36): "not a cell of the 6x6 grid" hid that
            raise IssArgError(f"{clip(token)!r} is none of the extra cells (ISS Var) of its prefix: {ids}")
        raise IssArgError(f"{clip(token)!r} is not a cell of the {self.rows}x{self.cols} grid")

    def cell(self, token: str) -> str:
        """The document's name (``r1c1``, or an extra cell's ``S3`` for ``VS3``) of an ISS cell id."""
        named = iss_extra_name(token, self.extra) if self.extra else None
        if named is not None:
            return named
        r, c = self.rc(token)
        return f"r{r + 1}c{c + 1}"

    def cells(self, tokens: list[str], at_least: int = 1) -> list[str]:
        """The document's names of ISS cell ids; at least ``at_least`` of them.

        Parameters
        ----------
        tokens : list of str
            ISS cell ids (``R1C1``, ``RaC2``), the rule's arguments.
        at_least : int
            Fewest cells the ISS rule takes.

        Returns
        -------
        list of str
            Document cell names (``r1c1``), in the given order.

        Raises
        ------
        IssArgError
            Fewer than ``at_least`` ids, or one that is not a cell of the grid.
        """
        if len(tokens) < at_least:
            raise IssArgError(f"expected at least {at_least} cell(s), found {len(tokens)}")
        return [self.cell(t) for t in tokens]

    def to_iss(self, name: str) -> str:
        """The ISS cell id of a document cell name (``r10c2`` -> ``RaC2``; an extra cell ``S3`` -> ``VS3``)."""
        extra = doc_to_iss_extra(name, self.extra_groups, self.implicit) if self.extra_groups else None
        if extra is not None:
            return extra
        at = cell_position(name)
        if at is None:
            raise IssArgError(f"{clip(name)!r} is not a cell of the {self.rows}x{self.cols} grid")
        return iss_cell_id(at[0] - 1, at[1] - 1)

    def any_extra(self, tokens: list[str]) -> bool:
        """Is any of these ISS ids an extra cell (ISS ``Var``)? Such cells share no row, column or
        unit with anything, so the readers that look for a line or a unit take them apart."""
        return bool(self.extra) and any(iss_extra_name(t, self.extra) is not None for t in tokens)

    def place(self, token: str) -> tuple[str, int, int]:
        """Where ISS's cell graph puts a cell id: ``("", row, col)`` on the grid, or a var cell's
        ``(prefix, row, col)`` in its group's layout (rows of the declared width, a count in rows
        of the grid's columns); cells of different groups are never neighbours."""
        at = iss_extra_place(token, self.extra) if self.extra else None
        if at is None:
            return ("", *self.rc(token))
        width = self.extra[at[0]][2]
        return at[0], at[1] // width, at[1] % width

    def at(self, group: str, row: int, col: int) -> str | None:
        """The document's name of the cell at ``(row, col)`` of :meth:`place`'s ``group``, or None
        when there is none.

        Parameters
        ----------
        group : str
            A var group's ISS prefix (``VL``), or ``""`` for the grid.
        row, col : int
            0-based place in the group's layout (or on the grid).

        Returns
        -------
        str or None
        """
        if group:
            token = iss_extra_at(group, row, col, self.extra)
            return None if token is None else self.cell(token)
        return f"r{row + 1}c{col + 1}" if 0 <= row < self.rows and 0 <= col < self.cols else None

    def in_one_unit(self, tokens: list[str]) -> bool:
        """Do these cells share a row, a column or a unit (box or region)?"""
        rcs = np.array([self.rc(t) for t in tokens])
        if len(np.unique(rcs[:, 0])) == 1 or len(np.unique(rcs[:, 1])) == 1:
            return True
        return self.units is not None and len(np.unique(self.units[rcs[:, 0], rcs[:, 1]])) == 1

    def adjacent_pairs(self, tokens: list[str]) -> list[tuple[str, str]]:
        """ISS's pairs of a dot or sign over several cells: each cell with the later-listed cells
        orthogonally next to it (for two cells, the pair itself when they are neighbours)."""
        if self.any_extra(tokens):   # var cells
            found = extra_adjacent_pairs(tokens, self.extra, self.rc)
            if not found:
                raise IssArgError("no two of its cells are orthogonal neighbours")
            return found
        rcs = list(dict.fromkeys(self.rc(t) for t in tokens))   # a repeated cell counts once, first place
        pairs = []
        for i, (r, c) in enumerate(rcs):
            for r2, c2 in rcs[i + 1:]:
                if abs(r2 - r) + abs(c2 - c) == 1:
                    pairs.append((f"r{r + 1}c{c + 1}", f"r{r2 + 1}c{c2 + 1}"))
        if not pairs:
            raise IssArgError("no two of its cells are orthogonal neighbours")
        return pairs
