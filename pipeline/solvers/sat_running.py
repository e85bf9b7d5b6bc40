"""The little killers' own sums as running sums, for the SAT engine: in place of each clue's
pseudo-Boolean row, the sum of its first ``i`` cells in the order encoding.

A little killer's row ``sum_c sum_v v x(c, v) = total`` is a pseudo-Boolean sum over all its
cells' value variables; its encoding (python-sat's ``best``) cannot know that each cell holds one
value, so unit propagation learns little from it. Along the diagonal, ``o(i, s)`` says "the first
``i`` cells add up to at least ``s``" (``o(i, s + 1) -> o(i, s)``), and each cell's value moves the
running sum on::

    o(i - 1, s) and x(c_i, v)  ->  o(i, s + v)        not o(i - 1, s) and x(c_i, v)  ->  not o(i, s + v)

with ``s`` only where the sum can still reach the total (the first ``i`` cells add up to at
least ``total - (k - i) max`` and at most ``total - (k - i) min``), and the last sum the total.
Unit propagation then keeps every cell's values within the bounds the other cells allow (bounds
consistency on the sum, as ``dfsrules``' rows have). On ISS's LITTLE_KILLER_SNIPES entries
(counting to 2, CaDiCaL, the clue rows and houses only, 2026-12-07): #0 6,722 conflicts with the
PB row, 1,806 with these; #3 40,034 and 8,018; #5 38,562 and 4,788; both encodings together
were worse than these alone (#5 7,453).

The clauses encode exactly the clue's row (each cell one value), so no answer changes.
"""
from __future__ import annotations

import numpy as np

from pipeline.core.build import Model
from pipeline.core.rules.littlekiller import LittleKiller

__all__ = ["LABEL_PREFIX", "RUNNING_SUMS", "RunningSums", "running_sum_clauses"]

#: Encode the little killers by running sums (False: by their pseudo-Boolean rows, as before).
RUNNING_SUMS = True

#: The rule rows these clauses replace: the little killers' (``littlekiller_k``).
LABEL_PREFIX = "littlekiller_"


class RunningSums:
    """The clauses of :func:`running_sum_clauses` and the ``n_aux`` variables they use; ``keep_rows``
    tells which rule rows still need their own encoding."""

    def __init__(self, clauses: list[list[int]], n_aux: int) -> None:
        self.clauses, self.n_aux = clauses, n_aux

    def keep_rows(self, labels: np.ndarray) -> np.ndarray:
        """Which of the rows labelled ``labels`` still need their own encoding (not a little
        killer's, which these clauses encode; all of them when there are no clauses).

        Parameters
        ----------
        labels : numpy.ndarray
            Row labels (``littlekiller_1``, ``cagesum_2``, ...).

        Returns
        -------
        numpy.ndarray
            A boolean mask over ``labels``.
        """
        if not self.clauses:
            return np.ones(len(labels), dtype=bool)
        return ~np.char.startswith(np.asarray(labels, dtype=str), LABEL_PREFIX)


def _one_sum(x: np.ndarray, weights: np.ndarray, total: int, first: int) -> tuple[np.ndarray, int]:
    """The running-sum clauses of one clue: ``x`` its cells' value variables ``(k, n)``, ``weights``
    the values shifted to start at 0, ``total`` shifted so; the order variables numbered from
    ``first``, variable ``first`` itself fixed true (the bounds' constant). Clauses as rows of a
    ``(m, 3)`` array (a 0 pads a two-literal clause), and the variables used."""
    k, top_w = x.shape[0], int(weights.max())
    i = np.arange(k + 1)
    lo = np.maximum(0, total - (k - i) * top_w)           # the first i cells add up to at least lo
    hi = np.minimum(i * top_w, total)                     # and at most hi
    width = k * top_w + top_w + 2
    s = np.arange(width)
    free = (s[None, :] > lo[:, None]) & (s[None, :] <= hi[:, None])          # o(i, s) a variable
    lit = np.where(s[None, :] <= lo[:, None], first, -first)                  # else true / false
    lit[free] = first + 1 + np.arange(int(free.sum()))
    # the order: o(i, s + 1) -> o(i, s)
    ii, ss = np.nonzero(free[:, 1:] & free[:, :-1])
    order = np.column_stack([-lit[ii, ss + 1], lit[ii, ss], np.zeros(ii.size, dtype=np.int64)])
    # each cell i (1..k) and value: from o(i - 1, s), s in lo .. hi + 1 of row i - 1
    cell, val, start = np.meshgrid(np.arange(1, k + 1), np.arange(weights.size), s, indexing="ij")
    reach = (start >= lo[cell - 1]) & (start <= hi[cell - 1] + 1)
    cell, val, start = cell[reach], val[reach], start[reach]
    step = start + weights[val]
    xl = x[cell - 1, val]
    before, after = lit[cell - 1, np.minimum(start, width - 1)], lit[cell, np.minimum(step, width - 1)]
    after = np.where(step < width, after, -first)     # past every bound: false
    up = np.column_stack([-before, -xl, after])
    down = np.column_stack([before, -xl, -after])
    unit = np.array([[first, 0, 0]], dtype=np.int64)
    return np.concatenate([unit, order, up, down]), int(free.sum()) + 1


def running_sum_clauses(model: Model, top: int, *, view: bool) -> RunningSums:
    """The running-sum clauses of ``model``'s little killers (module docstring), their auxiliary
    variables numbered from ``top + 1``; none for a puzzle without little killers, with a layout
    or with a value set other than the side's.

    Parameters
    ----------
    model : Model
        The model: cell variables are its positions + 1.
    top : int
        The largest variable used before these.
    view : bool
        A one-puzzle engine's solver view: a reduced model's settled positions (left out of the
        solver) are fixed here wherever these clauses read them.

    Returns
    -------
    RunningSums
    """
    puzzle = model.puzzle
    clues = [rule for rule in puzzle.rules if isinstance(rule, LittleKiller)]
    if not clues or puzzle.layout is not None or puzzle.n_values != puzzle.n:
        return RunningSums([], 0)
    n = puzzle.n
    values = np.asarray(puzzle.board.value_of[:n], dtype=np.int64)
    least = int(values.min())
    conv = model.convention
    parts, touched, n_aux = [], [], 0
    for rule in clues:
        cells = np.asarray(rule.cell_list, dtype=np.int64)
        r, c = np.divmod(cells, puzzle.cols)
        x = conv.position(r[:, None], c[:, None], np.arange(n)[None, :]).astype(np.int64) + 1   # (cells, n)
        touched.append(x.ravel() - 1)
        made, used = _one_sum(x, values - least, int(rule.total) - cells.size * least, top + 1 + n_aux)
        parts.append(made)
        n_aux += used
    rows = np.concatenate(parts)
    width = np.where(rows[:, 1] == 0, 1, np.where(rows[:, 2] == 0, 2, 3))   # a 0 pads a shorter clause
    clauses = [] + rows[width == 1, :1].tolist() + rows[width == 2, :2].tolist() + rows[width == 3].tolist()
    if view and model.is_reduced:
        # settled positions are not in the solver: fixed here (a clue's true, the rest false)
        read = np.unique(np.concatenate(touched))
        settled = np.setdiff1d(read, model.columns)
        clue = np.isin(settled, model.clue_positions)
        clauses += np.where(clue, settled + 1, -(settled + 1))[:, None].tolist()
    return RunningSums(clauses, n_aux)
