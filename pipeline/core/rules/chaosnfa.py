"""Automaton lines that read region labels (ISS ``NFA`` over a mix of grid cells and chaos
construction region cells ``CC<k>``): the ``"automata"`` key of the one ``chaos`` entry.

``"automata": [{"cells": [...], "nfa": "<ISS key>", "name": "..."}]``: ``"cells"`` as an
``automaton`` rule's (a list, or a list of lists: segments, the break symbol read between them),
where ``"@r2c2"`` reads cell ``r2c2``'s region number (``1..N``, regions numbered by their first
cell in row-major order, as the chaos rule numbers them) and ``"r2c2"`` its digit. ISS numbers the
regions its own way (an order of its solver's choosing), so only automata that treat the region
numbers alike (compare them, as a thermo over regions does) mean the same in both.

The rows are the ``automaton`` rule's (:mod:`pipeline.core.rules.automaton`), renamed
``chaosnfa``, ``chaosnfain``, ``chaosnfaout``, ``chaosnfaread``, over the columns
``aux_chaosnfa_j_i_p_d_q`` and ``aux_chaosnfastate_j_i_q``; a region step's read row ties the
transitions on symbol ``d`` to ``reg[c, d]`` instead of ``x[c, d]``.

Pictures draw the lines as the ``automaton`` rule's (:func:`automata_glyphs`: a teal line through
the cells' centres, ``nfa`` on the first), a region step at its cell, which is ringed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from pipeline.core.errors import PuzzleError, clip
from pipeline.core.glyphs import Glyph, numbered, rule_numbers
from pipeline.core.rules.auxcols import AuxColumns, AuxRows
from pipeline.core.rules.automaton import AUTOMATON_COLOUR, Automaton
from pipeline.core.rules.base import Board, cell_name, optional_field, parse_cell
from pipeline.core.rules.nfa import Nfa, NfaError, nfa_accepts, nfa_from_iss

__all__ = ["RegionLine", "REGION_MARK", "check_region_cells", "parse_automata", "automata_to_dict", "automata_blocks", "automata_rows",
           "automata_tests", "automata_nonzeros", "automata_glyphs", "automata_legend"]

#: A step that reads a cell's region number: ``"@r2c2"``.
REGION_MARK = "@"
#: The glyphs' names (SVG class, matplotlib gid): the lines and labels, the rings on region steps.
GLYPH_NAME, REGION_GLYPH_NAME = "chaosnfa", "chaosnfa-region"
#: The row families, in order (the ``automaton`` rule's, renamed).
FAMILIES = ("chaosnfa", "chaosnfain", "chaosnfaout", "chaosnfaread")


@dataclass(frozen=True, eq=False)
class RegionLine:
    """One line: ``line`` (an :class:`~pipeline.core.rules.automaton.Automaton` over the cells, its
    rows the model's), ``region`` (per step of ``line.steps()``, does it read the region number?),
    the ``key`` and ``name`` as given."""

    line: Automaton
    region: np.ndarray
    key: str
    name: str = ""


def check_region_cells(cells: tuple[int, ...], board: Board, where: str) -> None:
    """Refuse an extra cell among cells whose regions a clue reads (an extra cell has none).

    Parameters
    ----------
    cells : tuple of int
        0-based cells (extra cells after the grid's).
    board : Board
        The puzzle's board.
    where : str
        How the message names the clue.
    """
    off = [c for c in cells if c >= board.n_cells]
    if off:
        raise PuzzleError(f"{where}: {cell_name(off[0], board)} is an extra cell, which has no region "
                          "(the clue's region cells must be cells of the grid)")


def _step(text: Any, board: Board, where: str) -> tuple[int, bool]:
    region = isinstance(text, str) and text.startswith(REGION_MARK)
    cell = parse_cell(text[1:] if region else text, board, where)
    if region:
        check_region_cells((cell,), board, where)
    return cell, region


def parse_automata(data: dict, board: Board, where: str) -> tuple[RegionLine, ...]:
    """The ``"automata"`` key of a chaos entry (module docstring).

    Parameters
    ----------
    data : dict
        The chaos entry.
    board : Board
        The puzzle's board.
    where : str
        How messages name the entry.

    Returns
    -------
    tuple of RegionLine
    """
    items = optional_field(data, "automata", [])
    if not isinstance(items, list):
        raise PuzzleError(f"{where}: 'automata' must be a list")
    out = []
    for j, item in enumerate(items):
        at = f"{where} automata[{j}]"
        if not isinstance(item, dict) or "nfa" not in item or "cells" not in item or set(item) - {"cells", "nfa", "name"}:
            raise PuzzleError(f"{at}: expected an object with keys cells, nfa, name ('cells' and 'nfa' required)")
        raw = item["cells"]
        if not isinstance(raw, list) or not raw:
            raise PuzzleError(f"{at}: 'cells' must be a non-empty list of cells (or a list of such lists)")
        nested = all(isinstance(v, list) for v in raw)
        if not nested and any(isinstance(v, list) for v in raw):
            raise PuzzleError(f"{at}: 'cells' mixes cells and lists of cells")
        groups = [[_step(c, board, at) for c in g] for g in (raw if nested else [raw])]
        if not any(groups):
            raise PuzzleError(f"{at}: the line has no cell")
        key, name = item["nfa"], item.get("name", "")
        if not isinstance(key, str) or len(key) > 2_000_000:
            raise PuzzleError(f"{at}: 'nfa' must be ISS's serialized automaton (a base64url text)")
        if not isinstance(name, str) or len(name) > 200:
            raise PuzzleError(f"{at}: 'name' must be a short text")
        try:
            nfa = nfa_from_iss(key)
        except NfaError as e:
            raise PuzzleError(f"{at}: 'nfa': {clip(str(e), 80)}") from None
        segments = tuple(tuple(c for c, _ in g) for g in groups)
        flags: list[bool] = []
        for i, g in enumerate(groups):
            flags += ([False] if i else []) + [r for _, r in g]
        out.append(RegionLine(Automaton(segments, nfa, ("nfa", key), name), np.array(flags, dtype=bool), key, name))
    return tuple(out)


def automata_to_dict(lines: tuple[RegionLine, ...], board: Board) -> list[dict]:
    """The document's ``"automata"`` items of ``lines``.

    Parameters
    ----------
    lines : tuple of RegionLine
        The lines.
    board : Board
        The puzzle's board.

    Returns
    -------
    list of dict
    """
    out = []
    for ln in lines:
        steps = ln.line.steps()
        names = [(REGION_MARK if r else "") + cell_name(int(c), board) if c >= 0 else None
                 for c, r in zip(steps.tolist(), ln.region.tolist())]
        segments: list[list[str]] = [[]]
        for name in names:
            if name is None:
                segments.append([])
            else:
                segments[-1].append(name)
        item: dict = {"cells": segments[0] if len(segments) == 1 else segments, "nfa": ln.key}
        if ln.name:
            item["name"] = ln.name
        out.append(item)
    return out


def automata_nonzeros(lines: tuple[RegionLine, ...], board: Board) -> float:
    """The lines' nonzeros, as the ``automaton`` rule estimates its own.

    Parameters
    ----------
    lines : tuple of RegionLine
        The lines.
    board : Board
        The puzzle's board.

    Returns
    -------
    float
    """
    return float(sum(ln.line.estimated_nonzeros(board) for ln in lines))


def automata_blocks(lines: tuple[RegionLine, ...], board: Board) -> list[AuxColumns]:
    """``aux_chaosnfa_j_i_p_d_q`` then ``aux_chaosnfastate_j_i_q``, line ``j`` after line ``j - 1``
    (none when there is no line).

    Parameters
    ----------
    lines : tuple of RegionLine
        The lines.
    board : Board
        The puzzle's board.

    Returns
    -------
    list of AuxColumns
    """
    out = []
    for j, ln in enumerate(lines, start=1):
        trans, states = ln.line.aux_columns(board, j)
        out += [AuxColumns("chaosnfa", trans.labels), AuxColumns("chaosnfastate", states.labels)]
    return out


def automata_rows(lines: tuple[RegionLine, ...], board: Board, reg: Callable[[Any, Any], Any],
                  first: int) -> list[AuxRows]:
    """The lines' rows in :data:`FAMILIES` order, each family's rows of every line together.

    Parameters
    ----------
    lines : tuple of RegionLine
        The lines.
    board : Board
        The puzzle's board.
    reg : callable
        ``(cells, regions)`` (0-based arrays) -> the rule's columns of ``reg[cell, region]``.
    first : int
        The rule's column of the lines' first column.

    Returns
    -------
    list of AuxRows
    """
    parts: list[list[AuxRows]] = [[] for _ in FAMILIES]
    base = first
    for j, ln in enumerate(lines, start=1):
        blocks = ln.line.aux_columns(board, j)
        for f, built in enumerate(ln.line.rows(board, j)):
            assert isinstance(built, AuxRows)   # the automaton's rows all reach its columns
            rows = replace(built, family=FAMILIES[f], aux_col=built.aux_col + base)
            if f == len(FAMILIES) - 1:
                rows = _read_regions(rows, ln, reg)
            parts[f].append(rows)
        base += sum(b.count for b in blocks)
    return [_concat(FAMILIES[f], p, "E", width) for f, (p, width) in enumerate(zip(parts, (2, 3, 3, 3)))]


def _read_regions(rows: AuxRows, ln: RegionLine, reg: Callable[[Any, Any], Any]) -> AuxRows:
    """The read rows with a region step's ``x[c, d]`` term moved to ``reg[c, d]``: the read row of
    step ``i`` is labelled ``(j, i, d)``, 1-based."""
    on_region = ln.region[rows.labels[rows.row, 1] - 1]
    cells, digits = rows.cell[on_region], rows.digit[on_region]
    keep = ~on_region
    return replace(rows, row=rows.row[keep], cell=rows.cell[keep], digit=rows.digit[keep], coef=rows.coef[keep],
                   aux_row=np.concatenate([rows.aux_row, rows.row[on_region]]),
                   aux_col=np.concatenate([rows.aux_col, np.asarray(reg(cells, digits), dtype=np.int64)]),
                   aux_coef=np.concatenate([rows.aux_coef, rows.coef[on_region]]))


def _concat(family: str, parts: list[AuxRows], sense: str, width: int) -> AuxRows:
    z = np.zeros(0, dtype=np.int64)
    if not parts:
        return AuxRows(family, z, z, z, z, z, sense, np.zeros((0, width), dtype=np.int64))
    offsets = np.cumsum([0] + [p.n_rows for p in parts[:-1]])

    def cat(name: str, shift: bool = False) -> np.ndarray:
        return np.concatenate([getattr(p, name) + (o if shift else 0) for p, o in zip(parts, offsets)])
    return AuxRows(family, cat("row", True), cat("cell"), cat("digit"), cat("coef"), cat("rhs"), parts[0].sense,
                   np.concatenate([p.labels for p in parts]), cat("aux_row", True), cat("aux_col"), cat("aux_coef"))


def automata_tests(lines: tuple[RegionLine, ...], grid: np.ndarray) -> list[tuple[tuple[int, ...], Callable[[np.ndarray], bool], str]]:
    """Each line on a full grid as ``(cells, holds, message)`` for a search that draws whole
    regions (:func:`~pipeline.core.rules.chaosclues.clue_tests`): a region step not drawn yet may
    read any number, so ``holds`` is False only when no run accepts; final once they are drawn.
    Regions are renumbered by their first cell, as the model numbers them.

    Parameters
    ----------
    lines : tuple of RegionLine
        The lines.
    grid : numpy.ndarray
        Flat digits ``1..N``.

    Returns
    -------
    list of tuple
    """
    grid = np.asarray(grid, dtype=np.int64)
    tests: list[tuple[tuple[int, ...], Callable[[np.ndarray], bool], str]] = []
    for j, ln in enumerate(lines, start=1):
        steps = ln.line.steps()

        def holds(r: np.ndarray, steps: np.ndarray = steps, region: np.ndarray = ln.region,
                  nfa: Nfa = ln.line.nfa) -> bool:
            v = math.isqrt(r.size)   # the values 1..N: the regions are the canvas (grid may carry extra cells)
            drawn = np.flatnonzero(r > 0)
            labels, firsts = np.unique(r[drawn], return_index=True)   # the first cell of each region
            rank = np.zeros(int(r.max()) + 1 if r.size else 1, dtype=np.int64)
            rank[labels[np.argsort(drawn[firsts])]] = np.arange(1, labels.size + 1)
            at = np.maximum(steps, 0)
            shown = np.where(region, rank[r[at]], grid[at])
            allowed = np.zeros((steps.size, v + 1), dtype=bool)
            allowed[steps >= 0, :v] = True
            allowed[steps < 0, v] = True
            fixed = (steps >= 0) & (shown > 0)
            allowed[fixed, :] = False
            allowed[fixed, shown[fixed] - 1] = True
            return nfa_accepts(nfa, allowed)
        cells = tuple(int(c) for c in steps[(steps >= 0) & ln.region])
        tests.append((cells or (int(steps[steps >= 0][0]),), holds, f"automaton line {j} over regions"))
    return tests


def _region_reads(lines: tuple[RegionLine, ...]) -> tuple[np.ndarray, bool]:
    """The cells whose region numbers the lines read (sorted), and whether a picture rings them:
    unless every line reads the region of each of its cells (as Thermo Knots' do: rings on all
    their cells would say nothing the caption cannot)."""
    read = [np.unique(ln.line.steps()[ln.region]) for ln in lines]
    cells = np.unique(np.concatenate(read or [np.zeros(0, dtype=np.int64)]))
    every = all(r.size == np.unique(ln.line.cells()).size for r, ln in zip(read, lines))
    return cells, bool(cells.size) and not every


def automata_glyphs(lines: tuple[RegionLine, ...], board: Board) -> list[Glyph]:
    """The lines as the ``automaton`` rule draws its own: per segment a line in its colour through
    the centres of the cells read (a cell read twice in a row, its region then its digit, once; a
    one-cell segment a disc), ``nfa`` on the first cell (``nfa1``, ``nfa2`` for lines of several
    names, as automaton rules are numbered); then, unless every line reads the region number of
    each of its cells, one ring on each cell whose region number a line reads (``@r2c2``).
    Glyphs alike are given once (lines from one cell: one label there).

    Parameters
    ----------
    lines : tuple of RegionLine
        The lines.
    board : Board
        The puzzle's board (unused: the cells are canvas numbers already).

    Returns
    -------
    list of Glyph
        Named :data:`GLYPH_NAME` and :data:`REGION_GLYPH_NAME`.
    """
    numbers = rule_numbers([ln.line for ln in lines])
    out: list[Glyph] = []
    for ln in lines:
        first = None
        for seg in ln.line.segments:
            cells = tuple(c for i, c in enumerate(seg) if not i or seg[i - 1] != c)
            if not cells:
                continue
            first = cells[0] if first is None else first
            out.append(Glyph("line", cells, style="line", colour=AUTOMATON_COLOUR, name=GLYPH_NAME) if len(cells) > 1
                       else Glyph("mark", cells, style="circle", colour=AUTOMATON_COLOUR, name=GLYPH_NAME))
        if first is not None:
            label = Glyph("mark", (first,), style="text", label=Automaton.start_label, name=GLYPH_NAME)
            out.append(numbered(label, numbers.get(id(ln.line))))
    read, ringed = _region_reads(lines)
    if ringed:
        out.append(Glyph("mark", tuple(read.tolist()), style="ring", colour=AUTOMATON_COLOUR, name=REGION_GLYPH_NAME))
    return list(dict.fromkeys(out))


def automata_legend(lines: tuple[RegionLine, ...], board: Board) -> list[str]:
    """What :func:`automata_glyphs` cannot show, one phrase each: every line label with its
    automaton's name (``nfa: thermo``, as an ``automaton`` rule's caption says it), then which
    cells' region numbers the lines read (the ringed ones, or all).

    Parameters
    ----------
    lines : tuple of RegionLine
        The lines.
    board : Board
        The puzzle's board.

    Returns
    -------
    list of str
    """
    numbers = rule_numbers([ln.line for ln in lines])
    words = [f"{Automaton.start_label}{numbers.get(id(ln.line), '')}: {ln.line.legend(board)}" for ln in lines]
    read, ringed = _region_reads(lines)
    if ringed:
        words.append(f"rings on the {Automaton.start_label} lines: the cells whose region numbers they read")
    elif read.size:
        words.append(f"the {Automaton.start_label} lines read each cell's region number")
    return list(dict.fromkeys(words))
