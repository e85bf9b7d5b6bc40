"""``solve --workdir DIR`` never replaces a user's file (issue 19 item 8): every engine of the
registry that takes a work directory writes into DIR only when DIR is new or empty, else into a
fresh subdirectory DIR/ENGINE-K, and says so."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.cli.main import main
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.core.parse import parse_grid
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers.workdir import claim_workdir, run_binary
from pipeline.core.errors import SolveError
from pipeline.core.build import build_model
from stop_handling import HANDLINGS, signalling_after, sigint_handled

PUZZLE = "1...........3..2"
BOX = "2x2"
FILE_ENGINES = [name for name, solver in SOLVERS.items() if "workdir" in solver.options]


def _need(name: str) -> None:
    reason = SOLVERS[name].available()
    if reason:
        pytest.skip(f"{name}: {reason}")


def _solve(capsys, name: str, workdir: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["solve", PUZZLE, "--box", BOX, "--solver", name, "--workdir", str(workdir), "--no-unique-check",
                 *extra])
    out, err = capsys.readouterr()
    return code, out, err


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_every_engine_that_works_on_files_takes_a_workdir():
    assert set(FILE_ENGINES) >= {"scip", "cbc", "glpk", "octave", "minisat", "picosat", "cadical", "cryptominisat",
                                 "clasp", "minisat+", "sat4j"}


@pytest.mark.parametrize("name", FILE_ENGINES)
def test_a_users_files_in_the_workdir_are_never_replaced(name, tmp_path, capsys):
    _need(name)
    # a new directory is the engine's own: its files go there, as before
    fresh = tmp_path / "fresh"
    code, out, err = _solve(capsys, name, fresh, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["workdir"] == str(fresh) and "note:" not in err
    written = sorted(_tree(fresh))
    assert "manifest.json" in written or any(n.startswith("model.") for n in written), written

    # a directory holding the user's files under every one of those names (and one more)
    mine = tmp_path / "mine"
    mine.mkdir()
    for k, file_name in enumerate([*written, "notes.txt"]):
        (mine / file_name).write_text(f"the user's own file {k}\n", encoding="utf-8")
    before = _tree(mine)
    stem = name.replace("+", "plus")
    for run in (1, 2):
        code, out, err = _solve(capsys, name, mine, "--format", "line")
        assert code == 0, err
        assert verify_grid(parse_grid(out.strip()), parse_puzzle(PUZZLE, box=BOX))
        sub = mine / f"{stem}-{run}"
        assert err.splitlines()[0] == f"note: {mine} already holds files; {name}'s files are in {sub}", err
        assert sorted(_tree(sub)) == written, f"run {run}"
        # every file the user had is there, byte for byte, and nothing else was added beside them
        assert {k: v for k, v in _tree(mine).items() if not k.startswith(f"{stem}-")} == before
        assert sorted(p.name for p in mine.iterdir() if p.is_dir()) == [f"{stem}-{k}" for k in range(1, run + 1)]


@pytest.mark.parametrize("name", ["cbc", "minisat"])
def test_an_empty_workdir_is_used_and_a_file_is_refused(name, tmp_path, capsys):
    _need(name)
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = _solve(capsys, name, empty, "--format", "json")
    assert code == 0 and json.loads(out)["workdir"] == str(empty) and not err, err
    not_a_dir = tmp_path / "file.txt"
    not_a_dir.write_text("mine\n", encoding="utf-8")
    code, out, err = _solve(capsys, name, not_a_dir)
    assert code == 2 and err == f"error: solver {name}: --workdir {str(not_a_dir)!r} exists and is not a directory\n"
    assert not_a_dir.read_text(encoding="utf-8") == "mine\n"


def test_an_empty_workdir_name_is_refused(tmp_path, monkeypatch):
    # a probe: --workdir '' wrote the solver's files into the current directory (the checkout)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SolveError, match=r"^solver cbc: --workdir is empty; name a directory \('\.' for this one\)$"):
        claim_workdir("", "cbc")
    assert list(tmp_path.iterdir()) == []


def test_the_api_says_where_the_files_are(tmp_path):
    """SolveResult.workdir: the directory kept (None with no workdir: a temporary one, removed)."""
    _need("glpk")
    solver = get_solver("glpk")
    model = build_model(parse_puzzle(PUZZLE, box=BOX))
    assert solver.solve(model).workdir is None
    (tmp_path / "model.mps").write_text("mine\n", encoding="utf-8")
    result = solver.solve(model, workdir=tmp_path)
    assert result.solved and result.workdir == tmp_path / "glpk-1"
    assert (tmp_path / "model.mps").read_text(encoding="utf-8") == "mine\n"
    assert (result.workdir / "model.mps").is_file() and (result.workdir / "glpk_raw.txt").is_file()


def _script(folder, name: str, body: str):
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


@pytest.mark.skipif(not hasattr(os, "killpg") or not shutil.which("sh"), reason="POSIX process groups and sh")
def test_a_timeout_kills_the_binarys_whole_group(tmp_path):
    """A wrapper script killed alone left its child (the solver) running past the run."""
    marker = f"sudoku-test-{os.getpid()}-{time.monotonic_ns()}"
    script = _script(tmp_path, "wrapper", f"sh -c 'sleep 1000; : {marker}' &\nwait\n")   # its child sleeps on
    with pytest.raises(subprocess.TimeoutExpired):
        run_binary([str(script)], cwd=tmp_path, timeout=1)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
        if not left:
            break
        time.sleep(0.1)
    assert not left, f"processes left: {left}"


@pytest.mark.skipif(not shutil.which("sh"), reason="needs sh")
def test_a_binary_that_ends_gives_its_code_output_and_stderr(tmp_path):
    script = _script(tmp_path, "solver", "echo answer\necho said >&2\nexit 20\n")
    done = run_binary([str(script)], cwd=tmp_path, timeout=30, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (20, "answer\n", "said\n")


def test_a_workdir_that_cannot_be_made_names_the_option(tmp_path):
    """'/proc/wd' was "error: '/proc/wd': No such file or directory", naming no option."""
    from pipeline.core.errors import SolveError
    from pipeline.solvers.workdir import claim_workdir

    (tmp_path / "file").write_text("x")
    with pytest.raises(SolveError, match=r"^solver cbc: --workdir '.*file/wd': cannot create it: "):
        claim_workdir(tmp_path / "file" / "wd", "cbc")


PROJECT = Path(__file__).resolve().parents[2]
HARD_EXIT_SCRIPT = r"""
import ctypes, sys
from pipeline.core import stops
from pipeline.solvers.workdir import work_directory

stops.begin()
stops.install(watch=True)
deadline = stops.Deadline(0.5, lambda reason: (print("time limit", flush=True), 1)[1])
libc = ctypes.CDLL(None)
mutex = ctypes.create_string_buffer(64)
libc.pthread_mutex_init(mutex, None)

def body(d):
    with work_directory(None, "cadical") as (work, kept):
        print(work, flush=True)
        libc.pthread_mutex_lock(mutex)
        libc.pthread_mutex_lock(mutex)   # C code that never returns: the stop cannot reach Python
    return 0

sys.exit(deadline.run(body))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs glibc's pthread_mutex_lock through ctypes")
def test_a_hard_exit_removes_the_run_s_temporary_directory(tmp_path):
    """The watchdog ends a command whose main thread is inside C code (an external SAT run stopped
    at its time limit while its clauses were encoded) without unwinding it: the temporary directory
    was left behind, empty (/tmp/sudoku-cadical-*). It is removed before the process ends."""
    done = subprocess.run([sys.executable, "-c", HARD_EXIT_SCRIPT], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TMPDIR": str(tmp_path),
                               "PYTHONPATH": str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", "")})
    lines = done.stdout.splitlines()
    assert done.returncode == 1 and lines[1:] == ["time limit"], done.stderr[-500:]
    assert lines[0].startswith(str(tmp_path / "sudoku-cadical-"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "killpg") or not shutil.which("sh"), reason="POSIX process groups and sh")
@pytest.mark.parametrize("handling", HANDLINGS)
def test_a_signal_right_after_the_binary_starts_still_kills_it(tmp_path, monkeypatch, handling):
    """A Ctrl-C handled between Popen returning and run_binary knowing the process raised
    KeyboardInterrupt where no one killed the binary: in a session of its own, it ran on (and
    wrote on into the run's work directory, which was being removed)."""
    import signal

    script = _script(tmp_path, "solver", "exec sleep 1000\n")
    started: list[subprocess.Popen] = []
    try:
        with sigint_handled(handling, monkeypatch):
            monkeypatch.setattr(subprocess, "Popen", signalling_after(subprocess.Popen, started))
            with pytest.raises(KeyboardInterrupt):
                run_binary([str(script)], cwd=tmp_path, timeout=600)
        assert len(started) == 1
        assert started[0].poll() == -signal.SIGKILL      # killed and reaped before the interrupt went on
    finally:
        for proc in started:                              # the old code's orphan, so no run leaves it behind
            proc.kill()
            proc.wait()

