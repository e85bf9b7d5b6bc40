"""ISS's published collections run in the suite (issue 33, part 4): every entry is read or refused
in one line by type, and every entry the project reads is solved right:

* with a published solution and one answer: the answer equals it;
* without one (or with several solutions, as some of ISS's test entries have on purpose): the
  answer verifies, and the independent CP-SAT oracle (tests/core/cpsat_oracle.py, each rule
  written from its meaning, never from the project's rows) accepts it and counts the same to 2.

One test per entry, so xdist spreads them. An entry the default engine does not finish within
:data:`SUITE_SECONDS` is skipped with its time (the suite's budget; ``make bench-iss`` measures
every entry with ``--time-limit 60`` and writes docs/iss-collection.md). Skips with a printed
reason when ``../shared`` is absent.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from pipeline.core.errors import PipelineError

PROJECT = Path(__file__).resolve().parents[2]
COLLECTION = PROJECT.parent / "shared" / "data" / "iss" / "collections.jsonl"
#: Seconds the suite gives one entry (the bench gives 60).
SUITE_SECONDS = 3.0


def _entries() -> list[dict]:
    if not COLLECTION.is_file():
        return []
    return [json.loads(line) for line in COLLECTION.read_text().splitlines() if line.strip()]


ENTRIES = _entries()


def _values_line(grid: np.ndarray, values: list[int] | None, n_values: int | None = None) -> str:
    """The grid as ISS writes a solution: values row by row; when a value has two digits (1..10 on
    a 5x10 grid, not 0..9) every cell is a letter, A for the first value."""
    digits = grid.ravel().tolist()
    if max(values or [n_values if n_values is not None else grid.shape[0]]) > 9:
        return "".join(chr(64 + d) for d in digits)
    return "".join(str(v) for v in (digits if values is None else [values[d - 1] for d in digits]))


def test_the_collection_is_there():
    if not ENTRIES:
        pytest.skip(f"{COLLECTION} is absent (../shared is not beside the project)")
    assert len(ENTRIES) == 359


@pytest.mark.slow
@pytest.mark.parametrize("entry", ENTRIES, ids=[re.sub(r"\W+", "_", e["name"])[:60] for e in ENTRIES])
def test_entry_is_refused_in_one_line_or_solved_right(entry):
    import pipeline
    from pipeline.core.verify import verify_grid

    try:
        puzzle = pipeline.read_puzzle(entry["input"])
    except PipelineError as e:
        assert "\n" not in str(e)
        pytest.skip(f"not expressible yet: {str(e)[:160]}")
    result = pipeline.solve(puzzle, time_limit=SUITE_SECONDS)
    if result.status == "time_limit":
        pytest.skip(f"{result.solver} did not finish within the suite's {SUITE_SECONDS:g} s")
    assert result.solved, (result.status, result.message)
    assert verify_grid(result.grid, puzzle)
    values = puzzle.to_document().get("values")
    values = list(range(int(values.split("-")[0]), int(values.split("-")[1]) + 1)) if isinstance(values, str) else values
    solution = entry.get("solution")
    if solution and result.unique:
        assert _values_line(result.grid, values, puzzle.n_values) == solution
        return
    if solution and _values_line(result.grid, values, puzzle.n_values) == solution:
        return
    # no published solution, or several solutions: the independent oracle must agree
    pytest.importorskip("ortools", reason="the CP-SAT oracle needs ortools (the cpsat extra)")
    import cpsat_oracle as oracle
    document = puzzle.to_document()
    try:
        accepted = oracle.holds(document, np.asarray(result.grid if values is None else
                                                     np.array(values)[result.grid - 1]))
        counted, _ = oracle.count(document, cap=2, time_limit=SUITE_SECONDS)
    except (KeyError, ValueError, NotImplementedError, RuntimeError) as e:
        pytest.skip(f"the oracle does not take this document ({type(e).__name__}: {str(e)[:80]}); the answer verified")
    assert accepted
    assert counted == (1 if result.unique else 2)
