"""MATLAB and Octave saved variables: ``save answer.mat x`` (a MAT-file, v4 to v7) and Octave's
default text format (``save answer.txt x``), holding the ``x`` that ``intlinprog`` returned (in
the export's column order, as the ``vector`` CSV reader takes it) or a grid.

The answer is the file's one numeric top-level variable, else the one named ``x``; a square
matrix is read as a grid, any other array as positions in MATLAB's column-major order (``x(:)``:
a vector, or ``X = reshape(x, N, N, N)``). A MATLAB 7.3 MAT-file (HDF5) and
Octave's own binary format are refused naming the ``save`` option that writes a readable one.
Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import FormatError

from formats.mat5_guard import INFLATED_FLOOR, check_mat5
from formats.solutions.base import (BinarySolutionFormat, RawSolution, SolutionFormat,
                                    register_binary_solution_format, register_solution_format)
from formats.solutions.common import parse_floats
from formats.solutions.tables import grid_solution

#: The variable taken when a file holds several numeric ones (what ``solve_sudoku.m`` and
#: MATLAB's documentation call ``intlinprog``'s answer).
ANSWER_NAME = "x"
#: MAT-file classes that hold numbers (``scipy.io.whosmat``'s names).
_NUMERIC_CLASSES = {"double", "single", "logical", "sparse", "int8", "uint8", "int16", "uint16", "int32",
                    "uint32", "int64", "uint64"}
_HDF5 = b"\x89HDF\r\n\x1a\n"
#: The most values a saved answer may hold, checked from its header before anything is allocated
#: (an x over every position of a 200x200 grid, four times over: a sparse 1e9-by-1 header is refused).
MOST_VALUES = 4 * 200 ** 3
#: How to save a file this module reads, said when one it cannot read is given.
_SAVE_READABLE = ("save it with -v7 (save('answer.mat', 'x', '-v7')), as Octave text (save answer.txt x), "
                  "or write x with writematrix(x, 'x.csv')")


def _answer_name(found: dict[str, tuple[int, ...]], others: list[str], where: str) -> str:
    """The variable to read among ``found`` (numeric variables and their shapes)."""
    if len(found) == 1:
        return next(iter(found))
    if ANSWER_NAME in found:
        return ANSWER_NAME
    if not found:
        held = f" (it holds {', '.join(others[:8])}: none numeric)" if others else " (it holds no variable)"
        raise FormatError(f"{where}: no numeric variable to read as the answer{held}")
    raise FormatError(f"{where}: holds {len(found)} numeric variables ({', '.join(list(found)[:8])}) and none named "
                      f"{ANSWER_NAME!r}: save only the answer (save answer.mat x)")


def _answer(values: np.ndarray, name: str, where: str) -> RawSolution:
    """A saved variable as an answer: a vector over the export's columns, or a grid."""
    values = np.asarray(values)
    if np.iscomplexobj(values):   # MATLAB keeps a complex x complex: its imaginary parts must be 0
        if np.any(values.imag != 0):
            raise FormatError(f"{where}: variable {name!r} holds complex values; an answer is real")
        values = values.real
    if values.dtype.kind not in "biuf":
        raise FormatError(f"{where}: variable {name!r} holds {values.dtype.name} values, not numbers")
    if values.ndim == 2 and values.shape[0] == values.shape[1] > 1:
        return grid_solution(values.astype(float), f"{where} ({name})")
    # a vector, or x reshaped (X = reshape(x, N, N, N), as the export's script decodes it): x(:),
    # MATLAB's column-major order
    flat = values.astype(float).ravel(order="F")
    if not np.isfinite(flat).all():
        k = int(np.flatnonzero(~np.isfinite(flat))[0])
        raise FormatError(f"{where}: value {flat[k]} at position {k + 1} of {name!r} is not a number")
    return RawSolution("positions", flat, dense=True, full_ok=True)


# -- MAT-files ---------------------------------------------------------------------------------

def _detect_mat(head: bytes) -> bool:
    return head.startswith((b"MATLAB ", b"Octave-1-", _HDF5)) or _is_mat4(head)


def _is_mat4(head: bytes) -> bool:
    """A MAT-file of level 4 (``save -v4``), which has no text header: its first variable's
    header of five little- or big-endian int32 (type ``MOPT``, rows, columns, imaginary flag,
    name length) and a name of printable ASCII ending in a NUL."""
    if len(head) < 21:
        return False
    for order in ("<", ">"):
        mopt, rows, cols, imag, length = np.frombuffer(head[:20], dtype=f"{order}i4")
        machine, zero, precision, kind = mopt // 1000, mopt // 100 % 10, mopt // 10 % 10, mopt % 10
        if not (0 <= mopt < 5000 and zero == 0 and precision <= 5 and kind <= 2 and imag in (0, 1)
                and machine == (0 if order == "<" else 1) and rows >= 0 and cols >= 0 and 1 < length <= 64):
            continue
        name = head[20:20 + int(length)]
        if len(name) == length and name.endswith(b"\0") and name[:-1].isascii() and name[:-1].decode().isidentifier():
            return True
    return False


def _parse_mat(data: bytes, where: str, most_values: int) -> RawSolution:
    """The answer variable of a MAT-file (v4 to v7, compressed or not), read with scipy."""
    if data.startswith(b"Octave-1-"):
        raise FormatError(f"{where}: an Octave binary file (save -binary), which only Octave reads: {_SAVE_READABLE}")
    if data.startswith(_HDF5) or data.startswith(b"MATLAB 7.3"):
        raise FormatError(f"{where}: an HDF5 file (a MATLAB 7.3 MAT-file, or Octave save -hdf5): {_SAVE_READABLE}")
    from scipy.io import loadmat, whosmat   # scipy.io only for an answer that is a MAT-file

    _check_mat5(data, most_values, where)
    try:
        listed = whosmat(io.BytesIO(data))
    except Exception as e:   # scipy raises many kinds for a damaged file: one line, whichever
        raise FormatError(f"{where}: not a readable MAT-file ({_scipy_reason(e)})") from None
    found = {name: tuple(shape) for name, shape, kind in listed if kind in _NUMERIC_CLASSES}
    name = _answer_name(found, [name for name, _, _ in listed], where)
    size, most = int(np.prod(found[name], dtype=np.float64)), min(most_values, MOST_VALUES)
    if size > most:   # the header's sizes, before any data is inflated
        raise FormatError(f"{where}: variable {name!r} holds {size:,} values, more than an answer of the model "
                          f"has: at most {most:,}")
    try:
        values = loadmat(io.BytesIO(data), variable_names=[name], squeeze_me=False)[name]
    except Exception as e:
        kind = dict((n, k) for n, _, k in listed).get(name)
        if kind in ("sparse", "logical") and isinstance(e, ValueError) and "reshape" in str(e):
            # scipy.io lists a sparse logical array as logical, and cannot read it
            raise FormatError(f"{where}: variable {name!r} is a sparse array scipy.io cannot read (a sparse logical "
                              f"one): save full(double({name})) instead") from None
        raise FormatError(f"{where}: variable {name!r} is not readable ({_scipy_reason(e)})") from None
    if hasattr(values, "toarray"):   # a sparse matrix (save of a sparse x)
        values = values.toarray()
    return _answer(values, name, where)


#: What a struct, cell or sparse array may inflate to per value of the model's answer (at least
#: :data:`~formats.mat5_guard.INFLATED_FLOOR`).
INFLATED_PER_VALUE = 256


def _check_mat5(data: bytes, most_values: int, where: str) -> None:
    """:mod:`formats.mat5_guard`'s checks, with an answer's bounds: a struct or cell (never read,
    but inflated by ``whosmat``) or sparse array may take what 256 bytes a value of the model's
    answer do."""
    loose = max(INFLATED_FLOOR, INFLATED_PER_VALUE * most_values)
    check_mat5(data, where, others=loose, sparse=loose)


def _scipy_reason(error: Exception) -> str:
    """scipy.io's complaint in a few words: a file cut short is said to be (scipy's own words vary
    with where it was cut, and advise listing its matrices with ``whosmat``)."""
    text = " ".join(str(error).split())
    if isinstance(error, (TypeError, OSError)) or re.search(r"truncated|[Nn]ot enough bytes|too small|could not read",
                                                            text):
        return "the file ends early: truncated?"
    return f"{type(error).__name__}: {text.split('; ')[0][:120]}"


register_binary_solution_format(BinarySolutionFormat(
    "mat", "MAT-file (MATLAB/Octave save, v4-v7): the variable x, or the one numeric variable",
    _detect_mat, _parse_mat))


# -- Octave text -------------------------------------------------------------------------------

_OCTAVE_VARIABLE = re.compile(r"^# name: (\S+)[ \t]*\r?\n", re.M)
_OCTAVE_KEY = re.compile(r"^# (\w+): *(.*?)[ \t\r]*$", re.M)
_OCTAVE_COMPLEX = re.compile(r"\(([^,()]*),([^,()]*)\)")
#: Octave's numeric types (``global`` ones too): scalars, full and sparse matrices of doubles,
#: singles, logicals, complex numbers and integers, and ranges
_OCTAVE_NUMERIC = re.compile(r"(?:(?:float |u?int(?:8|16|32|64) )?(?:complex )?(?:scalar|matrix)|bool(?: matrix)?"
                             r"|sparse (?:bool |complex )?matrix|bool sparse matrix|(?:double_)?range)")


def _detect_octave_text(head: str) -> bool:
    return re.search(r"^# name: \S+[ \t]*\r?\n# type: ", head, re.M) is not None


@dataclass(frozen=True)
class _OctaveVariable:
    """One ``# name:`` block of Octave's text format: its header keys and where its body starts
    and ends in the text (up to the next block, a struct's field or a cell's element included)."""

    name: str
    kind: str
    keys: dict
    body: int
    end: int

    def count(self, key: str, where: str) -> int:
        text = self.keys.get(key, "")
        if not text.isdigit():
            raise FormatError(f"{where} ({self.name}): '# {key}:' is {text!r}, not a count")
        return int(text)

    def children(self) -> int:
        """How many blocks that follow are this one's (a struct's fields, a cell's elements):
        Octave writes them as blocks of their own, unindented."""
        keys = {"scalar struct": ("length",), "struct": ("length",), "cell": ("rows", "columns")}.get(self.kind, ())
        counts = [self.keys.get(key, "") for key in keys]
        if not counts or not all(c.isdigit() for c in counts):
            return 0
        return int(np.prod([int(c) for c in counts], dtype=np.float64))


def _octave_variables(text: str) -> list[_OctaveVariable]:
    """The top-level variables of an Octave text file: a struct's fields and a cell's elements
    (blocks named like any variable, ``x`` too) are skipped with their parent."""
    marks = list(_OCTAVE_VARIABLE.finditer(text))
    blocks = []
    for k, mark in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        at = mark.end()
        while at < end and text.startswith("#", at):   # the header: the body starts after it
            line_end = text.find("\n", at, end)
            at = end if line_end < 0 else line_end + 1
        # every key up to the next block: a struct's "# length:" comes after its line of dimensions
        keys = {key.group(1): key.group(2) for key in _OCTAVE_KEY.finditer(text, mark.end(), end)}
        kind = keys.get("type", "").removeprefix("global ")
        blocks.append(_OctaveVariable(mark.group(1), kind, keys, min(at, end), end))
    top, k = [], 0
    while k < len(blocks):   # blocks in pre-order: a parent's descendants follow it
        top.append(blocks[k])
        pending, k = blocks[k].children(), k + 1
        while pending > 0 and k < len(blocks):
            pending, k = pending - 1 + blocks[k].children(), k + 1
    return top


def _octave_shape(var: _OctaveVariable, text: str, where: str) -> tuple[int, ...]:
    """A numeric variable's size, from its header (N-d arrays: the line of dimensions after it)."""
    here = f"{where} ({var.name})"
    if var.kind.endswith("scalar") or var.kind == "bool":
        return (1, 1)
    if var.kind.endswith("range"):
        base, limit, step = _range_of(var, text, here)
        return (1, max(int((limit - base) // step) + 1, 0) if step and np.isfinite((limit - base) / step) else 0)
    if "ndims" in var.keys:
        ndims = var.count("ndims", where)
        dims = parse_floats(text[var.body:var.end].split(None, ndims)[:ndims], here, "dimension")
        if dims.size != ndims or not (np.isfinite(dims) & (dims >= 0) & (dims == np.rint(dims))).all():
            # (a size too large for an answer is said with the file's bound, after this)
            raise FormatError(f"{here}: the dimensions {' '.join(f'{d:g}' for d in dims)} are not {ndims} counts")
        return tuple(int(d) for d in dims)
    return var.count("rows", where), var.count("columns", where)


def _range_of(var: _OctaveVariable, text: str, here: str) -> tuple[float, float, float]:
    """A range's base, limit and increment (Octave writes them on the line after its header)."""
    values = parse_floats(text[var.body:var.end].split()[:3], here, "value")
    if values.size != 3:
        raise FormatError(f"{here}: a range needs its base, limit and increment")
    return float(values[0]), float(values[1]), float(values[2])


def _octave_numbers(tokens: list[str], here: str, complex_values: bool) -> np.ndarray:
    """Values written as numbers, or as ``(re,im)`` pairs for a complex type."""
    if not complex_values:
        return parse_floats(tokens, here, "value")
    pairs = [_OCTAVE_COMPLEX.fullmatch(token) for token in tokens]
    if not all(pairs):
        bad = next(token for token, pair in zip(tokens, pairs) if not pair)
        raise FormatError(f"{here}: value {bad[:30]!r} is not a complex number (re,im)")
    parts = parse_floats([part for pair in pairs if pair for part in pair.groups()], here, "value").reshape(-1, 2)
    return parts[:, 0] + 1j * parts[:, 1]


def _octave_values(var: _OctaveVariable, text: str, shape: tuple[int, ...], where: str) -> np.ndarray:
    """The values of a numeric variable whose size was checked."""
    here = f"{where} ({var.name})"
    complex_values = "complex" in var.kind
    tokens = text[var.body:var.end].split()
    if var.kind.endswith("range"):
        base, _, step = _range_of(var, text, here)
        return base + step * np.arange(shape[1], dtype=float).reshape(shape)
    if var.kind.startswith(("sparse", "bool sparse")):
        nnz = var.count("nnz", where)
        if complex_values:
            triples = np.column_stack([parse_floats(tokens[0:3 * nnz:3], here, "row"),
                                       parse_floats(tokens[1:3 * nnz:3], here, "column"),
                                       _octave_numbers(tokens[2:3 * nnz:3], here, True)])
        else:
            triples = parse_floats(tokens[:3 * nnz], here, "value").reshape(-1, 3)
        rows, cols = shape
        inside = (triples[:, 0].real >= 1) & (triples[:, 0].real <= rows) & (triples[:, 1].real >= 1) & (
            triples[:, 1].real <= cols)
        if triples.shape[0] != nnz or not inside.all():
            raise FormatError(f"{here}: the sparse entries do not fit its {rows}x{cols} size and {nnz} nonzeros")
        dense = np.zeros(shape, dtype=triples.dtype)
        dense[triples[:, 0].real.astype(int) - 1, triples[:, 1].real.astype(int) - 1] = triples[:, 2]
        return dense
    if "ndims" in var.keys:   # the line of dimensions first, then the values by column
        tokens = tokens[len(shape):]
    values = _octave_numbers(tokens, here, complex_values)
    if values.size != int(np.prod(shape, dtype=np.float64)):
        raise FormatError(f"{here}: {values.size:,} values for its {'x'.join(map(str, shape))} size")
    # an N-d array's values come by column; a matrix's a row a line
    return values.reshape(shape, order="F" if "ndims" in var.keys else "C")


def _parse_octave_text(text: str, where: str) -> RawSolution:
    """The answer variable of a file Octave's ``save`` wrote in its default text format (a
    workspace's other variables, strings, structs and cells are passed over unread)."""
    found: dict[str, tuple[int, ...]] = {}
    others: list[str] = []
    variables = {}
    for var in _octave_variables(text):
        if _OCTAVE_NUMERIC.fullmatch(var.kind):
            found[var.name] = _octave_shape(var, text, where)
            variables[var.name] = var
        else:
            others.append(var.name)
    name = _answer_name(found, others, where)
    size = int(np.prod(found[name], dtype=np.float64))
    most = min(MOST_VALUES, max(64 * len(text), 1 << 17))   # a sparse header's size, bounded before it is allocated
    if size > most:
        raise FormatError(f"{where}: variable {name!r} is {'x'.join(map(str, found[name]))}: {size:,} values, more "
                          f"than an answer has (at most {most:,} for a file of this size)")
    return _answer(_octave_values(variables[name], text, found[name], where), name, where)


register_solution_format(SolutionFormat("octave_text", "Octave save's text format: the variable x, or the one "
                                        "numeric variable", _detect_octave_text, _parse_octave_text,
                                        lines_bounded=False), before="sat_competition")
