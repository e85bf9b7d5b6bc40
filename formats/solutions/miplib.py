"""MIPLIB solution checker files: ``=obj= v`` then ``name value`` (nonzeros), ``=infeas=``, or
``=unkn=`` (the solver stopped without a solution and without proving there is none).

Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

from pipeline.core.errors import FormatError

from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.solutions.common import first_nonblank, infeasible, name_value_block, no_solution, parse_float, split_lines

#: the first token of each kind of MIPLIB solution file
_STATUS_TOKENS = ("=obj=", "=infeas=", "=unkn=")


def _detect_miplib(head: str) -> bool:
    first = first_nonblank(head, 1)
    return bool(first) and first[0].split()[0] in _STATUS_TOKENS


def _parse_miplib(text: str, where: str) -> RawSolution:
    lines = split_lines(text)
    k = next((i for i, line in enumerate(lines) if line.strip()), None)
    if k is None:
        raise FormatError(f"{where}: empty file")
    tok = lines[k].split()
    if tok[0] == "=infeas=":
        raise infeasible(where)
    if tok[0] == "=unkn=":
        raise no_solution(where, "=unkn= (stopped without a solution)")
    objective = parse_float(tok[1], where, "objective") if len(tok) > 1 else None
    names, values = name_value_block(lines, k + 1, len(lines), where, name_col=0, value_col=1, min_tokens=2)
    return RawSolution("names", values, names=names, dense=False, objective=objective)


register_solution_format(SolutionFormat("miplib", "MIPLIB =obj= solution (nonzeros)",
                                        _detect_miplib, _parse_miplib))
