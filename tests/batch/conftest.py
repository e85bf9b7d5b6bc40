"""Fixtures of the batch tests: a mixed sample with known answers, solved once."""
from __future__ import annotations

import pandas as pd
import pytest
from batch_helpers import DUPLICATE, WRONG_LENGTH, lines, read, refs

from pipeline.batch import run_batch
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle


@pytest.fixture(scope="module")
def sample(data_dir, tmp_path_factory):
    """30 Norvig top-95 puzzles with two malformed lines, a puzzle without solution (tdoku count
    0) and a 16x16 mixed in; the expected status, solution and error of every record."""
    top95 = lines(data_dir / "sets" / "9x9_norvig_top95.txt")[:30]
    tdoku = pd.read_csv(data_dir / "sets" / "9x9_tdoku_test_counts.csv", dtype={"puzzle": str})
    no_solution = tdoku.loc[tdoku["n_solutions"] == 0, "puzzle"].iloc[0]
    sixteen = lines(data_dir / "sets" / "16x16_classic.txt")[0]
    records = top95[:10] + [WRONG_LENGTH] + top95[10:20] + [no_solution] + top95[20:25] + [sixteen] \
        + [DUPLICATE] + top95[25:]
    answers = refs(data_dir / "sets" / "9x9_norvig_top95.ref.csv", data_dir / "sets" / "16x16_classic.ref.csv")
    expected = []
    for line, text in enumerate(records, start=1):   # the file below: record k on line k + 1
        if text in (WRONG_LENGTH, DUPLICATE):
            with pytest.raises(PuzzleError) as err:
                parse_puzzle(text)
            expected.append(("error", None, f"line {line}: {err.value}"))
        elif text == no_solution:
            expected.append(("infeasible", None, None))
        else:
            expected.append(("optimal", answers[text], None))
    path = tmp_path_factory.mktemp("batch-in") / "sample.txt"
    path.write_text("\n".join(records) + "\n")
    return path, records, expected


@pytest.fixture(scope="module")
def full_run(sample, tmp_path_factory):
    """The sample solved once with 2 worker processes, 8 puzzles per part."""
    path, _, _ = sample
    out = tmp_path_factory.mktemp("batch-out") / "full"
    summary = run_batch(path, out, workers=2, chunk_size=8, progress="none")
    return out, summary, read(out)
