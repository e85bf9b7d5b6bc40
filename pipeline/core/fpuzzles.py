"""f-puzzles: the JSON variant setters exchange puzzles in, read into a puzzle document.

An f-puzzles puzzle travels as base64 of LZ-string-compressed JSON, often inside a link
(``https://www.f-puzzles.com/?load=N4IgzglgXg...``, ``https://sudokupad.app/fpuzzlesN4Ig...``).
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
=====================  ==========================================================

Any other element that is present and not empty (arrows, little killers, sandwiches, XV,
the "negative" constraint, cosmetic lines and shapes, ...) is refused with one line naming it:
it is never silently dropped. Free-text fields (title, author, ruleset) are kept as metadata.
"""
from __future__ import annotations

import json
import re
from urllib.parse import unquote

from pipeline.core.errors import PuzzleError
from pipeline.core.lzstring import decompress_from_base64

__all__ = ["looks_like_fpuzzles", "fpuzzles_json", "document_from_fpuzzles", "SUPPORTED", "IGNORED"]

#: f-puzzles' default box shapes by size (rows x columns of a box).
_BOXES = {4: (2, 2), 6: (2, 3), 8: (2, 4), 9: (3, 3), 10: (2, 5), 12: (3, 4), 14: (2, 7), 15: (3, 5), 16: (4, 4)}
#: Keys that carry no rule: metadata and the f-puzzles editor's own settings.
IGNORED = frozenset({"size", "grid", "title", "author", "ruleset", "solution", "highlightConflicts",
                     "disabledlogic", "truecandidatesoptions", "version", "metadata"})
_GLOBAL = {"antiknight": "antiknight", "antiking": "antiking", "nonconsecutive": "nonconsecutive",
           "disjointgroups": "disjointgroups"}
SUPPORTED = frozenset({"diagonal+", "diagonal-", "killercage", "thermometer", "difference", "ratio", "odd",
                       "even", "extraregion", *_GLOBAL})
_PAYLOAD = re.compile(r"^[A-Za-z0-9+/=\s%-]{16,}$")
_LINK = re.compile(r"(?:[?&]load=|/fpuzzles|^fpuzzles)([A-Za-z0-9+/=%\s-]+)")


def _payload(text: str) -> str | None:
    """The base64 payload of an f-puzzles link or of a bare payload, else None."""
    text = text.strip()
    m = _LINK.search(text)
    if m:
        return m.group(1)
    if text.startswith("N4Ig") and _PAYLOAD.match(text):   # '{"' compressed: every f-puzzles payload
        return text
    return None


def looks_like_fpuzzles(text: str) -> bool:
    """Is ``text`` an f-puzzles link or payload (``...?load=N4Ig...``, ``N4Ig...``)?"""
    return isinstance(text, str) and len(text) < 20_000_000 and _payload(text) is not None


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
    # links lose '+' to spaces and may be percent-encoded
    payload = re.sub(r"\s", "+", unquote(payload)).replace("-", "+")
    payload = payload.rstrip("=")
    raw = decompress_from_base64(payload + "=" * (-len(payload) % 4), where)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as e:   # ValueError: JSONDecodeError, or an integer of over 4,300 digits
        raise PuzzleError(f"{where}: the decompressed data is not JSON ({str(e)[:100]})") from None
    if not isinstance(data, dict):
        raise PuzzleError(f"{where}: expected a JSON object, found {type(data).__name__}")
    return data


def _cells(entry, key: str, element: str, k: int, where: str) -> list[str]:
    cells = entry.get(key) if isinstance(entry, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, str) for c in cells):
        raise PuzzleError(f"{where}: {element}[{k}] has no list of cells in {key!r}")
    return [c.lower() for c in cells]


def _entries(data: dict, element: str, where: str) -> list:
    """The list an element holds (absent or empty: none); anything but a list is refused."""
    entries = data.get(element)
    if entries in (None, False, [], {}, ""):
        return []
    if not isinstance(entries, list):
        raise PuzzleError(f"{where}: f-puzzles element {element!r} must be a list, found {type(entries).__name__}")
    return entries


def _value(entry: dict, element: str, k: int, where: str) -> int | None:
    value = entry.get("value")
    if value in (None, ""):
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        raise PuzzleError(f"{where}: {element}[{k}] value {str(value)[:20]!r} is not a whole number") from None


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
        Undecodable input, a malformed grid, or an element this reader does not support
        (named, with the supported ones listed).
    """
    data = text if isinstance(text, dict) else fpuzzles_json(text, where)
    size = data.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 64:
        raise PuzzleError(f"{where}: 'size' must be an integer from 1 to 64, found {str(size)[:20]!r}")
    unsupported = [key for key, value in data.items()
                   if key not in IGNORED and key not in SUPPORTED and value not in (None, False, [], {}, "")]
    if unsupported:
        raise PuzzleError(f"{where}: f-puzzles element {unsupported[0]!r} is not supported "
                          f"(supported: {', '.join(sorted(SUPPORTED))})")
    grid = data.get("grid")
    if not isinstance(grid, list) or len(grid) != size or not all(isinstance(r, list) and len(r) == size for r in grid):
        raise PuzzleError(f"{where}: 'grid' must be {size} rows of {size} cells")
    givens, regions = [], []
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            cell = cell if isinstance(cell, dict) else {}
            if cell.get("given") and cell.get("value") not in (None, "", 0):
                givens.append(f"r{r + 1}c{c + 1}={_value(cell, 'grid', r * size + c, where)}")
            regions.append(cell.get("region"))
    doc: dict = {"size": size, "givens": givens}
    if any(g is not None for g in regions):
        if any(g is None for g in regions):
            # f-puzzles writes 'region' only where a cell left its default box (the numbering
            # SudokuPad's importer gives the boxes: row-major, 0-based)
            if size not in _BOXES:
                raise PuzzleError(f"{where}: some cells have a 'region' and others not, and a {size}x{size} grid "
                                  "has no default boxes")
            h, w = _BOXES[size]
            regions = [(k // size // h) * (size // w) + k % size // w if g is None else g
                       for k, g in enumerate(regions)]
        doc["regions"] = " ".join(str(g) for g in regions)
    elif size in _BOXES:
        doc["box"] = f"{_BOXES[size][0]}x{_BOXES[size][1]}"
    else:
        raise PuzzleError(f"{where}: a {size}x{size} f-puzzles grid needs regions (no default boxes for {size})")
    rules: list[dict] = []
    if data.get("diagonal-"):
        rules.append({"rule": "diagonal", "which": "main"})
    if data.get("diagonal+"):
        rules.append({"rule": "diagonal", "which": "anti"})
    for key, kind in _GLOBAL.items():
        if data.get(key):
            rules.append({"rule": kind})
    for k, entry in enumerate(_entries(data, "killercage", where)):
        rule: dict[str, object] = {"rule": "cage", "cells": _cells(entry, "cells", "killercage", k, where)}
        total = _value(entry, "killercage", k, where)
        if total is not None:
            rule["sum"] = total
        rules.append(rule)
    for k, entry in enumerate(_entries(data, "thermometer", where)):
        lines = entry.get("lines") if isinstance(entry, dict) else None
        if not isinstance(lines, list):
            raise PuzzleError(f"{where}: thermometer[{k}] has no 'lines'")
        for j, _ in enumerate(lines):
            rules.append({"rule": "thermo", "cells": _cells({"line": lines[j]}, "line", "thermometer", k, where)})
    for element, color in (("difference", "white"), ("ratio", "black")):
        for k, entry in enumerate(_entries(data, element, where)):
            dot: dict[str, object] = {"rule": "kropki", "color": color, "cells": _cells(entry, "cells", element, k, where)}
            value = _value(entry, element, k, where)
            if value is not None:
                dot["value"] = value
            rules.append(dot)
    for parity in ("odd", "even"):
        cells = [_cells({"cells": [e.get("cell") if isinstance(e, dict) else None]}, "cells", parity, k, where)[0]
                 for k, e in enumerate(_entries(data, parity, where))]
        if cells:
            rules.append({"rule": parity, "cells": cells})
    for k, entry in enumerate(_entries(data, "extraregion", where)):
        rules.append({"rule": "extraregion", "cells": _cells(entry, "cells", "extraregion", k, where)})
    doc["rules"] = rules
    for key, into in (("title", "title"), ("author", "author"), ("ruleset", "notes")):
        if isinstance(data.get(key), str):
            doc[into] = data[key]
    return doc
