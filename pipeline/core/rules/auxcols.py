"""Auxiliary 0-1 columns: what a rule declares when its rows need more than ``x[c, d]``.

A rule whose rows need indicator variables (a skyscraper's "this cell is visible", a counting
circle's "this digit is among the circles") subclasses :class:`AuxRule`: it declares its
columns (:meth:`AuxRule.aux_columns`, blocks of :class:`AuxColumns`) and returns :class:`AuxRows`,
rows whose terms reach those columns as well as ``x``. The model puts every rule's auxiliary
columns after the whole cell-digit block, rule after rule in row order (docs/conventions.md,
"Auxiliary columns"); a puzzle without such rules has no auxiliary column and its files are
what they always were.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from pipeline.core.rules.base import Board, Rows, Rule

__all__ = ["AuxColumns", "AuxRows", "AuxRule", "aux_names"]


def _no_terms() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


@dataclass
class AuxColumns:
    """One block of a rule's auxiliary 0-1 columns: one column per row of ``labels`` (``(k, m)``
    1-based indices), named ``aux_<family>_<i>_<j>...`` (:func:`aux_names`)."""

    family: str
    labels: np.ndarray

    @property
    def count(self) -> int:
        """Columns in the block."""
        return int(self.labels.shape[0])


@dataclass
class AuxRows(Rows):
    """:class:`~pipeline.core.rules.base.Rows` with terms over the rule's auxiliary columns too:
    term ``t`` puts ``aux_coef[t]`` on the rule's ``aux_col[t]``-th auxiliary column (0-based, over
    the concatenation of the blocks :meth:`AuxRule.aux_columns` declares) in row ``aux_row[t]``."""

    aux_row: np.ndarray = field(default_factory=_no_terms)
    aux_col: np.ndarray = field(default_factory=_no_terms)
    aux_coef: np.ndarray = field(default_factory=_no_terms)


class AuxRule(Rule):
    """A rule with auxiliary 0-1 columns (skyscraper, counting circles, ...)."""

    #: The auxiliary families the rule declares, in order (documented in docs/conventions.md).
    aux_families: ClassVar[tuple[str, ...]] = ()

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:  # pragma: no cover - abstract
        """The rule's auxiliary columns, in the order its :class:`AuxRows` index them.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's number among the puzzle's rules of its kind (1-based): the first label
            index of its columns, as of its rows.

        Returns
        -------
        list of AuxColumns
        """
        raise NotImplementedError


def aux_names(blocks: list[AuxColumns]) -> np.ndarray:
    """``aux_<family>_<i>_<j>...`` of every column of ``blocks``, in order (vectorised per block).

    Parameters
    ----------
    blocks : list of AuxColumns
        The declared blocks.

    Returns
    -------
    ndarray of str
    """
    parts = []
    for block in blocks:
        out = np.full(block.count, "aux_" + block.family, dtype=object)
        for k in range(block.labels.shape[1]):
            # numpy's int-to-text in place of np.char.mod("%d") (same digits, half the time: an
            # automaton's 122,000 columns took 0.27 s a build)
            out = out + "_" + np.asarray(block.labels[:, k], dtype=np.int64).astype(str).astype(object)
        parts.append(out)
    return np.concatenate(parts).astype(str) if parts and sum(b.count for b in blocks) else np.zeros(0, dtype=str)
