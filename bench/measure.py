"""One benchmark measurement, run in a fresh process by ``bench/run.py`` (clean peak RSS).

    python bench/measure.py '{"kind": "writer", "writer": "mps", "n": 8, "dir": "/tmp/x", "check": true}'

prints one JSON object on stdout. Kinds:

* ``writer``: build the empty-grid model with ``n x n`` boxes (not timed), then time one writer
  (ours through ``formats.format_for(name).write``, highspy's ``passModel`` + ``writeModel``,
  or pyarrow's bare CSV/Parquet writers of the COO triplets) and optionally read the files back.
* ``build``: time ``build_model`` of the empty grid; ``bare``: time the bare NumPy triplets
  (``np.ravel_multi_index`` of the model's (row, column) pairs) that any builder must produce.

Peak RSS is the process's high-water mark *during* the timed step: VmHWM from /proc/self/status
after resetting it through /proc/self/clear_refs (Linux); elsewhere ru_maxrss of the process.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# "parquet-coo" is the triplet file alone, the like-for-like rival of bare pyarrow triplets
OUR_WRITERS = {"mps": "model.mps", "lp": "model.lp", "parquet": "model.parquet", "parquet-coo": "model_coo.parquet",
               "csv": "model_ijv.csv", "matlab": "model.mat"}
OTHER_WRITERS = {"highspy-mps": "highs.mps", "highspy-lp": "highs.lp",
                 "pyarrow-csv": "triplets.csv", "pyarrow-parquet": "triplets.parquet"}


# ---------------------------------------------------------------------------------------------
# the parent's side: one measurement in a fresh interpreter
# ---------------------------------------------------------------------------------------------
def results_dir(parser, value) -> Path:
    """``--results-dir``, made before the run: a path that is a file or cannot be made is a one-line
    usage error (exit 2) at once, not a traceback after minutes of measuring."""
    path = Path(value)
    if path.exists() and not path.is_dir():
        parser.error(f"--results-dir {value}: not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--results-dir {value}: {exc.strerror or exc}")
    return path


def write_result(path: str | os.PathLike, data, **json_args) -> Path:
    """Write a bench's result file (its JSON, ``latest.json``, a Markdown table) whole or not at all:
    into a temporary file beside ``path``, renamed over it at the end (``formats.files.atomic_open``),
    so a run stopped or failing midway leaves the earlier file as it was and no temporary file.

    ``data`` is the text itself (``str``), or an object streamed as JSON (``json.dump`` with
    ``json_args``: ``indent``, ``default``). The directory is made if needed.

    Returns
    -------
    Path
        ``path``.
    """
    from formats.files import atomic_open

    with atomic_open(path, "w", compress=False) as f:
        if isinstance(data, str):
            f.write(data)
        else:
            json.dump(data, f, **json_args)
    return Path(path)


def child_env() -> dict:
    """The environment of a measurement child: this checkout first on ``PYTHONPATH``."""
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def installed_env() -> dict:
    """:func:`child_env` with bytecode written and read, as an installed package runs (a
    ``PYTHONDONTWRITEBYTECODE`` inherited from the shell would compile every module edited since the
    last cache from source in every measured process: tens of milliseconds of a ``solve``)."""
    return {k: v for k, v in child_env().items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_script(script: str, spec: dict, timeout: float, preexec_fn=None) -> dict:
    """``python bench/<script> '<spec>'`` in a fresh interpreter: the JSON object of its last
    stdout line, or ``spec`` with ``error`` (timed out, or the exit code and stderr's last line).
    ``preexec_fn`` runs in the child before the script (bench/sat_bench.py caps its memory)."""
    cmd = [sys.executable, str(ROOT / "bench" / script), json.dumps(spec)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=child_env(), cwd=ROOT,
                              preexec_fn=preexec_fn)
    except subprocess.TimeoutExpired:
        return {**spec, "error": f"timed out after {timeout:.0f}s"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {**spec, "error": f"exit {proc.returncode}: {tail}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# peak RSS of one step
# ---------------------------------------------------------------------------------------------
def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def reset_peak() -> str:
    """Reset the RSS high-water mark if the kernel lets us; returns the scope of the peak."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return "step"
    except OSError:
        return "process"


def peak_mb() -> float:
    kb = _status_kb("VmHWM")
    if kb is None:
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux
    return kb / 1024.0


def rss_mb() -> float:
    kb = _status_kb("VmRSS")
    return (kb or 0) / 1024.0


# ---------------------------------------------------------------------------------------------
# models
# ---------------------------------------------------------------------------------------------
def empty_puzzle(n: int):
    """The empty grid with ``n x n`` boxes (N = n^2)."""
    from pipeline.core.puzzle import Puzzle

    size = n * n
    return Puzzle(np.zeros((size, size), dtype=np.int64), n, n)


def bare_triplets(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of every nonzero of the empty grid's ``A`` with plain NumPy (ijk/F columns).

    Rows: cell (r,c), then row (r,d), column (c,d), box (b,d), each ``N^2`` rows; every variable
    x[r,c,d] appears once in each family: 4 N^3 nonzeros.
    """
    size = n * n
    r, c, d = (a.ravel() for a in np.indices((size, size, size)))
    col = np.ravel_multi_index((r, c, d), (size, size, size), order="F")
    box = (r // n) * n + c // n
    nn = size * size
    rows = np.concatenate([np.ravel_multi_index((r, c), (size, size)),
                           nn + np.ravel_multi_index((r, d), (size, size)),
                           2 * nn + np.ravel_multi_index((c, d), (size, size)),
                           3 * nn + np.ravel_multi_index((box, d), (size, size))])
    return rows, np.tile(col, 4)


# ---------------------------------------------------------------------------------------------
# writers
# ---------------------------------------------------------------------------------------------
def _files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith("."))


def write_ours(name: str, model, directory: Path) -> dict:
    from formats import format_for

    if name == "parquet-coo":
        from formats.parquet import write_coo

        write_coo(model, directory / OUR_WRITERS[name])
        return {}
    fmt = format_for(name, need="write")
    fmt.write(model, directory / OUR_WRITERS[name])
    return {}


def write_highspy(kind: str, model, directory: Path, prepared) -> dict:
    from pipeline.solvers.highs import new_highs

    a = prepared["csc"]
    h = new_highs()
    t0 = time.perf_counter()
    h.passModel(model.n_cols, model.n_rows, a.nnz, 1, 1, 0.0, prepared["cost"], prepared["lb"], prepared["ub"],
                prepared["beq"], prepared["beq"], a.indptr, a.indices, a.data, prepared["integrality"])
    t1 = time.perf_counter()
    h.writeModel(str(directory / OTHER_WRITERS[kind]))
    return {"pass_seconds": t1 - t0, "write_seconds": time.perf_counter() - t1}


def write_pyarrow(kind: str, directory: Path, prepared) -> dict:
    import pyarrow as pa

    coo = prepared["coo"]
    if kind == "pyarrow-csv":
        import pyarrow.csv as pcsv

        # 1-based like the spconvert triplets of our CSV writer
        table = pa.table({"row": coo.row + 1, "col": coo.col + 1, "value": coo.data})
        pcsv.write_csv(table, directory / OTHER_WRITERS[kind])
    else:
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"row": coo.row, "col": coo.col, "value": coo.data}), directory / OTHER_WRITERS[kind])
    return {}


def prepare(writer: str, model) -> dict:
    """What a writer gets outside the timing: its modules imported; CSC or COO arrays for the
    non-pipeline writers (our writers start from the Model itself)."""
    import formats  # noqa: F401  (imports every registered writer)
    import highspy  # noqa: F401
    import pyarrow.csv  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    if writer.startswith("highspy"):
        a = model.Aeq.tocsc()
        return {"csc": a.__class__((a.data.astype(np.float64), a.indices.astype(np.int32), a.indptr.astype(np.int32)),
                                   shape=a.shape),
                "cost": np.asarray(model.cost, float), "lb": np.asarray(model.lb, float),
                "ub": np.asarray(model.ub, float), "beq": np.asarray(model.beq, float),
                "integrality": np.ones(model.n_cols, dtype=np.int32)}
    if writer.startswith("pyarrow"):
        coo = model.Aeq.tocoo()
        return {"coo": coo}
    return {}


# ---------------------------------------------------------------------------------------------
# read-back checks (not timed)
# ---------------------------------------------------------------------------------------------
def check_files(writer: str, model, directory: Path) -> str:
    """Read what was written and compare it with the model; ``ok`` or what differs."""
    try:
        if writer in OUR_WRITERS:
            return _check_ours(writer, model, directory / OUR_WRITERS[writer])
        if writer.startswith("highspy"):
            return check_highs_file(directory / OTHER_WRITERS[writer], model)
        return _check_pyarrow(writer, model, directory / OTHER_WRITERS[writer])
    except Exception as e:  # a failed check is a result, not a crash
        return f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def _same_matrix(a, b) -> bool:
    a, b = a.tocsr(), b.tocsr()
    return a.shape == b.shape and (a != b).nnz == 0


def _check_ours(writer: str, model, path: Path) -> str:
    from formats import ModelData, format_for

    data = format_for(writer.split("-")[0], need="read").read(path)
    if not _same_matrix(data.Aeq, model.Aeq):
        return f"failed: Aeq read back from {path.name} differs"
    if writer == "csv":  # the triplets file carries the matrix only
        return "ok"
    want = ModelData.from_model(model)
    for field in ("row_lower", "row_upper", "lb", "ub", "cost"):
        if not np.array_equal(np.asarray(getattr(data, field), float), np.asarray(getattr(want, field), float)):
            return f"failed: {field} read back from {path.name} differs"
    if not np.array_equal(np.asarray(data.integrality, bool), np.asarray(want.integrality, bool)):
        return f"failed: integrality read back from {path.name} differs"
    return "ok"


def check_highs_file(path: Path, model) -> str:
    """Read an MPS/LP file with HiGHS (an independent reader) and compare the matrix.

    Columns are matched by name when the file has the pipeline's names (x_...), else by HiGHS's
    default names ``c<k>``/``r<k>`` (LP files list columns in order of appearance).
    """
    import highspy
    import scipy.sparse as sp

    from pipeline.solvers.highs import new_highs

    h = new_highs()
    if h.readModel(str(path)) == highspy.HighsStatus.kError:
        return f"failed: HiGHS cannot read {path.name}"
    lp = h.getLp()
    a = lp.a_matrix_
    m, n = lp.num_row_, lp.num_col_
    if (m, n) != (model.n_rows, model.n_cols):
        return f"failed: {path.name} is {m}x{n}, model is {model.n_rows}x{model.n_cols}"
    csc = sp.csc_matrix((np.asarray(a.value_), np.asarray(a.index_), np.asarray(a.start_)), shape=(m, n))
    col_names, row_names = list(lp.col_names_), list(lp.row_names_)
    col_pos = _positions(col_names, [str(s) for s in model.col_names], "c")
    row_pos = _positions(row_names, [str(s) for s in model.row_labels], "r")
    if col_pos is None or row_pos is None:
        return f"failed: {path.name}: names match neither the model nor HiGHS defaults"
    coo = csc.tocoo()
    got = sp.csr_matrix((coo.data, (row_pos[coo.row], col_pos[coo.col])), shape=(m, n))
    if not _same_matrix(got, model.Aeq):
        return f"failed: matrix of {path.name} differs"
    if not np.array_equal(np.asarray(lp.row_lower_)[np.argsort(row_pos)], model.beq):
        return f"failed: row bounds of {path.name} differ"
    return "ok"


def _positions(names: list[str], model_names: list[str], prefix: str):
    """Position in the model of each name read (model names, or HiGHS's c<k>/r<k>)."""
    if not names:
        return np.arange(len(model_names))
    lookup = {name: k for k, name in enumerate(model_names)}
    if all(name in lookup for name in names):
        return np.array([lookup[name] for name in names])
    if all(name.startswith(prefix) and name[1:].isdigit() for name in names):
        return np.array([int(name[1:]) for name in names])
    return None


def _check_pyarrow(writer: str, model, path: Path) -> str:
    import scipy.sparse as sp

    if writer == "pyarrow-csv":
        import pyarrow.csv as pcsv

        t = pcsv.read_csv(path)
        rows, cols = t.column("row").to_numpy() - 1, t.column("col").to_numpy() - 1
    else:
        import pyarrow.parquet as pq

        t = pq.read_table(path)
        rows, cols = t.column("row").to_numpy(), t.column("col").to_numpy()
    got = sp.csr_matrix((t.column("value").to_numpy(), (rows, cols)), shape=model.Aeq.shape)
    return "ok" if _same_matrix(got, model.Aeq) else f"failed: triplets of {path.name} differ"


# ---------------------------------------------------------------------------------------------
# one measurement
# ---------------------------------------------------------------------------------------------
def measure(spec: dict) -> dict:
    """Run the measurement described by ``spec`` (see the module docstring)."""
    from pipeline.core.build import build_model

    kind, n = spec["kind"], int(spec["n"])
    repeat = max(1, int(spec.get("repeat", 1)))
    out = {"kind": kind, "n": n, "N": n * n}
    if kind in ("build", "bare"):
        best = float("inf")
        out["rss_before_mb"] = rss_mb()
        out["rss_scope"] = reset_peak()
        for _ in range(repeat):
            # a new puzzle each round: a puzzle keeps A's unit table (its shape cache), so a
            # second build of the same one would time the cache
            puzzle = empty_puzzle(n)
            start = time.perf_counter()
            if kind == "build":
                model = build_model(puzzle)
                nnz = model.A.nnz
            else:
                rows, cols = bare_triplets(n)
                nnz = rows.size
            best = min(best, time.perf_counter() - start)
            model = rows = cols = None  # noqa: F841  (free before the next round)
        out.update(seconds=best, nnz=int(nnz), peak_rss_mb=peak_mb())
        return out
    writer = spec["writer"]
    directory = Path(spec["dir"])
    directory.mkdir(parents=True, exist_ok=True)
    model = build_model(empty_puzzle(n))
    prepared = prepare(writer, model)
    out.update(writer=writer, rows=model.n_rows, columns=model.n_cols, nnz=model.nnz)
    out["rss_before_mb"] = rss_mb()
    out["rss_scope"] = reset_peak()
    best, extra = float("inf"), {}
    for _ in range(repeat):
        for p in _files(directory):
            p.unlink()
        start = time.perf_counter()
        if writer in OUR_WRITERS:
            extra = write_ours(writer, model, directory)
        elif writer.startswith("highspy"):
            extra = write_highspy(writer, model, directory, prepared)
        else:
            extra = write_pyarrow(writer, directory, prepared)
        best = min(best, time.perf_counter() - start)
    out["peak_rss_mb"] = peak_mb()
    files = _files(directory)
    out.update(seconds=best, bytes=sum(p.stat().st_size for p in files), files=[str(p) for p in files], **extra)
    if spec.get("check"):
        out["check"] = check_files(writer, model, directory)
    if not spec.get("keep"):
        for p in files:
            p.unlink()
    return out


if __name__ == "__main__":
    print(json.dumps(measure(json.loads(sys.argv[1]))))
