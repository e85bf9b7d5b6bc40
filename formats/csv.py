"""CSV: the seed's dense ``[A;B]`` matrix, MATLAB ``spconvert`` triplets, vectors, long form.

Files of an export (``N`` digits, ``m x n`` solver view):

* ``Aeq.csv``       dense 0/1, no header, ``m`` lines of ``n`` values (seed 000's ``matn.csv``);
  written by default only while it has at most ``DENSE_LIMIT`` entries (16 MB; every 16x16
  model), always with ``dense="always"`` (a 25x25 grid gives 78 MB, a 100x100 one 80 GB).
* ``Aeq_ijv.csv``, ``A_ijv.csv``, ``B_ijv.csv``  1-based ``i,j,v`` triplets ending with the
  size row ``m,n,0`` (``spconvert(load('A_ijv.csv'))`` in MATLAB).
* ``beq.csv``, ``lb.csv``, ``ub.csv``, ``f.csv``  one value per line.
* ``Aeq_long.csv``  ``row_label,col_name,value`` with a header, for pandas users.

A model with inequality rows (rules such as killer cages, thermometers, anti-knight) adds the
same three forms of ``Aineq`` and its right-hand side beside them: ``Aineq.csv`` (dense, written
with ``Aeq.csv``), ``Aineq_ijv.csv``, ``Aineq_long.csv`` (same columns as ``Aeq_long.csv``: the
file says the sense) and ``bineq.csv``, so ``intlinprog(f, intcon, Aineq, bineq, Aeq, beq, lb,
ub)`` takes the files as they are. ``beq.csv`` then holds the cage sums as well as the ones.
Plain puzzles write none of these (their files are unchanged).

One file (:func:`write`, ``formats.write_model(model, "x.csv")``) holds ``Aeq``; what it cannot
hold goes beside it under its own name: ``x_beq.csv``, ``x_lb.csv``, ``x_ub.csv``, ``x_f.csv``
where they are not the defaults, ``x_ineq.csv`` and ``x_bineq.csv`` for ``<=`` rows, and for the
long form ``x_columns.csv`` (the column names in order).

Reading (:func:`read`) takes any form of ``Aeq`` and its siblings: ``beq/lb/ub/f.csv``, the same
form of ``Aineq`` with ``bineq.csv``, and ``manifest.json`` (its metadata, the column names and
their order for the long form, whose columns otherwise come in the order of a one-file write's
list, else of first appearance).
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.csr import leading_rows
from pipeline.core.errors import clip, ConventionError, FormatError
from pipeline.core.manifest import MANIFEST_NAME, MAX_MANIFEST_N, column_positions

from formats.base import Format, ModelData, atomic_open, open_text, register
from formats.agree import refuse_disagreement
from formats.csv_long import all_integral, data_line, read_long_entries, value_parts, write_csv_chunks, write_long
from formats.files import load_manifest_file
from formats.staging import is_export_manifest, listed_export_files
from formats.text import bytes_table, dense_01_rows, first_repeat, number_strings, render_tokens

#: Most entries (rows x columns) of a dense ``Aeq.csv`` written by default (``dense="auto"``): two
#: bytes each, so at most 16 MB. Every 16x16 model fits (at most 1,312 x 4,096 = 5.4 million);
#: a 25x25 one has over 39 million (78 MB) and a 100x100 one 4 x 10^10: those need
#: ``dense="always"`` (``export --dense always``).
DENSE_LIMIT = 8_000_000
_CHUNK = 1 << 20  # nonzeros per write


def _integer_lines(columns: list[np.ndarray], start: int, stop: int, line_end: bytes = b"\n") -> bytes:
    """Rows ``start:stop`` of integer columns as comma-separated lines (the text pyarrow's CSV
    writer gives them), by :func:`~formats.text.render_tokens`; ``line_end`` ends each line (a
    constant last column is written there, as text, rather than rendered per line)."""
    block = np.empty((stop - start, len(columns)), dtype=np.int64)
    for k, col in enumerate(columns):
        block[:, k] = col[start:stop]
    ends = np.zeros(block.shape, dtype=bool)
    ends[:, -1] = True
    return render_tokens(block, sep=b",", line_end=line_end, ends_line=ends)


def triplet_text(matrix: sp.spmatrix) -> Iterator[bytes]:
    """The text of :func:`write_triplets`' file, in chunks of ``_CHUNK`` lines (pyarrow's CSV
    writer for values that are not integers).

    Parameters
    ----------
    matrix : scipy.sparse matrix
        The matrix.
    """
    import io
    csr = matrix.tocsr()
    size = b"%d,%d,0\n" % matrix.shape
    # a chunk of nonzeros at a time, in the CSR's order (a COO's): the whole matrix as COO and
    # as int64 columns was 0.26 GB for 7 M nonzeros. The values' form is the whole file's.
    integer = csr.nnz > 0 and all_integral(csr.data)
    constant = integer and all((part == csr.data[0]).all() for part in value_parts(csr.data))
    for start in range(0, csr.nnz, _CHUNK):
        stop = min(start + _CHUNK, csr.nnz)
        rows = np.searchsorted(csr.indptr, np.arange(start, stop), side="right")   # 1-based
        columns = [rows, csr.indices[start:stop].astype(np.int64) + 1, csr.data[start:stop]]
        if not integer:
            buffer = io.BytesIO()
            write_csv_chunks(buffer, columns)
            yield buffer.getvalue()
        elif constant:                     # the 0/1 matrices: every value 1, written as ",1\n"
            yield _integer_lines(columns[:2], 0, stop - start, b",%d\n" % int(csr.data[0]))
        else:
            yield _integer_lines(columns[:2] + [columns[2].astype(np.int32)], 0, stop - start)
    yield size


def write_triplets(matrix: sp.spmatrix, path: str | os.PathLike) -> Path:
    """``spconvert`` triplets: 1-based ``i,j,v`` sorted by row then column, then ``m,n,0``.

    Parameters
    ----------
    matrix : scipy.sparse matrix
        The matrix.
    path : str or Path
        The CSV file.
    """
    with atomic_open(path, "wb") as f:
        for chunk in triplet_text(matrix):
            f.write(chunk)
    return Path(path)


def _copy_file(source: Path, path: Path) -> Path:
    """``path`` written (atomically) with the bytes of ``source``: a file the export writes twice."""
    with open(source, "rb") as src, atomic_open(path, "wb") as f:
        shutil.copyfileobj(src, f, 1 << 23)
    return path


def _same_matrix(a: sp.spmatrix, b: sp.spmatrix) -> bool:
    """Whether two sparse matrices have the same shape, pattern and values (CSR, as written)."""
    if a is b:
        return True
    if a.shape != b.shape or a.nnz != b.nnz:
        return False
    a, b = a.tocsr(), b.tocsr()
    return bool(np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
                and np.array_equal(a.data, b.data))


def _finite(path, values: np.ndarray, what: str, *, infinite: bool = False, comment: str | None = None,
            header: bool = False) -> None:
    """FormatError at the line of the first NaN in ``values`` (rows = data lines), or of the
    first infinity unless ``infinite`` (only bounds may be infinite)."""
    bad = np.isnan(values) if infinite else ~np.isfinite(values)
    if bad.any():
        k = int(np.flatnonzero(bad.reshape(bad.shape[0], -1).any(axis=1))[0])
        raise FormatError(f"{path}: line {data_line(path, k, comment=comment, header=header)}: "
                          f"{what} is not {'a number' if infinite else 'a finite number'}")


def _refuse_repeats(path, keys: np.ndarray, what, *, comment: str | None = None, header: bool = False) -> None:
    """FormatError at the later line of the first entry listed twice (a sparse matrix would
    sum them: not the file's model)."""
    k = first_repeat(keys)
    if k is not None:
        raise FormatError(f"{path}: line {data_line(path, k, comment=comment, header=header)}: "
                          f"{what(k)} listed twice")


# Without a manifest the size row is bounded by the largest model a manifest may describe
# (N^3 columns at N = MAX_MANIFEST_N): the row sizes a sparse matrix's row pointer, so an unbounded
# one (999999999999) would be a MemoryError and 1e300 an OverflowError inside scipy.
MAX_TRIPLET_SIZE = MAX_MANIFEST_N ** 3


def read_triplets(path: str | os.PathLike, shape: tuple[int, int] | None = None) -> sp.csr_matrix:
    """Read ``spconvert`` triplets (last row ``m,n,0`` gives the size).

    Parameters
    ----------
    path : str or Path
        The CSV file.
    shape : tuple of int, optional
        The size the export's manifest gives the matrix: the size row must be exactly this,
        checked before anything is sized by it. Without it the size row is only bounded
        (:data:`MAX_TRIPLET_SIZE`).

    Returns
    -------
    scipy.sparse.csr_matrix
        The matrix.

    Raises
    ------
    FormatError
        Not three numeric columns, a bad or unexpected size row, an index outside it, an entry
        listed twice: one line naming the file.
    """
    import pandas as pd
    with open_text(path) as f:
        try:
            table = pd.read_csv(f, header=None, dtype=float, comment="%", skip_blank_lines=True)
        except FormatError:   # the file itself unreadable (a damaged gzip stream)
            raise
        except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
            raise FormatError(f"{path}: not an i,j,v triplet CSV ({str(e).splitlines()[0]})") from None
    if table.shape[1] != 3 or len(table) == 0:
        raise FormatError(f"{path}: expected 3 columns i,j,v with a final size row m,n,0")
    values = table.to_numpy()
    _finite(path, values, "a value", comment="%")
    m, n, zero = values[-1]
    body = values[:-1]
    if zero != 0 or m < 0 or n < 0 or m != np.round(m) or n != np.round(n):
        raise FormatError(f"{path}: last line must be the size row m,n,0, found {values[-1].tolist()}")
    # compared as floats, before int(): the size row must not size anything until it is trusted
    if shape is not None and (m, n) != tuple(shape):
        raise FormatError(f"{path}: size row {m:.15g},{n:.15g},0 is not the {shape[0]}x{shape[1]} matrix the "
                          f"manifest describes")
    if max(m, n) > MAX_TRIPLET_SIZE:
        raise FormatError(f"{path}: size row {m:.15g},{n:.15g},0 exceeds {MAX_TRIPLET_SIZE} rows or columns")
    fraction = np.flatnonzero((body[:, :2] != np.round(body[:, :2])).any(axis=1))
    if fraction.size:
        raise FormatError(f"{path}: line {data_line(path, int(fraction[0]), comment='%')}: an index is not an integer")
    # checked as floats, before the cast: 1e308 cast to int64 warned and wrapped past the check
    outside = np.flatnonzero((body[:, 0] < 1) | (body[:, 0] > m) | (body[:, 1] < 1) | (body[:, 1] > n))
    if outside.size:
        k = int(outside[0])
        raise FormatError(f"{path}: line {data_line(path, k, comment='%')}: index ({body[k, 0]:.15g}, "
                          f"{body[k, 1]:.15g}) lies outside the {int(m)}x{int(n)} size row")
    i, j = body[:, 0].astype(np.int64) - 1, body[:, 1].astype(np.int64) - 1
    _refuse_repeats(path, i * max(int(n), 1) + j, lambda k: f"entry ({i[k] + 1}, {j[k] + 1})", comment="%")
    return sp.csr_matrix((body[:, 2], (i, j)), shape=(int(m), int(n)))


def write_vector(values: np.ndarray, path: str | os.PathLike) -> Path:
    """One number per line (shortest round-trip text), atomically.

    Parameters
    ----------
    values : numpy.ndarray
        The numbers.
    path : str or Path
        The CSV file.
    """
    values = np.asarray(values, dtype=float).ravel()
    with atomic_open(path, "wb") as f:
        if values.size and np.all(values == np.rint(values)) and np.abs(values).max() < 10**7:
            f.write(render_tokens(values.astype(np.int64), sep=b"\n"))   # the integers' text, at once
        else:
            strings = number_strings(values)
            if strings.size:
                f.write(b"\n".join(strings.tolist()) + b"\n")
    return Path(path)


def read_vector(path: str | os.PathLike, *, infinite: bool = False) -> np.ndarray:
    """The numbers of a one-number-per-line CSV; FormatError naming the line of the first bad one.

    Parameters
    ----------
    path : str or Path
        The CSV file.
    infinite : bool
        Also take ``inf``/``-inf`` spelled out (bounds); otherwise only finite numbers.
    """
    with open_text(path) as f:
        text = f.read()
    tokens = text.replace(",", "\n").split()
    try:
        if "_" in text:                         # Python's float() would take 1_0
            raise ValueError
        values = np.array(tokens, dtype=float)
        bad = ~np.isfinite(values)
        if infinite and bad.any():              # 1e400 overflows to inf: not a spelled infinity
            spelled = np.char.find(np.char.lower(np.array(tokens)), "i") >= 0
            bad &= ~(np.isinf(values) & spelled)
        if not bad.any():
            return values
    except ValueError:
        pass
    for number, line in enumerate(text.splitlines(), 1):      # the way to the error: find its line
        for t in line.replace(",", " ").split():
            try:
                v = float(t.replace("_", "!"))
            except ValueError:
                raise FormatError(f"{path}: line {number}: {t!r} is not a number") from None
            if v != v or (v in (np.inf, -np.inf) and not (infinite and "i" in t.lower())):
                raise FormatError(f"{path}: line {number}: {t!r} is not {'a number' if infinite else 'a finite number'}")
    raise FormatError(f"{path}: not a column of numbers")


def _dense_rows(matrix: sp.csr_matrix, start: int, stop: int) -> bytes:
    """Rows of a matrix with any coefficients (cage sums' 1..N, thermometers' -1..-N) as CSV
    lines: each distinct value rendered once, gathered into a byte table, NUL padding dropped."""
    block = matrix[start:stop].toarray()
    if block.size == 0:
        return b"\n" * block.shape[0]
    distinct, index = np.unique(block, return_inverse=True)
    text = bytes_table(number_strings(distinct))
    cells = np.zeros(block.shape + (text.shape[1] + 1,), dtype=np.uint8)
    cells[..., :-1] = text[index.reshape(block.shape)]
    cells[..., -1] = ord(",")
    cells[:, -1, -1] = ord("\n")
    flat = cells.reshape(-1)
    return flat[flat != 0].tobytes()


def write_dense(matrix: sp.spmatrix, path: str | os.PathLike) -> Path:
    """Dense CSV, no header (the seed's ``Export["matn.csv", matn]``); 0/1 matrices by the fast
    0/1 kernel, others (rule rows) with their coefficients.

    Parameters
    ----------
    matrix : scipy.sparse matrix
        The matrix.
    path : str or Path
        The CSV file.
    """
    matrix = matrix.tocsr()
    rows_per_chunk = max(1, _CHUNK * 8 // max(matrix.shape[1], 1))
    kernel = dense_01_rows if (matrix.data == 1).all() else _dense_rows
    with atomic_open(path, "wb") as f:
        for start in range(0, matrix.shape[0], rows_per_chunk):
            f.write(kernel(matrix, start, min(start + rows_per_chunk, matrix.shape[0])))
    return Path(path)


def read_dense(path: str | os.PathLike) -> sp.csr_matrix:
    """A dense CSV matrix (no header); an empty file is the 0 x 0 matrix ``write_dense`` writes for it."""
    import pandas as pd
    with open_text(path) as f:
        try:
            table = pd.read_csv(f, header=None, dtype=float)
        except pd.errors.EmptyDataError:
            return sp.csr_matrix((0, 0))
        except FormatError:   # the file itself unreadable (a damaged gzip stream)
            raise
        except (ValueError, pd.errors.ParserError) as e:
            raise FormatError(f"{path}: not a dense numeric CSV ({str(e).splitlines()[0]})") from None
    values = table.to_numpy()
    _finite(path, values, "a value")
    return sp.csr_matrix(values)


def seed_matrices(model: Model) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """The seed's ``A`` (unit rows) and ``B`` (clue rows) as ``A_ijv.csv`` and ``B_ijv.csv`` hold
    them, over the solver's columns: ``A`` is ``Aeq``'s unit rows (all of ``Aeq`` when the clues
    are reduced away), ``B`` empty unless the clues are rows.

    Parameters
    ----------
    model : Model
        The model.

    Returns
    -------
    (scipy.sparse.csr_matrix, scipy.sparse.csr_matrix)
    """
    # Aeq's first rows (over the solver columns, as Aeq): a view, not A built again beside it
    units = model.Aeq if model.is_reduced else leading_rows(model.Aeq, model.unit_positions.shape[0])
    clues = model.B if model.puzzle.layout is None else model.B[:, model.columns]
    clues = clues if model.clue_encoding == "rows" else sp.csr_matrix((0, model.n_cols))
    return sp.csr_matrix(units), sp.csr_matrix(clues)


def file_differences(directory: str | os.PathLike, model: Model, names: list[str]) -> dict[str, str]:
    """Each CSV file of ``names`` (in ``directory``) that does not hold what an export of
    ``model`` writes there, with the first difference: each file on its own, so an edit is
    blamed on the file edited (reading ``Aeq`` back takes its siblings with it). ``Aeq``'s own
    files and the long forms are left to that read-back, which starts from them (and compares the
    long forms by their labels).

    Parameters
    ----------
    directory : str or Path
        The export directory.
    model : Model
        The model the manifest describes.
    names : list of str
        The CSV files to compare (others are skipped).

    Returns
    -------
    dict of str to str
        File name -> what differs; empty when every file is the model's.
    """
    units, clues = seed_matrices(model)
    # Aeq's own files are left to the read-back, which starts from them and so names them rightly
    matrices = {"Aineq.csv": (model.Aineq, "Aineq", True), "Aineq_ijv.csv": (model.Aineq, "Aineq", False),
                "A_ijv.csv": (units, "A (the unit rows)", False), "B_ijv.csv": (clues, "B (the clue rows)", False)}
    vectors = {"beq.csv": (model.beq, "beq"), "bineq.csv": (model.bineq, "bineq"), "lb.csv": (model.lb, "lb"),
               "ub.csv": (model.ub, "ub"), "f.csv": (model.cost, "f")}
    found = {}
    for name in names:
        path = Path(directory) / name
        try:
            if name in matrices:
                want, what, dense = matrices[name]
                got = read_dense(path) if dense else read_triplets(path, want.shape)   # a size row not its shape: refused
                found[name] = _matrix_difference(got, sp.csr_matrix(want), what, model)
            elif name in vectors:
                want_v, what = vectors[name]
                found[name] = _vector_difference(read_vector(path, infinite=name in ("lb.csv", "ub.csv")),
                                                 np.asarray(want_v, dtype=np.float64), what)
        except FormatError as e:
            found[name] = f"cannot be read: {str(e).removeprefix(f'{path}: ')}"
    return {name: why for name, why in found.items() if why}


def _matrix_difference(got: sp.csr_matrix, want: sp.csr_matrix, what: str, model: Model) -> str:
    if got.shape != want.shape:
        return f"{what} is {got.shape[0]}x{got.shape[1]} in the file, {want.shape[0]}x{want.shape[1]} in the model"
    differ = (sp.csr_matrix(got, dtype=np.float64) != sp.csr_matrix(want, dtype=np.float64)).tocoo()
    if not differ.nnz:
        return ""
    first = np.lexsort((differ.col, differ.row))[0]
    i, j = int(differ.row[first]), int(differ.col[first])
    entries = "1 entry differs" if differ.nnz == 1 else f"{differ.nnz} entries differ"
    return (f"{what}: {entries}, the first at row {i + 1}, column {model.col_names[j]}: "
            f"{got[i, j]:g} in the file, {want[i, j]:g} in the model")


def _vector_difference(got: np.ndarray, want: np.ndarray, what: str) -> str:
    if got.size != want.size:
        return f"{what} has {got.size} values in the file, {want.size} in the model"
    where = np.flatnonzero(got != want)
    if not where.size:
        return ""
    k = int(where[0])
    return (f"{what}: {where.size} value{'s differ' if where.size > 1 else ' differs'}, the first on line {k + 1}: "
            f"{got[k]:g} in the file, {want[k]:g} in the model")


def export(model: Model, directory: str | os.PathLike, *, dense: str = "auto") -> list[Path]:
    """Write the CSV files of an export into ``directory``.

    Parameters
    ----------
    model : Model
        The model to write.
    directory : str or Path
        The export directory.
    dense : {'auto', 'always', 'never'}
        The dense ``Aeq.csv`` (and ``Aineq.csv``): auto writes them up to ``DENSE_LIMIT`` entries.
    """
    if dense not in ("auto", "always", "never"):   # a typo read as 'never' without a word
        raise FormatError(f"csv: unknown dense {clip(repr(dense))}; expected auto, always or never")
    d = Path(directory)
    written = []
    ineq = model.n_ineq > 0
    entries = (model.n_rows + model.n_ineq) * model.n_cols
    if dense == "always" or (dense == "auto" and entries <= DENSE_LIMIT):
        written.append(write_dense(model.Aeq, d / "Aeq.csv"))
        if ineq:
            written.append(write_dense(model.Aineq, d / "Aineq.csv"))
    units, clues = seed_matrices(model)
    aeq = write_triplets(model.Aeq, d / "Aeq_ijv.csv")
    written += [
        aeq,
        _copy_file(aeq, d / "A_ijv.csv") if _same_matrix(units, model.Aeq) else write_triplets(units, d / "A_ijv.csv"),
        write_triplets(clues, d / "B_ijv.csv"),
        write_vector(model.beq, d / "beq.csv"),
        write_vector(model.lb, d / "lb.csv"),
        write_vector(model.ub, d / "ub.csv"),
        write_vector(model.cost, d / "f.csv"),
        write_long(model, d / "Aeq_long.csv"),
    ]
    if ineq:
        written += [write_triplets(model.Aineq, d / "Aineq_ijv.csv"), write_vector(model.bineq, d / "bineq.csv"),
                    write_long(model, d / "Aineq_long.csv", inequalities=True)]
    return written


def _form(name: str) -> str:
    """``ijv``, ``long`` or ``dense``: the CSV form a file name says."""
    name = name.lower()
    return "ijv" if "ijv" in name else "long" if "long" in name else "dense"


def _ineq_name(name: str) -> str:
    """The name of the ``Aineq`` file beside an ``Aeq`` file of the same form (``Aeq_ijv.csv`` ->
    ``Aineq_ijv.csv``; any other name gets ``_ineq`` before ``.csv``)."""
    if "Aeq" in name:
        return name.replace("Aeq", "Aineq", 1)
    stem, dot, ext = name.partition(".")
    return f"{stem}_ineq{dot}{ext}"


def _write_form(model: Model, path: Path, form: str, inequalities: bool = False) -> None:
    if form == "long":
        write_long(model, path, inequalities=inequalities)
    else:
        matrix = model.Aineq if inequalities else model.Aeq
        (write_triplets if form == "ijv" else write_dense)(matrix, path)


#: The files of a CSV export (:func:`export`).
CSV_FILE_NAMES = ("Aeq.csv", "Aineq.csv", "Aeq_ijv.csv", "A_ijv.csv", "B_ijv.csv", "beq.csv", "lb.csv", "ub.csv",
                  "f.csv", "Aeq_long.csv", "Aineq_ijv.csv", "bineq.csv", "Aineq_long.csv")
#: The vectors a one-file CSV write puts beside its file, with the value :func:`read` takes for
#: each when no file holds it (a vector equal to that everywhere is not written).
ONE_FILE_VECTORS = {"beq": 1.0, "lb": 0.0, "ub": 1.0, "f": 0.0}


def own_sibling(path: Path, name: str) -> Path:
    """The file ``name`` (``beq.csv``) of the one-file CSV ``path``, named after it
    (``x.csv`` -> ``x_beq.csv``), so that two models written into one directory keep theirs.

    Parameters
    ----------
    path : Path
        The one-file CSV.
    name : str
        The sibling's name in a directory export (``beq.csv``, ``bineq.csv``, ``lb.csv``, ...).

    Returns
    -------
    Path
    """
    stem = path.name[:-len(".csv")] if path.name.lower().endswith(".csv") else path.name
    return path.with_name(f"{stem}_{name}")


def write(model: Model, path: str | os.PathLike) -> None:
    """One-file CSV: triplets for ``*_ijv.csv`` / ``.ijv.csv``, the long form for ``*long*``, else dense.

    The file holds ``Aeq`` only, so what :func:`read` also needs goes beside it, named after it
    (:func:`own_sibling`: ``x.csv`` -> ``x_beq.csv``): each of ``beq``, ``lb``, ``ub`` and ``f``
    that is not the reader's default (:data:`ONE_FILE_VECTORS`: cage sums, clues as bounds, an
    objective), and for a model with inequality rows the same form of ``Aineq`` (``Aeq`` in the
    name becomes ``Aineq``, else ``_ineq`` is added) and ``bineq``. Such a file left by an earlier
    write of the same path and not needed now is removed, so it is never read back as this model's.

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The CSV file.
    """
    path = Path(path)
    form = _form(path.name)
    _write_form(model, path, form)
    vectors = {"beq": model.beq, "lb": model.lb, "ub": model.ub, "f": model.cost}
    for name, default in ONE_FILE_VECTORS.items():
        sibling = own_sibling(path, f"{name}.csv")
        if np.any(np.asarray(vectors[name], dtype=float) != default):
            write_vector(vectors[name], sibling)
        else:
            sibling.unlink(missing_ok=True)
    columns = own_sibling(path, "columns.csv")
    if form == "long":   # names, not places: the columns' order (and those without a nonzero) for the vectors
        with atomic_open(columns, "wb") as f:
            f.write(("\n".join(np.asarray(model.col_names, dtype=str).tolist()) + "\n").encode())
    else:
        columns.unlink(missing_ok=True)
    ineq, bineq = path.with_name(_ineq_name(path.name)), own_sibling(path, "bineq.csv")
    if model.n_ineq:
        _write_form(model, ineq, form, inequalities=True)
        write_vector(model.bineq, bineq)
    else:
        ineq.unlink(missing_ok=True)
        bineq.unlink(missing_ok=True)


def _manifest_beside(path: Path):
    """The export's manifest beside ``path`` (None when there is none)."""
    beside = path.with_name(MANIFEST_NAME)
    return load_manifest_file(beside) if beside.is_file() else None


def _read_long(path: Path, manifest, columns_of: Path | None = None):
    """(matrix, row labels, column names) of a long-form file; columns in the manifest's order
    when there is one (names looked up through its convention), else in the order a one-file
    write listed beside ``columns_of`` (default ``path``), else in order of appearance."""
    entries = read_long_entries(path)
    names = entries.col_names                # distinct: each is looked up once, not per entry
    if manifest is None:
        listed = _listed_columns(columns_of or path)
        if listed is None:
            cols, col_names = entries.cols, names
        else:
            import pandas as pd
            col_names = listed
            cols = pd.Index(listed).get_indexer(names)[entries.cols]
            if (cols < 0).any():
                k = int(np.flatnonzero(cols < 0)[0])
                raise FormatError(f"{path}: line {entries.lines[k]}: column "
                                  f"{clip(repr(str(names[entries.cols[k]])))} is not in "
                                  f"{own_sibling(columns_of or path, 'columns.csv').name}")
    else:
        conv, columns = manifest.convention, manifest.columns
        try:
            pos = column_positions(manifest.data, conv, names, str(path))
        except ConventionError as e:
            raise FormatError(str(e)) from None
        found = np.minimum(np.searchsorted(columns, pos), max(columns.size - 1, 0))
        if pos.size and (columns.size == 0 or (columns[found] != pos).any()):
            raise FormatError(f"{path}: a column name is not a column of the export its manifest describes")
        cols, col_names = found[entries.cols], manifest.col_names()
    return (sp.csr_matrix((entries.values, (entries.rows, cols)), shape=(entries.row_labels.size, len(col_names))),
            entries.row_labels, np.asarray(col_names, str))


def _listed_columns(path: Path) -> np.ndarray | None:
    """The column names a one-file long-form write listed beside ``path`` (:func:`write`), in the
    model's order, or None when there is no such list."""
    listed = own_sibling(path, "columns.csv")
    if not listed.is_file():
        return None
    with open_text(listed) as f:
        names = np.array(f.read().splitlines(), dtype=str)
    again = first_repeat(names) if names.size else None
    if again is not None:
        raise FormatError(f"{listed}: line {again + 1}: column {clip(repr(str(names[again])))} is listed twice")
    return names


def _manifest_shape(manifest, inequalities: bool) -> tuple[int, int] | None:
    """The ``Aeq`` (or ``Aineq``) shape the manifest states (``rows``/``inequalities`` by
    ``columns``), or None when it states none."""
    if manifest is None:
        return None
    rows = manifest.data.get("inequalities", 0) if inequalities else manifest.data.get("rows")
    cols = manifest.data.get("columns")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (rows, cols)):
        return None
    return rows, cols


def _read_matrix(path: Path, manifest, inequalities: bool = False, columns_of: Path | None = None):
    """(matrix, row labels or None, column names or None) of one file in the form its name or
    header says (a long form's column list is the one beside ``columns_of``, default ``path``)."""
    with open_text(path) as f:
        head = f.readline()
    if head.strip().startswith("row_label"):
        return _read_long(path, manifest, columns_of)
    if len(head.split(",")) == 3 and "ijv" in path.name:
        return read_triplets(path, _manifest_shape(manifest, inequalities)), None, None
    return read_dense(path), None, None


def read(path: str | os.PathLike) -> ModelData:
    """Read ``Aeq`` (triplets, dense or long form) with its siblings: ``beq/lb/ub/f.csv`` (a
    one-file write's own first, :func:`own_sibling`), the same form of ``Aineq`` with
    ``bineq.csv`` (its rows come after those of ``Aeq``, ``<=``), and ``manifest.json``
    (metadata, column names and order) when it is this file's export."""
    path = Path(path)
    manifest = _manifest_beside(path)
    export_here = manifest is not None and is_export_manifest(manifest.data)
    if export_here and path.name not in listed_export_files(manifest.data):
        manifest = None   # a one-file write beside an export: the export's manifest is not this file's
    a, row_labels, col_names = _read_matrix(path, manifest)
    m, n = a.shape
    if col_names is None and manifest is not None and manifest.n_cols == n:
        col_names = manifest.col_names()

    # an export directory's shared beq.csv belongs to its own files only; any other file takes a
    # one-file write's own (x_beq.csv), or a shared one where no export is (an earlier release's
    # one-file writes named them so)
    shared = path.name in CSV_FILE_NAMES or not export_here

    def sibling(name, default, size):
        p = own_sibling(path, name)
        p = p if p.exists() or not shared else path.with_name(name)
        v = read_vector(p, infinite=name in ("lb.csv", "ub.csv")) if p.exists() else np.full(size, default)
        if v.size != size:
            raise FormatError(f"{p}: {v.size} values, expected {size}")
        return v

    beq = sibling("beq.csv", 1.0, m)
    lower, upper = beq, beq.copy()
    ineq_path = path.with_name(_ineq_name(path.name))
    # beside an export's manifest, only a file it lists: another export's Aineq left in the
    # directory made the intact Aeq here look edited
    listed = (manifest is None or not is_export_manifest(manifest.data)
              or ineq_path.name in listed_export_files(manifest.data))
    if ineq_path.exists() and listed:
        g, ineq_labels, _ = _read_matrix(ineq_path, manifest, inequalities=True, columns_of=path)
        if g.shape[1] != n:
            raise FormatError(f"{ineq_path}: {g.shape[1]} columns, {path.name} has {n}")
        bineq = sibling("bineq.csv", 0.0, g.shape[0])
        a = sp.vstack([a, g], format="csr")
        lower = np.concatenate([lower, np.full(g.shape[0], -np.inf)])
        upper = np.concatenate([upper, bineq])
        if row_labels is not None and ineq_labels is not None:
            row_labels = np.concatenate([row_labels, ineq_labels])
    meta = dict(manifest.data) if manifest is not None else {}
    for key in ("files", "formats"):
        meta.pop(key, None)
    data = ModelData(a, lower, upper, sibling("lb.csv", 0.0, n), sibling("ub.csv", 1.0, n), sibling("f.csv", 0.0, n),
                     np.ones(n, bool), row_labels, col_names, meta)
    refuse_disagreement(data, str(path), facts=False)   # the manifest's facts: check_export's
    return data


register(Format("csv", (".csv",), "CSV: dense [A;B], spconvert triplets, vectors, long form",
                export=export, write=write, read=read,
                file_names=CSV_FILE_NAMES, cost=1.4,
                file_differences=file_differences))
