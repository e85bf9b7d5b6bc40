"""Write failures name what the user typed, never the hidden temporary file (issue 21 section 4):
``generate --out``, ``draw --to``, ``spy --to``, ``report --to`` and ``export --to``, each with a
path under a regular file, a directory where the file goes, a read-only directory (a read-only
bind mount: root ignores permission bits) and a refused permission (injected: root again)."""
from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from oracles import PROJECT
from pipeline.batch import run_batch
from pipeline.cli.main import main

pytest.importorskip("matplotlib", reason="draw, spy and report need matplotlib (the 'plot' extra)")

FOUR = "1.......2......3"


def argv(command: str, target: str, batch_out: str) -> list[str]:
    return {
        "generate": ["generate", "-n", "1", "--seed", "1", "--out", target],
        "draw": ["draw", FOUR, "--to", target],
        "spy": ["spy", FOUR, "--to", target],
        "report": ["report", batch_out, "--to", target],
        "export": ["export", FOUR, "--to", target, "--quiet"],
    }[command]


SUFFIX = {"generate": ".txt", "draw": ".png", "spy": ".svg", "report": ".html", "export": ""}
COMMANDS = list(SUFFIX)


@pytest.fixture(scope="module")
def batch_out(tmp_path_factory):
    base = tmp_path_factory.mktemp("batch")
    (base / "in.txt").write_text(FOUR + "\n" + "." * 16 + "\n")
    run_batch(base / "in.txt", base / "out", workers=1, progress="none")
    return str(base / "out")


def call(capsys, args) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.err


def one_line(code: int, err: str) -> str:
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert ".tmp" not in err, err         # never the hidden temporary file
    return err.rstrip("\n")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_path_under_a_regular_file(tmp_path, monkeypatch, capsys, batch_out, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file.txt").write_text("a file\n")
    target = f"file.txt/x{SUFFIX[command]}"
    line = one_line(*call(capsys, argv(command, target, batch_out)))
    assert line == f"error: {target}: cannot write (file.txt is not a directory)"
    assert (tmp_path / "file.txt").read_text() == "a file\n"


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "export"])   # export writes INTO a directory
def test_a_directory_where_the_file_goes(tmp_path, monkeypatch, capsys, batch_out, command):
    monkeypatch.chdir(tmp_path)
    target = f"adir{SUFFIX[command]}"
    (tmp_path / target).mkdir()
    line = one_line(*call(capsys, argv(command, target, batch_out)))
    assert line == f"error: {target}: is a directory"
    assert list((tmp_path / target).iterdir()) == []


def test_an_exports_file_that_is_a_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out" / "model.mps").mkdir(parents=True)
    line = one_line(*call(capsys, argv("export", "out", "")))
    assert line.startswith("error: out/model.mps: is a directory; ")


@pytest.mark.parametrize("command", COMMANDS)
def test_permission_denied_names_the_directory(tmp_path, monkeypatch, capsys, batch_out, command):
    """Root writes anywhere, so the refusal a user would meet is injected where the temporary
    file is created (in the directory asked for)."""
    real = tempfile.mkstemp

    def refused(*args, dir=None, **kwargs):
        if dir is not None and os.path.basename(os.path.normpath(str(dir))).startswith(("locked", ".sudoku-export")):
            raise PermissionError(errno.EACCES, "Permission denied", os.path.join(str(dir), ".x.abcd1234.tmp"))
        return real(*args, dir=dir, **kwargs)

    def refused_dir(*args, dir=None, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", os.path.join(str(dir), ".sudoku-export.x.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    monkeypatch.setattr(tempfile, "mkdtemp", refused_dir)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "locked").mkdir()
    target = f"locked/x{SUFFIX[command]}" if command != "export" else "locked"
    line = one_line(*call(capsys, argv(command, target, batch_out)))
    assert line == f"error: {target}: cannot write (directory locked: permission denied)"
    assert list((tmp_path / "locked").iterdir()) == []


@pytest.fixture
def read_only(tmp_path):
    """A read-only bind mount of an empty directory (root cannot be refused by permission bits);
    skipped with the reason where mounting is not allowed."""
    src, ro = tmp_path / "src", tmp_path / "ro"
    src.mkdir()
    ro.mkdir()
    mount = shutil.which("mount")
    if os.geteuid() != 0 or mount is None:
        pytest.skip("a read-only bind mount needs root and mount(8)")
    done = subprocess.run([mount, "--bind", str(src), str(ro)], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot bind-mount here: {done.stderr.strip()}")
    try:
        done = subprocess.run([mount, "-o", "remount,bind,ro", str(ro)], capture_output=True, text=True)
        if done.returncode:
            pytest.skip(f"cannot remount read-only here: {done.stderr.strip()}")
        yield ro
    finally:
        subprocess.run(["umount", str(ro)], capture_output=True)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_read_only_directory_through_the_real_cli(tmp_path, read_only, batch_out, command):
    target = f"ro/x{SUFFIX[command]}" if command != "export" else "ro"
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "pipeline", *argv(command, target, batch_out)], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=300)
    line = one_line(done.returncode, done.stderr)
    assert line == f"error: {target}: cannot write (directory ro: read-only file system)"


def test_a_device_is_written_in_place_never_replaced(tmp_path, monkeypatch, capsys):
    """``--out`` naming a FIFO (as /dev/stdout or /dev/full would be) writes into it; renaming a
    temporary file over it would replace the device itself."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo).read()))
    reader.start()
    assert main(["generate", "-n", "1", "--seed", "1", "--out", str(fifo)]) == 0
    reader.join(30)
    assert received and len(received[0].strip()) == 81
    import stat
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_full_device_is_one_line_and_stays_a_device(tmp_path, monkeypatch, capsys):
    """``--out`` on a copy of /dev/full (char device 1,7) made here: one line, exit 2, and the
    device is still a device afterwards."""
    import stat

    full = tmp_path / "full"
    try:
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        open(full, "wb").close()
    except OSError as e:
        pytest.skip(f"cannot make a /dev/full device node here: {e.strerror}")
    monkeypatch.chdir(tmp_path)
    line = one_line(*call(capsys, ["generate", "-n", "1", "--seed", "1", "--out", "full"]))
    assert line == "error: full: cannot write (no space left on the device)"
    assert stat.S_ISCHR(os.lstat(full).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]


@pytest.mark.parametrize("command", ["draw", "spy"])
@pytest.mark.parametrize("suffix", [".svg", ".png", ".pdf"])
def test_a_picture_into_a_full_device_is_one_line(tmp_path, monkeypatch, capsys, command, suffix):
    """``--to full.pdf`` linked to /dev/full: matplotlib's PDF writer, failing in the middle of
    spy's image stream, raised an AttributeError ('Stream' object has no attribute 'pos') over
    the OSError; every picture format says 'no space left' in one line and leaves no file."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    monkeypatch.chdir(tmp_path)
    os.symlink("/dev/full", f"full{suffix}")
    line = one_line(*call(capsys, argv(command, f"full{suffix}", "")))
    assert line == f"error: full{suffix}: cannot write (no space left on the device)"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"full{suffix}"]
