"""CBC solution headers, including those of CBC wrappers (issue 11 item 23)."""
from __future__ import annotations

import numpy as np
import pytest

from formats.solutions import read_solution
from pipeline.core.build import build_model
from pipeline.core.errors import NoSolutionReported
from pipeline.core.manifest import manifest_from_dict, model_metadata
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers.highs import solve


@pytest.fixture(scope="module")
def solved():
    model = build_model(parse_puzzle("1...........3...", box="2x2"), "ijk", "C", "rows")
    result = solve(model, threads=1)
    return model, manifest_from_dict(model_metadata(model)), np.rint(result.x)


@pytest.mark.parametrize("header", ["Optimal - objective value 0.00000000", "Feasible solution - objective 0.0",
                                    "Optimal solution - objective: 0", "Stopped on iterations - objective value 0"])
def test_cbc_and_wrapper_headers(solved, tmp_path, header):
    model, man, x = solved
    body = "".join(f"{j:7d} {model.col_names[j]:<16} {x[j]:g} 0\n" for j in np.flatnonzero(x))
    path = tmp_path / "x.sol"
    path.write_text(f"{header}\n{body}")
    sol = read_solution(path, man)
    assert sol.format == "cbc"
    assert np.array_equal(sol.values[man.columns], x)


def test_infeasible_header(solved, tmp_path):
    path = tmp_path / "x.sol"
    path.write_text("Infeasible - objective value 0.00000000\n")
    with pytest.raises(NoSolutionReported) as caught:
        read_solution(path, solved[1])
    assert caught.value.status == "infeasible"
