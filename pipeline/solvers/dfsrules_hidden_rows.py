"""The hidden skyscraper clues (:class:`pipeline.core.rules.skyscraper.HiddenSkyscraper`) as the
``dfsrules`` kernel's handler takes them (:mod:`pipeline.solvers.dfsrules_hidden`): each line's
cells from the clue inwards, the clue's digit index, and each cell's lines. No numba here: the
engine builds its tables without importing it.
"""
from __future__ import annotations

from typing import Protocol, cast

import numpy as np

from pipeline.core.puzzle import Puzzle
from pipeline.solvers.dfsrules_automaton_rows import NFA_AT
from pipeline.solvers.dfsrules_rows import line_cells

__all__ = ["HID_AT", "hidden_tables"]

#: The first of the hidden skyscraper lines' slots in ``rint``'s header, after the automaton
#: lines' eight (``n_hid``, then the offsets of ``hid_ptr``, ``hid_cells``, ``hid_target``,
#: ``cell_hid_ptr``, ``cell_hid``, then ``hid_scratch``:
#: :data:`pipeline.solvers.dfsrules_kernel.HEADER`).
HID_AT = NFA_AT + 8


class _Line(Protocol):
    """A hidden skyscraper clue (its cells from the clue inwards, its value)."""

    kind: str
    cell_list: tuple[int, ...]
    value: int


def hidden_tables(puzzle: Puzzle) -> tuple[list[np.ndarray], int, int]:
    """The hidden skyscraper lines for the kernel's handler.

    Parameters
    ----------
    puzzle : Puzzle
        Its ``hiddenskyscraper`` rules (each line one unit: its digits distinct).

    Returns
    -------
    parts : list of numpy.ndarray
        ``int64``: where each line's cells start (``lines + 1``), the cells from the clue inwards,
        each clue's digit index (heights compare by digit index, as the rule's rows do), and each
        cell's lines (``cell_ptr``, ``cell_lines``).
    lines : int
        The number of lines.
    scratch : int
        ``work`` entries one line's pass takes: twice its cells, for the longest line (0 without any).

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> doc = {"size": 4, "box": "2x2", "rules": [{"rule": "hiddenskyscraper", "clue": "r0c2", "digit": 3}]}
    >>> parts, lines, scratch = hidden_tables(parse_puzzle(doc))
    >>> parts[0].tolist(), parts[1].tolist(), parts[2].tolist(), lines, scratch
    ([0, 4], [1, 5, 9, 13], [2], 1, 8)
    """
    n_cells = puzzle.n * puzzle.n
    # read by kind: importing pipeline.core.rules.skyscraper here would load it for every rule puzzle
    lines = cast(list[_Line], [rule for rule in puzzle.rules if rule.kind == "hiddenskyscraper"])
    if not lines:
        empty = np.zeros(0, dtype=np.int64)
        return [np.zeros(1, dtype=np.int64), empty, empty, np.zeros(n_cells + 1, dtype=np.int64), empty], 0, 0
    ptr, cells, cell_ptr, cell_lines = line_cells([rule.cell_list for rule in lines], n_cells)
    target = np.asarray(puzzle.board.index_of([rule.value for rule in lines]), dtype=np.int64)
    return [ptr, cells, target, cell_ptr, cell_lines], len(lines), int(2 * np.diff(ptr).max())
