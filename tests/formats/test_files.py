"""formats.files: atomic writes (permissions, no leftovers), .gz, and the bounded regular-file reader."""
from __future__ import annotations

import gzip
import os
import stat
import threading
from pathlib import Path

import pytest

from formats import files
from formats.files import WriteFailed, atomic_open, atomic_path, is_special_file, load_manifest_file, open_binary, open_text, read_regular, read_regular_text
from pipeline.cli.main import main
from pipeline.core.errors import FormatError
from stop_handling import HANDLINGS, signalling_after, sigint_handled


@pytest.fixture
def umask():
    """Set a umask for one test and restore the previous one."""
    saved = os.umask(0o022)
    os.umask(saved)
    yield lambda mask: os.umask(mask)
    os.umask(saved)


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_new_file_gets_umask_permissions_not_mkstemp_0600(tmp_path, umask, mask):
    umask(mask)
    target = tmp_path / "a.txt"
    with atomic_open(target) as f:
        f.write("x\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask


def test_replaced_file_keeps_its_mode(tmp_path, umask):
    umask(0o022)
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o640)
    with atomic_open(target) as f:
        f.write("new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_error_leaves_target_and_no_temporary_file(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_open(target) as f:
        f.write("half")
        raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_gz_written_and_read_back_transparently(tmp_path):
    target = tmp_path / "a.txt.gz"
    with atomic_open(target) as f:
        f.write("line 1\nline 2\n")
    assert target.read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress(target.read_bytes()) == b"line 1\nline 2\n"
    with open_text(target) as f:
        assert f.read() == "line 1\nline 2\n"
    with open_binary(target) as f:
        assert f.read() == b"line 1\nline 2\n"
    assert read_regular(target) == b"line 1\nline 2\n"


def test_binary_mode(tmp_path):
    with atomic_open(tmp_path / "b.bin", "wb") as f:
        f.write(b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def test_open_missing_and_directory(tmp_path):
    with pytest.raises(FormatError, match="no such file"):
        open_text(tmp_path / "missing")
    with pytest.raises(FormatError, match="directory"):
        open_binary(tmp_path)


def test_read_regular_refuses_directory(tmp_path):
    with pytest.raises(FormatError, match=r"is a directory, not a regular file"):
        read_regular(tmp_path)


def test_read_regular_refuses_fifo_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # no writer: a plain open() would block forever
    with pytest.raises(FormatError, match=r"is a FIFO, not a regular file"):
        read_regular(fifo, "solution")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_read_regular_refuses_devices(device):
    if not os.path.exists(device):
        pytest.skip(f"{device} absent on this system")
    with pytest.raises(FormatError, match=r"is a device, not a regular file"):
        read_regular(device)


def test_read_regular_missing(tmp_path):
    with pytest.raises(FormatError, match=r"^x\.sol: no such file$"):
        read_regular(tmp_path / "x.sol", "x.sol")


def test_read_regular_bounds_plain_and_decompressed_size(tmp_path):
    plain = tmp_path / "big.txt"
    plain.write_bytes(b"0" * 1001)
    assert len(read_regular(plain, limit=1001)) == 1001
    with pytest.raises(FormatError, match="larger than 1000 bytes"):
        read_regular(plain, limit=1000)
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(gzip.compress(b"0" * 100_000))  # a few hundred bytes on disk
    assert os.path.getsize(bomb) < 1000
    with pytest.raises(FormatError, match="larger than 1000 bytes"):
        read_regular(bomb, limit=1000)


def test_read_regular_broken_gzip(tmp_path):
    broken = tmp_path / "b.gz"
    broken.write_bytes(gzip.compress(b"hello world" * 100)[:20])
    with pytest.raises(FormatError, match="cannot read"):
        read_regular(broken)


def test_read_regular_text_drops_bom_and_replaces_bad_bytes(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes(b"\xef\xbb\xbfa\xffb\r\n")
    assert read_regular_text(p) == "a\ufffdb\r\n"


def test_symlink_to_regular_file_is_read(tmp_path):
    (tmp_path / "real").write_text("ok")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert read_regular(tmp_path / "link") == b"ok"


def test_manifest_fifo_device_and_non_object_refused(tmp_path):
    fifo = tmp_path / "manifest.json"
    os.mkfifo(fifo)
    with pytest.raises(FormatError, match="is a FIFO"):
        load_manifest_file(tmp_path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(FormatError, match="is a device"):
            load_manifest_file("/dev/zero")
    for text, what in [("[]", "list"), ('"x"', "str"), ("null", "NoneType"), ("[" * 100000, "not a readable")]:
        p = tmp_path / f"m{len(text)}{what}.json"
        p.write_text(text)
        with pytest.raises(FormatError, match=what):
            load_manifest_file(p)


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_atomic_path_gives_umask_permissions_and_cleans_up(tmp_path, umask, mask):
    umask(mask)
    target = tmp_path / "a.parquet"
    with atomic_path(target) as tmp:
        Path(tmp).write_bytes(b"x")
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    with pytest.raises(RuntimeError):
        with atomic_path(tmp_path / "b.bin") as tmp:
            Path(tmp).write_bytes(b"y")
            raise RuntimeError("writer failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.parquet"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("mode", ["w", "wb"])
def test_write_errors_name_the_target_and_devices_are_written_not_replaced(mode):
    """/dev/full: the atomic writers write into a device (ENOSPC surfaces, naming the device) and
    never rename a temporary file over it."""
    before = os.stat("/dev/full")
    with pytest.raises(OSError) as e, atomic_open("/dev/full", mode) as f:
        f.write("x" * 100000 if mode == "w" else b"x" * 100000)
    assert (e.value.errno, e.value.filename) == (28, "/dev/full")   # ENOSPC
    with pytest.raises(OSError) as e, atomic_path("/dev/full") as tmp:
        Path(tmp).write_bytes(b"picture")
    assert (e.value.errno, e.value.filename) == (28, "/dev/full")
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_devices_and_fifos_are_written_into(tmp_path):
    assert is_special_file(os.devnull) and not is_special_file(tmp_path) and not is_special_file(tmp_path / "new")
    with atomic_open(os.devnull) as f:
        f.write("discarded\n")
    with atomic_path(os.devnull) as tmp:
        Path(tmp).write_bytes(b"discarded")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    with atomic_open(fifo, "wb") as f:
        f.write(b"through the pipe")
    reader.join(30)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


def test_a_directory_target_is_refused_naming_it(tmp_path):
    target = tmp_path / "d"
    target.mkdir()
    with pytest.raises(OSError) as e, atomic_open(target) as f:
        f.write("x")
    assert e.value.filename == str(target) and target.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_a_link_to_a_file_writes_the_file_and_keeps_the_link(tmp_path, capsys):
    """A rename over a symbolic link replaced the link with a plain file and left the file it named
    as it was (``convert --to link.json``); the file is written through the link now, as ``>`` does."""
    (tmp_path / "real.txt").write_text("old\n")
    (tmp_path / "link.txt").symlink_to("real.txt")
    with atomic_open(tmp_path / "link.txt") as f:
        f.write("new\n")
    assert (tmp_path / "link.txt").is_symlink() and os.readlink(tmp_path / "link.txt") == "real.txt"
    assert (tmp_path / "real.txt").read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]   # no temporary file left
    # a link to a file not made yet makes it; one into a missing folder or to a directory is refused
    (tmp_path / "fresh.txt").symlink_to("made.txt")
    with atomic_path(tmp_path / "fresh.txt") as tmp:
        Path(tmp).write_text("x")
    assert (tmp_path / "made.txt").read_text() == "x" and (tmp_path / "fresh.txt").is_symlink()
    (tmp_path / "dangling.txt").symlink_to(tmp_path / "nowhere" / "x.txt")
    with pytest.raises(WriteFailed, match=r"dangling\.txt: is a symbolic link to .*nowhere/x\.txt', whose folder does "
                                          r"not exist"):
        with atomic_open(tmp_path / "dangling.txt") as f:
            f.write("x")
    assert not (tmp_path / "nowhere").exists()
    (tmp_path / "folder").mkdir()
    (tmp_path / "dirlink").symlink_to("folder")
    with pytest.raises(WriteFailed, match=r"dirlink: is a symbolic link to the directory .*folder'"):
        with atomic_open(tmp_path / "dirlink") as f:
            f.write("x")
    assert (tmp_path / "dirlink").is_symlink() and list((tmp_path / "folder").iterdir()) == []
    # the command a user ran
    (tmp_path / "doc.json").symlink_to("real.txt")
    assert main(["convert", "1...2...3...4...", "--box", "2x2", "--to", str(tmp_path / "doc.json")]) == 0
    assert (tmp_path / "doc.json").is_symlink() and '"givens"' in (tmp_path / "real.txt").read_text()


def test_write_failures_name_the_file_asked_for(tmp_path, monkeypatch):
    """Issue 21 section 4: WriteFailed names the target (never the temporary file) and is both a
    FormatError (the CLI's one line) and an OSError (callers that catch OSError keep working)."""
    from formats.files import WriteFailed

    (tmp_path / "adir").mkdir()
    with pytest.raises(WriteFailed) as caught, atomic_open(tmp_path / "adir") as f:
        f.write("never")
    assert str(caught.value) == f"{tmp_path / 'adir'}: is a directory"
    assert isinstance(caught.value, FormatError) and isinstance(caught.value, OSError)
    assert caught.value.filename == str(tmp_path / "adir")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(WriteFailed, match=r"file\.txt/deeper/a\.txt: cannot write \(.*file\.txt is not a directory\)"):
        with atomic_path(tmp_path / "file.txt" / "deeper" / "a.txt"):
            pass
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")
    target = tmp_path / "g.txt"
    with pytest.raises(WriteFailed, match=r"g\.txt: cannot write \(no space left on the device\)$"):
        with atomic_open(target) as f:
            full()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "file.txt"]
    with pytest.raises(FileNotFoundError):        # an error about another file stays as it is
        with atomic_open(target) as f:
            open(tmp_path / "missing")


def test_a_failed_write_removes_the_folders_it_made_and_only_those(tmp_path):
    # generate --to new/a/x.txt that finished no puzzle left new/a/ behind
    kept = tmp_path / "kept"
    kept.mkdir()
    target = kept / "new" / "deeper" / "x.txt"
    with pytest.raises(RuntimeError, match="nothing made"):
        with atomic_open(target) as f:
            f.write("half")
            raise RuntimeError("nothing made")
    assert [p.name for p in tmp_path.iterdir()] == ["kept"] and list(kept.iterdir()) == []
    # a folder that meanwhile holds another file stays, with the folders above it
    target = kept / "new" / "x.txt"
    with pytest.raises(RuntimeError):
        with atomic_open(target) as f:
            (kept / "new" / "other.txt").write_text("someone else's")
            raise RuntimeError("nothing made")
    assert sorted(p.name for p in (kept / "new").iterdir()) == ["other.txt"]
    with atomic_open(kept / "ok" / "x.txt") as f:   # a write that lands keeps its folders
        f.write("done\n")
    assert (kept / "ok" / "x.txt").read_text() == "done\n"


@pytest.mark.parametrize("opener", ["atomic_open", "atomic_path"])
def test_a_file_name_ending_with_a_slash_is_refused_and_nothing_written(tmp_path, opener):
    # Path() dropped the slash: convert --to out.json/ wrote the file out.json, "wrote out.json/"
    target = str(tmp_path / "out.json") + "/"
    with pytest.raises(WriteFailed, match=r"names a directory \('.*out\.json/' ends with a slash\); give the file's name"):
        with getattr(files, opener)(target):
            pass
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["convert", "--to"], ["generate", "--seed", "1", "--to"], ["draw", "--to"],
                                     ["spy", "--to"]])
def test_commands_writing_one_file_refuse_a_trailing_slash(tmp_path, capsys, command):
    target = str(tmp_path / ("out.json" if command[0] == "convert" else "out.svg" if command[0] in ("draw", "spy")
                             else "out.txt")) + "/"
    assert main([*command, target]) == 2
    assert "ends with a slash" in capsys.readouterr().err and list(tmp_path.iterdir()) == []


def test_gz_header_names_the_file_asked_for_not_the_temporary_one(tmp_path):
    # the header's name was the random temporary file's: two writes of the same bytes differed
    # (generate --seed S --to x.gz twice), and gunzip -N restored '.x.gz.ab12cd.tmp'
    first, second = tmp_path / "a.txt.gz", tmp_path / "b" / "a.txt.gz"
    for target in (first, second):
        with atomic_open(target) as f:
            f.write("same\n")
    assert first.read_bytes() == second.read_bytes()
    header = first.read_bytes()
    assert header[3] & 0x08   # FNAME present: 'a.txt', as gzip itself stores it
    assert header[10:16] == b"a.txt\x00"


@pytest.mark.parametrize("handling", HANDLINGS)
def test_a_signal_right_after_the_temporary_file_is_made_leaves_no_file(tmp_path, monkeypatch, handling):
    """A Ctrl-C handled between mkstemp returning and the write's clean-up knowing the temporary
    file raised KeyboardInterrupt with no one to remove it: '.out.txt.XXXXXXXX.tmp' stayed beside
    the user's file."""
    import tempfile

    target = tmp_path / "out.txt"
    target.write_text("before\n")
    with sigint_handled(handling, monkeypatch):
        monkeypatch.setattr(tempfile, "mkstemp", signalling_after(tempfile.mkstemp))
        with pytest.raises(KeyboardInterrupt):
            with atomic_open(target) as f:
                f.write("after\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    assert target.read_text() == "before\n"
