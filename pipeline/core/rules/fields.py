"""Reading a rule's puzzle-document entry: unknown keys refused (:func:`check_keys`), optional
fields (:func:`optional_field`), range-checked integers (:func:`int_field`), and how messages say
which values a field takes (:func:`value_span`, :func:`value_words`).

:mod:`pipeline.core.rules.base` re-exports them: rules import them from there, as before.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.core.errors import PuzzleError, clip
from pipeline.core.parse import whole_number

if TYPE_CHECKING:
    from pipeline.core.rules.base import Board

__all__ = ["check_keys", "int_field", "optional_field", "value_span", "value_words"]


def check_keys(data: dict, allowed: set[str], where: str) -> None:
    """Refuse a document entry with a key the rule does not know (a misspelt key never vanishes).

    Parameters
    ----------
    data : dict
        The entry.
    allowed : set of str
        Keys the rule takes (besides ``"rule"``).
    where : str
        How messages name the entry.
    """
    unknown = sorted(set(data) - allowed - {"rule"})
    if unknown:
        raise PuzzleError(f"{where}: unknown key {clip(repr(unknown[0]), 40)} (expected {', '.join(sorted(allowed)) or 'none'})")


def optional_field(data: dict, key: str, default: Any) -> Any:
    """A document entry's field, or ``default`` when it is absent or null (docs/rules.md: a field
    given as null is a field left out, as :func:`int_field` reads it too).

    Parameters
    ----------
    data : dict
        The entry.
    key : str
        The field.
    default : object
        What an absent or null field means.
    """
    value = data.get(key)
    return default if value is None else value


def _long_whole_number(value: Any) -> int | None:
    """``value`` as an int when it is a whole number (an int, an integral float, a string of
    digits) that :func:`~pipeline.core.parse.whole_number` refuses for its length, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return int(value) if value == value and abs(value) != float("inf") and value.is_integer() else None
    if isinstance(value, str) and re.fullmatch(r"\s*-?[0-9]{1,4000}\s*", value):
        return int(value)
    return int(value) if isinstance(value, (int, np.integer)) else None


def int_field(data: dict, key: str, where: str, *, low: int | None = None, high: int | None = None,
              default: Any = ...) -> Any:
    """An integer field of a document entry, range-checked; ``default`` when absent (if given).

    Parameters
    ----------
    data : dict
        The entry.
    key : str
        The field.
    where : str
        How messages name the entry.
    low, high : int, optional
        Inclusive bounds.
    default : object, optional
        Returned when the field is absent; without it the field is required.

    Returns
    -------
    int or the default
    """
    if key not in data or data[key] is None:
        if default is ...:
            raise PuzzleError(f"{where}: missing {key!r}")
        return default
    value = whole_number(data[key])   # 5 and 5.0 alike
    if value is None:
        text = data[key]
        if isinstance(text, str) and re.fullmatch(r"\s*-?[0-9]{1,9}\s*", text):   # f-puzzles writes "5"
            value = int(text)
        elif (big := _long_whole_number(text)) is not None:   # whole, only far too large: say so
            shown = f"a {len(str(abs(big)))}-digit number ({str(big)[:16]}...)"
            if low is not None and high is not None:
                raise PuzzleError(f"{where}: {key!r} must be from {low} to {high}, found {shown}")
            raise PuzzleError(f"{where}: {key!r} is out of range: {shown}")
        else:
            raise PuzzleError(f"{where}: {key!r} must be an integer, found {clip(text, 40)!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise PuzzleError(f"{where}: {key!r} must be from {low} to {high}, found {value}")
    return value


def value_span(board: Board) -> str:
    """How messages name the board's values: ``1..9``, ``0..8``, or the list when not a range.

    Parameters
    ----------
    board : Board
        The puzzle's board.

    Returns
    -------
    str
    """
    values = board.value_of.tolist()
    if values == list(range(values[0], values[0] + len(values))):
        return f"{values[0]}..{values[-1]}"
    return ",".join(map(str, values))


def value_words(board: Board) -> str:
    """``from 1 to 9`` (a run of values) or ``among 1,3,5``: how messages say which digits a
    field takes.

    Parameters
    ----------
    board : Board
        The puzzle's board.

    Returns
    -------
    str
    """
    span = value_span(board)
    if ".." in span:
        low, high = span.split("..")
        return f"from {low} to {high}"
    return f"among {span}"
