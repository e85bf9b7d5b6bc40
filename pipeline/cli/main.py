"""Command line: ``python -m pipeline`` / ``sudoku-pipeline``.

Exit codes: 0 success, 1 a well-formed question with a negative answer (no solution, grid
invalid), 2 bad input (one line on stderr, never a traceback), 70 a bug (:data:`INTERNAL_ERROR_EXIT`).
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import io
import os
import select
import signal
import sys

from pipeline.cli.args import check_ranges, check_stdin_once, explain_compiles
from pipeline.cli import commands
from pipeline.core import stops
from pipeline.core.errors import LONGEST_ECHO, PipelineError, bounded, escaped_controls, shortened
from pipeline.core import version

PROG = "sudoku-pipeline"


class _ShowVersion(argparse.Action):
    """``--version``: print ``sudoku-pipeline VERSION`` and exit, the version read only then
    (argparse's own action wants the text when the parser is built, i.e. on every run)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{PROG} {version.__version__}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, as for every bad input
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: one subparser per module of
    :data:`pipeline.cli.commands.COMMAND_MODULES`, in that order (read at each call, so a module
    listed at run time is a subcommand too).

    Parameters
    ----------
    only : str, optional
        A command's name: import and register that command alone (what a run of one command
        needs; the others' modules load generate, draw, batch, ... for nothing). None: all;
        ``""``: none (``--version``, which exits before a command is parsed).
    """
    parser = _Parser(prog=PROG, description="Sudoku-family puzzles as sparse 0-1 integer programs: build, export, "
                                            "solve, import solver answers, verify.")
    parser.add_argument("--version", action=_ShowVersion)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    modules = commands.COMMAND_MODULES
    if only == "":   # `--version` first: it exits before any command is needed
        modules = ()
    elif only is not None and only in _command_modules():
        modules = (_command_modules()[only],)
    for module_name in modules:
        importlib.import_module(module_name).add_command(sub)
    return parser


def _command_modules() -> dict[str, str]:
    """Command name -> its module, read from the module names (``import_`` is the ``import``
    command); a command whose module is named otherwise is found by importing them all."""
    return {name.rsplit(".", 1)[-1].rstrip("_"): name for name in commands.COMMAND_MODULES}


def _named_command(argv: list[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option (the top-level options,
    ``--version`` and ``--help``, take no value). None before any command word."""
    return next((word for word in argv if not word.startswith("-")), None)


def _top_level_dashes_dropped(words: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``words`` without the ``--`` that ends the top-level options (``sudoku-pipeline -- solve
    X``: argparse of Python < 3.12 took it for the command, "invalid choice: '--'"). It ends those
    options only: the command's own words are parsed as the command parses them, so a file whose
    name begins with ``-`` still needs the command's ``--`` (``solve -- -p.txt``). A word after it
    that begins with ``-`` is no command: refused in one line (exit 2) rather than read as an option.

    Parameters
    ----------
    words : list of str
        The command line after the program's name.
    parser : argparse.ArgumentParser
        The top-level parser, which refuses the option after ``--``.
    """
    first = next((i for i, word in enumerate(words) if word == "--" or not word.startswith("-")), None)
    if first is None or words[first] != "--":
        return list(words)
    rest = list(words[:first]) + list(words[first + 1:])
    if first + 1 < len(words) and words[first + 1].startswith("-"):
        parser.error(f"argument COMMAND: after '--' comes a command, not {words[first + 1]!r}")
    return rest


#: Exit status after the reader of standard output went away (``| head``): what a shell reports
#: for a tool killed by SIGPIPE, as ``cat`` or ``yes`` are.
SIGPIPE_EXIT = 128 + getattr(signal, "SIGPIPE", 13)

#: Exit status after an exception the command line does not expect (a bug, not the input): the
#: BSD sysexits ``EX_SOFTWARE``, so a script can tell it from "no solution" (1) and bad input (2).
INTERNAL_ERROR_EXIT = 70

#: Set (to anything but ``""`` or ``0``) to see a bug's traceback instead of its one line.
TRACEBACK_VARIABLE = "SUDOKU_PIPELINE_TRACEBACK"


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
        try:
            return self._call("write", text)
        except UnicodeEncodeError:
            # a character the stream's encoding lacks (an output path 'ü' under
            # PYTHONIOENCODING=ascii, an undecodable byte of a file name as a surrogate) is
            # written as an escape, as Python's own stderr does, not a traceback after the work
            return self._call("write", _escaped(text, self._stream))

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        return self._call("flush")

    @property
    def buffer(self):
        """The binary stream under it, guarded the same way (``export --to -`` writes bytes: a
        full device there said only "No space left on device")."""
        if self._stream is None:
            return self
        return _GuardedBuffer(self, self._stream.buffer)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _escaped(text: str, stream) -> str:
    """``text`` with each character that ``stream``'s encoding cannot write as a backslash escape."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


class _GuardedBuffer(_GuardedStdout):
    """``sys.stdout.buffer`` while a command runs: its failures are the text guard's (``owner``)."""

    def __init__(self, owner: _GuardedStdout, stream):
        super().__init__(stream)
        self._owner = owner

    def _call(self, name, *args):
        try:
            return super()._call(name, *args)
        finally:
            self._owner.error = self._owner.error or self.error

    def write(self, data):
        """All of ``data``, or an error: a write larger than the buffer goes to the pipe at once,
        and when the reader leaves part way the kernel reports a short write, which Python's
        buffered writer returns as it is, so the rest was dropped without a word (``export --to -
        | head`` exited 0 with 64 KiB of 575 KB). The next write raises the broken pipe."""
        view = memoryview(data).cast("B")
        total = len(view)
        while view:
            done = self._call("write", view)
            if done is None:   # a stream that does not count: it took it all
                break
            if done <= 0:
                lost = StandardOutputError(errno.EIO, "the standard output took no bytes")
                self.error = self._owner.error = self._owner.error or lost
                raise lost
            view = view[done:]
        return total

    @property
    def buffer(self):
        return self


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
    _say(_os_error_line(e))
    return 2


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code.

    0 success; 1 a negative answer (no solution, a grid that does not verify); 2 bad input
    (one ``error: ...`` line on stderr), or output that could not be written (``error: standard
    output: No space left on device``, or the file's name); 130 after Ctrl-C (one line:
    ``interrupted``, also after SIGTERM, however many signals arrive: :mod:`pipeline.core.stops`);
    :data:`SIGPIPE_EXIT` quietly when the reader of stdout went away (``... | head -1``);
    :data:`INTERNAL_ERROR_EXIT` after an exception that is a bug (one ``internal error: ...``
    line; with :data:`TRACEBACK_VARIABLE` set, the exception propagates with its traceback).
    """
    real_stdout, real_stdin = sys.stdout, sys.stdin
    guard = None
    try:
        # all of the set-up too: an exception here is a bug as much as one in a command (one line,
        # exit 70), and a Ctrl-C here an interrupt (exit 130), never a traceback
        stops.begin()
        if argv is None:   # the real command line (tests pass argv and keep their own signal handling)
            stops.install(watch=False)
            _stand_in_for_closed_streams()
        guard = sys.stdout = _GuardedStdout(real_stdout)
        if real_stdin is None:
            sys.stdin = _ClosedStdin()
        code = _run(argv)
    except SystemExit as e:
        if guard is not None and guard.error is not None and not e.code:   # --help/--version whose text was lost
            raise SystemExit(_lost_output(guard.error)) from None
        raise
    except KeyboardInterrupt:   # outside _run's own handling, or raised inside its handlers
        code = _report_interrupt()
    except Exception as e:  # noqa: BLE001 - the same: one line, exit 70
        if stops.interrupting() or stops.wrapped_interrupt(e):
            code = _report_interrupt()
        elif os.environ.get(TRACEBACK_VARIABLE, "") not in ("", "0"):
            raise   # a developer asked for the traceback
        else:
            code = _report_bug(_named_command(sys.argv[1:] if argv is None else argv), e)
    finally:
        sys.stdout, sys.stdin = real_stdout, real_stdin
        if argv is None:
            stops.finish()
    if guard is None:
        return code
    if guard.error is not None and code in (0, 1):   # a write failed and something swallowed it
        code = _lost_output(guard.error)
    if argv is None and (stops.left_running() or stops.stopped_at_deadline()):
        # an engine's thread is still inside its C code after a stop: the interpreter's exit
        # would kill it there (SIGABRT); or the time limit stopped the work, and that exit would
        # free all it built (a 100x100 explain: 1.5-2 s past the limit): the answer is out, so
        # the process ends here
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os._exit(code)
    return code


class _ClosedStdin:
    """``sys.stdin`` when descriptor 0 was closed (``<&-``; Python's is then None): reading it,
    e.g. for the puzzle ``-``, is one error line (exit 2), not an AttributeError."""

    def _closed(self, *args):
        raise PipelineError("standard input is closed (nothing to read for '-')")

    read = readline = readlines = __iter__ = _closed

    @property
    def buffer(self):
        self._closed()


def _stand_in_for_closed_streams() -> None:
    """Descriptors 0, 1 and 2 that the command was started without (``<&-``, ``>&-``, ``2>&-``)
    are opened on /dev/null, so that no file this process opens later takes their number (a
    solver's C-level output, or the watchdog's last line, would go into that file). Python's
    own stream stays None for a closed stdin or stdout (reading is refused, writing is lost
    output, both exit 2); a closed stderr becomes /dev/null, so error lines are dropped rather
    than printed to stdout (``print(file=None)`` writes to stdout)."""
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        try:
            stand_in = os.open(os.devnull, mode)
            if stand_in != fd:
                os.dup2(stand_in, fd)
                os.close(stand_in)
        except OSError:
            continue
    if sys.stderr is None:
        with contextlib.suppress(OSError):
            sys.stderr = io.TextIOWrapper(open(os.devnull, "wb"), errors="replace", line_buffering=True)


def _run(argv: list[str] | None) -> int:
    args = None
    try:
        words = sys.argv[1:] if argv is None else argv
        # an empty first word ('') names no command: all of them are the choices, as for an unknown
        # word ("" would be build_parser's "none" and the error's list of choices empty)
        parser = build_parser("" if words[:1] == ["--version"] else _named_command(words) or None)
        args = parser.parse_args(_top_level_dashes_dropped(words, parser))
        # batch stops its workers itself on Ctrl-C and must not be cut short, and a watchdog
        # thread would keep batch from forking its workers and export from writing its formats
        # side by side (formats.forked): they start it themselves where they do not fork
        if argv is None and args.command not in ("batch", "export"):
            stops.install(watch=True)
        check_ranges(args)
        check_stdin_once(args)
        with explain_compiles(args):
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
        return _report_interrupt()
    except PipelineError as e:
        if isinstance(e, OSError) and e.errno == errno.EPIPE and _stdout_reader_gone():
            return SIGPIPE_EXIT   # a write into --to /dev/stdout whose reader left: quietly, as with -
        # one line whatever it quotes: a line break (or a terminal's escape) in a file's name is shown escaped
        text = escaped_controls(bounded(str(_as_typed(e, args))))
        _say(f"error: {text}")
        return 2
    except MemoryError:   # past the up-front estimates (an address-space limit, a rule's encoding)
        _say(f"error: {getattr(args, 'command', None) or 'the command'}: out of memory: the job needs more than "
             f"this process may use (a smaller grid, another --solver or --amo, or more memory)")
        return 2
    except BrokenPipeError as e:
        if _stdout_reader_gone():
            return SIGPIPE_EXIT
        return _lost_output(e)
    except OSError as e:
        return _lost_output(e)
    except Exception as e:
        # a C extension that met the KeyboardInterrupt turned it into its own error (an import's
        # "initialization failed"), or Python wrapped it (a class made as it landed: "Error calling
        # __set_name__", also under Python's own SIGINT handling): the interrupt is still what happened
        if stops.interrupting() or stops.wrapped_interrupt(e):
            return _report_interrupt()
        if os.environ.get(TRACEBACK_VARIABLE, "") not in ("", "0"):
            raise   # a developer asked for the traceback
        return _report_bug(getattr(args, "command", None), e)


def _as_typed(error: PipelineError, args: argparse.Namespace | None) -> PipelineError:
    """``error`` naming the option as typed (``--chunk-size: ...``) when it is about a keyword the
    command maps to one (its ``option_names`` default: keyword -> option), else as it is."""
    names = getattr(args, "option_names", None) or {}
    if error.template is not None:   # a message naming several keywords (for_options)
        return error.spelled(names)
    flag = names.get(error.option) if error.option else None
    return error.named(flag) if flag else error


def _report_bug(command: str | None, error: Exception) -> int:
    """One line for an exception no branch expects, :data:`INTERNAL_ERROR_EXIT`: a traceback
    would read as a crash on bad input, and exit 1 as "no solution"."""
    try:
        message = str(error)
    except Exception:  # noqa: BLE001 - an exception whose text fails still gets its line
        message = "(its message could not be read)"
    what = type(error).__name__ + (f": {message}" if message else "")
    text = shortened(escaped_controls(bounded(what)), LONGEST_ECHO)
    _stdout_reader_gone()
    _say(f"internal error: {command or 'the command'}: {text} (a bug; set {TRACEBACK_VARIABLE}=1 "
         f"to see the traceback)")
    return INTERNAL_ERROR_EXIT


def _report_interrupt() -> int:
    stops.report_interrupt()
    _stdout_reader_gone()
    _say("interrupted")
    return 130


def _say(line: str) -> None:
    """``line`` on stderr, or nowhere when stderr cannot take it (``2>/dev/full``, a reader of
    ``2>&1 |`` that went away): the exit code still tells the outcome, where the traceback of the
    failed print would have turned it into Python's exit 1, which reads as "no solution"."""
    try:
        print(line, file=sys.stderr)
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main())
