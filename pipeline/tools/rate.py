"""Rate a puzzle by the human techniques a solver needs, over the variant's units.

The ladder (easiest first): naked single, hidden single, locked candidates (pointing, claiming),
naked pair, hidden pair, naked triple, hidden triple, X-wing; when none applies, a guess: the
unsolved cell with fewest candidates takes its digit in a solution found by a solver first (the
registry's ``count`` engine, :func:`pipeline.solvers.auto.auto_count`). A guess is a bifurcation
a person resolves by trial; the rater counts them, and it never explores a wrong branch: every
technique is sound, so the solution's digit is still a candidate, and the work is one ladder
pass per step (a minimal 25x25 is rated in seconds; trial-and-error guessing with the whole
ladder at every node ran without end there).
Every technique works on the unit families of :meth:`pipeline.core.puzzle.Puzzle.unit_families`, so
any N, box shape and variant (regions, diagonals, units added by rules such as windoku windows, a
samurai layout's grids) is rated by the same code. Candidates are a numpy boolean array (canvas
cells, digits); the checks, the singles and locked candidates (every pair of overlapping units
at once) are array operations, the subsets enumerate small combinations.

Rules beyond units (killer cages, anti-knight, thermometers, ...) add the technique ``rule``
(after the singles): the bounds of one rule row under the current candidates
(:mod:`pipeline.core.rules.bounds`: a cage's sum arithmetic, a placed digit's anti-knight or
non-consecutive neighbours, a thermometer's too small or too large digits), removing what that
row rules out; its step names the rule. Killer cages add two more, as killer solvers reason:
``cage combination`` (easy; :func:`cage_fillings`: a cell keeps the digits some filling of the
cage with distinct digits making its sum gives it, and a digit every filling needs whose places
in the cage lie in one unit leaves that unit's other cells) and the ``45 rule`` (medium: a unit,
or rows or columns side by side, holds each digit once per unit, so its cells outside the cages
wholly inside it, and the cells outside it of the cages covering it, are virtual cages of a known
sum). Every check also refuses candidates under which a rule row cannot hold, so no step
contradicts a rule, a guess that breaks one is undone, and the final grid satisfies every rule.
Where nothing applies the rater guesses, and the guesses are counted and listed like any other
puzzle's.

With several solutions the steps reach the one the solver found (``Rating.unique`` is False, and
the text says so); with none, the rater stops at its first guess (``solved`` False).

The singles are :mod:`pipeline.core.propagate`'s rules (:func:`~pipeline.core.propagate.naked_single_cells`,
:func:`~pipeline.core.propagate.hidden_single_places` say where they apply); the rater places one
at a time, the first in cell (naked) or unit-then-digit (hidden) order, because its output is the
list of steps: the kernel's rounds, which place every single at once, would change that list.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.core.propagate import hidden_single_places, naked_single_cells
from pipeline.core.puzzle import Puzzle
from pipeline.core.rules import Cage
from pipeline.core.rules.cages import disjoint_cages
from pipeline.core.rules.bounds import RuleBounds, rule_bounds, rule_terms
from pipeline.core.verify import digit_array, unit_repeats, verify_grid
from pipeline.solvers.auto import auto_count

#: the ladder, easiest first; ``rule`` (bounds of one rule row) only for puzzles with rules beyond units.
TECHNIQUES = ("naked single", "hidden single", "rule", "cage combination", "pointing", "claiming", "45 rule",
              "naked pair", "hidden pair", "naked triple", "hidden triple", "x-wing", "guess")
LABELS = {"naked single": "easy", "hidden single": "easy", "rule": "easy", "cage combination": "easy",
          "pointing": "medium", "claiming": "medium", "45 rule": "medium",
          "naked pair": "medium", "hidden pair": "medium", "naked triple": "hard", "hidden triple": "hard",
          "x-wing": "hard", "guess": "expert"}
#: rating labels, easiest first (``generate --difficulty``).
DIFFICULTIES = ("easy", "medium", "hard", "expert")


@dataclass
class Step:
    """One deduction: ``digit`` placed in ``cells[0]``, or ``removed`` (r, c, digit) candidates;
    ``rule`` names the rule a ``rule`` step used (``cage r1c1..r1c2 (sum 3)``)."""

    technique: str
    cells: list  # [(r, c)] 0-based cells the technique is about
    digit: int | None = None  # 1-based digit placed (singles, guess)
    removed: list = field(default_factory=list)  # [(r, c, digit)] 0-based cell, 1-based digit
    rule: str | None = None

    def to_dict(self) -> dict:
        d = {"technique": self.technique, "cells": [list(map(int, c)) for c in self.cells],
             "digit": self.digit, "removed": [list(map(int, x)) for x in self.removed]}
        if self.rule is not None:
            d["rule"] = self.rule
        return d

    def text(self) -> str:
        where = " ".join(f"r{r + 1}c{c + 1}" for r, c in self.cells)
        if self.digit is not None:
            return f"{self.technique}: {where} = {self.digit}"
        gone = ", ".join(f"r{r + 1}c{c + 1}<>{d}" for r, c, d in self.removed)
        return f"{self.technique}: {where} => {gone}" + (f" ({self.rule})" if self.rule else "")


@dataclass
class Rating:
    """Hardest technique needed, counts per technique, guesses, a label; ``solved`` False: none."""

    hardest: str | None
    counts: dict
    guesses: int
    label: str
    solved: bool
    steps: list
    solution: np.ndarray | None
    #: True: the only solution; False: one of several (the steps reach it); None: not asked
    #: (the caller gave the solution) or no solution.
    unique: bool | None = None

    def to_dict(self, brief: bool = False) -> dict:
        d: dict[str, Any] = {"hardest": self.hardest, "label": self.label, "guesses": self.guesses, "counts": self.counts,
             "solved": self.solved, "unique": self.unique}
        if not brief:
            d["steps"] = [s.to_dict() for s in self.steps]
        return d

    def text(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in self.counts.items() if v)
        # "rule" is counted only for puzzles with rules beyond units: say why the rater guessed there
        why = (" (with rules beyond units the rater guesses where no technique, one rule row at a time, "
               "a cage's combinations or the 45 rule, applies)") if "rule" in self.counts and self.guesses else ""
        if not self.solved:
            return self.label
        if self.hardest is None:
            return f"{self.label} (no step needed: the clues fill the grid)"
        several = "; several solutions: the steps reach one of them" if self.unique is False else ""
        return f"{self.label} (hardest: {self.hardest}; guesses {self.guesses}{why}; {counts}{several})"


class _Contradiction(Exception):
    pass


#: The 45 rule's virtual cages over cells of several units (digits may repeat there) keep to this
#: many cells: a longer one says little and costs a pass over many sums.
MAX_VIRTUAL_CELLS = 6
#: States (cells filled so far, digits used, their sum) :func:`cage_digits` lists at most before it
#: gives a cage up (a 16x16 cage of eight open cells): the rater then deduces nothing from it.
MAX_CAGE_STATES = 200_000


def cage_digits(cand: np.ndarray, total: int, values: list[int], distinct: bool = True) -> np.ndarray | None:
    """:func:`cage_fillings`' candidates alone (the examples there).

    Parameters
    ----------
    cand : numpy.ndarray
        ``(cells, N)`` bool, the cells' candidates.
    total : int
        Their sum.
    values : list of int
        Each digit's value.
    distinct : bool
        The cells take distinct digits.

    Returns
    -------
    numpy.ndarray or None
    """
    found = cage_fillings(cand, total, values, distinct)
    return None if found is None else found[0]


def cage_fillings(cand: np.ndarray, total: int, values: list[int],
                  distinct: bool = True) -> tuple[np.ndarray, int] | None:
    """Which candidates of a killer cage's cells some filling takes: distinct digits (or any, with
    ``distinct`` False), each cell's from its candidates, adding up to ``total``.

    Parameters
    ----------
    cand : numpy.ndarray
        ``(cells, N)`` bool, the cage's cells' candidates.
    total : int
        The cage's sum.
    values : list of int
        Each digit's value (``1..N``, or the puzzle's value set).
    distinct : bool
        The cells take distinct digits (a cage, cells of one unit).

    Returns
    -------
    tuple or None
        ``(allowed, needed)``: ``(cells, N)`` bool (all False: no filling) and the bit mask of the
        digits every filling takes (0 unless ``distinct``); None past :data:`MAX_CAGE_STATES` states.

    Examples
    --------
    >>> allowed, needed = cage_fillings(np.ones((2, 9), dtype=bool), 3, list(range(1, 10)))   # 1 + 2
    >>> allowed.nonzero()[1].tolist(), bin(needed)
    ([0, 1, 0, 1], '0b11')
    >>> bin(cage_fillings(np.ones((2, 9), dtype=bool), 5, list(range(1, 10)))[1])   # 1 + 4 or 2 + 3
    '0b0'
    """
    k, n = cand.shape
    options = [np.flatnonzero(cand[i]).tolist() for i in range(k)]
    layers = [{(0, 0)}]   # states after each cell: (mask of digits used, their sum)
    for i in range(k):
        nxt = {(m | 1 << d if distinct else 0, s + values[d]) for m, s in layers[-1] for d in options[i]
               if not (distinct and m >> d & 1)}
        if len(nxt) > MAX_CAGE_STATES:
            return None
        layers.append(nxt)
    good = {state for state in layers[k] if state[1] == total}
    allowed = np.zeros((k, n), dtype=bool)
    for i in range(k - 1, -1, -1):   # back from the fillings that make the sum: what each cell took
        before = set()
        for m, s in layers[i]:
            for d in options[i]:
                if not (distinct and m >> d & 1) and (m | 1 << d if distinct else 0, s + values[d]) in good:
                    allowed[i, d] = True
                    before.add((m, s))
        good = before
    needed = -1
    for m, s in layers[k]:
        if s == total:
            needed &= m
    return allowed, needed if distinct and allowed.any() else 0


def _refuse_a_rectangle(puzzle: Puzzle) -> None:
    """Rows and columns of two lengths: one line, named ``rate:`` as the rater's other refusals are."""
    if puzzle.rows != puzzle.cols and puzzle.layout is None:
        raise PuzzleError(f"rate: a {puzzle.rows}x{puzzle.cols} grid has no human-technique steps or rating yet "
                          "(the techniques take units of one length); solve and count take it")
    if not puzzle.spec.lines and puzzle.layout is None:
        raise PuzzleError(f"rate: a {puzzle.variant} grid has no rows or columns as units, so no human-technique "
                          "steps or rating; solve and count take it")


class _Rater:
    def __init__(self, puzzle: Puzzle):
        _refuse_a_rectangle(puzzle)
        n = self.n = puzzle.n
        self.cols = puzzle.cols
        self.present = puzzle.present   # all cells but a layout's absent ones
        cells = puzzle.rows * puzzle.cols
        fams = puzzle.unit_families()
        self.units = np.concatenate([u for _, u in fams]).astype(np.int64)
        self.unit_family = np.concatenate([[name] * len(u) for name, u in fams])
        inc = np.zeros((len(self.units), cells), dtype=np.int64)
        inc[np.repeat(np.arange(len(self.units)), n), self.units.ravel()] = 1
        self.inc = inc.astype(bool)
        overlap = inc @ inc.T
        np.fill_diagonal(overlap, 0)
        # locked candidates: ordered unit pairs sharing >= 2 cells, with their intersections
        pair_a, pair_b = np.nonzero(overlap >= 2)
        # pointing (a is a box or region) before claiming (a is a row or column), as in the ladder
        claiming_first = np.isin(self.unit_family[pair_a], ("row", "col"))
        order = np.argsort(claiming_first, kind="stable")
        self.pair_a, self.pair_b = pair_a[order], pair_b[order]
        self.pair_inter = self.inc[self.pair_a] & self.inc[self.pair_b]  # (P, NN)
        self.cell_units = [np.flatnonzero(self.inc[:, c]) for c in range(cells)]
        self.lines = {name: u for name, u in fams if name in ("row", "col")}
        self.line_inc = {name: self.inc[self.unit_family == name] for name in self.lines}
        # rules over extra cells are left out: the candidates are the grid's cells alone
        self.terms = rule_terms(puzzle.rules, puzzle.base_board, extra_cells=False) if puzzle.rules else None
        if self.terms is not None and not self.terms.n_rows:
            self.terms = None   # rules that only add units (windoku): the unit techniques cover them
        self.rule_names = [rule.describe(puzzle.base_board) for rule in puzzle.rules]
        # killer cages with a sum: their cells, total and name (the cage combination technique);
        # a cage over extra cells (ISS Var) is left out, as its rows are: its sum counts cells
        # that have no candidates here (it raised IndexError)
        values = puzzle.base_board.value_of
        self.digit_values = [int(v) for v in values]
        self.cages = [(np.asarray(rule.cell_list, dtype=np.int64), int(rule.total), name)
                      for rule, name in zip(puzzle.rules, self.rule_names)
                      if isinstance(rule, Cage) and rule.total is not None and max(rule.cell_list) < cells]
        self.virtual_cages = self._innies(puzzle)
        self._bounds_of: tuple[bytes, RuleBounds] | None = None   # the last candidates' rule bounds

    # -- state: grid (NN,) digits 1..N or 0; cand (NN, N) bool ---------------------------------
    def place(self, grid, cand, cell, d):
        if not cand[cell, d]:
            raise _Contradiction
        grid[cell] = d + 1
        peers = self.units[self.cell_units[cell]].ravel()
        cand[peers, d] = False
        cand[cell] = False
        cand[cell, d] = True

    def check(self, grid, cand):
        """Raise _Contradiction on a cell without candidates, a unit missing a digit, a repeat or a
        rule row that the candidates cannot satisfy."""
        if (~cand[self.present].any(axis=1)).any() or (~cand[self.units].any(axis=1)).any():
            raise _Contradiction
        if unit_repeats(grid, self.units).any():
            raise _Contradiction
        if self.terms is not None and self.bounds(cand).broken.any():
            raise _Contradiction

    def bounds(self, cand) -> RuleBounds:
        """The rule bounds of ``cand``: a step's check and its rule technique see the same
        candidates, so the second asks for bounds already computed (the step's costliest part)."""
        key = cand.tobytes()
        if self._bounds_of is None or self._bounds_of[0] != key:
            assert self.terms is not None   # callers ask only with rule rows
            self._bounds_of = (key, rule_bounds(self.terms, cand))
        return self._bounds_of[1]

    def rc(self, cell):
        return (int(cell) // self.cols, int(cell) % self.cols)

    def removal(self, technique, cells, cand, where, digits):
        """Remove the (cell, digit) pairs ``where x digits`` that are still candidates."""
        mask = np.zeros_like(cand)
        mask[np.ix_(np.asarray(where, dtype=np.int64), np.asarray(digits, dtype=np.int64))] = True
        mask &= cand
        if not mask.any():
            return None
        cs, ds = np.nonzero(mask)
        cand[cs, ds] = False
        return Step(technique, [self.rc(c) for c in cells],
                    removed=[(*self.rc(c), int(d) + 1) for c, d in zip(cs, ds)])

    # -- techniques ----------------------------------------------------------------------------
    def naked_single(self, grid, cand):
        ones = naked_single_cells(cand)
        ones = ones[grid[ones] == 0]
        if ones.size:
            cell = int(ones[0])
            d = int(cand[cell].argmax())
            self.place(grid, cand, cell, d)
            return Step("naked single", [self.rc(cell)], digit=d + 1)
        return None

    def hidden_single(self, grid, cand):
        _, digits, cells = hidden_single_places(cand, self.units)
        empty = np.flatnonzero(grid[cells] == 0)
        if empty.size:
            cell, d = int(cells[empty[0]]), int(digits[empty[0]])
            self.place(grid, cand, cell, d)
            return Step("hidden single", [self.rc(cell)], digit=d + 1)
        return None

    def rule(self, grid, cand):
        """The first rule row (in row order) whose bounds rule out candidates: remove them."""
        if self.terms is None:
            return None
        t = self.terms
        out = self.bounds(cand).ruled_out
        hit = out.any(axis=1)
        if not hit.any():
            return None
        row = int(t.pair_row[hit].min())
        pairs = np.flatnonzero(t.pair_row == row)
        cs, ds = np.nonzero(out[pairs])
        cs = t.pair_cell[pairs][cs]
        cand[cs, ds] = False
        return Step("rule", [self.rc(c) for c in t.pair_cell[pairs]],
                    removed=[(*self.rc(c), int(d) + 1) for c, d in zip(cs, ds)],
                    rule=self.rule_names[int(t.rule[row])])

    def _innies(self, puzzle: Puzzle) -> list[tuple[np.ndarray, int, str, bool]]:
        """The 45 rule's virtual cages ``(cells, sum, why, distinct)``. A unit holds every digit
        once, so a region of whole disjoint units (a unit; rows or columns side by side) adds up to
        as many times the digits' sum. Its cells outside the killer cages wholly inside it (innies)
        add up to that less those cages' sums; and when the cages it touches cover it, their cells
        outside it (outies) add up to those cages' sums less the region's. Innies of one unit take
        distinct digits; other sets of more than :data:`MAX_VIRTUAL_CELLS` cells are left out."""
        if not self.cages:
            return []
        # the first of overlapping cages only, as dfsrules' implied sums take them
        disjoint = [self.cages[k] for k in disjoint_cages([c for c, _, _ in self.cages], self.present.size)]
        whole = sum(self.digit_values)
        regions = []   # (cells, units it is made of, name)
        for family, units in puzzle.unit_families():
            word = {"row": "row", "col": "column", "box": "box"}.get(family, family)
            regions += [(set(u.tolist()), 1, f"{word} {k + 1}") for k, u in enumerate(units)]
            if family in ("row", "col"):   # runs of two or more side by side, when disjoint
                for first in range(len(units)):
                    for last in range(first + 1, len(units) - 1):
                        cells = set(units[first:last + 1].ravel().tolist())
                        if len(cells) == (last - first + 1) * self.n:
                            regions.append((cells, last - first + 1, f"{word}s {first + 1}-{last + 1}"))
        unit_sets = [set(u.tolist()) for u in self.units]
        out = []
        for cells, count, name in regions:
            region_sum = count * whole
            inside = [(c, t) for c, t, _ in disjoint if set(c.tolist()) <= cells]
            covered = {int(x) for c, _ in inside for x in c}
            rest = sorted(cells - covered)
            if inside and rest:
                out.append(self._virtual(rest, region_sum - sum(t for _, t in inside), unit_sets,
                                         f"innies of {name}: {region_sum} less its whole cages"))
            touching = [(c, t) for c, t, _ in disjoint if cells & set(c.tolist())]
            reach = {int(x) for c, _ in touching for x in c}
            outside = sorted(reach - cells)
            if touching and cells <= reach and outside and len(touching) > len(inside):
                out.append(self._virtual(outside, sum(t for _, t in touching) - region_sum, unit_sets,
                                         f"outies of {name}: its cages less {region_sum}"))
        return [v for v in out if v is not None]

    def _virtual(self, cells: list, total: int, unit_sets: list, why: str):
        """A virtual cage of ``cells`` adding up to ``total`` (None past :data:`MAX_VIRTUAL_CELLS`
        cells, unless one unit holds them all)."""
        one_unit = any(set(cells) <= u for u in unit_sets)
        if len(cells) > MAX_VIRTUAL_CELLS and not one_unit:
            return None
        return np.array(cells, dtype=np.int64), total, why, one_unit

    def innies(self, grid, cand):
        """The 45 rule: the first unit whose cells outside its whole cages lose candidates as a
        cage of the rest of the unit's sum (:meth:`_innies`, :func:`cage_digits`)."""
        for cells, total, name, distinct in self.virtual_cages:
            allowed = cage_digits(cand[cells], total, self.digit_values, distinct)
            if allowed is None:
                continue
            out = cand[cells] & ~allowed
            if out.any():
                cs, ds = np.nonzero(out)
                cand[cells[cs], ds] = False
                return Step("45 rule", [self.rc(c) for c in cells],
                            removed=[(*self.rc(cells[c]), int(d) + 1) for c, d in zip(cs, ds)], rule=name)
        return None

    def cage_combination(self, grid, cand):
        """The first killer cage (in rule order) whose digit sets rule out candidates: a cell keeps
        only the digits some way of filling the cage with distinct digits adding up to its sum,
        each cell from its candidates, gives it (:func:`cage_fillings`); then a digit every filling
        takes, whose places in the cage lie in one unit, leaves that unit's other cells."""
        found = [(cells, name, cage_fillings(cand[cells], total, self.digit_values)) for cells, total, name in self.cages]
        for cells, name, filled in found:
            if filled is None:
                continue   # too many ways to list: no deduction (never a wrong one)
            out = cand[cells] & ~filled[0]
            if out.any():
                cs, ds = np.nonzero(out)
                cand[cells[cs], ds] = False
                return Step("cage combination", [self.rc(c) for c in cells],
                            removed=[(*self.rc(cells[c]), int(d) + 1) for c, d in zip(cs, ds)], rule=name)
        for cells, name, filled in found:
            needed = 0 if filled is None else filled[1]
            for d in (d for d in range(self.n) if needed >> d & 1):
                places = cells[filled[0][:, d]]
                units = self.inc[:, places].all(axis=1)
                targets = np.setdiff1d(self.units[units].ravel(), cells)
                step = self.removal("cage combination", places, cand, targets, [d])
                if step is not None:
                    step.rule = f"{name} needs {self.digit_values[d]}"
                    return step
        return None

    def locked(self, grid, cand):
        """Pointing/claiming, all unit pairs at once: digit d of unit a lies only in a & b, so d
        leaves the rest of b."""
        if not len(self.pair_a):
            return None
        c = cand.astype(np.int32)
        in_unit = self.inc.astype(np.int32) @ c  # (U, N) candidates per unit and digit
        in_inter = self.pair_inter.astype(np.int32) @ c  # (P, N)
        hits = ((in_unit[self.pair_a] == in_inter) & (in_inter > 0)
                & (in_unit[self.pair_b] > in_inter))
        if not hits.any():
            return None
        p, d = np.argwhere(hits)[0]
        a, b = self.pair_a[p], self.pair_b[p]
        inter_cells = np.flatnonzero(self.pair_inter[p])
        b_only = self.units[b][~self.pair_inter[p][self.units[b]]]
        name = "claiming" if self.unit_family[a] in ("row", "col") else "pointing"
        return self.removal(name, inter_cells[cand[inter_cells, d]], cand, b_only, [d])

    def naked_subset(self, grid, cand, k):
        for u in self.units:
            free = u[(grid[u] == 0) & (cand[u].sum(axis=1) <= k)]
            for combo in itertools.combinations(free.tolist(), k):
                digits = np.flatnonzero(cand[list(combo)].any(axis=0))
                if len(digits) == k:
                    others = np.setdiff1d(u, combo)
                    step = self.removal(f"naked {'pair' if k == 2 else 'triple'}", combo, cand, others, digits)
                    if step:
                        return step
        return None

    def hidden_subset(self, grid, cand, k):
        for u in self.units:
            placed = set((grid[u][grid[u] > 0] - 1).tolist())
            cnt = cand[u].sum(axis=0)
            ds = [d for d in range(self.n) if d not in placed and 2 <= cnt[d] <= k]
            for combo in itertools.combinations(ds, k):
                cells = u[cand[u][:, list(combo)].any(axis=1)]
                if len(cells) == k:
                    others = np.setdiff1d(np.arange(self.n), combo)
                    step = self.removal(f"hidden {'pair' if k == 2 else 'triple'}", cells, cand, cells, others)
                    if step:
                        return step
        return None

    def x_wing(self, grid, cand):
        for name, lines in self.lines.items():
            lc = cand[lines]  # (N lines, N positions, N digits)
            cross_name = "col" if name == "row" else "row"
            cross, cross_inc = self.lines[cross_name], self.line_inc[cross_name]
            for d in range(self.n):
                m = lc[:, :, d]
                two = np.flatnonzero(m.sum(axis=1) == 2)
                for i, j in itertools.combinations(two.tolist(), 2):
                    if (m[i] == m[j]).all():
                        pos = np.flatnonzero(m[i])
                        # the cross lines through both corners (one grid's columns: in a layout,
                        # lines of different grids share no cross line)
                        through = np.flatnonzero((cross_inc[:, lines[i][pos]] & cross_inc[:, lines[j][pos]]).any(axis=1))
                        if through.size != 2:
                            continue
                        targets = np.setdiff1d(cross[through].ravel(), np.concatenate([lines[i], lines[j]]))
                        cells = np.concatenate([lines[i][pos], lines[j][pos]])
                        step = self.removal("x-wing", cells, cand, targets, [d])
                        if step:
                            return step
        return None

    def ladder(self):
        return (self.naked_single, self.hidden_single, self.rule, self.cage_combination, self.locked, self.innies,
                lambda g, c: self.naked_subset(g, c, 2), lambda g, c: self.hidden_subset(g, c, 2),
                lambda g, c: self.naked_subset(g, c, 3), lambda g, c: self.hidden_subset(g, c, 3),
                self.x_wing)

    def place_clues(self, grid, cand, clues):
        """Place every clue of the flat ``clues`` (0: empty); _Contradiction when two clash."""
        for cell in np.flatnonzero(clues):
            self.place(grid, cand, int(cell), int(clues[cell]) - 1)

    def run(self, grid, cand, steps, counter, solution, ladder=None):
        """Apply the ladder (default: all of it) until the grid is full; where nothing applies,
        guess ``solution``'s digit in the free cell with fewest candidates (None: no solution,
        the first guess is a contradiction)."""
        ladder = ladder or self.ladder()
        while ((grid == 0) & self.present).any():
            self.check(grid, cand)
            for tech in ladder:
                step = tech(grid, cand)
                if step is not None:
                    steps.append(step)
                    break
            else:
                if solution is None:
                    raise _Contradiction
                free = np.flatnonzero((grid == 0) & self.present)
                cell = int(free[cand[free].sum(axis=1).argmin()])
                counter[0] += 1
                self.place(grid, cand, cell, int(solution[cell]) - 1)
                steps.append(Step("guess", [self.rc(cell)], digit=int(solution[cell])))
        self.check(grid, cand)


def rate(puzzle: Puzzle, solution: np.ndarray | None = None, unique: bool | None = None) -> Rating:
    """Solve ``puzzle`` with the technique ladder; return its :class:`Rating` with the steps.

    Parameters
    ----------
    puzzle : Puzzle
        Any size, box shape, variant, rules beyond units or layout.
    solution : numpy.ndarray, optional
        A solution, ``(rows, cols)`` (0 at a layout's absent cells): its digits are the guesses.
        Default: found, with whether it is the only one, by the engine ``auto`` picks to count.
    unique : bool, optional
        Whether ``solution`` is the only one, when the caller knows (:attr:`Rating.unique`).

    Returns
    -------
    Rating
        ``solved`` False (label ``no solution``) when the puzzle has none; with several
        solutions the steps reach one of them (``unique`` False). ``counts`` has a ``rule``
        entry only for a puzzle with rules beyond units.

    Raises
    ------
    PuzzleError
        A ``solution`` of the wrong shape or one that breaks the puzzle, or a puzzle with a value
        set (its steps would name digit indices, not values).

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> rate(parse_puzzle("1.3." "..1." ".3.." "...3", box="2x2")).solved
    True
    """
    if not isinstance(puzzle, Puzzle):   # text gave "'str' object has no attribute 'values'"
        raise PuzzleError(f"rate: takes a Puzzle (read one with read_puzzle), found {type(puzzle).__name__}")
    if unique is not None and not isinstance(unique, (bool, np.bool_)):
        raise PuzzleError.for_option("unique", f"must be True, False or None, found {unique!r}")
    if puzzle.values is not None:   # its steps would name digit indices, and V > N has no ladder here
        raise PuzzleError(f"rate: a puzzle with a value set ({puzzle.summary()}) is not rated: "
                          "the techniques name the digits 1..N")   # the summary names the values
    _refuse_a_rectangle(puzzle)   # before its solution is searched for
    if solution is None:
        solution, unique = _find_solution(puzzle)
    else:   # 2.5, NaN or text raised IndexError or ValueError below; 5 said "grid is , puzzle is 4x4"
        solution = digit_array(solution, "solution")
        verdict = verify_grid(solution, puzzle)
        if not verdict:
            raise PuzzleError(f"solution: {verdict.message}")
    r = _Rater(puzzle)
    grid, cand = _start(r, puzzle)
    steps: list[Step] = []
    counter = [0]
    solved = True
    try:
        r.place_clues(grid, cand, puzzle.grid.ravel())
        r.run(grid, cand, steps, counter, None if solution is None else np.asarray(solution).ravel())
    except _Contradiction:
        solved = False
    # the rule techniques are counted for puzzles that have them (a classic puzzle's keys stay its own)
    counts = {t: 0 for t in TECHNIQUES
              if (t != "rule" or puzzle.rules) and (t not in ("cage combination", "45 rule") or r.cages)}
    for s in steps:
        counts[s.technique] += 1
    counts["guess"] = counter[0]
    used = [t for t in TECHNIQUES if counts.get(t)]
    hardest = used[-1] if used else None
    label = (LABELS[hardest] if hardest else "easy") if solved else "no solution"
    return Rating(hardest, counts, counter[0], label, solved, steps,
                  grid.reshape(puzzle.rows, puzzle.cols) if solved else None, unique if solved else None)


def solved_by_easy_steps(shape: Puzzle) -> Callable[[np.ndarray], bool]:
    """A test of clue grids on ``shape``'s board and rules: True when the easy techniques alone
    (naked and hidden singles, and the rules' eliminations) fill every cell. Such clues have
    exactly one solution (every step is forced) and :func:`rate` labels them easy; generate's
    ``--difficulty easy`` removes clues while it holds.

    Parameters
    ----------
    shape : Puzzle
        The board, variant and rules (its clues are not used): the rater's tables are built once
        for every grid tested.

    Returns
    -------
    callable
        ``solves(clue_grid) -> bool`` for clue grids of ``shape``'s canvas (0: empty).

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> solves = solved_by_easy_steps(parse_puzzle("." * 16, box="2x2"))
    >>> solves(np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 0, 0]])), solves(np.zeros((4, 4), int))
    (True, False)
    """
    r = _Rater(shape)
    easy = (r.naked_single, r.hidden_single, r.rule)

    def solves(clue_grid: np.ndarray) -> bool:
        grid, cand = _start(r, shape)
        try:   # the easy ladder with no solution to guess from: stuck is a _Contradiction
            r.place_clues(grid, cand, np.asarray(clue_grid).ravel())
            r.run(grid, cand, [], [0], None, easy)
        except _Contradiction:
            return False
        return True

    return solves


def _find_solution(puzzle: Puzzle) -> tuple[np.ndarray | None, bool | None]:
    """A solution of ``puzzle`` and whether it is the only one (``(None, None)``: none), from
    the engine ``auto`` picks to count."""
    found = auto_count(build_model(puzzle), 2, keep=1).whole("rate")
    if not found.grids:
        return None, None
    return np.asarray(found.grids[0]), found.count == 1


def _start(r: _Rater, puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray]:
    """Empty flat canvas and full candidates (none for a layout's absent cells)."""
    grid = np.zeros(puzzle.rows * puzzle.cols, dtype=np.int64)
    cand = np.ones((grid.size, puzzle.n), dtype=bool)
    cand[~r.present] = False
    return grid, cand


def replay(puzzle: Puzzle, steps: list[Step]) -> tuple[np.ndarray, np.ndarray]:
    """Apply ``steps`` to ``puzzle``'s clues (the tests' independent check of a rating).

    Parameters
    ----------
    puzzle : Puzzle
    steps : list of Step

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The grid reached and the candidates left, ``(rows, cols, N)`` bool (only removals applied).
    """
    grid = np.array(puzzle.grid, dtype=np.int64)
    cand = np.ones((puzzle.rows, puzzle.cols, puzzle.n), dtype=bool)
    for s in steps:
        if s.digit is not None:
            r, c = s.cells[0]
            grid[r, c] = s.digit
        for r, c, d in s.removed:
            cand[r, c, d - 1] = False
    return grid, cand


#: the forms :func:`human_steps` writes
STEPS_FORMATS = ("text", "json")


def human_steps(puzzle: Puzzle, fmt: str = "text", solution: np.ndarray | None = None,
                unique: bool | None = None) -> str | dict:
    """The steps of :func:`rate` for ``solve --steps``.

    Parameters
    ----------
    puzzle : Puzzle
    fmt : {"text", "json"}
        ``json`` for a dict, ``text`` for text lines.
    solution : numpy.ndarray, optional
        The solution ``solve`` found (the guesses take its digits); default: :func:`rate` finds one.
    unique : bool, optional
        Whether it is the only one, when known.

    Returns
    -------
    str or dict
        Text lines ending with the rating, or ``{"steps": [...], "rating": {...}}``.

    Raises
    ------
    PipelineError
        ``fmt`` is neither (it was read as text: ``fmt='xml'`` answered in text without a word).
    """
    if fmt not in STEPS_FORMATS:
        raise PipelineError(f"human_steps: fmt must be one of {', '.join(STEPS_FORMATS)}, found {fmt!r}")
    rating = rate(puzzle, solution, unique)
    if fmt == "json":
        return {"steps": [s.to_dict() for s in rating.steps], "rating": rating.to_dict(brief=True)}
    return "\n".join([s.text() for s in rating.steps] + [f"rating: {rating.text()}"])


