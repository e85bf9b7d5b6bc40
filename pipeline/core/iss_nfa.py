"""The mapping table's regular-language lines (issue 33): ISS ``NFA`` and ``Regex``, merged into
:data:`pipeline.core.iss_table.READERS` and :data:`~pipeline.core.iss_table.WRITERS`.

* ``NFA~KEY~[_name~]cells[~~[_name~]cells...]``: KEY is ISS's serialized automaton (base64url,
  :func:`pipeline.core.rules.nfa.nfa_from_iss`); one ``automaton`` entry per named group, the key
  kept as ``"nfa"``. A ``-`` among a group's cells splits it into segments (the document's
  ``"cells"`` a list of lists). A group over chaos construction region cells (``CC<k>``) goes to the
  chaos entry's ``automata`` instead (:func:`pipeline.core.iss_chaos.region_automaton`).
* ``Regex~PATTERN~cells[~~cells...]``: PATTERN is the expression in base64url (ISS's older
  strings: URL-encoded, recognised by a ``%`` or ``.``); one ``regex`` entry per group.

The writers give an ``automaton`` its key (a listed automaton is serialized in ISS's plain
format, its values numbered by their place in the grid's values) and a ``regex`` its pattern in
base64url.
"""
from __future__ import annotations

import base64
import binascii
from typing import Callable
from urllib.parse import quote, unquote

import numpy as np

from pipeline.core.errors import clip, shortened
from pipeline.core.iss_chaos import region_automaton
from pipeline.core.iss_grid import CHAOS_CELL, IssArgError, IssGrid
from pipeline.core.rules.nfa import Nfa, NfaError, nfa_from_iss, nfa_to_iss

__all__ = ["READERS_NFA", "WRITERS_NFA", "decode_pattern", "encode_pattern"]


def decode_pattern(token: str) -> str:
    """A Regex argument -> its pattern (base64url, or URL-encoded when it holds ``%`` or ``.``).

    Parameters
    ----------
    token : str
        The argument as the string has it.

    Returns
    -------
    str
    """
    if "%" in token or "." in token:
        return unquote(token)
    # validate=True: the lenient decoder drops every character outside the alphabet, so a
    # mistyped pattern ('@@') decoded to '' and surfaced later as clues that break the line
    try:
        return base64.b64decode(token + "=" * (-len(token) % 4), altchars=b"-_", validate=True).decode("latin-1")
    except (binascii.Error, ValueError):
        bad = next((c for c in token.rstrip("=") if not (c.isascii() and (c.isalnum() or c in "-_+/"))), None)
        why = f": {bad!r} is not one of its characters (A-Z a-z 0-9 - _)" if bad is not None else ""
        raise IssArgError(f"pattern {shortened(token)!r} is not base64url{why}") from None


def encode_pattern(pattern: str) -> str:
    """A pattern as ISS writes it: base64url of its characters, no padding.

    Parameters
    ----------
    pattern : str
        The regular expression.

    Returns
    -------
    str
    """
    return base64.urlsafe_b64encode(pattern.encode("latin-1")).decode().rstrip("=")


def _groups(items: list[str], named: bool) -> list[tuple[str, list[str]]]:
    """``(name, tokens)`` of ``~``-separated groups: an empty item ends one, ``_name`` names the next."""
    out: list[tuple[str, list[str]]] = []
    name, cells = "", list[str]()
    for item in items + [""]:
        if not item or (named and item.startswith("_")):
            if cells:
                out.append((name, cells))
            cells = []
            if item:
                name = unquote(item[1:])
        else:
            cells.append(item)
    if not out:
        raise IssArgError("expected cells")
    return out


def _read_nfa(args: list[str], grid: IssGrid) -> list[dict]:
    if not args:
        raise IssArgError("expected the automaton's key and cells")
    try:
        nfa_from_iss(args[0])
    except NfaError as e:
        raise IssArgError(f"automaton key {clip(args[0])!r}: {e}") from None
    out = []
    for name, tokens in _groups(args[1:], named=True):
        if any(CHAOS_CELL.fullmatch(t) for t in tokens):   # region numbers too: a chaos clue
            raw: list[list[str]] = [[]]
            for t in tokens:
                raw.append([]) if t == "-" else raw[-1].append(t)
            out += region_automaton(raw, args[0], name, grid)
            continue
        segments: list[list[str]] = [[]]
        for t in tokens:
            if t == "-":
                segments.append([])
            else:
                segments[-1].append(grid.cell(t))
        entry: dict = {"rule": "automaton", "cells": segments[0] if len(segments) == 1 else segments,
                       "nfa": args[0]}
        if name:
            entry["name"] = name
        out.append(entry)
    return out


def _read_regex(args: list[str], grid: IssGrid) -> list[dict]:
    if not args:
        raise IssArgError("expected a pattern and cells")
    pattern = "".join(decode_pattern(args[0]).split())
    if not pattern:
        # an empty expression matches no cell at all: refused here, naming the constraint, not
        # later as clues that break the line
        raise IssArgError("the pattern is empty" if not args[0] else
                          f"pattern {shortened(args[0])!r} decodes to an empty expression")
    return [{"rule": "regex", "pattern": pattern, "cells": grid.cells(tokens)}
            for _, tokens in _groups(args[1:], named=False)]


def _uri_encode(name: str) -> str:
    return quote(name, safe="!*'()").replace(".", "%2E").replace("~", "%7E")


def _line_tokens(cells: list, grid: IssGrid) -> list[str]:
    segments = cells if cells and isinstance(cells[0], list) else [cells]
    out: list[str] = []
    for i, seg in enumerate(segments):
        out += (["-"] if i else []) + [grid.to_iss(c) for c in seg]
    return out


def _listed_key(entry: dict, grid: IssGrid) -> str:
    """ISS's key of a listed automaton: a value's symbol is its place in the grid's values + 1."""
    values = list(getattr(grid, "values", range(1, grid.n + 1)))
    rows = []
    for p, value, q in entry["transitions"]:
        if value == "break":
            rows.append((p, len(values), q))
        elif value in values:
            rows.append((p, values.index(value), q))
        else:
            raise IssArgError(f"automaton value {value!r} is not one of the grid's values")
    try:
        return nfa_to_iss(Nfa.make(entry["states"], entry["start"], entry["accept"], np.array(rows).reshape(-1, 3)))
    except NfaError as e:
        raise IssArgError(f"automaton: {e}") from None


def _write_automaton(entry: dict, grid: IssGrid) -> list[str]:
    key = entry["nfa"] if "nfa" in entry else _listed_key(entry, grid)
    name = [f"_{_uri_encode(entry['name'])}"] if entry.get("name") else []
    return ["~".join(["NFA", key, *name, *_line_tokens(entry["cells"], grid)])]


def _write_regex(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["Regex", encode_pattern(entry["pattern"]), *_line_tokens(entry["cells"], grid)])]


#: ISS type -> reader, merged into :data:`pipeline.core.iss_table.READERS`.
READERS_NFA: dict[str, Callable[[list[str], IssGrid], list[dict]]] = {"NFA": _read_nfa, "Regex": _read_regex}
#: Rule kind -> writer, merged into :data:`pipeline.core.iss_table.WRITERS`.
WRITERS_NFA: dict[str, Callable[[dict, IssGrid], list[str]]] = {"automaton": _write_automaton, "regex": _write_regex}
