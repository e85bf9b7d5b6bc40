"""The batch output directory: Parquet parts, ``_batch.json``, ``_SUCCESS`` and the lock.

``OUT/part-<first index>.parquet`` holds a contiguous range of input records in input order
(``pandas.read_parquet(OUT)`` reads the parts as one table; pyarrow ignores ``_``/``.``-prefixed
files). Every part carries, in its Parquet key-value metadata, the run's input fingerprint and a
64-bit hash per row of its record (puzzle, regions, variant), so a resume can tell a part of this
input from one copied in from another run. Every file is written atomically (temporary file +
rename). A write that fails (an unwritable OUT, a full disk) is a :class:`BatchOutputError`
naming the path: the CLI's exit 2, never "a worker failed".
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import contextlib
import errno
import functools
import itertools
import json
import operator
import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

if TYPE_CHECKING:  # annotations only: the modules are imported where they are used
    import pyarrow as pa

from formats.files import arrow_target, atomic_open, is_temporary_name

from pipeline.core.errors import PipelineError, clip, some_of
from pipeline.batch.records import puzzle_as_written
from pipeline.batch.text import LOWER_BOUND, one_line
from pipeline.batch.worker import RESULT_COLUMNS

__all__ = ["PART_PREFIX", "MANIFEST", "SUCCESS", "LOCK", "INDEX_WIDTH", "METADATA_KEY", "KIND", "BatchOutputError",
           "result_schema", "part_path", "write_part", "write_rows", "consecutive_runs", "existing_indices",
           "read_part_rows", "own_files", "upgrade_parts"]

PART_PREFIX = "part-"
MANIFEST = "_batch.json"   # the run record (not an export manifest; the name is kept for callers)
SUCCESS = "_SUCCESS"
LOCK = "_batch.lock"
INDEX_WIDTH = 10  # part-0000000123.parquet: file-name order is index order up to 10^10 records
METADATA_KEY = b"sudoku_pipeline.batch"   # a part's key-value metadata: fingerprint + row hashes
KIND = "sudoku-pipeline batch"              # _batch.json's "kind": the marker of a batch output
_PART_NAME = re.compile(rf"^{re.escape(PART_PREFIX)}\d{{{INDEX_WIDTH}}}\.parquet$")


class BatchOutputError(PipelineError):
    """OUT cannot be written (permissions, a full disk, not a directory); names the path."""


def output_error(path: Path, e: OSError) -> BatchOutputError:
    """One line for a failed write: the path and the system's reason.

    Parameters
    ----------
    path : Path
        The file.
    e : OSError
        What the system said.
    """
    reason = e.strerror or one_line(e)
    if e.errno == errno.ENOSPC:
        reason = "no space left on the device"
    return BatchOutputError(f"batch: cannot write {str(path)!r}: {reason}")


@contextlib.contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn an OSError while writing ``path`` into a :class:`BatchOutputError`."""
    try:
        yield
    except OSError as e:
        raise output_error(Path(getattr(e, "filename", None) or path), e) from None


#: Integer columns that may be missing in some rows (``n_solutions``: none without ``--count``,
#: none in an error row): pandas reads them as its nullable ``Int64``, not as float64 (``1.0``).
#: The others (``index``, ``nodes``) have a value in every row and stay ``int64``.
NULLABLE_INTEGERS = ("n_solutions",)
#: pandas' names of each Arrow type of :func:`result_schema`: ``(pandas_type, numpy_type)``.
_PANDAS_TYPES = {"int64": ("int64", "int64"), "double": ("float64", "float64"), "string": ("unicode", "object")}


@functools.cache
def result_schema() -> pa.Schema:
    """Arrow schema of every part (the same for all, so the parts read as one table).

    Its metadata holds pandas' description of the columns (the ``pandas`` key, as pandas'
    ``to_parquet`` writes it), so that ``pandas.read_parquet`` reads :data:`NULLABLE_INTEGERS` as
    ``Int64`` (without it, an int64 column with a missing value reads as float64).

    Examples
    --------
    >>> import json
    >>> columns = json.loads(result_schema().metadata[b"pandas"])["columns"]
    >>> [(c["name"], c["numpy_type"]) for c in columns if c["pandas_type"] == "int64"]
    [('index', 'int64'), ('n_solutions', 'Int64'), ('nodes', 'int64')]
    """
    import pyarrow as pa  # lazily: the CLI imports batch to build its parser
    schema = pa.schema([
        ("index", pa.int64()), ("id", pa.string()), ("puzzle", pa.string()), ("regions", pa.string()), ("variant", pa.string()),
        ("rules", pa.string()),
        ("solution", pa.string()),
        ("status", pa.string()), ("n_solutions", pa.int64()), ("seconds", pa.float64()),
        ("wall_seconds", pa.float64()), ("nodes", pa.int64()), ("error", pa.string()),
    ])
    columns = []
    for field in schema:
        pandas_type, numpy_type = _PANDAS_TYPES[str(field.type)]
        columns.append({"name": field.name, "field_name": field.name, "pandas_type": pandas_type,
                        "numpy_type": "Int64" if field.name in NULLABLE_INTEGERS else numpy_type, "metadata": None})
    pandas = {"index_columns": [], "column_indexes": [], "columns": columns, "attributes": {}}
    return schema.with_metadata({b"pandas": json.dumps(pandas, separators=(",", ":"))})


#: Bytes a ``string`` column may hold (32-bit offsets); a larger one goes through ``pa.array``.
_STRING_BYTES = 2**31 - 1
_NONE_TYPE = type(None)


def arrow_column(values: list, kind: pa.DataType) -> pa.Array:
    """One result column as an Arrow array, built from its buffers.

    ``pa.array`` would do the same, but its first call imports pandas (0.3 s of every batch
    run's start, the client's largest fixed cost); the result is the same array. Values of
    another type (which the workers do not produce) go through ``pa.array`` after all.

    Parameters
    ----------
    values : list
        ``int``/``float``/``str`` values, ``None`` for missing.
    kind : pyarrow.DataType
        ``int64``, ``float64`` or ``string`` (the types of :func:`result_schema`).

    Examples
    --------
    >>> import pyarrow as pa
    >>> arrow_column(["12", None, "é"], pa.string()).to_pylist()
    ['12', None, 'é']
    >>> arrow_column([3, None], pa.int64()).to_pylist()
    [3, None]
    """
    import pyarrow as pa

    expected = (str,) if pa.types.is_string(kind) else (int, np.integer) if pa.types.is_int64(kind) else \
        (int, float, np.integer, np.floating)
    # the types present, checked once each (map(type, ...) runs in C: the parent writes every part
    # while the workers solve, so its time per value is taken from them)
    present = set(map(type, values))
    if not all(t is _NONE_TYPE or (issubclass(t, expected) and not issubclass(t, bool)) for t in present):
        return pa.array(values, type=kind)   # anything else: pa.array's conversion (or its error)
    given = values
    if _NONE_TYPE in present:
        missing = np.fromiter(map(operator.is_, values, itertools.repeat(None)), dtype=bool, count=len(values))
        nulls = int(missing.sum())
        filler = "" if pa.types.is_string(kind) else 0
        values = [filler if v is None else v for v in values]
    else:
        missing, nulls = None, 0
    validity = pa.py_buffer(np.packbits(~missing, bitorder="little")) if missing is not None else None
    if pa.types.is_string(kind):
        encoded = list(map(str.encode, values))
        offsets = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
        if offsets[-1] > _STRING_BYTES:
            return pa.array(given, type=kind)
        return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(offsets.astype(np.int32)),
                                                         pa.py_buffer(b"".join(encoded))], null_count=nulls)
    dtype = np.int64 if pa.types.is_int64(kind) else np.float64
    data = np.array(values, dtype=dtype)
    return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(data)], null_count=nulls)


def part_path(out: Path, first_index: int) -> Path:
    """``part-<first index>.parquet``: zero-padded, so name order is input order.

    Parameters
    ----------
    out : Path
        The output directory.
    first_index : int
        The part's first record index.
    """
    return out / f"{PART_PREFIX}{first_index:0{INDEX_WIDTH}d}.parquet"


def write_part(out: Path, columns: dict[str, list], fingerprint: str | None = None,
               hashes: np.ndarray | None = None) -> Path:
    """Write one part atomically (temporary ``.part-...`` file, then rename).

    ``fingerprint`` and ``hashes`` (the rows' record hashes, ``uint64``) go into the part's
    metadata for :func:`existing_indices`.

    Parameters
    ----------
    out : Path
        The output directory.
    columns : dict of str to list
        The result columns.
    fingerprint : str, optional
        The input's fingerprint.
    hashes : numpy.ndarray, optional
        The rows' record hashes.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq
    schema = result_schema()
    table = pa.Table.from_arrays([arrow_column(columns[name], schema.field(name).type) for name in RESULT_COLUMNS],
                                 schema=schema)
    if fingerprint is not None:
        meta = {"fingerprint": fingerprint,
                "row_hashes": [] if hashes is None else [f"{int(h):016x}" for h in hashes]}
        table = table.replace_schema_metadata({**schema.metadata, METADATA_KEY: json.dumps(meta, separators=(",", ":"))})
    first = int(columns["index"][0]) if len(columns["index"]) else 0
    path = part_path(out, first)
    with writing(path), atomic_open(path, "wb") as f:
        pq.write_table(table, f)
    return path


def write_rows(out: Path, columns: dict[str, list], fingerprint: str, record_hashes: np.ndarray) -> list[Path]:
    """Write finished rows as parts, one per run of consecutive indices (a chunk cut short by
    Ctrl-C may have finished rows with gaps between them; each part stays a contiguous range).

    Parameters
    ----------
    out : Path
        The output directory.
    columns : dict of str to list
        The finished rows' columns.
    fingerprint : str
        The input's fingerprint.
    record_hashes : numpy.ndarray
        Every record's hash, by index.
    """
    index = np.asarray(columns["index"], dtype=np.int64)
    if index.size == 0:
        return []
    order = np.argsort(index, kind="stable")
    written, start = [], 0
    for run in consecutive_runs(index[order]):
        take = order[start:start + run.size]
        start += run.size
        part = {name: [columns[name][i] for i in take] for name in RESULT_COLUMNS}
        written.append(write_part(out, part, fingerprint, record_hashes[run]))
    return written


def consecutive_runs(indices: np.ndarray) -> list[np.ndarray]:
    """Sorted indices -> runs of consecutive ones (a part never straddles a gap)."""
    if indices.size == 0:
        return []
    return np.split(indices, np.flatnonzero(np.diff(indices) != 1) + 1)


def parts(out: Path) -> list[Path]:
    """The part files of ``out`` in name (= input) order."""
    return sorted(out.glob(f"{PART_PREFIX}*.parquet"))


def _part_identity(path: Path) -> tuple[np.ndarray, dict | None]:
    """A part's indices and its batch metadata (None for parts written before it existed)."""
    import pyarrow.parquet as pq
    try:
        with arrow_target(path) as source:
            file = pq.ParquetFile(source)
            schema = file.schema_arrow
            table = file.read(columns=["index"])
    except Exception as e:  # parts are renamed into place whole, so this is outside damage
        raise PipelineError(f"batch: cannot read part {path.name} ({one_line(e)}); "
                            f"delete it and rerun to solve its records again") from None
    # a column of another type (a string 'index', an integer 'solution') is no part batch wrote:
    # its indices said "a worker failed (ValueError ...)", its rows broke pandas.read_parquet(OUT)
    if "index" not in schema.names:   # read(columns=[...]) leaves out a missing column: said "a worker failed (KeyError"
        raise PipelineError(f"batch: part {path.name} is not a batch part (it has no 'index' column); "
                            f"delete it and rerun to solve its records again")
    if table.column("index").null_count:   # its nulls read as -2**63 (another run's part, said so)
        raise PipelineError(f"batch: part {path.name} is not a batch part (its 'index' column has nulls); "
                            f"delete it and rerun to solve its records again")
    expected = result_schema()
    wrong = [f"column {field.name!r} is {field.type}, not {expected.field(field.name).type}"
             for field in schema if field.name in expected.names and field.type != expected.field(field.name).type]
    if wrong:
        raise PipelineError(f"batch: part {path.name} is not a batch part ({wrong[0]}); "
                            f"delete it and rerun to solve its records again")
    raw = (schema.metadata or {}).get(METADATA_KEY)
    try:
        meta = json.loads(raw) if raw is not None else None
        hashes = meta.get("row_hashes", []) if isinstance(meta, dict) else None
        if raw is not None and (not isinstance(hashes, list) or not all(
                isinstance(h, str) and re.fullmatch(r"[0-9a-f]{1,16}", h) for h in hashes)):
            raise ValueError("not a batch part's metadata")
    except ValueError:   # unreadable, or not the object write_part writes ('[1]' said "a worker failed")
        meta = {"fingerprint": "unreadable"}
    return table.column("index").to_numpy().astype(np.int64), meta


def _foreign(path: Path, out: Path, why: str) -> PipelineError:
    return PipelineError(f"batch: {path.name} in {str(out)!r} was not written for this input ({why}); "
                         f"delete it (its records are solved again) or use --overwrite")


def existing_indices(out: Path, fingerprint: str | None = None, record_hashes: np.ndarray | None = None,
                     puzzles: list | None = None) -> np.ndarray:
    """Indices already written in ``out``'s parts, after checking that every part is this input's.

    Parameters
    ----------
    out : Path
    fingerprint : str, optional
        The input's fingerprint; a part that carries another one is refused.
    record_hashes : ndarray of uint64, optional
        Every record's hash; a part whose rows' hashes differ is refused.
    puzzles : list of str, optional
        The records' puzzle texts, for parts written without metadata (compared with the part's
        ``puzzle`` column).

    Raises
    ------
    PipelineError
        A part is unreadable, foreign, or holds an index out of the input's range.
    """
    import pyarrow.parquet as pq
    found = []
    n_records = None if record_hashes is None else record_hashes.size
    for path in parts(out):
        index, meta = _part_identity(path)
        if n_records is not None and index.size and (index.min() < 0 or index.max() >= n_records):
            raise _foreign(path, out, f"it holds index {int(index.max())}, the input has {n_records} records")
        if fingerprint is not None:
            if meta is None:
                if puzzles is not None and index.size:
                    with arrow_target(path) as source:
                        texts = pq.read_table(source, columns=["puzzle"]).column("puzzle").to_pylist()
                    bad = [int(i) for i, t in zip(index, texts) if t != puzzle_as_written(puzzles[i])]
                    if bad:
                        raise _foreign(path, out, f"its row for record {bad[0]} holds another puzzle")
            elif meta.get("fingerprint") != fingerprint:
                raise _foreign(path, out, "another input's fingerprint")
            elif record_hashes is not None:
                hashes = np.array([int(h, 16) for h in meta.get("row_hashes", [])], dtype=np.uint64)
                if hashes.size != index.size:
                    raise _foreign(path, out, "its row hashes do not match its rows")
                differ = np.flatnonzero(hashes != record_hashes[index])
                if differ.size:
                    raise _foreign(path, out, f"its row for record {int(index[differ[0]])} holds another puzzle")
        found.append(index)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def read_part_rows(path: Path) -> dict[str, list]:
    """A part's rows as columns of Python lists (for ``--retry``'s rewrite)."""
    import pyarrow.parquet as pq
    with arrow_target(path) as source:
        rows = pq.read_table(source).to_pydict()
    size = len(rows.get("index", ()))
    for name in RESULT_COLUMNS:   # a part written before a column was added (regions): empty there
        rows.setdefault(name, [None] * size)
    return rows


def upgrade_parts(out: Path, regions: list, ids: list | None = None) -> int:
    """Rewrite, in place and atomically, each part of ``out`` written before a result column was
    added (``regions``, ``id``), with the column filled from the records, so the output reads whole
    with every column (pandas takes a directory's schema from its first part: a resumed old output
    lost ``regions``).

    Parameters
    ----------
    out : Path
        The output directory (its parts of this input: the run's plan has checked them).
    regions : list
        Each record's ``regions`` as the input gives them, by index.
    ids : list, optional
        Each record's ``id``, by index (None: no record has one).

    Returns
    -------
    int
        Parts rewritten.
    """
    import pyarrow.parquet as pq
    rewritten = 0
    for path in parts(out):
        with arrow_target(path) as source:
            schema = pq.read_schema(source)
        if set(RESULT_COLUMNS) <= set(schema.names):
            continue
        meta = json.loads((schema.metadata or {}).get(METADATA_KEY, b"{}"))
        hashes = meta.get("row_hashes")
        rows = read_part_rows(path)
        if "regions" not in schema.names:
            given = [regions[int(i)] if 0 <= int(i) < len(regions) else None for i in rows["index"]]
            rows["regions"] = [r.strip() if isinstance(r, str) and r.strip() else None for r in given]
        if "id" not in schema.names and ids is not None:
            rows["id"] = [ids[int(i)] if 0 <= int(i) < len(ids) else None for i in rows["index"]]
        write_part(out, rows, meta.get("fingerprint"),
                   None if hashes is None else np.array([int(h, 16) for h in hashes], dtype=np.uint64))
        rewritten += 1
    return rewritten


def part_statuses(out: Path) -> list[tuple[Path, np.ndarray, np.ndarray]]:
    """``(part, index, status)`` of every part of ``out`` that holds rows, in name (= input) order
    (parts are contiguous ranges). A count the time limit stopped after some solutions (status
    ``optimal``, its ``error`` a lower bound) is ``time_limit`` here: what ``--retry`` selects."""
    import pyarrow.parquet as pq
    found = []
    for path in parts(out):
        with arrow_target(path) as source:
            table = pq.read_table(source, columns=["index", "status", "error"])
        if table.num_rows:
            status = np.asarray(table.column("status").to_pylist(), dtype=object)
            errors = table.column("error").to_pylist()
            bounded_counts = np.array([isinstance(e, str) and e.startswith(LOWER_BOUND) for e in errors], dtype=bool)
            status[bounded_counts & (status == "optimal")] = "time_limit"
            found.append((path, table.column("index").to_numpy().astype(np.int64), status))
    return found


def read_manifest(out: Path, command: str = "batch") -> dict | None:
    """The run record ``_batch.json`` of ``out``, or None when there is none.

    Parameters
    ----------
    out : Path
        The output directory.
    command : str
        Who reads it, for the message (``batch``, ``report``).

    Raises
    ------
    PipelineError
        One line when it cannot be read, or is not a JSON object (``[]``, ``null``: a file edited
        or written by another program).
    """
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise PipelineError(f"{command}: cannot read {path} ({one_line(e)})") from None
    if not isinstance(record, dict):
        kind = {list: "an array", str: "a string", bool: "true or false", type(None): "null"}.get(type(record), "a number")
        fix = "; remove it (then --overwrite starts over) or choose another directory" if command == "batch" else ""
        raise PipelineError(f"{command}: {path} is not a batch run record (it holds {kind}, not a JSON object){fix}")
    return record


def write_manifest(out: Path, manifest: dict) -> None:
    """Write the run record ``_batch.json`` atomically (the input's fingerprint and the run's options).

    Parameters
    ----------
    out : Path
        The output directory.
    manifest : dict
        Its content.
    """
    path = out / MANIFEST
    with writing(path), atomic_open(path) as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")


def touch_success(out: Path) -> None:
    """Write the empty ``_SUCCESS`` marker of a complete run atomically (the run record
    ``_batch.json``, saying ``complete``, is written before it)."""
    path = out / SUCCESS
    with writing(path), atomic_open(path, "wb"):
        pass


def clear_success(out: Path) -> None:
    """Remove ``_SUCCESS`` before a run changes ``out``: only a run that ends complete and
    uninterrupted writes it again (an interrupted ``--retry`` must not keep an earlier run's)."""
    path = out / SUCCESS
    with writing(path):
        path.unlink(missing_ok=True)


def prepare_output(out: Path, manifest: dict, overwrite: bool, retry: bool = False) -> None:
    """Create ``out``, or check that it holds a batch of the same input and options.

    With ``overwrite``, the files this tool can prove it wrote (:func:`own_files`) are removed
    first, and nothing else: any other file is a refusal before anything is deleted. With
    ``retry``, other solve options are allowed (rows are redone with the new ones).

    Parameters
    ----------
    out : Path
        The output directory.
    manifest : dict
        This run's ``_batch.json``.
    overwrite : bool
        Remove an earlier batch's files first.
    retry : bool
        Allow other solve options (``--retry``).
    """
    with writing(out):   # run_config has refused an OUT that is not a directory
        out.mkdir(parents=True, exist_ok=True)
        if overwrite:
            for path in own_files(out):
                if path.name != LOCK:   # held by this run
                    path.unlink()
        else:
            for stale in out.iterdir():   # temporary files of a killed run
                if _is_own_temporary(stale.name) and stale.is_file():
                    stale.unlink()
        found = parts(out)
        ours = found + [p for p in (out / MANIFEST, out / SUCCESS) if p.exists()]
    previous = read_manifest(out)
    if previous is None:
        if ours:   # without _batch.json, parts or a _SUCCESS (a lone _SUCCESS was called "parts")
            held = f"{len(found)} part(s)" if found else f"a {SUCCESS} {'folder' if (out / SUCCESS).is_dir() else 'file'}"
            raise PipelineError(f"batch: {str(out)!r} holds {held} but no {MANIFEST}; use --overwrite to start over")
        if retry:
            raise PipelineError(f"batch: --retry needs an existing batch output; {str(out)!r} holds none")
        refuse_foreign(out)
        return
    if not retry and not parts(out):   # a run stopped before its first part holds no results to keep
        return
    # parts laid out by another version of the record (or by another program) are not resumed as if
    # this run had written them; records written before "kind" was recorded (version 1) resume
    kind, record_version = previous.get("kind", manifest["kind"]), previous.get("version")
    if (kind, record_version) != (manifest["kind"], manifest["version"]):
        said = f"version {clip(json.dumps(record_version), 20)}" if kind == manifest["kind"] \
            else f"kind {clip(json.dumps(kind), 40)}"
        raise PipelineError(f"batch: {str(out / MANIFEST)!r} is a run record of {said}; this tool resumes "
                            f"version {manifest['version']} of {manifest['kind']!r}; use --overwrite or another "
                            "output directory")
    checks = (("fingerprint", "input records"),) if retry else (("fingerprint", "input records"),
                                                                ("options", "solve options"))
    for key, what in checks:
        if previous.get(key) != manifest[key]:
            raise PipelineError(f"batch: {str(out)!r} holds results for other {what} "
                                f"({_differences(previous.get(key), manifest[key])}); use --overwrite or another "
                                "output directory")
    if retry:   # the run's options stay those of the first run; retries are listed beside them
        manifest["options"] = previous["options"]
        manifest["retries"] = previous.get("retries", [])


def _differences(before: object, now: object) -> str:
    """What differs between the ``_batch.json`` entry ``before`` and this run's ``now``: up to three
    of the options (a table of options such as ``highs_options`` key by key), each as it was and
    as it is (the input records: only that they differ)."""
    if not (isinstance(before, dict) and isinstance(now, dict)):
        return f"{MANIFEST} differs"
    shown: list[str] = []

    def side(value: object) -> str:
        return "absent" if value is _ABSENT else clip(json.dumps(value), 40)

    def walk(old: dict, new: dict, prefix: str) -> None:
        for key in sorted(set(old) | set(new)):
            a, b = old.get(key, _ABSENT), new.get(key, _ABSENT)
            if a == b:
                continue
            if isinstance(a, dict) and isinstance(b, dict):
                walk(a, b, f"{prefix}{key}.")
            else:
                shown.append(f"{prefix}{key} {side(a)} there, {side(b)} now")

    walk(before, now, "")
    return f"{MANIFEST}: " + "; ".join(shown[:3]) + (f"; {len(shown) - 3} more" if len(shown) > 3 else "")


_ABSENT = object()


def _is_own_temporary(name: str) -> bool:
    """A temporary file of this tool's atomic writes of a part, ``_batch.json`` or ``_SUCCESS``."""
    return is_temporary_name(name) and name[1:].startswith((PART_PREFIX, MANIFEST, SUCCESS))


def _is_own_part(path: Path) -> bool:
    """``part-<10 digits>.parquet`` whose footer carries this tool's batch metadata (or, written
    before that existed, exactly the batch's column schema)."""
    if not _PART_NAME.match(path.name):
        return False
    import pyarrow.parquet as pq
    try:
        with arrow_target(path) as source:
            schema = pq.read_schema(source)
    except Exception:   # not a Parquet file: not a part this tool wrote (and wrote whole)
        return False
    if METADATA_KEY in (schema.metadata or {}):
        return True
    return schema.remove_metadata().equals(result_schema())


def _is_marker(path: Path) -> bool:
    """``_batch.json`` as :func:`write_manifest` writes it (a JSON object of kind :data:`KIND`)."""
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(meta, dict) and meta.get("kind") == KIND


def own_files(out: Path) -> list[Path]:
    """The files of ``out`` that ``batch --overwrite`` may delete: the ones this tool can prove it
    wrote. Decided before anything is touched; any other file is a refusal.

    This tool's are: its parts (:func:`_is_own_part`: the exact name and the batch's metadata in
    the footer), its marker ``_batch.json``, ``_SUCCESS`` beside that marker (a Spark or Hadoop
    dataset has one too), an empty ``_batch.lock`` and the temporary files of its atomic writes.
    Hidden files (``.DS_Store``) are neither deleted nor a reason to refuse.

    Parameters
    ----------
    out : Path

    Returns
    -------
    list of Path

    Raises
    ------
    PipelineError
        ``out`` holds a file (or directory, or link) this tool did not write; names up to three.
    """
    if not out.is_dir():
        return []
    marker = _is_marker(out / MANIFEST)
    ours, foreign = [], []
    for entry in sorted(out.iterdir()):
        name = entry.name
        regular = entry.is_file() and not entry.is_symlink()
        if not regular and name.startswith("."):
            continue
        if regular and (_is_own_temporary(name) or _is_own_part(entry)
                        or (name == MANIFEST and marker) or (name == SUCCESS and marker)
                        or (name == LOCK and entry.stat().st_size == 0)):
            ours.append(entry)
        elif not name.startswith("."):
            foreign.append(name)
    if foreign:
        raise PipelineError(f"batch: --overwrite deletes only the files of a batch output, and {str(out)!r} holds "
                            f"others ({some_of(foreign, 3)}); nothing was deleted: remove them or choose "
                            f"another directory")
    return ours


@contextlib.contextmanager
def locked(out: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``out`` for the run: two runs on one OUT could write
    overlapping parts (different chunk sizes). POSIX only; elsewhere no lock is taken.

    A run refused inside the lock (a :class:`PipelineError`) removes the lock file it created,
    so a refusal leaves ``out`` as it found it."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = out / LOCK
    with writing(path):
        out.mkdir(parents=True, exist_ok=True)
        created = not path.exists()
        handle = open(path, "a")
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise PipelineError(f"batch: another batch is writing {str(out)!r}; wait for it or use another directory") from None
        HELD_LOCKS.add(handle.fileno())
        try:
            yield
        except PipelineError:
            if created:
                with contextlib.suppress(OSError):
                    path.unlink()
            raise
        finally:
            HELD_LOCKS.discard(handle.fileno())
            fcntl.flock(handle, fcntl.LOCK_UN)


#: File descriptors of the locks this process holds: a forked worker closes its copies, so the
#: lock ends with the client (a worker outliving a killed client must not keep OUT locked).
HELD_LOCKS: set[int] = set()


def release_inherited_locks() -> None:
    """In a forked worker: close the inherited lock descriptors (the client keeps the lock)."""
    for fd in list(HELD_LOCKS):
        with contextlib.suppress(OSError):
            os.close(fd)
    HELD_LOCKS.clear()


def refuse_foreign(out: Path) -> None:
    """A directory without a run record (``_batch.json``) must hold nothing visible (the parts would mix)."""
    if not out.is_dir() or (out / MANIFEST).exists():
        return
    foreign = [p.name for p in out.iterdir() if not p.name.startswith((".", "_"))]
    if foreign:
        raise PipelineError(f"batch: output directory {str(out)!r} is not empty and not a batch "
                            f"output (found {', '.join(sorted(foreign)[:3])}); choose another directory")
