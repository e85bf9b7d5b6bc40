"""What every rule shares: the board a rule is laid on, cell references, and the rows a rule adds.

A rule (a killer cage, a thermometer, anti-knight, ...) is a frozen dataclass registered by its
``kind`` (the ``"rule"`` word of the puzzle document). It can add

* **units** (:meth:`Rule.units`): cells that hold every digit once, such as the windoku windows or a
  diagonal; they become ``= 1`` rows of ``A`` like rows, columns and boxes;
* **rows** (:meth:`Rule.rows`): linear rows over the cell/digit variables ``x[c, d]`` with integer
  coefficients, each ``<=`` (``sense "L"``) or ``=`` (``sense "E"``). A ``>=`` rule is written as its
  negation. The value of a cell is the linear expression ``v(c) = sum_d d * x[c, d]``
  (:func:`value_terms`); order and sum rules are rows over it.

and checks a grid (:meth:`Rule.violations`, complete or partial: a partial grid is judged only on
what it shows). Cells are row-major canvas numbers ``r * cols + c`` (0-based) everywhere.
"""
from __future__ import annotations

from functools import cached_property
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pipeline.core.extracells import extra_count
from pipeline.core.glyphs import Glyph
from pipeline.core.rules.cellnames import cell_list_text, cell_name, cells_text, parse_cell, parse_cells
from pipeline.core.rules.fields import check_keys, int_field, optional_field, value_span, value_words

__all__ = ["Board", "Glyph", "Rows", "Rule", "cell_list_text", "cell_name", "cells_text", "parse_cell", "parse_cells", "ragged_value_terms", "value_terms",
           "value_span", "value_words", "digit_values", "check_keys", "int_field", "optional_field"]


@dataclass(frozen=True, eq=False)
class Board:
    """Where rules are laid: a canvas of ``rows x cols`` cells (``present`` marks the cells that
    belong to the puzzle: all of them but in a gattai layout such as samurai), ``n`` digits and
    ``h x w`` boxes, with the unit families of the puzzle (to tell when a rule's row is implied
    by a unit and can be left out)."""

    rows: int
    cols: int
    n: int
    h: int
    w: int
    present: np.ndarray  # (rows * cols,) bool
    unit_families: tuple  # ((family, (U, k) cells), ...)
    #: 0-based top-left cells of a gattai layout's ``N x N`` grids; empty: the canvas is one grid.
    #: Rules between neighbours (anti-knight, anti-king, non-consecutive) act within each grid.
    grids: tuple = ()
    #: The value of each digit index (docs/conventions.md "Value sets"): digit ``k`` (0-based, the
    #: variables' last index) stands for ``values[k]``; empty: the values ``1..n``.
    values: tuple = ()
    #: Extra cells outside the grid (:mod:`pipeline.core.extracells`): extra cell ``k`` is the
    #: cell number ``rows * cols + k``; empty: none.
    extra: tuple = ()

    @property
    def shape_text(self) -> str:
        """The board's shape in words, for the messages of rules that need one square grid:
        ``a layout of 5 grids on a 21x21 canvas``, ``a 6x9 rectangle`` or ``one 9x9 grid``."""
        if self.grids:
            return f"a layout of {len(self.grids)} grids on a {self.rows}x{self.cols} canvas"
        if self.rows != self.cols or self.rows != self.n:
            return f"a {self.rows}x{self.cols} rectangle"
        return f"one {self.n}x{self.n} grid"

    @property
    def n_extra(self) -> int:
        """Extra cells outside the grid (cell numbers ``n_cells ..``)."""
        return extra_count(self.extra)

    @property
    def has_lines(self) -> bool:
        """True when the rows and the columns are units (every variant but ``raw``)."""
        names = {family for family, _ in self.unit_families}
        return "row" in names and "col" in names

    @property
    def n_values(self) -> int:
        """Digits of the variables' last index (``V``: ``n`` unless the value set is larger)."""
        return len(self.values) or self.n

    @cached_property
    def value_of(self) -> np.ndarray:
        """``(V,)`` the value of each 0-based digit (``1..n`` by default); read-only, made once."""
        out = np.array(self.values, dtype=np.int64) if self.values else np.arange(1, self.n + 1, dtype=np.int64)
        out.flags.writeable = False
        return out

    def grid_values(self, entries: np.ndarray) -> np.ndarray:
        """The values of grid entries (``1..V`` digits, 0 empty: the empty ones give 0, so keep
        a mask ``entries > 0`` where a value 0 exists).

        Parameters
        ----------
        entries : ndarray of int
            Grid entries (1-based digits, 0 empty).

        Returns
        -------
        ndarray of int
        """
        entries = np.asarray(entries, dtype=np.int64)
        if not self.values:   # the values 1..n: a digit is its value
            return np.where(entries > 0, entries, 0)
        return np.where(entries > 0, np.concatenate([[0], self.value_of])[np.clip(entries, 0, None)], 0)

    def index_of(self, values: "np.ndarray | list[int]") -> np.ndarray:
        """The 0-based digit of each value (-1 for a value outside the value set).

        Parameters
        ----------
        values : array_like of int
            Values, as documents and users write them.

        Returns
        -------
        ndarray of int
        """
        values = np.asarray(values, dtype=np.int64)
        table = self.value_of
        at = np.clip(np.searchsorted(table, values), 0, table.size - 1)   # the values ascend
        return np.where(table[at] == values, at, -1)

    def value(self, entry: int) -> int:
        """The value of one grid entry (a 1-based digit); what messages show.

        Parameters
        ----------
        entry : int
            A 1-based digit (0 gives 0).

        Returns
        -------
        int
        """
        return int(self.grid_values(np.array([entry]))[0])

    @property
    def n_cells(self) -> int:
        """Cells of the canvas (present or not)."""
        return self.rows * self.cols

    def cell(self, r: int, c: int) -> int:
        """The canvas number of 0-based ``(r, c)``.

        Parameters
        ----------
        r : int
            0-based row on the canvas.
        c : int
            0-based column on the canvas.

        Returns
        -------
        int
            ``r * cols + c``.
        """
        return r * self.cols + c

    def in_one_grid(self, groups: np.ndarray) -> np.ndarray:
        """``(G,)`` True where all cells of each group (``(G, k)`` canvas cells) lie in one grid
        of the layout (always, without a layout).

        Parameters
        ----------
        groups : ndarray of int, shape (G, k)
            Canvas cells.

        Returns
        -------
        ndarray of bool
        """
        groups = np.atleast_2d(groups)
        if not self.grids:
            return np.ones(groups.shape[0], dtype=bool)
        top, left = np.array(self.grids, dtype=np.int64).T          # (L,) each
        r, c = np.divmod(groups, self.cols)
        inside = ((r[..., None] >= top) & (r[..., None] < top + self.n)
                  & (c[..., None] >= left) & (c[..., None] < left + self.n))   # (G, k, L)
        return inside.all(axis=1).any(axis=1)

    def offset_pairs(self, offsets: list[tuple[int, int]]) -> np.ndarray:
        """``(P, 2)`` pairs ``(a, b)``, ``a < b``, of present cells one of ``offsets`` apart and
        in one grid of a layout (each pair once; sorted by ``a`` then ``b``)."""
        r, c = np.divmod(np.arange(self.n_cells), self.cols)
        found = []
        for dr, dc in offsets:
            rr, cc = r + dr, c + dc
            ok = (rr >= 0) & (rr < self.rows) & (cc >= 0) & (cc < self.cols)
            a = np.flatnonzero(ok)
            found.append(np.stack([a, rr[ok] * self.cols + cc[ok]], axis=1))
        pairs = np.concatenate(found) if found else np.zeros((0, 2), dtype=np.int64)
        pairs = np.sort(pairs, axis=1)
        pairs = pairs[self.present[pairs[:, 0]] & self.present[pairs[:, 1]]]
        pairs = pairs[self.in_one_grid(pairs)] if pairs.size else pairs
        # each pair once, by a then b (np.unique(pairs, axis=0) took 0.3-0.5 ms of anti-knight's rows)
        keys = np.sort(pairs[:, 0].astype(np.int64) * self.n_cells + pairs[:, 1])
        keys = keys[np.r_[True, keys[1:] != keys[:-1]]] if keys.size else keys
        return np.stack(np.divmod(keys, self.n_cells), axis=1).astype(np.int64)

    def orthogonal_pairs(self) -> np.ndarray:
        """``(P, 2)`` orthogonally adjacent present cells, ``a < b``, sorted."""
        return self.offset_pairs([(0, 1), (1, 0)])

    def unit_of_cells(self) -> list[np.ndarray]:
        """Per family, ``(rows * cols, )`` the unit number of each cell (-1 when in none). With
        overlapping units of one family (not the case for the built-in families) the last wins.
        Made once per board (read-only arrays): every cage's rows ask."""
        return list(self._unit_owners)

    @cached_property
    def _unit_owners(self) -> tuple[np.ndarray, ...]:
        out = []
        for _, units in self.unit_families:
            owner = np.full(self.n_cells + self.n_extra, -1, dtype=np.int64)   # extra cells: in none
            owner[units.ravel()] = np.repeat(np.arange(units.shape[0]), units.shape[1])
            owner.setflags(write=False)
            out.append(owner)
        return tuple(out)

    def share_a_unit(self, groups: np.ndarray) -> np.ndarray:
        """``(G,)`` True where all cells of each group (``(G, k)`` cells) lie in one unit."""
        groups = np.atleast_2d(groups)
        shared = np.zeros(groups.shape[0], dtype=bool)
        for owner in self.unit_of_cells():
            units = owner[groups]
            shared |= (units[:, :1] >= 0).ravel() & (units == units[:, :1]).all(axis=1)
        return shared


@dataclass
class Rows:
    """Rows a rule adds, as terms: term ``t`` puts ``coef[t]`` on ``x[cell[t], digit[t]]`` in row
    ``row[t]`` (0-based within this block). ``rhs``, ``sense`` (``"L"`` for ``<=``, ``"E"`` for
    ``=``) and ``labels`` (``(rows, k)`` 1-based label indices) are per row; the row's label is
    ``family_i_j...``."""

    family: str
    row: np.ndarray
    cell: np.ndarray
    digit: np.ndarray
    coef: np.ndarray
    rhs: np.ndarray
    sense: str
    labels: np.ndarray

    @property
    def n_rows(self) -> int:
        return int(self.rhs.size)

    @classmethod
    def empty(cls, family: str, sense: str, k: int = 1) -> "Rows":
        """No rows of ``family``: a rule returns it to keep its families' order (and width of
        labels) when it adds none of them.

        Parameters
        ----------
        family : str
            The rows' family (one of the rule's :attr:`Rule.families`).
        sense : str
            ``"L"`` (``<=``) or ``"E"`` (``=``), as the family's rows would have.
        k : int
            Label indices per row (the ``labels`` array's width).

        Returns
        -------
        Rows
            Zero rows and zero terms.
        """
        z = np.zeros(0, dtype=np.int64)
        return cls(family, z, z, z, z, z.copy(), sense, np.zeros((0, k), dtype=np.int64))


def value_terms(cells: np.ndarray, signs: np.ndarray,
                n: "int | np.ndarray | Board") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Terms of ``sum_i signs[..., i] * v(cells[..., i])`` for each leading index (a row):
    ``(row, cell, digit, coef)`` with ``coef = sign * value[digit]`` (``digit + 1`` for the values
    ``1..N``), a term per digit and cell (digit 0 of the value set 0..8 has coefficient 0 and
    is left out).

    ``cells`` and ``signs`` are ``(R, k)``; the terms of row ``r`` come in the order of its
    cells, digits fastest.

    Parameters
    ----------
    cells : ndarray of int, shape (R, k)
        Canvas cells of each row.
    signs : ndarray of int, shape (R, k)
        Each cell's sign (``+1``/``-1``) in its row.
    n : int, ndarray of int or Board
        Number of digits (values ``1..n``), the value of each digit, or the board (its values).

    Returns
    -------
    tuple of ndarray
        ``(row, cell, digit, coef)``.
    """
    cells, signs = np.atleast_2d(cells), np.atleast_2d(signs)
    r_count, k = cells.shape
    return ragged_value_terms(np.repeat(np.arange(r_count), k), cells.ravel(), signs.ravel(), n)


def ragged_value_terms(row_of: np.ndarray, cells: np.ndarray, signs: np.ndarray,
                       n: "int | np.ndarray | Board") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`value_terms` of rows of any lengths: entry ``i`` is ``signs[i] * v(cells[i])`` in row
    ``row_of[i]`` (non-decreasing); the terms in the entries' order, digits fastest.

    Parameters
    ----------
    row_of : ndarray of int
        Each entry's row.
    cells, signs : ndarray of int
        Each entry's canvas cell and sign (or weight).
    n : int, ndarray of int or Board
        Number of digits (values ``1..n``), the value of each digit, or the board (its values).

    Returns
    -------
    tuple of ndarray
        ``(row, cell, digit, coef)``.
    """
    values = n.value_of if isinstance(n, Board) else digit_values(n)
    count = values.size
    row = np.repeat(np.asarray(row_of, dtype=np.int64), count)
    cell = np.repeat(np.asarray(cells, dtype=np.int64), count)
    digit = np.tile(np.arange(count), len(cells))
    coef = np.repeat(np.asarray(signs), count) * values[digit]
    keep = coef != 0
    if not keep.all():
        row, cell, digit, coef = row[keep], cell[keep], digit[keep], coef[keep]
    return row, cell, digit, coef


def digit_values(n: "int | np.integer | np.ndarray") -> np.ndarray:
    """The value of each 0-based digit: ``1..n`` for a number of digits, else the values given.

    Parameters
    ----------
    n : int or ndarray of int
        Number of digits (the values ``1..n``), or the value of each digit.

    Returns
    -------
    ndarray of int64
    """
    if isinstance(n, (int, np.integer)):
        return np.arange(1, int(n) + 1, dtype=np.int64)
    return np.asarray(n, dtype=np.int64)


def adjacent(a: int, b: int, board: Board) -> bool:
    """Orthogonal neighbours?

    Parameters
    ----------
    a, b : int
        Canvas numbers.
    board : Board
        The board (its width).

    Returns
    -------
    bool
    """
    if max(a, b) >= board.n_cells:   # an extra cell is off the grid: next to any cell a line names
        return True
    ra, ca = divmod(a, board.cols)
    rb, cb = divmod(b, board.cols)
    return abs(ra - rb) + abs(ca - cb) == 1


def king_step(a: int, b: int, board: Board) -> bool:
    """Neighbours including diagonals?

    Parameters
    ----------
    a, b : int
        Canvas numbers.
    board : Board
        The board (its width).

    Returns
    -------
    bool
    """
    if max(a, b) >= board.n_cells:   # an extra cell is off the grid: next to any cell a line names
        return True
    ra, ca = divmod(a, board.cols)
    rb, cb = divmod(b, board.cols)
    return max(abs(ra - rb), abs(ca - cb)) == 1


class Rule:
    """Base of every rule: subclasses are frozen dataclasses registered by ``kind``.

    Class attributes
    ----------------
    kind : str
        The ``"rule"`` word of the puzzle document (``cage``, ``thermo``, ...).
    families : tuple of str
        Row families the rule adds, in the order its rows are built (documented in
        docs/conventions.md).
    description : str
        One line for ``--help`` and the docs.
    """

    kind: ClassVar[str] = ""
    families: ClassVar[tuple[str, ...]] = ()
    description: ClassVar[str] = ""
    #: True for rules without cells (anti-knight, windoku): at most one of each per puzzle.
    global_rule: ClassVar[bool] = False
    #: Nonzeros of its rows per cell variable of the board (cells x digits), for a rule over the
    #: whole grid (measured at N = 36 and 64): the memory check counts them before building.
    #: Rules over listed cells count 0 here (see :attr:`line_nonzeros`).
    nonzeros_per_variable: ClassVar[float] = 0.0
    #: Nonzeros of its rows per cell it names per ``V^2`` (``N^2`` without a value set), for a rule
    #: over listed cells whose rows pair its cells' digits (a between line, a hidden skyscraper
    #: clue: about ``c L N^2`` for
    #: ``L`` cells, measured at N = 16, 25 and 36): 0 for one bounded by its document's length
    #: (a cage, a thermometer: about ``2 L N``). A 100-cell between line of a 100x100 is 3 million.
    line_nonzeros: ClassVar[float] = 0.0
    #: Building a nonzero of this rule's rows against the whole-grid rules' rate
    #: (:data:`pipeline.core.stops.RULE_BUILD_CPU_SECONDS_PER_NONZERO`): a line's rows come in a few
    #: large vectorised blocks.
    build_cost: ClassVar[float] = 1.0
    #: What pictures call one rule of this kind ("killer cage"); :meth:`title` adds an "s" for
    #: several. Default: the kind.
    noun: ClassVar[str] = ""
    #: Rules of the kind draw alike (two same-values rules: four "=" cages), so with two or more
    #: each one's glyph labels get its number (:func:`pipeline.core.glyphs.rule_numbers`).
    numbered_glyphs: ClassVar[bool] = False
    #: The caption names the rule, with its :meth:`legend` in brackets, even when it draws
    #: glyphs (a chaos construction's drawn region clues say nothing of the regions themselves).
    caption_named: ClassVar[bool] = False
    #: Its rows hold only because rows and columns are units (orthogonal neighbours never share
    #: a digit, a row holds each value once): refused on a board without them (``raw``).
    needs_lines: ClassVar[bool] = False

    def number_key(self) -> object:
        """What a numbered rule's number stands for (:attr:`numbered_glyphs`): rules of one kind
        with equal keys share their number (seven automaton lines all named "Arithmetic series"
        are one ``nfa``); None: not numbered, its glyphs say all (a short contain-exactly label).
        Default: the rule itself, each its own number."""
        return id(self)

    def estimated_nonzeros(self, board: "Board") -> float:
        """The nonzeros of this rule's rows on ``board``, known before they are built: the memory
        and time limits count them (:func:`pipeline.core.rulerows.rule_nonzeros`). By default
        :attr:`nonzeros_per_variable` over the board's cell-digit variables and, for a rule over
        listed cells, :attr:`line_nonzeros` a cell per ``V^2``. A rule whose rows grow otherwise
        (with the grid, as the anti-taxicab's pairs at distance ``v`` for each value ``v``, or with
        its document, as an automaton's steps) overrides this with its own count.

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        float
            Estimated nonzeros (an upper bound where the docstring of an override says so).
        """
        total = self.nonzeros_per_variable * board.rows * board.cols * board.n_values
        if not self.line_nonzeros:
            return total
        # pairs of the line's digits: V^2 of them with a value set of V (whispers of 400 values on
        # a 9x9 built 9 GB under a 1 GB limit when counted by the side)
        return total + self.line_nonzeros * self.cells().size * board.n_values ** 2

    # -- reading and writing ------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Rule":  # pragma: no cover - abstract
        """The rule of a document entry, checked against ``board``.

        Parameters
        ----------
        data : dict
            The document entry (``{"rule": kind, ...}``); a key the rule does not know is refused.
        board : Board
            The puzzle's board: cells must lie on it, digits and sums fit its ``n``.
        where : str
            How messages name the entry (``rules[3] (cage)``).

        Returns
        -------
        Rule

        Raises
        ------
        PuzzleError
            A bad cell, field or a rule that cannot hold (one line naming ``where``).
        """
        raise NotImplementedError

    def to_dict(self, board: Board) -> dict:  # pragma: no cover - abstract
        """The document entry (``{"rule": kind, ...}``) that reads back as this rule."""
        raise NotImplementedError

    def describe(self, board: Board) -> str:
        """How messages name this rule (``cage r1c1..r2c1``)."""
        return self.kind

    # -- the model ------------------------------------------------------------------------------
    def units(self, board: Board) -> list[tuple[str, np.ndarray]]:
        """``[(family, cells)]`` units (``(U, N)`` cells) this rule adds (default none)."""
        return []

    def rows(self, board: Board, index: int) -> list[Rows]:
        """Rows this rule adds beyond units (default none).

        Parameters
        ----------
        board : Board
            The puzzle's board (digits ``n``, units, layout).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind (build.py counts
            them in document order), the first index of its row labels.

        Returns
        -------
        list of Rows
            One block per family of :attr:`families`, in that order.
        """
        return []

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """The rows of ``rules`` (this kind's, in the puzzle's order) at once: those of each rule's
        :meth:`rows` in turn (numbered from ``first_index``). An override builds them together:
        consecutive blocks of one family may come as one, empty ones after a family's first go.

        Parameters
        ----------
        rules : list of Rule
            Rules of this kind, in the puzzle's order.
        board : Board
            The puzzle's board.
        first_index : int
            The first rule's 1-based number among the puzzle's rules of its kind.

        Returns
        -------
        list of Rows
        """
        return [block for index, rule in enumerate(rules, start=first_index) for block in rule.rows(board, index)]

    def adds_rows(self, board: Board) -> bool:
        """True when the rule adds rows beyond units (``R``), not only units (windoku windows).

        Parameters
        ----------
        board : Board
            The puzzle's board.
        """
        return any(rows.n_rows for rows in self.rows(board, 1))

    # -- checking grids -------------------------------------------------------------------------
    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Every way ``grid`` breaks this rule. Units are checked by the unit kernel, not here.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, digits ``1..n``, 0 = empty (a partial grid is judged on what it shows).
        board : Board
            The puzzle's board (its width, for cell names in the messages).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` entries, none when the grid keeps the rule.
        """
        return []

    def cells(self) -> np.ndarray:
        """The cells the rule names (empty for global rules); used by draw and messages."""
        return np.zeros(0, dtype=np.int64)

    def bind(self, rules: "tuple[Rule, ...]") -> "Rule":
        """This rule as it stands among a puzzle's ``rules`` (the puzzle calls it when it is
        built): a rule whose meaning depends on the others (strict XV exempts the marked pairs)
        returns a copy that knows them; every other rule returns itself.

        Parameters
        ----------
        rules : tuple of Rule
            All the puzzle's rules, this one included.

        Returns
        -------
        Rule
        """
        return self

    def bound_text(self, board: Board) -> str:
        """What :meth:`bind` took from the other rules, in words (``""`` when nothing): a list of
        rules that holds this one but not those others (explain's conflicting sets) still means
        it as bound, so the list says so.

        Parameters
        ----------
        board : Board
            The puzzle's board (cell names).

        Returns
        -------
        str
        """
        return ""

    # -- pictures -------------------------------------------------------------------------------
    def glyphs(self, board: Board) -> "list[Glyph]":
        """What the rule looks like (:mod:`pipeline.core.glyphs`): cages, lines, dots, marks,
        outside clues, shades. The notebook SVG and ``draw`` both draw them. Default none: the
        rule is named in the picture's title only (anti-knight).

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        list of Glyph
        """
        return []

    def legend(self, board: Board) -> str:
        """What a picture's caption says of this rule that its glyphs cannot show (a pairwise
        rule's allowed pairs), after the label of its first glyph; default ``""``: nothing.

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        str
        """
        return ""

    @classmethod
    def title(cls, rules: list) -> str:
        """How a picture's title names a puzzle's ``rules`` of this kind: ``4 thermometers``
        (:attr:`noun`, counted), or the noun alone for a global rule (``anti-knight``).

        Parameters
        ----------
        rules : list of Rule
            The puzzle's rules of this kind (at least one).

        Returns
        -------
        str
        """
        noun = cls.noun or cls.kind
        if cls.global_rule:
            return noun
        return f"{len(rules)} {noun if len(rules) == 1 else plural(noun)}"


def plural(noun: str) -> str:
    """The English plural of a rule's noun.

    Parameters
    ----------
    noun : str
        One rule, as :attr:`Rule.noun` says it.

    Returns
    -------
    str

    Examples
    --------
    >>> [plural(n) for n in ("cage", "lunchbox", "set of counting circles", "full-rank ties")]
    ['cages', 'lunchboxes', 'sets of counting circles', 'full-rank ties']
    """
    head, of, tail = noun.partition(" of ")
    if of:
        return plural(head) + of + tail
    if noun.endswith("ies"):   # already plural ("ties")
        return noun
    return noun + ("es" if noun.endswith(("s", "x", "z", "ch", "sh")) else "s")
