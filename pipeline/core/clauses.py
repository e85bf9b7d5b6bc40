"""The SAT clause encoding of a model: every ``= 1`` row as one at-least-one clause plus the
clauses of an at-most-one encoding (the modelling API of the SAT engine, generate and batch;
:mod:`formats.cnf` only renders it as DIMACS text).

One entry point, :func:`encode`, takes the model's rows (the solver view, or any 0-1 matrix over
full positions) and returns an :class:`Encoding`: cell variable ``v`` is the convention's 0-based
position + 1 (``docs/conventions.md``, section CNF/OPB), auxiliary variables of the at-most-one
encoding follow from ``N^3 + 1``, a contiguous block per row in row order. Its clauses come out as
int64 chunks (:func:`iter_clause_tokens`, each clause ended by 0) or as Python lists
(:func:`clause_list`, for in-process solvers).

The at-most-one encodings come from python-sat's :mod:`pysat.card` (option ``amo``). A row of
``k`` literals always gets the same clause pattern up to renaming, so :func:`amo_template` asks
``pysat.card`` ONCE per row length for the pattern over literals ``1..k`` (auxiliaries numbered
from ``k + 1``) and :func:`clause_tokens` maps it onto every row of that length with numpy. No
Python object is made per clause: the empty 100x100 (10^6 cell variables, 40,000 rows) is encoded
in every encoding as arrays in chunks. ``pairwise`` is built with numpy alone (so the default
CNF export needs no python-sat); tests check it, and every template, against ``pysat.card``.
"""
from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.build import Model
from pipeline.core.extras import install_hint
from pipeline.core.clauses_pb import AMO_ENCODINGS, EncodingTooLarge, keep_pysat_off_sigint, renumbered, rule_row_range
from pipeline.core.clauses_pb import Shape as Template
from pipeline.core.errors import FormatError
from pipeline.core.limits import memory_limit
from pipeline.core.textin import size_text
from pipeline.core.rules.rowblocks import distinct_small_ints

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["AMO_ENCODINGS", "DEFAULT_AMO", "DEFAULT_BACKEND", "AUTO_PAIRWISE_MAX", "Encoding", "EncodingTooLarge",
           "Template", "amo_template", "aux_variables", "check_encoding_memory", "clause_list", "clause_tokens", "encode",
           "encoding_bytes", "iter_clause_tokens", "padded_clause_lists", "ReplacedRows", "keep_pysat_off_sigint", "resolve_amo", "settled_clauses", "value_literals"]

#: The python-sat solver the SAT engine uses unless ``--sat-backend`` names another (here, so the
#: command line words its help without importing the engine).
DEFAULT_BACKEND = "cadical153"

#: ``auto`` picks an at-most-one encoding (one of :data:`AMO_ENCODINGS`) by row length.
DEFAULT_AMO = "auto"
#: ``auto`` uses pairwise up to this row length (N), the ladder encoding above: pairwise grows as
#: k^2/2 clauses per row (2.0e8 clauses for the 100x100), the ladder as about 3k. 25x25 is
#: pairwise by measurement: the 18 minimal 25x25 of 25x25_gecode.txt with the uniqueness proof
#: (solve's default), quiet machine, 2026-11-26: pairwise total 73.2/71.8 s, median 1.77/1.75 s,
#: slowest 16.5/16.1 s in two runs, against ladder 85.0-87.9 s, 2.42-2.49 s, 17.1-17.6 s in three
#: and seqcounter 90.6 s, 2.13 s, 20.6 s (README, SAT benchmarks). Above 25 the ladder (same size
#: class as the sequential counter, and faster than it on those puzzles).
AUTO_PAIRWISE_MAX = 25
_CHUNK_TOKENS = 1 << 20  # literals rendered per chunk (bounded memory on the 100x100)
#: Peak bytes per nonzero of ``A`` that an engine built from an encoding takes (the clause lists
#: and the solver's own copy), measured as ``ru_maxrss`` of one-clue N x N grids (2026-12-01):
#: ladder 1,340-1,510 (N = 25..49; an empty 100x100 peaked at 5.4 GB), seqcounter 1,000, bitwise
#: 1,660 (N = 36); pairwise grows with N (N(N-1)/2 clauses a row): 2,160 at 16, 3,120 at 25, hence
#: ``_PAIRWISE_BYTES``; cardnetwrk 2,950, totalizer 6,060 and sortnetwrk 8,520 at N = 25 grow as
#: log^2 N (totalizer 7,760 at 36).
_BYTES_PER_NONZERO = {"ladder": 1_500, "seqcounter": 1_100, "bitwise": 1_700, "cardnetwrk": 3_000,
                      "totalizer": 6_100, "sortnetwrk": 8_600}
_PAIRWISE_BYTES = (300, 120)   # bytes per nonzero: a + b * N
_LOG2_BASE_N = 25              # the networks' figures are at this N


def value_literals(model: Model, cells: np.ndarray, n_digits: int | None = None) -> np.ndarray:
    """``(len(cells), N)``: the SAT variable (position + 1) of each cell's each value, the
    literals the SAT engine's own rule encodings (running sums, combined sums) are written over.
    An extra cell (``rows * cols + k``, ISS ``Var``) reads its digit columns, the first auxiliary
    columns (:func:`pipeline.core.extracells.extra_column_names`), ``n_values`` of them a cell.

    Parameters
    ----------
    model : Model
        The model (its convention numbers the positions).
    cells : numpy.ndarray
        Cell indices (``row * cols + col``; from ``rows * cols`` on, extra cells).
    n_digits : int, optional
        ``N``, the first digits read (None: the puzzle's ``n``; its ``n_values`` for every value
        of a puzzle with more values than its side, as a 7x7 of 1..9).

    Returns
    -------
    numpy.ndarray
        int64 literals, one row a cell.
    """
    puzzle = model.puzzle
    cells = np.asarray(cells, dtype=np.int64)
    canvas = puzzle.rows * puzzle.cols
    on_grid = cells < canvas
    r, c = np.divmod(np.where(on_grid, cells, 0), puzzle.cols)
    digits = np.arange(puzzle.n if n_digits is None else n_digits)[None, :]
    grid = model.convention.position(r[:, None], c[:, None], digits).astype(np.int64)
    extra = model.convention.n_vars + (cells[:, None] - canvas) * puzzle.n_values + digits
    return np.where(on_grid[:, None], grid, extra) + 1


def padded_clause_lists(rows: np.ndarray) -> list[list[int]]:
    """Clauses made as zero-padded rows (a 0 anywhere is no literal) as lists, grouped by length
    (shortest first, each group in row order): how the dedicated encodings built with numpy hand
    their clauses on.

    Parameters
    ----------
    rows : numpy.ndarray
        ``(m, w)`` int64 literals, 0 for none.

    Returns
    -------
    list of list of int

    Examples
    --------
    >>> padded_clause_lists(np.array([[1, 0, -2], [0, 3, 0], [4, 5, 6]]))
    [[3], [1, -2], [4, 5, 6]]
    """
    rows = np.take_along_axis(rows, np.argsort(rows == 0, axis=1, kind="stable"), axis=1)   # zeros last
    length = np.count_nonzero(rows, axis=1)
    out: list[list[int]] = []
    for w in np.unique(length):
        out += rows[length == w, :w].tolist()
    return out


class ReplacedRows:
    """The clauses a dedicated encoding made (``clauses``, ``n_aux`` auxiliary variables of its
    own) in place of the rule rows whose labels start with one of :attr:`prefixes` (none: the
    clauses stand beside every row). :func:`pipeline.core.clauses_rules.rule_clauses` asks
    :meth:`keep_rows` which rows still need their own encoding.

    Examples
    --------
    >>> class Seen(ReplacedRows):
    ...     prefixes = ("skyscraperseen_",)
    >>> Seen([[1]]).keep_rows(np.array(["skyscraperseen_1_2_1", "skyscraper_1"])).tolist()
    [False, True]
    >>> Seen([]).keep_rows(np.array(["skyscraperseen_1_2_1"])).tolist()   # it stood aside: every row stays
    [True]
    """

    prefixes: tuple[str, ...] = ()

    def __init__(self, clauses: list[list[int]], n_aux: int = 0) -> None:
        self.clauses, self.n_aux = clauses, n_aux

    def keep_rows(self, labels: np.ndarray) -> np.ndarray:
        """Which of the rows labelled ``labels`` still need their own encoding: all but those of
        :attr:`prefixes`, and all when no clauses were made.

        Parameters
        ----------
        labels : numpy.ndarray
            Row labels (``fullranksame_1_2_3_1``, ``cagesum_2``, ...).

        Returns
        -------
        numpy.ndarray
            A boolean mask over ``labels``.
        """
        labels = np.asarray(labels, dtype=str)
        if not self.clauses:
            return np.ones(labels.size, dtype=bool)
        hit = np.zeros(labels.size, dtype=bool)
        for prefix in self.prefixes:
            hit |= np.char.startswith(labels, prefix)
        return ~hit


def aux_variables(model: Model, family: str, *, view: bool) -> Callable[[list[str]], np.ndarray | None]:
    """A lookup of a rule's own auxiliary columns by name (``aux_<family>_...``), for an encoding
    written over them: ``lookup(names)`` gives their SAT variables (position + 1), or None when one
    is missing or, in a reduced solver view, was settled (left out of the solver), where the
    encoding stands aside and the rows keep theirs.

    Parameters
    ----------
    model : Model
        The model (its auxiliary names; columns).
    family : str
        The names' prefix after ``aux_`` (``"fullrank"``: ``aux_fullrank_1_2_3``).
    view : bool
        A one-puzzle engine's solver view (a reduced model's settled columns are not in it).

    Returns
    -------
    callable
        ``names -> numpy.ndarray`` (int64, one variable a name) or None.

    Examples
    --------
    >>> from pipeline import build_model, parse_puzzle
    >>> model = build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "skyscraper", "clue": "r0c1", "count": 2}]}'))
    >>> lookup = aux_variables(model, "skyscraper", view=True)
    >>> lookup(["aux_skyscraper_1_2"]).tolist() == [model.convention.n_vars + 1], lookup(["aux_skyscraper_9_9"])
    (True, None)
    """
    names = np.asarray(model.aux_names, dtype=str)
    own = np.flatnonzero(np.char.startswith(names, f"aux_{family}_"))
    at = dict(zip(names[own].tolist(), own.tolist()))
    n_vars = model.convention.n_vars

    def lookup(wanted: list[str]) -> np.ndarray | None:
        if any(name not in at for name in wanted):
            return None
        positions = np.array([at[name] for name in wanted], dtype=np.int64) + n_vars
        if view and model.is_reduced and not np.isin(positions, model.columns).all():
            return None
        return positions + 1
    return lookup


def settled_clauses(model: Model, read: list[np.ndarray]) -> list[list[int]]:
    """Unit clauses that fix a reduced model's settled positions among ``read``: a presolved
    (``reduce``) model leaves them out of the solver view, so clauses of the SAT engine's own
    that read them (running sums, combined sums) state them: a clue's true, the rest false.

    Parameters
    ----------
    model : Model
        The model (nothing is settled unless it is reduced).
    read : list of numpy.ndarray
        Cell positions (0-based) the clauses read, any number of arrays.

    Returns
    -------
    list of list of int
        One clause a settled position, over the positions + 1.
    """
    if not model.is_reduced or not read:
        return []
    settled = np.setdiff1d(np.unique(np.concatenate(read)), model.columns)
    clue = np.isin(settled, model.clue_positions)
    return np.where(clue, settled + 1, -(settled + 1))[:, None].tolist()


def check_encoding_memory(model: Model, amo: str | None) -> None:
    """Refuse, in one line, a SAT engine for ``model`` whose build would need more than
    :func:`~pipeline.core.limits.memory_limit` bytes (:func:`encoding_bytes`): rather than a
    ``MemoryError`` traceback half a minute in, or the machine swapping.

    Parameters
    ----------
    model : Model
        What the engine would encode (its exactly-one rows).
    amo : str or None
        The at-most-one encoding asked for (``auto``: :func:`resolve_amo`).

    Raises
    ------
    EncodingTooLarge
        The estimate is above the limit.
    """
    n = model.convention.n
    amo = resolve_amo(amo, n)
    need, limit = encoding_bytes(model.unit_positions.size, n, amo), memory_limit()
    if need > limit:
        leaner = "" if amo == "seqcounter" else ", or --amo seqcounter, the leanest"
        raise EncodingTooLarge(f"solver sat: its {amo} encoding of this {n}x{n} model needs about "
                               f"{size_text(need)}, more than the {size_text(limit)} allowed (set "
                               f"SUDOKU_PIPELINE_MAX_BYTES to allow more{leaner}, or another --solver)")


def encoding_bytes(nonzeros: int, n: int, amo: str) -> int:
    """Estimated peak bytes of building a SAT engine for rows of ``nonzeros`` in all, of length up
    to ``n``, with at-most-one encoding ``amo`` (resolved, not ``auto``).

    Parameters
    ----------
    nonzeros : int
        Nonzeros of the exactly-one rows (``4 N^3`` for an N x N grid).
    n : int
        The grid's side (the rows' length).
    amo : str
        One of :data:`AMO_ENCODINGS` but ``auto`` (:func:`resolve_amo`).

    Returns
    -------
    int

    Examples
    --------
    >>> round(encoding_bytes(4 * 100 ** 3, 100, "ladder") / 2 ** 30, 1)
    5.6
    """
    if amo == "pairwise":
        per = _PAIRWISE_BYTES[0] + _PAIRWISE_BYTES[1] * n
    else:
        per = _BYTES_PER_NONZERO.get(amo, max(_BYTES_PER_NONZERO.values()))
        if amo in ("cardnetwrk", "totalizer", "sortnetwrk") and n > _LOG2_BASE_N:
            per = int(per * (math.log2(n) / math.log2(_LOG2_BASE_N)) ** 2)
    return int(nonzeros) * per


def _card():
    """``pysat.card`` or a one-line FormatError naming the ``sat`` extra."""
    try:
        from pysat import card
    except ImportError:
        raise FormatError(f"cnf: this at-most-one encoding needs python-sat, a core dependency that is missing: "
                          f"{install_hint(None)}") from None
    keep_pysat_off_sigint()
    return card


def resolve_amo(amo: str | None, n: int) -> str:
    """The encoding ``amo`` names (``auto``/None: pairwise for N <= 25, else ladder).

    Parameters
    ----------
    amo : str or None
        ``auto``, None or one of :data:`AMO_ENCODINGS`.
    n : int
        Grid side N (the length of a row of the rules).

    Returns
    -------
    str
        One of :data:`AMO_ENCODINGS`.

    Raises
    ------
    FormatError
        ``amo`` is not one of :data:`AMO_ENCODINGS` or ``auto``.
    """
    if amo is None or amo == "auto":
        return "pairwise" if n <= AUTO_PAIRWISE_MAX else "ladder"
    if amo not in AMO_ENCODINGS:
        raise FormatError(f"cnf: unknown at-most-one encoding {amo!r}; expected auto or one of {', '.join(AMO_ENCODINGS)}")
    return amo


@functools.lru_cache(maxsize=512)
def amo_template(k: int, amo: str) -> Template:
    """The at-most-one pattern of a ``k``-literal row in encoding ``amo`` (auxiliaries renumbered
    contiguously after ``k``).

    Parameters
    ----------
    k : int
        Literals in the row.
    amo : str
        One of :data:`AMO_ENCODINGS` (already resolved: not ``auto``).

    Returns
    -------
    Template

    Examples
    --------
    >>> amo_template(3, "pairwise").tokens.tolist()
    [-1, -2, 0, -1, -3, 0, -2, -3, 0]
    """
    if k <= 1:
        return Template(k, np.zeros(0, dtype=np.int64), 0, 0)
    if amo == "pairwise":  # pysat.card's order: (i, j) for i < j, row-major
        i, j = np.triu_indices(k, 1)
        tokens = np.stack([-(i + 1), -(j + 1), np.zeros_like(i)], axis=1).ravel().astype(np.int64)
        return Template(k, tokens, i.size, 0)
    card = _card()
    clauses = card.CardEnc.atmost(list(range(1, k + 1)), bound=1, top_id=k,
                                  encoding=getattr(card.EncType, amo)).clauses
    return renumbered(clauses, k)


# ----------------------------------------------------------------------------------------------
# the clause set of a model
# ----------------------------------------------------------------------------------------------
@dataclass
class Encoding:
    """The CNF of a model: rows as cell-variable lists, per-row auxiliaries, bound units."""

    amo: str
    n_cells: int
    indptr: np.ndarray  # row i's cell variables are cells[indptr[i]:indptr[i + 1]] (CSR layout)
    cells: np.ndarray   # cell variable numbers (position + 1), row after row
    aux_start: np.ndarray  # first auxiliary variable of each row
    n_aux: int
    units: np.ndarray  # signed unit literals of the bounds (after the rows)
    n_clauses: int
    #: the model's auxiliary 0-1 columns (docs/conventions.md): variables ``n_cells + 1 ..``,
    #: before this encoding's own auxiliaries
    n_model_aux: int = 0

    @property
    def n_vars(self) -> int:
        return self.n_cells + self.n_model_aux + self.n_aux

    def facts(self) -> dict:
        """What the manifest and the ``c`` line record (auxiliaries named by rule)."""
        lengths = np.diff(self.indptr)
        per_length = {str(k): amo_template(int(k), self.amo).n_aux for k in distinct_small_ints(lengths)}
        first_aux = self.n_cells + self.n_model_aux + 1
        model_aux = {"model_aux_variables": [self.n_cells + 1, first_aux - 1]} if self.n_model_aux else {}
        return {"amo": self.amo, "variables": self.n_vars, "clauses": self.n_clauses,
                "cell_variables": [1, self.n_cells], "variable_rule": "v = position + 1", **model_aux,
                "aux_variables": [first_aux, self.n_vars] if self.n_aux else [],
                "aux_rule": "each row of the solver view in order, a contiguous block",
                "aux_per_row_length": {k: v for k, v in per_length.items() if v}}


def encode(model: Model, amo: str | None = DEFAULT_AMO, *, rows: sp.csr_matrix | np.ndarray | None = None) -> Encoding:
    """The CNF structure of ``model`` (or of ``rows``, a 0-1 matrix over full positions, or a
    table of positions with one row per matrix row, as :attr:`Model.unit_positions`).

    Parameters
    ----------
    model : Model
        Rows ``Aeq`` (all ``= 1``) over ``model.columns``; ``lb = 1`` columns become unit clauses.
    amo : str
        At-most-one encoding (:data:`AMO_ENCODINGS` or ``auto``).
    rows : scipy.sparse.csr_matrix or numpy.ndarray, optional
        Encode these rows (columns = full positions) instead of the solver view, no bounds
        (the SAT engine encodes ``A``, as the table :attr:`Model.unit_positions`, and passes
        clues as assumptions).

    Returns
    -------
    Encoding

    Raises
    ------
    FormatError
        Unknown encoding, or python-sat missing for a pysat encoding (an objective is left out:
        the clauses are the constraints alone; a CNF file refuses a model with one).
    """
    n = model.convention.n
    amo = resolve_amo(amo, n)
    n_cells = model.convention.n_vars
    if rows is None:
        var_of_col = model.columns.astype(np.int64) + 1
        lb, ub = model.lb, model.ub
        units = np.concatenate([var_of_col[lb > 0], -var_of_col[ub < 1]])
        indptr, cells = _exactly_one_row_lists(model)
    elif isinstance(rows, np.ndarray):   # equal-length rows of positions: no matrix needed
        n_rows, k = rows.shape
        indptr = np.arange(n_rows + 1, dtype=np.int64) * k
        cells = np.sort(rows, axis=1).ravel().astype(np.int64) + 1
        units = np.zeros(0, dtype=np.int64)
    else:
        a = rows.tocsr()
        a.sort_indices()
        indptr, cells = a.indptr.astype(np.int64), a.indices.astype(np.int64) + 1
        units = np.zeros(0, dtype=np.int64)
    lengths = np.diff(indptr)
    kinds = distinct_small_ints(lengths)
    aux_of_len = np.zeros(kinds.max(initial=0) + 1, dtype=np.int64)
    clauses_of_len = np.zeros_like(aux_of_len)
    for k in kinds:
        t = amo_template(int(k), amo)
        aux_of_len[k], clauses_of_len[k] = t.n_aux, t.n_clauses + 1  # + the at-least-one clause
    aux_count = aux_of_len[lengths]
    # the model's auxiliary columns (variables n_cells + 1 ..) come before the encoding's own
    aux_start = n_cells + model.n_aux + 1 + np.concatenate([[0], np.cumsum(aux_count)[:-1]]).astype(np.int64)
    n_clauses = int(clauses_of_len[lengths].sum()) + units.size
    return Encoding(amo, n_cells, indptr, cells, aux_start, int(aux_count.sum()), units.astype(np.int64), n_clauses,
                    model.n_aux)


def _exactly_one_row_lists(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, cells)`` of :func:`exactly_one_rows`, each row's variables ascending, read off
    the position tables (the kept rows of ``A``, less the columns ``reduce`` removed, then ``B``
    for ``rows``) with no matrix: a SAT solve never imports scipy for its unit rows. The rule
    rows between them in ``Aeq`` are not among these (the same rows as the matrix's on ISS's
    330 rule puzzles, built and presolved; ``tests/core/test_clauses.py`` checks it)."""
    units = model.unit_positions
    if model.is_reduced:
        kept = np.zeros(model.convention.n_vars, dtype=bool)
        kept[model.columns[model.columns < kept.size]] = True   # (auxiliary columns come after the cells)
        units = units[model.kept_unit_rows]
        in_view = kept[units]
        unit_lengths, unit_cells = in_view.sum(axis=1), units[in_view]
    else:   # every position of a row is a column of the view (a layout's absent cells are in no row)
        unit_lengths, unit_cells = np.full(units.shape[0], units.shape[1]), units.ravel()
    clues = model.clue_positions if model.clue_encoding == "rows" else np.zeros(0, dtype=np.int64)
    lengths = np.concatenate([unit_lengths, np.ones(clues.size)]).astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    # a position's variable is its position + 1 (the view's columns keep their positions)
    return indptr, np.concatenate([unit_cells, clues]).astype(np.int64) + 1


def exactly_one_rows(model: Model) -> sp.csr_matrix:
    """The ``= 1`` rows of ``model.Aeq`` (units and clues): every row but those that rules add
    (:func:`pipeline.core.clauses_pb.rule_row_range`), which :mod:`pipeline.core.clauses_pb`
    encodes apart.

    Parameters
    ----------
    model : Model
        Any model; a unit-only model gives its whole ``Aeq``.

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    import scipy.sparse as sp  # here, not at the top: the SAT engine's unit rows need no matrix

    a = model.Aeq.tocsr()
    start, stop = rule_row_range(model)
    if stop == start:
        return a
    return sp.vstack([a[:start], a[stop:]], format="csr")


def _row_chunks(enc: Encoding) -> Iterator[tuple[int, int]]:
    """Row ranges ``[lo, hi)`` of about ``_CHUNK_TOKENS`` literals each."""
    lengths = np.diff(enc.indptr)
    sizes = np.zeros(lengths.max(initial=0) + 1, dtype=np.int64)
    for k in distinct_small_ints(lengths):
        sizes[k] = k + 1 + amo_template(int(k), enc.amo).tokens.size
    cum = np.concatenate([[0], np.cumsum(sizes[lengths])])
    bounds = np.searchsorted(cum, np.arange(0, cum[-1], _CHUNK_TOKENS), side="right") - 1
    bounds = np.concatenate([bounds, [lengths.size]])   # ascending; a repeated bound is skipped below
    for lo, hi in zip(bounds[:-1], bounds[1:]):  # noqa: RUF007 (numpy arrays)
        if hi > lo:
            yield int(lo), int(hi)


def clause_tokens(enc: Encoding, lo: int, hi: int) -> np.ndarray:
    """Literals of rows ``lo..hi-1`` (each clause ended by 0): per row, its at-least-one clause,
    then its at-most-one clauses. Rows of one length are mapped from their template at once.

    Parameters
    ----------
    enc : Encoding
        From :func:`encode`.
    lo, hi : int
        The rows ``[lo, hi)`` of the encoding.

    Returns
    -------
    numpy.ndarray
        int64 literals, every clause followed by 0.
    """
    indptr = enc.indptr
    lengths = np.diff(indptr[lo:hi + 1])
    sizes = np.zeros(lengths.max(initial=0) + 1, dtype=np.int64)
    kinds = distinct_small_ints(lengths)
    for k in kinds:
        sizes[k] = k + 1 + amo_template(int(k), enc.amo).tokens.size
    row_size = sizes[lengths]
    offset = np.concatenate([[0], np.cumsum(row_size)]).astype(np.int64)
    out = np.zeros(int(offset[-1]), dtype=np.int64)
    data = enc.cells
    for k in kinds:
        rows = np.flatnonzero(lengths == k)
        starts = indptr[lo + rows]
        cells = data[starts[:, None] + np.arange(k)] if k else np.zeros((rows.size, 0), dtype=np.int64)
        t = amo_template(int(k), enc.amo)
        tok = t.tokens
        mag = np.abs(tok)
        sign = np.sign(tok)
        block = np.zeros((rows.size, k + 1 + tok.size), dtype=np.int64)
        block[:, :k] = cells  # the at-least-one clause (and its 0)
        if tok.size:
            inputs = (mag >= 1) & (mag <= k)
            aux = mag > k
            body = block[:, k + 1:]     # a view: the assignments below fill the block
            body[:, inputs] = cells[:, mag[inputs] - 1] * sign[inputs]
            body[:, aux] = (enc.aux_start[lo + rows][:, None] + (mag[aux] - k - 1)) * sign[aux]
        if rows.size == lengths.size:   # rows of one length (every grid without rules): in order
            return block.ravel()
        out[(offset[rows][:, None] + np.arange(block.shape[1])).ravel()] = block.ravel()
    return out


def iter_row_tokens(enc: Encoding) -> Iterator[np.ndarray]:
    """The rows' clauses (0-terminated literals, in file order) as int64 chunks, without the
    bound units (:func:`unit_tokens`): a writer puts other clauses (rule rows) between them."""
    for lo, hi in _row_chunks(enc):
        yield clause_tokens(enc, lo, hi)


def unit_tokens(enc: Encoding) -> np.ndarray:
    """The bound unit clauses (``lb = 1`` / ``ub = 0`` columns), 0-terminated, as one array."""
    return np.stack([enc.units, np.zeros_like(enc.units)], axis=1).ravel()


def iter_clause_tokens(enc: Encoding) -> Iterator[np.ndarray]:
    """Every clause's literals (0-terminated), in file order, as int64 chunks."""
    yield from iter_row_tokens(enc)
    if enc.units.size:
        yield unit_tokens(enc)


def token_clauses(tokens: np.ndarray) -> list[list[int]]:
    """0-terminated literals (a chunk of :func:`iter_clause_tokens`) as Python lists, one per clause.

    Parameters
    ----------
    tokens : numpy.ndarray
        Literals, each clause ended by 0.

    Returns
    -------
    list of list of int
    """
    ends = np.flatnonzero(tokens == 0)
    if not ends.size:
        return []
    starts = np.concatenate([[0], ends[:-1] + 1])
    if (ends - starts == ends[0]).all():   # clauses of one length (a chunk of pairs): one reshape
        return tokens[:ends[-1] + 1].reshape(ends.size, -1)[:, :-1].tolist()
    flat = tokens.tolist()
    return [flat[a:b] for a, b in zip(starts.tolist(), ends.tolist())]


def clause_list(enc: Encoding) -> list[list[int]]:
    """All clauses as Python lists (for in-process solvers and tests; small models only)."""
    clauses: list[list[int]] = []
    feed_clauses(clauses.extend, enc)
    return clauses


def feed_clauses(add: Callable[[list[list[int]]], object], enc: Encoding, deadline: float | None = None) -> bool:
    """Hand ``enc``'s clauses, in file order, to ``add`` (a python-sat solver's ``append_formula``)
    a chunk at a time, so that neither the whole list is held (a 100x100's 15.8 million clauses
    are gigabytes of Python lists) nor a time limit is overrun while loading them.

    Parameters
    ----------
    add : callable
        Takes a list of clauses.
    enc : Encoding
        From :func:`encode`.
    deadline : float, optional
        A ``time.perf_counter()`` value checked between two chunks.

    Returns
    -------
    bool
        False when ``deadline`` passed first (the rest was not handed on).
    """
    for tokens in iter_clause_tokens(enc):
        add(token_clauses(tokens))
        if deadline is not None and time.perf_counter() > deadline:
            return False
    return True
