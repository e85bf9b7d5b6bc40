"""The hidden skyscraper clues' taller and rise conditions as clauses, for the SAT engine: in
place of each clue's ``hiddenskyscrapertaller`` and ``hiddenskyscraperrise`` rows
(:class:`pipeline.core.rules.skyscraper.HiddenSkyscraper`). The one-place row
``hiddenskyscraper_k`` (``D`` is in the line, not first; ``= 1``) keeps its encoding.

The rise rows are at-most-2 rows of up to ``L + N`` terms, ``(L - 2) N`` of them a clue, which the
pseudo-Boolean encoding turns into counters (ISS's "Hidden skyscrapers": 87,444 rule clauses).
Here, along the line read from the clue (``c_p``, 0-based ``p``), ``b(p)`` says "``D`` is at
``c_p`` or beyond" (``p = 2 .. L-1``; ``b(L)`` false)::

    x(c_p, D) -> b(p)      b(p + 1) -> b(p)      b(p) -> x(c_p, D) or b(p + 1)

so ``b`` is exactly that suffix "or", and the rows become::

    x(c_p, D) -> OR_{e > D} x(c_{p-1}, e)                       p = 1 .. L-1   (the taller rows)
    b(j + 2) and x(c_j, e) -> OR_{f > e} x(c_{j+1}, f)          j = 0 .. L-3, every e   (the rise rows)

With each cell holding one digit and the one-place row (at most one ``D`` beyond ``c_{j+1}``),
a rise row says the same: ``D`` beyond ``c_{j+1}`` and ``c_j = e`` rule out ``c_{j+1} <= e``;
so no answer changes.
"""
from __future__ import annotations

import numpy as np

from pipeline.core.build import Model
from pipeline.core.clauses import ReplacedRows, padded_clause_lists, settled_clauses, value_literals
from pipeline.core.rules.skyscraper import HiddenSkyscraper

__all__ = ["HIDDEN_SKYSCRAPERS", "HIDDEN_SKYSCRAPER_PREFIXES", "HiddenSkyscraperClauses", "hidden_skyscraper_clauses"]

#: Encode the hidden skyscraper clues' taller and rise rows by clauses over a suffix "or"
#: (False: by their pseudo-Boolean rows, as before).
HIDDEN_SKYSCRAPERS = True
#: The row families these clauses replace.
HIDDEN_SKYSCRAPER_PREFIXES = ("hiddenskyscrapertaller_", "hiddenskyscraperrise_")


class HiddenSkyscraperClauses(ReplacedRows):
    """The clauses of :func:`hidden_skyscraper_clauses` and the ``n_aux`` variables they use, in
    place of the rows of :data:`HIDDEN_SKYSCRAPER_PREFIXES`."""

    prefixes = HIDDEN_SKYSCRAPER_PREFIXES


def _one_clue(x: np.ndarray, target: int, first: int) -> np.ndarray:
    """One clue's clauses as zero-padded rows of width ``N + 2``: ``x`` ``(L, N)`` its line's
    value variables from the clue, ``target`` the clue's digit index ``D``, ``b(2 .. L-1)``
    numbered from ``first``."""
    length, n = x.shape
    width = n + 2
    # b[p] for p = 0 .. L: b(2 .. L-1) variables, b(L) false (0: no literal), b(0), b(1) unused
    b = np.zeros(length + 1, dtype=np.int64)
    b[2:length] = first + np.arange(length - 2)
    p = np.arange(2, length)
    xd = x[p, target]
    defs = np.zeros((3 * p.size, width), dtype=np.int64)
    defs[:p.size, :2] = np.stack([-xd, b[p]], axis=1)                          # x(c_p, D) -> b(p)
    tail = p[p + 1 < length]
    defs[p.size:p.size + tail.size, :2] = np.stack([-b[tail + 1], b[tail]], axis=1)   # b(p + 1) -> b(p)
    defs[2 * p.size:, :3] = np.stack([-b[p], xd, b[p + 1]], axis=1)            # b(p) -> x(c_p, D) or b(p + 1)
    defs = defs[(defs != 0).any(axis=1)]
    # taller: x(c_p, D) -> some e > D at c_{p-1}
    q = np.arange(1, length)
    taller = np.zeros((q.size, width), dtype=np.int64)
    taller[:, 0] = -x[q, target]
    taller[:, 1:n + 1] = np.where(np.arange(n) > target, x[q - 1], 0)
    # rise: b(j + 2) and x(c_j, e) -> some f > e at c_{j+1}
    j, e = (g.ravel() for g in np.meshgrid(np.arange(length - 2), np.arange(n), indexing="ij"))
    rise = np.zeros((j.size, width), dtype=np.int64)
    rise[:, 0], rise[:, 1] = -b[j + 2], -x[j, e]
    rise[:, 2:] = np.where(np.arange(n)[None, :] > e[:, None], x[j + 1], 0)
    return np.concatenate([defs, taller, rise])


def hidden_skyscraper_clauses(model: Model, top: int, *, view: bool) -> HiddenSkyscraperClauses:
    """The clauses of ``model``'s hidden skyscraper clues in place of their taller and rise rows
    (module docstring), the suffix variables numbered from ``top + 1``; none for a puzzle
    without them or with a layout.

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
    HiddenSkyscraperClauses
    """
    puzzle = model.puzzle
    clues = [rule for rule in puzzle.rules if isinstance(rule, HiddenSkyscraper)]
    if not clues or puzzle.layout is not None:
        return HiddenSkyscraperClauses([], 0)
    n = puzzle.n_values
    parts, touched, n_aux = [np.zeros((0, n + 2), dtype=np.int64)], [], 0
    for rule in clues:
        cells = rule.cells()
        target = int(puzzle.board.index_of([rule.value])[0])
        x = value_literals(model, cells, n)
        touched.append(x.ravel() - 1)
        parts.append(_one_clue(x, target, top + 1 + n_aux))
        n_aux += max(cells.size - 2, 0)
    clauses = padded_clause_lists(np.concatenate(parts))
    if view:   # settled positions are not in the solver: fixed here
        clauses += settled_clauses(model, touched)
    return HiddenSkyscraperClauses(clauses, n_aux)
