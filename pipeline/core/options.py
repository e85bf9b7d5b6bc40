"""Options a registered function declares, and the one check that refuses any other.

A solver's ``solve``/``count`` and a format's ``write``/``export``/``describe`` declare the options
they take as keyword parameters of their signature (no ``**kwargs``: an option nobody reads would
vanish silently). The registries (:class:`pipeline.solvers.base.Solver`,
:class:`formats.base.Format`) read the names with :func:`declared_options` and wrap the function
with :func:`refusing_unknown`, so a misspelt option is refused with one line naming the option
and the engine or format; a caller holding everybody's options (the CLI, ``export_model``) passes
each function only its own (:func:`pick`).

A numeric option also has the values its engine takes (:class:`Bound`): the registry entry checks
them before the call, so a value the engine cannot take (``time_limit=1e308`` for a binary whose
timeout counts milliseconds in an int) is clamped to the engine's maximum or refused with one line,
never a traceback from deep inside the engine.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pipeline.core.errors import PipelineError, clip, refuse_huge_integers

__all__ = ["MAX_THREADS", "Bound", "TypedFloat", "declared_options", "float_option", "pick", "refusing_unknown",
           "threads_bound", "time_limit_bound"]

#: Most threads an engine may be asked for: far above any core count this runs on, far below the
#: thousands that made HiGHS abort (issue 11 item 9). The CLI's ``--threads`` range too.
MAX_THREADS = 256

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


@dataclass(frozen=True)
class Bound:
    """The values an engine takes for one numeric option.

    A value from ``low`` (excluded when ``low_open``) to ``high``; ``None`` always passes (the
    engine's default). Above ``high`` it is clamped to ``high`` (``above="clamp"``: for a time
    limit of days, which an engine counts in an int, the larger limit would never be reached
    anyway) or refused (``above="refuse"``). NaN, infinities, booleans, non-numbers and (for
    ``integer``) fractions are refused. ``why`` says where ``high`` comes from.

    Examples
    --------
    >>> seconds = Bound(0.0, 100.0, low_open=True, what="a finite number of seconds", why="an int of ms")
    >>> seconds.apply("time_limit", 1e308, "solver x: solve", PipelineError)
    100.0
    >>> Bound(0.0, low_open=True).apply("time_limit", 10**400, "solver x: solve", PipelineError)
    1.7976931348623157e+308
    >>> seconds.apply("time_limit", -1, "solver x: solve", PipelineError)
    Traceback (most recent call last):
    ...
    pipeline.core.errors.PipelineError: solver x: solve: time_limit must be a finite number of seconds greater than 0, found -1
    """

    low: float
    high: float = math.inf
    above: str = "clamp"
    low_open: bool = False
    integer: bool = False
    #: How the refusal names a value, e.g. ``"a finite number of seconds"``, ``"an integer"``.
    what: str = "a finite number"
    #: Why ``high`` is where it is (the engine's own limit), for the refusal and the help.
    why: str = ""

    def __post_init__(self) -> None:
        if self.above not in ("clamp", "refuse"):
            raise TypeError(f"Bound.above: 'clamp' or 'refuse', not {self.above!r}")

    def describe(self) -> str:
        """The range in words: ``a finite number of seconds greater than 0``, ``an integer from 1 to 256``."""
        if self.above == "refuse" and math.isfinite(self.high):
            return f"{self.what} from {_number(self.low)} to {_number(self.high)}"
        return f"{self.what} {'greater than' if self.low_open else 'at least'} {_number(self.low)}"

    def apply(self, name: str, value: Any, owner: str, error: type[PipelineError]) -> Any:
        """``value`` checked: itself, or ``high`` when clamped; else one line.

        Parameters
        ----------
        name : str
            The option's name (for the message).
        value : object
            What the caller passed.
        owner : str
            Who takes it, e.g. ``"solver cbc: solve"``; ``""`` for a message about the option
            alone, ``NAME: must be ...`` (:meth:`PipelineError.for_option`, as a command line's
            option errors read).
        error : type
            The :class:`PipelineError` subclass to raise.

        Returns
        -------
        object
            ``value``, or ``high`` (as the value's type) when it was above and is clamped.

        Raises
        ------
        PipelineError
            ``OWNER: NAME must be RANGE, found VALUE`` (``NAME: must be ...`` without an owner).
        """
        def refused(detail: str) -> PipelineError:
            return error(f"{owner}: {name} {detail}") if owner else error.for_option(name, detail)

        if value is None:
            return None
        number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        integral = isinstance(value, numbers.Integral)   # any size (math.isfinite(10**400) overflows)
        if not number or (self.integer and not integral) or (not integral and not math.isfinite(value)) \
                or value < self.low or (self.low_open and value == self.low):
            raise refused(f"must be {self.describe()}, found {_number(value) if number else repr(value)}")
        if value > self.high:
            if self.above == "refuse":
                raise refused(f"must be {self.describe()}{f' ({self.why})' if self.why else ''}, found {_number(value)}")
            return int(self.high) if self.integer else float(self.high)
        if integral and not self.integer and value > _LARGEST_FLOAT:
            # an int no float holds (10**400 seconds): as long as a float can say, since the
            # engines add it to a clock reading (int + float overflows)
            return _LARGEST_FLOAT
        return value


#: The largest float: what an int beyond it becomes for an option that is not an integer.
_LARGEST_FLOAT = sys.float_info.max


def _number(value: Any) -> str:
    """``5``, ``0.25``, ``1e+308``, ``nan``: a number as a message shows it (a huge int shortened)."""
    if isinstance(value, numbers.Integral):
        text = str(int(value))
        return text if len(text) <= 20 else f"{text[:3]}...({len(text)} digits)"
    return format(value, "g") if isinstance(value, float) else f"{float(value):g}"   # a TypedFloat: as typed


class TypedFloat(float):
    """A float option's value that keeps the text it was typed as: ``1e400`` reads as ``inf`` and
    ``1e-400`` as ``0``, and a message refusing the value shows what was typed (``found 1e400``,
    not ``found inf``). A value read as typed formats as any float."""

    text: str

    def __new__(cls, text: str) -> TypedFloat:
        value = super().__new__(cls, text)
        value.text = text.strip()
        return value

    def _misread(self) -> bool:
        """Whether the value is not what the text says: it overflowed to infinity or underflowed to 0."""
        mantissa = self.text.lower().lstrip("+-").partition("e")[0]
        if not math.isfinite(self):
            return mantissa not in ("inf", "infinity", "nan")
        return self == 0 and any(ch in "123456789" for ch in mantissa)

    def __format__(self, spec: str) -> str:
        return self.text if self._misread() else super().__format__(spec)

    def __repr__(self) -> str:
        return self.text if self._misread() else super().__repr__()

    def __reduce__(self) -> tuple:
        return float, (float(self),)   # to a worker process or a copy: the value (its text was for messages)


def float_option(text: str) -> float:
    """An argparse ``type`` for a float option: its value as a :class:`TypedFloat`.

    Parameters
    ----------
    text : str
        The option's argument.

    Returns
    -------
    float

    Examples
    --------
    >>> f"found {float_option('1e400'):g}", f"{float_option('2.50'):g}"
    ('found 1e400', '2.5')
    """
    return TypedFloat(text)


float_option.__name__ = "float"   # argparse names the type in its refusal: "invalid float value: 'x'"


def time_limit_bound(high: float = math.inf, why: str = "") -> Bound:
    """An engine's ``time_limit``: finite seconds above 0, clamped to ``high`` (the most the
    engine takes; ``why`` says why).

    Parameters
    ----------
    high : float, default inf
        The longest limit the engine takes (inf: any finite number).
    why : str
        Where that maximum comes from.

    Returns
    -------
    Bound
    """
    return Bound(0.0, high, "clamp", low_open=True, what="a finite number of seconds", why=why)


#: ``count(..., keep=K)``, the grids a count holds: the same range on every engine that takes it,
#: so the registry applies it to each (:meth:`pipeline.solvers.Solver._bounds_of`).
KEEP_BOUND = Bound(0, integer=True, what="an integer")


def threads_bound(why: str = "more make an engine abort or refuse its model") -> Bound:
    """An engine's ``threads``: an integer from 1 to :data:`MAX_THREADS`, refused above.

    Parameters
    ----------
    why : str
        Why more are refused.

    Returns
    -------
    Bound
    """
    return Bound(1, MAX_THREADS, "refuse", integer=True, what="an integer", why=why)


def refusing_unknown(fn: Callable[..., Any], allowed: frozenset[str], owner: str,
                     error: type[PipelineError], bounds: Mapping[str, Bound] | None = None) -> Callable[..., Any]:
    """``fn`` that first refuses keyword options outside ``allowed`` with one line, and checks
    (clamps or refuses) the values ``bounds`` limits.

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
    bounds : mapping of str to Bound, optional
        The values some of its options take (:class:`Bound`); each must be in ``allowed``.

    Returns
    -------
    callable
        Same arguments and result as ``fn``.

    Raises
    ------
    TypeError
        A bound names an option ``fn`` does not declare (a programming error).

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
    bounds = dict(bounds or {})
    if set(bounds) - allowed:
        raise TypeError(f"{owner}: bounds for options it does not declare: {', '.join(sorted(set(bounds) - allowed))}")

    @functools.wraps(fn)
    def call(*args: Any, **options: Any) -> Any:
        unknown = [name for name in options if name not in allowed]
        if unknown:
            raise error(f"{owner} takes no option {unknown[0]!r} (it takes: {takes})")
        for name in bounds.keys() & options.keys():
            options[name] = bounds[name].apply(name, options[name], owner, error)
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


def check_puzzle_options(box: Any = None, variant: Any = None, size: Any = None, rules: Any = None,
                         source: Any = None, regions: Any = None) -> None:
    """Refuse a puzzle reader's option of the wrong type in one line (an API caller's ``box=5``
    was a ``TypeError`` from deep in the parser, ``size=4.5`` asked for 20.25 cells), and an
    integer of more than 4,096 bits anywhere in them or in the source given as Python objects (one
    of over 4,300 digits could not even be written into a message).

    Parameters
    ----------
    box, variant, size, rules
        :func:`pipeline.core.puzzle.parse_puzzle`'s options, as given.
    source, regions
        Its source and regions, looked at for integers only.

    Raises
    ------
    PipelineError
        ``OPTION: must be ..., found ...``.

    Examples
    --------
    >>> check_puzzle_options(box="3x3", size=9, rules=[{"rule": "antiknight"}])
    >>> check_puzzle_options(size=4.5)
    Traceback (most recent call last):
    ...
    pipeline.core.errors.PipelineError: size: must be a whole number from 1, found float 4.5
    """
    for name, value in (("puzzle", source), ("box", box), ("size", size), ("rules", rules), ("regions", regions)):
        if value is not None and not isinstance(value, (str, bytes)):
            refuse_huge_integers(value, name)

    def whole(value: Any) -> bool:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= 1

    def found(value: Any) -> str:
        return f"found {type(value).__name__} {clip(value)}"

    if box is not None and not isinstance(box, str) and not (
            isinstance(box, (tuple, list)) and len(box) == 2 and all(whole(v) for v in box)):
        raise PipelineError(f"box: must be text like \"3x3\" or a pair (h, w) of whole numbers, {found(box)}")
    if variant is not None and not isinstance(variant, str):
        raise PipelineError(f"variant: must be text (classic, x, jigsaw, ...), {found(variant)}")
    if size is not None and not whole(size):
        raise PipelineError(f"size: must be a whole number from 1, {found(size)}")
    if rules is not None and not (isinstance(rules, (list, tuple)) and all(isinstance(e, dict) for e in rules)):
        raise PipelineError(f"rules: must be a list of rule entries (dicts such as {{\"rule\": \"antiknight\"}}), "
                            f"{found(rules)}")
