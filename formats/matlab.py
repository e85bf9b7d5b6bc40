"""MATLAB: ``model.mat`` (v5) plus a generated ``solve_sudoku.m`` that solves and decodes it.

Files of an export:

* ``model.mat``  sparse double ``Aeq``; column vectors ``beq``, ``f``, ``lb``, ``ub``, ``intcon``
  (``1..n``); and a struct ``meta`` with the manifest fields of docs/conventions.md (``h``, ``w``,
  ``N``, ``variant``, ``scheme``, ``order``, ``clue_encoding``, ``puzzle``, ``shape``, ``rows``,
  ``columns``, ``nonzeros``, ...), 1-based where MATLAB indexes: ``meta.kept_columns`` (reduce
  only) holds the 1-based full positions of the solver columns, ``meta.clues`` is ``[r c d]`` per
  clue and ``meta.clue_positions`` the 1-based full position of each clue variable; and
  ``problem``, the structure ``mpsread(file, 'ReturnNames', true)`` returns (see
  :func:`problem_struct`), so that ``problem.options = optimoptions('intlinprog');
  intlinprog(problem)`` works as it does on a read MPS file. A model whose rules add ``<=`` rows
  (killer cages, thermometers, anti-knight, ...) also has sparse ``Aineq`` and ``bineq`` at top
  level and in ``problem`` (``constraintNames.ineqlin``: their labels); ``meta.rules`` is the
  rules' JSON text; a gattai layout (samurai) has ``meta.canvas`` and ``meta.kept_columns`` (the
  1-based positions of the present cells' variables: the solver columns).
* ``solve_sudoku.m``  a script written for this model's convention. It reads ``model.mat`` if
  present, else the CSV export (``Aeq_ijv.csv``, ``beq.csv``, ``lb.csv``, ``ub.csv``, ``f.csv``
  of :mod:`formats.csv`), solves with ``intlinprog`` (MATLAB) or ``glpk`` (GNU Octave), expands a
  ``reduce`` solution, decodes ``x`` with the ``reshape``/``permute`` lines of the convention,
  prints the grid and writes ``sudoku.csv`` (N x N integers, no header); where figures can be
  shown it also draws the grid (thick box or region lines, clues bold, as seed 001 does), and
  headless it skips the drawing silently (``sudoku_figure`` saves it to a file, headless too).
* ``kept_columns.csv``  (reduce, or a gattai layout) the 1-based column map, one per line, for the CSV files.

Design choice: the clues (``[r c d position]``) are baked into the script, because they are
few (at most ``N^2``), document the puzzle and are needed in the CSV-only case where no
``meta`` exists. The kept-column map can have ``N^3`` entries, so it is read from
``meta.kept_columns`` or ``kept_columns.csv`` instead of being baked in.
"""
from __future__ import annotations

import io
import json
import os
from typing import Any, Callable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import manifest_from_dict, model_metadata

from formats.agree import described_model, refuse_disagreement
from formats.base import Format, ModelData, atomic_open, register
from formats.files import read_regular
from formats.mat5 import NameTable, compressed_variables
from formats.mat5_guard import INFLATED_FLOOR, check_mat5
from formats.mat5 import element_bytes as _mat5_element  # noqa: F401  (the tests compare it with savemat)
from formats.matlab_script import KEPT_NAME, MAT_NAME, SCRIPT_NAME, render_script

# meta fields that exist only for MATLAB users; read() drops them to give back model_metadata()
_MATLAB_ONLY = ("N", "clues", "clue_positions")
#: Bounds of what ``model.mat`` may inflate to, checked before scipy.io reads it: a struct (``meta``,
#: ``problem``) up to 4 times the bytes of the numeric arrays before it (``problem`` holds ``Aeq``
#: and the vectors again and every name: 1.9 times them in a 100x100's), 64 MiB at least; the whole
#: file up to 64 times its size (a 100x100's inflates 14 times), 64 MiB at least.
OTHERS_PER_NUMERIC_BYTE, INFLATED_PER_FILE_BYTE = 4.0, 64
#: The variables read() loads (and checks array by array first).
_READ_VARIABLES = ("Aeq", "beq", "f", "lb", "ub", "intcon", "meta", "Aineq", "bineq")


# ---------------------------------------------------------------------------------------------
# model.mat
# ---------------------------------------------------------------------------------------------
def _matlab_meta(model) -> dict:
    """model_metadata() made MATLAB-friendly: no None, 1-based index lists, extra clue fields."""
    meta = model_metadata(model)
    conv = model.convention
    # savemat cannot store None; an empty char is MATLAB's "nothing" (read() maps it back)
    meta = {k: ("" if v is None else v) for k, v in meta.items()}
    meta["N"] = conv.n
    if "kept_columns" in meta:
        meta["kept_columns"] = model.columns.astype(np.float64).reshape(-1, 1) + 1.0
    r, c, d = model.puzzle.clues()
    meta["clues"] = np.column_stack([r + 1, c + 1, d + 1]).astype(np.float64).reshape(-1, 3)
    meta["clue_positions"] = (conv.position(r, c, d).astype(np.float64) + 1.0).reshape(-1, 1)
    meta["shape"] = np.asarray(meta["shape"], dtype=np.float64).reshape(1, -1)
    if "rules" in meta:  # JSON text (MATLAB: jsondecode(meta.rules)); nested lists of cells do not survive a .mat
        meta["rules"] = json.dumps(meta["rules"], separators=(",", ":"))
    if isinstance(meta.get("layout"), dict):   # {"grids": [...]}: savemat made equal-length corners one char matrix
        meta["layout"] = json.dumps(meta["layout"], separators=(",", ":"))
    if model.puzzle.layout is not None:  # the solver columns are the present cells' positions
        meta["kept_columns"] = model.columns.astype(np.float64).reshape(-1, 1) + 1.0
        meta["canvas"] = np.asarray(meta["canvas"], dtype=np.float64).reshape(1, -1)
    return _doubles(meta)


def _doubles(value):
    """Python ints -> double: MATLAB's default numeric type (int64 would make meta.N/2 round)."""
    if isinstance(value, dict):
        return {k: _doubles(v) for k, v in value.items()}
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return float(value)
    return value


def _col(values, dtype=np.float64) -> np.ndarray:
    return np.asarray(values, dtype=dtype).reshape(-1, 1)


def _cellstr(values) -> np.ndarray:
    """A column cell array of char vectors (an object array of str; no Python loop)."""
    return np.asarray(values).astype(str).astype(object).reshape(-1, 1)


def _names(values: np.ndarray | list) -> np.ndarray:
    """A column of names as NumPy strings: the writer lays them out as a cell array."""
    values = np.asarray(values)
    return (values if values.dtype.kind == "U" else values.astype(str)).reshape(-1, 1)


def _name_table(model: Model) -> NameTable | None:
    """The column names as the model's name table (ASCII; None otherwise: the str array then)."""
    try:
        return NameTable(model.name_table())
    except UnicodeEncodeError:
        return None


def _double_csc(a: sp.spmatrix) -> sp.csc_matrix:
    """``a`` as a double CSC matrix; a 0/1 matrix is transposed with int8 data (the float64 copy
    of 4 million nonzeros moves eight times the bytes), then given its double ones."""
    a = sp.csr_matrix(a)
    if a.nnz and (a.data == 1).all():
        pattern = sp.csr_matrix((np.ones(a.nnz, dtype=np.int8), a.indices, a.indptr), shape=a.shape).tocsc()
        return sp.csc_matrix((np.ones(a.nnz), pattern.indices, pattern.indptr), shape=a.shape)
    return sp.csc_matrix(a, dtype=np.float64)


def solver_arrays(model: Model) -> dict:
    """``Aeq``, ``beq``, ``f``, ``lb``, ``ub`` and ``intcon`` as intlinprog takes them (and
    ``model.mat`` stores them at top level and in ``problem``); ``Aineq`` and ``bineq`` too when
    the model has inequality rows (rules such as thermometers or anti-knight)."""
    arrays = {
        # MATLAB's sparse type is double CSC; int or bool sparse would not load as a matrix
        "Aeq": _double_csc(model.Aeq),
        "beq": _col(model.beq),
        "f": _col(model.cost),
        "lb": _col(model.lb),
        "ub": _col(model.ub),
        "intcon": _col(np.flatnonzero(model.integrality) + 1),
    }
    if model.n_ineq:
        arrays["Aineq"] = sp.csc_matrix(model.Aineq, dtype=np.float64)
        arrays["bineq"] = _col(model.bineq)
    return arrays


def problem_struct(model: Model, arrays: dict | None = None, *,
                   names: Callable[[Any], np.ndarray] | None = None, variable_names: Any = None) -> dict:
    """The ``problem`` structure of ``model.mat``: what ``mpsread(file, 'ReturnNames', true)`` returns.

    Fields in mpsread's order: ``f``, ``Aineq`` (sparse; 0 x n without inequality rows),
    ``bineq`` (0 x 1 then), ``Aeq`` (sparse double), ``beq``, ``lb``, ``ub``, ``intcon`` (column
    vectors), ``solver = 'intlinprog'``, then the names that ``'ReturnNames', true`` adds:
    ``variableNames`` (n x 1 cell of char vectors) and ``constraintNames`` (a struct with
    ``ineqlin`` and ``eqlin``, cells of char vectors: the labels of the rows of ``Aineq`` and
    ``Aeq``). mpsread's ``options`` object cannot be stored in a v5 file; ``solve_sudoku.m``
    adds ``optimoptions('intlinprog', ...)`` before calling ``intlinprog(problem)``.

    Parameters
    ----------
    model : Model
    arrays : dict, optional
        :func:`solver_arrays` of ``model`` when the caller has them already.
    names : callable, optional
        Turns a list of names into the cell array (default: an object array of ``str``, what
        ``savemat`` takes).
    variable_names : optional
        ``variableNames`` as the caller laid it out already (:class:`~formats.mat5.NameTable`).

    Returns
    -------
    dict
        Field name -> value, in field order, ready for ``scipy.io.savemat``.
    """
    if arrays is None:
        arrays = solver_arrays(model)
    return {
        "f": arrays["f"],
        "Aineq": arrays.get("Aineq", sp.csc_matrix((0, model.n_cols), dtype=np.float64)),
        "bineq": arrays.get("bineq", np.zeros((0, 1))),
        "Aeq": arrays["Aeq"], "beq": arrays["beq"], "lb": arrays["lb"], "ub": arrays["ub"],
        "intcon": arrays["intcon"],
        "solver": "intlinprog",
        "variableNames": (names or _cellstr)(model.col_names) if variable_names is None else variable_names,
        "constraintNames": {"ineqlin": (names or _cellstr)(model.ineq_labels) if model.n_ineq else np.empty((0, 1), dtype=object),
                            "eqlin": (names or _cellstr)(model.row_labels)},
    }


def write(model: Model, path: str | os.PathLike) -> Path:
    """Write ``model`` as one MATLAB v5 ``.mat`` file (atomically).

    The variables are those savemat writes, in its layout; all but ``meta`` (a small struct of
    mixed fields, left to savemat) are laid out and compressed by :mod:`formats.mat5`.

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The ``.mat`` file.

    Returns
    -------
    Path
    """
    import scipy.io as sio  # lazily: scipy.io only to write or read .mat
    path = Path(path)
    arrays = solver_arrays(model)
    buffer = io.BytesIO()   # savemat's 128-byte header, then meta as savemat compresses it
    sio.savemat(buffer, {"meta": _matlab_meta(model)}, format="5", do_compression=True, oned_as="column")
    head = buffer.getvalue()
    try:
        # the names stay NumPy strings here (problem_struct's object arrays cost a Python str each)
        *variables, problem = compressed_variables(
            [*arrays.items(), ("problem", problem_struct(model, arrays, names=_names, variable_names=_name_table(model)))])
        with atomic_open(path, "wb", compress=False) as f:
            f.write(head[:128])
            for chunks in variables:
                f.writelines(chunks)
            f.write(head[128:])
            f.writelines(problem)
    except ValueError as e:
        raise FormatError(f"{path}: cannot write a MATLAB v5 file: {e}") from None
    return path


def _plain(value):
    """loadmat(simplify_cells=True) value -> JSON-like Python (ints stay ints)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, str):
        return value
    arr = np.asarray(value)
    if arr.dtype.kind in "US":
        return str(arr) if arr.ndim == 0 else "".join(arr.ravel().tolist())
    if arr.ndim == 0:
        v = arr.item()
        return int(v) if isinstance(v, float) and v.is_integer() and arr.dtype.kind == "f" else v
    return [_plain(v) for v in arr.ravel(order="F")]


def _metadata_from_mat(raw: dict, where: str) -> dict:
    meta = {k: _plain(v) for k, v in raw.items() if k not in _MATLAB_ONLY and k != "kept_columns"}
    if meta.get("regions") in ("", []):
        meta["regions"] = None
    # 1-element lists that loadmat squeezed (one extra-cell group: a struct, not a struct array)
    meta.update({k: [meta[k]] for k, kind in (("shape", int), ("extra", dict)) if isinstance(meta.get(k), kind)})
    if isinstance(meta.get("rules"), str):
        try:
            meta["rules"] = json.loads(meta["rules"])
        except (ValueError, RecursionError):   # not JSON, nested too deep, an integer of 4,300 digits
            raise FormatError(f"{where}: meta.rules is not the JSON text of the rules") from None
    if isinstance(meta.get("layout"), str) and meta["layout"].startswith("{"):
        try:
            meta["layout"] = json.loads(meta["layout"])
        except (ValueError, RecursionError):   # not JSON, nested too deep, an integer of 4,300 digits
            raise FormatError(f"{where}: meta.layout is not a layout name or the JSON text of one") from None
    if meta.get("clue_encoding") == "reduce":
        if "kept_columns" not in raw:
            raise FormatError(f"{where}: clue encoding 'reduce' needs meta.kept_columns")
        kept = np.atleast_1d(np.asarray(raw["kept_columns"], dtype=np.float64)).ravel()
        # MATLAB's map is 1-based; the manifest's is 0-based (docs/conventions.md index bases)
        meta["kept_columns"] = (kept.astype(np.int64) - 1).tolist()
    return meta


def read(path: str | os.PathLike) -> ModelData:
    """Read a ``model.mat`` (or a directory holding one) back into ModelData.

    Row labels and column names are regenerated from ``meta`` through pipeline.core.conventions
    (and the model rebuilt from the puzzle), since the .mat carries numbers only.
    """
    import scipy.io as sio
    path = Path(path)
    if path.is_dir():
        path = path / MAT_NAME
    if not path.is_file():  # loadmat's own message for this is obscure
        raise FormatError(f"{path}: no such file")
    content = read_regular(path)
    # scipy.io crashes on one damaged byte of an array (a segmentation fault) and inflates a zlib
    # bomb whole: every variable, those in meta and problem too, is checked before it reads any
    check_mat5(content, str(path), others=INFLATED_FLOOR, others_per_numeric_byte=OTHERS_PER_NUMERIC_BYTE,
               most_total=max(INFLATED_FLOOR, INFLATED_PER_FILE_BYTE * len(content)), nested=True, only=_READ_VARIABLES)
    try:   # problem repeats the arrays for MATLAB's intlinprog(problem), and a million names: not read
        raw = sio.loadmat(io.BytesIO(content), simplify_cells=True, variable_names=_READ_VARIABLES)
    except Exception as e:  # scipy raises several types for a file that is not a v5 .mat
        raise FormatError(f"{path}: not a readable MATLAB .mat file ({e})") from None
    missing = [k for k in ("Aeq", "beq", "f", "lb", "ub", "intcon", "meta") if k not in raw]
    if missing:
        raise FormatError(f"{path}: missing variable(s) {', '.join(missing)}")
    a = _matrix(raw, "Aeq", path)
    m, n = a.shape

    def vec(name, size, infinite=False):
        v = _numbers(raw, name, path, infinite)
        if v.size != size:
            raise FormatError(f"{path}: {name} has {v.size} values, Aeq is {m}x{n} (expected {size})")
        return v

    beq, f, lb, ub = vec("beq", m), vec("f", n), vec("lb", n, True), vec("ub", n, True)
    intcon = _numbers(raw, "intcon", path)
    if (intcon != np.round(intcon)).any():
        raise FormatError(f"{path}: intcon holds a value that is not an integer")
    outside = np.flatnonzero((intcon < 1) | (intcon > n))   # as read: 1e308 cast to int64 warned and wrapped
    if outside.size:
        k = int(outside[0])
        raise FormatError(f"{path}: intcon({k + 1}) is {intcon[k]:.15g}: an index outside 1..{n}")
    intcon = intcon.astype(np.int64)
    if np.unique(intcon).size != intcon.size:
        raise FormatError(f"{path}: intcon lists an index twice")
    integrality = np.zeros(n, dtype=bool)
    integrality[intcon - 1] = True

    if not isinstance(raw["meta"], dict):
        raise FormatError(f"{path}: meta is not a struct")
    meta = _metadata_from_mat(raw["meta"], str(path))
    rebuilt = described_model(meta, str(path), "meta")   # refuses metadata that describes no model
    manifest = manifest_from_dict(meta, where=str(path))
    if rebuilt.n_rows != m or not np.array_equal(rebuilt.columns, manifest.columns):
        raise FormatError(f"{path}: Aeq is {m}x{n} but meta describes {rebuilt.n_rows}x{rebuilt.n_cols}")
    lower, upper, labels = beq, beq.copy(), rebuilt.row_labels
    if "Aineq" in raw or rebuilt.n_ineq:
        g, bineq = _inequalities(raw, path, n)
        if g.shape[0] != rebuilt.n_ineq:
            raise FormatError(f"{path}: Aineq has {g.shape[0]} rows but meta describes {rebuilt.n_ineq}")
        a = sp.vstack([a, g], format="csr")
        lower = np.concatenate([lower, np.full(bineq.size, -np.inf)])
        upper = np.concatenate([upper, bineq])
        labels = np.concatenate([labels, rebuilt.ineq_labels])
    data = ModelData(a, lower, upper, lb, ub, f, integrality, labels, manifest.col_names(), meta)
    refuse_disagreement(data, str(path), model=rebuilt)
    return data


def _numbers(raw: dict, name: str, path, infinite: bool = False) -> np.ndarray:
    """Variable ``name`` as a flat float64 vector; FormatError when it is not a numeric array
    (a string, cell or struct) or holds NaN, or an infinity where ``infinite`` is False (only
    bounds may be infinite)."""
    v = raw[name]
    if sp.issparse(v):
        v = v.toarray()
    v = np.asarray(v)
    if not (np.issubdtype(v.dtype, np.number) or v.dtype == bool) or np.iscomplexobj(v):
        raise FormatError(f"{path}: {name} is not a real numeric array (it holds {v.dtype})")
    v = np.atleast_1d(v.astype(np.float64)).ravel()
    bad = np.isnan(v) if infinite else ~np.isfinite(v)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise FormatError(f"{path}: {name}({k + 1}) is {v[k]}: {'not a number' if infinite else 'not finite'}")
    return v


def _matrix(raw: dict, name: str, path) -> sp.csr_matrix:
    """Variable ``name`` as a finite float64 CSR matrix (FormatError otherwise, never a traceback)."""
    g = raw[name]
    if not sp.issparse(g):
        g = np.atleast_2d(np.asarray(g))
        if g.ndim != 2:
            raise FormatError(f"{path}: {name} is not a matrix (it has {g.ndim} dimensions)")
    if not (np.issubdtype(g.dtype, np.number) or g.dtype == bool) or np.iscomplexobj(g):
        raise FormatError(f"{path}: {name} is not a real numeric matrix (it holds {g.dtype})")
    g = sp.csr_matrix(g, dtype=np.float64)
    bad = ~np.isfinite(g.data)
    if bad.any():
        coo = g.tocoo()
        k = int(np.flatnonzero(~np.isfinite(coo.data))[0])
        raise FormatError(f"{path}: {name}({coo.row[k] + 1},{coo.col[k] + 1}) is {coo.data[k]}: not finite")
    return g


def _inequalities(raw: dict, path, n: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """``Aineq`` (sparse, n columns) and ``bineq`` of a loaded .mat (FormatError when missing or
    of the wrong size)."""
    if "Aineq" not in raw or "bineq" not in raw:
        raise FormatError(f"{path}: meta describes inequality rows but Aineq/bineq are missing")
    g = _matrix(raw, "Aineq", path)
    if g.shape[1] != n:
        if g.nnz == 0:  # loadmat squeezes an empty matrix
            g = sp.csr_matrix((0, n))
        else:
            raise FormatError(f"{path}: Aineq has {g.shape[1]} columns, Aeq has {n}")
    bineq = _numbers(raw, "bineq", path)
    if bineq.size != g.shape[0]:
        raise FormatError(f"{path}: bineq has {bineq.size} values, Aineq has {g.shape[0]} rows")
    return g, bineq


def write_kept_columns(model: Model, path: str | os.PathLike) -> Path:
    """``kept_columns.csv``: the 1-based full position of each solver column, one per line.

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The CSV file.
    """
    with atomic_open(path, "wb") as f:
        if model.n_cols:
            f.write(b"\n".join((model.columns + 1).astype("S20").tolist()) + b"\n")
    return Path(path)


def export(model: Model, directory: str | os.PathLike) -> list[Path]:
    """Write ``model.mat``, ``solve_sudoku.m`` and, for reduce or a gattai layout,
    ``kept_columns.csv``.

    Parameters
    ----------
    model : Model
        The model to write.
    directory : str or Path
        The export directory.
    """
    d = Path(directory)
    written = [write(model, d / MAT_NAME)]
    script = d / SCRIPT_NAME
    with atomic_open(script) as f:
        f.write(render_script(model))
    written.append(script)
    if model.is_reduced or model.puzzle.layout is not None:
        written.append(write_kept_columns(model, d / KEPT_NAME))
    return written


register(Format("matlab", (".mat",), "MATLAB v5 .mat (sparse Aeq, vectors, meta) and solve_sudoku.m",
                export=export, write=write, read=read, file_names=(MAT_NAME, SCRIPT_NAME, KEPT_NAME), cost=0.5, one_file=True))
