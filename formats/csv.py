"""CSV: the seed's dense ``[A;B]`` matrix, MATLAB ``spconvert`` triplets, vectors, long form.

Files of an export (``N`` digits, ``m x n`` solver view):

* ``Aeq.csv``       dense 0/1, no header, ``m`` lines of ``n`` values (seed 000's ``matn.csv``);
  written by default only while it has at most ``DENSE_LIMIT`` entries (16 MB; every 16x16
  model), always with ``dense="always"`` (a 25x25 grid gives 78 MB, a 100x100 one 80 GB).
* ``Aeq_ijv.csv``, ``A_ijv.csv``, ``B_ijv.csv``  1-based ``i,j,v`` triplets ending with the
  size row ``m,n,0`` (``spconvert(load('A_ijv.csv'))`` in MATLAB).
* ``beq.csv``, ``lb.csv``, ``ub.csv``, ``f.csv``  one value per line.
* ``Aeq_long.csv``  ``row_label,col_name,value`` with a header, for pandas users.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.errors import FormatError

from formats.base import Format, ModelData, atomic_open, open_text, register
from formats.text import dense_01_rows, number_strings

#: Most entries (rows x columns) of a dense ``Aeq.csv`` written by default (``dense="auto"``): two
#: bytes each, so at most 16 MB. Every 16x16 model fits (at most 1,312 x 4,096 = 5.4 million);
#: a 25x25 one has over 39 million (78 MB) and a 100x100 one 4 x 10^10: those need
#: ``dense="always"`` (``export --dense always``).
DENSE_LIMIT = 8_000_000
_CHUNK = 1 << 20  # nonzeros per write


def _write_csv_chunks(f, columns) -> None:
    """Append header-less CSV text of equal-length arrays (numeric, or pyarrow arrays) to ``f``."""
    import pyarrow as pa
    import pyarrow.csv as pacsv  # lazily: commands without CSV files never load pandas/pyarrow
    n = len(columns[0])
    options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    for start in range(0, n, _CHUNK):
        table = pa.table({str(k): col[start:start + _CHUNK] for k, col in enumerate(columns)})
        pacsv.write_csv(table, f, options)


def _values(data: np.ndarray):
    """Matrix values as integers when they are (the 0/1 case), so the text reads ``1`` not ``1.0``."""
    data = np.asarray(data)
    if data.size and np.all(data == np.rint(data)) and np.abs(data).max() < 2**31:
        return data.astype(np.int32)
    return data


def write_triplets(matrix: sp.spmatrix, path: str | os.PathLike) -> Path:
    """``spconvert`` triplets: 1-based ``i,j,v`` sorted by row then column, then ``m,n,0``.

    Parameters
    ----------
    matrix : scipy.sparse matrix
        The matrix.
    path : str or Path
        The CSV file.
    """
    coo = matrix.tocsr().tocoo()
    with atomic_open(path, "wb") as f:
        if coo.nnz:
            _write_csv_chunks(f, [coo.row.astype(np.int64) + 1, coo.col.astype(np.int64) + 1, _values(coo.data)])
        f.write(b"%d,%d,0\n" % matrix.shape)
    return Path(path)


def read_triplets(path: str | os.PathLike) -> sp.csr_matrix:
    """Read ``spconvert`` triplets (last row ``m,n,0`` gives the size)."""
    import pandas as pd
    with open_text(path) as f:
        try:
            table = pd.read_csv(f, header=None, dtype=float, comment="%", skip_blank_lines=True)
        except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
            raise FormatError(f"{path}: not an i,j,v triplet CSV ({str(e).splitlines()[0]})") from None
    if table.shape[1] != 3 or len(table) == 0:
        raise FormatError(f"{path}: expected 3 columns i,j,v with a final size row m,n,0")
    values = table.to_numpy()
    m, n, zero = values[-1]
    body = values[:-1]
    if zero != 0 or m < 0 or n < 0 or m != int(m) or n != int(n):
        raise FormatError(f"{path}: last line must be the size row m,n,0, found {values[-1].tolist()}")
    i, j = body[:, 0].astype(np.int64) - 1, body[:, 1].astype(np.int64) - 1
    if body.size and (i.min() < 0 or j.min() < 0 or i.max() >= m or j.max() >= n):
        raise FormatError(f"{path}: an index lies outside the {int(m)}x{int(n)} size row")
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
    with atomic_open(path, "wb") as f:
        strings = number_strings(values)
        if strings.size:
            f.write(b"\n".join(strings.tolist()) + b"\n")
    return Path(path)


def read_vector(path: str | os.PathLike) -> np.ndarray:
    with open_text(path) as f:
        text = f.read()
    try:
        return np.array([float(t) for t in text.replace(",", "\n").split()], dtype=float)
    except ValueError as e:
        raise FormatError(f"{path}: not a column of numbers ({e})") from None


def write_dense(matrix: sp.spmatrix, path: str | os.PathLike) -> Path:
    """Dense 0/1 CSV, no header (the seed's ``Export["matn.csv", matn]``).

    Parameters
    ----------
    matrix : scipy.sparse matrix
        A 0/1 matrix.
    path : str or Path
        The CSV file.
    """
    matrix = matrix.tocsr()
    rows_per_chunk = max(1, _CHUNK * 8 // max(matrix.shape[1], 1))
    with atomic_open(path, "wb") as f:
        for start in range(0, matrix.shape[0], rows_per_chunk):
            f.write(dense_01_rows(matrix, start, min(start + rows_per_chunk, matrix.shape[0])))
    return Path(path)


def read_dense(path: str | os.PathLike) -> sp.csr_matrix:
    import pandas as pd
    with open_text(path) as f:
        try:
            table = pd.read_csv(f, header=None, dtype=float)
        except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
            raise FormatError(f"{path}: not a dense numeric CSV ({str(e).splitlines()[0]})") from None
    return sp.csr_matrix(table.to_numpy())


def write_long(model: Model, path: str | os.PathLike) -> Path:
    """``row_label,col_name,value`` (header), one line per nonzero of the solver view.

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The CSV file.
    """
    import pyarrow as pa
    coo = model.Aeq.tocoo()
    # dictionary arrays: each label/name is rendered once, the rows just index them
    labels = pa.array(np.asarray(model.row_labels, dtype=str))
    names = pa.array(np.asarray(model.col_names, dtype=str))
    with atomic_open(path, "wb") as f:
        f.write(b"row_label,col_name,value\n")
        if coo.nnz:
            _write_csv_chunks(f, [pa.DictionaryArray.from_arrays(pa.array(coo.row.astype(np.int32)), labels),
                                  pa.DictionaryArray.from_arrays(pa.array(coo.col.astype(np.int32)), names),
                                  _values(coo.data)])
    return Path(path)


def export(model: Model, directory: str | os.PathLike, *, dense: str = "auto") -> list[Path]:
    """Write the CSV files of an export into ``directory``.

    Parameters
    ----------
    model : Model
        The model to write.
    directory : str or Path
        The export directory.
    dense : {'auto', 'always', 'never'}
        The dense ``Aeq.csv``: auto writes it up to ``DENSE_LIMIT`` entries.
    """
    d = Path(directory)
    written = []
    entries = model.n_rows * model.n_cols
    if dense == "always" or (dense == "auto" and entries <= DENSE_LIMIT):
        written.append(write_dense(model.Aeq, d / "Aeq.csv"))
    written += [
        write_triplets(model.Aeq, d / "Aeq_ijv.csv"),
        write_triplets(model.A if not model.is_reduced else model.Aeq, d / "A_ijv.csv"),
        write_triplets(model.B if model.clue_encoding == "rows" else sp.csr_matrix((0, model.n_cols)),
                       d / "B_ijv.csv"),
        write_vector(model.beq, d / "beq.csv"),
        write_vector(model.lb, d / "lb.csv"),
        write_vector(model.ub, d / "ub.csv"),
        write_vector(model.cost, d / "f.csv"),
        write_long(model, d / "Aeq_long.csv"),
    ]
    return written


def write(model: Model, path: str | os.PathLike) -> None:
    """One-file CSV: triplets for ``*_ijv.csv`` / ``.ijv.csv``, the long form otherwise.

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The CSV file.
    """
    name = Path(path).name.lower()
    if "ijv" in name:
        write_triplets(model.Aeq, path)
    elif "long" in name:
        write_long(model, path)
    else:
        write_dense(model.Aeq, path)


def read(path: str | os.PathLike) -> ModelData:
    """Read ``Aeq`` (triplets, dense or long form) plus sibling ``beq/lb/ub/f.csv`` if present."""
    import pandas as pd
    path = Path(path)
    with open_text(path) as f:
        head = f.readline()
    if head.strip().startswith("row_label"):
        table = pd.read_csv(path)
        rows, row_labels = pd.factorize(table["row_label"])
        cols, col_names = pd.factorize(table["col_name"])
        a = sp.csr_matrix((table["value"].to_numpy(float), (rows, cols)))
        row_labels, col_names = np.asarray(row_labels, str), np.asarray(col_names, str)
    else:
        a = read_triplets(path) if len(head.split(",")) == 3 and "ijv" in path.name else read_dense(path)
        row_labels = col_names = None
    m, n = a.shape

    def sibling(name, default):
        p = path.with_name(name)
        return read_vector(p) if p.exists() else np.full(m if name == "beq.csv" else n, default)

    beq = sibling("beq.csv", 1.0)
    return ModelData(a, beq, beq.copy(), sibling("lb.csv", 0.0), sibling("ub.csv", 1.0), sibling("f.csv", 0.0),
                     np.ones(n, bool), row_labels, col_names)


register(Format("csv", (".csv",), "CSV: dense [A;B], spconvert triplets, vectors, long form",
                export=export, write=write, read=read))
