"""HiGHS ``writeSolution(file, style)``: raw (0), sparse (4), pretty (1), old raw (-1).

Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.core.errors import clip, FormatError

from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.files import MAX_COUNT_DIGITS
from formats.solutions.common import (first_nonblank, infeasible, name_value_block, no_solution, parse_count,
                     parse_float, parse_floats, split_lines, truncated)

# Model-status strings HiGHS writes (HighsModelStatus -> modelStatusToString).
_HIGHS_INFEASIBLE = ("infeasible", "primal infeasible or unbounded")


def _highs_check_status(status: str, where: str) -> None:
    if status.strip().lower() in _HIGHS_INFEASIBLE:
        raise infeasible(where)


def _detect_highs_raw(head: str) -> bool:
    first = first_nonblank(head, 1)
    return bool(first) and first[0].strip() == "Model status" and not re.search(r"^# Columns -", head, re.M)


def _detect_highs_sparse(head: str) -> bool:
    first = first_nonblank(head, 1)
    return bool(first) and first[0].strip() == "Model status" and bool(re.search(r"^# Columns -\d", head, re.M))


def _parse_highs_raw(text: str, where: str) -> RawSolution:
    """``Model status`` / status / ``# Primal solution values`` / Feasible|Infeasible|None /
    ``Objective v`` / ``# Columns n`` then ``name value`` (raw) or ``# Columns -k`` then
    ``name value index`` for the k nonzeros (sparse)."""
    lines = split_lines(text)
    status = lines[1].strip() if len(lines) > 1 else ""
    if not status:
        raise truncated(where, "no model status after 'Model status'")
    _highs_check_status(status, where)
    try:
        k = next(i for i, line in enumerate(lines) if line.startswith("# Primal solution values"))
    except StopIteration:
        raise truncated(where, "no '# Primal solution values' section") from None
    primal = lines[k + 1].strip() if k + 1 < len(lines) else ""
    if primal == "None" and status == "Empty":   # a model of no columns (every cell given, reduced)
        return RawSolution("names", np.zeros(0), names=np.array([], dtype=str), dense=True, status=status,
                           format="highs_raw")
    if primal == "None":
        raise no_solution(where, f"{status}, no primal solution")
    if primal == "Infeasible":
        raise FormatError(f"{where}: solver reports no feasible solution "
                          f"(status: {status}, primal solution infeasible)")
    # Between the primal status and '# Columns' HiGHS writes 'key value' lines: 'Objective v'
    # always, and since 1.16 'Objective_bound v' and 'MIP_rel_gap v' too; keys we do not use
    # are skipped so a newer HiGHS adding another one still reads.
    objective = None
    i = k + 2
    while i < len(lines) and lines[i].strip() and not lines[i].startswith("#"):
        key, _, value = lines[i].strip().partition(" ")
        if key == "Objective":
            objective = parse_float(value.strip(), where, "objective")
        i += 1
    if i >= len(lines) or not lines[i].startswith("# Columns"):
        raise truncated(where, "no '# Columns' line")
    # '# Columns n' (raw), '# Columns -k' (sparse, HiGHS < 1.16), '# Columns -k sparse' (1.16+)
    fields = lines[i].split()
    if len(fields) < 3 or not re.fullmatch(rf"-?[0-9]{{1,{MAX_COUNT_DIGITS}}}", fields[2]):
        raise FormatError(f"{where}: '# Columns' line without a column count: {clip(lines[i], 60)!r}")
    count = int(fields[2])
    sparse = count < 0
    count = abs(count)
    # a sparse file ends after its columns; a raw one goes on with '# Rows' (not needed here)
    block = lines[i + 1:i + 1 + count]
    got = next((k for k, line in enumerate(block) if not line.strip() or line.startswith("#")), len(block))
    if got < count:
        raise truncated(where, f"{got} of the {count} column lines announced by '# Columns'")
    after = i + 1 + count                     # the count is exact: a further column line is not ignored
    if after < len(lines) and lines[after].strip() and not lines[after].startswith("#"):
        raise FormatError(f"{where}: line {after + 1}: a column line after the {count} announced by '# Columns'")
    names, values = name_value_block(lines, i + 1, i + 1 + count, where, name_col=0, value_col=1,
                                      min_tokens=3 if sparse else 2)
    return RawSolution("names", values, names=names, dense=not sparse, status=status, objective=objective,
                       format="highs_sparse" if sparse else "highs_raw")


def _detect_highs_pretty(head: str) -> bool:
    first = first_nonblank(head, 2)
    return len(first) == 2 and first[0].strip() == "Columns" and first[1].split()[:2] == ["Index", "Status"]


def _parse_highs_pretty(text: str, where: str) -> RawSolution:
    """Fixed-width tables ``Columns`` / ``Rows`` then ``Model status: s`` and ``Objective value: v``.

    Fields may be blank (status, dual, and primal when there is no solution), so values are cut
    at the header's column positions: ``Primal`` is right-aligned, ``Name`` left-aligned.
    """
    lines = split_lines(text)
    status_line = next((line for line in lines if line.startswith("Model status:")), None)
    if status_line is None:
        raise truncated(where, "no 'Model status:' line at the end")
    status = status_line.split(":", 1)[1].strip()
    _highs_check_status(status, where)
    obj_line = next((line for line in lines if line.startswith("Objective value:")), None)
    objective = parse_float(obj_line.split(":", 1)[1].strip(), where, "objective") if obj_line else None
    header = lines[1] if len(lines) > 1 else ""
    if not all(word in header for word in ("Primal", "Upper", "Name")):
        raise FormatError(f"{where}: line 2: expected the column table header (Index Status Lower Upper Primal "
                          f"Dual Name), found {clip(header.strip(), 60)!r}")
    p_end = header.index("Primal") + len("Primal")
    p_start = header.index("Upper") + len("Upper")
    n_start = header.index("Name")
    names, values, numbers = [], [], []
    for no in range(2, len(lines)):
        line = lines[no]
        if line.strip() == "Rows" or not line.strip():
            break
        for cut, column in ((p_start, "Primal"), (p_end, "Primal"), (n_start, "Name")):
            _check_cut(line, cut, column, f"{where}: line {no + 1}")
        names.append(line[n_start:].strip())
        values.append(line[p_start:p_end].strip())
        numbers.append(no + 1)
    if any(v == "" for v in values):
        raise no_solution(where, f"{status}, no primal values")
    return RawSolution("names", parse_floats(values, where, "value", numbers), names=np.array(names, dtype=str),
                       dense=True, status=status, objective=objective)


def _check_cut(line: str, cut: int, column: str, at: str) -> None:
    """Refuse a field that runs across the header's column boundary ``cut`` (a non-blank
    character on both sides): cutting it there would read part of a value (``0.5`` as ``0.``)."""
    if 0 < cut < len(line) and not line[cut - 1].isspace() and not line[cut].isspace():
        field = line[:cut].split()[-1] + line[cut:].split()[0]
        raise FormatError(f"{at}: {clip(field, 30)!r} runs across the {column} column's boundary at character "
                          f"{cut + 1} (misaligned with the header)")


_HIGHS_OLD_MARK = ": Number of columns and rows for primal or dual solution or basis"


def _detect_highs_old_raw(head: str) -> bool:
    first = first_nonblank(head, 1)
    return bool(first) and _HIGHS_OLD_MARK in first[0]


def _parse_highs_old_raw(text: str, where: str) -> RawSolution:
    """``n m : Number of columns ...``, ``T Primal solution``, ..., ``Columns`` then n values."""
    lines = split_lines(text)
    first = next((k for k, line in enumerate(lines) if line.strip()), len(lines))  # as detection: blanks skipped
    lines = lines[first:]
    head = lines[0].split() if lines else []
    if not head or not head[0].isdigit():
        raise FormatError(f"{where}: line {first + 1}: expected 'COLUMNS ROWS : Number of columns and rows ...'")
    n_cols = parse_count(head[0], where, f"line {first + 1}: column count")
    if len(lines) < 2 or not lines[1].startswith("T"):
        raise no_solution(where, "no primal solution")
    try:
        k = lines.index("Columns")
    except ValueError:
        raise truncated(where, "no 'Columns' section") from None
    tokens = [line.strip() for line in lines[k + 1:k + 1 + n_cols]]
    if len(tokens) < n_cols or not all(tokens):
        raise truncated(where, f"{sum(1 for t in tokens if t)} of the {n_cols} column values")
    after = first + k + 1 + n_cols            # 'Rows' (or the end) follows: not another value
    if k + 1 + n_cols < len(lines) and _is_number(lines[k + 1 + n_cols]):
        raise FormatError(f"{where}: line {after + 1}: a column value after the {n_cols} announced on the first line")
    return RawSolution("positions", parse_floats(tokens, where, "value"), dense=True)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


register_solution_format(SolutionFormat("highs_raw", "HiGHS writeSolution style 0 (raw)",
                                        _detect_highs_raw, _parse_highs_raw))
register_solution_format(SolutionFormat("highs_sparse", "HiGHS writeSolution style 4 (sparse, nonzeros)",
                                        _detect_highs_sparse, _parse_highs_raw))
register_solution_format(SolutionFormat("highs_pretty", "HiGHS writeSolution style 1 (pretty tables)",
                                        _detect_highs_pretty, _parse_highs_pretty))
register_solution_format(SolutionFormat("highs_old_raw", "HiGHS writeSolution style -1 (old raw, positional)",
                                        _detect_highs_old_raw, _parse_highs_old_raw))
