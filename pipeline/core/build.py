"""Build the sparse 0-1 program of a puzzle: rules ``A``, clues ``B`` and the solver view.

``A`` has the families of docs/conventions.md in order (cell, row, col, box|region, diag, anti), each
family's rows with the last label index fastest; every row is ``= 1`` with ``N`` ones. ``B`` has
one row per clue (ordered by row, then column). The solver view (``Aeq``, ``beq``, bounds,
integrality, objective) depends on the clue encoding: ``rows``, ``bounds`` or ``reduce``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from pipeline.core.conventions import Convention, make_convention
from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import Puzzle, check_grid_size
from pipeline.core.svg import model_html
from pipeline.core.variants import FAMILIES

CLUE_ENCODINGS = ("rows", "bounds", "reduce")


def _index_dtype(n_vars: int):
    return np.int32 if n_vars < np.iinfo(np.int32).max else np.int64


def rule_families(puzzle: Puzzle) -> list[tuple[str, np.ndarray]]:
    """``[(family, cells)]`` for every family of ``A``, ``cells`` of shape (n_units, N).

    The ``cell`` family is expressed with one unit per cell (its N digits), the others are the
    puzzle's units, so that ``A`` is built by one rule for all.
    """
    return [("cell", np.arange(puzzle.n ** 2)[:, None])] + puzzle.unit_families()


def family_row_counts(puzzle: Puzzle) -> list[tuple[str, int]]:
    """``[(family, rows)]`` of ``A`` in row order."""
    n = puzzle.n
    return [(name, units.shape[0] * (n if name != "cell" else 1)) for name, units in rule_families(puzzle)]


def build_rules(puzzle: Puzzle, conv: Convention) -> sp.csr_matrix:
    """``A``: one ``= 1`` row per (cell) and per (unit, digit), columns in ``conv`` positions.

    Parameters
    ----------
    puzzle : Puzzle
        Its shape and variant (its unit families); the clues are not used.
    conv : Convention
        Column positions of the variables.
    """
    n = puzzle.n
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
        cols = conv.position(cells // n, cells % n, d).reshape(-1, n)
        blocks.append(cols)
    cols = np.concatenate(blocks, axis=0)
    cols.sort(axis=1)
    n_rows = cols.shape[0]
    dtype = _index_dtype(conv.n_vars)
    indptr = np.arange(0, n_rows * n + 1, n, dtype=dtype)
    data = np.ones(cols.size)
    return sp.csr_matrix((data, cols.ravel().astype(dtype), indptr), shape=(n_rows, conv.n_vars))


def build_clues(puzzle: Puzzle, conv: Convention) -> sp.csr_matrix:
    """``B``: one row per clue (by row, then column) with a single 1 at ``x[r,c,d]``.

    Parameters
    ----------
    puzzle : Puzzle
        Its clues, row by row.
    conv : Convention
        Column positions of the variables.
    """
    r, c, d = puzzle.clues()
    dtype = _index_dtype(conv.n_vars)
    cols = conv.position(r, c, d).astype(dtype)
    indptr = np.arange(cols.size + 1, dtype=dtype)
    return sp.csr_matrix((np.ones(cols.size), cols, indptr), shape=(cols.size, conv.n_vars))


def rule_row_labels(puzzle: Puzzle) -> np.ndarray:
    """Labels of ``A``'s rows (``cell_r_c``, ``row_r_d``, ..., ``diag_d``), 1-based."""
    n = puzzle.n
    num = np.char.mod("%d", np.arange(1, n + 1)).astype(object)
    out = []
    for name, units in rule_families(puzzle):
        if name == "cell":
            rr, cc = np.divmod(np.arange(n * n), n)
            out.append("cell_" + num[rr] + "_" + num[cc])
        elif FAMILIES[name].single:  # one unit each (diag, anti): labelled by digit only
            out.append(name + "_" + num)
        else:
            u, d = np.divmod(np.arange(units.shape[0] * n), n)
            out.append(name + "_" + num[u] + "_" + num[d])
    return np.concatenate(out).astype(str)


def clue_row_labels(puzzle: Puzzle) -> np.ndarray:
    """``clue_r_c_d`` (1-based) of each row of ``B``, in ``B``'s order (by row, then column)."""
    r, c, d = puzzle.clues()
    num = np.char.mod("%d", np.arange(1, puzzle.n + 1)).astype(object)
    return ("clue_" + num[r] + "_" + num[c] + "_" + num[d]).astype(str) if r.size else np.array([], dtype=str)


def full_vector_of(n_vars: int, positions: np.ndarray, values: np.ndarray,
                   clue_positions: np.ndarray | None = None) -> np.ndarray:
    """All ``N^3`` positions from values at ``positions``; ``clue_positions`` (the variables a
    ``reduce`` export fixed and dropped) are set to 1, every other position is 0.

    Parameters
    ----------
    n_vars : int
        ``N^3``.
    positions : numpy.ndarray
        Full positions of ``values`` (a reduced model's kept columns).
    values : numpy.ndarray
        The solver view's values.
    clue_positions : numpy.ndarray, optional
        Positions fixed to 1 and dropped by ``reduce``.
    """
    full = np.zeros(n_vars)
    full[positions] = values
    if clue_positions is not None:
        full[clue_positions] = 1.0
    return full


@dataclass(frozen=True, eq=False)
class Model:
    """The 0-1 program of one puzzle in one convention and clue encoding.

    ``A``/``B`` span all ``N^3`` variables. The solver view (``Aeq``, ``beq``, ``lb``, ``ub``,
    ``cost``, ``integrality``, ``row_labels``, ``col_names``) covers ``columns``: all positions,
    or for ``reduce`` the kept ones (``columns[j]`` is the full 0-based position of column j).
    """

    puzzle: Puzzle
    convention: Convention
    clue_encoding: str
    A: sp.csr_matrix
    B: sp.csr_matrix
    objective: np.ndarray | None = field(default=None)

    # -- the solver view -------------------------------------------------------------------
    @cached_property
    def _reduction(self):
        """(kept columns, kept rows of A, full positions of the clues)."""
        clue_pos = self.B.indices.astype(np.int64)
        if self.clue_encoding != "reduce":
            return np.arange(self.convention.n_vars), np.arange(self.A.shape[0]), clue_pos
        fixed_one = np.zeros(self.A.shape[1])
        fixed_one[clue_pos] = 1.0
        satisfied = (self.A @ fixed_one) > 0
        touched = (self.A[satisfied].T @ np.ones(int(satisfied.sum()))) > 0
        kept_cols = np.flatnonzero(~touched & (fixed_one == 0))
        kept_rows = np.flatnonzero(~satisfied)
        return kept_cols, kept_rows, clue_pos

    @property
    def columns(self) -> np.ndarray:
        """Full 0-based position of each solver-view column (all ``N^3`` unless ``reduce``)."""
        return self._reduction[0]

    @property
    def is_reduced(self) -> bool:
        """True for the ``reduce`` clue encoding (clue-settled rows and columns removed)."""
        return self.clue_encoding == "reduce"

    @cached_property
    def Aeq(self) -> sp.csr_matrix:
        """Equality matrix of the solver view: ``[A; B]``, ``A``, or ``A`` reduced."""
        if self.clue_encoding == "rows":
            return sp.vstack([self.A, self.B], format="csr")
        if self.clue_encoding == "bounds":
            return self.A
        kept_cols, kept_rows, _ = self._reduction
        return self.A[kept_rows][:, kept_cols].tocsr()

    @property
    def beq(self) -> np.ndarray:
        """Right-hand side: every row is ``= 1``."""
        return np.ones(self.Aeq.shape[0])

    @cached_property
    def lb(self) -> np.ndarray:
        """Column lower bounds: 0, or 1 on the clue variables under ``bounds``."""
        lb = np.zeros(self.n_cols)
        if self.clue_encoding == "bounds":
            lb[self._reduction[2]] = 1.0
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
        return np.asarray(self.objective, dtype=float)[self.columns]

    @property
    def integrality(self) -> np.ndarray:
        """True for every column: all variables are binary."""
        return np.ones(self.n_cols, dtype=bool)

    @property
    def n_rows(self) -> int:
        """Rows of ``Aeq``."""
        return self.Aeq.shape[0]

    @property
    def n_cols(self) -> int:
        """Columns of the solver view."""
        return self.columns.size

    @property
    def nnz(self) -> int:
        """Nonzeros of ``Aeq``."""
        return self.Aeq.nnz

    @cached_property
    def row_labels(self) -> np.ndarray:
        """Label of each row of ``Aeq`` (``cell_1_1``, ``row_3_7``, ..., ``clue_2_5_9``), 1-based."""
        labels = rule_row_labels(self.puzzle)
        if self.clue_encoding == "rows":
            return np.concatenate([labels, clue_row_labels(self.puzzle)])
        if self.clue_encoding == "reduce":
            return labels[self._reduction[1]]
        return labels

    @cached_property
    def col_names(self) -> np.ndarray:
        """Variable name of each column (``x_i_j_k`` or ``x_I_J_p_q_n``), from the convention."""
        return self.convention.names(self.columns)

    def family_counts(self) -> dict[str, int]:
        """Rows of the solver view per family (``clue`` for B rows); families with rows only."""
        sizes = family_row_counts(self.puzzle)
        if self.is_reduced:
            bounds = np.cumsum([0] + [size for _, size in sizes])
            kept = np.diff(np.searchsorted(self._reduction[1], bounds))
        else:
            kept = np.array([size for _, size in sizes])
        counts = {name: int(k) for (name, _), k in zip(sizes, kept) if k}
        if self.clue_encoding == "rows" and self.B.shape[0]:
            counts["clue"] = self.B.shape[0]
        return counts

    def full_vector(self, x: np.ndarray) -> np.ndarray:
        """Solver-view vector -> all ``N^3`` positions (clue variables set to 1 for reduce)."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.n_cols,):
            raise PipelineError(f"solution: expected {self.n_cols} values, found {x.size}")
        if not self.is_reduced:
            return x
        return full_vector_of(self.convention.n_vars, self.columns, x, self._reduction[2])

    def _repr_html_(self) -> str:
        """Jupyter shows a model as its shape per row family beside a small spy picture of ``Aeq``."""
        return model_html(self)

    def summary(self) -> dict:
        """Sizes for reports: rows, columns, nonzeros, rows per family, shapes of ``A`` and ``B``."""
        return {
            "rows": self.n_rows,
            "columns": self.n_cols,
            "nonzeros": self.nnz,
            "families": self.family_counts(),
            "variables_total": self.convention.n_vars,
            "A": list(self.A.shape),
            "B": list(self.B.shape),
        }


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
        The model would not fit in the memory limit (:func:`pipeline.core.parse.check_grid_size`),
        refused before anything is allocated.
    ConventionError
        Unknown ``scheme``/``order``, or ``block`` for a variant without boxes.
    PipelineError
        Unknown clue encoding, or an ``objective`` of the wrong length.

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
    check_grid_size(puzzle.n, "model")  # refuse before allocating what cannot fit
    if clues not in CLUE_ENCODINGS:
        raise PipelineError(f"clues: unknown clue encoding {clues!r}; expected one of {', '.join(CLUE_ENCODINGS)}")
    conv = make_convention(scheme, order, puzzle.h, puzzle.w, puzzle.variant)
    if objective is not None and np.shape(objective) != (conv.n_vars,):
        raise PipelineError(f"objective: expected {conv.n_vars} costs, found {np.size(objective)}")
    return Model(puzzle, conv, clues, build_rules(puzzle, conv), build_clues(puzzle, conv), objective)
