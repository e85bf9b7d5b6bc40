"""How a command stops before its end: Ctrl-C (SIGINT), SIGTERM and the ``--time-limit`` deadline.

The promise (docs/cli.md, "Input, limits and signals"): Ctrl-C or SIGTERM prints ``interrupted`` and exits 130, however many
signals arrive and wherever they land; ``--time-limit S`` bounds the whole command.

* :func:`install` (the real command line only): SIGINT and SIGTERM raise ``KeyboardInterrupt`` in
  the main thread (``main`` prints ``interrupted``, exit 130). The first one starts the shutdown:
  both are ignored from then on (``SIG_IGN``), so a second Ctrl-C can interrupt neither the
  report nor the clean-up (no traceback from inside a handler, no exit code but 130). A signal
  ignored when the process started (``nohup``, a background job) stays ignored.
* :func:`deferred`: a signal that lands in the block is delivered when the block ends (a whole
  line of output, never half of one).
* The watchdog thread: Python runs a handler only between two bytecodes; when the main thread
  stays in C code that released the GIL (one long HiGHS run), the watchdog, woken by the
  signal numbers Python's C-level handler writes to the wakeup fd, ends the process itself
  after a grace period with the same report and exit code. A command that took the stop in its
  own handler and ends in order (``batch``: :func:`stopping_in_order`) gets a longer grace, which
  a second signal cuts short. (C code that keeps the GIL cannot
  be waited out this way: the SAT engine therefore searches in short slices,
  :func:`pipeline.solvers.sat_slices.run_sliced`.)
* :class:`Deadline`: ``--time-limit`` of ``solve`` and ``count`` counts from the end of argument
  parsing and covers building, solving, the uniqueness check and verifying. Engines get the
  time that is left; at the deadline (plus :data:`DEADLINE_SLACK`) SIGALRM stops the command
  in Python with its time-limit answer, and the watchdog ends it :data:`DEADLINE_GRACE` later if
  the main thread is still inside an engine's C code. A model whose build alone would take
  longer than the time left is not built (:meth:`Deadline.check_build`).
"""
from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

# what a step would take here (the build rates, the load, the 'too long to start' message) lives in
# time_estimates (split for the 800-line limit); stops re-exports the names, imported from here
from pipeline.core.time_estimates import BUILD_CPU_SECONDS_PER_NONZERO as BUILD_CPU_SECONDS_PER_NONZERO
from pipeline.core.time_estimates import RULE_BUILD_CPU_SECONDS_PER_NONZERO as RULE_BUILD_CPU_SECONDS_PER_NONZERO
from pipeline.core.time_estimates import TOO_LONG_TO_START as TOO_LONG_TO_START, estimated_build_seconds as estimated_build_seconds
from pipeline.core.time_estimates import estimated_seconds as estimated_seconds, say_seconds as say_seconds
from pipeline.core.time_estimates import too_long_to_start as too_long_to_start

__all__ = ["BUILD_CPU_SECONDS_PER_NONZERO", "DEADLINE_GRACE", "DEADLINE_SLACK", "INTERRUPT_GRACE", "ORDERLY_STOP_GRACE", "Deadline",
           "DeadlineReached", "begin", "calling_on_stop", "ended_at_own_deadline", "removed_at_hard_exit", "deferred", "deferred_signals", "estimated_build_seconds", "held", "estimated_seconds", "finish", "install", "interrupting", "python_sigint", "raise_if_stop", "report_interrupt", "unwrapped", "wrapped_interrupt", "watch", "say_seconds",
           "shutdown_started", "stop_requested", "temporary_directory", "stopping_in_order", "TOO_LONG_TO_START", "too_long_to_start", "watching_flag"]

#: Seconds a Ctrl-C may take to reach Python code (which then ends with one line and exit 130)
#: before the watchdog ends the process itself.
INTERRUPT_GRACE = 2.0
#: Seconds a command that took the stop in its own Python code (``batch``'s first Ctrl-C: the
#: workers' current puzzles, the finished rows written, the summary) has to end after that,
#: before the watchdog ends the process itself: on a loaded machine the orderly end took more
#: than :data:`INTERRUPT_GRACE`, and the watchdog's bare ``interrupted`` replaced the summary.
ORDERLY_STOP_GRACE = 30.0
#: The deadline's alarm rings this fraction of the limit after it (and at least 20 ms): an
#: engine that stops on its own limit a moment late still gives its own answer.
DEADLINE_SLACK = 0.02
#: After the alarm, the main thread has this fraction of the limit (0.2 s to 2 s) to answer
#: before the watchdog ends the process with the time-limit answer: alarm and grace together
#: stay within the 10% the limit promises.
DEADLINE_GRACE = 0.06

_STOP_SIGNALS = tuple(s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None)) if s is not None)
_ALARM = getattr(signal, "SIGALRM", None)


class DeadlineReached(BaseException):
    """The command's ``--time-limit`` passed (raised in the main thread by the deadline's alarm,
    or by :meth:`Deadline.check_build`). A BaseException, as KeyboardInterrupt is: no ``except
    Exception`` on the way may take it for an engine's failure."""

    def __init__(self, reason: str | None = None):
        super().__init__(reason)
        self.reason = reason


class _State:
    installed = False            # install() ran: SIGINT/SIGTERM raise KeyboardInterrupt once
    stopping: str | None = None  # "interrupt" or "deadline" once a stop has started
    reported = False             # main has given its answer (or its report): the watchdog stands down
    deferring = 0                # nesting depth of deferred()
    holding = 0                  # nesting depth of deferred_signals() in the main thread
    pending: BaseException | None = None
    deadline: Deadline | None = None
    watched = False
    stop_calls: tuple[Callable[[str], None], ...] = ()   # calling_on_stop's engines, asked to end their search
    flag: Callable[[], bool] | None = None               # watching_flag's: a batch worker's "stop" flag
    left_running: str | None = None                       # leave_running's: an engine thread still in C code
    removals: tuple[str, ...] = ()                        # removed_at_hard_exit's temporary directories
    in_order: float | None = None                         # stopping_in_order's: when main took the stop
    lock = threading.Lock()


_S = _State()


#: The longest wait handed to a clock: a finite --time-limit such as 1e308 overflows time_t.
_LONGEST_WAIT = 1e7

def _ignore_stop_signals() -> None:
    if threading.current_thread() is threading.main_thread():
        for signum in _STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)


def _raise_or_hold(stop: BaseException) -> None:
    if _S.deferring:
        _S.pending = _S.pending or stop
        return
    raise stop


def _on_stop_signal(signum, frame) -> None:
    if _S.stopping is not None:
        return
    _S.stopping = "interrupt"
    _ignore_stop_signals()
    _raise_or_hold(KeyboardInterrupt())


#: Seconds after which the deadline's alarm comes again when it rang inside a finalizer (or a
#: ``__set_name__``).
FINALIZER_RETRY = 0.01

#: Functions out of which a stop does not come as itself: from ``__del__`` it is printed
#: ("Exception ignored in ...", with its traceback) and dropped, so the stop would be lost; from
#: ``__set_name__`` (a class being made: a library imported on the way) Python 3.11 raises a
#: RuntimeError in its place ("Error calling __set_name__ on ..."), an internal error (exit 70).
_NOT_RAISED_FROM = ("__del__", "__set_name__")


def _in_finalizer(frame: Any) -> bool:
    """Whether ``frame`` runs inside a function of :data:`_NOT_RAISED_FROM` (an object's
    ``__del__``, a ``__set_name__``), out of which a stop raised would not come as itself."""
    while frame is not None:
        if frame.f_code.co_name in _NOT_RAISED_FROM:
            return True
        frame = frame.f_back
    return False


def _on_alarm(signum, frame) -> None:
    deadline = _S.deadline
    if _S.stopping is not None or deadline is None or deadline.finished:
        return
    if _in_finalizer(frame):   # a solver freed (a class made) as the limit passed: the stop a moment later, outside it
        signal.setitimer(signal.ITIMER_REAL, FINALIZER_RETRY)
        return
    _S.stopping = "deadline"
    if _S.installed:
        _ignore_stop_signals()
    _raise_or_hold(DeadlineReached())


def begin() -> None:
    """A command starts (``main``): no stop has started yet (``main`` may run several commands
    in one process, as the tests do)."""
    _S.stopping, _S.reported, _S.pending, _S.deferring = None, False, None, 0
    _S.left_running = None


def shutdown_started() -> None:
    """A stop has begun under a handler of its own (batch's first Ctrl-C or SIGTERM asks its
    workers to stop): once that handler is gone, :func:`install`'s ignore every later signal."""
    if _S.stopping is None:
        _S.stopping = "interrupt"


def interrupting() -> bool:
    """A Ctrl-C or SIGTERM has started the command's stop."""
    return _S.stopping == "interrupt"


def python_sigint() -> bool:
    """SIGINT raises KeyboardInterrupt the plain Python way: no command line of ours handles it
    (:func:`install`) and it is not ignored (a batch worker). Only then may an engine catch
    Ctrl-C itself (CP-SAT's ``catch_sigint_signal``) and the caller turn its early stop into a
    KeyboardInterrupt; elsewhere the engine's handler would take the signal from its owner."""
    return signal.getsignal(signal.SIGINT) is signal.default_int_handler


@contextlib.contextmanager
def calling_on_stop(stop: Callable[[str], None]) -> Iterator[None]:
    """While the block runs, a Ctrl-C or SIGTERM (``stop("interrupt")``) or the deadline's alarm
    (``stop("deadline")``) also calls ``stop`` at once, from the watchdog thread.

    For an engine whose C code runs without the GIL (CP-SAT's ``StopSearch``): the search ends,
    the main thread is back in Python within milliseconds and gives the command's own answer,
    instead of the watchdog ending the process after its grace. The call is also how the engine
    learns that this search was interrupted (its C code may swallow the KeyboardInterrupt the
    handler raised in it). ``stop`` must be safe to call from another thread.

    Parameters
    ----------
    stop : callable
        Takes the kind of stop and asks the engine to end its search; its errors are ignored.
    """
    _S.stop_calls = (*_S.stop_calls, stop)
    try:
        yield
    finally:
        _S.stop_calls = tuple(call for call in _S.stop_calls if call is not stop)


def watching_flag(flag: Callable[[], bool] | None) -> None:
    """A process with no signal handling of its own (a batch pool worker: its client takes
    Ctrl-C and raises a shared flag) names that flag here, so that an engine polling
    :func:`stop_requested` while it waits for C code (a HiGHS run) can end the run in place
    instead of being killed with its chunk.

    Parameters
    ----------
    flag : callable or None
        True once the run should stop; None forgets it.
    """
    _S.flag = flag


def flag_watched() -> bool:
    """Is a flag named (:func:`watching_flag`)? An engine starts its polling only then.

    Returns
    -------
    bool
    """
    return _S.flag is not None


def leave_running(engine: str) -> None:
    """After a stop, ``engine``'s run thread did not end within its bound (the C code looks at
    its interrupt only now and then): the command answers without it, and its process must end
    without the interpreter's exit, which would kill that thread inside C++ code (SIGABRT,
    ``terminate called without an active exception``). ``main`` reads :func:`left_running`.

    Parameters
    ----------
    engine : str
        The engine's name.
    """
    _S.left_running = engine


def left_running() -> str | None:
    """The engine :func:`leave_running` named in this command, if any.

    Returns
    -------
    str or None
    """
    return _S.left_running


def stopped_at_deadline() -> bool:
    """Did this command's ``--time-limit`` alarm stop it (its answer is then given)? What the
    stopped work built may be large: a 100x100 ``explain`` stopped while loading its SAT engine
    leaves 12.6 million clause lists, which the interpreter's exit took 1.5-2 s to free.

    Returns
    -------
    bool
    """
    return _S.stopping == "deadline"


def ended_at_own_deadline() -> None:
    """A command that keeps its own ``--time-limit`` clock (``generate``) ended its work there,
    answer given: :func:`stopped_at_deadline` says so from now on, and ``main`` ends the process
    without the interpreter's exit, whose freeing of what was built took 1.2-1.5 s past the limit
    (a 64x64 jigsaw's cached engine: its solver, 0.65 s, and 8.4 million clause lists)."""
    _S.stopping = "deadline"


def stop_requested() -> bool:
    """Is the flag of :func:`watching_flag` raised? For engines that poll while they wait.

    Only the flag: a stop of this command reaches the engine as an exception in the waiting
    thread or through :func:`calling_on_stop`, and the process-wide "a stop has started" state
    may be an earlier command's (in one process that runs several), which must not end this run.

    Returns
    -------
    bool
    """
    flag = _S.flag
    return flag is not None and bool(flag())


def _claim() -> bool:
    """Whoever claims first (``main``, or the watchdog when ``main`` is stuck) gives the answer."""
    with _S.lock:
        if _S.reported:
            return False
        _S.reported = True
        return True


def _wait_for_watchdog() -> None:
    """The watchdog has claimed the answer and is ending the process: wait for it."""
    threading.Event().wait()


def install(watch: bool = True) -> None:
    """The command line's signal handling (main thread only; a no-op elsewhere).

    Parameters
    ----------
    watch : bool
        Also start the watchdog thread (not for ``batch``: a thread would keep it from forking
        its workers, and it stops its workers itself).
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:   # nohup, a background job: stays ignored
            signal.signal(signum, _on_stop_signal)
    _S.installed = True
    _S.in_order = None
    if watch:
        _start_watchdog()


def watch() -> None:
    """Start the watchdog now, under the command line's handling only (:func:`install` ran): for
    a command that installed without it because it might fork (``batch``) and then solves in its
    own process, where one engine call in C code (a HiGHS run of minutes) would otherwise hold
    every Ctrl-C until it returns."""
    if _S.installed:
        _start_watchdog()


def finish() -> None:
    """The command has its exit code: from now on SIGINT and SIGTERM are ignored (a signal sent
    to the process group as the run ends must not replace the code or print a traceback from
    the interpreter's exit), and the watchdog stands down."""
    _S.reported = True
    if _S.installed:
        _ignore_stop_signals()
    _forget_handled_interrupts()


def _forget_handled_interrupts() -> None:
    """Clear CPython's "unhandled KeyboardInterrupt" mark, which its exit (under ``python -m``)
    turns into death by SIGINT (exit -2, not 130). CPython sets the mark whenever a
    KeyboardInterrupt leaves code run from a string (``exec``/``eval`` of text: a dataclass's
    generated methods, a namedtuple, numba's compiled wrappers), even when a caller further up
    catches it, as ``main`` does; it clears the mark at the start of every such run, which is
    what the ``eval`` of a string here does. The command has given its answer by now."""
    eval("None")  # noqa: S307  (a constant string: the point is the string run, see above)


def stopping_in_order() -> None:
    """The main thread took the stop in its own Python code and ends the command in order (the
    command's signal handler ran, so it is not stuck in C code): the watchdog gives it
    :data:`ORDERLY_STOP_GRACE` from now instead of :data:`INTERRUPT_GRACE` before it ends the
    process itself."""
    _S.in_order = time.monotonic()


#: Python 3.11's RuntimeError for a ``__set_name__`` that raised (``__cause__``: what it raised).
_SET_NAME_WRAPPING = "Error calling __set_name__ on "


def unwrapped(error: BaseException) -> BaseException:
    """The KeyboardInterrupt or :class:`DeadlineReached` that ``error``, the interpreter's wrapping
    of a ``__set_name__``'s exception (a signal as a class was made: a library imported lazily),
    stands for; ``error`` itself otherwise (any other RuntimeError too). Asked wherever a stop is
    taken at the top (``main``, a batch run, a record), so it is the stop it is (130), not a bug."""
    inner = error
    while type(inner) is RuntimeError and inner.__cause__ is not None and str(inner).startswith(_SET_NAME_WRAPPING):
        inner = inner.__cause__
    return inner if inner is not error and isinstance(inner, (KeyboardInterrupt, DeadlineReached)) else error


def wrapped_interrupt(error: BaseException) -> bool:
    """Whether ``error`` is a Ctrl-C the interpreter wrapped (:func:`unwrapped` finds a
    KeyboardInterrupt in it): for the places that count a stop rather than raise it."""
    return isinstance(unwrapped(error), KeyboardInterrupt)


def raise_if_stop(error: BaseException) -> None:
    """Raise the stop :func:`unwrapped` finds in ``error`` (for a catch-all); nothing otherwise."""
    stop = unwrapped(error)
    if stop is not error:
        raise stop from None


def report_interrupt() -> None:
    """``main`` caught the KeyboardInterrupt and is about to report it (the watchdog stands
    down; when the watchdog has claimed the report first, this waits for the process's end)."""
    if _S.installed:
        _ignore_stop_signals()
    if not _claim():
        _wait_for_watchdog()


class deferred:
    """Hold back a stop (Ctrl-C, SIGTERM, the deadline) while the block runs; it is raised when
    the block ends. Only with :func:`install`'s handlers (elsewhere the block runs as is).

    Parameters
    ----------
    now : bool
        Hold from the start of the block; with False only from :meth:`hold` on (the commit at
        the end of a block whose body must stay interruptible).
    """

    def __init__(self, now: bool = True):
        self.now = now
        self.on = False

    def hold(self) -> None:
        """Hold signals back from here to the end of the block."""
        if not self.on:
            self.on = True
            _S.deferring += 1

    def __enter__(self) -> deferred:
        if self.now:
            self.hold()
        return self

    def __exit__(self, *exc) -> None:
        if not self.on:
            return
        self.on = False
        _S.deferring -= 1
        if not _S.deferring and _S.pending is not None:
            stop, _S.pending = _S.pending, None
            raise stop


@contextlib.contextmanager
def deferred_signals(signums: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while the block runs, then deliver them (once each), whatever
    handles them (:func:`install`'s, Python's own ``KeyboardInterrupt``, a caller's).

    Only in the main thread (elsewhere Python cannot install handlers, and the block runs as
    is); a signal whose handler was not installed from Python is left alone.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {}
    _S.holding += 1      # the watchdog waits for the block's end (_wait_while_held)
    try:
        for signum in signums:
            handler = signal.getsignal(signum)
            if handler is None:
                continue
            previous[signum] = handler
            signal.signal(signum, lambda number, frame: caught.append(number))
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _S.holding -= 1
        for signum in dict.fromkeys(caught):
            signal.raise_signal(signum)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Every stop held back while the block runs (SIGINT and SIGTERM whatever handles them, and
    the deadline's alarm: :func:`deferred_signals` and :class:`deferred`), raised when it ends:
    for a block that creates something (a process, a temporary file) and records it for its
    clean-up, so that no stop lands between the two and leaves it behind. Only in the main
    thread, where Python runs its handlers (in another, a stop held would be raised there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with deferred(), deferred_signals():
        yield


@contextlib.contextmanager
def temporary_directory(prefix: str) -> Iterator[str]:
    """A new temporary directory (``tempfile.mkdtemp``), removed when the block ends however it
    ends. Its creation is :func:`held`: a stop handled between ``mkdtemp`` returning and the
    directory being known for removal (inside ``tempfile.TemporaryDirectory``, before its
    finalizer is set) left it behind in the temporary directory.

    Parameters
    ----------
    prefix : str
        The start of its name.

    Yields
    ------
    str
        Its path.
    """
    path = None
    try:
        with held():
            path = tempfile.mkdtemp(prefix=prefix)
        yield path
    finally:
        if path is not None:
            shutil.rmtree(path, ignore_errors=True)


# -- the watchdog --------------------------------------------------------------------------------
def _start_watchdog() -> None:
    if _S.watched:
        return
    try:
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (OSError, ValueError, AttributeError):
        return
    _S.watched = True
    threading.Thread(target=_watch, args=(read_end,), name="stop-watchdog", daemon=True).start()


def _watch(read_end: int) -> None:
    first: str | None = None
    while True:
        try:
            numbers = os.read(read_end, 64)
        except OSError:
            return
        if not numbers:
            return
        kinds = {"deadline" if n == _ALARM else "interrupt" for n in numbers
                 if n == _ALARM or n in _STOP_SIGNALS}
        if not kinds or first is not None:
            continue
        first = "deadline" if "deadline" in kinds and _S.deadline is not None else "interrupt"
        for call in _S.stop_calls:
            with contextlib.suppress(BaseException):
                call(first)
        deadline = _S.deadline
        if first == "deadline" and deadline is not None:
            time.sleep(min(max(deadline.hard_stop - time.monotonic(), 0.0), _LONGEST_WAIT))
        else:
            time.sleep(INTERRUPT_GRACE)
            taken = _S.in_order
            if taken is not None:   # main is ending in order: its own grace, cut short by another signal
                if _wait_for_another_stop(read_end, taken + ORDERLY_STOP_GRACE):
                    time.sleep(INTERRUPT_GRACE)   # as for a first stop: main may still answer
        held_until = time.monotonic() + ORDERLY_STOP_GRACE
        while _wait_while_held(held_until):   # (its clean-up may hold them again: the staging's removal)
            time.sleep(INTERRUPT_GRACE)   # the stop is raised in main as the block ends: it answers
        _hard_exit(_S.stopping or first, deadline)
        first = None   # the main thread answered: watch for the next stop


#: Seconds between the watchdog's looks at whether main still holds stops back.
HELD_POLL = 0.01


def _wait_while_held(until: float) -> bool:
    """Wait, until the monotonic time ``until`` at most, while the main thread holds signals back
    (:func:`deferred_signals`, :func:`held`: an export's commit, whose renames a hard exit would
    cut in two, leaving a mixed set and its staging directory); True when it held them at first.
    On a loaded machine such a block outlasted :data:`INTERRUPT_GRACE`. (A :class:`deferred`
    block alone, a line written to a standard output that may be stuck, is not waited for.)"""
    held = False
    while _S.holding and time.monotonic() < until:
        held = True
        time.sleep(HELD_POLL)
    return held


def _wait_for_another_stop(read_end: int, until: float) -> bool:
    """Wait until the monotonic time ``until``, or until SIGINT or SIGTERM arrives again (the
    user's second Ctrl-C: stop waiting so long for the orderly end); True in the second case."""
    while (left := until - time.monotonic()) > 0:
        try:
            ready, _, _ = select.select([read_end], [], [], left)
            numbers = os.read(read_end, 64) if ready else b""
        except OSError:
            return False
        if any(n in _STOP_SIGNALS for n in numbers):
            return True
    return False


@contextlib.contextmanager
def removed_at_hard_exit(path: str | os.PathLike) -> Iterator[None]:
    """While the block runs, a hard exit (the watchdog ending the process after a stop's grace,
    the main thread still inside C code) removes the temporary directory ``path`` first: the
    block's own cleanup never runs then (an external SAT run stopped at its time limit while its
    clauses were encoded left an empty ``/tmp/sudoku-cadical-*`` behind).

    Parameters
    ----------
    path : str or Path
        A directory of this run's own (never the user's).
    """
    _S.removals = (*_S.removals, str(path))
    try:
        yield
    finally:
        _S.removals = tuple(kept for kept in _S.removals if kept != str(path))


def _hard_exit(kind: str, deadline: Deadline | None) -> None:
    """The main thread did not answer in time: give the answer from here and end the process."""
    if kind == "deadline":
        if deadline is None or not deadline.claim(watchdog=True):
            return
    elif not _claim():
        return
    code = 130
    if kind == "deadline" and deadline is not None:
        try:
            code = deadline.expired(None)
        except BaseException:   # the answer could not be written: still end, with the limit's code
            code = 1
    else:
        with contextlib.suppress(OSError):
            os.write(2, b"interrupted\n")
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    for path in _S.removals:   # the stop calls have killed the processes that wrote there
        shutil.rmtree(path, ignore_errors=True)
    os._exit(code)


# -- the deadline --------------------------------------------------------------------------------
def command_time_left() -> float | None:
    """Seconds left before the running command's ``--time-limit`` (its armed
    :class:`Deadline`), or None without one: engines that work in slices size the last ones to
    it, so that the deadline's alarm is not held back by a long slice of C code."""
    deadline = _S.deadline
    if deadline is None or deadline.finished:
        return None
    return deadline.remaining()


class Deadline:
    """``--time-limit`` for a whole command (see the module's docstring).

    Parameters
    ----------
    seconds : float or None
        The limit; None: no deadline (every method then says so and nothing is armed).
    expired : callable
        ``expired(reason) -> exit code``: print the command's time-limit answer (``reason``:
        why it stopped before trying, or None). Called in the main thread after
        :class:`DeadlineReached`, or from the watchdog when the main thread is stuck in C code.
    """

    def __init__(self, seconds: float | None, expired: Callable[[str | None], int]):
        self.seconds = seconds
        self.expired = expired
        self.started = time.monotonic()
        self.finished = False          # the answer is in (or being given): the deadline no longer stops
        self._taken = False            # the watchdog gives the time-limit answer and ends the process
        self._lock = threading.Lock()
        limit = seconds if seconds is not None else 0.0
        alarm = limit + max(DEADLINE_SLACK * limit, 0.02)
        self.hard_stop = self.started + alarm + min(max(DEADLINE_GRACE * limit, 0.2), 2.0)
        self._alarm_after = alarm
        self._armed = False            # SIGALRM is ours while the block runs
        self._previous: object = None  # its handler before

    def remaining(self) -> float | None:
        """Seconds left (never below 1 ms: engines need a positive limit), or None."""
        if self.seconds is None:
            return None
        return max(self.started + self.seconds - time.monotonic(), 1e-3)

    def check_build(self, nonzeros: int, what: str, rule_nonzeros: float = 0.0) -> None:
        """Stop before building a model that cannot be built in the time left.

        Parameters
        ----------
        nonzeros : int
            The model's nonzeros.
        what : str
            The model in words, for the answer (``the 100x100 model``).
        rule_nonzeros : float
            Estimated nonzeros of its rows of rules over the whole grid (a 200x200
            non-consecutive: 64 million, several times the units').

        Raises
        ------
        DeadlineReached
            With the estimate as its reason.
        """
        if self.seconds is None:
            return
        need = estimated_build_seconds(nonzeros, rule_nonzeros)
        left = self.started + self.seconds - time.monotonic()
        if need > left:
            raise DeadlineReached(too_long_to_start(f"building {what}", need, int(nonzeros + rule_nonzeros)))

    def claim(self, watchdog: bool = False) -> bool:
        """Who gives the answer: the main thread (:meth:`finish`, or the time-limit answer after
        :class:`DeadlineReached`) or the watchdog (the main thread stuck in C code). The first
        claim wins; a later one by the main thread waits for the watchdog to end the process."""
        with self._lock:
            if self.finished or self._taken:
                taken = self._taken
            else:
                self.finished = not watchdog
                self._taken = watchdog
                return True
        if not watchdog and taken:
            _wait_for_watchdog()
        return False

    def finish(self) -> None:
        """The answer is in: the deadline no longer stops the command (it is being printed)."""
        self.claim()
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def __enter__(self) -> Deadline:
        if (self.seconds is not None and _ALARM is not None
                and threading.current_thread() is threading.main_thread()):
            self._previous = signal.signal(_ALARM, _on_alarm)
            self._armed = True
            _S.deadline = self
            signal.setitimer(signal.ITIMER_REAL, min(max(self.started + self._alarm_after - time.monotonic(), 1e-3),
                                                     _LONGEST_WAIT))
        return self

    def __exit__(self, *exc) -> None:
        self.claim()
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(_ALARM, self._previous if self._previous is not None else signal.SIG_DFL)  # type: ignore[arg-type]
            self._armed, self._previous = False, None
        if _S.deadline is self:
            _S.deadline = None

    def run(self, body: Callable[[Deadline], int]) -> int:
        """``body(self)``'s exit code, or the time-limit answer's when the deadline stopped it."""
        with self:
            try:
                return body(self)
            except (DeadlineReached, RuntimeError) as e:   # also a deadline wrapped by a class's creation
                stop = unwrapped(e)
                if not isinstance(stop, DeadlineReached):
                    raise
                self.claim()
                return self.expired(stop.reason)
