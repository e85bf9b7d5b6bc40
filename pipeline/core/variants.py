"""The variant table: one declaration per puzzle family, read by every stage.

A :class:`Variant` says which unit families the puzzle has beyond rows and columns
(rectangular boxes, jigsaw regions, the two long diagonals, or extra families of its own) and
the words used for them in messages. :class:`~pipeline.core.puzzle.Puzzle` derives its units from it,
``build`` its rows and row labels, ``verify`` and the parsers their messages, ``conventions``
whether the ``block`` scheme applies, and batch its shapes. Adding a variant is one
:func:`register_variant` call (or one more ``Variant`` in the built-in list at the end of this
module, registered in that order) plus its tests.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from pipeline.core.errors import PuzzleError, clip


@dataclass(frozen=True)
class Family:
    """A family of units (each unit holds every digit once): its label word in ``A``'s row
    labels, its word in messages, and whether it is a single unit labelled by digit only
    (``diag_d`` rather than ``diag_1_d``)."""

    label: str
    word: str
    single: bool = False


#: Families every stage knows, in docs/conventions.md order (after ``cell``).
FAMILIES: dict[str, Family] = {
    "row": Family("row", "row"),
    "col": Family("col", "column"),
    "box": Family("box", "box"),
    "region": Family("region", "region"),
    "diag": Family("diag", "main diagonal", single=True),
    "anti": Family("anti", "anti-diagonal", single=True),
    # units added by rules (pipeline.core.rules.units)
    "window": Family("window", "window"),
    "extra": Family("extra", "extra region"),
    "disjoint": Family("disjoint", "disjoint group"),
}
#: The families above: a variant that declares one of them again leaves it when unregistered.
_BUILTIN_FAMILIES = frozenset(FAMILIES)

# ``extra_units(n, h, w) -> [(family, cells)]``: cells of shape (n_units, N), row-major numbers
ExtraUnits = Callable[[int, int, int], list]


@dataclass(frozen=True)
class Variant:
    """One puzzle family.

    ``boxes``: the ``h x w`` boxes are units (and the ``block`` scheme applies); ``regions``:
    the puzzle carries jigsaw regions (one id per cell) and they are units; ``diagonals``: both
    long diagonals are units; ``extra_units`` adds families of the variant's own (declared in
    ``extra_families``), built after the standard ones. ``lines=False``: rows and columns are
    not units either (``raw``: each cell holds one value and only the rules constrain them).
    """

    name: str
    description: str
    boxes: bool = False
    regions: bool = False
    diagonals: bool = False
    extra_units: ExtraUnits | None = None
    extra_families: dict[str, Family] = field(default_factory=dict)
    #: The smallest grid side that is a puzzle of this variant: 4x4 (the smallest grid with
    #: real boxes, 2x2) for the Sudoku family; a Latin square from 2x2. A 1x1 grid never is.
    min_n: int = 4
    lines: bool = True

    def families(self) -> list[str]:
        """Family names of the variant's units in ``A``'s order (after ``cell``)."""
        names = ["row", "col"] if self.lines else []
        if self.boxes:
            names.append("box")
        if self.regions:
            names.append("region")
        if self.diagonals:
            names += ["diag", "anti"]
        return names + list(self.extra_families)


VARIANT_TABLE: dict[str, Variant] = {}

#: The registered variant names (a live view: a variant registered later appears here too).
VARIANTS = VARIANT_TABLE.keys()


def register_variant(variant: Variant) -> Variant:
    """Add ``variant`` to the table (and its own families to :data:`FAMILIES`)."""
    clash = [name for name, fam in variant.extra_families.items() if FAMILIES.get(name, fam) != fam]
    if clash:
        raise PuzzleError(f"variant {variant.name}: family {clash[0]!r} is already declared")
    FAMILIES.update(variant.extra_families)
    VARIANT_TABLE[variant.name] = variant
    return variant


def unregister_variant(name: str) -> None:
    """Remove a variant (and its own families) from the table."""
    variant = VARIANT_TABLE.pop(name, None)
    if variant is not None:
        for family in variant.extra_families:
            if family not in _BUILTIN_FAMILIES and not any(family in v.extra_families for v in VARIANT_TABLE.values()):
                FAMILIES.pop(family, None)


def variant_name(name: str) -> str:
    """The table's name of a variant written in another case or with spaces around it (a
    spreadsheet's ``Classic``, `` JIGSAW ``); any other text as given (:func:`get_variant` names
    the known ones).

    Parameters
    ----------
    name : str
        The variant as written.

    Returns
    -------
    str

    Examples
    --------
    >>> variant_name(" Jigsaw_X "), variant_name("samurai")
    ('jigsaw_x', 'samurai')
    """
    if name in VARIANT_TABLE:
        return name
    folded = name.strip().lower()
    return folded if folded in VARIANT_TABLE else name


def get_variant(name: str) -> Variant:
    """The table entry of ``name``; :class:`PuzzleError` naming the known variants otherwise."""
    variant = VARIANT_TABLE.get(name)
    if variant is None:
        raise PuzzleError(f"variant: unknown variant {clip(repr(name), 40)}; expected one of {', '.join(VARIANT_TABLE)}")
    return variant


def least_side(variant: str | None, regions: bool = False) -> int:
    """The smallest grid side ``variant`` is a puzzle at (1 for a name the table does not hold,
    whose refusal comes later); no variant given is classic, or jigsaw when ``regions`` are.

    Parameters
    ----------
    variant : str or None
        The variant asked for.
    regions : bool
        Whether region ids were given (no variant then means jigsaw).

    Returns
    -------
    int

    Examples
    --------
    >>> least_side(None), least_side("latin")
    (4, 2)
    """
    spec = VARIANT_TABLE.get(variant or ("jigsaw" if regions else "classic"))
    return spec.min_n if spec else 1


def family_word(family: str) -> str:
    return FAMILIES[family].word


def box_units(n: int, h: int, w: int) -> np.ndarray:
    """``(N, N)`` row-major cell numbers of the ``h x w`` boxes, boxes numbered row-major.

    Parameters
    ----------
    n : int
        Grid side.
    h, w : int
        Box shape.
    """
    cells = np.arange(n * n).reshape(n // h, h, n // w, w).transpose(0, 2, 1, 3)
    return cells.reshape(n, n)


for _variant in (
    Variant("classic", "rows, columns and h x w boxes", boxes=True),
    Variant("x", "classic plus both long diagonals (Sudoku-X)", boxes=True, diagonals=True),
    Variant("jigsaw", "rows, columns and N irregular regions of N cells", regions=True),
    Variant("jigsaw_x", "jigsaw plus both long diagonals", regions=True, diagonals=True),
    Variant("latin", "rows and columns only (Latin square)", min_n=2),
    Variant("raw", "no units: each cell one value, only the rules apply (ISS's Raw grid)", min_n=2, lines=False),
):
    register_variant(_variant)
