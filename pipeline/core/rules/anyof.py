"""At least one of several branches holds (ISS ``Or``, with ``And`` for a branch of several
constraints): ``{"rule": "anyof", "branches": [[rule, ...], [rule, ...]]}``.

Each branch is a list of ordinary rule entries that must all hold together. The rule adds one
0-1 indicator column per branch, ``z_b`` (``aux_anyof_k_b``), the row ``sum_b z_b >= 1`` and
every row of branch ``b`` relaxed by an exact big-M when ``z_b = 0``: a ``<=`` row ``a.x <= t``
becomes ``a.x + M z_b <= t + M`` with ``M = max(a.x) - t``, ``max(a.x)`` over the 0-1 points that
give every cell one digit (a column's repeated terms added first; per cell its largest
coefficient, at least 0; per auxiliary column its coefficient when positive; summed). With
``z_b = 0`` the row is then implied by the cells' ``= 1`` rows and the 0-1 bounds; a row with
``M <= 0`` always holds and is left out. An
``=`` row becomes its two ``<=`` rows first, and units a branch adds (an extra region) become
their exact rows first (``sum_{c in unit} x[c,d] = 1`` per digit, ``<= 1`` when the unit has
fewer cells than the puzzle has values). The branch rules' own auxiliary columns follow the
indicators (docs/conventions.md, "Auxiliary columns"); each is held at 0 when its branch is off
(``anyofoff``), so the 0-1 points of a grid differ only in the indicators.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

import pipeline.core.rules as registry   # the package is importing this module: used at call time only
from pipeline.core.errors import PuzzleError, RuleCannotHoldError
from pipeline.core.rules.auxcols import AuxColumns, AuxRows, AuxRule
from pipeline.core.rules.base import Board, Glyph, Rows, Rule, cell_list_text, check_keys

__all__ = ["AnyOf", "branch_units_rows"]

_Z = np.zeros(0, dtype=np.int64)


def _numbered(branch: tuple[Rule, ...]) -> list[tuple[Rule, int]]:
    """``(rule, index)`` of a branch: index the rule's 1-based number among the branch's rules of its kind."""
    seen: dict[str, int] = {}
    out = []
    for rule in branch:
        seen[rule.kind] = seen.get(rule.kind, 0) + 1
        out.append((rule, seen[rule.kind]))
    return out


def branch_units_rows(branch: tuple[Rule, ...], board: Board) -> list[Rows]:
    """The exact rows of the units a branch's rules add: per unit and digit, ``sum_c x[c,d] = 1``
    (``<= 1`` when the unit has fewer cells than the board has values).

    Parameters
    ----------
    branch : tuple of Rule
        The branch's rules.
    board : Board
        The puzzle's board.

    Returns
    -------
    list of Rows
    """
    v = board.n_values
    out = []
    for rule in branch:
        for family, units in rule.units(board):
            units = np.atleast_2d(np.asarray(units, dtype=np.int64))
            count, k = units.shape
            row = np.repeat(np.arange(count * v), k)
            cell = np.broadcast_to(units[:, None, :], (count, v, k)).ravel()
            digit = np.broadcast_to(np.arange(v)[None, :, None], (count, v, k)).ravel()
            labels = np.stack(np.divmod(np.arange(count * v), v), axis=1) + 1
            out.append(Rows(family, row, cell.astype(np.int64), digit.astype(np.int64), np.ones(row.size, dtype=np.int64),
                            np.ones(count * v, dtype=np.int64), "E" if k == v else "L", labels))
    return out


@dataclass(frozen=True, eq=False)
class AnyOf(AuxRule):
    """At least one branch holds: ``{"rule": "anyof", "branches": [[{"rule": "cage", ...}],
    [{"rule": "thermo", ...}, {"rule": "kropki", ...}]]}`` (ISS ``.Or...End``; a branch of several
    rules is ISS's ``.And...End``). Auxiliary columns ``aux_anyof_k_b`` (branch ``b`` holds),
    then each branch's rules' own columns, renamed ``aux_anyof<family>_k_b_...``. Rows (all
    ``<=``): ``anyof_k`` (``-sum_b z_b <= -1``), ``anyofrow_k_b_j`` (branch ``b``'s ``j``-th row,
    relaxed by big-M: module docstring), ``anyofoff_k_b_j`` (``a - z_b <= 0`` for the branch's
    ``j``-th own auxiliary column ``a``)."""

    branches: tuple[tuple[Rule, ...], ...]
    #: Branches with a rule no grid keeps (a cage sum out of reach, :class:`RuleCannotHoldError`):
    #: ``(position among the document's branches, its entries as written)``; no columns, no rows.
    never: tuple[tuple[int, tuple[dict, ...]], ...] = ()

    kind: ClassVar[str] = "anyof"
    families: ClassVar[tuple[str, ...]] = ("anyof", "anyofrow", "anyofoff")
    aux_families: ClassVar[tuple[str, ...]] = ("anyof",)
    description: ClassVar[str] = "any of: at least one branch of rules holds (ISS Or / And)"
    noun: ClassVar[str] = "either-or constraint"

    def estimated_nonzeros(self, board: Board) -> float:
        """Twice its branches' rules' estimates: a branch's ``=`` rows become two ``<=`` rows, each
        with its branch's indicator (a branch of a pairwise rule over every two cells built 1.45
        times that rule's estimate at 25x25; branches of such rules on a 100x100 built 5 GB under
        a 1 GB limit when counted 0). Building them is as fast as the whole-grid rules' rows
        (0.43 CPU s for 0.54 M nonzeros at 25x25): the default build cost."""
        # a rule whose rows grow with its document (a thermometer, a region's units: counted 0
        # outside a branch, where the running count sees them) is about 2 L V here: 3,000 branches of a
        # diagonal on a 100x100 built 5.3 GB before that count saw the anyof
        return 2.0 * sum(rule.estimated_nonzeros(board)
                         + 2.0 * board.n_values * (rule.cells().size
                                                   + sum(np.size(cells) for _, cells in rule.units(board)))
                         for branch in self.branches for rule in branch)

    # -- reading and writing ------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "AnyOf":
        """The rule of ``{"rule": "anyof", "branches": [[rule, ...], ...]}``.

        Parameters
        ----------
        data : dict
            The entry: ``branches``, a non-empty list of non-empty lists of rule entries.
        board : Board
            The puzzle's board.
        where : str
            How messages name the entry.

        Returns
        -------
        AnyOf
        """
        check_keys(data, {"branches"}, where)
        raw = data.get("branches")
        if not isinstance(raw, (list, tuple)) or not raw:
            raise PuzzleError(f"{where}: 'branches' must be a non-empty list of branches (lists of rules)")
        branches, never, reasons = [], [], []
        for b, branch in enumerate(raw):
            if not isinstance(branch, (list, tuple)) or not branch:
                raise PuzzleError(f"{where}: branches[{b}] must be a non-empty list of rules")
            rules, cannot = [], None
            for k, entry in enumerate(branch):
                at = f"{where} branches[{b}][{k}]"
                if isinstance(entry, dict) and entry.get("rule") == cls.kind:
                    raise PuzzleError(f"{at}: an anyof inside an anyof is not supported")
                try:
                    rule = registry.rule_from_dict(entry, board, at)
                except RuleCannotHoldError as e:   # the branch never holds; its other rules are still checked
                    cannot = cannot or e
                    continue
                if rule.global_rule:
                    raise PuzzleError(f"{at}: {rule.kind} applies to the whole grid and cannot be a branch")
                rules.append(rule)
            if cannot is not None:
                never.append((b, tuple(dict(entry) for entry in branch)))
                reasons.append(cannot)
            else:
                branches.append(tuple(rules))
        if not branches:
            raise RuleCannotHoldError(f"{where}: no branch can hold ({reasons[0]})")
        return cls(tuple(branches), tuple(never))

    def to_dict(self, board: Board) -> dict:
        out = [[rule.to_dict(board) for rule in branch] for branch in self.branches]
        for b, entries in self.never:   # back in their places
            out.insert(b, [dict(entry) for entry in entries])
        return {"rule": self.kind, "branches": out}

    def describe(self, board: Board) -> str:
        parts = [" and ".join(rule.describe(board) for rule in branch) for branch in self.branches]
        text = " or ".join(f"({p})" for p in parts)
        return f"any of {len(self.branches)}: " + (text if len(text) <= 160 else text[:157] + "...")

    def cells(self) -> np.ndarray:
        found = [rule.cells() for branch in self.branches for rule in branch]
        return np.unique(np.concatenate(found)).astype(np.int64) if found else _Z

    def glyphs(self, board: Board) -> list[Glyph]:
        return [glyph for branch in self.branches for rule in branch for glyph in rule.glyphs(board)]

    # -- the model ------------------------------------------------------------------------------
    def _inner_blocks(self, board: Board, b: int, index: int) -> list[AuxColumns]:
        """Branch ``b``'s rules' own auxiliary columns, renamed ``anyof<family>`` and labelled
        ``(index, b + 1, their labels...)``."""
        out = []
        for rule, number in _numbered(self.branches[b]):
            if isinstance(rule, AuxRule):
                for block in rule.aux_columns(board, number):
                    lead = np.broadcast_to(np.array([index, b + 1], dtype=np.int64), (block.count, 2))
                    out.append(AuxColumns("anyof" + block.family, np.concatenate([lead, block.labels], axis=1)))
        return out

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_anyof_k_b`` (one per branch), then every branch's rules' own columns in order.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's anyof rules.
        """
        b = np.arange(1, len(self.branches) + 1)
        blocks = [AuxColumns("anyof", np.stack([np.full(b.size, index), b], axis=1))]
        for k in range(len(self.branches)):
            blocks += self._inner_blocks(board, k, index)
        return blocks

    def _branch_rows(self, board: Board, b: int, first_aux: int) -> tuple[np.ndarray, ...]:
        """Branch ``b``'s rows as ``<=`` rows: ``(row, key, coef, rhs)``, ``key`` a column number
        (``cell * V + digit`` for ``x`` and extra cells, ``(n_cells + n_extra) * V + j`` for the
        rule's ``j``-th auxiliary column); the branch's own columns start at ``first_aux``."""
        v = board.n_values
        x_keys = (board.n_cells + board.n_extra) * v   # extra cells are cells too
        rows, keys, coefs, rhs = [], [], [], []
        count = 0

        def add(block: Rows, aux_base: int) -> None:
            nonlocal count
            if not block.n_rows:
                return
            r, k, c = [block.row], [block.cell * v + block.digit], [block.coef]
            if isinstance(block, AuxRows) and block.aux_row.size:
                r.append(block.aux_row)
                k.append(x_keys + aux_base + block.aux_col)
                c.append(block.aux_coef)
            row, key, coef = np.concatenate(r), np.concatenate(k), np.concatenate(c).astype(np.int64)
            signs = [1] if block.sense == "L" else [1, -1]
            for s, sign in enumerate(signs):
                rows.append(row + count + s * block.n_rows)
                keys.append(key)
                coefs.append(sign * coef)
                rhs.append(sign * np.asarray(block.rhs, dtype=np.int64))
            count += len(signs) * block.n_rows

        branch = self.branches[b]
        for block in branch_units_rows(branch, board):
            add(block, 0)
        aux_base = first_aux
        for rule, number in _numbered(branch):
            for block in rule.rows(board, number):
                add(block, aux_base)
            if isinstance(rule, AuxRule):
                aux_base += sum(block.count for block in rule.aux_columns(board, number))
        if not rows:
            return _Z, _Z, _Z, _Z
        return np.concatenate(rows), np.concatenate(keys), np.concatenate(coefs), np.concatenate(rhs)

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``anyof``, ``anyofrow`` and ``anyofoff`` (class and module docstrings).

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's anyof rules (``k`` in the labels).

        Returns
        -------
        list of Rows
        """
        v = board.n_values
        x_keys = (board.n_cells + board.n_extra) * v
        n_branches = len(self.branches)
        pick = AuxRows("anyof", _Z, _Z, _Z, _Z, np.array([-1]), "L", np.array([[index]]),
                       np.zeros(n_branches, dtype=np.int64), np.arange(n_branches),
                       -np.ones(n_branches, dtype=np.int64))
        parts: list[tuple] = []   # per branch: row, key, coef, rhs, labels, indicator
        offs: list[tuple] = []
        first_aux = n_branches
        for b in range(n_branches):
            own = sum(block.count for block in self._inner_blocks(board, b, index))
            row, key, coef, rhs = self._branch_rows(board, b, first_aux)
            if rhs.size:
                big = _row_max(row, key, coef, rhs.size, x_keys, v) - rhs
                keep = big > 0
                renumber = np.cumsum(keep) - 1
                term_keep = keep[row]
                row, key, coef = renumber[row[term_keep]], key[term_keep], coef[term_keep]
                rhs, big = rhs[keep] + big[keep], big[keep]
                m = rhs.size
                labels = np.stack([np.full(m, index), np.full(m, b + 1), np.arange(1, m + 1)], axis=1)
                parts.append((row, key, coef, rhs, labels, big, b))
            if own:
                offs.append((first_aux, own, b))
            first_aux += own
        blocks: list[Rows] = [pick]
        blocks.append(_relaxed_block(parts, x_keys, v) if parts else Rows.empty("anyofrow", "L", 3))
        if offs:
            cols = np.concatenate([np.arange(start, start + own) for start, own, _ in offs])
            ind = np.concatenate([np.full(own, b) for _, own, b in offs])
            j = np.concatenate([np.arange(1, own + 1) for _, own, _ in offs])
            m = cols.size
            labels = np.stack([np.full(m, index), ind + 1, j], axis=1)
            blocks.append(AuxRows("anyofoff", _Z, _Z, _Z, _Z, np.zeros(m, dtype=np.int64), "L", labels,
                                  np.concatenate([np.arange(m), np.arange(m)]), np.concatenate([cols, ind]),
                                  np.concatenate([np.ones(m, dtype=np.int64), -np.ones(m, dtype=np.int64)])))
        else:
            blocks.append(Rows.empty("anyofoff", "L", 3))
        return blocks

    # -- checking grids -------------------------------------------------------------------------
    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The grid breaks the rule when every branch shows a violation (of one of its rules or
        of a unit one of them adds); a partial grid is judged on what it shows.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            One ``{"message", "cells"}`` entry (no branch holds), or none.
        """
        broken = []
        for branch in self.branches:
            found = _unit_violations(branch, grid, board)
            for rule in branch:
                if found:
                    break
                found = rule.violations(grid, board)
            if not found:
                return []
            broken.append(found[0])
        reasons = "; ".join(f"branch {b + 1}: {v['message']}" for b, v in enumerate(broken))
        if len(reasons) > 300:
            reasons = reasons[:297] + "..."
        cells = sorted({int(c) for v in broken for c in v.get("cells", [])})
        return [{"message": f"no branch of any-of over {cell_list_text(self.cells(), board, 4)} holds ({reasons})",
                 "cells": cells}]


def _row_max(row: np.ndarray, key: np.ndarray, coef: np.ndarray, count: int, x_keys: int, v: int) -> np.ndarray:
    """Each row's largest value over 0-1 points that give every cell one digit: a column's terms
    added first, then per cell its largest coefficient (0 at least), per auxiliary column its
    coefficient when positive, summed."""
    # (row, key) pairs as one int64 each: np.unique(axis=0) sorts a void view of the pairs, which
    # cost a 72-anyof puzzle (City Planning) 0.4 s of its 0.7 s build; keys and rows are >= 0
    row, key = np.asarray(row, dtype=np.int64), np.asarray(key, dtype=np.int64)
    span = int(key.max(initial=0)) + 1
    pairs, at = np.unique(row * span + key, return_inverse=True)
    summed = np.bincount(at.ravel(), weights=coef, minlength=pairs.size).astype(np.int64)
    pair_row, pair_key = np.divmod(pairs, span)
    group = np.where(pair_key < x_keys, pair_key // v, pair_key)   # a cell, or an auxiliary column
    cells, at = np.unique(pair_row * span + group, return_inverse=True)
    best = np.zeros(cells.size, dtype=np.int64)
    np.maximum.at(best, at.ravel(), summed)
    return np.bincount(cells // span, weights=best, minlength=count).astype(np.int64)


def _relaxed_block(parts: list[tuple], x_keys: int, v: int) -> AuxRows:
    """The ``anyofrow`` rows of every branch: the branch's terms plus ``M`` on its indicator."""
    row_parts, cell, digit, coef, rhs, labels, aux_row, aux_col, aux_coef = ([] for _ in range(9))
    base = 0
    for row, key, c, r, lab, big, b in parts:
        on_x = key < x_keys
        row_parts.append(row[on_x] + base)
        cell.append(key[on_x] // v)
        digit.append(key[on_x] % v)
        coef.append(c[on_x])
        aux_row.append(np.concatenate([row[~on_x], np.arange(r.size)]) + base)
        aux_col.append(np.concatenate([key[~on_x] - x_keys, np.full(r.size, b)]))
        aux_coef.append(np.concatenate([c[~on_x], big]))
        rhs.append(r)
        labels.append(lab)
        base += r.size
    cat = np.concatenate
    return AuxRows("anyofrow", cat(row_parts), cat(cell), cat(digit), cat(coef), cat(rhs), "L", cat(labels),
                   cat(aux_row), cat(aux_col), cat(aux_coef))


def _unit_violations(branch: tuple[Rule, ...], grid: np.ndarray, board: Board) -> list[dict]:
    """A repeated digit in a unit one of the branch's rules adds (the unit kernel judges only
    the puzzle's own units)."""
    for rule in branch:
        for family, units in rule.units(board):
            for unit in np.atleast_2d(np.asarray(units, dtype=np.int64)):
                filled = grid[unit][grid[unit] > 0]
                if np.unique(filled).size != filled.size:
                    return [{"message": f"{family} {cell_list_text(unit, board, 4)} repeats a digit",
                             "cells": [int(c) for c in unit]}]
    return []
