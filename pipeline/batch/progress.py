"""Progress: the two shared flags a worker sees, a puzzle counter (progress per puzzle, not per
chunk) and a stop flag (Ctrl-C: hand back the finished puzzles of the current chunk). The meter the
run prints (a tqdm bar or log lines) is :class:`pipeline.core.progress.Progress`, shared with
generate (re-exported here).

Workers bump the counter at most every :data:`TICK_SECONDS` (a shared value's lock costs about a
microsecond; the 17-clue puzzles take about a hundred), and check the stop flag between puzzles.
"""
from __future__ import annotations

import time
from typing import Any

from pipeline.core import stops
from pipeline.core.progress import Progress

__all__ = ["Progress", "init_worker", "stopped", "tick", "flush_ticks"]

#: Seconds between a worker's updates of the shared puzzle counter.
TICK_SECONDS = 0.2


class _WorkerFlags:
    stop = None        # shared value (``.value`` true: stop after the current puzzle) or None
    counter = None     # shared value: puzzles finished by every worker so far, or None
    unsent = 0
    last = 0.0


_FLAGS = _WorkerFlags()


def init_worker(stop: Any, counter: Any) -> None:
    """Process-pool initializer (and the in-process runner's set-up): the shared flags.

    Parameters
    ----------
    stop : shared value or None
        ``.value`` true: stop after the current puzzle.
    counter : shared value or None
        Puzzles finished by every worker so far.
    """
    _FLAGS.stop, _FLAGS.counter, _FLAGS.unsent, _FLAGS.last = stop, counter, 0, time.monotonic()
    # an engine waiting for C code (a HiGHS run) polls this, so a stop ends its puzzle in place
    stops.watching_flag(stopped if stop is not None else None)


def stopped() -> bool:
    """True once the run asked the workers to stop (Ctrl-C or SIGTERM in the client)."""
    return _FLAGS.stop is not None and bool(_FLAGS.stop.value)


def tick() -> None:
    """One more puzzle finished in this worker."""
    if _FLAGS.counter is None:
        return
    _FLAGS.unsent += 1
    now = time.monotonic()
    if now - _FLAGS.last >= TICK_SECONDS:
        flush_ticks(now)


def flush_ticks(now: float | None = None) -> None:
    """Send this worker's finished-puzzle count to the shared counter."""
    counter = _FLAGS.counter
    if counter is None or not _FLAGS.unsent:
        return
    lock = getattr(counter, "get_lock", None)
    if lock is None:
        counter.value += _FLAGS.unsent
    else:
        with lock():
            counter.value += _FLAGS.unsent
    _FLAGS.unsent, _FLAGS.last = 0, now if now is not None else time.monotonic()
