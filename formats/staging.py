"""An export set as one unit: written into a staging directory, then swapped into place.

``export_model`` writes every file of a set (and its ``manifest.json``) into a hidden staging
directory inside the export directory, ``DIR/.sudoku-export.XXXXXXXX.tmp``, and only then
commits it (:meth:`Stage.commit`). The commit holds an exclusive lock on ``DIR`` (``flock`` of
the directory itself: no lock file is left behind) and defers SIGINT and SIGTERM until it is
done; it is renames only, so it takes milliseconds whatever the size of the set:

1. check every name the new set writes: a file there must be one an earlier export's manifest
   lists (a user's own file, a symbolic link or a directory in the way is a refusal, and
   nothing has been touched yet); and every earlier file the new set would remove must still
   hold the bytes the earlier manifest's digest records (one the user edited is a refusal too);
2. move the old ``manifest.json`` into the staging directory as ``replaced-manifest.json``
   (the journal: from here on ``DIR`` claims no set);
3. rename each new file over ``DIR``; remove the earlier set's files the new one does not write;
4. rename the new ``manifest.json`` in last, and remove the staging directory.

So an export interrupted while writing (Ctrl-C, a full disk, a crash) leaves the earlier set
whole; an interrupt during the commit takes effect when it ends; two exports into one
directory commit one after the other, and the later one replaces the earlier one whole. Only a
process killed outright (SIGKILL, power loss) during the renames leaves ``DIR`` without a
manifest; its staging directory then still holds both manifests, and the next export into
``DIR`` removes the files they list before committing (:func:`dead_stages`). A live export's
staging directory is ``flock``-ed by its owner, so it is never taken for a dead one.

Why not a sibling directory renamed over ``DIR``? ``DIR`` may hold a user's own files
(``notes.txt``) that must stay, a directory cannot be renamed over a non-empty one, and the
parent of ``DIR`` may not be writable; staging inside ``DIR`` keeps every rename on one file
system and within the one directory the user named.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from types import ModuleType
from typing import Any

from pipeline.core.errors import FormatError
from pipeline.core.manifest import MANIFEST_NAME
from pipeline.core.stops import deferred_signals

from formats.files import MAX_MANIFEST_BYTES, file_sha256, read_regular_text, write_failure


def _posix_locks() -> ModuleType | None:
    """``fcntl`` where the system has it (POSIX); None elsewhere: then no locks, as batch's."""
    try:
        import fcntl as module
    except ImportError:
        return None
    return module


fcntl = _posix_locks()

STAGING_PREFIX = ".sudoku-export."
STAGING_SUFFIX = ".tmp"
#: The earlier set's manifest, moved into the staging directory while a commit runs.
JOURNAL_NAME = "replaced-manifest.json"
#: File-name endings an export's files have: every registered format's extensions and the
#: endings of the names it writes (:func:`note_export_endings`, called by
#: :func:`formats.base.register`): what a manifest may name for removal, and what ``check``
#: looks at. A manifest naming anything else (thesis.docx) is not obeyed.
_EXPORT_ENDINGS: set[str] = set()


def note_export_endings(extensions: tuple[str, ...], file_names: tuple[str, ...]) -> None:
    """Add a registered format's endings: its ``extensions`` and the full suffix of each of its
    ``file_names`` (``puzzle.iss.txt``: ``.iss.txt``, not ``.txt``, which a user's notes have).

    Parameters
    ----------
    extensions : tuple of str
        The format's extensions (``.cnf``, ``.dimacs``).
    file_names : tuple of str
        The names its export writes (``solve_sudoku.m``).
    """
    _EXPORT_ENDINGS.update(ext.lower() for ext in extensions)
    _EXPORT_ENDINGS.update("".join(Path(name).suffixes).lower() for name in file_names if Path(name).suffix)


def export_suffixes() -> tuple[str, ...]:
    """The endings an export's files have (every registered format's), for ``str.endswith``.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> {".mps", ".m", ".iss.txt", ".dimacs"} <= set(export_suffixes())
    True
    """
    return tuple(sorted(_EXPORT_ENDINGS))


def is_staging_name(name: str) -> bool:
    """Whether ``name`` is the name of an export's staging directory."""
    return name.startswith(STAGING_PREFIX) and name.endswith(STAGING_SUFFIX)


def read_manifest_json(path: Path) -> Any:
    """The JSON value of a manifest file, or None when it is absent or not readable JSON."""
    try:
        return json.loads(read_regular_text(path, limit=MAX_MANIFEST_BYTES))
    except (FormatError, ValueError, RecursionError):
        return None


def is_export_manifest(meta: object) -> bool:
    """Whether a manifest's JSON value is an export's (an object listing its files by format)."""
    return isinstance(meta, dict) and isinstance(meta.get("files"), dict)


def listed_export_files(meta: object) -> set[str]:
    """Names of the files a manifest's JSON value lists that an export may have written.

    Only plain names (no path separator, not hidden, not ``manifest.json`` itself) with an
    export file's ending are taken, so a tampered manifest cannot point outside the directory
    or at a user's own files. Anything that is not an export manifest lists nothing.

    Parameters
    ----------
    meta : object
        The parsed ``manifest.json`` (None when absent).

    Returns
    -------
    set of str

    Examples
    --------
    >>> sorted(listed_export_files({"files": {"csv": ["beq.csv", "../x.csv", ".h.csv"], "n": ["a.docx"]}}))
    ['beq.csv']
    """
    if not isinstance(meta, dict) or not is_export_manifest(meta):
        return set()
    names, endings = set(), export_suffixes()
    for listed in meta["files"].values():
        for name in listed if isinstance(listed, list) else ():
            if (isinstance(name, str) and name == Path(name).name and not name.startswith(".")
                    and name != MANIFEST_NAME and "\\" not in name and name.lower().endswith(endings)):
                names.add(name)
    return names


def lock_exclusive(fd: int, blocking: bool) -> bool:
    """Take an exclusive ``flock`` on ``fd``; False when ``blocking`` is off and it is held.

    Parameters
    ----------
    fd : int
        An open descriptor (of the export directory).
    blocking : bool
        Wait for the lock.

    Returns
    -------
    bool
    """
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def directory_lock(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``directory`` itself (waiting for another export's commit)."""
    if fcntl is None:   # no flock (nor directory descriptors) here: no lock, as batch's
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        lock_exclusive(fd, blocking=True)
        yield
    finally:
        os.close(fd)   # closing the descriptor releases the lock


@dataclass
class DeadStage:
    """A staging directory whose export is gone: the names its manifests list, and its lock."""

    path: Path
    fd: int
    names: set[str] = field(default_factory=set)


def staging_dirs(directory: Path, own: Path | None = None) -> Iterator[tuple[Path, int, bool]]:
    """The staging directories in ``directory`` (not ``own``, no symbolic link), each opened and
    tried for its lock: ``(path, fd, free)``. ``free``: no live export holds it, and the caller
    now holds its lock while ``fd`` is open. The caller closes ``fd``.

    Parameters
    ----------
    directory : Path
        The export directory.
    own : Path, optional
        The caller's own staging directory (skipped).
    """
    for entry in sorted(directory.iterdir()):
        if not is_staging_name(entry.name) or entry == own or entry.is_symlink() or not entry.is_dir():
            continue
        try:
            fd = os.open(entry, os.O_RDONLY)
        except OSError:
            continue
        yield entry, fd, lock_exclusive(fd, blocking=False)


def dead_stages(directory: Path, own: Path | None = None) -> list[DeadStage]:
    """The staging directories in ``directory`` no live export holds (locked now by the caller).

    Each one's ``manifest.json`` (the set it was committing) and ``replaced-manifest.json`` (the
    set it was replacing) name files that are an export's, whatever ``DIR``'s manifest says.

    Parameters
    ----------
    directory : Path
        The export directory.
    own : Path, optional
        The caller's own staging directory (never dead).
    """
    found = []
    for entry, fd, free in staging_dirs(directory, own):
        if not free:   # its export is still writing
            os.close(fd)
            continue
        names = (listed_export_files(read_manifest_json(entry / MANIFEST_NAME))
                 | listed_export_files(read_manifest_json(entry / JOURNAL_NAME)))
        found.append(DeadStage(entry, fd, names))
    return found


def _in_the_way(target: Path, ours: set[str]) -> str | None:
    """Why ``target`` must not be replaced (None when it may be: absent, or an export's file)."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if stat.S_ISDIR(st.st_mode):
        return "is a directory"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if target.name == MANIFEST_NAME:
        return None if is_export_manifest(read_manifest_json(target)) else "is not an export's manifest"
    return None if target.name in ours else "exists and no export's manifest.json here lists it"


@dataclass
class Stage:
    """A staging directory of one export (created by :func:`staged_export`)."""

    directory: Path
    path: Path
    fd: int
    committed: bool = False
    # the earlier set's manifest is in the journal: keep this directory for the next export
    keep: bool = False

    def commit(self, names: list[str]) -> None:
        """Swap the staged set (``names`` plus the staged ``manifest.json``) into the directory.

        Raises
        ------
        FormatError
            A file the set would replace is not one an earlier export wrote (a user's own file,
            a symbolic link, a directory), or one it would remove was edited since; nothing in
            the directory has been changed.
        OSError
            A rename failed (then the earlier set's manifest stays in the journal, and the
            next export finishes the clean-up).
        """
        directory = self.directory
        with directory_lock(directory), deferred_signals():
            manifest = directory / MANIFEST_NAME
            dead = dead_stages(directory, own=self.path)
            try:
                earlier_meta = read_manifest_json(manifest)
                earlier = listed_export_files(earlier_meta)
                ours = earlier.union(*(d.names for d in dead))
                for name in [*names, MANIFEST_NAME]:
                    why = _in_the_way(directory / name, ours)
                    if why:
                        raise FormatError(f"{directory / name}: {why}; an export replaces only the files of an "
                                          f"earlier export; move it away or export into another directory")
                edited = _edited_since(directory, sorted(earlier - set(names)), earlier_meta)
                if edited:   # the new set does not write it, so it would be removed: it is the user's now
                    raise FormatError(f"{directory / edited}: changed since the earlier export wrote it (its "
                                      f"SHA-256 is not the manifest's), and this export would remove it; move it "
                                      f"away or export into another directory")
                if manifest.exists():
                    os.replace(manifest, self.path / JOURNAL_NAME)
                    self.keep = True
                for name in names:
                    _replace_keeping_mode(self.path / name, directory / name)
                for name in sorted(ours - set(names)):
                    _remove_regular(directory / name)
                os.replace(self.path / MANIFEST_NAME, manifest)
                self.committed, self.keep = True, False
            finally:
                for stage in dead:
                    if self.committed:
                        shutil.rmtree(stage.path, ignore_errors=True)
                    os.close(stage.fd)


def _edited_since(directory: Path, names: list[str], meta: object) -> str | None:
    """The first of ``names`` whose bytes are not the ones the earlier manifest's ``sha256``
    records (None when all are, or when that manifest records no digests)."""
    digests = meta.get("sha256") if isinstance(meta, dict) else None
    if not isinstance(digests, dict):
        return None
    for name in names:
        path = directory / name
        digest = digests.get(name)
        if isinstance(digest, str) and path.is_file() and not path.is_symlink() and file_sha256(path) != digest:
            return name
    return None


def _replace_keeping_mode(staged: Path, target: Path) -> None:
    """Rename ``staged`` over ``target``, giving it the mode of the file it replaces (as a
    write in place would keep it)."""
    with contextlib.suppress(OSError):
        os.chmod(staged, stat.S_IMODE(os.stat(target, follow_symlinks=False).st_mode))
    os.replace(staged, target)


def _remove_regular(path: Path) -> None:
    """Remove ``path`` if it is a regular file (an earlier set's; links and others stay)."""
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError as e:
        raise FormatError(f"{path}: cannot remove this file of the earlier export: {e.strerror or e}") from None


@contextlib.contextmanager
def staged_export(directory: Path) -> Iterator["Stage"]:
    """A fresh staging directory in ``directory`` for one export, removed when the block ends
    (the files of a committed set have been moved out of it by then).

    Creating it (and removing it) holds Ctrl-C back, so an interrupt never leaves a staging
    directory that no one removes; it is created and locked under the directory's lock, so
    another export never takes it for a dead one.

    Yields
    ------
    Stage
    """
    stage = None
    try:
        # a Ctrl-C held back here is delivered when the block ends: inside this try
        with deferred_signals(), directory_lock(directory):
            try:
                path = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, suffix=STAGING_SUFFIX, dir=directory))
            except OSError as e:
                raise write_failure(directory, e, into=True) from None
            stage = Stage(directory, path, os.open(path, os.O_RDONLY) if fcntl is not None else -1)
            lock_exclusive(stage.fd, blocking=False)
        yield stage
    finally:
        if stage is not None:
            with deferred_signals():
                try:
                    if not stage.keep:   # a failed commit's journal stays for the next export
                        shutil.rmtree(stage.path, ignore_errors=True)
                finally:
                    if stage.fd >= 0:
                        os.close(stage.fd)
