"""Solvers, registered by name (see :mod:`pipeline.solvers.base`).

Every built-in engine is in the registry from the start (:data:`~pipeline.solvers.base.BUILTIN_SOLVERS`),
and its module is imported when it is first looked up (``SOLVERS[name]``, :func:`get_solver`):
a process that solves with one engine imports that one. Optional engines report through
``available()`` when their dependency is missing.
"""
from pipeline.solvers.base import (BUILTIN_SOLVERS, SOLVERS, STATUSES, CountResult, Solver, SolveResult,
                                   batch_solver_names, get_solver, register_batch_kernel, register_solver,
                                   solver_names)

__all__ = ["BUILTIN_SOLVERS", "SOLVERS", "STATUSES", "CountResult", "Solver", "SolveResult", "batch_solver_names",
           "get_solver", "register_batch_kernel", "register_solver", "solver_names"]
