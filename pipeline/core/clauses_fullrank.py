"""The full-rank clues' comparisons as clauses, for the SAT engine: in place of each clue's
``fullranksame`` and ``fullrankfirst`` rows (:class:`pipeline.core.rules.fullrank.FullRank`), the
same conditions written over the cells' value variables and the rule's own auxiliary columns.

A clue compares its line ``A`` with each other line ``B`` through ``z_p`` ("``A`` and ``B`` agree on
their first ``p`` digits") and ``t`` ("``B`` reads lower"). Its rows are big-M rows over two cells'
digit indices ``D`` (weights ``1 .. N-1`` on both cells plus the auxiliaries), which the
pseudo-Boolean encoding turns into about a thousand clauses each without knowing that a cell
holds one digit: ISS's "Full rank 2" (9 clues) had 12.5 million rule clauses and ran out its 30
seconds; "Full rank 3" and "Full rank 4" were refused at once as too large to load. Here, at the
place ``q = p - 1`` (cells ``a``, ``b``, ``w = z_q and not z_{q+1}``, ``z_0`` true):

* ``fullranksame_k_b_p_1/2`` (``z_p`` forces ``D(a) = D(b)``): for each digit ``d``,
  ``z_p and x(a, d) -> x(b, d)`` and ``z_p and x(b, d) -> x(a, d)``;
* ``fullrankfirst_k_b_p_1`` (``t`` and ``w`` force ``D(a) > D(b)``): for each ``d``,
  ``t and w and x(a, d) -> x(b, 0) or .. or x(b, d - 1)``;
* ``fullrankfirst_k_b_p_2`` (not ``t`` and ``w`` force ``D(b) > D(a)``): for each ``d``,
  ``not t and w and x(b, d) -> x(a, 0) or .. or x(a, d - 1)``.

Each row holds on a 0-1 point exactly when its clauses do, the cells holding one digit each (a
row whose ``w`` is -1, the chain broken, holds always, as the clauses do; ``a = b``, the middle
of a line read both ways, leaves a same row empty and a first row on the auxiliaries alone,
which the clauses say too), so no answer changes. No auxiliary variables of their own.
"""
from __future__ import annotations

import numpy as np

from pipeline.core.build import Model
from pipeline.core.clauses import ReplacedRows, aux_variables, padded_clause_lists, settled_clauses, value_literals
from pipeline.core.rules.fullrank import FullRank

__all__ = ["FULL_RANK", "FULL_RANK_PREFIXES", "FullRankClauses", "full_rank_clauses"]

#: Encode the full-rank clues' same-prefix and first-difference rows by clauses (False: by their
#: pseudo-Boolean rows, as before).
FULL_RANK = True
#: The row families these clauses replace.
FULL_RANK_PREFIXES = ("fullranksame_", "fullrankfirst_")


class FullRankClauses(ReplacedRows):
    """The clauses of :func:`full_rank_clauses` (no auxiliary variables of their own), in place of
    the rows of :data:`FULL_RANK_PREFIXES`."""

    prefixes = FULL_RANK_PREFIXES


def _one_clue(xa: np.ndarray, xb: np.ndarray, same: np.ndarray, z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """One clue's clauses as zero-padded rows: ``xa`` ``(n, N)`` its line's value variables,
    ``xb`` ``(m, n, N)`` the other lines', ``same`` ``(m, n)`` where a place is the same cell,
    ``z`` ``(m, n + 1)`` the prefix variables (column 0 the constant true, as 0), ``t`` ``(m,)``."""
    m, n, big = xb.shape
    xa_ = np.broadcast_to(xa[None], xb.shape)
    zp = np.broadcast_to(z[:, 1:, None], xb.shape)
    differ = np.broadcast_to(~same[:, :, None], xb.shape)
    width = 4 + big
    eq = np.zeros((2, m, n, big, width), dtype=np.int64)
    eq[0, ..., 0], eq[0, ..., 1], eq[0, ..., 2] = -zp, -xa_, xb
    eq[1, ..., 0], eq[1, ..., 1], eq[1, ..., 2] = -zp, -xb, xa_
    eq = eq[:, differ].reshape(-1, width)
    # first difference at q: w = z_q and not z_{q+1}; below[d, e] is e < d
    below = np.arange(big)[None, :] < np.arange(big)[:, None]
    zq = np.broadcast_to(-z[:, :-1, None], xb.shape)      # 0 where q = 0 (z_0 true)
    tt = np.broadcast_to(t[:, None, None], xb.shape)
    first = np.zeros((2, m, n, big, width), dtype=np.int64)
    first[0, ..., 0], first[0, ..., 1], first[0, ..., 2], first[0, ..., 3] = -tt, zq, zp, -xa_
    first[0, ..., 4:] = np.where(below[None, None], xb[:, :, None, :], 0)
    first[1, ..., 0], first[1, ..., 1], first[1, ..., 2], first[1, ..., 3] = tt, zq, zp, -xb
    first[1, ..., 4:] = np.where(below[None, None], xa_[:, :, None, :], 0)
    return np.concatenate([eq, first.reshape(-1, width)])


def full_rank_clauses(model: Model, *, view: bool) -> FullRankClauses:
    """The clauses of ``model``'s full-rank clues in place of their same-prefix and
    first-difference rows (module docstring); none for a puzzle without them, or whose auxiliary
    columns are not the clues' own as expected (a reduced model that settled one of them).

    Parameters
    ----------
    model : Model
        The model: cell variables are its positions + 1, auxiliary column ``j`` is variable
        ``n_vars + j + 1``.
    view : bool
        A one-puzzle engine's solver view: a reduced model's settled positions (left out of the
        solver) are fixed here wherever these clauses read them.

    Returns
    -------
    FullRankClauses
    """
    puzzle = model.puzzle
    clues = [rule for rule in puzzle.rules if isinstance(rule, FullRank)]
    if not clues or puzzle.layout is not None or puzzle.n_values != puzzle.n:
        return FullRankClauses([])
    lookup = aux_variables(model, "fullrank", view=view)
    n = puzzle.n
    m = 4 * n - 1
    b, j = np.divmod(np.arange(m * (n + 1)), n + 1)
    parts, touched = [], []
    for index, rule in enumerate(clues, start=1):
        found = lookup([f"aux_fullrank_{index}_{bb}_{jj}" for bb, jj in zip((b + 1).tolist(), (j + 1).tolist())])
        if found is None:
            return FullRankClauses([])
        aux = found.reshape(m, n + 1)
        a = np.asarray(rule.cell_list, dtype=np.int64)
        others = rule.others(puzzle.board)
        xa, xb = value_literals(model, a), value_literals(model, others.ravel()).reshape(m, n, n)
        touched += [xa.ravel() - 1, xb.ravel() - 1]
        z = np.concatenate([np.zeros((m, 1), dtype=np.int64), aux[:, :n]], axis=1)
        parts.append(_one_clue(xa, xb, others == a[None, :], z, aux[:, n]))
    clauses = padded_clause_lists(np.concatenate(parts))
    if view:   # settled positions are not in the solver: fixed here
        clauses += settled_clauses(model, touched)
    return FullRankClauses(clauses)
