"""Solution files of SAT and pseudo-Boolean solvers, for the CNF/OPB exports.

Registered with :func:`formats.solutions.register_solution_format` (first: their signatures are
the most specific) and detected by content:

* ``sat_competition``: SAT-competition output (``s SATISFIABLE`` then ``v 1 -2 ... 0`` lines,
  wrapped over as many lines as the solver likes), written by cadical, picosat, cryptominisat,
  clasp and sat4j on a CNF file; the same layout with ``v x1 -x2 ...`` and ``s OPTIMUM FOUND``
  is the PB-competition output of minisat+, clasp and sat4j on an OPB file (``pb_competition``);
  clasp's enumeration (``clasp -n K``, models headed ``c Answer: 1..K``) is read by its last model,
  the one clasp's OPB output shows alone, and the answer's ``note`` says so (``import`` prints it);
* ``minisat``: minisat's result file (``SAT`` then one line of literals ending in 0, ``UNSAT``
  or ``INDET``);
* ``scip_numbered``: SCIP's ``.sol`` for a CNF or OPB model (variables ``x<v>``, nonzeros only).

Literal ``v`` is variable ``v`` = convention position + 1 (``docs/conventions.md``, CNF/OPB);
numbers beyond ``N^3`` are auxiliary variables of the at-most-one encoding and ignored. The
parsed values go to the common mapping as ``numbered`` positions, sparse (``numbers`` and their
values: no array is sized by a number from the file; the mapping refuses a number beyond the
model's variable count; only the export's columns are read; ``reduce`` clue variables are set to 1). ``UNSATISFIABLE`` raises
:class:`~pipeline.core.errors.NoSolutionReported` with status ``infeasible``, ``UNKNOWN`` /
``INDETERMINATE`` / ``INDET`` with status ``time_limit``.
"""
from __future__ import annotations

import re

import numpy as np

from pipeline.core.errors import FormatError, NoSolutionReported, shortened

from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.files import MAX_COUNT_DIGITS
from formats.solutions.common import digit_tokens, parse_float, parse_floats

_S_LINE = re.compile(r"^s\s+(SATISFIABLE|UNSATISFIABLE|UNKNOWN|INDETERMINATE|OPTIMUM FOUND|UNSUPPORTED)\s*$",
                     re.MULTILINE)
_V_LINE = re.compile(r"^v\s+-?x?\d+", re.MULTILINE)  # clasp prints 's' AFTER the v lines
# CaDiCaL 1.x stopped by its -t limit prints its answer as a comment, 'c UNKNOWN', and no 's' line
_C_UNKNOWN = re.compile(r"^c\s+UNKNOWN\s*$", re.MULTILINE)
# clasp -n K (K != 1) heads each model it enumerates with 'c Answer: k'; each is a whole answer
_C_ANSWER = re.compile(r"^c Answer: (\d+)\s*$", re.MULTILINE)
_SCIP_X = re.compile(r"^x\d+\s+\S+", re.MULTILINE)
_SCIP_HEAD = re.compile(r"^(solution status:|objective value:|no solution available)", re.MULTILINE)


#: The status words of the SAT and PB competition formats (``s WORD``): another word is a
#: damaged file, not a solver saying "no solution"
COMPETITION_STATUSES = ("SATISFIABLE", "OPTIMUM FOUND", "UNSATISFIABLE", "UNSAT", "UNKNOWN", "INDETERMINATE",
                        "INDET", "UNSUPPORTED")


def _no_answer(where: str, status: str) -> NoSolutionReported:
    if status.startswith("UNSAT"):
        return NoSolutionReported(f"{where}: solver reports infeasible (status: {status})", "infeasible")
    if status in ("UNKNOWN", "INDETERMINATE", "INDET"):
        return NoSolutionReported(f"{where}: solver reports no solution: time limit reached (status: {status})",
                                  "time_limit")
    return NoSolutionReported(f"{where}: solver reports no solution (status: {status})", "no_solution")


def literal_values(numbers: np.ndarray, signs: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray]:
    """The variable numbers and their 0/1 values, checked: no variable 0, none assigned twice.

    The values stay sparse (one per literal): the file's numbers are not trusted to size an
    array; :func:`pipeline.core.decode.solution_vector` bounds them by the model's variable
    count before it places them.

    Parameters
    ----------
    numbers : numpy.ndarray
        Variable numbers.
    signs : numpy.ndarray
        Their signs (true: the variable is 1).
    where : str
        The file, named in the message.

    Returns
    -------
    numbers : numpy.ndarray
        The numbers as int64.
    values : numpy.ndarray
        1.0 where the sign is positive, else 0.0.

    Raises
    ------
    FormatError
        A variable 0 or a variable assigned twice.

    Examples
    --------
    >>> [a.tolist() for a in literal_values(np.array([1, 3]), np.array([1, -1]), "f")]
    [[1, 3], [1.0, 0.0]]
    """
    numbers = np.asarray(numbers, dtype=np.int64)
    _refuse_bad_numbers(numbers, where)
    return numbers, (np.asarray(signs) > 0).astype(float)


def _refuse_bad_numbers(numbers: np.ndarray, where: str, prefix: str = "", twice: str = "is assigned twice") -> None:
    """FormatError for a variable 0 (or below) or a variable given twice; ``prefix`` is how the
    file writes a name (``x`` in SCIP's), ``twice`` how the message says the repeat."""
    if (numbers < 1).any():
        raise FormatError(f"{where}: variable {prefix}{int(numbers[numbers < 1][0])} is not a variable "
                          f"(CNF/OPB variables are numbered from 1)")
    if numbers.size:
        uniq, counts = np.unique(numbers, return_counts=True)
        if (counts > 1).any():
            raise FormatError(f"{where}: variable {prefix}{int(uniq[counts > 1][0])} {twice}")


def _variable_numbers(body: np.ndarray, shown: np.ndarray, where: str) -> np.ndarray:
    """``body`` (digit strings) as int64, every token checked BEFORE conversion: a number of
    more than 18 digits would overflow int64 (or pass Python's digit limit) and is beyond any model."""
    ok = digit_tokens(body)
    if not ok.all():
        bad = int(np.argmin(ok))
        text = str(body[bad])
        if text.isascii() and text.isdigit() and len(text) > MAX_COUNT_DIGITS:
            raise FormatError(f"{where}: variable {shortened(text)} is beyond any model's variables")
        raise FormatError(f"{where}: literal {shortened(str(shown[bad]))!r} is not a variable number")
    return body.astype(np.int64)


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
            raise FormatError(f"{where}: literal {shortened(str(bad))!r} is not x<v> or -x<v>")
        body = np.char.lstrip(body, "x")
    return _variable_numbers(body, arr, where), np.where(neg, -1, 1)


# ----------------------------------------------------------------------------------------------
# SAT / PB competition output (cadical, picosat, cryptominisat, clasp, sat4j, minisat+)
# ----------------------------------------------------------------------------------------------
def _detect_competition(head: str) -> bool:
    return bool(_S_LINE.search(head) or _V_LINE.search(head) or _C_UNKNOWN.search(head))


def _parse_competition(text: str, where: str) -> RawSolution:
    """``s STATUS`` and ``v`` lines; ``c`` comments and ``o`` objective lines ignored (the last
    ``o`` line is the objective). A CNF answer ends with literal 0; an OPB one names ``x<v>``."""
    status, words, objective, v_lines, note = None, [], None, 0, ""
    answers = list(_C_ANSWER.finditer(text))
    if len(answers) > 1 and [int(a.group(1)) for a in answers] == list(range(1, len(answers) + 1)):
        # clasp's enumeration (its answers 1..K, not two runs' files pasted together): its last
        # model, as clasp's OPB output shows it alone; said, not silently (the others are not read)
        text = text[:answers[0].start()] + text[answers[-1].start():]
        note = (f"{where}: clasp's enumeration of {len(answers)} models (c Answer: 1..{len(answers)}): "
                f"the last, Answer {len(answers)}, read; the others are not")
    for line in text.splitlines():
        if not line or line[0] == "c":
            continue
        if line[0] == "s":
            said = line[1:].strip()
            if status is not None and said != status:   # two answers: neither is the file's
                raise FormatError(f"{where}: two status lines, 's {status}' and 's {shortened(said)}'")
            status = said
        elif line[0] == "v":
            words.extend(line[1:].split())
            v_lines += 1
        elif line[0] == "o":
            parts = line.split()
            if len(parts) == 2:
                try:
                    objective = float(parts[1])
                except ValueError:
                    raise FormatError(f"{where}: objective line {line!r} is not a number") from None
    if status is None and not words and _C_UNKNOWN.search(text):
        raise _no_answer(where, "UNKNOWN")   # CaDiCaL's 'c UNKNOWN' after its time limit
    if status is None:
        raise FormatError(f"{where}: no 's <status>' line")
    status = " ".join(status.split()).upper()   # 's satisfiable', 's OPTIMUM  FOUND': the same words
    if status not in COMPETITION_STATUSES:
        raise FormatError(f"{where}: unknown status 's {shortened(status)}'; a SAT or PB solver's is one of "
                          f"{', '.join(COMPETITION_STATUSES)}")
    if status not in ("SATISFIABLE", "OPTIMUM FOUND"):
        raise _no_answer(where, status)
    if v_lines and not words:
        # a bare 'v': a PB solver's answer to a file without constraints (minisat+, sat4j on an
        # export whose clues settle everything); the model's columns say whether it is complete
        return RawSolution("positions", np.zeros(0), numbers=np.zeros(0, dtype=np.int64), status=status,
                           objective=objective, numbered=True, format="pb_competition", note=note)
    named = any(w.lstrip("-").startswith("x") for w in words[:4])
    last = text.rstrip("\r\n ").rsplit("\n", 1)[-1]
    if named and not text.endswith("\n") and last.startswith("v"):
        # an OPB answer has no terminating literal: a last 'v' line without its line end was cut,
        # its last literal maybe inside a number ('x4' of 'x41', then "assigned twice")
        raise FormatError(f"{where}: truncated: the last 'v' line has no line end (it ends {last[-20:]!r})")
    if not named:
        if not v_lines:   # minisat's own stdout says SATISFIABLE and writes the model only to a file
            raise FormatError(f"{where}: 's {status}' but no 'v' lines: the output holds no assignment (minisat "
                              f"writes its model to a result file: minisat model.cnf answer.txt)")
        if not words or words[-1] != "0":
            raise FormatError(f"{where}: truncated: the 'v' lines do not end with 0")
        words = words[:-1]
        if "0" in words:   # a second answer, or literals past the end: not one assignment
            rest = words[words.index("0") + 1:]
            raise FormatError(f"{where}: 'v' literals after the terminating 0 ({shortened(' '.join(rest))!r}); "
                              f"an answer ends at its one 0")
    numbers, signs = _literal_tokens(words, where, named)
    if numbers.size == 0 and not named:
        # 'v 0': every literal of a CNF without clauses (SAT4J lists only the variables clauses
        # hold); as for a bare 'v', the model's columns say whether it is complete
        return RawSolution("positions", np.zeros(0), numbers=np.zeros(0, dtype=np.int64), status=status,
                           objective=objective, numbered=True, format="sat_competition", note=note)
    if numbers.size == 0:
        raise FormatError(f"{where}: truncated: status {status} but no 'v' literals")
    numbers, values = literal_values(numbers, signs, where)
    return RawSolution("positions", values, numbers=numbers, status=status, objective=objective,
                       numbered=True, format="pb_competition" if named else "sat_competition", note=note)


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
    numbers, values = literal_values(numbers, signs, where)
    return RawSolution("positions", values, numbers=numbers, status=status, numbered=True)


# ----------------------------------------------------------------------------------------------
# SCIP .sol of a CNF/OPB model: `x<v> value (obj:c)`, nonzeros only
# ----------------------------------------------------------------------------------------------
def _detect_scip_numbered(head: str) -> bool:
    # "no solution available" files name no variable: the MIP reader ("scip") handles them
    return bool(_SCIP_HEAD.search(head)) and bool(_SCIP_X.search(head))


def _parse_scip_numbered(text: str, where: str) -> RawSolution:
    status, objective = None, None
    names: list[str] = []
    texts: list[str] = []
    lines: list[int] = []
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
                raise FormatError(f"{where}: line {no}: expected 'x<v> value', found {shortened(s, 60)!r}")
            names.append(tok[0][1:])
            texts.append(tok[1])
            lines.append(no)
    if status and "infeasible" in status.lower():
        raise NoSolutionReported(f"{where}: solver reports infeasible (status: {status})", "infeasible")
    if objective is None:
        raise FormatError(f"{where}: truncated: no 'objective value:' line")
    numbers = _variable_numbers(np.array(names, dtype=str), np.array(["x" + n for n in names], dtype=str), where)
    values = parse_floats(texts, where, "value", lines)
    _refuse_bad_numbers(numbers, where, prefix="x", twice="listed twice")
    # nonzeros only: absent = 0 (dense=False); the numbers are bounded by the model's in decode
    return RawSolution("positions", values, numbers=numbers, dense=False, status=status, objective=objective,
                       numbered=True)


register_solution_format(SolutionFormat("sat_competition", "SAT/PB-competition output ('s ...', 'v ...')",
                                        _detect_competition, _parse_competition))
register_solution_format(SolutionFormat("minisat", "minisat result file (SAT/UNSAT/INDET + literals)",
                                        _detect_minisat, _parse_minisat))
register_solution_format(SolutionFormat("scip_numbered", "SCIP .sol of a CNF/OPB model (x<v>, nonzeros)",
                                        _detect_scip_numbered, _parse_scip_numbered))
