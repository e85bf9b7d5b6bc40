"""Rules beyond "each unit holds every digit once", registered by kind.

One module per family of rules. The registry knows every built-in kind, in the order their rows
are built (the registry's order is the row order of ``A`` and ``Aineq`` after the variant's units:
see docs/conventions.md), and imports a kind's module when the kind is first used: a rule class
is a frozen dataclass, about 0.7 ms to create, and a process reading a classic grid or a
thermometer puzzle should not pay for sixty of them (issue 34, start-up). Adding a rule is one
class (a frozen dataclass subclassing :class:`~pipeline.core.rules.base.Rule`, with ``kind``, ``families``, ``from_dict``,
``to_dict``, ``rows``/``units`` and ``violations``), one :func:`register_rule` call, and its tests.
"""
from __future__ import annotations

import difflib
import importlib
from typing import Any

from pipeline.core.errors import clip, PuzzleError, json_kind
from pipeline.core.registry import LazyRegistry
from pipeline.core.rules.base import Board, Rows, Rule, cell_name, cells_text, parse_cell, parse_cells, value_terms

__all__ = ["RULES", "Board", "Rows", "Rule", "register_rule", "unregister_rule", "get_rule", "rule_from_dict",
           "rule_order", "cell_name", "cells_text", "parse_cell", "parse_cells", "value_terms", "window_units",
           "Cage", "Thermometer", "Greater", "Kropki", "Even", "Odd", "PencilMarks", "AntiKnight", "AntiKing",
           "NonConsecutive", "Windoku", "DiagonalRule", "ExtraRegion", "DisjointGroups",
           "LittleKiller", "XV", "StrictXV", "StrictKropki", "Quadruple", "WeightedSum", "SameValues", "Pair", "Indexing"]
__all__ += ["Skyscraper", "Sandwich", "XSum", "NumberedRoom", "CountingCircles", "HiddenSkyscraper"]
__all__ += ["FullRank", "FullRankTies", "SumLine", "Lunchbox"]
__all__ += ["Automaton", "Regex"]
__all__ += ["Chaos"]
__all__ += ["AnyOf"]
__all__ += ["GlobalEntropy", "GlobalMod", "AntiTaxicab", "DutchFlatmates", "Doppelganger", "RegionSameValues"]
__all__ += ["LookAndSay", "Rellik", "EqualityCage", "EqualSum", "ValueIndexing"]
__all__ += ["CountDistinct"]
__all__ += ["ConnectedValues"]
__all__ += ["ContainExact", "ContainAtLeast"]
__all__ += ["Arrow", "PillArrow", "DoubleArrow", "Whisper", "Renban", "Palindrome", "Between", "Lockout", "Entropic",
            "Modular", "Zipper", "RegionSum"]

#: Built-in kinds without cells whose entry needs more than its name, and what (the help lists
#: them apart: ``--rule fullrankties`` alone is refused for want of its ``ties`` key).
NEEDS_MORE_THAN_A_NAME: dict[str, str] = {"fullrankties": "its 'ties' key", "doppelganger": "the values 0-N"}
#: Kinds with cells whose name alone is an entry too: ``{"rule": "diagonal"}`` is the main diagonal.
BARE_WITH_CELLS: tuple[str, ...] = ("diagonal",)

#: Every built-in kind in row order: ``(kind, module under pipeline.core.rules, class, global)``.
#: ``global`` is the class's :attr:`Rule.global_rule` (a kind without cells), so the command
#: line's help lists them without importing every class (a test holds it to the classes).
BUILTIN_RULES: tuple[tuple[str, str, str, bool], ...] = (
    ("windoku", "units", "Windoku", True),
    ("diagonal", "units", "DiagonalRule", False),
    ("extraregion", "units", "ExtraRegion", False),
    ("disjointgroups", "units", "DisjointGroups", True),
    ("cage", "cages", "Cage", False),
    ("thermo", "order", "Thermometer", False),
    ("greater", "order", "Greater", False),
    ("kropki", "kropki", "Kropki", False),
    ("even", "parity", "Even", False),
    ("odd", "parity", "Odd", False),
    ("pencilmarks", "pencilmarks", "PencilMarks", False),
    ("antiknight", "neighbours", "AntiKnight", True),
    ("antiking", "neighbours", "AntiKing", True),
    ("nonconsecutive", "neighbours", "NonConsecutive", True),
    ("arrow", "sumlines", "Arrow", False),
    ("pillarrow", "sumlines", "PillArrow", False),
    ("doublearrow", "sumlines", "DoubleArrow", False),
    ("whisper", "pairlines", "Whisper", False),
    ("renban", "pairlines", "Renban", False),
    ("palindrome", "pairlines", "Palindrome", False),
    ("between", "betweenlines", "Between", False),
    ("lockout", "betweenlines", "Lockout", False),
    ("entropic", "classlines", "Entropic", False),
    ("modular", "classlines", "Modular", False),
    ("zipper", "sumlines", "Zipper", False),
    ("regionsum", "sumlines", "RegionSum", False),
    ("littlekiller", "littlekiller", "LittleKiller", False),
    ("xv", "xv", "XV", False),
    ("strictxv", "xv", "StrictXV", True),
    ("strictkropki", "xv", "StrictKropki", True),
    ("quadruple", "quadruple", "Quadruple", False),
    ("sum", "weighted", "WeightedSum", False),
    ("samevalues", "samevalues", "SameValues", False),
    ("pair", "pairwise", "Pair", False),
    ("indexing", "indexing", "Indexing", False),
    ("skyscraper", "skyscraper", "Skyscraper", False),
    ("sandwich", "outside", "Sandwich", False),
    ("xsum", "outside", "XSum", False),
    ("numberedroom", "outside", "NumberedRoom", False),
    ("countingcircles", "skyscraper", "CountingCircles", False),
    ("chaos", "chaos", "Chaos", True),
    ("automaton", "automaton", "Automaton", False),
    ("regex", "automaton", "Regex", False),
    ("fullrank", "fullrank", "FullRank", False),
    ("fullrankties", "fullrank", "FullRankTies", True),
    ("sumline", "segments", "SumLine", False),
    ("lunchbox", "segments", "Lunchbox", False),
    ("globalentropy", "globals", "GlobalEntropy", True),
    ("globalmod", "globals", "GlobalMod", True),
    ("antitaxicab", "globals", "AntiTaxicab", True),
    ("dutchflatmates", "globals", "DutchFlatmates", True),
    ("doppelganger", "regionsets", "Doppelganger", True),
    ("regionsamevalues", "regionsets", "RegionSameValues", True),
    ("anyof", "anyof", "AnyOf", False),
    ("lookandsay", "cagelike", "LookAndSay", False),
    ("rellik", "cagelike", "Rellik", False),
    ("equalitycage", "cagelike", "EqualityCage", False),
    ("equalsum", "valuelinks", "EqualSum", False),
    ("valueindexing", "valuelinks", "ValueIndexing", False),
    ("hiddenskyscraper", "skyscraper", "HiddenSkyscraper", False),
    ("countdistinct", "countdistinct", "CountDistinct", False),
    ("connectedvalues", "connected", "ConnectedValues", False),
    ("containexact", "contains", "ContainExact", False),
    ("containatleast", "contains", "ContainAtLeast", False),
)
_CLASS_MODULES = {name: module for _, module, name, _ in BUILTIN_RULES} | {"window_units": "units"}


class RuleRegistry(LazyRegistry["type[Rule]"]):
    """kind -> rule class, in row order; a built-in kind's module is imported on first use
    (:class:`~pipeline.core.registry.LazyRegistry`). :func:`register_rule` adds a kind at the end,
    or replaces one in its place."""

    def __init__(self) -> None:
        super().__init__((kind, f"{__name__}.{module}", name) for kind, module, name, _ in BUILTIN_RULES)

    def __setitem__(self, kind: str, cls: type[Rule]) -> None:
        if kind != cls.kind:
            raise PuzzleError(f"rule class {cls.__name__} is kind {cls.kind!r}, not {kind!r}")
        self.add(cls)

    def add(self, cls: type[Rule]) -> None:
        """``cls`` under its kind: a new kind at the end, a known one replaced in its place.

        Parameters
        ----------
        cls : type
            A :class:`Rule` subclass with its ``kind``.
        """
        self.put(cls.kind, cls)

    def global_kinds(self, bare: bool = False) -> list[str]:
        """The kinds without cells (:attr:`Rule.global_rule`), in row order, importing only the
        kinds registered after the built-ins; ``bare``: only those whose name alone is an entry
        (not :data:`NEEDS_MORE_THAN_A_NAME`)."""
        flags = {kind: is_global for kind, _, _, is_global in BUILTIN_RULES}
        kinds = [kind for kind in self if (flags[kind] if self.loaded(kind) is None else self[kind].global_rule)]
        return [kind for kind in kinds if not (bare and kind in NEEDS_MORE_THAN_A_NAME)]

    def bare_kinds(self) -> list[str]:
        """The kinds whose name alone is an entry: :meth:`global_kinds` ``(bare=True)`` and the
        kinds with cells that read without them (:data:`BARE_WITH_CELLS`), as help texts list them.

        Returns
        -------
        list of str
        """
        return self.global_kinds(bare=True) + [kind for kind in BARE_WITH_CELLS if kind in self]


#: kind -> rule class, in row order.
RULES = RuleRegistry()


def __getattr__(name: str) -> Any:
    """``from pipeline.core.rules import Cage``: the class from its module, imported now."""
    module = _CLASS_MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def register_rule(cls: type[Rule]) -> type[Rule]:
    """Add a rule class under its ``kind`` (a later class of the same kind replaces it)."""
    if not cls.kind:
        raise PuzzleError(f"rule class {cls.__name__} has no kind")
    RULES.add(cls)
    return cls


def unregister_rule(kind: str) -> None:
    """Remove a rule kind from the registry (tests and plug-ins)."""
    RULES.pop(kind, None)


def get_rule(kind: object, where: str = "rule") -> type[Rule]:
    """The class registered as ``kind``; PuzzleError listing the known kinds otherwise.

    Parameters
    ----------
    kind : object
        The document's ``"rule"`` value.
    where : str
        How messages name the entry.

    Returns
    -------
    type
    """
    cls = RULES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise PuzzleError(f"{where}: unknown rule {clip(kind, 40)!r}{rule_hint(kind)}; expected one of {', '.join(RULES)}")
    return cls


#: Names puzzle setters use for a rule the registry knows by another word.
_OTHER_NAMES = {"killer": "cage", "killercage": "cage", "thermometer": "thermo", "kropkidot": "kropki",
                "knight": "antiknight", "king": "antiking", "noconsecutive": "nonconsecutive",
                "littlekillers": "littlekiller", "arrows": "arrow", "whispers": "whisper", "germanwhispers": "whisper",
                "dutchwhispers": "whisper", "evenodd": "even", "parity": "even", "xsudoku": "diagonal", "x": "diagonal",
                "extraregions": "extraregion", "palindromes": "palindrome", "sandwiches": "sandwich"}


def rule_hint(kind: object) -> str:
    """`` (did you mean 'cage'?)`` for a rule word the registry knows under another spelling or
    name ("killer", "Anti-Knight", "thermometer"), ``""`` otherwise.

    Examples
    --------
    >>> rule_hint("killer"), rule_hint("Non-Consecutive"), rule_hint("cage"), rule_hint(3)
    (" (did you mean 'cage'?)", " (did you mean 'nonconsecutive'?)", '', '')
    """
    if not isinstance(kind, str) or kind in RULES:
        return ""
    word = "".join(ch for ch in kind.lower() if ch.isalnum())
    known = word if word in RULES else _OTHER_NAMES.get(word)
    if known is None:
        close = difflib.get_close_matches(word, list(RULES), n=1, cutoff=0.8)
        known = close[0] if close else None
    return f" (did you mean {known!r}?)" if known is not None else ""


def rule_from_dict(data: object, board: Board, where: str = "rule") -> Rule:
    """The checked rule of one puzzle-document entry ``{"rule": kind, ...}``.

    Parameters
    ----------
    data : dict
        The entry.
    board : Board
        The puzzle's board (size, boxes, present cells, units).
    where : str
        How messages name the entry (e.g. ``rules[3]``).

    Returns
    -------
    Rule

    Raises
    ------
    PuzzleError
        Not an object, an unknown kind or key, a bad cell, or a rule that cannot hold
        (one line naming the rule and where).
    """
    if not isinstance(data, dict):
        raise PuzzleError(f"{where}: a rule is an object like {{\"rule\": \"cage\", ...}}, found {json_kind(data)}")
    if "rule" not in data:
        raise PuzzleError(f"{where}: missing \"rule\" (the rule's kind: one of {', '.join(RULES)})")
    cls = get_rule(data.get("rule"), where)
    if cls.needs_lines and not board.has_lines:
        raise PuzzleError(f"{where} ({cls.kind}): needs rows and columns that are units; this grid has none (raw)")
    return cls.from_dict(data, board, f"{where} ({cls.kind})")


def rule_order(rule: Rule) -> int:
    """Position of a rule's kind in the registry (rows are built in this order)."""
    return list(RULES).index(rule.kind)
