"""Formats written side by side: an export's formats split between this process and forked ones.

Why processes and not threads: the writers render text with NumPy and ``bytes.translate``,
which hold the GIL, so two threads writing two formats took longer than one thread writing
both (2.96 s against 2.35 s for CSV beside CNF on the empty 100x100). A forked child shares
the model's arrays with its parent (copy on write), renders its formats into the same staging
directory and hands back only the names and SHA-256 digests of its files.

Forking is safe only where nothing else runs: :func:`side_by_side` says how many processes an
export may use, and it is one (no fork) when another Python thread runs (a notebook's kernel, a
Dask worker: a lock held by another thread at the fork would stay held in the child), when the
system cannot fork, or when the model is too small for the work to pay for a process.

A child ends with ``os._exit`` (it never runs its parent's clean-up or flushes its buffers); it
dies at once on SIGINT or SIGTERM, and the parent kills and reaps its children before it lets
any exception (a failed write, Ctrl-C) through, so the staging directory is removed only after
they are gone. SIGINT and SIGTERM are held back from each fork until the parent has recorded
the child, so no signal finds a child the parent does not know.
"""
from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from pipeline.core import stops
from pipeline.core.errors import FormatError

from formats.files import WriteFailed

#: Fewest nonzeros (``Aeq`` and ``Aineq``) for which an export forks: a process costs a few
#: milliseconds and its page-table copy grows with the parent; a 64x64 (1.05 million) is the
#: smallest grid whose export takes over a second.
FORK_NONZEROS = 1_000_000
#: Most processes an export uses when not told (each renders its own formats' text: a 100x100's
#: CNF holds about 350 MB while it is written): the CNF alone is a third of the work, so more
#: than four processes gain little.
DEFAULT_WORKERS = 4
#: The signals held back from the fork until the child is recorded (the ones an export stops on).
HELD_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})

T = TypeVar("T")
R = TypeVar("R")


def available_cores() -> int:
    """The CPUs this process may run on (its affinity where the system says, else ``os.cpu_count``)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def side_by_side(workers: int | None, tasks: int, nonzeros: int) -> int:
    """How many processes write ``tasks`` formats of a model with ``nonzeros`` nonzeros.

    Parameters
    ----------
    workers : int or None
        Asked for: None chooses (the machine's cores, at most :data:`DEFAULT_WORKERS`, when the
        model is large, :data:`FORK_NONZEROS`); 1 writes every format here.
    tasks : int
        The formats to write.
    nonzeros : int
        The model's nonzeros.

    Returns
    -------
    int
        At least 1, at most ``tasks``; 1 whenever forking is unsafe or impossible.

    Raises
    ------
    FormatError
        ``workers`` is not a positive integer.
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise FormatError(f"workers: {workers!r} is not a positive whole number of processes")
    if workers is None:
        workers = min(available_cores(), DEFAULT_WORKERS) if nonzeros >= FORK_NONZEROS else 1
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return 1
    return max(1, min(workers, tasks))


def balanced(costs: Sequence[float], parts: int) -> list[list[int]]:
    """Task indices split into ``parts`` groups of near-equal total cost (the longest first,
    each to the lightest group), each group in the tasks' own order.

    Parameters
    ----------
    costs : sequence of float
        Each task's expected cost.
    parts : int
        How many groups.

    Returns
    -------
    list of list of int

    Examples
    --------
    >>> balanced([1.5, 0.9, 0.2, 0.4, 0.3, 0.5, 0.4], 2)
    [[0, 2, 6], [1, 3, 4, 5]]
    """
    loads = [0.0] * parts
    groups: list[list[int]] = [[] for _ in range(parts)]
    for task in sorted(range(len(costs)), key=lambda k: -costs[k]):
        lightest = loads.index(min(loads))
        groups[lightest].append(task)
        loads[lightest] += costs[task]
    return [sorted(group) for group in groups if group]


def run_side_by_side(work: Callable[[list[T]], R], groups: Sequence[list[T]]) -> list[R]:
    """``work(group)`` for each group: the first here, the others in forked children.

    Parameters
    ----------
    work : callable
        Does one group's work and returns something picklable.
    groups : sequence of lists
        The groups.

    Returns
    -------
    list
        ``work``'s results, in the groups' order.

    Raises
    ------
    Exception
        What ``work`` raised, here or in a child (a :class:`~formats.files.WriteFailed` or
        ``OSError`` as it was; another error a child could not hand back as a
        :class:`~pipeline.core.errors.FormatError` naming it). The children are killed and
        reaped first.
    """
    if len(groups) <= 1:
        return [work(group) for group in groups]
    for stream in (sys.stdout, sys.stderr):   # their buffers would be written twice otherwise
        if stream is not None:
            stream.flush()
    running: dict[int, int | None] = {}     # pid -> its pipe's reading end (None once closed), until reaped
    try:
        children = []
        for group in groups[1:]:
            # a Ctrl-C between the fork and this record would orphan the child: held back both ways
            with stops.held(), _signals_held():
                pid, pipe = _fork(work, group)
                running[pid] = pipe
            children.append(pid)
        mine = work(groups[0])
        return [mine, *(_result(pid, running) for pid in children)]
    finally:
        for pid, reader in running.items():
            _kill(pid, reader)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM blocked while the block runs (delivered when it ends), where the
    system can block signals.

    Why: a signal handled between ``os.fork`` returning and the child's pid being recorded
    raised ``KeyboardInterrupt`` in the parent while no one knew the child, which then wrote on
    into the staging directory the parent was removing (a staging directory left behind).

    The mask is this thread's: with another thread in the process the system gives the signal
    to that one and Python runs its handler here all the same, so the handlers are held back too
    (:func:`pipeline.core.stops.held`); the mask keeps the signal from the child until its
    handlers are the defaults again.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _fork(work: Callable[[list[T]], Any], group: list[T]) -> tuple[int, int]:
    """A child running ``work(group)``, its pickled outcome written into a pipe: its pid and the
    pipe's reading end (called with :data:`HELD_SIGNALS` blocked; the child unblocks them once
    their default actions are back)."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid:
        os.close(writer)
        return pid, reader
    status = 1
    try:   # the child: never returns, never runs its parent's handlers or clean-up
        os.close(reader)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD_SIGNALS)
        try:
            outcome: tuple[str, Any] = ("ok", work(group))
        except BaseException as error:  # noqa: BLE001 - every error goes back to the parent
            outcome = ("error", _portable(error))
        with os.fdopen(writer, "wb") as pipe:
            pipe.write(pickle.dumps(outcome))
        status = 0
    finally:
        os._exit(status)


def _portable(error: BaseException) -> tuple:
    """``error`` in a form that survives pickling (``WriteFailed`` and ``OSError`` rebuilt from
    their fields; others pickled as they are when they can be)."""
    if isinstance(error, WriteFailed):
        return ("WriteFailed", str(error.path), error.reason, error.errno, error.strerror)
    if isinstance(error, OSError):
        return ("OSError", error.errno, error.strerror, error.filename)
    try:
        pickle.loads(pickle.dumps(error))
        return ("pickled", pickle.dumps(error))
    except Exception:  # noqa: BLE001 - an exception that cannot travel is described instead
        return ("described", f"{type(error).__name__}: {error}")


def _rebuilt(portable: tuple) -> BaseException:
    kind, *fields = portable
    if kind == "WriteFailed":
        return WriteFailed(*fields)
    if kind == "OSError":
        errno, strerror, filename = fields
        return OSError(errno, strerror, filename) if filename is not None else OSError(errno, strerror)
    if kind == "pickled":
        error = pickle.loads(fields[0])
        assert isinstance(error, BaseException)
        return error
    return FormatError(f"export: a writing process failed: {fields[0]}")


def _result(pid: int, running: dict[int, int | None]) -> Any:
    """The child's result (its error raised here), once it has ended and is reaped (and out of
    ``running``: its pid may belong to another process from then on)."""
    reader, running[pid] = running[pid], None     # the file object below closes it
    assert reader is not None
    with os.fdopen(reader, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    del running[pid]
    if not data:
        ended = (f"signal {-os.waitstatus_to_exitcode(status)}" if os.WIFSIGNALED(status)
                 else f"exit status {os.waitstatus_to_exitcode(status)}")
        raise FormatError(f"export: a writing process ended without its files ({ended})")
    kind, value = pickle.loads(data)
    if kind == "error":
        raise _rebuilt(value)
    return value


def _kill(pid: int, reader: int | None) -> None:
    """Kill a child not yet reaped (it may have ended: a zombie still holds its pid), wait for
    it and close its pipe."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    if reader is not None:
        os.close(reader)
