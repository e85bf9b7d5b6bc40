"""The rows every writer writes: ``[Aeq; Aineq]`` of a model's solver view, with senses,
right-hand sides and labels (:func:`constraint_rows`; re-exported by :mod:`pipeline.core.build`,
which had no room left for them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

    from pipeline.core.build import Model


@dataclass(frozen=True, eq=False)
class ConstraintRows:
    """Every row of a model's solver view in file order: the ``=`` rows of ``Aeq``, then the
    ``<=`` rows of ``Aineq`` (none for unit-only puzzles).

    ``sense[i]`` is ``"E"`` or ``"L"``; ``rhs`` is ``beq`` then ``bineq``; ``labels`` are
    ``row_labels`` then ``ineq_labels``. For a model without inequality rows ``matrix``,
    ``rhs`` and ``labels`` ARE ``model.Aeq``, ``model.beq`` and ``model.row_labels`` (no copy),
    so the writers of plain puzzles write exactly what they always wrote; with them, ``matrix`` is
    ``model.constraint_matrix`` (``Aeq`` and ``Aineq`` are views of its rows: no stacked copy).
    """

    matrix: sp.csr_matrix
    rhs: np.ndarray
    sense: np.ndarray
    labels: np.ndarray
    n_eq: int

    @property
    def n_rows(self) -> int:
        """All rows (``=`` and ``<=``)."""
        return self.matrix.shape[0]

    @property
    def n_ineq(self) -> int:
        """The ``<=`` rows (they come last)."""
        return self.n_rows - self.n_eq

    @property
    def less(self) -> np.ndarray:
        """Boolean mask of the ``<=`` rows."""
        return self.sense == "L"

    @property
    def lower(self) -> np.ndarray:
        """Row lower bounds: the right-hand side of ``=`` rows, ``-inf`` for ``<=`` rows."""
        return np.where(self.less, -np.inf, self.rhs)


def constraint_rows(model: Model) -> ConstraintRows:
    """The rows every writer writes (and HiGHS is given): ``[Aeq; Aineq]`` with senses, right-hand sides and labels.

    The matrix is never copied: the model's :attr:`~pipeline.core.build.Model.constraint_matrix`,
    whose first rows ``Aeq`` and last rows ``Aineq`` are (``Aeq`` itself without ``<=`` rows).

    Parameters
    ----------
    model : Model

    Returns
    -------
    ConstraintRows

    Examples
    --------
    >>> from pipeline import build_model, parse_puzzle
    >>> rows = constraint_rows(build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "antiknight"}]}')))
    >>> rows.n_eq, rows.n_ineq, str(rows.labels[-1]), "".join(sorted(set(rows.sense.tolist())))
    (64, 96, 'antiknight_24_4', 'EL')
    """
    m = model.n_rows
    if model.n_ineq == 0:
        return ConstraintRows(model.Aeq, model.beq, np.full(m, "E"), model.row_labels, m)
    return ConstraintRows(model.constraint_matrix,
                          np.concatenate([model.beq, model.bineq]),
                          np.concatenate([np.full(m, "E"), np.full(model.n_ineq, "L")]),
                          np.concatenate([model.row_labels, model.ineq_labels]).astype(str), m)
