"""CBC: ``cbc model.mps solve solu out.txt``.

Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.core.errors import FormatError, shortened

from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.files import MAX_COUNT_DIGITS, is_count
from formats.solutions.common import (first_nonblank, infeasible, name_value_block, no_solution, parse_float,
                                     parse_floats, split_lines, time_limit_reached, truncated)

# "Optimal", "Stopped on time", "Stopped on time (no integer solution - continuous used)", ...;
# wrappers of CBC (python-mip's Model.write("x.sol")) write "Feasible solution - objective 0.0"
_CBC_FIRST = re.compile(r"^(?P<status>[A-Za-z][A-Za-z ()-]*?) - objective(?: value)?:? (?P<obj>\S+)\s*$")


def _detect_cbc(head: str) -> bool:
    first = first_nonblank(head, 1)
    return bool(first) and bool(_CBC_FIRST.match(first[0].strip()))


#: a column's name in our exports (x_i_j_k, x_I_J_p_q_n, a rule's aux_..., fixed MPS's C0000001):
#: rows are named otherwise (cell_1_1, cagesum_3, R0000001)
_COLUMN_NAME = re.compile(r"^(x(_[0-9]+)+|aux_.*|[Cc][0-9]+)$")


def _parse_cbc(text: str, where: str) -> RawSolution:
    """``<Status> - objective value v`` then ``[**] index name value reduced-cost`` lines.

    ``printingOptions normal`` (the default) prints only nonzero columns -- every column when the
    model has fewer than ~50 (seen: all 44 of a reduced 4x4, the 16 nonzeros of a 64-column one),
    absent ones still mean 0; ``all`` prints every row first and the index restarts at 0 for the
    columns; ``rows`` prints every row, then the nonzero columns (their index restarts wherever the
    first nonzero column is); ``**`` flags an infeasible entry. Lines carry no count, so a file cut exactly
    at a line end cannot be told from a complete one (a cut inside a line can).

    A stop before any integer point, ``Stopped on time (no integer solution - continuous used)``,
    still lists values: the LP relaxation's, never accepted. It raises "no solution", said as
    "time limit reached" when the stop was on time (``-sec``).
    """
    lines = split_lines(text)
    first = next((k for k, line in enumerate(lines) if line.strip()), None)  # detection skips blank lines too
    m = _CBC_FIRST.match(lines[first].strip()) if first is not None else None
    if m is None:
        raise FormatError(f"{where}: line {(first or 0) + 1}: expected '<status> - objective value <v>' (CBC solu)")
    if first:
        lines = lines[first:]
    status = m.group("status")
    objective = parse_float(m.group("obj"), where, "objective")
    low = status.lower()
    if "infeasible" in low:
        raise infeasible(where)
    if low.startswith(("unbounded", "status unknown", "linear relaxation unbounded")):
        raise no_solution(where, status)
    rows = [(no + 1, line) for no, line in enumerate(lines[1:], start=1) if line.strip()]
    # "(no integer solution - continuous used)": the values listed are the LP relaxation's
    no_integer = "no integer solution" in low
    if no_integer or (low.startswith("stopped") and (not rows or abs(objective) >= 1e50)):
        detail = status if no_integer else f"{status}, no integer solution"
        if low.startswith("stopped on time"):
            raise time_limit_reached(where, detail)
        raise no_solution(where, detail)
    entries = []
    head = rows[0][1].split() if rows else []
    width = len(head) - (head[:1] == ["**"])   # index name value reduced-cost: 4 on every line
    for k, (no, line) in enumerate(rows):
        tok = line.split()
        if tok and tok[0] == "**":
            tok = tok[1:]
        if len(tok) >= 3 and tok[0].isascii() and tok[0].isdigit() and not is_count(tok[0]):
            # a complete line whose index is only too long: say so, not "truncated" or "expected ..."
            raise FormatError(f"{where}: line {no}: index {shortened(tok[0])!r} is too large (more than "
                              f"{MAX_COUNT_DIGITS} digits): not a column's index")
        malformed = len(tok) < 3 or not is_count(tok[0])
        # a last line that is malformed, or shorter than the first (every line ends with the
        # reduced cost), was cut
        if k == len(rows) - 1 and (malformed or k and len(tok) < width):
            raise truncated(where, f"line {no} is incomplete ({shortened(line.strip(), 60)!r})")
        if malformed:
            raise FormatError(f"{where}: line {no}: expected 'index name value reduced-cost', "
                              f"found {shortened(line.strip(), 60)!r}")
        entries.append((int(tok[0]), tok[1], tok[2], no))
    # sections: the index restarts at 0 when the columns follow the rows; any other step back is
    # a repeated or misplaced line (taking it for the columns would drop the real ones)
    starts = [0] + [i for i in range(1, len(entries)) if entries[i][0] <= entries[i - 1][0]]
    for i in starts[1:]:
        # 'printingOptions all' and 'rows' list every row, then the columns ('rows': the nonzero
        # ones, so they may start past 0): a restart is the columns only when what came before
        # were rows; after a column it is a line a hand edit moved or repeated (taking it for
        # the columns would drop the ones above it)
        if len(starts) > 2 or any(_COLUMN_NAME.match(e[1]) for e in entries[:i]):
            raise FormatError(f"{where}: line {entries[i][3]}: index {entries[i][0]} after {entries[i - 1][0]}: "
                              "a repeated or misplaced line (only the columns after the rows restart)")
    cols = entries[starts[-1]:] if len(starts) == 2 else entries
    seen: dict[str, int] = {}
    for e in entries:                         # a name twice (also a row's name among the columns)
        if e[1] in seen:
            raise FormatError(f"{where}: line {e[3]}: {e[1]!r} listed twice (first on line {seen[e[1]]})")
        seen[e[1]] = e[3]
    values = parse_floats([e[2] for e in cols], where, "value", [e[3] for e in cols])
    return RawSolution("names", values, names=np.array([e[1] for e in cols], dtype=str), dense=False,
                       status=status, objective=objective)


register_solution_format(SolutionFormat("cbc", "CBC 'solu' output (nonzeros by default)",
                                        _detect_cbc, _parse_cbc))


#: ``printingOptions csv``'s header line
_CBC_CSV_HEADER = "name,solution"


def _detect_cbc_csv(head: str) -> bool:
    first = first_nonblank(head, 1)
    return bool(first) and first[0].strip().lower() == _CBC_CSV_HEADER


def _parse_cbc_csv(text: str, where: str) -> RawSolution:
    """``cbc ... printingOptions csv solution FILE``: a ``name,solution`` header, then one
    ``name,value`` line per column.

    The layout carries no status and no objective: CBC writes the table whatever the run found
    (an infeasible model's too), so the values are read as they are and the check after decides
    (an answer that breaks a row is "invalid", never taken for a solution). Our names hold no
    comma or space, so a comma is a field separator and the rows go through the ``name value``
    reader, which names a bad or cut line.
    """
    lines = split_lines(text)
    header = next((k for k, line in enumerate(lines) if line.strip()), None)
    if header is None or lines[header].strip().lower() != _CBC_CSV_HEADER:   # a format named, not detected
        raise FormatError(f"{where}: line {(header or 0) + 1}: expected the header '{_CBC_CSV_HEADER}' "
                          "(CBC printingOptions csv)")
    rows = [line.replace(",", " ") for line in lines]
    names, values = name_value_block(rows, header + 1, len(rows), where, name_col=0, value_col=1, min_tokens=2,
                                     max_tokens=2)
    return RawSolution("names", values, names=names, dense=False)


register_solution_format(SolutionFormat("cbc_csv", "CBC 'printingOptions csv' output (no status line)",
                                        _detect_cbc_csv, _parse_cbc_csv))
