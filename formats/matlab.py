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
* ``kept_columns.csv``  (reduce, or a gattai layout) the column map, 1-based, one per line, so that
  the script also works from the CSV files alone.

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
from pipeline.core.puzzle import COMPACT_DIGITS

from formats.agree import described_model, refuse_disagreement
from formats.base import Format, ModelData, atomic_open, register
from formats.mat5 import compressed_variables
from formats.mat5 import element_bytes as _mat5_element  # noqa: F401  (the tests compare it with savemat)

MAT_NAME = "model.mat"
SCRIPT_NAME = "solve_sudoku.m"
KEPT_NAME = "kept_columns.csv"
# meta fields that exist only for MATLAB users; read() drops them to give back model_metadata()
_MATLAB_ONLY = ("N", "clues", "clue_positions")


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
                   names: Callable[[Any], np.ndarray] | None = None) -> dict:
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
        "variableNames": (names or _cellstr)(model.col_names),
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
            [*arrays.items(), ("problem", problem_struct(model, arrays, names=_names))])
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
        except json.JSONDecodeError:
            raise FormatError(f"{where}: meta.rules is not the JSON text of the rules") from None
    if isinstance(meta.get("layout"), str) and meta["layout"].startswith("{"):
        try:
            meta["layout"] = json.loads(meta["layout"])
        except json.JSONDecodeError:
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
    try:
        raw = sio.loadmat(path, simplify_cells=True)
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
    intcon = intcon.astype(np.int64)
    if intcon.size and (intcon.min() < 1 or intcon.max() > n):
        raise FormatError(f"{path}: intcon holds an index outside 1..{n}")
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


# ---------------------------------------------------------------------------------------------
# solve_sudoku.m
# ---------------------------------------------------------------------------------------------
def _decode_lines(conv) -> list[str]:
    """MATLAB lines turning the full vector ``x_full`` into ``X(r,c,d)`` for ``conv``.

    MATLAB's ``reshape`` fills its first dimension fastest, so order F reads the scheme's
    shape as is and order C reads it reversed; block tuples then regroup (p,I) into r and
    (q,J) into c, p and q fastest because r = (I-1)*h + p and c = (J-1)*w + q.
    """
    if conv.scheme == "ijk":
        if conv.order == "F":
            return ["% ijk, order F (MATLAB order): position i + N*(j-1) + N^2*(k-1)",
                    "X = reshape(x_full, N, N, N);          % X(i,j,k) = X(r,c,d)"]
        return ["% ijk, order C (NumPy order): k varies fastest, so MATLAB's reshape sees (k,j,i)",
                "X = reshape(x_full, N, N, N);          % X(k,j,i)",
                "X = permute(X, [3 2 1]);               % X(i,j,k) = X(r,c,d)"]
    if conv.order == "F":
        return ["% block, order F: X(I,J,p,q,n) with I fastest (MATLAB order)",
                "X = reshape(x_full, N/h, N/w, h, w, N); % X(I,J,p,q,n)",
                "X = permute(X, [3 1 4 2 5]);           % X(p,I,q,J,n)",
                "X = reshape(X, N, N, N);               % r = (I-1)*h + p, c = (J-1)*w + q: X(r,c,n)"]
    return ["% block, order C (NumPy order): n varies fastest, so MATLAB's reshape sees (n,q,p,J,I)",
            "X = reshape(x_full, N, w, h, N/w, N/h); % X(n,q,p,J,I)",
            "X = permute(X, [3 5 2 4 1]);           % X(p,I,q,J,n)",
            "X = reshape(X, N, N, N);               % r = (I-1)*h + p, c = (J-1)*w + q: X(r,c,n)"]


def _clue_block(model) -> list[str]:
    r, c, d = model.puzzle.clues()
    pos = model.convention.position(r, c, d) + 1
    rows = np.column_stack([r + 1, c + 1, d + 1, pos])
    if rows.shape[0] == 0:
        return ["clues = zeros(0, 4);"]
    body = [" ".join(str(v) for v in row) + ";" for row in rows.tolist()]
    # several clues per line keep the script short for big grids
    lines = ["clues = [ ..."]
    for k in range(0, len(body), 6):
        lines.append("  " + "  ".join(body[k:k + 6]) + " ...")
    lines.append("];")
    return lines


def _unit_lines(puzzle) -> list[str]:
    """MATLAB lines setting ``units`` (N x N ids whose borders are drawn thick) and ``diagonals``."""
    lines = [f"diagonals = {'true' if puzzle.has_diagonals else 'false'};   % Sudoku-X: both long diagonals are units"]
    if puzzle.regions is not None:
        lines.append("% jigsaw regions, one 0-based id per cell (row by row): their borders are drawn thick")
        body = [" ".join(str(v) for v in row) + ";" for row in puzzle.regions.tolist()]
        lines += ["units = [ ...", *[f"  {row} ..." for row in body], "];"]
    elif puzzle.has_boxes:
        lines += ["[unit_r, unit_c] = ndgrid(0:N-1, 0:N-1);",
                  "units = floor(unit_r / h) * (N / w) + floor(unit_c / w);   % box id of each cell"]
    else:
        lines.append("units = zeros(N);   % no boxes (Latin square): only the frame is thick")
    return lines


def _figure_lines(model) -> list[str]:
    """The drawing section of ``solve_sudoku.m``: the solved grid as a figure, the way seed 001
    draws it (thick box lines, clues in bold), only where figures can be shown or when asked
    to save one; any failure there is one printed line, never an error of the script."""
    p = model.puzzle
    return [
        "",
        "% -- draw the grid in a figure (thick box/region lines, clues bold) -----------------------",
        "% Only where a figure can be shown: MATLAB with figure windows (not -nodisplay/-batch);",
        "% GNU Octave with DISPLAY set and a windowing toolkit (qt/fltk; Octave's gnuplot toolkit",
        "% prints text art on a dead display, so it only saves files). sudoku_draw = false skips it;",
        "% sudoku_figure = 'grid.png' also saves the figure (works headless, figure invisible).",
        "if exist('sudoku_draw', 'var') && ~isempty(sudoku_draw)",
        "  want_figure = logical(sudoku_draw);",
        "else",
        "  want_figure = true;",
        "end",
        "if exist('sudoku_figure', 'var') && ~isempty(sudoku_figure)",
        "  figure_file = sudoku_figure;",
        "else",
        "  figure_file = '';",
        "end",
        "can_show = false;",
        "try",
        "  if exist('OCTAVE_VERSION', 'builtin')",
        "    can_show = ~isempty(getenv('DISPLAY')) && any(strcmp(graphics_toolkit(), {'qt', 'fltk'}));",
        "  else",
        "    can_show = usejava('desktop') || feature('ShowFigureWindows');",
        "  end",
        "catch",
        "  can_show = false;",
        "end",
        "if want_figure && (can_show || ~isempty(figure_file))",
        "  try",
        *["    " + line for line in _unit_lines(p)],
        "    if can_show, visible = 'on'; else, visible = 'off'; end",
        "    if exist('OCTAVE_VERSION', 'builtin')   % saving through gnuplot is fine: no 'discouraged' notice",
        "      warning('off', 'Octave:gnuplot-graphics');",
        "    end",
        f"    fig = figure('Visible', visible, 'Color', 'w', 'Name', 'Sudoku {p.n}x{p.n} {p.variant}', 'NumberTitle', 'off');",
        "    ax = axes('Parent', fig, 'Position', [0.05 0.05 0.9 0.9]);",
        "    hold(ax, 'on');",
        "    if diagonals   % shade the two long diagonals",
        "      k = (1:N)';",
        "      cells = [k k; k N + 1 - k];   % [row col]",
        "      patch('Parent', ax, 'XData', [cells(:, 2) - 1, cells(:, 2), cells(:, 2), cells(:, 2) - 1]', ...",
        "            'YData', [cells(:, 1) - 1, cells(:, 1) - 1, cells(:, 1), cells(:, 1)]', ...",
        "            'FaceColor', [0.9 0.9 0.9], 'EdgeColor', 'none');",
        "    end",
        "    k = 0:N;   % thin lines around every cell, NaN-separated in one line object",
        "    thin_x = [k; k; nan(1, N + 1)]; thin_y = [zeros(1, N + 1); N * ones(1, N + 1); nan(1, N + 1)];",
        "    plot(ax, [thin_x(:); thin_y(:)], [thin_y(:); thin_x(:)], '-', 'Color', [0.6 0.6 0.6], 'LineWidth', 0.5);",
        "    % thick lines where the unit (box or region) changes, and the frame",
        "    [vr, vc] = find(units(:, 1:end-1) ~= units(:, 2:end));   % border right of cell (vr, vc)",
        "    [hr, hc] = find(units(1:end-1, :) ~= units(2:end, :));   % border below cell (hr, hc)",
        "    vr = vr(:); vc = vc(:); hr = hr(:); hc = hc(:);",
        "    thick_x = [[vc vc nan(size(vc))]', [hc - 1, hc, nan(size(hc))]'];   % 3 x segments",
        "    thick_y = [[vr - 1, vr, nan(size(vr))]', [hr hr nan(size(hr))]'];",
        "    plot(ax, [thick_x(:); 0; N; N; 0; 0], [thick_y(:); 0; 0; N; N; 0], 'k-', 'LineWidth', 2.5);",
        "    is_clue = false(N);",
        "    if ~isempty(clues), is_clue(sub2ind([N N], clues(:, 1), clues(:, 2))) = true; end",
        "    font_size = max(5, round(160 / N));",
        "    [cr, cc] = find(is_clue);",
        "    [fr, fc] = find(~is_clue);",
        "    label = @(r, c) arrayfun(@(d) sprintf('%d', d), sudoku(sub2ind([N N], r, c)), 'UniformOutput', false);",
        "    if ~isempty(cr)   % clues in bold black, filled-in digits in blue",
        "      text(cc - 0.5, cr - 0.5, label(cr, cc), 'Parent', ax, 'FontWeight', 'bold', 'FontSize', font_size, ...",
        "           'HorizontalAlignment', 'center', 'VerticalAlignment', 'middle', 'Color', [0 0 0]);",
        "    end",
        "    if ~isempty(fr)",
        "      text(fc - 0.5, fr - 0.5, label(fr, fc), 'Parent', ax, 'FontSize', font_size, ...",
        "           'HorizontalAlignment', 'center', 'VerticalAlignment', 'middle', 'Color', [0.1 0.35 0.75]);",
        "    end",
        "    set(ax, 'YDir', 'reverse');",
        "    axis(ax, [0 N 0 N]); axis(ax, 'equal'); axis(ax, 'off');",
        "    hold(ax, 'off');",
        "    if ~isempty(figure_file)",
        "      print(fig, figure_file, '-dpng');",
        "      fprintf('Wrote %s\\n', figure_file);",
        "    end",
        "    if ~can_show, close(fig); end",
        "  catch err",
        "    fprintf('No figure drawn: %s\\n', err.message);",
        "  end",
        "end",
    ]


def render_script(model: Model) -> str:
    """The text of ``solve_sudoku.m`` for ``model`` (its convention, encoding and clues)."""
    conv = model.convention
    p = model.puzzle
    n = conv.n
    reduce = model.is_reduced
    ineq = model.n_ineq > 0                 # the rules' <= rows (Aineq, bineq)
    canvas = p.layout is not None           # a gattai layout: the columns are the present cells
    mapped = reduce or canvas               # the solver columns are not all positions: a map
    # a rectangle, or more values than the side: the variables run over R x C x V as on a canvas
    wide = not canvas and (p.rows != p.cols or p.n_values != n)
    on_canvas = canvas or wide
    alphabet = np.array(list("." + COMPACT_DIGITS)) if n <= len(COMPACT_DIGITS) else None
    puzzle_lines = ["".join(alphabet[row]) if alphabet is not None else " ".join(map(str, row))
                    for row in p.grid.tolist()]
    head = [
        "% solve_sudoku.m -- generated by sudoku-pipeline; do not edit by hand (re-export instead).",
        f"% Puzzle: {n}x{n} {p.variant}, boxes {p.h}x{p.w}, {p.n_clues} clues:",
        *[f"%   {line}" for line in puzzle_lines],
        f"% Convention: scheme {conv.scheme}, order {conv.order}; clues as {model.clue_encoding};",
        f"% model {model.n_rows} rows x {model.n_cols} columns, {model.nnz} nonzeros.",
        "%",
        ("% Solves Aeq*x = beq, Aineq*x <= bineq, lb <= x <= ub, x integer, with intlinprog (MATLAB,"
         if ineq else "% Solves Aeq*x = beq, lb <= x <= ub, x integer, with intlinprog (MATLAB, Optimization"),
        *(["% Optimization Toolbox) or glpk (GNU Octave), decodes x into the grid, prints it and writes",
            "% sudoku.csv (integers, comma-separated, no header; 0 outside the layout's grids)."] if ineq or canvas else
          ["% Toolbox) or glpk (GNU Octave), decodes x into the grid, prints it and writes sudoku.csv",
           "% (N x N integers, comma-separated, no header)."]),
        "%",
        "% Run from any folder: run('/path/to/solve_sudoku.m'). Optional variables, set before:",
        "%   sudoku_dir      folder with model.mat or the CSV files (default: this script's folder)",
        "%   sudoku_use_csv  true: ignore model.mat and read Aeq_ijv.csv, beq.csv, lb.csv, ub.csv, f.csv"
        + (" (and Aineq_ijv.csv, bineq.csv)" if ineq else ""),
        "%   sudoku_out      path of the solution CSV (default: <sudoku_dir>/sudoku.csv)",
        "%   sudoku_time_limit  seconds the solver may take (glpk tmlim / intlinprog MaxTime; default: none)",
        "%   sudoku_draw     false: no figure (default: draw the solved grid where figures can be shown)",
        "%   sudoku_figure   also save the figure to this .png file (works headless too; run() changes into",
        "%                   this script's folder, so give a full path: fullfile(pwd, 'grid.png'))",
        "",
        f"N = {n}; h = {p.h}; w = {p.w};   % grid side / digits, box rows, box columns",
        *([f"R = {p.rows}; C = {p.cols};   % the canvas of the {getattr(p.layout, 'name', '')} layout: R x C cells, some outside every grid",
           "% cells that belong to a grid (1) or lie outside every grid (0), row by row",
           "present = [ ...", *[f"  '{''.join('1' if v else '0' for v in row)}'; ..." for row in
                                 np.asarray(p.present).reshape(p.rows, p.cols).tolist()],
           "] == '1';"] if canvas else []),
        *([f"R = {p.rows}; C = {p.cols}; N = {p.n_values};   % R x C cells, N digits (sudoku.csv holds 1..N: "
           "digit k stands for the k-th value)", "present = true(R, C);"] if wide else []),
        f"has_boxes = {'true' if p.has_boxes else 'false'};",
        "% Clues [row col digit position]; position = 1-based index of x[row,col,digit] in the full",
        f"% N^3 vector of this convention ({conv.scheme}/{conv.order}). Baked in so that the CSV-only",
        "% route (no meta) can still restore the variables that 'reduce' removed.",
        *_clue_block(model),
        "",
        "% -- where the files are (the script's own folder unless sudoku_dir says otherwise) --------",
        "if exist('sudoku_dir', 'var') && ~isempty(sudoku_dir)",
        "  model_dir = sudoku_dir;",
        "else",
        "  model_dir = fileparts(mfilename('fullpath'));",
        "  if isempty(model_dir), model_dir = pwd; end",
        "end",
        "if exist('sudoku_out', 'var') && ~isempty(sudoku_out)",
        "  out_file = sudoku_out;",
        "else",
        "  out_file = fullfile(model_dir, 'sudoku.csv');",
        "end",
        "mat_file = fullfile(model_dir, 'model.mat');",
        "read_csv = exist('sudoku_use_csv', 'var') && sudoku_use_csv;",
        "if exist('sudoku_time_limit', 'var') && ~isempty(sudoku_time_limit)",
        "  time_limit = sudoku_time_limit;   % seconds",
        "else",
        "  time_limit = [];",
        "end",
        "",
        "% -- the model --------------------------------------------------------------------------",
        "if ~read_csv && exist(mat_file, 'file')",
        "  S = load(mat_file);",
        "  Aeq = S.Aeq; beq = S.beq; f = S.f; lb = S.lb; ub = S.ub; intcon = S.intcon;",
    ]
    if ineq:
        head += ["  Aineq = S.Aineq; bineq = S.bineq;   % the rules' <= rows"]
    if mapped:
        head += ["  kept = S.meta.kept_columns(:);   % 1-based full positions of the solver columns"]
    head += [
        "  fprintf('Read %s\\n', mat_file);",
        "else",
        "  % spconvert: 1-based i,j,v triplets whose last row m,n,0 fixes the size",
        "  Aeq = spconvert(load(fullfile(model_dir, 'Aeq_ijv.csv')));",
        "  beq = load(fullfile(model_dir, 'beq.csv'));",
        "  lb = load(fullfile(model_dir, 'lb.csv'));",
        "  ub = load(fullfile(model_dir, 'ub.csv'));",
        "  f = load(fullfile(model_dir, 'f.csv'));",
        "  intcon = (1:size(Aeq, 2))';       % every variable is binary",
    ]
    if ineq:
        head += ["  Aineq = spconvert(load(fullfile(model_dir, 'Aineq_ijv.csv')));   % the rules' <= rows",
                 "  bineq = load(fullfile(model_dir, 'bineq.csv'));"]
    if mapped:
        head += [f"  kept = load(fullfile(model_dir, '{KEPT_NAME}'));   % 1-based full positions"]
    head += [
        "  fprintf('Read the CSV files in %s\\n', model_dir);",
        "end",
        "beq = beq(:); f = f(:); lb = lb(:); ub = ub(:);",
        "[m, n] = size(Aeq);",
        *(["bineq = bineq(:);", "mi = size(Aineq, 1);   % <= rows"] if ineq else []),
        "",
        "% -- solve ---------------------------------------------------------------------------------",
        "if exist('OCTAVE_VERSION', 'builtin')",
        "  % GNU Octave has no intlinprog; glpk: 'S' = equality rows, 'I' = integer columns, 1 = minimise",
        "  glpk_param = struct('msglev', 1);  % errors only",
        "  if ~isempty(time_limit)",
        "    glpk_param.tmlim = max(1, round(1000 * time_limit));  % milliseconds",
        "  end",
        *(["  % the <= rows follow the equalities: ctype 'U' (upper bound) for each",
            "  [x, fmin, errnum, extra] = glpk(f, [Aeq; Aineq], [beq; bineq], lb, ub, [repmat('S', m, 1); repmat('U', mi, 1)], ...",
            "                                 repmat('I', n, 1), 1, glpk_param);"] if ineq else
          ["  [x, fmin, errnum, extra] = glpk(f, Aeq, beq, lb, ub, repmat('S', m, 1), repmat('I', n, 1), 1, glpk_param);"]),
        "  % status 5 = optimal, 2 = feasible: any feasible point is a solution (zero objective).",
        "  % No solution: error 10 or status 3/4 = infeasible, error 9 = time limit (help glpk)",
        "  if errnum == 9",
        "    % in words, keeping the 'glpk found no solution (error E, status S)' that callers parse",
        "    error('solve_sudoku:timelimit', 'glpk found no solution (error 9, status %d): it stopped on the time limit of %g s', extra.status, time_limit);",
        "  end",
        "  if errnum ~= 0 || ~any(extra.status == [2 5])",
        "    error('solve_sudoku:nosolution', 'glpk found no solution (error %d, status %d)', errnum, extra.status);",
        "  end",
        "else",
        "  opts = optimoptions('intlinprog', 'Display', 'off');",
        "  if ~isempty(time_limit)",
        "    opts = optimoptions(opts, 'MaxTime', time_limit);",
        "  end",
        "  % the structure mpsread returns (model.mat holds it as S.problem); options added here",
        ("  problem = struct('f', f, 'intcon', intcon, 'Aineq', Aineq, 'bineq', bineq, 'Aeq', Aeq, 'beq', beq, ..."
         if ineq else
         "  problem = struct('f', f, 'intcon', intcon, 'Aineq', [], 'bineq', [], 'Aeq', Aeq, 'beq', beq, ..."),
        "                   'lb', lb, 'ub', ub, 'solver', 'intlinprog', 'options', opts);",
        "  [x, fmin, exitflag] = intlinprog(problem);",
        "  if isempty(x) || exitflag <= 0",
        "    error('solve_sudoku:nosolution', 'intlinprog found no solution (exitflag %d)', exitflag);",
        "  end",
        "end",
        "x = round(x(:));",
        "",
        "% -- back to all N^3 variables -------------------------------------------------------------",
    ]
    if reduce:
        head += [
            "% 'reduce' dropped the variables fixed by the clues: put the kept ones back at their full",
            "% positions, the rest stay 0 except the clue variables, which are 1.",
            "x_full = zeros(R * C * N, 1);" if on_canvas else "x_full = zeros(N^3, 1);",
            "x_full(kept) = x;",
            "x_full(clues(:, 4)) = 1;",
        ]
    elif canvas:
        head += [
            "% the solver columns are the variables of the present cells: put them back at their",
            "% positions on the canvas (cells outside every grid have no variables: 0)",
            "x_full = zeros(R * C * N, 1);",
            "x_full(kept) = x;",
        ]
    else:
        head += ["x_full = x;   % the solver columns are all N^3 variables, clues included"]
    if model.n_aux:   # auxiliary columns come after the cell block (docs/conventions.md): not cells
        head += [f"x_full = x_full(1:{'R * C * N' if on_canvas else 'N^3'});   % the {model.n_aux} auxiliary "
                 "columns after the cell variables are the rules' own, not cells"]
    head += [
        "",
        "% -- decode: X(r,c,d) = 1 iff cell (r,c) holds digit d --------------------------------------",
        *(_canvas_decode_lines(conv) if on_canvas else _decode_lines(conv)),
        *(["digit_count = sum(X, 3);",
           "if any(digit_count(present) ~= 1) || any(digit_count(~present) ~= 0)"] if on_canvas else
          ["if any(any(sum(X, 3) ~= 1))"]),
        "  error('solve_sudoku:decode', 'a cell does not hold exactly one digit');",
        "end",
        "sudoku = sum(bsxfun(@times, X, reshape(1:N, 1, 1, N)), 3);   % sudoku(r,c) = digit"
        + ("; 0 outside the grids" if canvas else ""),
        "if ~isempty(clues)",
        "  clue_ok = sudoku(sub2ind([R C], clues(:, 1), clues(:, 2))) == clues(:, 3);" if on_canvas else
        "  clue_ok = sudoku(sub2ind([N N], clues(:, 1), clues(:, 2))) == clues(:, 3);",
        "  if ~all(clue_ok)",
        "    error('solve_sudoku:decode', 'decoded grid contradicts a clue: wrong convention?');",
        "  end",
        "end",
        "",
        "% -- print and write -----------------------------------------------------------------------",
        "cell_width = numel(sprintf('%d', N));",
        *(_canvas_print_lines() if on_canvas else _grid_print_lines()),
        "if exist('writematrix')   % MATLAB R2019a+",
        "  writematrix(sudoku, out_file);",
        "else                      % GNU Octave and older MATLAB",
        "  dlmwrite(out_file, sudoku, ',');",
        "end",
        "fprintf('Wrote %s\\n', out_file);",
        # the figure draws one N x N grid (boxes, regions, diagonals); a layout's canvas is printed only
        *(_figure_lines(model) if not on_canvas else []),
    ]
    return "\n".join(head) + "\n"


def _grid_print_lines() -> list[str]:
    """The N x N grid printed with box separators."""
    return [
        "for r = 1:N",
        "  if has_boxes && r > 1 && mod(r - 1, h) == 0",
        "    disp(repmat('-', 1, N * (cell_width + 1) + 2 * (N / w - 1)));",
        "  end",
        "  text_line = '';",
        "  for c = 1:N",
        "    if has_boxes && c > 1 && mod(c - 1, w) == 0, text_line = [text_line ' |']; end",
        "    text_line = [text_line sprintf(' %*d', cell_width, sudoku(r, c))];",
        "  end",
        "  disp(text_line);",
        "end",
    ]


def _canvas_print_lines() -> list[str]:
    """A layout's canvas printed row by row, '.' outside every grid."""
    return [
        "for r = 1:R",
        "  text_line = '';",
        "  for c = 1:C",
        "    if present(r, c)",
        "      text_line = [text_line sprintf(' %*d', cell_width, sudoku(r, c))];",
        "    else",
        "      text_line = [text_line sprintf(' %*s', cell_width, '.')];",
        "    end",
        "  end",
        "  disp(text_line);",
        "end",
    ]


def _canvas_decode_lines(conv) -> list[str]:
    """MATLAB lines turning ``x_full`` into ``X(r,c,d)`` on a layout's R x C canvas (ijk only)."""
    if conv.order == "F":
        return ["% ijk on the canvas, order F: position r + R*(c-1) + R*C*(d-1)",
                "X = reshape(x_full, R, C, N);          % X(r,c,d)"]
    return ["% ijk on the canvas, order C (NumPy order): d varies fastest, so MATLAB's reshape sees (d,c,r)",
            "X = reshape(x_full, N, C, R);          % X(d,c,r)",
            "X = permute(X, [3 2 1]);               % X(r,c,d)"]


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
                export=export, write=write, read=read, file_names=(MAT_NAME, SCRIPT_NAME, KEPT_NAME)))
