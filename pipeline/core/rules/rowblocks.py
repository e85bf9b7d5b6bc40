"""Blocks of rows of many rules of one kind at once (:meth:`~pipeline.core.rules.base.Rule.rows_of`).

A kind that builds all its rules' rows together (one numpy step per family, not a call per rule)
gives one block per family, rules in order. :func:`in_rule_order` cuts those blocks back into the
order the rules' own :meth:`~pipeline.core.rules.base.Rule.rows` give (rule after rule, each
rule's families in order), merging consecutive pieces of one family; :func:`ragged_positions`
helps to lay out the terms of rules of different sizes.
"""
from __future__ import annotations

import functools

import numpy as np

from pipeline.core.rules.base import Rows

__all__ = ["distinct_rows", "distinct_small_ints", "in_rule_order", "pair_rows", "pairs_within", "ragged_positions",
           "rows_by_owner", "run_starts"]


def ragged_positions(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For consecutive groups of ``counts`` entries: the group of each entry and its place in it.

    Parameters
    ----------
    counts : ndarray of int
        Entries per group.

    Returns
    -------
    tuple of ndarray
        ``(group, within)`` per entry, groups in order.
    """
    counts = np.asarray(counts, dtype=np.int64)
    group = np.repeat(np.arange(counts.size), counts)
    starts = np.cumsum(counts) - counts
    return group, np.arange(group.size, dtype=np.int64) - starts[group]


def pair_rows(family: str, a: np.ndarray, b: np.ndarray, digit_a: np.ndarray, digit_b: np.ndarray,
              labels: np.ndarray) -> Rows:
    """``x[a, da] + x[b, db] <= 1`` for every entry (one row each): the two may not hold together.

    Parameters
    ----------
    family : str
        The rows' family.
    a, b : ndarray of int
        The two cells of each row.
    digit_a, digit_b : ndarray of int
        Their 0-based digits.
    labels : ndarray of int, shape (rows, k)
        1-based label indices.

    Returns
    -------
    Rows
    """
    m = a.size
    row = np.repeat(np.arange(m), 2)
    cell = np.stack([a, b], axis=1).ravel()
    digit = np.stack([digit_a, digit_b], axis=1).ravel()
    return Rows(family, row, cell, digit, np.ones(2 * m, dtype=np.int64), np.ones(m, dtype=np.int64), "L", labels)


def distinct_rows(family: str, cells: np.ndarray, start: np.ndarray, size: np.ndarray, groups: np.ndarray, n: int,
                  first_index: int) -> Rows:
    """``family_g_d`` (``<= 1``): digit ``d`` at most once in group ``g``, for each group of
    ``groups`` (the rules' 0-based positions: killer cages or renban lines outside one unit), whose
    cells are ``cells[start[g] : start[g] + size[g]]``; rows group by group, digits in order, each
    row's terms the group's cells in order; labels ``(g + first_index, d + 1)``.

    Parameters
    ----------
    family : str
        The rows' family.
    cells, start, size : ndarray of int
        Every rule's cells one after the other, where each rule's start and how many it has.
    groups : ndarray of int
        The rules that get rows.
    n : int
        Digits.
    first_index : int
        The first rule's 1-based number.

    Returns
    -------
    Rows
    """
    term_group, term_at = ragged_positions(n * size[groups])
    k = size[groups][term_group]
    digit = term_at // k
    return Rows(family, term_group * n + digit, cells[start[groups][term_group] + term_at % k], digit,
                np.ones(digit.size, dtype=np.int64), np.ones(n * groups.size, dtype=np.int64), "L",
                np.stack([np.repeat(groups + first_index, n), np.tile(np.arange(1, n + 1), groups.size)], axis=1))


def rows_by_owner(blocks: list[Rows], owners: list[np.ndarray]) -> tuple[Rows, np.ndarray]:
    """Blocks of one family, each with the rule (``owners``: 0-based position, non-decreasing) of
    its rows, as one block whose rows are ordered by rule (stable: a rule's rows keep their block's
    order, and a block built per group of rules, such as lines of one length, falls back into rule
    order for :func:`in_rule_order`).

    Parameters
    ----------
    blocks : list of Rows
        Of one family and sense, each's terms in row order.
    owners : list of ndarray of int
        Per block, the rule of each row.

    Returns
    -------
    (Rows, ndarray)
        The block, and the rule of each of its rows (non-decreasing).
    """
    first = blocks[0]
    offsets = np.cumsum([0] + [block.n_rows for block in blocks])
    owner = np.concatenate(owners).astype(np.int64)
    order = np.argsort(owner, kind="stable")
    new_row = np.empty(order.size, dtype=np.int64)
    new_row[order] = np.arange(order.size)
    row = new_row[np.concatenate([block.row + offsets[k] for k, block in enumerate(blocks)])]
    terms = np.argsort(row, kind="stable")
    cell, digit, coef = (np.concatenate([getattr(block, name) for block in blocks])[terms]
                         for name in ("cell", "digit", "coef"))
    rhs = np.concatenate([block.rhs for block in blocks])[order]
    labels = np.concatenate([block.labels for block in blocks])[order]
    return Rows(first.family, row[terms], cell, digit, coef, rhs, first.sense, labels), owner[order]


def run_starts(keys: np.ndarray) -> np.ndarray:
    """Where each run of equal ``keys`` starts (True at 0 and wherever a key differs from the one
    before): ``np.r_[True, keys[1:] != keys[:-1]]`` without ``np.r_``'s index machinery (4x
    slower; the rule tables ask several times a puzzle).

    Examples
    --------
    >>> run_starts(np.array([3, 3, 5, 5, 5, 3])).tolist()
    [True, False, True, False, False, True]
    """
    keys = np.asarray(keys)
    out = np.empty(keys.shape[0], dtype=bool)
    if out.size:
        out[0] = True
        np.not_equal(keys[1:], keys[:-1], out=out[1:])
    return out


@functools.lru_cache(maxsize=256)
def pairs_within(k: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(k, 1)``: every pair ``(i, j)``, ``i < j``, of ``k`` places; read-only, made
    once per ``k`` (``triu_indices`` builds a ``k x k`` mask each call: 30-40 us of a renban
    line's rows, a tenth of the rule tables' time).

    Examples
    --------
    >>> [a.tolist() for a in pairs_within(3)]
    [[0, 0, 1], [1, 2, 2]]
    """
    i, j = np.triu_indices(k, 1)
    i.flags.writeable = j.flags.writeable = False
    return i, j


def distinct_small_ints(lengths: np.ndarray) -> np.ndarray:
    """The distinct values of ``lengths`` (small non-negative integers: row lengths, rule
    numbers), ascending.

    ``np.unique`` would do, but it imports ``numpy.ma`` on first use (numpy 2.4, 7 ms): a counting
    pass is as fast and keeps a one-puzzle solve's start-up short (issue 18).

    Examples
    --------
    >>> distinct_small_ints(np.array([9, 1, 9, 9, 1])).tolist()
    [1, 9]
    """
    return np.flatnonzero(np.bincount(lengths)) if lengths.size else np.zeros(0, dtype=np.int64)


def in_rule_order(blocks: list[Rows], owners: list[np.ndarray]) -> list[Rows]:
    """Per-family blocks of many rules -> the blocks rule by rule, as the rules' ``rows`` give them.

    Parameters
    ----------
    blocks : list of Rows
        One block per family, in the kind's family order; each holds the rows of every rule, rules
        in order (a rule's rows contiguous; the terms in row order).
    owners : list of ndarray of int
        Per block, the rule (0-based position) of each row, non-decreasing.

    Returns
    -------
    list of Rows
        Each family's empty block first (so the families keep their order), then the rows rule
        after rule, each rule's families in order, consecutive pieces of one family as one block.
    """
    out = [Rows.empty(b.family, b.sense, b.labels.shape[1]) for b in blocks]
    rule, family, row_lo, row_hi, term_lo, term_hi = [], [], [], [], [], []
    for f, (block, owner) in enumerate(zip(blocks, owners)):   # each rule's rows and terms in each block
        present = distinct_small_ints(owner)
        lo, hi = np.searchsorted(owner, present, side="left"), np.searchsorted(owner, present, side="right")
        rule.append(present)
        family.append(np.full(present.size, f))
        row_lo.append(lo)
        row_hi.append(hi)
        term_lo.append(np.searchsorted(block.row, lo, side="left"))
        term_hi.append(np.searchsorted(block.row, hi, side="left"))
    order = np.lexsort((np.concatenate(family), np.concatenate(rule)))
    fam, r_lo, r_hi, t_lo, t_hi = (np.concatenate(x)[order] for x in (family, row_lo, row_hi, term_lo, term_hi))
    if not fam.size:   # no rows at all
        return out
    cut = np.append(np.flatnonzero(run_starts(fam)), fam.size)
    first, last = cut[:-1], cut[1:] - 1
    for f, r0, r1, t0, t1 in zip(fam[first].tolist(), r_lo[first].tolist(), r_hi[last].tolist(),
                                 t_lo[first].tolist(), t_hi[last].tolist()):
        block = blocks[f]
        if r0 == 0 and r1 == block.n_rows:
            out.append(block)
            continue
        out.append(Rows(block.family, block.row[t0:t1] - r0, block.cell[t0:t1], block.digit[t0:t1],
                        block.coef[t0:t1], block.rhs[r0:r1], block.sense, block.labels[r0:r1]))
    return out
