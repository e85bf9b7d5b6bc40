"""Options a registered function declares, and the one check that refuses any other.

A solver's ``solve``/``count`` and a format's ``write``/``export``/``describe`` declare the options
they take as keyword parameters of their signature (no ``**kwargs``: an option nobody reads would
vanish silently). The registries (:class:`pipeline.solvers.base.Solver`,
:class:`formats.base.Format`) read the names with :func:`declared_options` and wrap the function
with :func:`refusing_unknown`, so a misspelt option is refused with one line naming the option
and the engine or format; a caller holding everybody's options (the CLI, ``export_model``) passes
each function only its own (:func:`pick`).
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from pipeline.core.errors import PipelineError

__all__ = ["declared_options", "pick", "refusing_unknown"]

_RAW = "__declared_raw__"   # the wrapped function, so that wrapping again starts from it


def declared_options(fn: Callable[..., Any], positional: int) -> frozenset[str]:
    """The option names ``fn`` declares: its parameters after the first ``positional`` ones.

    Parameters
    ----------
    fn : callable
        A registered function (or its :func:`refusing_unknown` wrapper).
    positional : int
        Leading parameters that are not options (``model``; ``model, limit`` for ``count``).

    Returns
    -------
    frozenset of str

    Raises
    ------
    TypeError
        ``fn`` takes ``**kwargs``: it would swallow misspelt options (a programming error, so
        not a PipelineError).

    Examples
    --------
    >>> def solve(model, *, time_limit=None, threads=None):
    ...     pass
    >>> sorted(declared_options(solve, 1))
    ['threads', 'time_limit']
    """
    fn = getattr(fn, _RAW, fn)
    params = list(inspect.signature(fn).parameters.values())
    if any(p.kind is p.VAR_KEYWORD for p in params):
        raise TypeError(f"{getattr(fn, '__qualname__', fn)} takes **{params[-1].name}: declare each option "
                        "as a keyword parameter instead")
    return frozenset(p.name for p in params[positional:]
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def refusing_unknown(fn: Callable[..., Any], allowed: frozenset[str], owner: str,
                     error: type[PipelineError]) -> Callable[..., Any]:
    """``fn`` that first refuses keyword options outside ``allowed`` with one line.

    Parameters
    ----------
    fn : callable
        The registered function (an earlier wrapper is unwrapped first).
    allowed : frozenset of str
        Its declared options (:func:`declared_options`).
    owner : str
        How the message names it, e.g. ``"solver sat: solve"``.
    error : type
        The :class:`PipelineError` subclass to raise (``SolveError``, ``FormatError``).

    Returns
    -------
    callable
        Same arguments and result as ``fn``.

    Examples
    --------
    >>> def write(model, path, *, style="free"):
    ...     return style
    >>> checked = refusing_unknown(write, frozenset({"style"}), "format mps: write", PipelineError)
    >>> checked(None, "m.mps", style="fixed")
    'fixed'
    >>> checked(None, "m.mps", stlye="fixed")
    Traceback (most recent call last):
    ...
    pipeline.core.errors.PipelineError: format mps: write takes no option 'stlye' (it takes: style)
    """
    fn = getattr(fn, _RAW, fn)
    takes = ", ".join(sorted(allowed)) or "none"

    @functools.wraps(fn)
    def call(*args: Any, **options: Any) -> Any:
        unknown = [name for name in options if name not in allowed]
        if unknown:
            raise error(f"{owner} takes no option {unknown[0]!r} (it takes: {takes})")
        return fn(*args, **options)

    setattr(call, _RAW, fn)
    return call


def pick(options: Mapping[str, Any], allowed: frozenset[str]) -> dict[str, Any]:
    """The entries of ``options`` whose names are in ``allowed``: what a caller holding every
    engine's options passes to one engine.

    Parameters
    ----------
    options : mapping
        Option names and values.
    allowed : frozenset of str
        The names one function declares.

    Returns
    -------
    dict

    Examples
    --------
    >>> pick({"time_limit": 5, "amo": "auto"}, frozenset({"time_limit"}))
    {'time_limit': 5}
    """
    return {name: value for name, value in options.items() if name in allowed}
