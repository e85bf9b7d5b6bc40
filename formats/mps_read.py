"""The MPS reader, free and fixed (the writer and the format's registration are in :mod:`formats.mps`).

The file is one bytes object; each section is split into tokens by numpy in blocks of lines;
names become fixed-width keys (uint64 words) hashed and checked exactly, so neither a line nor a
token ever becomes a Python object.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.errors import FormatError
from pipeline.core.manifest import COMMENT_TAG, parse_comment_line

from formats.base import ModelData, open_binary
from formats.agree import refuse_disagreement
from formats.text import BLANK, NameDictionary, Tokens, word_width

COMMENT_CONTINUATION = "*+ "  # a metadata comment too long for one card continues on these


def names_map_path(path: str | os.PathLike) -> Path:
    """``<stem>_names.csv`` beside a fixed MPS file (``.csv.gz`` when the MPS is gzipped)."""
    path = Path(path)
    name = path.name
    gz = name.lower().endswith(".gz")
    stem = name[:-3] if gz else name
    if stem.lower().endswith(".mps"):
        stem = stem[:-4]
    return path.with_name(stem + "_names.csv" + (".gz" if gz else ""))


_SECTIONS = ("NAME", "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS", "ENDATA", "OBJSENSE", "OBJSENCE", "OBJNAME")
_READ_LINES = 1 << 18          # lines tokenised per block
_MAX_TOKEN = 256               # longest name or number accepted
_HEAD_BYTES = 4096             # an empty-file check looks at this much before copying the whole file
#: Bytes :class:`_Lines` looks for line ends in at a time.
_NEWLINE_BLOCK = 1 << 22
_PAD = _MAX_TOKEN + 8          # blanks after a block so that a token's key window never overruns


class _Lines:
    """The file as one bytes object with line offsets (no Python object per line)."""

    def __init__(self, raw: bytes, where: str):
        self.raw, self.where = raw, where
        self.arr = np.frombuffer(raw, dtype=np.uint8)
        # the line ends found a block of bytes at a time, into offsets of int32 where the file's
        # size fits one: a mask of the whole file, int64 positions, starts and ends were 0.24 GB
        # beside an empty 100x100's 139 MB of text
        index = np.int32 if len(raw) < np.iinfo(np.int32).max else np.int64
        self.ends = np.empty(raw.count(b"\n") + 1, dtype=index)
        at = 0
        for lo in range(0, len(raw), _NEWLINE_BLOCK):
            found = np.flatnonzero(self.arr[lo:lo + _NEWLINE_BLOCK] == 10)
            np.add(found, lo, out=self.ends[at:at + found.size], casting="same_kind")
            at += found.size
        self.ends[-1] = len(raw)
        self.starts = np.empty_like(self.ends)
        self.starts[0] = 0
        np.add(self.ends[:-1], 1, out=self.starts[1:])
        if raw.endswith(b"\n"):                  # no phantom empty line after the last newline
            self.starts, self.ends = self.starts[:-1], self.ends[:-1]
        nonempty = self.ends > self.starts
        self.first = np.full(self.starts.size, 10, dtype=np.uint8)
        self.first[nonempty] = self.arr[self.starts[nonempty]]

    def __len__(self):
        return self.starts.size

    def text(self, i: int) -> str:
        return self.raw[self.starts[i]:self.ends[i]].decode("utf-8", "replace").rstrip("\r")

    def error(self, i: int, message: str) -> FormatError:
        """FormatError naming the file and the 1-based line of 0-based line ``i``."""
        return FormatError(f"{self.where}: line {i + 1}: {message}")

    def blocks(self, lo: int, hi: int):
        for l0 in range(lo, hi, _READ_LINES):
            yield _Block(self, l0, min(hi, l0 + _READ_LINES))


class _Block:
    """Tokens (:class:`~formats.text.Tokens`) of lines ``[l0, l1)`` with each line's first
    token and token count; comment lines (``*`` in column 1) have no fields."""

    def __init__(self, lines: _Lines, l0: int, l1: int):
        self.lines, self.l0 = lines, l0
        s, e = int(lines.starts[l0]), int(lines.ends[l1 - 1])
        b = np.full(e - s + _PAD, BLANK, dtype=np.uint8)   # the pad: key windows never overrun
        b[:e - s] = lines.arr[s:e]
        self.tokens = tok = Tokens(b)
        self.length = tok.lengths
        first = np.searchsorted(tok.starts, lines.starts[l0:l1] - s)
        count = np.diff(np.append(first, len(tok)))
        count[lines.first[l0:l1] == ord("*")] = 0
        self.first, self.count = first, count
        if self.length.size and self.length.max() > _MAX_TOKEN:   # key windows must stay in the pad
            for t in np.flatnonzero(self.length > _MAX_TOKEN).tolist():
                k = int(np.searchsorted(first, t, side="right")) - 1
                if t < first[k] + count[k]:          # not inside a comment line
                    raise self.error(k, f"field longer than {_MAX_TOKEN} characters")

    def line(self, k) -> int:
        """0-based file line of the block's line ``k``."""
        return self.l0 + int(k)

    def error(self, k, message: str) -> FormatError:
        return self.lines.error(self.line(k), message)

    def codes(self, tok: np.ndarray, size: int) -> np.ndarray:
        """Upper-cased tokens of ``size`` bytes as integers (-1 for other lengths)."""
        window = self.tokens.fixed(tok, size, case="upper").astype(np.int64)
        code = np.zeros(tok.size, dtype=np.int64)
        for i in range(size):
            code = code * 256 + window[:, i]
        return np.where(self.length[tok] == size, code, -1)

    def numbers(self, tok: np.ndarray, what: str, rows: np.ndarray, infinite: bool = False) -> np.ndarray:
        """Tokens -> finite floats (``infinite``: a spelled-out ``inf`` too, for bounds);
        FormatError naming the line of the first that is not such a number."""
        return self.tokens.numbers(tok, lambda j, text: self.error(rows[j], f"bad number {text!r} ({what})"),
                                   infinite=infinite)


def _join(parts: list, dtype) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


def _shown(block: "_Block", tok: int) -> str:
    """One token as text, for an error message."""
    return _names(block, np.array([tok]))[0].decode("utf-8", "replace")


def _lookup(block: _Block, table: NameDictionary, tok: np.ndarray) -> np.ndarray:
    """Table index of each token (-1 if absent; tokens longer than every name are absent)."""
    fits = block.length[tok] <= table.width
    out = np.full(tok.size, -1, dtype=np.int64)
    out[fits] = table.lookup(block.tokens.words(tok[fits], table.width))
    return out


def _names(block: _Block, tok: np.ndarray) -> np.ndarray:
    """Tokens as an 'S' array."""
    return block.tokens.strings(tok)


def _to_str(names: np.ndarray) -> np.ndarray:
    try:
        return names.astype(str)
    except UnicodeDecodeError:
        return np.char.decode(names, "utf-8", errors="replace")


def _live_lines(block: _Block, allowed: tuple[int, ...], what: str) -> np.ndarray:
    """Lines of the block with fields, checking their field counts."""
    live = np.flatnonzero(block.count > 0)
    bad = ~np.isin(block.count[live], allowed)
    if bad.any():
        k = live[np.flatnonzero(bad)[0]]
        raise block.error(k, f"{what} line with {block.count[k]} fields (expected "
                             f"{' or '.join(map(str, allowed))})")
    return live


def _read_rows(lines: _Lines, lo: int, hi: int):
    """(type letters as uint8, names as 'S', their name table) of the ROWS section."""
    kind_parts: list[np.ndarray] = []
    name_parts: list[np.ndarray] = []
    at_parts: list[np.ndarray] = []
    for block in lines.blocks(lo, hi):
        live = _live_lines(block, (2,), "ROWS")
        code = block.codes(block.first[live], 1)
        bad = ~np.isin(code, [ord(c) for c in "NELG"])
        if bad.any():
            k = live[np.flatnonzero(bad)[0]]
            raise block.error(k, f"unknown row type {_shown(block, block.first[k])!r} (expected N, E, L or G)")
        kind_parts.append(code.astype(np.uint8))
        name_parts.append(_names(block, block.first[live] + 1))
        at_parts.append(block.l0 + live)
    kinds, names, at = _join(kind_parts, np.uint8), _join(name_parts, "S1"), _join(at_parts, np.int64)
    table = NameDictionary(names)
    if table.duplicates.size:
        k = int(table.duplicates[0])
        raise lines.error(int(at[k]), f"row {names[k].decode('utf-8', 'replace')!r} declared twice")
    return kinds, names, table


def _read_columns(lines: _Lines, lo: int, hi: int, rows: NameDictionary):
    """Columns (names 'S', integer flags) and entries (column, row, value) of COLUMNS."""
    run_names, run_lines, run_int = [], [], []
    cols, ents, vals, at = [], [], [], []
    integer_state = False
    last_name = None
    n_runs = 0
    marker, intorg, intend = (int.from_bytes(s.ljust(8, b"\0"), "little") for s in
                              (b"'MARKER'", b"'INTORG'", b"'INTEND'"))
    for block in lines.blocks(lo, hi):
        live = _live_lines(block, (3, 5), "COLUMNS")
        f1 = block.first[live] + 1
        is_marker = np.zeros(live.size, dtype=bool)
        maybe = block.length[f1] == 8
        is_marker[maybe] = _upper_words(block, f1[maybe]) == marker
        # integer state of each data line: the kind of the last marker above it
        state = np.full(live.size, integer_state)
        if is_marker.any():
            mk = np.flatnonzero(is_marker)
            kind = np.where(block.length[f1[mk] + 1] == 8, _upper_words(block, f1[mk] + 1), 0)
            bad = (kind != intorg) & (kind != intend)
            if bad.any():
                k = live[mk[np.flatnonzero(bad)[0]]]
                raise block.error(k, "unknown marker (expected 'INTORG' or 'INTEND')")
            latest = np.searchsorted(mk, np.arange(live.size), side="right") - 1
            has = latest >= 0
            state[has] = kind[latest[has]] == intorg
            integer_state = bool(kind[-1] == intorg)
        data = live[~is_marker]
        state = state[~is_marker]
        if data.size == 0:
            continue
        col_tok = block.first[data]
        width = word_width(block.length[col_tok].max(initial=1))
        words = block.tokens.words(col_tok, width)
        new = np.ones(data.size, dtype=bool)
        new[1:] = (words[1:] != words[:-1]).any(axis=1)
        names = _names(block, col_tok[new])
        if last_name is not None and names[0] == last_name:
            new[0] = False                       # the column goes on from the previous block
            names = names[1:]
        col_id = n_runs - 1 + np.cumsum(new)
        n_runs += names.size
        if names.size:
            last_name = names[-1]
        run_names.append(names)
        run_lines.append(block.l0 + data[new])
        run_int.append(state[new])
        pair = block.count[data] == 5
        tok_row = np.concatenate([col_tok + 1, col_tok[pair] + 3])
        tok_val = tok_row + 1
        line_of = np.concatenate([data, data[pair]])
        r = _lookup(block, rows, tok_row)
        if (r < 0).any():
            k = int(np.flatnonzero(r < 0)[0])
            raise block.error(line_of[k], f"unknown row {_shown(block, tok_row[k])!r}")
        cols.append(np.concatenate([col_id, col_id[pair]]))
        ents.append(r)
        at.append(block.l0 + line_of)
        vals.append(block.numbers(tok_val, "COLUMNS value", line_of))
    names = _join(run_names, "S1")
    table = NameDictionary(names)
    if table.duplicates.size:
        k = int(table.duplicates[0])
        raise lines.error(int(np.concatenate(run_lines)[k]),
                          f"column {names[k].decode('utf-8', 'replace')!r} continues after other columns "
                          "(a column's entries must be contiguous)")
    # each part list is emptied once joined: the parts and their join held together were the
    # entries twice over (an empty 100x100 has 4 M entries, 32 MB an array)
    cols_ = _join(cols, np.int64)
    cols.clear()
    ents_ = _join(ents, np.int64)
    ents.clear()
    n_rows = max(rows.names.size, 1)

    def keys() -> np.ndarray:
        key = cols_ * n_rows
        key += ents_                             # in place: one key array, not two
        return key

    # a (column, row) pair listed twice would be summed by sparse matrices: not the file's model
    _refuse_repeats(lines, keys, lambda: _join(at, np.int64),
                    lambda k: f"second entry for column {names[cols_[k]].decode('utf-8', 'replace')!r} "
                              f"in row {rows.names[ents_[k]].decode('utf-8', 'replace')!r}")
    at.clear()
    return names, table, _join(run_int, bool), cols_, ents_, _join(vals, float)


def _refuse_repeats(lines: _Lines, keys: Callable[[], np.ndarray], at: Callable[[], np.ndarray],
                    message: Callable[[int], str]) -> None:
    """FormatError at the later line of the first key (in file order) listed twice; ``keys()``
    makes a fresh array of the entries' keys, ``at()`` their 0-based lines, ``message(k)`` says
    what entry ``k`` is.

    Without a repeat only the keys are made and sorted in place (the order of the entries and the
    keys gathered in it, three arrays the size of the keys, were the MPS read's peak); the lines
    and that order are made on the error path alone.
    """
    sorted_keys = keys()
    sorted_keys.sort()
    if not (sorted_keys[1:] == sorted_keys[:-1]).any():
        return
    del sorted_keys
    key, where = keys(), at()
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    again = np.flatnonzero(ordered[1:] == ordered[:-1]) + 1
    k = int(order[again][np.argmin(where[order[again]])])
    raise lines.error(int(where[k]), message(k))


def _upper_words(block: _Block, tok: np.ndarray) -> np.ndarray:
    """8-byte tokens, upper-cased, as one little-endian integer each."""
    w = np.ascontiguousarray(block.tokens.fixed(tok, 8, case="upper"))
    return w.view("<u8").ravel().astype(np.int64) if tok.size else np.zeros(0, np.int64)


def _read_rhs(lines: _Lines, lo: int, hi: int, rows: NameDictionary):
    """(row index, value) pairs of an RHS section; the set name is optional (fixed files may
    leave it blank), so 3 or 5 fields mean a set name leads, 2 or 4 that it does not."""
    idx, vals, at = [], [], []
    for block in lines.blocks(lo, hi):
        live = _live_lines(block, (2, 3, 4, 5), "RHS")
        count = block.count[live]
        first = block.first[live] + count % 2
        two = count - count % 2 == 4
        tok_row = np.concatenate([first, first[two] + 2])
        line_of = np.concatenate([live, live[two]])
        r = _lookup(block, rows, tok_row)
        if (r < 0).any():
            k = int(np.flatnonzero(r < 0)[0])
            raise block.error(line_of[k], f"unknown row {_shown(block, tok_row[k])!r}")
        idx.append(r)
        vals.append(block.numbers(tok_row + 1, "RHS value", line_of))
        at.append(block.l0 + line_of)
    r = _join(idx, np.int64)
    _refuse_repeats(lines, r.copy, lambda: _join(at, np.int64),
                    lambda k: f"second RHS entry for row {rows.names[r[k]].decode('utf-8', 'replace')!r}")
    return r, _join(vals, float)


_BOUND_TYPES = {name: (ord(name[0]) << 8) | ord(name[1]) for name in
                ("UP", "LO", "FX", "LI", "UI", "MI", "PL", "FR", "BV")}


def _last_per_column(target: np.ndarray, cols: np.ndarray, mask: np.ndarray, values: np.ndarray) -> None:
    """``target[cols[mask]] = values[mask]`` where the last line of a column wins (file order)."""
    sel = np.flatnonzero(mask)[::-1]
    if sel.size:
        c, first = np.unique(cols[sel], return_index=True)
        target[c] = values[sel[first]]


def _read_bounds(lines: _Lines, lo: int, hi: int, columns: NameDictionary, lb, ub, integer) -> None:
    """Apply a BOUNDS section (UP LO FX LI UI MI PL FR BV) to ``lb``, ``ub``, ``integer``."""
    kinds: list[np.ndarray] = []
    col_parts: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    t = _BOUND_TYPES
    valued_types = [t[k] for k in ("UP", "LO", "FX", "LI", "UI")]
    for block in lines.blocks(lo, hi):
        live = _live_lines(block, (2, 3, 4), "BOUNDS")
        count = block.count[live]
        first = block.first[live]
        kind = block.codes(first, 2)
        known = np.isin(kind, list(t.values()))
        if (~known).any():
            k = live[np.flatnonzero(~known)[0]]
            raise block.error(k, f"unknown bound type {_shown(block, block.first[k])!r}")
        valued = np.isin(kind, valued_types)
        # "type [set] column [value]": value types need the value; MI/PL/FR ignore a trailing
        # one; "BV a b" is "BV set column" when b names a column, else "BV column value"
        col_field = np.where(valued, count - 2, np.where(count >= 4, 2, count - 1))
        bv3 = np.flatnonzero((kind == t["BV"]) & (count == 3))
        if bv3.size:
            col_field[bv3] = np.where(_lookup(block, columns, first[bv3] + 2) >= 0, 2, 1)
        bad = np.flatnonzero(col_field < 1)                 # a value type with one field after it
        if bad.size:
            raise block.error(live[bad[0]], "a bound needs a column and a value")
        tok_col = first + col_field
        c = _lookup(block, columns, tok_col)
        if (c < 0).any():
            j = int(np.flatnonzero(c < 0)[0])
            raise block.error(live[j], f"bound on unknown column {_shown(block, tok_col[j])!r}")
        v = np.full(live.size, np.nan)
        sel = np.flatnonzero(valued)
        v[sel] = block.numbers(tok_col[sel] + 1, "bound value", live[sel], infinite=True)
        kinds.append(kind)
        col_parts.append(c)
        vals.append(v)
    if not kinds:
        return
    kind, cols, values = _join(kinds, np.int64), _join(col_parts, np.int64), _join(vals, float)
    for parts in (kinds, col_parts, vals):   # the parts beside their joins: every bound held twice
        parts.clear()
    is_ = {k: kind == code for k, code in t.items()}
    sets_lb = is_["LO"] | is_["LI"] | is_["FX"] | is_["MI"] | is_["FR"] | is_["BV"]
    sets_ub = is_["UP"] | is_["UI"] | is_["FX"] | is_["PL"] | is_["FR"] | is_["BV"]
    # legacy rule shared by HiGHS and CPLEX: a negative UP on a column without a lower bound
    # frees it below
    had_lb = np.zeros(lb.size, dtype=bool)
    had_lb[cols[sets_lb]] = True
    neg_up = (is_["UP"] | is_["UI"]) & (values < 0) & ~had_lb[cols]
    lb_value = np.select([is_["MI"] | is_["FR"] | neg_up, is_["BV"]], [-np.inf, 0.0], values)
    ub_value = np.select([is_["PL"] | is_["FR"], is_["BV"]], [np.inf, 1.0], values)
    _last_per_column(lb, cols, sets_lb | neg_up, lb_value)
    _last_per_column(ub, cols, sets_ub, ub_value)
    integer[cols[is_["BV"] | is_["LI"] | is_["UI"]]] = True


def _names_map(path: Path) -> tuple[NameDictionary, np.ndarray] | None:
    """(short names, long names) of ``<stem>_names.csv`` (or ``.csv.gz``) beside a fixed file,
    tokenised like MPS (commas read as blanks: names hold neither)."""
    plain = names_map_path(path)
    for candidate in (plain, plain.with_name(plain.name + ".gz"), plain.with_name(plain.name.removesuffix(".gz"))):
        if not candidate.exists():
            continue
        with open_binary(candidate) as f:
            lines = _Lines(f.read().replace(b",", b" "), str(candidate))
        if len(lines) < 1 or lines.text(0).split() != ["short", "long"]:
            raise FormatError(f"{candidate}: line 1: expected the header 'short,long'")
        short, long = [], []
        for block in lines.blocks(1, len(lines)):
            live = _live_lines(block, (2,), "names map")
            short.append(_names(block, block.first[live]))
            long.append(_names(block, block.first[live] + 1))
        if not short:
            raise FormatError(f"{candidate}: no names")
        return NameDictionary(np.concatenate(short)), np.concatenate(long)
    return None


def _sections(lines: _Lines) -> list[tuple[str, int, str]]:
    """(keyword, line, rest of the line) for every header line (text from column 1)."""
    heads = np.flatnonzero(~np.isin(lines.first, np.frombuffer(b" \t*\r\n", dtype=np.uint8)))
    out = []
    for i in heads.tolist():
        word, _, rest = lines.text(i).partition(" ")
        key = word.strip().upper()
        if key not in _SECTIONS:
            raise lines.error(i, f"unknown section {word.strip()!r}")
        out.append((key, i, rest.strip()))
        if key == "ENDATA":
            return out
    raise FormatError(f"{lines.where}: line {len(lines)}: no ENDATA: the file is truncated or not MPS")


def _metadata(lines: _Lines, stop: int) -> dict:
    """The export metadata from the tagged comment before line ``stop``, joined with its
    ``*+ `` continuation lines ({} if there is none)."""
    comments = np.flatnonzero(lines.first[:stop] == ord("*")).tolist()
    for k, i in enumerate(comments):
        text = lines.text(i)
        if COMMENT_TAG in text:
            for j in comments[k + 1:]:
                more = lines.text(j)
                if j != i + 1 or not more.startswith(COMMENT_CONTINUATION):
                    break
                text, i = text + more[len(COMMENT_CONTINUATION):], j
            meta = parse_comment_line(text)
            if not isinstance(meta, dict):     # the tag is there but the metadata is damaged
                raise lines.error(comments[k], f"the {COMMENT_TAG!r} comment is not a JSON object")
            return meta
    return {}


def _single_value(lines: _Lines, lo: int, hi: int, rest: str) -> str:
    """The argument of OBJSENSE / OBJNAME: on the header line or on the next data line."""
    if rest:
        return rest.split()[0]
    for i in range(lo, hi):
        if lines.first[i] != ord("*") and lines.text(i).strip():
            return lines.text(i).split()[0]
    return ""


def read(path: str | os.PathLike) -> ModelData:
    """Read free or fixed MPS (``.gz`` transparently) into ModelData; FormatError on bad files.

    Fields are split at blanks, so fixed files whose names contain blanks are not supported.
    A fixed file written by :func:`write` gets its long names back from ``<stem>_names.csv``.
    """
    path = Path(path)
    where = str(path)
    with open_binary(path, where) as f:
        try:
            raw = f.read()
        except (OSError, EOFError) as e:
            raise FormatError(f"{where}: cannot read: {e}") from None
    if not raw[:_HEAD_BYTES].strip() and not raw.strip():      # strip() copies: look at the head first
        raise FormatError(f"{where}: line 1: empty file: not MPS")
    lines = _Lines(raw, where)
    sections = _sections(lines)
    heads = [i for _, i, _ in sections] + [len(lines)]
    stray = np.flatnonzero(~np.isin(lines.first[:heads[0]], np.frombuffer(b"*\r\n", dtype=np.uint8)))
    if stray.size:
        raise lines.error(int(stray[0]), "data line before any section")
    found: dict[str, tuple[int, int, int, str]] = {}
    for s, (key, i, rest) in enumerate(sections):
        key = "OBJSENSE" if key == "OBJSENCE" else key
        if key in found:
            raise lines.error(i, f"section {key} appears twice")
        found[key] = (i, i + 1, heads[s + 1], rest)
    order = [key for key, _, _ in sections]
    for key, before in (("COLUMNS", "ROWS"), ("RHS", "COLUMNS"), ("BOUNDS", "COLUMNS")):
        if key in found and (before not in found or order.index(before) > order.index(key)):
            raise lines.error(found[key][0], f"section {key} before {before}")
    if "RANGES" in found:
        raise lines.error(found["RANGES"][0], "RANGES section is not supported")
    if "ROWS" not in found:
        raise FormatError(f"{where}: line {len(lines)}: no ROWS section")
    metadata = _metadata(lines, found["ROWS"][0])
    if "OBJSENSE" in found:
        i, lo, hi, rest = found["OBJSENSE"]
        sense = _single_value(lines, lo, hi, rest)
        if sense.upper() not in ("MIN", "MINIMIZE", "MINIMISE"):
            raise lines.error(i, f"OBJSENSE {sense or '(empty)'} is not supported: only minimisation")
    objective_name = _single_value(lines, *found["OBJNAME"][1:]) if "OBJNAME" in found else ""

    kinds, row_names, rows = _read_rows(lines, *found["ROWS"][1:3])
    if "COLUMNS" in found:
        col_names, columns, integer, col_of, entry_rows, values = _read_columns(lines, *found["COLUMNS"][1:3], rows)
    else:
        col_names, columns = np.zeros(0, "S1"), NameDictionary(np.zeros(0, "S1"))
        integer, col_of, entry_rows, values = np.zeros(0, bool), np.zeros(0, int), np.zeros(0, int), np.zeros(0)
    n = col_names.size
    lb, ub = np.zeros(n), np.full(n, np.inf)
    if "BOUNDS" in found:
        _read_bounds(lines, *found["BOUNDS"][1:3], columns, lb, ub, integer)
    rhs = np.zeros(kinds.size)
    if "RHS" in found:
        r, v = _read_rhs(lines, *found["RHS"][1:3], rows)
        rhs[r] = v

    # the objective: OBJNAME, else the first N row; further N rows are free rows and dropped
    free_rows = np.flatnonzero(kinds == ord("N"))
    if objective_name:
        obj = int(rows.indices(np.array([objective_name.encode()]))[0])
        if obj < 0 or kinds[obj] != ord("N"):
            raise lines.error(found["OBJNAME"][0], f"OBJNAME {objective_name!r} is not an N row")
    else:
        obj = int(free_rows[0]) if free_rows.size else -1
    constraint = np.flatnonzero(kinds != ord("N"))
    new_index = np.full(kinds.size, -1)
    new_index[constraint] = np.arange(constraint.size)
    cost = np.zeros(n)
    is_obj = entry_rows == obj
    np.add.at(cost, col_of[is_obj], values[is_obj])
    keep = (new_index[entry_rows] >= 0) & (values != 0)
    aeq = sp.csr_matrix((values[keep], (new_index[entry_rows[keep]], col_of[keep])), shape=(constraint.size, n))
    aeq.sum_duplicates()
    if obj >= 0 and rhs[obj] != 0:
        metadata = {**metadata, "objective_constant": -float(rhs[obj])}
    ck, cr = kinds[constraint], rhs[constraint]
    row_lower = np.where(ck == ord("L"), -np.inf, cr)
    row_upper = np.where(ck == ord("G"), np.inf, cr)

    row_names = row_names[constraint]
    short_names = bool(n and re.fullmatch(rb"C\d{7}", col_names[0]))
    mapping = _names_map(path) if short_names else None
    if mapping is not None:                 # a fixed file of ours: long names from the map
        short, long = mapping
        ci, ri = short.indices(col_names), short.indices(row_names)
        if not ((ci >= 0).all() and (ri >= 0).all()) or short.duplicates.size or NameDictionary(long).duplicates.size:
            # a map beside the file that does not name it one to one: not the writer's pair of files
            raise FormatError(f"{names_map_path(path)}: does not map every short name of {path.name} to one long "
                              "name (each once)")
        col_names, row_names = long[ci], long[ri]
        short_names = False
    # the file's text, its line offsets and the entries are done with: the names' str copies
    # and the agreement check's own temporaries need not stand on top of them (an empty
    # 100x100's are 0.4 GB)
    del raw, lines, col_of, entry_rows, values, keep, is_obj, rows, columns
    data = ModelData(aeq, row_lower, row_upper, lb, ub, cost, integer, _to_str(row_names), _to_str(col_names),
                     metadata)
    refuse_disagreement(data, where, names=not short_names)   # a fixed file without its map: short names
    return data


