"""f-puzzles: the JSON variant setters exchange puzzles in, read into a puzzle document.

An f-puzzles puzzle travels as base64 of LZ-string-compressed JSON, often inside a link
(``https://www.f-puzzles.com/?load=N4IgzglgXg...``, ``https://sudokupad.app/fpuzzlesN4Ig...``,
``https://app.crackingthecryptic.com/sudoku/?puzzle=fpuzzlesN4Ig...``).
Its JSON has ``size``, ``grid`` (rows of cells: ``value`` with ``given``, ``region`` for
irregular regions) and one list per constraint. Each supported element becomes a rule of the
puzzle document (:mod:`pipeline.core.document`):

=====================  ==========================================================
f-puzzles              puzzle document
=====================  ==========================================================
``diagonal+``          ``{"rule": "diagonal", "which": "anti"}`` (bottom-left to top-right)
``diagonal-``          ``{"rule": "diagonal", "which": "main"}``
``antiknight``         ``{"rule": "antiknight"}``
``antiking``           ``{"rule": "antiking"}``
``nonconsecutive``     ``{"rule": "nonconsecutive"}``
``disjointgroups``     ``{"rule": "disjointgroups"}``
``killercage``         ``{"rule": "cage", "cells": [...], "sum": value}``
``thermometer``        ``{"rule": "thermo", "cells": line}`` per line
``difference``         ``{"rule": "kropki", "color": "white", ...}`` (value 1 unless given)
``ratio``              ``{"rule": "kropki", "color": "black", ...}`` (value 2 unless given)
``odd`` / ``even``     ``{"rule": "odd"|"even", "cells": [...]}``
``extraregion``        ``{"rule": "extraregion", "cells": [...]}``
``givenPencilMarks``   ``{"rule": "pencilmarks", "cells": [...], "digits": [...]}`` (a grid
                       cell's key; cells with the same marks share one rule)
``arrow``              ``{"rule": "arrow", "cells": [circle, *shaft]}`` per line; a circle
                       of 2 or 3 cells (a pill, read in reading order) is
                       ``{"rule": "pillarrow", "pill": k, "cells": [*pill, *shaft]}``
``xv``                 ``{"rule": "xv", "letter": "x"|"v", "cells": [...]}``
``littlekillersum``    ``{"rule": "littlekiller", "sum": ..., "clue": ..., "cells": [...]}``
                       (an arrow without a number is only drawn)
``sandwichsum``        ``{"rule": "sandwich", "clue": "r0c3", "sum": ...}`` (a clue without a
                       number is only drawn)
``clone``              ``{"rule": "samevalues", "groups": [[a], [b]]}`` per cell ``a`` of
                       ``cells`` and the cell ``b`` of ``cloneCells`` at its place
``quadruple``          ``{"rule": "quadruple", "cells": [...], "digits": values}``
``minimum``,           ``{"rule": "greater", "cells": [larger, smaller]}`` between the cell
``maximum``            and each orthogonal neighbour (a minimum is below all of them)
``negative``           ``"xv"``: ``{"rule": "strictxv"}``; ``"ratio"``: ``{"rule":
                       "strictkropki", "color": "black"}``; ``"difference"``: as
                       ``nonconsecutive`` beside dots (both: ``{"rule": "strictkropki"}``)
``palindrome``,        ``{"rule": "palindrome"|"renban"|"whisper"|"between"|"regionsum",
``renban``,            "cells": [...]}`` per line (:data:`LINE_ELEMENTS`)
``whispers``,
``betweenline``,
``regionSumLine``
=====================  ==========================================================

``nonconsecutive`` beside Kropki dots is f-puzzles' "every white dot is given": a pair with a
dot of either colour is exempt, so it reads as ``{"rule": "strictkropki", "color": "white"}``
(without dots, ``{"rule": "nonconsecutive"}``). Any other element that is present and not empty
(cosmetic lines and shapes, clocks, ...) is refused with one line naming it: it is never
silently dropped. Free-text fields (title, author, ruleset) are kept as metadata.
Inside the grid and the supported elements every key is either read or one f-puzzles writes
for display only (:data:`DISPLAY_CELL_KEYS`, :data:`DISPLAY_ENTRY_KEYS`); any other key (a
cage's ``"sum"`` for ``"value"``) is refused by name, as are a flag that is not ``true`` or
``false``, a ``given`` that is not, and a grid cell that is not an object.
"""
from __future__ import annotations

import json
import math
import re
from urllib.parse import unquote

import numpy as np

from pipeline.core.errors import DuplicateKey, clip, followed_by_text, PuzzleError, json_failure, json_kind, loads_keys_once
from pipeline.core.lzstring import MAX_DOCUMENT_CHARS, decompress_from_base64

__all__ = ["looks_like_fpuzzles", "fpuzzles_json", "document_from_fpuzzles", "read_fpuzzles", "no_box_shape",
           "SUPPORTED", "IGNORED", "DISPLAY_CELL_KEYS", "DISPLAY_ENTRY_KEYS"]

#: The largest side an f-puzzles grid may have here ('size' from 1 to 64).
_MAX_SIZE = 64


def _default_box(size: int) -> tuple[int, int] | None:
    """f-puzzles' default box shape of a ``size`` x ``size`` grid, ``(rows, columns)`` of a box, or
    None when it has none of at least 2 x 2 (a size of 1 or a prime, see :func:`no_box_shape`).

    The box is ``h`` rows by ``size // h`` columns, ``h`` the largest divisor of ``size`` up to its
    square root (18: 3x6, 20: 4x5, 24: 4x6, 25: 5x5), as both importers have it: SudokuPad/sudokutools
    ``src/fpuzzlesdecoder.js`` (``getRegionShape``: [height, size / height], the height counted down
    from floor(sqrt(size)) to the first divisor; a cell's default region is
    floor(r / height) * height + floor(c / width)) and dclamage/SudokuSolver
    ``SudokuSolver/SolverUtility.cs`` (``DefaultRegions``, sizes 1 to 31: 2 rows tall for 6, 8, 10,
    14, 22, 26; 3 for 12, 15, 18, 21, 27; 4 for 20, 24, 28; 5 for 30; square boxes for 4, 9, 16, 25).

    >>> [_default_box(n) for n in (4, 6, 8, 12, 14, 18, 20, 24, 30, 64)]
    [(2, 2), (2, 3), (2, 4), (3, 4), (2, 7), (3, 6), (4, 5), (4, 6), (5, 6), (8, 8)]
    >>> [_default_box(n) for n in (1, 2, 7, 31)]
    [None, None, None, None]
    """
    h = max(d for d in range(1, math.isqrt(size) + 1) if size % d == 0)
    return (h, size // h) if h >= 2 else None


#: f-puzzles' default box shapes by size (rows x columns of a box), for every size read that has one
#: (see _default_box; the sizes up to 16 were once a hand-written table, the same shapes).
_BOXES = {n: box for n in range(1, _MAX_SIZE + 1) if (box := _default_box(n)) is not None}

#: Keys that carry no rule: metadata and the f-puzzles editor's own settings.
IGNORED = frozenset({"size", "grid", "title", "author", "ruleset", "solution", "highlightConflicts",
                     "disabledlogic", "truecandidatesoptions", "version", "metadata"})
_GLOBAL = {"antiknight": "antiknight", "antiking": "antiking", "nonconsecutive": "nonconsecutive",
           "disjointgroups": "disjointgroups"}
#: Line elements: each line of each entry is one rule of the kind.
LINE_ELEMENTS = {"palindrome": "palindrome", "renban": "renban", "whispers": "whisper", "betweenline": "between",
                 "regionSumLine": "regionsum"}
SUPPORTED = frozenset({"diagonal+", "diagonal-", "killercage", "thermometer", "difference", "ratio", "odd",
                       "even", "extraregion", "arrow", "xv", "littlekillersum", "sandwichsum", "clone", "quadruple",
                       "minimum", "maximum", "negative", *LINE_ELEMENTS, *_GLOBAL})
#: What each word of f-puzzles' ``negative`` list says is all given.
NEGATIVE = ("difference", "ratio", "xv")
#: Flags: JSON true or false only (a string "false" is true to Python and would turn the rule on).
_FLAGS = ("diagonal-", "diagonal+", *_GLOBAL)
#: Keys of a grid cell the reader reads.
_CELL_KEYS = frozenset({"value", "given", "region", "givenPencilMarks"})
#: Keys of a grid cell f-puzzles writes that carry no rule: ``c`` and ``cArray`` (the cell's
#: colours), ``highlighted`` (the editor's selection), ``centerPencilMarks`` and
#: ``cornerPencilMarks`` (the solver's own notes; the setter's are ``givenPencilMarks``).
DISPLAY_CELL_KEYS = frozenset({"c", "cArray", "highlighted", "centerPencilMarks", "cornerPencilMarks"})
#: Keys each supported element's entries carry that the reader reads.
_ENTRY_KEYS = {"killercage": ("cells", "value"), "thermometer": ("lines",), "difference": ("cells", "value"),
               "ratio": ("cells", "value"), "odd": ("cell",), "even": ("cell",), "extraregion": ("cells",),
               "arrow": ("lines", "cells"), "xv": ("cells", "value"), "littlekillersum": ("cells", "cell", "direction",
                                                                                          "value"),
               "sandwichsum": ("cell", "value"), "clone": ("cells", "cloneCells"), "quadruple": ("cells", "values"),
               "minimum": ("cell",), "maximum": ("cell",),
               **{element: ("lines",) for element in LINE_ELEMENTS}}
#: Keys of an element's entry that only colour it: ``outlineC`` (a cage's outline, a
#: thermometer's line) and ``fontC`` (a cage's sum).
DISPLAY_ENTRY_KEYS = frozenset({"outlineC", "fontC"})
#: What a misspelt key most likely meant.
_MEANT = {"sum": "value", "cells": "cell", "cell": "cells", "line": "lines"}
_PAYLOAD = re.compile(r"^[A-Za-z0-9+/=\s%-]{16,}$")
# after a path's '/fpuzzles' (sudokupad.app/fpuzzlesN4Ig...) the payload itself: a file path such as
# 'fpuzzles/puzzle.txt' is no link (its '/puzzle' was read as a payload: "not LZ-string data")
# (a line break right after '/fpuzzles' is where a long link was wrapped, as elsewhere in it)
_LINK = re.compile(r"(?:[?&]load=|[?&]puzzle=fpuzzles)([A-Za-z0-9+/=%\s-]*)|(?:/|^)fpuzzles[\r\n]*(N4Ig[A-Za-z0-9+/=%\s-]*)")
_LOAD = re.compile(r"^https?://\S*?[?&]load=([^&#]*)", re.I)
#: The key under which each rule carries the f-puzzles element it came from until
#: :func:`read_fpuzzles` takes it out (a name no document key can have: it starts with a space).
_FROM = " from"


def no_box_shape(size: int) -> bool:
    """True when a ``size`` x ``size`` grid has no boxes of at least 2 x 2 cells (a size from 2 that is
    prime): f-puzzles' importers give such a grid no boxes, so its only houses are its rows and columns.

    dclamage/SudokuSolver (``SudokuSolver/SolverUtility.cs``, ``DefaultRegions``: for prime sizes
    the default regions "overlap exactly with rows"; ``SudokuSolver/SolverFactory.cs`` starts an
    f-puzzles import from them and overrides only cells that have a ``region``); SudokuPad's
    f-puzzles decoder (SudokuPad/sudokutools ``src/fpuzzlesdecoder.js``, ``getRegionShape``: 1 x size
    for a prime size, so the default region of a cell is its row); and sigh/Interactive-Sudoku-Solver's
    own grids (``js/cell_geometry.js``, ``boxDimsForSize``: a size of no box shape has no boxes).

    >>> [n for n in range(1, 14) if no_box_shape(n)]
    [2, 3, 5, 7, 11, 13]
    """
    return size >= 2 and _default_box(size) is None   # no divisor from 2 up to the square root


def _payload(text: str) -> str | None:
    """The base64 payload of an f-puzzles link or of a bare payload, else None."""
    text = text.strip()
    m = _LOAD.search(text) or _LINK.search(text)   # a link's whole load= value: its errors are named
    if m:
        return m.group(1) if m.group(1) is not None else m.group(2)
    if text.startswith("N4Ig") and _PAYLOAD.match(text):   # '{"' compressed: every f-puzzles payload
        return text
    return None


def looks_like_fpuzzles(text: str) -> bool:
    """Is ``text`` an f-puzzles link or payload (``...?load=N4Ig...``, ``N4Ig...``)?"""
    return isinstance(text, str) and len(text) <= MAX_DOCUMENT_CHARS and _payload(text) is not None


def fpuzzles_json(text: str, where: str = "f-puzzles") -> dict:
    """The f-puzzles JSON object of a link or payload.

    Parameters
    ----------
    text : str
        A link (``...?load=...``) or the base64 payload.
    where : str
        How messages name the input.

    Returns
    -------
    dict
    """
    payload = _payload(text)
    if payload is None:
        raise PuzzleError(f"{where}: not an f-puzzles link or payload")
    # links lose '+' to spaces and may be percent-encoded; a line break is where a long link was wrapped
    payload = re.sub(r"[\r\n]+", "", payload)
    escape = re.search(r"%(?![0-9A-Fa-f]{2})", payload)
    if escape:   # unquote keeps it as it is: the '=' padding before it was named as the bad character
        at = len(unquote(payload[:escape.start()])) + 1   # counted as the bad characters are, once unquoted
        raise PuzzleError(f"{where}: bad %-escape {payload[escape.start():escape.start() + 3]!r} at position {at} of "
                          "the f-puzzles payload (a '%' is followed by two hex digits)")
    written = payload
    payload = re.sub(r"\s", "+", unquote(payload)).replace("-", "+")
    after = re.search(r"=+(?=[^=])", payload)
    if after and after.end() % 4 == 0:
        # '=' pads base64 to a multiple of four characters at its end: what follows is other text
        # ("...A== junk"), not the payload ("N4Ig=A..." stays a bad character: no padding there)
        raise followed_by_text(where, "an f-puzzles payload", unquote(written)[after.end():],
                               f"position {after.end() + 1} of the payload", "the link alone")
    payload = payload.rstrip("=")
    if not payload:
        key = "puzzle=fpuzzles" if re.search(r"[?&]puzzle=fpuzzles", text) else "load="
        raise PuzzleError(f"{where}: the f-puzzles link's {key} holds no puzzle")
    bad = re.search(r"[^A-Za-z0-9+/]", payload)
    if bad:
        # a character an escape made ('%C3%A9' unquoted to 'é', '%FF' to '\ufffd'): named as written
        shown = _escape_written(written, bad.start()) or repr(bad.group())
        raise PuzzleError(f"{where}: bad character {shown} at position {bad.start() + 1} of the f-puzzles "
                          "payload (base64: A-Z, a-z, 0-9, '+', '/')")
    raw = decompress_from_base64(payload + "=" * (-len(payload) % 4), where)
    try:
        data = loads_keys_once(raw)
    except DuplicateKey as e:   # {"size": 4, ..., "size": 9} took the last one without a word, as JSON text did not
        raise PuzzleError(f"{where}: key {e.key!r} given twice in one object; give each key once") from None
    except (ValueError, RecursionError) as e:   # ValueError: JSONDecodeError, or an integer of over 4,300 digits
        why = json_failure(e, 100)
        raise PuzzleError(f"{where}: the decompressed data is not JSON ({why})") from None
    if not isinstance(data, dict):
        raise PuzzleError(f"{where}: expected a JSON object, found {json_kind(data)}")
    return data


def _escape_written(written: str, at: int) -> str | None:
    """The %-escape of ``written`` (a payload before unquoting) that unquote made the character
    at ``at`` of its text, as a repr (``'%C3%A9'`` for an 'é', ``'%FF'`` for bytes of no UTF-8
    that became '\ufffd'); None when that character was written as itself."""
    place = last = 0   # characters of the unquoted text before ``written[last:]``
    for run in re.finditer(r"(?:%[0-9A-Fa-f]{2})+", written):
        place += run.start() - last   # a character between escapes stays one character
        if place > at:
            return None
        raw = bytes.fromhex(run.group().replace("%", ""))
        # as unquote reads a run (an ASCII character next to it is never part of a UTF-8 sequence)
        text = raw.decode("utf-8", errors="replace")
        if at < place + len(text):
            start, end = _char_bytes(raw, text, at - place)
            return repr(run.group()[3 * start:3 * end])
        place += len(text)
        last = run.end()
    return None


def _char_bytes(raw: bytes, text: str, k: int) -> tuple[int, int]:
    """The bytes of ``raw`` that UTF-8 decoding with replacement made character ``k`` of its
    ``text``: a character's own bytes, or for a '\ufffd' the longest run of up to 3 bytes (a
    sequence of no UTF-8 cut short) that decodes to it alone."""
    def size(start: int, char: str) -> int:
        if char != "\ufffd":
            return len(char.encode("utf-8"))
        return next(n for n in (3, 2, 1) if raw[start:start + n].decode("utf-8", errors="replace") == "\ufffd")
    start = 0
    for char in text[:k]:
        start += size(start, char)
    return start, start + size(start, text[k])


def _empty(value: object) -> bool:
    """Whether an element's value says nothing (absent, false, empty); a 0 says something (0 == False
    in Python, so ``value in (False, ...)`` would drop it)."""
    return value is None or value is False or (isinstance(value, (list, dict, str)) and not value)


def _cells(entry: dict, key: str, element: str, k: int, where: str) -> list[str]:
    cells = entry.get(key)
    if not isinstance(cells, list) or not all(isinstance(c, str) for c in cells):
        raise PuzzleError(f"{where}: {element}[{k}] has no list of cells in {key!r}")
    return [c.lower() for c in cells]


def diagonal_direction(clue: tuple[int, ...], first: tuple[int, ...]) -> str:
    """The f-puzzles ``direction`` of a little killer: from its clue ``(row, col)`` toward the
    first cell of its diagonal (``UL``, ``UR``, ``DL`` or ``DR``; the writer's and the reader's).

    Parameters
    ----------
    clue, first : tuple of int
        ``(row, col)`` of the clue outside the grid and of the diagonal's first cell.

    Returns
    -------
    str

    Examples
    --------
    >>> diagonal_direction((0, 3), (1, 2))
    'DL'
    """
    return ("D" if first[0] > clue[0] else "U") + ("R" if first[1] > clue[1] else "L")


def _check_direction(direction: object, clue: str, cells: list[str], k: int, where: str) -> None:
    """A little killer's ``direction`` (UL, UR, DL, DR, as f-puzzles writes it) must be one of
    those and point from the clue toward its cells: the cells decide the diagonal, and a direction
    that said otherwise was ignored without a word."""
    if direction is None:
        return
    if not isinstance(direction, str) or direction.strip().upper() not in ("UL", "UR", "DL", "DR"):
        raise PuzzleError(f"{where}: littlekillersum[{k}] direction {clip(repr(direction))} is not one of UL, UR, DL, DR")
    spots = [re.fullmatch(r"\s*r(-?\d+)c(-?\d+)\s*", text) for text in (clue.lower(), cells[0])] if cells else [None]
    if any(m is None for m in spots):   # the rule names a bad cell (or none) itself
        return
    start, first = ((int(m.group(1)), int(m.group(2))) for m in spots if m is not None)
    toward = diagonal_direction(start, first)
    if direction.strip().upper() != toward:
        raise PuzzleError(f"{where}: littlekillersum[{k}] direction {direction.strip()!r} does not point from "
                          f"{clue.strip().lower()} toward its cells ({toward})")


def _entries(data: dict, element: str, where: str) -> list[dict]:
    """The entries an element holds (absent or empty: none), each an object with the keys the
    reader reads (all of them present) and display keys only; anything else is refused."""
    entries = data.get(element)
    if entries is None or entries is False or entries in ([], ""):   # not `in (False, ...)`: 0 == False
        return []
    if not isinstance(entries, list):
        raise PuzzleError(f"{where}: f-puzzles element {element!r} must be a list, found {json_kind(entries)}")
    read = _ENTRY_KEYS[element]
    for k, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise PuzzleError(f"{where}: {element}[{k}] must be an object, found {json_kind(entry)}")
        required = read[0]   # the cells (or lines); a value is optional
        if required not in entry:
            found = f"; it has {', '.join(map(repr, sorted(entry)))}" if entry else ""
            raise PuzzleError(f"{where}: {element}[{k}] has no {required!r}{found}")
        unknown = sorted(set(entry) - set(read) - DISPLAY_ENTRY_KEYS)
        if unknown:
            key = unknown[0]
            hint = f" (f-puzzles writes it as {_MEANT[key]!r})" if _MEANT.get(key) in read else ""
            raise PuzzleError(f"{where}: {element}[{k}] has key {key!r}, which the reader does not read{hint}; "
                              f"it reads {', '.join(map(repr, read))}")
    return entries


def _line_cells(entry: dict, element: str, k: int, where: str) -> list[list[str]]:
    """Each line of an entry's ``lines``, as lower-case cell names."""
    lines = entry["lines"]
    if not isinstance(lines, list) or not lines:
        raise PuzzleError(f"{where}: {element}[{k}] has no list of lines in 'lines'")
    return [_cells({"line": line}, "line", element, k, where) for line in lines]


def _lines_and_arrows(data: dict, where: str) -> list[dict]:
    """The line elements' rules (:data:`LINE_ELEMENTS`) and the arrows': an arrow's ``cells`` is its
    circle, each of its ``lines`` a shaft from it (the circle's cell first, as f-puzzles draws it)."""
    rules: list[dict] = []
    for element, kind in LINE_ELEMENTS.items():
        for k, entry in enumerate(_entries(data, element, where)):
            rules += [{"rule": kind, "cells": line, _FROM: f"{element}[{k}]"}
                      for line in _line_cells(entry, element, k, where)]
    for k, entry in enumerate(_entries(data, "arrow", where)):
        circle = _cells(entry, "cells", "arrow", k, where)
        if not circle:
            raise PuzzleError(f"{where}: arrow[{k}] has no circle cell in 'cells'")
        if len(circle) > 3:
            raise PuzzleError(f"{where}: arrow[{k}] has a circle of {len(circle)} cells; a circle covers one cell, "
                              "or 2 or 3 (a pill)")
        # a pill (a circle over 2 or 3 cells) reads as one number, its digits in reading order
        pill = sorted(circle, key=lambda name: tuple(int(v) for v in re.findall(r"[0-9]+", name)))
        for line in _line_cells(entry, "arrow", k, where):
            shaft = [cell for cell in line if cell not in circle]
            if not shaft:
                raise PuzzleError(f"{where}: arrow[{k}] has a line with no cell past its circle")
            if len(circle) == 1:
                rules.append({"rule": "arrow", "cells": circle + shaft, _FROM: f"arrow[{k}]"})
            else:   # the pill arrow's own check names a pill of another size or of cells apart
                rules.append({"rule": "pillarrow", "pill": len(circle), "cells": pill + shaft, _FROM: f"arrow[{k}]"})
    return rules


def _xv_and_little_killers(data: dict, where: str) -> list[dict]:
    """XV marks (``value`` X or V) and little killer clues (``value`` the sum of ``cells``, the
    diagonal from the clue's ``cell`` outside the grid; one without a number is only drawn)."""
    rules: list[dict] = []
    for k, entry in enumerate(_entries(data, "xv", where)):
        letter = entry.get("value")
        if letter is None:   # once "value 'None' is not X or V"
            raise PuzzleError(f"{where}: xv[{k}] has no 'value' (\"X\" or \"V\")")
        if not isinstance(letter, str) or letter.strip().upper() not in ("X", "V"):
            raise PuzzleError(f"{where}: xv[{k}] value {clip(letter)!r} is not X or V")
        rules.append({"rule": "xv", "letter": letter.strip().lower(), "cells": _cells(entry, "cells", "xv", k, where),
                      _FROM: f"xv[{k}]"})
    for k, entry in enumerate(_entries(data, "littlekillersum", where)):
        total = _value(entry, "littlekillersum", k, where)
        clue = entry.get("cell")
        if not isinstance(clue, str):
            raise PuzzleError(f"{where}: littlekillersum[{k}] has no clue cell in 'cell'")
        if total is not None:
            cells = _cells(entry, "cells", "littlekillersum", k, where)
            _check_direction(entry.get("direction"), clue, cells, k, where)
            rules.append({"rule": "littlekiller", "sum": total, "clue": clue.lower(), "cells": cells,
                          _FROM: f"littlekillersum[{k}]"})
    for k, entry in enumerate(_entries(data, "sandwichsum", where)):
        total = _value(entry, "sandwichsum", k, where)
        clue = entry["cell"]
        if not isinstance(clue, str):
            raise PuzzleError(f"{where}: sandwichsum[{k}] 'cell' must be a clue cell like \"R0C3\", found "
                              f"{clip(json.dumps(clue))}")
        if total is not None:   # the clue's place outside the grid names its row (RrC0) or column (R0Cc)
            rules.append({"rule": "sandwich", "clue": clue.lower(), "sum": total, _FROM: f"sandwichsum[{k}]"})
    return rules


def _clones_quadruples_and_extremes(data: dict, size: int, where: str) -> list[dict]:
    """Clones (each cell of ``cells`` holds what the cell of ``cloneCells`` at its place holds),
    quadruples (``values`` stand in the 2x2 square of ``cells``) and minimum and maximum cells
    (below, or above, every orthogonal neighbour)."""
    rules: list[dict] = []
    for k, entry in enumerate(_entries(data, "clone", where)):
        cells = _cells(entry, "cells", "clone", k, where)
        clones = _cells(entry, "cloneCells", "clone", k, where)
        if len(cells) != len(clones):
            raise PuzzleError(f"{where}: clone[{k}] has {len(cells)} cells and {len(clones)} cloneCells; each cell "
                              "needs its clone")
        rules += [{"rule": "samevalues", "groups": [[a], [b]], _FROM: f"clone[{k}]"}
                  for a, b in zip(cells, clones) if a != b]
    for k, entry in enumerate(_entries(data, "quadruple", where)):
        values = entry.get("values")
        if not isinstance(values, list):
            raise PuzzleError(f"{where}: quadruple[{k}] 'values' must be a list of digits, found {clip(values)!r}")
        read = [_value({"value": v}, "quadruple", k, where) for v in values]
        digits = [d for d in read if d is not None]
        if len(digits) < len(read):   # a blank would be dropped without a word, and written back without it
            raise PuzzleError(f"{where}: quadruple[{k}] 'values' holds a blank; list the digits only")
        wrong = [d for d in digits if not 1 <= d <= size]
        if wrong:
            raise PuzzleError(f"{where}: quadruple[{k}] 'values' holds {wrong[0]}, not a digit from 1 to {size}")
        if not 1 <= len(digits) <= 4:
            raise PuzzleError(f"{where}: quadruple[{k}] 'values' lists {len(digits)} digits; a quadruple shows 1 "
                              "to 4 digits that its 2x2 cells hold")
        rules.append({"rule": "quadruple", "cells": _cells(entry, "cells", "quadruple", k, where),
                      "digits": digits, _FROM: f"quadruple[{k}]"})
    for element in ("minimum", "maximum"):
        for k, entry in enumerate(_entries(data, element, where)):
            name = entry["cell"]
            found = re.fullmatch(r"[Rr]([0-9]{1,3})[Cc]([0-9]{1,3})", name) if isinstance(name, str) else None
            if found is None or not all(1 <= int(v) <= size for v in found.groups()):
                raise PuzzleError(f"{where}: {element}[{k}] 'cell' must be a cell of the grid like \"R1C1\", "
                                  f"found {clip(json.dumps(name))}")
            r, c = (int(v) for v in found.groups())
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 1 <= nr <= size and 1 <= nc <= size:
                    pair = [f"r{r}c{c}", f"r{nr}c{nc}"]
                    rules.append({"rule": "greater", "cells": pair if element == "maximum" else pair[::-1],
                                  _FROM: f"{element}[{k}]"})
    return rules


def _strict_rules(data: dict, nonconsecutive: bool, where: str) -> list[dict]:
    """The rules of f-puzzles' ``negative`` list (every white dot, black dot or X/V is given) and
    of ``nonconsecutive``, which beside Kropki dots exempts their pairs (f-puzzles' solvers read
    it so): every white dot given."""
    negative = data.get("negative")
    if negative in (None, False, [], ""):
        negative = []
    if not isinstance(negative, list) or not all(isinstance(w, str) for w in negative):
        raise PuzzleError(f"{where}: f-puzzles 'negative' must be a list of element names, found {clip(negative)!r}")
    unknown = [w for w in negative if w not in NEGATIVE]
    if unknown:
        raise PuzzleError(f"{where}: f-puzzles negative constraint {unknown[0]!r} is not supported "
                          f"(supported: {', '.join(NEGATIVE)})")
    for element, standard in (("difference", 1), ("ratio", 2)):
        if element in negative:
            for k, entry in enumerate(_entries(data, element, where)):
                value = _value(entry, element, k, where)
                if value not in (None, standard):
                    raise PuzzleError(f"{where}: the negative {element} constraint beside {element}[{k}] of value "
                                      f"{value} is not supported (only the standard {standard} is)")
    dots = bool(_entries(data, "difference", where) or _entries(data, "ratio", where))
    white = "difference" in negative or nonconsecutive and dots
    rules: list[dict] = []
    said = "'negative'" if negative else "'nonconsecutive'"
    if nonconsecutive and not white:
        rules.append({"rule": "nonconsecutive", _FROM: "'nonconsecutive'"})
    if white and "ratio" in negative:
        rules.append({"rule": "strictkropki", _FROM: said})
    elif white or "ratio" in negative:
        rules.append({"rule": "strictkropki", "color": "white" if white else "black", _FROM: said})
    if "xv" in negative:
        rules.append({"rule": "strictxv", _FROM: "'negative'"})
    return rules


def _whole_number(value: object) -> int | None:
    """``value`` as an int when it is a JSON whole number (``5``, ``5.0``; not ``true``), else None.
    (:func:`pipeline.core.parse.whole_number` also bounds its digits; parse imports this module.)"""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    return value if isinstance(value, int) else None


def _value(entry: dict, element: str, k: int, where: str) -> int | None:
    value = entry.get("value")
    if value in (None, ""):
        return None
    number = _whole_number(value)
    if number is None and isinstance(value, str) and re.fullmatch(r"\s*-?[0-9]+\s*", value):
        number = int(value)   # f-puzzles writes "7"
    if number is None:
        raise PuzzleError(f"{where}: {element}[{k}] value {clip(value)!r} is not a whole number")
    if abs(number) >= 10 ** 9:   # past any sum of a 64x64 (the rule's own check names the rest by its range)
        raise PuzzleError(f"{where}: {element}[{k}] value {clip(value)!r} is out of range")
    return number


def _flag(data: dict, key: str, where: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise PuzzleError(f"{where}: f-puzzles flag {key!r} must be true or false, found {clip(json.dumps(value))}")
    return value


def _check_region_sizes(regions: list, size: int, where: str) -> None:
    """Each region id must cover ``size`` cells; the message names the id and where it is, since
    the puzzle's own check only sees ids (one mistyped cell makes ten ids of a 9x9)."""
    cells: dict[int, list[str]] = {}
    for k, g in enumerate(regions):
        cells.setdefault(g, []).append(f"r{k // size + 1}c{k % size + 1}")
    wrong = sorted((g for g in cells if len(cells[g]) != size), key=lambda g: len(cells[g]))
    if wrong:
        g = wrong[0]   # the fewest cells first: a mistyped id is a small region
        shown = ", ".join(cells[g][:4]) + (", ..." if len(cells[g]) > 4 else "")
        count = f"{len(cells[g])} cell" + ("s" if len(cells[g]) != 1 else "")
        raise PuzzleError(f"{where}: grid 'region' {g} has {count} ({shown}); each of the "
                          f"{size} regions of a {size}x{size} grid needs {size}")


def _boxes_of(regions: list, size: int) -> tuple[int, int] | None:
    """``(h, w)`` when ``regions`` (one id per cell, row-major, each on ``size`` cells) are the
    boxes of ``h`` rows by ``w`` columns (both at least 2; f-puzzles' default shape first), else None."""
    ids = np.unique(np.array([str(g) for g in regions]), return_inverse=True)[1].ravel()
    rows, cols = np.divmod(np.arange(size * size), size)
    shapes = [(h, size // h) for h in range(2, size // 2 + 1) if size % h == 0]
    shapes.sort(key=lambda shape: shape != _BOXES.get(size))
    for h, w in shapes:
        boxes = (rows // h) * (size // w) + cols // w
        if np.unique(ids * size + boxes).size == size:   # each region one box: the same partition
            return h, w
    return None


def _lines_of(regions: list, size: int) -> bool:
    """True when ``regions`` (one id per cell, row-major, each on ``size`` cells) are the rows or
    the columns of the grid: no houses beyond them (a Latin square)."""
    ids = np.unique(np.array([str(g) for g in regions]), return_inverse=True)[1].ravel()
    rows, cols = np.divmod(np.arange(size * size), size)
    return bool(size >= 2 and (np.unique(ids * size + rows).size == size or np.unique(ids * size + cols).size == size))


def _grid_cell(cell: object, r: int, c: int, size: int, where: str) -> tuple[int, object, list[int] | None]:
    """(given digit or 0, region or None, given pencil marks or None) of one grid cell."""
    name = f"grid cell r{r + 1}c{c + 1}"
    if not isinstance(cell, dict):
        raise PuzzleError(f"{where}: {name} must be an object like {{\"value\": 5, \"given\": true}}, "
                          f"found {clip(json.dumps(cell))}")
    unknown = sorted(set(cell) - _CELL_KEYS - DISPLAY_CELL_KEYS)
    if unknown:
        raise PuzzleError(f"{where}: {name} has key {unknown[0]!r}, which the reader does not read; "
                          f"it reads {', '.join(sorted(_CELL_KEYS))}")
    given = cell.get("given", False)
    if not isinstance(given, bool):
        raise PuzzleError(f"{where}: {name}: 'given' must be true or false, found {clip(json.dumps(given))}")
    digit = 0
    if given and cell.get("value") not in (None, ""):
        value = cell["value"]
        number = _whole_number(value)
        if number is None and isinstance(value, str) and re.fullmatch(r"\s*[0-9]{1,3}\s*", value):
            number = int(value)
        if number is None or not 1 <= number <= size:
            raise PuzzleError(f"{where}: {name}: the given {clip(json.dumps(value))} is not a digit from 1 to {size}")
        digit = number
    region = cell.get("region")
    if region is not None and _whole_number(region) is None:
        raise PuzzleError(f"{where}: {name}: 'region' must be a whole number (the region's id), "
                          f"found {clip(json.dumps(region))}")
    marks = cell.get("givenPencilMarks")
    digits: list[int] | None = None
    if marks not in (None, []):
        read = [_whole_number(m) for m in marks] if isinstance(marks, list) else [None]
        digits = [d for d in read if d is not None and 1 <= d <= size]
        if len(digits) != len(read):
            raise PuzzleError(f"{where}: {name}: 'givenPencilMarks' must be a list of digits from 1 to {size}, "
                              f"found {clip(json.dumps(marks), 30)}")
    return digit, (None if region is None else _whole_number(region)), digits


def document_from_fpuzzles(text: str | dict, where: str = "f-puzzles") -> dict:
    """The puzzle document of an f-puzzles link, payload or decoded JSON object.

    Parameters
    ----------
    text : str or dict
        A link (``...?load=...``), the base64 payload, or the JSON object itself.
    where : str
        How messages name the input.

    Returns
    -------
    dict
        A puzzle document (size, box or regions, givens, rules, title/author/notes).

    Raises
    ------
    PuzzleError
        As :func:`read_fpuzzles`.
    """
    return read_fpuzzles(text, where)[0]


def read_fpuzzles(text: str | dict, where: str = "f-puzzles") -> tuple[dict, list[str]]:
    """The puzzle document of an f-puzzles link, payload or decoded JSON object, and the f-puzzles
    element each of its rules came from (``killercage[0]``, ``'antiknight'``): what a message
    about a rule names, since the user wrote f-puzzles elements, not the document's rules.

    Parameters
    ----------
    text : str or dict
        A link (``...?load=...``), the base64 payload, or the JSON object itself.
    where : str
        How messages name the input.

    Returns
    -------
    tuple of (dict, list of str)
        A puzzle document (size, box or regions, givens, rules, title/author/notes), and one name
        per rule, in order.

    Raises
    ------
    PuzzleError
        Undecodable input, a malformed grid, or an element this reader does not support
        (named, with the supported ones listed).
    """
    doc = _document(text, where)
    return doc, [rule.pop(_FROM) for rule in doc["rules"]]


def _document(text: str | dict, where: str) -> dict:
    """:func:`read_fpuzzles`' document, each rule still holding its element's name under :data:`_FROM`."""
    data = text if isinstance(text, dict) else fpuzzles_json(text, where)
    size = data.get("size")
    if size is None:
        raise PuzzleError(f"{where}: the f-puzzles puzzle has no 'size' (the grid's side, an integer from 1 to 64)")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 64:
        # as JSON: a size "9" (a string) read as '9', the same as the number it is not
        raise PuzzleError(f"{where}: 'size' must be an integer from 1 to 64, found "
                          f"{clip(json.dumps(size, default=repr))}")
    unsupported = [key for key, value in data.items()
                   if key not in IGNORED and key not in SUPPORTED and not _empty(value)]
    if unsupported:
        raise PuzzleError(f"{where}: f-puzzles element {unsupported[0]!r} is not supported "
                          f"(supported: {', '.join(sorted(SUPPORTED))})")
    grid = data.get("grid")
    if not isinstance(grid, list) or len(grid) != size or not all(isinstance(r, list) and len(r) == size for r in grid):
        raise PuzzleError(f"{where}: 'grid' must be {size} rows of {size} cells")
    givens, regions = [], []
    marked: dict[tuple[int, ...], list[str]] = {}   # pencil marks -> their cells, in reading order
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            digit, region, marks = _grid_cell(cell, r, c, size, where)
            if digit:
                givens.append(f"r{r + 1}c{c + 1}={digit}")
            if marks is not None:
                marked.setdefault(tuple(sorted(set(marks))), []).append(f"r{r + 1}c{c + 1}")
            regions.append(region)
    doc: dict = {"size": size, "givens": givens}
    if any(g is not None for g in regions):
        if any(g is None for g in regions):
            # f-puzzles writes 'region' only where a cell left its default box (the numbering
            # SudokuPad's importer gives the boxes: row-major, 0-based); a grid of no box shape
            # has its rows as default regions (see no_box_shape; every size from 2 has one or the other,
            # and a 1x1 has no cell without a region once one has it)
            h, w = _BOXES.get(size, (1, size))
            regions = [(k // size // h) * (size // w) + k % size // w if g is None else g
                       for k, g in enumerate(regions)]
        _check_region_sizes(regions, size, where)
        box = _boxes_of(regions, size)
        if _lines_of(regions, size):   # each region a row (a prime size's default) or a column
            doc["variant"] = "latin"
        elif box is None:
            doc["regions"] = " ".join(str(g) for g in regions)
        else:   # regions that are the boxes of one shape (a 6x6 of 3x2, any 25x25): boxes, not a jigsaw
            doc["box"] = f"{box[0]}x{box[1]}"
    elif size in _BOXES:
        doc["box"] = f"{_BOXES[size][0]}x{_BOXES[size][1]}"
    elif no_box_shape(size):   # no boxes: a Latin square plus the given rules (see no_box_shape)
        doc["variant"] = "latin"
    else:
        raise PuzzleError(f"{where}: a {size}x{size} f-puzzles grid needs regions (no default boxes for {size})")
    rules: list[dict] = []
    flags = {key: _flag(data, key, where) for key in _FLAGS}
    if flags["diagonal-"]:
        rules.append({"rule": "diagonal", "which": "main", _FROM: "'diagonal-'"})
    if flags["diagonal+"]:
        rules.append({"rule": "diagonal", "which": "anti", _FROM: "'diagonal+'"})
    for key, kind in _GLOBAL.items():
        if flags[key] and key != "nonconsecutive":
            rules.append({"rule": kind, _FROM: repr(key)})
    rules += _strict_rules(data, flags["nonconsecutive"], where)
    for k, entry in enumerate(_entries(data, "killercage", where)):
        rule: dict[str, object] = {"rule": "cage", "cells": _cells(entry, "cells", "killercage", k, where),
                                   _FROM: f"killercage[{k}]"}
        total = _value(entry, "killercage", k, where)
        if total is not None:
            rule["sum"] = total
        rules.append(rule)
    for k, entry in enumerate(_entries(data, "thermometer", where)):
        for line in _line_cells(entry, "thermometer", k, where):   # an empty list refused, as other lines'
            rules.append({"rule": "thermo", "cells": line, _FROM: f"thermometer[{k}]"})
    rules += _lines_and_arrows(data, where)
    for element, color in (("difference", "white"), ("ratio", "black")):
        for k, entry in enumerate(_entries(data, element, where)):
            dot: dict[str, object] = {"rule": "kropki", "color": color, "cells": _cells(entry, "cells", element, k, where),
                                      _FROM: f"{element}[{k}]"}
            value = _value(entry, element, k, where)
            if value is not None:
                dot["value"] = value
            rules.append(dot)
    for parity in ("odd", "even"):
        cells = []
        for k, entry in enumerate(_entries(data, parity, where)):
            if not isinstance(entry["cell"], str):
                raise PuzzleError(f"{where}: {parity}[{k}] 'cell' must be a cell like \"R1C1\", "
                                  f"found {clip(json.dumps(entry['cell']))}")
            cells.append(entry["cell"].lower())
        if cells:
            rules.append({"rule": parity, "cells": cells, _FROM: repr(parity)})
    for k, entry in enumerate(_entries(data, "extraregion", where)):
        rules.append({"rule": "extraregion", "cells": _cells(entry, "cells", "extraregion", k, where),
                      _FROM: f"extraregion[{k}]"})
    rules += _xv_and_little_killers(data, where)
    rules += _clones_quadruples_and_extremes(data, size, where)
    rules += [{"rule": "pencilmarks", "cells": cells, "digits": list(digits), _FROM: "'givenPencilMarks'"}
              for digits, cells in marked.items()]
    doc["rules"] = rules
    for key, into in (("title", "title"), ("author", "author"), ("ruleset", "notes")):
        if isinstance(data.get(key), str):
            doc[into] = data[key]
    return doc
