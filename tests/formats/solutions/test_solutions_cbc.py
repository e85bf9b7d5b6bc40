"""CBC solution headers, including those of CBC wrappers (issue 11 item 23)."""
from __future__ import annotations

import numpy as np
import pytest

from formats.solutions import read_solution
from pipeline.core.build import build_model
from pipeline.core.decode import vector_from_grid
from pipeline.core.errors import FormatError, NoSolutionReported
from pipeline.core.manifest import manifest_from_dict, model_metadata
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
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


@pytest.mark.parametrize("bigger, box", [("." * 81, "3x3"), ("." * 36, "2x3")])
def test_a_smaller_models_answer_is_refused_in_one_line(solved, tmp_path, bigger, box):
    """An outside check: a 9x9's CBC answer read with a 16x16's manifest passed as a 16x16 of
    175 empty cells (exit 1, an error line for every rule it broke). CBC lists nonzeros only, so
    the 4x4's names are a subset of the bigger model's: the empty cells beyond them tell."""
    model, _, x = solved
    path = tmp_path / "x.sol"
    path.write_text("Optimal - objective value 0\n" + "".join(f"{j:7d} {model.col_names[j]} 1 0\n" for j in np.flatnonzero(x)))
    big = manifest_from_dict(model_metadata(build_model(parse_puzzle(bigger, box=box), "ijk", "C", "rows")))
    n = len(bigger) ** 0.5
    with pytest.raises(FormatError, match=rf"x\.sol: the answer's digits reach only row 4 and column 4 of the manifest's "
                                          rf"{n:.0f}x{n:.0f} grid, and {len(bigger) - 16} cells have none: is it another "
                                          rf"model's answer\?$"):
        read_solution(path, big)
    assert read_solution(path, solved[1]).format == "cbc"   # its own manifest takes it


def _cbc_csv(model, grid) -> str:
    x = vector_from_grid(grid, model.convention)
    return "name,solution\n" + "".join(f"{name},{int(v)}\n" for name, v in zip(model.col_names, x[model.columns]))


def test_cbc_printing_options_csv_is_read_by_name(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    grid = solve(model).grid
    path = tmp_path / "csv.txt"
    path.write_text(_cbc_csv(model, grid))
    sol = read_solution(path, model)
    assert sol.format == "cbc_csv" and sol.status is None
    assert sol.grid().tolist() == grid.tolist()


def test_cbc_printing_options_csv_cut_mid_line_is_truncated(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    text = _cbc_csv(model, solve(model).grid)
    path = tmp_path / "csv.txt"
    path.write_text(text[:text.index("\n", 200) + 6])
    with pytest.raises(FormatError, match="truncated"):
        read_solution(path, model)


@pytest.mark.parametrize("after", ["", "      1 x_2_1_1 1 0\n"])
def test_an_index_too_long_is_named_not_taken_for_truncation(solved, tmp_path, after):
    """An outside probe: a complete line with a 20-digit index was "truncated: line 2 is
    incomplete" when last, "expected 'index name value reduced-cost'" otherwise."""
    path = tmp_path / "x.sol"
    path.write_text(f"Optimal - objective value 0\n99999999999999999999 x_1_1_1 1 0\n{after}")
    with pytest.raises(FormatError, match=r"x\.sol: line 2: index '99999999999999999999' is too large \(more than 18 "
                                          r"digits\): not a column's index$"):
        read_solution(path, solved[1])
