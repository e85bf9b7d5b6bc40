"""Build the sparse 0-1 program of a puzzle: rules ``A``, rule rows ``R``, clues ``B`` and the solver view.

``A`` has the unit families of docs/conventions.md in order (cell, row, col, box|region, diag,
anti, the variant's own, then units added by rules such as the windoku windows), each family's
rows with the last label index fastest; every row of ``A`` is ``= 1`` with ones. ``R`` holds the
rows of rules beyond units (killer cages, thermometers, Kropki dots, anti-knight, ...:
:mod:`pipeline.core.rules`), in the rules registry's order, each ``=`` or ``<=`` with integer
coefficients. ``B`` has one row per clue (ordered by row, then column). The solver view:
``Aeq x = beq`` (``A``, the ``=`` rows of ``R``, then ``B`` for the ``rows`` clue encoding) and
``Aineq x <= bineq`` (the ``<=`` rows of ``R``), bounds, integrality and objective, over
``columns``.

``A`` and ``B`` are kept as position tables (:func:`unit_positions`, :func:`clue_positions`:
every row of ``A`` has ``N`` ones, every row of ``B`` one) and ``R`` as its nonzeros; the scipy
matrices are built from them on first use, so that a path which needs none (the SAT engine on a
puzzle without rule rows) never imports scipy.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.constraints import ConstraintRows, constraint_rows  # noqa: F401  (re-exported)
from pipeline.core.conventions import Convention, make_convention
from pipeline.core.csr import Csr, leading_rows, stack_below_table, trailing_rows
from pipeline.core.decode import full_vector_of, grid_from_vector
from pipeline.core.errors import FormatError, PipelineError, PuzzleError
from pipeline.core.extracells import extra_count
from pipeline.core.puzzle import Puzzle, check_grid_size, shape_cache
from pipeline.core.rulerows import (RuleRows, aux_column_count, aux_column_names,  # noqa: F401
                                    column_name_table, column_name_width, has_rule_rows, rule_nonzeros,
                                    shared_rule_rows)
from pipeline.core.svg import model_html
from pipeline.core.variants import FAMILIES

if TYPE_CHECKING:
    import scipy.sparse as sp

CLUE_ENCODINGS = ("rows", "bounds", "reduce")


def _index_dtype(n_vars: int):
    return np.int32 if n_vars < np.iinfo(np.int32).max else np.int64


def rule_families(puzzle: Puzzle) -> list[tuple[str, np.ndarray]]:
    """``[(family, cells)]`` for every unit family of ``A``, ``cells`` of shape (n_units, N).

    The ``cell`` family is expressed with one unit per (present) cell (its N digits), the others
    are the puzzle's units, so that ``A`` is built by one rule for all. With more values than
    cells in a unit (``V > N``) ``A`` holds the cell rows only: the units, which cannot hold
    every value, are ``<= 1`` rows of ``R`` (:func:`pipeline.core.rulerows.unit_le_rows`).
    """
    cells = [("cell", np.flatnonzero(puzzle.present)[:, None])]
    return cells if puzzle.units_at_most else cells + puzzle.unit_families()


def family_row_counts(puzzle: Puzzle) -> list[tuple[str, int]]:
    """``[(family, rows)]`` of ``A`` in row order."""
    n = puzzle.n_values
    return [(name, units.shape[0] * (n if name != "cell" else 1)) for name, units in rule_families(puzzle)]


def unit_positions(puzzle: Puzzle, conv: Convention) -> np.ndarray:
    """``A`` as a table: row ``i``'s ``N`` column positions, sorted (every row of ``A`` has
    exactly ``N`` ones), shape (rows of ``A``, N).

    The SAT engine encodes this table directly, so that solving a unit-only puzzle never
    imports scipy (a process that solves one 9x9 starts in a fraction of the time; issue 18).

    Parameters
    ----------
    puzzle : Puzzle
        Its shape and variant (its unit families); the clues are not used.
    conv : Convention
        Column positions of the variables.

    Returns
    -------
    numpy.ndarray
        int32 (int64 beyond 2^31 positions) of shape (rows of ``A``, N).
    """
    n, cols_of_canvas = puzzle.n_values, puzzle.cols     # V digits: a cell row's ones (units: V = N)
    digits = np.arange(n)
    blocks = []
    for name, units in rule_families(puzzle):
        if name == "cell":
            cells = units[:, :, None]                 # row (r,c); entries over d
            d = np.broadcast_to(digits[None, None, :], (units.shape[0], 1, n))
        else:
            cells = units[:, None, :]                 # rows (unit, d), d fastest; entries over cells
            d = digits[None, :, None]
        cells, d = np.broadcast_arrays(cells, d)
        cols = conv.position(cells // cols_of_canvas, cells % cols_of_canvas, d).reshape(-1, n)
        blocks.append(cols)
    cols = np.concatenate(blocks, axis=0)
    cols.sort(axis=1)
    return cols.astype(_index_dtype(conv.n_vars))


def table_matrix(positions: np.ndarray, n_vars: int) -> sp.csr_matrix:
    """The 0-1 CSR matrix whose row ``i`` has ones at ``positions[i]`` (a table of equal-length
    rows, as :func:`unit_positions` gives).

    Parameters
    ----------
    positions : numpy.ndarray
        Shape (rows, k): each row's column positions.
    n_vars : int
        Columns of the matrix.

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    import scipy.sparse as sp  # here, not at the top: a unit-only SAT solve never needs it

    n_rows, k = positions.shape
    dtype = _index_dtype(n_vars)
    indptr = np.arange(0, n_rows * k + 1, k, dtype=dtype) if k else np.zeros(n_rows + 1, dtype=dtype)
    return sp.csr_matrix((np.ones(positions.size), positions.ravel().astype(dtype), indptr), shape=(n_rows, n_vars))


def clue_positions(puzzle: Puzzle, conv: Convention) -> np.ndarray:
    """The position of each clue's variable ``x[r,c,d]``, clues by row, then column (``B``'s
    row order: row ``i`` of ``B`` has its one 1 at ``clue_positions[i]``).

    Parameters
    ----------
    puzzle : Puzzle
        Its clues, row by row.
    conv : Convention
        Column positions of the variables.
    """
    r, c, d = puzzle.clues()
    return conv.position(r, c, d).astype(_index_dtype(conv.n_vars))


def rule_row_labels(puzzle: Puzzle) -> np.ndarray:
    """Labels of ``A``'s rows (``cell_r_c``, ``row_r_d``, ..., ``diag_d``), 1-based."""
    n = puzzle.n_values
    num = np.char.mod("%d", np.arange(1, max(n, puzzle.rows, puzzle.cols) + 1)).astype(object)
    out = []
    for name, units in rule_families(puzzle):
        if name == "cell":
            rr, cc = np.divmod(units[:, 0], puzzle.cols)
            out.append("cell_" + num[rr] + "_" + num[cc])
        elif FAMILIES[name].single:  # one unit each (diag, anti): labelled by digit only
            out.append(name + "_" + num[:n])
        else:
            u, d = np.divmod(np.arange(units.shape[0] * n), n)
            unit_num = np.char.mod("%d", np.arange(1, units.shape[0] + 1)).astype(object)
            out.append(name + "_" + unit_num[u] + "_" + num[d])
    return np.concatenate(out).astype(str)


def clue_row_labels(puzzle: Puzzle) -> np.ndarray:
    """``clue_r_c_d`` (1-based) of each row of ``B``, in ``B``'s order (by row, then column)."""
    r, c, d = puzzle.clues()
    num = np.char.mod("%d", np.arange(1, max(puzzle.n_values, puzzle.rows, puzzle.cols) + 1)).astype(object)
    return ("clue_" + num[r] + "_" + num[c] + "_" + num[d]).astype(str) if r.size else np.array([], dtype=str)


def present_positions(puzzle: Puzzle, conv: Convention) -> np.ndarray:
    """Sorted full positions of the variables of the puzzle's present cells (all without a layout).

    Parameters
    ----------
    puzzle : Puzzle
        Its present cells (a gattai layout leaves some canvas cells out).
    conv : Convention
        The positions' convention.

    Returns
    -------
    ndarray of int64
    """
    cells = np.flatnonzero(puzzle.present)
    r, c = np.divmod(np.repeat(cells, puzzle.n_values), puzzle.cols)
    return np.sort(conv.position(r, c, np.tile(np.arange(puzzle.n_values), cells.size)).astype(np.int64))


@dataclass(frozen=True, eq=False)
class Model:
    """The 0-1 program of one puzzle in one convention and clue encoding.

    ``A`` (units, ``= 1``), ``R`` (:class:`RuleRows`: rows of rules beyond units) and ``B``
    (clues) span all positions of the convention. The solver view (``Aeq``, ``beq``, ``Aineq``,
    ``bineq``, ``lb``, ``ub``, ``cost``, ``integrality``, ``row_labels``, ``ineq_labels``,
    ``col_names``) covers ``columns``: every position of a present cell (all ``N^3`` without a
    gattai layout), or for ``reduce`` the kept ones (``columns[j]`` is the full 0-based position
    of column j), then the auxiliary columns of rules that declare them (positions ``n_vars + k``,
    never removed; docs/conventions.md, "Auxiliary columns").
    """

    puzzle: Puzzle
    convention: Convention
    clue_encoding: str
    #: ``B`` as positions: row i's one column (:func:`clue_positions`)
    clue_positions: np.ndarray
    objective: np.ndarray | None = field(default=None)

    @cached_property
    def unit_positions(self) -> np.ndarray:
        """``A`` as a table: row i's N column positions (:func:`unit_positions`), read-only and
        shared by the models of one shape and convention; built on first use (``dfsrules`` and
        ``dfs`` never read it: a batch of one-record rule groups saved 0.1-0.2 ms a record)."""
        return _shared_unit_positions(self.puzzle, self.convention)

    @cached_property
    def A(self) -> sp.csr_matrix:
        """The unit rows over all positions (CSR, built on first use from :attr:`unit_positions`);
        once ``Aeq`` starts with them (no layout, no ``reduce``), a view of its first rows."""
        if ("Aeq" in self.__dict__ or "constraint_matrix" in self.__dict__) and self._units_lead:
            return leading_rows(self.Aeq, self.unit_positions.shape[0])
        return table_matrix(self.unit_positions, self.n_positions)

    @property
    def _units_lead(self) -> bool:
        """True when ``Aeq``'s first rows are ``A`` itself (no layout, no ``reduce``)."""
        return self.puzzle.layout is None and self.clue_encoding != "reduce"

    @cached_property
    def B(self) -> sp.csr_matrix:
        """The clue rows over all positions (CSR, built on first use from :attr:`clue_positions`)."""
        return table_matrix(self.clue_positions[:, None], self.n_positions)

    @cached_property
    def R(self) -> RuleRows:
        """The rows of the rules beyond units (built on first use, once per shape, rules and
        convention: the rows do not depend on the clues, so a presolved model and a batch's records
        of one rule group share them through the puzzle's shape cache)."""
        return shared_rule_rows(self.puzzle, self.convention)

    @cached_property
    def aux_names(self) -> np.ndarray:
        """Names of the auxiliary columns (``aux_<family>_<i>...``), in order: position
        ``n_vars + k`` is ``aux_names[k]`` (none for most puzzles); those of :attr:`R` once built (written
        again, 1.5 M names took 0.46 GB and seconds more in each export)."""
        if "R" in self.__dict__:
            return self.R.aux_names
        return aux_column_names(self.puzzle)[0] if self.puzzle.rules or self.puzzle.extra else np.zeros(0, dtype=str)

    @cached_property
    def n_aux(self) -> int:
        """Auxiliary columns (after the cell-digit block), counted without writing their names."""
        return aux_column_count(self.puzzle) if self.puzzle.rules or self.puzzle.extra else 0

    @property
    def n_extra_columns(self) -> int:
        """The extra cells' digit columns: the first auxiliary columns (docs/conventions.md,
        "Extra cells"); 0 without extra cells."""
        return extra_count(self.puzzle.extra) * self.puzzle.n_values if self.puzzle.extra else 0

    @property
    def solution_columns(self) -> np.ndarray:
        """Which solver columns make a solution (bool, one per column): the cells' digits and the
        extra cells' digits. Counting tells solutions apart by these alone: other auxiliary
        columns need not be fixed by them (an anyof's branch indicators when two branches hold)."""
        return self.columns < self.convention.n_vars + self.n_extra_columns

    @property
    def n_positions(self) -> int:
        """All positions: the convention's cell-digit variables, then the auxiliary columns."""
        return self.convention.n_vars + self.n_aux

    # -- the solver view -------------------------------------------------------------------
    @cached_property
    def present_columns(self) -> np.ndarray:
        """Full positions of the variables of present cells (all positions without a layout),
        then those of the auxiliary columns."""
        if self.puzzle.layout is None:
            return np.arange(self.n_positions)
        cells = present_positions(self.puzzle, self.convention)
        if not self.n_aux:
            return cells
        return np.concatenate([cells, self.convention.n_vars + np.arange(self.n_aux)])

    @cached_property
    def _clue_cover(self) -> tuple[np.ndarray, np.ndarray]:
        """(kept columns, kept rows of A): what the clues leave open under ``reduce``, else
        everything. The rule rows do not change them, so they are known without building ``R``
        (0.7 ms of a rule 9x9, its labels mostly: a search that only maps its grid back to the
        columns skips it)."""
        if self.clue_encoding != "reduce":
            return self.present_columns, np.arange(sum(rows for _, rows in family_row_counts(self.puzzle)))
        # read off the table of A's rows (numpy only: a unit-only SAT solve never builds A)
        n_vars, table = self.n_positions, self.unit_positions   # auxiliary columns: never fixed, kept
        fixed = np.zeros(n_vars, dtype=bool)
        fixed[self.clue_positions.astype(np.int64)] = True
        satisfied = fixed[table].any(axis=1)
        touched = np.zeros(n_vars, dtype=bool)
        touched[table[satisfied].ravel()] = True
        present = np.zeros(n_vars, dtype=bool)
        present[self.present_columns] = True
        return np.flatnonzero(~touched & ~fixed & present), np.flatnonzero(~satisfied)

    @cached_property
    def _reduction(self):
        """(kept columns, kept rows of A, full positions of the clues, kept rows of R, R's rhs
        after the fixed variables moved to it)."""
        clue_pos = self.clue_positions.astype(np.int64)
        R = self.R
        kept_cols, kept_rows = self._clue_cover
        if self.clue_encoding != "reduce":
            return kept_cols, kept_rows, clue_pos, np.arange(R.rhs.size), R.rhs
        fixed = np.zeros(self.n_positions, dtype=bool)
        fixed[clue_pos] = True
        if not R.rhs.size:
            return kept_cols, kept_rows, clue_pos, np.zeros(0, dtype=np.int64), R.rhs
        # rule rows: the clues' values move to the right-hand side; a row left without columns
        # is dropped when it holds (a broken one stays, empty, so the solver says infeasible)
        rhs = R.rhs - R.csr.matvec(fixed)
        live = np.diff(R.csr.take_columns(kept_cols).indptr) > 0
        holds = np.where(R.equal, np.abs(rhs) < 0.5, rhs > -0.5)
        kept_rule_rows = np.flatnonzero(live | ~holds)
        return kept_cols, kept_rows, clue_pos, kept_rule_rows, rhs

    @property
    def columns(self) -> np.ndarray:
        """Full 0-based position of each solver-view column (all ``N^3`` unless ``reduce`` or a layout)."""
        return self._clue_cover[0]

    @property
    def kept_unit_rows(self) -> np.ndarray:
        """Rows of ``A`` in the solver view, ascending: all of them, or under ``reduce`` those
        the clues leave open."""
        return self._clue_cover[1]

    @property
    def is_reduced(self) -> bool:
        """True for the ``reduce`` clue encoding (clue-settled rows and columns removed)."""
        return self.clue_encoding == "reduce"

    @cached_property
    def has_rules(self) -> bool:
        """True when the model has rows beyond units (``R`` not empty), known without building
        ``R`` (:func:`pipeline.core.rulerows.has_rule_rows`: ``auto`` asks before an engine that
        never reads ``R`` runs)."""
        if "R" in self.__dict__:
            return self.R.rhs.size > 0
        return has_rule_rows(self.puzzle)

    @cached_property
    def _rule_view(self) -> tuple[np.ndarray, np.ndarray]:
        """R's kept rows of the solver view: (rhs, sense)."""
        _, _, _, kept_rule_rows, rhs = self._reduction
        return rhs[kept_rule_rows], self.R.sense[kept_rule_rows]

    @property
    def rule_sense(self) -> np.ndarray:
        """The sense (``"E"`` | ``"L"``) of each row of :attr:`rule_csr`."""
        return self._rule_view[1]

    @cached_property
    def _rule_labels(self) -> np.ndarray:
        """R's kept rows' labels (written only when a row is named: a file, a message)."""
        return self.R.labels[self._reduction[3]]

    @cached_property
    def rule_csr(self) -> Csr:
        """R's kept rows over the solver columns, in R's order, as numpy CSR arrays (the SAT
        engine reads them without scipy; ``Aeq`` and ``Aineq`` take their rows from them)."""
        kept_cols, _, _, kept_rule_rows, _ = self._reduction
        return self.R.csr.take_rows(kept_rule_rows).take_columns(kept_cols)

    @cached_property
    def _rule_matrix(self) -> sp.csr_matrix:
        """:attr:`rule_csr` as a scipy matrix (asked for only when some rows are kept)."""
        return self.rule_csr.to_scipy()

    @cached_property
    def Aeq(self) -> sp.csr_matrix:
        """Equality matrix of the solver view: ``A``, then the ``=`` rows of ``R``, then ``B``
        (``rows``); without ``B`` for ``bounds``; reduced for ``reduce``. With ``<=`` rows, a
        view of the first rows of :attr:`constraint_matrix`."""
        if self.n_ineq:
            return leading_rows(self.constraint_matrix, self.beq.size)
        return self._rows_above([])

    @cached_property
    def constraint_matrix(self) -> sp.csr_matrix:
        """``[Aeq; Aineq]``, the rows every writer writes: built once from their parts, ``Aeq``
        and ``Aineq`` views of its rows (each writer stacked a copy of them; 35-50 MB at 100x100);
        ``Aeq`` itself without ``<=`` rows."""
        if not self.n_ineq:
            return self.Aeq
        _, sense = self._rule_view
        return self._rows_above([self._rule_matrix[sense == "L"]])

    def _rows_above(self, ineq: list) -> sp.csr_matrix:
        """``Aeq``'s rows with the ``ineq`` matrices (none, or the ``<=`` rows) stacked below."""
        import scipy.sparse as sp  # here, not at the top: a unit-only SAT solve never needs it

        _, sense = self._rule_view
        eq_rules = self._rule_matrix[sense == "E"] if sense.size else None
        below = [eq_rules] if eq_rules is not None and eq_rules.shape[0] else []
        if self.clue_encoding == "rows" and self.B.shape[0]:   # no clue: A itself, not a copy (48 MB at 100x100)
            below.append(self.B if self.puzzle.layout is None else self.B[:, self.columns])
        below += ineq
        if self._units_lead:   # A, then the rows below: built once, and A becomes a view of it
            if not below:
                return self.A
            if "A" not in self.__dict__:
                return stack_below_table(self.unit_positions, below, self.n_positions)
            stacked = sp.vstack([self.A, *below], format="csr")
            self.__dict__.pop("A")   # its arrays freed: read again, a view of Aeq's (A was 48 MB at 100x100)
            return stacked
        # A over the kept rows and columns: a table's own matrix, never cached beside Aeq's rows
        units = self.__dict__.get("A")
        if self.clue_encoding == "reduce":
            kept_cols, kept_rows = self._reduction[:2]
            units = (units[kept_rows] if units is not None else table_matrix(self.unit_positions[kept_rows],
                                                                             self.n_positions))[:, kept_cols].tocsr()
        else:
            units = (units if units is not None else table_matrix(self.unit_positions, self.n_positions))
            units = units[:, self.columns].tocsr()
        return units if not below else sp.vstack([units, *below], format="csr")

    @cached_property
    def beq(self) -> np.ndarray:
        """Right-hand side of ``Aeq``: 1 for unit and clue rows, the rule's value (a cage sum,
        less the clues it holds under ``reduce``) for the ``=`` rows of ``R``."""
        rhs, sense = self._rule_view
        units = self.unit_positions.shape[0] if self.clue_encoding != "reduce" else self.kept_unit_rows.size
        clues = self.clue_positions.size if self.clue_encoding == "rows" else 0
        return np.concatenate([np.ones(units), rhs[sense == "E"], np.ones(clues)])

    @cached_property
    def Aineq(self) -> sp.csr_matrix:
        """Inequality matrix of the solver view: the ``<=`` rows of ``R`` (0 rows for unit-only puzzles)."""
        import scipy.sparse as sp  # here, not at the top: a unit-only SAT solve never needs it

        _, sense = self._rule_view
        if self.n_ineq:   # the last rows of constraint_matrix (a view)
            return trailing_rows(self.constraint_matrix, self.beq.size)
        return self._rule_matrix[sense == "L"].tocsr() if sense.size else sp.csr_matrix((0, self.n_cols))

    @cached_property
    def bineq(self) -> np.ndarray:
        """Right-hand side of ``Aineq`` (rows are ``<=``; a ``>=`` rule is stored negated)."""
        rhs, sense = self._rule_view
        return rhs[sense == "L"]

    @cached_property
    def lb(self) -> np.ndarray:
        """Column lower bounds: 0, or 1 on the clue variables under ``bounds``."""
        lb = np.zeros(self.n_cols)
        if self.clue_encoding == "bounds":
            clue_cols = np.searchsorted(self.columns, self._reduction[2])
            lb[clue_cols] = 1.0
        return lb

    @property
    def ub(self) -> np.ndarray:
        """Column upper bounds: all 1."""
        return np.ones(self.n_cols)

    @property
    def cost(self) -> np.ndarray:
        """Objective over the solver view's columns (zeros without an ``objective``)."""
        if self.objective is None:
            return np.zeros(self.n_cols)
        objective = np.asarray(self.objective, dtype=float)
        if self.n_aux:
            objective = np.concatenate([objective, np.zeros(self.n_aux)])
        return objective[self.columns]

    @property
    def objective_offset(self) -> float:
        """The cost of the clue variables ``reduce`` fixed to 1 and left out of the solver view:
        an engine's objective value plus this is the answer's cost in the model as built."""
        if self.objective is None or not self.is_reduced:
            return 0.0
        return float(np.asarray(self.objective, dtype=float)[self.clue_positions].sum())

    def objective_value(self, x: np.ndarray) -> float:
        """The cost of an answer ``x`` (over the solver view's columns) in the model as built: the
        costs of its columns and of the clues ``reduce`` fixed (:attr:`objective_offset`)."""
        return float(self.cost @ x) + self.objective_offset

    @property
    def has_objective(self) -> bool:
        """True when ``objective`` puts a cost on a column of the solver view: solving is then
        minimising, which only an engine that optimises answers (counting ignores the costs)."""
        return self.objective is not None and bool(np.any(self.cost))

    @property
    def integrality(self) -> np.ndarray:
        """True for every column: all variables are binary."""
        return np.ones(self.n_cols, dtype=bool)

    @property
    def n_rows(self) -> int:
        """Rows of ``Aeq``."""
        return self.Aeq.shape[0]

    @property
    def n_ineq(self) -> int:
        """Rows of ``Aineq`` (counted without building it)."""
        return int(np.count_nonzero(self.rule_sense == "L"))

    @property
    def n_cols(self) -> int:
        """Columns of the solver view."""
        return self.columns.size

    @property
    def nnz(self) -> int:
        """Nonzeros of ``Aeq``."""
        return self.Aeq.nnz

    @property
    def ineq_nnz(self) -> int:
        """Nonzeros of ``Aineq``."""
        return self.Aineq.nnz

    @cached_property
    def row_labels(self) -> np.ndarray:
        """Label of each row of ``Aeq`` (``cell_1_1``, ``row_3_7``, ..., ``cagesum_2``, ``clue_2_5_9``), 1-based."""
        labels = rule_row_labels(self.puzzle)
        if self.clue_encoding == "reduce":
            labels = labels[self.kept_unit_rows]
        _, sense = self._rule_view
        parts = [labels, self._rule_labels[sense == "E"]]
        if self.clue_encoding == "rows":
            parts.append(clue_row_labels(self.puzzle))
        return np.concatenate(parts).astype(str)

    @cached_property
    def ineq_labels(self) -> np.ndarray:
        """Label of each row of ``Aineq`` (``cage_1_5``, ``thermo_2_1``, ``antiknight_17_3``, ...)."""
        _, sense = self._rule_view
        return self._rule_labels[sense == "L"].astype(str)

    @cached_property
    def col_names(self) -> np.ndarray:
        """Variable name of each column (``x_i_j_k`` or ``x_I_J_p_q_n``), from the convention;
        the auxiliary columns' names after them."""
        if not self.n_aux:
            return self.convention.names(self.columns)
        cells = self.columns < self.convention.n_vars
        return np.concatenate([self.convention.names(self.columns[cells]),
                               self.aux_names[self.columns[~cells] - self.convention.n_vars]]).astype(str)

    def name_table(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """:attr:`col_names` of columns ``start:stop`` (default all) as an ``(n, W)`` uint8 table,
        left-aligned and zero-padded to a ``W`` of all columns, whatever the slice: the convention's
        :meth:`~pipeline.core.conventions.Convention.name_table` without auxiliary columns, else
        :func:`~pipeline.core.rulerows.column_name_table` (a writer's chunk costs its own rows).

        Parameters
        ----------
        start, stop : int, optional
            The solver columns, as a slice.
        """
        if not self.n_aux:
            return self.convention.name_table(self.columns[start:stop])
        return column_name_table(self.convention, self.columns[start:stop], self.aux_names, self._name_width)

    @cached_property
    def _name_width(self) -> int:
        """:meth:`name_table`'s width with auxiliary columns: the longest name, found chunk by chunk."""
        return column_name_width(self.convention, self.columns, self.aux_names)

    def family_counts(self) -> dict[str, int]:
        """Rows of the solver view per family (``clue`` for B rows, then the rule families of
        ``Aeq`` and ``Aineq``); families with rows only."""
        sizes = family_row_counts(self.puzzle)
        if self.is_reduced:
            bounds = np.cumsum([0] + [size for _, size in sizes])
            kept = np.diff(np.searchsorted(self.kept_unit_rows, bounds))
        else:
            kept = np.array([size for _, size in sizes])
        counts = {name: int(k) for (name, _), k in zip(sizes, kept) if k}
        if self.clue_encoding == "rows" and self.clue_positions.size:
            counts["clue"] = self.clue_positions.size
        for family, count in self.rule_family_counts().items():
            counts[family] = counts.get(family, 0) + count
        return counts

    def row_bands(self) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """The row families of the solver view, in row order: ``Aeq``'s and ``Aineq``'s.

        ``Aeq`` holds the units (``cell``, ``row``, ... and the units rules add: ``window``, ...),
        then the ``=`` rows of the rules (``cagesum``), then the clues; ``Aineq`` the ``<=`` rows
        of the rules, family by family.

        Returns
        -------
        tuple of lists
            ``([(family, rows), ...] of Aeq, [(family, rows), ...] of Aineq)``; the rows add up
            to ``n_rows`` and ``n_ineq``.
        """
        counts = self.family_counts()
        rules = self.rule_family_counts()
        sense = {family: s for family, s, _ in self.R.families}
        units = [(family, rows) for family, rows in counts.items() if family != "clue" and family not in rules]
        equal = [(family, rows) for family, rows in rules.items() if sense[family] == "E"]
        clue = [("clue", counts["clue"])] if "clue" in counts else []
        return units + equal + clue, [(family, rows) for family, rows in rules.items() if sense[family] == "L"]

    def rule_family_counts(self) -> dict[str, int]:
        """Rows of the solver view per family of ``R`` (cage, cagesum, thermo, ...)."""
        kept = self._reduction[3]
        out: dict[str, int] = {}
        start = 0
        for family, _, count in self.R.families:
            k = int(np.count_nonzero((kept >= start) & (kept < start + count)))
            if k:
                out[family] = out.get(family, 0) + k
            start += count
        return out

    def full_vector(self, x: np.ndarray) -> np.ndarray:
        """Solver-view vector -> all cell-digit positions (clue variables set to 1 for reduce;
        absent cells 0; the auxiliary columns' values dropped)."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.n_cols,):
            raise PipelineError(f"solution: expected {self.n_cols} values, found {x.size}")
        if not self.is_reduced and self.puzzle.layout is None:
            return x[:self.convention.n_vars] if self.n_aux else x
        return full_vector_of(self.convention.n_vars, self.columns, x,
                              self._reduction[2] if self.is_reduced else None)

    def _repr_html_(self) -> str:
        """Jupyter shows a model as its shape per row family beside a small spy picture of ``Aeq``."""
        return model_html(self)

    def __repr__(self) -> str:
        """One line: the puzzle, the convention and clue encoding, rows, columns and nonzeros."""
        ineq = f", {self.n_ineq} <= rows" if self.has_rules and self.n_ineq else ""
        return (f"<Model of {self.puzzle.summary()}: {self.convention.scheme}/{self.convention.order}, clues as "
                f"{self.clue_encoding}; {self.n_rows} = rows{ineq}, {self.n_cols} columns, {self.nnz} nonzeros>")

    def decode(self, x: np.ndarray) -> np.ndarray:
        """The grid of a solver's answer ``x``: a vector over the solver view's columns (what
        scipy ``milp``, HiGHS or intlinprog return for ``Aeq``/``Aineq``/``lb``/``ub``) or over all
        ``N^3`` positions of the convention.

        Parameters
        ----------
        x : array_like of float
            ``n_cols`` values, or ``convention.n_vars``; rounded with the integrality tolerance.

        Returns
        -------
        ndarray of int, shape (N, N)
            The digits (the canvas for a layout; 0 where a cell has no digit).

        Raises
        ------
        PipelineError
            ``x`` has another length, or a value is not 0 or 1 within the tolerance.

        Examples
        --------
        >>> from pipeline import parse_puzzle
        >>> m = build_model(parse_puzzle("1234341221434321"))
        >>> import numpy as np
        >>> x = np.zeros(m.n_cols); x[m.clue_positions] = 1
        >>> m.decode(x)[0].tolist()
        [1, 2, 3, 4]
        """
        try:
            if x is None or np.ndim(x) == 0:   # None became one NaN: "found 1 value"
                raise TypeError
            x = np.asarray(x, dtype=float).ravel()
        except (TypeError, ValueError):
            raise FormatError(f"decode: expected a vector of numbers, found {type(x).__name__}") from None
        if x.size == self.n_cols and (self.is_reduced or self.puzzle.layout is not None or self.n_aux):
            x = self.full_vector(x)
        elif x.size != self.convention.n_vars:
            raise PipelineError(f"decode: expected {self.n_cols} values (the solver view's columns) or "
                                f"{self.convention.n_vars} (every position), found {x.size}")
        return grid_from_vector(x, self.convention, where="decode")

    def summary(self) -> dict:
        """Sizes for reports: rows, columns, nonzeros, rows per family, shapes of ``A`` and ``B``
        (and of the inequality rows when the model has any)."""
        out = {
            "rows": self.n_rows,
            "columns": self.n_cols,
            "nonzeros": self.nnz,
            "families": self.family_counts(),
            "variables_total": self.convention.n_vars,
            "A": [self.unit_positions.shape[0], self.convention.n_vars],
            "B": [self.clue_positions.size, self.convention.n_vars],
        }
        if self.has_rules:
            out["inequalities"] = self.n_ineq
            out["inequality_nonzeros"] = self.ineq_nnz
        if self.n_aux:
            out["aux_columns"] = self.n_aux
        return out


def build_model(puzzle: Puzzle, scheme: str = "ijk", order: str = "F", clues: str = "rows",
                objective: np.ndarray | None = None) -> Model:
    """Build the 0-1 program of ``puzzle``: rules ``A``, clues ``B`` and the solver view.

    Parameters
    ----------
    puzzle : Puzzle
        A checked puzzle (:func:`pipeline.core.puzzle.parse_puzzle`).
    scheme : {"ijk", "block"}, default "ijk"
        Variable array of the convention: ``x[i, j, k]`` or ``x[I, J, p, q, n]`` (``block``
        needs a variant with boxes).
    order : {"F", "C"}, default "F"
        How that array is flattened: first index fastest (MATLAB) or last index fastest.
    clues : {"rows", "bounds", "reduce"}, default "rows"
        Clues as rows of ``B`` appended to ``A``, as lower bounds 1 on the clue variables, or
        removed together with every row and column they settle.
    objective : ndarray of float, shape (N**3,), optional
        Costs over all positions in the convention's order (default zeros: a feasibility
        problem).

    Returns
    -------
    Model
        ``A`` and ``B`` over all ``N**3`` variables and the solver view (``Aeq``, ``beq``,
        ``lb``, ``ub``, ``cost``, ``row_labels``, ``col_names``) over ``Model.columns``.

    Raises
    ------
    PuzzleError
        The model would not fit in the memory limit (:func:`pipeline.core.limits.check_grid_size`),
        refused before anything is allocated.
    ConventionError
        Unknown ``scheme``/``order``, or ``block`` for a variant without boxes.
    PipelineError
        Unknown clue encoding, or an ``objective`` of the wrong length or with a cost that is not a
        finite number.

    Examples
    --------
    >>> from pipeline import parse_puzzle
    >>> puzzle = parse_puzzle("1..." "..3." ".4.." "...2", box="2x2")
    >>> model = build_model(puzzle)
    >>> model.n_rows, model.n_cols, model.nnz        # 4 families x 16 rows + 4 clue rows
    (68, 64, 260)
    >>> model.family_counts()
    {'cell': 16, 'row': 16, 'col': 16, 'box': 16, 'clue': 4}
    >>> reduced = build_model(puzzle, scheme="block", order="C", clues="reduce")
    >>> reduced.n_rows, reduced.n_cols, str(reduced.col_names[0])
    (48, 20, 'x_1_1_1_2_2')
    """
    if not isinstance(puzzle, Puzzle):   # build_model("1...") was an AttributeError
        raise PuzzleError(f"build_model: expected a Puzzle (pipeline.read_puzzle reads one), found "
                          f"{type(puzzle).__name__}")
    # refuse before allocating what cannot fit: a layout indexes its whole canvas, and rules over
    # the whole grid (non-consecutive: 8 nonzeros per variable) add rows as large as the units'
    canvas = puzzle.rows * puzzle.cols
    check_grid_size(puzzle.n, "model", cells=canvas if puzzle.layout is not None else None,
                    rule_nonzeros=rule_nonzeros(puzzle), values=puzzle.n_values)
    if clues not in CLUE_ENCODINGS:
        raise PipelineError(f"clues: unknown clue encoding {clues!r}; expected one of {', '.join(CLUE_ENCODINGS)}")
    conv = make_convention(scheme, order, puzzle.h, puzzle.w, puzzle.variant,
                           canvas=None if puzzle.layout is None and not puzzle.is_rect else (puzzle.rows, puzzle.cols),
                           digits=puzzle.n_values)
    if objective is not None and np.shape(objective) != (conv.n_vars,):
        raise PipelineError(f"objective: expected {conv.n_vars} costs, found {np.size(objective)}")
    if objective is not None:
        try:
            costs = np.asarray(objective, dtype=float)
        except (TypeError, ValueError):
            raise PipelineError(f"objective: costs must be numbers, found {np.asarray(objective).dtype}") from None
        if not np.isfinite(costs).all():   # HiGHS called NaN costs optimal and inf ones 'Unknown'
            k = int(np.argmax(~np.isfinite(costs)))
            raise PipelineError(f"objective: cost {k} ({conv.names([k])[0]}) is {costs[k]}; costs must be finite")
    return Model(puzzle, conv, clues, clue_positions(puzzle, conv), objective)


def _shared_unit_positions(puzzle: Puzzle, conv: Convention) -> np.ndarray:
    """:func:`unit_positions`, built once per shape and convention (the puzzle's shape cache: a
    batch's records with the same rules share it) and read-only."""
    cached = shape_cache(puzzle).setdefault("unit_positions", {})
    if conv not in cached:
        table = unit_positions(puzzle, conv)
        table.flags.writeable = False
        cached[conv] = table
    return cached[conv]
