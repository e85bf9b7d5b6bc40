"""SCIP: ``write solution`` / ``writeBestSol``.

Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations




from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.solutions.common import first_nonblank, infeasible, name_value_block, no_solution, parse_float, split_lines, truncated


def _detect_scip(head: str) -> bool:
    first = first_nonblank(head, 2)
    return bool(first) and any(line.startswith(("solution status:", "objective value:", "no solution available"))
                               for line in first)


def _parse_scip(text: str, where: str) -> RawSolution:
    """``solution status: s`` (interactive shell only), ``objective value: v``, then
    ``name value (obj:c)`` for nonzero variables only (SCIP reader_sol: "Only nonzero values
    need to be listed"), or ``no solution available``."""
    lines = split_lines(text)
    status = None
    objective = None
    start = 0
    for start, line in enumerate(lines):  # the header lines come first  # noqa: B007 (start is read after the loop)
        s = line.strip()
        if s.startswith("solution status:"):
            status = s.split(":", 1)[1].strip()
        elif s.startswith("objective value:"):
            objective = parse_float(s.split(":", 1)[1].strip(), where, "objective")
        elif s == "no solution available":
            if status and "infeasible" in status.lower():
                raise infeasible(where)
            raise no_solution(where, status or "no solution available")
        elif s:
            break
    else:
        start = len(lines)
    if status and "infeasible" in status.lower():
        raise infeasible(where)
    if objective is None:
        raise truncated(where, "no 'objective value:' line")
    names, values = name_value_block(lines, start, len(lines), where, name_col=0, value_col=1, min_tokens=2)
    return RawSolution("names", values, names=names, dense=False, status=status, objective=objective)


register_solution_format(SolutionFormat("scip", "SCIP .sol (nonzeros)",
                                        _detect_scip, _parse_scip))
