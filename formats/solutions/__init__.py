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
* MATLAB ``sudoku.csv`` grids go through :func:`pipeline.core.decode.vector_from_grid`.

Whether an absent variable means 0 is the FORMAT's rule, not a guess: SCIP, CBC (default
``printingOptions normal``), HiGHS sparse, MIPLIB ``=obj=`` files and CPLEX files written at
``writeLevel`` 3/4 list only nonzeros; every other format lists every column, and a missing
one is an error. Every problem is a one-line :class:`FormatError` naming the file.

New solvers plug in with :func:`register_solution_format`; ``SOLUTION_FORMATS`` is the registry
(name -> detect(head_text) -> bool, parse(text, where) -> :class:`RawSolution`), tried in order.
The package holds one module per solver family, each registering its readers on import; the
import order below is the detection order (specific signatures first, generic name/value and
CSV readers last). Mapping names/positions onto the convention is core:
:func:`pipeline.core.decode.solution_vector`.
"""
# isort: skip_file
from __future__ import annotations

import os
import re
from pathlib import Path

from pipeline.core.build import Model
from pipeline.core.decode import solution_vector
from pipeline.core.errors import FormatError
from pipeline.core.manifest import Manifest, manifest_from_dict, model_metadata

from formats.files import MAX_READ_BYTES, decoded_text, load_manifest_file, read_regular
from formats.solutions.base import (BINARY_SOLUTION_FORMATS, HEAD_CHARS, SOLUTION_FORMATS, BinarySolutionFormat,
                   RawSolution, SolutionFormat, SolutionVector, detect_solution_format,
                   register_binary_solution_format, register_solution_format)
# one module per solver family; importing registers its readers, in detection order
from formats.solutions import sat  # noqa: F401  (s/v lines, minisat, SCIP x<v>: the most specific signatures)
from formats.solutions import cplex  # noqa: F401
from formats.solutions import highs  # noqa: F401
from formats.solutions import glpk  # noqa: F401
from formats.solutions import cbc  # noqa: F401
from formats.solutions import scip  # noqa: F401
from formats.solutions import miplib  # noqa: F401
from formats.solutions import xpress  # noqa: F401
from formats.solutions import gurobi  # noqa: F401  (any 'name value' list: after the specific ones)
from formats.solutions import tables  # noqa: F401  (numeric CSV grid / vector: last)
from formats.solutions import matfile  # noqa: F401  (MAT-files; Octave's text format, placed first)


def _as_manifest(manifest):
    """Accept a Manifest, a path to one (or its directory), or a Model."""
    if manifest is None or isinstance(manifest, Manifest):
        return manifest
    if hasattr(manifest, "Aeq") and hasattr(manifest, "convention"):
        return manifest_from_dict(model_metadata(manifest))
    return load_manifest_file(manifest)


#: Bytes and lines a solution file may take per position of its model's convention (a line per
#: exported column and per row, each a name and a few numbers: a 100x100 solution naming its 10^6
#: columns takes about 30 MB), with room for headers. Larger is refused before it is parsed:
#: Python's parse costs about a hundred bytes a line, so a 600 MB column of zeros ran out of
#: memory. Without a manifest the model's size is unknown: :data:`UNKNOWN_MODEL_LINES` lines
#: (a named solution of an N x N grid up to N = 200) within :data:`~formats.files.MAX_READ_BYTES`.
SOLUTION_BYTES_PER_POSITION = 256
SOLUTION_LINES_PER_POSITION = 4
SOLUTION_SLACK_LINES = 10_000
MIN_SOLUTION_BYTES = 1 << 20
UNKNOWN_MODEL_LINES = 4 * 200 ** 3


def solution_bytes_limit(manifest: Manifest | None) -> int:
    """The most bytes :func:`read_solution` reads for a model of ``manifest``'s shape
    (:data:`~formats.files.MAX_READ_BYTES` without a manifest).

    Parameters
    ----------
    manifest : Manifest or None

    Returns
    -------
    int
    """
    if manifest is None:
        return MAX_READ_BYTES
    return min(MAX_READ_BYTES, max(MIN_SOLUTION_BYTES, SOLUTION_BYTES_PER_POSITION * _answer_positions(manifest)))


def _answer_positions(manifest: Manifest) -> int:
    """The most lines of values an answer of the export holds: its cell variables, its model's
    columns, or its CNF/OPB variables, auxiliary ones included (a SAT solver's ``v`` lines name
    them all: a sandwich 9x9's CNF has 439,391), and a line per model row (GLPK's ``-o`` report,
    HiGHS's pretty styles and CBC's ``printingOptions all`` list every row: a 16x16 anti-knight
    non-consecutive report of 1.7 MB, 15,776 rows, was refused as too large for its 4,096
    columns)."""
    data = manifest.data if isinstance(manifest.data, dict) else {}
    formats = data.get("formats")
    counts = [int(manifest.convention.n_vars), int(data.get("columns") or 0)]
    counts += [int(entry["variables"]) for entry in (formats or {}).values()
               if isinstance(entry, dict) and isinstance(entry.get("variables"), int)]
    # the manifest's counts are whole numbers once it is read (manifest_from_dict checks them)
    return max(counts) + int(data.get("rows") or 0) + int(data.get("inequalities") or 0)


def _check_lines(text: str, manifest: Manifest | None, where: str, size_limit: int | None = None) -> None:
    """Refuse, before parsing, a file of more lines than any solution of the model has (with a
    ``size_limit``, a line per four of its bytes at most: a SAT answer's ``v`` lines)."""
    most = (UNKNOWN_MODEL_LINES if manifest is None
            else SOLUTION_LINES_PER_POSITION * _answer_positions(manifest) + SOLUTION_SLACK_LINES)
    most = max(most, (size_limit or 0) // 4)
    lines = text.count("\n")
    if lines > most:
        what = ("the model has" if manifest is not None
                else "a solution without a manifest may have (pass the export's manifest)")
        raise FormatError(f"{where}: {lines:,} lines, more than {what}: at most {most:,}; not a solution file of it")


#: The first bytes a binary format is told by (a MAT-file's header is 128 bytes).
HEAD_BYTES = 128


#: A solver's leading comment lines (``c ...``, minisat+'s thousands of ``c ---[k]---> BDD-cost``
#: lines, with ``o`` objective lines among them): detection looks past them
_LEADING_COMMENTS = re.compile(r"(?:[co](?:[ \t][^\n]*)?\r?\n)+")


def _detected(text: str, where: str) -> SolutionFormat:
    """The format of ``text``: from its first :data:`HEAD_CHARS` characters, else from as many
    after its leading comment lines (minisat+'s ``s`` line came after 90 KB of them)."""
    try:
        return detect_solution_format(text[:HEAD_CHARS], where)
    except FormatError:
        comments = _LEADING_COMMENTS.match(text)
        if comments is None or comments.end() < HEAD_CHARS // 2:
            raise
        return detect_solution_format(text[comments.end():comments.end() + HEAD_CHARS], where)


def read_solution(path: str | os.PathLike, manifest: Manifest | Model | str | os.PathLike | None = None,
                  format: str | None = None, *, size_limit: int | None = None) -> SolutionVector:
    """Read a solver's solution file (format detected by content, or forced by ``format``).

    Parameters
    ----------
    path : str or Path
        The solution file: a regular file of bounded size (``.gz`` is read through).
    manifest : Manifest, str, Path or Model, optional
        Gives the convention, the exported columns and the clues (a Manifest, a path to
        ``manifest.json`` or its directory, or the Model itself). Without it only files
        naming all ``N^3`` variables ``x_...`` (or MATLAB grids) can be read, in order ``F``.
    format : str, optional
        A name of :data:`SOLUTION_FORMATS` to skip detection.
    size_limit : int, optional
        Bytes the file may take where the manifest's own bound (:func:`solution_bytes_limit`) is
        lower: an external run passes twice its CNF/OPB file's size (an answer names each of the
        file's variables once, auxiliary ones included; the file names each at least once).

    Returns
    -------
    SolutionVector
        ``values`` (the full 0/1 vector over all ``N^3`` positions of the convention), the
        ``format`` read, the solver's ``status`` and ``objective`` when stated, the convention.

    Raises
    ------
    NoSolutionReported
        The file says the solver found no solution (infeasible, time limit, other).
    FormatError
        Not a regular file, too large, an unknown or malformed format, or names, positions
        or sizes that do not fit the manifest: one line naming the file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from pipeline.core.build import build_model
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> model = build_model(parse_puzzle("1......2........"))     # 4x4, ijk/F, two clues
    >>> with tempfile.TemporaryDirectory() as out:
    ...     answer = pathlib.Path(out, "answer.txt")
    ...     _ = answer.write_text("s UNSATISFIABLE\\n")
    ...     read_solution(answer, model)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pipeline.core.errors.NoSolutionReported: .../answer.txt: solver reports infeasible (status: UNSATISFIABLE)
    >>> with tempfile.TemporaryDirectory() as out:
    ...     answer = pathlib.Path(out, "sudoku.csv")
    ...     _ = answer.write_text("1,2,3,4\\n3,4,1,2\\n2,1,4,3\\n4,3,2,1\\n")
    ...     solution = read_solution(answer, model)
    >>> solution.format, int(solution.values.sum()), solution.values.size
    ('matlab_grid', 16, 64)
    """
    path = Path(path)
    where = str(path)
    man = _as_manifest(manifest)
    limit = min(max(solution_bytes_limit(man), size_limit or 0), MAX_READ_BYTES)
    data = read_regular(path, where, limit=limit)
    binary = (BINARY_SOLUTION_FORMATS.get(format) if format is not None else
              next((f for f in BINARY_SOLUTION_FORMATS.values() if f.detect(data[:HEAD_BYTES])), None))
    if binary is not None:   # a MAT-file: its values bounded as its bytes are (8 bytes a value)
        return _vector(binary.parse(data, where, max(limit // 8, 1)), binary.name, man, where, path)
    text = decoded_text(data)
    del data
    if "\n" not in text and "\r" in text:   # CR-only line ends (classic Mac, some Windows tools): the
        text = text.replace("\r", "\n")       # detectors' and parsers' line anchors want LF
    if format is not None:
        if format not in SOLUTION_FORMATS:
            known = ", ".join([*SOLUTION_FORMATS, *BINARY_SOLUTION_FORMATS])
            raise FormatError(f"{where}: unknown solution format {format!r}; known: {known}")
        fmt = SOLUTION_FORMATS[format]
    else:
        fmt = _detected(text, where)
    if fmt.lines_bounded:
        _check_lines(text, man, where, size_limit)
    return _vector(fmt.parse(text, where), fmt.name, man, where, path)


def _vector(raw: RawSolution, name: str, man: Manifest | None, where: str, path: Path) -> SolutionVector:
    """A parsed answer mapped onto the convention's positions (and the export's auxiliary columns)."""
    name = raw.format or name
    values, conv, aux = solution_vector(raw, man, where, name)
    aux_columns = None if aux is None or man is None else man.columns[man.columns >= conv.n_vars]
    return SolutionVector(values, name, raw.status, raw.objective, conv, path, aux, aux_columns, raw.note)


__all__ = ["BINARY_SOLUTION_FORMATS", "SOLUTION_FORMATS", "BinarySolutionFormat", "RawSolution", "SolutionFormat",
           "SolutionVector", "detect_solution_format", "read_solution", "register_binary_solution_format",
           "register_solution_format", "solution_bytes_limit"]
