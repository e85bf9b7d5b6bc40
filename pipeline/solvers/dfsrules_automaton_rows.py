"""The regular-language lines (``automaton``, ``regex``) as the ``dfsrules`` kernel's handler takes
them (:mod:`pipeline.solvers.dfsrules_automaton`), which of them it does not take
(:func:`automaton_problem`), and an accepting run of a solved grid as the rule's auxiliary
columns (:func:`automaton_aux_values`). No numba here: the engine builds its tables without
importing it.
"""
from __future__ import annotations

from typing import Protocol, cast

import numpy as np

from pipeline.core.puzzle import Puzzle
from pipeline.core.rules.nfa import Nfa, layered_transitions
from pipeline.solvers.dfsrules_rows import by_cell
from pipeline.solvers.dfsrules_sumline_rows import SUM_AT

__all__ = ["AUTOMATON_KINDS", "NFA_AT", "MAX_HANDLED_STATES", "MAX_HANDLED_STEP_TRANSITIONS", "MAX_HANDLED_TRANSITIONS",
           "automaton_aux_values", "automaton_problem", "automaton_tables"]

#: The first of the automaton tables' slots in ``rint``'s header, after the sum lines' seven (the
#: offsets of ``nfa_ptr``, ``nfa_steps``, ``nfa_auto``, then ``n_nfa``, the offsets of
#: ``cell_nfa_ptr``, ``cell_nfa``, ``nfa_tables``, then ``nfa_scratch``:
#: :data:`pipeline.solvers.dfsrules_kernel.HEADER`).
NFA_AT = SUM_AT + 7
#: The rule kinds whose lines the handler takes.
AUTOMATON_KINDS = ("automaton", "regex")
#: Most states of an automaton the handler takes (ISS's published ones reach 958); above, the SAT
#: engine takes the puzzle.
MAX_HANDLED_STATES = 4096
#: Most transitions of an automaton the handler takes (ISS's published ones reach 6,556).
MAX_HANDLED_TRANSITIONS = 1 << 16
#: Most steps times transitions of a line (its states per step come from a table of that many
#: booleans, :func:`pipeline.core.rules.nfa.layered_transitions`; ISS's reach 124,564).
MAX_HANDLED_STEP_TRANSITIONS = 1 << 25


class _Line(Protocol):
    """An automaton or regex rule (:class:`pipeline.core.rules.automaton._Line`)."""

    kind: str
    nfa: Nfa

    def steps(self) -> np.ndarray: ...


def _lines(puzzle: Puzzle) -> list[_Line]:
    # read by kind: importing pipeline.core.rules.automaton here would load it for every rule puzzle
    return cast(list[_Line], [rule for rule in puzzle.rules if rule.kind in AUTOMATON_KINDS])


def automaton_problem(puzzle: Puzzle) -> str | None:
    """Why the kernel's handler does not take ``puzzle``'s automaton and regex lines (None: it takes
    them, or there are none): more values than the side, an automaton above
    :data:`MAX_HANDLED_STATES` states or :data:`MAX_HANDLED_TRANSITIONS` transitions, a line above
    :data:`MAX_HANDLED_STEP_TRANSITIONS` steps times transitions, or a line of several segments on a
    64x64 grid (no bit left for the break symbol).

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> doc = {"size": 4, "box": "2x2", "rules": [{"rule": "regex", "pattern": "(12|34)*", "cells": ["r1c1", "r2c2"]}]}
    >>> automaton_problem(parse_puzzle(doc)) is None
    True
    """
    lines = _lines(puzzle)
    if not lines:
        return None
    n = puzzle.n
    if puzzle.board.n_values != n:
        return "dfsrules propagates automaton lines over N values only, and automaton/regex add auxiliary columns here"
    for line in lines:
        nfa = line.nfa
        if nfa.states > MAX_HANDLED_STATES or len(nfa.transitions) > MAX_HANDLED_TRANSITIONS:
            return (f"dfsrules takes automata up to {MAX_HANDLED_STATES:,} states and {MAX_HANDLED_TRANSITIONS:,} "
                    f"transitions, found {nfa.states:,} and {len(nfa.transitions):,} ({line.kind} adds auxiliary columns)")
        steps = line.steps()
        if steps.size * len(nfa.transitions) > MAX_HANDLED_STEP_TRANSITIONS:
            return (f"dfsrules takes automaton lines up to {MAX_HANDLED_STEP_TRANSITIONS:,} steps times transitions, "
                    f"found {steps.size:,} x {len(nfa.transitions):,} ({line.kind} adds auxiliary columns)")
        if n >= 64 and np.any(steps < 0):
            return "dfsrules reads an automaton line's segment breaks on grids below 64x64 only (automaton adds auxiliary columns)"
    return None


def _table(nfa: Nfa, n: int) -> np.ndarray:
    """One automaton for the handler: ``states, words, starts, accepts``, the start and accepting
    states, then its edges by source state (``states + 1`` pointers from 0, each edge's symbols as
    one mask, its target): one edge per source and target, as ISS's compressed automaton groups
    them; transitions on no readable symbol (above the break ``n``, or 64 and above) left out."""
    trans = nfa.transitions.reshape(-1, 3)
    trans = trans[(trans[:, 1] <= n) & (trans[:, 1] < 64)]
    edge, first, inverse = np.unique(trans[:, 0] * nfa.states + trans[:, 2], return_index=True, return_inverse=True)
    masks = np.zeros(edge.size, dtype=np.uint64)
    np.bitwise_or.at(masks, inverse.reshape(-1), np.left_shift(np.uint64(1), trans[:, 1].astype(np.uint64)))
    ptr = np.searchsorted(edge // max(nfa.states, 1), np.arange(nfa.states + 1))
    head = [nfa.states, max(1, (nfa.states + 63) // 64), nfa.start.size, nfa.accept.size]
    return np.concatenate([head, nfa.start, nfa.accept, ptr, masks.view(np.int64), trans[first, 2]]).astype(np.int64)


def _alive(nfa: Nfa, steps: np.ndarray, n: int, words: int) -> np.ndarray:
    """Per step ``0 .. L`` of a line, the states some accepting run of its length on any digits is
    in before that step (after the last: those it ends in), as ``words`` bit words each."""
    allowed = np.zeros((steps.size, n + 1), dtype=bool)
    allowed[steps >= 0, :n] = True
    allowed[steps < 0, n] = True
    layers = layered_transitions(nfa, allowed)
    trans = nfa.transitions
    alive = np.zeros((steps.size + 1, words * 64), dtype=bool)
    for i, layer in enumerate(layers):   # one vectorised step per step of the line
        alive[i, trans[layer, 0]] = True
        alive[i + 1, trans[layer, 2]] = True
    return np.packbits(alive, axis=-1, bitorder="little").view("<i8").astype(np.int64).reshape(-1)


def automaton_tables(puzzle: Puzzle) -> tuple[list[np.ndarray], int, int]:
    """The automaton and regex lines for the kernel's handler.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle :func:`automaton_problem` accepts.

    Returns
    -------
    parts : list of numpy.ndarray
        ``int64``: where each line's steps start (``lines + 1``), the steps (cells, ``-1`` for a
        break), each line's automaton and its states per step (two offsets in the last part), each
        cell's lines (``cell_ptr``, ``cell_lines``), and the automata (:func:`_table`; lines of one
        automaton share it) with each line's states per step (:func:`_alive`).
    lines : int
        The number of lines.
    scratch : int
        ``work`` entries one line's pass takes at most: ``(steps + 3) * words``.
    """
    lines = _lines(puzzle)
    n_cells = puzzle.n * puzzle.n
    if not lines:
        empty = np.zeros(0, dtype=np.int64)
        return [np.zeros(1, dtype=np.int64), empty, empty, np.zeros(n_cells + 1, dtype=np.int64), empty, empty], 0, 0
    steps = [line.steps().astype(np.int64) for line in lines]
    sizes = np.array([s.size for s in steps], dtype=np.int64)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    flat = np.concatenate(steps)
    tables: list[np.ndarray] = []
    words = np.array([max(1, (line.nfa.states + 63) // 64) for line in lines], dtype=np.int64)
    where: dict[bytes, int] = {}   # one table per automaton (ISS's lines of one key: 10 copies of 958 states)
    at, auto = 0, np.zeros(2 * len(lines), dtype=np.int64)
    for k, line in enumerate(lines):
        nfa = line.nfa
        key = np.concatenate([[nfa.states, nfa.start.size, nfa.accept.size], nfa.start, nfa.accept,
                              nfa.transitions.ravel()]).astype(np.int64).tobytes()
        if key not in where:
            where[key] = at
            tables.append(_table(nfa, puzzle.n))
            at += tables[-1].size
        auto[2 * k] = where[key]
        tables.append(_alive(nfa, steps[k], puzzle.n, int(words[k])))
        auto[2 * k + 1] = at
        at += tables[-1].size
    owner = np.repeat(np.arange(len(lines), dtype=np.int64), sizes)
    on_cell = flat >= 0
    cell_ptr, order = by_cell(flat[on_cell], n_cells)
    return ([ptr, flat, auto, cell_ptr, owner[on_cell][order], np.concatenate(tables)], len(lines),
            int(((sizes + 3) * words).max()))


def _one_run(nfa: Nfa, symbols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The transitions (indices into ``nfa.transitions``) of one accepting run reading ``symbols``,
    and the states it is in after each step."""
    trans = nfa.transitions
    fr, sym, to = trans[:, 0], trans[:, 1], trans[:, 2]
    forward = np.zeros((symbols.size + 1, nfa.states), dtype=bool)
    forward[0, nfa.start] = True
    for i, s in enumerate(symbols):   # one vectorised pass per step of the line
        forward[i + 1, to[(sym == s) & forward[i, fr]]] = True
    ends = nfa.accept[forward[-1, nfa.accept]]
    if not ends.size:
        raise ValueError("the grid's line has no accepting run")
    state = int(ends[0])
    taken = np.zeros(symbols.size, dtype=np.int64)
    after = np.zeros(symbols.size, dtype=np.int64)
    for i in range(symbols.size - 1, -1, -1):
        after[i] = state
        t = int(np.flatnonzero((to == state) & (sym == symbols[i]) & forward[i, fr])[0])
        taken[i] = t
        state = int(fr[t])
    return taken, after


def automaton_aux_values(puzzle: Puzzle, grid: np.ndarray, names: np.ndarray) -> np.ndarray:
    """The values of the automaton and regex lines' auxiliary columns (``aux_<kind>_k_i_p_d_q``: step
    ``i`` of the ``k``-th line of its kind takes ``p --d--> q``; ``aux_<kind>state_k_i_q``: the run
    is in ``q`` after step ``i``; all 1-based) for one accepting run of each line in a solved grid.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle :func:`automaton_problem` accepts.
    grid : numpy.ndarray
        Its solved grid (digit indices from 1).
    names : numpy.ndarray
        The model's auxiliary column names in order (``Model.aux_names``).

    Returns
    -------
    numpy.ndarray
        0/1 (float) per name.
    """
    digits = np.asarray(grid).reshape(-1).astype(np.int64) - 1
    number = {kind: 0 for kind in AUTOMATON_KINDS}
    wanted: list[str] = []
    for line in _lines(puzzle):
        number[line.kind] += 1
        k = number[line.kind]
        steps = line.steps()
        symbols = np.where(steps >= 0, digits[np.maximum(steps, 0)], puzzle.board.n_values)
        taken, after = _one_run(line.nfa, symbols)
        p, d, q = (line.nfa.transitions[taken] + 1).T
        wanted += [f"aux_{line.kind}_{k}_{i + 1}_{p[i]}_{d[i]}_{q[i]}" for i in range(steps.size)]
        wanted += [f"aux_{line.kind}state_{k}_{i + 1}_{after[i] + 1}" for i in range(steps.size - 1)]
    return np.isin(np.asarray(names).astype(str), np.array(wanted)).astype(float)
