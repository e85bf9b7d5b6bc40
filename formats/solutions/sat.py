"""Solution files of SAT and pseudo-Boolean solvers, for the CNF/OPB exports.

Registered with :func:`formats.solutions.register_solution_format` (first: their signatures are
the most specific) and detected by content:

* ``sat_competition``: SAT-competition output (``s SATISFIABLE`` then ``v 1 -2 ... 0`` lines,
  wrapped over as many lines as the solver likes), written by cadical, picosat, cryptominisat,
  clasp and sat4j on a CNF file; the same layout with ``v x1 -x2 ...`` and ``s OPTIMUM FOUND``
  is the PB-competition output of minisat+, clasp and sat4j on an OPB file (``pb_competition``);
* ``minisat``: minisat's result file (``SAT`` then one line of literals ending in 0, ``UNSAT``
  or ``INDET``);
* ``scip_numbered``: SCIP's ``.sol`` for a CNF or OPB model (variables ``x<v>``, nonzeros only).

Literal ``v`` is variable ``v`` = convention position + 1 (``docs/conventions.md``, CNF/OPB);
numbers beyond ``N^3`` are auxiliary variables of the at-most-one encoding and ignored. The
parsed values go to the common mapping as ``numbered`` positions (only the export's columns
are read; ``reduce`` clue variables are set to 1). ``UNSATISFIABLE`` raises
:class:`~pipeline.core.errors.NoSolutionReported` with status ``infeasible``, ``UNKNOWN`` /
``INDETERMINATE`` / ``INDET`` with status ``time_limit``.
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.core.errors import FormatError, NoSolutionReported

from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.solutions.common import parse_float

_S_LINE = re.compile(r"^s\s+(SATISFIABLE|UNSATISFIABLE|UNKNOWN|INDETERMINATE|OPTIMUM FOUND|UNSUPPORTED)\s*$",
                     re.MULTILINE)
_V_LINE = re.compile(r"^v\s+-?x?\d+", re.MULTILINE)  # clasp prints 's' AFTER the v lines
_SCIP_X = re.compile(r"^x\d+\s+\S+", re.MULTILINE)
_SCIP_HEAD = re.compile(r"^(solution status:|objective value:|no solution available)", re.MULTILINE)


def _no_answer(where: str, status: str) -> NoSolutionReported:
    if status.startswith("UNSAT"):
        return NoSolutionReported(f"{where}: solver reports infeasible (status: {status})", "infeasible")
    if status in ("UNKNOWN", "INDETERMINATE", "INDET"):
        return NoSolutionReported(f"{where}: solver reports no solution: time limit reached (status: {status})",
                                  "time_limit")
    return NoSolutionReported(f"{where}: solver reports no solution (status: {status})", "no_solution")


def values_from_literals(numbers: np.ndarray, signs: np.ndarray, where: str) -> np.ndarray:
    """Values over variables ``1..max`` from literal numbers and signs (NaN where unassigned).

    Parameters
    ----------
    numbers : numpy.ndarray
        Variable numbers.
    signs : numpy.ndarray
        Their signs (true: the variable is 1).
    where : str
        The file, named in the message.

    Raises
    ------
    FormatError
        A variable assigned twice.

    Examples
    --------
    >>> values_from_literals(np.array([1, 3]), np.array([1, -1]), "f").tolist()
    [1.0, nan, 0.0]
    """
    numbers = np.asarray(numbers, dtype=np.int64)
    values = np.full(int(numbers.max(initial=0)), np.nan)
    if numbers.size:
        uniq, counts = np.unique(numbers, return_counts=True)
        if (counts > 1).any():
            raise FormatError(f"{where}: variable {int(uniq[counts > 1][0])} is assigned twice")
        values[numbers - 1] = (np.asarray(signs) > 0).astype(float)
    return values


def _literal_tokens(words: list[str], where: str, named: bool) -> tuple[np.ndarray, np.ndarray]:
    """Signed literals from ``v`` line words: integers (CNF) or ``[-]x<int>`` (OPB)."""
    if not words:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    arr = np.array(words, dtype=str)
    neg = np.char.startswith(arr, "-")
    body = np.where(neg, np.char.lstrip(arr, "-"), arr)
    if named:
        if not np.char.startswith(body, "x").all():
            bad = arr[~np.char.startswith(body, "x")][0]
            raise FormatError(f"{where}: literal {str(bad)!r} is not x<v> or -x<v>")
        body = np.char.lstrip(body, "x")
    ok = np.char.isdigit(body) & (np.char.str_len(body) <= 18)  # 18 digits: no int64 overflow
    if not ok.all():
        raise FormatError(f"{where}: literal {str(arr[~ok][0])!r} is not a variable number")
    return body.astype(np.int64), np.where(neg, -1, 1)


# ----------------------------------------------------------------------------------------------
# SAT / PB competition output (cadical, picosat, cryptominisat, clasp, sat4j, minisat+)
# ----------------------------------------------------------------------------------------------
def _detect_competition(head: str) -> bool:
    return bool(_S_LINE.search(head) or _V_LINE.search(head))


def _parse_competition(text: str, where: str) -> RawSolution:
    """``s STATUS`` and ``v`` lines; ``c`` comments and ``o`` objective lines ignored (the last
    ``o`` line is the objective). A CNF answer ends with literal 0; an OPB one names ``x<v>``."""
    status, words, objective = None, [], None
    for line in text.splitlines():
        if not line or line[0] == "c":
            continue
        if line[0] == "s":
            status = line[1:].strip()
        elif line[0] == "v":
            words.extend(line[1:].split())
        elif line[0] == "o":
            parts = line.split()
            if len(parts) == 2:
                try:
                    objective = float(parts[1])
                except ValueError:
                    raise FormatError(f"{where}: objective line {line!r} is not a number") from None
    if status is None:
        raise FormatError(f"{where}: no 's <status>' line")
    if status not in ("SATISFIABLE", "OPTIMUM FOUND"):
        raise _no_answer(where, status)
    named = any(w.lstrip("-").startswith("x") for w in words[:4])
    if not named:
        if not words or words[-1] != "0":
            raise FormatError(f"{where}: truncated: the 'v' lines do not end with 0")
        words = words[:-1]
    numbers, signs = _literal_tokens(words, where, named)
    if numbers.size == 0:
        raise FormatError(f"{where}: truncated: status {status} but no 'v' literals")
    return RawSolution("positions", values_from_literals(numbers, signs, where), status=status, objective=objective,
                       numbered=True, format="pb_competition" if named else "sat_competition")


# ----------------------------------------------------------------------------------------------
# minisat's result file: SAT / UNSAT / INDET, then the literals
# ----------------------------------------------------------------------------------------------
def _detect_minisat(head: str) -> bool:
    first = head.lstrip().split("\n", 1)[0].strip()
    return first in ("SAT", "UNSAT", "INDET")


def _parse_minisat(text: str, where: str) -> RawSolution:
    lines = text.strip().split("\n", 1)
    status = lines[0].strip()
    if status != "SAT":
        raise _no_answer(where, status)
    words = lines[1].split() if len(lines) > 1 else []
    if not words or words[-1] != "0":
        raise FormatError(f"{where}: truncated: the literal line does not end with 0")
    numbers, signs = _literal_tokens(words[:-1], where, named=False)
    return RawSolution("positions", values_from_literals(numbers, signs, where), status=status, numbered=True)


# ----------------------------------------------------------------------------------------------
# SCIP .sol of a CNF/OPB model: `x<v> value (obj:c)`, nonzeros only
# ----------------------------------------------------------------------------------------------
def _detect_scip_numbered(head: str) -> bool:
    # "no solution available" files name no variable: the MIP reader ("scip") handles them
    return bool(_SCIP_HEAD.search(head)) and bool(_SCIP_X.search(head))


def _parse_scip_numbered(text: str, where: str) -> RawSolution:
    status, objective = None, None
    numbers, values = [], []
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("solution status:"):
            status = s.split(":", 1)[1].strip()
        elif s.startswith("objective value:"):
            objective = parse_float(s.split(":", 1)[1].strip(), where, f"line {no}: objective")
        elif s == "no solution available":
            low = (status or "").lower()
            if "infeasible" in low:
                raise NoSolutionReported(f"{where}: solver reports infeasible (status: {status})", "infeasible")
            if "limit" in low:
                raise NoSolutionReported(f"{where}: solver reports no solution: time limit reached "
                                         f"(status: {status})", "time_limit")
            raise NoSolutionReported(f"{where}: solver reports no solution (status: {status})", "no_solution")
        else:
            tok = s.split()
            if len(tok) < 2 or not tok[0].startswith("x") or not tok[0][1:].isdigit():
                raise FormatError(f"{where}: line {no}: expected 'x<v> value', found {s[:60]!r}")
            try:
                values.append(float(tok[1]))
            except ValueError:
                raise FormatError(f"{where}: line {no}: {tok[1]!r} is not a number") from None
            numbers.append(int(tok[0][1:]))
    if status and "infeasible" in status.lower():
        raise NoSolutionReported(f"{where}: solver reports infeasible (status: {status})", "infeasible")
    if objective is None:
        raise FormatError(f"{where}: truncated: no 'objective value:' line")
    number = np.asarray(numbers, dtype=np.int64)
    full = np.zeros(int(number.max(initial=0)))  # nonzeros only: absent = 0
    if number.size:
        uniq, counts = np.unique(number, return_counts=True)
        if (counts > 1).any():
            raise FormatError(f"{where}: variable x{int(uniq[counts > 1][0])} listed twice")
        full[number - 1] = values
    return RawSolution("positions", full, dense=False, status=status, objective=objective, numbered=True)


register_solution_format(SolutionFormat("sat_competition", "SAT/PB-competition output ('s ...', 'v ...')",
                                        _detect_competition, _parse_competition))
register_solution_format(SolutionFormat("minisat", "minisat result file (SAT/UNSAT/INDET + literals)",
                                        _detect_minisat, _parse_minisat))
register_solution_format(SolutionFormat("scip_numbered", "SCIP .sol of a CNF/OPB model (x<v>, nonzeros)",
                                        _detect_scip_numbered, _parse_scip_numbered))
