"""Finite automata over digit indices, for the ``automaton`` and ``regex`` rules (ISS ``NFA`` and
``Regex``): the automaton itself (:class:`Nfa`), ISS's binary/base64 serialization (:func:`nfa_from_iss`,
:func:`nfa_to_iss`), ISS's regular-expression dialect (:func:`nfa_from_regex`) and the per-position
pruning the rows are built from (:func:`layered_transitions`).

Symbols are 0-based digit indices (digit ``k`` stands for ``board.value_of[k]``); symbol ``V`` (the
number of digits) is ISS's segment break, read between the segments of a multi-segment line.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np

__all__ = ["Nfa", "NfaError", "MAX_STATES", "nfa_from_iss", "nfa_to_iss", "nfa_from_regex", "regex_char_value",
           "layered_transitions", "nfa_accepts"]

#: Most states a regex compiles to (ISS's limit too) and an ISS string may declare.
MAX_STATES = 1 << 12
#: Groups a pattern may nest (each a few frames of the recursive parser; ISS's patterns nest two or three).
MAX_GROUP_DEPTH = 64


class NfaError(ValueError):
    """A serialized automaton or a pattern that cannot be read (the rule names where)."""


@dataclass(frozen=True, eq=False)
class Nfa:
    """A nondeterministic automaton: ``states`` states ``0..states-1``, the ``start`` and ``accept``
    state numbers, and ``transitions`` ``(T, 3)``: ``[from, symbol, to]`` (unique rows, sorted)."""

    states: int
    start: np.ndarray
    accept: np.ndarray
    transitions: np.ndarray

    @classmethod
    def make(cls, states: int, start, accept, transitions) -> "Nfa":
        """The automaton with duplicates removed and everything as int64 arrays.

        Parameters
        ----------
        states : int
            Number of states.
        start, accept : array_like of int
            Start and accepting states.
        transitions : array_like of int, shape (T, 3)
            ``[from, symbol, to]`` rows.

        Returns
        -------
        Nfa
        """
        trans = np.asarray(transitions, dtype=np.int64).reshape(-1, 3)
        trans = np.unique(trans, axis=0) if trans.size else trans
        return cls(int(states), np.unique(np.asarray(start, dtype=np.int64)),
                   np.unique(np.asarray(accept, dtype=np.int64)), trans)


# -- ISS's serialization ---------------------------------------------------------------------------
def _bits_needed(n: int) -> int:
    return int(n).bit_length()


class _Bits:
    """Read an MSB-first bit string."""

    def __init__(self, data: bytes):
        self.bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8)) if data else np.zeros(0, dtype=np.uint8)
        self.data = bytes(data)
        self.at = 0

    def left(self) -> int:
        return int(self.bits.size - self.at)

    def read(self, count: int) -> int:
        if count > self.left():
            raise NfaError("the serialized automaton ends early")
        # the bytes the bits span as one int (joining the bits as text took 0.5 s of an
        # automaton's 155,000 reads)
        first, end = self.at >> 3, (self.at + count + 7) >> 3
        value = int.from_bytes(self.data[first:end], "big") >> (8 * end - self.at - count)
        self.at += count
        return value & ((1 << count) - 1)


def _b64decode(text: str) -> bytes:
    if not text or any(ch not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" for ch in text):
        raise NfaError("not an ISS automaton (URL-safe base64 expected)")
    if len(text) % 4 == 1:
        raise NfaError("not an ISS automaton (a base64 string cannot be that long)")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def nfa_from_iss(text: str) -> Nfa:
    """The automaton of an ISS ``NFA`` key (its ``NFASerializer`` format: a header of format,
    state bits, symbol count, start and accept counts, then each state's transitions, plain
    ``(symbol, target)`` pairs or packed symbol masks). ISS symbol ``s`` is digit index ``s - 1``.

    Parameters
    ----------
    text : str
        The base64url string (no padding); empty: the automaton that accepts nothing.

    Returns
    -------
    Nfa

    Raises
    ------
    NfaError
        Not base64, an unknown format, a truncated body or trailing data.
    """
    if not text:
        return Nfa.make(0, [], [], [])
    bits = _Bits(_b64decode(text))
    fmt = bits.read(2)
    if fmt not in (0, 1):
        raise NfaError(f"unknown automaton format {fmt}")
    state_bits = bits.read(4) + 1
    symbols = bits.read(4) + 1
    starts = bits.read(state_bits)
    accepts = bits.read(state_bits)
    start_accepts = bits.read(starts)
    count_bits = bits.read(4) if fmt == 0 else 0
    symbol_bits = _bits_needed(symbols - 1)
    rows: list[tuple[int, int, int]] = []
    state = 0
    if fmt == 0 and count_bits:
        while bits.left() >= count_bits:
            for _ in range(bits.read(count_bits)):
                if bits.left() < symbol_bits + state_bits:
                    raise NfaError("the automaton's transitions are truncated")
                rows.append((state, bits.read(symbol_bits), bits.read(state_bits)))
            state += 1
    elif fmt == 1:
        while bits.left() >= symbols:
            mask = bits.read(symbols)
            for s in range(symbols):
                if mask >> s & 1:
                    rows.append((state, s, bits.read(state_bits)))
            state += 1
    if bits.bits[bits.at:].any():
        raise NfaError("the automaton has trailing data")
    accept = [i for i in range(starts) if start_accepts >> i & 1] + list(range(starts, starts + accepts))
    trans = np.array(rows, dtype=np.int64).reshape(-1, 3)
    used = max([starts, starts + accepts] + [int(trans[:, [0, 2]].max()) + 1 if trans.size else 0])
    if used > 1 << 16:
        raise NfaError(f"an automaton of {used} states is more than ISS holds")
    return Nfa.make(used, np.arange(starts), accept, trans)


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, value: int, count: int) -> None:
        if count:
            self.parts.append(format(int(value), f"0{count}b"))

    def data(self) -> bytes:
        text = "".join(self.parts)
        text += "0" * (-len(text) % 8)
        return bytes(int(text[i:i + 8], 2) for i in range(0, len(text), 8))


def nfa_to_iss(nfa: Nfa) -> str:
    """ISS's ``NFA`` key of an automaton (plain format: states renumbered starts first, then the
    other accepting states, then the rest, as ISS's reader expects; dead states dropped).

    Parameters
    ----------
    nfa : Nfa
        The automaton (symbols below 16).

    Returns
    -------
    str

    Raises
    ------
    NfaError
        More than 16 symbols, no start state, or more states than ISS holds.
    """
    nfa = _trim(nfa)
    if nfa.states == 0 or nfa.start.size == 0:
        return ""
    trans = nfa.transitions
    if trans.size and int(trans[:, 1].max()) >= 16:
        raise NfaError("ISS's automata read at most 16 symbols")
    is_start = np.isin(np.arange(nfa.states), nfa.start)
    is_accept = np.isin(np.arange(nfa.states), nfa.accept)
    order = np.concatenate([nfa.start, np.flatnonzero(is_accept & ~is_start), np.flatnonzero(~is_accept & ~is_start)])
    new = np.empty(nfa.states, dtype=np.int64)
    new[order] = np.arange(nfa.states)
    trans = np.stack([new[trans[:, 0]], trans[:, 1], new[trans[:, 2]]], axis=1) if trans.size else trans
    trans = trans[np.lexsort((trans[:, 2], trans[:, 1], trans[:, 0]))] if trans.size else trans
    starts = int(nfa.start.size)
    other_accepts = int(np.count_nonzero(is_accept & ~is_start))
    state_bits = max(1, _bits_needed(nfa.states - 1), _bits_needed(starts), _bits_needed(other_accepts))
    if state_bits > 16:
        raise NfaError("too many states for ISS")
    symbols = max(1, int(trans[:, 1].max()) + 1 if trans.size else 1)
    symbol_bits = _bits_needed(symbols - 1)
    counts = np.bincount(trans[:, 0], minlength=nfa.states) if trans.size else np.zeros(nfa.states, dtype=np.int64)
    count_bits = _bits_needed(int(counts.max()))
    start_accepts = sum(1 << i for i in range(starts) if is_accept[nfa.start[i]])
    out = _Writer()
    out.write(0, 2)
    out.write(state_bits - 1, 4)
    out.write(symbols - 1, 4)
    out.write(starts, state_bits)
    out.write(other_accepts, state_bits)
    out.write(start_accepts, starts)
    out.write(count_bits, 4)
    if count_bits:
        last = int(np.flatnonzero(counts).max()) if trans.size else -1
        for state in range(last + 1):
            out.write(int(counts[state]), count_bits)
            for _, sym, to in trans[trans[:, 0] == state].tolist():
                out.write(sym, symbol_bits)
                out.write(to, state_bits)
    return base64.urlsafe_b64encode(out.data()).decode().rstrip("=")


def _trim(nfa: Nfa) -> Nfa:
    """Keep only the states on some path from a start to an accepting state (renumbered in order)."""
    live = _reach(nfa.states, nfa.start, nfa.transitions[:, [0, 2]]) & _reach(
        nfa.states, nfa.accept, nfa.transitions[:, [2, 0]])
    new = np.cumsum(live) - 1
    trans = nfa.transitions
    trans = trans[live[trans[:, 0]] & live[trans[:, 2]]] if trans.size else trans
    if trans.size:
        trans = np.stack([new[trans[:, 0]], trans[:, 1], new[trans[:, 2]]], axis=1)
    return Nfa.make(int(live.sum()), new[nfa.start[live[nfa.start]]], new[nfa.accept[live[nfa.accept]]], trans)


def _reach(states: int, seeds: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """States reachable from ``seeds`` along ``edges`` (``(E, 2)`` from -> to)."""
    seen = np.zeros(states, dtype=bool)
    seen[seeds] = True
    while edges.size:
        grown = seen.copy()
        grown[edges[seen[edges[:, 0]], 1]] = True
        if (grown == seen).all():
            break
        seen = grown
    return seen


# -- runs along a line -----------------------------------------------------------------------------
def layered_transitions(nfa: Nfa, allowed: np.ndarray) -> list[np.ndarray]:
    """Per step, the transitions on some accepting run: ``allowed`` ``(L, Y)`` says which symbols
    step ``i`` may read; a transition at step ``i`` is kept when its source is reachable from a
    start by steps ``0..i-1`` and its target reaches an accepting state by steps ``i+1..L-1``.

    Parameters
    ----------
    nfa : Nfa
        The automaton.
    allowed : ndarray of bool, shape (L, Y)
        Symbols each step may read (symbols ``>= Y`` never).

    Returns
    -------
    list of ndarray
        ``L`` arrays of indices into ``nfa.transitions`` (empty everywhere when no run accepts).
    """
    steps = allowed.shape[0]
    trans = nfa.transitions
    fr, sym, to = (trans[:, 0], trans[:, 1], trans[:, 2]) if trans.size else (np.zeros(0, dtype=np.int64),) * 3
    usable = np.zeros((steps, fr.size), dtype=bool)
    ok = sym < allowed.shape[1]
    usable[:, ok] = allowed[:, sym[ok]]
    forward = np.zeros((steps + 1, nfa.states), dtype=bool)
    forward[0, nfa.start] = True
    for i in range(steps):
        forward[i + 1, to[usable[i] & forward[i, fr]]] = True
    backward = np.zeros((steps + 1, nfa.states), dtype=bool)
    backward[steps, nfa.accept] = True
    for i in range(steps - 1, -1, -1):
        backward[i, fr[usable[i] & backward[i + 1, to]]] = True
    keep = usable & forward[:-1][:, fr] & backward[1:][:, to]
    if not keep.any(axis=1).all():
        return [np.zeros(0, dtype=np.int64) for _ in range(steps)]
    return [np.flatnonzero(row) for row in keep]


def nfa_accepts(nfa: Nfa, allowed: np.ndarray) -> bool:
    """Does some run read one allowed symbol per step and end accepting?

    Parameters
    ----------
    nfa : Nfa
        The automaton.
    allowed : ndarray of bool, shape (L, Y)
        Symbols each step may read.

    Returns
    -------
    bool
    """
    # one forward pass, a step at a time: the layered pruning holds a (steps, transitions) table,
    # gigabytes for a line over thousands of cells, where this holds one row of states
    trans = nfa.transitions
    current = np.zeros(nfa.states, dtype=bool)
    current[nfa.start] = True
    if trans.size:
        fr, sym, to = trans[:, 0], trans[:, 1], trans[:, 2]
        readable = sym < allowed.shape[1]
        fr, sym, to = fr[readable], sym[readable], to[readable]
        for row in allowed:
            reached = np.zeros(nfa.states, dtype=bool)
            reached[to[row[sym] & current[fr]]] = True
            current = reached
    elif allowed.shape[0]:
        return False
    return bool(current[nfa.accept].any())


# -- ISS's regular expressions ---------------------------------------------------------------------
def regex_char_value(ch: str) -> int:
    """The value a pattern character stands for: ``0``-``9``, then ``A``/``a`` = 10 .. ``Z``/``z`` = 35.

    Parameters
    ----------
    ch : str
        One character.

    Returns
    -------
    int
    """
    if "0" <= ch <= "9":
        return ord(ch) - 48
    if "A" <= ch.upper() <= "Z" and len(ch) == 1:
        return ord(ch.upper()) - 55
    raise NfaError(f"character {ch!r} is not a value (0-9, then A-Z for 10-35)")


class _Parser:
    """ISS's dialect: literals, ``.``, classes ``[...]`` (ranges, ``^``), groups, ``|``, ``* + ?``,
    ``{n}``, ``{n,}``, ``{n,m}``. Nodes: ``("set", symbols)``, ``("cat", parts)``, ``("alt", options)``,
    ``("rep", node, min, max)`` (``max`` None: unbounded)."""

    def __init__(self, pattern: str, symbol_of: dict[int, int]):
        self.text, self.at, self.symbol_of = pattern, 0, symbol_of

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        ch = self.peek()
        self.at += 1
        return ch

    def parse(self) -> tuple:
        node = self.alternation()
        if self.at < len(self.text):
            raise NfaError(f"unexpected {self.peek()!r} at position {self.at}")
        return node

    def alternation(self) -> tuple:
        options = [self.sequence()]
        while self.peek() == "|":
            self.take()
            options.append(self.sequence())
        return options[0] if len(options) == 1 else ("alt", options)

    def sequence(self) -> tuple:
        parts = []
        while self.peek() and self.peek() not in "|)":
            parts.append(self.quantified())
        return parts[0] if len(parts) == 1 else ("cat", parts)

    def quantified(self) -> tuple:
        node = self.primary()
        while self.peek() and self.peek() in "*+?{":
            ch = self.take()
            if ch == "{":
                low = self.number()
                high: int | None = low
                if self.peek() == ",":
                    self.take()
                    high = None if self.peek() == "}" else self.number()
                    if high is not None and high < low:
                        raise NfaError(f"quantifier {{{low},{high}}}: the maximum is below the minimum")
                if self.take() != "}":
                    raise NfaError(f"expected '}}' at position {self.at - 1}")
                node = ("rep", node, low, high)
            else:
                node = ("rep", node, 1 if ch == "+" else 0, 1 if ch == "?" else None)
        return node

    def number(self) -> int:
        start = self.at
        while self.peek().isascii() and self.peek().isdigit():   # not '٣': a value is 0-9, A-Z
            self.take()
        if start == self.at:
            raise NfaError(f"expected a number at position {start}")
        return int(self.text[start:self.at])

    def symbol(self, ch: str) -> int:
        value = regex_char_value(ch)
        if value not in self.symbol_of:
            raise NfaError(f"character {ch!r} (value {value}) is not one of the puzzle's values")
        return self.symbol_of[value]

    def primary(self) -> tuple:
        ch = self.peek()
        if ch == "(":
            self.take()
            node = self.alternation()
            if self.take() != ")":
                raise NfaError(f"unclosed group at position {self.at - 1}")
            return node
        if ch == "[":
            return self.char_class()
        if ch == ".":
            self.take()
            return ("set", frozenset(self.symbol_of.values()))
        if not ch:
            raise NfaError("unexpected end of pattern")
        if ch in "*+?{|)":
            raise NfaError(f"unexpected {ch!r} at position {self.at}")
        return ("set", frozenset([self.symbol(self.take())]))

    def char_class(self) -> tuple:
        self.take()
        negated = self.peek() == "^"
        if negated:
            self.take()
        symbols: set[int] = set()
        while self.peek() and self.peek() != "]":
            first = self.take()
            if self.peek() == "-" and self.at + 1 < len(self.text) and self.text[self.at + 1] != "]":
                self.take()
                last = self.take()
                if ord(last) < ord(first):
                    raise NfaError(f"range {first}-{last} runs backwards")
                symbols |= {self.symbol(chr(c)) for c in range(ord(first), ord(last) + 1)}
            else:
                symbols.add(self.symbol(first))
        if self.take() != "]":
            raise NfaError("unclosed character class")
        if not symbols:
            raise NfaError("empty character class")
        return ("set", frozenset(set(self.symbol_of.values()) - symbols if negated else symbols))


class _Builder:
    """Thompson's construction with epsilon moves, closed over at the end."""

    def __init__(self) -> None:
        self.states = 0
        self.moves: list[tuple[int, int, int]] = []
        self.eps: list[tuple[int, int]] = []

    def state(self) -> int:
        self.states += 1
        if self.states > MAX_STATES:
            raise NfaError(f"the pattern needs more than {MAX_STATES} states")
        return self.states - 1

    def build(self, node: tuple) -> tuple[int, int]:
        kind = node[0]
        if kind == "set":
            a, b = self.state(), self.state()
            self.moves += [(a, s, b) for s in sorted(node[1])]
            return a, b
        if kind == "cat":
            if not node[1]:
                a = self.state()
                return a, a
            first, last = self.build(node[1][0])
            for part in node[1][1:]:
                a, b = self.build(part)
                self.eps.append((last, a))
                last = b
            return first, last
        if kind == "alt":
            a, b = self.state(), self.state()
            for option in node[1]:
                s, t = self.build(option)
                self.eps += [(a, s), (t, b)]
            return a, b
        child, low, high = node[1], node[2], node[3]
        first = last = self.state()
        for _ in range(low):
            s, t = self.build(child)
            self.eps.append((last, s))
            last = t
        if high is None:
            s, t = self.build(child)
            self.eps += [(last, s), (t, s), (t, last)]
        else:
            end = self.state()
            self.eps.append((last, end))
            for _ in range(high - low):
                s, t = self.build(child)
                self.eps += [(last, s), (t, end)]
                last = t
        return first, (last if high is None else end)


def nfa_from_regex(pattern: str, values: np.ndarray) -> Nfa:
    """The automaton of an ISS regular expression over a board's values (a character stands for
    a value, :func:`regex_char_value`; ``.`` and ``[^...]`` range over ``values``).

    Parameters
    ----------
    pattern : str
        The pattern (whitespace ignored, as ISS does).
    values : ndarray of int
        The value of each digit index (``board.value_of``).

    Returns
    -------
    Nfa
        Symbols are digit indices; epsilon moves closed over; dead states dropped.

    Raises
    ------
    NfaError
        A syntax error, a character that is no value of the board, or too many states.
    """
    text = "".join(pattern.split())
    depth = np.cumsum([(ch == "(") - (ch == ")") for ch in text]) if text else np.zeros(1)
    if depth.max() > MAX_GROUP_DEPTH:   # the parser recurses a few frames a group
        raise NfaError(f"groups nested {int(depth.max())} deep; at most {MAX_GROUP_DEPTH}")
    tree = _Parser(text, {int(v): k for k, v in enumerate(np.asarray(values).tolist())}).parse()
    builder = _Builder()
    start, accept = builder.build(tree)
    n = builder.states
    closure = np.eye(n, dtype=bool)
    if builder.eps:
        eps = np.array(builder.eps, dtype=np.int64)
        for state in range(n):   # epsilon closure of each state, small patterns only
            closure[state] = _reach(n, np.array([state]), eps)
    moves = np.array(builder.moves, dtype=np.int64).reshape(-1, 3)
    src, mid = np.nonzero(closure)
    order = np.argsort(moves[:, 0], kind="stable")
    moves = moves[order]
    lo = np.searchsorted(moves[:, 0], mid, "left")
    hi = np.searchsorted(moves[:, 0], mid, "right")
    count = hi - lo
    idx = np.repeat(lo - np.cumsum(np.concatenate([[0], count[:-1]])), count) + np.arange(count.sum())
    trans = np.stack([np.repeat(src, count), moves[idx, 1], moves[idx, 2]], axis=1)
    accepting = np.flatnonzero(closure[:, accept])
    return _trim(Nfa.make(n, [start], accepting, trans))
