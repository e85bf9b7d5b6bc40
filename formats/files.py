"""File handling shared by every format: atomic writes, transparent ``.gz``, bounded reads.

* :func:`atomic_open` writes to a temporary file beside the target and renames it over the
  target only on success, so an interrupted write never leaves a half file; the new file gets
  the permissions a plain ``open(path, "w")`` would give it (``0666 & ~umask``, or the mode of
  the file it replaces), not ``mkstemp``'s ``0600``. A write that fails is a
  :class:`WriteFailed` naming the file the caller asked for, never the temporary one:
  ``out/g.txt: cannot write (directory out: permission denied)``, ``adir: is a directory``.
* :func:`open_text` / :func:`open_binary` open a file for reading, gunzipping it when its first
  bytes are the gzip magic (whatever its name).
* :func:`read_regular` reads a whole input (a solution file, a manifest) that must be a regular
  file of bounded size: a directory, FIFO or device is refused with a one-line
  :class:`~pipeline.core.errors.FormatError` instead of blocking or reading without end.
"""
from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import io
import itertools
import os
import re
import stat
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from pipeline.core import stops
from pipeline.core.errors import FormatError, clip
from pipeline.core.textin import GZIP_MAGIC, read_bounded
from pipeline.core.manifest import MANIFEST_NAME, Manifest, manifest_from_json

# What read_regular accepts by default: a 100x100 solution file lists 10^6 names (~30 MB); a
# file a thousand times larger than any export is not a solution file.
MAX_READ_BYTES = 1 << 30
#: Longest count or index a reader converts with ``int()``: 18 digits always fit int64 (no
#: OverflowError) and stay far below Python's 4,300-digit conversion limit (no ValueError).
MAX_COUNT_DIGITS = 18


def is_count(token: str) -> bool:
    """``token`` is 1 to :data:`MAX_COUNT_DIGITS` ASCII digits: safe for ``int()`` (``'²'``
    passes ``str.isdigit`` and ``int`` refuses it; 5,000 digits are no int64).

    Parameters
    ----------
    token : str
        A count or index as a file writes it.

    Examples
    --------
    >>> [is_count(t) for t in ("729", "", "\u00b2", "1" * 19)]
    [True, False, False, False]
    """
    return 0 < len(token) <= MAX_COUNT_DIGITS and token.isascii() and token.isdigit()


def _current_umask() -> int:
    # os.umask can only be read by setting it; put it straight back
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_file_mode(path: Path) -> int:
    """The mode ``open(path, "w")`` would leave: the replaced file's, else ``0666 & ~umask``."""
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    return 0o666 & ~_current_umask()


def _is_special(path: Path) -> bool:
    """Whether ``path`` is to be written in place: it exists and is neither a regular file nor a
    directory (a device, a FIFO), or it is a link to a process's descriptor (``/dev/stdout`` ->
    ``/proc/self/fd/1``, whatever that descriptor is: a rename would replace the link)."""
    link = path
    for _ in range(40):   # the kernel's own limit on a chain of links
        if not link.is_symlink():
            break
        target = os.readlink(link)
        if target.startswith(("/proc/", "/dev/fd/")):
            return True
        link = link.parent / target
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


# atomic_path's temporary files: ".<name>.<8 random characters>.tmp" (tempfile.mkstemp)
_TEMPORARY_NAME = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


def check_path_argument(path: Any, where: str, what: str = "the path") -> None:
    """Refuse, in one line, a path argument of the API that is not text or a path, or that holds a
    NUL (pathlib's TypeError and the OS's ValueError otherwise).

    Parameters
    ----------
    path : object
        The argument as given.
    where : str
        The function, as messages name it (``export``).
    what : str
        What the path is (``the solution file``).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise FormatError(f"{where}: {what} must be text or a path, found {type(path).__name__}")
    if "\x00" in os.fsdecode(path):
        raise FormatError(f"{where}: the path {clip(os.fsdecode(path), 60)!r} holds a NUL character")


def is_temporary_name(name: str) -> bool:
    """Whether ``name`` has the form of :func:`atomic_path`'s temporary files (leftovers of an
    interrupted write)."""
    return bool(_TEMPORARY_NAME.match(name))


def is_special_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is to be written into rather than replaced: it exists and is neither a
    regular file nor a directory (a device such as ``/dev/null`` or ``/dev/full``, a FIFO, a
    socket), or it is a link to a process's descriptor (``/dev/stdout``, ``/dev/fd/N``, whatever
    that descriptor is). Renaming a file over ``/dev/full`` would turn the device into a plain
    file for every program on the machine; renaming over ``/dev/stdout`` would replace the link
    instead of writing to the standard output.

    Parameters
    ----------
    path : str or Path
        The target.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_special_file("/dev/null"), is_special_file("/dev/stdout"), is_special_file("/")
    (True, True, False)
    """
    return _is_special(Path(path))


class WriteFailed(FormatError, OSError):
    """A file could not be written; the message names the file asked for, never a temporary one.

    Both a :class:`~pipeline.core.errors.FormatError` (the CLI's one line and exit 2) and an
    ``OSError`` (``errno``, ``strerror`` and ``filename`` = the file asked for), so callers that
    catch either keep working.
    """

    def __init__(self, path: str | os.PathLike, reason: str, code: int | None = None,
                 strerror: str | None = None) -> None:
        OSError.__init__(self, code, strerror, str(path))
        self.path = Path(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _blocking_ancestor(path: Path) -> Path | None:
    """The first component of ``path``'s directory that exists and is not a directory."""
    for parent in reversed(path.parents):
        if str(parent) in ("", ".") or parent == Path(parent.anchor):
            continue
        if parent.exists() and not parent.is_dir():
            return parent
    return None


def _deepest_existing_directory(path: Path) -> Path:
    for parent in path.parents:
        if parent.is_dir():
            return parent
    return Path(".")


def write_failure(path: str | os.PathLike, e: OSError, *, into: bool = False) -> WriteFailed:
    """:class:`WriteFailed` for ``e``, raised while writing ``path`` (through a temporary file
    or a directory created on the way): the reason in words, naming the directory at fault.

    Parameters
    ----------
    path : str or Path
        The file asked for (with ``into``: the directory being created or written into).
    e : OSError
    into : bool
        ``path`` is a directory that files were to be written into (an export's ``--to``).

    Returns
    -------
    WriteFailed

    Examples
    --------
    >>> str(write_failure("/ro/g.txt", PermissionError(13, "Permission denied", "/ro/.g.txt.x1y2z3w4.tmp")))
    '/ro/g.txt: cannot write (directory /ro: permission denied)'
    >>> str(write_failure("adir", IsADirectoryError(21, "Is a directory", ".adir.x1y2z3w4.tmp")))
    'adir: is a directory'
    """
    if isinstance(e, WriteFailed):
        return e
    path = Path(path)
    code, strerror = e.errno, e.strerror
    if not into and (isinstance(e, IsADirectoryError) or (path.is_dir() and not path.is_symlink())):
        return WriteFailed(path, "is a directory", errno.EISDIR, "Is a directory")
    dangling = next((p for p in (path / "x" if into else path).parents if p.is_symlink() and not p.exists()), None)
    if dangling is not None:   # mkdir's "File exists" named the link, not what is wrong with it
        return WriteFailed(path, f"cannot write ({dangling} is a link to {os.readlink(dangling)!r}, which does not "
                                 f"exist)", errno.ENOENT, "No such file or directory")
    blocking = _blocking_ancestor(path / "x" if into else path)
    if blocking is not None:
        return WriteFailed(path, f"cannot write ({blocking} is not a directory)", errno.ENOTDIR, "Not a directory")
    if code == errno.ENOSPC:
        return WriteFailed(path, "cannot write (no space left on the device)", code, strerror)
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        inside = path / "x" if into else path
        # the directory the system refused: where the temporary file or the missing directory
        # was to be made, if that is one the user named; else the deepest one that exists
        refused = Path(e.filename).parent if getattr(e, "filename", None) else None
        if refused is not None and (refused == inside.parent or refused in inside.parents):
            folder = refused
        else:
            folder = inside.parent if inside.parent.is_dir() else _deepest_existing_directory(inside)
        folder_name = str(folder) if str(folder) not in ("", ".") else "."
        return WriteFailed(path, f"cannot write (directory {folder_name}: {_lower_first(strerror or 'denied')})",
                           code, strerror)
    return WriteFailed(path, f"cannot write ({_lower_first(strerror or str(e))})", code, strerror)


def refuse_directory_name(path: str | os.PathLike) -> None:
    """Refuse a file's name that ends with a slash: ``Path()`` drops it, so ``out.json/`` was
    written as the file ``out.json`` (and said as ``wrote out.json/``).

    Parameters
    ----------
    path : str or Path
        The name as given.

    Raises
    ------
    WriteFailed
        It ends with a slash (and is not the root).
    """
    text = os.fspath(path)
    if isinstance(text, str) and text.endswith(("/", os.sep)) and text.rstrip("/" + os.sep):
        raise WriteFailed(text, f"names a directory ({text!r} ends with a slash); give the file's name")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """A temporary path beside ``path`` (with the mode a normal write would give), renamed over
    ``path`` on success and removed on failure: for writers that want a file name, not a stream
    (pyarrow writes fastest to a native path; matplotlib's ``savefig``). A device or FIFO
    (``/dev/stdout``) is written in place instead, never replaced.

    When ``path`` is a device, FIFO or socket (:func:`is_special_file`), the temporary file is
    made in the temporary directory instead and its bytes are copied into ``path`` on success.

    Parameters
    ----------
    path : str or Path
        The file to (re)place. Its directory is created if needed (and removed again, while empty, when the write fails).

    Yields
    ------
    str
        The temporary file's path.

    Raises
    ------
    WriteFailed
        ``path`` is a directory, its directory cannot be created or written, or the write or the
        rename fails (a full disk): one line naming ``path``, not the temporary file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_path(d / "a.bin") as tmp:
    ...     _ = pathlib.Path(tmp).write_bytes(b"x")
    >>> (d / "a.bin").read_bytes(), sorted(p.name for p in d.iterdir())
    (b'x', ['a.bin'])
    >>> import shutil; shutil.rmtree(d)
    """
    refuse_directory_name(path)
    path = Path(path)
    if path.is_dir() and not path.is_symlink():   # before any work: the rename could not succeed
        raise WriteFailed(path, "is a directory", errno.EISDIR, "Is a directory")
    if _is_special(path):
        # a device or FIFO (/dev/stdout, /dev/full, a named pipe) is written in place: renaming
        # a file over it would replace the device itself (as root, /dev/full became a file)
        try:
            yield str(path)
        except OSError as e:
            if isinstance(e, WriteFailed) or getattr(e, "filename", None) not in (None, str(path)):
                raise
            raise write_failure(path, e) from None
        return
    if path.is_symlink():   # the file it links to is replaced, as `>` and `cp` write through a link
        path = _link_target(path)
    made = missing_directories(path.parent)
    try:
        yield from _replaced(path)
    except BaseException:   # no empty folder is left either (generate --to new/dir/f.txt that made no puzzle)
        remove_empty_directories(made)
        raise


def _link_target(link: Path) -> Path:
    """The file a symbolic link ``link`` names, which :func:`atomic_path` replaces (a rename over
    the link itself put a plain file where the link was and left its file as it was). A link to a
    directory, or to a file in a folder that does not exist, is refused: no folder is made at the
    far end of a link."""
    target = Path(os.path.realpath(link))
    if target.is_dir():
        raise WriteFailed(link, f"is a symbolic link to the directory {str(target)!r}", errno.EISDIR, "Is a directory")
    if not target.parent.is_dir():
        raise WriteFailed(link, f"is a symbolic link to {str(target)!r}, whose folder does not exist",
                          errno.ENOENT, "No such file or directory")
    return target


def _replaced(path: Path) -> Iterator[str]:
    """:func:`atomic_path` for a regular file: yield a temporary file beside ``path``, rename it
    over ``path`` after the caller is done; on any failure remove it and raise."""
    tmp = None
    try:
        # a stop (Ctrl-C, SIGTERM, the deadline) handled between mkstemp and ``tmp`` being set
        # left the temporary file beside the user's: held back until then, raised inside this try
        with stops.held():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                file_mode = _new_file_mode(path)
                fd, made = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            except OSError as e:
                raise write_failure(path, e) from None
            tmp = made
            try:
                os.fchmod(fd, file_mode)   # mkstemp's 0600 is not what a normal write gives
            except OSError as e:
                raise write_failure(path, e) from None
            finally:
                os.close(fd)
        yield tmp
        os.replace(tmp, path)
    except BaseException as e:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        # the writer's or the rename's failure on the temporary file (or on no file: a full
        # disk): say it of the file asked for; other errors (a file read meanwhile) stay as they are
        if isinstance(e, OSError) and not isinstance(e, WriteFailed) and getattr(e, "filename", None) in (None, tmp, str(path)):
            raise write_failure(path, e) from None
        raise


def missing_directories(directory: str | os.PathLike) -> list[Path]:
    """``directory`` and those of its parents that do not exist, deepest first: what a
    ``mkdir(parents=True)`` of it makes, and what a failed write removes again
    (:func:`remove_empty_directories`).

    Parameters
    ----------
    directory : str or Path

    Returns
    -------
    list of Path
    """
    directory = Path(directory)
    return list(itertools.takewhile(lambda p: p.name not in ("", "..") and not os.path.lexists(p),
                                    [directory, *directory.parents]))


def remove_empty_directories(made: list[Path]) -> None:
    """Remove the directories a failed write made (:func:`missing_directories`), deepest first,
    each only while it is empty: a file in one (another export's, a user's) keeps it and the
    directories above it.

    Parameters
    ----------
    made : list of Path
    """
    for path in made:
        try:
            path.rmdir()
        except OSError:   # not empty, or not there
            if os.path.lexists(path):
                return


@contextlib.contextmanager
def _written_stream(raw: Any, mode: str, compress: bool, name: str) -> Iterator[Any]:
    """``raw`` (a binary file) as the stream :func:`atomic_open` yields: gzipped and/or text. The
    gzip header names ``name`` (the file asked for), not ``raw``'s random temporary name: the same
    bytes written twice give the same file, and ``gunzip -N`` restores the name asked for."""
    # GzipFile takes the header's name from fileobj.name unless filename is given
    stream = gzip.GzipFile(filename=name, fileobj=raw, mode="wb", compresslevel=6, mtime=0) if compress else raw
    try:
        if "b" in mode:
            yield stream
        else:
            text = io.TextIOWrapper(stream, encoding="utf-8", newline="\n", write_through=False)
            yield text
            text.flush()
            text.detach()
    finally:
        if compress:
            stream.close()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *,
                compress: bool | None = None) -> Iterator[Any]:   # a text or binary stream, by ``mode``
    """Open a temporary file beside ``path``; rename it over ``path`` only on success.

    A device, FIFO or socket (:func:`is_special_file`: ``/dev/null``, ``/dev/stdout``, a pipe) is
    written into directly instead: it cannot be replaced, and must not be.

    Parameters
    ----------
    path : str or Path
        The file to (re)place. Its directory is created if needed.
    mode : str
        ``"w"`` (UTF-8 text with ``\\n`` endings) or ``"wb"``.
    compress : bool, optional
        Gzip the bytes (deterministically: mtime 0). Default: when ``path`` ends in ``.gz``.

    Yields
    ------
    file object
        Text or binary stream; on an exception the temporary file is removed and ``path`` is
        left as it was.

    Raises
    ------
    WriteFailed
        Writing or renaming failed (a full disk, no permission): one line naming ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_open(d / "a.txt") as f:
    ...     _ = f.write("hello\\n")
    >>> (d / "a.txt").read_text()
    'hello\\n'
    >>> import shutil; shutil.rmtree(d)
    """
    refuse_directory_name(path)
    path = Path(path)
    compress = path.name.lower().endswith(".gz") if compress is None else compress
    # atomic_path writes a device, FIFO or descriptor link in place and names the file asked for
    # in every failure; the stream is closed before the rename
    with atomic_path(path) as target, open(target, "wb") as raw:
        with _written_stream(raw, mode, compress, path.name) as stream:
            yield stream


def file_sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes (as stored: a ``.gz`` file's compressed bytes), in hex.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d, "a.txt")
    ...     _ = p.write_bytes(b"abc")
    ...     file_sha256(p)[:16]
    'ba7816bf8f01cfea'
    """
    h = hashlib.sha256()
    buffer = bytearray(1 << 23)        # 8 MB blocks into one buffer: no allocation per block
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as f:
        while size := f.readinto(buffer):
            h.update(view[:size])
    return h.hexdigest()


def _cannot_read(where, e: OSError) -> FormatError:
    if isinstance(e, FileNotFoundError):
        return FormatError(f"{where}: no such file")
    if isinstance(e, IsADirectoryError):
        return FormatError(f"{where}: is a directory, not a file")
    return FormatError(f"{where}: cannot read: {e.strerror or e}")


class _CheckedGzip(gzip.GzipFile):
    """A gzip stream read whole or in parts whose damage (a truncated stream, a bad CRC, bytes
    that do not inflate) is a FormatError naming the file, wherever the reader meets it: every
    text reader parses as it reads, so the error surfaces deep inside it."""

    def __init__(self, path: Path, where: str | os.PathLike):
        super().__init__(path, "rb")
        self._where = where

    def _checked(self, method: Any, *args: Any) -> Any:
        try:
            return method(*args)
        except (OSError, EOFError, zlib.error) as e:
            raise FormatError(f"{self._where}: cannot read: {getattr(e, 'strerror', None) or e}") from None

    def read(self, size: int | None = -1) -> bytes:
        return self._checked(super().read, size)

    def read1(self, size: int = -1) -> bytes:
        return self._checked(super().read1, size)

    def peek(self, n: int = 0) -> bytes:
        return self._checked(super().peek, n)

    def readline(self, size: int | None = -1) -> bytes:
        return self._checked(super().readline, size)


def open_text(path: str | os.PathLike, where: str | None = None) -> TextIO:
    """Open a (possibly gzipped) text file for reading, with a FormatError if it cannot be.

    Parameters
    ----------
    path : str or Path
    where : str, optional
        How error messages name the file (default: the path).

    Returns
    -------
    io.TextIOBase
        UTF-8 text (undecodable bytes replaced), line endings kept as written.

    Raises
    ------
    FormatError
        The file does not exist or cannot be opened.
    """
    path = Path(path)
    try:
        with open(path, "rb") as probe:
            magic = probe.read(2)
        if magic == GZIP_MAGIC:
            return io.TextIOWrapper(_CheckedGzip(path, where or path), encoding="utf-8", errors="replace")
        return open(path, encoding="utf-8", errors="replace", newline="")
    except OSError as e:
        raise _cannot_read(where or path, e) from None


def open_binary(path: str | os.PathLike, where: str | None = None) -> io.BufferedIOBase:
    """Open a (possibly gzipped) file for reading bytes; FormatError if it cannot be.

    Parameters
    ----------
    path : str or Path
    where : str, optional
        How error messages name the file (default: the path).

    Returns
    -------
    io.BufferedIOBase

    Raises
    ------
    FormatError
        The file does not exist or cannot be opened.
    """
    path = Path(path)
    try:
        with open(path, "rb") as probe:
            magic = probe.read(2)
        return _CheckedGzip(path, where or path) if magic == GZIP_MAGIC else open(path, "rb")
    except OSError as e:
        raise _cannot_read(where or path, e) from None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular(path: str | os.PathLike, where: str | None = None, *, limit: int = MAX_READ_BYTES) -> bytes:
    """All bytes of a regular file (gunzipped if gzip), refusing anything else or too much.

    The file is opened without blocking (a FIFO with no writer does not hang) and checked with
    ``fstat`` on the open descriptor, so a path swapped after the check cannot slip through.

    Parameters
    ----------
    path : str or Path
    where : str, optional
        How error messages name the file (default: the path).
    limit : int
        Most bytes accepted (after decompression).

    Returns
    -------
    bytes

    Raises
    ------
    FormatError
        No such file, not a regular file (directory, FIFO, device, socket), unreadable, a broken
        gzip stream, or more than ``limit`` bytes.

    Examples
    --------
    >>> read_regular("/dev/null")
    Traceback (most recent call last):
    ...
    pipeline.core.errors.FormatError: /dev/null: is a device, not a regular file
    """
    where = where or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise _cannot_read(where, e) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = _kind(mode)
        raise FormatError(f"{where}: is {kind}, not a regular file" if kind.startswith("a ") else f"{where}: {kind}")
    with os.fdopen(fd, "rb") as f:
        try:
            data = read_bounded(f, limit)
        except (OSError, EOFError, zlib.error) as e:
            raise FormatError(f"{where}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    if len(data) > limit:
        raise FormatError(f"{where}: larger than {limit} bytes; refusing to read it whole")
    return data


def read_regular_text(path: str | os.PathLike, where: str | None = None, *, limit: int = MAX_READ_BYTES) -> str:
    """:func:`read_regular` decoded as UTF-8 (a BOM dropped, undecodable bytes replaced), or as
    UTF-16 when it starts with a UTF-16 byte-order mark (what Windows PowerShell's ``>`` writes).

    Parameters
    ----------
    path : str or Path
    where : str, optional
    limit : int

    Returns
    -------
    str

    Raises
    ------
    FormatError
        As :func:`read_regular`.
    """
    return decoded_text(read_regular(path, where, limit=limit))


def decoded_text(data: bytes) -> str:
    """A file's bytes as text: UTF-8 (a BOM dropped, undecodable bytes replaced), or UTF-16 when
    they start with its byte-order mark (what Windows PowerShell's ``>`` writes).

    Parameters
    ----------
    data : bytes
        What :func:`read_regular` read.
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):   # UTF-16 with its mark: "unrecognised" said nothing of why
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


# manifest.json of a 100x100 reduce export lists ~10^6 kept columns (~8 MB)
MAX_MANIFEST_BYTES = 1 << 28


def load_manifest_file(path: str | os.PathLike) -> Manifest:
    """Read ``manifest.json`` (or a directory holding one) as a regular file of bounded size.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    Manifest

    Raises
    ------
    FormatError
        No such file, not a regular file (FIFO, device), larger than ``MAX_MANIFEST_BYTES``,
        or not a valid manifest.
    """
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST_NAME
    return manifest_from_json(read_regular_text(path, f"manifest {path}", limit=MAX_MANIFEST_BYTES), path)



@contextlib.contextmanager
def arrow_target(path: str | os.PathLike, mode: str = "rb") -> Iterator[Any]:
    """``path`` for pyarrow: as it is (pyarrow is fastest on a native path), or opened in ``mode``
    when its name is not UTF-8 (a byte Python keeps as a surrogate, which pyarrow cannot encode).

    Parameters
    ----------
    path : str or Path
        The file to read or write.
    mode : str
        ``"rb"`` or ``"wb"``: how to open a name pyarrow cannot take.

    Yields
    ------
    str or file
        What to give pyarrow's reader or writer.

    Examples
    --------
    >>> with arrow_target("a.parquet") as target:
    ...     target
    'a.parquet'
    """
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        with open(text, mode) as handle:
            yield handle
        return
    yield text

__all__ = ["MAX_MANIFEST_BYTES", "MAX_READ_BYTES", "WriteFailed", "arrow_target", "load_manifest_file", "atomic_open", "atomic_path",
           "check_path_argument",
           "decoded_text", "file_sha256", "is_special_file", "open_binary", "open_text", "read_regular", "read_regular_text",
           "write_failure"]
