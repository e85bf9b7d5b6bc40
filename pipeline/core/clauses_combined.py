"""The little killers' combined sums (:func:`pipeline.core.combined_sums.combined_sums`) as
clauses for the SAT engine, encoded through their exclusion groups so that unit propagation sees
how close each sum is to its bound.

A little killer's own row is a pseudo-Boolean sum over the cell variables, its digits free to
repeat: its encoding cannot know that a group of ``k`` cells in one house adds at most the ``k``
greatest values. The bound that settles ISS's 'Zero solution: Little Killer' is such a group
bound: four diagonals together must add up to 196 where their groups allow at most 198. Learning
that from the clue rows and the houses' at-most-ones is a proof the SAT engine did not find in
180 s (the core install, where ``auto`` picks it: ``dfsrules`` needs numba).

So each combined sum gets, per group ``g`` and value ``v``, a variable ``y(g, v)``: "some cell of
``g`` holds ``v``" (``y`` <-> the OR of the cells' variables; at most one of them is true, the
group being in one house). With exactly ``k`` of a group's ``y`` true (its cells filled with
distinct values), the sum is ``sum v y(g, v)``, and shifting each group by the value ``p`` just
outside its ``k`` greatest gives the same row with small weights::

    sum_g sum_v (p_g - v) y(g, v)  <=  sum_g k_g p_g - total

whose normal form (``(p - v) y`` with ``p - v < 0`` becomes ``(v - p) ~y``) has as its bound the
distance of the total from the groups' largest sum, 2 in the puzzle above: any value further
below ``p`` than that, or any of the greatest missing by more, is ruled out by unit propagation.
The mirror row (``p`` just above the ``k`` least) does the same for a total near the least sum.
Every clause follows from the puzzle's rows (a sum of its own clue rows over disjoint cells, each
group's distinct values), so no answer changes. With them the SAT engine proves that puzzle
impossible in about a second (2026-12-07).
"""
from __future__ import annotations

import numpy as np

from pipeline.core.build import Model
from pipeline.core.clauses import settled_clauses, value_literals
from pipeline.core.clauses_pb import encode_rows
from pipeline.core.csr import Csr
from pipeline.core.rules.littlekiller import LittleKiller
from pipeline.core.combined_sums import Houses, combined_sums, house_tables

__all__ = ["MAX_SLACK", "combined_sum_clauses"]

#: A side (the largest or the least sum) is encoded only when the total is within this of it:
#: its encoding grows with the bound, and a bound this loose rules out no value by itself (a
#: value is ruled out when its weight, at most ``N - 1``, passes the bound).
MAX_SLACK = 16


def combined_sum_clauses(model: Model, top: int, *, view: bool) -> tuple[list[list[int]], int]:
    """The clauses of ``model``'s little killers' combined sums (module docstring), with their
    auxiliary variables numbered from ``top + 1``; none for a puzzle without combined sums.

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
    (list of list of int, int)
        The clauses and how many auxiliary variables they use.
    """
    puzzle = model.puzzle
    # a layout's canvas and a value set other than the side's have no such houses (nor combined sums)
    if (puzzle.layout is not None or puzzle.units_at_most or puzzle.n_values != puzzle.n
            or not any(isinstance(rule, LittleKiller) for rule in puzzle.rules)):
        return [], 0
    units = house_tables(puzzle)
    sums = combined_sums(puzzle, units)
    if not sums:
        return [], 0
    n = puzzle.n
    values = np.asarray(puzzle.board.value_of[:n], dtype=np.int64)
    houses = Houses(units, values)
    ordered = np.sort(values)
    groups: list[np.ndarray] = []
    row_of_group: list[int] = []
    totals = np.array([total for _, total in sums], dtype=np.int64)
    for k, (cells, _) in enumerate(sums):
        for group in houses.groups(cells):
            if group.size == n:   # a full house adds a fixed amount
                totals[k] -= int(houses.high[n])
            else:
                groups.append(group)
                row_of_group.append(k)
    sizes = np.array([g.size for g in groups], dtype=np.int64)
    # y(g, v): variable top + 1 + g * n + index of v
    y = top + 1 + np.arange(sizes.size * n, dtype=np.int64).reshape(sizes.size, n)
    clauses: list[list[int]] = []
    touched: list[np.ndarray] = []
    for g, cells in enumerate(groups):
        x = value_literals(model, cells)   # (cells, N)
        touched.append(x.ravel() - 1)
        clauses += np.column_stack([-y[g], x.T]).tolist()                                       # y -> some x
        clauses += np.column_stack([-x.ravel(), np.broadcast_to(y[g], x.shape).ravel()]).tolist()   # x -> y
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    coefs: list[np.ndarray] = []
    rhs: list[int] = []
    rows_g = np.array(row_of_group, dtype=np.int64)
    for side, pivot in (("high", ordered[::-1][sizes]), ("low", ordered[sizes])):
        # high: sum (p - v) y <= sum k p - total; low: sum (v - p) y <= total - sum k p
        sign = 1 if side == "high" else -1
        bound_of = np.array([sign * (int((sizes * pivot)[rows_g == k].sum()) - int(totals[k])) for k in range(len(sums))])
        reach = np.array([int(getattr(houses, side)[sizes[rows_g == k]].sum()) for k in range(len(sums))])
        slack = sign * (reach - totals)
        for k in np.flatnonzero(slack <= MAX_SLACK).tolist():
            mine = np.flatnonzero(rows_g == k)
            weight = sign * (pivot[mine][:, None] - values[None, :])
            rows.append(np.full(weight.size, len(rhs)))
            cols.append((y[mine] - top - 1).ravel())
            coefs.append(weight.ravel())
            rhs.append(int(bound_of[k]))
    n_aux = int(sizes.size * n)
    if rhs:
        matrix = Csr.from_entries(np.concatenate(rows), np.concatenate(cols), np.concatenate(coefs), (len(rhs), n_aux))
        enc = encode_rows(matrix, np.array(rhs, dtype=np.int64), np.full(len(rhs), "L"),
                          np.arange(top + 1, top + 1 + n_aux, dtype=np.int64), top=top + n_aux)
        clauses += enc.clauses()
        n_aux += enc.n_aux
    if view:   # settled positions are not in the solver: fixed here
        clauses += settled_clauses(model, touched)
    return clauses, n_aux
