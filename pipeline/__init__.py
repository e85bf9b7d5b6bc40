"""Sudoku-family puzzles as sparse 0-1 integer programs.

The API a notebook starts from (loaded on first use, so ``import pipeline`` stays light)::

    import pipeline
    puzzle = pipeline.read_puzzle("examples/killer.json")   # text, path, f-puzzles link, dict, JSON
    result = pipeline.solve(puzzle)                         # .grid .unique .solver .seconds
    pipeline.count(puzzle, limit=10)                        # .count .status .grids
    model = pipeline.build(puzzle, "ijk", "F", "rows")      # Aeq, beq, Aineq, bineq, lb, ub; .decode(x)
    pipeline.export(model, "out/model.mps")                 # one file, or a directory of formats

The layers behind it: ``pipeline.core`` (puzzle, rules, conventions, build, decode, verify) ->
``formats`` (model files and solvers' answers) -> ``pipeline.solvers`` (the engine registry,
``get_solver("auto")``) -> ``pipeline.tools`` / ``pipeline.batch`` -> ``pipeline.cli``
(docs/architecture.md).
"""
import os as _os
import signal as _signal
import sys as _sys


def _module_run() -> str | None:
    """The module ``python -m MODULE`` runs, from the interpreter's own command line
    (``sys.orig_argv``); None when it runs a script, ``-c`` or nothing."""
    args = list(getattr(_sys, "orig_argv", ()))[1:]
    while args:
        arg = args.pop(0)
        if arg == "-m":
            return args[0] if args else None
        if arg.startswith("-m"):
            return arg[2:]
        if arg in ("-X", "-W", "--check-hash-based-pycs"):   # options that take the next word
            args = args[1:]
        elif arg == "-c" or not arg.startswith("-") or arg == "-":
            return None
    return None


def _started_as_command() -> bool:
    """``python -m pipeline`` (or ``pipeline.cli``, ``pipeline.__main__``) or the ``sudoku-pipeline``
    script. ``sys.argv[0]`` is ``-m`` while any ``-m`` target's packages load, so a user's ``python
    -m mypkg.cli`` whose package imports this library must not count: its Ctrl-C is its own."""
    first = _sys.argv[0] if _sys.argv else ""
    if _os.path.basename(first).startswith("sudoku-pipeline"):
        return True
    if first != "-m":
        return False
    module = _module_run()
    return module is not None and (module == "pipeline" or module.startswith("pipeline."))


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
    # numpy's OpenBLAS starts a thread per core when it loads, and they spin for about 0.1 s
    # waiting for work the command never gives them (its matrix products are small): 0.31 ->
    # 0.19 s of CPU a `solve`, taken from the other core a batch worker or a second command
    # would use. A user's own setting stays; importing the library is left alone.
    _os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    for _signum in (_signal.SIGINT, getattr(_signal, "SIGTERM", None)):
        if _signum is not None and _signal.getsignal(_signum) is not _signal.SIG_IGN:
            _signal.signal(_signum, _interrupted_while_loading)
from pipeline.core.build import Model, build_model  # noqa: E402
from pipeline.core.conventions import Convention  # noqa: E402
from pipeline.core.errors import ConventionError, FormatError, PipelineError, PuzzleError, SolveError  # noqa: E402
from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, parse_puzzle  # noqa: E402
from pipeline.core import version as _version  # noqa: E402

#: The entry points of :mod:`pipeline.api`, loaded on first use (they load solvers and formats).
_API = ("read_puzzle", "solve", "count", "build", "export", "verify")
#: Subpackages an attribute reaches without their own import (``pipeline.solvers.get_solver``).
_SUBPACKAGES = ("core", "solvers", "tools", "batch")

__all__ = ["Model", "build_model", "Convention", "PipelineError", "PuzzleError", "ConventionError",
           "FormatError", "SolveError", "DEFAULT_PUZZLE", "Puzzle", "parse_puzzle", "__version__", *_API]


def __getattr__(name: str):
    """``pipeline.__version__`` and the API's entry points (:mod:`pipeline.api`), loaded on
    first use so that ``import pipeline`` imports no solver, format, scipy or pandas."""
    if name == "__version__":
        return _version.__version__
    if name in _API:
        import importlib

        return getattr(importlib.import_module("pipeline.api"), name)
    if name in _SUBPACKAGES:   # `pipeline.solvers.get_solver("auto")` after a plain `import pipeline`
        import importlib

        return importlib.import_module(f"pipeline.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The package's names with those :func:`__getattr__` provides."""
    return sorted({*globals(), "__version__", *_API, *_SUBPACKAGES})
