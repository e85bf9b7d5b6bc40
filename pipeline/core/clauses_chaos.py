"""Clauses every chaos construction's division keeps, for the SAT engine: added beside the rule's
rows (:mod:`pipeline.core.rules.chaos`), over its region columns ``reg[c,k]``
(``aux_chaosregion_r_c_k``), so that unit propagation sees what the rows' reachability steps
show only late.

A region is ``N`` orthogonally connected cells, so

* two cells ``N`` or more steps apart (Manhattan) are in different regions (a path inside a
  region of ``N`` cells has at most ``N - 1`` steps): ``not reg[a,k] or not reg[b,k]``;
* a cell's region holds one of its orthogonal neighbours (``N > 1``):
  ``reg[c,k] -> reg[n_1,k] or reg[n_2,k] or ...``.

Every division the rows allow keeps both, so no answer changes. Counting ISS's entries to 2 with
CaDiCaL (the SAT engine's clauses, 2026-12-07, machine at load 5-19, conflicts / CPU s without ->
with them): "Let there be chaos" 390,501 / 49.0 -> 78,295 / 7.3; "The Fountain" 553,729 / 81.6 ->
449,276 / 63.7; "Cavernous Construction" 77,729 / 10.9 -> 51,527 / 7.6; "Chaos Construction"
27,893 / 3.6 -> 19,586 / 2.7; "Stretching" 19,034 -> 14,740; "Chaos Construction: Thermo Knots"
78,231 -> 72,573 (its cost is elsewhere); one loss, "Chaos Construction: x-sums" 84,622 / 9.8 ->
90,616 / 12.1.

Tried and left out: the chaos rows that are one clause or one exactly-one written as those
clauses in place of their cardinality encodings. python-sat already writes an "at most ``m - 1``
of ``m``" row as its one clause, and the exactly-ones' pairwise clauses cost conflicts ("Let there
be chaos" 242,588 with them alone, "The Fountain" 785,524).
"""
from __future__ import annotations

import numpy as np

from pipeline.core.build import Model
from pipeline.core.clauses import ReplacedRows, settled_clauses
from pipeline.core.rules.chaos import orthogonal_edges

__all__ = ["CHAOS_REGIONS", "ChaosRegionClauses", "region_clauses"]

#: Add the region clauses (False: the chaos rows alone, as before).
CHAOS_REGIONS = True


class ChaosRegionClauses(ReplacedRows):
    """The clauses of :func:`region_clauses` (no auxiliary variables); they replace no row."""


def region_clauses(model: Model, *, view: bool) -> ChaosRegionClauses:
    """The region clauses of ``model``'s chaos construction (module docstring); none when the model
    has no chaos region block.

    Parameters
    ----------
    model : Model
        The model (its variables: position + 1).
    view : bool
        A one-puzzle engine's solver view: a reduced model's settled region columns (left out of
        the solver) are fixed here.

    Returns
    -------
    ChaosRegionClauses

    Examples
    --------
    >>> from pipeline import build_model, parse_puzzle
    >>> len(region_clauses(build_model(parse_puzzle('{"size": 4, "variant": "latin"}')), view=True).clauses)
    0
    """
    names = np.asarray(model.aux_names, dtype=str)
    own = np.flatnonzero(np.char.startswith(names, "aux_chaosregion_"))
    n = round(own.size ** (1 / 3)) if own.size else 0
    if n < 2 or n ** 3 != own.size or names[own[-1]] != f"aux_chaosregion_{n}_{n}_{n}":
        return ChaosRegionClauses([])
    m = n * n
    reg = (model.convention.n_vars + own + 1).astype(np.int64).reshape(m, n)
    row, col = np.divmod(np.arange(m), n)
    a, b = np.nonzero(np.triu(np.abs(row[:, None] - row) + np.abs(col[:, None] - col) >= n))
    far = np.stack([-reg[a], -reg[b]], axis=2).reshape(-1, 2).tolist()
    edges = orthogonal_edges(n)
    degree = np.bincount(edges[:, 0], minlength=m)
    near: list[list[int]] = []
    for width in np.unique(degree).tolist():
        cells = np.flatnonzero(degree == width)
        # edges are sorted by cell: a cell's neighbours are its block of `width` rows
        nb = edges[np.searchsorted(edges[:, 0], cells)[:, None] + np.arange(width), 1]    # (cells, width)
        block = np.concatenate([-reg[cells][:, :, None], np.transpose(reg[nb], (0, 2, 1))], axis=2)
        near += block.reshape(-1, width + 1).tolist()
    fixed = settled_clauses(model, [reg.ravel() - 1]) if view else []
    return ChaosRegionClauses(fixed + far + near)
