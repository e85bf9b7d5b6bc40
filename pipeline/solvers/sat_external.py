"""External SAT and pseudo-Boolean solvers run on the exported CNF/OPB file.

Entries: ``minisat``, ``picosat``, ``cadical``, ``cryptominisat``, ``clasp`` (CNF or OPB),
``minisat+`` (OPB) and ``sat4j`` (CNF, or OPB through sat4j's PB jar). Each writes the model
(:mod:`formats.cnf` / :mod:`formats.opb`) into ``workdir``, runs the binary with the time limit
passed as the solver's own option where it has one AND as the subprocess timeout (a second of
grace), keeps the solver's answer as a file, and reads it back through
:func:`formats.solutions.read_solution` (detected by content: SAT/PB-competition output or
minisat's result file). ``UNSATISFIABLE`` gives status ``infeasible``; ``UNKNOWN`` or the
subprocess timeout gives ``time_limit``.
"""
from __future__ import annotations

import math
import signal
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pipeline.core.build import Model
from pipeline.core.decode import grid_from_vector
from pipeline.core.clauses import DEFAULT_AMO
from pipeline.core.errors import FormatError, NoSolutionReported, SolveError

from pipeline.solvers.base import Solver, SolveResult, register_solver
from pipeline.solvers.workdir import binary_time_limit, run_binary, work_directory

SAT4J_JARS = {"cnf": Path("/usr/share/java/org.ow2.sat4j.core.jar"),
              "opb": Path("/usr/share/java/org.ow2.sat4j.pb.jar")}
_GRACE = 1.0  # seconds the subprocess timeout allows beyond the solver's own limit
_STATUSES = {"SATISFIABLE": "optimal", "OPTIMUM FOUND": "optimal", "SAT": "optimal",
             "UNSATISFIABLE": "infeasible", "UNSAT": "infeasible",
             "UNKNOWN": "time_limit", "INDETERMINATE": "time_limit", "INDET": "time_limit"}


@dataclass(frozen=True)
class Runner:
    """How to run one binary: ``command(model_path, answer_path, seconds or None) -> argv``;
    ``answer_in_file`` when the solver writes the answer file itself (else stdout is kept)."""

    name: str
    binary: str
    reads: tuple[str, ...]
    command: Callable[[Path, Path, int | None, str], list[str]]
    answer_in_file: bool = False
    package: str = ""


def _limit(flag: str, seconds: int | None, sep: str = "=") -> list[str]:
    if seconds is None:
        return []
    return [f"{flag}{sep}{seconds}"] if sep else [flag, str(seconds)]


def _sat4j_command(model: Path, answer: Path, seconds: int | None, fmt: str) -> list[str]:
    """sat4j's core jar takes only the file (the subprocess timeout is its limit); the PB jar
    takes ``[solvername [timeout]] file``."""
    if fmt == "cnf":
        return ["java", "-jar", str(SAT4J_JARS[fmt]), str(model)]
    return ["java", "-jar", str(SAT4J_JARS[fmt]), *(["Default", str(seconds)] if seconds else []), str(model)]


RUNNERS = {r.name: r for r in (
    Runner("minisat", "minisat", ("cnf",),
           lambda m, a, s, f: ["minisat", "-verb=0", *_limit("-cpu-lim", s), str(m), str(a)],
           answer_in_file=True, package="minisat"),
    Runner("picosat", "picosat", ("cnf",), lambda m, a, s, f: ["picosat", str(m)], package="picosat"),
    Runner("cadical", "cadical", ("cnf",), lambda m, a, s, f: ["cadical", "-q", *_limit("-t", s, ""), str(m)],
           package="cadical"),
    Runner("cryptominisat", "cryptominisat5", ("cnf",),
           lambda m, a, s, f: ["cryptominisat5", "--verb", "0", *_limit("--maxtime", s, ""), str(m)],
           package="cryptominisat"),
    Runner("clasp", "clasp", ("cnf", "opb"), lambda m, a, s, f: ["clasp", *_limit("--time-limit", s), str(m)],
           package="clasp"),
    Runner("minisat+", "minisat+", ("opb",), lambda m, a, s, f: ["minisat+", str(m)], package="minisat+"),
    Runner("sat4j", "java", ("cnf", "opb"), _sat4j_command, package="sat4j"),
)}


def _available(runner: Runner) -> Callable[[], str | None]:
    def check() -> str | None:
        if shutil.which(runner.binary) is None:
            return f"{runner.binary} not found on PATH (apt-get install {runner.package})"
        if runner.name == "sat4j" and not all(p.exists() for p in SAT4J_JARS.values()):
            return "sat4j jars not found in /usr/share/java (apt-get install sat4j)"
        return None
    return check


def run_file(runner: Runner, model: Model, workdir: Path, *, time_limit: float | None = None,
             file_format: str | None = None, amo: str | None = DEFAULT_AMO,
             manifest: bool = False) -> tuple[Path, Path, float, bool, subprocess.CompletedProcess | None]:
    """Write the model file, run the solver, keep its answer: ``(answer path, model file, seconds,
    timed out, the finished process or None)``.

    Parameters
    ----------
    runner : Runner
        The binary and how to call it.
    model : Model
        The model to write.
    workdir : Path
        Where the model file and the answer go.
    time_limit : float, optional
        Seconds (rounded up for the binary).
    file_format : {'cnf', 'opb'}, optional
        Which file (default: the first the runner reads; OPB for a model with an objective
        when the runner reads it).
    amo : str
        At-most-one encoding of a CNF file.
    manifest : bool
        Also write the file's manifest beside it (``model.cnf.manifest.json``): a kept ``--workdir``
        whose answer ``import`` reads.
    """
    # the writers load when an external solver runs, not with the registry: a process that
    # solves in memory starts without the formats package (issue 18)
    from formats import cnf, export_file, opb

    # a model with an objective goes as OPB where the runner reads it: a CNF file cannot hold one
    fmt = file_format or ("opb" if model.has_objective and "opb" in runner.reads else runner.reads[0])
    if fmt not in runner.reads:
        raise SolveError(f"solver {runner.name}: reads {', '.join(runner.reads)}, not {fmt}")
    workdir.mkdir(parents=True, exist_ok=True)
    model_path = workdir / f"model.{fmt}"
    if manifest:
        export_file(model, model_path, fmt, **({"amo": amo} if fmt == "cnf" else {}))
    elif fmt == "cnf":
        cnf.write(model, model_path, amo=amo)
    else:
        opb.write(model, model_path)
    answer = workdir / f"{runner.name.replace('+', 'plus')}.{fmt}.sol"
    seconds = None if time_limit is None else max(1, math.ceil(time_limit))
    # the binary runs with cwd=workdir, so a relative --workdir ('wd/model.cnf') would be looked
    # up as wd/wd/model.cnf: it is given absolute paths; messages keep the user's own form
    argv = runner.command(model_path.absolute(), answer.absolute(), seconds, fmt)
    start = time.perf_counter()
    timed_out, done = False, None
    try:
        with open(_printed_to(runner, answer), "wb") as out:
            done = run_binary(argv, stdout=out, cwd=workdir, timeout=None if time_limit is None else time_limit + _GRACE)
    except subprocess.TimeoutExpired:
        timed_out = True
    except OSError as e:
        raise SolveError(f"solver {runner.name}: cannot run {argv[0]}: {e.strerror or e}") from None
    return answer, model_path, time.perf_counter() - start, timed_out, done


def _size(path: Path) -> int:
    """``path``'s size in bytes (0 when it cannot be read)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _printed_to(runner: Runner, answer: Path) -> Path:
    """Where the binary's standard output goes: its answer, or a log beside the answer file it
    writes itself (minisat)."""
    return answer.with_name(f"{answer.name}.log") if runner.answer_in_file else answer


def _crash_said(runner: Runner, done, stdout: Path) -> str:
    """What a binary that ended without a readable answer said: its exit code (a signal by name)
    and its first two lines on stderr, else on ``stdout`` (the file its standard output went to: a
    JVM that cannot start says why there); "" when it ended normally."""
    if done is None or done.returncode in (0, 10, 20):   # the SAT competition's codes
        return ""
    code = done.returncode
    how = f"was killed by {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() \
        else f"exited with code {code}"
    try:
        with open(stdout, "rb") as out:
            printed = out.read(4096)
    except OSError:
        printed = b""
    said = next(([line.strip() for line in lines if line.strip()][:2] for lines in
                 (text.decode("utf-8", "replace").splitlines() for text in (done.stderr or b"", printed))
                 if any(line.strip() for line in lines)), [])
    first = ": ".join(said)   # two lines: "Error occurred during initialization of VM: Could not allocate ..."
    return f"solver {runner.name}: {how} without an answer" + (f" ({first[:160]})" if first else "")


def _solve_with(runner: Runner):
    def solve(model: Model, *, time_limit: float | None = None, workdir=None, file_format: str | None = None,
              amo: str | None = DEFAULT_AMO) -> SolveResult:
        """Run the external solver on ``model``'s CNF/OPB export (``file_format``) in ``workdir``
        (kept: itself when new or empty, else a fresh subdirectory; the result's ``workdir``)."""
        from formats.solutions import read_solution  # with the writers: see run_file

        with work_directory(workdir, runner.name) as (work, kept):
            answer, model_path, seconds, timed_out, done = run_file(runner, model, work, time_limit=time_limit,
                                                                    file_format=file_format, amo=amo, manifest=kept)
            kept_in = work if kept else None
            if timed_out:
                return SolveResult("time_limit", None, None, seconds, 0, solver=runner.name,
                                   message="subprocess timeout", workdir=kept_in)
            try:
                # an answer names every variable of the file, the encoding's auxiliary ones too
                sol = read_solution(answer, model, size_limit=2 * _size(model_path))
            except NoSolutionReported as e:
                return SolveResult(e.status, None, None, seconds, 0, solver=runner.name, message=str(e),
                                   workdir=kept_in)
            except FormatError:   # no file, or not an answer: a crash says so by its exit code
                crash = _crash_said(runner, done, _printed_to(runner, answer))
                if crash:
                    raise SolveError(crash) from None
                if done is not None and _size(answer) == 0:   # a normal exit, no answer: say which binary
                    raise SolveError(f"solver {runner.name}: exited with code {done.returncode} without "
                                     f"writing an answer ({answer.name} {'is empty' if answer.exists() else 'missing'})"
                                     ) from None
                raise
            # over the model's columns: its auxiliary columns (the extra cells' digits) come back too
            x = sol.over(model.columns)
            grid = grid_from_vector(sol.values, model.convention, where=str(answer))
            objective = None if x is None else model.objective_value(x)
            return SolveResult("optimal", x, objective, seconds, 0, grid=grid, solver=runner.name,
                               message=f"answer: {answer}" if kept else "", workdir=kept_in)
    solve.__name__ = f"solve_{runner.name.replace('+', 'plus')}"
    return solve


for _runner in RUNNERS.values():
    register_solver(Solver(
        name=_runner.name, description=f"{_runner.name} on the exported {'/'.join(_runner.reads).upper()} file",
        solve=_solve_with(_runner), available=_available(_runner), reads=_runner.reads,
        solution_format="minisat" if _runner.answer_in_file else "sat_competition",
        install_hint=f"apt-get install {_runner.package}", statuses=_STATUSES,
        bounds={"time_limit": binary_time_limit()},
        # the CNF encodes rule rows with pysat.card / pysat.pb, the OPB holds them as they are,
        # and the objective (``min:``), which the PB solvers minimise
        rule_rows=True, optimises="opb" in _runner.reads))
