"""Output that cannot be written is never lost with exit 0 (issue 19 item 7).

Only a reader that goes away (EPIPE, ``| head``) ends quietly (exit 141, tests/cli/test_cli.py);
any other failed write on the standard output or an output file is one line naming it, exit 2.
The commands run for real in subprocesses: stdout on ``/dev/full`` (every write fails with
ENOSPC), stdout closed (``>&-``), and a file-size limit (``ulimit -f``: writes past it fail with
EFBIG) for a full disk on regular files, which needs no root and no special filesystem.
"""
from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
FULL = "/dev/full"
FOUR = "." * 16   # the empty 4x4: 288 solutions

needs_dev_full = pytest.mark.skipif(not os.path.exists(FULL) or not stat.S_ISCHR(os.stat(FULL).st_mode),
                                    reason="no /dev/full character device on this system")


def _env():
    return dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def run(args, *, stdout, limit_bytes=None, cwd=PROJECT, env=None):
    """``python -m pipeline ARGS`` with stdout on ``stdout`` (a path, a descriptor or None for
    closed), and optionally every file limited to ``limit_bytes`` (SIGXFSZ ignored, so a write
    past the limit fails with EFBIG instead of killing the process)."""
    def limit():
        if limit_bytes is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    command = [sys.executable, "-m", "pipeline", *args]
    if stdout is None:   # descriptor 1 closed, as `>&-` leaves it
        command = ["bash", "-c", 'exec "$@" >&-', "bash", *command]
        return subprocess.run(command, stderr=subprocess.PIPE, text=True, cwd=cwd, env=_env(), timeout=300)
    with open(stdout, "wb") if isinstance(stdout, (str, Path)) else open(os.devnull, "wb") as sink:
        target = sink if isinstance(stdout, (str, Path)) else stdout
        return subprocess.run(command, stdout=target, stderr=subprocess.PIPE, text=True, cwd=cwd,
                              env=dict(_env(), **(env or {})), timeout=300, preexec_fn=limit)


def _one_line(proc, expected):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    # a generate without --seed says its seed first; the error is the last line and the only one
    lines = [line for line in lines if not line.startswith("seed: ")]
    assert lines == [expected], proc.stderr
    assert "Traceback" not in proc.stderr


STDOUT_COMMANDS = {
    "solve": ["solve"],
    "solve-json": ["solve", "--format", "json"],
    "generate": ["generate", "-n", "3", "--seed", "1"],
    "count-list": ["count", FOUR, "--limit", "5", "--list"],
    "count-many": ["count", FOUR, "--limit", "300", "--list"],   # more than one buffer's worth
    "verify": ["verify", "examples/solved.txt", "--format", "json"],
    "verify-invalid": ["verify", "examples/puzzle.txt"],          # exit 1 otherwise: still 2 here
    "build": ["build", "examples/puzzle.txt"],
    "export-stdout": ["export", "examples/puzzle.txt", "--to", "-", "--formats", "lp"],   # bytes, not text
    "version": ["--version"],
    "help": ["--help"],
    "subcommand-help": ["solve", "--help"],
}


@needs_dev_full
@pytest.mark.parametrize("args", list(STDOUT_COMMANDS.values()), ids=list(STDOUT_COMMANDS))
def test_stdout_on_a_full_device_is_one_line_and_exit_2(args):
    _one_line(run(args, stdout=FULL), "error: standard output: No space left on device")


@pytest.mark.parametrize("args", [STDOUT_COMMANDS["solve"], STDOUT_COMMANDS["version"]], ids=["solve", "version"])
def test_closed_stdout_is_one_line_and_exit_2(args):
    _one_line(run(args, stdout=None), "error: standard output: Bad file descriptor")


def test_stdout_on_a_file_that_reaches_its_size_limit(tmp_path):
    out = tmp_path / "out.txt"
    proc = run(["count", FOUR, "--limit", "300", "--list"], stdout=out, limit_bytes=1000)
    _one_line(proc, "error: standard output: File too large")
    assert out.stat().st_size <= 1000


@pytest.mark.parametrize("option", ["--to", "--out"])
def test_generate_into_a_file_that_cannot_grow_names_it_and_leaves_nothing(tmp_path, option):
    out = tmp_path / "puzzles.txt"
    proc = run(["generate", "-n", "40", "--size", "4", "--seed", "2", option, str(out)], stdout=os.devnull,
               limit_bytes=200)
    _one_line(proc, f"error: {out}: cannot write (file too large)")
    assert list(tmp_path.iterdir()) == []   # neither the file nor a temporary one
    # an older file of that name stays as it was
    out.write_text("old\n")
    proc = run(["generate", "-n", "40", "--size", "4", "--seed", "2", option, str(out)], stdout=os.devnull,
               limit_bytes=200)
    assert proc.returncode == 2 and out.read_text() == "old\n" and list(tmp_path.iterdir()) == [out]


def test_export_into_files_that_cannot_grow_names_the_file(tmp_path):
    out = tmp_path / "model"
    proc = run(["export", "--to", str(out), "--formats", "csv", "--quiet"], stdout=os.devnull, limit_bytes=2000)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith(f"error: {out}/") and proc.stderr.endswith(": cannot write (file too large)\n"), proc.stderr


@needs_dev_full
def test_generate_to_a_full_device_writes_into_it_never_replaces_it():
    """``--to /dev/full`` writes into the device (ENOSPC: one line, exit 2); renaming a temporary
    file over it (what the atomic writer does for regular files) would replace the device."""
    before = os.stat(FULL)
    dev_before = set(os.listdir("/dev"))
    proc = run(["generate", "-n", "5", "--size", "4", "--seed", "1", "--to", FULL], stdout=os.devnull)
    _one_line(proc, f"error: {FULL}: cannot write (no space left on the device)")
    after = os.stat(FULL)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert set(os.listdir("/dev")) == dev_before   # no temporary file left beside it


def test_to_dev_null_and_dev_stdout_write_through_the_device(tmp_path):
    proc = run(["generate", "-n", "2", "--size", "4", "--seed", "1", "--to", os.devnull], stdout=tmp_path / "o")
    assert proc.returncode == 0 and "to /dev/null" in proc.stderr and (tmp_path / "o").read_text() == ""
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    if not os.path.exists("/dev/stdout"):
        pytest.skip("no /dev/stdout on this system")
    proc = run(["generate", "-n", "2", "--size", "4", "--seed", "1", "--to", "/dev/stdout"], stdout=tmp_path / "o")
    plain = run(["generate", "-n", "2", "--size", "4", "--seed", "1"], stdout=tmp_path / "p")
    assert proc.returncode == 0 == plain.returncode, proc.stderr
    assert (tmp_path / "o").read_text() == (tmp_path / "p").read_text() != ""
    assert os.path.islink("/dev/stdout") or not os.path.isfile("/dev/stdout")


def test_to_a_fifo_writes_into_it(tmp_path):
    """Process substitution (``--to >(gzip > x)``) hands the command a pipe: written into, kept a pipe."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = {}
    reader = threading.Thread(target=lambda: got.setdefault("text", fifo.read_text()))
    reader.start()
    proc = run(["generate", "-n", "2", "--size", "4", "--seed", "1", "--to", str(fifo)], stdout=os.devnull)
    reader.join(60)
    assert proc.returncode == 0, proc.stderr
    assert len(got["text"].splitlines()) == 2 and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.parametrize("args", [["-n", "0"], ["--size", "2"], ["--size", "4", "--clues", "99"]])
def test_generate_checks_its_options_before_it_says_a_seed(args):
    # without --seed, generate says the seed it chose: not when an option is wrong, whose error
    # is then the only line
    proc = run(["generate", *args], stdout=os.devnull)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr


def test_export_to_a_device_or_pipe_writes_one_format_into_it(tmp_path):
    # docs/cli.md: --to a device or pipe is written into, never replaced; export took /dev/null
    # for an export directory that "exists and is not a directory"
    proc = run(["export", "examples/thermo.json", "--to", os.devnull, "--formats", "lp"], stdout=os.devnull)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = {}
    reader = threading.Thread(target=lambda: got.setdefault("text", fifo.read_text()))
    reader.start()
    proc = run(["export", "examples/thermo.json", "--to", str(fifo), "--formats", "lp"], stdout=os.devnull)
    reader.join(60)
    assert proc.returncode == 0, proc.stderr
    plain = run(["export", "examples/thermo.json", "--to", "-", "--formats", "lp"], stdout=tmp_path / "lp")
    assert plain.returncode == 0 and got["text"] == (tmp_path / "lp").read_text() != ""
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    proc = run(["export", "examples/thermo.json", "--to", os.devnull], stdout=os.devnull)
    assert proc.returncode == 2 and "name one format with --formats" in proc.stderr
    # a format of several files: the message names the device, not standard output
    proc = run(["export", "examples/thermo.json", "--to", os.devnull, "--formats", "csv"], stdout=os.devnull)
    assert proc.returncode == 2 and proc.stderr == f"error: {os.devnull}: csv is several files, not one: give a " \
        f"directory (one file: mps, lp, mat, cnf, opb, iss)\n"


@pytest.mark.parametrize("encoding, name, shown", [
    ("ascii", "\u00fcn\u00ef", "\\xfcn\\xef"),
    ("utf-8", os.fsdecode(b"bad\xff"), "bad\\udcff"),   # an undecodable byte of a file name
])
def test_a_path_the_stdout_encoding_cannot_write_is_escaped_not_a_traceback(tmp_path, encoding, name, shown):
    """``export``/``check`` echo the directory on stdout: under ``PYTHONIOENCODING=ascii`` (or with a
    file name holding a byte that is not UTF-8) that line raised UnicodeEncodeError after every
    file was written, a traceback and exit 1; it is written with escapes, as Python's stderr does."""
    out = tmp_path / name
    for args in (["export", "examples/puzzle.txt", "--to", str(out), "--formats", "lp"], ["check", str(out)]):
        proc = run(args, stdout=tmp_path / "stdout.txt", env={"PYTHONIOENCODING": encoding})
        said = (tmp_path / "stdout.txt").read_text(encoding, errors="strict")
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert shown in said, said
