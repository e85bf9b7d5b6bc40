"""Sudoku-family puzzles as sparse 0-1 integer programs.

Stages, one module each: ``puzzle`` (parse, validate) -> ``build`` (A, B, solver view in a
``conventions`` index scheme) -> ``export`` (formats registry) / ``solve`` (HiGHS) ->
``importer`` + ``decode`` (file -> vector -> grid) -> ``verify``.
"""
import os as _os
import signal as _signal
import sys as _sys


def _started_as_command() -> bool:
    """``python -m pipeline`` (``sys.argv[0]`` is ``-m`` while the package loads) or the
    ``sudoku-pipeline`` script."""
    first = _sys.argv[0] if _sys.argv else ""
    return first == "-m" or _os.path.basename(first).startswith("sudoku-pipeline")


def _interrupted_while_loading(signum, frame) -> None:
    """Ctrl-C or SIGTERM while the command line's modules load: end at once, as a later one ends
    the command (`interrupted`, exit 130). Nothing has been written or opened yet. Raising
    KeyboardInterrupt here instead is not safe: an extension module's initialisation turns it
    into "ImportError: initialization failed" (highspy), and a bare ``except:`` in a third-party
    import would swallow it and leave the command running."""
    try:
        _os.write(2, b"interrupted\n")
    except OSError:
        pass
    _os._exit(130)


# The command line's modules take a second or more to load on a busy machine (numpy, scipy,
# highspy). pipeline.core.stops takes over once main() runs; importing the library is left alone,
# and a signal ignored from the start (nohup, a worker started with it ignored) stays ignored.
_COMMAND = _started_as_command()
if _COMMAND:
    for _signum in (_signal.SIGINT, getattr(_signal, "SIGTERM", None)):
        if _signum is not None and _signal.getsignal(_signum) is not _signal.SIG_IGN:
            _signal.signal(_signum, _interrupted_while_loading)
from pipeline.core.build import Model, build_model  # noqa: E402
from pipeline.core.conventions import Convention  # noqa: E402
from pipeline.core.errors import ConventionError, FormatError, PipelineError, PuzzleError, SolveError  # noqa: E402
from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, parse_puzzle  # noqa: E402
from pipeline.core import version as _version  # noqa: E402

__all__ = ["Model", "build_model", "Convention", "PipelineError", "PuzzleError", "ConventionError",
           "FormatError", "SolveError", "DEFAULT_PUZZLE", "Puzzle", "parse_puzzle", "__version__"]


def __getattr__(name: str) -> str:
    """``pipeline.__version__``, read on first use (:mod:`pipeline.core.version`)."""
    if name == "__version__":
        return _version.__version__
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The package's names with ``__version__`` (provided by :func:`__getattr__`)."""
    return sorted({*globals(), "__version__"})
