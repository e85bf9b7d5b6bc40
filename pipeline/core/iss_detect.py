"""Is a text an Interactive Sudoku Solver (ISS) constraint string? The check alone, without the
reader (:mod:`pipeline.core.iss` and its tables of every rule), so that reading an 81-character
line, a grid or a JSON document never imports them: a `solve` process starts faster.
"""
from __future__ import annotations

import re

__all__ = ["ISS_TYPES", "MAX_ISS_CHARS", "iss_string_end", "looks_like_iss"]

#: Every constraint type ISS knows (its js/sudoku_constraint.js): an unknown name is "unknown",
#: a known one without a reader "unsupported".
ISS_TYPES = frozenset((
    "Container Or And Replicate End Jigsaw Thermo Whisper Renban Modular Entropic RegionSumLine Between "
    "Lockout Palindrome Zipper SumLine Regex NFA NoBoxes ChaosConstruction ChaosArrow ChaosCount RegionSize "
    "RegionSameValues StrictKropki StrictXV Shape Windoku DisjointSets AntiKnight Doppelganger AntiKing "
    "AntiTaxicab AntiConsecutive GlobalEntropy GlobalMod FullRankTies DutchFlatmates Diagonal WhiteDot BlackDot "
    "GreaterThan X ValueIndexing V Arrow DoubleArrow PillArrow Cage RellikCage EqualityCage Sum LittleKiller XSum "
    "Sandwich Lunchbox Skyscraper HiddenSkyscraper NumberedRoom FullRank AllDifferent ContainAtLeast ContainExact "
    "LookAndSay ConnectedValues SameValues EqualSum Quad Binary BinaryX Pair PairX Indexing CountingCircles "
    "CountDistinct Given SearchPriority Var").split())

#: Longest ISS string read (ISS's own puzzles are at most a few KB).
MAX_ISS_CHARS = 2_000_000
#: How much of a longer text decides whether it is one (then refused by its length).
_HEAD_CHARS = 4096
_START = re.compile(r"\.+(?:[A-Za-z]*~|[A-Z][A-Za-z]*(?:\.|$))")   # empty items before the first: ISS skips them
_BARE = re.compile(r"(?:\.[A-Z][A-Za-z]*)+")
_GAP = re.compile(r"\s+")
_TYPE = re.compile(r"[A-Za-z]*")


def iss_string_end(text: str) -> int:
    """Where the ISS constraint string that ``text`` starts with ends: ``len(text)``, or the
    start of other text after it (a word, a note, a second puzzle).

    ISS drops every whitespace character of a string before splitting it at ``.`` (its
    js/sudoku_parser.js), so whitespace before a ``.`` (a constraint a line) or a ``~`` (an
    argument on the next line), after a ``~`` or ``_`` (an argument not yet given), or between a
    ``.`` and a known type name, is part of the string. Any other text after whitespace is not:
    ISS would glue it to the argument before it (a given ``R1C1_1`` then a line ``5`` read as
    ``R1C1_15``) or take it as a type (``.`` then ``junk``, "unknown constraint type").

    Parameters
    ----------
    text : str
        A text that starts (after whitespace or a byte-order mark) with an ISS string.

    Returns
    -------
    int
        An offset into ``text``.

    Examples
    --------
    >>> s = ".Cage~7~R1C1~R1C2.~R2C2_3"
    >>> iss_string_end(s + " .AntiKnight ") == len(s) + 13, iss_string_end(s + ". junk"), iss_string_end(s + " 5")
    (True, 27, 26)
    """
    start = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    for gap in _GAP.finditer(text, start):
        end = gap.end()
        if end == len(text):
            break
        before, after = text[gap.start() - 1], text[end]
        if after in ".~" or before in "~_":
            continue
        if before == "." and _TYPE.match(text, end).group() in ISS_TYPES:   # type: ignore[union-attr]
            continue
        return end
    return len(text)


def looks_like_iss(text: object) -> bool:
    """Is ``text`` an ISS constraint string (``.`` then a type or ``~``: ``.Cage~...``, ``.~R1C1_5``)?

    Parameters
    ----------
    text : object
        A command-line argument, a file's text or a batch record.

    Examples
    --------
    >>> looks_like_iss(".Cage~15~R1C1~R1C2.~R3C3_4"), looks_like_iss(".AntiKnight"), looks_like_iss("..3.2.6..")
    (True, True, False)
    """
    if not isinstance(text, str):
        return False
    long = len(text) > MAX_ISS_CHARS   # judged by its start, so that the reader refuses it by its length
    if not long:   # its own text: the reader refuses what follows it (".AntiKnight" then a note is ISS)
        text = text[:iss_string_end(text)]
    s = re.sub(r"\s+", "", (text[:_HEAD_CHARS] if long else text).lstrip("\ufeff"))
    if "~" in s:
        return bool(_START.match(s))
    if long:
        s = s[:s.rfind(".")]   # whole type names only
    # no argument anywhere: only a run of known type names (a compact grid may start '.A')
    return bool(_BARE.fullmatch(s)) and all(t in ISS_TYPES for t in s.split(".")[1:])
