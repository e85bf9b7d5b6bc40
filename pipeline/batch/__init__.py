"""Batch solving: many puzzles from a text/CSV/Parquet file -> a resumable Parquet dataset.

``python -m pipeline batch IN OUT`` (or :func:`run_batch`) reads one puzzle per record, solves
each and writes ``OUT/part-<first index>.parquet`` files, each written atomically (temporary file
+ rename) and tied to the input (fingerprint and a hash per row in its metadata), plus
``OUT/_batch.json`` (input fingerprint and options) and ``OUT/_SUCCESS`` once every record has a
row (written by a run that ends so, uninterrupted; a run removes it before it starts work).
``pandas.read_parquet(OUT)`` reads the parts as one table in input order. Rerun after a kill
or Ctrl-C, the batch checks the parts, keeps what is there and solves only the missing records;
``retry=("time_limit", "error")`` (``--retry``) solves such rows again, with new options.

Columns: ``index`` (0-based record number), ``id`` (a table input's ``id`` cell, else null),
``puzzle`` (the record), ``variant``, ``solution``
(compact string), ``status`` (optimal | infeasible | error | time_limit | invalid | ...),
``n_solutions`` (with ``--count K``: capped at K; pandas reads it as ``Int64``, missing in error
rows), ``seconds`` (inside the solver calls), ``wall_seconds`` (the record's whole cost in its
worker), ``nodes``, ``error`` (one line).

Modules, each one job:

* :mod:`~pipeline.batch.config`: :class:`BatchConfig`, every option, validated once.
* :mod:`~pipeline.batch.records`: input records, their fingerprint and per-record hashes.
* :mod:`~pipeline.batch.kernels`: vectorised parsing, verification, rendering (singles are
  :mod:`pipeline.core.propagate`'s).
* :mod:`~pipeline.batch.highs_shape`, :mod:`~pipeline.batch.sat_shape`: the per-shape kernels
  (one HiGHS instance with bounds per puzzle; one incremental SAT solver; CP-SAT per puzzle).
* :mod:`~pipeline.batch.worker`: a chunk -> result columns; every record isolated.
* :mod:`~pipeline.batch.output`: parts, the run record (``_batch.json``), lock, resume checks.
* :mod:`~pipeline.batch.engines`: the executors (where chunks run): in-process, process pool, Dask.
* :mod:`~pipeline.batch.progress`: the progress meter and the workers' shared flags.
* :mod:`~pipeline.batch.run`: :func:`run_batch`, scheduling and the summary.

The ``batch`` subcommand's parser lives in :mod:`pipeline.cli` like every other subcommand.
"""
from pipeline.batch.config import (DEFAULT_HIGHS_OPTIONS, ENGINES, INPUT_FORMATS, MAX_CHUNK_SIZE, MAX_COUNT,
                     MAX_WORKERS, PROGRESS_MODES, RETRY_STATUSES, BatchConfig, BatchConfigError, SolveOptions,
                     check_config)
from pipeline.batch.highs_shape import BoundChanges, ShapeSolver, solver_for
from pipeline.core.propagate import MAX_BITS_N, propagate  # re-exported: batch's singles are core's kernel
from pipeline.batch.kernels import clue_conflicts, grid_strings, verify_solutions
from pipeline.batch.output import (INDEX_WIDTH, LOCK, MANIFEST, PART_PREFIX, SUCCESS, BatchOutputError, existing_indices,
                     part_path, result_schema, write_part)
from pipeline.batch.progress import Progress
from pipeline.batch.records import detect_input_format, read_records, record_hashes, records_fingerprint
from pipeline.batch.run import BatchSummary, ChunkPlanner, run_batch, run_config
from pipeline.batch.worker import CPU_KEY, RESULT_COLUMNS, Shape, parse_record, solve_records

__all__ = [
    "DEFAULT_HIGHS_OPTIONS", "ENGINES", "INPUT_FORMATS", "MAX_CHUNK_SIZE", "MAX_COUNT",
    "MAX_WORKERS", "PROGRESS_MODES", "RETRY_STATUSES", "BatchConfig", "BatchConfigError", "SolveOptions",
    "check_config", "BoundChanges", "ShapeSolver", "solver_for", "MAX_BITS_N", "clue_conflicts", "grid_strings",
    "propagate", "verify_solutions", "INDEX_WIDTH", "LOCK", "MANIFEST", "PART_PREFIX", "SUCCESS",
    "BatchOutputError", "existing_indices", "part_path", "result_schema", "write_part", "Progress",
    "detect_input_format", "read_records", "record_hashes", "records_fingerprint", "BatchSummary",
    "ChunkPlanner", "run_batch", "run_config", "CPU_KEY", "RESULT_COLUMNS", "Shape", "parse_record",
    "solve_records",
]
