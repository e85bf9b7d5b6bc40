"""Xpress ASCII solution (``.slx``).

Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

import re



from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.solutions.common import first_nonblank, name_value_rows, split_lines, truncated


_SLX_C = re.compile(r"^\s*C\s+\S+\s+\S+\s*$")


def _detect_slx(head: str) -> bool:
    lines = first_nonblank(head, 3)
    return (len(lines) >= 2 and lines[0].startswith("NAME") and bool(_SLX_C.match(lines[1]))
            and not re.search(r"^(ROWS|COLUMNS)\s*$", head, re.M))


def _parse_slx(text: str, where: str) -> RawSolution:
    """``NAME <problem>``, one `` C <column> <value>`` line per column (other line types, for
    rows or duals of LP solutions, are skipped), ``ENDATA``. Read as listing every column: if a
    real Xpress file ever lists only nonzeros it is refused loudly (missing variables), never
    completed by a guess."""
    lines = split_lines(text)
    if not any(line.strip() == "ENDATA" for line in lines[-3:]):
        raise truncated(where, "no final 'ENDATA' line")
    rows = [(no, line) for no, line in enumerate(lines, start=1) if line.lstrip().startswith("C ")]
    names, values = name_value_rows(rows, where, name_col=1, value_col=2, min_tokens=3)
    return RawSolution("names", values, names=names, dense=True)


register_solution_format(SolutionFormat("xpress_slx", "Xpress ASCII solution .slx",
                                        _detect_slx, _parse_slx))
