"""Regular-language lines: ``automaton`` (ISS ``NFA``) and ``regex`` (ISS ``Regex``). The values
along the line, read in order, must be accepted by a finite automaton (docs/conventions.md,
"Auxiliary columns", the automaton rows).

The rows choose one accepting run with auxiliary 0-1 columns ``aux_<kind>_k_i_p_d_q``: step ``i``
(1-based) takes the transition ``p --d--> q`` (states and digits 1-based), and
``aux_<kind>state_k_i_q``: after step ``i`` the run is in ``q`` (``i = 1..L-1``). Only transitions
on some accepting run at that step are columns, only states on one between steps
(:func:`~pipeline.core.rules.nfa.layered_transitions`). Rows: ``<kind>_k_i`` (``= 1``) one transition
per step; ``<kind>in_k_i_q`` (``= 0``) the transitions of step ``i`` into ``q`` sum to the state
column; ``<kind>out_k_i_q`` (``= 0``) those of step ``i + 1`` out of ``q`` too; ``<kind>read_k_i_d``
(``= 0``) the transitions of step ``i`` on digit ``d`` sum to ``x[c_i, d]``. Every row is a sum of
ones against at most one other column (a bound-1 exactly-one once normalised: small SAT
encodings). Exact: the 0-1 points are the grids whose line some run accepts (an NFA's
nondeterminism is the choice of columns).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.auxcols import AuxColumns, AuxRows, AuxRule
from pipeline.core.rules.base import Board, Glyph, Rows, cell_name, cells_text, check_keys, optional_field, parse_cell
from pipeline.core.rules.nfa import MAX_STATES, Nfa, NfaError, layered_transitions, nfa_accepts, nfa_from_iss, \
    nfa_from_regex

__all__ = ["Automaton", "Regex", "AUTOMATON_COLOUR", "REGEX_COLOUR"]

AUTOMATON_COLOUR = "#2a9d8f"   # automaton lines: teal
REGEX_COLOUR = "#c8553d"       # regex lines: brick red
#: Most transitions a document's explicit automaton may list.
MAX_TRANSITIONS = 1_000_000
BREAK = "break"


def _segments(value: object, board: Board, where: str) -> tuple[tuple[int, ...], ...]:
    """``"cells"``: a list of cells (one segment) or a list of lists (segments, ISS's multi-segment
    NFA lines); a cell may repeat (the line reads it twice)."""
    if not isinstance(value, list) or not value:
        raise PuzzleError(f"{where}: 'cells' must be a non-empty list of cells like \"r1c1\" (or a list of such lists)")
    nested = all(isinstance(v, list) for v in value)
    if not nested and any(isinstance(v, list) for v in value):
        raise PuzzleError(f"{where}: 'cells' mixes cells and lists of cells")
    groups = value if nested else [value]
    out = tuple(tuple(parse_cell(c, board, where) for c in group) for group in groups)
    if not any(out):
        raise PuzzleError(f"{where}: the line has no cell")
    return out


def _cells_dict(segments: tuple[tuple[int, ...], ...], board: Board) -> list:
    names = [[cell_name(c, board) for c in seg] for seg in segments]
    return names[0] if len(names) == 1 else names


@dataclass(frozen=True, eq=False)
class _Line(AuxRule):
    """What both kinds share: the line's segments, the automaton over digit indices, the rows."""

    segments: tuple[tuple[int, ...], ...]
    nfa: Nfa = field(repr=False)
    colour: ClassVar[str] = AUTOMATON_COLOUR

    def cells(self) -> np.ndarray:
        return np.array([c for seg in self.segments for c in seg], dtype=np.int64)

    def steps(self) -> np.ndarray:
        """The cell read at each step, ``-1`` for a segment break."""
        out: list[int] = []
        for i, seg in enumerate(self.segments):
            out += ([-1] if i else []) + list(seg)
        return np.array(out, dtype=np.int64)

    def estimated_nonzeros(self, board: Board) -> float:
        """At most ``4 L T + L V`` nonzeros for ``L`` steps of an automaton of ``T`` transitions:
        each transition kept at a step is a column in four rows (its step, the states in and out,
        its digit's read row), and each read row has its cell's variable (1.1-2.2 times the
        built rows measured at N = 16 and 25; a line over thousands of cells of a 100x100 built
        7.7 GB under a 1 GB limit when counted 0)."""
        steps = len(self.steps())
        return 4.0 * steps * len(self.nfa.transitions) + steps * board.n_values

    def _allowed(self, board: Board, grid: np.ndarray | None = None) -> np.ndarray:
        steps, v = self.steps(), board.n_values
        allowed = np.zeros((steps.size, v + 1), dtype=bool)
        allowed[steps >= 0, :v] = True
        allowed[steps < 0, v] = True
        if grid is not None:
            shown = np.where(steps >= 0, grid[np.maximum(steps, 0)], 0)
            fixed = (steps >= 0) & (shown > 0) & (shown <= v)
            allowed[fixed, :] = False
            allowed[fixed, shown[fixed] - 1] = True
        return allowed

    def _layers(self, board: Board) -> list[np.ndarray]:
        return layered_transitions(self.nfa, self._allowed(board))

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_<kind>_k_i_p_d_q``: step ``i`` takes transition ``p --d--> q`` (1-based; ``d = V + 1``
        is a segment break); then ``aux_<kind>state_k_i_q``: the run is in ``q`` after step ``i``.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's rules of its kind.
        """
        layers = self._layers(board)
        step = np.repeat(np.arange(len(layers)), [t.size for t in layers])
        trans = self.nfa.transitions[np.concatenate(layers)] if step.size else np.zeros((0, 3), dtype=np.int64)
        labels = np.column_stack([np.full(step.size, index), step + 1, trans + 1]).astype(np.int64)
        step_of, state = self._between(layers)
        state_labels = np.column_stack([np.full(step_of.size, index), step_of, state + 1]).astype(np.int64)
        return [AuxColumns(self.kind, labels.reshape(-1, 5)), AuxColumns(self.kind + "state", state_labels.reshape(-1, 3))]

    def _between(self, layers: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """``(i, q)`` of the state columns as two arrays: ``q`` entered at step ``i`` (1-based,
        ``i < L``), in order (arrays: a tuple per state took 0.15 s of an ISS automaton's build)."""
        entered = [np.unique(self.nfa.transitions[layers[i - 1], 2]) for i in range(1, len(layers))]
        if not entered:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return (np.repeat(np.arange(1, len(layers)), [q.size for q in entered]).astype(np.int64),
                np.concatenate(entered).astype(np.int64))

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The step rows, the state rows (in and out) and the read rows (module docstring).

        Parameters
        ----------
        board : Board
            The puzzle's board (``V`` digits).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        layers, steps, v = self._layers(board), self.steps(), board.n_values
        sizes = np.array([t.size for t in layers], dtype=np.int64)
        first = np.concatenate([[0], np.cumsum(sizes)])
        trans = self.nfa.transitions
        z = np.zeros(0, dtype=np.int64)
        # one transition per step (steps with columns; none at all means no accepting run)
        live = np.flatnonzero(sizes)
        col = np.arange(first[-1])
        step_of = np.repeat(np.arange(sizes.size), sizes)
        one = AuxRows(self.kind, z, z, z, z, np.ones(live.size, dtype=np.int64), "E",
                      np.column_stack([np.full(live.size, index), live + 1]).astype(np.int64).reshape(-1, 2),
                      np.searchsorted(live, step_of), col, np.ones(col.size, dtype=np.int64))
        # the state between step i and step i + 1 (pruning keeps the states entered and left alike)
        n_trans = int(first[-1])
        parts: dict[str, list] = {"in": [], "out": []}
        labels: list[np.ndarray] = []
        r = 0
        for i in range(1, sizes.size):
            q_in, q_out = trans[layers[i - 1], 2], trans[layers[i], 0]
            states = np.unique(q_in)
            parts["in"].append((r + np.searchsorted(states, q_in), first[i - 1] + np.arange(q_in.size)))
            parts["out"].append((r + np.searchsorted(states, q_out), first[i] + np.arange(q_out.size)))
            labels.append(np.column_stack([np.full(states.size, index), np.full(states.size, i), states + 1]))
            r += states.size
        state_col = n_trans + np.arange(r)
        label_array = np.concatenate(labels).astype(np.int64) if labels else np.zeros((0, 3), dtype=np.int64)
        tie = []
        for side in ("in", "out"):
            rows_t = np.concatenate([a for a, _ in parts[side]]) if parts[side] else z
            cols_t = np.concatenate([b for _, b in parts[side]]) if parts[side] else z
            tie.append(AuxRows(self.kind + side, z, z, z, z, np.zeros(r, dtype=np.int64), "E", label_array,
                               np.concatenate([rows_t, np.arange(r)]), np.concatenate([cols_t, state_col]),
                               np.concatenate([np.ones(rows_t.size, dtype=np.int64), -np.ones(r, dtype=np.int64)])))
        # the transitions of a cell's step on digit d are x[c, d]
        cell_steps = np.flatnonzero(steps >= 0)
        m = cell_steps.size * v
        read_step, read_digit = np.repeat(cell_steps, v), np.tile(np.arange(v), cell_steps.size)
        sym = trans[np.concatenate(layers), 1] if col.size else z
        is_cell = steps[step_of] >= 0 if col.size else np.zeros(0, dtype=bool)
        slot = np.searchsorted(cell_steps, step_of[is_cell]) * v + sym[is_cell]
        read = AuxRows(self.kind + "read", np.arange(m), steps[read_step], read_digit, -np.ones(m, dtype=np.int64),
                       np.zeros(m, dtype=np.int64), "E",
                       np.column_stack([np.full(m, index), read_step + 1, read_digit + 1]).astype(np.int64).reshape(-1, 3),
                       slot, col[is_cell], np.ones(slot.size, dtype=np.int64))
        return [one, tie[0], tie[1], read]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A line no run accepts, given what the grid shows (empty cells take any digit).

        Parameters
        ----------
        grid : numpy.ndarray
            Flat canvas of 1-based digit indices, 0 = empty.
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` when broken.
        """
        if nfa_accepts(self.nfa, self._allowed(board, np.asarray(grid))):
            return []
        return [{"message": f"{self.describe(board)}: no accepting run", "cells": self.cells().tolist()}]

    #: The text on the cell a line is read from (its caption :meth:`legend` follows it): ``nfa``,
    #: ``re`` (not ``R``: ``R1`` reads as a row).
    start_label: ClassVar[str] = ""

    def glyphs(self, board: Board) -> list[Glyph]:
        """A coloured line per segment (a circle for a one-cell segment), and :attr:`start_label` on
        the cell the line is read from."""
        out = [Glyph("line", seg, style="line", colour=self.colour) if len(seg) > 1 else
               Glyph("mark", seg, style="circle", colour=self.colour) for seg in self.segments if seg]
        first = next((seg for seg in self.segments if seg), None)
        if self.start_label and first is not None:
            out.append(Glyph("mark", first[:1], style="text", label=self.start_label))
        return out


@dataclass(frozen=True, eq=False)
class Automaton(_Line):
    """The values along the line are accepted by a finite automaton (ISS ``NFA``). Either listed:
    ``{"rule": "automaton", "cells": [...], "states": S, "start": [0], "accept": [..],
    "transitions": [[p, value, q], ...]}`` (states ``0..S-1``, values of the puzzle), or ISS's
    serialized key ``{"rule": "automaton", "cells": [...], "nfa": "<base64>"}`` (ISS symbol ``s``
    is the ``s``-th value). ``"cells"`` may be a list of lists: segments, with the break symbol
    (``"break"`` in a listed transition, ISS's value ``N + 1``) read between them. ``"name"``
    optional. Rows: module docstring.
    """

    spec: tuple = ()
    name: str = ""

    kind: ClassVar[str] = "automaton"
    families: ClassVar[tuple[str, ...]] = ("automaton", "automatonin", "automatonout", "automatonread")
    aux_families: ClassVar[tuple[str, ...]] = ("automaton", "automatonstate")
    description: ClassVar[str] = "automaton: the values along the line are accepted by a finite automaton"
    noun: ClassVar[str] = "automaton line"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Automaton":
        """The rule of an ``automaton`` entry (class docstring).

        Parameters
        ----------
        data : dict
            The document entry.
        board : Board
            The puzzle's board.
        where : str
            How messages name the entry.

        Returns
        -------
        Automaton
        """
        check_keys(data, {"cells", "states", "start", "accept", "transitions", "nfa", "name"}, where)
        segments = _segments(data.get("cells"), board, where)
        name = optional_field(data, "name", "")
        if not isinstance(name, str) or len(name) > 200:
            raise PuzzleError(f"{where}: 'name' must be a short text")
        if "nfa" in data:
            extra = sorted({"states", "start", "accept", "transitions"} & set(data))
            if extra:
                raise PuzzleError(f"{where}: give either 'nfa' or the listed automaton, not both ({extra[0]!r})")
            key = data["nfa"]
            if not isinstance(key, str) or len(key) > 2_000_000:
                raise PuzzleError(f"{where}: 'nfa' must be ISS's serialized automaton (a base64url text)")
            try:
                nfa = nfa_from_iss(key)
            except NfaError as e:
                raise PuzzleError(f"{where}: 'nfa': {e}") from None
            return cls(segments, nfa, ("nfa", key), name)
        return cls(segments, _listed(data, board, where), ("listed", _listed_spec(data)), name)

    def to_dict(self, board: Board) -> dict:
        out: dict = {"rule": self.kind, "cells": _cells_dict(self.segments, board)}
        if self.spec[0] == "nfa":
            out["nfa"] = self.spec[1]
        else:
            out.update(self.spec[1])
        if self.name:
            out["name"] = self.name
        return out

    def describe(self, board: Board) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"automaton{label} {cells_text(self.cells(), board)}"

    numbered_glyphs: ClassVar[bool] = True   # two automaton lines: nfa1 and nfa2, each with its name in the caption
    start_label: ClassVar[str] = "nfa"   # the caption's legend (ISS "Arithmetic series") follows it

    def number_key(self) -> object:
        """The name: lines of one named automaton share a label (unnamed ones each their own)."""
        return self.name or id(self)

    def legend(self, board: Board) -> str:
        """The automaton's name, as the caption shows it (clipped to 60 characters); an unnamed
        one is said not to be drawn."""
        return clip(self.name, 60) if self.name else "an unnamed automaton (not drawn)"


def _listed_spec(data: dict) -> dict:
    return {"states": data["states"], "start": list(data["start"]), "accept": list(data["accept"]),
            "transitions": [list(t) for t in data["transitions"]]}


def _listed(data: dict, board: Board, where: str) -> Nfa:
    """The automaton of the listed form, symbols as digit indices (``break``: ``V``)."""
    for key in ("states", "start", "accept", "transitions"):
        if key not in data:
            raise PuzzleError(f"{where}: missing {key!r} (or give ISS's key as 'nfa')")
    states = data["states"]
    if not isinstance(states, int) or isinstance(states, bool) or not 1 <= states <= MAX_STATES * 16:
        raise PuzzleError(f"{where}: 'states' must be a whole number from 1 to {MAX_STATES * 16}")

    def state_list(key: str) -> np.ndarray:
        value = data[key]
        if not isinstance(value, list) or not all(isinstance(q, int) and not isinstance(q, bool) for q in value):
            raise PuzzleError(f"{where}: {key!r} must be a list of state numbers")
        outside = next((q for q in value if not 0 <= q < states), None)   # before int64 (10**30)
        if outside is not None:
            raise PuzzleError(f"{where}: {key!r} names state {clip(outside)}, outside 0..{states - 1}")
        arr = np.array(value, dtype=np.int64)
        if arr.size and (arr.min() < 0 or arr.max() >= states):
            raise PuzzleError(f"{where}: {key!r} names state {int(arr[(arr < 0) | (arr >= states)][0])}, "
                              f"outside 0..{states - 1}")
        return arr

    start, accept = state_list("start"), state_list("accept")
    rows = data["transitions"]
    if not isinstance(rows, list) or len(rows) > MAX_TRANSITIONS:
        raise PuzzleError(f"{where}: 'transitions' must be a list of [from, value, to] (at most {MAX_TRANSITIONS:,})")
    v = board.n_values
    trans = np.zeros((len(rows), 3), dtype=np.int64)
    for t, row in enumerate(rows):
        if (not isinstance(row, list) or len(row) != 3 or not all(isinstance(a, int) and not isinstance(a, bool)
                                                                  for a in (row[0], row[2]))):
            raise PuzzleError(f"{where}: transitions[{t}] must be [from, value, to], found {clip(repr(row), 40)}")
        if not (0 <= row[0] < states and 0 <= row[2] < states):
            raise PuzzleError(f"{where}: transitions[{t}] names a state outside 0..{states - 1}")
        if row[1] == BREAK:
            sym = v
        elif (isinstance(row[1], int) and not isinstance(row[1], bool) and abs(row[1]) < 2**62
              and int(board.index_of([row[1]])[0]) >= 0):
            sym = int(board.index_of([row[1]])[0])
        else:
            raise PuzzleError(f"{where}: transitions[{t}] reads {clip(row[1])!r}, not a value of the puzzle "
                              f"(or \"break\")")
        trans[t] = (row[0], sym, row[2])
    return Nfa.make(states, start, accept, trans)


@dataclass(frozen=True, eq=False)
class Regex(_Line):
    """The values along the line, as characters (``0``-``9``, ``A`` = 10, ...), match a regular
    expression of ISS's dialect (literals, ``.``, ``[...]`` with ranges and ``^``, groups, ``|``,
    ``* + ?``, ``{n}``, ``{n,}``, ``{n,m}``; whole line): ``{"rule": "regex", "pattern": "[1-4]*3.*",
    "cells": [...]}`` (ISS ``Regex``). Compiled to an automaton; the rows are the automaton's.
    """

    pattern: str = ""

    kind: ClassVar[str] = "regex"
    families: ClassVar[tuple[str, ...]] = ("regex", "regexin", "regexout", "regexread")
    aux_families: ClassVar[tuple[str, ...]] = ("regex", "regexstate")
    description: ClassVar[str] = "regex: the values along the line match a regular expression"
    noun: ClassVar[str] = "regex line"
    colour: ClassVar[str] = REGEX_COLOUR

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Regex":
        """The rule of ``{"rule": "regex", "pattern": ..., "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry.
        board : Board
            The puzzle's board.
        where : str
            How messages name the entry.

        Returns
        -------
        Regex
        """
        check_keys(data, {"cells", "pattern"}, where)
        pattern = data.get("pattern")
        if not isinstance(pattern, str):
            raise PuzzleError(f"{where}: 'pattern' must be a regular expression (text)")
        if len(pattern) > 10_000:
            raise PuzzleError(f"{where}: 'pattern' of {len(pattern):,} characters; at most 10,000")
        segments = _segments(data.get("cells"), board, where)
        if len(segments) != 1:
            raise PuzzleError(f"{where}: a regex reads one line ('cells' a list of cells)")
        pattern = "".join(pattern.split())
        try:
            nfa = nfa_from_regex(pattern, board.value_of)
        except NfaError as e:
            raise PuzzleError(f"{where}: pattern {clip(pattern, 40)!r}: {e}") from None
        return cls(segments, nfa, pattern)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "pattern": self.pattern, "cells": _cells_dict(self.segments, board)}

    def describe(self, board: Board) -> str:
        return f"regex {clip(self.pattern, 30)!r} {cells_text(self.cells(), board)}"

    numbered_glyphs: ClassVar[bool] = True   # two regex lines: re1 and re2 (not R1, a row), each with its pattern in the caption
    start_label: ClassVar[str] = "re"   # the caption's legend (the pattern) follows it

    def legend(self, board: Board) -> str:
        """The pattern, as the caption shows it (clipped to 60 characters)."""
        return clip(self.pattern, 60)
