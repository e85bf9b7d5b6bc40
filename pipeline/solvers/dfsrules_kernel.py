"""The compiled kernel of the ``dfsrules`` engine (:mod:`pipeline.solvers.dfsrules`): the ``dfs``
search (:mod:`pipeline.solvers.dfs_kernel`) with the puzzle's rule rows propagated at every node.

A state is one ``uint64`` candidate mask per cell. :func:`propagate` runs to a fixed point of

* naked singles (a decided cell's digit leaves its peers) and hidden singles (a digit with one
  place left in a unit), as ``dfs`` does;
* **pair relations** (every rule row over two cells, and every such row on one pair of cells
  together: anti-knight, anti-king, non-consecutive, Kropki, XV, thermometer steps, greater-than,
  whispers, ...): a table per ordered pair, ``compat[t, d]`` = the other cell's digits that go with
  digit ``d`` here; a cell keeps only the digits some candidate of its partner supports (arc
  consistency: exact for a relation of two cells). With ``rint``'s ``arc_lookup`` set, an arc's
  table is its support of every candidate mask instead, read in one load
  (:meth:`pipeline.solvers.dfsrules.RuleTables.with_support_lookup`, for searches that last). A
  cell whose arcs share one table reads its support once, and skips its partners when the support
  is every digit (non-consecutive: a cell whose digits are more than two apart); a cell whose arcs
  each take at most the equal digit (anti-taxicab's, of eight tables) skips them until decided;
* **pointing through pair relations** (grids up to 16x16 with relations that take more than the
  equal digit: non-consecutive, Kropki, XV, thermometers, ...), for searches that last (the tables
  are added after the first slice, with the support lookup): a digit with two places left in a
  house is in one of them, so a cell related to both (an arc or a shared house, at least one such
  arc) loses what both placements would take from it (:mod:`pipeline.solvers.dfsrules_pointing`).
  Each stack row remembers its houses' digits already so looked at (a child inherits its
  parent's: what was taken stays taken), so a node looks only at the digits newly down to two
  places. The bench's non-consecutive puzzles: 268,154 -> 133,122 nodes, 445 -> 374 ms. Pair
  tables that take a digit for some digits only (anti-taxicab, ISS's value-dependent exclusions)
  join it too, with the locked candidates below;
* **linear rows** over three or more cells (cage sums, arrows, a cage's distinct digits, ...):
  ``sum_c coef[c, digit(c)] <= rhs`` (or ``=``), with each cell's coefficient vector over its
  digits. The row's least and greatest activity over the candidates still open bound every cell:
  a digit whose coefficient would push the row past ``rhs`` (or, for ``=``, short of it) goes.
  A sum of distinct digits (a killer cage: its cells pairwise in a unit or apart by a rule) also
  keeps only the digits of the digit sets that make the sum and that its cells can still take,
  and places a digit every such set needs when one cell alone can take it, or takes it from the
  other cells of every unit that holds all the row's cells that can take it (up to 64 units);
  down to two or three open cells, it keeps the digits that make the sum together, all apart
  (as ISS's sum handler);
* **sums whose digits may repeat** (little killers, arrows, innies and outies: rows without digit
  sets): a row's cells in one house with one coefficient vector (an **exclusion group**,
  :func:`pipeline.solvers.dfsrules_rows.exclusion_groups`) take distinct digits, so the group
  adds at least its candidates' ``k`` least values and at most their ``k`` greatest (its decided
  cells their own values, the open ones from the open ones' digits less those), and a cell's
  partners at least the ``k - 1`` least (the groups for searches that last: tables after the
  first slice); and an ``=`` row down to two or three open cells keeps only the digits that
  complete its sum (as ISS's sum handler does). ISS's little killer and arrow entries, counted to
  2 at 10 s each: 30 -> 31 finished, 59.0 -> 44.8 s (The Barbed Cross 268,305 -> 67,399 nodes;
  Triple digits past 3.1 million -> 5,313);
* **locked candidates** (for killers: puzzles with sums of distinct digits): where two houses share
  two cells or more (a box and a row, a box and a diagonal), the cells of each outside the shared
  ones keep only the digits the other's can take (each house holds each digit once, so a digit is
  in the shared cells or in both rests), as ISS's house intersections do. MATHEMAGIC #11's tree
  705,069 nodes -> 265,531 with the branching below; and for value-dependent exclusions
  (anti-taxicab: the bench's ten 56,920 -> 42,154 nodes); elsewhere they cost more a node than
  they save, so other puzzles go without;
* **sandwich lines** (a row or column whose digits strictly between the 1 and the ``N`` add up to
  the clue): every placement of the 1 and the ``N`` that the candidates allow is tried, with the
  least and greatest sum its cells between can make; a cell keeps the digits some placement that
  can still make the sum gives it (the ends there, digits the sum's bounds allow between, any
  other digit outside). Exact once the line is decided, so the rule's big-M rows are not needed;
* **skyscraper lines** (a row or column seen from a clue outside it: a cell is seen when taller
  than every cell before it, and the clue counts them): a pass forward over the line keeps, per
  cell and count seen so far, the tallest digits the candidates can have reached, a pass back
  the states that still reach the clue's count, and each cell keeps exactly the digits on such a
  way (arc consistency for the line, as ISS's Skyscraper handler). The rule's rows reach
  auxiliary columns the search does not hold: the handler takes their place.
* **lunchbox lines** (distinct digits, the cells between the smallest and the largest add up to
  the total): each placement of the two ends and their values, judged by sum bounds
  (:mod:`pipeline.solvers.dfsrules_lunchbox`), in place of the rule's auxiliary columns.
* **counting circles and count-distinct clues** (their rows need auxiliary columns): ISS's
  handlers' reasoning over the candidates (:mod:`pipeline.solvers.dfsrules_counting`), exact once
  their cells are decided.
* **automaton lines** (automaton, regex: the values along the line are accepted by a finite
  automaton): the states reachable forward, those that reach an accepting state backward, each
  cell the digits of a transition between them (:mod:`pipeline.solvers.dfsrules_automaton`).
* **sum lines** (segments each adding up to the total; a loop from any start): each line kept arc
  consistent over its segments' running sums (:mod:`pipeline.solvers.dfsrules_sumline`), in place
  of the rule's automaton columns.
* **hidden skyscraper lines** (the first cell lower than one before it holds the clue's digit):
  each line kept arc consistent over its rising tallest digit or its way past the hidden cell
  (:mod:`pipeline.solvers.dfsrules_hidden`), in place of the rule's rows.
* **global entropy and global mod windows**: each window's classes arc consistent and its required
  values kept out of the cells seeing each of their places (:mod:`pipeline.solvers.dfsrules_windows`),
  beside the rules' rows.

The search branches on a cell with the fewest candidates; among those, on the one whose branches
failed most often (its **conflict score**, as ISS's candidate selector keeps one: one point per
failed branch, every score halved each :data:`DECAY_EVERY` failures), then on the one in most rule
relations. On the non-consecutive puzzles of the bench set this cut the nodes by a quarter. With
``rint``'s ``by_ratio`` (every puzzle since session 34, killers before: see
:data:`pipeline.solvers.dfsrules.BY_RATIO`), when the fewest is three or more (two or more at ``by_ratio``
2: :data:`pipeline.solvers.dfsrules_windows_rows.WINDOW_BY_RATIO`), the cell of most conflicts per
candidate goes first instead (ISS's candidate selector scores a cell so), unless a digit with two
places left in a house scores as well (half the higher conflict score of its places, ISS's candidate
finders): then the branch is that digit in its place of more conflicts, or not. With locked
candidates this finishes 10 of ISS's 14 MATHEMAGIC killers within 10 s where the fewest candidates
alone finish 1.

A search that is still open after a few hundred nodes starts again with its root **probed**
(:func:`_probe`, singleton arc consistency in one pass): each candidate of each open cell is placed
in a copy and propagated, and a candidate whose placement fails leaves the cell. On lines judged
against their ends (lockout, between, zipper, ...) this leaves a handful of nodes where thousands
were needed; it stops early where the tries remove nothing (non-consecutive).

Only what changed is looked at again: a ring of cells whose mask changed, then the units (a mask
of them up to 64 units: each cell's units' mask ORed in) and the rows holding them (the own
handlers' rows only in a puzzle that has one: non-consecutive #63 52-56 -> 46 ms). Hidden singles
skip a house's decided digits, and pointing's entries are one ``int64`` each, listed per pair of
places and digit with what both places take. These cut the non-consecutive bench from 221 to 172 ms (the slowest
puzzle 62 -> 48 ms) at the same 122,618 nodes. The rule tables come packed in one ``int64`` array ``rint`` (offsets in its
header, :data:`HEADER`) and one ``uint64`` array of pair tables; scratch comes in one ``int64``
array ``work``. Like ``dfs_kernel`` the functions allocate nothing and raise nothing, so
:func:`entry_points` compiles them into machine code that runs without numba
(:mod:`pipeline.solvers.dfsrules_native`).
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_automaton import _automaton
from pipeline.solvers.dfsrules_automaton_rows import NFA_AT
from pipeline.solvers.dfsrules_counting import _counting
from pipeline.solvers.dfsrules_counttables import CNT_AT
from pipeline.solvers.dfsrules_decided import _decided
from pipeline.solvers.dfsrules_handlers import (_ix, _low_index, _mark_rows, _pointing, _popcount, _push,
                                                _sandwich, _skyscraper)
from pipeline.solvers.dfsrules_hidden import _hidden
from pipeline.solvers.dfsrules_hidden_rows import HID_AT
from pipeline.solvers.dfsrules_locked import MASK_INTERSECTIONS, _check_intersections, _mark_intersections
from pipeline.solvers.dfsrules_linear import _lin_row
from pipeline.solvers.dfsrules_lunchbox import _lunchbox
from pipeline.solvers.dfsrules_sumline import _sumline
from pipeline.solvers.dfsrules_sumline_rows import SUM_AT
from pipeline.solvers.dfsrules_tables_kernel import core_tables
from pipeline.solvers.dfsrules_windows import _window
from pipeline.solvers.dfsrules_windows_rows import WIN_AT

__all__ = ["FINISHED", "HEADER", "entry_points", "propagate", "search"]

#: ``search``'s return value once the search space is exhausted or the limit is reached.
FINISHED = 0
#: Slots of ``rint``'s header: counts, then the offset of each table (see :func:`search`).
HEADER = ("n_cells", "n", "n_lin", "n_terms", "n_arcs", "arc_ptr", "arc_other", "arc_table", "lin_ptr",
          "term_cell", "term_coef", "lin_rhs", "lin_eq", "cell_lin_ptr", "cell_lin", "combo_ptr",
          "sand_cells", "sand_sum", "digit_value", "cell_sand_ptr", "cell_sand", "n_sand", "sand_sets_ptr",
          "sand_use_sets", "arc_lookup", "n_inter", "inter_a", "inter_b", "cell_inter_ptr", "cell_inter", "term_order",
          "by_ratio", "pointing_ptr", "pointing", "n_pointing", "term_group", "cell_table",
          "cell_unit_mask", "sky_cells", "sky_clue", "cell_sky_ptr", "cell_sky", "n_sky", "lunch_ptr", "lunch_cells",
          "lunch_sum", "n_lunch", "cell_lunch_ptr", "cell_lunch", "n_cnt", "cnt_ptr", "cnt_cells", "cnt_group", "cnt_clue",
          "cnt_sets", "cell_cnt_ptr", "cell_cnt", "n_sum", "sum_ptr", "sum_cells", "sum_total", "sum_loop",
          "cell_sum_ptr", "cell_sum", "nfa_ptr", "nfa_steps", "nfa_auto", "n_nfa", "cell_nfa_ptr", "cell_nfa", "nfa_tables",
          "nfa_scratch", "n_hid", "hid_ptr", "hid_cells", "hid_target", "cell_hid_ptr", "cell_hid", "hid_scratch",
          "n_win", "win_cells", "win_masks", "cell_win_ptr", "cell_win", "dec_ptr", "dec_cells")
#: Conflicts after which every cell's conflict score is halved (recent conflicts weigh more).
DECAY_EVERY = 1 << 11   # measured against 1 << 8 and 1 << 14: 3-5% fewer nodes


@njit(cache=False, inline="always")
def _mass_at(work, n_cells):
    """Where the stack rows' shares of the tree start in ``work``, just before the conflict scores:
    one per stack row (see :func:`search`; the driver reads them at the same place)."""
    return work.shape[0] - 2 * n_cells - 2


@njit(cache=False, inline="always")
def _memo_at(work, n_cells, n_units):
    """Where the pointing memo starts in ``work``, just before the rows' shares of the tree: the
    number of the stack row in use, then one row of ``n_units`` per stack row (see :func:`search`)."""
    return _mass_at(work, n_cells) - 1 - (n_cells + 1) * n_units


@njit(cache=False, inline="always")
def _copy_memo_row(work, memo_at, n_units, source, target):
    """Stack row ``target``'s pointing memo becomes row ``source``'s (a child starts from its parent's)."""
    for u in range(n_units):
        work[memo_at + 1 + target * n_units + u] = work[memo_at + 1 + source * n_units + u]


@njit(cache=False, inline="always")
def _support(table, v, n, compat, lookup):
    """The digits of a partner that some digit of mask ``v`` allows through pair table ``table``
    (``rint``'s ``arc_table`` value: its support lookup's start, or its number)."""
    one = np.uint64(1)
    if lookup:   # the table's support of every mask, precomputed
        return compat[_ix(table + np.int64(v))]
    t = table * n
    support = np.uint64(0)
    w = v
    while w:
        bit = w & (~w + one)
        w &= w - one
        support |= compat[t + _low_index(bit)]
    return support


@njit(cache=False, inline="always")
def _flags(work, at, count, value):
    """``work[at:at + count] = value`` (a handler's dirty flags, each rule's one)."""
    for r in range(count):
        work[at + r] = value


@njit(cache=False)
def propagate(state: np.ndarray, placed: np.ndarray, origin: int, peers: np.ndarray, n_peers: np.ndarray,
              units: np.ndarray, cell_units: np.ndarray, n_cell_units: np.ndarray, full: np.uint64, rint: np.ndarray,
              compat: np.ndarray, work: np.ndarray) -> bool:
    """Singles, pair relations and linear rows to a fixed point, in place; False on a contradiction.

    ``state`` is a fixed point except at cell ``origin`` (the cell the branch changed), or
    nothing is known of it (``origin < 0``: the root).

    Parameters
    ----------
    state, placed : numpy.ndarray
        One state's masks and its propagated-single flags (``(cells,)``), updated in place.
    origin : int
        The cell the branch changed, or -1.
    peers, n_peers, units, cell_units, n_cell_units, full
        The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
    rint, compat : numpy.ndarray
        The rule tables (:func:`search`).
    work : numpy.ndarray
        Scratch (:func:`search`).

    Returns
    -------
    bool
    """
    zero, one = np.uint64(0), np.uint64(1)
    n_cells, n = rint[0], rint[1]
    n_lin, n_terms = rint[2], rint[3]
    n_units, size = units.shape
    arc_ptr, arc_other, arc_table = rint[5], rint[6], rint[7]
    cell_table = rint[36]
    cell_lin_ptr, cell_lin = rint[13], rint[14]
    n_sand, cell_sand_ptr, cell_sand = rint[21], rint[19], rint[20]
    lookup = rint[24] != 0
    inq_at = n_cells                       # work: ring, in-ring flags, dirty units, dirty rows, tmin, tmax,
    udirty_at = 2 * n_cells                # the ring's ends, dirty sandwiches, a sandwich's scratch
    ldirty_at = udirty_at + n_units
    tmin_at = ldirty_at + n_lin
    tmax_at = tmin_at + n_terms
    ht_at = tmax_at + n_terms
    sdirty_at = ht_at + 2
    sscratch_at = sdirty_at + n_sand
    idirty_at = sscratch_at + 4 * (n + 1)
    group_at = idirty_at + rint[25]         # then the exclusion groups' scratch (8 per term),
    n_sky, cell_sky_ptr, cell_sky = rint[42], rint[40], rint[41]
    kdirty_at = group_at + 8 * n_terms      # the dirty skyscraper lines and one line's scratch
    kscratch_at = kdirty_at + n_sky
    n_inter = rint[25]
    n_lunch, cell_lunch_ptr, cell_lunch = rint[46], rint[47], rint[48]
    # after the skyscrapers' scratch: each lunchbox's flag, one's scratch
    lunch_dirty_at = kscratch_at + (n * (2 * n + 3) if n_sky > 0 else 0)
    lunch_at = lunch_dirty_at + n_lunch
    n_cnt, cell_cnt_ptr, cell_cnt = rint[CNT_AT], rint[CNT_AT + 6], rint[CNT_AT + 7]
    cdirty_at = lunch_at + 4 * n + 2        # then the dirty counting rules and their scratch
    cscratch_at = cdirty_at + n_cnt
    n_sum, cell_sum_ptr, cell_sum = rint[SUM_AT], rint[SUM_AT + 5], rint[SUM_AT + 6]
    mdirty_at = cscratch_at + (194 + n * n if n_cnt > 0 else 0)   # then the dirty sum lines, one's scratch
    mscratch_at = mdirty_at + n_sum
    n_nfa, cell_nfa_ptr, cell_nfa = rint[NFA_AT + 3], rint[NFA_AT + 4], rint[NFA_AT + 5]
    longest = 0   # after the sum lines' scratch (twice the longest line and one): each automaton line's flag, one's scratch
    for r in range(n_sum):
        longest = max(longest, rint[rint[SUM_AT + 1] + r + 1] - rint[rint[SUM_AT + 1] + r])
    nfa_dirty_at = mscratch_at + (2 * longest + 1 if n_sum > 0 else 0)
    nfa_at = nfa_dirty_at + n_nfa
    n_hid, cell_hid_ptr, cell_hid = rint[HID_AT], rint[HID_AT + 4], rint[HID_AT + 5]
    hid_dirty_at = nfa_at + rint[NFA_AT + 7]   # after the automaton's scratch: each hidden skyscraper's flag, one's scratch
    hid_at = hid_dirty_at + n_hid
    n_win, cell_win_ptr, cell_win = rint[WIN_AT], rint[WIN_AT + 3], rint[WIN_AT + 4]
    win_dirty_at = hid_at + rint[HID_AT + 6]   # after the hidden skyscrapers' scratch: each window's flag
    pointing = rint[34] > 0
    if pointing:   # the state's row of digits of two places looked at, per house (see search)
        memo_at = _memo_at(work, n_cells, n_units)
        pdone_at = memo_at + 1 + work[memo_at] * n_units
        if origin < 0:
            for u in range(n_units):
                work[pdone_at + u] = 0
    head_tail = work[ht_at:ht_at + 2]
    if head_tail[1] != 0:   # the last call stopped with cells on the ring: their in-ring flags are set
        for c in range(n_cells):
            work[inq_at + c] = 0
    head_tail[0] = 0
    head_tail[1] = 0
    # up to 64 units, the dirty ones are a mask (each cell's units' mask at rint[37]), else flags
    by_mask = n_units <= 64
    unit_mask_at = rint[37]
    dirty, imarks = zero, zero   # and the intersections to look at again a mask up to 64 (dfsrules_locked)
    if origin < 0:
        if by_mask:
            dirty = ~zero >> np.uint64(64 - n_units)
        if 0 < n_inter <= MASK_INTERSECTIONS:
            imarks = ~zero >> np.uint64(64 - n_inter)
        _flags(work, udirty_at, n_units, 1)
        _flags(work, ldirty_at, n_lin, 1)
        _flags(work, sdirty_at, n_sand, 1)
        _flags(work, kdirty_at, n_sky, 1)
        _flags(work, idirty_at, n_inter, 1)
        _flags(work, lunch_dirty_at, n_lunch, 1)
        _flags(work, cdirty_at, n_cnt, 1)
        _flags(work, mdirty_at, n_sum, 1)
        _flags(work, nfa_dirty_at, n_nfa, 1)
        _flags(work, hid_dirty_at, n_hid, 1)
        _flags(work, win_dirty_at, n_win, 1)
        for c in range(n_cells):
            if state[c] == zero:
                return False
            _push(c, work, inq_at, head_tail)
    else:
        if not by_mask:
            _flags(work, udirty_at, n_units, 0)
        _flags(work, ldirty_at, n_lin, 0)
        _flags(work, sdirty_at, n_sand, 0)
        _flags(work, kdirty_at, n_sky, 0)
        _flags(work, idirty_at, n_inter, 0)
        _flags(work, lunch_dirty_at, n_lunch, 0)
        _flags(work, cdirty_at, n_cnt, 0)
        _flags(work, mdirty_at, n_sum, 0)
        _flags(work, nfa_dirty_at, n_nfa, 0)
        _flags(work, hid_dirty_at, n_hid, 0)
        _flags(work, win_dirty_at, n_win, 0)
        _push(origin, work, inq_at, head_tail)
    handled = (n_sand + n_sky + n_lunch + n_cnt + n_sum + n_nfa + n_hid + n_win) > 0
    while True:
        # the ring: cells whose mask changed
        while head_tail[1] > 0:
            c = work[_ix(head_tail[0])]
            head_tail[0] = head_tail[0] + 1 if head_tail[0] + 1 < n_cells else 0
            head_tail[1] -= 1
            work[_ix(inq_at + c)] = 0
            ci = _ix(c)
            v = state[ci]
            if v == zero:
                return False
            if not placed[ci] and (v & (v - one)) == zero:
                placed[ci] = True
                keep = ~v
                for k in range(n_peers[ci]):
                    q = _ix(peers[ci, _ix(k)])
                    w = state[q]
                    if w & v:
                        w &= keep
                        if w == zero:
                            return False
                        state[q] = w
                        _push(q, work, inq_at, head_tail)
            # a cell whose arcs share one table: its support read once, and its partners skipped
            # when it allows every digit (non-consecutive: digits more than two apart allow any)
            # (a cell whose arcs act only once it is decided, anti-taxicab's, skips them until then,
            # then looks only at the partners its digit's tables take it from: _decided)
            shared = rint[_ix(cell_table + c)]
            support = full
            if shared >= 0:
                support = _support(shared, v, n, compat, lookup)
            if shared < -1 and (v & (v - one)) == zero and not _decided(c, v, n, state, rint, work, inq_at, head_tail):
                return False
            if shared == -1 or (shared >= 0 and full & ~support):
                for a in range(rint[_ix(arc_ptr + c)], rint[_ix(arc_ptr + c + 1)]):
                    b = _ix(rint[_ix(arc_other + a)])
                    if shared < 0:
                        support = _support(rint[_ix(arc_table + a)], v, n, compat, lookup)
                    w = state[b]
                    if w & ~support:
                        w &= support
                        if w == zero:
                            return False
                        state[b] = w
                        _push(b, work, inq_at, head_tail)
            if by_mask:
                dirty |= np.uint64(rint[_ix(unit_mask_at + c)])
            else:
                for k in range(n_cell_units[ci]):
                    work[_ix(udirty_at + cell_units[ci, _ix(k)])] = 1
            for k in range(rint[_ix(cell_lin_ptr + c)], rint[_ix(cell_lin_ptr + c + 1)]):
                work[_ix(ldirty_at + rint[_ix(cell_lin + k)])] = 1
            imarks = _mark_intersections(c, imarks, n_inter, rint, work, idirty_at)
            if handled:   # any handler of its own (sandwich, skyscraper, ... windows): its dirty flags
                _mark_rows(c, rint, work, cell_sand_ptr, cell_sand, sdirty_at)
                _mark_rows(c, rint, work, cell_sky_ptr, cell_sky, kdirty_at)
                _mark_rows(c, rint, work, cell_lunch_ptr, cell_lunch, lunch_dirty_at)
                _mark_rows(c, rint, work, cell_cnt_ptr, cell_cnt, cdirty_at)
                _mark_rows(c, rint, work, cell_sum_ptr, cell_sum, mdirty_at)
                _mark_rows(c, rint, work, cell_nfa_ptr, cell_nfa, nfa_dirty_at)
                _mark_rows(c, rint, work, cell_hid_ptr, cell_hid, hid_dirty_at)
                _mark_rows(c, rint, work, cell_win_ptr, cell_win, win_dirty_at)
        # hidden singles in the units that changed
        pending, next_u = dirty, 0
        dirty = zero
        while True:
            if by_mask:
                if pending == zero:
                    break
                u = _low_index(pending)
                pending &= pending - one
            else:
                while next_u < n_units and work[_ix(udirty_at + next_u)] == 0:
                    next_u += 1
                if next_u >= n_units:
                    break
                u = next_u
                next_u += 1
                work[_ix(udirty_at + u)] = 0
            once, twice, thrice, fixed = zero, zero, zero, zero
            for k in range(size):
                v = state[_ix(units[_ix(u), _ix(k)])]
                thrice |= twice & v
                twice |= once & v
                once |= v
                if (v & (v - one)) == zero:
                    fixed |= v
            if once != full:
                return False
            if pointing:
                two = twice & ~thrice & ~np.uint64(work[pdone_at + u])
                if two:
                    work[pdone_at + u] |= np.int64(two)
                    if _pointing(u, two, state, units, rint, work, inq_at, head_tail) < 0:
                        return False
            hidden = once & ~twice & ~fixed   # a decided cell's digit is once there, with nothing to do
            if hidden == zero:
                continue
            for k in range(size):
                uc = _ix(units[_ix(u), _ix(k)])
                v = state[uc]
                h = v & hidden
                if (h & (h - one)) != zero:
                    return False
                if h != zero and h != v:
                    state[uc] = h
                    _push(uc, work, inq_at, head_tail)
        if head_tail[1] > 0:
            continue
        # sandwich lines holding a changed cell
        for r in range(n_sand):
            if work[sdirty_at + r] == 0:
                continue
            work[sdirty_at + r] = 0
            if _sandwich(r, state, rint, compat, work, sscratch_at, inq_at, head_tail) < 0:
                return False
        if head_tail[1] > 0:
            continue
        # skyscraper lines holding a changed cell
        for r in range(n_sky):
            if work[_ix(kdirty_at + r)] == 0:
                continue
            work[_ix(kdirty_at + r)] = 0
            if _skyscraper(r, state, rint, work, kscratch_at, inq_at, head_tail) < 0:
                return False
        if head_tail[1] > 0:
            continue
        # lunchbox lines holding a changed cell
        for r in range(n_lunch):
            if work[lunch_dirty_at + r] == 0:
                continue
            work[lunch_dirty_at + r] = 0
            if _lunchbox(r, state, rint, work, lunch_at, inq_at, head_tail) < 0:
                return False
        if head_tail[1] > 0:
            continue
        # counting circles and count-distinct clues holding a changed cell
        for r in range(n_cnt):
            if work[cdirty_at + r] == 0:
                continue
            work[cdirty_at + r] = 0
            if _counting(r, state, rint, compat, work, cscratch_at, inq_at, head_tail) < 0:
                return False
        if head_tail[1] > 0:
            continue
        # sum lines holding a changed cell
        for r in range(n_sum):
            if work[mdirty_at + r] == 0:
                continue
            work[mdirty_at + r] = 0
            if _sumline(r, state, rint, work, mscratch_at, inq_at, head_tail) < 0:
                return False
        if head_tail[1] > 0:
            continue
        # automaton lines holding a changed cell
        for r in range(n_nfa):
            if work[nfa_dirty_at + r] == 0:
                continue
            work[nfa_dirty_at + r] = 0
            if _automaton(r, state, rint, work, nfa_at, inq_at, head_tail) < 0:
                return False
        if head_tail[1] > 0:
            continue
        # hidden skyscraper lines holding a changed cell
        for r in range(n_hid):
            if work[hid_dirty_at + r] == 0:
                continue
            work[hid_dirty_at + r] = 0
            if _hidden(r, state, rint, work, hid_at, inq_at, head_tail) < 0:
                return False
        if head_tail[1] > 0:
            continue
        # global entropy and global mod windows holding a changed cell
        for r in range(n_win):
            if work[win_dirty_at + r] == 0:
                continue
            work[win_dirty_at + r] = 0
            if _window(r, state, rint, work, inq_at, head_tail, peers, n_peers, cell_units, n_cell_units) < 0:
                return False
        if head_tail[1] > 0:
            continue
        # linear rows holding a changed cell (the cheap rules first: a row is looked at once
        # the singles and pairs have settled)
        for r in range(n_lin):
            if work[_ix(ldirty_at + r)] == 0:
                continue
            work[_ix(ldirty_at + r)] = 0
            if _lin_row(r, state, rint, compat, work, tmin_at, tmax_at, group_at, inq_at, head_tail, units,
                        cell_units, n_cell_units) < 0:
                return False
            if head_tail[1] > 0:
                break
        if head_tail[1] > 0:
            continue
        # two houses' intersections, last (the costliest per change found): the rests outside
        # the shared cells hold the same digits
        # (those with a cell of a rest changed: dfsrules_locked)
        if _check_intersections(imarks, n_inter, size, state, rint, work, idirty_at, inq_at, head_tail) < 0:
            return False
        imarks = zero
        if head_tail[1] == 0:   # every row and intersection looked at without a change: a fixed point
            return True


@njit(cache=False)
def _probe(state, placed, scratch, scratch_flags, idle_limit, peers, n_peers, units, cell_units, n_cell_units, full,
           rint, compat, work) -> bool:
    """One pass of singleton arc consistency on a propagated state, in place: each candidate of
    each open cell, cells with fewer candidates first (their tries fail more often), is placed in
    ``scratch`` and propagated; a candidate whose placement fails leaves the cell (and the state
    is propagated again). Stops once ``idle_limit`` tries in a row removed nothing. False: no
    candidate of some cell survives (no solution below this state)."""
    one = np.uint64(1)
    n_cells = state.shape[0]
    idle = 0
    pointing = rint[34] > 0
    n_units = units.shape[0]
    memo_at = _memo_at(work, n_cells, n_units)
    row = work[memo_at] if pointing else 0
    for size in range(2, rint[1] + 1):
        for c in range(n_cells):
            w = state[c]
            if _popcount(w) != size:
                continue
            while w:
                v = state[c]
                if (v & (v - one)) == 0:   # decided meanwhile
                    break
                bit = w & (~w + one)
                w &= w - one
                if (v & bit) == 0:         # removed meanwhile
                    continue
                idle += 1
                if idle > idle_limit:
                    return True
                for q in range(n_cells):
                    scratch[q] = state[q]
                    scratch_flags[q] = placed[q]
                scratch[c] = bit
                if pointing:   # the scratch's own row of the pointing memo, the state's copied
                    _copy_memo_row(work, memo_at, n_units, row, row + 1)
                    work[memo_at] = row + 1
                ok = propagate(scratch, scratch_flags, c, peers, n_peers, units, cell_units, n_cell_units, full,
                               rint, compat, work)
                if pointing:
                    work[memo_at] = row
                if not ok:
                    idle = 0
                    state[c] = v & ~bit
                    if not propagate(state, placed, c, peers, n_peers, units, cell_units, n_cell_units, full, rint,
                                     compat, work):
                        return False
    return True


@njit(cache=False)
def search(stack: np.ndarray, flags: np.ndarray, origins: np.ndarray, depth: int, found: np.ndarray,
           tallies: np.ndarray, peers: np.ndarray, n_peers: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
           n_cell_units: np.ndarray, full: np.uint64, rint: np.ndarray, compat: np.ndarray, limit: int, budget: int,
           pause_when_full: bool, work: np.ndarray, probe_idle: int) -> int:
    """Resume the depth-first search held in ``stack[:depth]`` for at most ``budget`` nodes.

    Parameters
    ----------
    stack, flags : numpy.ndarray
        ``(cells + 1, cells)``: the states (``uint64`` masks) and their propagated-single flags.
    origins : numpy.ndarray
        ``(cells + 1,)`` ``int64``: the cell each row's branch changed (-1: a start state).
    depth : int
        Rows of ``stack`` in use (1 to start a search from ``stack[0]``).
    found : numpy.ndarray
        ``(k, cells)`` ``uint64``: each solution's masks go into the next free row.
    tallies : numpy.ndarray
        ``[solutions found, nodes, rows of found in use]``, ``int64``, updated in place.
    peers, n_peers, units, cell_units, n_cell_units, full
        The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
    rint : numpy.ndarray
        ``int64``: the header (:data:`HEADER`: cells, digits, linear rows, their terms, arcs, then
        offsets), each cell's arcs (``arc_ptr``, partner, pair table), each linear row's terms
        (``lin_ptr``, cell, ``n`` coefficients), its ``rhs`` and ``=`` flag, and each cell's rows.
    compat : numpy.ndarray
        ``uint64`` ``(tables * n,)``: pair table ``t``'s entry for digit ``d`` at ``t * n + d``.
    limit : int
        Stop at this many solutions.
    budget : int
        Nodes this call may visit.
    pause_when_full : bool
        Also return (not finished) when ``found`` has just filled up.
    work : numpy.ndarray
        ``int64`` scratch of ``2 * cells + units + rows + 2 * terms + 2 + sandwiches + 4 * (n + 1) +
        intersections + 8 * terms`` entries, then each handler's dirty flags and one line's scratch
        in the order ``propagate`` lays them out (skyscraper, lunchbox, counting, sum line, automaton,
        hidden skyscraper lines, windows: :meth:`pipeline.solvers.dfsrules.RuleTables.work_size` counts them),
        the pointing memo, then ``cells + 1`` for the stack rows' shares of the tree (row 0's the
        caller's: the whole tree, ``pipeline.solvers.dfs.WHOLE``, to start) and ``cells + 1`` for the
        conflict scores and their count (kept from one call to the next; to start a search, zeros
        but each cell's sum lines' lengths, as ISS starts its scores at its handlers' sizes:
        :func:`pipeline.solvers.dfsrules_sumline_rows.sumline_priorities`).
    probe_idle : int
        Probe the start state (``stack[0]`` with no branch cell) before its first branch, until
        this many tries in a row removed nothing (:func:`_probe`); 0: no probe.

    Returns
    -------
    int
        The depth to resume from, or :data:`FINISHED`.
    """
    one = np.uint64(1)
    n_cells = stack.shape[1]
    # conflict scores (work's last cells + 1 entries): a branch cell whose state failed scores one;
    # halved every DECAY_EVERY conflicts
    scores_at = work.shape[0] - n_cells - 1
    by_ratio = rint[31] != 0
    # pointing (rint[34]): each stack row's houses' digits of two places already looked at (a
    # child's copied from its parent: what was taken there stays taken), row ``work[memo_at]`` in use
    pointing = rint[34] > 0
    n_units = units.shape[0]
    memo_at = _memo_at(work, n_cells, n_units)
    # each stack row's share of the whole tree, in units of 2**-62 (the caller gives row 0 its
    # whole, or what is left of it): a branch on one of k candidates gives the child a k-th of its
    # row's share and keeps the rest there, so the shares still on the stack are the tree not yet
    # searched (a failed or exhausted row leaves with its share): the search's progress, read
    # between slices (an estimate: it supposes a node's branches equally large)
    mass_at = _mass_at(work, n_cells)
    spent = 0
    while depth > 0:
        if spent >= budget:
            return depth
        spent += 1
        tallies[1] += 1
        top = depth - 1
        state, placed = stack[top], flags[top]
        if pointing:
            work[memo_at] = top
        if not propagate(state, placed, origins[top], peers, n_peers, units, cell_units, n_cell_units, full, rint,
                         compat, work):
            if origins[top] >= 0:
                work[scores_at + origins[top]] += 1
                work[scores_at + n_cells] += 1
                if work[scores_at + n_cells] >= DECAY_EVERY:
                    work[scores_at + n_cells] = 0
                    for c in range(n_cells):
                        work[scores_at + c] >>= 1
            depth -= 1
            continue
        # the start state, before its first branch, probed in the free row above it (the next child's)
        if probe_idle > 0 and top == 0 and origins[0] < 0 and not _probe(
                state, placed, stack[depth], flags[depth], probe_idle, peers, n_peers, units, cell_units,
                n_cell_units, full, rint, compat, work):
            depth -= 1
            continue
        # the cell with the fewest candidates; among those, the one of most conflicts, then the one
        # in most rule relations (pair arcs and linear rows: a choice there propagates furthest);
        # for a killer, when the fewest is three or more, the one of most conflicts per candidate
        best, best_key = -1, 1 << 60
        arc_ptr, cell_lin_ptr = rint[5], rint[13]
        by_score, score, count = -1, 0, 1   # the best conflicts / candidates so far: score / count
        for c in range(n_cells):
            v = state[_ix(c)]
            if (v & (v - one)) != 0:
                candidates = _popcount(v)
                conflicts = work[_ix(scores_at + c)]
                if conflicts * count > score * candidates:
                    by_score, score, count = c, conflicts, candidates
                key = (candidates << 40) - (conflicts << 12) \
                    - (rint[_ix(arc_ptr + c + 1)] - rint[_ix(arc_ptr + c)]) \
                    - (rint[_ix(cell_lin_ptr + c + 1)] - rint[_ix(cell_lin_ptr + c)])
                if key < best_key:
                    best, best_key = c, key
        pick = np.uint64(0)   # the digit to try in the branch cell (0: its lowest)
        if by_ratio and by_score >= 0 and (best_key >> 40) > 3 - rint[31]:   # 2: from two candidates
            best = by_score
            # a house's digit with two places scores half their higher conflict score; one that
            # scores as well as the cell is branched on instead (MATHEMAGIC: 7 -> 10 of 14 in 10 s)
            most = -1
            for u in range(units.shape[0]):
                once, twice, thrice = np.uint64(0), np.uint64(0), np.uint64(0)
                for k in range(units.shape[1]):
                    w = state[units[u, k]]
                    thrice |= twice & w
                    twice |= once & w
                    once |= w
                two = twice & ~thrice
                while two:
                    bit = two & (~two + one)
                    two &= two - one
                    place_score, place = -1, -1
                    for k in range(units.shape[1]):
                        q = units[u, k]
                        if state[q] & bit and work[scores_at + q] > place_score:
                            place_score, place = work[scores_at + q], q
                    if place_score * count >= 2 * score and place_score >= most:
                        most, best, pick = place_score, place, bit
        if best < 0:   # every cell decided: a solution
            tallies[0] += 1
            if tallies[2] < found.shape[0]:
                row = tallies[2]
                for c in range(n_cells):
                    found[row, c] = state[c]
                tallies[2] += 1
            depth -= 1
            if tallies[0] >= limit:
                return FINISHED
            if pause_when_full and tallies[2] == found.shape[0] and depth > 0:
                return depth
            continue
        v = state[best]
        low = pick if pick else v & (~v + one)
        share = work[mass_at + top] // (2 if pick else _popcount(v))
        work[mass_at + depth] = share
        work[mass_at + top] -= share
        for c in range(n_cells):
            stack[depth, _ix(c)] = state[_ix(c)]
            flags[depth, _ix(c)] = placed[_ix(c)]
        stack[depth, best] = low
        origins[depth] = best
        if pointing:
            _copy_memo_row(work, memo_at, n_units, top, depth)
        state[best] = v & ~low
        origins[top] = best
        depth += 1
    return FINISHED


@functools.cache
def entry_points() -> dict:
    """The C-callable versions of :func:`search` and of the table builder
    (:func:`pipeline.solvers.dfsrules_tables_kernel.core_tables`) (numba ``cfunc``), compiled here.

    Every array is passed as a pointer with its sizes, in
    :data:`pipeline.solvers.dfsrules_native.SIGNATURES`' order (flags as booleans).

    Returns
    -------
    dict
        ``{"search": cfunc, "tables": cfunc}`` (compiled once per process).
    """
    from numba import carray, cfunc, types

    u64p, i64p, bp = types.CPointer(types.uint64), types.CPointer(types.int64), types.CPointer(types.boolean)
    i64, u64 = types.int64, types.uint64
    tables = (i64p, i64, i64p, i64p, i64, i64, i64p, i64, i64p, i64, u64)

    def search_c(stack_p, flags_p, origins_p, depth, found_p, n_found, tallies_p, peers_p, peer_width, n_peers_p,
                 units_p, n_units, unit_size, cell_units_p, cell_unit_width, n_cell_units_p, n_cells, full, rint_p,
                 n_rint, compat_p, n_compat, limit, budget, pause_when_full, work_p, n_work, probe_idle):
        return search(carray(stack_p, (n_cells + 1, n_cells)), carray(flags_p, (n_cells + 1, n_cells)),
                      carray(origins_p, (n_cells + 1,)), depth, carray(found_p, (n_found, n_cells)),
                      carray(tallies_p, (3,)), carray(peers_p, (n_cells, peer_width)), carray(n_peers_p, (n_cells,)),
                      carray(units_p, (n_units, unit_size)), carray(cell_units_p, (n_cells, cell_unit_width)),
                      carray(n_cell_units_p, (n_cells,)), full, carray(rint_p, (n_rint,)),
                      carray(compat_p, (n_compat,)), limit, budget, pause_when_full != 0, carray(work_p, (n_work,)),
                      probe_idle)

    search_sig = i64(u64p, bp, i64p, i64, u64p, i64, i64p, *tables, i64p, i64, u64p, i64, i64, i64, i64, i64p, i64,
                     i64)

    def tables_c(terms_p, n_terms, rows_p, n_rows, pairs_p, n_cells, pair_width, full, out_p, n_out, masks_p, n_masks):
        return core_tables(carray(terms_p, (4, n_terms)), carray(rows_p, (2, n_rows)),
                           carray(pairs_p, (n_cells, pair_width)), full, carray(out_p, (n_out,)),
                           carray(masks_p, (n_masks,)))

    tables_sig = i64(i64p, i64, i64p, i64, types.CPointer(types.uint8), i64, i64, u64, i64p, i64, u64p, i64)
    return {"search": cfunc(search_sig, error_model="numpy")(search_c),
            "tables": cfunc(tables_sig, error_model="numpy")(tables_c)}
