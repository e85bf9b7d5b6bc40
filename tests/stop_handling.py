"""Helpers for the tests of a stop (Ctrl-C) that lands right after something is created and
before it is recorded for its clean-up (tests/core/test_held_creation.py, tests/formats/test_files.py,
tests/solvers/test_workdir.py): SIGINT handled one way or the other, and a creating call that
sends SIGINT to this process the moment it returns."""
from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from typing import Any

from pipeline.core import stops

#: The two ways a SIGINT is handled: Python's own KeyboardInterrupt, and the command line's handlers.
HANDLINGS = ("python", "command line")


@contextlib.contextmanager
def sigint_handled(handling: str, monkeypatch: Any) -> Iterator[None]:
    """SIGINT raising KeyboardInterrupt Python's own way (``"python"``) or through the command
    line's handlers (``"command line"``, :func:`stops.install`); this worker's handlers and stops'
    state are restored afterwards."""
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    if handling == "python":
        signal.signal(signal.SIGINT, signal.default_int_handler)
    else:
        monkeypatch.setattr(stops._S, "installed", stops._S.installed)   # this worker's own handling after
        stops.begin()
        stops.install(watch=False)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        stops.begin()


def signalling_after(make: Callable[..., Any], made: list | None = None) -> Callable[..., Any]:
    """``make`` as it is, but SIGINT is sent to this process the moment it returns (what it made
    appended to ``made`` first)."""
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        result = make(*args, **kwargs)
        if made is not None:
            made.append(result)
        os.kill(os.getpid(), signal.SIGINT)
        return result
    return wrapped


def signalling_in_set_name(call: Callable[..., Any], signum: int = signal.SIGINT) -> Callable[..., Any]:
    """``call`` as it is, but first a class is made whose attribute's ``__set_name__`` sends
    ``signum`` to this process and lets its handler run there (a signal that lands while a library
    is imported lazily): Python 3.11 raises what the handler raised wrapped in a RuntimeError
    ("Error calling __set_name__ ...")."""
    class Signalling:
        def __set_name__(self, owner: type, name: str) -> None:
            os.kill(os.getpid(), signum)
            for _ in range(10_000):   # the handler runs at one of these bytecodes, still in here
                pass

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        type("MadeLazily", (), {"attribute": Signalling()})
        return call(*args, **kwargs)
    return wrapped
