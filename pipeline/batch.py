"""Batch solving: many puzzles from a text/CSV/Parquet file -> a resumable Parquet dataset.

``python -m pipeline batch IN OUT`` (or ``python -m pipeline.batch IN OUT``) reads one puzzle per
record, solves each with HiGHS and writes ``OUT/part-<first index>.parquet`` files, each written
atomically (temporary file + rename), plus ``OUT/_batch.json`` (input fingerprint and options)
and ``OUT/_SUCCESS`` once every record has a row. ``pandas.read_parquet(OUT)`` reads the parts as
one table in input order (pyarrow ignores ``_``/``.``-prefixed files). Rerun after a kill, the
batch reads the indices already present in the parts and solves only the missing ones.

Columns: ``index`` (0-based record number), ``puzzle`` (the record), ``variant``, ``solution``
(compact string), ``status`` (optimal | infeasible | error | time_limit | invalid | ...),
``n_solutions`` (with ``--count K``: capped at K), ``seconds`` (inside ``Highs.run()``),
``wall_seconds`` (the record's whole cost in its worker), ``nodes``, ``error`` (one line).

Work is reused across puzzles of one shape: each worker builds the rules ``A`` and one Highs
instance per shape (``h``, ``w``, variant, regions) and per puzzle changes only column bounds
(the ``bounds`` clue encoding: ``lb = 1`` on the clues and on the cells that naked/hidden singles
decide, ``ub = 0`` on the candidates they eliminate; ``--no-propagate`` sends the clues only).
The steps around HiGHS run on a whole chunk at once with NumPy (parsing, propagation, decoding,
verification): at 81x9 numpy's per-call cost would otherwise rival HiGHS's time. A solution is
recorded ``optimal`` only if it passes :func:`verify_solutions`, the checks of
:func:`pipeline.verify.verify_grid` over the chunk; a failure is ``invalid`` with verify_grid's
message.

Engines: ``processes`` (multiprocessing, spawn-safe, chunks of puzzles per task) and ``dask``
(``distributed``: a scheduler address or a LocalCluster). In both, workers return rows to this
process, which writes the parts: OUT needs to be visible to the client only.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import json
import math
import os
import re
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import highspy
import numpy as np

from formats.cnf import AMO_ENCODINGS, DEFAULT_AMO

from .build import build_model
from .decode import INTEGRALITY_TOL
from .errors import PipelineError, PuzzleError, SolveError
from .puzzle import COMPACT_DIGITS, VARIANTS, Puzzle, default_box, grid_to_string, parse_box, parse_puzzle
from .solve import HIGHS_STATUS, add_no_good_cut, highs_for, without_presolve
from .solvers import get_solver
from .solvers.sat import DEFAULT_BACKEND, SatEngine, sat_backends
from .solvers.sat import engine_for as sat_engine_for
from .verify import verify_grid

PART_PREFIX = "part-"
MANIFEST = "_batch.json"
SUCCESS = "_SUCCESS"
LOCK = "_batch.lock"
INDEX_WIDTH = 10  # part-0000000123.parquet: file-name order is index order up to 10^10 records
CPU_KEY = "_cpu_seconds"  # not a column: the chunk's CPU time, for the run's summary
RESULT_COLUMNS = ("index", "puzzle", "variant", "solution", "status", "n_solutions", "seconds",
                  "wall_seconds", "nodes", "error")


# =============================================================================================
# input records
# =============================================================================================
def detect_input_format(path) -> str:
    """``text``, ``csv`` or ``parquet`` from the file name (``.gz`` ignored)."""
    name = Path(path).name.lower()
    name = name[:-3] if name.endswith(".gz") else name
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith((".csv", ".tsv")):
        return "csv"
    return "text"


def _text_or_none(value) -> str | None:
    """A cell of an input table as text; empty strings, None and NaN mean "not given"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    return text or None


def read_records(path, fmt: str = "auto") -> dict[str, list]:
    """Records of an input file: ``{"puzzle": [...], "regions": [...], "variant": [...]}``.

    Text: one puzzle per line (blank lines and ``#`` comments are not records). CSV/Parquet: a
    ``puzzle`` column, optional ``regions`` and ``variant`` columns (other columns ignored).
    Values are ``str`` or ``None`` (plain lists: pandas would turn missing text into NaN).
    """
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise PipelineError(f"batch: no such input file {str(path)!r}")
    fmt = detect_input_format(path) if fmt == "auto" else fmt
    if fmt == "text":
        from formats.base import open_text

        with open_text(path) as f:
            lines = [line.strip() for line in f]
        puzzles = [line for line in lines if line and not line.startswith("#")]
        return {"puzzle": puzzles, "regions": [None] * len(puzzles), "variant": [None] * len(puzzles)}
    if fmt not in ("csv", "parquet"):
        raise PipelineError(f"batch: unknown input format {fmt!r}; expected auto, text, csv or parquet")
    try:
        if fmt == "csv":
            tsv = path.name.lower().endswith((".tsv", ".tsv.gz"))
            frame = pd.read_csv(path, dtype=str, keep_default_na=False, sep="\t" if tsv else ",")
        else:
            frame = pd.read_parquet(path)
    except Exception as e:  # pandas/pyarrow raise many types for a bad file
        raise PipelineError(f"batch: cannot read {str(path)!r} as {fmt}: {_one_line(e)}") from None
    if "puzzle" not in frame.columns:
        raise PipelineError(f"batch: {str(path)!r} has no 'puzzle' column (columns: {', '.join(map(str, frame.columns))})")
    out = {}
    for column in ("puzzle", "regions", "variant"):
        values = frame[column].tolist() if column in frame.columns else [None] * len(frame)
        out[column] = [_text_or_none(v) for v in values]
    return out


def records_fingerprint(records: dict[str, list]) -> str:
    """SHA-256 of the records (puzzle, regions, variant), so a rerun can tell it is the same input."""
    digest = hashlib.sha256()
    for row in zip(records["puzzle"], records["regions"], records["variant"]):
        digest.update("\x1f".join(map(str, row)).encode("utf-8", "replace") + b"\x1e")
    return digest.hexdigest()


# =============================================================================================
# vectorised helpers over many puzzles of one shape (numpy's per-call cost dominates at 81x9,
# so each step works on a whole chunk at once)
# =============================================================================================
MAX_BITS_N = 63  # candidate sets are uint64 bitmasks: grids up to 63x63


def _families(template: Puzzle) -> list[np.ndarray]:
    """Every unit family of the shape as a ``(units, N)`` array of row-major cell numbers."""
    return [units for _, units in template.unit_families()]


def _digit_bits(n: int) -> np.ndarray:
    """``table[v]`` = bit of digit ``v`` (1..N), ``table[0] = 0`` (empty cell), in the smallest
    unsigned type that holds N bits (less memory traffic for every bulk step)."""
    dtype = np.uint16 if n <= 16 else np.uint32 if n <= 32 else np.uint64
    return np.concatenate([[0], np.left_shift(1, np.arange(n, dtype=np.uint64))]).astype(dtype)


def _once_twice(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OR of the bitmasks along the last axis, and the bits seen at least twice."""
    ones = np.zeros(values.shape[:-1], dtype=values.dtype)
    twice = np.zeros_like(ones)
    for k in range(values.shape[-1]):
        twice |= ones & values[..., k]
        ones |= values[..., k]
    return ones, twice


def clue_conflicts(grids: np.ndarray, template: Puzzle) -> np.ndarray:
    """``(P,)`` True where a digit appears twice in a unit (grids ``(P, N*N)``, 0 = empty)."""
    bits = _digit_bits(template.n)[grids]
    bad = np.zeros(grids.shape[0], dtype=bool)
    for units in _families(template):
        _, twice = _once_twice(bits[:, units])
        bad |= (twice != 0).any(axis=1)
    return bad


def verify_solutions(solutions: np.ndarray, clues: np.ndarray, template: Puzzle) -> np.ndarray:
    """``(P,)`` True where ``solutions[p]`` completes ``clues[p]``: the checks of verify_grid.

    Every cell holds 1..N, every unit of every family holds each digit once, every clue is kept.
    A failing row is re-checked with :func:`pipeline.verify.verify_grid` for its message.
    """
    n = template.n
    if n > MAX_BITS_N:  # beyond the bitmasks: one by one
        return np.array([verify_grid(s.reshape(n, n), Puzzle(c.reshape(n, n), template.h, template.w,
                                                             template.variant, template.regions)).ok
                         for s, c in zip(solutions, clues)], dtype=bool)
    ok = ((solutions >= 1) & (solutions <= n)).all(axis=1)
    bits = _digit_bits(n)[np.clip(solutions, 0, n)]
    full = bits.dtype.type((1 << n) - 1)
    for units in _families(template):
        ones, _ = _once_twice(bits[:, units])   # N cells covering all N digits: each exactly once
        ok &= (ones == full).all(axis=1)
    given = clues > 0
    ok &= ((solutions == clues) | ~given).all(axis=1)
    return ok


def _once_twice_leading(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_once_twice` along the first axis (contiguous slices: about twice as fast)."""
    ones = values[0].copy()
    twice = np.zeros_like(ones)
    for k in range(1, values.shape[0]):
        v = values[k]
        twice |= ones & v
        ones |= v
    return ones, twice


def _unit_tables(template: Puzzle) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """For :func:`propagate`: each family as ``(N, units)`` (position in unit first), all units
    as ``(N, U)``, and every cell's units as ``(width, N*N)``, padded with ``U`` (a zero row)."""
    families = _families(template)
    units_all = np.concatenate(families)
    member: list[list[int]] = [[] for _ in range(template.n * template.n)]
    for u, unit in enumerate(units_all):
        for cell in unit:
            member[int(cell)].append(u)
    cell_units = np.full((max(map(len, member)), len(member)), units_all.shape[0], dtype=np.intp)
    for cell, units in enumerate(member):
        cell_units[:len(units), cell] = units
    return [np.ascontiguousarray(f.T) for f in families], np.ascontiguousarray(units_all.T), cell_units


def propagate(grids: np.ndarray, template: Puzzle, hidden: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Candidates after naked and hidden singles for puzzles of ``template``'s shape at once.

    ``grids`` is ``(P, N*N)`` (0 = empty). Returns ``cand`` ``(P, N*N, N)`` bool (digit ``d`` is
    still possible in a cell) and ``dead`` ``(P,)`` (a cell or a unit-digit lost every
    candidate: no solution). Only sound eliminations are made, so every solution survives; a
    contradiction that singles cannot see is left for HiGHS. Candidates are bitmasks, held as
    ``(N*N, puzzles)`` so that every gather and reduction runs over contiguous rows.
    """
    grids = np.asarray(grids)
    n = template.n
    if n > MAX_BITS_N:
        raise PipelineError(f"propagate: grids up to {MAX_BITS_N}x{MAX_BITS_N} (bitmasks), found {n}x{n}")
    bits = _digit_bits(n)
    full, zero, one = (bits.dtype.type(v) for v in ((1 << n) - 1, 0, 1))
    cand = np.where(grids > 0, bits[grids], full)
    dead = np.zeros(grids.shape[0], dtype=bool)
    families, units_all, cell_units = _unit_tables(template)
    n_units = units_all.shape[1]
    active = np.arange(grids.shape[0])
    work = np.ascontiguousarray(cand.T)   # (cells, active puzzles)
    while active.size:  # candidates only shrink, so this ends
        before = work.copy()
        placed_value = work * ((work & (work - one)) == zero)  # singles (and empties)
        # naked singles: a placed digit leaves every other cell of its units (all families at
        # once: each cell keeps its own value and loses what its units' placed cells hold)
        placed = np.zeros((n_units + 1, work.shape[1]), dtype=work.dtype)
        placed[:n_units] = np.bitwise_or.reduce(placed_value[units_all], axis=0)
        work &= ~np.bitwise_or.reduce(placed[cell_units], axis=0) | placed_value
        stuck = np.zeros(active.size, dtype=bool)
        if hidden:
            for units in families:
                # hidden singles: a digit with one place left in a unit goes there
                sub = work[units]
                ones, twice = _once_twice_leading(sub)
                stuck |= (ones != full).any(axis=0)
                only = sub & (ones & ~twice)
                work[units] = only | sub * (only == zero)   # `only` where not empty, else sub
        stuck |= (work == zero).any(axis=0)
        changed = (work != before).any(axis=0) & ~stuck
        if not changed.all():   # finished puzzles leave the working set
            done = ~changed
            cand[active[done]] = work[:, done].T
            dead[active[stuck]] = True
            active, work = active[changed], work[:, changed]
    return (cand[:, :, None] & bits[1:]) != zero, dead


_LUT = np.full(256, -1, dtype=np.int64)
for _value, _char in enumerate("." + COMPACT_DIGITS):
    _LUT[ord(_char)] = _value
    _LUT[ord(_char.lower())] = _value
_LUT[ord("0")] = 0
_COMPACT_RECORD = re.compile(r"[0-9A-Za-z.]+")


def grid_strings(grids: np.ndarray, n: int) -> list[str]:
    """Flat grids ``(P, N*N)`` -> their compact strings (as grid_to_string), all at once."""
    if n > len(COMPACT_DIGITS):
        return [grid_to_string(g.reshape(n, n)) for g in grids]
    codes = np.frombuffer(("." + COMPACT_DIGITS).encode("ascii"), dtype=np.uint8)[grids]
    raw = codes.astype(np.uint8).tobytes().decode("ascii")
    size = n * n
    return [raw[k:k + size] for k in range(0, len(raw), size)]


def _fast_grids(texts: list[str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Compact records of length N*N -> ``(P, N*N)`` grids and a mask of the well-formed ones."""
    raw = np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8).reshape(len(texts), n * n)
    grids = _LUT[raw]
    ok = ((grids >= 0) & (grids <= n)).all(axis=1)
    return np.where(grids >= 0, grids, 0), ok


# =============================================================================================
# one solver per shape, reused for every puzzle of that shape
# =============================================================================================
# Measured with bench/highs_tuning.py (two samples of 100 "hardest" puzzles, CPU time): the RENS
# heuristic costs ~9-13% and finds nothing that branching does not; on sudoku17 it makes no
# difference. Every other option tried was neutral (within seed noise) or slower.
DEFAULT_HIGHS_OPTIONS = {"mip_heuristic_run_rens": False}

@dataclass
class SolveOptions:
    """What a worker needs to solve records (plain data: it is pickled to workers)."""

    count: int = 0                     # count solutions up to this cap (0: do not count)
    time_limit: float | None = None    # seconds per HiGHS run
    propagate: bool = True             # naked/hidden singles before HiGHS
    box: str | None = None             # box shape for records (e.g. "2x3"); default sqrt(N)
    variant: str | None = None         # variant of records without one (default classic)
    highs_options: dict = field(default_factory=lambda: dict(DEFAULT_HIGHS_OPTIONS))
    solver: str = "highs"              # highs (bounds on one instance), sat (assumptions), or cpsat
    sat_backend: str | None = None     # python-sat solver for --solver sat
    amo: str | None = None             # at-most-one encoding for --solver sat


@dataclass
class Shape:
    """Puzzles that share the rules: the empty template and the chunk's members."""

    template: Puzzle
    members: list = field(default_factory=list)   # positions in the chunk
    grids: list = field(default_factory=list)     # (N*N,) clue grids


class ShapeSolver:
    """The rules ``A`` of one shape in one Highs instance; per puzzle only column bounds change."""

    def __init__(self, template: Puzzle, options: SolveOptions):
        self.template = template
        self.model = build_model(template, clues="bounds")
        self.highs = highs_for(self.model, time_limit=options.time_limit, threads=1,
                               options=options.highs_options)
        conv = self.model.convention
        n = template.n
        cells = np.arange(n * n)
        # pos[cell, d]: column of x[r, c, d] in the model's convention (a permutation)
        self.pos = conv.position(np.repeat(cells // n, n), np.repeat(cells % n, n),
                                 np.tile(np.arange(n), n * n)).reshape(n * n, n)
        self.n_vars = conv.n_vars
        # the inverse of pos: cell and digit of every column
        self.cell_of = np.empty(self.n_vars, dtype=np.int64)
        self.digit_of = np.empty(self.n_vars, dtype=np.int64)
        self.cell_of[self.pos] = cells[:, None]
        self.digit_of[self.pos] = np.arange(n)[None, :]
        self.lb = np.zeros(self.n_vars, dtype=bool)   # bounds currently inside the Highs instance
        self.ub = np.ones(self.n_vars, dtype=bool)
        self.base_rows = self.highs.getNumRow()
        self.presolve = str(options.highs_options.get("presolve", "choose"))

    def bounds(self, clues: np.ndarray, cand: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Column bounds of puzzles ``(P, N*N)`` as two bool ``(P, n_vars)`` arrays: ``lb`` true
        on clues (and on singles when candidates are given), ``ub`` false on eliminated ones."""
        p = clues.shape[0]
        lb = np.zeros((p, self.n_vars), dtype=bool)
        ub = np.ones((p, self.n_vars), dtype=bool)
        if cand is None:
            puzzle, cell = np.nonzero(clues)
            lb[puzzle, self.pos[cell, clues[puzzle, cell] - 1]] = True
        else:
            lb[:, self.pos] = cand & (cand.sum(axis=2) == 1)[:, :, None]
            ub[:, self.pos] = cand
        return lb, ub

    def bound_changes(self, lbs: np.ndarray, ubs: np.ndarray) -> "BoundChanges":
        """Per puzzle, the columns (and new bounds) that differ from the puzzle solved before it.

        Solving the puzzles in order, only these columns need sending: HiGHS's cost of
        changeColsBounds grows with their number, and finding all the differences in bulk
        saves numpy's per-call cost on each puzzle.
        """
        # written in place and found through flat indices: at (P, n_vars) every temporary
        # and the 2-D nonzero cost more than the comparisons themselves
        diff = np.empty_like(lbs)
        np.not_equal(lbs[0], self.lb, out=diff[0])
        diff[0] |= ubs[0] != self.ub
        np.not_equal(lbs[1:], lbs[:-1], out=diff[1:])
        diff[1:] |= ubs[1:] != ubs[:-1]
        flat = np.flatnonzero(diff)
        cols = flat % lbs.shape[1]
        offsets = np.zeros(lbs.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.count_nonzero(diff, axis=1), out=offsets[1:])
        return BoundChanges(cols.astype(np.int32), lbs.ravel()[flat].astype(np.float64),
                            ubs.ravel()[flat].astype(np.float64), offsets)

    def set_bounds(self, lb: np.ndarray, ub: np.ndarray, change: tuple | None = None) -> None:
        """Put one puzzle's bounds into the instance (which resets the previous puzzle's);
        ``change`` is its entry of :meth:`bound_changes` when the previous puzzle was solved here."""
        cols, lo, up = change if change is not None else self.bound_changes(lb[None, :], ub[None, :])[0]
        if cols.size and self.highs.changeColsBounds(cols.size, cols, lo, up) == highspy.HighsStatus.kError:
            raise SolveError("highs: changeColsBounds refused the bounds")
        self.lb, self.ub = lb, ub

    def _run(self, fixed: np.ndarray | None = None) -> tuple[str, float, int, np.ndarray | None]:
        """``Highs.run()`` and its answer: (status, seconds inside run, nodes, x or None).

        ``fixed``: the bounds fix every column to this 0/1 vector, so a feasible answer can only
        be this vector; it is used as x instead of fetching HiGHS's copy (a list of N^3 floats).
        """
        h = self.highs
        start = time.perf_counter()
        h.run()
        seconds = time.perf_counter() - start
        model_status = h.getModelStatus()
        status = HIGHS_STATUS.get(model_status) or h.modelStatusToString(model_status)
        nodes = max(int(h.getInfoValue("mip_node_count")[1]), 0)
        feasible = h.getInfoValue("primal_solution_status")[1] == 2  # kSolutionStatusFeasible
        if not feasible:
            x = None
        elif fixed is not None:
            x = fixed.astype(np.float64)
        else:
            x = np.array(h.getSolution().col_value, dtype=np.float64)
        if status == "optimal" and x is None:
            status = "no_solution"
        return status, seconds, nodes, x

    def decode(self, xs: np.ndarray) -> tuple[np.ndarray, list[str | None]]:
        """Solution vectors ``(P, n_vars)`` -> flat grids ``(P, N*N)`` and per row why not
        (``x`` not 0/1, or a cell without exactly one digit); ``None`` when the row decoded."""
        # |x - 0.5| within INTEGRALITY_TOL (< 0.5) of 0.5 everywhere: the row is integral and
        # binary, and its ones (x > 0.5) are those of rint(x); any other row (NaN included) is
        # looked at again below
        ones = xs > 0.5
        half = xs - 0.5
        np.abs(half, out=half)   # in place: a second temporary of this size costs page faults
        near = (half.max(axis=1, initial=0.5) <= 0.5 + INTEGRALITY_TOL) & \
            (half.min(axis=1, initial=0.5) >= 0.5 - INTEGRALITY_TOL)
        n = self.template.n
        cells = n * n
        # the ones as flat (puzzle, column) pairs: 1-D work only (no BLAS, no short-axis reductions)
        puzzle, col = np.divmod(np.flatnonzero(ones), xs.shape[1])   # (2-D nonzero is ~5x slower)
        slot = puzzle * cells + self.cell_of[col]
        per_cell = np.bincount(slot, minlength=xs.shape[0] * cells).reshape(xs.shape[0], cells)
        grids = np.zeros((xs.shape[0], cells), dtype=np.int64)
        grids.ravel()[slot] = self.digit_of[col] + 1
        why: list[str | None] = [None] * xs.shape[0]
        for j in np.flatnonzero(~near | (per_cell != 1).any(axis=1)):
            rounded = np.rint(xs[j])
            frac = np.abs(xs[j] - rounded).max(initial=0.0)
            if frac > INTEGRALITY_TOL or not ((rounded == 0) | (rounded == 1)).all():
                why[j] = f"x is not integral (largest fractional part {frac:.3g})"
            elif (per_cell[j] != 1).any():
                cell = int(np.flatnonzero(per_cell[j] != 1)[0])
                why[j] = f"decode: cell ({cell // n + 1}, {cell % n + 1}) holds {int(per_cell[j, cell])} digits"
        return grids, why

    def solve(self, lb: np.ndarray, ub: np.ndarray, count: int, change=None,
              fixed: bool = False) -> tuple[dict, np.ndarray | None]:
        """Solve (and count up to ``count``) one puzzle: (result fields, x when optimal).
        ``fixed``: ``lb == ub`` everywhere (propagation decided every cell)."""
        self.set_bounds(lb, ub, change)
        status, seconds, nodes, x = self._run(lb if fixed else None)
        row = {"status": status, "n_solutions": None, "seconds": seconds, "nodes": nodes, "error": None}
        if status != "optimal":
            x = None
        if count:
            if status == "infeasible":
                row["n_solutions"] = 0
            elif x is not None:
                found, more_seconds, more_nodes, stop = self._count_more(x, count)
                row["n_solutions"] = found
                row["seconds"] += more_seconds
                row["nodes"] += more_nodes
                if stop not in ("complete", "limit"):
                    row["error"] = f"count: stopped by {stop} after {found} solutions (a lower bound)"
        return row, x

    def _count_more(self, x: np.ndarray, cap: int) -> tuple[int, float, int, str]:
        """Add a no-good cut per solution until infeasible or ``cap``; then remove the cuts."""
        found, seconds, nodes, stop = 1, 0.0, 0, "limit"
        try:
            while found < cap:
                add_no_good_cut(self.highs, x)
                status, more, more_nodes, x = self._run()
                seconds, nodes = seconds + more, nodes + more_nodes
                if status != "optimal":
                    status, more, more_nodes, x = without_presolve(self.highs, self._run, self.presolve)
                    seconds, nodes = seconds + more, nodes + more_nodes
                if status == "infeasible":
                    stop = "complete"
                    break
                if status != "optimal":
                    stop = status
                    break
                found += 1
        finally:
            extra = self.highs.getNumRow() - self.base_rows
            if extra:
                self.highs.deleteRows(extra, np.arange(self.base_rows, self.base_rows + extra, dtype=np.int32))
        return found, seconds, nodes, stop


@dataclass
class BoundChanges:
    """Changed columns of many puzzles, concatenated; puzzle ``j`` owns ``offsets[j]:offsets[j+1]``."""

    cols: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    offsets: np.ndarray

    def __getitem__(self, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sl = slice(self.offsets[j], self.offsets[j + 1])
        return self.cols[sl], self.lower[sl], self.upper[sl]


_LOCAL = threading.local()  # a Dask worker may run tasks in several threads: one cache each
_MAX_SOLVERS = 16           # jigsaw inputs have one shape per region layout: bound the cache


def _shape_key(puzzle: Puzzle) -> tuple:
    return (puzzle.h, puzzle.w, puzzle.variant, puzzle.regions_string())


def solver_for(template: Puzzle, options: SolveOptions) -> ShapeSolver:
    """This worker thread's solver for ``template``'s shape (built on first use, LRU-cached)."""
    cache = getattr(_LOCAL, "solvers", None)
    if cache is None:
        cache = _LOCAL.solvers = OrderedDict()
    key = (_shape_key(template), options.time_limit, json.dumps(options.highs_options, sort_keys=True))
    solver = cache.get(key)
    if solver is None:
        solver = cache[key] = ShapeSolver(template, options)
        while len(cache) > _MAX_SOLVERS:
            cache.popitem(last=False)
    cache.move_to_end(key)
    return solver


def parse_record(puzzle, regions=None, variant=None, box=None) -> Puzzle:
    """One record -> Puzzle (the slow, general path); raises PuzzleError with a one-line message."""
    if puzzle is None or not str(puzzle).strip():
        raise PuzzleError("puzzle: empty record: expected a puzzle")
    if variant is not None and variant not in VARIANTS:
        raise PuzzleError(f"variant: unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    # a trailing newline makes parse_puzzle treat the record as text, never as a file path
    return parse_puzzle(str(puzzle).strip() + "\n", box=box, variant=variant,
                        regions=None if regions is None else str(regions).strip() + "\n")


def _template(n: int, h: int, w: int, variant: str, regions=None) -> Puzzle:
    return Puzzle(np.zeros((n, n), dtype=np.int64), h, w, variant, regions)


def _group_records(records, options: SolveOptions, rows: list[dict]) -> dict[tuple, Shape]:
    """Parse a chunk: compact records in bulk, anything else (or anything odd) one by one.

    Parse errors land in ``rows``; returns the well-formed puzzles grouped by shape.
    """
    shapes: dict[tuple, Shape] = {}
    fast: dict[tuple, list[int]] = {}
    slow: list[int] = []
    box = parse_box(options.box) if options.box else None
    for k, (_, text, regions, variant) in enumerate(records):
        variant = variant or options.variant or "classic"
        rows[k]["variant"] = variant
        text = rows[k]["puzzle"]
        n = math.isqrt(len(text)) if text else 0
        if (regions is None and variant in ("classic", "x", "latin") and 1 < n <= len(COMPACT_DIGITS)
                and n * n == len(text) and _COMPACT_RECORD.fullmatch(text) and (box is None or box[0] * box[1] == n)):
            fast.setdefault((n, variant), []).append(k)
        else:
            slow.append(k)
    for (n, variant), ks in fast.items():
        h, w = box or default_box(n)
        template = _template(n, h, w, variant)
        grids, ok = _fast_grids([rows[k]["puzzle"] for k in ks], n)
        ok &= ~clue_conflicts(grids, template)
        shape = shapes.setdefault(_shape_key(template), Shape(template))
        for j, k in enumerate(ks):
            if ok[j]:
                shape.members.append(k)
                shape.grids.append(grids[j])
            else:
                slow.append(k)  # the general parser names what is wrong
    for k in sorted(slow):
        _, text, regions, variant = records[k]
        try:
            puzzle = parse_record(text, regions, variant or options.variant, options.box)
        except PipelineError as e:
            rows[k]["error"] = _one_line(e)
            continue
        rows[k]["variant"] = puzzle.variant
        key = _shape_key(puzzle)
        if key not in shapes:
            shapes[key] = Shape(_template(puzzle.n, puzzle.h, puzzle.w, puzzle.variant, puzzle.regions))
        shapes[key].members.append(k)
        shapes[key].grids.append(puzzle.grid.ravel())
    return shapes


def solve_records(records: list[tuple], options: SolveOptions | dict) -> dict[str, list]:
    """Solve ``[(index, puzzle, regions, variant), ...]``; returns the result columns as lists.

    Never raises for a bad record: a parse error becomes status ``error`` with the message; a
    failure inside the solver status ``error`` with the exception's first line. ``seconds`` is
    the time inside ``Highs.run()``, ``wall_seconds`` the record's whole cost in this worker
    (bulk steps shared equally among their records).
    """
    if isinstance(options, dict):
        options = SolveOptions(**options)
    start, cpu = time.perf_counter(), time.thread_time()
    rows = [{"index": int(index), "puzzle": None if text is None else str(text).strip(), "variant": None,
             "solution": None, "status": "error", "n_solutions": None, "seconds": 0.0, "wall_seconds": 0.0,
             "nodes": 0, "error": None} for index, text, _, _ in records]
    shapes = _group_records(records, options, rows)
    bulk = time.perf_counter() - start   # shared by every record of the chunk
    for shape in shapes.values():
        _solve_shape(shape, options, rows)
    for row in rows:
        row["wall_seconds"] += bulk / max(len(rows), 1)
    columns = {name: [row[name] for row in rows] for name in RESULT_COLUMNS}
    columns[CPU_KEY] = time.thread_time() - cpu  # HiGHS runs with threads=1 in this thread
    return columns


BATCH_SOLVERS = ("highs", "sat", "cpsat")


def _sat_engine(template: Puzzle, options: SolveOptions) -> SatEngine:
    """This worker's SAT engine for the shape: the rules once, every puzzle's clues as assumptions
    (scheme ijk / order C, so the literal of (r, c, d) is (r*N + c)*N + d + 1)."""
    return sat_engine_for(build_model(template, "ijk", "C", "bounds"), options.amo or DEFAULT_AMO,
                          options.sat_backend)


def _fixed_cells(clues: np.ndarray, template: Puzzle, propagate_first: bool):
    """Per puzzle: the mask of decided cells, their digits (0-based) and whether propagation
    already found a contradiction. With propagation, naked/hidden singles count as decided."""
    n = template.n
    if propagate_first and n <= MAX_BITS_N:
        cand, dead = propagate(clues, template)
        counts = cand.sum(axis=2)
        return counts == 1, cand.argmax(axis=2), dead | (counts == 0).any(axis=1)
    return clues > 0, np.maximum(clues - 1, 0), np.zeros(clues.shape[0], dtype=bool)


def _solve_shape_sat(shape: Shape, options: SolveOptions, rows: list[dict]) -> None:
    """The SAT engine for the chunk's puzzles of one shape: one incremental solver, each puzzle's
    decided cells as assumptions, ``--count`` by blocking clauses; bulk verification."""
    template, n = shape.template, shape.template.n
    try:
        engine = _sat_engine(template, options)
    except Exception as e:  # the shape cannot be encoded: every member gets the message
        for k in shape.members:
            rows[k].update(status="error", error=f"solver: {_one_line(e)}")
        return
    clues = np.stack(shape.grids)
    t0 = time.perf_counter()
    decided, digit, dead = _fixed_cells(clues, template, options.propagate)
    shared = (time.perf_counter() - t0) / len(shape.members)
    solutions = np.zeros_like(clues)
    has = np.zeros(len(shape.members), dtype=bool)
    cell_ids = np.arange(n * n)
    for j, k in enumerate(shape.members):
        t1 = time.perf_counter()
        row = rows[k]
        row.update(seconds=0.0, nodes=0, error=None, n_solutions=0 if options.count else None)
        try:
            if dead[j]:
                row["status"] = "infeasible"
                continue
            cells = cell_ids[decided[j]]
            literals = (cells * n + digit[j, cells] + 1).tolist()
            if options.count:
                result = engine.count_assumed(literals, options.count, literals, time_limit=options.time_limit)
                row.update(seconds=result.seconds, n_solutions=result.count)
                grid = result.grids[0].ravel() if result.grids else None
                status = "optimal" if grid is not None else ("time_limit" if result.status == "time_limit"
                                                             else "infeasible")
                if result.status == "time_limit" and grid is not None:
                    row["error"] = f"count: stopped by time_limit after {result.count} solutions (a lower bound)"
            else:
                start = time.perf_counter()
                outcome = engine.solve_assumed(literals, time_limit=options.time_limit)
                row["seconds"] = time.perf_counter() - start
                status = outcome.status
                grid = None if outcome.full is None else outcome.full.reshape(n * n, n).argmax(axis=1) + 1
            row["status"] = status
            if grid is not None:
                solutions[j], has[j] = grid, True
        except Exception as e:  # one puzzle's failure must not lose the rest of the chunk
            row.update(status="error", error=f"solver: {_one_line(e)}")
        finally:
            row["wall_seconds"] += time.perf_counter() - t1 + shared
    _record_solutions(shape, rows, clues, solutions, has)


def _solve_shape_each(shape: Shape, options: SolveOptions, rows: list[dict]) -> None:
    """Any other in-process registry engine (cpsat): one model and one call per puzzle."""
    template, n = shape.template, shape.template.n
    solver = get_solver(options.solver)
    clues = np.stack(shape.grids)
    solutions = np.zeros_like(clues)
    has = np.zeros(len(shape.members), dtype=bool)
    for j, k in enumerate(shape.members):
        t1 = time.perf_counter()
        row = rows[k]
        row.update(seconds=0.0, nodes=0, error=None, n_solutions=None)
        try:
            puzzle = Puzzle(clues[j].reshape(n, n), template.h, template.w, template.variant, template.regions)
            model = build_model(puzzle, "ijk", "C", "bounds")
            if options.count and solver.count is not None:
                result = solver.count(model, options.count, time_limit=options.time_limit)
                row.update(seconds=result.seconds, n_solutions=result.count)
                grid = result.grids[0].ravel() if result.grids else None
                row["status"] = "optimal" if grid is not None else (
                    "time_limit" if result.status == "time_limit" else "infeasible")
            else:
                r = solver.solve(model, time_limit=options.time_limit)
                row.update(status=r.status, seconds=r.seconds, nodes=r.nodes)
                grid = None if r.grid is None else r.grid.ravel()
            if grid is not None:
                solutions[j], has[j] = grid, True
        except Exception as e:  # one puzzle's failure must not lose the rest of the chunk
            row.update(status="error", error=f"solver: {_one_line(e)}")
        finally:
            row["wall_seconds"] += time.perf_counter() - t1
    _record_solutions(shape, rows, clues, solutions, has)


def _record_solutions(shape: Shape, rows: list[dict], clues: np.ndarray, solutions: np.ndarray,
                      has: np.ndarray) -> None:
    """Verify the found grids in bulk; write the solution text, or the first violation."""
    template, n = shape.template, shape.template.n
    ok = verify_solutions(solutions, clues, template) | ~has
    for j, text in zip(np.flatnonzero(has & ok), grid_strings(solutions[has & ok], n)):
        rows[shape.members[j]]["solution"] = text
    for j in np.flatnonzero(~ok):
        puzzle = Puzzle(clues[j].reshape(n, n), template.h, template.w, template.variant, template.regions)
        verdict = verify_grid(solutions[j].reshape(n, n), puzzle)
        rows[shape.members[j]].update(status="invalid", error=f"verify: {verdict.message}")


def _solve_shape(shape: Shape, options: SolveOptions, rows: list[dict]) -> None:
    """Solve the chunk's puzzles of one shape: bulk bounds, one HiGHS run each, bulk decode+verify."""
    if options.solver == "sat":
        return _solve_shape_sat(shape, options, rows)
    if options.solver != "highs":
        return _solve_shape_each(shape, options, rows)
    template, n = shape.template, shape.template.n
    solver = None
    # blocks bound the (P, n_vars) arrays for big grids
    block = max(1, 4_000_000 // n ** 3)
    for lo in range(0, len(shape.members), block):
        members = shape.members[lo:lo + block]
        t0 = time.perf_counter()
        clues = np.stack(shape.grids[lo:lo + block])
        cand = None
        if options.propagate and n <= MAX_BITS_N:
            cand, _ = propagate(clues, template)
        try:
            solver = solver or solver_for(template, options)
        except Exception as e:  # the shape cannot be modelled: every member gets the message
            for k in members:
                rows[k].update(status="error", error=f"solver: {_one_line(e)}")
            continue
        lbs, ubs = solver.bounds(clues, cand)
        changes = solver.bound_changes(lbs, ubs)
        fixed = (lbs == ubs).all(axis=1)
        in_sync = True
        xs = np.zeros((len(members), solver.n_vars))
        has_x = np.zeros(len(members), dtype=bool)
        shared = time.perf_counter() - t0
        for j, k in enumerate(members):
            t1 = time.perf_counter()
            try:
                # the planned change holds only while the instance has the previous row's bounds
                change, in_sync = (changes[j] if in_sync else None), False
                fields, x = solver.solve(lbs[j], ubs[j], options.count, change, bool(fixed[j]))
                in_sync = True
                rows[k].update(fields)
                if x is not None:
                    xs[j], has_x[j] = x, True
            except Exception as e:  # a solver failure must not lose the rest of the chunk
                rows[k].update(status="error", error=f"solver: {_one_line(e)}")
            rows[k]["wall_seconds"] += time.perf_counter() - t1
        t2 = time.perf_counter()
        grids, why = solver.decode(xs)
        for j in np.flatnonzero(has_x):
            if why[j] is not None:
                rows[members[j]].update(status="non_integral" if why[j].startswith("x is") else "invalid",
                                        error=why[j])
                has_x[j] = False
        ok = verify_solutions(grids, clues, template) | ~has_x
        for j, text in zip(np.flatnonzero(has_x), grid_strings(grids[has_x], n)):
            rows[members[j]]["solution"] = text
        for j in np.flatnonzero(~ok):
            puzzle = Puzzle(clues[j].reshape(n, n), template.h, template.w, template.variant, template.regions)
            verdict = verify_grid(grids[j].reshape(n, n), puzzle)
            rows[members[j]].update(status="invalid", error=f"verify: {verdict.message}")
        shared += time.perf_counter() - t2
        for k in members:
            rows[k]["wall_seconds"] += shared / len(members)


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


# =============================================================================================
# output: Parquet parts, the manifest and _SUCCESS
# =============================================================================================
def result_schema():
    """Arrow schema of every part (the same for all, so the parts read as one table)."""
    import pyarrow as pa

    return pa.schema([
        ("index", pa.int64()), ("puzzle", pa.string()), ("variant", pa.string()), ("solution", pa.string()),
        ("status", pa.string()), ("n_solutions", pa.int64()), ("seconds", pa.float64()),
        ("wall_seconds", pa.float64()), ("nodes", pa.int64()), ("error", pa.string()),
    ])


def part_path(out: Path, first_index: int) -> Path:
    """``part-<first index>.parquet``: zero-padded, so name order is input order."""
    return out / f"{PART_PREFIX}{first_index:0{INDEX_WIDTH}d}.parquet"


def write_part(out: Path, columns: dict[str, list]) -> Path:
    """Write one part atomically (temporary ``.part-...`` file, then rename)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from formats.base import atomic_open

    table = pa.Table.from_pydict(columns, schema=result_schema())
    first = int(columns["index"][0]) if len(columns["index"]) else 0
    path = part_path(out, first)
    with atomic_open(path, "wb") as f:
        pq.write_table(table, f)
    return path


def _parts(out: Path) -> list[Path]:
    return sorted(out.glob(f"{PART_PREFIX}*.parquet"))


def existing_indices(out: Path) -> np.ndarray:
    """Indices already written in ``out``'s parts (reads only the ``index`` column)."""
    import pyarrow.parquet as pq

    found = []
    for path in _parts(out):
        try:
            found.append(pq.read_table(path, columns=["index"]).column("index").to_numpy())
        except Exception as e:  # parts are renamed into place whole, so this is outside damage
            raise PipelineError(f"batch: cannot read part {path.name} ({_one_line(e)}); "
                                f"delete it and rerun to solve its records again") from None
    return np.concatenate(found).astype(np.int64) if found else np.zeros(0, dtype=np.int64)


def _read_manifest(out: Path) -> dict | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise PipelineError(f"batch: cannot read {path} ({_one_line(e)})") from None


def _write_manifest(out: Path, manifest: dict) -> None:
    from formats.base import atomic_open

    with atomic_open(out / MANIFEST) as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")


def _prepare_output(out: Path, manifest: dict, overwrite: bool) -> None:
    """Create ``out``, or check that it holds a batch of the same input and options.

    With ``overwrite``, the batch's own files are removed first (nothing else is touched).
    """
    if out.exists() and not out.is_dir():
        raise PipelineError(f"batch: output {str(out)!r} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    ours = _parts(out) + [p for p in (out / MANIFEST, out / SUCCESS) if p.exists()]
    if overwrite:
        for path in ours:
            path.unlink()
        ours = []
    for stale in out.glob(f".{PART_PREFIX}*"):  # temporary files of a killed run
        stale.unlink()
    previous = _read_manifest(out)
    if previous is None:
        if ours:
            raise PipelineError(f"batch: {str(out)!r} has parts but no {MANIFEST}; use --overwrite to start over")
        _refuse_foreign(out)
        return
    for key, what in (("fingerprint", "input records"), ("options", "solve options")):
        if previous.get(key) != manifest[key]:
            raise PipelineError(f"batch: {str(out)!r} holds results for other {what} "
                                f"({MANIFEST} differs); use --overwrite or another output directory")


@contextlib.contextmanager
def _locked(out: Path):
    """Hold an exclusive lock on ``out`` for the run: two runs on one OUT could write
    overlapping parts (different chunk sizes). POSIX only; elsewhere no lock is taken."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    out.mkdir(parents=True, exist_ok=True)
    with open(out / LOCK, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise PipelineError(f"batch: another batch is writing {str(out)!r}; wait for it or use another directory") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _refuse_foreign(out: Path) -> None:
    """A directory without a batch manifest must hold nothing visible (the parts would mix)."""
    if not out.is_dir() or (out / MANIFEST).exists():
        return
    foreign = [p.name for p in out.iterdir() if not p.name.startswith((".", "_"))]
    if foreign:
        raise PipelineError(f"batch: output directory {str(out)!r} is not empty and not a batch "
                            f"output (found {', '.join(sorted(foreign)[:3])}); choose another directory")


def _chunks(missing: np.ndarray, size: int) -> list[np.ndarray]:
    """Split sorted missing indices into runs of consecutive indices of at most ``size``.

    Parts never straddle a gap, so every part is a contiguous range and part names (their
    first index) sort in input order even after several resumed runs.
    """
    if missing.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(missing) != 1) + 1
    out = []
    for run in np.split(missing, breaks):
        out += [run[k:k + size] for k in range(0, run.size, size)]
    return out


# =============================================================================================
# progress
# =============================================================================================
class Progress:
    """A tqdm bar on a terminal (when tqdm is installed), else a log line every ``interval`` s."""

    def __init__(self, total: int, done: int, mode: str = "auto", interval: float = 10.0, stream=None):
        self.total, self.done, self.new = total, done, 0
        self.stream = stream or sys.stderr
        self.interval = interval
        self.started = self.last = time.monotonic()
        self.counts: dict[str, int] = {}
        self.bar = None
        if mode == "auto":
            mode = "bar" if getattr(self.stream, "isatty", lambda: False)() else "log"
        if mode == "bar":
            try:
                from tqdm import tqdm
            except ImportError:
                mode = "log"
            else:
                self.bar = tqdm(total=total, initial=done, unit="puzzle", file=self.stream,
                                dynamic_ncols=True, smoothing=0.1)
        self.mode = mode

    def update(self, statuses: list[str]) -> None:
        """Record a finished chunk (its statuses)."""
        self.done += len(statuses)
        self.new += len(statuses)
        for s in statuses:
            self.counts[s] = self.counts.get(s, 0) + 1
        if self.bar is not None:
            self.bar.update(len(statuses))
            self.bar.set_postfix_str(self._counts(), refresh=False)
        elif self.mode == "log" and time.monotonic() - self.last >= self.interval:
            self.log()

    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.new / elapsed if elapsed > 0 else 0.0

    def _counts(self) -> str:
        return ", ".join(f"{k} {v:,}" for k, v in sorted(self.counts.items()))

    def log(self) -> None:
        self.last = time.monotonic()
        rate = self.rate()
        left = self.total - self.done
        eta = _duration(left / rate) if rate > 0 else "?"
        pct = 100.0 * self.done / self.total if self.total else 100.0
        print(f"batch: {self.done:,}/{self.total:,} ({pct:.1f}%) | {rate:,.1f} puzzles/s | ETA {eta} | "
              f"{self._counts() or 'starting'}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"


# =============================================================================================
# engines: run chunks somewhere, hand back finished ones
# =============================================================================================
class _InProcess:
    """One worker: solve in this process (no start-up or transfer cost)."""

    def submit(self, fn, *args):
        from concurrent.futures import Future

        future = Future()
        future.set_result(fn(*args))
        return future

    @staticmethod
    def wait_any(pending):
        return set(pending)

    def close(self, cancel: bool = False):
        pass


class _Processes:
    """A spawn-context process pool (safe on every platform and with threads in the parent)."""

    def __init__(self, workers: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # numpy's BLAS threads only compete with the other workers here
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))

    def submit(self, fn, *args):
        return self.pool.submit(fn, *args)

    @staticmethod
    def wait_any(pending):
        from concurrent.futures import FIRST_COMPLETED, wait

        return wait(pending, return_when=FIRST_COMPLETED).done

    def close(self, cancel: bool = False):
        self.pool.shutdown(wait=not cancel, cancel_futures=cancel)


class _Dask:
    """Dask distributed: a scheduler address, or a LocalCluster of ``workers`` processes."""

    def __init__(self, workers: int, scheduler: str | None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise PipelineError("batch: --engine dask needs dask[distributed] (pip install 'dask[distributed]')") from None
        import logging

        self.cluster = None
        if scheduler:
            self.client = Client(scheduler)
        else:
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=logging.ERROR)
            self.client = Client(self.cluster)
        self.count = 0

    def submit(self, fn, *args):
        self.count += 1
        return self.client.submit(fn, *args, pure=False, key=f"sudoku-batch-{os.getpid()}-{self.count}")

    @staticmethod
    def wait_any(pending):
        from distributed import wait

        return wait(list(pending), return_when="FIRST_COMPLETED").done

    def workers(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def close(self, cancel: bool = False):
        with contextlib.suppress(Exception):
            self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()


# =============================================================================================
# the batch
# =============================================================================================
@dataclass
class BatchSummary:
    """What a run did. ``complete``: every record has a row in OUT (``_SUCCESS`` written)."""

    output: str
    records: int
    already_done: int
    solved_now: int
    status_counts: dict
    elapsed: float
    run_seconds: float       # sum of time inside Highs.run() over this run's records
    worker_seconds: float    # sum of the records' whole cost in the workers
    complete: bool
    interrupted: bool = False
    parts_written: int = 0
    cpu_client: float = 0.0       # CPU seconds of this process besides solving (reading, writing parts)
    cpu_workers: float = 0.0      # CPU seconds the workers spent on this run's chunks
    workers: int = 1
    loadavg: tuple | None = None  # 1-minute load average at start and end (shared machines)

    @property
    def puzzles_per_second(self) -> float:
        return self.solved_now / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def cpu_efficiency(self) -> float:
        """Workers' CPU seconds / (elapsed x workers): below 1 when workers waited for a core
        (other load on the machine) or for work."""
        return self.cpu_workers / (self.elapsed * self.workers) if self.elapsed > 0 else 0.0

    @property
    def overhead_fraction(self) -> float:
        """Share of the workers' time spent outside ``Highs.run()``."""
        return 1.0 - self.run_seconds / self.worker_seconds if self.worker_seconds > 0 else 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(puzzles_per_second=self.puzzles_per_second, overhead_fraction=self.overhead_fraction,
                 cpu_efficiency=self.cpu_efficiency)
        return d


def run_batch(input_path, output, *, workers: int | None = None, engine: str = "processes",
              scheduler: str | None = None, chunk_size: int | None = None, count: int = 0,
              time_limit: float | None = None, propagate: bool = True, box: str | None = None,
              variant: str | None = None, input_format: str = "auto", limit: int | None = None,
              overwrite: bool = False, progress: str = "auto", log_interval: float = 10.0,
              highs_options: dict | None = None, stream=None, solver: str = "highs",
              sat_backend: str | None = None, amo: str | None = None) -> BatchSummary:
    """Solve every record of ``input_path`` not yet in ``output``; see the module docstring.

    ``limit`` stops after that many new records (a partial, resumable run). Raises
    PipelineError for unusable input or output; interrupted runs return ``interrupted=True``.
    """
    stream = stream or sys.stderr
    started = time.monotonic()
    usage = _cpu_usage()
    load_start = _loadavg()
    if engine not in ENGINES:
        raise PipelineError(f"batch: unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if count < 0:
        raise PipelineError(f"batch: --count must be 0 (no counting) or more, found {count}")
    if solver not in BATCH_SOLVERS:
        raise PipelineError(f"batch: --solver must be one of {', '.join(BATCH_SOLVERS)}, found {solver!r}")
    get_solver(solver)  # available here (the workers have the same environment)
    if solver == "sat" and sat_backend is not None and sat_backend not in sat_backends():
        raise PipelineError(f"batch: unknown --sat-backend {sat_backend!r}; expected one of {', '.join(sat_backends())}")
    if box is not None:
        parse_box(box)
    if variant is not None and variant not in VARIANTS:
        raise PipelineError(f"variant: unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    if scheduler and engine == "processes":
        engine = "dask"  # an address only makes sense for Dask
    highs_options = {**DEFAULT_HIGHS_OPTIONS, **(highs_options or {})}
    _check_highs_options(highs_options)
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise PipelineError(f"batch: --workers must be at least 1, found {workers}")
    records = read_records(input_path, input_format)
    n_records = len(records["puzzle"])
    options = SolveOptions(count=count, time_limit=time_limit, propagate=propagate, box=box, variant=variant,
                           highs_options=highs_options, solver=solver, sat_backend=sat_backend, amo=amo)
    out = Path(output)
    manifest = {
        "kind": "sudoku-pipeline batch",
        "version": 1,
        "input": str(input_path),
        "records": n_records,
        "fingerprint": records_fingerprint(records),
        "options": asdict(options),
        "columns": list(RESULT_COLUMNS),
        "layout": f"{PART_PREFIX}<first index, {INDEX_WIDTH} digits>.parquet; rows in input order",
    }
    if out.exists() and not out.is_dir():
        raise PipelineError(f"batch: output {str(out)!r} exists and is not a directory")
    if not overwrite:
        _refuse_foreign(out)  # before the lock file is created in it
    with _locked(out):
        return _run_locked(out, manifest, records, options, overwrite=overwrite, workers=workers, engine=engine,
                           scheduler=scheduler, chunk_size=chunk_size, limit=limit, progress=progress,
                           log_interval=log_interval, stream=stream, started=started, usage=usage,
                           load_start=load_start)


def _run_locked(out: Path, manifest: dict, records: dict, options: SolveOptions, *, overwrite, workers, engine,
                scheduler, chunk_size, limit, progress, log_interval, stream, started, usage, load_start) -> BatchSummary:
    """The part of :func:`run_batch` that runs while holding OUT's lock."""
    n_records = len(records["puzzle"])
    _prepare_output(out, manifest, overwrite)
    present = existing_indices(out)
    if present.size and (present.min() < 0 or present.max() >= n_records or np.unique(present).size != present.size):
        raise PipelineError(f"batch: parts in {str(out)!r} hold duplicate or out-of-range indices; use --overwrite")
    done = np.zeros(n_records, dtype=bool)
    done[present] = True
    missing = np.flatnonzero(~done)
    if limit is not None:
        missing = missing[:max(limit, 0)]
    manifest["status"] = "running"
    _write_manifest(out, manifest)
    if n_records == 0 and not _parts(out):
        write_part(out, {name: [] for name in RESULT_COLUMNS})  # so the dataset reads as an empty table
    if chunk_size is None:
        # enough chunks to keep every worker busy to the end, few enough to amortise bulk steps
        chunk_size = int(min(256, max(16, math.ceil(missing.size / (workers * 4)))))
    chunks = _chunks(missing, max(1, int(chunk_size)))
    puzzles, regions, variants = records["puzzle"], records["regions"], records["variant"]
    meter = Progress(n_records, int(done.sum()), progress, log_interval, stream)
    totals = {"run": 0.0, "worker": 0.0, "cpu": 0.0, "parts": 0}
    interrupted = False
    runner = None
    dask_workers = None
    try:
        if chunks:
            runner = (_InProcess() if engine == "processes" and workers == 1 else
                      _Processes(min(workers, len(chunks))) if engine == "processes" else _Dask(workers, scheduler))
            if isinstance(runner, _Dask):
                dask_workers = runner.workers()
            window = 2 * (dask_workers or workers)
            payload = asdict(options)
            # by reference from the importable module, also when this file runs as __main__
            task = importlib.import_module("pipeline.batch").solve_records
            queue = iter(chunks)
            pending = set()

            def fill():
                for chunk in queue:
                    records = [(int(i), puzzles[i], regions[i], variants[i]) for i in chunk]
                    pending.add(runner.submit(task, records, payload))
                    if len(pending) >= window:
                        return

            fill()
            while pending:
                for future in runner.wait_any(pending):
                    pending.discard(future)
                    columns = future.result()
                    totals["cpu"] += columns.pop(CPU_KEY, 0.0)
                    write_part(out, columns)
                    totals["parts"] += 1
                    totals["run"] += float(sum(columns["seconds"]))
                    totals["worker"] += float(sum(columns["wall_seconds"]))
                    done[columns["index"]] = True
                    meter.update(columns["status"])
                fill()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if runner is not None:
            runner.close(cancel=interrupted)
        meter.close()
    complete = bool(done.all())
    elapsed = time.monotonic() - started
    own = _cpu_usage() - usage
    in_process = isinstance(runner, _InProcess)
    summary = BatchSummary(str(out), n_records, int(present.size), meter.new, dict(sorted(meter.counts.items())),
                           elapsed, totals["run"], totals["worker"], complete, interrupted, totals["parts"],
                           cpu_client=own - (totals["cpu"] if in_process else 0.0), cpu_workers=totals["cpu"],
                           workers=1 if in_process else dask_workers or workers, loadavg=(load_start, _loadavg()))
    manifest["status"] = "complete" if complete else "interrupted" if interrupted else "partial"
    manifest["last_run"] = summary.to_dict()
    _write_manifest(out, manifest)
    if complete:
        (out / SUCCESS).touch()
    return summary


ENGINES = ("processes", "dask")


def _check_highs_options(options: dict) -> None:
    """Refuse an unknown HiGHS option or a bad value here, not in every worker."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for key, value in options.items():
        if h.setOptionValue(key, value) != highspy.HighsStatus.kOk:
            raise PipelineError(f"batch: HiGHS refuses option {key}={value!r}")


def _cpu_usage() -> float:
    """CPU seconds (user + system) of this process, all threads."""
    return time.process_time()


def _loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return None


# =============================================================================================
# command line
# =============================================================================================
def _option_value(text: str):
    """``KEY=VALUE`` for a HiGHS option: VALUE as bool, int, float or string."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, found {text!r}")
    low = value.lower()
    if low in ("true", "false", "on", "off") and key != "presolve" and key != "parallel":
        return key, low in ("true", "on")
    for cast in (int, float):
        try:
            return key, cast(value)
        except ValueError:
            pass
    return key, value


def add_batch_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``batch``'s arguments to ``parser`` (a subcommand's parser)."""
    parser.add_argument("input", help="puzzles: a text file (one per line), a CSV or a Parquet file "
                                      "(column 'puzzle', optional 'regions' and 'variant')")
    parser.add_argument("output", help="output directory of Parquet parts (read it with pandas.read_parquet(OUT)); "
                                       "rerun with the same OUT to resume")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--engine", choices=ENGINES, default="processes",
                        help="processes (this machine) or dask (a cluster; LocalCluster without --scheduler)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="Dask scheduler address, e.g. tcp://host:8786 (implies --engine dask)")
    parser.add_argument("--chunk-size", type=int, default=None, metavar="N",
                        help="puzzles per task and per part file (default: 16..256 by input size)")
    parser.add_argument("--count", type=int, default=0, metavar="K",
                        help="also count solutions up to K (column n_solutions; K means K or more)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                        help="solver time limit per puzzle (default: none)")
    parser.add_argument("--solver", choices=BATCH_SOLVERS, default="highs",
                        help="highs (one instance per shape, bounds per puzzle), sat (one incremental SAT solver per "
                             "shape, clues as assumptions) or cpsat (default highs)")
    parser.add_argument("--sat-backend", metavar="NAME", help=f"python-sat solver for --solver sat "
                                                              f"(default {DEFAULT_BACKEND})")
    parser.add_argument("--amo", choices=("auto", *AMO_ENCODINGS), default=None,
                        help="at-most-one encoding for --solver sat (default auto)")
    parser.add_argument("--box", metavar="HxW", help="box shape of the records (default: the squarest for N)")
    parser.add_argument("--variant", choices=VARIANTS, help="variant of records without a 'variant' column")
    parser.add_argument("--input-format", choices=("auto", "text", "csv", "parquet"), default="auto")
    parser.add_argument("--no-propagate", dest="propagate", action="store_false",
                        help="hand HiGHS the clues only (no naked/hidden singles first)")
    parser.add_argument("--highs-option", action="append", type=_option_value, default=[], metavar="KEY=VALUE",
                        help="a HiGHS option for every solve (repeatable); defaults: "
                             + ", ".join(f"{k}={v}" for k, v in DEFAULT_HIGHS_OPTIONS.items()))
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="stop after N new puzzles (resume later)")
    parser.add_argument("--overwrite", action="store_true", help="delete OUT's previous batch results first")
    parser.add_argument("--progress", choices=("auto", "bar", "log", "none"), default="auto",
                        help="progress bar (terminal, needs tqdm), log lines, or nothing (default: auto)")
    parser.add_argument("--log-interval", type=float, default=10.0, metavar="SECONDS",
                        help="seconds between progress log lines (default 10)")
    return parser


def run_batch_command(args: argparse.Namespace) -> int:
    """Run ``batch`` from parsed arguments. Exit codes: 0 done (or stopped by --limit),
    2 unusable input/output/options, 1 a worker failed, 130 interrupted (rerun to resume)."""
    import signal

    def on_term(signum, frame):  # a polite kill: stop like Ctrl-C, keep every written part
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term) if threading.current_thread() is threading.main_thread() else None
    try:
        summary = run_batch(args.input, args.output, workers=args.workers, engine=args.engine,
                            scheduler=args.scheduler, chunk_size=args.chunk_size, count=args.count,
                            time_limit=args.time_limit, propagate=args.propagate, box=args.box,
                            variant=args.variant, input_format=args.input_format, limit=args.limit,
                            overwrite=args.overwrite, progress=args.progress, log_interval=args.log_interval,
                            highs_options=dict(args.highs_option), solver=args.solver,
                            sat_backend=args.sat_backend, amo=args.amo)
    except PipelineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a crashed worker (BrokenProcessPool, lost Dask worker): parts so far are kept
        print(f"error: batch: a worker failed ({type(e).__name__}: {_one_line(e)}); "
              f"rerun the same command to resume", file=sys.stderr)
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    counts = ", ".join(f"{k} {v:,}" for k, v in summary.status_counts.items()) or "nothing new"
    state = ("complete" if summary.complete else
             "interrupted; rerun the same command to resume" if summary.interrupted else
             "partial; rerun the same command to continue")
    print(f"batch: {summary.solved_now:,} processed in {summary.elapsed:.1f}s "
          f"({summary.puzzles_per_second:,.1f} puzzles/s; {100 * summary.overhead_fraction:.1f}% of worker time "
          f"outside Highs.run()); {summary.already_done:,} already done; {counts}; {state}: {summary.output}",
          file=sys.stderr)
    return 130 if summary.interrupted else 0


def main(argv=None) -> int:
    """``python -m pipeline.batch IN OUT [options]``."""
    parser = argparse.ArgumentParser(prog="python -m pipeline.batch", description="Solve many puzzles into Parquet parts.")
    add_batch_arguments(parser)
    return run_batch_command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
