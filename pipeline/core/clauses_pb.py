"""Clauses of the rule rows: cardinality and pseudo-Boolean encodings from python-sat.

The unit and clue rows of a model (``= 1`` with ones) are exactly-one constraints, encoded by
the CNF writer as an at-least-one clause plus an at-most-one encoding. The rows of the rules
beyond units (:class:`pipeline.core.build.RuleRows` in the solver view: the ``=`` rows of ``Aeq``
that rules add, such as killer sums, then every row of ``Aineq``) are general integer rows
``sum_i c_i x_i (<= | =) b``; :func:`encode_rule_rows` turns each into clauses:

1. normalise: a negative coefficient ``c x`` is ``|c| ~x + c``, so every row becomes
   ``sum_i w_i l_i (<= | =) B`` over literals ``l_i`` (``x`` or ``~x``) with weights ``w_i >= 1``
   and ``B = b + sum |negative c|``; the terms of a row are ordered by weight, then variable;
2. settle the trivial rows without an encoder: ``B < 0`` (or ``=`` with ``B`` above the weights'
   sum) is the empty clause; a ``<=`` row the weights cannot exceed gives no clause; ``B = 0``
   gives the unit clauses ``~l_i`` (an ``=`` row with ``B`` the sum of the weights, the units
   ``l_i``);
3. all weights 1 (anti-knight, anti-king, non-consecutive, sum-less cages, Kropki dots, parity):
   a cardinality constraint over the literals, ``pysat.card.CardEnc.atmost`` / ``equals``; a bound
   of 1 is an at-most-one (with an at-least-one clause for ``=``) in the ``amo`` encoding of the
   unit rows, a larger bound uses the ``card`` encoding;
4. other weights (cage sums, thermometers, greater-than signs): ``pysat.pb.PBEnc.leq`` /
   ``equals`` in the ``pb`` encoding (python-sat's backend pindakaas, a core dependency).

A row's clauses depend only on its shape (sense, weights, bound), so each shape is encoded ONCE
over literals ``1..k`` (auxiliaries renumbered ``k+1..``) and mapped onto every row of that
shape with numpy: no Python work per row beyond grouping. Auxiliary variables are numbered from
``top + 1``, a contiguous block per rule row in row order (``top`` is the last variable before
them: the cell variables and the unit rows' auxiliaries in a CNF export).

The defaults (:data:`DEFAULT_CARD`, :data:`DEFAULT_PB`) were chosen by measurement:
``bench/sat_rules_bench.py`` (``make bench``), table in docs/conventions.md.
"""
from __future__ import annotations

import functools
import gc
import re
import time
from dataclasses import dataclass
from itertools import chain

from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.build import Model
from pipeline.core.csr import Csr, as_csr
from pipeline.core.errors import PipelineError, SolveError
from pipeline.core.extras import install_hint
from pipeline.core.limits import MAX_BYTES_ENV, memory_limit
from pipeline.core.textin import size_text
from pipeline.core.stops import TOO_LONG_TO_START, say_seconds

if TYPE_CHECKING:
    import scipy.sparse as sp

class EncodingOutlasts(PipelineError):
    """The rule rows' encoding ran past its deadline (the caller's time limit): the message says
    how far it got."""


class EncodingTooLarge(SolveError):
    """A SAT encoding whose build would need more memory than allowed
    (:func:`~pipeline.core.limits.memory_limit`): a batch record's status ``memory_limit``, which
    ``--retry`` can name (the unit rows' check: :func:`pipeline.core.clauses.check_encoding_memory`;
    the rule rows': :func:`encode_rows`)."""

    def memory_advice_only(self) -> "EncodingTooLarge":
        """This error advising only the memory setting, for a caller that offers no other engine
        or encoding (``explain``): ``(set ... to allow more, or --amo seqcounter, ...)`` becomes
        ``(set ... to allow more)``.

        Examples
        --------
        >>> e = EncodingTooLarge("needs about 5.6 GiB (set SUDOKU_PIPELINE_MAX_BYTES to allow more, "
        ...                      "or --amo seqcounter, the leanest, or another --solver)")
        >>> str(e.memory_advice_only())
        'needs about 5.6 GiB (set SUDOKU_PIPELINE_MAX_BYTES to allow more)'
        """
        self.args = (re.sub(r"\(set (\w+) to allow more[^)]*\)", r"(set \1 to allow more)", str(self)),)
        return self


#: Peak bytes per literal of the rule rows' clauses while :func:`encode_rows` builds them (the
#: token array and each shape's block; 26 measured as ``ru_maxrss`` on 5,000 greater-than rows,
#: 18 million literals, 2026-12-03).
ENCODE_BYTES_PER_TOKEN = 28
#: The same with the clauses as Python lists loaded into a python-sat solver, as the SAT engine
#: does (98 measured on the same rows).
ENGINE_BYTES_PER_TOKEN = 100


#: Cardinality encodings (``pysat.card.EncType`` names) for bounds of 2 or more.
CARD_ENCODINGS = ("seqcounter", "totalizer", "sortnetwrk", "cardnetwrk", "mtotalizer", "kmtotalizer")
#: Pseudo-Boolean encodings (``pysat.pb.EncType`` names).
PB_ENCODINGS = ("best", "bdd", "seqcounter", "sortnetwrk", "adder", "binmerge")
#: At-most-one encodings of a bound-1 row (those of the unit rows: ``pysat.card`` names).
AMO_ENCODINGS = ("pairwise", "seqcounter", "ladder", "bitwise", "cardnetwrk", "sortnetwrk", "totalizer")
DEFAULT_CARD = "seqcounter"
DEFAULT_PB = "best"
#: Weighted rows whose partial sums (:func:`reachable_sums`) pass this many are encoded with
#: :data:`PB_COMPACT` under ``best``: pindakaas' ``best`` grows with them. A 10-cell ``sum`` rule
#: with weights of +-53 to 100 (698,000 sums) took it past 6 GB and the process aborted, where
#: ``binmerge`` wrote 45,009 clauses in 0.01 s; ISS's pill arrows ("I Bet Someone Did This
#: Already", 955,000 sums) took 9.3 million clauses and 18 s, ``binmerge`` solves it in 1.0 s
#: and "Triple digits" (143,000) 33.5 -> 19.2 s (2026-12-04). Every other weighted row of ISS's
#: collection and of the rule bench has at most 16,121 sums, and keeps ``best``.
PB_BEST_MAX_SUMS = 100_000
#: The encoding of those rows: its size grows with the terms and the weights' bits, not the sums.
PB_COMPACT = "binmerge"
#: Encodings whose size grows with the partial sums: a row past this many is refused (one line,
#: :class:`EncodingTooLarge`) rather than built (``seqcounter`` wrote 3.9 million clauses, 0.9 GB,
#: for the 698,000 above; ``sortnetwrk`` 10.5 million, 2.6 GB).
PB_NAMED_MAX_SUMS = 2_000_000
_PB_BY_SUMS = ("best", "bdd", "seqcounter", "sortnetwrk")
#: A bound-1 rule row longer than this is encoded with the ladder even when the unit rows'
#: at-most-one is pairwise: the automaton rules' step and read rows run to thousands of terms
#: (an ISS automaton of 6,556 transitions: about 10^7 pairwise clauses a row, gigabytes).
PAIRWISE_RULE_MAX = 64


def keep_pysat_off_sigint() -> None:
    """Stop python-sat from taking over SIGINT during its calls (for the whole process).

    In the main thread pysat's C calls (a solve, a cardinality encoding) install a SIGINT handler
    that ``longjmp``s out of the solver: CaDiCaL is then left mid-search and aborts the process
    at its next call ("fatal error: invalid API usage ... solver in invalid state", exit 134),
    and the handler stays installed, so a second Ctrl-C jumps into a stack frame that is gone
    (``free(): invalid pointer``, SIGSEGV). pysat installs it only when
    ``pysat._utils.MainThread.check()`` is true; made false here, a signal waits for the call to
    return and is handled in Python, with every solver intact. The SAT engine keeps its calls
    short (conflict budgets, :mod:`pipeline.solvers.sat`) so that this wait stays short.
    """
    try:
        from pysat._utils import MainThread
    except ImportError:
        return
    MainThread.check = staticmethod(_never_main_thread)


def _never_main_thread() -> bool:
    return False


def _card_module():
    try:
        from pysat import card
    except ImportError:
        raise PipelineError("rule rows: cardinality encodings need python-sat, a core dependency that is missing: "
                            f"{install_hint(None)}") from None
    keep_pysat_off_sigint()   # its encoders are C calls too
    return card


def _pb_module():
    try:
        from pysat import pb
        pb.EncType  # noqa: B018  (python-sat raises here when its PB backend, pindakaas, is absent)
    except (ImportError, AssertionError):
        raise PipelineError("rule rows: pseudo-Boolean encodings need python-sat with pindakaas, core dependencies that "
                            f"are missing: {install_hint(None)}") from None
    keep_pysat_off_sigint()
    return pb


def encoding_problem(model: Model) -> str | None:
    """Why the clauses of ``model``'s rule rows cannot be made in this environment (python-sat,
    or pindakaas for rows with weights other than 1, cannot be imported), or None.

    A model without rule rows needs neither. The check imports the encoders it names, once.

    Parameters
    ----------
    model : Model
        The model whose rows would be encoded.

    Returns
    -------
    str or None
    """
    if not getattr(model, "has_rules", False):
        return None
    try:
        _card_module()
        # R's own rows, not the solver view's: asking must not build the view (a 100x100
        # non-consecutive's took seconds more); the view's weights are some of these
        matrix = model.R.csr
        if matrix.nnz and (np.abs(matrix.data) != 1).any():
            try:
                _pb_module()
            except PipelineError:   # needed only if the view kept a weighted row (clues may settle it)
                view, _, _ = rule_rows_csr(model)
                if view.nnz and (np.abs(view.data) != 1).any():
                    raise
    except PipelineError as e:
        return str(e)
    return None


def _check(name: str, value: str, known: tuple[str, ...]) -> str:
    if value not in known:
        raise PipelineError(f"rule rows: unknown {name} encoding {value!r}; expected one of {', '.join(known)}")
    return value


@dataclass(frozen=True)
class Shape:
    """The clauses of one row shape over literals ``±1..±k`` and auxiliaries ``±(k+1)..±(k+n_aux)``
    (``tokens``: each clause's literals ended by 0)."""

    k: int
    tokens: np.ndarray
    n_clauses: int
    n_aux: int


def renumbered(clauses: list[list[int]], k: int) -> Shape:
    """``clauses`` over literals 1..k and any auxiliaries above k, auxiliaries made k+1.. contiguous
    (the at-most-one templates of :mod:`pipeline.core.clauses` and the rule rows' shapes alike).

    Parameters
    ----------
    clauses : list of list of int
        Clauses as python-sat returns them.
    k : int
        The input literals are ``±1..±k``.

    Returns
    -------
    Shape
    """
    # literals placed between the 0 ends by numpy (a listcomp per literal took 0.15 s of an automaton's set-up)
    length = np.fromiter(map(len, clauses), dtype=np.int64, count=len(clauses))
    flat = np.zeros(int(length.sum()) + length.size, dtype=np.int64)
    literal = np.ones(flat.size, dtype=bool)
    literal[np.cumsum(length + 1) - 1] = False
    flat[literal] = np.fromiter(chain.from_iterable(clauses), dtype=np.int64, count=int(length.sum()))
    magnitude = np.abs(flat)
    aux = np.unique(magnitude[magnitude > k])
    renamed = np.where(magnitude > k, k + 1 + np.searchsorted(aux, magnitude), magnitude) * np.sign(flat)
    return Shape(k, renamed.astype(np.int64), len(clauses), int(aux.size))


def reachable_sums(weights: tuple[int, ...], bound: int, stop: int | None = None) -> int:
    """The partial sums a weighted row's encodings by sums (BDD, counters) track: over each prefix
    of ``weights`` (rising), the distinct sums of its subsets up to ``bound``, added up; counting
    stops past ``stop``.

    Parameters
    ----------
    weights : tuple of int
        Positive weights.
    bound : int
        The row's bound (sums above it are not tracked).
    stop : int, optional
        Stop counting once the total passes this.

    Returns
    -------
    int
        The total; with ``stop``, a number above it once the total passes it, else the total or
        an upper bound of it no larger than ``stop``.

    Examples
    --------
    >>> reachable_sums((1, 1, 1), 1)   # {0}, {0, 1}, {0, 1}, {0, 1}
    7
    >>> reachable_sums((2, 3), 10)     # {0}, {0, 2}, {0, 2, 3, 5}
    7
    """
    most = len(weights) * (bound + 1) + 1
    if stop is not None and most <= stop:
        return most   # within the stop however the sums fall (a row of 65 cell terms, bound 336: 21,905)
    reach = np.zeros(bound + 1, dtype=bool)
    reach[0] = True
    total = 1
    for weight in sorted(weights):
        if weight <= bound:
            reach[weight:] |= reach[:bound + 1 - weight].copy()
        total += int(np.count_nonzero(reach))
        if stop is not None and total > stop:
            break
    return total


def _pb_encoding(pb: str, weights: tuple[int, ...], bound: int) -> str:
    """The encoding a weighted row gets when ``pb`` is asked: ``best`` past :data:`PB_BEST_MAX_SUMS`
    partial sums is :data:`PB_COMPACT`; an encoding by sums past :data:`PB_NAMED_MAX_SUMS` is refused."""
    if pb == "best":
        return PB_COMPACT if reachable_sums(weights, bound, PB_BEST_MAX_SUMS) > PB_BEST_MAX_SUMS else pb
    if pb in _PB_BY_SUMS and reachable_sums(weights, bound, PB_NAMED_MAX_SUMS) > PB_NAMED_MAX_SUMS:
        raise EncodingTooLarge(f"the pb encoding {pb} of a rule row of {len(weights)} terms with weights up to "
                               f"{max(weights)} and bound {bound} grows with its {PB_NAMED_MAX_SUMS:,}+ partial "
                               "sums; adder and binmerge stay small")
    return pb


@functools.lru_cache(maxsize=4096)
def shape_clauses(sense: str, weights: tuple[int, ...], bound: int, card: str, pb: str, amo: str) -> Shape:
    """The clauses of ``sum_i weights[i] * l_i (<= if sense == "L" else =) bound`` over literals
    ``l_i = i + 1`` (weights >= 1), auxiliaries renumbered after ``k = len(weights)``.

    Parameters
    ----------
    sense : {"L", "E"}
        ``<=`` or ``=``.
    weights : tuple of int
        The positive weights, one per literal.
    bound : int
        The right-hand side.
    card, pb, amo : str
        The encodings of cardinality rows (bound 2 or more), weighted rows and bound-1 rows.

    Examples
    --------
    >>> shape_clauses("L", (1, 1, 1), 1, "seqcounter", "bdd", "pairwise").tokens.tolist()
    [-1, -2, 0, -1, -3, 0, -2, -3, 0]
    >>> shape_clauses("E", (1, 1), 0, "seqcounter", "bdd", "pairwise").tokens.tolist()
    [-1, 0, -2, 0]
    >>> shape_clauses("L", (2, 3), -1, "seqcounter", "bdd", "pairwise").tokens.tolist()   # cannot hold
    [0]
    """
    k = len(weights)
    lits = list(range(1, k + 1))
    total = sum(weights)
    if bound < 0 or (sense == "E" and bound > total):
        return Shape(k, np.zeros(1, dtype=np.int64), 1, 0)              # the empty clause
    if sense == "L" and bound >= total:
        return Shape(k, np.zeros(0, dtype=np.int64), 0, 0)              # always holds
    if bound == 0:
        return renumbered([[-lit] for lit in lits], k)
    if sense == "E" and bound == total:
        return renumbered([[lit] for lit in lits], k)
    if all(w == 1 for w in weights):
        cardmod = _card_module()
        if bound == 1:
            if amo == "pairwise" and len(lits) > PAIRWISE_RULE_MAX:
                amo = "ladder"     # k^2/2 clauses would swamp the solver (an automaton's step rows)
            if amo == "pairwise":  # pysat.card's order: (i, j) for i < j, row-major
                clauses = [[-i, -j] for i in lits for j in lits if i < j]
            else:
                clauses = cardmod.CardEnc.atmost(lits, bound=1, top_id=k, encoding=getattr(cardmod.EncType, amo)).clauses
            return renumbered(([lits] if sense == "E" else []) + clauses, k)
        encode = cardmod.CardEnc.atmost if sense == "L" else cardmod.CardEnc.equals
        return renumbered(encode(lits, bound=bound, top_id=k, encoding=getattr(cardmod.EncType, card)).clauses, k)
    pbmod = _pb_module()
    encode = pbmod.PBEnc.leq if sense == "L" else pbmod.PBEnc.equals
    return renumbered(encode(lits=lits, weights=list(weights), bound=bound, top_id=k,
                              encoding=getattr(pbmod.EncType, _pb_encoding(pb, weights, bound))).clauses, k)


# ----------------------------------------------------------------------------------------------
# the rule rows of a model
# ----------------------------------------------------------------------------------------------
def rule_row_range(model: Model) -> tuple[int, int]:
    """``(start, stop)``: the rows of ``model.Aeq`` that rules add (between the unit rows and the
    clue rows; empty for unit-only puzzles). Every other row of ``Aeq`` is ``= 1`` with ones."""
    bands, _ = model.row_bands()   # units, the rules' = rows, clues
    rules = model.rule_family_counts()
    start = sum(rows for family, rows in bands if family not in rules and family != "clue")
    return start, start + sum(rows for family, rows in bands if family in rules)


def rule_rows(model: Model) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """``(matrix, rhs, sense)`` of the rule rows in the solver view, in row order: the rules'
    ``=`` rows of ``Aeq``, then ``Aineq`` (columns: the solver view's); :func:`rule_rows_csr`
    as a scipy matrix."""
    matrix, rhs, sense = rule_rows_csr(model)
    return matrix.to_scipy(), rhs, sense


def rule_rows_csr(model: Model) -> tuple[Csr, np.ndarray, np.ndarray]:
    """:func:`rule_rows` as numpy CSR arrays, without scipy: the rows ``Aeq`` and ``Aineq`` take
    from :attr:`Model.rule_csr` (its ``=`` rows, then its ``<=`` rows, each in order).

    Parameters
    ----------
    model : Model

    Returns
    -------
    (Csr, numpy.ndarray, numpy.ndarray)
        The rows, their right-hand sides and senses (``"E"`` | ``"L"``).
    """
    start, stop = rule_row_range(model)
    rhs = np.concatenate([model.beq[start:stop], model.bineq])
    sense = np.concatenate([np.full(stop - start, "E"), np.full(model.n_ineq, "L")])
    view_sense = model.rule_sense
    matrix = model.rule_csr.take_rows(np.concatenate([np.flatnonzero(view_sense == "E"),
                                                      np.flatnonzero(view_sense == "L")]))
    return matrix, rhs, sense


#: Clauses listed between two looks at the deadline (:meth:`RuleClauses.clauses`).
LIST_SLICE = 1 << 16


@dataclass
class RuleClauses:
    """The clauses of a model's rule rows (:func:`encode_rule_rows`).

    ``tokens``: every clause's literals, each clause ended by 0, rows in order; ``n_clauses``;
    ``aux`` the auxiliary variables ``[first, last]`` (empty when none); ``n_rows`` the rule
    rows; ``card``/``pb``/``amo`` the encodings used; ``shapes`` the distinct row shapes encoded.
    """

    tokens: np.ndarray
    n_clauses: int
    n_aux: int
    first_aux: int
    n_rows: int
    card: str
    pb: str
    amo: str
    shapes: int

    def clauses(self, deadline: float | None = None) -> list[list[int]]:
        """The clauses as lists (small models: tests and in-process solvers).

        Parameters
        ----------
        deadline : float, optional
            A ``time.perf_counter()`` value looked at every :data:`LIST_SLICE` clauses
            (:class:`EncodingOutlasts` once it passed: 6.8 million clauses take seconds to list).

        Returns
        -------
        list of list of int
        """
        # millions of new lists set off the cyclic collector's full passes over all of them (two
        # thirds of the listing's time); lists of ints make no cycles, so it waits till the end
        collecting = gc.isenabled()
        gc.disable()
        try:
            ends = np.flatnonzero(self.tokens == 0)
            out, start = [], 0
            for lo in range(0, ends.size, LIST_SLICE):
                if deadline is not None and time.perf_counter() > deadline:
                    raise EncodingOutlasts(f"listing the rule rows' {ends.size:,} clauses ran past the time limit "
                                           f"({lo:,} listed)")
                chunk = ends[lo:lo + LIST_SLICE]
                flat = self.tokens[start:int(chunk[-1]) + 1].tolist()
                at = 0
                for end in (chunk - start).tolist():
                    out.append(flat[at:end])
                    at = end + 1
                start = int(chunk[-1]) + 1
        finally:
            if collecting:
                gc.enable()
        return out

    def facts(self) -> dict:
        """What a CNF export records of them (``c sudoku-pipeline-cnf:`` line, manifest)."""
        return {"rows": self.n_rows, "clauses": self.n_clauses, "card": self.card, "pb": self.pb, "amo": self.amo,
                "aux_variables": [self.first_aux, self.first_aux + self.n_aux - 1] if self.n_aux else [],
                "aux_rule": "each rule row in order (the rules' = rows of Aeq, then Aineq), a contiguous block"}


def _check_memory(tokens: int, n_clauses: int, bytes_per_token: int, reserved_bytes: int) -> None:
    """:class:`EncodingTooLarge` when ``tokens`` literals (ends included) and ``reserved_bytes``
    would pass the memory allowed."""
    need, limit = reserved_bytes + tokens * bytes_per_token, memory_limit()
    if need > limit:
        raise EncodingTooLarge(f"the rule rows' {n_clauses:,} clauses ({tokens:,} literals) need about "
                               f"{size_text(need)}, more than the {size_text(limit)} allowed (set "
                               f"{MAX_BYTES_ENV} to allow more)")


def encode_rule_rows(model: Model, *, top: int, card: str = DEFAULT_CARD, pb: str = DEFAULT_PB,
                     amo: str = "pairwise", deadline: float | None = None) -> RuleClauses:
    """Clauses of ``model``'s rule rows (:func:`rule_rows`) over its CNF variables.

    Parameters
    ----------
    model : Model
        Any convention and clue encoding; variable ``v`` of solver column ``j`` is
        ``model.columns[j] + 1`` (docs/conventions.md, CNF/OPB).
    top : int
        The largest variable number in use before them: auxiliaries are ``top + 1 ..``.
    card : str
        Encoding of cardinality rows with a bound of 2 or more (:data:`CARD_ENCODINGS`).
    pb : str
        Encoding of rows with weights other than 1 (:data:`PB_ENCODINGS`).
    amo : str
        At-most-one encoding of bound-1 rows (:data:`AMO_ENCODINGS`; the CNF writer passes the
        one it uses for the unit rows).
    deadline : float, optional
        A ``time.perf_counter()`` value: :class:`EncodingOutlasts` when it passes before the
        encoding is done (checked between row shapes: one weighted shape of a published puzzle
        took 0.6 s).

    Returns
    -------
    RuleClauses

    Raises
    ------
    PipelineError
        An unknown encoding, or python-sat (with pindakaas for PB rows) missing.

    Examples
    --------
    >>> from pipeline import build_model, parse_puzzle
    >>> model = build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "thermo", "cells": ["r1c1", "r1c2"]}]}'))
    >>> enc = encode_rule_rows(model, top=64)
    >>> enc.n_rows, enc.first_aux, enc.n_clauses > 0
    (1, 65, True)
    """
    matrix, rhs, sense = rule_rows_csr(model)
    return encode_rows(matrix, rhs, sense, model.columns.astype(np.int64) + 1, top=top, card=card, pb=pb, amo=amo,
                       deadline=deadline)


def _groups(table: np.ndarray, rows: np.ndarray) -> list[tuple[list[int], np.ndarray]]:
    """The distinct rows of ``table`` (sorted, as python lists), each with its members of ``rows``
    (one per row of ``table``) in their order."""
    if not rows.size:
        return []
    distinct, inverse = np.unique(table, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")      # rows of each shape, in row order
    groups = np.split(rows[order], np.cumsum(np.bincount(inverse, minlength=len(distinct)))[:-1])
    return list(zip(distinct.tolist(), groups))


def encode_rows(matrix: Csr | sp.spmatrix, rhs: np.ndarray, sense: np.ndarray, var_of_col: np.ndarray, *, top: int,
                card: str = DEFAULT_CARD, pb: str = DEFAULT_PB, amo: str = "pairwise",
                deadline: float | None = None, bytes_per_token: int = ENCODE_BYTES_PER_TOKEN,
                reserved_bytes: int = 0, seconds_per_clause: float = 0.0) -> RuleClauses:
    """Clauses of the integer rows ``matrix x (<= | =) rhs`` (``sense`` "L" | "E" per row) over
    the variables ``var_of_col`` (one per column): :func:`encode_rule_rows` on rows of any origin
    (the SAT engine encodes a puzzle's rules ``R`` over all positions, clues left out).

    Parameters
    ----------
    matrix : Csr or scipy.sparse matrix
        Integer coefficients (a :class:`~pipeline.core.csr.Csr` is read without scipy).
    rhs, sense : numpy.ndarray
        Right-hand sides and senses, one per row.
    var_of_col : numpy.ndarray
        The CNF variable of each column.
    top, card, pb, amo, deadline
        As in :func:`encode_rule_rows`.
    bytes_per_token : int
        Peak bytes per literal of the clauses where they go (:data:`ENGINE_BYTES_PER_TOKEN` for
        an in-process solver).
    reserved_bytes : int
        Bytes the caller needs beside them (the unit rows' encoding).
    seconds_per_clause : float
        What each clause costs the caller after this (the SAT engine loads them): with a
        ``deadline``, clauses that would not be written out and loaded by it stop here, as soon as
        the shapes say how many there are (12.5 million of ISS's "Full rank 2" took 5 s to write
        out before the check after them refused them).

    Returns
    -------
    RuleClauses

    Raises
    ------
    EncodingTooLarge
        The clauses' literals times ``bytes_per_token``, with ``reserved_bytes``, would pass
        :func:`~pipeline.core.limits.memory_limit` (known from the row shapes, before they are
        written out: 50,000 greater-than rules took 16 GB).
    """
    _check("card", card, CARD_ENCODINGS)
    _check("pb", pb, PB_ENCODINGS)
    _check("at-most-one", amo, AMO_ENCODINGS)
    # scipy is not imported for a Csr (the SAT engine's rows); a stored zero would be read as literal 0
    matrix = as_csr(matrix).without_zeros()
    rhs = np.asarray(rhs)
    sense = np.asarray(sense)
    n_rows = rhs.size
    var_of_col = np.asarray(var_of_col, dtype=np.int64)
    lengths = np.diff(matrix.indptr)
    row_of = np.repeat(np.arange(n_rows), lengths)
    coef = matrix.data.astype(np.int64)
    if not np.array_equal(coef, matrix.data) or not np.array_equal(rhs, np.rint(rhs)):
        raise PipelineError("rule rows: coefficients and right-hand sides must be integers")
    weight = np.abs(coef)
    # literals: x for a positive coefficient, ~x for a negative one (c x = |c| ~x + c)
    lit = var_of_col[matrix.indices] * np.sign(coef)
    bound = rhs.astype(np.int64) + np.bincount(row_of, weights=np.where(coef < 0, weight, 0),
                                               minlength=n_rows).astype(np.int64)
    order = np.lexsort((np.abs(lit), weight, row_of))      # per row: by weight, then variable
    weight, lit = weight[order], lit[order]
    # one shape per distinct (sense, weights, bound): rows of one length grouped by np.unique
    starts = matrix.indptr
    keys: dict[tuple, np.ndarray] = {}
    is_eq = (sense == "E").astype(np.int64)
    # rows of weights 1 alone (an automaton's exactly-one rows come in hundreds of lengths: one
    # np.unique per length took 0.45 s) are grouped at once by (length, sense, bound)
    unit = np.bincount(row_of, weights=weight != 1, minlength=n_rows) == 0
    rows = np.flatnonzero(unit)
    for (k, eq, b), members in _groups(np.column_stack([lengths[rows], is_eq[rows], bound[rows]]), rows):
        keys["EL"[eq == 0], (1,) * k, b] = members
    for k in np.unique(lengths[~unit]).tolist():
        rows = np.flatnonzero((lengths == k) & ~unit)
        table = np.column_stack([is_eq[rows], bound[rows],
                                 weight[starts[rows][:, None] + np.arange(k)].reshape(rows.size, k)])
        for row, members in _groups(table, rows):
            keys["EL"[row[0] == 0], tuple(row[2:]), row[1]] = members
    # the order of the shapes, as when every length was grouped alone (length, sense, bound, weights)
    keys = dict(sorted(keys.items(), key=lambda item: (len(item[0][1]), item[0][0] == "E", item[0][2], item[0][1])))
    shapes: dict[tuple, Shape] = {}
    for key in keys:
        if deadline is not None and time.perf_counter() > deadline:
            raise EncodingOutlasts(f"encoding the rule rows ran past the time limit ({len(shapes)} of {len(keys)} "
                                   "row shapes encoded)")
        shapes[key] = shape_clauses(key[0], key[1], key[2], card, pb, amo)
    row_aux = np.zeros(n_rows, dtype=np.int64)
    row_tokens = np.zeros(n_rows, dtype=np.int64)
    row_clauses = np.zeros(n_rows, dtype=np.int64)
    for key, rows in keys.items():
        row_aux[rows] = shapes[key].n_aux
        row_tokens[rows] = shapes[key].tokens.size
        row_clauses[rows] = shapes[key].n_clauses
    _check_memory(int(row_tokens.sum()), int(row_clauses.sum()), bytes_per_token, reserved_bytes)
    need = seconds_per_clause * int(row_clauses.sum())
    if deadline is not None and need and time.perf_counter() + need > deadline:
        raise EncodingOutlasts(f"loading the rule rows' {int(row_clauses.sum()):,} clauses into the SAT solver "
                               f"{TOO_LONG_TO_START} {say_seconds(need)} here, past the time limit")
    first_aux = top + 1
    aux_start = first_aux + np.concatenate([[0], np.cumsum(row_aux)[:-1]]).astype(np.int64)
    offset = np.concatenate([[0], np.cumsum(row_tokens)]).astype(np.int64)
    out = np.zeros(int(offset[-1]), dtype=np.int64)
    for key, rows in keys.items():
        shape = shapes[key]
        if not shape.tokens.size:
            continue
        k, tok = shape.k, shape.tokens
        cells = lit[starts[rows][:, None] + np.arange(k)] if k else np.zeros((rows.size, 0), dtype=np.int64)
        mag, sign = np.abs(tok), np.sign(tok)
        block = np.zeros((rows.size, tok.size), dtype=np.int64)
        inputs = (mag >= 1) & (mag <= k)
        aux = mag > k
        block[:, inputs] = cells[:, mag[inputs] - 1] * sign[inputs]
        block[:, aux] = (aux_start[rows][:, None] + (mag[aux] - k - 1)) * sign[aux]
        out[(offset[rows][:, None] + np.arange(tok.size)).ravel()] = block.ravel()
    return RuleClauses(out, int(row_clauses.sum()), int(row_aux.sum()), first_aux, n_rows, card, pb, amo, len(shapes))
