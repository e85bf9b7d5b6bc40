"""``--solver auto`` (pipeline/solvers/auto.py): what it picks for each question agrees with the
table of docs/solvers.md, the pick is visible (JSON ``solver``, ``--verbose``), a model with rules goes only
to an engine that handles them, and without python-sat it falls back to HiGHS with one note."""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_pages import section

import pipeline
import pipeline.batch  # noqa: F401  (attaches the batch kernels: the batch row reads them)
from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.errors import SolveError
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import SOLVERS
from pipeline.solvers.auto import AUTO_TABLE, QUESTIONS, can_answer, pick_solver

ROOT = Path(__file__).resolve().parents[2]
PUZZLE = "...2.5....9....73...2..9.6.2.....4.9....7....6.9.....1.8.4..1...63....8....6.8..."
KILLER = str(ROOT / "examples" / "killer.json")


def readme_cells() -> dict[str, str]:
    """The table under "What `--solver auto` picks" (docs/solvers.md): question -> its engines cell."""
    rows = {}
    for line in section("What `--solver auto` picks").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`") and cells[0].strip("`") in QUESTIONS:
            rows[cells[0].strip("`")] = cells[2]
    return rows


def readme_table() -> dict[str, list[str]]:
    """The table under "What `--solver auto` picks": question -> engines in order."""
    return {question: re.findall(r"`([a-z]+)`", cell) for question, cell in readme_cells().items()}


def test_the_readme_table_is_the_preference_table():
    table, cells = readme_table(), readme_cells()
    assert set(table) == set(QUESTIONS), "one table row per question"
    for row in AUTO_TABLE:
        assert table[row.question] == list(row.engines), row.question
        bounds = re.findall(r"`([a-z]+)` \(grids up to (\d+)x\2\)", cells[row.question])
        assert sorted((name, int(side)) for name, side in bounds) == sorted(row.up_to), row.question


def test_a_size_bound_passes_larger_grids_to_the_next_engine():
    dfs = SOLVERS["dfs"]
    if dfs.available() is not None:
        pytest.skip(f"dfs is not available here: {dfs.available()}")
    small, large = build_model(parse_puzzle(PUZZLE)), build_model(parse_puzzle("." * 625))
    assert pick_solver("count", small).name == "dfs"
    pick = pick_solver("count", large)
    assert pick.name == "sat" and "dfs is picked up to 16x16 (slower beyond)" in pick.reason and not pick.note
    assert pick_solver("count", build_model(parse_puzzle("." * 256))).name == "dfs"


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_auto_picks_the_first_engine_of_the_readme_row_that_can_answer(question):
    engines = readme_table()[question]
    want = next(name for name in engines   # without a model: not an engine that needs one (pattern, dfsrules)
                if can_answer(SOLVERS[name], question) and SOLVERS[name].available() is None
                and not SOLVERS[name].needs_model)
    pick = pick_solver(question)
    assert pick.name == want and pick.question == question
    assert QUESTIONS[question] in pick.reason and not pick.note


def test_auto_never_picks_an_engine_that_would_refuse_the_model():
    model = build_model(parse_puzzle(KILLER))
    assert model.has_rules
    for question in ("solve", "unique", "count"):
        pick = pick_solver(question, model)
        assert pick.solver.rule_rows, (question, pick.name)
        refused = [name for name in readme_table()[question] if not SOLVERS[name].rule_rows]
        for name in refused:
            assert f"{name} does not handle" in pick.reason


def test_auto_says_when_no_engine_of_a_tool_can_answer():
    with pytest.raises(SolveError, match="solver auto: no engine of cpsat can answer optimisation"):
        pick_solver("optimise", among=("cpsat",))
    with pytest.raises(SolveError, match="unknown question 'fastest'"):
        pick_solver("fastest")


def test_solve_json_names_the_engine_used_and_verbose_says_why(capsys):
    assert main(["solve", PUZZLE, "--format", "json", "--verbose"]) == 0
    out, err = capsys.readouterr()
    used = pick_solver("unique", build_model(parse_puzzle(PUZZLE))).name
    assert json.loads(out)["solver"] == used != "auto"
    lines = [s for s in err.splitlines() if s.startswith("solver: auto picked")]
    assert lines[0].startswith(f"solver: auto picked {used} (uniqueness proof, 9x9; ")
    assert main(["solve", PUZZLE, "--format", "json", "--solver", "highs"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["solver"] == "highs" and "auto picked" not in err


def test_auto_passes_by_a_kernel_that_would_compile_on_every_run_with_one_note(tmp_path, monkeypatch):
    """A compiled engine whose kernel is not cached, where the cache cannot keep it, would pay its
    compile (5-20 s) on every run: auto takes the next engine and says why; where the cache can keep
    it, for a batch (one compile for all its records), or where no other engine may answer, the
    compiled one is still taken."""
    if SOLVERS["dfsrules"].available() is not None or SOLVERS["sat"].available() is not None:
        pytest.skip("needs dfsrules (numba) and sat (python-sat)")
    from pipeline.solvers import dfs_native, dfsrules_native

    model = build_model(pipeline.read_puzzle(KILLER))
    monkeypatch.setattr(dfsrules_native, "_LOADED", None)
    monkeypatch.setattr(dfs_native, "_LOADED", None)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for cache, why in (("none", "SUDOKU_PIPELINE_CACHE=none keeps no compiled kernel"),
                       (str(blocker / "cache"), f"the cache {blocker / 'cache'} cannot be written")):
        monkeypatch.setenv(dfs_native.CACHE_ENV, cache)
        pick = pick_solver("unique", model)
        assert pick.name == "sat", pick
        assert pick.note.startswith("solver auto: dfsrules compiles its kernel on every run here (seconds a run): "
                                    + why)
        assert pick_solver("count", build_model(parse_puzzle(PUZZLE))).name == "sat"   # dfs alike
        assert pick_solver("batch", build_model(parse_puzzle(PUZZLE))).name == "dfs"   # compiled once a batch
        assert pick_solver("unique", model, among=("dfsrules", "highs")).name == "highs"
        only = pick_solver("unique", model, among=("dfsrules",))
        assert only.name == "dfsrules" and not only.note   # nothing else may answer: compiled anyway
    monkeypatch.setenv(dfs_native.CACHE_ENV, str(tmp_path / "a" / "new" / "cache"))   # made on the first write
    assert pick_solver("unique", model).name == "dfsrules"
    assert pick_solver("count", build_model(parse_puzzle(PUZZLE))).name == "dfs"


def test_a_compile_is_said_on_stderr_with_verbose_only_within_the_command(capsys, monkeypatch):
    from pipeline.cli.args import explain_compiles
    from pipeline.solvers import dfs_native

    assert dfs_native.on_compile is None
    with explain_compiles(argparse.Namespace(verbose=True)):
        dfs_native.on_compile("compiling the dfs search kernel for this machine")
    assert dfs_native.on_compile is None
    assert capsys.readouterr().err == "note: compiling the dfs search kernel for this machine\n"
    with explain_compiles(argparse.Namespace(verbose=False)):   # stderr is not a terminal here
        assert dfs_native.on_compile is None
    monkeypatch.setattr(sys, "stderr", None)   # an API caller's closed stderr: quiet, no error
    with explain_compiles(argparse.Namespace(verbose=False)):
        assert dfs_native.on_compile is None


def test_a_killer_is_solved_by_an_engine_with_rule_rows(capsys):
    assert main(["solve", KILLER, "--format", "json", "--verbose"]) == 0
    out, err = capsys.readouterr()
    assert SOLVERS[json.loads(out)["solver"]].rule_rows
    assert json.loads(out)["verified"] is True


def test_verbose_says_when_auto_handed_the_search_on(capsys, monkeypatch):
    """A first engine that runs out of its budget (a stand-in for dfsrules on a hard killer): the
    JSON names the engine that answered, and --verbose says the first one gave up."""
    import dataclasses

    from pipeline.solvers.base import CountResult, SolveResult

    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")

    def stuck(model, *, time_limit=None, check_unique=False):
        return SolveResult("time_limit", None, None, time_limit or 0.0, 0, solver="dfsrules")

    def stuck_solve_or_give_up(model, *, time_limit=None, check_unique=False, give_up=None):
        assert give_up is not None and give_up(0, 0.25)   # past the killer's budget, nothing found
        return SolveResult("time_limit", None, None, 0.25, 0, solver="dfsrules")

    def stuck_count(model, limit=2, *, time_limit=None, keep=None):
        return CountResult(0, [], "time_limit", time_limit or 0.0)

    def stuck_count_or_give_up(model, limit=2, *, time_limit=None, keep=None, give_up=None):
        assert give_up is not None and give_up(0, 0.25)   # past the killer's budget, nothing found
        return CountResult(0, [], "time_limit", 0.25)

    monkeypatch.setitem(SOLVERS, "dfsrules", dataclasses.replace(SOLVERS["dfsrules"], solve=stuck, count=stuck_count,
                                                                 count_or_give_up=stuck_count_or_give_up,
                                                                 solve_or_give_up=stuck_solve_or_give_up))
    assert main(["solve", KILLER, "--format", "json", "--verbose"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["solver"] == "sat" and json.loads(out)["verified"] is True
    assert "solver: auto picked dfsrules (" in err
    assert re.search(r"^solver: dfsrules gave up after 0\.25 s; sat answered", err, re.M), err
    assert main(["solve", KILLER, "--format", "json"]) == 0
    assert "gave up" not in capsys.readouterr().err   # said with --verbose only
    assert main(["count", KILLER, "--format", "json", "--verbose"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["solver"] == "sat" and json.loads(out)["count"] == 1
    assert re.search(r"^solver: dfsrules gave up after 0\.25 s; sat counted", err, re.M), err


def test_count_and_batch_default_to_auto(capsys, tmp_path):
    assert main(["count", "." * 16, "--limit", "1000", "--verbose", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["count"] == 288
    assert f"solver: auto picked {pick_solver('count').name} (counting, 4x4; " in err
    src = tmp_path / "in.txt"
    src.write_text(PUZZLE + "\n")
    assert main(["batch", str(src), str(tmp_path / "out"), "--workers", "1", "--progress", "none", "-v"]) == 0
    err = capsys.readouterr().err
    assert f"solver: auto picked {pick_solver('batch').name} (batch; " in err


def _without(tmp_path: Path, *modules: str) -> dict:
    """An environment whose interpreter cannot import ``modules`` (a sitecustomize sets them to None)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules))
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))


def test_a_note_of_the_uniqueness_checks_pick_says_whose_it_is(tmp_path):
    """``solve --solver minisat`` on a core install: the uniqueness count is auto's (minisat does
    not count), and its note says so (it read as if the named engine were not used)."""
    if shutil.which("minisat") is None:
        pytest.skip("minisat is not installed (make solvers)")
    env = _without(tmp_path, "numba", "ortools")
    proc = subprocess.run([sys.executable, "-m", "pipeline", "solve", PUZZLE, "--solver", "minisat"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    notes = [s for s in proc.stderr.splitlines() if s.startswith("note: solver auto")]
    assert len(notes) == 1 and notes[0].startswith("note: solver auto (the uniqueness check): "), proc.stderr


@pytest.mark.parametrize("missing", [("pysat",), ("pysat", "ortools", "numba")], ids=["no-python-sat", "core-only"])
def test_without_python_sat_auto_falls_back_with_one_note(tmp_path, missing):
    env = _without(tmp_path, *missing)
    proc = subprocess.run([sys.executable, "-m", "pipeline", "solve", PUZZLE, "--format", "json"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["solver"] == "highs" and result["verified"] is True and result["unique"] is True
    notes = [s for s in proc.stderr.splitlines() if s.startswith("note: solver auto")]
    assert len(notes) == 1 and "python-sat" in notes[0], proc.stderr
    proc = subprocess.run([sys.executable, "-m", "pipeline", "count", "." * 16, "--limit", "1000"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0 and proc.stdout.startswith("288"), proc.stderr
    notes = [s for s in proc.stderr.splitlines() if s.startswith("note: solver auto")]
    if "numba" in missing:   # count's first engines, dfs and sat, are both missing: one note names both
        assert len(notes) == 1 and "dfs needs numba" in notes[0] and "python-sat" in notes[0], proc.stderr
    else:                    # dfs counts (python-sat is not needed): nothing to say
        assert notes == [], proc.stderr
    if "ortools" in missing:   # the core install: HiGHS answers everything (four digits given: a search's count)
        proc = subprocess.run([sys.executable, "-m", "pipeline", "count", "1234" + "." * 12, "--limit", "5", "-v"],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        assert "solver: auto picked highs (counting" in proc.stderr


def test_import_pipeline_and_solve_do_not_import_pandas_pyarrow_scipy_or_the_writers(tmp_path):
    """Start-up (issue 18): a 9x9 is solved (SAT, uniqueness proved) from the model's position
    tables, without scipy's matrices, HiGHS, the file formats or the installed metadata."""
    heavy = ("pandas", "pyarrow", "scipy", "formats", "importlib.metadata", "highspy")
    check = ("import sys, runpy\n"
             "import pipeline\n"
             f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
             f"sys.argv = ['pipeline', 'solve', {PUZZLE!r}, '--format', 'line']\n"
             "try:\n    runpy.run_module('pipeline', run_name='__main__')\n"
             "except SystemExit as e:\n    assert not e.code, e.code\n"
             f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    after_import, solution, after_solve = proc.stdout.splitlines()
    assert len(solution) == 81
    assert after_import == "[]" and after_solve == "[]"


def _command_then(tmp_path, argv: list[str], printed: str) -> subprocess.CompletedProcess:
    """``python -m pipeline ARGV`` run in a fresh interpreter, then ``print(PRINTED)`` there (what
    the command left in ``sys.modules``)."""
    check = ("import sys, runpy\n"
             f"sys.argv = ['pipeline', *{argv!r}]\n"
             "try:\n    runpy.run_module('pipeline', run_name='__main__')\n"
             "except SystemExit as e:\n    assert not e.code, e.code\n"
             f"print({printed})\n")
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.parametrize("example", ["killer.json", "thermo.json", "miracle.json"])
def test_the_sat_engine_solves_a_rule_puzzle_without_scipy(tmp_path, example):
    """A rule puzzle handed to the SAT engine (a published killer after dfsrules' budget) has its
    rows built, reduced by its clues and encoded from numpy arrays: scipy's import was 0.13-0.18 s
    of each such process."""
    proc = _command_then(tmp_path, ["solve", str(ROOT / "examples" / example), "--solver", "sat", "--format", "json"],
                         "sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'highspy', 'pandas'))")
    assert '"unique": true' in proc.stdout and proc.stdout.splitlines()[-1] == "[]"


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="dfsrules needs the fast extra (numba)")
@pytest.mark.parametrize("example", ["killer.json", "kropki.json", "thermo.json", "miracle.json"])
def test_solving_a_rule_puzzle_does_not_import_numpy_ma(tmp_path, example):
    """``np.unique(x)`` imports ``numpy.ma`` (7 ms) on first use: reading rules, building their rows
    and tables, the search and the check keep off it."""
    proc = _command_then(tmp_path, ["solve", str(ROOT / "examples" / example), "--solver", "dfsrules"],
                         "'numpy.ma' in sys.modules")
    assert proc.stdout.splitlines()[-1] == "False"


def test_one_command_imports_its_own_module_only(tmp_path):
    """A run of ``solve`` builds only solve's parser: the other commands' modules (batch's
    executors, generate, draw, numba's dfs kernel) are not imported for nothing."""
    others = ("pipeline.batch", "pipeline.tools.generate", "pipeline.tools.draw", "pipeline.cli.commands.count",
              "pipeline.solvers.dfs_kernel")
    check = ("import sys, runpy\n"
             f"sys.argv = ['pipeline', 'solve', {PUZZLE!r}, '--format', 'line']\n"
             "try:\n    runpy.run_module('pipeline', run_name='__main__')\n"
             "except SystemExit as e:\n    assert not e.code, e.code\n"
             f"print(sorted(m for m in {others!r} if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"
    help_text = subprocess.run([sys.executable, "-m", "pipeline", "--help"], capture_output=True, text=True,
                               cwd=tmp_path, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT))).stdout
    assert all(name in help_text for name in ("solve", "batch", "generate", "explain"))   # --help lists them all


@pytest.mark.parametrize("option", [["--sat-backend", "cadical195"], ["--amo", "ladder"]], ids=["backend", "amo"])
def test_an_option_of_the_sat_engine_makes_auto_pick_an_engine_that_takes_it(capsys, option):
    # eight digits given: a count the search makes (an empty grid's comes from relabelling one solution)
    sparse = "12345678" + "." * 73
    assert main(["count", sparse, "--limit", "3", "-v", *option]) == 0
    assert "solver: auto picked sat (counting, 9x9; " in capsys.readouterr().err
    assert main(["count", sparse, "--limit", "3", "-v"]) == 0   # without it: the row's first engine
    assert f"solver: auto picked {pick_solver('count').name} (counting, 9x9; " in capsys.readouterr().err


def test_a_dfs_count_stuck_in_search_is_handed_to_sat(capsys, tmp_path):
    """auto counts a 16x16 with dfs, but the empty jigsaw below leaves dfs without a solution for
    minutes: past its budget (DFS_COUNT_BUDGET), or sooner when dfs's own estimate of its progress
    says it would not finish in it, the SAT engine counts, and --verbose says so."""
    if SOLVERS["dfs"].available() is not None:
        pytest.skip(f"dfs is not available here: {SOLVERS['dfs'].available()}")
    doc = json.loads((ROOT / "tests" / "data" / "rules" / "jigsaw16_dfs_stuck.json").read_text())
    # 15 of the 16 digits given (a solution's first row but one cell), so that relabelling one
    # solution does not answer the count: dfs stays stuck all the same
    doc["givens"] = "17EDA4.952C63F8B" + "." * 240
    path = tmp_path / "jigsaw16.json"
    path.write_text(json.dumps(doc))
    assert main(["count", str(path), "--format", "json", "--verbose", "--time-limit", "60"]) == 0
    out, err = capsys.readouterr()
    assert (json.loads(out)["solver"], json.loads(out)["count"]) == ("sat", 2)
    assert "solver: auto picked dfs (counting, 16x16; " in err
    said = re.search(r"^solver: dfs gave up after (\d+\.\d+) s; sat counted$", err, re.M)
    assert said and float(said.group(1)) < 1.5, err   # by the estimate (0.2 s) or the 1 s budget


@pytest.mark.parametrize("question", ["solve", "unique", "count"])
def test_a_full_rank_puzzle_follows_the_row_not_cpsat_first(question):
    # full rank's rows are clauses in the SAT engine now (clauses_fullrank), which answers ISS's
    # full-rank entries 5-30x faster than CP-SAT; an anyof still goes to CP-SAT first when it is there
    model = build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "fullrank", "clue": "r0c1", "rank": 1}]}'))
    assert pick_solver(question, model).name == "sat"
