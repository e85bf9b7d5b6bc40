"""Gurobi ``.sol`` (and any plain ``name value`` list).

Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

import re



from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.solutions.common import NUMBER_RE, name_value_block, parse_float, split_lines


def _detect_gurobi(head: str) -> bool:
    rows = [line for line in head.splitlines()[:50] if line.strip()]
    if not rows:
        return False
    if rows[0].startswith("#") and re.search(r"solution|objective", rows[0], re.I):
        return True
    body = [line.split() for line in rows if not line.startswith("#")][:20]
    complete = body[:-1] if len(body) > 1 else body  # the last head line may be cut mid-way
    return bool(complete) and all(len(t) == 2 and not NUMBER_RE.match(t[0]) and NUMBER_RE.match(t[1])
                                  for t in complete)


def _parse_gurobi(text: str, where: str) -> RawSolution:
    """``# Solution for model m`` / ``# Objective value = v`` comments, then one ``name value``
    line per variable: "The file contains one line for each variable in the model" (Gurobi
    reference manual, SOL format), so a missing variable is an error."""
    objective = None
    lines = split_lines(text)
    start = 0
    for start, line in enumerate(lines):  # the comment header  # noqa: B007 (start is read after the loop)
        s = line.strip()
        if s.startswith("#"):
            m = re.match(r"#\s*Objective value\s*=\s*(\S+)", s, re.I)
            if m:
                objective = parse_float(m.group(1), where, "objective")
        elif s:
            break
    else:
        start = len(lines)
    names, values = name_value_block(lines, start, len(lines), where, name_col=0, value_col=1, min_tokens=2,
                                      comment="#", max_tokens=2)   # "one line for each variable": name value
    return RawSolution("names", values, names=names, dense=True, objective=objective)


register_solution_format(SolutionFormat("gurobi", "Gurobi .sol / plain 'name value' list (every variable)",
                                        _detect_gurobi, _parse_gurobi))
