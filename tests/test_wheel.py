"""The built wheel works outside the repository (issue 19 item 1).

The wheel is built from a copy of the checkout (``pip wheel --no-deps``, build isolation as a
fresh machine has it), installed into a FRESH virtual environment, and the console command runs
a smoke set from a temporary directory outside the repository: ``--version``, solve, count,
export (every format), import (a solution file HiGHS wrote, and a grid ``solve`` printed), generate
and draw. The package must come from the wheel: ``pipeline.__file__`` (and every subpackage) must
lie inside the fresh environment, never the checkout.

To stay well under a minute the fresh environment borrows the test environment's third-party
packages (numpy, scipy, HiGHS, pyarrow, matplotlib) through a ``.pth`` file pointing at a folder
of links to them, from which this project (its editable install and its metadata) is left out;
``pip check`` then proves the wheel's declared dependencies are met by what it sees.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import numpy as np

from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.core.verify import verify_grid

PROJECT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["version"]
# what a copy of the checkout for building leaves out: environments, caches, build leftovers, outputs
NOT_SOURCES = shutil.ignore_patterns(".venv*", ".git", "*.egg-info", "build", "dist", "__pycache__", ".*_cache",
                                     ".hypothesis", "out", "results*", ".import_linter_cache")
# entries of the test environment's site-packages the fresh one must not see: this project
# (editable finder, metadata, any installed copy) and .pth hooks
OWN = ("__editable__", "sudoku_pipeline", "pipeline", "formats")
SUBPACKAGES = ["pipeline.core", "pipeline.solvers", "pipeline.batch", "pipeline.tools", "pipeline.cli",
               "pipeline.cli.commands", "formats", "formats.solutions"]


def _run(command, cwd, env, timeout=120):
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{command}: exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc.stdout


def _dependency_view(folder: Path) -> Path:
    """A folder of links to the test environment's installed packages, minus this project."""
    folder.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.name.startswith(OWN) or entry.suffix == ".pth":
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


def test_wheel_installs_into_a_fresh_venv_and_runs_outside_the_repository(tmp_path):
    assert PROJECT not in tmp_path.resolve().parents
    # -- build the wheel from a copy, so no build/ or egg-info lands in the checkout
    source = tmp_path / "source"
    shutil.copytree(PROJECT, source, ignore=NOT_SOURCES, symlinks=True)
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)], tmp_path,
         dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"), timeout=300)
    [wheel] = wheels.glob("sudoku_pipeline-*.whl")
    assert wheel.name.startswith(f"sudoku_pipeline-{VERSION}-")

    # -- a fresh environment from the base interpreter; third-party packages borrowed (see above)
    venv = tmp_path / "fresh"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, None)
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     tmp_path, None).strip())
    (site / "_borrowed_dependencies.pth").write_text(str(_dependency_view(tmp_path / "deps")) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1", PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}")
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], tmp_path, env)
    _run([str(python), "-m", "pip", "check"], tmp_path, env)   # the wheel's dependencies are all met

    # -- from a directory outside the repository: the package is the wheel's, every subpackage in it
    work = tmp_path / "work"
    work.mkdir()
    where = json.loads(_run([str(python), "-c",
                             "import importlib, json, sys; from importlib import metadata; "
                             f"mods = {SUBPACKAGES!r}; "
                             "import pipeline; "
                             "print(json.dumps({'pipeline': pipeline.__file__, 'version': pipeline.__version__, "
                             "'metadata': metadata.version('sudoku-pipeline'), "
                             "'modules': {m: importlib.import_module(m).__file__ for m in mods}}))"], work, env))
    inside = Path(site).resolve()
    for name, file in [("pipeline", where["pipeline"]), *where["modules"].items()]:
        assert inside in Path(file).resolve().parents, f"{name} imported from {file}, not the fresh venv"
    assert where["version"] == where["metadata"] == VERSION
    for package in ("pipeline", "formats"):
        assert (inside / package / "py.typed").is_file()

    cli = str(venv / "bin" / "sudoku-pipeline")
    assert _run([cli, "--version"], work, env) == f"sudoku-pipeline {VERSION}\n"
    assert _run([str(python), "-m", "pipeline", "--version"], work, env) == f"sudoku-pipeline {VERSION}\n"

    # solve: the default puzzle, verified by this checkout's own rule kernel
    solved = json.loads(_run([cli, "solve", "--format", "json"], work, env))
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    assert solved["verified"] and verify_grid(np.array(solved["grid"]), puzzle)

    # count: all 288 4x4 grids
    counted = json.loads(_run([cli, "count", "." * 16, "--limit", "1000", "--format", "json"], work, env))
    assert counted["count"] == 288 and counted["complete"]

    # export: every format, each file the manifest lists is there
    _run([cli, "export", "--to", "out", "--formats", "all", "--quiet"], work, env)
    manifest = json.loads((work / "out" / "manifest.json").read_text())
    listed = {name for names in manifest["files"].values() for name in names}
    assert {"mps", "lp", "csv", "matlab", "parquet", "cnf", "opb"} <= set(manifest["files"])
    assert all((work / "out" / name).is_file() for name in listed)

    # import: HiGHS (in the fresh venv) solves the exported MPS and writes its solution file ...
    _run([str(python), "-c", "import highspy; h = highspy.Highs(); h.silent(); h.readModel('out/model.mps'); "
                             "h.run(); h.writeSolution('out/highs.sol', 1)"], work, env)
    imported = json.loads(_run([cli, "import", "out/highs.sol", "--format", "json"], work, env))
    assert imported["verified"] and verify_grid(np.array(imported["grid"]), puzzle)
    # ... and the grid solve printed, as MATLAB's sudoku.csv
    np.savetxt(work / "out" / "sudoku.csv", np.array(solved["grid"]), fmt="%d", delimiter=",")
    again = json.loads(_run([cli, "import", "out/sudoku.csv", "--format", "json"], work, env))
    assert again["grid"] == solved["grid"]

    # generate: unique 4x4 puzzles into a file
    _run([cli, "generate", "--size", "4", "-n", "2", "--seed", "5", "--to", "p.txt"], work, env)
    lines = (work / "p.txt").read_text().split()
    assert len(lines) == 2 and all(len(line) == 16 for line in lines)

    # draw: an SVG with or without matplotlib (the core renderer), marks and shading included
    _run([cli, "draw", "--candidates", "--highlight", "r1c1", "--to", "grid.svg"], work, env)
    picture = (work / "grid.svg").read_text()
    assert picture.lstrip().startswith(("<?xml", "<svg")) and "</svg>" in picture
