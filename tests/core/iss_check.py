"""How an answer to an ISS collection entry is judged: one place for the suite
(tests/core/test_iss_collection.py) and ``make bench-iss`` (bench/iss_collection.py), so the two
never drift apart.

* :func:`solution_line` writes a grid as ISS writes a published solution.
* :func:`oracle_verdict` asks the independent CP-SAT oracle (tests/core/cpsat_oracle.py, each rule
  written from its meaning) about an answer the project verified; :func:`oracle_infeasible` about
  a puzzle the project calls infeasible.

A verdict is a dict with ``status`` (``right``, ``disputed`` or ``unconfirmed``) and ``why``. The
suite fails on ``disputed`` and skips on ``unconfirmed``; the bench counts ``unconfirmed`` as right
on verify alone and prints the why.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

#: What the oracle raises for a document it does not model or a search it could not finish.
ORACLE_ERRORS = (KeyError, ValueError, NotImplementedError, RuntimeError)


def _oracle():
    """The oracle module, or None without ortools."""
    if importlib.util.find_spec("ortools") is None:
        return None
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import cpsat_oracle

    return cpsat_oracle


def values_of(puzzle) -> list[int] | None:
    """The puzzle's value set as a list (``"0-8"`` -> ``[0, ..., 8]``), None for 1..N."""
    values = puzzle.to_document().get("values")
    if isinstance(values, str):
        low, high = (int(v) for v in values.split("-"))
        return list(range(low, high + 1))
    return values


def shown(grid, puzzle) -> np.ndarray:
    """The grid of digit indices as values."""
    values = values_of(puzzle)
    grid = np.asarray(grid)
    return grid if values is None else np.array(values)[grid - 1]


def solution_line(grid, puzzle) -> str:
    """The grid as ISS writes a solution: values row by row; when a value has two digits (1..10 on
    a 5x10, not 0..9) every cell is a letter, A for the first value."""
    digits = np.asarray(grid).ravel().tolist()
    values = values_of(puzzle)
    if max(values or [puzzle.n_values]) > 9:
        return "".join(chr(64 + d) for d in digits)
    return "".join(str(v) for v in (digits if values is None else [values[d - 1] for d in digits]))


def oracle_verdict(puzzle, grid, unique: bool | None, time_limit: float) -> dict:
    """Does the oracle accept ``grid`` (digit indices) and count to 2 as ``unique`` says?"""
    oracle = _oracle()
    if oracle is None:
        return {"status": "unconfirmed", "why": "verified; no CP-SAT oracle here (ortools)"}
    document = puzzle.to_document()
    try:
        if not oracle.holds(document, shown(grid, puzzle)):
            return {"status": "disputed", "why": "the CP-SAT oracle rejects the answer"}
    except ORACLE_ERRORS as e:
        return {"status": "unconfirmed", "why": f"verified; the oracle does not take it ({e})"[:300]}
    if unique is None:   # no claim for its count to check (the suite's MATHEMAGIC killers spent 3 s each on it)
        return {"status": "right", "why": "accepted by the oracle; the project did not say whether it is unique"}
    try:
        counted, _ = oracle.count(document, cap=2, time_limit=time_limit)
    except ORACLE_ERRORS as e:
        return {"status": "unconfirmed",
                "why": f"verified and accepted by the oracle; its count to 2 did not finish ({e})"[:300]}
    if counted != (1 if unique else 2):
        return {"status": "disputed",
                "why": f"the oracle counts {counted}, the project {'1' if unique else '2 or more'}"}
    return {"status": "right", "why": ""}


def oracle_infeasible(puzzle, time_limit: float) -> dict:
    """Does the oracle find no solution either, for a puzzle the project calls infeasible?"""
    oracle = _oracle()
    if oracle is None:
        return {"status": "unconfirmed", "why": "infeasible; no CP-SAT oracle here to confirm (ortools)"}
    try:
        counted, _ = oracle.count(puzzle.to_document(), cap=1, time_limit=time_limit)
    except ORACLE_ERRORS as e:
        return {"status": "unconfirmed", "why": f"infeasible; the oracle cannot confirm ({e})"[:300]}
    if counted:
        return {"status": "disputed", "why": "the project says infeasible, the CP-SAT oracle finds a solution"}
    return {"status": "right", "why": "no solution, as the CP-SAT oracle finds"}
