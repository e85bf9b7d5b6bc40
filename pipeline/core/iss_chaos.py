"""The mapping table's chaos construction (issue 33), merged into
:data:`pipeline.core.iss_table.READERS` and :data:`~pipeline.core.iss_table.WRITERS`.

* ``ChaosConstruction`` (no arguments) -> the global rule ``chaos``: ``N`` orthogonally
  connected regions of ``N`` cells, each holding every digit once, drawn by the solver. ISS
  combines it with ``NoBoxes`` (a Latin square: ``latin``) or keeps the boxes (``classic`` plus
  ``chaos``); givens are ordinary givens. The writer gives ``chaos`` back as ``ChaosConstruction``.
* ``ChaosArrow`` and ``ChaosCount`` (clues over ISS's region cells ``CC<k>``) are not mapped:
  they stay refused by name, as every type missing from the table is.
"""
from __future__ import annotations

from typing import Callable

from pipeline.core.iss_table import READERS, WRITERS, IssArgError, IssGrid

__all__ = ["READERS_CHAOS", "WRITERS_CHAOS"]


def _read_chaos(args: list[str], grid: IssGrid) -> list[dict]:
    if args:
        raise IssArgError("ChaosConstruction takes no arguments")
    return [{"rule": "chaos"}]


#: ISS type -> reader, merged into :data:`pipeline.core.iss_table.READERS`.
READERS_CHAOS: dict[str, Callable[[list[str], IssGrid], list[dict]]] = {"ChaosConstruction": _read_chaos}

#: Rule kind -> writer, merged into :data:`pipeline.core.iss_table.WRITERS`.
WRITERS_CHAOS: dict[str, Callable[[dict, IssGrid], list[str]]] = {"chaos": lambda entry, grid: ["ChaosConstruction"]}

READERS.update(READERS_CHAOS)
WRITERS.update(WRITERS_CHAOS)
