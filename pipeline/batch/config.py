"""Every batch option in one frozen :class:`BatchConfig`, checked once.

The command line (``pipeline.cli``) and :func:`pipeline.batch.run_batch` both build a
``BatchConfig``; everything below them takes the config, never a list of loose parameters. The
checks follow scipy's ``optimize._milp._milp_iv``: one validator, one exact one-line message per
bad value (``chunk_size must be a positive integer, got 0``), raised as :class:`BatchConfigError`.
"""
from __future__ import annotations

import importlib.util
import math
import os
import re
from dataclasses import asdict, dataclass, field, fields

import highspy

from pipeline.core.clauses import AMO_ENCODINGS

from pipeline.core.errors import PipelineError, clip
from pipeline.core.extras import install_hint
from pipeline.core.options import MAX_THREADS
from pipeline.core.parse import parse_box
from pipeline.core.progress import PROGRESS_MODES
from pipeline.solvers import SOLVERS, batch_solver_names, get_solver
from pipeline.solvers.auto import pick_solver
from pipeline.solvers.highs import new_highs
from pipeline.solvers.sat import sat_backends
from pipeline.core.variants import VARIANTS

ENGINES = ("processes", "dask")
INPUT_FORMATS = ("auto", "text", "csv", "parquet")
#: Statuses ``--retry`` may name (what a row can hold besides ``optimal``/``infeasible``).
RETRY_STATUSES = ("time_limit", "error", "invalid", "non_integral", "no_solution", "memory_limit",
                  "interrupted", "infeasible", "optimal")

#: More worker processes than this is a typo, not a machine (each is a Python process with
#: numpy, HiGHS and the shape caches: about 100 MB each).
MAX_WORKERS = 256
#: Puzzles per task and per part file: beyond this a part's rows no longer fit comfortably in
#: a worker's memory for 25x25 grids, and progress/resume granularity is lost.
MAX_CHUNK_SIZE = 100_000
#: ``--count K``: HiGHS adds one no-good row per solution, so K bounds a puzzle's model growth.
MAX_COUNT = 1_000_000

#: Dask's network schemes (distributed.comm's backends but ``inproc``, which lives in one process).
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
# [SCHEME://]HOST:PORT, HOST a name, an IPv4 address or a bracketed IPv6 one: the form Dask's
# Client parses; anything else failed only in the first worker, after OUT had been created
_SCHEDULER_ADDRESS = re.compile(r"(?:(?P<scheme>[^:/]+)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]{1,5})")

# Measured with bench/highs_tuning.py (two samples of 100 "hardest" puzzles, CPU time): the RENS
# heuristic costs ~9-13% and finds nothing that branching does not; on sudoku17 it makes no
# difference. Every other option tried was neutral (within seed noise) or slower.
DEFAULT_HIGHS_OPTIONS = {"mip_heuristic_run_rens": False}


class BatchConfigError(PipelineError):
    """A batch option with a bad value (one line naming the option and the value): ``option`` is
    the keyword (``chunk_size``), ``detail`` the rest, so the command line can name its flag."""


@dataclass(frozen=True)
class SolveOptions:
    """What a worker needs to solve records (plain data: it is pickled to workers, and its
    ``asdict`` is the ``options`` of ``_batch.json`` that a resume must match)."""

    count: int = 0                     # count solutions up to this cap (0: do not count)
    time_limit: float | None = None    # seconds per solver run
    propagate: bool = True             # naked/hidden singles before the solver
    box: str | None = None             # box shape for records (e.g. "2x3"); default sqrt(N)
    variant: str | None = None         # variant of records without one (default classic)
    highs_options: dict = field(default_factory=lambda: dict(DEFAULT_HIGHS_OPTIONS))
    solver: str = "highs"              # a solver with a batch kernel (pipeline.solvers.batch_solver_names)
    sat_backend: str | None = None     # python-sat solver for --solver sat
    amo: str | None = None             # at-most-one encoding for --solver sat
    #: ``solver`` is ``--solver auto``'s pick: a record with rules beyond units or a layout,
    #: which that engine may not take (dfs), goes to auto's pick for its own model, and a dfs
    #: record stuck in search to the SAT engine (auto's count handoff)
    rules_by_auto: bool = False

    def recorded(self) -> dict:
        """The options as ``_batch.json`` records them: a field added later is left out while it
        has its default, so the outputs of earlier versions still resume."""
        out = asdict(self)
        if not self.rules_by_auto:
            del out["rules_by_auto"]
        return out


@dataclass(frozen=True)
class BatchConfig:
    """Every option of one batch run, validated on construction (see :func:`check_config`).

    Examples
    --------
    >>> BatchConfig("in.txt", "out", chunk_size=64).chunk_size
    64
    >>> BatchConfig("in.txt", "out", chunk_size=0)
    Traceback (most recent call last):
    ...
    pipeline.batch.config.BatchConfigError: chunk_size must be a positive integer, got 0
    """

    input_path: str
    output: str
    workers: int | None = None         # None: every core
    engine: str = "processes"
    scheduler: str | None = None       # a Dask scheduler address (implies engine="dask")
    chunk_size: int | None = None      # None: adaptive (see pipeline.batch.run.ChunkPlanner)
    count: int = 0
    time_limit: float | None = None
    propagate: bool = True
    box: str | None = None
    variant: str | None = None
    input_format: str = "auto"
    limit: int | None = None
    overwrite: bool = False
    progress: str = "auto"
    log_interval: float = 10.0
    highs_options: dict = field(default_factory=dict)
    solver: str = "auto"               # "auto": as batch --solver auto (resolved here, rules_by_auto set)
    sat_backend: str | None = None
    amo: str | None = None
    rules_by_auto: bool = False        # solver is auto's pick (see SolveOptions.rules_by_auto)
    retry: tuple = ()                  # statuses whose rows an existing OUT solves again

    def __post_init__(self):
        if not all(isinstance(p, (str, os.PathLike)) for p in (self.input_path, self.output)):
            check_config(self)   # the paths' message first: auto's pick below reads the input
        if self.solver == "auto":   # the command line's default, for the API too (it was HiGHS: 18x slower)
            object.__setattr__(self, "solver", auto_batch_solver(self))
            object.__setattr__(self, "rules_by_auto", True)
        check_config(self)
        set_ = object.__setattr__   # frozen: normalised once, here
        set_(self, "input_path", str(self.input_path))
        set_(self, "output", str(self.output))
        if self.scheduler:
            set_(self, "scheduler", self.scheduler.strip())
        if self.scheduler and self.engine == "processes":
            set_(self, "engine", "dask")  # an address only makes sense for Dask
        set_(self, "highs_options", {**DEFAULT_HIGHS_OPTIONS, **(self.highs_options or {})})
        set_(self, "retry", tuple(self.retry))
        if self.time_limit is not None:
            set_(self, "time_limit", float(self.time_limit))

    @property
    def worker_count(self) -> int:
        """``workers``, or every core of this machine."""
        return self.workers or min(os.cpu_count() or 1, MAX_WORKERS)

    def solve_options(self) -> SolveOptions:
        """The part of the config the workers need (and a resume must match)."""
        names = {f.name for f in fields(SolveOptions)}
        return SolveOptions(**{k: v for k, v in asdict(self).items() if k in names})

    def replace(self, **changes) -> "BatchConfig":
        """A copy with ``changes`` (validated again)."""
        return BatchConfig(**{**asdict(self), **changes})


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_finite(value) -> bool:
    """A finite number of seconds (an int past float's range, ``10**400``, is not: it overflowed)."""
    try:
        return _is_number(value) and math.isfinite(value)
    except OverflowError:
        return False


def dask_missing() -> str:
    """The one line ``--engine dask`` gets where dask[distributed] cannot be imported."""
    return f"batch: --engine dask needs dask[distributed] (the dask extra): {install_hint('dask')}"


def _bad(option: str, detail: str, sep: str = " ") -> BatchConfigError:
    """The error ``<option> <detail>`` about ``option`` (a command line names its flag instead)."""
    return BatchConfigError.for_option(option, detail, sep)


def _one_of(name: str, value, allowed) -> None:
    try:
        known = value in allowed
    except TypeError:   # a list or dict given: unhashable, so none of the names
        known = False
    if not known:
        raise _bad(name, f"must be one of {', '.join(map(str, allowed))}, got {value!r}")


def check_config(c: BatchConfig) -> None:
    """The one validator of batch options: raise :class:`BatchConfigError` on the first bad one.

    Parameters
    ----------
    c : BatchConfig
        The options as given (before normalisation).

    Raises
    ------
    BatchConfigError
        One line: ``<option> must be <what>, got <value>``.
    """
    for option in ("input_path", "output"):   # str(None) would be read as a file named 'None'
        value = getattr(c, option)
        if not isinstance(value, (str, os.PathLike)) or not str(value):
            raise _bad(option, f"must be a path (str or os.PathLike), got {value!r}")
        if "\0" in str(os.fspath(value)):   # the OS refuses it later with a bare ValueError
            raise _bad(option, f"must be a path without NUL bytes, got {os.fspath(value)!r}")
    if c.workers is not None and not (_is_int(c.workers) and 1 <= c.workers <= MAX_WORKERS):
        raise _bad("workers", f"must be an integer from 1 to {MAX_WORKERS}, got {c.workers!r}")
    _one_of("engine", c.engine, ENGINES)
    if c.scheduler is not None and not _is_scheduler_address(c.scheduler):
        raise _bad("scheduler", f"must be an address [SCHEME://]HOST:PORT (SCHEME {', '.join(SCHEDULER_SCHEMES[:-1])} "
                               f"or {SCHEDULER_SCHEMES[-1]}; PORT 1 to 65535) such as tcp://host:8786, got {c.scheduler!r}")
    if c.chunk_size is not None and not (_is_int(c.chunk_size) and c.chunk_size >= 1):
        raise _bad("chunk_size", f"must be a positive integer, got {c.chunk_size!r}")
    if c.chunk_size is not None and c.chunk_size > MAX_CHUNK_SIZE:
        raise _bad("chunk_size", f"must be at most {MAX_CHUNK_SIZE:,}, got {c.chunk_size!r}")
    if not (_is_int(c.count) and 0 <= c.count <= MAX_COUNT):
        raise _bad("count", f"must be an integer from 0 (no counting) to {MAX_COUNT:,}, got {c.count!r}")
    if c.time_limit is not None and not (_is_finite(c.time_limit) and c.time_limit > 0):
        raise _bad("time_limit", f"must be a positive finite number of seconds, got {clip(repr(c.time_limit), 40)}")
    if not isinstance(c.overwrite, bool):   # "false" is truthy: it deleted the earlier rows
        raise _bad("overwrite", f"must be True or False, got {c.overwrite!r}")
    if not isinstance(c.propagate, bool):
        raise _bad("propagate", f"must be True or False, got {c.propagate!r}")
    if not isinstance(c.rules_by_auto, bool):
        raise _bad("rules_by_auto", f"must be True or False, got {c.rules_by_auto!r}")
    if c.box is not None:
        try:
            parse_box(c.box)
        except PipelineError as e:
            raise _bad("box", f"must be HxW such as 3x3, got {c.box!r} ({e})") from None
    if c.variant is not None:
        _one_of("variant", c.variant, VARIANTS)
    _one_of("input_format", c.input_format, INPUT_FORMATS)
    if c.limit is not None and not (_is_int(c.limit) and c.limit >= 0):
        raise _bad("limit", f"must be a non-negative integer, got {c.limit!r}")
    _one_of("progress", c.progress, PROGRESS_MODES)
    if not (_is_finite(c.log_interval) and c.log_interval >= 0):
        raise _bad("log_interval", f"must be a non-negative finite number of seconds, got "
                                   f"{clip(repr(c.log_interval), 40)}")
    _one_of("solver", c.solver, batch_solver_names())
    if c.sat_backend is not None and sat_backends():   # without python-sat the engine says so
        _one_of("sat_backend", c.sat_backend, sat_backends())
    if c.amo is not None:
        _one_of("amo", c.amo, ("auto", *AMO_ENCODINGS))
    if not isinstance(c.retry, (tuple, list)):
        raise _bad("retry", f"must be a list of statuses, got {c.retry!r}")
    for status in c.retry:
        _one_of("retry", status, RETRY_STATUSES)
    if c.retry and c.overwrite:   # refused before --overwrite deletes the rows --retry would solve again
        raise _bad("overwrite", "cannot go with retry (--retry): it would delete the rows a retry solves again; "
                                "give one of them (nothing was deleted)")
    if c.engine == "dask" and importlib.util.find_spec("distributed") is None:   # before --overwrite deletes
        raise PipelineError(dask_missing())
    if not isinstance(c.highs_options, dict):
        raise _bad("highs_options", f"must be a dict of HiGHS options, got {c.highs_options!r}")
    _check_highs_options({**DEFAULT_HIGHS_OPTIONS, **c.highs_options})
    get_solver(c.solver)  # available here (the workers have the same environment)


def auto_batch_solver(config: "BatchConfig") -> str:
    """The engine ``batch --solver auto`` runs here: :func:`pipeline.solvers.auto.pick_solver`'s
    ``batch`` row among the engines with a batch kernel that take the options given
    (``highs_options``: HiGHS; ``sat_backend`` or ``amo``: the SAT engine).

    Parameters
    ----------
    config : BatchConfig
        The run's options (before validation).

    Returns
    -------
    str
    """
    among = tuple(batch_solver_names())
    if isinstance(config.highs_options, dict) and config.highs_options:
        among = tuple(name for name in among if name == "highs")
    given = {key for key in ("sat_backend", "amo") if getattr(config, key) is not None}
    if given:
        among = tuple(name for name in among if given <= SOLVERS[name].options)
    return pick_solver("batch", None, among=among or None).name


def _is_scheduler_address(address) -> bool:
    """``address`` has the form of a Dask scheduler's (whether one listens there is the run's
    business: nothing connects here)."""
    m = _SCHEDULER_ADDRESS.fullmatch(address.strip()) if isinstance(address, str) else None
    return m is not None and (m["scheme"] or "tcp") in SCHEDULER_SCHEMES and 1 <= int(m["port"]) <= 65535


def _check_highs_options(options: dict) -> None:
    """Refuse an unknown HiGHS option or a bad value here, not in every worker."""
    h = new_highs()
    threads = options.get("threads")
    if threads is not None and not (isinstance(threads, int) and not isinstance(threads, bool)
                                    and 0 <= threads <= MAX_THREADS):
        # HiGHS takes any count and starts that many threads (99,999: 660 MB and no answer in 30 s)
        raise _bad("highs_options", f"threads must be 0 (HiGHS's choice) to {MAX_THREADS}, found {threads!r}", ": ")
    for key, value in options.items():
        if not isinstance(key, str):   # highspy's own TypeError was several lines of signatures
            raise _bad("highs_options", f"option names are strings, found {key!r}", ": ")
        try:
            status = h.setOptionValue(key, value)
        except TypeError:   # a value of no type HiGHS takes (a list, None)
            status = None
        if status != highspy.HighsStatus.kOk:
            raise _bad("highs_options", f"HiGHS refuses option {key}={value!r}", ": ")
