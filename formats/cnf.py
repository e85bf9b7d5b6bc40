"""DIMACS CNF: every ``= 1`` row as one at-least-one clause plus an at-most-one encoding.

The clauses are :mod:`pipeline.core.clauses`' (:func:`~pipeline.core.clauses.encode`, option
``amo``); this module renders them as text, reads DIMACS files back, and records the encoding's
facts. Variable ``v`` is the convention's 0-based position + 1 (``docs/conventions.md``, section
CNF/OPB), so cell variables are ``1..N^3`` in every clue encoding; auxiliary variables of the
at-most-one encoding follow, ``N^3 + 1 ..``, a contiguous block per row in the solver view's row
order. The clauses come as int64 chunks and are rendered chunk by chunk (:func:`render_tokens`),
so the empty 100x100 is written with no Python object per clause.

Clue encodings: ``rows`` gives each clue a unit clause (its one-literal row), ``bounds`` writes
``lb = 1`` as unit clauses after the rows, ``reduce`` writes the kept rows over the kept
columns only (the kept-column map is "by number": the cell variables the clauses use).

``c`` comment lines carry the manifest metadata (:func:`pipeline.core.manifest.comment_line`) and the
CNF facts (``c sudoku-pipeline-cnf: {...}``: encoding, cell and auxiliary variable ranges).

Rules beyond units (killer sums, thermometers, anti-knight, ...): their rows are not ``= 1``, so
they are encoded by :func:`pipeline.core.clauses_rules.rule_clauses`, the clauses the in-process
SAT engine loads for the same puzzle (killer cages by their combinations, little killers, arrows,
region-sum lines and zippers by running sums, sandwiches, X-sums and lunchboxes by gated sums,
the little killers' combined sums; the remaining rows by the cardinality and pseudo-Boolean
encodings of python-sat, options ``card`` and ``pb``), and written after the unit rows' clauses
and before the bound units; their auxiliaries follow the unit rows' ones. The ``rule_rows``
entry of the facts records their encodings (``encodings``: the switches of
:mod:`pipeline.core.clauses_rules`; a file without it was written with the rows' own encodings
alone), first clause and auxiliary range. A CNF file cannot give those rows back as rows:
:func:`read` decodes the exactly-one rows from their clauses and takes the rule rows from the
puzzle in the metadata comment, after checking that encoding them again gives the file's
clauses literal for literal.
"""
from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.clauses import (DEFAULT_AMO, Encoding, encode, exactly_one_rows, iter_clause_tokens, iter_row_tokens,
                                   unit_tokens)
from pipeline.core.clauses_pb import DEFAULT_CARD, DEFAULT_PB, rule_row_range, rule_rows
from pipeline.core.clauses_rules import ENCODING_KEYS, RuleEncoding, rule_clauses
from pipeline.core.conventions import Convention
from pipeline.core.errors import clip, FormatError, PipelineError, shortened
from pipeline.core.manifest import (COMMENT_TAG, aux_count, column_names, manifest_from_dict, metadata_convention,
                                    model_metadata, parse_comment_line)

from formats.base import Format, ModelData, atomic_open, open_binary, register
from formats.files import MAX_COUNT_DIGITS, is_count
from formats.agree import described_model, refuse_disagreement
from formats.text import INTEGER_CHUNK, MAX_INTEGER_DIGITS, piece_integer_tokens, render_tokens

CNF_TAG = "sudoku-pipeline-cnf:"
#: Bytes :func:`read_cnf` reads at a time (a piece of the body is cut after a line end).
CNF_READ_CHUNK = INTEGER_CHUNK
#: Literals :func:`_clause_ends` looks at a time.
_ENDS_BLOCK = 1 << 22
#: Clauses :func:`_cell_clauses` and :func:`_row_literals` look at a time.
_DECODE_BLOCK = 1 << 20


def _dimacs_text(tokens: np.ndarray) -> bytes:
    """Clauses (literals, each clause ended by 0) as DIMACS lines. The terminating 0 is rendered
    as the line end ``" 0\\n"`` of the clause's last literal: a third fewer tokens to render."""
    zero = tokens == 0
    if not tokens.size or zero[0] or not zero[-1] or (zero[1:] & zero[:-1]).any():   # empty or open clause
        return render_tokens(tokens, ends_line=zero)
    literals = ~zero
    return render_tokens(tokens[literals], line_end=b" 0\n", ends_line=zero[1:][literals[:-1]])


# ----------------------------------------------------------------------------------------------
# writer
# ----------------------------------------------------------------------------------------------
def cnf_metadata(model: Model) -> dict:
    """The manifest metadata the ``c`` line carries (kept columns: the variables used)."""
    meta = model_metadata(model, with_columns=False)
    if model.is_reduced:
        meta["kept_columns"] = "by number"
    return meta


def _rule_clauses(model: Model, enc: Encoding, card: str | None, pb: str | None) -> RuleEncoding | None:
    """The rule rows' clauses after ``enc``'s variables, the in-process SAT engine's for this
    puzzle (None for a unit-only model)."""
    start, stop = rule_row_range(model)
    if stop == start and not model.n_ineq:
        return None
    try:
        return rule_clauses(model, enc.n_vars, enc.amo, view=True, card=card or DEFAULT_CARD, pb=pb or DEFAULT_PB)
    except PipelineError as e:
        raise FormatError(f"cnf: {e}") from None


def _facts(enc: Encoding, rules: RuleEncoding | None) -> dict:
    """The facts line: the unit rows' encoding, plus the rule rows' when there are any."""
    facts = enc.facts()
    if rules is not None:
        facts["variables"] = enc.n_vars + rules.n_aux
        facts["clauses"] = enc.n_clauses + rules.n_clauses
        facts["rule_rows"] = {**rules.facts(), "first_clause": enc.n_clauses - enc.units.size}
    return facts


def write(model: Model, path: str | os.PathLike, amo: str | None = DEFAULT_AMO, *, card: str | None = None,
          pb: str | None = None) -> None:
    """Write ``model`` as DIMACS CNF to ``path`` (``.gz`` compressed), atomically.

    Parameters
    ----------
    model : Model
    path : str or Path
    amo : str
        At-most-one encoding: ``auto`` (default), or one of :data:`pipeline.core.clauses.AMO_ENCODINGS`.
    card, pb : str, optional
        Encodings of the rule rows (:mod:`pipeline.core.clauses_pb`): cardinality rows with a
        bound of 2 or more, and rows with weights other than 1 (default: the measured best).

    Raises
    ------
    FormatError
        Unknown encoding, an objective, or python-sat missing for a pysat encoding.
    """
    _refuse_objective(model)
    enc = encode(model, amo)
    rules = _rule_clauses(model, enc, card, pb)
    facts = _facts(enc, rules)
    head = (f"c {COMMENT_TAG} {json.dumps(cnf_metadata(model), separators=(',', ':'))}\n"
            f"c {CNF_TAG} {json.dumps(facts, separators=(',', ':'))}\n"
            f"p cnf {facts['variables']} {facts['clauses']}\n")
    with atomic_open(path, "wb") as f:
        f.write(head.encode())
        for tokens in iter_row_tokens(enc):       # the unit and clue rows
            f.write(_dimacs_text(tokens))
        if rules is not None:                     # the rule rows
            f.write(_dimacs_text(rules.tokens))
        if enc.units.size:                        # the bounds
            f.write(_dimacs_text(unit_tokens(enc)))


def export(model: Model, directory: str | os.PathLike, *, amo: str | None = DEFAULT_AMO,
           card: str | None = None, pb: str | None = None) -> list[Path]:
    """Write ``model.cnf`` into ``directory``; returns ``[path]``.

    Parameters
    ----------
    model : Model
        The model to write.
    directory : str or Path
        The export directory.
    amo : str
        At-most-one encoding.
    card, pb : str, optional
        Encodings of the rule rows (:func:`write`).
    """
    path = Path(directory) / "model.cnf"
    write(model, path, amo=amo, card=card, pb=pb)
    return [path]


def describe(model: Model, *, amo: str | None = DEFAULT_AMO, card: str | None = None,
             pb: str | None = None) -> dict:
    """The CNF facts for the manifest (encodings, variable ranges, auxiliary rules).

    Parameters
    ----------
    model : Model
        The model to write.
    amo : str
        At-most-one encoding.
    card, pb : str, optional
        Encodings of the rule rows (:func:`write`).
    """
    _refuse_objective(model)
    enc = encode(model, amo)
    return _facts(enc, _rule_clauses(model, enc, card, pb))


def _refuse_objective(model: Model) -> None:
    """FormatError for a model with an objective: DIMACS CNF states constraints only."""
    if model.has_objective:
        raise FormatError("cnf: a CNF file cannot hold an objective, and this model has one: write it as mps, lp "
                          "or opb, which carry it, or build the model without the objective")


# ----------------------------------------------------------------------------------------------
# reader
# ----------------------------------------------------------------------------------------------
@dataclass
class CnfFile:
    """A DIMACS file as read: header counts, all clause literals (0-terminated; ``int32`` when the
    header's variable count fits one, else ``int64``), comments."""

    n_vars: int
    n_clauses: int
    tokens: np.ndarray
    metadata: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)

    @property
    def clause_ends(self) -> np.ndarray:
        return np.flatnonzero(self.tokens == 0)

    def clauses(self) -> list[list[int]]:
        """Clauses as lists (small files)."""
        out, start = [], 0
        flat = self.tokens.tolist()
        for end in self.clause_ends.tolist():
            out.append(flat[start:end])
            start = end + 1
        return out


def read_cnf(path: str | os.PathLike) -> CnfFile:
    """Parse a DIMACS CNF file (any solver's), with the pipeline's metadata if present.

    Raises
    ------
    FormatError
        No ``p cnf`` header, a non-integer token, a literal beyond the header's variable count,
        a clause count that differs from the header, or an unterminated last clause.
    """
    where = str(path)
    meta, facts = {}, {}
    header = None
    body_start = 0
    # the comments and the header come first: read a piece at a time until the header's line
    with open_binary(path, where) as f:
        raw, pos, done = b"", 0, False
        while True:
            nl = raw.find(b"\n", pos)
            if nl < 0 and not done:
                more = _read_piece(f, where)
                done = not more
                raw, body_start, pos = raw[pos:] + more, body_start + pos, 0
                continue
            if pos >= len(raw):
                break
            nl = len(raw) if nl < 0 else nl
            line = raw[pos:nl].decode("utf-8", "replace").strip()
            if line.startswith("c") or not line:
                if CNF_TAG in line:
                    try:
                        facts = json.loads(line.split(CNF_TAG, 1)[1])
                    except (ValueError, RecursionError):   # not JSON, nested too deep, an integer of 4,300 digits
                        raise FormatError(f"{where}: unreadable {CNF_TAG} comment") from None
                    if not isinstance(facts, dict):
                        raise FormatError(f"{where}: the {CNF_TAG} comment is not a JSON object")
                elif COMMENT_TAG in line:
                    meta = parse_comment_line(line) or {}
                pos = nl + 1
                continue
            if line.startswith("p"):
                parts = line.split()
                if len(parts) != 4 or parts[1] != "cnf" or not all(is_count(p) for p in parts[2:]):
                    raise FormatError(f"{where}: bad header {shortened(line, 60)!r}; expected 'p cnf <variables> "
                                      f"<clauses>' (counts of at most {MAX_COUNT_DIGITS} digits)")
                header = (int(parts[2]), int(parts[3]))
                body_start += nl + 1
                break
            raise FormatError(f"{where}: expected 'p cnf' before the clauses, found {clip(line, 40)!r}")
        del raw
    if header is None:
        raise FormatError(f"{where}: no 'p cnf <variables> <clauses>' header")
    n_vars, n_clauses = header
    # the body read twice a piece at a time (its tokens counted, then parsed into one array), never
    # whole: a 354 MB file's text sat beside its 360 MB of literals
    tokens = piece_integer_tokens(lambda: _body_pieces(path, where, body_start),
                                  lambda bad: FormatError(f"{where}: {bad!r} is not an integer literal of at most "
                                                          f"{MAX_INTEGER_DIGITS} digits"),
                                  most=n_vars,
                                  beyond=lambda largest: FormatError(f"{where}: literal {largest} exceeds the "
                                                                     f"header's {n_vars} variables"),
                                  changed=lambda: FormatError(f"{where}: changed while it was read"))
    if tokens.size and tokens[-1] != 0:
        raise FormatError(f"{where}: truncated: the last clause has no terminating 0")
    found = int((tokens == 0).sum())
    if found != n_clauses:
        raise FormatError(f"{where}: header says {n_clauses} clauses, found {found}")
    return CnfFile(n_vars, n_clauses, tokens, meta, facts)


def _read_piece(f: io.BufferedIOBase, where: str) -> bytes:
    """The next :data:`CNF_READ_CHUNK` bytes of ``f`` (``b""`` at its end); FormatError if it cannot be read."""
    try:
        return f.read(CNF_READ_CHUNK)
    except OSError as e:   # a plain file's read error (a gzip stream's damage is its own FormatError)
        raise FormatError(f"{where}: cannot read: {getattr(e, 'strerror', None) or e}") from None


def _body_pieces(path: str | os.PathLike, where: str, start: int) -> Iterator[np.ndarray]:
    """The clause lines of a DIMACS file from byte ``start`` on (its body), as ``uint8`` pieces of
    whole lines, comment lines (allowed between clauses by some tools) left out.

    Parameters
    ----------
    path : str or PathLike
        The file.
    where : str
        The file, for messages.
    start : int
        The body's first byte.
    """
    with open_binary(path, where) as f:
        f.seek(start)
        parts: list[bytes] = []
        while True:
            more = _read_piece(f, where)
            cut = more.rfind(b"\n") + 1
            if more and not cut:    # no line ends yet: a piece holds whole lines
                parts.append(more)
                continue
            text = b"".join(parts + [more[:cut] if more else b""])
            parts = [more[cut:]] if more else []
            if b"c" in text:   # lines end at "\n" alone, as the tokens' blanks are bytes up to the space
                text = b"\n".join(line for line in text.split(b"\n") if not line.lstrip().startswith(b"c"))
            if text:
                yield np.frombuffer(text, np.uint8)
            if not more:
                return


def convention_of(meta: dict, where: str) -> tuple[Convention, np.ndarray | None]:
    """``(convention, columns)`` of a pipeline CNF/OPB file's metadata: the solver columns are
    all positions (a gattai layout's present cells), or ``None`` for ``reduce``, whose columns
    are the variables the file uses.

    Parameters
    ----------
    meta : dict
        The metadata comment's content.
    where : str
        The file, for messages.

    Raises
    ------
    FormatError
        The metadata lacks a key or names no valid convention.
    """
    conv = metadata_convention(meta, where)
    if "clue_encoding" not in meta:
        raise FormatError(f"{where}: metadata comment lacks 'clue_encoding'")
    encoding = meta["clue_encoding"]
    if encoding == "reduce":
        return conv, None
    if meta.get("layout") is not None:
        return conv, manifest_from_dict(meta, where).columns
    return conv, np.arange(conv.n_vars + aux_count(meta))   # the auxiliary columns follow the cells


def _rebuilt(meta: dict, columns: np.ndarray, where: str) -> Model:
    """The model the metadata describes (``reduce``: with the columns the clauses use)."""
    if meta.get("clue_encoding") == "reduce":
        meta = {**meta, "kept_columns": columns.tolist()}
    model = described_model(meta, where)
    if not np.array_equal(model.columns, columns):
        raise FormatError(f"{where}: the clauses' variables are not the columns of the model the metadata describes")
    return model


def _rule_facts(cnf_file: CnfFile, where: str) -> dict | None:
    """The facts' ``rule_rows`` entry (None when absent), after checking its shape: counts that
    are integers, an auxiliary range of two, encodings that are a mapping of the known switches
    (:data:`pipeline.core.clauses_rules.ENCODING_KEYS`) to true or false. FormatError otherwise."""
    facts = cnf_file.facts.get("rule_rows")
    if not facts:
        return None
    if not isinstance(facts, dict):
        raise FormatError(f"{where}: rule_rows is not a mapping")
    missing = [key for key in ("first_clause", "clauses", "amo", "card", "pb") if key not in facts]
    if missing:
        raise FormatError(f"{where}: rule_rows lacks {', '.join(missing)}")
    if not all(type(facts[key]) is int for key in ("first_clause", "clauses")):
        raise FormatError(f"{where}: rule_rows' first_clause and clauses are not integers")
    aux = facts.get("aux_variables") or []
    if not isinstance(aux, list) or len(aux) not in (0, 2) or not all(type(v) is int and v > 0 for v in aux):
        raise FormatError(f"{where}: rule_rows' aux_variables is not [first, last] variables")
    encodings = facts.get("encodings", {})   # none: written with the rows' own encodings alone
    if not isinstance(encodings, dict):
        raise FormatError(f"{where}: rule_rows' encodings are not a mapping of switches")
    unknown = sorted(set(encodings) - set(ENCODING_KEYS))
    if unknown:
        raise FormatError(f"{where}: rule_rows' encodings name {shortened(unknown[0], 40)!r}, not a switch of "
                          f"this version (one of {', '.join(ENCODING_KEYS)})")
    if not all(isinstance(on, bool) for on in encodings.values()):
        raise FormatError(f"{where}: rule_rows' encodings are not all true or false")
    return facts


def _with_rule_rows(cnf_file: CnfFile, a: sp.csr_matrix, model: Model, facts: dict,
                    where: str) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray, int]:
    """``(rows, lower, upper, n_aux)``: the decoded exactly-one rows ``a`` with the rule rows of
    the puzzle in the metadata (``model``) put in their places, after checking the file's clauses
    against them (``facts``: the facts' ``rule_rows``, :func:`_rule_facts`); ``n_aux`` counts the
    rule rows' auxiliary variables."""
    ones = exactly_one_rows(model)
    if ones.shape != a.shape or (ones != a).nnz:
        raise FormatError(f"{where}: the exactly-one clauses do not encode the model the metadata describes")
    first, count = int(facts["first_clause"]), int(facts["clauses"])
    ends = cnf_file.clause_ends
    lo = ends[first - 1] + 1 if first else 0
    hi = ends[first + count - 1] + 1 if count else lo
    aux = facts.get("aux_variables") or []
    encodings = facts.get("encodings", {})   # none: written with the rows' own encodings alone
    try:
        again = rule_clauses(model, (int(aux[0]) - 1) if aux else 0, facts["amo"], view=True, card=facts["card"],
                             pb=facts["pb"], encodings=encodings)
    except (PipelineError, KeyError) as e:
        raise FormatError(f"{where}: cannot encode the rule rows again to check them: {e}") from None
    if aux and again.n_aux and again.first_aux != int(aux[0]):
        raise FormatError(f"{where}: rule_rows' auxiliary variables start at {aux[0]}, not after the unit rows'")
    if not np.array_equal(again.tokens, cnf_file.tokens[lo:hi]):
        raise FormatError(f"{where}: the rule rows' clauses are not those of the puzzle in the metadata "
                          f"(card {facts['card']}, pb {facts['pb']})")
    matrix, rhs, sense = rule_rows(model)
    start, stop = rule_row_range(model)
    k = stop - start
    eq, le = matrix[:k], matrix[k:]
    rows = sp.vstack([a[:start], eq, a[start:], le], format="csr")
    lower = np.concatenate([np.ones(start), rhs[:k], np.ones(a.shape[0] - start), np.full(le.shape[0], -np.inf)])
    upper = np.concatenate([np.ones(start), rhs[:k], np.ones(a.shape[0] - start), rhs[k:]])
    return rows, lower, upper, again.n_aux


def canonical_clauses(tokens: np.ndarray) -> dict[int, np.ndarray]:
    """A clause set (0-terminated literals) in a form independent of clause and literal order.

    Clauses are grouped by length: per length ``k`` a ``(count, k)`` array whose rows are the
    clauses with their literals sorted, the rows sorted lexicographically. Two files hold the
    same clauses (as a multiset) exactly when their canonical forms are equal. One sort of all
    literals and one per distinct clause length (a handful): no Python work per clause.

    Parameters
    ----------
    tokens : numpy.ndarray
        int64 literals, every clause ended by 0.

    Returns
    -------
    dict of int to numpy.ndarray

    Examples
    --------
    >>> {k: v.tolist() for k, v in canonical_clauses(np.array([2, -1, 0, 3, 0, 1, 2, 0])).items()}
    {1: [[3]], 2: [[-1, 2], [1, 2]]}
    """
    tokens = np.asarray(tokens, dtype=np.int64)
    ends = np.flatnonzero(tokens == 0)
    starts = np.concatenate([[0], ends[:-1] + 1])[:ends.size].astype(np.int64)   # no clauses: none
    length = ends - starts
    owner = np.repeat(np.arange(ends.size), length)
    lits = tokens[tokens != 0]
    lits = lits[np.lexsort((lits, owner))]    # clause order kept, literals sorted within each
    lit_length = np.repeat(length, length)
    out = {}
    for k in np.unique(length).tolist():
        block = lits[lit_length == k].reshape(-1, k) if k else np.zeros((int((length == 0).sum()), 0), np.int64)
        out[k] = block[np.lexsort(block.T[::-1])] if k and block.shape[0] else block
    return out


def _clause_text(clause: np.ndarray) -> str:
    return " ".join(map(str, clause.tolist() + [0]))


def clause_set_difference(got: np.ndarray, want: np.ndarray) -> str | None:
    """None when the two clause sets (0-terminated literals) are equal as multisets, else what
    differs: one clause of ``got`` that ``want`` lacks, or one of ``want`` that ``got`` lacks.

    Parameters
    ----------
    got, want : numpy.ndarray
        int64 literals, every clause ended by 0.

    Examples
    --------
    >>> clause_set_difference(np.array([1, 2, 0, -1, 0]), np.array([-1, 0, 2, 1, 0])) is None
    True
    >>> clause_set_difference(np.array([1, -82, 0]), np.array([-1, -82, 0]))
    "clause '-82 1 0' is not one of them; their clause '-82 -1 0' is missing"
    """
    if np.array_equal(got, want):             # the pipeline's own file: same clauses, same order
        return None
    mine, theirs = canonical_clauses(got), canonical_clauses(want)
    for k in sorted(set(mine) | set(theirs)):
        g = mine.get(k, np.zeros((0, k), np.int64))
        w = theirs.get(k, np.zeros((0, k), np.int64))
        n = min(g.shape[0], w.shape[0])
        differ = np.flatnonzero((g[:n] != w[:n]).any(axis=1)) if k else np.zeros(0, np.int64)
        if differ.size:
            i = int(differ[0])
        elif g.shape[0] != w.shape[0]:
            i = n
        else:
            continue
        # both sorted: at the first difference at least one of the two clauses is absent from the
        # other side (checked directly: on the way to an error only)
        found = []
        if i < g.shape[0] and not (w == g[i]).all(axis=1).any():
            found.append(f"clause {_clause_text(g[i])!r} is not one of them")
        if i < w.shape[0] and not (g == w[i]).all(axis=1).any():
            found.append(f"their clause {_clause_text(w[i])!r} is missing")
        return "; ".join(found)
    return None


def equal_in_order(tokens: np.ndarray, skip: tuple[int, int], chunks: Iterable[np.ndarray]) -> bool:
    """Whether ``tokens`` without ``tokens[skip[0]:skip[1]]`` are the ``chunks`` one after the
    other, compared a chunk at a time: an empty 100x100's CNF held its whole encoding a second
    time, and check peaked at 3.1 GB, when the two were one concatenated array each.

    Parameters
    ----------
    tokens : numpy.ndarray
        A file's literals (0-terminated clauses).
    skip : tuple of int
        ``(lo, hi)``: tokens left out (the rule rows' clauses, compared on their own); ``lo == hi``
        leaves out none.
    chunks : iterable of numpy.ndarray
        The expected literals in pieces (:func:`pipeline.core.clauses.iter_clause_tokens`).

    Returns
    -------
    bool

    Examples
    --------
    >>> equal_in_order(np.array([1, 0, 9, 0, 2, 0]), (2, 4), [np.array([1, 0]), np.array([2, 0])])
    True
    >>> equal_in_order(np.array([1, 0, 2, 0]), (0, 0), [np.array([1, 0])])
    False
    """
    lo, hi = skip
    gap = hi - lo
    n = tokens.size - gap
    pos = 0
    for chunk in chunks:
        end = pos + chunk.size
        if end > n:
            return False
        if end <= lo:
            piece = tokens[pos:end]
        elif pos >= lo:
            piece = tokens[pos + gap:end + gap]
        else:   # a chunk across the left-out tokens: only this piece is copied
            piece = np.concatenate([tokens[pos:lo], tokens[hi:end + gap]])
        if not np.array_equal(piece, chunk):
            return False
        pos = end
    return pos == n


def _refuse_other_clauses(cnf_file: CnfFile, model: Model, rule_aux: int, where: str) -> None:
    """FormatError unless the header and every clause are the model's own encoding (amo of the
    facts comment): a changed at-most-one clause (``-1 -82 0`` made ``1 -82 0``) decodes to the
    same rows, so the rows alone cannot tell. The rule rows' clauses, already compared literal
    for literal (:func:`_with_rule_rows`), are left out."""
    amo = cnf_file.facts.get("amo", DEFAULT_AMO)
    try:
        enc = encode(model, amo if isinstance(amo, str) else str(amo))
    except PipelineError as e:
        raise FormatError(f"{where}: cannot encode the model again to check its clauses: {e}") from None
    n_vars = enc.n_vars + rule_aux
    if cnf_file.n_vars != n_vars:
        raise FormatError(f"{where}: header says {cnf_file.n_vars} variables, the model's CNF (amo {enc.amo}) "
                          f"has {n_vars}")
    tokens = cnf_file.tokens
    lo = hi = 0
    rule_facts = cnf_file.facts.get("rule_rows")   # checked by _rule_facts before
    if rule_facts:
        first, count = int(rule_facts["first_clause"]), int(rule_facts["clauses"])
        ends = cnf_file.clause_ends
        lo = ends[first - 1] + 1 if first else 0
        hi = ends[first + count - 1] + 1 if count else lo
    if equal_in_order(tokens, (lo, hi), iter_clause_tokens(enc)):
        return   # the pipeline's own file, compared chunk by chunk: no copy of either side
    # another clause order (or other clauses): the multisets, each side whole
    tokens = np.concatenate([tokens[:lo], tokens[hi:]])
    want = np.concatenate([*iter_row_tokens(enc), unit_tokens(enc), np.zeros(0, np.int64)])
    difference = clause_set_difference(tokens, want)
    if difference:
        raise FormatError(f"{where}: the clauses are not the model's own encoding (amo {enc.amo}): {difference}")


def _decoded(tokens: np.ndarray, in_units: np.ndarray, n_cells: int,
             bounds: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(row literals, row lengths, lb variables, ub variables)`` decoded from a file's clauses:
    the at-least-one clauses (cell variables alone, among ``in_units``) are the rows, their
    literals 0-based; unit clauses are bounds (positive cell units too when ``bounds``).

    Per clause it holds its start and length as int32 where the tokens' positions fit one, and
    drops each mask once used: an empty 100x100's 16 M clauses had five int64 arrays and a mask
    per literal alive together, and ``check`` of its CNF peaked there (1.27 GB).

    Parameters
    ----------
    tokens : numpy.ndarray
        The file's literals, every clause ended by 0.
    in_units : numpy.ndarray
        bool per clause: a clause of the unit rows or the bounds (not a rule row's).
    n_cells : int
        The cell variables, ``1..n_cells``.
    bounds : bool
        The ``bounds`` clue encoding: a positive cell unit is ``lb = 1``, not a row.

    Returns
    -------
    tuple of numpy.ndarray
    """
    index = np.int32 if tokens.size < np.iinfo(np.int32).max else np.int64
    ends = _clause_ends(tokens, in_units.size, index)
    starts = np.zeros_like(ends)        # no clauses (all clued, reduce): none
    starts[1:] = ends[:-1] + 1
    length = ends - starts
    del ends
    is_positive_cells = _cell_clauses(tokens, starts, n_cells)
    is_positive_cells &= in_units
    unit = (length == 1) & in_units
    bound_units = unit & ~is_positive_cells | (unit & is_positive_cells & bounds)
    del unit
    row_clauses = is_positive_cells & ~bound_units
    del is_positive_cells
    # the literal of the unit clauses alone (an empty 100x100 has none): the first literal of
    # every clause and its negation were two arrays of 16 M beside the literals
    first_lit = tokens[starts[bound_units]]
    del bound_units
    lb_vars = first_lit[first_lit > 0]
    ub_vars = -first_lit[(first_lit < 0) & (-first_lit <= n_cells)]
    del first_lit
    row_lit = _row_literals(tokens, starts, length, row_clauses)
    return row_lit, length[row_clauses], lb_vars, ub_vars


def _clause_blocks(starts: np.ndarray, n_tokens: int) -> Iterator[tuple[int, int, int, int]]:
    """``(first clause, stop clause, first token, stop token)`` of each block of
    :data:`_DECODE_BLOCK` clauses (the last block's tokens run to ``n_tokens``)."""
    for c0 in range(0, starts.size, _DECODE_BLOCK):
        c1 = min(c0 + _DECODE_BLOCK, starts.size)
        yield c0, c1, int(starts[c0]), int(starts[c1]) if c1 < starts.size else n_tokens


def _cell_clauses(tokens: np.ndarray, starts: np.ndarray, n_cells: int) -> np.ndarray:
    """bool per clause: all its literals are cell variables (positive, at most ``n_cells``).

    A block of clauses at a time: the mask per literal of an empty 100x100's 90 M literals
    (90 MB) stood beside them, its clause starts and lengths; a block's is a few MB.
    """
    out = np.zeros(starts.size, dtype=bool)
    # negative literals are above every cell as unsigned: one mask, not three
    unsigned = tokens.view(np.uint32 if tokens.dtype.itemsize == 4 else np.uint64)
    for c0, c1, lo, hi in _clause_blocks(starts, tokens.size):
        out[c0:c1] = np.logical_or.reduceat(unsigned[lo:hi] > n_cells, starts[c0:c1] - lo)
    return np.logical_not(out, out=out)


def _row_literals(tokens: np.ndarray, starts: np.ndarray, length: np.ndarray, row_clauses: np.ndarray) -> np.ndarray:
    """The literals of the clauses ``row_clauses`` marks, in order, 0-based; a block of clauses
    at a time, as :func:`_cell_clauses` (not a mask per literal of the whole file)."""
    parts = []
    for c0, c1, lo, _ in _clause_blocks(starts, tokens.size):
        rows = row_clauses[c0:c1]
        if not rows.any():
            continue
        keep = np.repeat(rows, length[c0:c1] + 1)        # each clause's literals and its 0
        part = tokens[lo:lo + keep.size]
        np.logical_and(keep, part, out=keep)              # not the clauses' 0s
        parts.append(part[keep] - 1)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=tokens.dtype)


def _clause_ends(tokens: np.ndarray, n_clauses: int, index: type) -> np.ndarray:
    """Positions of the 0s of ``tokens`` (``n_clauses`` of them, as :func:`read_cnf` counted) as
    ``index``, found a block of tokens at a time: the whole mask and int64 positions of an empty
    100x100's 90 M literals were 0.22 GB beside them.

    Parameters
    ----------
    tokens : numpy.ndarray
        The literals.
    n_clauses : int
        The 0s among them.
    index : type
        The integer dtype of the result.
    """
    ends: np.ndarray = np.empty(n_clauses, dtype=index)
    at = 0
    for lo in range(0, tokens.size, _ENDS_BLOCK):
        found = np.flatnonzero(tokens[lo:lo + _ENDS_BLOCK] == 0)
        ends[at:at + found.size] = found + lo
        at += found.size
    return ends


def read(path: str | os.PathLike) -> ModelData:
    """A pipeline CNF back to :class:`ModelData`: the at-least-one clauses (all-positive clauses
    over cell variables) are the ``= 1`` rows; positive units are ``lb = 1`` for the ``bounds``
    encoding; negative cell units are ``ub = 0``. Columns are the cell variables (all of them,
    a gattai layout's present cells, or for ``reduce`` those the clauses use). CNF has no row
    names: ``row_labels`` is None.

    Rule rows (cage sums, thermometers, anti-knight, ...; ``rule_rows`` in the facts comment)
    cannot be decoded from their clauses: they are taken from the puzzle in the metadata comment,
    and the file is refused unless its exactly-one rows are that model's and encoding its rule
    rows again (with the encodings the facts name; needs python-sat) gives its rule clauses.
    Every file is also refused unless its header's variable count and its whole clause set (in
    any order: :func:`canonical_clauses`) are the model's own encoding with the ``amo`` the facts
    name (:func:`pipeline.core.clauses.encode`): the at-most-one clauses decode to no row.

    Raises
    ------
    FormatError
        The file lacks the pipeline's metadata comment (a foreign CNF: use :func:`read_cnf`), or
        its clauses are not those of the model the metadata describes.
    """
    cnf_file = read_cnf(path)
    where = str(path)
    meta = cnf_file.metadata
    if not meta:
        raise FormatError(f"{where}: no '{COMMENT_TAG}' comment: not a pipeline CNF (read_cnf reads any DIMACS)")
    conv, columns = convention_of(meta, where)
    encoding = meta["clue_encoding"]
    n_cells = conv.n_vars
    tokens = cnf_file.tokens
    in_units = np.ones(cnf_file.n_clauses, dtype=bool)   # the unit rows' and bounds' clauses (read_cnf counted them)
    rule_facts = _rule_facts(cnf_file, where)
    if rule_facts:
        first, count = int(rule_facts["first_clause"]), int(rule_facts["clauses"])
        if first < 0 or count < 0 or first + count > in_units.size:
            raise FormatError(f"{where}: rule_rows names clauses {first}..{first + count - 1}, the file has "
                              f"{in_units.size}")
        in_units[first:first + count] = False
    row_lit, row_len, lb_vars, ub_vars = _decoded(tokens, in_units, n_cells, encoding == "bounds")
    del in_units
    if columns is None:   # reduce: the cells the clauses use, then every auxiliary column (never reduced)
        columns = np.unique(row_lit)
        if aux_count(meta):
            columns = np.concatenate([columns, n_cells + np.arange(aux_count(meta))])
    col = np.searchsorted(columns, row_lit)
    if row_lit.size and (col.max() >= columns.size or (columns[np.minimum(col, columns.size - 1)] != row_lit).any()):
        raise FormatError(f"{where}: a clause names a variable that is not a column of the model")
    indptr = np.concatenate([[0], np.cumsum(row_len)])
    a = sp.csr_matrix((np.ones(row_lit.size), col, indptr), shape=(row_len.size, columns.size))
    for fixed in (lb_vars, ub_vars):          # a unit clause on a variable that is not a column
        at = np.searchsorted(columns, fixed - 1)
        if ((at >= columns.size) | (columns[np.minimum(at, max(columns.size - 1, 0))] != fixed - 1)).any() \
                if columns.size else fixed.size:
            raise FormatError(f"{where}: a unit clause names a variable that is not a column of the model")
    lb = np.zeros(columns.size)
    ub = np.ones(columns.size)
    lb[np.searchsorted(columns, lb_vars - 1)] = 1.0
    ub[np.searchsorted(columns, ub_vars - 1)] = 0.0
    lower = upper = np.ones(row_len.size)
    del row_lit, col, lb_vars, ub_vars
    model = _rebuilt(meta, columns, where)
    rule_aux = 0
    if rule_facts:
        a, lower, upper, rule_aux = _with_rule_rows(cnf_file, a, model, rule_facts, where)
    _refuse_other_clauses(cnf_file, model, rule_aux, where)
    # the literals and their masks are done with: the rows they gave are compared with the model
    # next, which builds it again (the 720 MB of an empty 100x100's literals sat under that)
    del cnf_file, tokens
    if encoding == "reduce" and meta.get("kept_columns") == "by number":
        meta = {**meta, "kept_columns": columns.tolist()}
    data = ModelData(a, lower, upper.copy(), lb, ub, np.zeros(columns.size), np.ones(columns.size, dtype=bool),
                     None, column_names(meta, conv, columns, where), meta)
    refuse_disagreement(data, where)
    return data


register(Format("cnf", (".cnf", ".dimacs"), "DIMACS CNF (exactly-one rows; option amo)", file_names=("model.cnf",),
                export=export, write=write, read=read, describe=describe, carries_objective=False, cost=2.5, one_file=True, gzip=True))
