"""MATLAB and Octave saved variables: ``save answer.mat x`` (a MAT-file, v4 to v7) and Octave's
default text format (``save answer.txt x``), holding the ``x`` that ``intlinprog`` returned (in
the export's column order, as the ``vector`` CSV reader takes it) or a grid.

The answer is the file's one numeric variable, else the one named ``x``; a vector is read as
positions, a matrix of more than one row and column as a grid. A MATLAB 7.3 MAT-file (HDF5) and
Octave's own binary format are refused naming the ``save`` option that writes a readable one.
Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

import io
import re

import numpy as np

from pipeline.core.errors import FormatError

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
    shape = values.shape
    if values.ndim > 2 or (values.ndim == 2 and min(shape) > 1 and values.size != max(shape) * min(shape)):
        raise FormatError(f"{where}: variable {name!r} is {'x'.join(map(str, shape))}: expected a vector or a grid")
    if values.ndim == 2 and min(shape) > 1:
        return grid_solution(values.astype(float), f"{where} ({name})")
    flat = values.astype(float).ravel()
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

    try:
        listed = whosmat(io.BytesIO(data))
    except Exception as e:   # scipy raises many kinds for a damaged file: one line, whichever
        raise FormatError(f"{where}: not a readable MAT-file ({type(e).__name__}: {' '.join(str(e).split())[:120]})") from None
    found = {name: tuple(shape) for name, shape, kind in listed if kind in _NUMERIC_CLASSES}
    name = _answer_name(found, [name for name, _, _ in listed], where)
    size = int(np.prod(found[name], dtype=np.float64))
    if size > most_values:   # the header's sizes, before any data is inflated
        raise FormatError(f"{where}: variable {name!r} holds {size:,} values, more than an answer of the model "
                          f"has: at most {most_values:,}")
    try:
        values = loadmat(io.BytesIO(data), variable_names=[name], squeeze_me=False)[name]
    except Exception as e:
        raise FormatError(f"{where}: variable {name!r} is not readable ({type(e).__name__}: "
                          f"{' '.join(str(e).split())[:120]})") from None
    if hasattr(values, "toarray"):   # a sparse matrix (save of a sparse x)
        values = values.toarray()
    return _answer(values, name, where)


register_binary_solution_format(BinarySolutionFormat(
    "mat", "MAT-file (MATLAB/Octave save, v4-v7): the variable x, or the one numeric variable",
    _detect_mat, _parse_mat))


# -- Octave text -------------------------------------------------------------------------------

_OCTAVE_VARIABLE = re.compile(r"^# name: (\S+)[ \t]*\r?\n", re.M)
_OCTAVE_KEY = re.compile(r"^# (\w[\w ]*): *(.*?)\s*$")


def _detect_octave_text(head: str) -> bool:
    return re.search(r"^# name: \S+[ \t]*\r?\n# type: ", head, re.M) is not None


def _octave_block(block: str, name: str, where: str) -> np.ndarray | None:
    """The numbers of one variable of Octave's text format, None when it holds none (a string,
    a cell, a struct)."""
    keys: dict[str, str] = {}
    lines = block.splitlines()
    at = 0
    while at < len(lines) and lines[at].startswith("#"):
        key = _OCTAVE_KEY.match(lines[at])
        if key:
            keys[key.group(1)] = key.group(2)
        at += 1
    kind = keys.get("type", "")
    body = " ".join(lines[at:]).split()
    here = f"{where} ({name})"

    def count(key: str) -> int:
        text = keys.get(key, "")
        if not text.isdigit():
            raise FormatError(f"{here}: '# {key}:' is {text!r}, not a count")
        return int(text)
    if kind == "scalar" or kind.endswith(" scalar"):
        return parse_floats(body[:1], here, "value")
    if kind == "sparse matrix" or kind == "bool sparse matrix":
        rows, cols, nnz = count("rows"), count("columns"), count("nnz")
        triples = parse_floats(body[:3 * nnz], here, "value").reshape(-1, 3)
        dense = np.zeros((rows, cols))
        inside = (triples[:, 0] >= 1) & (triples[:, 0] <= rows) & (triples[:, 1] >= 1) & (triples[:, 1] <= cols)
        if triples.shape[0] != nnz or not inside.all():
            raise FormatError(f"{here}: the sparse entries do not fit its {rows}x{cols} size and {nnz} nonzeros")
        dense[triples[:, 0].astype(int) - 1, triples[:, 1].astype(int) - 1] = triples[:, 2]
        return dense
    if kind in ("matrix", "bool matrix"):
        rows, cols = count("rows"), count("columns")
        values = parse_floats(body, here, "value")
        if values.size != rows * cols:
            raise FormatError(f"{here}: {values.size:,} values for its {rows}x{cols} size")
        return values.reshape(rows, cols)
    if kind.endswith(" matrix") and "ndims" in keys:   # int32 matrix: its dims, then the values by column
        ndims = count("ndims")
        dims = [int(d) for d in parse_floats(body[:ndims], here, "dimension")]
        values = parse_floats(body[ndims:], here, "value")
        if values.size != int(np.prod(dims, dtype=np.float64)):
            raise FormatError(f"{here}: {values.size:,} values for its {'x'.join(map(str, dims))} size")
        return values.reshape(dims, order="F")
    return None


def _parse_octave_text(text: str, where: str) -> RawSolution:
    """The answer variable of a file Octave's ``save`` wrote in its default text format."""
    marks = list(_OCTAVE_VARIABLE.finditer(text))
    found: dict[str, np.ndarray] = {}
    others: list[str] = []
    for k, mark in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        values = _octave_block(text[mark.end():end], mark.group(1), where)
        if values is None:
            others.append(mark.group(1))
        else:
            found[mark.group(1)] = values
    name = _answer_name({n: v.shape for n, v in found.items()}, others, where)
    return _answer(found[name], name, where)


register_solution_format(SolutionFormat("octave_text", "Octave save's text format: the variable x, or the one "
                                        "numeric variable", _detect_octave_text, _parse_octave_text),
                         before="sat_competition")
