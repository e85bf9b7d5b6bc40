"""The skyscraper clues' seen and hidden conditions as clauses, for the SAT engine: in place of
each clue's ``skyscraperseen``, ``skyscraperhidden`` and ``skyscraperlow`` rows
(:class:`pipeline.core.rules.skyscraper.Skyscraper`), the same conditions written over the line's
running maximum in the order encoding and the rule's own auxiliary columns ``aux_i`` ("``c_i`` is
seen"). The count row ``skyscraper_k`` (a cardinality row over those columns) keeps its encoding.

The hidden rows pair every two cells of the line on every digit (``L^2 N / 2`` rows of ``N + 2``
terms, rhs 2), which the pseudo-Boolean encoding turns into tens of clauses each without knowing
that a cell holds one digit: ISS's "Skyscraper - all 5" had 211,020 rule clauses, and CaDiCaL
needed 23,519 conflicts to solve it. Here, along the line read from the clue, ``m(q, d)`` says "the
first ``q`` cells' largest digit index is at least ``d``" (``q = 1 .. L-1``, ``d = 1 .. N-1``;
``m(q, 0)`` is true)::

    m(q, d + 1) -> m(q, d)       m(q - 1, d) -> m(q, d)       x(c_q, d) -> m(q, d)
    m(q, d) -> m(q - 1, d) or x(c_q, d) or m(q, d + 1)

(``c_q`` the line's ``q``-th cell, 1-based), so ``m`` is exactly the running maximum. Cell ``c_i``
(``i >= 2``, 0-based place ``q = i - 1`` after ``q`` cells) is seen when its digit ``d`` is above
the maximum before it and no ``Z`` digit (value 0 or less)::

    x(c_i, d) and not m(q, d) -> aux_i     (d not in Z)       (the seen rows)
    aux_i and x(c_i, d) -> not m(q, d)                         (the hidden rows)
    aux_i -> not x(c_i, d)                 (d in Z)            (the low rows)

With each cell holding one digit, ``aux_i`` is then exactly "``c_i`` is seen", as the rows make
it, so no answer changes.
"""
from __future__ import annotations

import numpy as np

from pipeline.core.build import Model
from pipeline.core.clauses import ReplacedRows, aux_variables, padded_clause_lists, settled_clauses, value_literals
from pipeline.core.rules.skyscraper import Skyscraper

__all__ = ["SKYSCRAPERS", "SKYSCRAPER_PREFIXES", "SkyscraperClauses", "skyscraper_clauses"]

#: Encode the skyscraper clues' seen, hidden and low rows by clauses over a running maximum
#: (False: by their pseudo-Boolean rows, as before).
SKYSCRAPERS = True
#: The row families these clauses replace.
SKYSCRAPER_PREFIXES = ("skyscraperseen_", "skyscraperhidden_", "skyscraperlow_")
_TRUE = 1 << 60   # the constant true literal while the clauses are made (false: _TRUE + 1)


class SkyscraperClauses(ReplacedRows):
    """The clauses of :func:`skyscraper_clauses` and the ``n_aux`` variables they use, in place of
    the rows of :data:`SKYSCRAPER_PREFIXES`."""

    prefixes = SKYSCRAPER_PREFIXES


def _one_clue(x: np.ndarray, aux: np.ndarray, low: np.ndarray, first: int) -> np.ndarray:
    """One clue's clauses as zero-padded rows of width 4: ``x`` ``(L, N)`` its line's value
    variables from the clue, ``aux`` ``(L - 1,)`` the seen variables of places ``1 .. L-1``,
    ``low`` ``(N,)`` where a digit is in ``Z``, the maximum's variables numbered from ``first``
    (``(L - 1) (N - 1)`` of them)."""
    length, n = x.shape
    # lit[q, d]: m(q, d) for q = 0 .. L-1, d = 0 .. N; m(q, 0) true, m(0, d >= 1) and m(q, N) false
    true, false = _TRUE, _TRUE + 1          # markers past any variable, resolved below
    lit = np.full((length, n + 1), false, dtype=np.int64)
    lit[:, 0] = true
    lit[1:, 1:n] = first + np.arange((length - 1) * (n - 1)).reshape(length - 1, n - 1)
    q, d = (g.ravel() for g in np.meshgrid(np.arange(1, length), np.arange(1, n), indexing="ij"))
    mq = lit[q, d]
    rows = [np.stack([-lit[q, d + 1], mq, 0 * q, 0 * q], axis=1),           # m(q, d + 1) -> m(q, d)
            np.stack([-lit[q - 1, d], mq, 0 * q, 0 * q], axis=1),           # m(q - 1, d) -> m(q, d)
            np.stack([-x[q - 1, d], mq, 0 * q, 0 * q], axis=1),             # x(c_q, d) -> m(q, d)
            np.stack([-mq, lit[q - 1, d], x[q - 1, d], lit[q, d + 1]], axis=1)]
    # the seen cells: place p = 1 .. L-1 (0-based), after p cells; every digit
    p, e = (g.ravel() for g in np.meshgrid(np.arange(1, length), np.arange(n), indexing="ij"))
    a, xe, me = aux[p - 1], x[p, e], lit[p, e]
    up = ~low[e]
    rows.append(np.stack([-xe[up], me[up], a[up], 0 * a[up]], axis=1))     # seen
    rows.append(np.stack([-a, -xe, np.where(low[e], false, -me), 0 * a], axis=1))   # hidden, low
    out = np.concatenate(rows)
    # a clause with a true literal holds: dropped; a false literal is left out
    holds = ((out == true) | (out == -false)).any(axis=1)
    out = out[~holds]
    return np.where((out == false) | (out == -true), 0, out)


def skyscraper_clauses(model: Model, top: int, *, view: bool) -> SkyscraperClauses:
    """The clauses of ``model``'s skyscraper clues in place of their seen, hidden and low rows
    (module docstring), the running maxima's variables numbered from ``top + 1``; none for a
    puzzle without them, with a layout, or whose auxiliary
    columns are not the clues' own as expected (a reduced model that settled one of them).

    Parameters
    ----------
    model : Model
        The model: cell variables are its positions + 1, auxiliary column ``j`` is variable
        ``n_vars + j + 1``.
    top : int
        The largest variable used before these.
    view : bool
        A one-puzzle engine's solver view: a reduced model's settled positions (left out of the
        solver) are fixed here wherever these clauses read them.

    Returns
    -------
    SkyscraperClauses
    """
    puzzle = model.puzzle
    clues = [rule for rule in puzzle.rules if isinstance(rule, Skyscraper)]
    if not clues or puzzle.layout is not None:
        return SkyscraperClauses([], 0)
    lookup = aux_variables(model, "skyscraper", view=view)
    n = puzzle.n_values                # heights: every digit index (a 7x7 of 1..9 has 9)
    low = np.asarray(puzzle.board.value_of[:n]) <= 0
    parts, touched, n_aux = [np.zeros((0, 4), dtype=np.int64)], [], 0
    for index, rule in enumerate(clues, start=1):
        cells = rule.cells()
        aux = lookup([f"aux_skyscraper_{index}_{i}" for i in range(2, cells.size + 1)])
        if aux is None:
            return SkyscraperClauses([], 0)
        x = value_literals(model, cells, n)
        touched.append(x.ravel() - 1)
        parts.append(_one_clue(x, aux, low, top + 1 + n_aux))
        n_aux += (cells.size - 1) * (n - 1)
    clauses = padded_clause_lists(np.concatenate(parts))
    if view:   # settled positions are not in the solver: fixed here
        clauses += settled_clauses(model, touched)
    return SkyscraperClauses(clauses, n_aux)
