"""Checks of a level 5 MAT-file's bytes before scipy.io reads them: the one guard of every reader
of ``.mat`` files (a saved answer, :mod:`formats.solutions.matfile`; ``model.mat``,
:mod:`formats.matlab`).

scipy.io takes a level 5 file on trust: one changed byte (an element's type, a sparse array's row
index) crashed the whole process (a segmentation fault or bus error, not an exception), and a
small file whose compressed variable inflates to gigabytes was inflated whole. Here a file is
walked without scipy (:func:`check_mat5`): each compressed variable is inflated once, a slice at a
time, and refused once past what its header says it holds; each array the reader loads is then
checked as scipy would read it. It raises :class:`~pipeline.core.errors.FormatError` (one line
naming the file) and passes over what is not a level 5 file (scipy's own error says it then).
"""
from __future__ import annotations

import struct
import zlib
from typing import Collection

import numpy as np

from pipeline.core.errors import FormatError

__all__ = ["INFLATED_FLOOR", "INFLATED_SLACK", "check_mat5", "is_level5"]

#: Bytes a compressed array may inflate to beyond what its values take: its header, name and padding.
INFLATED_SLACK = 1 << 16
#: What any compressed struct, cell or unknown array may inflate to, at least (their sizes are their
#: children's, which the header does not say).
INFLATED_FLOOR = 1 << 26
#: A level 5 MAT-file's element types (a compressed element, the array inside it) and the
#: array classes whose values are all stored in place (char, then double to uint64).
_MI_COMPRESSED, _MI_MATRIX = 15, 14
_DENSE_CLASSES = frozenset([4, *range(6, 16)])
#: numpy types of a level 5 MAT-file's numeric data elements (miINT8 .. miUINT64, miUTF8 ..).
_MI_DTYPES = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8", 12: "i8", 13: "u8",
              16: "u1", 17: "u2", 18: "u4"}
#: Array classes (mxCELL, mxSTRUCT, mxSPARSE) and the flag of an imaginary part.
_MX_CELL, _MX_STRUCT, _MX_SPARSE, _COMPLEX_FLAG = 1, 2, 5, 0x0800
#: What the array checks read: a file's bytes, an inflated variable, or a view of either.
_Bytes = bytes | bytearray | memoryview
#: How deep cells and structs may nest in a file whose every array is checked (``model.mat``: 3).
_MOST_DEPTH = 16


def is_level5(data: bytes) -> bool:
    """Would scipy.io read ``data`` as a level 5 MAT-file? As it decides: no zero byte in the
    first four (a level 4 file's type word has some) and an endian mark at 126. The header's
    text is not read (a file whose ``MATLAB 5`` was altered went past these checks to scipy)."""
    return len(data) >= 136 and 0 not in data[:4] and data[126:128] in (b"IM", b"MI")


def _array_header(head: _Bytes, order: str) -> tuple[str, int, int, int] | None:
    """Name, class, value count and ``nzmax`` (a sparse array's stored values) in the header of an
    inflated ``miMATRIX`` (its tag, the flags and dimensions sub-elements, then the name); None
    when ``head`` is not such a header."""
    try:
        kind, _ = struct.unpack_from(order + "II", head, 0)
        flags, nzmax = struct.unpack_from(order + "II", head, 16)
        dims_kind, dims_bytes = struct.unpack_from(order + "II", head, 24)
        if kind != _MI_MATRIX or dims_kind >> 16 or dims_bytes % 4 or dims_bytes > 256:
            return None
        dims = np.frombuffer(head, dtype=order + "i4", count=dims_bytes // 4, offset=32)
        at = 32 + dims_bytes + (-dims_bytes % 8)
        name_kind, name_bytes = struct.unpack_from(order + "II", head, at)
        name = head[at + 4:at + 4 + (name_kind >> 16)] if name_kind >> 16 else head[at + 8:at + 8 + name_bytes]
        if flags & 0xFF == _MX_SPARSE:   # its values: nzmax row indices and values, a pointer a column
            count = int(nzmax) + (int(dims[1]) + 1 if dims.size > 1 else 0)
        else:
            count = int(np.prod(dims, dtype=np.float64))
        return bytes(name).decode("ascii"), flags & 0xFF, count, int(nzmax)
    except (struct.error, UnicodeDecodeError, ValueError, OverflowError):
        return None


def check_mat5(data: bytes, where: str, *, others: int, others_per_numeric_byte: float = 0.0,
               most_total: int | None = None, sparse: int | None = None, nested: bool = False,
               only: Collection[str] | None = None) -> None:
    """Refuse a level 5 MAT-file that scipy.io would inflate past what it says it holds, or crash
    on, before scipy reads anything. Each compressed variable is inflated once, a slice at a time:

    * refused once past what its header says it holds (``whosmat`` too inflates every variable:
      a 4 MB file declaring a 1x729 array over 4 GB of zeros made ``import`` take 4.5 GB), the
      slices counted and, for a variable scipy does not read, never kept;
    * then, for a variable the reader loads, each array checked as scipy would read it: scipy
      takes element types and a sparse array's row indices on trust, and one changed byte crashed
      the process (a segmentation fault or bus error, not an exception).

    Every variable's size is checked before any array's damage is said: a file holding both is
    refused for its size, as when the two checks walked the file one after the other.

    Parameters
    ----------
    data : bytes
        The file's bytes.
    where : str
        The file, as error lines name it.
    others : int
        What a struct, cell or array of another class may inflate to (its size is its children's,
        which its header does not say). A dense numeric or char array may take 16 bytes a value of
        its dimensions and :data:`INFLATED_SLACK`.
    others_per_numeric_byte : float
        Raises ``others`` to this many times the bytes the numeric and sparse arrays before such a
        variable inflated to (``model.mat``'s ``problem`` holds ``Aeq`` again and every name).
    most_total : int, optional
        What the whole file may inflate to.
    sparse : int, optional
        What a sparse array may inflate to; by default what its header says: 20 bytes a stored
        value (``nzmax``), 16 a column and the slack (a header read only to find the answer's
        size needs no more than a bound).
    nested : bool
        Check the arrays inside structs and cells too, and refuse arrays of other classes (for
        a reader that loads whole variables, as :mod:`formats.matlab` does ``model.mat``'s).
    only : collection of str, optional
        The variables the reader loads (scipy's ``variable_names``): the others are only counted.

    Raises
    ------
    FormatError
        A variable, or the file, inflates past its bound, or its compressed data is damaged; or
        a numeric array is damaged.
    """
    if not is_level5(data):
        return
    order, pos, numeric, total, damaged = ("<" if data[126:128] == b"IM" else ">"), 128, 0, 0, None
    while pos + 8 <= len(data):
        kind, nbytes = struct.unpack_from(order + "II", data, pos)
        if kind >> 16:   # a small element: its data in the tag's second word
            pos += 8
            continue
        element: _Bytes | None = None   # what is array-checked: a loaded variable's inflated (or stored) bytes
        if kind == _MI_COMPRESSED:
            loose = max(others, int(others_per_numeric_byte * numeric))
            try:
                inflated, counted, element = _inflate_bounded(
                    data, pos + 8, min(pos + 8 + nbytes, len(data)), order, loose, sparse,
                    None if most_total is None else most_total - total, where, only)
            except zlib.error as e:
                raise FormatError(f"{where}: not a readable MAT-file (compressed data at byte {pos + 8} is damaged: "
                                  f"{e})") from None
            total += inflated
            numeric += inflated if counted else 0
        else:   # stored whole: a view, cut short to what there is (scipy.io reads that much)
            element = memoryview(data)[pos:pos + 8 + nbytes]
            element = element if only is None or (_array_header(element, order) or ("",))[0] in only else None
        pos += 8 + nbytes + (0 if kind == _MI_COMPRESSED else -nbytes % 8)
        if damaged is None and element is not None:
            damaged = _element_problem(element, order, nested)
    if damaged:
        raise FormatError(f"{where}: variable {damaged[0]!r} is a damaged array ({damaged[1]}): not a MAT-file "
                          f"saved by MATLAB or Octave?")


def _inflate_bounded(data: bytes, start: int, stop: int, order: str, loose: int, sparse: int | None,
                     left: int | None, where: str, only: Collection[str] | None) -> tuple[int, bool, bytearray | None]:
    """Inflate ``data[start:stop]`` (one compressed variable) a slice at a time, refusing it once
    past what its header says it holds, or past ``left`` bytes; its inflated size, whether it is
    a numeric or sparse array (bounded by its header), and its inflated bytes when the reader
    loads it (its name in ``only``, or no ``only``), else None (never kept)."""
    inflate = zlib.decompressobj()
    header = _array_header(inflate.decompress(data[start:min(stop, start + 4096)], 1024), order)
    name, array_class, count, nzmax = header or ("?", 0, 0, 0)
    # an honest array passes (whatever its size: a reader checks the size from the header next);
    # what it cannot hold is refused
    numeric = array_class in _DENSE_CLASSES or array_class == _MX_SPARSE
    most = 16 * count + 4 * nzmax + INFLATED_SLACK if numeric else loose
    if array_class == _MX_SPARSE and sparse is not None:
        most = sparse
    kept = bytearray() if only is None or (header[0] if header else "") in only else None
    inflate, total = zlib.decompressobj(), 0
    for at in range(start, stop, 1 << 20):
        chunk = data[at:min(at + (1 << 20), stop)]
        while chunk:
            piece = inflate.decompress(chunk, 1 << 20)
            total += len(piece)
            chunk = inflate.unconsumed_tail
            if total > most:
                raise FormatError(f"{where}: variable {name!r} inflates to more than {most:,} bytes, more than its "
                                  f"header says it holds: not a MAT-file saved by MATLAB or Octave?")
            if left is not None and total > left:
                raise FormatError(f"{where}: its variables inflate to more than a file of {len(data):,} bytes "
                                  f"holds (at variable {name!r}): not a MAT-file saved by MATLAB or Octave?")
            if kept is not None:
                kept += piece
    return total, numeric, kept


def _element_problem(element: _Bytes, order: str, nested: bool) -> tuple[str, str] | None:
    """(name, what is wrong) of one variable's ``miMATRIX`` element (its tag then body), which
    :func:`_array_problem` finds damaged, else None (sound, or no ``miMATRIX``)."""
    if len(element) < 8 or struct.unpack_from(order + "I", element, 0)[0] != _MI_MATRIX:
        return None
    length = struct.unpack_from(order + "I", element, 4)[0]
    body = memoryview(element)[8:8 + length]   # a view: a 100x100's Aeq is not copied again
    problem = _array_problem(body, order, cut=8 + length > len(element), depth=0 if nested else None)
    if not problem:
        return None
    header = _array_header(memoryview(element), order)
    return (header[0] if header else "?"), problem


def _data_elements(body: _Bytes, order: str) -> tuple[list[np.ndarray], bool] | None:
    """The data elements inside one ``miMATRIX`` (flags, dimensions, name, then its arrays), each
    as the numbers its tag declares, and whether they end within ``body`` (False: the last runs
    past its end); None when a tag names no numeric type."""
    found: list[np.ndarray] = []
    pos = 0
    while pos + 8 <= len(body):
        kind, nbytes = struct.unpack_from(order + "II", body, pos)
        if kind >> 16:   # a small element: up to 4 bytes in the tag's second word
            kind, nbytes, start, pos = kind & 0xFFFF, kind >> 16, pos + 4, pos + 8
            if nbytes > 4:
                return None
        else:
            start, pos = pos + 8, pos + 8 + nbytes + (-nbytes % 8)
        dtype = _MI_DTYPES.get(kind)
        if dtype is None or nbytes % np.dtype(dtype).itemsize:
            return None
        if start + nbytes > len(body):
            return found, False
        found.append(np.frombuffer(body, dtype=order + dtype, count=nbytes // np.dtype(dtype).itemsize, offset=start))
    return found, True


def _children_problem(body: _Bytes, order: str, flags: int, depth: int) -> str | None:
    """What is wrong with a cell's elements or a struct's fields (each a whole ``miMATRIX``: one
    per element, or per field and element), checked as any array; None when all are sound."""
    if depth > _MOST_DEPTH:
        return f"cells or structs nested more than {_MOST_DEPTH} deep"
    heads, pos = [], 0
    for _ in range(5 if flags & 0xFF == _MX_STRUCT else 3):   # flags, dimensions, name (field names' length, names)
        if pos + 8 > len(body):
            return "a header that ends early"
        kind, nbytes = struct.unpack_from(order + "II", body, pos)
        small = kind >> 16
        heads.append((kind & 0xFFFF if small else kind, pos + 4 if small else pos + 8, small or nbytes))
        pos += 8 if small else 8 + nbytes + (-nbytes % 8)
    dims_kind, dims_at, dims_bytes = heads[1]
    if dims_kind != 5 or dims_bytes % 4 or dims_at + dims_bytes > len(body):
        return "dimensions that are no int32 counts"
    dims = np.frombuffer(body, dtype=order + "i4", count=dims_bytes // 4, offset=dims_at)
    if (dims < 0).any():
        return "a negative dimension"
    count = int(np.prod(dims, dtype=np.float64))
    if flags & 0xFF == _MX_STRUCT:
        (length_kind, length_at, _), (_, _, names_bytes) = heads[3], heads[4]
        length = struct.unpack_from(order + "i", body, length_at)[0] if length_at + 4 <= len(body) else 0
        if length_kind != 5 or not 0 < length <= 4096 or names_bytes % length:
            return "field names of no consistent length"
        count *= names_bytes // length
    found = 0
    while pos + 8 <= len(body):
        kind, nbytes = struct.unpack_from(order + "II", body, pos)
        if kind != _MI_MATRIX or pos + 8 + nbytes > len(body):
            return "an element that is no whole array"
        problem = _array_problem(body[pos + 8:pos + 8 + nbytes], order, depth=depth + 1)
        if problem:
            return problem
        found, pos = found + 1, pos + 8 + nbytes + (-nbytes % 8)
    if found != count:
        return f"{found} elements or fields for its {count:,}"
    return None


def _array_problem(body: _Bytes, order: str, cut: bool = False, depth: int | None = None) -> str | None:
    """What makes the ``miMATRIX`` ``body`` an array scipy.io would crash on (a data element of no
    numeric type or past the array's end; for a sparse one also a row index outside the rows,
    column pointers that do not run from 0 up to at most the stored values), or None (a sound
    array). A struct or cell is passed over when ``depth`` is None (scipy reads those only when
    asked: a saved answer's are never read); else its elements are checked too, and an array of
    any other class (an object, a function handle) is refused. ``cut``: the file ends inside the
    array, whose last element may then run past ``body``."""
    # the class in the array flags, where scipy.io reads it whatever the flags' tag says
    flags = struct.unpack_from(order + "I", body, 8)[0] if len(body) >= 12 else 0
    if depth is not None and len(body) >= 12 and flags & 0xFF in (_MX_CELL, _MX_STRUCT):
        return _children_problem(body, order, flags, depth) if not cut else "a struct or cell cut short"
    if flags & 0xFF not in (_MX_SPARSE, *_DENSE_CLASSES):
        return f"an array of class {flags & 0xFF}" if depth is not None and len(body) >= 12 else None
    elements = _data_elements(body, order)
    if elements is None:
        return "a data element of no numeric type"
    parts, whole = elements
    if not whole and not cut:
        return "a data element past the variable's end"
    if flags & 0xFF != _MX_SPARSE or not whole:
        return None
    complex_ = bool(flags & _COMPLEX_FLAG)
    if len(parts) != 6 + complex_ or parts[1].size != 2:
        return f"{len(parts)} data elements and {parts[1].size if len(parts) > 1 else 0} dimensions"
    rows, cols = (int(v) for v in parts[1])
    ir, jc, values = parts[3], parts[4], parts[5:]
    if ir.dtype.kind not in "iu" or jc.dtype.kind not in "iu" or rows < 0 or cols < 0:
        return "row indices or column pointers that are not integers"
    jc = jc.astype(np.int64)
    if jc.size != cols + 1 or jc[0] != 0 or (np.diff(jc) < 0).any() or jc[-1] > min(ir.size, *(v.size for v in values)):
        return "column pointers that do not run from 0 up to its stored values"
    used = ir[:int(jc[-1])].astype(np.int64)
    if used.size and (used.min() < 0 or used.max() >= rows):
        return f"a row index outside its {rows} rows"
    return None
