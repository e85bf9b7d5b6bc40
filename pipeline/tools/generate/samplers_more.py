"""Samplers of the later rule families (issue 33's last kinds), merged into
:data:`pipeline.tools.generate.samplers.SAMPLERS` when that module is imported.

As there, each sampler proposes entries from the full grid and keeps only those the rule's own
``violations`` accept (:func:`~pipeline.tools.generate.samplers.entries_hold`):

* **hidden skyscraper** (outside clue): from a random side, the first digit a taller one hides;
* **count-distinct**: a random orthogonal group of cells and a clue cell (one of them or a
  neighbour) whose value is the number of distinct values in the group;
* **look-and-say**: a random orthogonal group, the clue saying how often one or two of its values
  occur (and, sometimes, that a value it lacks does not);
* **rellik**: a random orthogonal group of distinct values and a sum that no subset of them makes;
* **equality cage**: an even-sized group of distinct values, as many even as odd and as many low
  as high;
* **sum line**: a random king path that splits into consecutive segments of one sum (a prefix
  sum of the path's values); **equal sums**: an orthogonal path cut into two or three such
  segments;
* **value indexing**: a king path ``a, b, c_1..`` whose ``b`` points at the ``c_i`` holding
  ``a``'s value; **lunchbox**: a king path of distinct values and the sum between its smallest
  and largest.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import combinations

import numpy as np

from pipeline.tools.generate.samplers import SAMPLERS, Draw, _lines, _sides, entries_hold

__all__ = ["MORE_SAMPLERS"]


def _hidden_skyscraper(d: Draw) -> list[dict]:
    out = []
    for clue, cells in _sides(d):
        heights = d.grid[cells]   # digit indices: the values' order, as the rule reads heights
        taller = np.maximum.accumulate(heights)
        hidden = np.flatnonzero(heights[1:] < taller[:-1])
        if not hidden.size:
            continue
        entry = {"rule": "hiddenskyscraper", "clue": clue, "digit": int(d.values[cells[int(hidden[0]) + 1]])}
        if entries_hold([entry], d.grid, d.board):
            out.append(entry)
        if len(out) >= d.count:
            break
    return out


def _group_sampler(entry_of: Callable[[Draw, list[int]], dict | None], lengths: tuple[int, int]
                   ) -> Callable[[Draw], list[dict]]:
    """Orthogonal groups of ``lengths`` cells (unused by earlier ones) whose ``entry_of`` holds."""
    return lambda d: _lines(d, lengths, lambda path: entry_of(d, path), orthogonal=True)


def _count_distinct(d: Draw, path: list[int]) -> dict | None:
    distinct = len(set(d.values[path].tolist()))
    at = [c for c in path if d.values[c] == distinct]
    if not at:
        return None
    return {"rule": "countdistinct", "clue": d.name(at[0]), "cells": d.names(path)}


def _look_and_say(d: Draw, path: list[int]) -> dict | None:
    values, counts = np.unique(d.values[path], return_counts=True)
    named = d.rng.permutation(values.size)[:int(d.rng.integers(1, 3))]
    pairs = [(int(counts[k]), int(values[k])) for k in sorted(named.tolist())]
    absent = sorted(set(d.board.value_of.tolist()) - set(values.tolist()))
    if absent and d.rng.random() < 0.5:
        pairs.append((0, int(absent[int(d.rng.integers(len(absent)))])))
    if any(count > 9 or not 0 <= value <= 9 for count, value in pairs):
        return None
    return {"rule": "lookandsay", "clue": "".join(f"{count}{value}" for count, value in pairs), "cells": d.names(path)}


def _rellik(d: Draw, path: list[int]) -> dict | None:
    values = d.values[path].tolist()
    if len(set(values)) != len(values):
        return None
    made = {sum(chosen) for k in range(1, len(values) + 1) for chosen in combinations(values, k)}
    free = [s for s in range(1, sum(values) + 1) if s not in made]
    return {"rule": "rellik", "sum": int(free[int(d.rng.integers(len(free)))]), "cells": d.names(path)} if free else None


def _equality(d: Draw, path: list[int]) -> dict | None:
    return {"rule": "equalitycage", "cells": d.names(path)} if len(path) % 2 == 0 else None


def _sum_line(d: Draw) -> list[dict]:
    def entry(path: list[int]) -> dict | None:
        total, _ = next(_equal_runs(d.values[path]), (None, None))
        return None if total is None else {"rule": "sumline", "cells": d.names(path), "sum": total}
    return _lines(d, (4, 7), entry)


def _equal_runs(values: np.ndarray) -> Iterator[tuple[int, list[int]]]:
    """Each positive sum (a prefix sum of ``values``, smallest first) that cuts ``values`` into
    consecutive runs of that sum, with where each run ends."""
    for total in np.cumsum(values)[:-1].tolist():
        if total <= 0:
            continue
        ends, running = [], 0
        for k, v in enumerate(values.tolist(), start=1):
            running += v
            if running == total:
                ends.append(k)
                running = 0
            elif running > total:
                break
        else:
            if running == 0:
                yield int(total), ends


def _value_indexing(d: Draw) -> list[dict]:
    """A king path ``a, b, c_1..c_n`` where ``b``'s value ``i`` points at ``c_i``, which holds ``a``'s."""
    def entry(path: list[int]) -> dict | None:
        i = int(d.values[path[1]])
        if not 1 <= i <= len(path) - 2 or d.values[path[1 + i]] != d.values[path[0]]:
            return None
        return {"rule": "valueindexing", "cells": d.names(path)}
    return _lines(d, (4, 7), entry)


def _lunchbox(d: Draw) -> list[dict]:
    """A king path of distinct values: the sum of the cells between its smallest and largest."""
    def entry(path: list[int]) -> dict | None:
        values = d.values[path]
        if np.unique(values).size != values.size:
            return None
        low, high = sorted((int(values.argmin()), int(values.argmax())))
        return {"rule": "lunchbox", "cells": d.names(path), "sum": int(values[low + 1:high].sum())}
    return _lines(d, (3, 6), entry)


def _equal_sum(d: Draw) -> list[dict]:
    """An orthogonal path cut into two or three consecutive segments of one sum."""
    def entry(path: list[int]) -> dict | None:
        for _, ends in _equal_runs(d.values[path]):
            if 2 <= len(ends) <= 3:
                segments = np.split(np.array(path), ends[:-1])
                return {"rule": "equalsum", "segments": [d.names(seg.tolist()) for seg in segments]}
        return None
    return _lines(d, (3, 6), entry, orthogonal=True)


#: The samplers this module adds (kind -> sampler).
MORE_SAMPLERS: dict[str, Callable[[Draw], list[dict]]] = {
    "hiddenskyscraper": _hidden_skyscraper,
    "countdistinct": _group_sampler(_count_distinct, (3, 5)),
    "lookandsay": _group_sampler(_look_and_say, (3, 5)),
    "rellik": _group_sampler(_rellik, (2, 4)),
    "equalitycage": _group_sampler(_equality, (2, 4)),
    "sumline": _sum_line,
    "valueindexing": _value_indexing,
    "lunchbox": _lunchbox,
    "equalsum": _equal_sum,
}
SAMPLERS.update(MORE_SAMPLERS)
