"""Every ``python -m pipeline`` command of README.md's shell blocks runs as written.

Each command runs from a repository root (a temporary copy of this one, so that ``out/`` and
``results*/`` written by the tour never touch the working tree), with ``python`` = this
interpreter, and must exit 0, or the code a ``# ... exit N`` comment on its line states.
Commands that need what the README produces elsewhere get it the README's way: ``out/`` from
``make export``'s own command line, ``out/sudoku.csv`` from ``out/solve_sudoku.m`` under GNU
Octave. A command that needs an absent tool (Octave, Dask, a scheduler) is skipped with the
reason.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from oracles import PROJECT

from pipeline.solvers import SOLVERS

README = PROJECT / "README.md"
TIMEOUT = 600  # s; a hang fails the command instead of the suite
EXPORT = ["-m", "pipeline", "export", "--to", "out", "--scheme", "ijk", "--order", "F"]  # make export


def readme_commands() -> list[tuple[int, str]]:
    """``(line number, command line)`` of each ``python -m pipeline`` line in a shell block."""
    commands, fence = [], None
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else (stripped[3:].strip() or "sh")
            continue
        if fence in ("sh", "bash", "shell", "console") and stripped.startswith("python -m pipeline"):
            commands.append((number, stripped))
    return commands


def expected_exit(line: str) -> int:
    comment = line.split("#", 1)[1] if "#" in line else ""
    found = re.search(r"\bexits? (?:code )?(\d+)", comment)
    return int(found.group(1)) if found else 0


def why_not_runnable(argv: list[str]) -> str | None:
    if "--scheduler" in argv:
        return f"needs a running Dask scheduler at {argv[argv.index('--scheduler') + 1]} (a placeholder address)"
    if "dask" in argv:
        try:
            import distributed  # noqa: F401
        except ImportError:
            return "dask[distributed] is not installed (extra 'dask')"
    if "--solver" in argv:
        tool = argv[argv.index("--solver") + 1]
        if tool in ("cbc", "glpk", "octave") and not shutil.which({"glpk": "glpsol", "octave": "octave-cli"}.get(tool, tool)):
            return f"solver {tool} not installed"
    return None


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A copy of the repository (sources, examples, tests/data; no outputs, no .git)."""
    copy = tmp_path_factory.mktemp("readme") / "repo"
    shutil.copytree(PROJECT, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "out", "results*", "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache"))
    return copy


def run(root: Path, args: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def prepare(root: Path, argv: list[str]) -> None:
    """Make the files an ``import`` or ``report`` line of the tour reads, as the README makes them."""
    if argv[3:4] == ["report"]:
        # each OUT directory comes from the README's own batch line writing it (that line may run
        # in another xdist worker's copy); running it again only resumes
        for out in (a for a in argv[4:] if not a.startswith("-")):
            if argv[argv.index(out) - 1] == "--to" or (root / out / "_SUCCESS").is_file():
                continue
            maker = [shlex.split(line, comments=True) for _, line in COMMANDS if " batch " in line
                     and out.rstrip("/") in [a.rstrip("/") for a in shlex.split(line, comments=True)]]
            assert maker, f"the README has no batch line writing {out}"
            done = run(root, maker[0][1:])
            assert done.returncode == 0, done.stderr
        return
    # a file another README line writes with --to (generate's CSV feeding batch): that line may
    # have run in another xdist worker's copy, so make it here when it is missing
    for arg in argv[3:]:
        if arg.startswith("-") or (root / arg).exists():
            continue
        maker = [shlex.split(line, comments=True) for _, line in COMMANDS
                 if f"--to {arg}" in line and shlex.split(line, comments=True) != argv]
        if maker:
            done = run(root, maker[0][1:])
            assert done.returncode == 0, done.stderr
    if not any(a.startswith("out/") for a in argv):
        return
    if not (root / "out" / "manifest.json").is_file():
        done = run(root, EXPORT)
        assert done.returncode == 0, done.stderr
    if "out/sudoku.csv" in argv and not (root / "out" / "sudoku.csv").is_file():
        octave = shutil.which("octave-cli") or shutil.which("octave")
        if octave is None:
            pytest.skip("out/sudoku.csv comes from out/solve_sudoku.m: GNU Octave (or MATLAB) not installed")
        subprocess.run([octave, "--no-gui", "--quiet", "--eval", "run('out/solve_sudoku.m')"], cwd=root,
                       capture_output=True, text=True, timeout=TIMEOUT, check=False)  # Octave 7.3 exits 1 always
        assert (root / "out" / "sudoku.csv").is_file(), "solve_sudoku.m under Octave wrote no out/sudoku.csv"


COMMANDS = readme_commands()


def test_the_tour_has_the_commands_the_issue_names():
    text = " ".join(line for _, line in COMMANDS)
    for name in ("examples/puzzle.txt", "examples/clues.csv", "examples/grid16.txt", "examples/solved.txt",
                 "examples/jigsaw_regions.txt", "examples/puzzles.parquet", "examples/puzzles.csv"):
        assert name in text, f"README tour no longer uses {name}"
    for _, line in COMMANDS:
        for path in re.findall(r"\bexamples/\S+", line):
            assert (PROJECT / path).is_file(), f"README line {line!r} names {path}, which is not shipped"


@pytest.mark.parametrize("number,line", COMMANDS, ids=[f"L{n}" for n, _ in COMMANDS])
def test_readme_command(root, number, line):
    argv = shlex.split(line, comments=True)
    assert argv[:3] == ["python", "-m", "pipeline"]
    reason = why_not_runnable(argv)
    if reason:
        pytest.skip(f"README line {number}: {reason}")
    prepare(root, argv)
    done = run(root, argv[1:])
    want = expected_exit(line)
    assert done.returncode == want, (f"README line {number}: {line}\nexit {done.returncode}, expected {want}\n"
                                     f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    if want == 0:
        assert (done.stdout + done.stderr).strip(), f"README line {number} printed nothing"
        assert "Traceback" not in done.stderr


def test_solver_table_lists_exactly_the_registry():
    """The README's solver table is checked against the registry, so a new solver entry without
    a README row (or a row for a removed one) fails here."""
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    table = text.split("| name | what | reads |", 1)[1].split("\n\n", 1)[0]
    first_cells = [line.split("|")[1] for line in table.splitlines()[2:] if line.startswith("|")]
    named = {name for cell in first_cells for name in re.findall(r"`([^`]+)`", cell.split("(")[0])}
    assert named == set(SOLVERS), (sorted(named - set(SOLVERS)), sorted(set(SOLVERS) - named))
