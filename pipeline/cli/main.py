"""Command line: ``python -m pipeline`` / ``sudoku-pipeline``.

Exit codes: 0 success, 1 a well-formed question with a negative answer (no solution, grid
invalid), 2 bad input (one line on stderr, never a traceback).
"""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import select
import signal
import sys
import threading
import time

from pipeline.cli.args import check_ranges
from pipeline.cli import commands
from pipeline.cli.commands.batch import run_batch_command
from pipeline.core.errors import PipelineError
from pipeline.core.version import __version__

PROG = "sudoku-pipeline"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, as for every bad input
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser: one subparser per module of
    :data:`pipeline.cli.commands.COMMAND_MODULES`, in that order (read at each call, so a module
    listed at run time is a subcommand too)."""
    parser = _Parser(prog=PROG, description="Sudoku-family puzzles as sparse 0-1 integer programs: build, export, "
                                            "solve, import solver answers, verify.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    for module_name in commands.COMMAND_MODULES:
        importlib.import_module(module_name).add_command(sub)
    return parser


#: Exit status after the reader of standard output went away (``| head``): what a shell reports
#: for a tool killed by SIGPIPE, as ``cat`` or ``yes`` are.
SIGPIPE_EXIT = 128 + getattr(signal, "SIGPIPE", 13)


def _stdout_reader_gone() -> bool:
    """Did the reader of standard output go away? Then point stdout at /dev/null, so that the
    interpreter's last flush does not complain about the pipe either."""
    gone = False
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        gone = True
    except (OSError, ValueError):
        pass
    if not gone:
        try:  # the print that failed may have emptied the buffer: ask the pipe itself
            poll = select.poll()
            poll.register(sys.stdout.fileno(), select.POLLOUT)
            gone = any(events & select.POLLERR for _, events in poll.poll(0))
        except (OSError, ValueError, AttributeError):
            return False
    if gone:
        _point_stdout_at_devnull()
    return gone


def _point_stdout_at_devnull() -> None:
    """Descriptor 1 to /dev/null (and whatever the failed writes left buffered dropped), so that
    the interpreter's last flush at exit has nowhere to fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass


#: Seconds a Ctrl-C may take to reach Python code (which then ends with one line and exit 130)
#: before the watchdog ends the process itself: Python handles a signal only between bytecodes,
#: and an engine running in C (one long HiGHS solve) would otherwise keep the user waiting.
INTERRUPT_GRACE = 2.0
_interrupt = {"watched": False, "reported": False}


def _watch_for_ctrl_c() -> None:
    """Start the Ctrl-C watchdog once per process (main thread only): a daemon thread reads the
    signal numbers Python's C-level handler writes to its wakeup fd (even while the main thread
    is inside a solver that released the GIL); after SIGINT it waits :data:`INTERRUPT_GRACE`
    and, unless ``main`` has reported the interrupt by then, says ``interrupted`` and exits 130."""
    if _interrupt["watched"] or threading.current_thread() is not threading.main_thread():
        return
    try:
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (OSError, ValueError, AttributeError):
        return
    _interrupt["watched"] = True

    def watch() -> None:
        while True:
            try:
                numbers = os.read(read_end, 64)
            except OSError:
                return
            if not numbers:
                return
            if signal.SIGINT in numbers:
                time.sleep(INTERRUPT_GRACE)
                if not _interrupt["reported"]:
                    os.write(2, b"interrupted\n")
                    os._exit(130)

    threading.Thread(target=watch, name="ctrl-c-watchdog", daemon=True).start()


class StandardOutputError(OSError):
    """Writing to standard output failed for a reason other than a reader that went away (a full
    disk or device, an I/O error, a closed descriptor): the output is lost, so the command fails."""

    def __str__(self) -> str:
        return f"standard output: {self.strerror}"


class _GuardedStdout:
    """``sys.stdout`` while a command runs: the same stream, but a failed write or flush raises
    :class:`StandardOutputError` (EPIPE stays a ``BrokenPipeError``: quiet, exit 141), so ``main``
    can tell the standard output from a file the command writes and name it. ``None`` (Python's
    stdout when descriptor 1 was closed, ``>&-``) refuses every write instead of dropping it."""

    def __init__(self, stream):
        self._stream = stream
        #: the first failure, kept even when a caller swallows the exception (argparse's
        #: ``--help``/``--version`` printing does), so ``main`` still reports the lost output
        self.error: StandardOutputError | None = None

    def _call(self, name, *args):
        try:
            if self._stream is None:
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            return getattr(self._stream, name)(*args)
        except BrokenPipeError:
            raise
        except OSError as e:
            lost = StandardOutputError(e.errno, e.strerror or str(e))
            self.error = self.error or lost
            raise lost from e

    def write(self, text):
        return self._call("write", text)

    def writelines(self, lines):
        return self._call("writelines", lines)

    def flush(self):
        return self._call("flush")

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _os_error_line(e: OSError) -> str:
    if isinstance(e, StandardOutputError):
        return f"error: {e}"
    if getattr(e, "filename", None):
        return f"error: {str(e.filename)!r}: {e.strerror or e}"
    return f"error: {e.strerror or e}"


def _lost_output(e: OSError) -> int:
    """One line for output that could not be written, exit 2; the standard output is then pointed
    at /dev/null so the interpreter's last flush does not fail (and print) a second time."""
    if isinstance(e, StandardOutputError):
        _point_stdout_at_devnull()
    print(_os_error_line(e), file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code.

    0 success; 1 a negative answer (no solution, a grid that does not verify); 2 bad input
    (one ``error: ...`` line on stderr), or output that could not be written (``error: standard
    output: No space left on device``, or the file's name); 130 after Ctrl-C (one line:
    ``interrupted``); :data:`SIGPIPE_EXIT` quietly when the reader of stdout went away
    (``... | head -1``).
    """
    real_stdout = sys.stdout
    guard = sys.stdout = _GuardedStdout(real_stdout)
    try:
        code = _run(argv)
    except SystemExit as e:
        if guard.error is not None and not e.code:   # --help/--version whose text was lost
            raise SystemExit(_lost_output(guard.error)) from None
        raise
    finally:
        sys.stdout = real_stdout
    if guard.error is not None and code in (0, 1):   # a write failed and something swallowed it
        return _lost_output(guard.error)
    return code


def _run(argv: list[str] | None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        # the real command line only (tests pass argv and keep their own signal handling); batch
        # stops its workers itself on Ctrl-C and must not be cut short, and a watchdog thread
        # would also keep it from forking its workers
        if argv is None and args.func is not run_batch_command:
            _watch_for_ctrl_c()
        check_ranges(args)
        code = args.func(args)
        sys.stdout.flush()  # a reader that went away, or a full disk, shows here, not at the interpreter's exit
        return code
    except SystemExit as e:
        if e.code:   # a usage error: its one line went to stderr
            _stdout_reader_gone()
            raise
        try:   # --help, --version: their text must reach stdout too (main reports a failure)
            sys.stdout.flush()
        except StandardOutputError:
            raise e from None
        except OSError:
            pass
        if _stdout_reader_gone():   # --help | head: quietly, as after any other output
            raise SystemExit(SIGPIPE_EXIT) from None
        raise
    except KeyboardInterrupt:
        _interrupt["reported"] = True
        _stdout_reader_gone()
        print("interrupted", file=sys.stderr)
        return 130
    except PipelineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError as e:
        if _stdout_reader_gone():
            return SIGPIPE_EXIT
        return _lost_output(e)
    except OSError as e:
        return _lost_output(e)


if __name__ == "__main__":
    sys.exit(main())
