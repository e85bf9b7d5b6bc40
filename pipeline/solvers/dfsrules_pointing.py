"""Pointing through pair relations, the tables of the ``dfsrules`` kernel's rule
(:mod:`pipeline.solvers.dfsrules_kernel`): when a digit ``d`` has two places ``p`` and ``q`` left
in a house, ``d`` is in one of them, so a cell ``c`` loses every digit that goes with neither
``p = d`` nor ``q = d``.

What ``p = d`` takes from ``c`` is, by how the two cells are related:

* a pair relation (an arc of the kernel, every rule row over the two cells and their shared
  house together): the digits of ``c`` that the arc's table does not allow with ``d``;
* a shared house, no rule between them: ``d`` itself;
* ``c`` is ``p``: every digit but ``d``.

So a cell next to both places of a digit in a non-consecutive puzzle loses ``d - 1`` and ``d + 1``
(and a place loses them when the other place is its neighbour). Only arcs that take more than the
equal digit count (non-consecutive, Kropki, XV, thermometers, whispers, ...): through arcs of
plain inequality (anti-knight, anti-king, a cage's distinct digits) and shared houses a cell
would only lose ``d``, locked candidates by another name, which cost more a node than they save
(the bench's anti-knight puzzles: 7,044 -> 4,624 nodes but 22.7 -> 26.0 ms with the tables added
after 300 nodes; ISS's 14 MATHEMAGIC killers 0.35-1.70x the nodes, 104.7 -> 103.3 s in all).
The exception (``houses``, where every pair table is one relation: non-consecutive, entropic,
modular, lockout, whisper): cells related to both places by shared houses alone, a digit's two
places in one row of a box taking it from the row's other cells, and so on (locked candidates
of two places). The kernel finds the pair anyway, so they cost only their entries, where the
kernel's own locked candidates (every intersection of every house that changed) cost 20% more a
node: the bench's ten non-consecutive puzzles 122,618 -> 115,622 nodes, 212 -> 202 ms, the
slowest (index 63) 61.5 -> 54.5 ms; forty held-out ones 780,730 -> 709,510 nodes, 1,360 -> 1,248 ms;
the bench's 530 300,766 -> 292,968 nodes.

:func:`pointing_tables` lists, for every pair of positions ``i < j`` of every house, the cells so
related to both and how; :func:`packed_pointing` lists them again per pair and digit with what
both places take, so the kernel reads the pair of the two places it finds and the digit, a
handful of entries, one load each. On the bench's non-consecutive puzzles this cut the search
tree by about half. The solver builds both at once with :func:`pointing` (the entries nothing is
taken through left out, kept across a batch's records of one rule set). The anti-taxicab arcs (a digit ``v`` never at distance ``v`` from itself) take
more than the equal digit by this measure (some digits take nothing), so they join: ISS's
PerfectAllDifferentValueExclusion (a digit of two places leaves every cell both exclude) is this
rule with the shared houses too, for which :func:`value_exclusions` turns the kernel's locked
candidates on.

:func:`house_intersections` lists every two houses that share two cells or more, for the kernel's
locked candidates (moved here from :mod:`pipeline.solvers.dfsrules`, whose name still gives it).
"""
from __future__ import annotations

import numpy as np

from pipeline.solvers.dfs import ShapeTables
from pipeline.solvers.dfsrules_rows import MASK_INTERSECTIONS, by_cell, equal_only, per_shape

__all__ = ["MAX_POINTING_CELLS", "PEER", "SELF", "house_intersections", "packed_pointing", "pointing", "pointing_tables",
           "value_exclusions"]

#: How ``p = d`` bears on a cell in an entry: ``SELF`` (the cell is ``p``: every digit but ``d``
#: goes) or ``PEER`` (a shared house and no arc: ``d`` goes); an arc's number otherwise.
SELF, PEER = -3, -2
_NONE = -1
#: No pointing (both arrays empty): the kernel skips the rule.
_NO_POINTING = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
#: Grids up to this many cells get the tables (their cell-by-cell relation matrix is built at once:
#: 16x16 holds 65,536 entries; larger grids go without the rule).
MAX_POINTING_CELLS = 256


def pointing_tables(units: ShapeTables, arc_ptr: np.ndarray, arc_other: np.ndarray,
                    plain: np.ndarray, houses: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Every house position pair's cells related to both positions, at least one of them by an arc
    that takes more than the equal digit; a cell of the house itself (without the digit: it has
    only the two places there) only where both are such arcs (the other entries would take the
    digit alone: non-consecutive 4,284 -> 1,404 entries a 9x9, the same nodes, 4% less time). With
    ``houses``, also the cells outside the house related to both places by shared houses alone
    (a house holding both places: locked candidates of two places, each ``(cell, PEER, PEER)``,
    after the pair's other entries).

    Built in one pass over every house, position pair and cell (:func:`_entries`); within a pair
    the entries go in the order of the arc each comes from (the first place's when both places
    have arcs to the cell), the houses-alone ones last.

    Parameters
    ----------
    units : ShapeTables
        The shape's houses and peers.
    arc_ptr, arc_other : numpy.ndarray
        Each cell's arcs (the kernel's pair relations): cell ``a``'s arcs are numbered
        ``arc_ptr[a]`` to ``arc_ptr[a + 1] - 1``, arc ``k`` leads to ``arc_other[k]``.
    plain : numpy.ndarray
        Booleans, one per arc: the arc only keeps its two cells' digits apart (its table allows
        every digit but the equal one).
    houses : bool
        List the cells related to both places by shared houses alone too (for puzzles without the
        kernel's full locked candidates, which find them).

    Returns
    -------
    tuple of numpy.ndarray
        ``(ptr, entries)`` (``int64``): house ``u``'s positions ``i < j`` have entries
        ``ptr[key]`` to ``ptr[key + 1] - 1`` with ``key = (u * size + i) * size + j``; entry ``e``
        is ``entries[3e:3e + 3]`` = the cell, then how ``p = units[u, i]`` and ``q = units[u, j]``
        each bear on it (an arc's number, :data:`PEER` or :data:`SELF`). Both empty (no arcs, or
        a grid above :data:`MAX_POINTING_CELLS` cells, or plain arcs only): the kernel skips the rule.
    """
    n_units, size = units.units.shape
    found = _entries(units, arc_ptr, arc_other, plain, houses=houses)
    if found is None:
        return _NO_POINTING
    key, c, by_p, by_q, came_from = found
    order = np.argsort(key * (arc_other.size + 1) + came_from, kind="stable")
    ptr = np.zeros(n_units * size * size + 1, dtype=np.int64)
    np.cumsum(np.bincount(key, minlength=n_units * size * size), out=ptr[1:])
    return ptr, np.stack([c, by_p, by_q], axis=1)[order].ravel()


def _entries(units: ShapeTables, arc_ptr: np.ndarray, arc_other: np.ndarray, plain: np.ndarray,
             digits: np.ndarray | None = None, houses: bool = False) -> tuple[np.ndarray, ...] | None:
    """:func:`pointing_tables`' entries unsorted: ``(key, cell, by_p, by_q, came_from)`` (the arc
    each comes from: the first place's when both places have arcs to the cell), or None where the
    rule does not apply. ``digits`` (optional, ``int64``, one per relation ``r`` at ``r + 3``: the
    digits ``d`` for which ``p = d`` takes something through it) keeps only the entries both of
    whose places take something for one digit at least (:func:`packed_pointing` drops the others:
    the bench's anti-taxicab 9x9s 52,348 -> 21,412 entries). ``houses``: the cells outside the
    house related to both places by shared houses alone too, after the pair's other entries
    (``came_from`` one past the last arc)."""
    n_cells = units.peers.shape[0]
    n_units, size = units.units.shape
    if arc_other.size == 0 or n_cells > MAX_POINTING_CELLS or size < 2 or np.all(plain):
        return None
    relation = np.full((n_cells, n_cells), _NONE, dtype=np.int64)
    real = np.arange(units.peers.shape[1]) < units.n_peers[:, None]
    relation[np.repeat(np.arange(n_cells), units.n_peers), units.peers[real]] = PEER
    source = np.repeat(np.arange(n_cells), np.diff(arc_ptr))
    relation[source, arc_other] = np.arange(arc_other.size)
    relation[np.arange(n_cells), np.arange(n_cells)] = SELF
    taking = (relation >= 0) & ~plain[np.maximum(relation, 0)]           # an arc that takes more than d
    inside = np.zeros((n_units, 1, n_cells), dtype=bool)
    inside[np.arange(n_units)[:, None], 0, units.units] = True
    # every house, every position pair i < j, every cell at once (a 9x9: 27 x 36 x 81): the cells
    # related to both places, one of them by an arc that takes more than d; a cell of the house
    # itself (without d: it has only the two places there) through two such arcs, or a place
    first, second = np.triu_indices(size, 1)
    p, q = units.units[:, first], units.units[:, second]                # (houses, pairs)
    by_p, by_q = relation[p], relation[q]                                # (houses, pairs, cells)
    take_p, take_q = taking[p], taking[q]
    keep = (by_p != _NONE) & (by_q != _NONE) & (take_p | take_q) & \
        (~inside | (by_p == SELF) | (by_q == SELF) | (take_p & take_q))
    if houses:   # no arc, a house shared with each place: locked candidates of two places
        keep |= (by_p == PEER) & (by_q == PEER) & ~inside
    if digits is not None:
        of_cells = digits[relation + 3]
        keep &= (of_cells[p] & of_cells[q]) != 0
    house, pair, c = np.nonzero(keep)
    by_p, by_q = by_p[house, pair, c], by_q[house, pair, c]
    key = (house * size + first[pair]) * size + second[pair]
    # within a pair, the entries go in the order of the arc each comes from: the order the kernel
    # has always read them in
    came_from = np.where(by_p >= 0, by_p, np.where(by_q >= 0, by_q, arc_other.size))
    return key, c, by_p, by_q, came_from


def packed_pointing(ptr: np.ndarray, entries: np.ndarray, arc_table: np.ndarray, tables: np.ndarray,
                    n: int) -> tuple[np.ndarray, np.ndarray]:
    """The pointing entries (:func:`pipeline.solvers.dfsrules_pointing.pointing_tables`, ``(k, 3)``)
    as the kernel reads them: per house position pair and digit ``d``, the entries whose two places
    both take something from the cell when they are ``d``, each one ``int64``: the cell (16 bits),
    then the digits both ``p = d`` and ``q = d`` take from it (the mask above). What ``p = d``
    takes from a cell is, by the relation: every digit but ``d`` (the cell is ``p``), ``d`` (a shared
    house), the digits the arc's pair table does not allow with ``d``.

    A relation that takes only some digits (anti-taxicab: the arc at distance ``v`` takes ``v``
    when the place is ``v``, nothing otherwise) lists its entry under those digits alone: the
    bench's anti-taxicab 9x9s had 52,348 entries under 2,188 pairs, a look read about 24 of which
    one in nine took anything; now 21,412 entries under 19,683 pair-digit keys, the same nodes
    (the slowest 74 -> 65 ms).

    Parameters
    ----------
    ptr : numpy.ndarray
        :func:`pointing_tables`' pointers, one per house position pair (and one past the last).
    entries : numpy.ndarray
        :func:`pointing_tables`' entries, ``(k, 3)``: the cell, how each place bears on it.
    arc_table : numpy.ndarray
        Each arc's pair table (its number).
    tables : numpy.ndarray
        The pair tables, ``(tables, n)`` ``uint64``: row ``t``, digit ``d``: the partner's digits
        that go with ``d``.
    n : int
        Digits.

    Returns
    -------
    tuple of numpy.ndarray
        ``(ptr, packed)``, ``int64``: pair ``key`` (:func:`pointing_tables`), digit ``d`` has
        entries ``ptr[key * n + d]`` to ``ptr[key * n + d + 1] - 1`` of ``packed``. Both empty where
        nothing would be taken or the entries would not fit the packing.
    """
    if not entries.size or n > 48:   # beyond the packing: no pointing
        return _NO_POINTING
    takes = _takes(arc_table, tables, n)
    pair = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    return _packed(pair, entries[:, 0], takes[entries[:, 1] + 3] & takes[entries[:, 2] + 3], ptr.size - 1,
                   np.zeros(len(entries), dtype=np.int64))


def _takes(arc_table: np.ndarray, tables: np.ndarray, n: int) -> np.ndarray:
    """What ``p = d`` takes from a cell, per relation ``r`` at ``r + 3`` (:data:`SELF`,
    :data:`PEER`, none, then each arc) and digit: ``(arcs + 3, n)`` ``uint64``."""
    full = np.uint64((1 << n) - 1)
    bits = np.left_shift(np.uint64(1), np.arange(n, dtype=np.uint64))
    takes = np.zeros((arc_table.size + 3, n), dtype=np.uint64)
    takes[SELF + 3], takes[PEER + 3] = full & ~bits, bits
    takes[3:] = full & ~tables[arc_table]
    return takes


def _packed(pair: np.ndarray, cell: np.ndarray, both: np.ndarray, n_pairs: int,
            tie: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`packed_pointing`'s arrays from each entry's pair, cell and what both places take
    (``(k, n)``), ordered by pair, digit, then ``tie`` (then as given)."""
    n = both.shape[1]
    entry, digit = np.nonzero(both)
    if not entry.size or cell.max() >= 1 << 16:   # nothing taken, or beyond the packing
        return _NO_POINTING
    at = pair[entry] * n + digit
    order = np.argsort(at * (int(tie.max()) + 1) + tie[entry], kind="stable")
    by_digit = np.zeros(n_pairs * n + 1, dtype=np.int64)
    np.cumsum(np.bincount(at, minlength=n_pairs * n), out=by_digit[1:])
    packed = cell[entry].astype(np.uint64) | (both[entry, digit] << np.uint64(16))
    return by_digit, packed[order].astype(np.int64)


#: :func:`pointing` by its inputs' contents (a batch's records of one rule set parse afresh, build
#: the same arcs, and share the tables): at most :data:`_KEPT` rule sets.
_POINTING: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
_KEPT = 16


def pointing(units: ShapeTables, arc_ptr: np.ndarray, arc_other: np.ndarray, plain: np.ndarray,
             arc_table: np.ndarray, tables: np.ndarray, n: int, houses: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """:func:`packed_pointing` of :func:`pointing_tables`, as the kernel reads them, without the
    entries no digit would take anything through (both places' relations take something for some
    digit, each for others, as anti-taxicab arcs at two distances: the bench's anti-taxicab 9x9s
    52,348 -> 21,412 entries), and kept by the inputs' contents: a batch's records parse afresh
    (each its own rule tables), and the records of one rule set share these. The same arrays as
    ``packed_pointing(*pointing_tables(...), ...)``: an anti-taxicab 9x9 (4,020 arcs) 19 -> 4 ms built,
    about 0.1 ms for each record of a rule set seen before.

    Parameters
    ----------
    units : ShapeTables
        The shape's houses and peers.
    arc_ptr, arc_other, plain : numpy.ndarray
        As :func:`pointing_tables`.
    arc_table, tables : numpy.ndarray
        As :func:`packed_pointing`.
    n : int
        Digits.
    houses : bool
        As :func:`pointing_tables`.

    Returns
    -------
    tuple of numpy.ndarray
        As :func:`packed_pointing`.
    """
    key = (n, houses, *(np.ascontiguousarray(a).tobytes() for a in (units.units, units.peers, units.n_peers, arc_ptr,
                                                              arc_other, plain, arc_table, tables)))
    cached = _POINTING.get(key)
    if cached is None:
        cached = _pointing(units, arc_ptr, arc_other, plain, arc_table, tables, n, houses)
        if len(_POINTING) >= _KEPT:
            _POINTING.clear()
        _POINTING[key] = cached
    return cached


def _pointing(units: ShapeTables, arc_ptr: np.ndarray, arc_other: np.ndarray, plain: np.ndarray,
              arc_table: np.ndarray, tables: np.ndarray, n: int, houses: bool) -> tuple[np.ndarray, np.ndarray]:
    if n > 48:   # beyond the packing: no pointing
        return _NO_POINTING
    takes = _takes(arc_table, tables, n)
    digits = (takes != 0).astype(np.int64) @ (np.int64(1) << np.arange(n, dtype=np.int64))
    found = _entries(units, arc_ptr, arc_other, plain, digits, houses)
    if found is None:
        return _NO_POINTING
    key, c, by_p, by_q, came_from = found
    return _packed(key, c, takes[by_p + 3] & takes[by_q + 3], units.units.shape[0] * units.units.shape[1] ** 2,
                   came_from)


def value_exclusions(tables: np.ndarray, n: int) -> bool:
    """Whether a pair table keeps its cells' digits apart for some digits only (anti-taxicab: cells
    at distance ``v`` only never both hold ``v``): each digit ``d`` takes ``d`` or nothing from the
    partner, some ``d`` the one and some the other. ISS's value-dependent exclusions take a digit
    of two places in a house from every cell both places exclude, the houses they share too, so
    the kernel's locked candidates join the pointing there (the bench's anti-taxicab 9x9s: 56,920
    -> 42,154 nodes, the slowest 65 -> 51 ms).

    Parameters
    ----------
    tables : numpy.ndarray
        The pair tables, ``(tables, n)`` ``uint64``: row ``t``, digit ``d``: the partner's digits
        that go with ``d``.
    n : int
        Digits.

    Returns
    -------
    bool

    Examples
    --------
    >>> full = np.uint64(0b111)
    >>> bool(value_exclusions(np.array([[full, full & ~np.uint64(2), full]]), 3))
    True
    >>> bool(value_exclusions(np.array([[np.uint64(0b110), np.uint64(0b101), np.uint64(0b011)]]), 3))
    False
    """
    if not tables.size:
        return False
    takes = (np.uint64((1 << n) - 1) & ~tables) != 0   # (tables, n): digit d takes something
    return bool(np.any(equal_only(tables, n) & takes.any(axis=1) & ~takes.all(axis=1)))


_INTERSECTIONS: dict[int, tuple[ShapeTables, tuple]] = {}


def house_intersections(units: ShapeTables) -> tuple:
    """Every two houses of ``units`` that share two cells or more (a box and a row, a box and a
    diagonal, a jigsaw region and a column): a digit can stand in the first's other cells only if it
    can in the second's (each house holds each digit once, so the digit is either in the shared
    cells or in both the rests). The kernel keeps the two rests' digits equal: locked candidates
    (pointing and claiming), as ISS's house intersections do. Cached per shape.

    Parameters
    ----------
    units : ShapeTables
        The shape's tables.

    Returns
    -------
    tuple
        ``(count, rest_a, rest_b, cell_ptr, cell_list)``: each intersection's two rests (cells,
        ``-1`` padded to ``n`` a row, flattened), and the intersections each cell is in a rest of
        (``cell_ptr[c]`` .. ``cell_ptr[c + 1]`` in ``cell_list``): only a change there can change
        what an intersection takes, so the kernel looks again at those alone. Up to
        :data:`~pipeline.solvers.dfsrules_rows.MASK_INTERSECTIONS` intersections, a cell's are
        one mask (``cell_list[c]``, bit ``i`` for intersection ``i``; ``cell_ptr`` counts one a cell).
    """
    return per_shape(_INTERSECTIONS, units, _intersections)


def _intersections(units: ShapeTables) -> tuple:
    n_units, size = units.units.shape
    n_cells = int(units.peers.shape[0])
    member = np.zeros((n_units, n_cells), dtype=np.float32)   # float: the product is BLAS's (exact here)
    member[np.arange(n_units)[:, None], units.units] = 1
    shared = member @ member.T
    ua, ub = np.nonzero(np.triu(shared >= 2, k=1))
    rest_a = np.full((ua.size, size), -1, dtype=np.int64)
    rest_b = np.full((ua.size, size), -1, dtype=np.int64)
    for rest, mine, other in ((rest_a, ua, ub), (rest_b, ub, ua)):
        cells = units.units[mine]                                    # (k, size)
        outside = member[other[:, None], cells] == 0                 # cells not in the other house
        order = np.argsort(~outside, axis=1, kind="stable")
        picked = np.take_along_axis(cells, order, axis=1)
        keep = np.take_along_axis(outside, order, axis=1)
        rest[keep] = picked[keep]
    rests = np.concatenate([rest_a, rest_b], axis=1)                 # each intersection's cells outside the other
    which = np.broadcast_to(np.arange(ua.size)[:, None], rests.shape)[rests >= 0]
    cell_ptr, order = by_cell(rests[rests >= 0], n_cells)
    if ua.size > MASK_INTERSECTIONS:
        return int(ua.size), rest_a.ravel(), rest_b.ravel(), cell_ptr, which[order]
    masks = np.zeros(n_cells, dtype=np.uint64)
    np.bitwise_or.at(masks, rests[rests >= 0], np.left_shift(np.uint64(1), which.astype(np.uint64)))
    return int(ua.size), rest_a.ravel(), rest_b.ravel(), np.arange(n_cells + 1), masks.view(np.int64)
