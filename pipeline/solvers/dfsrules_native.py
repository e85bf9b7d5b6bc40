"""The ``dfsrules`` kernel (:mod:`pipeline.solvers.dfsrules_kernel`) as machine code that runs
without importing numba: the same cache and loader as the ``dfs`` kernel's
(:mod:`pipeline.solvers.dfs_native`), under its own name (a hash of this kernel's sources, numba's
and llvmlite's versions and the CPU: ``dfsrules-kernel-<key>.o``). Without a usable object,
numba's own function is called with the same arguments.
"""
from __future__ import annotations

import ctypes
import threading
from pathlib import Path

import numpy as np

from pipeline.solvers import dfs_native
from pipeline.solvers.dfs_native import _pointer

__all__ = ["FINISHED", "SIGNATURES", "RulesKernel", "is_cached", "load", "start_problem"]

FINISHED = 0
_P, _I, _U = ctypes.c_void_p, ctypes.c_int64, ctypes.c_uint64
_TABLES = (_P, _I, _P, _P, _I, _I, _P, _I, _P, _I, _U)
#: ctypes argument types of the entry point, in :func:`pipeline.solvers.dfsrules_kernel.entry_points`' order.
SIGNATURES = {"search": (_P, _P, _P, _I, _P, _I, _P, *_TABLES, _P, _I, _P, _I, _I, _I, _I, _P, _I, _I),
              "tables": (_P, _I, _P, _I, _P, _I, _I, _U, _P, _I, _P, _I)}
#: The kernel's modules (the table builder's layout included): a change to any compiles a new object.
_KERNEL_SOURCES = tuple(Path(__file__).with_name(name) for name in (
    "dfsrules_kernel.py", "dfsrules_handlers.py", "dfsrules_tables_kernel.py", "dfsrules_rows.py",
    "dfsrules_lunchbox.py", "dfsrules_counting.py", "dfsrules_counttables.py", "dfsrules_sumline.py",
    "dfsrules_sumline_rows.py", "dfsrules_automaton.py", "dfsrules_automaton_rows.py", "dfsrules_hidden.py",
    "dfsrules_hidden_rows.py", "dfsrules_windows.py", "dfsrules_windows_rows.py", "dfsrules_linear.py",
    "dfsrules_decided.py", "dfsrules_decided_rows.py", "dfsrules_locked.py"))
_LOCK = threading.Lock()
_LOADED: RulesKernel | None = None


class RulesKernel:
    """``search`` with numpy arguments, through the machine code (``native``) or numba."""

    FINISHED = FINISHED

    def __init__(self, body: bytes | None, symbols: dict[str, str] | None, reason: str = ""):
        self.native = body is not None
        self.reason = reason
        if body is None:
            from pipeline.solvers import dfsrules_kernel

            self._numba = dfsrules_kernel.search
            self._numba_tables = dfsrules_kernel.core_tables
            return
        assert symbols is not None
        self._code, addresses = dfs_native.load_machine_code(body, symbols)   # owns the code
        self._search = ctypes.CFUNCTYPE(_I, *SIGNATURES["search"])(addresses["search"])
        self._tables = ctypes.CFUNCTYPE(_I, *SIGNATURES["tables"])(addresses["tables"])

    def core_tables(self, terms: np.ndarray, rows: np.ndarray, unit_pairs: np.ndarray, full: np.uint64,
                    out: np.ndarray, masks: np.ndarray) -> int:
        """:func:`pipeline.solvers.dfsrules_tables_kernel.core_tables` (the arguments as it takes them).

        Parameters
        ----------
        terms, rows, unit_pairs, full, out, masks
            The sorted terms ``(4, T)``, the rows ``(2, R)``, the shape's unit pairs, the mask of every
            digit, and the buffers filled in place (:func:`pipeline.solvers.dfsrules_rows.core_tables`).

        Returns
        -------
        int
            0, or -1 when the pairs outnumbered their room.
        """
        if not self.native:
            return int(self._numba_tables(terms, rows, unit_pairs, full, out, masks))
        if terms.shape[0] != 4 or rows.shape[0] != 2 or unit_pairs.ndim != 2:
            raise ValueError("dfsrules table builder: arrays of another shape")
        return int(self._tables(_pointer(terms, np.int64), terms.shape[1], _pointer(rows, np.int64), rows.shape[1],
                                _pointer(unit_pairs, np.uint8), unit_pairs.shape[0], unit_pairs.shape[1], int(full),
                                _pointer(out, np.int64), out.size, _pointer(masks, np.uint64), masks.size))

    def search(self, stack, flags, origins, depth, found, tallies, tables, rint, compat, limit, budget,
               pause_when_full, work, probe_idle: int = 0) -> int:
        """:func:`pipeline.solvers.dfsrules_kernel.search` (the shape's tables as one object).

        Parameters
        ----------
        stack, flags, origins, depth, found, tallies
            The search's state and outputs (arrays updated in place).
        tables : ShapeTables
            The shape's unit tables (:func:`pipeline.solvers.dfs.shape_tables`).
        rint, compat, work
            The rule tables and the scratch (:func:`pipeline.solvers.dfsrules_kernel.search`).
        probe_idle : int
            Probe the start state first, until this many tries in a row removed nothing (0: no probe).
        limit, budget, pause_when_full
            When to stop (solutions), when to return (nodes), whether to pause once ``found`` fills up.

        Returns
        -------
        int
            The depth to resume from, or :data:`FINISHED`.
        """
        if not self.native:
            return self._numba(stack, flags, origins, depth, found, tallies, tables.peers, tables.n_peers,
                               tables.units, tables.cell_units, tables.n_cell_units, tables.full, rint, compat,
                               limit, budget, pause_when_full, work, probe_idle)
        n_cells = stack.shape[1]
        if not (stack.shape == flags.shape == (n_cells + 1, n_cells) and found.shape[1] == n_cells
                and tables.peers.shape[0] == n_cells and work.size >= 2 * n_cells + 2):
            raise ValueError("dfsrules kernel: arrays of another shape")
        return self._search(_pointer(stack, np.uint64), _pointer(flags, np.bool_), _pointer(origins, np.int64),
                            int(depth), _pointer(found, np.uint64), found.shape[0], _pointer(tallies, np.int64),
                            *tables.native_args,
                            _pointer(rint, np.int64), rint.size, _pointer(compat, np.uint64), compat.size,
                            int(limit), int(budget), int(bool(pause_when_full)), _pointer(work, np.int64), work.size,
                            int(probe_idle))


def _entry_points() -> dict:
    from pipeline.solvers import dfsrules_kernel   # numba: only to compile

    return dfsrules_kernel.entry_points()


def _load_native() -> RulesKernel:
    key = dfs_native.kernel_key(_KERNEL_SOURCES)
    return RulesKernel(*dfs_native.cached_object("dfsrules", key, SIGNATURES, _entry_points))


def start_problem() -> str | None:
    """Why this kernel would compile on every run here (:func:`pipeline.solvers.dfs_native.uncached_problem`),
    or None: loaded in this process, cached, or the cache can keep it.

    Returns
    -------
    str or None
    """
    return None if _LOADED is not None else dfs_native.uncached_problem(
        "dfsrules", dfs_native.kernel_key(_KERNEL_SOURCES), SIGNATURES)


def is_cached() -> bool:
    """Is this kernel's machine code in the cache (:func:`pipeline.solvers.dfs_native.is_cached`)?

    Returns
    -------
    bool
    """
    return dfs_native.is_cached("dfsrules", dfs_native.kernel_key(_KERNEL_SOURCES), SIGNATURES)


def load() -> RulesKernel:
    """The kernel for this process: the cached machine code, compiled first when missing
    (numba's function when no object can be made).

    Returns
    -------
    RulesKernel
    """
    global _LOADED
    with _LOCK:
        if _LOADED is None:
            try:
                _LOADED = _load_native()
            except Exception as e:   # as dfs_native.load: numba's own function still searches
                _LOADED = RulesKernel(None, None, str(e))
        return _LOADED
