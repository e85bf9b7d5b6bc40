"""``dfsrules``: the ``dfs`` search with the puzzle's rule rows propagated inside it (numba, the ``fast`` extra).

Every rule of :mod:`pipeline.core.rules` gives linear rows over the cell/digit variables
``x[c, d]`` (``Model.R``); this engine compiles them, with no scipy and no loop per term, into the
flat tables of :mod:`pipeline.solvers.dfsrules_kernel`:

* a row over **one cell** narrows that cell's start candidates (even/odd, pencil marks, ...);
* a row over **two cells** becomes an exact relation of the pair (anti-knight, anti-king,
  non-consecutive, Kropki, XV, thermometer and greater-than steps, whispers, ...), all the rows of
  one pair in one table, propagated to arc consistency;
* an **at-most-one** row over more cells (a cage's distinct digits, renban's, ...) becomes the
  pair relations it is made of;
* any other row (cage sums, arrows, sums along lines, ...) is propagated by bounds: its least and
  greatest activity over the candidates left remove a digit that would break it; its cells in one
  house bounded together (exclusion groups), and made exact once two or three cells are open.

A killer's cages also give the rows they imply over whole houses, its innies and outies and hidden
cages (:mod:`pipeline.solvers.dfsrules_innies`): redundant, so no answer changes, but the bench's
killers need 50 nodes where they needed 14,450.

Sandwich clues (:data:`HANDLED_KINDS`) skip their rows: the kernel's handler of their own takes
each line's cells, its sum and the digit sets that can make it (their big-M rows bound too little).
So do skyscraper clues, whose rows reach auxiliary columns (each cell seen or not): the handler
keeps each line arc consistent, on lines of the grid's ``n`` cells and ``n`` values
(:mod:`pipeline.solvers.dfsrules_lines`), and the answer's vector gets those columns from its grid.
So do lunchboxes (:mod:`pipeline.solvers.dfsrules_lunchbox`), all but their distinct digits' rows.
Counting circles and count-distinct clues skip theirs too (rows with auxiliary columns): their
handlers (:mod:`pipeline.solvers.dfsrules_counting`) read each rule's cells, for values ``1..N``.
So do sum lines (:mod:`pipeline.solvers.dfsrules_sumline`), their automaton columns filled from the grid,
and automaton and regex lines (:mod:`pipeline.solvers.dfsrules_automaton`: one accepting run's columns),
and hidden skyscraper clues (:mod:`pipeline.solvers.dfsrules_hidden`: rows over cell digits, left out).
Global entropy and global mod keep their rows, and a handler beside them
(:mod:`pipeline.solvers.dfsrules_windows`) keeps each 2x2 window's classes consistent and a class's
one digit left out of the cells seeing each of its places (so their implied rows are left out).

Unit rules (windoku, a diagonal, extra regions) are units of the puzzle (hidden singles). A model
with other columns beyond the cell/digit variables (auxiliary columns), a gattai layout, or a grid
above 64x64 is refused with one line (``model_problem``), and ``--solver auto`` passes it to the
next engine of its row (the SAT engine).

The kernel is kept as machine code (:mod:`pipeline.solvers.dfsrules_native`), so a process loads
it without importing numba.
"""
from __future__ import annotations

import functools
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipeline.core.build import Model
from pipeline.core.decode import vector_from_grid
from pipeline.core.errors import SolveError
from pipeline.core.extras import install_hint
from pipeline.core.options import time_limit_bound
from pipeline.core.puzzle import Puzzle, shape_cache
from pipeline.core.rulerows import kind_blocks
from pipeline.core.rules.rowblocks import ragged_positions, run_starts
from pipeline.solvers import dfsrules_native
from pipeline.solvers.base import (CountResult, GiveUp, Solver, SolveResult, register_solver, solve_without_give_up,
                                   wide_values_problem, without_give_up)
from pipeline.core.combined_sums import combined_sum_rows
from pipeline.solvers.dfsrules_automaton_rows import AUTOMATON_KINDS, NFA_AT, automaton_tables
from pipeline.solvers.dfsrules_counttables import CNT_AT, COUNTING_KINDS, counting_tables
from pipeline.solvers.dfsrules_hidden_rows import HID_AT, hidden_tables
from pipeline.solvers.dfsrules_innies import implied_rule_rows, implied_sum_rows
from pipeline.solvers.dfsrules_lines import handled_aux_values, handled_problem, line_tables
from pipeline.solvers.dfsrules_lunchbox_rows import lunchbox_rows, lunchbox_tables
from pipeline.solvers.dfsrules_pointing import (MAX_POINTING_CELLS, house_intersections, pointing,
                                                value_exclusions)
from pipeline.solvers.dfsrules_sumline_rows import sumline_priorities, sumline_scratch, sumline_tables
from pipeline.solvers.dfsrules_rows import core_tables, equal_only, exclusion_groups, shared_tables, term_pairs, unit_masks
from pipeline.solvers.dfsrules_windows_rows import WIN_AT, WINDOW_BY_RATIO, WINDOW_KINDS, window_tables
from pipeline.solvers.dfsrules_decided_rows import DEC_AT, decided_tables, only_decided
from pipeline.solvers.dfs import (COUNT_LIMIT_MAX, FOUND_BUFFER, MAX_DFS_N, MAX_SLICE_NODES, SLICE_NODES, SLICE_SECONDS, WHOLE, Search,
                                  ShapeTables, _import_problem, grids_of, shape_tables, start_masks, tree_searched)

__all__ = ["KNOWN_KINDS", "RuleTables", "count", "model_problem", "rule_terms", "rule_tables", "search_model", "solve"]

#: Pair tables get a support lookup (:meth:`RuleTables.with_support_lookup`) up to this many digits
LOOKUP_DIGITS = 9
#: and this many entries in all (256 KiB).
LOOKUP_ENTRIES = 1 << 15
#: Slots of ``rint``'s header (:data:`pipeline.solvers.dfsrules_kernel.HEADER`, not imported: numba).
_HEADER = DEC_AT + 2
#: The kernel's branching by conflicts per candidate and houses' digits of two places (``rint``'s
#: ``by_ratio``) for every puzzle: first for killers only, then for all (session 34), where it
#: finishes the three zero-given published thermometer puzzles that the fewest candidates left
#: past 20 s (7.7, 10.6 and 0.23 s) and no family of the bench's 240 does worse (non-consecutive
#: 133,122 -> 122,618 nodes, zipper 25,562 -> 19,850).
BY_RATIO = True
#: Rule kinds whose puzzles branch by conflicts per candidate from two candidates up (as the window
#: rules', :data:`WINDOW_BY_RATIO`, and ISS's candidate selector): zipper lines, where the fewest
#: candidates first searched 2-12x ISS's trees. The bench's ten zipper puzzles 7,020 -> 3,428 nodes,
#: with two held-out sets' twenty 36,116 -> 10,206 (ISS 6,282; held-out 6200's slowest 14,223 -> 1,429).
#: Then by a per-family sweep (``by_ratio`` 2 forced against as before), the kinds whose nodes fell
#: on the bench, held-out seeds 5100 and 6200 and then 7700 and 8800, no set's max rising: renban,
#: arrow, region sum, little killer, value indexing and equal sum (their sixty on the bench 16,898
#: -> 8,048 nodes, on the four held-out sets' 240 71,556 -> 36,312). Not sum lines, though they fell
#: most (held-out 8800's 148,950 -> 24,296): ISS's published "Sum lines - single line" went 167,785
#: nodes -> past 2.5 million (0.5 s -> past 60 s). Lockout, double arrow and equality cage too:
#: their totals fell on all five sets (their 150 puzzles 50,714 -> 24,692 nodes) and their max over
#: the fifty fell (1,931 -> 897, 5,601 -> 1,895, 467 -> 263), though a set's own max rose on one or
#: two (lockout 8800's 609 -> 897).
RATIO_FROM_TWO_KINDS = frozenset({"zipper", "renban", "arrow", "regionsum", "littlekiller", "valueindexing",
                                  "equalsum", "lockout", "doublearrow", "equalitycage"})
#: Rule kinds the kernel propagates with a handler of their own instead of their rows.
HANDLED_KINDS = frozenset({"sandwich", "skyscraper", "lunchbox", "sumline", "hiddenskyscraper", *AUTOMATON_KINDS}) | COUNTING_KINDS
#: An empty part of ``rint`` (the intersections of a puzzle without digit sets), shared read-only.
_EMPTY = np.zeros(0, dtype=np.int64)
_EMPTY.flags.writeable = False


@dataclass(frozen=True)
class RuleTables:
    """A model's rule rows as the kernel takes them: ``rint`` (header and integer tables),
    ``compat`` (pair tables), the start masks' restriction ``allowed`` (``(cells,)`` ``uint64``),
    ``infeasible`` (a row that no grid can satisfy), and the sizes for the scratch."""

    rint: np.ndarray
    compat: np.ndarray
    allowed: np.ndarray
    infeasible: bool
    n_lin: int
    n_terms: int
    n_pairs: int
    n_sand: int = 0
    n: int = 0
    n_units: int = 0
    n_sky: int = 0
    #: the pointing tables once built (:meth:`with_pointing`; a batch's records of one rule set share them)
    _pointing: dict = field(default_factory=dict, compare=False, repr=False)
    #: each linear-row term's exclusion group once built (:meth:`with_groups`)
    _groups: dict = field(default_factory=dict, compare=False, repr=False)

    def with_support_lookup(self) -> tuple[np.ndarray, np.ndarray]:
        """``rint`` and ``compat`` with each distinct pair table also as its support of every
        candidate mask (entry ``m``: the digits some digit of ``m`` allows), read by the kernel in
        one load instead of a loop over ``m``'s digits (non-consecutive: 7% faster a node). Built
        for searches that last (:func:`search_model`): about 0.05 ms a 9x9, a twentieth of a
        simple puzzle's whole search. Unchanged tables when the lookup would be large (above
        :data:`LOOKUP_DIGITS` digits or :data:`LOOKUP_ENTRIES` entries).

        Returns
        -------
        tuple of numpy.ndarray
            ``(rint, compat)``.
        """
        n = self.n
        if not self.n_pairs or n > LOOKUP_DIGITS or only_decided(self.rint):   # anti-taxicab: no table read
            return self.rint, self.compat
        rint = self.rint
        n_arcs, arc_table_at = int(rint[4]), int(rint[7])
        arc_table = rint[arc_table_at:arc_table_at + n_arcs]
        tables = self.compat[:2 * self.n_pairs * n].reshape(-1, n)
        # the distinct tables: sorted by a hash of their rows, equal neighbours checked
        key = (tables * (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))).sum(axis=1)
        order = np.argsort(key, kind="stable")
        rows = tables[order]
        new = run_starts(key[order])
        if np.any(rows[1:][~new[1:]] != rows[:-1][~new[1:]]):   # a hash collision: every table its own
            new[:] = True
        distinct = rows[new]
        size = 1 << n
        if distinct.shape[0] * size > LOOKUP_ENTRIES:
            return self.rint, self.compat
        of_table = np.empty(tables.shape[0], dtype=np.int64)
        of_table[order] = np.cumsum(new) - 1
        support = np.zeros((distinct.shape[0], size), dtype=np.uint64)
        for d in range(n):   # the masks with highest digit d: those below it, or d's row
            support[:, 1 << d:2 << d] = support[:, :1 << d] | distinct[:, d:d + 1]
        rint = rint.copy()
        rint[arc_table_at:arc_table_at + n_arcs] = self.compat.size + of_table[arc_table] * size
        rint[24] = 1
        n_cells, shared_at = int(rint[0]), int(rint[36])
        rint[shared_at:shared_at + n_cells] = shared_tables(rint[int(rint[5]):int(rint[5]) + n_cells + 1],
                                                             rint[arc_table_at:arc_table_at + n_arcs],
                                                             equal_only(tables, n)[arc_table])
        return rint, np.concatenate([self.compat, support.reshape(-1)])

    def with_pointing(self, rint: np.ndarray, units: ShapeTables) -> np.ndarray:
        """``rint`` (this one's, or its support lookup's) with the tables of pointing through pair
        relations after it (:mod:`pipeline.solvers.dfsrules_pointing`; header slots 32-34), for
        searches that last (:func:`search_model`): 0.1-0.35 ms a 9x9, half a simple puzzle's whole
        solve, so built once per rule set and kept here. ``rint`` itself where the rule does not
        apply (no pair relation that takes more than the equal digit, or a grid above
        :data:`pipeline.solvers.dfsrules_pointing.MAX_POINTING_CELLS` cells). Where every pair
        table is the same one relation (non-consecutive, entropic, modular, lockout, whisper) and the
        kernel's full locked candidates are off, the tables hold locked candidates of a digit's two
        places too (``houses``; on 'Bicycle race', a thermometer puzzle, they took the tree 133,693
        -> 1,518,883 nodes, so not for every puzzle).

        Parameters
        ----------
        rint : numpy.ndarray
            :attr:`rint`, or the first array :meth:`with_support_lookup` returns.
        units : ShapeTables
            The shape's tables.

        Returns
        -------
        numpy.ndarray
        """
        if not self.n_units:
            return rint
        n_cells, arc_ptr_at, arc_other_at, n_arcs = int(rint[0]), int(rint[5]), int(rint[6]), int(rint[4])
        if "tables" not in self._pointing:
            n = self.n
            tables = self.compat[:2 * self.n_pairs * n].reshape(-1, n)
            apart = (~np.left_shift(np.uint64(1), np.arange(n, dtype=np.uint64))) & np.uint64((1 << n) - 1)
            plain = np.all(tables == apart, axis=1)   # the table allows every digit but the equal one
            arc_table = self.rint[int(self.rint[7]):int(self.rint[7]) + n_arcs]   # the tables' own numbers
            self._pointing["tables"] = pointing(units, rint[arc_ptr_at:arc_ptr_at + n_cells + 1],
                                                rint[arc_other_at:arc_other_at + n_arcs], plain[arc_table],
                                                arc_table, tables, n,
                                                houses=bool(self.rint[25] == 0 and np.all(tables == tables[:1])))
        ptr, packed = self._pointing["tables"]
        if not packed.size:
            return rint
        out = np.concatenate([rint, ptr, packed])
        out[32:35] = rint.size, rint.size + ptr.size, packed.size
        return out

    def with_groups(self, rint: np.ndarray, units: ShapeTables) -> np.ndarray:
        """``rint`` (this one's or one derived from it) with each linear-row term's exclusion group
        filled in (:func:`pipeline.solvers.dfsrules_rows.exclusion_groups`; header slot 35), for
        searches that last (:func:`search_model`): 0.1-0.2 ms a 9x9 with sums, about a third of
        a simple killer's whole solve, so built once per rule set and kept here. ``rint`` itself
        where no row has a group.

        Parameters
        ----------
        rint : numpy.ndarray
            :attr:`rint`, or an array :meth:`with_support_lookup` or :meth:`with_pointing` made of it.
        units : ShapeTables
            The shape's tables.

        Returns
        -------
        numpy.ndarray
        """
        if not self.n_lin:
            return rint
        if "groups" not in self._groups:
            lin_ptr = self.rint[int(self.rint[8]):int(self.rint[8]) + self.n_lin + 1]
            term_cell = self.rint[int(self.rint[9]):int(self.rint[9]) + self.n_terms]
            term_coef = self.rint[int(self.rint[10]):int(self.rint[10]) + self.n_terms * self.n].reshape(-1, self.n)
            has_sets = np.diff(self.rint[int(self.rint[15]):int(self.rint[15]) + self.n_lin + 1]) > 0
            self._groups["groups"] = exclusion_groups(units, lin_ptr, term_cell, term_coef, has_sets)
        groups = self._groups["groups"]
        if not (groups >= 0).any():
            return rint
        out = rint.copy()
        at = int(rint[35])
        out[at:at + self.n_terms] = groups
        return out

    def scratch(self, units: ShapeTables) -> np.ndarray:
        """The kernel's ``work`` for a search with these tables (:func:`pipeline.solvers.dfsrules_kernel.search`):
        its scratch (:attr:`work_size` beyond a ring, its flags and the dirty units), then the stack
        rows' shares of the tree (row 0's: the whole, :data:`WHOLE`) and the conflict scores with
        their count (zeros, but each cell's sum lines' lengths: :func:`sumline_priorities`).

        Parameters
        ----------
        units : ShapeTables
            The shape's tables.

        Returns
        -------
        numpy.ndarray
            ``int64``.
        """
        n_cells = self.n * self.n
        work = np.zeros(2 * n_cells + units.units.shape[0] + self.work_size + 2 * (n_cells + 1), dtype=np.int64)
        _tree_shares(work, n_cells)[0] = WHOLE
        work[work.size - n_cells - 1:work.size - 1] = sumline_priorities(self.rint, n_cells)   # zeros without sum lines
        return work

    @property
    def work_size(self) -> int:
        """Scratch entries beyond ``2 * cells + units``: the rows, twice the terms, the ring's
        ends, the sandwich lines, one sandwich's scratch, the houses' intersections, eight per
        term for the exclusion groups (:func:`exclusion_groups`), the skyscraper lines and one
        line's scratch (forward and backward states, ``n + 1`` per cell each, and its digits) and, where
        pointing can apply (:meth:`with_pointing`), its memo: a row per stack row and the row in use."""
        n_cnt = int(self.rint[CNT_AT])   # the counting rules: dirty flags, and a count-distinct clue's scratch
        return self.n_lin + 10 * self.n_terms + 2 + self.n_sand + 4 * (self.n + 1) + int(self.rint[25]) + (
            self.n_sky + self.n * (2 * self.n + 3) if self.n_sky else 0) + (
            1 + (self.n * self.n + 1) * self.n_units if self.n_units else 0) + (
            int(self.rint[46]) + 4 * self.n + 2) + (   # the lunchbox lines' flags and one line's scratch
            n_cnt + 194 + self.n * self.n if n_cnt else 0) + sumline_scratch(self.rint) + (   # then the sum lines'
            int(self.rint[NFA_AT + 3]) + int(self.rint[NFA_AT + 7])) + (   # the automaton lines' flags and one line's scratch
            int(self.rint[HID_AT]) + int(self.rint[HID_AT + 6])) + int(self.rint[WIN_AT])   # the hidden skyscrapers', the windows' flags


#: The rule kinds this engine takes: each held to the SAT engine (counts to 2 on random puzzles with
#: many rules of the kind: tests/solvers/test_dfsrules.py, test_dfsrules_sums.py,
#: test_dfsrules_kinds.py). Any other
#: kind, a rule registered after this list was checked included, is refused in one line
#: (:func:`model_problem`), so ``auto`` hands its puzzles to the SAT engine until the kind is
#: checked and added here. Rules with auxiliary columns are refused apart (their rows are not over
#: cell digits alone), but for those the kernel handles itself (:data:`HANDLED_KINDS`); so are puzzles
#: with more values than the side (``doppelganger``: values 0..N),
#: before their kinds are looked at.
KNOWN_KINDS = frozenset({
    "antiking", "antiknight", "antitaxicab", "arrow", "automaton", "between", "cage", "containatleast", "containexact",
    "countdistinct", "countingcircles", "diagonal",
    "disjointgroups", "doublearrow", "dutchflatmates", "entropic", "equalitycage", "equalsum", "even", "extraregion",
    "globalentropy", "globalmod", "greater", "hiddenskyscraper", "indexing", "kropki", "littlekiller", "lockout",
    "lookandsay", "lunchbox", "modular", "nonconsecutive", "numberedroom", "odd", "pair", "palindrome", "pencilmarks",
    "pillarrow", "quadruple", "regex", "regionsamevalues", "regionsum", "rellik", "renban", "samevalues", "sandwich",
    "skyscraper", "strictkropki", "strictxv", "sum", "sumline", "thermo", "valueindexing", "whisper", "windoku", "xsum",
    "xv", "zipper"})


def model_problem(model: Any) -> str | None:
    """Why ``dfsrules`` does not take ``model`` (None: it does).

    Parameters
    ----------
    model : Model
        The model to solve.

    Returns
    -------
    str or None
        A gattai layout, a grid above 64x64, rows over columns that are not cell/digit
        variables (auxiliary columns), a rule kind outside :data:`KNOWN_KINDS`, or units that
        need not hold every value (the registry entry's ``wide_values`` check, here too so that
        :func:`search_model` refuses such a puzzle in one line).
    """
    puzzle = model.puzzle
    wide = wide_values_problem(model, "dfsrules")
    if wide:
        return wide
    if puzzle.layout is not None:
        return f"dfsrules does not take a {puzzle.layout.name} layout (one grid only)"
    if puzzle.n > MAX_DFS_N:
        return f"dfsrules takes grids up to {MAX_DFS_N}x{MAX_DFS_N}, found {puzzle.n}x{puzzle.n}"
    if puzzle.extra:   # pipeline.core.extracells: digits of cells outside the grid are auxiliary columns
        return "dfsrules propagates the grid's cells only, and the puzzle has extra cells outside the grid"
    aux = sorted({rule.kind for rule in puzzle.rules if hasattr(rule, "aux_columns")} - HANDLED_KINDS)
    handled = handled_problem(puzzle)   # the kernel's handlers' own conditions (values 1..N, ...)
    if handled:
        return handled
    if aux:   # a rule over auxiliary 0-1 columns (pipeline.core.rules.auxcols.AuxRule)
        return f"dfsrules propagates rows over cell digits only, and {', '.join(aux)} add{'s' if len(aux) == 1 else ''} auxiliary columns"
    unknown = sorted({rule.kind for rule in puzzle.rules} - KNOWN_KINDS)
    if unknown:
        return f"dfsrules does not take {', '.join(unknown)} (not among the rule kinds it was checked on)"
    return None


def _set_table(masks: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """``masks`` sorted by (digits, sum of their values), with those keys: ``(masks, keys, low,
    span)``, a key being ``size * span + sum - low``."""
    bits = (masks[:, None] >> np.arange(value.size)) & 1
    sizes, sums = bits.sum(axis=1), bits @ value
    low, span = int(sums.min()), int(sums.max() - sums.min()) + 1
    key = sizes * span + (sums - low)
    order = np.argsort(key, kind="stable")
    return masks[order], key[order], low, span


@functools.lru_cache(maxsize=64)
def _all_sets(values: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int, int]:
    """:func:`_set_table` of every digit set of digits with these ``values``, read-only, made once
    per value list (sorting the 512 sets of a 9x9 was a third of a killer's digit sets)."""
    table = _set_table(np.arange(1 << len(values), dtype=np.int64), np.asarray(values, dtype=np.int64))
    table[0].flags.writeable = table[1].flags.writeable = False
    return table


def _sets_by_size_and_sum(masks: np.ndarray | None, value: np.ndarray, size: np.ndarray,
                          total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The digit sets among ``masks`` (None: every set of ``value.size`` digits) of ``size[i]``
    digits whose values (``value[d]`` for digit ``d``) add up to ``total[i]``, for each ``i``:
    ``(sets, count)``, those of ``i`` consecutive in ``sets`` (``count[i]`` of them)."""
    table = _all_sets(tuple(value.tolist())) if masks is None else _set_table(masks, value)
    ordered, sorted_key, low, span = table
    want = size * span + (total - low)
    first, last = np.searchsorted(sorted_key, want, "left"), np.searchsorted(sorted_key, want, "right")
    count = np.where((total >= low) & (total < low + span), last - first, 0)   # no other size's key
    return ordered[_ranges(first, count)], count


#: Digit sets are enumerated (``2 ** n`` of them) for grids up to this side.
MAX_SET_DIGITS = 12


def _digit_sets(puzzle: Puzzle, units: ShapeTables, lin: np.ndarray, count: np.ndarray, first: np.ndarray,
                g_cell: np.ndarray, coef: np.ndarray, rhs: np.ndarray, eq: np.ndarray, pair_keys: np.ndarray | None,
                forward: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The digit sets (masks) of each linear row that is a sum of distinct digits: an ``=`` row
    whose every cell counts its value once (coefficients ``1..n``) and whose cells are pairwise in
    one unit (``units``, the shape's tables) or kept apart by a pair table; ``(sets of every row in
    order, sets per row)`` (no sets: the row is bounds only)."""
    n = puzzle.n
    per_row = np.zeros(lin.size, dtype=np.int64)
    if not lin.size or n > MAX_SET_DIGITS:
        return np.zeros(0, dtype=np.uint64), per_row
    k = count[lin]
    value = np.arange(1, n + 1)
    groups_ok = (coef == value).all(axis=1)
    row_groups = _ranges(first[lin], k)
    ok_rows = eq[lin] & (k <= n) & (np.bincount(np.repeat(np.arange(lin.size), k), weights=~groups_ok[row_groups],
                                                minlength=lin.size) == 0)
    if not ok_rows.any():
        return np.zeros(0, dtype=np.uint64), per_row
    # distinct: every pair of the row's cells shares a unit or has a pair table without equal digits
    n_cells = n * n
    ti, tj, row_of = term_pairs(first[lin], k)
    x, y = g_cell[ti], g_cell[tj]
    distinct = units.share_unit(x, y)
    if pair_keys is not None and forward is not None:   # pair keys: sorted, lower cell first
        diagonal = np.left_shift(np.uint64(1), np.arange(n, dtype=np.uint64))
        apart = pair_keys[~(forward & diagonal).any(axis=1)]
        if apart.size:
            key = np.minimum(x, y) * n_cells + np.maximum(x, y)
            at = np.minimum(np.searchsorted(apart, key), apart.size - 1)
            distinct |= apart[at] == key
    together = np.bincount(row_of, weights=~distinct, minlength=lin.size) == 0
    ok_rows &= together
    sets, per_row = _sets_by_size_and_sum(None, value, k[ok_rows], rhs[lin][ok_rows])
    counts = np.zeros(lin.size, dtype=np.int64)
    counts[ok_rows] = per_row
    return sets.astype(np.uint64), counts


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``starts[0] .. starts[0] + lengths[0] - 1``, then the next range, ... (one array)."""
    group, within = ragged_positions(lengths)
    return np.asarray(starts, dtype=np.int64)[group] + within


def rule_terms(puzzle: Puzzle, skip: frozenset[str] = frozenset()) -> tuple[np.ndarray, ...]:
    """The rows of ``puzzle``'s rules (the kinds without auxiliary columns) as the rules give them (:meth:`~pipeline.core.rules.base.Rule.rows`),
    over canvas cells and 0-based digits, without labels or a column convention (``Model.R``'s
    rows, in another order).

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.
    skip : frozenset of str
        Rule kinds left out (those the kernel handles itself, :data:`HANDLED_KINDS`).

    Returns
    -------
    tuple of numpy.ndarray
        ``(row, cell, digit, coef)`` per term and ``(rhs, is_equal)`` per row.
    """
    parts: list[tuple[np.ndarray, ...]] = []
    base = 0
    for _, blocks in kind_blocks(puzzle, skip):   # a kind's rules at once, shared with R
        for block in blocks:
            if block.n_rows:
                parts.append((block.row + base, block.cell, block.digit, block.coef, block.rhs,
                              np.full(block.n_rows, block.sense == "E")))
                base += block.n_rows
    if not parts:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, z, z, np.zeros(0, dtype=bool)
    # one block (one kind of rule): its arrays as they are, without copies
    row, cell, digit, coef, rhs, eq = parts[0] if len(parts) == 1 else (np.concatenate(p) for p in zip(*parts))
    return (row.astype(np.int64, copy=False), cell.astype(np.int64, copy=False), digit.astype(np.int64, copy=False),
            coef, rhs, eq.astype(bool, copy=False))


def rule_tables(puzzle: Puzzle, units: ShapeTables | None = None) -> RuleTables:
    """The kernel's tables of ``puzzle``'s rule rows (module docstring), built once for its shape
    and rules (:func:`pipeline.core.puzzle.shape_cache`: a batch's records with the same rules share
    them; the kernel only reads them).

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle whose model :func:`model_problem` accepts.
    units : ShapeTables, optional
        ``shape_tables(puzzle)``, when the caller has it already.

    Returns
    -------
    RuleTables
    """
    cache = shape_cache(puzzle)
    if "dfsrules_tables" not in cache:
        cache["dfsrules_tables"] = _build_rule_tables(puzzle, units)
    return cache["dfsrules_tables"]


def _build_rule_tables(puzzle: Puzzle, units: ShapeTables | None = None, implied: bool = True) -> RuleTables:
    n = puzzle.n
    units = units or shape_tables(puzzle)
    n_cells = n * n
    row, cell, digit, value, rhs, eq = rule_terms(puzzle, HANDLED_KINDS)
    # a killer's innies and outies: rows its cages imply, that cut its search (14,450 -> 120 nodes
    # on the bench's ten killers); ``implied=False`` for the rules' own rows alone
    # and sums little killers imply together (ISS's combined sums: 'Zero solution: Little Killer'
    # proved in 6,047 nodes where more than a million did not finish)
    # and the rows other rules imply, but the window rules' at most two of a class (their handler holds
    # it: the same nodes, 17% less time on the bench's twenty)
    for more in (implied_sum_rows(puzzle), combined_sum_rows(puzzle, units),
                 implied_rule_rows(puzzle, WINDOW_KINDS)) if implied else ():
        if more is not None:
            row, cell, digit, value, rhs, eq = (np.concatenate([a, b]) for a, b in
                                                zip((row, cell, digit, value, rhs, eq), (more[0] + rhs.size, *more[1:])))
    distinct = lunchbox_rows(puzzle)   # a lunchbox's distinct digits (its handler takes the rest)
    if distinct is not None:
        row, cell, digit, value, rhs, eq = (np.concatenate([a, b]) for a, b in
                                            zip((row, cell, digit, value, rhs, eq), (distinct[0] + rhs.size, *distinct[1:])))
    if rhs.dtype.kind == "f" or value.dtype.kind == "f":   # rows of integers need no check
        if np.any(rhs != np.round(rhs)) or np.any(value != np.round(value)):
            raise SolveError("solver dfsrules: a rule row has a fractional coefficient (its tables hold integers)")
        rhs = np.round(rhs)
        value = np.round(value)
    rhs = rhs.astype(np.int64)
    value = value.astype(np.int64)
    # terms sorted by row, cell, digit: a row's terms and a (row, cell)'s terms are contiguous
    key = (row * n_cells + cell) * n + digit
    if key.size > 1 and np.any(key[1:] < key[:-1]):
        order = np.argsort(key, kind="stable")
        row, cell, digit, value = row[order], cell[order], digit[order], value[order]
    core = core_tables(row, cell, digit, value, rhs, eq, n, units, dfsrules_native.load())
    n_pairs, n_lin, n_terms = int(core.keys.size), int(core.lin_rhs.size), int(core.term_cell.size)
    # sums of distinct digits (killer cages): each row's digit sets, after the pair tables
    lin_count = np.diff(core.lin_ptr)
    combos, combo_count = _digit_sets(puzzle, units, np.arange(n_lin), lin_count, core.lin_ptr[:-1], core.term_cell,
                                      core.term_coef, core.lin_rhs, core.lin_eq, core.keys if n_pairs else None,
                                      core.compat.reshape(-1, 2, n)[:, 0] if n_pairs else None)
    combo_ptr = np.empty(n_lin + 1, dtype=np.int64)
    combo_ptr[0] = core.compat.size
    np.cumsum(combo_count, out=combo_ptr[1:])
    combo_ptr[1:] += core.compat.size
    sand_cells, sand_sum, cell_sand_ptr, cell_sand = line_tables(puzzle, "sandwich")
    sky_cells, sky_clue, cell_sky_ptr, cell_sky = line_tables(puzzle, "skyscraper")
    sand_sets, sand_sets_ptr = _sandwich_sets(puzzle, sand_sum)
    sand_sets_ptr = sand_sets_ptr + (core.compat.size + combos.size)
    n_cnt, cnt_parts, cnt_sets = counting_tables(puzzle, units)   # counting circles, count-distinct clues
    cnt_parts[4] = cnt_parts[4] + (core.compat.size + combos.size + sand_sets.size)
    compat = np.concatenate([core.compat, combos, sand_sets, cnt_sets]) if combos.size or sand_sets.size or \
        cnt_sets.size else core.compat
    parts = [core.arc_ptr, core.arc_other, core.arc_table, core.lin_ptr, core.term_cell, core.term_coef.ravel(),
             core.lin_rhs, core.lin_eq, core.cell_lin_ptr, core.cell_lin, combo_ptr,
             sand_cells, sand_sum, puzzle.board.value_of[:n], cell_sand_ptr, cell_sand, sand_sets_ptr]
    # locked candidates for killers (sums of distinct digits), where with the kernel's branching for
    # killers they finish 10 of ISS's 14 MATHEMAGIC killers in 10 s (1 before), and for value-dependent
    # exclusions (anti-taxicab: ISS's PerfectAllDifferentValueExclusion takes a digit from the cells
    # both its places exclude, the shared houses too; the bench's ten 56,920 -> 42,154 nodes); elsewhere
    # they cost more a node than they save (the bench set 10-15% slower); and for windows (WINDOW_BY_RATIO)
    pair_tables = core.compat[:2 * n_pairs * n].reshape(-1, n)
    win_parts, n_win = window_tables(puzzle)   # global entropy and global mod windows (their handler, beside their rows)
    locked = combos.size > 0 or n_win > 0 or value_exclusions(pair_tables, n)
    if locked:
        n_inter, *inter_parts = house_intersections(units)
    else:
        n_inter, inter_parts = 0, [_EMPTY, _EMPTY, np.zeros(n_cells + 1, dtype=np.int64), _EMPTY]
    parts += inter_parts
    parts.append(core.term_order)   # each term's coefficients rising (1), falling (-1) or neither (0)
    parts.append(np.full(n_terms, -1, dtype=np.int64))   # exclusion groups: for searches that last (with_groups)
    parts.append(cell_table := shared_tables(core.arc_ptr, core.arc_table, equal_only(pair_tables, n)[core.arc_table]
                                             if n_pairs else None))   # each cell's one table of all its arcs, or -1
    parts.append(unit_masks(units))   # each cell's units as a mask (up to 64 units)
    parts += [sky_cells, sky_clue, cell_sky_ptr, cell_sky]   # skyscraper lines (the kernel's handler)
    lunch_ptr, lunch_cells, lunch_sum, cell_lunch_ptr, cell_lunch = lunchbox_tables(puzzle)
    parts += [lunch_ptr, lunch_cells, lunch_sum, cell_lunch_ptr, cell_lunch]   # lunchbox lines (its handler)
    parts += cnt_parts
    n_sum, sum_parts = sumline_tables(puzzle)   # sum lines (their handler)
    parts += sum_parts
    nfa_parts, n_nfa, nfa_scratch = automaton_tables(puzzle)   # automaton and regex lines (their handler)
    parts += nfa_parts
    hid_parts, n_hid, hid_scratch = hidden_tables(puzzle)   # hidden skyscraper lines (their handler)
    parts += hid_parts
    parts += win_parts + decided_tables(core.arc_ptr, core.arc_other, core.arc_table, cell_table, pair_tables, n)
    from_two = any(rule.kind in RATIO_FROM_TWO_KINDS for rule in puzzle.rules)
    # one array: the header, then each part where the header says (offsets as Python ints: the
    # numpy steps of a concatenation were a tenth of a simple puzzle's tables)
    offsets = list(itertools.accumulate((p.size for p in parts), initial=_HEADER))
    rint = np.empty(offsets[-1], dtype=np.int64)
    rint[:_HEADER] = (n_cells, n, n_lin, n_terms, core.arc_other.size, *offsets[:16], sand_sum.size, offsets[16],
                      n <= MAX_SET_DIGITS, 0, n_inter, *offsets[17:22], WINDOW_BY_RATIO if n_win or from_two else BY_RATIO, 0, 0, 0, *offsets[22:29], sky_clue.size,
                      *offsets[29:32], lunch_sum.size, *offsets[32:34], n_cnt, *offsets[34:41], n_sum,
                      *offsets[41:47], *offsets[47:50], n_nfa, *offsets[50:53], nfa_scratch,
                      n_hid, *offsets[53:58], hid_scratch, n_win, *offsets[58:64])
    np.concatenate(parts, out=rint[_HEADER:], casting="unsafe")   # each part where the header says, in one call
    return RuleTables(rint, compat if compat.size else np.zeros(1, dtype=np.uint64),
                      core.allowed, core.infeasible, n_lin, n_terms, n_pairs, int(sand_sum.size), n,
                      units.units.shape[0] if core.arc_other.size and n_cells <= MAX_POINTING_CELLS else 0,
                      int(sky_clue.size))


def _sandwich_sets(puzzle: Puzzle, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each sandwich line and each count ``m`` of cells between its ends (``0 .. n - 2``),
    the sets of ``m`` digits strictly between the 1 and the ``N`` whose values add up to its sum
    (masks), up to :data:`MAX_SET_DIGITS` digits; ``(sets, pointers)``, line ``s``'s sets of
    ``m`` digits at ``sets[ptr[s * (n - 1) + m]:ptr[s * (n - 1) + m + 1]]``."""
    n = puzzle.n
    if n > MAX_SET_DIGITS or not sums.size:
        return np.zeros(0, dtype=np.uint64), np.zeros(sums.size * (n - 1) + 1, dtype=np.int64)
    inside = np.arange(1 << (n - 2), dtype=np.int64) << 1   # masks of digits 2 .. N-1
    sets, counts = _sets_by_size_and_sum(inside, puzzle.board.value_of[:n], np.tile(np.arange(n - 1), sums.size),
                                         np.repeat(sums, n - 1))
    return sets.astype(np.uint64), np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _tree_shares(work: np.ndarray, n_cells: int) -> np.ndarray:
    """The stack rows' shares of the tree in the kernel's ``work`` (a view, one per stack row): just
    before the conflict scores, where the kernel's ``_mass_at`` finds them.

    Parameters
    ----------
    work : numpy.ndarray
        :meth:`RuleTables.scratch`'s array.
    n_cells : int
        Cells of the grid.

    Returns
    -------
    numpy.ndarray
    """
    return work[work.size - 2 * n_cells - 2:work.size - n_cells - 1]

#: Nodes after which a search that found nothing yet starts again from its root, probed first
#: (:func:`pipeline.solvers.dfsrules_kernel._probe`): most puzzles finish well before, and pay nothing.
PROBE_AFTER = 300
#: The probe stops after this many tries per cell in a row that removed nothing.
PROBE_IDLE_PER_CELL = 2


def search_model(model: Model, limit: int, *, keep: int = 1, time_limit: float | None = None,
                 probe_after: int | None = PROBE_AFTER, give_up: GiveUp | None = None) -> Search:
    """``model``'s search with its rule rows, in node-budget slices (as :func:`pipeline.solvers.dfs.search_puzzle`).

    Parameters
    ----------
    model : Model
        The puzzle and its rule rows.
    limit : int
        Stop at this many solutions.
    keep : int
        Keep the grids of the first ``keep`` solutions.
    time_limit : float, optional
        Seconds; the status is ``time_limit`` when the search was stopped by it.
    probe_after : int, optional
        Nodes after which a search that has found nothing starts again with its root probed
        (0: probe from the start; None: never).
    give_up : callable, optional
        Asked between slices (:class:`~pipeline.solvers.base.GiveUp`): the solutions found, the
        seconds spent and the share of the tree searched, from the shares the kernel keeps per
        stack row (:data:`WHOLE` at the root; what is left on the stack is the tree not yet searched).

    Returns
    -------
    Search
    """
    start = time.perf_counter()
    problem = _import_problem() or model_problem(model)
    if problem:
        raise SolveError(f"solver dfsrules: {problem}")
    deadline = None if time_limit is None else start + time_limit
    limit = min(limit, COUNT_LIMIT_MAX)   # the kernel's int64: 2**63 wrapped to a "complete" count of 1
    puzzle = model.puzzle
    tables = shape_tables(puzzle)
    rules = rule_tables(puzzle, tables)
    compiled = dfsrules_native.load()
    n_cells = tables.n * tables.n
    stack = np.empty((n_cells + 1, n_cells), dtype=np.uint64)
    flags = np.zeros((n_cells + 1, n_cells), dtype=np.bool_)
    origins = np.full(n_cells + 1, -1, dtype=np.int64)
    stack[0] = start_masks(np.asarray(puzzle.grid).reshape(1, n_cells), tables.n)[0] & rules.allowed
    work = rules.scratch(tables)
    shares = _tree_shares(work, n_cells)
    found = np.zeros((max(min(keep, FOUND_BUFFER), 1), n_cells), dtype=np.uint64)
    tallies = np.zeros(3, dtype=np.int64)
    grids: list[np.ndarray] = []
    if rules.infeasible:
        return Search(0, grids, "complete", 0, time.perf_counter() - start)
    first = stack[0].copy()
    probe_idle = PROBE_IDLE_PER_CELL * n_cells
    # probe_after nodes without a probe first (0: the probe at once), then the rest of the search
    probe, reprobe = (probe_idle, None) if probe_after == 0 else (0, probe_after)
    depth, budget, status = 1, SLICE_NODES if reprobe is None else min(SLICE_NODES, reprobe), ""
    rint, compat, looked_up = rules.rint, rules.compat, False
    while True:
        slice_start, nodes_before = time.perf_counter(), int(tallies[1])
        depth = compiled.search(stack, flags, origins, depth, found, tallies, tables, rint, compat, limit,
                                budget, keep > found.shape[0], work, probe)
        if depth != compiled.FINISHED and not looked_up:   # a search that lasts: lookup, pointing and groups pay
            rint, compat, looked_up = *rules.with_support_lookup(), True
            rint = rules.with_groups(rules.with_pointing(rint, tables), tables)
        if reprobe is not None and depth != compiled.FINISHED and tallies[0] == 0:
            # still open and nothing found: the nodes so far are dropped, the root is probed
            stack[0], flags[0], origins[0], shares[0] = first, False, -1, WHOLE
            depth, probe, reprobe = 1, probe_idle, None
            continue
        reprobe = None
        stored = int(tallies[2])
        if stored and len(grids) < keep:
            grids.extend(g.reshape(tables.n, tables.n) for g in grids_of(found[:min(stored, keep - len(grids))]))
            tallies[2] = 0
        if depth == compiled.FINISHED:
            status = "limit" if tallies[0] >= limit else "complete"
            break
        now = time.perf_counter()
        if deadline is not None and now >= deadline or give_up is not None and give_up(
                int(tallies[0]), now - start, tree_searched(shares, depth)):
            status = "time_limit"
            break
        spent = int(tallies[1]) - nodes_before
        if spent >= budget:
            rate = spent / max(now - slice_start, 1e-6)
            want = SLICE_SECONDS if deadline is None else min(SLICE_SECONDS, deadline - now)
            budget = int(min(max(rate * want, 1_000), 4 * budget, MAX_SLICE_NODES))
    return Search(int(tallies[0]), grids, status, int(tallies[1]), time.perf_counter() - start)


def solve_or_give_up(model: Model, *, time_limit: float | None = None, check_unique: bool = False,
                     give_up: GiveUp | None = None) -> SolveResult:
    """Solve ``model`` (clues, units and rule rows) by search.

    Parameters
    ----------
    model : Model
        A model :func:`model_problem` accepts.
    time_limit : float, optional
        Seconds; ``time_limit`` status when reached.
    check_unique : bool
        Search on past the first solution: ``unique`` says whether it is the only one.
    give_up : callable, optional
        Asked between slices with the solutions found, the seconds spent and the share of the
        tree searched (:class:`~pipeline.solvers.base.GiveUp`); True stops the search as the time
        limit would.

    Returns
    -------
    SolveResult
    """
    found = search_model(model, 2 if check_unique else 1, time_limit=time_limit, give_up=give_up)
    if not found.grids:
        status = "time_limit" if found.status == "time_limit" else "infeasible"
        return SolveResult(status, None, None, found.seconds, found.nodes, solver="dfsrules")
    grid = found.grids[0]
    unique = None if not check_unique or found.status == "time_limit" else found.count == 1
    x = vector_from_grid(grid, model.convention)
    if model.n_aux:   # the columns of the kinds the kernel handles (model_problem takes no other), from the grid
        x = np.concatenate([x, handled_aux_values(model.puzzle, grid, model.aux_names)])
    return SolveResult("optimal", x[model.columns], 0.0, found.seconds, found.nodes, grid=grid, solver="dfsrules",
                       unique=unique)


#: the registered solve (the options a user may pass): :func:`solve_or_give_up` without ``give_up``
solve = solve_without_give_up(solve_or_give_up)


def count_or_give_up(model: Model, limit: int = 2, *, time_limit: float | None = None, keep: int | None = None,
                     give_up: GiveUp | None = None) -> CountResult:
    """Count ``model``'s solutions up to ``limit``, keeping the grids of the first ``keep``.

    Parameters
    ----------
    model : Model
        A model :func:`model_problem` accepts.
    limit : int
        Stop at this many solutions.
    time_limit : float, optional
        Seconds; ``time_limit`` status (the count is then a lower bound).
    keep : int, optional
        Keep the grids of the first ``keep`` solutions only (default: all, up to ``limit``).
    give_up : callable, optional
        As :func:`pipeline.solvers.dfs.search_puzzle` takes it.

    Returns
    -------
    CountResult
    """
    if limit < 1:
        raise SolveError(f"count: --limit must be at least 1, found {limit}")
    found = search_model(model, limit, keep=limit if keep is None else min(keep, limit), time_limit=time_limit,
                         give_up=give_up)
    return CountResult(found.count, found.grids, found.status, found.seconds)


#: the registered count (the options a user may pass): :func:`count_or_give_up` without ``give_up``
count = without_give_up(count_or_give_up)


register_solver(Solver(
    name="dfsrules", description="dfs with the rule rows propagated in the search (pairs, bounds), numba-compiled",
    solve=solve, count=count, count_or_give_up=count_or_give_up, solve_or_give_up=solve_or_give_up,
    available=_import_problem, install_hint=install_hint("fast"), start_problem=dfsrules_native.start_problem, statuses={"complete": "optimal", "time_limit": "time_limit"},
    proves_unique=True,
    timed_call="the compiled search", rule_rows=True, rows_not_built=HANDLED_KINDS, model_problem=model_problem, needs_model=True,
    wide_values=False, bounds={"time_limit": time_limit_bound()}))
