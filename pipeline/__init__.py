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


# The command line's modules take a second or more to load on a busy machine (numpy, scipy).
# A Ctrl-C or SIGTERM in that time ends the command as one later would: `interrupted`, exit 130
# (pipeline.core.stops takes over once main() runs); importing the library is left alone.
_COMMAND = _started_as_command()
if _COMMAND and _signal.getsignal(_signal.SIGTERM) is _signal.SIG_DFL:
    _signal.signal(_signal.SIGTERM, _signal.default_int_handler)
try:
    from pipeline.core.build import Model, build_model
    from pipeline.core.conventions import Convention
    from pipeline.core.errors import ConventionError, FormatError, PipelineError, PuzzleError, SolveError
    from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, parse_puzzle
    from pipeline.core.version import __version__
except KeyboardInterrupt:
    if not _COMMAND:
        raise
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
    try:
        _os.write(2, b"interrupted\n")
    except OSError:
        pass
    _os._exit(130)

__all__ = ["Model", "build_model", "Convention", "PipelineError", "PuzzleError", "ConventionError",
           "FormatError", "SolveError", "DEFAULT_PUZZLE", "Puzzle", "parse_puzzle", "__version__"]
