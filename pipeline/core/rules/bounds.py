"""What the rules beyond units rule out, given each cell's candidate digits: bounds on their rows.

Every rule row is ``sum_t a_t x[c_t, d_t]`` with sense ``<=`` or ``=`` and right-hand side ``b``
(:meth:`pipeline.core.rules.base.Rule.rows`). A cell holds exactly one of its candidate digits, so
cell ``c`` adds between ``min`` and ``max`` of ``a[c, d]`` over its candidates ``d`` to the row
(``a[c, d] = 0`` for a digit the row does not name), and the row's value lies between the sums of
these. Hence, soundly:

* a row whose least value exceeds ``b`` (or, for ``=``, whose largest value is below ``b``)
  cannot hold: the candidates have no solution (:attr:`RuleBounds.broken`);
* candidate ``d`` of cell ``c`` is impossible when the row's other cells at their least already
  push ``a[c, d]`` over ``b``, or (``=``) at their most cannot bring it up to ``b``
  (:attr:`RuleBounds.ruled_out`).

For a killer cage that is the sum arithmetic (two cells summing to 3 hold 1 and 2), for
anti-knight and non-consecutive rows the neighbour elimination of a placed digit, for a
thermometer the digits too small or too large for their place. It is the rows' bounds only
(no reasoning over several rows at once): :mod:`pipeline.tools.rate` uses it as one technique,
and its checks.

The rows of each rule are taken against the puzzle's units without other rules' own units (a
cage inside a windoku window keeps its distinct-digit rows), so each row belongs to exactly one
rule (:attr:`RuleTerms.rule`): :mod:`pipeline.tools.explain` switches rules on and off by them.

A rule whose rows also hold auxiliary 0-1 columns (skyscraper, counting circles, chaos
construction, ...) is left out (:attr:`RuleTerms.left_out`): its rows' bounds over the cells
alone would be wrong (a counting-circles row dropped its indicator column and ruled out the
solution's digits), and leaving a row out only rules out less. So is a rule that names extra
cells when the caller asks (``extra_cells=False``: the rater's candidates cover the grid alone).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from pipeline.core.rules.auxcols import AuxRows
from pipeline.core.rules.base import Board, Rule

__all__ = ["RuleBounds", "RuleTerms", "broken_rows", "rule_bounds", "rule_terms"]


@dataclass(frozen=True, eq=False)
class RuleTerms:
    """The rows of a puzzle's rules beyond units, as terms over (cell, digit).

    ``term_*`` are the rows' terms (``term_coef[t]`` on ``x[term_cell[t], term_digit[t]]`` in row
    ``term_row[t]``; cells are canvas numbers, digits 0-based). ``pair_row``/``pair_cell`` list
    each (row, cell) once with the row's coefficient of every digit of the cell in ``coef``
    (``(P, N)``, zeros for digits the row does not name).
    """

    n: int
    rule: np.ndarray        # (R,) index into the puzzle's rules of each row
    rhs: np.ndarray         # (R,)
    equal: np.ndarray       # (R,) bool: "=" (else "<=")
    term_row: np.ndarray    # (T,)
    term_cell: np.ndarray
    term_digit: np.ndarray
    term_coef: np.ndarray
    pair_row: np.ndarray    # (P,)
    pair_cell: np.ndarray   # (P,)
    coef: np.ndarray        # (P, N) float
    #: indices of the rules whose rows are not here (auxiliary columns or extra cells)
    left_out: tuple[int, ...] = ()

    @property
    def n_rows(self) -> int:
        """Number of rule rows."""
        return int(self.rhs.size)

    def row_cells(self, row: int) -> np.ndarray:
        """The cells of ``row`` (canvas numbers, in the order the rule gave them)."""
        return self.pair_cell[self.pair_row == row]


@dataclass(frozen=True, eq=False)
class RuleBounds:
    """Bounds of every rule row under some candidates: ``low``/``high`` (``(R,)``), ``broken``
    rows (``(R,)`` bool) and ``ruled_out`` candidates (``(P, N)`` bool, per (row, cell) pair)."""

    low: np.ndarray
    high: np.ndarray
    broken: np.ndarray
    ruled_out: np.ndarray


def rule_terms(rules: Sequence[Rule], board: Board, extra_cells: bool = True) -> RuleTerms:
    """The rows of ``rules`` as terms, each rule's rows against ``board`` plus its own units.

    Parameters
    ----------
    rules : sequence of Rule
        The puzzle's rules (``Puzzle.rules``, in row order).
    board : Board
        The puzzle's board before the rules' own units (``Puzzle.base_board``).
    extra_cells : bool, default True
        Keep the rows of rules that name extra cells (their terms' cells past the grid's);
        False leaves those rules out (:attr:`RuleTerms.left_out`), as rules with auxiliary
        columns always are.

    Returns
    -------
    RuleTerms

    Examples
    --------
    >>> import numpy as np
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> p = parse_puzzle('{"size": 4, "rules": [{"rule": "cage", "cells": ["r1c2", "r2c3"], "sum": 3}]}')
    >>> terms = rule_terms(p.rules, p.base_board)
    >>> terms.n_rows, terms.equal.tolist()
    (5, [False, False, False, False, True])
    """
    n = board.n_values
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("row", "cell", "digit", "coef", "rhs", "equal", "rule")}
    base, seen = 0, {}  # type: tuple[int, dict[str, int]]
    left_out: list[int] = []
    for k, rule in enumerate(rules):
        seen[rule.kind] = seen.get(rule.kind, 0) + 1
        own = Board(board.rows, board.cols, board.n, board.h, board.w, board.present,
                    tuple(board.unit_families) + tuple(rule.units(board)), board.grids, board.values, board.extra)
        blocks = [block for block in rule.rows(own, seen[rule.kind]) if block.n_rows]
        if any((isinstance(block, AuxRows) and block.aux_row.size)
               or (not extra_cells and (block.cell >= board.n_cells).any()) for block in blocks):
            left_out.append(k)
            continue
        for block in blocks:
            parts["row"].append(block.row + base)
            parts["cell"].append(block.cell)
            parts["digit"].append(block.digit)
            parts["coef"].append(block.coef)
            parts["rhs"].append(block.rhs)
            parts["equal"].append(np.full(block.n_rows, block.sense == "E"))
            parts["rule"].append(np.full(block.n_rows, k))
            base += block.n_rows
    if not base:
        z = np.zeros(0, dtype=np.int64)
        return RuleTerms(n, z, z.astype(float), z.astype(bool), z, z, z, z, z, z, np.zeros((0, n)), tuple(left_out))
    row, cell, digit = (np.concatenate(parts[k]).astype(np.int64) for k in ("row", "cell", "digit"))
    coef = np.concatenate(parts["coef"]).astype(np.int64)
    # one (row, cell) pair per cell a row touches, in the order the row names its cells
    key = row * board.n_cells + cell
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")           # pairs in term order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    pair = rank[inverse.ravel()]
    dense = np.zeros((order.size, n))
    np.add.at(dense, (pair, digit), coef)
    return RuleTerms(n, np.concatenate(parts["rule"]).astype(np.int64), np.concatenate(parts["rhs"]).astype(float),
                     np.concatenate(parts["equal"]), row, cell, digit, coef, row[first[order]], cell[first[order]],
                     dense, tuple(left_out))


def rule_bounds(terms: RuleTerms, cand: np.ndarray) -> RuleBounds:
    """The rows' bounds under ``cand`` and the candidates they rule out (vectorised).

    Parameters
    ----------
    terms : RuleTerms
        From :func:`rule_terms`.
    cand : ndarray of bool, shape (cells, N)
        Candidate digits of every canvas cell (a placed digit: its one candidate).

    Returns
    -------
    RuleBounds
        A cell without candidates makes its rows broken.

    Examples
    --------
    >>> import numpy as np
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> p = parse_puzzle('{"size": 4, "rules": [{"rule": "cage", "cells": ["r1c2", "r2c3"], "sum": 3}]}')
    >>> b = rule_bounds(rule_terms(p.rules, p.base_board), np.ones((16, 4), dtype=bool))
    >>> b.ruled_out[-2:].astype(int).tolist()   # the sum row: only 1 and 2 fit
    [[0, 0, 1, 1], [0, 0, 1, 1]]
    """
    rows = terms.n_rows
    c = cand[terms.pair_cell]
    pmin = np.where(c, terms.coef, np.inf).min(axis=1, initial=np.inf)
    pmax = np.where(c, terms.coef, -np.inf).max(axis=1, initial=-np.inf)
    low = np.bincount(terms.pair_row, pmin, minlength=rows)
    high = np.bincount(terms.pair_row, pmax, minlength=rows)
    broken = (low > terms.rhs + 0.5) | (terms.equal & (high < terms.rhs - 0.5))
    with np.errstate(invalid="ignore"):   # inf - inf where a cell has no candidate: the row is broken anyway
        rest_low = (low[terms.pair_row] - pmin)[:, None]
        rest_high = (high[terms.pair_row] - pmax)[:, None]
        rhs = terms.rhs[terms.pair_row][:, None]
        out = (rest_low + terms.coef > rhs + 0.5) | (terms.equal[terms.pair_row][:, None] & (rest_high + terms.coef < rhs - 0.5))
    return RuleBounds(low, high, broken, out & c)


def broken_rows(terms: RuleTerms, grid: np.ndarray) -> np.ndarray:
    """The rule rows a full grid breaks (their value compared with the right-hand side).

    Parameters
    ----------
    terms : RuleTerms
        From :func:`rule_terms`.
    grid : ndarray of int
        The grid or canvas (flat or 2-D; digits ``1..N``, 0 where empty: an empty cell adds nothing).

    Returns
    -------
    ndarray of int
        Row numbers, increasing.
    """
    flat = np.asarray(grid).ravel()
    hit = flat[terms.term_cell] - 1 == terms.term_digit
    value = np.bincount(terms.term_row[hit], terms.term_coef[hit].astype(float), minlength=terms.n_rows)
    return np.flatnonzero((value > terms.rhs + 0.5) | (terms.equal & (value < terms.rhs - 0.5)))
