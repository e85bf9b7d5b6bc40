"""The core install does everything the README shows, every rule family included (issue 32).

A fresh virtual environment sees ONLY the core dependencies of ``pyproject.toml`` and what they
need (found through the installed metadata, transitively), borrowed from the test environment
through a ``.pth`` file as tests/test_wheel.py does, plus this checkout. No numba, OR-Tools,
matplotlib or Dask: then the rule commands a new user runs after ``make export`` are run from
outside the checkout, and the Python API from a script.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import tomllib
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLES = PROJECT / "examples"
EXTRA_MODULES = ("numba", "ortools", "matplotlib", "dask", "tqdm")


def _requirement_name(text: str) -> str:
    return re.split(r"[\s\[<>=!~;(]", text.strip(), maxsplit=1)[0].lower().replace("_", "-")


def core_closure() -> set[str]:
    """Distribution names of the core dependencies and everything they require (no extras)."""
    core = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["dependencies"]
    todo, seen = [_requirement_name(r) for r in core], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        todo += [_requirement_name(r) for r in requires if "extra ==" not in r and "extra==" not in r]
    return seen


def _core_view(folder: Path) -> Path:
    """A folder of links to the installed files of the core closure only."""
    folder.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    wanted = core_closure()
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name not in wanted:
            continue
        for top in {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}:
            source = site / top
            if source.exists() and not (folder / top).exists() and not top.endswith(".pth"):
                (folder / top).symlink_to(source)
    return folder


@pytest.fixture(scope="module")
def core_env(tmp_path_factory):
    """``(python, env, work)``: an interpreter that sees the core closure and this checkout only."""
    tmp = tmp_path_factory.mktemp("core")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "_core_dependencies.pth").write_text(f"{_core_view(tmp / 'deps')}\n{PROJECT}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["SUDOKU_PIPELINE_CACHE"] = "none"
    work = tmp / "work"
    work.mkdir()
    return python, env, work


def _run(core_env, *args, expect=0, timeout=180):
    python, env, work = core_env
    proc = subprocess.run([str(python), "-m", "pipeline", *map(str, args)], cwd=work, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == expect, f"{args}: exit {proc.returncode}\n{proc.stdout[-1500:]}\n{proc.stderr[-1500:]}"
    return proc


def test_the_core_environment_has_no_extra(core_env):
    python, env, work = core_env
    probe = "import importlib.util, json; print(json.dumps({m: importlib.util.find_spec(m) is not None for m in %r}))"
    found = json.loads(subprocess.run([str(python), "-c", probe % (EXTRA_MODULES + ("pindakaas", "pysat"),)],
                                      cwd=work, env=env, capture_output=True, text=True, check=True).stdout)
    assert not any(found[m] for m in EXTRA_MODULES), found
    assert found["pindakaas"] and found["pysat"]   # core: every rule family's encodings


@pytest.mark.parametrize("example", ["killer.json", "thermo.json", "kropki.json", "antiknight_antiking.fpuzzles"])
def test_rule_puzzles_are_solved_counted_and_exported_in_every_format(core_env, example):
    path = EXAMPLES / example
    solved = json.loads(_run(core_env, "solve", path, "--format", "json").stdout)
    assert solved["verified"] and solved["unique"] is True
    assert verify_grid(np.array(solved["grid"]), parse_puzzle(path))
    counted = json.loads(_run(core_env, "count", path, "--limit", "2", "--format", "json").stdout)
    assert counted["count"] == 1
    out = core_env[2] / f"out-{example}"
    _run(core_env, "export", path, "--to", out, "--formats", "all", "--quiet")
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"mps", "lp", "csv", "matlab", "parquet", "cnf", "opb"} <= set(manifest["files"])


def test_highs_named_checks_uniqueness_itself(core_env):
    proc = _run(core_env, "solve", EXAMPLES / "killer.json", "--solver", "highs", "-v", "--format", "json")
    assert json.loads(proc.stdout)["unique"] is True
    assert "the uniqueness check counts to 2 with highs" in proc.stderr


def test_generate_and_explain_rule_puzzles(core_env):
    made = json.loads(_run(core_env, "generate", "--size", "4", "--cages-only", "--seed", "9", "--format", "json").stdout)
    assert made["rules"]
    # the docs' example: clues 1, 2 in row 1 and a cage of sum 3 below them (it needs 1 and 2 too)
    doc = '{"size": 4, "givens": "12..............", "rules": [{"rule": "cage", "cells": ["r2c1", "r2c2"], "sum": 3}]}'
    proc = _run(core_env, "explain", doc, expect=1)
    assert "cage" in proc.stdout + proc.stderr


def test_a_named_extra_is_exit_2_with_a_hint_for_this_install(core_env):
    proc = _run(core_env, "solve", EXAMPLES / "puzzle.txt", "--solver", "dfs", expect=2)
    line = proc.stderr.strip()
    assert "\n" not in line and "[fast]" in line and "pip install -e" in line and str(PROJECT) in line
    assert _run(core_env, "solve", EXAMPLES / "puzzle.txt").returncode == 0   # auto does without it


def test_the_python_api_from_a_script_outside_the_checkout(core_env):
    python, env, work = core_env
    script = work / "api.py"
    script.write_text(
        "import json, sys, pipeline\n"
        f"p = pipeline.read_puzzle({str(EXAMPLES / 'killer.json')!r})\n"
        "heavy = [m for m in ('scipy', 'pandas', 'pyarrow', 'highspy', 'formats') if m in sys.modules]\n"
        "r = pipeline.solve(p)\n"
        "c = pipeline.count(p, limit=5)\n"
        "m = pipeline.build(p, 'ijk', 'C', 'bounds')\n"
        "files = pipeline.export(m, 'killer.lp')\n"
        "h = pipeline.solve(m, solver='highs', unique=False)\n"
        "print(json.dumps({'heavy': heavy, 'status': r.status, 'unique': r.unique, 'solver': r.solver,\n"
        "  'grid': r.grid.tolist(), 'count': c.count, 'decoded': m.decode(h.x).tolist() == h.grid.tolist() == r.grid.tolist(),\n"
        "  'files': [f.name for f in files], 'repr': repr(p).splitlines()[0], 'result': repr(r).splitlines()[0]}))\n")
    out = json.loads(subprocess.run([str(python), str(script)], cwd=work, env=env, capture_output=True, text=True,
                                    check=True, timeout=180).stdout)
    assert out["heavy"] == [] and out["status"] == "optimal" and out["unique"] is True and out["count"] == 1
    assert out["decoded"] is True
    assert out["files"] == ["killer.lp", "killer.lp.manifest.json"] and (work / "killer.lp").is_file()
    assert out["repr"] == "<Puzzle 9x9 classic, 0 clues; 29 killer cages>"
    assert out["result"].startswith("<SolveResult optimal by ")


def _readme_rule_lines() -> list[str]:
    """The README tour's commands on rule puzzles (a JSON document, an f-puzzles file, ``--rule``)
    that need no extra (spy, report and a PNG or PDF draw need the plot extra; batch's Dask the dask one)."""
    import shlex

    lines, fence = [], False
    for line in (PROJECT / "README.md").read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("```"):
            fence = not fence
            continue
        text = line.strip()
        if not (fence and text.startswith("python -m pipeline ")):
            continue
        argv = shlex.split(text, comments=True)
        if argv[3] in ("spy", "report") or argv[3] == "draw" and not argv[-1].endswith(".svg") or "dask" in argv:
            continue
        if any(a.startswith("examples/") and a.endswith((".json", ".fpuzzles")) for a in argv) or "--rule" in argv:
            lines.append(text)
    return lines


@pytest.mark.parametrize("line", _readme_rule_lines())
def test_the_readme_tours_rule_commands_run_on_the_core_install(core_env, line):
    """What the README shows on rule puzzles runs, as written, with the core dependencies only."""
    import shlex

    python, env, work = core_env
    argv = shlex.split(line, comments=True)
    # what the README writes goes to the test's folder, not the checkout
    argv = [str(work / a) if k and argv[k - 1] == "--to" else a for k, a in enumerate(argv)]
    comment = line.split("#", 1)[1] if "#" in line else ""
    found = re.search(r"\bexits? (?:code )?(\d+)", comment)
    expect = int(found.group(1)) if found else 0
    proc = subprocess.run([str(python), *argv[1:]], cwd=PROJECT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == expect, f"{line}: exit {proc.returncode}\n{proc.stderr[-1500:]}"
