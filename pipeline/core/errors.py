"""Typed exceptions: every bad input surfaces as one of these, never a traceback."""
import json
import re
from typing import Any, TypeVar

_E = TypeVar("_E", bound="PipelineError")


class PipelineError(ValueError):
    """Base class for every user-facing error of the pipeline (bad input, bad file).

    An error about one keyword's value (:meth:`for_option`) keeps the keyword in ``option`` and
    the rest in ``detail``: the command line says it with the option as typed (``--chunk-size:
    must be ...``), the Python API with the keyword (``chunk_size must be ...``).
    """

    #: the keyword whose value is refused, as the Python API spells it (None: no one option's)
    option: str | None = None
    #: the message without the keyword
    detail: str = ""
    #: a message naming several keywords (:meth:`for_options`): ``str.format`` fields named by
    #: keyword, and each keyword's value (None: not such a message)
    template: str | None = None
    values: dict | None = None

    @classmethod
    def for_options(cls: type[_E], template: str, **values: object) -> _E:
        """The error ``template`` with each ``{keyword}`` field as the Python API spells it:
        ``minimal=True``, ``symmetry='rot90'``, and a keyword whose value is ``...`` bare
        (``rules``); :meth:`spelled` says it with the options as a command line types them.

        Parameters
        ----------
        template : str
            The message, a ``str.format`` template with one field per keyword.
        **values
            Each keyword's value (``True`` for a flag that is on, ``...`` to name it alone).

        Examples
        --------
        >>> e = PipelineError.for_options("{minimal} cannot be combined with {symmetry}", minimal=True,
        ...                               symmetry="rot90")
        >>> str(e)
        "minimal=True cannot be combined with symmetry='rot90'"
        >>> str(e.spelled({}))
        '--minimal cannot be combined with --symmetry rot90'
        """
        def keyword(name: str, value: object) -> str:
            return name if value is ... else f"{name}={value!r}"
        error = cls(template.format(**{name: keyword(name, v) for name, v in values.items()}))
        error.template, error.values = template, values
        return error

    def spelled(self: _E, flags: dict[str, str]) -> _E:
        """This :meth:`for_options` error with its keywords as typed on a command line: a keyword's
        flag from ``flags``, else ``--`` and the keyword with dashes (``cages_only``:
        ``--cages-only``), followed by its value unless that is ``True`` or ``...``.

        Parameters
        ----------
        flags : dict of str to str
            Keyword -> option as typed, where it is not the keyword with dashes (``rules``: ``--rule``).
        """
        if self.template is None or self.values is None:
            return self

        def typed(name: str, value: object) -> str:
            flag = flags.get(name, "--" + name.replace("_", "-"))
            return flag if value is True or value is ... else f"{flag} {value}"
        self.args = (self.template.format(**{name: typed(name, v) for name, v in self.values.items()}),)
        return self

    @classmethod
    def for_option(cls: type[_E], option: str, detail: str, sep: str = ": ") -> _E:
        """The error ``OPTION<sep>DETAIL`` about keyword ``option``.

        Parameters
        ----------
        option : str
            The keyword, as the Python API spells it.
        detail : str
            What is wrong with its value.
        sep : str, default ": "
            Between the two in the message.

        Examples
        --------
        >>> e = PipelineError.for_option("cap", "must be at least 2, found 0")
        >>> str(e), str(e.named("--cap"))
        ('cap: must be at least 2, found 0', '--cap: must be at least 2, found 0')
        """
        error = cls(f"{option}{sep}{detail}")
        error.option, error.detail = option, detail
        return error

    def named(self: _E, flag: str) -> _E:
        """This error with its option named ``flag`` (``--cap: ...``), as a command line says it.

        Parameters
        ----------
        flag : str
            The option as typed.
        """
        self.args = (f"{flag}: {self.detail}",)
        return self


class PuzzleError(PipelineError):
    """A puzzle (grid, clue list, regions, box shape) is malformed or contradictory."""


class SeveralPuzzles(PuzzleError):
    """The input holds many puzzles (a table or lines of batch's input) where one is read.

    ``stdin_text`` is the input's text when it came from standard input, which is read once (a
    caller that reads a table of one record as its puzzle reads it from there).
    """

    def __init__(self, message: str, *, stdin_text: str | None = None):
        super().__init__(message)
        self.stdin_text = stdin_text


class ClueConflictError(PuzzleError):
    """The clues break a rule directly: a digit twice in a unit, or clues a rule forbids together
    (``explain`` explains these; every other command refuses them)."""


class RuleCannotHoldError(PuzzleError):
    """A rule no grid can keep, told from its own fields (a cage sum out of reach): refused alone;
    in a branch of an ``anyof`` rule it makes that branch one that never holds."""


class ModelTooLarge(PuzzleError):
    """A grid or layout whose model would need more memory than allowed
    (:func:`pipeline.core.limits.check_grid_size`): a batch record's status ``memory_limit``,
    which ``--retry`` takes once the limit is raised."""


class ConventionError(PipelineError):
    """An index convention is unknown or undefined for the puzzle (e.g. block on jigsaw)."""


class FormatError(PipelineError):
    """A model or solution file cannot be written or read as asked."""


class NoSolutionReported(FormatError):
    """A solution file whose solver says it found no solution.

    ``status`` is ``infeasible``, ``time_limit`` or ``no_solution`` (any other reason).
    """

    def __init__(self, message: str, status: str):
        super().__init__(message)
        self.status = status


class WrongValueCount(FormatError):
    """A positional answer whose number of values fits neither the export's columns nor the
    grid's variables; ``found`` is its count (an answer of another export of the puzzle, such as
    one with ``--clues reduce``, is told apart by it)."""

    def __init__(self, message: str, found: int):
        super().__init__(message)
        self.found = found


class SolveError(PipelineError):
    """A solver could not be run or did not return a usable answer."""


def json_kind(value: object) -> str:
    """How a message names the kind of a value read from JSON (``null``, ``boolean``, ``number``,
    ``string``, ``array``, ``object``); any other Python value by its type's name.

    Examples
    --------
    >>> [json_kind(v) for v in (None, True, 3, 2.5, "x", [1], {}, (1,))]
    ['null', 'boolean', 'number', 'number', 'string', 'array', 'object', 'tuple']
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    kinds = {int: "number", float: "number", str: "string", list: "array", dict: "object"}
    return kinds.get(type(value), type(value).__name__)


def shortened(text: str, keep: int = 24, *, length: bool = True) -> str:
    """``text`` whole up to ``keep`` characters, else its first ``keep``, ``...`` and its length:
    how an error message quotes a token or a line of the input.

    Parameters
    ----------
    text : str
        What the message quotes.
    keep : int
        The longest text quoted whole.
    length : bool, default True
        Say the whole text's length after the ``...``.

    Examples
    --------
    >>> shortened("9" * 30), shortened("9" * 30, length=False)
    ('999999999999999999999999...(30 characters)', '999999999999999999999999...')
    """
    if len(text) <= keep:
        return text
    return f"{text[:keep]}..." + (f"({len(text)} characters)" if length else "")


#: Longest run of non-blank characters an error line repeats whole: a 5,000-character argument
#: is shortened, a long path still fits.
LONGEST_ECHO = 300


def bounded(text: str, longest: int = LONGEST_ECHO) -> str:
    """``text`` with every run of non-blank characters over ``longest`` cut to its start, ``...``
    and its length, so that an error line that quotes its input stays one readable line.

    Parameters
    ----------
    text : str
        An error message.
    longest : int
        The longest run kept whole.

    Examples
    --------
    >>> bounded("no such file '" + "a" * 400 + "'", longest=20)
    "no such file 'aaaaaaaaaaaaaaaaaaa...(402 characters)"
    """
    if len(text) <= longest:
        return text
    return re.sub(r"\S{%d,}" % (longest + 1), lambda m: shortened(m.group(), longest), text)


#: Characters an error line shows escaped: every one that ``str.splitlines`` breaks a line at
#: (``\v``, ``\f``, ``\x1c``-``\x1e``, ``\x85``, U+2028, U+2029 besides ``\r`` and ``\n``) and
#: the other control characters (a terminal's escape ``\x1b`` recolours or moves the cursor).
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def escaped_controls(text: str) -> str:
    r"""``text`` as one line of printable text: ``\r`` and ``\n`` as ``\\r`` and ``\\n``, other
    control characters (tab aside) as Python writes them escaped (``\\x0b``, ``\\u2028``).

    Parameters
    ----------
    text : str
        An error message, which may quote bytes of the input (a CSV header's names).

    Returns
    -------
    str

    Examples
    --------
    >>> escaped_controls("a\nb\x0bc\x1b[31m")
    'a\\nb\\x0bc\\x1b[31m'
    """
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def some_of(names: "list[str]", shown: int = 5) -> str:
    """``names`` for a one-line message: all of them, or the first ``shown`` and how many more.

    Parameters
    ----------
    names : list of str
        What to name.
    shown : int, default 5
        Names said at most.

    Returns
    -------
    str

    Examples
    --------
    >>> some_of(["a", "b"]), some_of(["a", "b", "c", "d"], shown=2)
    ('a, b', 'a, b and 2 more')
    """
    head = ", ".join(names[:shown])
    return f"{head} and {len(names) - shown} more" if len(names) > shown else head


def clip(value: object, width: int = 20) -> str:
    """``value``'s text for an error message, cut to ``width`` characters with ``...`` when longer
    (:func:`shortened` without the length: a cut number said nothing of its size, ``Shape
    '1000000000x100000000'``).

    Parameters
    ----------
    value : object
        What the user gave.
    width : int, default 20
        The characters kept.

    Returns
    -------
    str

    Examples
    --------
    >>> clip("9x9"), clip("1000000000x1000000000000")
    ('9x9', '1000000000x100000000...')
    """
    try:
        text = str(value)
    except ValueError:   # an integer past Python's 4,300-digit conversion limit (from the API: JSON refuses it)
        return "an integer of over 4,300 digits" if isinstance(value, int) else f"a {type(value).__name__} holding one"
    except RecursionError:   # lists (from the API) nested past the recursion limit: their text is none
        return f"a {type(value).__name__} nested too deep"
    return shortened(text, width, length=False)


def followed_by_text(where: str, what: str, rest: str, at: str = "", alone: str = "the puzzle alone") -> PuzzleError:
    """The one message of a puzzle followed by other text (a puzzle string then a field or a word,
    a JSON document then more): ``<where>: <what> followed by other text[ at <place>] ('<rest>'):
    give <alone>``, the rest clipped to 30 characters.

    Parameters
    ----------
    where : str
        The input's name (``puzzle``, a file).
    what : str
        What was read, with its article (``a 9x9 puzzle string``).
    rest : str
        The text after it.
    at : str, optional
        Where that text starts (``column 40``, ``line 2, column 1``), when the text says no more.
    alone : str, default "the puzzle alone"
        What to give instead.

    Returns
    -------
    PuzzleError

    Examples
    --------
    >>> str(followed_by_text("puzzle", "a 4x4 puzzle string", ",x"))
    "puzzle: a 4x4 puzzle string followed by other text (',x'): give the puzzle alone"
    """
    place = f" at {at}" if at else ""
    return PuzzleError(f"{where}: {what} followed by other text{place} ({clip(repr(rest), 30)}): give {alone}")


def json_failure(error: BaseException, width: int | None = None) -> str:
    """Why ``json.loads`` refused a text, for a message: ``nested too deep`` for arrays or objects
    nested past the recursion limit (Python's own "maximum recursion depth exceeded while decoding
    a JSON array from a unicode string" names nothing of the input), else the error's text,
    clipped to ``width`` characters when given.

    Parameters
    ----------
    error : BaseException
        What ``json.loads`` raised: a RecursionError, a JSONDecodeError, or the ValueError of an
        integer of over 4,300 digits.
    width : int, optional
        The characters of the error's text kept (:func:`clip`); all of it when None.

    Returns
    -------
    str

    Examples
    --------
    >>> json_failure(RecursionError("maximum recursion depth exceeded")), json_failure(ValueError("x" * 30), 5)
    ('nested too deep', 'xxxxx...')
    """
    if isinstance(error, RecursionError):
        return "nested too deep"
    return str(error) if width is None else clip(error, width)


#: Bits of the largest integer a document may hold: one Python can still write into a message
#: (it refuses over 4,300 digits); smaller ones get each field's own message (a size of 24 digits).
MOST_INTEGER_BITS = 4096


def refuse_huge_integers(value: object, where: str) -> None:
    """A PuzzleError naming the first integer of more than :data:`MOST_INTEGER_BITS` bits in a
    document given as Python objects (lists, dicts): such an integer could not even be written
    into a message (Python refuses to print one of over 4,300 digits), and no count, sum or digit
    comes near it.

    Parameters
    ----------
    value : object
        The document, or a part of it.
    where : str
        How the message names the document.
    """
    stack: list = [value]
    while stack:   # without paths first: a well-formed document pays one pass
        item = stack.pop()
        if isinstance(item, int) and item.bit_length() > MOST_INTEGER_BITS:
            break
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    else:
        return
    paths: list = [(value, "")]
    while paths:
        item, path = paths.pop()
        if isinstance(item, int) and item.bit_length() > MOST_INTEGER_BITS:
            raise PuzzleError(f"{where}: {path or 'the value'}: an integer of {item.bit_length():,} bits; at most "
                              f"{MOST_INTEGER_BITS}")
        if isinstance(item, dict):
            paths.extend((v, f"{path}.{k}" if path else str(k)) for k, v in item.items())
        elif isinstance(item, (list, tuple)):
            paths.extend((v, f"{path}[{i}]") for i, v in enumerate(item))


class DuplicateKey(Exception):
    """A JSON object gave ``key`` twice (:func:`loads_keys_once`): ``json.loads`` keeps the last."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _refusing_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    """``json.loads``' object hook: a dict, or :class:`DuplicateKey` for a key given twice."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def loads_keys_once(text: str) -> Any:
    """``json.loads(text)``, raising :class:`DuplicateKey` for a key given twice in one object
    (``{"sum": 9, "sum": 10}`` would keep 10 without a word), as a puzzle document and an f-puzzles payload are
    read."""
    return json.loads(text, object_pairs_hook=_refusing_duplicate_keys)
