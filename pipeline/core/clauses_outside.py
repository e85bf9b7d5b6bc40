"""Sandwich, X-sum and lunchbox clues as gated running sums, for the SAT engine: in place of each
clue's big-M pseudo-Boolean rows, the sum of the counted cells along the line in the order encoding.

A sandwich's rows are a big-M pair per placement of the 1 and the ``N`` (72 on a 9x9 line), an
X-sum's one per first digit, a lunchbox's one per placement of its ends; python-sat's encodings
of them run to millions of clauses that unit propagation learns little from. Here a literal
``g_i`` per cell says "cell ``i`` is counted" and ``o(i, s)`` says "the counted cells among the
first ``i`` add up to at least ``s``" (``o(i, s + 1) -> o(i, s)``)::

    g_i and x(c_i, v):  o(i - 1, s) -> o(i, s + v)  and  not o(i - 1, s) -> not o(i, s + v)
    not g_i:            o(i - 1, s) <-> o(i, s)

with ``s`` only where the sum can still reach the clue and the last sum the clue. A sandwich's
``g_i`` is "exactly one of the 1 and the ``N`` lies before cell ``i``, and cell ``i`` holds
neither" (prefix literals: the 1 is among the first ``i - 1`` cells; the ``N`` likewise); a
lunchbox's the same over its own end columns (``aux_lunchbox_k_1_i``: cell ``i`` holds the
box's smallest value, ``_2_i`` its largest), which clauses over the cells' values define in place
of the rows that place them (:func:`_lunchbox_ends`; :data:`LUNCHBOX_ENDS`); an X-sum's is "the
first digit is at least ``i``" (the first cell always counted; a first digit naming no cell is
refused by a unit clause).

Counting ISS's entries to 2 with CaDiCaL (clauses of the rule part, conflicts, solve seconds on a
shared machine; 2026-12-07), big-M rows -> these: "Between 1 and 9 Sudoku" 4,317,558 -> 44,577
clauses, 471 -> 1,011 conflicts, 8.5 -> 0.1 s; "Sandwich snipe 18" 3,941,678 -> 38,741, 266,219
-> 63,682 conflicts, 630 -> 11 s; "X-Sum" 759,131 -> 45,631, 4,453 -> 8,148, 6.3 -> 0.6 s;
"Normal Lunchbox" 650,582 -> 531,144, 9,724 -> 3,012, 16.7 -> 4.5 s; "Extreme Lunchbox" 83,553
-> 24,387 conflicts, 73 -> 23 s. The lunchboxes' ends by clauses too (the engine's rule clauses,
conflicts of ``SatEngine.count`` to 2, its seconds; a loaded 2-core machine): "Normal Lunchbox"
531,144 -> 13,534 clauses, 3,982 -> 1,580 conflicts, 2.1 -> 0.06 s; "Normal Lunchbox 2" 594,253
-> 15,643, 24,078 -> 5,369, 10.1 -> 0.36 s; "Extreme Lunchbox" 619,467 -> 17,407, 34,338 ->
6,444, 16.8 -> 0.38 s; "Extreme Lunchbox 2" 423,409 -> 13,469, 7,671 -> 3,331, 10.5 -> 0.13 s.

The clauses encode exactly the clues' rows (each cell one value, a sandwich's line one unit, a
lunchbox's cells distinct: its unit or its ``lunchboxdistinct`` rows, which stay), so no answer
changes. Clues whose values include a negative one, a layout, a value set other than the side's,
and lunchboxes with an extra cell or inside another rule keep their rows.
"""

from __future__ import annotations

import numpy as np

from pipeline.core.build import Model
from pipeline.core.clauses import settled_clauses, value_literals
from pipeline.core.rules.segments import Lunchbox
from pipeline.core.rules.outside import OutsideLine, Sandwich, XSum

__all__ = ["OUTSIDE_PREFIXES", "OutsideSums", "outside_sum_clauses"]

#: The rule rows these clauses replace, per rule kind.
OUTSIDE_PREFIXES: dict[type[OutsideLine], tuple[str, str]] = {
    Sandwich: ("sandwich_", "sandwichnot_"),
    XSum: ("xsum_", "xsumnot_"),
}

#: The lunchboxes' rows these clauses replace: their sums, and with :data:`LUNCHBOX_ENDS` the rows
#: placing their ends.
LUNCHBOX_PREFIXES = ("lunchboxsum_", "lunchboxnot_")
LUNCHBOX_END_PREFIXES = ("lunchboxends_", "lunchboxmin_", "lunchboxmax_")
#: Define a lunchbox's end columns by clauses over the cells' values (:func:`_lunchbox_ends`) in
#: place of its ``lunchboxends``, ``lunchboxmin`` and ``lunchboxmax`` rows (False: those rows stay).
LUNCHBOX_ENDS = True

_WIDTH = 5  # the widest clause made here (a 0 pads a shorter one)


class OutsideSums:
    """The clauses of :func:`outside_sum_clauses`, the ``n_aux`` variables they use and the label
    prefixes of the rows they replace (``keep_rows``)."""

    def __init__(self, clauses: list[list[int]], n_aux: int, prefixes: tuple[str, ...]) -> None:
        self.clauses, self.n_aux, self.prefixes = clauses, n_aux, prefixes

    def keep_rows(self, labels: np.ndarray) -> np.ndarray:
        """Which of the rows labelled ``labels`` still need their own encoding.

        Parameters
        ----------
        labels : numpy.ndarray
            Row labels (``sandwich_1_2_5_1``, ``cagesum_2``, ...).

        Returns
        -------
        numpy.ndarray
            A boolean mask over ``labels``.
        """
        keep = np.ones(len(labels), dtype=bool)
        text = np.asarray(labels, dtype=str)
        for prefix in self.prefixes:
            keep &= ~np.char.startswith(text, prefix)
        return keep


class _Vars:
    """Auxiliary variables numbered from ``first + 1``; ``first`` itself is the constant true."""

    def __init__(self, first: int) -> None:
        self.true, self.used = first, 1

    def take(self, count: int) -> np.ndarray:
        made = self.true + self.used + np.arange(count, dtype=np.int64)
        self.used += count
        return made


def _pad(*columns: np.ndarray) -> np.ndarray:
    """Clauses as rows of ``_WIDTH`` literals from equal-length columns (0 pads)."""
    # filled column by column: np.pad's set-up was 60% of a lunchbox line's clauses (3,260 calls a
    # 20-puzzle run, 15 ms a solve)
    parts = np.broadcast_arrays(*columns)
    rows = np.zeros((parts[0].size, _WIDTH), dtype=np.result_type(*parts))
    for j, part in enumerate(parts):
        rows[:, j] = part.ravel()
    return rows


def _gated_sum(x: np.ndarray, weights: np.ndarray, gates: np.ndarray, total: int, var: _Vars) -> np.ndarray:
    """The running-sum clauses of one clue: ``x`` the cells' value variables ``(k, n)``,
    ``weights`` the values (at least 0), ``gates`` a literal per cell (counted), ``total`` the
    clue (module docstring). Clauses as ``(m, _WIDTH)`` rows."""
    k, top_w, t = x.shape[0], max(int(weights.max()), 1), var.true
    if not 0 <= total <= k * top_w:  # the clue cannot be reached
        return _pad(np.array([-t]))
    i = np.arange(k + 1)
    lo = np.maximum(0, total - (k - i) * top_w)  # the counted among the first i add up to at least lo
    hi = np.minimum(i * top_w, total)  # and at most hi
    width = total + top_w + 2
    s = np.arange(width)
    free = (s[None, :] > lo[:, None]) & (s[None, :] <= hi[:, None])
    lit = np.where(s[None, :] <= lo[:, None], t, -t)
    lit[free] = var.take(int(free.sum()))
    ii, ss = np.nonzero(free[:, 1:] & free[:, :-1])
    order = _pad(-lit[ii, ss + 1], lit[ii, ss])
    # a counted cell's value moves the sum on from o(i - 1, s), s in lo .. hi + 1 of row i - 1
    cell, val, start = np.meshgrid(np.arange(1, k + 1), np.arange(weights.size), s, indexing="ij")
    reach = (start >= lo[cell - 1]) & (start <= hi[cell - 1] + 1)
    cell, val, start = cell[reach], val[reach], start[reach]
    step = start + weights[val]
    before = lit[cell - 1, start]
    after = np.where(step < width, lit[cell, np.minimum(step, width - 1)], -t)
    xl, g = x[cell - 1, val], gates[cell - 1]
    up, down = _pad(-before, -xl, -g, after), _pad(before, -xl, -g, -after)
    # an uncounted cell keeps the sum
    at, from_s = np.meshgrid(np.arange(1, k + 1), s, indexing="ij")
    kept = (from_s >= lo[at - 1]) & (from_s <= hi[at - 1] + 1)
    at, from_s = at[kept], from_s[kept]
    before = lit[at - 1, from_s]
    after = np.where(from_s < width, lit[at, np.minimum(from_s, width - 1)], -t)
    g = gates[at - 1]
    keep_up, keep_down = _pad(-before, g, after), _pad(before, g, -after)
    return np.concatenate([order, up, down, keep_up, keep_down])


def _sandwich_gates(small: np.ndarray, large: np.ndarray, var: _Vars) -> tuple[np.ndarray, np.ndarray]:
    """A sandwich line's ``g_i`` literals and their defining clauses (module docstring): ``small``
    and ``large`` the literals "cell ``i`` holds the smallest / largest value"."""
    k, t = small.size, var.true
    # a[i]: the smallest value among cells 0 .. i - 1 (a[0] false); b likewise the largest
    a = np.concatenate([[-t], var.take(k)])
    b = np.concatenate([[-t], var.take(k)])
    g = var.take(k)
    parts = []
    for pre, end in ((a, small), (b, large)):
        parts += [_pad(-pre[:-1], pre[1:]), _pad(-end, pre[1:]), _pad(-pre[1:], pre[:-1], end)]
    a0, b0 = a[:-1], b[:-1]
    parts += [
        _pad(-g, -small),
        _pad(-g, -large),
        _pad(-g, a0, b0),
        _pad(-g, -a0, -b0),
        _pad(g, -a0, b0, small, large),
        _pad(g, a0, -b0, small, large),
    ]
    return g, np.concatenate(parts)


def _xsum_parts(x: np.ndarray, values: np.ndarray, total: int, var: _Vars) -> tuple[np.ndarray, np.ndarray]:
    """An X-sum line's clauses: ``g_i`` = the first value is at least ``i`` (``g_1`` true), the
    first values naming no cell refused, and the gated sum."""
    k, t = x.shape[0], var.true
    named = (values >= 1) & (values <= k)
    refuse = _pad(-x[0, ~named])
    g = np.concatenate([[t], var.take(k - 1)])
    # g_i (i = 2..k) <-> the first cell holds a value X >= i
    i = np.arange(2, k + 1)
    reach = named[None, :] & (values[None, :] >= i[:, None])  # (k - 1, n)
    rows, digits = np.nonzero(reach)
    implied = _pad(-x[0, digits], g[rows + 1])
    defined = np.where(reach, x[0][None, :], 0)
    need = np.column_stack([-g[1:], defined])  # g_i -> one of those values
    return np.concatenate([refuse, implied, _gated_sum(x, values, g, total, var)]), need


def _lunchbox_ends(x: np.ndarray, values: np.ndarray, small: np.ndarray, large: np.ndarray,
                   var: _Vars) -> tuple[np.ndarray, list[np.ndarray]]:
    """Clauses making ``small[i]`` "cell ``i`` holds the line's smallest value" and ``large[i]``
    "its largest" (the line's values distinct), over ``x`` the cells' value literals ``(k, n)``
    and ``values`` the values of ``x``'s columns: with the values in increasing order, ``A_d``
    says "a cell holds one of the ``d + 1`` smallest" (``x(c, d) -> A_d``, ``A_{d-1} -> A_d``,
    ``A_d -> A_{d-1}`` or a cell holds the ``d``-th), and ``x(c_i, d) -> (small_i <-> not
    A_{d-1})``; ``large`` likewise from the top; at least one of each. No big-M: ``O(k n)``
    clauses, ``2 (n - 1)`` auxiliaries. Short clauses as ``(m, _WIDTH)`` rows and the long ones
    (a cell of the line holds the value; an end is there) as rows of any width."""
    k, n = x.shape
    long: list[np.ndarray] = []
    parts = []
    for order, ends in ((np.argsort(values, kind="stable"), small), (np.argsort(-values, kind="stable"), large)):
        xs = x[:, order]
        seen = var.take(n - 1)   # seen[d]: a cell holds one of the first d + 1 values in this order
        parts += [_pad(-xs[:, : n - 1].ravel(), np.tile(seen, k)), _pad(-seen[:-1], seen[1:])]
        before = np.concatenate([np.zeros(1, dtype=np.int64), seen[:-1]])   # seen[d - 1] (none for d = 0)
        long.append(np.column_stack([-seen, before, xs[:, : n - 1].T]))
        long.append(ends[None, :])
        # a cell holding the d-th value is an end exactly when none of the first d values is there
        cell, d = np.divmod(np.arange(k * n), n)
        first = d == 0
        parts += [_pad(-xs[cell[first], 0], ends[cell[first]])]
        cell, d = cell[~first], d[~first]
        parts += [_pad(-xs[cell, d], seen[d - 1], ends[cell]), _pad(-xs[cell, d], -seen[d - 1], -ends[cell])]
    return np.concatenate(parts), long


def _lunchbox_parts(model: Model, values: np.ndarray, var: _Vars,
                    define_ends: bool = True) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """The lunchboxes' gated sums, their ends the rule's own auxiliary columns (``aux_lunchbox_k_1_i``:
    cell ``i`` holds the smallest value; ``_2_i`` the largest; with ``define_ends`` defined
    here, :func:`_lunchbox_ends`), the gates as a sandwich's; none when those columns are not all
    the top-level lunchboxes' (one inside another rule) or a box holds an extra cell. The clauses,
    the long ones (rows of any width) and the cells' positions read."""
    boxes = [rule for rule in model.puzzle.rules if isinstance(rule, Lunchbox)]
    names = np.asarray(model.aux_names, dtype=str)
    own = np.flatnonzero(np.char.startswith(names, "aux_lunchbox_"))
    canvas = model.puzzle.rows * model.puzzle.cols
    if (
        not boxes
        or own.size != 2 * sum(len(box.cell_list) for box in boxes)
        or any(max(box.cell_list) >= canvas for box in boxes)
    ):  # an extra cell (ISS's var cells)
        return [], [], []
    n_vars = model.convention.n_vars
    at = {name: k for k, name in zip(own.tolist(), names[own].tolist())}
    parts, long, touched = [], [], []
    for index, box in enumerate(boxes, start=1):
        cells = np.asarray(box.cell_list, dtype=np.int64)
        x = value_literals(model, cells)   # (cells, N)
        touched.append(x.ravel() - 1)
        ends = [
            np.array([n_vars + at[f"aux_lunchbox_{index}_{side}_{i}"] + 1 for i in range(1, cells.size + 1)])
            for side in (1, 2)
        ]
        if define_ends:
            placed, wide = _lunchbox_ends(x, values, ends[0], ends[1], var)
            parts.append(placed)
            long += wide
        gates, defs = _sandwich_gates(ends[0], ends[1], var)
        parts += [defs, _gated_sum(x, values, gates, int(box.total), var)]
    return parts, long, touched


def _as_lists(rows: np.ndarray) -> list[list[int]]:
    """Padded clause rows as lists (zeros dropped; they are trailing)."""
    length = np.count_nonzero(rows, axis=1)
    out: list[list[int]] = []
    for w in np.unique(length):
        out += rows[length == w, :w].tolist()
    return out


def _long_rows(rows: np.ndarray) -> list[list[int]]:
    """Rows of any width with zeros anywhere: each a clause of its nonzeros (a few per clue)."""
    return [[v for v in row if v] for row in rows.tolist()]


def outside_sum_clauses(model: Model, top: int, *, view: bool, lunchbox_ends: bool | None = None) -> OutsideSums:
    """The gated running-sum clauses of ``model``'s sandwich and X-sum clues (module docstring),
    their auxiliary variables numbered from ``top + 1``; none for a puzzle without them, with a
    layout, with a value set other than the side's or with negative values.

    Parameters
    ----------
    model : Model
        The model: cell variables are its positions + 1.
    top : int
        The largest variable used before these.
    view : bool
        A one-puzzle engine's solver view: a reduced model's settled positions (left out of the
        solver) are fixed here wherever these clauses read them.
    lunchbox_ends : bool, optional
        Define the lunchboxes' end columns here, in place of their rows (None: :data:`LUNCHBOX_ENDS`).

    Returns
    -------
    OutsideSums
    """
    puzzle = model.puzzle
    clues: list[OutsideLine] = [rule for rule in puzzle.rules if isinstance(rule, (Sandwich, XSum))]
    if not any(isinstance(rule, Lunchbox) for rule in puzzle.rules):
        if not clues:
            return OutsideSums([], 0, ())
    n = puzzle.n
    if puzzle.layout is not None or puzzle.n_values != n:
        return OutsideSums([], 0, ())
    values = np.asarray(puzzle.board.value_of[:n], dtype=np.int64)
    if values.min() < 0:
        return OutsideSums([], 0, ())
    define_ends = LUNCHBOX_ENDS if lunchbox_ends is None else lunchbox_ends
    var = _Vars(top + 1)
    parts, long, touched = [_pad(np.array([var.true]))], [], []
    for rule in clues:
        cells = np.asarray(rule.cell_list, dtype=np.int64)
        x = value_literals(model, cells)   # (cells, N)
        touched.append(x.ravel() - 1)
        if isinstance(rule, Sandwich):
            gates, defs = _sandwich_gates(x[:, 0], x[:, -1], var)
            weights = values.copy()
            weights[[0, n - 1]] = 0  # the ends are never counted (their gates are false)
            parts += [defs, _gated_sum(x, weights, gates, int(rule.value), var)]
        else:
            made, need = _xsum_parts(x, values, int(rule.value), var)
            parts.append(made)
            long.append(need)
    lunch, lunch_long, box_cells = _lunchbox_parts(model, values, var, define_ends)
    if not clues and not lunch:
        return OutsideSums([], 0, ())
    parts += lunch
    long += lunch_long
    touched += box_cells
    clauses = _as_lists(np.concatenate(parts))
    for need in long:
        clauses += _long_rows(need)
    if view:   # settled positions are not in the solver: fixed here
        clauses += settled_clauses(model, touched)
    kinds = {type(rule) for rule in clues}
    prefixes = tuple(p for kind in kinds for p in OUTSIDE_PREFIXES[kind]) + (LUNCHBOX_PREFIXES if lunch else ()) \
        + (LUNCHBOX_END_PREFIXES if lunch and define_ends else ())
    return OutsideSums(clauses, var.used, prefixes)
