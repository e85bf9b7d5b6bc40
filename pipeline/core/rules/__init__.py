"""Rules beyond "each unit holds every digit once", registered by kind.

One module per family of rules; importing this package registers every built-in rule, in the
order their rows are built (the registry's order is the row order of ``A`` and ``Aineq`` after
the variant's units: see docs/conventions.md). Adding a rule is one class (a frozen dataclass
subclassing :class:`~pipeline.core.rules.base.Rule`, with ``kind``, ``families``, ``from_dict``,
``to_dict``, ``rows``/``units`` and ``violations``), one :func:`register_rule` call, and its tests.
"""
from __future__ import annotations

from pipeline.core.errors import PuzzleError
from pipeline.core.rules.base import Board, Rows, Rule, cell_name, cells_text, parse_cell, parse_cells, value_terms
from pipeline.core.rules.betweenlines import Between, Lockout
from pipeline.core.rules.cages import Cage
from pipeline.core.rules.kropki import Kropki
from pipeline.core.rules.neighbours import AntiKing, AntiKnight, NonConsecutive
from pipeline.core.rules.order import Greater, Thermometer
from pipeline.core.rules.pairlines import Entropic, Modular, Palindrome, Renban, Whisper
from pipeline.core.rules.parity import Even, Odd
from pipeline.core.rules.pencilmarks import PencilMarks
from pipeline.core.rules.sumlines import Arrow, DoubleArrow, PillArrow, RegionSum, Zipper
from pipeline.core.rules.units import DiagonalRule, DisjointGroups, ExtraRegion, Windoku, window_units
from pipeline.core.rules.littlekiller import LittleKiller
from pipeline.core.rules.xv import XV, StrictKropki, StrictXV
from pipeline.core.rules.quadruple import Quadruple
from pipeline.core.rules.weighted import WeightedSum
from pipeline.core.rules.samevalues import SameValues
from pipeline.core.rules.pairwise import Pair
from pipeline.core.rules.indexing import Indexing
from pipeline.core.rules.outside import NumberedRoom, Sandwich, XSum
from pipeline.core.rules.skyscraper import CountingCircles, HiddenSkyscraper, Skyscraper
from pipeline.core.rules.fullrank import FullRank, FullRankTies
from pipeline.core.rules.segments import Lunchbox, SumLine
from pipeline.core.rules.automaton import Automaton, Regex
from pipeline.core.rules.chaos import Chaos
from pipeline.core.rules.anyof import AnyOf
from pipeline.core.rules.globals import AntiTaxicab, DutchFlatmates, GlobalEntropy, GlobalMod
from pipeline.core.rules.regionsets import Doppelganger, RegionSameValues
from pipeline.core.rules.cagelike import EqualityCage, LookAndSay, Rellik
from pipeline.core.rules.valuelinks import EqualSum, ValueIndexing
from pipeline.core.rules.countdistinct import CountDistinct
from pipeline.core.rules.connected import ConnectedValues

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
__all__ += ["Arrow", "PillArrow", "DoubleArrow", "Whisper", "Renban", "Palindrome", "Between", "Lockout", "Entropic",
            "Modular", "Zipper", "RegionSum"]

#: kind -> rule class, in row order.
RULES: dict[str, type[Rule]] = {}


def register_rule(cls: type[Rule]) -> type[Rule]:
    """Add a rule class under its ``kind`` (a later class of the same kind replaces it)."""
    if not cls.kind:
        raise PuzzleError(f"rule class {cls.__name__} has no kind")
    RULES[cls.kind] = cls
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
        raise PuzzleError(f"{where}: unknown rule {str(kind)[:40]!r}; expected one of {', '.join(RULES)}")
    return cls


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
        raise PuzzleError(f"{where}: a rule is an object like {{\"rule\": \"cage\", ...}}, found {type(data).__name__}")
    if "rule" not in data:
        raise PuzzleError(f"{where}: missing \"rule\" (the rule's kind: one of {', '.join(RULES)})")
    cls = get_rule(data.get("rule"), where)
    return cls.from_dict(data, board, f"{where} ({cls.kind})")


def rule_order(rule: Rule) -> int:
    """Position of a rule's kind in the registry (rows are built in this order)."""
    return list(RULES).index(rule.kind)


for _cls in (Windoku, DiagonalRule, ExtraRegion, DisjointGroups, Cage, Thermometer, Greater, Kropki, Even, Odd,
             PencilMarks, AntiKnight, AntiKing, NonConsecutive):
    register_rule(_cls)
# the line rules (issue 33, part 2): appended after every kind above, whose rows keep their places
for _line_rule in (Arrow, PillArrow, DoubleArrow, Whisper, Renban, Palindrome, Between, Lockout, Entropic, Modular,
                   Zipper, RegionSum):
    register_rule(_line_rule)
# issue 33 part 2, second batch: appended after the line rules, so the rows of every earlier kind keep their places
for _batch2 in (LittleKiller, XV, StrictXV, StrictKropki, Quadruple, WeightedSum, SameValues, Pair, Indexing):
    register_rule(_batch2)
# issue 33 part 2, outside clues and auxiliary columns: appended after the second batch
for _aux_batch in (Skyscraper, Sandwich, XSum, NumberedRoom, CountingCircles):
    register_rule(_aux_batch)
# issue 33, chaos construction (auxiliary columns for the regions): after every kind above
register_rule(Chaos)
# issue 33, regular-language lines (ISS NFA and Regex, auxiliary transition columns): after every kind above
for _automaton in (Automaton, Regex):
    register_rule(_automaton)
# issue 33, full rank, sum lines and lunchboxes (auxiliary columns): after every kind above
for _rank_batch in (FullRank, FullRankTies, SumLine, Lunchbox):
    register_rule(_rank_batch)
# issue 33, global rules over 2x2 windows, taxicab distances and flatmates: after every kind above
for _global_batch in (GlobalEntropy, GlobalMod, AntiTaxicab, DutchFlatmates, Doppelganger, RegionSameValues):
    register_rule(_global_batch)
# issue 33, ISS Or / And: branches of the rules above (big-M rows on indicator columns): after every kind above
register_rule(AnyOf)
# issue 33, look-and-say, rellik and equality cages, equal sums, value indexing (rows over x only): after every kind above
for _cage_batch in (LookAndSay, Rellik, EqualityCage, EqualSum, ValueIndexing):
    register_rule(_cage_batch)
# issue 33, hidden skyscraper (rows over x only): after every kind above
register_rule(HiddenSkyscraper)
# issue 33, count-distinct clues (ISS CountDistinct over grid cells, auxiliary columns): after every kind above
register_rule(CountDistinct)
# issue 33, connected values (ISS ConnectedValues over the grid, auxiliary distance layers): after every kind above
register_rule(ConnectedValues)
