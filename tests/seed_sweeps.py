"""Seed sweeps split between ``make test`` and the slow marker.

A sweep of random puzzles (an encoding checked against its plain rows on each seed) keeps its first
seeds in every run and the rest under ``slow`` (``make test-slow``, ``make bench``): the sweeps'
later seeds were about 130 s of the suite's wall time on two cores, close to CI's limit.
"""
from __future__ import annotations

from typing import Any

import pytest

__all__ = ["sweep"]


def sweep(seeds: range, every_run: int) -> list[Any]:
    """``seeds``, the first ``every_run`` as they are and the rest marked slow.

    Parameters
    ----------
    seeds : range
        The sweep's seeds.
    every_run : int
        How many of them run in every ``make test``.

    Returns
    -------
    list
        Values for ``pytest.mark.parametrize``.

    Examples
    --------
    >>> [getattr(s, "values", s) for s in sweep(range(3), 2)]
    [0, 1, (2,)]
    """
    return [seed if k < every_run else pytest.param(seed, marks=pytest.mark.slow) for k, seed in enumerate(seeds)]
