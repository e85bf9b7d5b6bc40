"""Parquet: the solver view as three tables for pandas, polars, DuckDB and MATLAB ``parquetread``.

Files of an export (``m x n`` solver view):

* ``model_coo.parquet``   ``row``, ``col``, ``value``: one line per nonzero of ``Aeq`` in row-major
  order; ``row``/``col`` are **0-based** int32 (int64 beyond 2^31), stated in the schema metadata
  and in each field's metadata (``index_base = 0``).
* ``model_rows.parquet``  ``label``, ``family``, ``lower``, ``upper``: one line per row. A model
  with inequality rows (killer cages, thermometers, anti-knight, ...) has them after the ``=``
  rows, in the COO table too (``lower = -inf``), and two more columns: ``sense`` (``E`` for
  ``=``, ``L`` for ``<=``) and ``rhs``; plain puzzles keep the four columns.
* ``model_cols.parquet``  ``name``, ``r``, ``c``, ``d`` (1-based), the scheme's own indices
  (``i, j, k`` or ``I, J, p, q, n``, 1-based), ``position`` (0-based full position, the
  kept-column map for ``reduce``), ``lb``, ``ub``, ``integer``, ``cost``.

Each file carries the manifest (:func:`pipeline.core.manifest.model_metadata`, JSON) in its Arrow
schema metadata under ``b"sudoku_pipeline"``. Only plain types (int32/int64, double, string,
bool) and snappy compression are used, so that MATLAB's ``parquetread`` reads the files too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import json
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:  # annotations only: the modules are imported where they are used
    import pyarrow as pa

from pipeline.core.build import Model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import model_metadata

from formats.agree import described_model, model_difference, refuse_disagreement
from formats.base import Format, ModelData, constraint_rows, register
from formats.files import arrow_target, atomic_path
from formats.text import first_repeat, name_array

META_KEY = b"sudoku_pipeline"
COMPRESSION = "snappy"  # pyarrow's default, and readable by every consumer we target
COO_NAME, ROWS_NAME, COLS_NAME = "model_coo.parquet", "model_rows.parquet", "model_cols.parquet"
_BASE0 = {b"index_base": b"0"}
_BASE1 = {b"index_base": b"1"}


def _write(table: pa.Table, path: Path) -> Path:
    import pyarrow.parquet as pq
    with atomic_path(path) as tmp, arrow_target(tmp, "wb") as target:
        pq.write_table(table, target, compression=COMPRESSION)
    return path


def _schema_meta(model, meta: dict | None, table: str) -> dict:
    meta = dict(model_metadata(model) if meta is None else meta)
    meta["table"] = table
    return {META_KEY: json.dumps(meta, separators=(",", ":")).encode()}


def _index_type(limit: int) -> pa.DataType:
    import pyarrow as pa
    return pa.int32() if limit < 2**31 else pa.int64()


def coo_table(model: Model, meta: dict | None = None) -> pa.Table:
    """``row, col, value`` of the solver view's ``[Aeq; Aineq]`` (0-based, row-major), with metadata.

    Parameters
    ----------
    model : Model
        The model to write.
    meta : dict, optional
        Metadata for the schema (default the model's).
    """
    import pyarrow as pa
    a = constraint_rows(model).matrix
    if not sp.isspmatrix_csr(a):
        a = a.tocsr()
    itype = _index_type(max(a.shape))
    npt = itype.to_pandas_dtype()
    # rows from indptr without a COO copy; CSR order is already row-major, columns sorted
    rows = np.repeat(np.arange(a.shape[0], dtype=npt), np.diff(a.indptr))
    cols = a.indices if a.indices.dtype == npt else a.indices.astype(npt)
    schema = pa.schema([pa.field("row", itype, False, _BASE0), pa.field("col", itype, False, _BASE0),
                        pa.field("value", pa.float64(), False)], metadata=_schema_meta(model, meta, "coo"))
    return pa.Table.from_arrays([pa.array(rows), pa.array(cols), pa.array(a.data, pa.float64())], schema=schema)


def rows_table(model: Model, meta: dict | None = None) -> pa.Table:
    """``label, family, lower, upper`` per row of the solver view (and ``sense``, ``rhs``
    when it has inequality rows).

    Parameters
    ----------
    model : Model
        The model to write.
    meta : dict, optional
        Metadata for the schema (default the model's).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    if model.n_ineq:
        return _rule_rows_table(model, meta)
    labels = pa.array(np.asarray(model.row_labels), pa.string())
    # rows come in contiguous family blocks (docs/conventions.md order), so repeat the family names
    counts = model.family_counts()
    family = pc.take(pa.array(list(counts), pa.string()),
                     pa.array(np.repeat(np.arange(len(counts), dtype=np.int32), list(counts.values()))))
    beq = model.beq
    schema = pa.schema([pa.field("label", pa.string(), False), pa.field("family", pa.string(), False),
                        pa.field("lower", pa.float64(), False), pa.field("upper", pa.float64(), False)],
                       metadata=_schema_meta(model, meta, "rows"))
    return pa.Table.from_arrays([labels, family, pa.array(beq), pa.array(beq)], schema=schema)


def _rule_rows_table(model: Model, meta: dict | None) -> pa.Table:
    """The rows table of a model with ``<=`` rows: families in row order come from the labels
    (``family_i_j...``; no family name holds an underscore), ``sense`` and ``rhs`` added."""
    import pyarrow as pa
    rows = constraint_rows(model)
    labels = np.asarray(rows.labels).astype(str)
    family = np.char.partition(labels, "_")[:, 0] if labels.size else labels
    lower = rows.lower
    schema = pa.schema([pa.field("label", pa.string(), False), pa.field("family", pa.string(), False),
                        pa.field("lower", pa.float64(), False), pa.field("upper", pa.float64(), False),
                        pa.field("sense", pa.string(), False), pa.field("rhs", pa.float64(), False)],
                       metadata=_schema_meta(model, meta, "rows"))
    return pa.Table.from_arrays([pa.array(labels, pa.string()), pa.array(family, pa.string()), pa.array(lower),
                                 pa.array(rows.rhs.astype(float)), pa.array(rows.sense.astype(str), pa.string()),
                                 pa.array(rows.rhs.astype(float))], schema=schema)


def cols_table(model: Model, meta: dict | None = None) -> pa.Table:
    """``name, r, c, d, <scheme indices>, position, lb, ub, integer, cost`` per solver column.

    Parameters
    ----------
    model : Model
        The model to write.
    meta : dict, optional
        Metadata for the schema (default the model's).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    conv = model.convention
    pos = model.columns
    small = pa.int32()
    # auxiliary columns (after the cell-digit block) have no cell: r, c, d and the scheme's indices 0
    cell_pos = pos[pos < conv.n_vars] if model.n_aux else pos
    r, c, d = (np.concatenate([t, np.full(pos.size - cell_pos.size, -1)]) for t in conv.cell_digit(cell_pos))
    parts = [np.concatenate([np.asarray(t) + 1, np.zeros(pos.size - cell_pos.size, dtype=np.int64)])
             for t in conv.position_to_tuple(cell_pos)]
    strings = [pc.cast(pa.array(t[:cell_pos.size].astype(np.int32)), pa.string()) for t in parts]
    # the names of conv.names(), built by Arrow kernels instead of a Python object array
    names = pc.binary_join_element_wise("x", *strings, "_") if cell_pos.size else pa.array([], pa.string())
    if model.n_aux:
        # from the name table a chunk at a time: col_names and a str per auxiliary name were
        # 0.4 GB for 1.5 M of them
        names = pa.concat_arrays([names, name_array(model, cell_pos.size)])
    fields = [pa.field("name", pa.string(), False)]
    arrays = [names]
    for label, values in zip(("r", "c", "d"), (r, c, d)):
        fields.append(pa.field(label, small, False, _BASE1))
        arrays.append(pa.array(np.asarray(values, dtype=np.int32) + 1))
    for label, values in zip(conv.index_names, parts):
        fields.append(pa.field(label, small, False, _BASE1))
        arrays.append(pa.array(values.astype(np.int32)))
    ptype = _index_type(conv.n_vars)
    fields += [pa.field("position", ptype, False, _BASE0), pa.field("lb", pa.float64(), False),
               pa.field("ub", pa.float64(), False), pa.field("integer", pa.bool_(), False),
               pa.field("cost", pa.float64(), False)]
    arrays += [pa.array(pos.astype(ptype.to_pandas_dtype())), pa.array(model.lb), pa.array(model.ub),
               pa.array(np.asarray(model.integrality, dtype=bool)), pa.array(np.asarray(model.cost, float))]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=_schema_meta(model, meta, "cols")))


def _siblings(path: Path) -> tuple[Path, Path, Path]:
    """(coo, rows, cols) paths for ``<base>_coo.parquet`` or ``<base>.parquet`` (or a directory)."""
    if path.is_dir():
        return path / COO_NAME, path / ROWS_NAME, path / COLS_NAME
    stem = path.name[: -len(".parquet")] if path.name.lower().endswith(".parquet") else path.name
    for suffix in ("_coo", "_rows", "_cols"):
        if stem.endswith(suffix):
            base = stem[: -len(suffix)]
            # write() names the COO file <base>.parquet when given that path, export <base>_coo
            coo = path.with_name(f"{base}_coo.parquet")
            if not coo.exists() and path.with_name(f"{base}.parquet").exists():
                coo = path.with_name(f"{base}.parquet")
            break
    else:
        base, coo = stem, path
    return coo, path.with_name(f"{base}_rows.parquet"), path.with_name(f"{base}_cols.parquet")


def write_coo(model: Model, path: str | os.PathLike, meta: dict | None = None) -> Path:
    """Write only the COO file (the bulk of the data).

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The Parquet file.
    meta : dict, optional
        Metadata for the schema.
    """
    return _write(coo_table(model, meta), Path(path))


def write(model: Model, path: str | os.PathLike) -> Path:
    """Write ``path`` (the COO table) and its siblings ``<base>_rows.parquet``, ``<base>_cols.parquet``.

    The siblings carry labels, names, bounds and costs, which a faithful read needs.

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The Parquet file.
    """
    coo, rows, cols = _siblings(Path(path))
    meta = model_metadata(model)
    _write(coo_table(model, meta), coo)
    _write(rows_table(model, meta), rows)
    _write(cols_table(model, meta), cols)
    return coo


def export(model: Model, directory: str | os.PathLike) -> list[Path]:
    """Write ``model_coo.parquet``, ``model_rows.parquet`` and ``model_cols.parquet``.

    Parameters
    ----------
    model : Model
        The model to write.
    directory : str or Path
        The export directory.
    """
    d = Path(directory)
    write(model, d / COO_NAME)
    return [d / COO_NAME, d / ROWS_NAME, d / COLS_NAME]


def read_metadata(path: str | os.PathLike) -> dict:
    """The manifest stored under ``b"sudoku_pipeline"`` in a Parquet file's schema."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        with arrow_target(path) as source:
            schema = pq.read_schema(source)
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file") from None
    except (OSError, pa.ArrowException) as e:
        raise FormatError(f"{path}: not a readable Parquet file ({_one_line(e)})") from None
    raw = (schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise FormatError(f"{path}: no {META_KEY.decode()} metadata in the Parquet schema")
    try:
        meta = json.loads(raw)
    except (ValueError, RecursionError) as e:   # not JSON, not UTF-8, nested too deep, 4,300 digits
        raise FormatError(f"{path}: {META_KEY.decode()} metadata is not JSON ({_one_line(e)})") from None
    if not isinstance(meta, dict):
        raise FormatError(f"{path}: {META_KEY.decode()} metadata is not a JSON object")
    return meta


def _one_line(error: Exception) -> str:
    """An exception's text on one line (pyarrow's and json's run over several), clipped."""
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:199] + "…"


def _read_table(path: Path, columns: list[str]) -> pa.Table:
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        with arrow_target(path) as source:
            table = pq.read_table(source)
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file") from None
    except (OSError, pa.ArrowException) as e:
        raise FormatError(f"{path}: not a readable Parquet file ({_one_line(e)})") from None
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise FormatError(f"{path}: missing column(s) {', '.join(missing)}")
    return table


def _column(table: pa.Table, name: str, path, kind: str, *, infinite: bool = False) -> np.ndarray:
    """Column ``name`` as NumPy: ``kind`` 'index' (integers), 'number' (finite floats; with
    ``infinite`` also +-inf, as bounds may be), 'bool' or 'string'; FormatError naming the file,
    the column and the first bad (0-based) table row otherwise, never a traceback."""
    import pyarrow as pa

    column = table.column(name)
    t = column.type
    ok = {"index": pa.types.is_integer(t), "number": pa.types.is_integer(t) or pa.types.is_floating(t),
          "bool": pa.types.is_boolean(t) or pa.types.is_integer(t),
          "string": pa.types.is_string(t) or pa.types.is_large_string(t)}[kind]
    if not ok:
        raise FormatError(f"{path}: column {name!r} has type {t}, not {'integer' if kind == 'index' else kind}")
    if column.null_count:
        k = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
        raise FormatError(f"{path}: column {name!r}, row {k} (0-based): null")
    try:
        values = column.to_numpy(zero_copy_only=False)
    except pa.ArrowException as e:   # a string that is no UTF-8: "Wrapping row_\ufffd_5 failed"
        raise FormatError(f"{path}: column {name!r} does not read ({_one_line(e)}): text that is not UTF-8?") from None
    if kind == "number":
        values = values.astype(np.float64)
        bad = np.isnan(values) if infinite else ~np.isfinite(values)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise FormatError(f"{path}: column {name!r}, row {k} (0-based): {values[k]} is not a "
                              f"{'number' if infinite else 'finite number'}")
    elif kind == "bool":
        if pa.types.is_integer(t) and not np.isin(values, (0, 1)).all():
            k = int(np.flatnonzero(~np.isin(values, (0, 1)))[0])
            raise FormatError(f"{path}: column {name!r}, row {k} (0-based): {values[k]} is not 0 or 1")
        values = values.astype(bool)
    elif kind == "string":
        values = values.astype(str)
    return values


def _strings(column) -> np.ndarray:
    """Arrow strings -> NumPy ``str`` array (as ModelData.from_model has them)."""
    return column.to_numpy(zero_copy_only=False).astype(str)


def _check_senses(path: str | os.PathLike, sense: np.ndarray, lower: np.ndarray, upper: np.ndarray, rhs: np.ndarray) -> None:
    """The ``sense``/``rhs`` columns must say what ``lower``/``upper`` say (``E``: both the
    rhs; ``L``: -inf and the rhs)."""
    want_lower = np.where(sense == "L", -np.inf, rhs)
    bad = ~np.isin(sense, ["E", "L"]) | (lower != want_lower) | (upper != rhs)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise FormatError(f"{path}: row {k} (0-based): sense {str(sense[k])!r} and rhs {rhs[k]:g} disagree with "
                          f"lower {lower[k]:g} / upper {upper[k]:g}")


def read(path: str | os.PathLike) -> ModelData:
    """Read the COO file (or the directory / a sibling) and its ``_rows``/``_cols`` siblings.

    Without the siblings, labels, names, bounds and costs are rebuilt from the metadata.
    """
    coo_path, rows_path, cols_path = _siblings(Path(path))
    meta = read_metadata(coo_path)
    meta.pop("table", None)
    sizes = [meta.get(key, default) for key, default in (("rows", -1), ("inequalities", 0), ("columns", -1))]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in sizes):
        raise FormatError(f"{coo_path}: the metadata's 'rows', 'inequalities' and 'columns' are not all integers")
    m, n = sizes[0] + sizes[1], sizes[2]
    coo = _read_table(coo_path, ["row", "col", "value"])
    i = _column(coo, "row", coo_path, "index")
    j = _column(coo, "col", coo_path, "index")
    values = _column(coo, "value", coo_path, "number")
    if m < 0 or n < 0:
        raise FormatError(f"{coo_path}: metadata lacks the 'rows'/'columns' sizes")
    if i.size and (i.min() < 0 or j.min() < 0 or i.max() >= m or j.max() >= n):
        raise FormatError(f"{coo_path}: a 0-based index lies outside the {m}x{n} size of the metadata")
    # a truncated (or padded) table is not the model its metadata describes
    nnz = meta.get("nonzeros")
    if isinstance(nnz, int) and not isinstance(nnz, bool):
        more = meta.get("inequality_nonzeros", 0) or 0
        if not isinstance(more, int) or isinstance(more, bool):
            raise FormatError(f"{coo_path}: the metadata's 'inequality_nonzeros' is {str(more)[:40]!r}, not a count")
        nnz += more
        if nnz != i.size:
            raise FormatError(f"{coo_path}: {i.size} nonzeros, the metadata says {nnz}")
    # an entry listed twice would be summed by the sparse matrix: not the file's model
    keys = i.astype(np.int64) * max(n, 1) + j
    k = first_repeat(keys)
    if k is not None:
        raise FormatError(f"{coo_path}: row {k} (0-based): entry ({int(i[k])}, {int(j[k])}) listed twice")
    a = sp.csr_matrix((values, (i, j)), shape=(m, n))

    if rows_path.exists() and cols_path.exists():
        rows = _read_table(rows_path, ["label", "lower", "upper"])
        cols = _read_table(cols_path, ["name", "lb", "ub", "integer"])
        if rows.num_rows != m or cols.num_rows != n:
            raise FormatError(f"{coo_path}: siblings have {rows.num_rows} rows / {cols.num_rows} columns, "
                              f"metadata says {m}x{n}")
        cost = _column(cols, "cost", cols_path, "number") if "cost" in cols.column_names else np.zeros(n)
        lower = _column(rows, "lower", rows_path, "number", infinite=True)
        upper = _column(rows, "upper", rows_path, "number")
        if "sense" in rows.column_names:
            _check_senses(rows_path, _column(rows, "sense", rows_path, "string"), lower, upper,
                          _column(rows, "rhs", rows_path, "number") if "rhs" in rows.column_names else upper)
        elif (lower != upper).any():           # no sense column: every row is an equation
            k = int(np.flatnonzero(lower != upper)[0])
            raise FormatError(f"{rows_path}: row {k} (0-based): lower {lower[k]:g} and upper {upper[k]:g} differ "
                              "in a table without a 'sense' column")
        labels, names = _column(rows, "label", rows_path, "string"), _column(cols, "name", cols_path, "string")
        for what, where, table in (("label", rows_path, labels), ("name", cols_path, names)):
            k = first_repeat(table)
            if k is not None:
                raise FormatError(f"{where}: row {k} (0-based): {what} {str(table[k])!r} appears twice")
        data = ModelData(a, lower, upper,
                         _column(cols, "lb", cols_path, "number", infinite=True),
                         _column(cols, "ub", cols_path, "number", infinite=True), cost,
                         _column(cols, "integer", cols_path, "bool"), labels, names, meta)
        refuse_disagreement(data, str(coo_path))
        return data

    # only the COO file: the metadata determines everything but a custom objective

    model = described_model(meta, str(coo_path))
    rebuilt = ModelData.from_model(model)
    listed = ModelData(a, rebuilt.row_lower, rebuilt.row_upper, rebuilt.lb, rebuilt.ub, rebuilt.cost,
                       rebuilt.integrality, rebuilt.row_labels, rebuilt.col_names, meta)
    difference = model_difference(listed, rebuilt, cost=False)
    if difference:
        raise FormatError(f"{coo_path}: not the model its metadata describes: {difference}")
    return ModelData(a, rebuilt.row_lower, rebuilt.row_upper, model.lb, model.ub, model.cost, model.integrality,
                     rebuilt.row_labels, model.col_names, meta)


register(Format("parquet", (".parquet",), "Parquet: COO nonzeros + row and column tables, manifest in schema metadata",
                export=export, write=write, read=read, file_names=(COO_NAME, ROWS_NAME, COLS_NAME), cost=0.5))
