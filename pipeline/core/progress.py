"""The progress meter of a long run: a tqdm bar on a terminal (when tqdm is installed), else a log
line every ``interval`` seconds on stderr. batch (rows written, puzzles finished in workers) and
generate (puzzles made, and what the current puzzle is doing) both show it.
"""
from __future__ import annotations

import sys
import time
from typing import Any

from pipeline.core.extras import install_hint

__all__ = ["LOG_SECONDS", "PROGRESS_MODES", "Progress", "duration", "on_a_terminal"]

#: Seconds between log lines (and before the first one) unless a command says otherwise.
LOG_SECONDS = 10.0
#: ``--progress``: a bar (on a terminal, with tqdm), log lines, nothing, or auto (bar on a terminal).
PROGRESS_MODES = ("auto", "bar", "log", "none")
#: Seconds between redraws of a bar whose only change is its detail text.
_BAR_REFRESH_SECONDS = 0.5


def on_a_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal (False for None, a closed file or a stand-in without ``isatty``).

    Parameters
    ----------
    stream : object
        Usually ``sys.stderr``.
    """
    try:
        return bool(stream.isatty())   # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


class Progress:
    """A tqdm bar on a terminal (when tqdm is installed), else a log line every ``interval`` s.

    Items count when they are done (:meth:`update`, with a status word each); :meth:`running`
    shows items finished elsewhere that are not yet counted (batch: puzzles finished in chunks
    still open), so the display moves per item; :meth:`detail` says what is being done now
    (generate: the step of the current puzzle).

    Parameters
    ----------
    total : int
        Items in the run.
    done : int
        Items already done before it (a resumed batch).
    mode : {"auto", "bar", "log", "none"}
        ``auto``: a bar when ``stream`` is a terminal, else log lines. ``bar`` without tqdm: log
        lines, after one ``note:`` line saying how to install it.
    interval : float
        Seconds between log lines (the first one after ``interval`` too: a short run says nothing).
        0: a line whenever the counts or the detail text change, and never the same one twice.
    stream : file, optional
        Where the meter writes (default ``sys.stderr``).
    label : str
        How a log line starts (``batch: 10/100 ...``).
    unit : str
        What an item is called (``puzzle``: ``puzzles/s``).
    delay : float
        Seconds before a bar first shows (a short run draws none).

    Notes
    -----
    The meter draws when it is called (no thread of its own: a solver call that holds the GIL,
    as python-sat's do, would keep a thread from drawing anyway), so a run shows progress as
    often as its steps call :meth:`detail`, :meth:`update` or :meth:`running`.
    """

    def __init__(self, total: int, done: int, mode: str = "auto", interval: float = LOG_SECONDS, stream: Any = None,
                 *, label: str = "batch", unit: str = "puzzle", delay: float = 0.0):
        self.total, self.done, self.new = total, done, 0
        self.in_flight = 0   # finished elsewhere, not yet counted by update
        self.stream = stream or sys.stderr
        self.interval = interval
        self.label, self.unit, self.delay = label, unit, delay
        self.started = self.last = self._drawn = time.monotonic()
        self.counts: dict[str, int] = {}
        self.now = ""        # what is being done (detail)
        self._logged: tuple | None = None   # what the last log line showed (_log_due)
        self.bar = None
        if mode == "auto":
            mode = "bar" if on_a_terminal(self.stream) else "log"
        if mode == "bar":
            try:
                from tqdm import tqdm
            except ImportError:   # said once, in this meter's run: a bar asked for is not silently log lines
                mode = "log"
                print(f"note: --progress bar needs tqdm (the progress extra), which is not installed: "
                      f"{install_hint('progress')}; showing log lines instead", file=self.stream)
            else:
                self.bar = tqdm(total=total, initial=done, unit=unit, file=self.stream,
                                dynamic_ncols=True, smoothing=0.1, delay=delay)
        self.mode = mode

    def _refresh_bar(self) -> None:
        """Redraw the bar for a new detail (tqdm redraws on update only), at most every half
        second and not before its delay."""
        now = time.monotonic()
        if self.bar is not None and now - self._drawn >= _BAR_REFRESH_SECONDS and now - self.started >= self.delay:
            self._drawn = now
            self.bar.refresh()
            # tqdm marks a bar as shown only when update() draws it; without this its close()
            # takes a bar drawn here for one never shown and leaves the line unended (the next
            # message on stderr would be written over it)
            self.bar.last_print_t = time.time()

    def update(self, statuses: list[str]) -> None:
        """Count items done (their status words)."""
        self.done += len(statuses)
        self.new += len(statuses)
        self.in_flight = max(0, self.in_flight - len(statuses))
        for s in statuses:
            self.counts[s] = self.counts.get(s, 0) + 1
        self._show()

    def running(self, finished_elsewhere: int) -> None:
        """Items finished so far in this run, counted by :meth:`update` or not."""
        self.in_flight = max(0, finished_elsewhere - self.new)
        self._show()

    def detail(self, text: str) -> None:
        """What is being done now, shown after the counts (cheap to call often)."""
        self.now = text
        if self.bar is not None:
            self.bar.set_postfix_str(self._words(), refresh=False)
            self._refresh_bar()
        elif self._log_due():
            self.log()

    def _show(self) -> None:
        if self.bar is not None:
            shown = self.done + self.in_flight
            if shown > self.bar.n:
                self.bar.update(shown - self.bar.n)
            self.bar.set_postfix_str(self._words(), refresh=False)
        elif self._log_due():
            self.log()

    def _state(self) -> tuple:
        """What a log line shows besides the times: items done or finished elsewhere, the counts
        by status and the detail text."""
        return self.done + self.in_flight, tuple(sorted(self.counts.items())), self.now

    def _log_due(self) -> bool:
        """A log line is due ``interval`` seconds after the last one; with no interval (0), only
        when what it shows has changed: a caller that shows the meter twice for one step (batch:
        after a part is written, then after asking the workers' counter) writes one line."""
        if self.mode != "log" or time.monotonic() - self.last < self.interval:
            return False
        return self.interval > 0 or self._state() != self._logged

    def rate(self) -> float:
        """Items per second in this run."""
        elapsed = time.monotonic() - self.started
        return (self.new + self.in_flight) / elapsed if elapsed > 0 else 0.0

    def _counts(self) -> str:
        return ", ".join(f"{k} {v:,}" for k, v in sorted(self.counts.items()))

    def _words(self) -> str:
        return " | ".join(part for part in (self._counts(), self.now) if part)

    def log(self) -> None:
        """Write one log line now."""
        self.last = time.monotonic()
        self._logged = self._state()
        rate = self.rate()
        done = min(self.done + self.in_flight, self.total)
        left = self.total - done
        eta = duration(left / rate) if rate > 0 else "?"
        pct = 100.0 * done / self.total if self.total else 100.0
        if self.now:   # a run of few, long items (generate): the time so far, then what it does now
            line = (f"{self.label}: {done:,}/{self.total:,} {self.unit}s ({pct:.1f}%) | "
                    f"{duration(self.last - self.started)} so far{f' | ETA {eta}' if rate > 0 else ''} | "
                    f"{self._words()}")
        else:
            line = (f"{self.label}: {done:,}/{self.total:,} ({pct:.1f}%) | {rate:,.1f} {self.unit}s/s | "
                    f"ETA {eta} | {self._counts() or 'starting'}")
        print(line, file=self.stream, flush=True)

    def close(self) -> None:
        """Close the bar (log lines need nothing)."""
        if self.bar is not None:
            self.bar.close()


def duration(seconds: float) -> str:
    """``1h02m03s``, ``2m03s`` or ``3s``.

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str

    Examples
    --------
    >>> duration(3723), duration(61), duration(4)
    ('1h02m03s', '1m01s', '4s')
    """
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"
