"""What the engines that work on exported files share: where their files go, and the longest time
limit a binary is given.

SCIP, CBC, GLPK, Octave and the SAT/PB binaries write the model into a work directory and run
there. Without ``--workdir`` that is a temporary directory, removed afterwards. With
``--workdir DIR`` the files are kept, and a user's file is never replaced: the engine writes into
DIR itself only when this run creates DIR or finds it empty, otherwise into a fresh
subdirectory ``DIR/ENGINE-K`` (K = 1, 2, ...: the first number not taken), created exclusively so
that two runs never share one.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pipeline.core import stops
from pipeline.core.errors import SolveError
from pipeline.core.options import Bound, time_limit_bound

__all__ = ["BINARY_TIME_LIMIT_MAX", "binary_time_limit", "claim_workdir", "run_binary", "work_directory"]

#: The longest ``time_limit`` (seconds, about 23 days) an engine that runs a binary is given; a
#: longer one is clamped to it. Python waits for a subprocess at most 2**31 - 1 ms (24.8 days: a
#: longer ``timeout`` is an OverflowError), the runners add up to a minute of grace, and GLPK's
#: ``tmlim`` (Octave's ``solve_sudoku.m``) counts milliseconds in an int.
BINARY_TIME_LIMIT_MAX = 2_000_000.0


def binary_time_limit() -> Bound:
    """The ``time_limit`` bound of an engine that runs a binary: clamped to
    :data:`BINARY_TIME_LIMIT_MAX`.

    Returns
    -------
    Bound
    """
    return time_limit_bound(BINARY_TIME_LIMIT_MAX, "a subprocess is waited for at most 2**31 ms")


def run_binary(argv: list[str], *, cwd: Path, timeout: float | None, stdout: Any = subprocess.PIPE,
               text: bool = False) -> subprocess.CompletedProcess:
    """Run a solver binary in a process group of its own and wait for it; when ``timeout``
    passes, on Ctrl-C or the command's deadline, the whole group is killed, so a solver started by
    a wrapper script (sat4j's ``java``, a user's script first on PATH) does not outlive the run
    (killing the wrapper alone left its child running). A group member left behind by a solver
    that exited is killed too.

    Parameters
    ----------
    argv : list of str
        The command.
    cwd : Path
        Where it runs.
    timeout : float or None
        Seconds to wait (None: no limit).
    stdout
        Where its standard output goes (a pipe by default, or an open file).
    text : bool
        Decode the captured output.

    Returns
    -------
    subprocess.CompletedProcess
        ``returncode`` (minus the signal number when a signal ended it), ``stdout`` when captured,
        ``stderr``.

    Raises
    ------
    subprocess.TimeoutExpired
        ``timeout`` passed (the group is killed first).
    OSError
        The binary cannot be started.
    """
    proc: subprocess.Popen | None = None

    def kill_group(*_: object) -> None:
        if proc is None:
            return
        try:
            if hasattr(os, "killpg"):
                os.killpg(proc.pid, signal.SIGKILL)
            else:   # pragma: no cover - Windows: the process alone
                proc.kill()
        except (ProcessLookupError, PermissionError):   # the group is gone
            pass

    try:
        # a stop handled between the binary's start and ``proc`` being set would leave its group
        # running on (in a session of its own, so no terminal's Ctrl-C reaches it): it is held
        # back until then, and raised below, where the group is known and killed
        with stops.held():
            proc = subprocess.Popen(argv, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, text=text,
                                    start_new_session=hasattr(os, "killpg"))
        with stops.calling_on_stop(kill_group):   # the watchdog's hard exit takes the group along
            out, err = proc.communicate(timeout=timeout)
    except BaseException:   # the timeout, Ctrl-C, the deadline's alarm
        if proc is not None:
            kill_group()
            proc.communicate()
        raise
    kill_group()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _stem(engine: str) -> str:
    """``minisat+`` -> ``minisatplus``: an engine's name as a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", engine.replace("+", "plus"))


def claim_workdir(workdir: str | os.PathLike, engine: str) -> Path:
    """The directory ``engine`` writes its files into under the user's ``workdir``.

    ``workdir`` itself when this call creates it or finds it empty; otherwise a new
    subdirectory ``ENGINE-K`` of it (the first K after those taken), created here, so nothing
    already in ``workdir`` is ever replaced.

    Parameters
    ----------
    workdir : str or Path
        The user's ``--workdir``.
    engine : str
        The engine's name (names the subdirectory).

    Returns
    -------
    Path
        An empty directory that this call created or found empty.

    Raises
    ------
    SolveError
        ``workdir`` is empty, or exists and is not a directory.
    OSError
        It cannot be created (permissions, a full disk): the caller names the path.

    Examples
    --------
    >>> import tempfile
    >>> base = Path(tempfile.mkdtemp()) / "w"
    >>> claim_workdir(base, "cbc") == base              # created: used itself
    True
    >>> _ = (base / "model.mps").write_text("mine")
    >>> claim_workdir(base, "cbc").name, claim_workdir(base, "cbc").name
    ('cbc-1', 'cbc-2')
    >>> import shutil; shutil.rmtree(base.parent)
    """
    if not str(workdir).strip():   # Path("") is the current directory: files in the checkout, unasked
        raise SolveError(f"solver {engine}: --workdir is empty; name a directory ('.' for this one)")
    base = Path(workdir)
    try:
        base.mkdir(parents=True)
        return base
    except FileExistsError:
        if not base.is_dir():
            raise SolveError(f"solver {engine}: --workdir {str(base)!r} exists and is not a directory") from None
    except OSError as e:   # under /proc, read-only, no permission: the option is named, not only the path
        raise SolveError(f"solver {engine}: --workdir {str(base)!r}: cannot create it: {e.strerror or e}") from None
    with os.scandir(base) as entries:
        names = [entry.name for entry in entries]
    if not names:
        return base
    stem = _stem(engine)
    pattern = re.compile(rf"{re.escape(stem)}-(\d+)")
    k = 1 + max((int(m.group(1)) for m in map(pattern.fullmatch, names) if m), default=0)
    while True:   # another run may take the same number between the listing and the mkdir
        sub = base / f"{stem}-{k}"
        try:
            sub.mkdir()
            return sub
        except FileExistsError:
            k += 1


@contextmanager
def work_directory(workdir: str | os.PathLike | None, engine: str) -> Iterator[tuple[Path, bool]]:
    """``(directory, kept)`` for one run of ``engine``: :func:`claim_workdir` under ``workdir``
    (kept), or a temporary directory removed on exit (``workdir`` None).

    Parameters
    ----------
    workdir : str or Path, optional
        The user's ``--workdir``.
    engine : str
        The engine's name.

    Yields
    ------
    (Path, bool)
    """
    if workdir is None:
        # (not TemporaryDirectory: a Ctrl-C inside it, before its finalizer is set, left the directory)
        with stops.temporary_directory(f"sudoku-{_stem(engine)}-") as tmp, stops.removed_at_hard_exit(tmp):
            yield Path(tmp), False
    else:
        yield claim_workdir(workdir, engine), True
