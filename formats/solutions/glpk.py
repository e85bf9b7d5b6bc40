"""GLPK: ``glpsol -w`` (raw, positional) and ``glpsol -o`` (printable report).

Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.core.errors import FormatError, shortened

from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.solutions.common import (NUMBER, first_nonblank, infeasible, no_solution, parse_count, parse_float, parse_floats,
                     split_lines, truncated)


def _detect_glpk_raw(head: str) -> bool:
    for line in head.splitlines():
        if line.startswith("c ") or line == "c" or not line.strip():
            continue
        return bool(re.match(r"^s (mip|bas|ipt) \d+ \d+ ", line))
    return False


# 's' line status letters (GLPK 5.0 manual, glp_write_sol / glp_write_mip / glp_write_ipt)
# glpsol writes 'u' for a MIP when a limit (--tmlim, --memlim) ended it before any integer solution
_GLPK_MIP = {"o": "optimal", "f": "feasible", "n": "infeasible",
             "u": "undefined: no integer solution found, as when --tmlim or --memlim ends the search first"}
_GLPK_LP = {"o": "optimal", "f": "feasible", "i": "infeasible (intermediate)", "n": "infeasible", "u": "undefined"}


def _parse_glpk_raw(text: str, where: str) -> RawSolution:
    """``c`` comments, ``s mip m n stat obj`` (or ``s bas m n pst dst obj`` / ``s ipt m n stat obj``),
    one ``i`` line per row, one ``j`` line per column (model-file column order), ``e o f``."""
    lines = split_lines(text)
    s = next((line for line in lines if line.startswith("s ")), None)
    tok = s.split() if s is not None else []
    if len(tok) < 6 or not tok[2].isdigit() or not tok[3].isdigit():
        raise FormatError(f"{where}: no valid 's mip|bas|ipt ROWS COLS STATUS ... OBJ' line (glpsol -w)")
    kind, n = tok[1], parse_count(tok[3], where, "'s' line column count")
    letter = tok[4]
    table = _GLPK_MIP if kind == "mip" else _GLPK_LP
    status = table.get(letter, letter)
    objective = parse_float(tok[-1], where, "objective")
    if letter == "n":
        raise infeasible(where)
    if letter in ("u", "i"):
        raise no_solution(where, f"GLPK {kind} status {letter!r}, {status}")
    if not any(line.strip() == "e o f" for line in lines[-3:]):
        raise truncated(where, "no final 'e o f' line")
    # value field: j col val (mip) | j col stat prim dual (bas) | j col prim dual (ipt); rows' i lines alike
    field_at = {"mip": 2, "bas": 3, "ipt": 2}[kind]
    m = parse_count(tok[2], where, "'s' line row count")
    # the rows' values are not used (the columns carry the answer), but a file whose rows are
    # damaged is not one glpsol wrote, and its columns are not trusted either
    _numbered_values(lines, "i", "row", m, field_at, kind, where)
    values = _numbered_values(lines, "j", "column", n, field_at, kind, where)
    return RawSolution("positions", values, dense=True, status=status, objective=objective,
                       format="glpk_raw")


def _numbered_values(lines: list[str], letter: str, noun: str, count: int, field_at: int, kind: str,
                     where: str) -> np.ndarray:
    """The value fields of the ``letter`` lines (``i``: rows, ``j``: columns): as many as the 's'
    line announces, numbered 1..count in order, each holding a number; a damaged line is named by
    its line number."""
    numbered = [(k + 1, line.split()) for k, line in enumerate(lines) if line.startswith(f"{letter} ")]
    what = f"{noun} ('{letter}') lines"
    if len(numbered) < count:
        raise truncated(where, f"{len(numbered)} of the {count} {what} announced by the 's' line")
    if len(numbered) > count:   # a repeated or pasted line, not a cut file
        raise FormatError(f"{where}: {len(numbered)} {what}, more than the {count} the 's' line announces: a "
                          f"repeated or extra line")
    short = next((at for at, t in numbered if len(t) <= field_at), None)
    if short is not None:
        raise FormatError(f"{where}: line {short}: a {noun} ('{letter}') line of {len(lines[short - 1].split())} "
                          f"fields, {kind} needs {field_at + 1}")
    wrong = next((at for i, (at, t) in enumerate(numbered) if t[1] != str(i + 1)), None)
    if wrong is not None:
        raise FormatError(f"{where}: line {wrong}: {what} are not numbered 1..{count} in order")
    return parse_floats([t[field_at] for _, t in numbered], where, f"{noun} value", [at for at, _ in numbered])


def _detect_glpk_report(head: str) -> bool:
    first = first_nonblank(head, 5)
    return (len(first) >= 5 and first[0].startswith("Problem:") and first[1].startswith("Rows:")
            and first[2].startswith("Columns:") and any(line.startswith("Status:") for line in first))


def _parse_glpk_report(text: str, where: str) -> RawSolution:
    """Header (``Columns: n``, ``Status: INTEGER OPTIMAL``, ``Objective: name = v``), the rows
    table, then ``No. Column name [*|st] Activity Lower Upper [Marginal]``; a name longer than
    12 characters sits alone on its line and the numbers follow on the next one."""
    lines = split_lines(text)
    head = {}
    for line in lines[:8]:
        if ":" in line:
            key, _, val = line.partition(":")
            head[key.strip()] = val.strip()
    status = head.get("Status", "")
    up = status.upper()
    if "EMPTY" in up or up.startswith("INFEASIBLE (FINAL)") or up == "INFEASIBLE":
        raise infeasible(where)
    if "UNDEFINED" in up or "INTERMEDIATE" in up or "UNBOUNDED" in up:
        raise no_solution(where, status)
    m = re.search(rf"({NUMBER})\s*(?:\((?:MIN|MAX)imum\))?\s*$", head.get("Objective", ""), re.I)
    objective = float(m.group(1)) if m else None
    columns = head.get("Columns", "0").split()
    if not columns or not columns[0].isdigit():
        raise FormatError(f"{where}: 'Columns:' line holds no column count ({shortened(head.get('Columns', ''))!r})")
    n = parse_count(columns[0], where, "'Columns:' line")
    try:
        k = next(i for i, line in enumerate(lines) if line.lstrip().startswith("No. Column name"))
    except StopIteration:
        raise truncated(where, "no column table ('No. Column name')") from None
    skip = {"*", "B", "NL", "NU", "NF", "NS"}
    names, values = [], []
    pending = None
    for line in lines[k + 2:]:
        if not line.strip():
            break
        tok = line.split()
        if pending is None:
            if len(tok) < 2 or not tok[0].isdigit():
                break
            name, rest = tok[1], tok[2:]
            if not rest:  # long name: the numbers are on the next line
                pending = name
                continue
        else:
            name, rest, pending = pending, tok, None
        activity = next((t for t in rest if t not in skip), None)
        if activity is None:
            raise truncated(where, f"no activity for column {name}")
        names.append(name)
        values.append(activity)
    if len(names) < n or not any(line.strip() == "End of output" for line in lines[-3:]):
        raise truncated(where, f"{len(names)} of the {n} columns announced in the header, no 'End of output'"
                         if len(names) < n else "no 'End of output' line")
    return RawSolution("names", parse_floats(values, where, "activity"), names=np.array(names, dtype=str),
                       dense=True, status=status, objective=objective)


register_solution_format(SolutionFormat("glpk_raw", "glpsol -w / --write (positional)",
                                        _detect_glpk_raw, _parse_glpk_raw))
register_solution_format(SolutionFormat("glpk_report", "glpsol -o / --output (printable report)",
                                        _detect_glpk_report, _parse_glpk_report))
