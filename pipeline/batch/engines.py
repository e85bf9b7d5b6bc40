"""Where chunks run, the batch's executors: in this process (one worker), a process pool, or Dask.

``batch --engine processes|dask`` (``BatchConfig.engine``) picks one; in prose they are executors,
so that "engine" keeps meaning a solver (docs/architecture.md, Words). Every executor offers ``submit(fn, *args) -> future``, ``wait_any(pending, timeout) -> done``,
``request_stop()`` (finish the current puzzle, hand back what is done) and ``close(cancel)``.
Workers return rows to the client, which writes the parts: OUT needs to be visible to the
client only.
"""
from __future__ import annotations

import contextlib
import errno
import logging
import math
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pipeline.core import stops
from pipeline.core.errors import PipelineError
from pipeline.core.limits import MAX_BYTES_ENV, memory_limit
from pipeline.core.version import DISTRIBUTION, __version__
from pipeline.batch.config import dask_missing
from pipeline.batch.output import release_inherited_locks
from pipeline.batch.progress import init_worker
from pipeline.batch.worker import count_whole_process

__all__ = ["InProcess", "Processes", "Dask", "SCRATCH_PREFIX", "local_cluster_options", "make_engine",
           "remove_orphaned_scratch"]


#: What the client alone handles: a worker ignores both, from its start on. A terminal's Ctrl-C
#: (SIGINT) and ``timeout``, service managers and ``kill -- -PGID`` (SIGTERM) reach the whole
#: process group; the client then asks the workers to stop after their current puzzle (a worker
#: that took SIGTERM's default would die mid-chunk: "a worker failed (BrokenProcessPool)").
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _sigint_ignored():
    """Ignore SIGINT while Dask's processes start: a spawned child inherits the ignored
    disposition, so Python installs no KeyboardInterrupt handler in it and a Ctrl-C during its
    start-up prints no traceback. The client alone handles Ctrl-C and asks workers to stop."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _held_from_workers():
    """Block SIGINT and SIGTERM in this thread while pool workers may start (fork or spawn):
    a child inherits the blocked mask, so neither reaches it before its initializer ignores
    them (no traceback from a spawned worker's start-up, no worker killed by SIGTERM's
    default). The client loses none: a blocked signal is delivered when the block ends, or at
    once through another of its threads. Without ``pthread_sigmask`` (Windows) SIGINT is
    ignored while workers start, as Dask's are."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        with _sigint_ignored():
            yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class InProcess:
    """One worker: solve in this process (no start-up or transfer cost)."""

    workers = 1

    def __init__(self):
        self.stop = SimpleNamespace(value=0)
        self.counter = SimpleNamespace(value=0)
        init_worker(self.stop, self.counter)

    def submit(self, fn, *args):
        """Run ``fn(*args)`` now, in this process, and return its already finished future.

        Parameters
        ----------
        fn : callable
            The task (a chunk's solve).
        *args : object
            Its arguments.
        """
        future = Future()
        future.set_result(fn(*args))
        return future

    @staticmethod
    def wait_any(pending, timeout=None):
        """Every pending future: each finished when it was submitted.

        Parameters
        ----------
        pending : iterable of Future
            The futures not yet collected.
        timeout : float or None
            Unused: nothing here waits.
        """
        return set(pending)

    def finished_puzzles(self) -> int:
        return int(self.counter.value)

    def request_stop(self):
        self.stop.value = 1

    def close(self, cancel: bool = False, abort: Callable[[], bool] | None = None):
        """Forget the worker flags this process set up; nothing runs, so nothing is cancelled.

        Parameters
        ----------
        cancel : bool
            Unused (every chunk finished when it was submitted).
        abort : callable or None
            Unused, as ``cancel``.
        """
        init_worker(None, None)


def start_method() -> str:
    """``fork`` where it is safe and available (Linux, no other thread in this process): a
    forked worker starts in milliseconds with every module already imported, where a spawned
    one re-imports numpy, pandas, pyarrow, HiGHS and the pipeline (about 0.5-1.5 s, the fixed
    cost that kept small batches from scaling). Elsewhere ``spawn``, safe on every platform."""
    if (sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
            and threading.active_count() == 1):
        return "fork"
    return "spawn"


#: Seconds the client waits for workers to hand back their cut chunks after a stop request.
STOP_GRACE_SECONDS = 30.0
#: Then, seconds a cancelled pool's workers get to end before they are killed (a worker still in
#: one long puzzle, e.g. a HiGHS run of hours, would hold the shutdown for as long).
KILL_GRACE_SECONDS = 2.0
#: Seconds between a forked worker's checks that its client is still alive.
PARENT_CHECK_SECONDS = 1.0


def _exit_with_parent(parent: int) -> None:
    """A forked worker holds copies of the pool's pipes, so it would not see its client die:
    leave when the client is gone (a SIGKILLed client must not leave workers behind)."""
    while True:
        time.sleep(PARENT_CHECK_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def _share_of_memory(workers: int) -> int | None:
    """Each of ``workers`` workers' share of the bytes models may need (:func:`memory_limit`):
    the limit is the run's, not each worker's (two workers each took half the memory: 7.3 GB on
    24 GB for a few records of 366x366). None when ``$SUDOKU_PIPELINE_MAX_BYTES`` says the
    workers' own limit, or is bad (run_config refuses that before any work)."""
    if os.environ.get(MAX_BYTES_ENV):
        return None
    try:
        return max(memory_limit() // max(workers, 1), 1)
    except PipelineError:
        return None


def _init_process_worker(stop, counter, parent: int, memory_share: int | None = None) -> None:
    """A pool worker's set-up: only the client handles Ctrl-C and SIGTERM (:data:`STOP_SIGNALS`;
    a forked worker would otherwise inherit the client's handlers) and holds OUT's lock; then
    the shared flags and its share of the memory models may take. A worker ends with its pool,
    or when its client is gone."""
    if memory_share is not None:
        os.environ[MAX_BYTES_ENV] = str(memory_share)
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    release_inherited_locks()
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    init_worker(stop, counter)
    count_whole_process()


def _quiet_feeder_when_stopped(pool: ProcessPoolExecutor, stop) -> None:
    """Keep the pool's call queue from printing a traceback for a shutdown sentinel it could not
    write once the run is stopping.

    A worker killed on a stop (a second Ctrl-C, or past :data:`KILL_GRACE_SECONDS`) breaks the pool:
    CPython closes the call queue's pipe while its feeder thread may still be writing a worker's
    sentinel, and prints that ``OSError`` (``EBADF``) on stderr after the run's one line. Its
    feeder thread takes the error hook when it starts (the first task), so it is set here; a
    task's own error, or any error before the stop, is reported as before.
    """
    queue = getattr(pool, "_call_queue", None)   # the pool's private queue: absent, nothing to do
    if queue is None:
        return
    report = queue._on_queue_feeder_error

    def _on_feeder_error(error: BaseException, item: object) -> None:
        if item is None and stop.value and isinstance(error, OSError):
            return
        report(error, item)

    queue._on_queue_feeder_error = _on_feeder_error


class Processes:
    """A process pool on this machine (see :func:`start_method`)."""

    def __init__(self, workers: int, warm: Callable[[], None] | None = None,
                 made: Callable[[Any], None] | None = None):
        # numpy's BLAS threads only compete with the other workers here
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")
        method = start_method()
        if warm is not None and method == "fork":
            warm()   # once here, inherited by every forked worker instead of paid by each
        context = multiprocessing.get_context(method)
        self.workers = workers
        self.stop = context.RawValue("b", 0)
        self.counter = context.Value("q", 0)
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_process_worker,
                                        initargs=(self.stop, self.counter, os.getpid(), _share_of_memory(workers)))
        _quiet_feeder_when_stopped(self.pool, self.stop)
        if made is not None:   # before a worker starts: the caller can close the pool from here on
            made(self)
        try:   # start the workers now (a forked pool starts them all at its first task)
            self.submit(int).result()
        except BaseException:
            self.close(cancel=True)
            raise

    def submit(self, fn, *args):
        """Queue ``fn(*args)`` on the pool (which may start a worker) and return its future.

        Parameters
        ----------
        fn : callable
            The task; picklable under ``spawn``.
        *args : object
            Its arguments.
        """
        with _held_from_workers():   # submit may start a worker process
            return self.pool.submit(fn, *args)

    @staticmethod
    def wait_any(pending, timeout=None):
        """The pending futures done once the first of them finishes (or the timeout passes).

        Parameters
        ----------
        pending : iterable of Future
            The futures not yet collected.
        timeout : float or None
            Seconds to wait at most; None waits until one is done (an empty set on timeout).
        """
        return wait(pending, timeout=timeout, return_when=FIRST_COMPLETED).done

    def finished_puzzles(self) -> int:
        return int(self.counter.value)

    def request_stop(self):
        self.stop.value = 1

    def close(self, cancel: bool = False, abort: Callable[[], bool] | None = None):
        """Shut the pool down; ``cancel`` drops queued chunks and asks running ones to stop after
        their current puzzle. Either way the pool is joined here: left to the interpreter's exit
        hook, its wake-up pipe may already be closed (an ``OSError`` traceback after Ctrl-C).

        A worker still running :data:`KILL_GRACE_SECONDS` after a cancel (its current puzzle
        outlasted the run's wait for it: one HiGHS run may take hours), or any worker once
        ``abort()`` is true (a second Ctrl-C), is killed: its unfinished chunk was not written,
        and a resume solves it again. So is every worker at once when one died on its own (the
        OOM killer, a crash: :meth:`crashed`): the pool is broken, and CPython's own clean-up
        would wait forever for workers that ignore its SIGTERM (:data:`STOP_SIGNALS`).

        Parameters
        ----------
        cancel : bool
            Drop queued chunks and stop running ones after their current puzzle (else wait for all).
        abort : callable or None
            Polled while the workers end: once it returns True, kill them at once.
        """
        # the pool keeps its processes and its thread in private attributes: without them, the
        # wait is CPython's own (unbounded if a worker dies)
        processes = list((getattr(self.pool, "_processes", None) or {}).values())
        manager = getattr(self.pool, "_executor_manager_thread", None)
        results = getattr(self.pool, "_result_queue", None)
        if cancel:
            self.request_stop()
        with _pool_teardown_quiet():
            self.pool.shutdown(wait=False, cancel_futures=cancel)
            end = time.monotonic() + KILL_GRACE_SECONDS if cancel else math.inf
            while any(p.is_alive() for p in processes) or (manager is not None and manager.is_alive()):
                if self.crashed(processes) or time.monotonic() >= end or (abort is not None and abort()):
                    _kill(processes, self.stop)
                    break
                time.sleep(0.02)
            if manager is None:
                self.pool.shutdown(wait=True)
                return
            # every worker has ended: the pool's thread only closes its pipes now (bounded all the
            # same: no wait here may outlast the run's signals), then its result pipe can go
            manager.join(KILL_GRACE_SECONDS)
            if results is not None and not manager.is_alive():
                results.close()

    def crashed(self, processes: list | None = None) -> bool:
        """Whether a worker ended without being asked (killed by the OOM killer or by hand, a
        crash): CPython then marks the pool broken (each of its futures a ``BrokenProcessPool``).

        Parameters
        ----------
        processes : list of multiprocessing.Process, optional
            The pool's workers (default: those it has now).
        """
        if processes is None:
            processes = list((getattr(self.pool, "_processes", None) or {}).values())
        return bool(getattr(self.pool, "_broken", False)) or any(p.exitcode not in (None, 0) for p in processes)


def _kill(processes: list, stop) -> None:
    """SIGKILL every worker still alive and reap it (none is left behind as a zombie or an
    orphan). The stop flag is set first, so that the pool's queue feeder, whose pipe this breaks,
    prints no traceback (:func:`_quiet_feeder_when_stopped`)."""
    stop.value = 1
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(KILL_GRACE_SECONDS)


@contextlib.contextmanager
def _pool_teardown_quiet():
    """While a cancelled pool is torn down, a closed pipe's ``OSError`` (EBADF) in the pool's own
    threads is dropped instead of printed: CPython 3.11's ProcessPoolExecutor can write to its
    wake-up pipe after closing it when workers end during shutdown (python/cpython gh-125451,
    gh-132969), and its queue feeder thread printed that traceback after the one-line
    ``interrupted`` (seen twice in a loaded test run of a Ctrl-C inside two long HiGHS runs).
    Any other error of any thread still reaches the usual hook."""
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        pool_thread = args.thread is not None and (args.thread.name == "QueueFeederThread"
                                                   or type(args.thread).__module__ == "concurrent.futures.process")
        if not (pool_thread and isinstance(args.exc_value, OSError) and args.exc_value.errno == errno.EBADF):
            previous(args)

    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = previous


#: Seconds past Dask's connect timeout (``distributed.comm.timeouts.connect``, 30 s by default)
#: that a scheduler gets to answer as one.
CONNECT_MARGIN = 5.0


def _connected(client_class: Any, scheduler: str) -> Any:
    """``client_class(scheduler)`` (a ``distributed.Client``), waited for in a helper thread for
    at most Dask's connect timeout and :data:`CONNECT_MARGIN`: a service that takes the connection
    but never speaks Dask (the scheduler's dashboard port, any HTTP server) kept ``Client()``
    waiting for good, and Ctrl-C with it. Raises a one-line :class:`PipelineError` when nothing
    answers as a scheduler in that time."""
    import dask
    from dask.utils import parse_timedelta

    limit = float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s")) + CONNECT_MARGIN
    made: dict[str, Any] = {}

    def connect() -> None:
        try:
            made["client"] = client_class(scheduler)
        except Exception as e:   # refused or silent: Dask retries for its connect timeout first
            made["error"] = e

    helper = threading.Thread(target=connect, name="dask-connect", daemon=True)
    helper.start()
    helper.join(limit)   # a Ctrl-C here is the client's (the join is interruptible)
    if "client" in made:
        return made["client"]
    hint = "is it the scheduler's port, not its dashboard's?"
    error = made.get("error")
    if error is None:
        why = f"no answer as a Dask scheduler in {limit:.0f} s: {hint}"
    elif isinstance(error, (OSError, TimeoutError)):   # refused, unreachable, no such host
        why = " ".join(str(error).split()) or type(error).__name__
    else:   # something answered, not in Dask's protocol: an HTTP 400 read as a frame length of exabytes
        why = f"something answered there, not as a Dask scheduler ({type(error).__name__}): {hint}"
    raise PipelineError(f"batch: the Dask scheduler at {scheduler} did not answer ({why}); nothing was solved")


#: Evaluated on the scheduler and on each worker (``eval`` is pickled by name, so the check itself
#: needs no project code there): the version of the project they import.
_PROJECT_THERE = "__import__('pipeline.batch.worker') and __import__('pipeline.core.version').core.version.__version__"


def check_project_on_cluster(client: Any, scheduler: str) -> None:
    """Refuse, in one line, a Dask cluster whose scheduler or a worker cannot import this project,
    or imports another version of it: the scheduler unpickles the chunks' tasks and the workers run
    them, so either failed at the first chunk with Dask's "Error during deserialization of the task
    graph" (cut to half a sentence) and advice to rerun.

    Parameters
    ----------
    client : distributed.Client
        Connected to the cluster.
    scheduler : str
        Its address, as the user gave it.
    """
    install = (f"install {DISTRIBUTION} {__version__} (this client's) in the environment of the scheduler "
               f"and of every worker; nothing was solved")
    try:
        there = {f"the Dask scheduler at {scheduler}": client.run_on_scheduler(eval, _PROJECT_THERE)}
    except Exception as e:   # the exception raised there: ModuleNotFoundError, most often
        stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
        there = {f"the Dask scheduler at {scheduler}": e}
    workers = client.run(eval, _PROJECT_THERE, on_error="return")   # {address: version or exception}
    there.update((f"the Dask worker at {address} (of the scheduler at {scheduler})", found)
                 for address, found in sorted(workers.items()))
    for who, found in there.items():
        if isinstance(found, BaseException):
            raise PipelineError(f"batch: {who} cannot import this project "
                                f"({type(found).__name__}: {' '.join(str(found).split())}): {install}")
        if found != __version__:
            raise PipelineError(f"batch: {who} imports {DISTRIBUTION} {found}, not this client's {__version__}: "
                                f"{install}")



def _start_resource_tracker() -> None:
    """Start this process's multiprocessing resource tracker now, if it is to be started at all
    (not on Windows). Its start unblocks SIGINT and SIGTERM in the calling thread whatever the mask
    was (``multiprocessing.resource_tracker.ensure_running``); once it runs, later calls change
    no mask."""
    with contextlib.suppress(Exception):
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()


@contextlib.contextmanager
def _held_until_started():
    """Hold SIGINT and SIGTERM back while a Dask LocalCluster starts, and deliver one that came
    meanwhile once it is up (``signal.raise_signal``: to the handler that was there before, the
    command line's raises KeyboardInterrupt; the caller closes the cluster on the way out).

    SIGINT was ignored here, and a Ctrl-C during the start-up (seconds on a loaded machine) was
    lost: the run went on to its end. A signal that raised in the middle of the start instead
    (SIGTERM) left a half-started cluster, which Dask's exit hook failed to close with a
    traceback. Now both are blocked in this thread, so Dask's threads started here and the worker
    processes they spawn inherit the block (no traceback from a worker's start-up, as with the
    ignored disposition before; the client closes them); a signal that reaches another thread
    meanwhile is remembered by the handler set here. A disposition of ``SIG_IGN`` (``nohup``)
    stays. Without ``pthread_sigmask`` (Windows) SIGINT is ignored during the start, as before."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        with _sigint_ignored():
            yield
        return
    caught: list[int] = []

    def remember(signum, frame):
        caught.append(signum)
    # multiprocessing's resource tracker, started with the first spawned process, unblocks both
    # signals in the thread that starts it (Dask's loop thread: its workers then took Ctrl-C in
    # their start-up, "Nanny failed to start"); started here first, it leaves that thread's alone
    _start_resource_tracker()
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        for sig, handler in previous.items():
            if handler is not signal.SIG_IGN:
                signal.signal(sig, remember)
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)   # one held back goes to remember now
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
    if caught:   # the start is over: the first signal as if it came now
        signal.raise_signal(caught[0])


#: a local cluster's scratch directory: this prefix, the client's pid, a dash, a random part
SCRATCH_PREFIX = "sudoku-batch-dask-"


def remove_orphaned_scratch(directory: str | None = None) -> list[str]:
    """Remove the scratch directories of local-cluster runs whose client is gone: a client killed
    with SIGKILL cannot remove its own (a run ended any other way removes it on close).

    A directory is removed when the pid in its name is not a running process; one of another
    user's, or one whose pid is running (or reused), is left alone.

    Parameters
    ----------
    directory : str, optional
        Where to look (default: the temporary directory the scratch goes to).

    Returns
    -------
    list of str
        The directories removed.
    """
    removed = []
    root = Path(directory or tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for path in root.glob(f"{SCRATCH_PREFIX}*-*"):
            pid = path.name[len(SCRATCH_PREFIX):].split("-", 1)[0]
            if not pid.isdigit() or not path.is_dir() or path.is_symlink() or path.stat().st_uid != os.getuid():
                continue
            try:
                os.kill(int(pid), 0)
                continue        # running: its run's, or a reused pid's; left alone
            except ProcessLookupError:
                pass
            except (PermissionError, OverflowError, OSError):
                continue        # another user's process, or no such pid number: left alone
            shutil.rmtree(path, ignore_errors=True)
            removed.append(str(path))
    return removed


def local_cluster_options(workers: int, scratch: str) -> dict:
    """The options of the LocalCluster a ``--engine dask`` batch without a scheduler starts.

    Its workers log nothing below CRITICAL: their shutdown is this run's own, and a Ctrl-C printed
    a worker's 30-line "Failed to communicate with scheduler during heartbeat" traceback (logged at
    ERROR) after the run's line. A record's failure reaches the run through its future (an error
    row), not through the workers' log. Set once at the start, not asked of the workers on close:
    a request to a worker that is gone can wait for a connection timeout.

    Parameters
    ----------
    workers : int
        Worker processes (one thread each).
    scratch : str
        The workers' local directory (this run's, removed on close).

    Returns
    -------
    dict
    """
    return {"n_workers": workers, "threads_per_worker": 1, "processes": True, "dashboard_address": None,
            "silence_logs": logging.CRITICAL, "local_directory": scratch}


class Dask:
    """Dask distributed: a scheduler address, or a LocalCluster of ``workers`` processes."""

    def __init__(self, workers: int, scheduler: str | None, made: Callable[[Any], None] | None = None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise PipelineError(dask_missing()) from None
        self.cluster = None
        self.client = None
        self.scratch: str | None = None
        # the client's own log: a scheduler that goes away mid-run printed a 30-line traceback of
        # its reconnection before the run's one line (restored on close)
        self._client_log = logging.getLogger("distributed.client")
        self._client_level = self._client_log.level
        if made is not None:   # close() works from here on: the caller can close what starts below
            made(self)
        if scheduler:   # nothing starts here: Ctrl-C stays the client's while it connects
            self._client_log.setLevel(logging.CRITICAL)
            try:
                self.client = _connected(Client, scheduler)
            except BaseException:
                self._client_log.setLevel(self._client_level)
                raise
            try:
                check_project_on_cluster(self.client, scheduler)
            except BaseException:
                with contextlib.suppress(Exception):
                    self.client.close()
                self._client_log.setLevel(self._client_level)
                raise
        else:
            try:
                with _held_until_started():
                    # the workers' scratch in a directory of this run's, removed on close (Dask's
                    # default, $TMPDIR/dask-scratch-space, outlives the run)
                    import dask

                    remove_orphaned_scratch()
                    self.scratch = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")
                    with dask.config.set({"temporary-directory": self.scratch}):   # the scheduler's too
                        self.cluster = LocalCluster(**local_cluster_options(workers, self.scratch))
                    self.client = Client(self.cluster)
            except BaseException:   # a signal held back during the start, or a start that failed
                self.close()        # no worker process and no scratch outlive it
                raise
        self.count = 0
        self.workers = max(1, sum(self.client.nthreads().values()))

    def submit(self, fn, *args):
        """Send ``fn(*args)`` to the Dask cluster under a unique key and return its future.

        Parameters
        ----------
        fn : callable
            The task; picklable, as it runs on another process or machine.
        *args : object
            Its arguments.
        """
        self.count += 1
        return self.client.submit(fn, *args, pure=False, key=f"sudoku-batch-{os.getpid()}-{self.count}")

    @staticmethod
    def wait_any(pending, timeout=None):
        """The pending futures done once the first of them finishes (or the timeout passes).

        Parameters
        ----------
        pending : iterable of distributed.Future
            The futures not yet collected.
        timeout : float or None
            Seconds to wait at most; None waits until one is done (an empty set on timeout).
        """
        from distributed import wait as dask_wait

        try:
            return dask_wait(list(pending), timeout=timeout, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            return set()

    @staticmethod
    def finished_puzzles() -> int | None:
        return None   # remote workers share no counter with the client

    def request_stop(self):
        pass          # remote workers cannot be told; their pending chunks are cancelled on close

    def close(self, cancel: bool = False, abort: Callable[[], bool] | None = None):
        """Close the client, which cancels its pending chunks, and the local cluster if one was
        started; errors on the way out are ignored.

        Parameters
        ----------
        cancel : bool
            Unused: closing the client always drops what it has pending.
        abort : callable or None
            Unused (no process here to kill).
        """
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close()
        self._client_log.setLevel(self._client_level)
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


def make_engine(engine: str, workers: int, scheduler: str | None,
                warm: Callable[[], None] | None = None,
                made: Callable[[Any], None] | None = None) -> InProcess | Processes | Dask:
    """The executor for a run: in-process for one local worker, else a pool or Dask.

    Parameters
    ----------
    engine : {'processes', 'dask'}
        Where chunks run.
    workers : int
        Worker processes.
    scheduler : str or None
        A Dask scheduler address.
    warm : callable, optional
        The solver's batch warm-up (:attr:`pipeline.solvers.Solver.batch_warm`): a forked pool
        runs it once in this process before its workers start, so they inherit what it loaded
        (a compiled kernel: about 0.2 s that each worker would otherwise pay on its own); one
        worker in this process runs it before its first record too.
    made : callable, optional
        Called with a pool or a Dask engine as soon as it holds something to close (before its
        workers start), so that the caller can close it when a stop lands before the engine is
        returned: a Ctrl-C handled after the workers started, before ``runner = make_engine(...)``
        was assigned, left the pool's workers running (idle) until the interpreter's exit.
    """
    if engine == "dask":
        return Dask(workers, scheduler, made)
    if workers == 1:
        if warm is not None:   # loaded before the first record is timed: a compile (seconds, once a
            warm()             # machine) spread over the first records' seconds by their nodes
        return InProcess()
    return Processes(workers, warm, made)
