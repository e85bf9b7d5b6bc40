"""The little killers' and the arrows' sums as running sums, for the SAT engine: in place of each
clue's pseudo-Boolean row, the sum of its first ``i`` cells in the order encoding.

A little killer's row ``sum_c sum_v v x(c, v) = total`` is a pseudo-Boolean sum over all its
cells' value variables; its encoding (python-sat's ``best``) cannot know that each cell holds one
value, so unit propagation learns little from it. Along the diagonal, ``o(i, s)`` says "the first
``i`` cells add up to at least ``s``" (``o(i, s + 1) -> o(i, s)``), and each cell's value moves the
running sum on::

    o(i - 1, s) and x(c_i, v)  ->  o(i, s + w_i(v))      not o(i - 1, s) and x(c_i, v)  ->  not o(i, s + w_i(v))

with ``s`` only where the sum can still reach the total (the first ``i`` cells add up to at
least the total less the rest's most and at most the total less the rest's least), and the last
sum the total. Unit propagation then keeps every cell's values within the bounds the other cells
allow (bounds consistency on the sum, as ``dfsrules``' rows have). On ISS's LITTLE_KILLER_SNIPES
entries (counting to 2, CaDiCaL, the clue rows and houses only, 2026-12-07): #0 6,722 conflicts
with the PB row, 1,806 with these; #3 40,034 and 8,018; #5 38,562 and 4,788; both encodings
together were worse than these alone (#5 7,453).

Any row ``sum_i a_i v(c_i) = total`` runs so (:func:`linear_sums`): each cell adds ``w_i(v) = a_i v``
less its least, the total is lessened by those leasts. An arrow is ``line - circle = 0`` (the
circle last, weight -1), a pill arrow ``line - (100 a + 10 b + c) = 0`` (the pill's digits last,
ones first, weights -1, -10, -100: the running sum's steps of 10 and 100 are steps like any other),
a double arrow ``line - first - last = 0``. On ISS's arrow entries (counting to 2, CaDiCaL,
2026-12-07): "Arrow" 2,261 conflicts with the PB rows, 235 with these; "Pill Arrow Sudoku" 4,125
and 1,611; "Long sums 1" more than 3,000,000 and 61,565 (the table in the commit that added them).

Arrows whose lines end on the same cells (ISS's "Triple digits": eight pill arrows and two arrows,
every line ending on one tail) ran each sum on its own: what one chain learned about the shared
cells the others could not use. With :data:`PREFIX_SUMS` a line whose tip is another's tip runs
from its tip back, so such sums begin alike, and sums that begin with the same cells share those rows' order
variables (:func:`_prefix_sums`), their bounds the tightest of any of them. "Triple digits"
(counting to 2, CaDiCaL, 2026-12-07, each on its own / shared): 236,784 / 103,515 rule clauses,
105,402 / 25,093 conflicts, ``solve --solver sat`` 15 s / 3 s; of ISS's other arrow entries only
"Taxicab Archers" has shared tips (773 / 1,668 conflicts, 0.01 s / 0.02 s), the rest unchanged.
Running every line from its tip (not only shared ones) moved the others both ways, up to +41%.

Parts that add up to one unknown total (:func:`equal_sum_parts`: a region-sum line's box segments;
a zipper's mirrored pairs and, on an odd line, its centre alone) share an order-encoded total
``t(u)`` "the total is at least ``u``", ``u`` between the largest part's least sum and the smallest
part's most, and each part's running sum ends on it (its last row's literals are ``t``'s): unit
propagation carries one part's bounds to every other part of the line, where the rows
``segment - next segment = 0`` (or ``pair - centre = 0``) each saw two parts. On ISS's entries
with them (counting to 2, CaDiCaL, 2026-12-07, conflicts with the PB rows / with these):
"Region sum lines, hard" 26,314 / 10,612, "Raw Spaghetti" 11,366 / 2,952, "The Zip that Zips the
Zips" 12,650 / 4,792, "Zipper lines - easy" 2,951 / 483; the rule clauses 5-20 times fewer (the
table in the commit that added them).

An equal-sum rule's segments (ISS ``EqualSum``, rows ``equalsum_k_s``: segment ``s`` less segment 1;
:func:`equal_sum_segments`, switch :data:`EQUALSUM_SEGMENTS`) share a total so too, each segment on
the grid a part (a cell may lie in several; a segment over an extra cell keeps its row). On ISS's
"Magic square" (counting to 2, the SAT engine's CaDiCaL, 2026-12-07, rows / these) 60,581 / 5,888
rule clauses, 560 / 584 conflicts; "House of Cards" (4 of its 8 segments over extra cells: 3 of 7
rows replaced) 255,876 / 241,789 clauses, 10,211 / 11,429 conflicts (with pairwise at-most-one
15,197 / 12,844: no gain either way). On bench/equalsum_bench.py's 18 random 9x9s (10 givens, up
to 9 equal-sum rules of 2-4 segments) 4,737,902 / 262,892 clauses, 43,309 / 13,189 conflicts, the
count's CPU 4.8 s / 0.3 s.

ISS's weighted sums (``Sum`` with coefficients, rule ``sum``) run so too, as do sums over extra
cells (ISS ``Var``, whose digits are the first auxiliary columns), under :data:`WEIGHTED_SUMS`:
"Letter Little Killer" (little killers that add up to ``10 A + C`` of extra cells) found its
answer within 5,000 conflicts, where 300,000 were not enough with the rows' PB encodings; counting
to 2, the engine took 0.23 s where 30 s did not finish (2026-12-07). Of ISS's other entries with
them, "Event horizon" 0.38 -> 0.07 s, "The good, the bad and the ugly" 1.04 -> 0.86 s.

The clauses encode exactly the rows (each cell one value), so no answer changes.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from pipeline.core.build import Model
from pipeline.core.clauses import settled_clauses, value_literals
from pipeline.core.rules.base import Board, Rule
from pipeline.core.rules.littlekiller import LittleKiller
from pipeline.core.rules.sumlines import Arrow, DoubleArrow, PillArrow, RegionSum, Zipper
from pipeline.core.rules.valuelinks import EqualSum
from pipeline.core.rules.weighted import WeightedSum

__all__ = ["EQUAL_KINDS", "EQUAL_SUMS", "EQUALSUM_SEGMENTS", "KINDS", "PREFIX_SUMS", "RUNNING_SUMS", "RunningSums",
           "WEIGHTED_SUMS", "WEIGHTED_TABLE_CELLS", "equal_sum_parts", "equal_sum_segments", "linear_sums",
           "running_sum_clauses"]

#: Encode the little killers and the arrows by running sums (False: by their pseudo-Boolean rows, as before).
RUNNING_SUMS = True

#: The rules whose rows these clauses replace: the little killers' (``littlekiller_k``), the
#: arrows' (``arrow_a``), the pill arrows' (``pillarrow_a``) and the double arrows' (``doublearrow_a``).
KINDS = ("littlekiller", "arrow", "pillarrow", "doublearrow")
#: With :data:`RUNNING_SUMS`, run an arrow's line from its tip back when another arrow ends on the
#: same cell, and let sums that begin with the same cells share those rows' order variables (:func:`_prefix_sums`:
#: arrows whose lines end on a shared tail, ISS's "Triple digits"). A switch of its own: a CNF
#: file written with ``running_sums`` on before ran each sum on its own, and reading it encodes
#: them so again.
PREFIX_SUMS = True
#: Encode the region-sum lines and the zippers by running sums onto a shared total (False: by
#: their pseudo-Boolean rows, as before).
EQUAL_SUMS = True
#: The rules whose rows the shared totals replace: the region-sum lines' (``regionsum_l_s``) and
#: the zippers' (``zipper_z_i``).
EQUAL_KINDS = ("regionsum", "zipper")
#: Encode the equal-sum rules' segments (ISS ``EqualSum``, ``equalsum_k_s``) by running sums onto
#: a shared total too (False: by their pseudo-Boolean rows, as before). A switch of its own, not
#: under :data:`EQUAL_SUMS`: a CNF file written with ``equal_sums`` on before it encoded these rows
#: by their pseudo-Boolean encodings, and reading it encodes them again so.
EQUALSUM_SEGMENTS = True
#: Encode the weighted sums (ISS ``Sum``, rule ``sum``: rows ``sum_k``) by running sums too, and
#: let every running sum reach extra cells (ISS ``Var``: an arrow whose circle is one, a sum that
#: adds ``10 A + C``), whose rows stayed (False: their pseudo-Boolean rows, as before). A switch of
#: its own: a CNF file written before it kept those rows, and reading it encodes them so again.
WEIGHTED_SUMS = True
#: With :data:`WEIGHTED_SUMS`, a sum it adds whose running-sum table (cells x values x partial
#: sums) is larger than this keeps its row: weights of up to 100 over many cells would make the
#: table, and the clauses, far larger than the row's own encoding.
WEIGHTED_TABLE_CELLS = 2_000_000


class RunningSums:
    """The clauses of :func:`running_sum_clauses` and the ``n_aux`` variables they use; ``keep_rows``
    tells which rule rows still need their own encoding."""

    def __init__(self, clauses: list[list[int]], n_aux: int, labels: tuple[str, ...] = ()) -> None:
        self.clauses, self.n_aux, self.labels = clauses, n_aux, labels

    def keep_rows(self, labels: np.ndarray) -> np.ndarray:
        """Which of the rows labelled ``labels`` still need their own encoding (not a little
        killer's or an arrow's, which these clauses encode; all of them when there are no clauses).

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
        return ~np.isin(np.asarray(labels, dtype=str), np.asarray(self.labels, dtype=str))


def _tip(rule: Rule) -> int:
    """An arrow's or pill arrow's tip: its line's last cell."""
    return int(rule.cells()[-1])


def linear_sums(rules: Sequence[Rule], tip_first: bool = False,
                weighted: bool = False) -> list[tuple[str, np.ndarray, np.ndarray, int]]:
    """Each little killer's or arrow's row ``sum_i w_i v(c_i) = total`` as ``(label, cells, w,
    total)``: a little killer's diagonal in order (weights 1); an arrow's line, then its circle(s)
    or pill (weight -1, or the pill's place values negated); with ``weighted`` a weighted sum's
    cells as listed, with their weights. Other rules give nothing.

    Parameters
    ----------
    rules : sequence of Rule
        A puzzle's rules.
    tip_first : bool
        An arrow's or pill arrow's line from its tip back when another one ends on the same cell
        (else from the circle or pill on).
    weighted : bool
        The weighted sums (rule ``sum``, rows ``sum_k``) too.

    Returns
    -------
    list of (str, numpy.ndarray, numpy.ndarray, int)

    Examples
    --------
    >>> from pipeline.core.rules.weighted import WeightedSum
    >>> [(label, cells.tolist(), w.tolist(), total)
    ...  for label, cells, w, total in linear_sums([WeightedSum((0, 1, 81), 0, (1, 1, -10))], weighted=True)]
    [('sum_1', [0, 1, 81], [1, 1, -10], 0)]
    >>> linear_sums([WeightedSum((0, 1), 5, (1, 1))])
    []
    """
    out = []
    seen = dict.fromkeys(KINDS + (("sum",) if weighted else ()), 0)   # the labels number each kind's rules from 1
    tips = [int(_tip(rule)) for rule in rules if isinstance(rule, (Arrow, PillArrow))]
    shared = {tip for tip in tips if tips.count(tip) > 1}
    for rule in rules:
        if rule.kind not in seen:
            continue
        seen[rule.kind] += 1
        label = f"{rule.kind}_{seen[rule.kind]}"
        if isinstance(rule, WeightedSum):
            out.append((label, rule.cells(), np.asarray(rule.weights, dtype=np.int64), int(rule.total)))
            continue
        if isinstance(rule, LittleKiller):
            cells = np.asarray(rule.cell_list, dtype=np.int64)
            out.append((label, cells, np.ones(cells.size, dtype=np.int64), int(rule.total)))
            continue
        cells = rule.cells()
        head = np.zeros(cells.size, dtype=bool)
        w = np.ones(cells.size, dtype=np.int64)
        if isinstance(rule, Arrow):
            head[0] = True
        elif isinstance(rule, DoubleArrow):
            head[[0, -1]] = True
        elif isinstance(rule, PillArrow):
            head[:rule.pill] = True
            w[:rule.pill] = rule.weights()
        line = np.flatnonzero(~head)
        back = tip_first and isinstance(rule, (Arrow, PillArrow)) and int(_tip(rule)) in shared
        order = np.concatenate([line[::-1] if back else line, np.flatnonzero(head)[::-1]])
        out.append((label, cells[order], np.where(head, -w, w)[order], 0))
    return out


def _chain(x: np.ndarray, weights: np.ndarray, lo_last: int, hi_last: int, last: np.ndarray | None,
           first: int, fresh: int) -> tuple[np.ndarray, int]:
    """The running-sum clauses of one sum whose total lies in ``lo_last .. hi_last``: ``x`` its
    cells' value variables ``(k, n)``, ``weights`` what each value adds ``(k, n)``, shifted to start
    at 0 in each cell, the bounds shifted so; the order variables numbered from ``fresh``
    (``first`` is the constant true, fixed by the caller). The last row (the whole sum) is
    ``last`` (its literal for each ``s``, a shared total's) or, without it, the constants of
    ``s <= lo_last`` (a known total: ``lo_last == hi_last``). Clauses as rows of a ``(m, 3)``
    array (a 0 pads a shorter clause), and the variables used."""
    k = x.shape[0]
    most = weights.max(axis=1)
    upto = np.concatenate([[0], np.cumsum(most)])          # the first i cells add up to at most upto[i]
    lo = np.maximum(0, lo_last - (upto[-1] - upto))        # the first i cells add up to at least lo
    hi = np.minimum(upto, hi_last)                         # and at most hi
    width = int(upto[-1]) + int(most.max()) + 2
    s = np.arange(width)
    free = (s[None, :] > lo[:, None]) & (s[None, :] <= hi[:, None])          # o(i, s) a variable
    if last is not None:
        free[k] = False
    lit = np.where(s[None, :] <= lo[:, None], first, -first)                  # else true / false
    lit[free] = fresh + np.arange(int(free.sum()))
    if last is not None:
        lit[k] = last[:width] if last.size >= width else np.concatenate([last, np.full(width - last.size, -first)])
    return np.concatenate([_order_rows(lit, free), _step_rows(x, weights, lit, lo, hi, first)]), int(free.sum())


def _order_rows(lit: np.ndarray, free: np.ndarray) -> np.ndarray:
    """The order of a running sum's rows, ``o(i, s + 1) -> o(i, s)``, where both are variables
    (``free``; ``lit`` the literal of each ``o(i, s)``), as ``(m, 3)`` clause rows."""
    ii, ss = np.nonzero(free[:, 1:] & free[:, :-1])
    return np.column_stack([-lit[ii, ss + 1], lit[ii, ss], np.zeros(ii.size, dtype=np.int64)])


def _step_rows(x: np.ndarray, weights: np.ndarray, lit: np.ndarray, lo: np.ndarray, hi: np.ndarray, first: int,
               rows: np.ndarray | None = None) -> np.ndarray:
    """A running sum's steps: for each cell ``i`` (1..k) and value, ``o(i - 1, s)`` and the value
    give ``o(i, s + w)``, and not ``o(i - 1, s)`` with it not ``o(i, s + w)`` (``s`` in ``lo .. hi + 1``
    of row ``i - 1``; ``lit`` ``(k + 1, width)`` the literal of each ``o(i, s)``, past the last
    column false); only the rows ``i`` that ``rows`` marks (all when None). ``(m, 3)`` clause rows."""
    k, width = x.shape[0], lit.shape[1]
    cell, val, start = np.meshgrid(np.arange(1, k + 1), np.arange(weights.shape[1]), np.arange(width), indexing="ij")
    reach = (start >= lo[cell - 1]) & (start <= hi[cell - 1] + 1)
    if rows is not None:
        reach &= rows[cell]
    cell, val, start = cell[reach], val[reach], start[reach]
    step = start + weights[cell - 1, val]
    xl = x[cell - 1, val]
    before, after = lit[cell - 1, np.minimum(start, width - 1)], lit[cell, np.minimum(step, width - 1)]
    after = np.where(step < width, after, -first)     # past every bound: false
    return np.concatenate([np.column_stack([-before, -xl, after]), np.column_stack([before, -xl, -after])])


def _prefix_sums(xs: list[np.ndarray], ws: list[np.ndarray], totals: list[int], first: int) -> tuple[np.ndarray, int]:
    """The running sums (:func:`_chain`) of known totals, ``xs[j]`` sum ``j``'s value variables
    ``(k_j, n)``, ``ws[j]`` what each value adds (shifted to start at 0), ``totals[j]`` its total
    (shifted), where sums that begin with the same cells (same weights) share those rows: one
    order variable per distinct prefix and ``s``, its bounds the tightest of its sums' (each sum's
    bounds follow from its row, so any of them holds for the shared prefix). Variable ``first``
    the constant true (fixed here), the rest numbered after it (bounds that cross: no solution)."""
    m = len(xs)
    ks = np.array([x.shape[0] for x in xs])
    most_k = int(ks.max())
    rows = np.concatenate([np.concatenate([x, w], axis=1) for x, w in zip(xs, ws)])
    _, ids = np.unique(rows, axis=0, return_inverse=True)
    keys = np.full((m, most_k), -1, dtype=np.int64)
    keys[np.arange(most_k)[None, :] < ks[:, None]] = ids.ravel()
    eq = (keys[:, None, :] == keys[None, :, :]) & (keys[:, None, :] >= 0)
    pre = np.logical_and.accumulate(eq, axis=2)
    # row i of sum a is row i of sum owner[a, i], the first sum with the same first i cells
    owner = np.concatenate([np.zeros((m, 1), dtype=np.int64), np.argmax(pre, axis=1)], axis=1)
    valid = np.arange(most_k + 1)[None, :] <= ks[:, None]
    mosts = [w.max(axis=1) for w in ws]
    width = max(int(mo.sum()) for mo in mosts) + max(int(mo.max()) for mo in mosts) + 2
    low = np.full((m, most_k + 1), -1, dtype=np.int64)
    high = np.full((m, most_k + 1), width, dtype=np.int64)
    for a in range(m):
        upto = np.concatenate([[0], np.cumsum(mosts[a])])
        lo = np.maximum(0, totals[a] - (upto[-1] - upto))
        hi = np.minimum(upto, totals[a])
        r = np.arange(ks[a] + 1)
        np.maximum.at(low, (owner[a, r], r), lo)
        np.minimum.at(high, (owner[a, r], r), hi)
    low[:, 0], high[:, 0] = 0, 0
    out = [np.array([[first, 0, 0]], dtype=np.int64)]
    mine = (owner == np.arange(m)[:, None]) & valid
    mine[:, 0] = False
    if np.any((low > high) & mine):
        return np.array([[first, 0, 0], [-first, 0, 0]], dtype=np.int64), 1
    s = np.arange(width)
    free = mine[:, :, None] & (s[None, None, :] > low[:, :, None]) & (s[None, None, :] <= high[:, :, None])
    var = np.zeros(free.shape, dtype=np.int64)
    var[free] = first + 1 + np.arange(int(free.sum()))
    for a in range(m):
        k = ks[a]
        o = owner[a, :k + 1]
        r = np.arange(k + 1)
        lo, hi = low[o, r], high[o, r]
        lit = np.where(s[None, :] <= lo[:, None], first, -first)
        fr = free[o, r]
        lit[fr] = var[o, r][fr]
        new = o == a                                  # rows this sum emits (row 0 never)
        out += [_order_rows(lit, fr & new[:, None]), _step_rows(xs[a], ws[a], lit, lo, hi, first, new)]
    return np.concatenate(out), int(free.sum()) + 1


def _one_sum(x: np.ndarray, weights: np.ndarray, total: int, first: int) -> tuple[np.ndarray, int]:
    """The running-sum clauses of one sum (:func:`_chain`) of a known ``total`` (shifted), the
    order variables numbered from ``first``, variable ``first`` itself fixed true (the bounds'
    constant; a total out of the cells' reach also fixed false: no solution)."""
    made, used = _chain(x, weights, total, total, None, first, first + 1)
    reach = int(weights.max(axis=1).sum())
    unit = np.array([[first, 0, 0]] if 0 <= total <= reach else [[first, 0, 0], [-first, 0, 0]], dtype=np.int64)
    return np.concatenate([unit, made]), used + 1


def _table_cells(one: tuple[str, np.ndarray, np.ndarray, int], canvas: int, n: int) -> int:
    """The cells of a running sum's step table (cells x values x partial sums, :func:`_step_rows`)
    for one of :func:`linear_sums`' ``(label, cells, w, total)``, values ``1..n``; 0 for the sums
    that ran before :data:`WEIGHTED_SUMS` (a little killer's or arrow's on the grid), whose table
    is not limited."""
    label, cells, w, _ = one
    if not label.startswith("sum_") and int(cells.max()) < canvas:
        return 0
    spread = np.abs(w) * (n - 1)                      # what each cell's values add, from its least
    return int(cells.size * n * (spread.sum() + spread.max() + 2))


def equal_sum_parts(rules: Sequence[Rule], board: Board) -> list[tuple[tuple[str, ...], list[np.ndarray]]]:
    """Each region-sum line's or zipper line's parts that add up to one shared total, with the
    labels of the rows they replace: a region-sum line's box segments (``regionsum_l_s``; a line in
    one box has no rows and gives nothing), a zipper's mirrored pairs and, on an odd line, its
    centre alone (``zipper_z_i``). Other rules give nothing.

    Parameters
    ----------
    rules : sequence of Rule
        A puzzle's rules.
    board : Board
        The puzzle's board (its boxes or regions cut region-sum lines).

    Returns
    -------
    list of (tuple of str, list of numpy.ndarray)
    """
    out = []
    seen = dict.fromkeys(EQUAL_KINDS, 0)
    for rule in rules:
        if rule.kind not in seen:
            continue
        seen[rule.kind] += 1
        if isinstance(rule, RegionSum):
            parts = rule.segments(board)
        elif isinstance(rule, Zipper):
            cells = rule.cells()
            parts = list(rule.pairs()) + ([cells[cells.size // 2: cells.size // 2 + 1]] if cells.size % 2 else [])
        else:
            continue
        rows = len(rule.groups(board)) if isinstance(rule, RegionSum) else len(rule.groups())
        if rows:
            out.append((tuple(f"{rule.kind}_{seen[rule.kind]}_{i}" for i in range(1, rows + 1)), parts))
    return out


def equal_sum_segments(rules: Sequence[Rule], canvas: int) -> list[tuple[tuple[str, ...], list[np.ndarray]]]:
    """Each equal-sum rule's segments on the grid that add up to one shared total, with the labels
    of the rows they replace (``equalsum_k_s``: segment ``s`` less segment 1, ``s = 2..G``). A
    segment over an extra cell (``>= canvas``) keeps its row and is no part; when segment 1 is
    such a one, the first grid segment's row stays too (it ties the grid segments to segment 1,
    the shared total ties the rest to it). Fewer than two grid segments give nothing.

    Parameters
    ----------
    rules : sequence of Rule
        A puzzle's rules.
    canvas : int
        The grid's cells (``rows * cols``): cells from it on are extra cells.

    Returns
    -------
    list of (tuple of str, list of numpy.ndarray)

    Examples
    --------
    >>> from pipeline.core.rules.valuelinks import EqualSum
    >>> equal_sum_segments([EqualSum(((0, 1), (2,), (20,), (3, 4)))], 16)
    [(('equalsum_1_2', 'equalsum_1_4'), [array([0, 1]), array([2]), array([3, 4])])]
    >>> equal_sum_segments([EqualSum(((20,), (0, 1), (2,), (3, 4)))], 16)[0][0]
    ('equalsum_1_3', 'equalsum_1_4')
    """
    out = []
    for k, rule in enumerate((rule for rule in rules if isinstance(rule, EqualSum)), start=1):
        parts = [np.asarray(s, dtype=np.int64) for s in rule.segments]
        grid = [g for g, part in enumerate(parts) if int(part.max()) < canvas]
        if len(grid) < 2:
            continue
        # segment 1 has no row of its own; when it is not on the grid, the first grid segment's row stays
        out.append((tuple(f"equalsum_{k}_{g + 1}" for g in grid[1:]), [parts[g] for g in grid]))
    return out


def _shared_sum(xs: list[np.ndarray], adds: list[np.ndarray], first: int) -> tuple[np.ndarray, int]:
    """The clauses of parts that add up to one total: ``xs[p]`` part ``p``'s value variables
    ``(k, n)``, ``adds[p]`` what each value adds. A total ``T`` in the order encoding, ``t(u)``
    "``T >= u``" for ``u`` between the largest part's least sum and the smallest part's most,
    each part's running sum (:func:`_chain`) ending on ``t``; variable ``first`` the constant true,
    the rest numbered after it (no total within every part's reach: no solution)."""
    least = [int(a.min(axis=1).sum()) for a in adds]
    most = [int(a.max(axis=1).sum()) for a in adds]
    lo, hi = max(least), min(most)
    if lo > hi:
        return np.array([[first, 0, 0], [-first, 0, 0]], dtype=np.int64), 1
    total = np.arange(first + 1, first + 1 + hi - lo)            # t(lo + 1) .. t(hi)
    parts = [np.array([[first, 0, 0]], dtype=np.int64),
             np.column_stack([-total[1:], total[:-1], np.zeros(max(total.size - 1, 0), dtype=np.int64)])]   # lo == hi: none
    fresh = first + 1 + total.size
    for x, a, floor, top in zip(xs, adds, least, most):
        u = np.arange(top - floor + 2) + floor                   # the part's shifted sum s is T = s + floor
        last = np.where(u <= lo, first, -first)
        inside = (u > lo) & (u <= hi)
        last[inside] = total[u[inside] - lo - 1]
        made, used = _chain(x, a - a.min(axis=1)[:, None], lo - floor, hi - floor, last, first, fresh)
        parts.append(made)
        fresh += used
    return np.concatenate(parts), fresh - first


def running_sum_clauses(model: Model, top: int, *, view: bool, equal: bool = False,
                        linear: bool = True, segments: bool = False, prefixes: bool = False,
                        weighted: bool = False) -> RunningSums:
    """The running-sum clauses of ``model``'s little killers and arrows (module docstring; with
    ``linear``), with ``equal`` of its region-sum and zipper lines (:func:`equal_sum_parts`, a
    shared total each) and with ``segments`` of its equal-sum rules' segments
    (:func:`equal_sum_segments`), their auxiliary variables numbered from ``top + 1``; none for a puzzle without them,
    with a layout or with a value set other than the side's, nor (without ``weighted``) for a sum
    over an extra cell (its row stays).

    Parameters
    ----------
    model : Model
        The model: cell variables are its positions + 1.
    top : int
        The largest variable used before these.
    view : bool
        A one-puzzle engine's solver view: a reduced model's settled positions (left out of the
        solver) are fixed here wherever these clauses read them.
    equal : bool
        Encode the region-sum lines and the zippers too (else their rows stay).
    linear : bool
        Encode the little killers and the arrows (else their rows stay).
    segments : bool
        Encode the equal-sum rules' segments on the grid (else their rows stay).
    prefixes : bool
        With ``linear``: the arrows' lines from the tip, sums that begin alike sharing their rows
        (:func:`_prefix_sums`; else each sum runs on its own).
    weighted : bool
        With ``linear``: the weighted sums too, and sums over extra cells (:data:`WEIGHTED_SUMS`);
        one of those whose table passes :data:`WEIGHTED_TABLE_CELLS` keeps its row.

    Returns
    -------
    RunningSums
    """
    puzzle = model.puzzle
    if puzzle.layout is not None or puzzle.n_values != puzzle.n:
        return RunningSums([], 0)
    # a sum over an extra cell (outside the grid, its digit an auxiliary column) keeps its row
    canvas = puzzle.rows * puzzle.cols
    sums = [one for one in linear_sums(puzzle.rules, prefixes, weighted)
            if int(one[1].max()) < canvas or weighted] if linear else []
    if weighted:
        sums = [one for one in sums if _table_cells(one, canvas, puzzle.n) <= WEIGHTED_TABLE_CELLS]
    lines = [one for one in equal_sum_parts(puzzle.rules, puzzle.board)
             if max(int(part.max()) for part in one[1]) < canvas] if equal else []
    lines += equal_sum_segments(puzzle.rules, canvas) if segments else []
    if not sums and not lines:
        return RunningSums([], 0)
    n = puzzle.n
    values = np.asarray(puzzle.board.value_of[:n], dtype=np.int64)
    parts, touched, n_aux = [np.zeros((0, 3), dtype=np.int64)], [], 0
    xs, ws, totals = [], [], []
    for _, cells, w, total in sums:
        x = value_literals(model, cells)   # (cells, N)
        touched.append(x.ravel() - 1)
        adds = w[:, None] * values[None, :]                  # what each cell's value adds to the sum
        least = adds.min(axis=1)
        xs.append(x)
        ws.append(adds - least[:, None])
        totals.append(total - int(least.sum()))
    # only sums that begin like another share rows: _prefix_sums' tables are (sums, cells, totals)
    # at once, which for every little killer of a 100x100 would be gigabytes; the rest run alone
    starts = [np.concatenate([x[0], w[0]]).tobytes() for x, w in zip(xs, ws)]
    alike = Counter(starts)
    together = [prefixes and alike[start] > 1 for start in starts]
    if any(together):
        chosen = [j for j, shared in enumerate(together) if shared]
        made, used = _prefix_sums([xs[j] for j in chosen], [ws[j] for j in chosen], [totals[j] for j in chosen],
                                  top + 1)
        parts.append(made)
        n_aux += used
    for x, adds, total, shared in zip(xs, ws, totals, together):
        if not shared:
            made, used = _one_sum(x, adds, total, top + 1 + n_aux)
            parts.append(made)
            n_aux += used
    for _, cuts in lines:
        xs = [value_literals(model, cells) for cells in cuts]
        touched += [x.ravel() - 1 for x in xs]
        made, used = _shared_sum(xs, [np.broadcast_to(values, x.shape) for x in xs], top + 1 + n_aux)
        parts.append(made)
        n_aux += used
    rows = np.concatenate(parts)
    width = np.where(rows[:, 1] == 0, 1, np.where(rows[:, 2] == 0, 2, 3))   # a 0 pads a shorter clause
    clauses = [] + rows[width == 1, :1].tolist() + rows[width == 2, :2].tolist() + rows[width == 3].tolist()
    if view:   # settled positions are not in the solver: fixed here
        clauses += settled_clauses(model, touched)
    labels = tuple(label for label, *_ in sums) + tuple(label for names, _ in lines for label in names)
    return RunningSums(clauses, n_aux, labels)
