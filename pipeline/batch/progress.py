"""Progress: the meter the run prints (a tqdm bar or log lines), and the two shared flags a
worker sees, a puzzle counter (progress per puzzle, not per chunk) and a stop flag (Ctrl-C: hand
back the finished puzzles of the current chunk).

Workers bump the counter at most every :data:`TICK_SECONDS` (a shared value's lock costs about a
microsecond; the 17-clue puzzles take about a hundred), and check the stop flag between puzzles.
"""
from __future__ import annotations

import sys
import time
from typing import Any

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


class Progress:
    """A tqdm bar on a terminal (when tqdm is installed), else a log line every ``interval`` s.

    Rows count when their part is written (:meth:`update`); :meth:`running` shows puzzles that
    workers finished in chunks still open, so the display moves per puzzle.
    """

    def __init__(self, total: int, done: int, mode: str = "auto", interval: float = 10.0, stream=None):
        self.total, self.done, self.new = total, done, 0
        self.in_flight = 0   # finished in workers, not yet in a written part
        self.stream = stream or sys.stderr
        self.interval = interval
        self.started = self.last = time.monotonic()
        self.counts: dict[str, int] = {}
        self.bar = None
        if mode == "auto":
            mode = "bar" if getattr(self.stream, "isatty", lambda: False)() else "log"
        if mode == "bar":
            try:
                from tqdm import tqdm
            except ImportError:
                mode = "log"
            else:
                self.bar = tqdm(total=total, initial=done, unit="puzzle", file=self.stream,
                                dynamic_ncols=True, smoothing=0.1)
        self.mode = mode

    def update(self, statuses: list[str]) -> None:
        """Record a written part (its rows' statuses)."""
        self.done += len(statuses)
        self.new += len(statuses)
        self.in_flight = max(0, self.in_flight - len(statuses))
        for s in statuses:
            self.counts[s] = self.counts.get(s, 0) + 1
        self._show()

    def running(self, finished_in_workers: int) -> None:
        """Puzzles the workers report finished so far in this run (parts written or not)."""
        self.in_flight = max(0, finished_in_workers - self.new)
        self._show()

    def _show(self) -> None:
        if self.bar is not None:
            shown = self.done + self.in_flight
            if shown > self.bar.n:
                self.bar.update(shown - self.bar.n)
            self.bar.set_postfix_str(self._counts(), refresh=False)
        elif self.mode == "log" and time.monotonic() - self.last >= self.interval:
            self.log()

    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return (self.new + self.in_flight) / elapsed if elapsed > 0 else 0.0

    def _counts(self) -> str:
        return ", ".join(f"{k} {v:,}" for k, v in sorted(self.counts.items()))

    def log(self) -> None:
        self.last = time.monotonic()
        rate = self.rate()
        done = min(self.done + self.in_flight, self.total)
        left = self.total - done
        eta = _duration(left / rate) if rate > 0 else "?"
        pct = 100.0 * done / self.total if self.total else 100.0
        print(f"batch: {done:,}/{self.total:,} ({pct:.1f}%) | {rate:,.1f} puzzles/s | ETA {eta} | "
              f"{self._counts() or 'starting'}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _duration(seconds: float) -> str:
    """``1h02m03s``, ``2m03s`` or ``3s``.

    Examples
    --------
    >>> _duration(3723), _duration(61), _duration(4)
    ('1h02m03s', '1m01s', '4s')
    """
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"
