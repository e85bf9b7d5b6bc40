"""One batch run: :func:`run_batch` (the public entry) and what it does while holding OUT's lock.

Scheduling: chunks are cut from the missing records as the run goes (:class:`ChunkPlanner`), each
sized so that it takes about :data:`TARGET_CHUNK_SECONDS` in a worker (measured on the chunks
already back), never more than a fair share of what is left: big hard puzzles go out one or two
at a time, so every worker stays busy to the end, and many easy ones go out in large chunks, so
the fixed cost per chunk (a task, a part file) stays small.
"""
from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable, TextIO

import numpy as np

from pipeline.core import stops
from pipeline.core.errors import PipelineError
from pipeline.core.limits import memory_limit
from pipeline.core.parse import looks_like_document
from pipeline.core import version
from pipeline.solvers import SOLVERS, dfsrules_native
from pipeline.batch.config import BatchConfig, BatchConfigError
from pipeline.batch.engines import STOP_GRACE_SECONDS, Dask, InProcess, Processes, make_engine
from pipeline.batch.output import (INDEX_WIDTH, KIND, LOCK, MANIFEST, PART_PREFIX, clear_success, consecutive_runs, locked,
                     own_files, part_statuses, parts, prepare_output, read_part_rows, refuse_foreign, touch_success,
                     upgrade_parts, write_manifest, write_part, write_rows)
from pipeline.batch.output import existing_indices as checked_indices
from pipeline.batch.progress import Progress
from pipeline.batch.records import read_records, record_hashes, records_fingerprint
from pipeline.batch.worker import CPU_KEY, RESULT_COLUMNS, STOPPED_KEY, solve_records

__all__ = ["BatchSummary", "ChunkPlanner", "run_batch", "run_config"]

#: Seconds of worker time an adaptive chunk aims at: long enough to amortise a task and a part
#: file, short enough for even scheduling and a fine-grained resume.
TARGET_CHUNK_SECONDS = 1.0
#: Largest adaptive chunk (bulk numpy steps gain little beyond this).
MAX_ADAPTIVE_CHUNK = 256
#: First chunks before any timing is known: small grids are cheap, big ones may take minutes.
FIRST_CHUNK_SMALL, FIRST_CHUNK_BIG, BIG_RECORD_CHARS = 16, 1, 256


@dataclass
class BatchSummary:
    """What a run did. ``complete``: every record has a row in OUT and every row ``--retry``
    picked was solved again; ``_SUCCESS`` is written when the run is complete and not
    ``interrupted``."""

    output: str
    records: int
    already_done: int
    solved_now: int
    status_counts: dict
    elapsed: float
    run_seconds: float       # sum of time inside the solver calls over this run's records
    worker_seconds: float    # sum of the records' whole cost in the workers
    complete: bool
    interrupted: bool = False
    parts_written: int = 0
    cpu_client: float = 0.0       # CPU seconds of this process besides solving (reading, writing parts)
    cpu_workers: float = 0.0      # CPU seconds the workers spent on this run's chunks
    workers: int = 1
    loadavg: tuple | None = None  # 1-minute load average at start and end (shared machines)
    solver: str = "highs"
    retried: int = 0              # rows of an earlier run solved again (--retry)

    @property
    def puzzles_per_second(self) -> float:
        return self.solved_now / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def cpu_efficiency(self) -> float:
        """Workers' CPU seconds / (elapsed x workers): below 1 when workers waited for a core
        (other load on the machine) or for work."""
        return self.cpu_workers / (self.elapsed * self.workers) if self.elapsed > 0 else 0.0

    @property
    def overhead_fraction(self) -> float:
        """Share of the workers' time spent outside the solver calls."""
        return 1.0 - self.run_seconds / self.worker_seconds if self.worker_seconds > 0 else 0.0

    @property
    def solver_call(self) -> str:
        """What ``run_seconds`` measures, in words (the solver entry's ``timed_call``:
        ``Highs.run()`` for HiGHS)."""
        entry = SOLVERS.get(self.solver)
        return (entry.timed_call if entry is not None else "") or f"{self.solver}'s calls"

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(puzzles_per_second=self.puzzles_per_second, overhead_fraction=self.overhead_fraction,
                 cpu_efficiency=self.cpu_efficiency)
        return d


class ChunkPlanner:
    """Hands out chunks of record indices: runs of consecutive missing indices (or, for
    ``--retry``, the rows to redo of one part), cut to the current chunk size.

    Examples
    --------
    >>> planner = ChunkPlanner([np.arange(0, 5), np.arange(8, 10)], fixed=2, workers=1)
    >>> [c.tolist() for c in planner.chunks()]
    [[0, 1], [2, 3], [4], [8, 9]]
    """

    def __init__(self, runs: list[np.ndarray], *, fixed: int | None = None, workers: int = 1,
                 first: int = FIRST_CHUNK_SMALL):
        self.runs = [r for r in runs if r.size]
        self.remaining = int(sum(r.size for r in self.runs))
        self.fixed, self.workers = fixed, max(1, workers)
        self.size = first
        self.seconds = 0.0   # worker seconds and rows of the chunks back so far
        self.rows = 0

    def observe(self, rows: int, worker_seconds: float) -> None:
        """A chunk came back: adapt the size to the measured time per puzzle.

        Parameters
        ----------
        rows : int
            Puzzles the chunk held.
        worker_seconds : float
            Seconds the worker spent on it; with ``fixed`` chunks only recorded.
        """
        self.rows += rows
        self.seconds += worker_seconds
        if self.fixed is None and self.rows:
            per_puzzle = max(self.seconds / self.rows, 1e-6)
            self.size = int(min(MAX_ADAPTIVE_CHUNK, max(1, TARGET_CHUNK_SECONDS / per_puzzle)))

    def chunks(self):
        """Every chunk left, in order (with the sizes as they stand)."""
        while (chunk := self.next()) is not None:
            yield chunk

    def next(self) -> np.ndarray | None:
        """The next chunk, or None when every run is handed out."""
        if not self.runs:
            return None
        size = self.fixed
        if size is None:   # never more than a fair share of the rest: no straggler at the end
            size = max(1, min(self.size, math.ceil(self.remaining / (2 * self.workers))))
        run = self.runs[0]
        chunk, rest = run[:size], run[size:]
        if rest.size:
            self.runs[0] = rest
        else:
            self.runs.pop(0)
        self.remaining -= chunk.size
        return chunk


def run_batch(input_path: str | os.PathLike, output: str | os.PathLike, *, stream: TextIO | None = None,
              **options: Any) -> BatchSummary:
    """Solve every record of ``input_path`` not yet in ``output`` into Parquet parts.

    Parameters
    ----------
    input_path : str or Path
        Puzzles: a text file (one per line, or one puzzle document as JSON per line), CSV/TSV or
        Parquet (column ``puzzle``, optional ``regions``, ``variant`` and ``rules``, a JSON list
        of rule entries, and ``id``, carried to each row's ``id``).
    output : str or Path
        The output directory; rerun with the same one to resume.
    stream : file, optional
        Where progress goes (default ``sys.stderr``).
    **options
        Any field of :class:`pipeline.batch.config.BatchConfig`: ``workers``, ``engine``,
        ``scheduler``, ``chunk_size``, ``count``, ``time_limit``, ``propagate``, ``box``,
        ``variant``, ``input_format``, ``limit`` (stop after that many new records),
        ``overwrite``, ``progress``, ``log_interval``, ``highs_options``, ``solver`` (default
        ``"auto"``: the engine ``batch --solver auto`` picks, records with rules getting auto's pick
        for their own model), ``sat_backend``, ``amo``, ``retry`` (statuses whose rows are solved again).

    Returns
    -------
    BatchSummary
        Counts, times and whether OUT is complete; ``interrupted=True`` after Ctrl-C/SIGTERM.

    Raises
    ------
    PipelineError
        Bad options (:class:`~pipeline.batch.config.BatchConfigError`), unusable input, or an
        output that cannot be written (:class:`~pipeline.batch.output.BatchOutputError`).

    Examples
    --------
    >>> import tempfile, pathlib, pandas
    >>> work = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (work / "in.txt").write_text("..4.3...1.2.....\\n1234\\n")
    >>> summary = run_batch(work / "in.txt", work / "out", workers=1, progress="none")
    >>> summary.complete, summary.status_counts
    (True, {'error': 1, 'optimal': 1})
    >>> pandas.read_parquet(work / "out")[["status", "solution"]].fillna("-").values.tolist()
    [['optimal', '2143341213244231'], ['error', '-']]
    >>> import shutil; shutil.rmtree(work)
    """
    known = [f.name for f in fields(BatchConfig) if f.name not in ("input_path", "output")]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise BatchConfigError(f"run_batch: unknown option {unknown[0]!r} (options: {', '.join(known)})")
    return run_config(BatchConfig(_path_text(input_path), _path_text(output), **options), stream=stream)


def _path_text(path: str | os.PathLike) -> str:
    """A path as text; what is no path stays as it is, for BatchConfig's validator to name."""
    return os.fspath(path) if isinstance(path, os.PathLike) else path


class _StopSignals:
    """While a run is going: the first Ctrl-C (or SIGTERM) asks the workers to stop after their
    current puzzle and keeps what they finished; a second one stops waiting for them at once
    (a KeyboardInterrupt in the scheduling loop; during the clean-up after it, a flag); every
    later one is ignored, also after the run (:func:`pipeline.core.stops.shutdown_started`)."""

    def __init__(self):
        self.requested = False
        self.now = False
        self.in_loop = False   # the scheduling loop runs: a second signal may raise there
        self.engine = None
        self.previous = {}

    def _handle(self, signum, frame):
        stops.shutdown_started()
        if not self.requested:
            self.requested = True
            stops.stopping_in_order()   # here in Python: the watchdog waits for the orderly end
            if self.engine is not None:
                self.engine.request_stop()
            return
        if self.now:
            return
        self.now = True
        if self.in_loop:
            raise KeyboardInterrupt

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        return False


def run_config(config: BatchConfig, stream: TextIO | None = None, *,
               on_start: Callable[[], None] | None = None) -> BatchSummary:
    """:func:`run_batch` from a ready :class:`BatchConfig`.

    Parameters
    ----------
    config : BatchConfig
        Every option, checked.
    stream : file, optional
        Where progress goes (default ``sys.stderr``).
    on_start : callable, optional
        Called once the input is read, OUT prepared and the engine started, before the first
        chunk: a caller's notes then follow every refusal of the input, OUT or options, which
        stays the only line (the command line's ``note: solver auto: ...``).
    """
    if stream is not None and not callable(getattr(stream, "write", None)):   # failed at the first progress line
        raise BatchConfigError.for_option("stream", f"must be a text file with a write method, got {stream!r}", " ")
    stream = stream or sys.stderr
    # a bad $SUDOKU_PIPELINE_MAX_BYTES is the run's one line, as solve's: each worker's check made
    # every record an error row of it, in a run recorded complete (exit 0)
    memory_limit()
    started, usage, load_start = time.monotonic(), time.process_time(), _loadavg()
    records = read_records(config.input_path, config.input_format)
    fingerprint = records_fingerprint(records)
    options = config.solve_options()
    out = Path(config.output)
    manifest = {
        "kind": KIND,
        "version": 1,
        "pipeline_version": version.__version__,
        "input": config.input_path,
        "records": len(records["puzzle"]),
        "fingerprint": fingerprint,
        "options": options.recorded(),
        "columns": list(RESULT_COLUMNS),
        "layout": f"{PART_PREFIX}<first index, {INDEX_WIDTH} digits>.parquet; rows in input order",
    }
    if out.exists() and not out.is_dir():
        raise PipelineError(f"batch: output {str(out)!r} exists and is not a directory")
    if out.is_symlink() and not out.exists():   # mkdir said only "File exists"
        raise PipelineError(f"batch: output {str(out)!r} is a link to {os.readlink(out)!r}, which does not exist")
    # decided before anything is touched and before the lock file is created in OUT
    if config.overwrite:
        own_files(out)   # refuses when OUT holds a file this tool did not write
    else:
        refuse_foreign(out)
    fresh_directory, fresh_manifest = not out.exists(), not (out / MANIFEST).exists()
    undone = False
    try:
        with locked(out):
            try:
                summary = _run_locked(out, config, manifest, records, asdict(options), stream=stream,
                                      started=started, usage=usage, load_start=load_start, on_start=on_start)
            except (Exception, KeyboardInterrupt):   # also a Ctrl-C while --overwrite's cluster starts
                undone = _undo_refused_start(out, fresh_manifest)
                raise
            if summary.interrupted:   # stopped before a part was written (a Dask scheduler waited for): as refused
                undone = _undo_refused_start(out, fresh_manifest)
            return summary
    finally:
        if undone and fresh_directory:   # the lock is released: the directory this run made goes if empty
            with contextlib.suppress(OSError):
                (out / LOCK).unlink(missing_ok=True)
                out.rmdir()


def _undo_refused_start(out: Path, fresh_manifest: bool) -> bool:
    """A run refused or interrupted before it wrote a result (``--engine dask`` without dask, a
    scheduler that does not answer, Ctrl-C while it is waited for, ``--retry`` into nothing)
    leaves OUT as it found it: the manifest it wrote goes (a
    later run with other options was refused by it), and :func:`run_config` removes the directory
    it made. Called holding OUT's lock; True when nothing was solved (and so undone)."""
    if parts(out):
        return False
    if fresh_manifest:
        with contextlib.suppress(OSError):
            (out / MANIFEST).unlink(missing_ok=True)
    return True


def _plan(out: Path, config: BatchConfig, records: dict, fingerprint: str, hashes: np.ndarray):
    """What this run solves: the planner, which rows are already in OUT, which are done (a row
    ``--retry`` picks is not, until it is solved again), for ``--retry`` the part each retried
    index lives in, and the indices it retries (sorted)."""
    n_records = len(records["puzzle"])
    present = checked_indices(out, fingerprint, hashes, records["puzzle"])
    if np.unique(present).size != present.size:
        raise PipelineError(f"batch: parts in {str(out)!r} hold duplicate indices; use --overwrite")
    done = np.zeros(n_records, dtype=bool)
    done[present] = True
    missing = np.flatnonzero(~done)
    owner = {}
    retry = np.zeros(0, dtype=np.int64)
    written = part_statuses(out) if config.retry else []   # one read of every part for statuses and ranges
    if written:
        index = np.concatenate([i for _, i, _ in written])
        status = np.concatenate([s for _, _, s in written])
        retry = np.sort(index[np.isin(status, list(config.retry))])
    budget = config.limit
    if budget is not None:
        retry = retry[:budget]
        missing = missing[:max(budget - retry.size, 0)]
    done[retry] = False   # redone by this run: done again once its new row is written
    runs = []
    if retry.size:
        firsts = np.array([int(i.min()) for _, i, _ in written])
        where = np.searchsorted(firsts, retry, side="right") - 1
        for k in np.unique(where):
            mine = retry[where == k]
            runs.append(mine)
            for i in mine:
                owner[int(i)] = written[int(k)][0]
    runs += consecutive_runs(missing)
    first_text = next((p for p in records["puzzle"] if p), "")
    first = FIRST_CHUNK_BIG if len(first_text) >= BIG_RECORD_CHARS else FIRST_CHUNK_SMALL
    planner = ChunkPlanner(runs, fixed=config.chunk_size, workers=config.worker_count, first=first)
    return planner, present, done, owner, retry


def _merge_into_part(part: Path, columns: dict, fingerprint: str, hashes: np.ndarray) -> None:
    """``--retry``: put the new rows into the part that held the old ones (atomically)."""
    rows = read_part_rows(part)
    position = {int(i): k for k, i in enumerate(rows["index"])}
    for j, index in enumerate(columns["index"]):
        k = position[int(index)]
        for name in RESULT_COLUMNS:
            rows[name][k] = columns[name][j]
    index = np.asarray(rows["index"], dtype=np.int64)
    write_part(part.parent, rows, fingerprint, hashes[index])


def _may_have_rules(puzzles: Any, rules: Any) -> bool:
    """Whether a record may carry rules beyond units: a rules entry, or a puzzle document (JSON)."""
    return any(isinstance(r, str) and r.strip() not in ("", "[]") for r in rules) or any(
        isinstance(p, str) and looks_like_document(p) for p in puzzles)


def _load_rule_kernel(engine: str) -> None:
    """Load the compiled engine ``auto`` gives rule records (``dfsrules``) in this process, once:
    a forked pool's workers inherit it instead of each compiling it (5-20 s on a machine's first
    run), and where the cache cannot keep its kernel the run still uses it (one compile for all
    its records). A Dask cluster's workers inherit nothing: those on this machine read the cache,
    so the kernel is compiled here first (with the note) only when it is missing and the cache
    can keep it, rather than by each worker at once and in silence. Nothing to do without numba.

    Parameters
    ----------
    engine : str
        ``BatchConfig.engine``.
    """
    if SOLVERS["dfsrules"].available() is not None:
        return
    if engine != "dask" or (not dfsrules_native.is_cached() and dfsrules_native.start_problem() is None):
        dfsrules_native.load()


def _run_locked(out: Path, config: BatchConfig, manifest: dict, records: dict, payload: dict, *, stream, started,
                usage, load_start, on_start=None) -> BatchSummary:
    """The part of :func:`run_batch` that runs while holding OUT's lock; ``payload`` is the solve
    options as the workers take them, ``on_start`` :func:`run_config`'s."""
    n_records = len(records["puzzle"])
    runner = None
    made: list[Any] = []   # the engine once it holds something to close, before it is returned
    try:
        if config.overwrite and config.engine == "dask" and n_records:
            # --overwrite replaces every row: the cluster is reached (a scheduler that does not answer
            # refused) before the parts it would replace are deleted
            runner = make_engine("dask", min(config.worker_count, n_records), config.scheduler, made=made.append)
        return _run_with(out, config, manifest, records, payload, runner, stream=stream, started=started,
                         usage=usage, load_start=load_start, on_start=on_start)
    except BaseException:
        for engine in made:
            engine.close()   # idempotent: the run's own close (or the engine's, on a failed start) may have come first
        raise


def _run_with(out: Path, config: BatchConfig, manifest: dict, records: dict, payload: dict,
              runner: InProcess | Processes | Dask | None, *, stream, started, usage, load_start, on_start=None) -> BatchSummary:
    """:func:`_run_locked` once a cluster that ``--overwrite`` needs is reached (``runner``, else
    None: the engine starts after the plan)."""
    n_records = len(records["puzzle"])
    fingerprint = manifest["fingerprint"]
    prepare_output(out, manifest, config.overwrite, retry=bool(config.retry))
    hashes = record_hashes(records)
    planner, present, done, owner, retried = _plan(out, config, records, fingerprint, hashes)
    upgrade_parts(out, records["regions"], records.get("id"))   # this input's older parts: with the columns added since
    n_retry = int(retried.size)
    if config.retry:   # which rows these options solve again: first and last index of each run
        manifest["retries"].append({"statuses": list(config.retry), "rows": n_retry, "options": payload,
                                    "index_ranges": [[int(r[0]), int(r[-1])] for r in consecutive_runs(retried)]})
    manifest["status"] = "running"
    clear_success(out)   # before the run record says "running"; written again at a clean end only
    write_manifest(out, manifest)
    if n_records == 0 and not parts(out):
        write_part(out, {name: [] for name in RESULT_COLUMNS}, fingerprint, hashes[:0])  # an empty table
    puzzles, regions, variants = records["puzzle"], records["regions"], records["variant"]
    rules = records.get("rules") or [None] * n_records
    ids = records.get("id") or [None] * n_records
    totals = {"run": 0.0, "worker": 0.0, "cpu": 0.0, "parts": 0}
    interrupted = False
    # an error that ends the run (an engine that does not start, a crashed worker, a part that
    # cannot be written) is raised once _batch.json says what was written: it said "running"
    error: BaseException | None = None
    made: list[Any] = []   # the engine once it holds something to close, before it is returned
    try:   # a Ctrl-C while the engine starts (a loaded machine: seconds) ends the run as one in the loop
        # the workers start before the progress bar: tqdm's monitor thread would rule out fork
        warm = SOLVERS[config.solver].batch_warm
        if config.rules_by_auto and _may_have_rules(puzzles, rules):
            _load_rule_kernel(config.engine)   # before a fork: the workers inherit it rather than each compile it
        if runner is None and planner.remaining:
            runner = make_engine(config.engine, min(config.worker_count, planner.remaining), config.scheduler, warm,
                                 made=made.append)
    except KeyboardInterrupt:
        interrupted = True
    except Exception as e:
        interrupted = stops.wrapped_interrupt(e)   # wrapped by a class's creation
        error = None if interrupted else e
    for engine in made:
        if engine is not runner:   # a stop after its workers started, before it was returned: none left running
            engine.close(cancel=True)
    if on_start is not None and not interrupted and error is None:   # every refusal is behind: the run starts
        on_start()
    if isinstance(runner, InProcess):   # nothing forks from here on: Ctrl-C may end a long engine call
        stops.watch()
    meter = Progress(n_records, int(done.sum()), config.progress, config.log_interval, stream)
    with _StopSignals() as stop:
        stop.engine = runner
        try:
            stop.in_loop = True
            if runner is not None and not interrupted and error is None:
                planner.workers = runner.workers
                # in process, a chunk is solved inside submit: one at a time, so a finished chunk is
                # written before the next starts (Ctrl-C in the next kept none of the one before)
                window = 1 if isinstance(runner, InProcess) else 2 * runner.workers
                pending: set[Any] = set()   # futures of the engine (concurrent.futures or Dask)
                while True:
                    while not stop.requested and len(pending) < window:
                        chunk = planner.next()
                        if chunk is None:
                            break
                        task = [(int(i), puzzles[i], regions[i], variants[i], rules[i], ids[i]) for i in chunk]
                        pending.add(runner.submit(solve_records, task, payload))
                    if not pending:
                        break
                    if stop.requested:
                        pending = {f for f in pending if not f.cancel()}
                        if isinstance(runner, Dask):
                            break
                    finished = runner.wait_any(pending, timeout=min(1.0, config.log_interval or 1.0)
                                               if not stop.requested else STOP_GRACE_SECONDS)
                    if stop.requested and not finished or stop.now:
                        break   # workers did not answer in time: what is written stays
                    for future in finished:
                        pending.discard(future)
                        columns = future.result()
                        totals["cpu"] += columns.pop(CPU_KEY, 0.0)
                        columns.pop(STOPPED_KEY, None)
                        if not columns["index"]:
                            continue
                        _locate_errors(columns, records.get("line"))
                        _write_result(out, columns, owner, fingerprint, hashes, totals)
                        planner.observe(len(columns["index"]), float(sum(columns["wall_seconds"])))
                        done[columns["index"]] = True
                        meter.update(columns["status"])
                    counted = runner.finished_puzzles()
                    if counted is not None:
                        meter.running(counted)
            interrupted = interrupted or stop.requested
        except KeyboardInterrupt:
            interrupted = True
        except Exception as e:
            interrupted = stops.wrapped_interrupt(e)   # wrapped by a class's creation
            # a crashed worker, a part that cannot be written: what is still out is never written
            error = None if interrupted else e
        finally:
            stop.in_loop = False
            if runner is not None:
                runner.close(cancel=interrupted or stop.requested or error is not None, abort=lambda: stop.now)
            meter.close()
    complete = bool(done.all())
    elapsed = time.monotonic() - started
    own = time.process_time() - usage
    in_process = isinstance(runner, InProcess)
    summary = BatchSummary(str(out), n_records, int(present.size) - n_retry, meter.new,
                           dict(sorted(meter.counts.items())), elapsed, totals["run"], totals["worker"], complete,
                           interrupted, int(totals["parts"]),
                           cpu_client=own - (totals["cpu"] if in_process else 0.0), cpu_workers=totals["cpu"],
                           workers=runner.workers if runner is not None else 1, loadavg=(load_start, _loadavg()),
                           solver=config.solver, retried=int(done[retried].sum()))
    if config.retry and retried.size and not done[retried].all():
        # stopped before every row it was to solve again: the entry lists the rows it did solve
        # (an interrupted retry listed all of them; a rerun of it takes the rest)
        solved = retried[done[retried]]
        manifest["retries"][-1].update(rows=int(solved.size), planned_rows=n_retry,
                                       index_ranges=[[int(r[0]), int(r[-1])] for r in consecutive_runs(solved)])
    manifest["status"] = ("failed" if error is not None else "complete" if complete and not interrupted
                          else "interrupted" if interrupted else "partial")
    manifest["last_run"] = summary.to_dict()
    if error is not None:
        manifest["last_run"]["error"] = f"{type(error).__name__}: {error}"
        with contextlib.suppress(OSError):   # a full disk: the error that ended the run is the one to tell
            write_manifest(out, manifest)
        raise error
    write_manifest(out, manifest)
    if complete and not interrupted:
        touch_success(out)
    return summary


def _locate_errors(columns: dict, lines: list[int] | None) -> None:
    """Start each error row's text with its record's line in a text input (``line 7: puzzle: bad
    character ...``): comments and blank lines are not records, so ``index`` alone did not lead
    back to the line."""
    if lines is None:
        return
    status = np.asarray(columns["status"], dtype=object)
    for j in np.flatnonzero((status == "error") | (status == "memory_limit")):   # a few, never every record
        columns["error"][j] = f"line {lines[int(columns['index'][j])]}: {columns['error'][j] or ''}"


def _write_result(out: Path, columns: dict, owner: dict, fingerprint: str, hashes: np.ndarray,
                  totals: dict) -> None:
    """A chunk's rows into parts: new rows as new parts, retried rows into their old part."""
    totals["run"] += float(sum(columns["seconds"]))
    totals["worker"] += float(sum(columns["wall_seconds"]))
    index = columns["index"]
    if owner and int(index[0]) in owner:   # a retry chunk lies inside one part
        _merge_into_part(owner[int(index[0])], columns, fingerprint, hashes)
        totals["parts"] += 1
        return
    totals["parts"] += len(write_rows(out, columns, fingerprint, hashes))


def _loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return None

