"""The global entropy and global mod windows (:class:`pipeline.core.rules.globals.GlobalEntropy`,
:class:`pipeline.core.rules.globals.GlobalMod`) as the ``dfsrules`` kernel's window handler takes
them (:mod:`pipeline.solvers.dfsrules_windows`): each window's four cells, its three classes'
digit masks, and each cell's windows. The rules' rows stay (the handler adds inference to them).
No numba here: the engine builds its tables without importing it.
"""
from __future__ import annotations

from typing import Protocol, cast

import numpy as np

from pipeline.core.puzzle import Puzzle
from pipeline.solvers.dfsrules_hidden_rows import HID_AT
from pipeline.solvers.dfsrules_rows import by_cell

__all__ = ["WIN_AT", "WINDOW_BY_RATIO", "WINDOW_KINDS", "window_tables"]

#: The first of the window rules' slots in ``rint``'s header, after the hidden skyscraper lines'
#: seven (``n_win``, then the offsets of ``win_cells``, ``win_masks``, ``cell_win_ptr``,
#: ``cell_win``: :data:`pipeline.solvers.dfsrules_kernel.HEADER`).
WIN_AT = HID_AT + 7
#: The rule kinds whose windows the handler reads (each window a digit of each of three classes).
WINDOW_KINDS = frozenset({"globalentropy", "globalmod"})
#: ``rint``'s ``by_ratio`` for a puzzle with windows (:func:`pipeline.solvers.dfsrules.rule_tables`
#: turns the kernel's locked candidates on for it too): the cell of most conflicts per candidate from
#: two candidates up, as ISS's candidate selector always picks, where every other puzzle keeps the fewest
#: candidates until three (1). The bench's ten global entropy puzzles 26,844 -> 18,276 nodes (the
#: one at index 509, 0-based, 8,677 -> 6,547), ten global mod 22,684 -> 12,828 (index 510: 9,083 -> 4,667): ISS's
#: SameValues (a box's cells off a line hold the digits of the line's cells off the box) is locked
#: candidates, which here give the windows' required values more to take (24,368 and 17,520 alone);
#: by ratio alone 22,476 and 17,970. By ratio from two on every puzzle: 344,638 -> 386,508 nodes.
WINDOW_BY_RATIO = 2


class _Windows(Protocol):
    """A global entropy or global mod rule (its windows, its digits' classes)."""

    kind: str

    def window_cells(self, board) -> np.ndarray: ...

    def classes(self, board) -> np.ndarray: ...


def window_tables(puzzle: Puzzle) -> tuple[list[np.ndarray], int]:
    """The global entropy and global mod windows for the kernel's handler.

    Parameters
    ----------
    puzzle : Puzzle
        Its ``globalentropy`` and ``globalmod`` rules (each window of either one entry).

    Returns
    -------
    parts : list of numpy.ndarray
        ``int64``: each window's four cells (flat), its three classes' digit masks (bit ``d`` for
        digit index ``d``; flat, three a window), and each cell's windows (``cell_ptr``, ``cell_windows``).
    windows : int
        The number of windows.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> doc = {"size": 6, "box": "2x3", "rules": [{"rule": "globalmod"}]}
    >>> parts, windows = window_tables(parse_puzzle(doc))
    >>> windows, parts[0][:4].tolist(), parts[1][:3].tolist(), parts[2][:3].tolist()
    (25, [0, 1, 6, 7], [9, 18, 36], [0, 1, 3])
    """
    n_cells = puzzle.n * puzzle.n
    # read by kind: importing pipeline.core.rules.globals here would load it for every rule puzzle
    rules = cast(list[_Windows], [rule for rule in puzzle.rules if rule.kind in WINDOW_KINDS])
    if not rules:
        empty = np.zeros(0, dtype=np.int64)
        return [empty, empty, np.zeros(n_cells + 1, dtype=np.int64), empty], 0
    cells, masks = [], []
    for rule in rules:
        windows = np.asarray(rule.window_cells(puzzle.board), dtype=np.int64).reshape(-1, 4)
        klass = np.asarray(rule.classes(puzzle.board), dtype=np.int64)
        bits = np.left_shift(np.int64(1), np.arange(klass.size, dtype=np.int64))
        per_class = np.array([bits[klass == g].sum() for g in range(3)], dtype=np.int64)
        cells.append(windows)
        masks.append(np.tile(per_class, windows.shape[0]))
    win_cells = np.concatenate(cells).ravel()
    cell_ptr, order = by_cell(win_cells, n_cells)
    return [win_cells, np.concatenate(masks), cell_ptr, order // 4], win_cells.size // 4
