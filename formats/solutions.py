"""Solution files of external solvers -> the full 0/1 vector of an export's convention.

:func:`read_solution` detects the format BY CONTENT (the extension says nothing: ``.sol`` is
written by HiGHS, SCIP, Gurobi and CPLEX in four different layouts), parses it, and maps the
answer onto all ``N^3`` positions of the manifest's convention:

* name-based files map BY NAME (``x_i_j_k`` / ``x_I_J_p_q_n`` through the conventions module,
  or the short column names ``C0000123`` of fixed MPS and ``c123`` of unnamed HiGHS models,
  meaning 0-based solver column 123 of the export), never by the order a solver lists them in;
* positional files (GLPK ``-w``, HiGHS old raw, one-value-per-entry CSV vectors) are over the
  export's columns; for ``reduce`` exports they are expanded through the kept-column map and
  the clue variables are set to 1;
* MATLAB ``sudoku.csv`` grids go through :func:`pipeline.decode.vector_from_grid`.

Whether an absent variable means 0 is the FORMAT's rule, not a guess: SCIP, CBC (default
``printingOptions normal``), HiGHS sparse, MIPLIB ``=obj=`` files and CPLEX files written at
``writeLevel`` 3/4 list only nonzeros; every other format lists every column, and a missing
one is an error. Every problem is a one-line :class:`FormatError` naming the file.

New solvers plug in with :func:`register_solution_format`; ``SOLUTION_FORMATS`` is the registry
(name -> detect(head_text) -> bool, parse(text, where) -> :class:`RawSolution`), tried in order.
"""
from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.build import full_vector_of
from pipeline.conventions import Convention
from pipeline.decode import INTEGRALITY_TOL, grid_from_vector, vector_from_grid
from pipeline.errors import FormatError, NoSolutionReported
from pipeline.manifest import Manifest, load_manifest, manifest_from_dict, model_metadata
from pipeline.puzzle import default_box

from .base import open_text

HEAD_CHARS = 1 << 16  # detection looks at the first 64 KiB only
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|infinity|nan)"
_NUMBER_RE = re.compile(rf"^(?:{_NUMBER})$", re.IGNORECASE)


# ----------------------------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------------------------
@dataclass
class SolutionVector:
    """A solver's answer over all ``N^3`` positions of ``convention`` (exactly 0.0 or 1.0)."""

    values: np.ndarray
    format: str
    status: str | None
    objective: float | None
    convention: Convention
    path: Path | None = None

    def grid(self) -> np.ndarray:
        """The N x N grid of this answer (refuses a cell holding several digits)."""
        return grid_from_vector(self.values, self.convention, where=str(self.path or "solution"))


@dataclass
class RawSolution:
    """What a parser found, before mapping: names+values, positional values, or a grid.

    ``dense`` says whether the format lists every column (absent = error) or only nonzeros
    (absent = 0). ``kind`` is ``names``, ``positions`` (solver-column order of the exported
    model; ``full_ok`` also accepts all ``N^3`` values) or ``grid``.
    """

    kind: str
    values: np.ndarray
    names: np.ndarray | None = None
    grid: np.ndarray | None = None
    dense: bool = True
    status: str | None = None
    objective: float | None = None
    full_ok: bool = False
    format: str | None = None  # set when one parser serves several layouts
    # CNF/OPB numbering (formats/sat_solutions.py): values[k] is variable k + 1 = position k, NaN
    # where the solver assigned none; entries beyond N^3 are auxiliaries; only exported columns count
    numbered: bool = False


@dataclass(frozen=True)
class SolutionFormat:
    """A registered solution-file reader: ``detect(head_text)`` and ``parse(text, where)``."""

    name: str
    description: str
    detect: Callable[[str], bool]
    parse: Callable[[str, str], RawSolution]


SOLUTION_FORMATS: dict[str, SolutionFormat] = {}


def register_solution_format(fmt: SolutionFormat, *, before: str | None = None) -> SolutionFormat:
    """Add a reader; detection tries formats in registration order (``before`` to go earlier)."""
    if before is None or before not in SOLUTION_FORMATS:
        SOLUTION_FORMATS[fmt.name] = fmt
        return fmt
    items = [(k, v) for k, v in SOLUTION_FORMATS.items() if k != fmt.name]
    SOLUTION_FORMATS.clear()
    for k, v in items:
        if k == before:
            SOLUTION_FORMATS[fmt.name] = fmt
        SOLUTION_FORMATS[k] = v
    return fmt


# ----------------------------------------------------------------------------------------------
# small helpers shared by the parsers
# ----------------------------------------------------------------------------------------------
def _infeasible(where: str) -> NoSolutionReported:
    return NoSolutionReported(f"{where}: solver reports infeasible", "infeasible")


def _no_solution(where: str, status: str) -> NoSolutionReported:
    return NoSolutionReported(f"{where}: solver reports no solution (status: {status})", "no_solution")


def _time_limit(where: str, status: str) -> NoSolutionReported:
    """No solution because the solver's time limit stopped it."""
    return NoSolutionReported(f"{where}: solver reports no solution: time limit reached (status: {status})",
                              "time_limit")


def _truncated(where: str, detail: str) -> FormatError:
    return FormatError(f"{where}: truncated: {detail}")


def _float(token: str, where: str, what: str) -> float:
    try:
        return float(token)
    except ValueError:
        raise FormatError(f"{where}: {what}: {token!r} is not a number") from None


def _floats(tokens: list[str], where: str, what: str, lines: list[int] | None = None) -> np.ndarray:
    try:
        return np.array(tokens, dtype=float)
    except ValueError:
        for k, t in enumerate(tokens):
            if not _NUMBER_RE.match(t):
                at = f"line {lines[k]}" if lines else what
                raise FormatError(f"{where}: {at}: {t!r} is not a number") from None
        raise FormatError(f"{where}: {what}: values are not all numbers") from None


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _nonblank(head: str, k: int = 5) -> list[str]:
    out = []
    for line in head.splitlines():
        if line.strip():
            out.append(line)
            if len(out) == k:
                break
    return out


def _name_value_table(body: str, name_col: int, value_col: int, min_tokens: int,
                      comment: str | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """Vectorised fast path (pandas' C parser) for well-formed rows; None sends the rows to the
    line-by-line reader, which names the bad line."""
    try:
        table = pd.read_csv(io.StringIO(body), sep=r"\s+", header=None, dtype=str, quoting=csv.QUOTE_NONE,
                            keep_default_na=False, na_values=[], comment=comment, engine="c")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None
    if table.shape[1] < min_tokens or (table.iloc[:, :min_tokens] == "").any().any():
        return None  # a short row: the loop reports it
    try:
        values = table[value_col].to_numpy().astype(float)
    except ValueError:
        return None
    return table[name_col].to_numpy(), values


def _name_value_rows(rows: list[tuple[int, str]], where: str, *, name_col: int, value_col: int,
                     min_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """Names and values from ``(line number, line)`` rows; a short LAST row means truncation."""
    if len(rows) > 256:
        fast = _name_value_table("\n".join(line for _, line in rows), name_col, value_col, min_tokens)
        if fast is not None:
            return fast
    return _name_value_rows_slow(rows, where, name_col=name_col, value_col=value_col, min_tokens=min_tokens)


def _name_value_rows_slow(rows: list[tuple[int, str]], where: str, *, name_col: int, value_col: int,
                          min_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    names, values, numbers = [], [], []
    for k, (no, line) in enumerate(rows):
        tok = line.split()
        if len(tok) < min_tokens:
            if k == len(rows) - 1:
                raise _truncated(where, f"line {no} is incomplete ({line.strip()!r})")
            raise FormatError(f"{where}: line {no}: expected {min_tokens} fields, found {line.strip()!r}")
        names.append(tok[name_col])
        values.append(tok[value_col])
        numbers.append(no)
    return np.array(names, dtype=str), _floats(values, where, "value", numbers)


def _name_value_block(lines: list[str], start: int, stop: int, where: str, *, name_col: int, value_col: int,
                      min_tokens: int, comment: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``lines[start:stop]`` (blank lines, and ``comment`` lines, skipped)."""
    block = lines[start:stop]
    if len(block) > 256:
        fast = _name_value_table("\n".join(block), name_col, value_col, min_tokens, comment)
        if fast is not None:
            return fast
    rows = [(start + k + 1, line) for k, line in enumerate(block)
            if line.strip() and not (comment and line.lstrip().startswith(comment))]
    return _name_value_rows_slow(rows, where, name_col=name_col, value_col=value_col, min_tokens=min_tokens)


# ----------------------------------------------------------------------------------------------
# HiGHS: writeSolution(file, style) -- raw (0), sparse (4), pretty (1), old raw (-1)
# ----------------------------------------------------------------------------------------------
# Model-status strings HiGHS writes (HighsModelStatus -> modelStatusToString).
_HIGHS_INFEASIBLE = ("infeasible", "primal infeasible or unbounded")


def _highs_check_status(status: str, where: str) -> None:
    if status.strip().lower() in _HIGHS_INFEASIBLE:
        raise _infeasible(where)


def _detect_highs_raw(head: str) -> bool:
    first = _nonblank(head, 1)
    return bool(first) and first[0].strip() == "Model status" and not re.search(r"^# Columns -", head, re.M)


def _detect_highs_sparse(head: str) -> bool:
    first = _nonblank(head, 1)
    return bool(first) and first[0].strip() == "Model status" and bool(re.search(r"^# Columns -\d", head, re.M))


def _parse_highs_raw(text: str, where: str) -> RawSolution:
    """``Model status`` / status / ``# Primal solution values`` / Feasible|Infeasible|None /
    ``Objective v`` / ``# Columns n`` then ``name value`` (raw) or ``# Columns -k`` then
    ``name value index`` for the k nonzeros (sparse)."""
    lines = _lines(text)
    status = lines[1].strip() if len(lines) > 1 else ""
    if not status:
        raise _truncated(where, "no model status after 'Model status'")
    _highs_check_status(status, where)
    try:
        k = next(i for i, line in enumerate(lines) if line.startswith("# Primal solution values"))
    except StopIteration:
        raise _truncated(where, "no '# Primal solution values' section") from None
    primal = lines[k + 1].strip() if k + 1 < len(lines) else ""
    if primal == "None":
        raise _no_solution(where, f"{status}, no primal solution")
    if primal == "Infeasible":
        raise FormatError(f"{where}: solver reports no feasible solution "
                          f"(status: {status}, primal solution infeasible)")
    objective = None
    i = k + 2
    if i < len(lines) and lines[i].startswith("Objective"):
        objective = _float(lines[i].split()[-1], where, "objective")
        i += 1
    if i >= len(lines) or not lines[i].startswith("# Columns"):
        raise _truncated(where, "no '# Columns' line")
    count = int(lines[i].split()[-1])
    sparse = count < 0
    count = abs(count)
    # a sparse file ends after its columns; a raw one goes on with '# Rows' (not needed here)
    block = lines[i + 1:i + 1 + count]
    got = next((k for k, line in enumerate(block) if not line.strip() or line.startswith("#")), len(block))
    if got < count:
        raise _truncated(where, f"{got} of the {count} column lines announced by '# Columns'")
    names, values = _name_value_block(lines, i + 1, i + 1 + count, where, name_col=0, value_col=1,
                                      min_tokens=3 if sparse else 2)
    return RawSolution("names", values, names=names, dense=not sparse, status=status, objective=objective,
                       format="highs_sparse" if sparse else "highs_raw")


def _detect_highs_pretty(head: str) -> bool:
    first = _nonblank(head, 2)
    return len(first) == 2 and first[0].strip() == "Columns" and first[1].split()[:2] == ["Index", "Status"]


def _parse_highs_pretty(text: str, where: str) -> RawSolution:
    """Fixed-width tables ``Columns`` / ``Rows`` then ``Model status: s`` and ``Objective value: v``.

    Fields may be blank (status, dual, and primal when there is no solution), so values are cut
    at the header's column positions: ``Primal`` is right-aligned, ``Name`` left-aligned.
    """
    lines = _lines(text)
    status_line = next((line for line in lines if line.startswith("Model status:")), None)
    if status_line is None:
        raise _truncated(where, "no 'Model status:' line at the end")
    status = status_line.split(":", 1)[1].strip()
    _highs_check_status(status, where)
    obj_line = next((line for line in lines if line.startswith("Objective value:")), None)
    objective = _float(obj_line.split(":", 1)[1].strip(), where, "objective") if obj_line else None
    header = lines[1]
    p_end = header.index("Primal") + len("Primal")
    p_start = header.index("Upper") + len("Upper")
    n_start = header.index("Name")
    names, values, numbers = [], [], []
    for no in range(2, len(lines)):
        line = lines[no]
        if line.strip() == "Rows" or not line.strip():
            break
        names.append(line[n_start:].strip())
        values.append(line[p_start:p_end].strip())
        numbers.append(no + 1)
    if any(v == "" for v in values):
        raise _no_solution(where, f"{status}, no primal values")
    return RawSolution("names", _floats(values, where, "value", numbers), names=np.array(names, dtype=str),
                       dense=True, status=status, objective=objective)


_HIGHS_OLD_MARK = ": Number of columns and rows for primal or dual solution or basis"


def _detect_highs_old_raw(head: str) -> bool:
    first = _nonblank(head, 1)
    return bool(first) and _HIGHS_OLD_MARK in first[0]


def _parse_highs_old_raw(text: str, where: str) -> RawSolution:
    """``n m : Number of columns ...``, ``T Primal solution``, ..., ``Columns`` then n values."""
    lines = _lines(text)
    n_cols = int(lines[0].split()[0])
    if len(lines) < 2 or not lines[1].startswith("T"):
        raise _no_solution(where, "no primal solution")
    try:
        k = lines.index("Columns")
    except ValueError:
        raise _truncated(where, "no 'Columns' section") from None
    tokens = [line.strip() for line in lines[k + 1:k + 1 + n_cols]]
    if len(tokens) < n_cols or not all(tokens):
        raise _truncated(where, f"{sum(1 for t in tokens if t)} of the {n_cols} column values")
    return RawSolution("positions", _floats(tokens, where, "value"), dense=True)


# ----------------------------------------------------------------------------------------------
# GLPK: glpsol -w (raw, positional) and -o (printable report)
# ----------------------------------------------------------------------------------------------
def _detect_glpk_raw(head: str) -> bool:
    for line in head.splitlines():
        if line.startswith("c ") or line == "c" or not line.strip():
            continue
        return bool(re.match(r"^s (mip|bas|ipt) \d+ \d+ ", line))
    return False


# 's' line status letters (GLPK 5.0 manual, glp_write_sol / glp_write_mip / glp_write_ipt)
_GLPK_MIP = {"o": "optimal", "f": "feasible", "n": "infeasible", "u": "undefined"}
_GLPK_LP = {"o": "optimal", "f": "feasible", "i": "infeasible (intermediate)", "n": "infeasible", "u": "undefined"}


def _parse_glpk_raw(text: str, where: str) -> RawSolution:
    """``c`` comments, ``s mip m n stat obj`` (or ``s bas m n pst dst obj`` / ``s ipt m n stat obj``),
    one ``i`` line per row, one ``j`` line per column (model-file column order), ``e o f``."""
    lines = _lines(text)
    s = next((line for line in lines if line.startswith("s ")), None)
    tok = s.split()
    kind, n = tok[1], int(tok[3])
    letter = tok[4]
    table = _GLPK_MIP if kind == "mip" else _GLPK_LP
    status = table.get(letter, letter)
    objective = _float(tok[-1], where, "objective")
    if letter == "n":
        raise _infeasible(where)
    if letter in ("u", "i"):
        raise _no_solution(where, f"GLPK {kind} status {letter!r}, {status}")
    if not any(line.strip() == "e o f" for line in lines[-3:]):
        raise _truncated(where, "no final 'e o f' line")
    # value field: j col val (mip) | j col stat prim dual (bas) | j col prim dual (ipt)
    field_at = {"mip": 2, "bas": 3, "ipt": 2}[kind]
    js = [line.split() for line in lines if line.startswith("j ")]
    if len(js) != n:
        raise _truncated(where, f"{len(js)} of the {n} column ('j') lines announced by the 's' line")
    index = np.array([int(t[1]) for t in js])
    if not np.array_equal(index, np.arange(1, n + 1)):
        raise FormatError(f"{where}: column ('j') lines are not numbered 1..{n} in order")
    values = _floats([t[field_at] for t in js], where, "value")
    return RawSolution("positions", values, dense=True, status=status, objective=objective,
                       format="glpk_raw")


def _detect_glpk_report(head: str) -> bool:
    first = _nonblank(head, 5)
    return (len(first) >= 5 and first[0].startswith("Problem:") and first[1].startswith("Rows:")
            and first[2].startswith("Columns:") and any(line.startswith("Status:") for line in first))


def _parse_glpk_report(text: str, where: str) -> RawSolution:
    """Header (``Columns: n``, ``Status: INTEGER OPTIMAL``, ``Objective: name = v``), the rows
    table, then ``No. Column name [*|st] Activity Lower Upper [Marginal]``; a name longer than
    12 characters sits alone on its line and the numbers follow on the next one."""
    lines = _lines(text)
    head = {}
    for line in lines[:8]:
        if ":" in line:
            key, _, val = line.partition(":")
            head[key.strip()] = val.strip()
    status = head.get("Status", "")
    up = status.upper()
    if "EMPTY" in up or up.startswith("INFEASIBLE (FINAL)") or up == "INFEASIBLE":
        raise _infeasible(where)
    if "UNDEFINED" in up or "INTERMEDIATE" in up or "UNBOUNDED" in up:
        raise _no_solution(where, status)
    m = re.search(rf"({_NUMBER})\s*(?:\((?:MIN|MAX)imum\))?\s*$", head.get("Objective", ""), re.I)
    objective = float(m.group(1)) if m else None
    n = int(head.get("Columns", "0").split()[0])
    try:
        k = next(i for i, line in enumerate(lines) if line.lstrip().startswith("No. Column name"))
    except StopIteration:
        raise _truncated(where, "no column table ('No. Column name')") from None
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
            raise _truncated(where, f"no activity for column {name}")
        names.append(name)
        values.append(activity)
    if len(names) < n or not any(line.strip() == "End of output" for line in lines[-3:]):
        raise _truncated(where, f"{len(names)} of the {n} columns announced in the header, no 'End of output'"
                         if len(names) < n else "no 'End of output' line")
    return RawSolution("names", _floats(values, where, "activity"), names=np.array(names, dtype=str),
                       dense=True, status=status, objective=objective)


# ----------------------------------------------------------------------------------------------
# CBC: `cbc model.mps solve solu out.txt`
# ----------------------------------------------------------------------------------------------
# "Optimal", "Stopped on time", "Stopped on time (no integer solution - continuous used)", ...
_CBC_FIRST = re.compile(r"^(?P<status>[A-Za-z][A-Za-z ()-]*?) - objective value (?P<obj>\S+)\s*$")


def _detect_cbc(head: str) -> bool:
    first = _nonblank(head, 1)
    return bool(first) and bool(_CBC_FIRST.match(first[0].strip()))


def _parse_cbc(text: str, where: str) -> RawSolution:
    """``<Status> - objective value v`` then ``[**] index name value reduced-cost`` lines.

    ``printingOptions normal`` (the default) prints only nonzero columns -- every column when the
    model has fewer than ~50 (seen: all 44 of a reduced 4x4, the 16 nonzeros of a 64-column one),
    absent ones still mean 0; ``rows``/``all`` print the rows first (the index restarts at 0 for
    the columns); ``**`` flags an infeasible entry. Lines carry no count, so a file cut exactly
    at a line end cannot be told from a complete one (a cut inside a line can).

    A stop before any integer point, ``Stopped on time (no integer solution - continuous used)``,
    still lists values: the LP relaxation's, never accepted. It raises "no solution", said as
    "time limit reached" when the stop was on time (``-sec``).
    """
    lines = _lines(text)
    m = _CBC_FIRST.match(lines[0].strip())
    status = m.group("status")
    objective = _float(m.group("obj"), where, "objective")
    low = status.lower()
    if "infeasible" in low:
        raise _infeasible(where)
    if low.startswith(("unbounded", "status unknown", "linear relaxation unbounded")):
        raise _no_solution(where, status)
    rows = [(no + 1, line) for no, line in enumerate(lines[1:], start=1) if line.strip()]
    # "(no integer solution - continuous used)": the values listed are the LP relaxation's
    no_integer = "no integer solution" in low
    if no_integer or (low.startswith("stopped") and (not rows or abs(objective) >= 1e50)):
        detail = status if no_integer else f"{status}, no integer solution"
        if low.startswith("stopped on time"):
            raise _time_limit(where, detail)
        raise _no_solution(where, detail)
    entries = []
    for k, (no, line) in enumerate(rows):
        tok = line.split()
        if tok and tok[0] == "**":
            tok = tok[1:]
        if len(tok) < 3 or not tok[0].isdigit():
            if k == len(rows) - 1:
                raise _truncated(where, f"line {no} is incomplete ({line.strip()!r})")
            raise FormatError(f"{where}: line {no}: expected 'index name value reduced-cost', found {line.strip()!r}")
        entries.append((int(tok[0]), tok[1], tok[2], no))
    # sections: the index restarts when the columns follow the rows
    starts = [0] + [i for i in range(1, len(entries)) if entries[i][0] <= entries[i - 1][0]]
    if len(starts) > 2:
        raise FormatError(f"{where}: index restarts {len(starts) - 1} times; expected rows then columns at most")
    cols = entries[starts[-1]:] if len(starts) == 2 else entries
    values = _floats([e[2] for e in cols], where, "value", [e[3] for e in cols])
    return RawSolution("names", values, names=np.array([e[1] for e in cols], dtype=str), dense=False,
                       status=status, objective=objective)


# ----------------------------------------------------------------------------------------------
# SCIP: `write solution` / writeBestSol
# ----------------------------------------------------------------------------------------------
def _detect_scip(head: str) -> bool:
    first = _nonblank(head, 2)
    return bool(first) and any(line.startswith(("solution status:", "objective value:", "no solution available"))
                               for line in first)


def _parse_scip(text: str, where: str) -> RawSolution:
    """``solution status: s`` (interactive shell only), ``objective value: v``, then
    ``name value (obj:c)`` for nonzero variables only (SCIP reader_sol: "Only nonzero values
    need to be listed"), or ``no solution available``."""
    lines = _lines(text)
    status = None
    objective = None
    start = 0
    for start, line in enumerate(lines):  # the header lines come first  # noqa: B007 (start is read after the loop)
        s = line.strip()
        if s.startswith("solution status:"):
            status = s.split(":", 1)[1].strip()
        elif s.startswith("objective value:"):
            objective = _float(s.split(":", 1)[1].strip(), where, "objective")
        elif s == "no solution available":
            if status and "infeasible" in status.lower():
                raise _infeasible(where)
            raise _no_solution(where, status or "no solution available")
        elif s:
            break
    else:
        start = len(lines)
    if status and "infeasible" in status.lower():
        raise _infeasible(where)
    if objective is None:
        raise _truncated(where, "no 'objective value:' line")
    names, values = _name_value_block(lines, start, len(lines), where, name_col=0, value_col=1, min_tokens=2)
    return RawSolution("names", values, names=names, dense=False, status=status, objective=objective)


# ----------------------------------------------------------------------------------------------
# MIPLIB solution checker: `=obj= v` then `name value` (nonzeros), or `=infeas=`
# ----------------------------------------------------------------------------------------------
def _detect_miplib(head: str) -> bool:
    first = _nonblank(head, 1)
    return bool(first) and first[0].split()[0] in ("=obj=", "=infeas=")


def _parse_miplib(text: str, where: str) -> RawSolution:
    lines = _lines(text)
    k = next(i for i, line in enumerate(lines) if line.strip())
    tok = lines[k].split()
    if tok[0] == "=infeas=":
        raise _infeasible(where)
    objective = _float(tok[1], where, "objective") if len(tok) > 1 else None
    names, values = _name_value_block(lines, k + 1, len(lines), where, name_col=0, value_col=1, min_tokens=2)
    return RawSolution("names", values, names=names, dense=False, objective=objective)


# ----------------------------------------------------------------------------------------------
# CPLEX XML .sol
# ----------------------------------------------------------------------------------------------
def _detect_cplex(head: str) -> bool:
    return "<CPLEXSolution" in head


def _parse_cplex(text: str, where: str) -> RawSolution:
    """``<CPLEXSolution><header objectiveValue=.. solutionStatusString=.. writeLevel=../>
    <variables><variable name=.. index=.. value=../>...``; writeLevel 1/2 (the default for SOL)
    lists every variable, 3/4 only nonzeros (CPLEX parameter WriteLevel)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        msg = str(e)
        if "no element found" in msg or "unclosed token" in msg:
            raise _truncated(where, f"XML ends early ({msg})") from None
        raise FormatError(f"{where}: not well-formed XML ({msg})") from None
    if root.tag == "CPLEXSolutions":
        sols = root.findall("CPLEXSolution")
        if len(sols) != 1:
            raise FormatError(f"{where}: holds {len(sols)} solutions (a solution pool); write one with CPXsolwrite")
        root = sols[0]
    header = root.find("header")
    attrs = header.attrib if header is not None else {}
    status = attrs.get("solutionStatusString")
    if status and "infeasible" in status.lower() and "feasible solution" not in status.lower():
        raise _infeasible(where)
    objective = float(attrs["objectiveValue"]) if "objectiveValue" in attrs else None
    level = attrs.get("writeLevel", "1")
    variables = root.find("variables")
    if variables is None:
        raise _truncated(where, "no <variables> section")
    names, values = [], []
    for v in variables.findall("variable"):
        if "name" not in v.attrib or "value" not in v.attrib:
            raise FormatError(f"{where}: <variable> without name or value: {v.attrib}")
        names.append(v.attrib["name"])
        values.append(v.attrib["value"])
    return RawSolution("names", _floats(values, where, "value"), names=np.array(names, dtype=str),
                       dense=level not in ("3", "4"), status=status, objective=objective)


# ----------------------------------------------------------------------------------------------
# Xpress ASCII solution (.slx)
# ----------------------------------------------------------------------------------------------
_SLX_C = re.compile(r"^\s*C\s+\S+\s+\S+\s*$")


def _detect_slx(head: str) -> bool:
    lines = _nonblank(head, 3)
    return (len(lines) >= 2 and lines[0].startswith("NAME") and bool(_SLX_C.match(lines[1]))
            and not re.search(r"^(ROWS|COLUMNS)\s*$", head, re.M))


def _parse_slx(text: str, where: str) -> RawSolution:
    """``NAME <problem>``, one `` C <column> <value>`` line per column (other line types, for
    rows or duals of LP solutions, are skipped), ``ENDATA``. Read as listing every column: if a
    real Xpress file ever lists only nonzeros it is refused loudly (missing variables), never
    completed by a guess."""
    lines = _lines(text)
    if not any(line.strip() == "ENDATA" for line in lines[-3:]):
        raise _truncated(where, "no final 'ENDATA' line")
    rows = [(no, line) for no, line in enumerate(lines, start=1) if line.lstrip().startswith("C ")]
    names, values = _name_value_rows(rows, where, name_col=1, value_col=2, min_tokens=3)
    return RawSolution("names", values, names=names, dense=True)


# ----------------------------------------------------------------------------------------------
# Gurobi .sol (and any plain `name value` list)
# ----------------------------------------------------------------------------------------------
def _detect_gurobi(head: str) -> bool:
    rows = [line for line in head.splitlines()[:50] if line.strip()]
    if not rows:
        return False
    if rows[0].startswith("#") and re.search(r"solution|objective", rows[0], re.I):
        return True
    body = [line.split() for line in rows if not line.startswith("#")][:20]
    complete = body[:-1] if len(body) > 1 else body  # the last head line may be cut mid-way
    return bool(complete) and all(len(t) == 2 and not _NUMBER_RE.match(t[0]) and _NUMBER_RE.match(t[1])
                                  for t in complete)


def _parse_gurobi(text: str, where: str) -> RawSolution:
    """``# Solution for model m`` / ``# Objective value = v`` comments, then one ``name value``
    line per variable: "The file contains one line for each variable in the model" (Gurobi
    reference manual, SOL format), so a missing variable is an error."""
    objective = None
    lines = _lines(text)
    start = 0
    for start, line in enumerate(lines):  # the comment header  # noqa: B007 (start is read after the loop)
        s = line.strip()
        if s.startswith("#"):
            m = re.match(r"#\s*Objective value\s*=\s*(\S+)", s, re.I)
            if m:
                objective = _float(m.group(1), where, "objective")
        elif s:
            break
    else:
        start = len(lines)
    names, values = _name_value_block(lines, start, len(lines), where, name_col=0, value_col=1, min_tokens=2,
                                      comment="#")
    return RawSolution("names", values, names=names, dense=True, objective=objective)


# ----------------------------------------------------------------------------------------------
# numeric CSV: MATLAB sudoku.csv grid, or a positional x vector
# ----------------------------------------------------------------------------------------------
_SEP = re.compile(r"[,;\s]+")


def _numeric_table(head: str) -> list[list[str]] | None:
    rows = []
    for line in head.splitlines()[:200]:
        s = line.strip().strip(",;")
        if not s:
            continue
        tok = _SEP.split(s)
        if not all(_NUMBER_RE.match(t) for t in tok):
            return None
        rows.append(tok)
    return rows or None


def _detect_grid(head: str) -> bool:
    rows = _numeric_table(head)
    return bool(rows) and len(rows) >= 2 and len(rows[0]) >= 2 and all(len(r) == len(rows[0]) for r in rows)


def _detect_vector(head: str) -> bool:
    rows = _numeric_table(head)
    return bool(rows) and (len(rows) == 1 or all(len(r) == 1 for r in rows))


def _read_table(text: str) -> list[list[str]]:
    return [_SEP.split(s) for s in (line.strip().strip(",;") for line in _lines(text)) if s]


def _parse_grid(text: str, where: str) -> RawSolution:
    """N lines of N integers, no header (MATLAB ``writematrix(grid, 'sudoku.csv')``)."""
    rows = _read_table(text)
    n = len(rows[0])
    if any(len(r) != n for r in rows):
        bad = next(i for i, r in enumerate(rows) if len(r) != n)
        if bad == len(rows) - 1 and len(rows[bad]) < n:
            raise _truncated(where, f"the last grid row has {len(rows[bad])} of {n} values")
        raise FormatError(f"{where}: grid row {bad + 1} has {len(rows[bad])} values, row 1 has {n}")
    if len(rows) != n:
        if len(rows) < n:
            raise _truncated(where, f"{len(rows)} rows of a {n}x{n} grid")
        raise FormatError(f"{where}: {len(rows)} rows of {n} values is not an N x N grid")
    grid = _floats([t for r in rows for t in r], where, "cell").reshape(n, n)
    if not np.all(np.isfinite(grid)) or np.any(grid != np.rint(grid)) or grid.min() < 0 or grid.max() > n:
        r, c = np.argwhere(~np.isfinite(grid) | (grid != np.rint(grid)) | (grid < 0) | (grid > n))[0]
        raise FormatError(f"{where}: cell ({r + 1}, {c + 1}) = {grid[r, c]:g} is not a digit 1..{n}")
    grid = grid.astype(np.int64)
    if (grid == 0).any():
        r, c = np.argwhere(grid == 0)[0]
        k = int((grid == 0).sum())
        raise FormatError(f"{where}: {k} empty cell{'s' if k > 1 else ''} (first at ({r + 1}, {c + 1})); "
                          f"a solution grid must be complete")
    return RawSolution("grid", np.empty(0), grid=grid)


def _parse_vector(text: str, where: str) -> RawSolution:
    """One value per line, or one row: the x vector in the export's column order."""
    rows = _read_table(text)
    if len(rows) == 1:
        tokens = rows[0]
    elif all(len(r) == 1 for r in rows):
        tokens = [r[0] for r in rows]
    else:
        bad = next(i for i, r in enumerate(rows) if len(r) != 1)
        raise FormatError(f"{where}: line {bad + 1} has {len(rows[bad])} values; a vector has one value per line "
                          f"or a single row")
    return RawSolution("positions", _floats(tokens, where, "value"), dense=True, full_ok=True)


# ----------------------------------------------------------------------------------------------
# registry (detection order: specific signatures first, generic name/value and CSV last)
# ----------------------------------------------------------------------------------------------
for _fmt in (
    SolutionFormat("cplex_xml", "CPLEX XML .sol (<CPLEXSolution>)", _detect_cplex, _parse_cplex),
    SolutionFormat("highs_raw", "HiGHS writeSolution style 0 (raw)", _detect_highs_raw, _parse_highs_raw),
    SolutionFormat("highs_sparse", "HiGHS writeSolution style 4 (sparse, nonzeros)", _detect_highs_sparse,
                   _parse_highs_raw),
    SolutionFormat("highs_pretty", "HiGHS writeSolution style 1 (pretty tables)", _detect_highs_pretty,
                   _parse_highs_pretty),
    SolutionFormat("highs_old_raw", "HiGHS writeSolution style -1 (old raw, positional)", _detect_highs_old_raw,
                   _parse_highs_old_raw),
    SolutionFormat("glpk_raw", "glpsol -w / --write (positional)", _detect_glpk_raw, _parse_glpk_raw),
    SolutionFormat("glpk_report", "glpsol -o / --output (printable report)", _detect_glpk_report,
                   _parse_glpk_report),
    SolutionFormat("cbc", "CBC 'solu' output (nonzeros by default)", _detect_cbc, _parse_cbc),
    SolutionFormat("scip", "SCIP .sol (nonzeros)", _detect_scip, _parse_scip),
    SolutionFormat("miplib", "MIPLIB =obj= solution (nonzeros)", _detect_miplib, _parse_miplib),
    SolutionFormat("xpress_slx", "Xpress ASCII solution .slx", _detect_slx, _parse_slx),
    SolutionFormat("gurobi", "Gurobi .sol / plain 'name value' list (every variable)", _detect_gurobi,
                   _parse_gurobi),
    SolutionFormat("matlab_grid", "MATLAB sudoku.csv: N x N digits", _detect_grid, _parse_grid),
    SolutionFormat("vector", "x vector CSV in export column order", _detect_vector, _parse_vector),
):
    register_solution_format(_fmt)


def detect_solution_format(head: str, where: str = "solution") -> SolutionFormat:
    """The first registered format whose detector accepts ``head``; FormatError listing all tried."""
    if not head.strip():
        raise FormatError(f"{where}: empty file")
    for fmt in SOLUTION_FORMATS.values():
        if fmt.detect(head):
            return fmt
    raise FormatError(f"{where}: unrecognised solution format; tried {', '.join(SOLUTION_FORMATS)}")


# ----------------------------------------------------------------------------------------------
# mapping onto the manifest's convention
# ----------------------------------------------------------------------------------------------
def _as_manifest(manifest):
    """Accept a Manifest, a path to one (or its directory), or a Model."""
    if manifest is None or isinstance(manifest, Manifest):
        return manifest
    if hasattr(manifest, "Aeq") and hasattr(manifest, "convention"):
        return manifest_from_dict(model_metadata(manifest))
    return load_manifest(manifest)


def _parse_names(names: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Classify names with pyarrow's vectorised regexes (a 100x100 file names 10^6 variables).

    Returns ``(ok, idx, short, col, arity)``: ``ok`` marks ``x_<int>_<int>...`` names of the
    most common arity, ``idx`` their 1-based indices (rows of ``ok``), ``short`` marks
    ``C<digits>``/``c<digits>`` short names and ``col`` their column numbers.
    """
    arr = pa.array(np.asarray(names, dtype=object), type=pa.string())

    def flag(x) -> np.ndarray:
        return np.asarray(pc.fill_null(x, False).to_numpy(zero_copy_only=False), dtype=bool)

    def ints(x) -> np.ndarray:
        return np.asarray(pc.fill_null(pc.cast(x, pa.int64()), 0).to_numpy(zero_copy_only=False), dtype=np.int64)

    # at most 18 digits per index: no int64 overflow
    ok = flag(pc.match_substring_regex(arr, r"^x(_[0-9]{1,18})+$"))
    arity = ints(pc.count_substring(arr, "_"))
    k = int(np.bincount(arity[ok]).argmax()) if ok.any() else 0
    ok &= arity == k
    if ok.any():
        found = pc.extract_regex(arr, "^x" + "".join(f"_(?P<i{j}>[0-9]{{1,18}})" for j in range(k)) + "$")
        found = found.filter(pa.array(ok))  # the fields of a non-matching name are '' (not null)
        idx = np.column_stack([ints(found.field(j)) for j in range(k)]).reshape(-1, k)
    else:
        idx = np.zeros((0, k), dtype=np.int64)
    short_found = pc.extract_regex(arr, r"^[Cc](?P<c>[0-9]{1,18})$")
    short = flag(short_found.is_valid())
    col = ints(short_found.filter(pa.array(short)).field(0))
    return ok, idx, short, col, k


def _check_values(values: np.ndarray, labels, where: str) -> np.ndarray:
    """Round within the integrality tolerance; anything else is named: ``name = v is not 0 or 1``."""
    rounded = np.rint(values)
    bad = ~np.isfinite(values) | (np.abs(values - rounded) > INTEGRALITY_TOL) | (rounded < 0) | (rounded > 1)
    if bad.any():
        k = int(np.argmax(bad))
        raise FormatError(f"{where}: {labels(k)} = {values[k]:g} is not 0 or 1")
    return rounded + 0.0  # -0.0 -> 0.0


def _list(names, k: int = 5) -> str:
    names = list(names)
    return ", ".join(names[:k]) + (f", ... ({len(names) - k} more)" if len(names) > k else "")


def _resolve_names(raw: RawSolution, manifest, where: str, fmt: str) -> tuple[np.ndarray, Convention]:
    names = raw.names
    ok, idx, short, col, arity = _parse_names(names)
    unknown = ~(ok | short)
    if unknown.any():
        bad = names[unknown]
        more = f" (and {bad.size - 1} more)" if bad.size > 1 else ""
        raise FormatError(f"{where}: unknown variable name {str(bad[0])!r}{more}; expected x_i_j_k / x_I_J_p_q_n names "
                          f"or C<column> short names")
    if (idx < 1).any():
        raise FormatError(f"{where}: variable {names[ok][int(np.argmax((idx < 1).any(axis=1)))]} has an index 0; "
                          f"names are 1-based")

    if manifest is None:
        conv = _infer_convention(raw, idx, arity, short, where, fmt)
        man_columns = np.arange(conv.n_vars)
    else:
        conv = manifest.convention
        man_columns = manifest.columns
    pos = np.empty(names.size, dtype=np.int64)
    if ok.any():
        shape = np.array(conv.shape)
        if arity != len(conv.shape):
            raise FormatError(
                f"{where}: names have {arity} indices ({names[ok][0]}) but the manifest's scheme {conv.scheme} "
                f"names variables x_{'_'.join(conv.index_names)}")
        if (idx > shape).any():
            found = "x_" + "_".join(map(str, idx.max(axis=0)))
            expected = "x_" + "_".join(map(str, shape))
            raise FormatError(f"{where}: names reach {found} but the manifest's {conv.n}x{conv.n} puzzle ends at "
                              f"{expected}: the file is for another puzzle size")
        pos[ok] = conv.tuple_to_position(*(idx - 1).T)
    if short.any():
        if (col >= man_columns.size).any():
            k = int(np.argmax(col >= man_columns.size))
            raise FormatError(f"{where}: column {names[short][k]} does not exist: the export has {man_columns.size} "
                              f"columns (C0..C{man_columns.size - 1}); the file is for another model")
        pos[short] = man_columns[col]

    uniq, counts = np.unique(pos, return_counts=True)
    if (counts > 1).any():
        dup = uniq[counts > 1][0]
        raise FormatError(f"{where}: variable {conv.names([dup])[0]} listed twice")
    exported = np.zeros(conv.n_vars, dtype=bool)
    exported[man_columns] = True
    if not exported[pos].all():
        k = int(np.argmax(~exported[pos]))
        raise FormatError(f"{where}: variable {names[k]} is not a column of this export (clue encoding "
                          f"{manifest.clue_encoding} removed it)")
    values = _check_values(raw.values, lambda k: names[k], where)
    present = np.zeros(conv.n_vars, dtype=bool)
    present[pos] = True
    if raw.dense:
        missing = man_columns[~present[man_columns]]
        if missing.size:
            raise FormatError(f"{where}: {missing.size} of {man_columns.size} variables missing ({fmt} lists every "
                              f"variable): {_list(conv.names(missing))}")
    return full_vector_of(conv.n_vars, pos, values, manifest.clue_positions if manifest is not None else None), conv


def _infer_convention(raw, idx, arity, short, where: str, fmt: str) -> Convention:
    """No manifest: the names say the scheme; N only when the file lists all N^3 variables."""
    need = "pass the export's manifest (manifest.json)"
    if short.any():
        raise FormatError(f"{where}: short column names ({raw.names[short][0]}) need the export's column map; {need}")
    if idx.shape[0] == 0:
        raise FormatError(f"{where}: without a manifest the puzzle size is inferred only from a file listing all "
                          f"N^3 variables; this {fmt} file lists none; {need}")
    if arity not in (3, 5):
        raise FormatError(f"{where}: names with {arity} indices fit neither x_i_j_k nor x_I_J_p_q_n")
    top = idx.max(axis=0)
    n = int(top[-1]) if arity == 5 else int(top.max())
    if idx.shape[0] != n ** 3 or np.unique(idx, axis=0).shape[0] != n ** 3:
        raise FormatError(f"{where}: without a manifest the puzzle size is inferred only from a file listing all "
                          f"N^3 variables; this {fmt} file lists {idx.shape[0]} (largest index {n}); {need}")
    if arity == 3:
        # order F is the convention's default for files read outside Python (CONVENTIONS.md)
        return Convention("ijk", "F", *default_box(n))
    h, w = int(top[2]), int(top[3])
    if int(top[0]) * h != n or int(top[1]) * w != n:
        raise FormatError(f"{where}: block names reach {'x_' + '_'.join(map(str, top))}, which is no N x N grid")
    return Convention("block", "F", h, w)


def _resolve_positions(raw: RawSolution, manifest, where: str) -> tuple[np.ndarray, Convention]:
    if manifest is None:
        raise FormatError(f"{where}: positional values carry no variable names; pass the export's manifest "
                          f"(manifest.json)")
    conv = manifest.convention
    n_cols, n_vars = manifest.n_cols, conv.n_vars
    x = raw.values
    if raw.numbered:
        x = np.concatenate([x[:n_vars], np.full(max(n_vars - x.size, 0), np.nan if raw.dense else 0.0)])[manifest.columns]
        if np.isnan(x).any():
            k = int(np.argmax(np.isnan(x)))
            raise FormatError(f"{where}: the solver assigned no value to variable {manifest.columns[k] + 1} "
                              f"({conv.names([manifest.columns[k]])[0]})")
    if x.size == n_cols:
        values = _check_values(x, lambda k: conv.names([manifest.columns[k]])[0], where)
        return full_vector_of(n_vars, manifest.columns, values, manifest.clue_positions), conv
    if raw.full_ok and x.size == n_vars:
        return _check_values(x, lambda k: conv.names([k])[0], where), conv
    if raw.full_ok and n_cols != n_vars:
        expected = f"{n_cols} values (the export's columns) or {n_vars} (all variables of a {conv.n}x{conv.n} grid)"
    else:
        expected = f"{n_cols} values (the export's columns, {conv.n}x{conv.n} grid)"
    raise FormatError(f"{where}: expected {expected}, found {x.size}")


def _resolve_grid(raw: RawSolution, manifest, where: str) -> tuple[np.ndarray, Convention]:
    grid = raw.grid
    n = grid.shape[0]
    if manifest is None:
        conv = Convention("ijk", "F", *default_box(n))
    else:
        conv = manifest.convention
        if n != conv.n:
            raise FormatError(f"{where}: grid is {n}x{n}, the manifest's puzzle is {conv.n}x{conv.n}")
    return vector_from_grid(grid, conv), conv


# ----------------------------------------------------------------------------------------------
# entry point
# ----------------------------------------------------------------------------------------------
def read_solution(path, manifest=None, format: str | None = None) -> SolutionVector:
    """Read a solver's solution file (format detected by content, or forced by ``format``).

    ``manifest`` (a Manifest, a path to ``manifest.json`` or its directory, or a Model) gives
    the convention, the exported columns and the clues; without it only files naming all
    ``N^3`` variables ``x_...`` (or MATLAB grids) can be read, in order ``F``.
    """
    path = Path(path)
    where = str(path)
    man = _as_manifest(manifest)
    with open_text(path, where) as f:
        text = f.read()
    if format is not None:
        if format not in SOLUTION_FORMATS:
            raise FormatError(f"{where}: unknown solution format {format!r}; known: {', '.join(SOLUTION_FORMATS)}")
        fmt = SOLUTION_FORMATS[format]
    else:
        fmt = detect_solution_format(text[:HEAD_CHARS], where)
    raw = fmt.parse(text, where)
    name = raw.format or fmt.name
    if raw.kind == "names":
        values, conv = _resolve_names(raw, man, where, name)
    elif raw.kind == "positions":
        values, conv = _resolve_positions(raw, man, where)
    else:
        values, conv = _resolve_grid(raw, man, where)
    return SolutionVector(values, name, raw.status, raw.objective, conv, path)


__all__ = ["SOLUTION_FORMATS", "RawSolution", "SolutionFormat", "SolutionVector", "detect_solution_format",
           "read_solution", "register_solution_format"]
