"""The OPB reader: the statements of a file as numpy arrays over its bytes, no Python object per term.

A pipeline file (ASCII, blanks of space, tab, CR and LF) is read by :func:`_parse_bytes`: tokens
as offsets (``;`` a separator too), each token's statement by the ``;`` before it, its role
(coefficient, variable, operator, right-hand side) by its place in the statement, and the
integers read one digit place at a time over all tokens. Anything it does not take as it is
(another byte, a malformed statement) is left to :func:`_parse_text`, the statement-by-statement
parser that gives the one-line FormatError messages: the results and messages are the same, and a
well-formed 100x100 no longer holds a Python list per statement and a str per term (1.35 GB peak
for a 44 MB file).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from pipeline.core.errors import clip, FormatError, shortened
from pipeline.core.manifest import COMMENT_TAG, aux_count, column_names, parse_comment_line

from formats.agree import refuse_disagreement
from formats.base import ModelData, open_text
from formats.cnf import convention_of
from formats.files import is_count
from formats.text import BLANK, INTEGER_CHUNK, MAX_INTEGER_DIGITS, _blank_cut_chunks

# integers of at most 18 digits: every one fits the int64 arrays they are read into (a longer one
# is a bad term, as 1e400 is, not an OverflowError)
_TERM = re.compile(r"^([+-]?\d{1,18})$")
_VAR = re.compile(r"^x(\d{1,18})$")
# the competition header solvers size their arrays by (minisat+, sat4j): compared with the file
_HEADER = re.compile(r"^\*\s*#variable=\s*(\S+)\s+#constraint=\s*(\S+)")
# bytes the byte parser leaves to the text parser: control bytes other than tab, LF and CR
# (str.split and str.splitlines treat some of them as blanks or line ends, the tokens do not)
_ODD = np.zeros(256, dtype=bool)
_ODD[:BLANK] = True
_ODD[[9, 10, 13]] = False
_SEMI, _STAR, _X = ord(";"), ord("*"), ord("x")
# relations by code: the operator tokens' first byte tells them apart ('=' 0, '>=' 1, '<=' 2)
_RELATIONS = ("=", ">=", "<=")
# tokens an integer pass reads at a time, bytes a tokenising pass
_CHUNK = 1 << 20
_BYTES_CHUNK = INTEGER_CHUNK


@dataclass
class _Statements:
    """A file's statements: rows as flat terms, bound lines and objective terms (1-based ``x``)."""
    meta: dict
    header: tuple[str, str] | None
    row_vars: np.ndarray          # int64, the rows' variables in order
    row_coefs: np.ndarray         # int64, their coefficients (a negated >= row's already negated)
    lengths: np.ndarray           # int64, terms a row
    lower: np.ndarray             # float, a row's lower side
    upper: np.ndarray             # float, its upper side
    bound_lb: np.ndarray          # int64, variables of '+1 xv >= 1' lines
    bound_ub: np.ndarray          # int64, variables of '+1 xv <= 0' lines
    cost_terms: list              # (variables, coefficients) of each min:/max: statement
    counted: bool
    n_rows: int | None


def _comments(lines: list[str], where: str) -> tuple[dict, tuple[str, str] | None]:
    """The metadata (the last tagged comment) and the first ``#variable=`` header of comment lines."""
    meta: dict = {}
    header = None
    for s in lines:
        if COMMENT_TAG in s:
            meta = parse_comment_line(s) or {}
        elif header is None and (found := _HEADER.match(s)):
            header = (found.group(1), found.group(2))
    if not meta:
        raise FormatError(f"{where}: no '* {COMMENT_TAG}' comment: not a pipeline OPB file")
    return meta, header


def _counts(meta: dict) -> tuple[bool, int | None]:
    counted = isinstance(meta.get("rows"), int)
    return counted, (int(meta.get("rows", 0)) + int(meta.get("inequalities", 0)) if counted else None)


def _parse_text(text: str, where: str) -> _Statements:
    """The statement-by-statement parser: any text, the FormatError messages of a bad one."""
    comment_lines = []
    body_lines = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("*"):
            comment_lines.append(s)
        elif s:
            body_lines.append(s)
    meta, header = _comments(comment_lines, where)
    body = " ".join(body_lines)
    if body and not body.rstrip().endswith(";"):
        raise FormatError(f"{where}: truncated: the last constraint has no ';'")
    statements = [s.split() for s in body.split(";")[:-1]]
    counted, n_rows = _counts(meta)
    rows_cols: list[np.ndarray] = []
    rows_coef: list[np.ndarray] = []
    lower: list[float] = []
    upper: list[float] = []
    cost_terms: list[tuple[np.ndarray, np.ndarray]] = []
    bound_lb: list[int] = []
    bound_ub: list[int] = []
    for k, words in enumerate(statements):
        if words and words[0] in ("min:", "max:"):
            terms = words[1:]
            rel = None
        else:
            if len(words) < 4 or words[-2] not in _RELATIONS:
                raise FormatError(f"{where}: constraint {k + 1}: expected 'terms <op> rhs ;', found {clip(' '.join(words), 60)!r}")
            terms, rel, rhs = words[:-2], words[-2], words[-1]
            if not _TERM.match(rhs):
                raise FormatError(f"{where}: constraint {k + 1}: right-hand side {shortened(rhs)!r} is not an integer")
        if len(terms) % 2:
            raise FormatError(f"{where}: constraint {k + 1}: terms must be 'coefficient x<v>' pairs")
        coefs, names = terms[0::2], terms[1::2]
        for coef_text, nme in zip(coefs, names):
            if not _TERM.match(coef_text) or not _VAR.match(nme):
                raise FormatError(f"{where}: constraint {k + 1}: bad term {shortened(coef_text)} {shortened(nme)!r}; "
                                  "expected '+1 x<v>'")
        v = np.array([int(nme[1:]) for nme in names], dtype=np.int64)
        c = np.array([int(x) for x in coefs], dtype=np.int64)
        if rel is None:
            cost_terms.append((v, c))
            continue
        b = int(rhs)
        is_row = len(rows_cols) < n_rows if n_rows is not None else not (v.size == 1 and c[0] == 1 and (
            (rel == ">=" and b == 1) or (rel == "<=" and b == 0)))
        if not is_row and v.size == 1 and c[0] == 1 and rel == ">=" and b == 1:
            bound_lb.append(v[0])
        elif not is_row and v.size == 1 and c[0] == 1 and rel == "<=" and b == 0:
            bound_ub.append(v[0])
        elif not is_row:
            raise FormatError(f"{where}: constraint {k + 1}: after the metadata's {n_rows} rows only bound lines "
                              f"('+1 x<v> >= 1' or '+1 x<v> <= 0') may follow, found {clip(' '.join(words), 60)!r}")
        elif rel == ">=" and counted:    # a <= row of Aineq, written negated
            rows_cols.append(v)
            rows_coef.append(-c)
            lower.append(-np.inf)
            upper.append(-b)
        else:
            rows_cols.append(v)
            rows_coef.append(c)
            lower.append(b if rel in ("=", ">=") else -np.inf)
            upper.append(b if rel in ("=", "<=") else np.inf)
    flat = np.concatenate(rows_cols) if rows_cols else np.zeros(0, np.int64)
    return _Statements(meta, header, flat, np.concatenate(rows_coef) if rows_coef else np.zeros(0, np.int64),
                       np.array([v.size for v in rows_cols], dtype=np.int64),
                       np.array(lower, dtype=float), np.array(upper, dtype=float),
                       np.array(bound_lb, dtype=np.int64), np.array(bound_ub, dtype=np.int64), cost_terms, counted, n_rows)


def _integers(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, idx: np.ndarray, *,
              name: bool = False) -> np.ndarray | None:
    """Tokens ``idx`` as ``[+-]?\\d{1,18}`` integers (``name``: as ``x\\d{1,18}``, the number), or
    None if one is not. A chunk of tokens at a time, one pass per digit place: no window table
    of bytes per token, and a few arrays of a chunk's size beside the result."""
    out = np.empty(idx.size, dtype=np.int64)
    for lo in range(0, idx.size, _CHUNK):
        first = starts[idx[lo:lo + _CHUNK]].astype(np.int64)
        stop = ends[idx[lo:lo + _CHUNK]]
        head = data[first]
        if name:
            if (head != _X).any():
                return None
            first += 1
        else:
            first += (head == ord("+")) | (head == ord("-"))
        length = stop - first
        if not ((length >= 1) & (length <= MAX_INTEGER_DIGITS)).all():
            return None
        value = np.zeros(first.size, dtype=np.int64)
        for k in range(int(length.max(initial=0))):
            live = k < length
            digit = data[np.minimum(first + k, data.size - 1)].astype(np.int64) - 48
            if not (~live | ((digit >= 0) & (digit <= 9))).all():
                return None
            value = np.where(live, value * 10 + digit, value)
        out[lo:lo + _CHUNK] = value if name else np.where(head == ord("-"), -value, value)
    return out


def _token_bounds(data: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Starts and ends of the tokens (``;`` separates them too: ``x3;`` is the token ``x3``), read
    a chunk of bytes at a time into 32-bit offsets; None if a byte is one :data:`_ODD`."""
    dtype = np.int32 if data.size < np.iinfo(np.int32).max else np.int64
    starts, ends = [], []
    for lo, hi in _blank_cut_chunks(data, _BYTES_CHUNK):   # no token is cut in two
        piece = data[lo:hi]
        if _ODD[piece].any():
            return None
        solid = (piece > BLANK) & (piece != _SEMI)
        edges = np.flatnonzero(np.diff(solid, prepend=False, append=False)) + lo
        starts.append(edges[0::2].astype(dtype))
        ends.append(edges[1::2].astype(dtype))
    if not starts:
        return np.zeros(0, dtype), np.zeros(0, dtype)
    return np.concatenate(starts), np.concatenate(ends)


def _without_comments(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, semis: np.ndarray,
                      where: str) -> tuple[dict, tuple[str, str] | None, np.ndarray, np.ndarray, np.ndarray]:
    """The metadata and header of the comment lines (a line whose first byte past the blanks is
    ``*``), and the tokens and ``;`` of the other lines. Arrays a line, not a token, but the kept ones."""
    breaks = np.flatnonzero((data == 10) | (data == 13))
    line_start = np.concatenate([[0], breaks + 1])
    line_end = np.concatenate([breaks, [data.size]])
    first: np.ndarray = np.searchsorted(starts, line_start)   # each line's first token
    last: np.ndarray = np.searchsorted(starts, line_end)      # past its last
    comment: np.ndarray = first < last
    if starts.size:
        at = starts[np.minimum(first, starts.size - 1)]
        comment &= data[at] == _STAR
        # a ';' before the '*' makes it a body line (";* ..." ends a statement, then bad terms)
        comment &= np.searchsorted(semis, line_start) == np.searchsorted(semis, at)
    lines = [bytes(data[lo:hi]).decode("ascii").strip()
             for lo, hi in zip(line_start[comment].tolist(), line_end[comment].tolist())]
    meta, header = _comments(lines, where)
    if comment.any():
        mark = np.zeros(starts.size + 1, dtype=np.int8)
        np.add.at(mark, first[comment], 1)
        np.add.at(mark, last[comment], -1)
        body = np.cumsum(mark[:-1], dtype=np.int8) == 0
        del mark
        starts, ends = starts[body], ends[body]
        semis = semis[~comment[np.searchsorted(breaks, semis)]]
    return meta, header, starts, ends, semis


def _parse_bytes(data: np.ndarray, where: str) -> _Statements | None:
    """The statements of an ASCII file's bytes as arrays, or None for anything :func:`_parse_text`
    should read (it takes the same files and gives the messages of bad ones)."""
    bounds = _token_bounds(data)
    if bounds is None:
        return None
    semis = np.flatnonzero(data == _SEMI)
    meta, header, starts, ends, semis = _without_comments(data, *bounds, semis, where)
    del bounds
    before = np.searchsorted(starts, semis)                # tokens before each statement's ';'
    if before.size and before[-1] != starts.size or not before.size and starts.size:
        return None                            # truncated: tokens after the last ';'
    n_words = np.diff(before, prepend=0)
    if (n_words == 0).any():
        return None
    first = before - n_words
    lengths = ends[first] - starts[first]
    head = data[np.minimum(starts[first, None] + np.arange(4), data.size - 1)]   # a statement's first 4 bytes
    objective = (lengths == 4) & ((head == np.frombuffer(b"min:", np.uint8)).all(axis=1)
                                  | (head == np.frombuffer(b"max:", np.uint8)).all(axis=1))
    del head
    if ((~objective & (n_words < 4)).any() or ((n_words - np.where(objective, 1, 2)) % 2).any()):
        return None
    op = np.minimum(first + n_words - 2, starts.size - 1)
    op_head = data[starts[op]]
    rel = np.where(op_head == ord("="), 0, np.where(op_head == ord(">"), 1, 2))
    op_length = ends[op] - starts[op]
    op_ok = (op_length == 1) & (op_head == ord("=")) | (op_length == 2) & (
        (op_head == ord(">")) | (op_head == ord("<"))) & (data[starts[op] + 1] == ord("="))
    if not (objective | op_ok).all():
        return None
    rhs = _integers(data, starts, ends, op[~objective] + 1)
    # every term's coefficient token: the statement's tokens after min:/max: or before the operator
    n_terms = (n_words - np.where(objective, 1, 2)) // 2
    term_start = np.concatenate([[0], np.cumsum(n_terms)])
    coef_at = np.repeat(first + objective - 2 * term_start[:-1], n_terms) + 2 * np.arange(term_start[-1])
    coefs = _integers(data, starts, ends, coef_at)
    coef_at += 1
    variables = _integers(data, starts, ends, coef_at, name=True)
    if rhs is None or coefs is None or variables is None:
        return None
    del coef_at, starts, ends
    return _assemble(meta, header, objective, rel, rhs, n_terms, variables, coefs)


def _assemble(meta: dict, header, objective: np.ndarray, rel: np.ndarray, rhs: np.ndarray,
              n_terms: np.ndarray, variables: np.ndarray, coefs: np.ndarray) -> _Statements | None:
    """Rows, bound lines and objective terms of parsed statements (the text parser's rules)."""
    counted, n_rows = _counts(meta)
    cons = np.flatnonzero(~objective)
    rel = rel[cons]
    term_start = np.concatenate([[0], np.cumsum(n_terms)])
    single = n_terms[cons] == 1
    one = np.zeros(cons.size, dtype=bool)
    one[single] = coefs[term_start[cons[single]]] == 1
    bound_form = one & (((rel == 1) & (rhs == 1)) | ((rel == 2) & (rhs == 0)))
    is_row = np.arange(cons.size) < n_rows if n_rows is not None else ~bound_form
    if (~is_row & ~bound_form).any():
        return None                            # after the counted rows, only bound lines
    bound_var = variables[term_start[cons[~is_row]]]
    bound_rel = rel[~is_row]
    row = cons[is_row]
    rel, b = rel[is_row], rhs[is_row].astype(float)
    lengths = n_terms[row]
    of_row = np.zeros(objective.size, dtype=bool)
    of_row[row] = True
    in_row = np.repeat(of_row, n_terms)
    negated = np.zeros(objective.size, dtype=bool)
    if counted:                                # a <= row of Aineq, written negated
        negated[row[rel == 1]] = True
    row_coefs = np.where(np.repeat(negated, n_terms), -coefs, coefs)[in_row]
    flip = rel == 1 if counted else np.zeros(rel.size, dtype=bool)
    lower = np.where(flip | (rel == 2), -np.inf, b)
    upper = np.where(flip, -b, np.where(rel == 1, np.inf, b))
    cost_terms = [(variables[term_start[s]:term_start[s + 1]], coefs[term_start[s]:term_start[s + 1]])
                  for s in np.flatnonzero(objective).tolist()]
    return _Statements(meta, header, variables[in_row], row_coefs, lengths.astype(np.int64), lower, upper,
                       bound_var[bound_rel == 1], bound_var[bound_rel == 2], cost_terms, counted, n_rows)


def _refuse_other_header(header: tuple[str, str] | None, n_vars: int, n_constraints: int, where: str) -> None:
    """FormatError unless the ``* #variable= V #constraint= C`` header (when present) states the
    model's ``N^3`` variables and the file's constraint count: solvers size their arrays by it,
    so a tampered one (``#variable= 999999999999``) is not the manifest's model."""
    if header is None:
        return
    stated = (("variables", n_vars, "the model's OPB has"), ("constraints", n_constraints, "the file has"))
    for text, (what, want, whose) in zip(header, stated):
        number = int(text) if is_count(text) else None
        if number != want:
            raise FormatError(f"{where}: header says {shortened(text)} {what}, {whose} {want}")


def read(path: str | os.PathLike) -> ModelData:
    """An OPB file (linear constraints) back to :class:`ModelData`.

    The metadata's counts split the constraints: the first ``rows`` are the ``=`` rows of
    ``Aeq``, the next ``inequalities`` the ``<=`` rows of ``Aineq`` (written negated with ``>=``
    and negated back here), the rest are bound lines (``+1 xv >= 1`` is ``lb = 1``, ``+1 xv <= 0``
    ``ub = 0``). Without the counts (files of other tools' making): a one-term ``+1 xv >= 1`` /
    ``+1 xv <= 0`` is a bound, any other ``>=``/``<=`` a row with one infinite side. Columns: all
    ``N^3`` variables (a gattai layout's present cells), or for ``reduce`` the named ones (sorted).

    Parameters
    ----------
    path : str or Path
        The file (``.gz`` compressed or not).

    Returns
    -------
    ModelData

    Raises
    ------
    FormatError
        A constraint without ``;``, a bad term or operator, a name other than ``x<int>``, a
        ``* #variable= V #constraint= C`` header other than the model's ``N^3`` and the file's
        constraint count, or a file without the pipeline's metadata.
    """
    where = str(path)
    with open_text(path, where) as f:
        text = f.read()
    parsed = None
    if text.isascii():      # the bytes of the text, held once: the str is let go
        data = np.frombuffer(text.encode("ascii"), np.uint8)
        del text
        parsed = _parse_bytes(data, where)
        text = data.tobytes().decode("ascii") if parsed is None else ""
        del data
    if parsed is None:
        parsed = _parse_text(text, where)
    del text
    return _model_data(parsed, where)


def _refuse_variable(all_vars: np.ndarray, parsed: _Statements, where: str, n_cells: int) -> None:
    """Refuse the first variable outside ``x1..x<n_cells>`` by its own number and where it is (an
    ``x0`` was named as the highest variable, a valid one, the model's last)."""
    k = int(np.flatnonzero((all_vars < 1) | (all_vars > n_cells))[0])
    v = int(all_vars[k])
    place = (f"constraint {int(np.searchsorted(np.cumsum(parsed.lengths), k, side='right')) + 1}: "
             if k < parsed.row_vars.size else "")
    if v < 1:
        raise FormatError(f"{where}: {place}variable x{v} does not exist: OPB numbers variables from x1")
    raise FormatError(f"{where}: {place}variable x{v} is beyond the model's {n_cells} variables")


def _model_data(parsed: _Statements, where: str) -> ModelData:
    """The checks and arrays of a file's statements: columns, the matrix, bounds and costs."""
    meta, n_rows = parsed.meta, parsed.n_rows
    conv, columns_rule = convention_of(meta, where)
    n_cells = conv.n_vars + aux_count(meta)   # cell variables, then the auxiliary columns
    n_found = parsed.lengths.size
    bounds = np.concatenate([parsed.bound_lb, parsed.bound_ub])
    all_vars = np.concatenate([parsed.row_vars, bounds] + [v for v, _ in parsed.cost_terms]) if (
        n_found or bounds.size) else np.zeros(0, np.int64)
    if all_vars.size and (all_vars.min() < 1 or all_vars.max() > n_cells):
        _refuse_variable(all_vars, parsed, where, n_cells)
    del all_vars
    if parsed.counted and n_found != n_rows:
        raise FormatError(f"{where}: the metadata counts {n_rows} rows, the file has {n_found}")
    _refuse_other_header(parsed.header, n_cells, n_found + bounds.size, where)
    flat = parsed.row_vars - 1
    columns = np.unique(flat) if columns_rule is None else columns_rule
    if columns_rule is None and aux_count(meta):   # reduce: auxiliary columns are never dropped
        columns = np.union1d(columns, conv.n_vars + np.arange(aux_count(meta)))
    indptr = np.concatenate([[0], np.cumsum(parsed.lengths)])
    data = parsed.row_coefs.astype(float)
    col = np.searchsorted(columns, flat)
    if flat.size and (col.max() >= columns.size or (columns[np.minimum(col, columns.size - 1)] != flat).any()):
        raise FormatError(f"{where}: a variable is not a column of the model its metadata describes")
    del flat
    a = sp.csr_matrix((data, col, indptr), shape=(n_found, columns.size))
    lb, ub, cost = np.zeros(columns.size), np.ones(columns.size), np.zeros(columns.size)
    lb[np.searchsorted(columns, parsed.bound_lb - 1)] = 1.0
    ub[np.searchsorted(columns, parsed.bound_ub - 1)] = 0.0
    for v, c in parsed.cost_terms:
        cost[np.searchsorted(columns, v - 1)] += c
    if meta.get("clue_encoding") == "reduce" and meta.get("kept_columns") == "by name":
        meta = {**meta, "kept_columns": columns.tolist()}
    model_data = ModelData(a, parsed.lower, parsed.upper, lb, ub, cost,
                           np.ones(columns.size, dtype=bool), None, column_names(meta, conv, columns, where), meta)
    refuse_disagreement(model_data, where)
    return model_data
