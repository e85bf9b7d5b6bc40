"""Helpers of the interop suite (tests/solvers/test_external.py) and of tests/solvers/interop_matrix.py.

* the seven puzzles of the suite (four unit-only ones, three with rules beyond units: a killer,
  an anti-knight/thermometer/Kropki puzzle and a samurai) and the conventions each is exported in;
* :data:`PATHS`, every way an external solver reads one of our files and writes its own
  solution file: one :class:`SolverPath` per (solver, file format[, binary or output file]),
  each tagged with its cell of the interop matrix (file format row x solver column);
* :class:`ExportCache`, one export (all formats, MPS free and fixed) per (puzzle, convention),
  made on first use and shared by every test that needs it;
* runners that start the solvers (HiGHS and SCIP in process, CBC/GLPK/Octave as subprocesses)
  and return the solution file they wrote; a solver that is not installed raises
  :class:`Unavailable` with the reason, which the tests turn into a printed ``pytest.skip``.
"""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
DATA_SETS = PROJECT.parent / "shared" / "data" / "sets"
if not DATA_SETS.is_dir():  # a clone alone: the vendored sample (same names, tests/data/README.md)
    DATA_SETS = PROJECT / "tests" / "data" / "sets"
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from pipeline.core.build import build_model  # noqa: E402
from formats.directory import export_model  # noqa: E402
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle  # noqa: E402
from pipeline.solvers.highs import new_highs  # noqa: E402

PYTHON = sys.executable
SUBPROCESS_TIMEOUT = 300      # s; a solver that hangs fails its test instead of the suite
GLPK_TMLIM = 60               # s; glpsol --tmlim (every model here takes well under a second)
OCTAVE_TIMEOUT = 600          # s; one Octave process runs every script of the suite

# ---------------------------------------------------------------------------------------------
# puzzles and conventions
# ---------------------------------------------------------------------------------------------
RULES_DIR = PROJECT / "tests" / "data" / "rules"
PUZZLE_IDS = ("default", "classic16", "jigsaw", "x", "killer9", "thermo9", "samurai")
RULE_PUZZLES = ("killer9", "thermo9", "samurai")   # puzzle documents in tests/data/rules
PUZZLE_SOURCES = {
    "default": "pipeline.core.puzzle.DEFAULT_PUZZLE (seed 000)",
    "classic16": "first line of 16x16_classic.txt",
    "jigsaw": "first 9x9 row of jigsaw.csv, with its regions",
    "x": "second line of 9x9_x.txt, variant x (the first, an 18-clue minimal X, takes CBC and GLPK 3-8 s a run)",
    "killer9": "tests/data/rules/killer9.json: killer cages with sums (= rows with coefficients 1..9, <= cage rows)",
    "thermo9": "tests/data/rules/thermo9.json: anti-knight, thermometers, Kropki dots, greater signs, even/odd",
    "samurai": "tests/data/rules/samurai.json: five 9x9 grids on a 21x21 canvas (columns: the present cells)",
}
SCHEMES = ("ijk", "block")
ORDERS = ("F", "C")
CLUES = ("rows", "bounds", "reduce")


class Unavailable(Exception):
    """A solver or a data file is missing here: the test skips with this reason."""


def _data_file(name: str) -> Path:
    path = DATA_SETS / name
    if not path.is_file():
        raise Unavailable(f"data set {path} not found (the data sets live in ../shared/data/sets or tests/data/sets)")
    return path


def _rules_file(pid: str) -> Path:
    path = RULES_DIR / f"{pid}.json"
    if not path.is_file():
        raise Unavailable(f"rule puzzle {path} not found")
    return path


def load_puzzle(pid: str):
    """The Puzzle of ``pid`` (see :data:`PUZZLE_SOURCES`); Unavailable when its data set is missing."""
    if pid == "default":
        return parse_puzzle(DEFAULT_PUZZLE)
    if pid in RULE_PUZZLES:
        return parse_puzzle(_rules_file(pid).read_text())
    if pid == "classic16":
        with open(_data_file("16x16_classic.txt"), encoding="utf-8") as f:
            return parse_puzzle(f.readline().strip())
    if pid == "jigsaw":
        with open(_data_file("jigsaw.csv"), encoding="utf-8", newline="") as f:
            row = next(r for r in csv.DictReader(f) if len(r["puzzle"]) == 81)
        return parse_puzzle(row["puzzle"], regions=row["regions"], variant="jigsaw")
    if pid == "x":
        with open(_data_file("9x9_x.txt"), encoding="utf-8") as f:
            f.readline()
            return parse_puzzle(f.readline().strip(), variant="x")
    raise ValueError(pid)


def conventions_for(pid: str) -> list[tuple[str, str, str]]:
    """(scheme, order, clues) of ``pid``: 12, or 6 for the jigsaw (no boxes, so no block scheme) and
    the samurai (a canvas of five grids has only the ijk scheme)."""
    schemes = ("ijk",) if pid in ("jigsaw", "samurai") else SCHEMES
    return [(s, o, c) for s in schemes for o in ORDERS for c in CLUES]


def case_id(pid: str, conv: tuple[str, str, str]) -> str:
    return f"{pid}-{conv[0]}-{conv[1]}-{conv[2]}"


ALL_CASES = [(pid, conv) for pid in PUZZLE_IDS for conv in conventions_for(pid)]


# ---------------------------------------------------------------------------------------------
# the interop matrix: rows = file formats, columns = solvers
# ---------------------------------------------------------------------------------------------
FORMAT_ROWS = ("MPS free", "MPS fixed", "LP", ".mat", "CSV")
SOLVER_COLS = ("HiGHS", "SCIP", "CBC", "GLPK", "Octave")
FILE_OF = {"MPS free": "model.mps", "MPS fixed": "model_fixed.mps", "LP": "model.lp",
           ".mat": "model.mat", "CSV": "Aeq_ijv.csv"}


@dataclass(frozen=True)
class SolverPath:
    """One way a solver reads one of our files and writes its own solution file."""

    solver: str        # matrix column (SOLVER_COLS)
    fmt: str           # matrix row (FORMAT_ROWS)
    flavour: str = ""  # CBC: debian|pulp; GLPK: raw (-w) | report (-o)

    @property
    def id(self) -> str:
        parts = [self.solver.lower(), {"MPS free": "mps_free", "MPS fixed": "mps_fixed", "LP": "lp",
                                      ".mat": "mat", "CSV": "csv"}[self.fmt]]
        return "-".join(parts + ([self.flavour] if self.flavour else []))

    @property
    def out_name(self) -> str:
        """The solution file this path leaves in the export directory."""
        ext = {"HiGHS": "sol", "SCIP": "sol", "CBC": "txt", "GLPK": "txt", "Octave": "csv"}[self.solver]
        return f"out_{self.id}.{ext}"


_TEXT = ("MPS free", "MPS fixed", "LP")
PATHS = (
    [SolverPath("HiGHS", f) for f in _TEXT]
    + [SolverPath("SCIP", f) for f in _TEXT]
    + [SolverPath("CBC", f, b) for f in _TEXT for b in ("debian", "pulp")]
    + [SolverPath("GLPK", f, o) for f in _TEXT for o in ("raw", "report")]
    + [SolverPath("Octave", f) for f in (".mat", "CSV")]
)
CELLS = {(p.fmt, p.solver) for p in PATHS}


# ---------------------------------------------------------------------------------------------
# exports
# ---------------------------------------------------------------------------------------------
class ExportCache:
    """One export directory per (puzzle, convention), all formats, ``mps_style='both'``."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._puzzles: dict[str, object] = {}
        self._dirs: dict[tuple, Path] = {}

    def puzzle(self, pid: str):
        if pid not in self._puzzles:
            try:
                self._puzzles[pid] = load_puzzle(pid)
            except Unavailable as e:
                self._puzzles[pid] = e
        got = self._puzzles[pid]
        if isinstance(got, Unavailable):
            raise got
        return got

    def get(self, pid: str, conv: tuple[str, str, str]) -> Path:
        key = (pid, conv)
        if key not in self._dirs:
            model = build_model(self.puzzle(pid), *conv)
            d = self.root / case_id(pid, conv)
            export_model(model, d, "all", mps_style="both", dense="auto")
            self._dirs[key] = d
        return self._dirs[key]


# ---------------------------------------------------------------------------------------------
# solvers
# ---------------------------------------------------------------------------------------------
def registry_solver_or_skip(name: str):
    """The registry's engine ``name``, or a skip printing why it is not usable here."""
    from pipeline.solvers import SOLVERS

    reason = SOLVERS[name].available()
    if reason:
        print(f"SKIP {name}: {reason}")
        pytest.skip(f"{name}: {reason}")
    return SOLVERS[name]


def pulp_cbc() -> str | None:
    """The CBC binary bundled with PuLP, or None."""
    try:
        import pulp

        with warnings.catch_warnings():  # PULP_CBC_CMD is deprecated; its bundled binary is what we want
            warnings.simplefilter("ignore")
            cmd = pulp.PULP_CBC_CMD(msg=False)
        return cmd.path if cmd.available() else None
    except Exception:  # pulp absent or its binary unusable
        return None


def octave_binary() -> str | None:
    return shutil.which("octave-cli") or shutil.which("octave")


def availability(path: SolverPath) -> str | None:
    """None when ``path`` can run here, else why not."""
    if path.solver == "HiGHS":
        try:
            import highspy  # noqa: F401
        except ImportError:
            return "highspy is not installed (pip install highspy)"
        return None
    if path.solver == "SCIP":
        try:
            import pyscipopt  # noqa: F401
        except ImportError:
            return "pyscipopt is not installed (pip install '.[test]')"
        return None
    if path.solver == "CBC":
        if path.flavour == "debian":
            return None if shutil.which("cbc") else "no cbc on PATH (apt-get install coinor-cbc)"
        return None if pulp_cbc() else "PuLP's bundled cbc is not available (pip install pulp)"
    if path.solver == "GLPK":
        return None if shutil.which("glpsol") else "glpsol not found (apt-get install glpk-utils)"
    if path.solver == "Octave":
        return None if octave_binary() else "octave not found (apt-get install octave)"
    return f"unknown solver {path.solver}"


class SolverFailed(AssertionError):
    """The solver ran but wrote no usable solution file (message: the tail of its log)."""


def run(cmd: list, cwd: Path, timeout: float = SUBPROCESS_TIMEOUT, env: dict | None = None) -> str:
    """Run ``cmd`` in ``cwd``; its log, or SolverFailed naming the exit code and last lines."""
    try:
        done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              env=env)
    except subprocess.TimeoutExpired:
        raise SolverFailed(f"{Path(str(cmd[0])).name}: no answer within {timeout} s") from None
    log = done.stdout + done.stderr
    if done.returncode != 0:
        tail = " | ".join(line.strip() for line in log.strip().splitlines()[-4:])
        raise SolverFailed(f"{Path(str(cmd[0])).name} exited with {done.returncode}: {tail}")
    return log


def highs_read_and_solve(file: Path):
    """A Highs that read ``file`` with its own reader and solved it (SolverFailed otherwise)."""
    import highspy

    h = new_highs()
    h.setOptionValue("threads", 1)
    status = h.readModel(str(file))
    if status == highspy.HighsStatus.kError:
        raise SolverFailed(f"Highs.readModel({file.name}) returned kError")
    h.run()
    model_status = h.getModelStatus()
    if model_status != highspy.HighsModelStatus.kOptimal:
        raise SolverFailed(f"HiGHS: model status {h.modelStatusToString(model_status)}")
    return h


def _solve_highs(path: SolverPath, d: Path) -> Path:
    h = highs_read_and_solve(d / FILE_OF[path.fmt])
    out = d / path.out_name
    h.writeSolution(str(out), 0)  # kSolutionStyleRaw: "# Columns N" then "name value" lines
    return out


def _solve_scip(path: SolverPath, d: Path) -> Path:
    from pyscipopt import Model

    m = Model()
    m.hideOutput()
    m.setParam("limits/time", 120.0)
    m.readProblem(str(d / FILE_OF[path.fmt]))
    m.optimize()
    if m.getNSols() == 0:
        raise SolverFailed(f"SCIP: status {m.getStatus()}, no solution")
    out = d / path.out_name
    m.writeBestSol(str(out))
    return out


def _solve_cbc(path: SolverPath, d: Path) -> Path:
    binary = shutil.which("cbc") if path.flavour == "debian" else pulp_cbc()
    out = d / path.out_name
    run([binary, FILE_OF[path.fmt], "-sec", "120", "-solve", "-solu", out.name], d)
    if not out.exists():
        raise SolverFailed(f"cbc wrote no {out.name}")
    return out


_GLPK_FLAG = {"MPS free": "--freemps", "MPS fixed": "--mps", "LP": "--lp"}


def _solve_glpk(path: SolverPath, d: Path) -> Path:
    """One glpsol run writes both files (``-w`` raw and ``-o`` report); the other flavour reuses it."""
    stem = f"out_glpk-{path.id.split('-')[1]}"
    raw, report = d / f"{stem}-raw.txt", d / f"{stem}-report.txt"
    if not (raw.exists() and report.exists()):
        run(["glpsol", _GLPK_FLAG[path.fmt], FILE_OF[path.fmt], "--tmlim", str(GLPK_TMLIM),
             "-w", raw.name, "-o", report.name], d)
    out = raw if path.flavour == "raw" else report
    if not out.exists():
        raise SolverFailed(f"glpsol wrote no {out.name}")
    return out


def _octave_quote(s) -> str:
    return "'" + str(s).replace("'", "''") + "'"


def octave_driver(jobs: list[tuple[Path, str, Path, Path]]) -> str:
    """An Octave script running each job ``(dir, route, out, err)``: ``run(dir/solve_sudoku.m)`` with
    ``sudoku_use_csv`` set for the CSV route; an error is written to ``err`` and the batch goes on.
    ``clear`` between runs so that no variable of one script leaks into the next."""
    lines = ["1;"]
    for d, route, out, err in jobs:
        lines += [
            "clear;",
            f"sudoku_dir = {_octave_quote(d)}; sudoku_out = {_octave_quote(out)};",
            f"sudoku_use_csv = {'true' if route == 'CSV' else 'false'};",
            f"try, run({_octave_quote(d / 'solve_sudoku.m')});",
            f"catch e, fid = fopen({_octave_quote(err)}, 'w'); fprintf(fid, '%s\\n', e.message); fclose(fid);",
            "end",
        ]
    return "\n".join(lines) + "\n"


def run_octave_batch(jobs: list[tuple[Path, str, Path, Path]], workdir: Path) -> str:
    """One Octave process for every job (startup is ~0.3-1 s; the suite has ~80 scripts)."""
    exe = octave_binary()
    driver = Path(workdir) / "octave_driver.m"
    driver.write_text(octave_driver(jobs))
    cmd = [exe, "--quiet", "--no-window-system", "--norc"]
    if Path(exe).name != "octave-cli":
        cmd.insert(1, "--no-gui")
    return run(cmd + [driver], workdir, timeout=OCTAVE_TIMEOUT)


RUNNERS = {"HiGHS": _solve_highs, "SCIP": _solve_scip, "CBC": _solve_cbc, "GLPK": _solve_glpk}


def cli(*args, cwd: Path | None = None, timeout: float = SUBPROCESS_TIMEOUT) -> subprocess.CompletedProcess:
    """``python -m pipeline ARGS`` in a subprocess with the project importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PROJECT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([PYTHON, "-m", "pipeline", *map(str, args)], cwd=cwd or PROJECT, capture_output=True,
                          text=True, timeout=timeout, env=env)
