"""``R``, the rows of the rules beyond units, and the auxiliary columns some of them use.

Each rule's rows (:meth:`~pipeline.core.rules.base.Rule.rows`) in the rules registry's order,
each kind's families in order, rules of one kind in the puzzle's order (numbered 1.. within the
kind). Rules that need auxiliary 0-1 columns (:class:`~pipeline.core.rules.auxcols.AuxRule`)
declare them; they get the positions ``n_vars + k`` (``k`` 0-based), after the whole cell-digit
block, rule after rule in the same order (docs/conventions.md, "Auxiliary columns").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from pipeline.core.conventions import Convention
from pipeline.core.errors import ModelTooLarge
from pipeline.core.csr import Csr
from pipeline.core.extracells import extra_column_names
from pipeline.core.limits import MAX_BYTES_ENV, RULE_BYTES_PER_NONZERO, memory_limit
from pipeline.core.puzzle import Puzzle, shape_cache
from pipeline.core.rules import RULES
from pipeline.core.rules.auxcols import AuxRows, AuxRule, aux_names
from pipeline.core.rules.base import Board, Rows, Rule
from pipeline.core.stops import RULE_BUILD_CPU_SECONDS_PER_NONZERO, estimated_seconds, too_long_to_start
from pipeline.core.textin import size_text
from pipeline.core.variants import FAMILIES

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["RuleRows", "build_rule_rows", "shared_rule_rows", "aux_column_count", "aux_column_names", "kind_blocks", "rule_nonzeros", "rule_build_nonzeros",
           "rule_rows_outlast", "rules_by_kind", "unit_le_rows"]


@dataclass(frozen=True, eq=False)
class RuleRows:
    """The rows of the rules beyond units (``R``), over all positions, in row order.

    ``sense[i]`` is ``"E"`` (``=``) or ``"L"`` (``<=``); ``families`` lists ``(family, sense,
    rows)`` in order (a family's rows are contiguous). ``entries`` holds the nonzeros as
    ``(row, column, value)`` arrays (a repeated pair adds up); :attr:`csr` (numpy) and :attr:`matrix` (scipy) are
    built from them on first use, so a puzzle without such rules never imports scipy, nor one
    whose rows only the SAT engine reads. :attr:`labels` are written
    on first use from ``label_parts`` (``(family, 1-based indices)`` per block, in row order):
    an engine that never names a row skips them (two thirds of building an empty 100x100
    non-consecutive's rows). Columns ``n_vars ..
    n_vars + aux_names.size - 1`` are the auxiliary columns (``aux_names`` in order,
    ``aux_families`` their ``(family, count)`` in order)."""

    entries: tuple[np.ndarray, np.ndarray, np.ndarray]
    n_vars: int
    rhs: np.ndarray
    sense: np.ndarray
    label_parts: tuple[tuple[str, np.ndarray], ...]
    families: tuple[tuple[str, str, int], ...]
    aux_names: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=str))
    aux_families: tuple[tuple[str, int], ...] = ()

    @property
    def n_aux(self) -> int:
        """Auxiliary columns."""
        return int(self.aux_names.size)

    @cached_property
    def csr(self) -> Csr:
        """The rows as numpy CSR arrays over ``n_vars + n_aux`` columns (duplicates summed, indices
        sorted, entries that add up to 0 dropped): what the SAT engine reads, without importing scipy."""
        row, col, value = self.entries
        # a cell a rule counts with opposite signs adds up to 0: dropped here, so no engine or
        # writer reads a stored zero (the SAT encoding took one for literal 0, and said "no
        # solution" of a chaos square)
        return Csr.from_entries(row, col, value, (self.rhs.size, self.n_vars + self.n_aux)).without_zeros()

    @cached_property
    def matrix(self) -> sp.csr_matrix:
        """The rows as a scipy CSR matrix (:attr:`csr`'s arrays; imports scipy)."""
        return self.csr.to_scipy()

    @cached_property
    def labels(self) -> np.ndarray:
        """Each row's label (``family_i_j...``), in row order."""
        if not self.label_parts:
            return np.zeros(0, dtype=str)
        return np.concatenate([_label_text(family, indices) for family, indices in self.label_parts])

    @property
    def equal(self) -> np.ndarray:
        """Boolean mask of the ``=`` rows."""
        return self.sense == "E"


def _estimate(puzzle: Puzzle, weighted: bool, skip: frozenset[str] = frozenset()) -> float:
    """The rules' estimated nonzeros over the whole grid, each weighted by its build cost when asked
    (rules of a kind in ``skip`` left out)."""
    board = puzzle.board
    return sum(rule.estimated_nonzeros(board) * (rule.build_cost if weighted else 1.0) for rule in puzzle.rules
               if rule.kind not in skip)


def rule_nonzeros(puzzle: Puzzle) -> float:
    """Estimated nonzeros of the rows of ``puzzle``'s rules over the whole grid (non-consecutive: 8
    a cell-digit variable, anti-knight 3, a skyscraper clue about ``0.75 L^2 N^2`` over its line, a
    between line of ``L`` cells about ``3 L N^2``; rules whose rows grow with their document, as a
    cage's, count 0), known before ``R`` is built: memory and time limits refuse a model from it.

    Parameters
    ----------
    puzzle : Puzzle

    Returns
    -------
    float
    """
    return _estimate(puzzle, weighted=False)


def rule_build_nonzeros(puzzle: Puzzle, skip: frozenset[str] = frozenset()) -> float:
    """:func:`rule_nonzeros` weighted by each rule's :attr:`~pipeline.core.rules.base.Rule.build_cost`:
    what the time to build the rows is estimated from (a skyscraper's nonzero costs about a
    quarter of a non-consecutive one's).

    Parameters
    ----------
    puzzle : Puzzle
    skip : frozenset of str, optional
        Rule kinds left out (those whose rows the engine asked never builds).

    Returns
    -------
    float
    """
    return _estimate(puzzle, weighted=True, skip=skip)


def rule_rows_outlast(model: Any, seconds: float | None, skip: frozenset[str] = frozenset()) -> str:
    """Why ``model``'s rule rows cannot be built within ``seconds`` (one line), or "" when they
    can, are built already, or there is no limit: an engine asked with a time limit answers
    ``time_limit`` at once rather than build them past it (a 200x200 non-consecutive's rows took
    minutes and 12 GB before a count with an 8 s limit could start).

    Parameters
    ----------
    model : Model
        Its puzzle's rules decide; once built (``model.R``), nothing is said.
    seconds : float or None
        The time left.
    skip : frozenset of str, optional
        Rule kinds whose rows the engine never builds (``dfsrules``' kernel handlers take their
        place: an ISS automaton's 2.4 million nonzeros, estimated at 1.9 s, handed a 0.2 s search on).

    Returns
    -------
    str
    """
    puzzle = getattr(model, "puzzle", None)
    if seconds is None or puzzle is None or "R" in vars(model) or \
            getattr(model, "convention", None) in shape_cache(puzzle).get(_SHARED_ROWS, {}):
        return ""
    need = estimated_seconds(RULE_BUILD_CPU_SECONDS_PER_NONZERO * rule_build_nonzeros(puzzle, skip))
    return "" if need <= seconds else too_long_to_start("building the rule rows", need, int(rule_nonzeros(puzzle)))


def _label_text(family: str, indices: np.ndarray) -> np.ndarray:
    """``family_i_j...`` for each row of 1-based label indices (vectorised)."""
    out = np.full(indices.shape[0], family, dtype=object)
    for k in range(indices.shape[1]):
        out = out + "_" + np.char.mod("%d", indices[:, k]).astype(object)
    return out.astype(str) if out.size else np.zeros(0, dtype=str)


def rules_by_kind(puzzle: Puzzle) -> list[list[Rule]]:
    """The puzzle's rules kind by kind, in row order: registry order of kinds, each kind's rules
    in the puzzle's order (numbered 1.. within the kind).

    Parameters
    ----------
    puzzle : Puzzle
        Its rules.

    Returns
    -------
    list of list of Rule
        One non-empty list per kind the puzzle has.
    """
    by_kind: dict[str, list[Rule]] = {}
    for rule in puzzle.rules:
        by_kind.setdefault(rule.kind, []).append(rule)
    return [by_kind[kind] for kind in RULES if kind in by_kind]


#: Kinds every rule of which adds rows to ``R`` whatever the board: :func:`has_rule_rows` answers
#: without building them (a sandwich's big-M rows, one pair per placement of the 1 and the N,
#: take 1.5 ms of a 9x9, and ``dfsrules`` never reads them).
ALWAYS_ADD_ROWS = frozenset({"sandwich"})

#: Where :func:`kind_blocks` keeps a puzzle's blocks: in its shape cache (rows depend on the rules
#: and board alone, so a puzzle with other clues shares them; a dictionary keyed by puzzles would
#: hash each one by its content).
_KIND_BLOCKS = "kind_blocks"


def kind_blocks(puzzle: Puzzle, skip: frozenset[str] = frozenset()) -> list[tuple[list[Rule], list[Rows]]]:
    """Each kind's rules (:func:`rules_by_kind`) with their rows (:meth:`Rule.rows_of`, numbered
    from 1), each kind's built once per puzzle, when first asked for, and read-only (a consumer
    that changed them would change them for the next). Kinds with auxiliary columns
    (:class:`AuxRule`) are left out: their rows are built rule by rule with their columns
    (:func:`build_rule_rows`).

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.
    skip : frozenset of str
        Kinds left out, and not built (``dfsrules`` handles sandwich clues without their rows).

    Returns
    -------
    list of (list of Rule, list of Rows)
    """
    cached = shape_cache(puzzle).setdefault(_KIND_BLOCKS, {})
    out = []
    built = 0   # nonzeros so far: the estimates count some kinds 0, the rows built say what they hold
    for of_kind in rules_by_kind(puzzle):
        kind = of_kind[0].kind
        if kind in skip or isinstance(of_kind[0], AuxRule):
            continue
        blocks = cached.get(kind)
        if blocks is None:
            blocks, built = _counted_rows(of_kind, puzzle.board, built)
            cached[kind] = blocks
            for block in blocks:
                for array in (block.row, block.cell, block.digit, block.coef, block.rhs, block.labels):
                    array.flags.writeable = False
        else:
            built += _terms(blocks)
        out.append((of_kind, blocks))
    return out


#: Rule rows whose model needs less than this are held without asking the allowance (3 us a call).
_SMALL_BYTES = 1 << 26
#: Rules of one kind built in one call before the rows are counted: every real puzzle's kind at
#: once (a 9x9 has at most 144 dots), and past that slices of about :data:`_SLICE_NONZEROS`
#: (1,000 thermometers of 400 values built 2.5 GB under a 1 GB limit before one count saw them).
_FIRST_SLICE = 256
_SLICE_NONZEROS = 1 << 20
#: The first slice also stops once its rules' cells times the values reach this (one rule at
#: least): 150 modular lines over a 100x100's cells, one slice of 256, took 22.8 GB and were
#: killed under a 1 GB limit; region sums and zippers so built 12 GB before their count refused them.
_FIRST_SLICE_CELL_VALUES = 1 << 17


def _terms(blocks: list[Rows]) -> int:
    """Nonzeros of ``blocks``: their cell terms and their auxiliary columns' (a chaos
    construction's clue rows are nearly all on auxiliary columns)."""
    return sum(int(block.cell.size) + (int(block.aux_row.size) if isinstance(block, AuxRows) else 0)
               for block in blocks)


def _counted_rows(of_kind: list[Rule], board: Board, built: int) -> tuple[list[Rows], int]:
    """A kind's rows (:meth:`Rule.rows_of`) and the nonzeros built so far with them, counted
    against the allowance slice by slice (:func:`_within_allowance`): a slice's rules are the
    rules they would be in one call (their numbers, their order), as ``rows_of`` promises."""
    make = type(of_kind[0]).rows_of
    blocks: list[Rows] = []
    start, size = 0, _first_slice(of_kind, board)
    while start < len(of_kind):
        part = make(of_kind[start:start + size], board, start + 1)
        held = _terms(part)
        built = _within_allowance(built + held, of_kind)
        blocks += part
        start += size
        size = max(1, _SLICE_NONZEROS * size // max(held, 1))   # the next slice's rules, from this one's rows per rule
    return blocks, built


def _first_slice(of_kind: list[Rule], board: Board) -> int:
    """How many of ``of_kind``'s first rules are built before their rows are counted: up to
    :data:`_FIRST_SLICE`, while their cells (one more each) times the values stay within
    :data:`_FIRST_SLICE_CELL_VALUES` (a rule's rows grow at least with them), and one at least."""
    head = of_kind[:_FIRST_SLICE]
    weights = np.fromiter((rule.cells().size + 1 for rule in head), dtype=np.int64, count=len(head))
    return max(1, int(np.searchsorted(np.cumsum(weights * board.n_values), _FIRST_SLICE_CELL_VALUES, side="right")))


def _within_allowance(nonzeros: int, rules: list[Rule]) -> int:
    """``nonzeros`` of rule rows built so far, refused (:class:`ModelTooLarge`, one line naming the
    kind built last) once their model could not be held in the memory allowed: the limits' estimate
    counts 0 for kinds whose rows it does not foresee (a full-rank-ties rule of a 100x100 built
    5.7 GB under a 1 GB limit), so the rows built are counted as they come."""
    need = RULE_BYTES_PER_NONZERO * nonzeros
    if need > _SMALL_BYTES and need > (limit := memory_limit()):   # a 9x9's rows: no call of memory_limit
        raise ModelTooLarge(f"rules: with {rules[0].kind}'s rows the rule rows hold {nonzeros:,} nonzeros, whose "
                            f"model needs about {size_text(need)}, more than the {size_text(limit)} allowed (set "
                            f"{MAX_BYTES_ENV} to allow more)")
    return nonzeros


def has_rule_rows(puzzle: Puzzle) -> bool:
    """Whether ``R`` of ``puzzle`` has rows, without building it (the kinds' blocks, the extra
    cells' rows and, with more values than the side, the units as ``<=`` rows).

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.

    Returns
    -------
    bool
    """
    if any(rule.kind in ALWAYS_ADD_ROWS for rule in puzzle.rules):
        return True
    if any(block.n_rows for block in extra_cell_rows(puzzle) + unit_le_rows(puzzle)):
        return True
    if any(block.n_rows for _, blocks in kind_blocks(puzzle) for block in blocks):
        return True
    return any(block.n_rows for of_kind in rules_by_kind(puzzle) if isinstance(of_kind[0], AuxRule)
               for index, rule in enumerate(of_kind, start=1) for block in type(rule).rows_of([rule], puzzle.board, index))


def _rules_in_order(puzzle: Puzzle):
    """``(rule, index)`` in row order: registry order of kinds, then the puzzle's order."""
    for of_kind in rules_by_kind(puzzle):
        yield from ((rule, index) for index, rule in enumerate(of_kind, start=1))


def unit_le_rows(puzzle: Puzzle) -> list[Rows]:
    """The units as ``<= 1`` rows per value, when the puzzle has more values than a unit has
    cells (``V > N``, ISS ``6x6~9``): each unit holds each value at most once (docs/conventions.md,
    "Value sets larger than the grid"). Empty for every other puzzle (its units are ``A``'s ``= 1``).

    Family by family (``row``, ``col``, ``box`` or ``region``, ...), rows ``(unit, value)`` with
    the value fastest, labelled ``family_u_d`` (``family_d`` for a family of one unit, as ``A``'s).

    Parameters
    ----------
    puzzle : Puzzle
        Its units and value set.

    Returns
    -------
    list of Rows
    """
    v = puzzle.n_values
    if not puzzle.units_at_most:   # V > N, or a rectangular grid (pipeline.core.rect)
        return []
    out = []
    digits = np.arange(v)
    for family, units in puzzle.unit_families():
        count, k = units.shape
        row = np.repeat(np.arange(count * v), k)
        cell = np.broadcast_to(units[:, None, :], (count, v, k)).ravel()
        digit = np.broadcast_to(digits[None, :, None], (count, v, k)).ravel()
        u, d = np.divmod(np.arange(count * v), v)
        labels = (d[:, None] + 1 if FAMILIES[family].single and count == 1
                  else np.stack([u + 1, d + 1], axis=1))
        out.append(Rows(family, row, cell.astype(np.int64), digit.astype(np.int64), np.ones(row.size, dtype=np.int64),
                        np.ones(count * v, dtype=np.int64), "L", labels.astype(np.int64)))
    return out


def aux_column_names(puzzle: Puzzle) -> tuple[np.ndarray, tuple[tuple[str, int], ...]]:
    """The names of the puzzle's auxiliary columns in order and ``(family, count)`` per family
    (in order of first appearance), without building any row.

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.

    Returns
    -------
    tuple
        ``(names, families)``.
    """
    blocks = _aux_blocks(puzzle)
    extra = extra_column_names(puzzle.extra, puzzle.n_values)   # extra cells' digits come first
    counts: dict[str, int] = {"extra": extra.size} if extra.size else {}
    for block in blocks:
        if block.count:
            counts[block.family] = counts.get(block.family, 0) + block.count
    names = aux_names(blocks)
    return (np.concatenate([extra, names]) if extra.size else names), tuple(counts.items())


#: Columns named at a time when the longest name is looked for (a name table of 256K rows).
NAME_CHUNK = 1 << 18


def column_name_width(conv: Convention, columns: np.ndarray, aux_names: np.ndarray) -> int:
    """The width of :func:`column_name_table` for the solver ``columns``: the longest name of a
    present cell (as :meth:`~pipeline.core.conventions.Convention.names` trims it, at least 1)
    or the width of the auxiliary names' dtype, found chunk by chunk (no table of every name).

    Parameters
    ----------
    conv : Convention
        The model's convention.
    columns : numpy.ndarray
        Full positions of the solver columns: cells, then auxiliary columns.
    aux_names : numpy.ndarray of str
        Every auxiliary column's name, in order.

    Returns
    -------
    int
    """
    cells = columns[columns < conv.n_vars]
    width = 1
    for c0 in range(0, cells.size, NAME_CHUNK):
        used = np.flatnonzero(conv.name_table(cells[c0:c0 + NAME_CHUNK]).any(axis=0))
        width = max(width, int(used[-1]) + 1 if used.size else 1)
    return max(width, aux_names.dtype.itemsize // (4 if aux_names.dtype.kind == "U" else 1))


def column_name_table(conv: Convention, columns: np.ndarray, aux_names: np.ndarray, width: int) -> np.ndarray:
    """Names of the solver ``columns`` as an ``(n, width)`` uint8 table, left-aligned and
    zero-padded: cells by the convention's name table, auxiliary columns by ``aux_names``. Only
    the rows asked for are made (the names of 1.5 M auxiliary columns as one str array held
    160 MB more than the export's model, and twice that while it was made).

    Parameters
    ----------
    conv : Convention
        The model's convention.
    columns : numpy.ndarray
        Full positions of the columns to name.
    aux_names : numpy.ndarray of str
        Every auxiliary column's name, in order (ASCII: a name beyond it raises
        ``UnicodeEncodeError``).
    width : int
        At least :func:`column_name_width` of the model's columns.

    Returns
    -------
    numpy.ndarray of uint8
    """
    out = np.zeros((columns.size, width), dtype=np.uint8)
    cells = columns < conv.n_vars
    if cells.any():
        table = conv.name_table(columns[cells])
        k = min(width, table.shape[1])    # the convention's width may pass the longest present name
        out[cells, :k] = table[:, :k]
    if not cells.all():
        names = np.ascontiguousarray(aux_names[columns[~cells] - conv.n_vars].astype("S"))
        out[~cells, :names.itemsize] = names.view(np.uint8).reshape(names.size, names.itemsize)
    return out


def aux_column_count(puzzle: Puzzle) -> int:
    """How many auxiliary columns the puzzle has (:func:`aux_column_names`' length, without
    writing the names: a published rule puzzle's million names took 1.3 s to write).

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.

    Returns
    -------
    int
    """
    return int(extra_column_names(puzzle.extra, puzzle.n_values).size) + sum(int(b.count) for b in _aux_blocks(puzzle))


def _aux_blocks(puzzle: Puzzle) -> list:
    """The auxiliary column blocks of the puzzle's rules, in rule order."""
    return [block for rule, index in _rules_in_order(puzzle) if isinstance(rule, AuxRule)
            for block in rule.aux_columns(puzzle.board, index)]


def extra_cell_rows(puzzle: Puzzle) -> list[Rows]:
    """``extracell_g_i`` (``= 1``): extra cell ``i`` of group ``g`` (1-based) holds one digit
    (docs/conventions.md, "Extra cells"); none without extra cells.

    Parameters
    ----------
    puzzle : Puzzle
        Its extra cells and value set.

    Returns
    -------
    list of Rows
    """
    count, v = puzzle.board.n_extra, puzzle.n_values
    if not count:
        return []
    group = np.repeat(np.arange(1, len(puzzle.extra) + 1), [g.count for g in puzzle.extra])
    within = np.concatenate([np.arange(1, g.count + 1) for g in puzzle.extra])
    return [Rows("extracell", np.repeat(np.arange(count), v), np.repeat(puzzle.rows * puzzle.cols + np.arange(count), v),
                 np.tile(np.arange(v), count), np.ones(count * v, dtype=np.int64), np.ones(count, dtype=np.int64),
                 "E", np.stack([group, within], axis=1))]


def _columns(cell: np.ndarray, digit: np.ndarray, puzzle: Puzzle, conv: Convention,
             table: np.ndarray | None = None) -> np.ndarray:
    """Column positions of terms over ``(cell, digit)``: the convention's for canvas cells, the
    extra cells' auxiliary columns (``n_vars + k V + d``) for cells past the canvas.

    ``table`` (:func:`_position_table`), when given, is each canvas ``(cell, digit)``'s position:
    one gather in place of a division per term (32 M terms of one full-rank clue at 100x100 took
    8.8 s through :meth:`Convention.position`); terms outside it go the checked way."""
    canvas = puzzle.rows * puzzle.cols
    if table is not None and cell.size and not puzzle.extra:
        v = table.size // max(canvas, 1)
        if cell.min() >= 0 and cell.max() < canvas and digit.min() >= 0 and digit.max() < v:
            return table[cell * v + digit]
    if not puzzle.extra:
        return conv.position(cell // puzzle.cols, cell % puzzle.cols, digit)
    out = np.empty(cell.size, dtype=np.int64)
    inside = cell < canvas
    out[inside] = conv.position(cell[inside] // puzzle.cols, cell[inside] % puzzle.cols, digit[inside])
    out[~inside] = conv.n_vars + (cell[~inside] - canvas) * puzzle.n_values + digit[~inside]
    return out


def _position_table(puzzle: Puzzle, conv: Convention) -> np.ndarray:
    """``(rows * cols * V,)`` the position of canvas cell ``c``'s digit ``d`` at ``c V + d``."""
    cell, digit = np.divmod(np.arange(puzzle.rows * puzzle.cols * conv.v, dtype=np.int64), conv.v)
    return conv.position(cell // puzzle.cols, cell % puzzle.cols, digit).astype(np.int64, copy=False)


#: Cell terms whose columns :func:`_place_columns` finds in one call (blocks together up to this).
_COLUMN_CHUNK = 1 << 20


def _place_columns(cols: list[np.ndarray], slots: list[int], terms: list[tuple[np.ndarray, np.ndarray]], puzzle: Puzzle,
                   conv: Convention, table: np.ndarray | None) -> None:
    """Put in ``cols[slots[b]]`` the columns of block ``b``'s cell terms ``terms[b]`` (cells,
    digits), consecutive blocks in one :func:`_columns` call up to :data:`_COLUMN_CHUNK` terms (a
    call per block was a fifth of a 9x9 rule puzzle's rows; a chunk keeps a large model's
    copies small)."""
    start = 0
    while start < len(terms):
        stop, held = start + 1, terms[start][0].size
        while stop < len(terms) and held + terms[stop][0].size <= _COLUMN_CHUNK:
            held += terms[stop][0].size
            stop += 1
        part = terms[start:stop]
        placed = _columns(np.concatenate([c for c, _ in part]), np.concatenate([d for _, d in part]), puzzle, conv, table)
        for slot, cut in zip(slots[start:stop], np.split(placed, np.cumsum([c.size for c, _ in part])[:-1])):
            cols[slot] = cut
        start = stop


#: The puzzle's shape cache's entry of its rule rows, by convention (:func:`shared_rule_rows`).
_SHARED_ROWS = "rule_rows"


def shared_rule_rows(puzzle: Puzzle, conv: Convention) -> RuleRows:
    """:func:`build_rule_rows`, built once per shape, rules and convention: the rows do not depend
    on the clues, so the puzzles that share ``puzzle``'s shape cache (a presolved model's, a batch's
    records of one rule group: :func:`pipeline.core.puzzle.with_other_clues`) share them.

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.
    conv : Convention
        Column positions of the variables.

    Returns
    -------
    RuleRows
    """
    cached = shape_cache(puzzle).setdefault(_SHARED_ROWS, {})
    if conv not in cached:
        cached[conv] = build_rule_rows(puzzle, conv)
    return cached[conv]


def build_rule_rows(puzzle: Puzzle, conv: Convention) -> RuleRows:
    """``R``: each rule's rows (registry order of kinds, then each kind's families; rules of one
    kind in the puzzle's order, numbered 1.. within the kind), columns in ``conv`` positions and
    the auxiliary columns after them.

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.
    conv : Convention
        Column positions of the variables.

    Returns
    -------
    RuleRows
    """
    board = puzzle.board
    by_family: dict[tuple[str, str], list] = {}
    order: list[tuple[str, str]] = []
    aux_base = puzzle.board.n_extra * puzzle.n_values   # the extra cells' columns come first
    for block in extra_cell_rows(puzzle) + unit_le_rows(puzzle):   # V > N: the units first, as <= rows
        by_family[(block.family, block.sense)] = [(block, conv.n_vars)]
        order.append((block.family, block.sense))
    shared = {of_kind[0].kind: blocks for of_kind, blocks in kind_blocks(puzzle)}   # kinds without auxiliary columns
    built = sum(_terms(blocks) for blocks in shared.values())
    for of_kind in rules_by_kind(puzzle):
        # a kind's rows at once (Rule.rows_of); rule by rule where each rule's auxiliary columns follow the last's
        aux = isinstance(of_kind[0], AuxRule)
        for index, rules in enumerate([[rule] for rule in of_kind] if aux else [of_kind], start=1):
            blocks = type(rules[0]).rows_of(rules, board, index) if aux else shared[rules[0].kind]
            if aux:   # rule by rule, counted with the rest as kind_blocks counts them
                built = _within_allowance(built + _terms(blocks), rules)
            for block in blocks:
                key = (block.family, block.sense)
                if key not in by_family:
                    by_family[key] = []
                    order.append(key)
                by_family[key].append((block, conv.n_vars + aux_base))
            if aux:
                aux_base += sum(b.count for b in cast(AuxRule, rules[0]).aux_columns(board, index))

    rows, data, rhs, senses, labels, families = [], [], [], [], [], []
    cols: list[np.ndarray] = []
    base = 0
    big = sum(block.cell.size for blocks in by_family.values() for block, _ in blocks) > conv.n_vars
    table = _position_table(puzzle, conv) if big and not puzzle.extra else None
    slots: list[int] = []
    terms: list[tuple[np.ndarray, np.ndarray]] = []
    for key in order:
        family, sense = key
        count = 0
        for block, first_aux in by_family[key]:
            if not block.n_rows:
                continue
            rows.append(block.row + base + count)
            slots.append(len(cols))   # the cell terms' columns: one _columns call after the loop
            cols.append(block.cell)
            terms.append((block.cell, block.digit))
            data.append(block.coef)
            if isinstance(block, AuxRows) and block.aux_row.size:
                rows.append(block.aux_row + base + count)
                cols.append(first_aux + block.aux_col)
                data.append(block.aux_coef)
            rhs.append(block.rhs)
            labels.append((family, block.labels))
            count += block.n_rows
        if count:
            senses.append(np.full(count, sense))
            families.append((family, sense, count))
            base += count
    _place_columns(cols, slots, terms, puzzle, conv, table)
    names, aux_families = aux_column_names(puzzle) if aux_base else (np.zeros(0, dtype=str), ())
    if not families:
        empty = np.zeros(0)
        nothing = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), empty)
        return RuleRows(nothing, conv.n_vars, empty, np.zeros(0, dtype="<U1"), (), (), names, aux_families)
    entries = (np.concatenate(rows), np.concatenate(cols), np.concatenate(data).astype(float))
    return RuleRows(entries, conv.n_vars, np.concatenate(rhs).astype(float), np.concatenate(senses),
                    tuple(labels), tuple(families), names, aux_families)
