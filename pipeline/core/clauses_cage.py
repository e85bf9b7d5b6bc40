"""Clauses of killer cages' digit combinations: a stronger SAT encoding of a cage with a sum.

A cage's sum row (``cagesum``, a pseudo-Boolean ``sum_c v(c) = total``, :mod:`pipeline.core.clauses_pb`)
propagates weakly on its own: a partial assignment rarely forces a literal of a sum of five
cells, and the killers that need the digit sets of their cages (ISS's MATHEMAGIC_KILLERS: no
givens, sixteen cages of 5 cells and one of 1) ran past 60 s. ISS's Sum handler filters a cage by its digit
combinations (``killerCageSums``: every set of ``k`` distinct digits with the sum); this module
gives the SAT engine the same reasoning as clauses, with one selector variable ``s_j`` per
combination ``C_j`` (a set of ``k`` distinct digits, ``k`` the cage's cells, adding up to the sum)
and one variable ``y_d`` per digit, "``d`` is in the cage":

1. ``s_1 | ... | s_m``: the cage's digits are one of the combinations;
2. ``~x(c, d) | y_d`` for each cell ``c``, and ``~y_d | x(c1, d) | ... | x(ck, d)``: ``y_d`` is
   "some cell holds ``d``";
3. ``~s_j | y_d`` for each digit of ``C_j``, ``~s_j | ~y_d`` for each digit outside it;
4. ``~y_d | s_j ...`` over the combinations holding ``d`` (a digit no combination holds goes).

Exact: a grid of the cage rule (``k`` distinct digits with the sum) has one digit set, a
combination; its selector alone, and ``y`` true for its digits, satisfy 1-4. Conversely, by 1-3
every digit of the cage is in a chosen ``C_j``; ``k`` distinct digits inside a set of ``k`` are
that set, so the sum holds. With the cage's distinctness rows (``cage_g_d``, or the unit holding
the cage) they say what its sum row says, which they REPLACE (the SAT engine leaves ``cagesum_g``
out: its PB encoding added about 2,000 clauses a cage and slowed the search). Clause 4 and half
of 3 are implied by the rest, but unit propagation needs them to place a digit every remaining
combination holds and to drop a digit none holds. The ``y_d`` keep the clauses few (a cage of
``k`` cells: about ``k n + n m`` binary clauses) and give the solver the digit sets to branch on.

Only cages of the ``cage`` rule (distinct digits) with a sum are encoded, and only those with at
most :data:`MAX_COMBINATIONS` combinations (every cage of a 9x9: at most 12), all of whose cells
are on the canvas; a larger grid's long cages keep their PB row alone.

On a presolved (``reduce``) model some of a cage's cell variables are not in the solver view:
they are fixed (1 for the model's clue positions, 0 for the candidates presolve removed), and the
clauses are simplified with those values (a combination a fixed cell excludes has no selector).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.build import Model
from pipeline.core.clauses_pb import rule_row_range
from pipeline.core.rules.cages import Cage

__all__ = ["MAX_COMBINATIONS", "CageClauses", "cage_combination_clauses", "combinations", "rule_row_labels"]

#: A cage with more digit combinations than this keeps its PB row alone (selectors and clauses
#: grow with the combinations; a 9x9 cage has at most 12, a 16x16's 8-cell cage up to 1,000s).
MAX_COMBINATIONS = 64


def combinations(values: np.ndarray, k: int, total: int, most: int = MAX_COMBINATIONS) -> list[tuple[int, ...]] | None:
    """The sets of ``k`` distinct digits (0-based indices into ``values``) whose values add up to
    ``total``, ascending; None when there are more than ``most``.

    Parameters
    ----------
    values : numpy.ndarray
        The value of each digit (``board.value_of``).
    k : int
        Cells of the cage.
    total : int
        The cage's sum.
    most : int
        Give up (None) past this many combinations.

    Returns
    -------
    list of tuple of int, or None

    Examples
    --------
    >>> combinations(np.arange(1, 10), 2, 5)
    [(0, 3), (1, 2)]
    >>> combinations(np.arange(1, 10), 3, 30)
    []
    """
    order = np.argsort(values, kind="stable")
    vals = [int(v) for v in np.asarray(values)[order]]
    n = len(vals)
    found: list[tuple[int, ...]] = []

    def extend(start: int, left: int, rest: int, chosen: list[int]) -> bool:
        if left == 0:
            if rest == 0:
                found.append(tuple(sorted(int(order[i]) for i in chosen)))
            return len(found) <= most
        for i in range(start, n - left + 1):
            low = sum(vals[i:i + left])                # the least the remaining picks can add
            if low > rest:
                break
            if sum(vals[n - left + 1:]) + vals[i] < rest and left > 1:   # even the largest fall short
                continue
            if left == 1 and vals[i] != rest:
                continue
            chosen.append(i)
            ok = extend(i + 1, left - 1, rest - vals[i], chosen)
            chosen.pop()
            if not ok:
                return False
        return True

    if k > n or not extend(0, k, int(total), []):
        return None if k <= n else []
    return sorted(found)


@dataclass
class CageClauses:
    """The clauses of :func:`cage_combination_clauses`: ``clauses`` (lists of literals),
    ``n_aux`` selector variables numbered from ``first_aux``, and ``labels`` the sum rows
    (``cagesum_g``) of the cages encoded, which the clauses replace."""

    clauses: list[list[int]]
    first_aux: int
    n_aux: int
    labels: tuple[str, ...]

    def keep_rows(self, labels: np.ndarray) -> np.ndarray:
        """Which of the rows labelled ``labels`` still need their own encoding (not the sum
        row of a cage these clauses encode).

        Parameters
        ----------
        labels : numpy.ndarray
            Row labels (``cage_1_3``, ``cagesum_2``, ...).

        Returns
        -------
        numpy.ndarray
            A boolean mask over ``labels``.
        """
        return ~np.isin(np.asarray(labels).astype(str), np.array(self.labels, dtype=str))


def _cell_variables(model: Model, view: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(in_view, fixed_one)`` over the model's cell positions: whether a position is a variable
    of the solver, and (for those that are not) whether it is fixed to 1."""
    n_vars = model.convention.n_vars
    in_view = np.zeros(n_vars, dtype=bool)
    fixed_one = np.zeros(n_vars, dtype=bool)
    if not view:
        in_view[:] = True
        return in_view, fixed_one
    columns = model.columns[model.columns < n_vars]
    in_view[columns] = True
    if model.is_reduced:
        fixed_one[model.clue_positions] = True
    return in_view, fixed_one


def cage_combination_clauses(model: Model, top: int, *, view: bool = True) -> CageClauses:
    """The combination clauses of ``model``'s killer cages with a sum (module docstring).

    Parameters
    ----------
    model : Model
        Any model; its ``cage`` rules with a sum are encoded (cell variable = position + 1).
    top : int
        The largest variable in use: the selectors are ``top + 1 ..``.
    view : bool
        Only the solver view's columns are variables (a one-puzzle engine; positions outside it
        are fixed, see the module docstring); False: every position is a variable (a shared engine).

    Returns
    -------
    CageClauses
    """
    puzzle = model.puzzle
    # a cage's rows are labelled by its 1-based number among the puzzle's cages (pipeline.core.rulerows)
    cages = [(number, rule.cell_list, rule.total)
             for number, rule in enumerate((r for r in puzzle.rules if r.kind == "cage"), start=1)
             if isinstance(rule, Cage) and rule.total is not None]
    if not cages:
        return CageClauses([], top + 1, 0, ())
    board = puzzle.board
    values = board.value_of
    n_digits = values.size
    conv = model.convention
    in_view, fixed_one = _cell_variables(model, view)
    clauses: list[list[int]] = []
    next_var = top
    encoded: list[str] = []
    for number, cell_list, total in cages:
        cells = np.asarray(cell_list, dtype=np.int64)
        if (cells >= puzzle.rows * puzzle.cols).any():
            continue                                            # cells past the canvas: not cell variables
        combos = combinations(values, cells.size, int(total))
        if combos is None:
            continue
        pos = np.asarray(conv.position(np.repeat(cells // puzzle.cols, n_digits), np.repeat(cells % puzzle.cols, n_digits),
                                       np.tile(np.arange(n_digits), cells.size))).reshape(cells.size, n_digits)
        var = pos + 1
        free = in_view[pos]
        one = ~free & fixed_one[pos]
        possible = free | one                                   # (cells, digits): the digit can be there
        placed = one.any(axis=0)                                # digits a fixed cell holds
        kept = []
        for combo in combos:
            member = np.zeros(n_digits, dtype=bool)
            member[list(combo)] = True
            if (placed & ~member).any() or not possible[:, member].any(axis=0).all():
                continue                                        # a fixed cell or a missing digit rules it out
            kept.append(member)
        encoded.append(f"cagesum_{number}")
        if not kept:
            clauses.append([])                                  # no combination fits: no solution
            continue
        members = np.array(kept)                                 # (combinations, digits)
        open_digits = np.flatnonzero(free.any(axis=0) & ~placed)
        selectors = np.arange(next_var + 1, next_var + 1 + len(kept))
        present = dict(zip(open_digits.tolist(), range(int(selectors[-1]) + 1, int(selectors[-1]) + 1 + open_digits.size)))
        next_var += len(kept) + open_digits.size
        clauses.append(selectors.tolist())
        for d, y in present.items():
            cells_d = var[free[:, d], d].tolist()
            clauses.extend([-v, y] for v in cells_d)            # a cell holds d: d is in the cage
            clauses.append([-y] + cells_d)                      # d in the cage: some cell holds it
            clauses.append([-y] + selectors[members[:, d]].tolist())
            clauses.extend([-s, y] if inside else [-s, -y] for s, inside in zip(selectors.tolist(), members[:, d]))
    return CageClauses(clauses, top + 1, next_var - top, tuple(encoded))


def rule_row_labels(model: Model, view: bool) -> np.ndarray:
    """The labels of the rule rows the SAT engine encodes: the solver view's
    (:func:`pipeline.core.clauses_pb.rule_rows`' order) or ``R``'s.

    Parameters
    ----------
    model : Model
        Any model.
    view : bool
        The solver view's rule rows (else ``model.R``'s).

    Returns
    -------
    numpy.ndarray
    """
    if not view:
        return model.R.labels
    start, stop = rule_row_range(model)
    return np.concatenate([model.row_labels[start:stop], model.ineq_labels]) if model.n_ineq else \
        model.row_labels[start:stop]
