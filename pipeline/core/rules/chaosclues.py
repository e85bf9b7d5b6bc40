"""Region clues of a chaos construction (ISS ``ChaosCount``, ``ChaosArrow``, and ``SameValues`` /
``AllDifferent`` over ISS's region cells ``CC<k>``): keys of the one ``chaos`` entry, whose region
columns they read (docs/conventions.md, "Chaos construction").

* ``"counts": [{"clue": "r1c1", "cells": [...], "offset": 0}]``: the clue cell's value is how many
  of ``cells`` share the first one's region (the first counted), minus ``offset`` (0 or 1).
* ``"arrows": [{"clue": "r1c2", "arms": [[...], ...], "offset": 0}]``: every arm starts at the
  same cell; the clue cell's value is the run of cells from the start along each arm that stay in
  the start's region, summed over the arms with the start counted once, minus ``offset``. Arms
  of one cell are left out (unless every arm is).
* ``"same": [[[...], [...]], ...]``: groups of equal size whose cells' regions form the same
  multiset (one-cell groups: the cells share a region).
* ``"different": [[...], ...]``: cells in pairwise different regions.
* ``"distinct": [{"clue": "r5c1", "cells": [...]}]``: the clue cell's value is how many regions
  the cells meet (ISS ``CountDistinct`` over region cells).
* ``"automata": [{"cells": ["@r2c2", "r2c2", ...], "nfa": "<key>"}]``: automaton lines that read
  region numbers (``@``) as well as digits (ISS ``NFA`` over region cells;
  :mod:`pipeline.core.rules.chaosnfa`).

A clue cell may be an extra cell (ISS ``Var``): its digit is the clue's value. The cells whose
regions a clue reads are grid cells (an extra cell has none).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.glyphs import CHAOS_COLOUR, CHAOS_DISTINCT_COLOUR, CHAOS_SAME_COLOUR, Glyph
from pipeline.core.rules.auxcols import AuxColumns, AuxRows
from pipeline.core.rules.base import Board, cell_name, optional_field, parse_cell, parse_cells
from pipeline.core.rules.chaosnfa import (automata_blocks, automata_rows, automata_tests, automata_to_dict,
                                          check_region_cells, parse_automata)

__all__ = ["ChaosClues", "relation_glyphs", "relation_legend", "clue_blocks", "clue_rows", "parse_clues", "clues_to_dict", "clue_tests", "clue_violations"]

KEYS = ("counts", "arrows", "same", "different", "distinct", "automata")


@dataclass(frozen=True)
class ChaosClues:
    """The region clues (0-based canvas cells): ``counts`` ``(clue, cells, offset)``, ``arrows``
    ``(clue, arms, offset)`` (arms as given), ``same`` (tuples of groups), ``different``,
    ``distinct`` ``(clue, cells)``, ``automata`` (:class:`~pipeline.core.rules.chaosnfa.RegionLine`)."""

    counts: tuple = ()
    arrows: tuple = ()
    same: tuple = ()
    different: tuple = ()
    distinct: tuple = ()
    automata: tuple = ()

    def __bool__(self) -> bool:
        return bool(self.counts or self.arrows or self.same or self.different or self.distinct or self.automata)

    def listed_cells(self) -> int:
        """Cells the clues list, counted once per listing (what their rows grow with)."""
        return (sum(len(cells) for _, cells, _ in self.counts)
                + sum(len(arm) for _, arms, _ in self.arrows for arm in arms)
                + sum(len(group) for groups in self.same for group in groups)
                + sum(len(cells) for cells in self.different)
                + sum(len(cells) for _, cells in self.distinct))


def _list(value: Any, what: str, where: str) -> list:
    if not isinstance(value, list):
        raise PuzzleError(f"{where}: '{what}' must be a list")
    return value


def _offset(item: dict, where: str) -> int:
    offset = item.get("offset", 0)
    if offset not in (0, 1) or isinstance(offset, bool):
        raise PuzzleError(f"{where}: 'offset' must be 0 (count the first cell) or 1 (leave it out)")
    return int(offset)


def _clue_item(item: Any, keys: set[str], where: str) -> dict:
    if not isinstance(item, dict) or "clue" not in item or set(item) - keys:
        raise PuzzleError(f"{where}: expected an object with keys {', '.join(sorted(keys))} ('clue' required)")
    return item


def _regions(cells: Any, board: Board, where: str, at_least: int = 1) -> tuple[int, ...]:
    """Cells whose regions a clue reads: grid cells only (an extra cell has no region)."""
    parsed = tuple(int(c) for c in parse_cells(cells, board, where, at_least=at_least))
    check_region_cells(parsed, board, where)
    return parsed


def parse_clues(data: dict, board: Board, where: str) -> ChaosClues:
    """The region clues of a ``chaos`` entry (its optional keys :data:`KEYS`).

    Parameters
    ----------
    data : dict
        The entry.
    board : Board
        The puzzle's board.
    where : str
        How messages name the entry.

    Returns
    -------
    ChaosClues
    """
    counts, arrows, same, different = [], [], [], []
    for i, item in enumerate(_list(optional_field(data, "counts", []), "counts", where)):
        at = f"{where} counts[{i}]"
        item = _clue_item(item, {"clue", "cells", "offset"}, at)
        cells = _regions(item.get("cells"), board, at)
        counts.append((parse_cell(item["clue"], board, at), cells, _offset(item, at)))
    for i, item in enumerate(_list(optional_field(data, "arrows", []), "arrows", where)):
        at = f"{where} arrows[{i}]"
        item = _clue_item(item, {"clue", "arms", "offset"}, at)
        arms = [_regions(arm, board, at) for arm in _list(item.get("arms"), "arms", at)]
        if not arms or len({arm[0] for arm in arms}) != 1:
            raise PuzzleError(f"{at}: 'arms' must be a non-empty list of cell lists starting at the same cell")
        arrows.append((parse_cell(item["clue"], board, at), tuple(arms), _offset(item, at)))
    for i, groups in enumerate(_list(optional_field(data, "same", []), "same", where)):
        at = f"{where} same[{i}]"
        parsed = [_regions(g, board, at) for g in _list(groups, "same", at)]
        if len(parsed) < 2 or len({len(g) for g in parsed}) != 1:
            raise PuzzleError(f"{at}: two or more groups of cells of one size")
        same.append(tuple(parsed))
    for i, cells in enumerate(_list(optional_field(data, "different", []), "different", where)):
        at = f"{where} different[{i}]"
        different.append(_regions(cells, board, at, at_least=2))
    distinct = []
    for i, item in enumerate(_list(optional_field(data, "distinct", []), "distinct", where)):
        at = f"{where} distinct[{i}]"
        item = _clue_item(item, {"clue", "cells"}, at)
        distinct.append((parse_cell(item["clue"], board, at), _regions(item.get("cells"), board, at)))
    clues = ChaosClues(tuple(counts), tuple(arrows), tuple(same), tuple(different), tuple(distinct),
                       parse_automata(data, board, where))
    if clues and board.values:
        raise PuzzleError(f"{where}: region clues take the values 1..N (the puzzle has a value set)")
    return clues


def clues_to_dict(clues: ChaosClues, board: Board) -> dict:
    """The document keys of ``clues`` (none when empty).

    Parameters
    ----------
    clues : ChaosClues
        The clues.
    board : Board
        The puzzle's board.

    Returns
    -------
    dict
    """
    def names(cells: tuple) -> list[str]:
        return [cell_name(c, board) for c in cells]

    out: dict = {}
    if clues.counts:
        out["counts"] = [{"clue": cell_name(k, board), "cells": names(cells), "offset": o} for k, cells, o in clues.counts]
    if clues.arrows:
        out["arrows"] = [{"clue": cell_name(k, board), "arms": [names(a) for a in arms], "offset": o}
                         for k, arms, o in clues.arrows]
    if clues.same:
        out["same"] = [[names(g) for g in groups] for groups in clues.same]
    if clues.different:
        out["different"] = [names(cells) for cells in clues.different]
    if clues.distinct:
        out["distinct"] = [{"clue": cell_name(k, board), "cells": names(cells)} for k, cells in clues.distinct]
    if clues.automata:
        out["automata"] = automata_to_dict(clues.automata, board)
    return out


def _neighbours(a: int, b: int, cols: int) -> bool:
    (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
    return abs(ra - rb) + abs(ca - cb) == 1


def _linked(cells: tuple, cols: int, label: str, colour: str, name: str) -> Glyph:
    """Two orthogonal neighbours: a white dot labelled ``label`` on their shared edge; other
    cells: a line through them in ``colour``."""
    if len(cells) == 2 and _neighbours(cells[0], cells[1], cols):
        return Glyph("dot", cells, colour="white", label=label, name=name)
    return Glyph("line", cells, style="line", colour=colour, name=name)


def relation_glyphs(clues: ChaosClues, cols: int) -> list[Glyph]:
    """The marks of the same-, different- and distinct-region clues, one glyph a clue (a
    same-region set of groups of two or more cells: one line a group), named ``chaossame``,
    ``chaosdifferent`` and ``chaosdistinct`` (SVG class, matplotlib gid): two neighbours a dot
    on their shared edge, other cells a line through them, a distinct clue's cells a violet
    outline (its cell also gets a ring named ``chaosdistinct-clue``). :func:`relation_legend`
    says what they mean.

    Parameters
    ----------
    clues : ChaosClues
        The clues.
    cols : int
        Columns of the grid (cells are ``r * cols + c``).

    Returns
    -------
    list of Glyph

    Examples
    --------
    >>> [(g.kind, g.label) for g in relation_glyphs(ChaosClues(different=((0, 1), (0, 8))), 4)]
    [('dot', '\u2260'), ('line', '')]
    """
    out: list[Glyph] = []
    for groups in clues.same:
        if all(len(g) == 1 for g in groups):   # one-cell groups: the cells share a region
            out.append(_linked(tuple(g[0] for g in groups), cols, "=", CHAOS_SAME_COLOUR, "chaossame"))
        else:
            out += [Glyph("line", g, style="line", colour=CHAOS_SAME_COLOUR, name="chaossame") for g in groups]
    out += [_linked(cells, cols, "\u2260", CHAOS_COLOUR, "chaosdifferent") for cells in clues.different]
    for clue, cells in clues.distinct:
        out.append(Glyph("cage", tuple(sorted(set(cells))), colour=CHAOS_DISTINCT_COLOUR, name="chaosdistinct"))
        out.append(Glyph("mark", (clue,), style="ring", colour=CHAOS_DISTINCT_COLOUR, name="chaosdistinct-clue"))
    return out


def relation_legend(clues: ChaosClues, cols: int) -> list[str]:
    """What the marks of :func:`relation_glyphs` mean, one phrase a sort of clue, naming only the
    marks drawn (``\u2260 on an edge: cells in different regions``).

    Parameters
    ----------
    clues : ChaosClues
        The clues.
    cols : int
        Columns of the grid.

    Returns
    -------
    list of str
    """
    glyphs = relation_glyphs(clues, cols)
    words = []
    for name, dot, line, meaning in (("chaossame", "=", "teal", "cells in one region"),
                                     ("chaosdifferent", "\u2260", "orange", "cells in different regions")):
        kinds = {g.kind for g in glyphs if g.name == name}
        marks = [f"{dot} on an edge"] * ("dot" in kinds) + [f"{line} lines"] * ("line" in kinds)
        if marks:
            words.append(f"{' or '.join(marks)}: {meaning}")
    if clues.distinct:
        words.append("violet outlines: the ringed digit counts the regions the outlined cells meet")
    return words


def active_arms(arms: tuple) -> list[tuple]:
    """The arms an arrow runs along: those of two or more cells (the first arm when none is).

    Parameters
    ----------
    arms : tuple of tuple of int
        The arms as given.

    Returns
    -------
    list of tuple of int
    """
    long = [a for a in arms if len(a) > 1]
    return long or [arms[0]]


def _pairs(clues: ChaosClues) -> list[tuple[int, int]]:
    """The (cell, reference) pairs whose "same region" indicator the counts and arrows read."""
    pairs: dict[tuple[int, int], None] = {}
    for _, cells, _ in clues.counts:
        for c in cells[1:]:
            pairs[(c, cells[0])] = None
    for _, arms, _ in clues.arrows:
        for arm in active_arms(arms):
            for c in arm[1:]:
                if c != arm[0]:
                    pairs[(c, arm[0])] = None
    return list(pairs)


def _runs(clues: ChaosClues) -> list[tuple[int, int, int]]:
    """(arrow, arm, position >= 1) of every run column, 0-based."""
    return [(j, a, i) for j, (_, arms, _) in enumerate(clues.arrows)
            for a, arm in enumerate(active_arms(arms)) for i in range(1, len(arm))]


def clue_blocks(clues: ChaosClues, board: Board) -> list[AuxColumns]:
    """``aux_chaossame_r_c_r_c`` (a cell shares the reference cell's region) and
    ``aux_chaosrun_j_a_i`` (arrow ``j``'s arm ``a`` stays in the start's region up to its cell
    ``i``) and ``aux_chaosdistinct_j_k`` (distinct clue ``j``'s cells meet region ``k``), the
    blocks that are not empty.

    Parameters
    ----------
    clues : ChaosClues
        The clues.
    board : Board
        The puzzle's board.

    Returns
    -------
    list of AuxColumns
    """
    out = []
    pairs = _pairs(clues)
    if pairs:
        p = np.array(pairs, dtype=np.int64)
        a, b = np.divmod(p[:, 0], board.n), np.divmod(p[:, 1], board.n)
        out.append(AuxColumns("chaossame", np.stack([a[0] + 1, a[1] + 1, b[0] + 1, b[1] + 1], axis=1)))
    runs = _runs(clues)
    if runs:
        out.append(AuxColumns("chaosrun", np.array(runs, dtype=np.int64) + [1, 1, 0]))
    if clues.distinct:
        j, k = np.divmod(np.arange(len(clues.distinct) * board.n), board.n)
        out.append(AuxColumns("chaosdistinct", np.stack([j + 1, k + 1], axis=1)))
    return out + automata_blocks(clues.automata, board)


class _Builder:
    """Accumulates one family's rows term by term (the clue rows are few: lists are fine)."""

    def __init__(self, family: str, sense: str) -> None:
        self.family, self.sense = family, sense
        self.x: list[tuple[int, int, int, int]] = []
        self.aux: list[tuple[int, int, int]] = []
        self.rhs: list[int] = []
        self.labels: list[list[int]] = []

    def row(self, label: list[int], rhs: int, aux: list[tuple[int, int]],
            x: list[tuple[int, int, int]] | None = None) -> None:
        r = len(self.rhs)
        self.rhs.append(rhs)
        self.labels.append(label)
        self.aux += [(r, col, coef) for col, coef in aux]
        self.x += [(r, cell, digit, coef) for cell, digit, coef in x or []]

    def rows(self, width: int) -> AuxRows:
        x = np.array(self.x, dtype=np.int64).reshape(-1, 4)
        aux = np.array(self.aux, dtype=np.int64).reshape(-1, 3)
        return AuxRows(self.family, x[:, 0], x[:, 1], x[:, 2], x[:, 3], np.array(self.rhs, dtype=np.int64),
                       self.sense, np.array(self.labels, dtype=np.int64).reshape(-1, width), aux[:, 0], aux[:, 1],
                       aux[:, 2])


def clue_rows(clues: ChaosClues, board: Board, reg: Callable[[int, int], int], first: int) -> list[AuxRows]:
    """The clue families in order: ``chaosequal``, ``chaosapart``, ``chaoscount``, ``chaosrunprev``,
    ``chaosrunsame``, ``chaosrunon``, ``chaosarrow``, ``chaossame``, ``chaosdifferent``,
    ``chaosamong``, ``chaosnone``, ``chaosdistinct``, then the automaton lines' ``chaosnfa``,
    ``chaosnfain``, ``chaosnfaout``, ``chaosnfaread``.

    Parameters
    ----------
    clues : ChaosClues
        The clues.
    board : Board
        The puzzle's board (``n``).
    reg : callable
        ``(cell, region)`` (0-based) -> the rule's column of ``reg[cell, region]``.
    first : int
        The rule's column of the first clue column (after its own blocks).

    Returns
    -------
    list of AuxRows
    """
    n = board.n
    pairs = _pairs(clues)
    same_col = {p: first + i for i, p in enumerate(pairs)}
    runs = _runs(clues)
    run_col = {r: first + len(pairs) + i for i, r in enumerate(runs)}
    equal, apart = _Builder("chaosequal", "L"), _Builder("chaosapart", "L")
    for i, (a, s) in enumerate(pairs):
        for k in range(n):
            equal.row([i + 1, k + 1], 1, [(reg(a, k), 1), (reg(s, k), 1), (same_col[(a, s)], -1)])
            apart.row([i + 1, k + 1], 1, [(same_col[(a, s)], 1), (reg(a, k), 1), (reg(s, k), -1)])
    value = [(d, v) for d, v in enumerate(range(1, n + 1))]
    count = _Builder("chaoscount", "E")
    for j, (clue, cells, offset) in enumerate(clues.counts):
        count.row([j + 1], 1 - offset, [(same_col[(c, cells[0])], -1) for c in cells[1:]],
                  [(clue, d, v) for d, v in value])
    prev, on, inside = _Builder("chaosrunprev", "L"), _Builder("chaosrunsame", "L"), _Builder("chaosrunon", "L")
    arrow = _Builder("chaosarrow", "E")
    for j, (clue, arms, offset) in enumerate(clues.arrows):
        terms = []
        for a, arm in enumerate(active_arms(arms)):
            for i in range(1, len(arm)):
                col, label = run_col[(j, a, i)], [j + 1, a + 1, i]
                terms.append((col, -1))
                same = [] if arm[i] == arm[0] else [(same_col[(arm[i], arm[0])], -1)]
                if same:
                    on.row(label, 0, [(col, 1), *same])                                  # run <= same
                before = [(run_col[(j, a, i - 1)], 1)] if i > 1 else []
                if before:
                    prev.row(label, 0, [(col, 1), (before[0][0], -1)])                   # run <= run before
                # run >= run before + same - 1 (no run before: 1; a repeated start: same = 1)
                rhs = (1 if before else 0) if same else (0 if before else -1)
                inside.row(label, rhs, [*before, *[(c, 1) for c, _ in same], (col, -1)])
        arrow.row([j + 1], 1 - offset, terms, [(clue, d, v) for d, v in value])
    same_rows = _Builder("chaossame", "E")
    for j, groups in enumerate(clues.same):
        for g, group in enumerate(groups[1:], start=2):
            # cells in both groups cancel: their terms would be stored zeros (1 - 1), which the SAT
            # encoding read as a literal 0 (a group compared with itself made the puzzle
            # infeasible for sat and auto); a row with nothing left holds always
            ours, reference = Counter(group), Counter(groups[0])
            plus, minus = sorted((ours - reference).elements()), sorted((reference - ours).elements())
            if not plus and not minus:
                continue
            for k in range(n):
                same_rows.row([j + 1, g, k + 1], 0, [(reg(c, k), 1) for c in plus] + [(reg(c, k), -1) for c in minus])
    different = _Builder("chaosdifferent", "L")
    for j, cells in enumerate(clues.different):
        for k in range(n):
            different.row([j + 1, k + 1], 1, [(reg(c, k), 1) for c in cells])
    among, none, distinct = _Builder("chaosamong", "L"), _Builder("chaosnone", "L"), _Builder("chaosdistinct", "E")
    base = first + len(pairs) + len(runs)
    for j, (clue, cells) in enumerate(clues.distinct):
        met = [base + j * n + k for k in range(n)]
        for k in range(n):
            for i, c in enumerate(cells):
                among.row([j + 1, i + 1, k + 1], 0, [(reg(c, k), 1), (met[k], -1)])      # a cell in k: k is met
            none.row([j + 1, k + 1], 0, [(met[k], 1), *[(reg(c, k), -1) for c in cells]])  # met: some cell in k
        distinct.row([j + 1], 0, [(col, -1) for col in met], [(clue, d, v) for d, v in value])
    return [equal.rows(2), apart.rows(2), count.rows(1), prev.rows(3), on.rows(3), inside.rows(3), arrow.rows(1),
            same_rows.rows(3), different.rows(2), among.rows(3), none.rows(2), distinct.rows(1),
            *automata_rows(clues.automata, board, reg, base + n * len(clues.distinct))]


def clue_tests(clues: ChaosClues, grid: np.ndarray) -> list[tuple[tuple[int, ...], Callable[[np.ndarray], bool], str]]:
    """Each clue on a full grid as ``(cells, holds, message)`` for a search that draws whole
    regions: ``holds(regions)`` (0: a cell not drawn yet) is False only when no way of drawing the
    rest keeps the clue, and final once ``cells`` are drawn. A cell not drawn yet will be in a
    region of its own, none drawn so far: a count or an arrow is decided by its first cell's
    region alone, and a distinct-region clue is bounded before its cells are all drawn. A clue
    whose cell is empty (an extra cell, ISS ``Var``, not given: 0 or past ``grid``) is not judged.

    Parameters
    ----------
    clues : ChaosClues
        The clues.
    grid : numpy.ndarray
        Flat digits ``1..N``: the canvas, then any extra cells (0 empty).

    Returns
    -------
    list of tuple
    """
    tests: list[tuple[tuple[int, ...], Callable[[np.ndarray], bool], str]] = []
    grid = np.asarray(grid, dtype=np.int64).ravel()
    r_max = grid.size + 1   # region numbers are below it

    def value(clue: int) -> int:   # an extra cell may be past the canvas, or empty
        return int(grid[clue]) if clue < grid.size else 0

    for clue, cells, offset in clues.counts:
        if not value(clue):
            continue
        at = np.asarray(cells, dtype=np.int64)

        def count(r: np.ndarray, at: np.ndarray = at, want: int = value(clue) + offset) -> bool:
            return not r[at[0]] or int(np.count_nonzero(r[at] == r[at[0]])) == want
        tests.append(((cells[0],), count, f"count clue at cell {clue}"))
    for clue, arms, offset in clues.arrows:
        if not value(clue):
            continue
        active = [np.asarray(arm, dtype=np.int64) for arm in active_arms(arms)]

        def arrow(r: np.ndarray, active: list = active, want: int = value(clue) + offset) -> bool:
            if not r[active[0][0]]:
                return True
            return 1 + sum(int(np.cumprod(r[arm] == r[arm[0]])[1:].sum()) for arm in active) == want
        tests.append(((int(active[0][0]),), arrow, f"arrow clue at cell {clue}"))   # every arm starts there
    for groups in clues.same:
        parts = [np.asarray(g, dtype=np.int64) for g in groups]

        def same(r: np.ndarray, parts: list = parts, size: int = int(r_max)) -> bool:
            # a drawn region's share of each group is final: the groups' shares must match
            first = np.bincount(r[parts[0]], minlength=size)[1:]
            return all(np.array_equal(first, np.bincount(r[g], minlength=size)[1:]) for g in parts[1:])
        tests.append((tuple(c for g in groups for c in g), same, "same-region groups"))
    for cells in clues.different:
        at = np.asarray(cells, dtype=np.int64)

        def different(r: np.ndarray, at: np.ndarray = at) -> bool:
            drawn = r[at][r[at] > 0]
            return np.unique(drawn).size == drawn.size
        tests.append((tuple(cells), different, "different-region cells"))
    for clue, cells in clues.distinct:
        if not value(clue):
            continue
        at = np.asarray(cells, dtype=np.int64)

        def distinct(r: np.ndarray, at: np.ndarray = at, want: int = value(clue)) -> bool:
            labels = r[at]
            met, undrawn = np.unique(labels[labels > 0]).size, int(np.count_nonzero(labels == 0))
            return met + (undrawn > 0) <= want <= met + undrawn
        tests.append((tuple(cells), distinct, f"distinct-region clue at cell {clue}"))
    return tests + automata_tests(clues.automata, grid)


def clue_violations(clues: ChaosClues, grid: np.ndarray, regions: np.ndarray) -> list[str]:
    """The clues a full grid and a division break (messages).

    Parameters
    ----------
    clues : ChaosClues
        The clues.
    grid : numpy.ndarray
        Flat digits ``1..N``.
    regions : numpy.ndarray
        Flat region numbers of the division.

    Returns
    -------
    list of str
    """
    regions = np.asarray(regions, dtype=np.int64)
    regions = regions - regions.min() + 1 if regions.size else regions   # the tests read 0 as "not drawn yet"
    return [message for _, holds, message in clue_tests(clues, grid) if not holds(regions)]
