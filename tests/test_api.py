"""The top-level API refuses what the command line refuses, with typed one-line errors
(pipeline/api.py; an outside probe found these accepted or raised bare)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import formats
import pipeline
from pipeline.core.errors import FormatError, PipelineError, PuzzleError, SolveError
from pipeline.core.puzzle import DEFAULT_PUZZLE
from pipeline.tools.generate import generate

EMPTY_4 = "." * 16


@pytest.mark.parametrize("bad, said", [
    (0, "found 0"), (-1, "found -1"), (float("nan"), "found nan"), (float("inf"), "found inf"),
    ("10", "a number of seconds or None, found str '10'"), (True, "found bool True")])
@pytest.mark.parametrize("call", ["solve", "count"])
def test_a_time_limit_the_command_line_refuses_is_refused(call, bad, said):
    with pytest.raises(SolveError, match="^time_limit: must be .*" + said):
        getattr(pipeline, call)(EMPTY_4, time_limit=bad)


@pytest.mark.parametrize("bad, said", [(float("nan"), "float nan"), (2.5, "float 2.5"), (True, "bool True"),
                                       ("2", "str '2'")])
def test_a_limit_that_is_not_a_whole_number_is_refused(bad, said):
    with pytest.raises(SolveError, match=f"^count: limit must be a whole number of solutions, at least 1, found {said}$"):
        pipeline.count(EMPTY_4, limit=bad)
    with pytest.raises(SolveError, match="at least 1, found 0$"):
        pipeline.count(EMPTY_4, limit=0)


def test_whole_numbers_of_any_kind_and_fractions_of_seconds_are_taken():
    assert pipeline.count(EMPTY_4, limit=np.int64(3)).count == 3
    assert pipeline.solve(EMPTY_4, time_limit=np.float32(30)).status == "optimal"
    assert pipeline.count(EMPTY_4, limit=5, time_limit=0.5).count == 5


def test_count_keeps_a_bounded_number_of_grids_unless_asked(monkeypatch):
    # an outside probe: count(limit=10**7) kept every grid and ran out of memory
    monkeypatch.setattr(pipeline.api, "DEFAULT_KEPT_CELLS", 16 * 100)   # 100 4x4 grids
    bounded = pipeline.count(EMPTY_4, limit=1000)
    assert (bounded.count, len(bounded.grids)) == (288, 100)
    assert len({g.tobytes() for g in bounded.grids}) == 100
    assert len(pipeline.count(EMPTY_4, limit=1000, keep=None).grids) == 288
    assert len(pipeline.count(EMPTY_4, limit=1000, keep=3).grids) == 3
    assert len(pipeline.count(EMPTY_4, limit=7).grids) == 7


@pytest.mark.parametrize("source", [None, 5, 3.5, {1, 2}])
def test_a_source_of_no_puzzle_kind_is_named_not_read_as_its_text(source):
    with pytest.raises(PuzzleError, match=rf"^puzzle: expected text, a file path, .* found {type(source).__name__}$"):
        pipeline.read_puzzle(source)


@pytest.mark.parametrize("source,found", [([], "an empty list"), ((), "an empty tuple"), ([1, 2, 3], "a list of int"),
                                          (["1...", "..3."], "a list of str")])
def test_a_list_of_no_rows_is_named_not_read_as_its_text(source, found):
    """An outside probe: read_puzzle([]) said "wrong length: ... found 2" (the 2 characters of "[]")."""
    with pytest.raises(PuzzleError, match=rf"^puzzle: expected text, a file path, .* found {found}$"):
        pipeline.read_puzzle(source)


def test_export_under_a_file_says_so_in_one_typed_line(tmp_path):
    (tmp_path / "afile").write_text("")
    model = pipeline.build(EMPTY_4)
    with pytest.raises(PipelineError, match=r"afile/x.lp: cannot write \(.*afile is not a directory\)$"):
        pipeline.export(model, tmp_path / "afile" / "x.lp")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("options, summary", [({"variant": "x"}, "4x4 x, 2 clues"),
                                               ({"variant": "latin"}, "4x4 latin, 2 clues"),
                                               ({"box": "1x4"}, "4x4 classic, 2 clues")])
def test_reading_a_puzzle_again_applies_the_options(options, summary):
    """read_puzzle(puzzle, variant="x") returned the classic puzzle as it was (its solve broke the
    X rule), though rules= was applied."""
    import pipeline
    from pipeline.core.verify import verify_grid

    again = pipeline.read_puzzle(pipeline.read_puzzle("1...........3..."), **options)
    assert again.summary() == summary
    assert again == pipeline.read_puzzle("1...........3...", **options)
    assert verify_grid(pipeline.solve(again).grid, again)


_GIVENS = "1...........3..."


@pytest.mark.parametrize("call, message", [
    (lambda: pipeline.read_puzzle([[1, 2], [3]]), "the grid's rows are of different lengths"),
    (lambda: pipeline.read_puzzle(np.zeros((0, 0))), "input must be a non-empty 2-D matrix"),
    (lambda: pipeline.read_puzzle(_GIVENS, box=5), "box: must be text like \"3x3\" or a pair (h, w)"),
    (lambda: pipeline.read_puzzle(_GIVENS, size="4"), "size: must be a whole number from 1, found str 4"),
    (lambda: pipeline.read_puzzle(_GIVENS, size=4.5), "size: must be a whole number from 1, found float 4.5"),
    (lambda: pipeline.read_puzzle(_GIVENS, size=True), "size: must be a whole number from 1, found bool True"),
    (lambda: pipeline.read_puzzle(_GIVENS, rules=5), "rules: must be a list of rule entries"),
    (lambda: pipeline.export(_GIVENS, None), "export: the path must be text or a path, found NoneType"),
    (lambda: pipeline.export(_GIVENS, "a.lp", formats=5), "export: formats must be text such as"),
    (lambda: pipeline.export(_GIVENS, "a.lp", formats=("mps", 5)), "export: formats must be text such as"),
    (lambda: pipeline.build_model("1..."), "build_model: expected a Puzzle"),
    (lambda: pipeline.build_model(pipeline.read_puzzle(_GIVENS)).decode("abc"), "decode: expected a vector"),
])
def test_wrong_types_through_the_api_are_one_pipeline_error(call, message, tmp_path, monkeypatch):
    """An outside probe found each of these a TypeError, AttributeError or bare ValueError (or
    'expected 20.25 cells'), where the API promises a PipelineError of one line."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pipeline.PipelineError) as raised:
        call()
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert list(tmp_path.iterdir()) == []


def test_export_writer_options_as_the_docstring_names_them(tmp_path):
    # the docstring said style="fixed", which every format refused; dense="bogus" was taken as never
    model = pipeline.build(EMPTY_4)
    written = pipeline.export(model, tmp_path / "m", formats="mps", mps_style="fixed")
    assert {p.name for p in written} >= {"model.mps", "model_fixed.mps"}
    assert 'mps_style="fixed"' in pipeline.export.__doc__
    with pytest.raises(PipelineError, match=r"^csv: unknown dense 'bogus'; expected auto, always or never$"):
        pipeline.export(model, tmp_path / "c", formats="csv", dense="bogus")
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("call, error, message", [
    (lambda: pipeline.read_puzzle(EMPTY_4, foo=1), PuzzleError,
     "read_puzzle: unknown option 'foo'; it takes box, regions, rules, size, variant"),
    (lambda: pipeline.solve(EMPTY_4, solver="sat", sat_backend=5), SolveError,
     "solver sat: --sat-backend must be a name, found int 5; expected one of "),
    (lambda: pipeline.count(EMPTY_4, solver="sat", sat_backend=5), SolveError,
     "solver sat: --sat-backend must be a name, found int 5; expected one of "),
    (lambda: pipeline.read_puzzle(EMPTY_4).shown(None), PuzzleError, "shown: the grid must be 4x4 integers, found None"),
    (lambda: pipeline.read_puzzle(EMPTY_4).shown(np.zeros((3, 3), dtype=int)), PuzzleError,
     "shown: the grid must be 4x4 integers, found 3x3 int64"),
    (lambda: pipeline.read_puzzle(EMPTY_4).shown(np.full((4, 4), 5)), PuzzleError, "shown: grid values must be 0..4"),
    (lambda: pipeline.build(EMPTY_4).decode(None), PipelineError, "decode: expected a vector of numbers, found NoneType"),
    (lambda: pipeline.solve(EMPTY_4, unique="no"), SolveError, "unique: must be True or False, found str 'no'"),
    (lambda: formats.import_solution(None, None), FormatError,
     "import: the solution file must be text or a path, found NoneType"),
    (lambda: formats.import_solution("answer.sol", 5), FormatError,
     "import: the manifest must be a Manifest, text or a path, found int"),
    (lambda: formats.import_solution("a\0b"), FormatError, r"import: the path 'a\x00b' holds a NUL character"),
    (lambda: pipeline.solve(EMPTY_4, solver="sat", check_unique=False), SolveError,
     "check_unique: pipeline.solve takes it as unique=True or unique=False"),
    (lambda: pipeline.solve(EMPTY_4, solver=["sat"]), SolveError, "solver: must be a solver's name, found list ['sat']"),
    (lambda: pipeline.count(EMPTY_4, solver={}), SolveError, "solver: must be a solver's name, found dict {}"),
    (lambda: formats.write_model(EMPTY_4, "w.mps"), FormatError,
     "write_model: model must be a Model (pipeline.build_model or pipeline.build), found str"),
    (lambda: next(generate(seed=1, size=4, progress=5)), PuzzleError,
     "progress: must be a function (index, step, done, total), found 5"),
    (lambda: pipeline.solve(EMPTY_4, workdir="w", unique=False), SolveError,
     "solver auto: 'workdir' is an option of scip, cbc, glpk"),
], ids=["read-option", "solve-backend", "count-backend", "shown-none", "shown-shape", "shown-range", "decode-none",
        "solve-unique", "import-none", "import-manifest", "import-nul", "check-unique", "solver-list", "solver-dict",
        "write-model-puzzle", "generate-progress", "auto-external-option"])
def test_more_wrong_api_arguments_are_one_typed_line(call, error, message):
    # an outside probe: a TypeError, pysat's AttributeError, a 3x3 grid "shown" for a 4x4, and
    # decode(None) read as one value
    with pytest.raises(error) as e:
        call()
    assert str(e.value).startswith(message) and "\n" not in str(e.value)


def test_count_refuses_a_limit_below_one_naming_the_limit():
    # it blamed 'keep', which the caller never passed
    with pytest.raises(SolveError, match=r"^count: limit must be a whole number of solutions, at least 1, found -1$"):
        pipeline.count("." * 16, limit=-1)


def test_memory_running_out_in_an_engine_is_a_typed_error(monkeypatch):
    """HiGHS's std::bad_alloc on a 225x225 under ulimit -v reached the caller as MemoryError."""
    def exhausted(*args, **kwargs):
        raise MemoryError("std::bad_alloc")

    monkeypatch.setattr("pipeline.solvers.auto.solve_checking_uniqueness", exhausted)
    with pytest.raises(SolveError, match=r"^solve: out of memory: the job needs more than this process may use"):
        pipeline.solve("1" + "." * 15, solver="highs")


def test_export_path_problems_are_format_errors(tmp_path):
    with pytest.raises(pipeline.FormatError, match=r"holds a NUL character"):
        pipeline.export("1" + "." * 15, str(tmp_path / "x\x00y.mps"))
    with pytest.raises(pipeline.FormatError, match=r"^export: .*File name too long|cannot write"):
        pipeline.export("1" + "." * 15, str(tmp_path / ("a" * 300 + ".mps")))


@pytest.mark.parametrize("target", ["x.mps", "sub/x.lp", "outdir"])
def test_export_under_a_dangling_link_names_the_link(tmp_path, target):
    # it said "cannot write (file exists)", mkdir's word for the link
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    with pytest.raises(pipeline.FormatError) as e:
        pipeline.export("1" + "." * 15, tmp_path / "gone" / target)
    assert str(e.value) == (f"{tmp_path / 'gone' / target}: cannot write ({tmp_path / 'gone'} is a link to "
                            f"'{tmp_path / 'nowhere'}', which does not exist)")
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("style", [None, "bogus"])
def test_a_one_file_mps_style_that_is_no_style_is_named_so(tmp_path, style):
    with pytest.raises(pipeline.FormatError, match=rf"^{tmp_path / 'x.mps'}: unknown mps_style {style!r}; "
                                                   "expected free or fixed$"):
        pipeline.export("1" + "." * 15, tmp_path / "x.mps", mps_style=style)


def test_export_to_dash_is_refused_not_a_directory_named_dash(tmp_path, monkeypatch):
    """An outside check: ``pipeline.export(model, "-")`` made a directory named ``-`` though its
    docstring says it works as ``export --to PATH`` does (``--to -``: standard output)."""
    from pathlib import Path
    monkeypatch.chdir(tmp_path)
    for dash in ("-", Path("-")):
        with pytest.raises(pipeline.FormatError) as err:
            pipeline.export("1" + "." * 15, dash, "lp")
        assert str(err.value).startswith("export: '-' is the command line's standard output") \
            and "\n" not in str(err.value)
    assert list(tmp_path.iterdir()) == []
    assert [p.name for p in pipeline.export("1" + "." * 15, "./-", "lp")] == ["model.lp", "manifest.json"]


def test_a_non_finite_objective_is_refused():
    puzzle = pipeline.read_puzzle("1" + "." * 15)
    for bad in (np.nan, np.inf):
        costs = np.zeros(64)
        costs[5] = bad
        with pytest.raises(PipelineError, match=r"^objective: cost 5 \(x_2_2_1\) is (nan|inf); costs must be finite$"):
            pipeline.build_model(puzzle, objective=costs)


@pytest.mark.parametrize("record", [{}, None, {"h": 3, "w": 3}, [1, 2]])
def test_puzzle_from_a_bad_record_is_a_puzzle_error(record):
    with pytest.raises(PuzzleError, match=r"^puzzle record: a dict with keys h, w and puzzle"):
        pipeline.Puzzle.from_dict(record)


def test_a_puzzle_made_directly_from_text_is_a_puzzle_error():
    with pytest.raises(PuzzleError, match=r"^puzzle: the grid must be whole numbers \(0 empty\), found 'abc'$"):
        pipeline.Puzzle("abc", 3, 3)


def test_the_subpackages_are_reached_from_a_plain_import():
    """README: ``pipeline.solvers.get_solver("auto")``. After ``import pipeline`` alone (a fresh
    process) it raised AttributeError until something else had loaded the subpackage."""
    import subprocess
    import sys

    code = "import pipeline; print(pipeline.solvers.get_solver('auto').name, 'solvers' in dir(pipeline))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["auto", "True"], done.stderr
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        pipeline.nothing  # noqa: B018


@pytest.mark.parametrize("solver", ["auto", "sat", "highs"])
def test_rule_rows_past_the_time_limit_are_a_time_limit_at_once(solver):
    """A 100x100 non-consecutive within half a second: ``solve`` and ``count`` answer
    ``time_limit`` with the estimate, without building the rows (a 200x200's count with an 8 s
    limit ran 245 s and took 12 GB, asking the engines about rows it built)."""
    puzzle = pipeline.read_puzzle('{"size": 100, "rules": [{"rule": "nonconsecutive"}]}')
    model = pipeline.build(puzzle)
    solved = pipeline.solve(model, solver=solver, time_limit=0.5)
    assert solved.status == "time_limit" and "building the rule rows alone takes about" in solved.message
    counted = pipeline.count(model, solver=solver, time_limit=0.5)
    assert counted.status == "time_limit" and "building the rule rows alone takes about" in counted.message
    assert "R" not in vars(model)


@pytest.mark.parametrize("solver", ["highs", "cpsat", "sat"])
def test_a_registry_engine_asked_directly_answers_time_limit_before_building_the_rows(solver):
    """The registry's ``solve`` and ``count`` (not the API's) check the rows' estimate too: a
    100x100 non-consecutive within half a second is ``time_limit`` at once, its rows unbuilt."""
    from pipeline.solvers import SOLVERS

    if solver == "cpsat":
        pytest.importorskip("ortools", reason="CP-SAT is the cpsat extra")
    model = pipeline.build(pipeline.read_puzzle('{"size": 100, "rules": [{"rule": "nonconsecutive"}]}'))
    solved = SOLVERS[solver].solve(model, time_limit=0.5)
    counted = SOLVERS[solver].count(model, 2, time_limit=0.5)
    for result in (solved, counted):
        assert result.status == "time_limit" and "building the rule rows alone takes about" in result.message
    assert "R" not in vars(model)


@pytest.mark.parametrize("document, summary", [
    ({"size": 9, "values": "0-8", "givens": "0" + "." * 80, "rules": [{"rule": "antiknight"}]},
     "9x9 classic, values 0..8, 1 clue; anti-knight"),
    (".Lunchbox~10~R1C1~R1C2~R1C3~R1C4.Lunchbox~5~R2C1~R2C2~R2C3", "9x9 classic, 0 clues; 2 lunchboxes"),
    ({"size": 4, "givens": "1...............", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]},
     "4x4 classic, 1 clue; 1 killer cage"),
])
def test_the_summary_says_the_value_set_and_counts_in_english(document, summary):
    """An outside check: a puzzle of the values 0..8 was summed up as '9x9 classic, 1 clue' (its
    rater's refusal named the values), and two lunchboxes as '2 lunchboxs'."""
    assert pipeline.read_puzzle(document).summary() == summary


def test_verify_checks_a_grid_as_the_command_line_does(tmp_path):
    """An outside check: the README named no way to check one's own grid from Python (only
    pipeline.core.verify.verify_grid, in docs/architecture.md)."""
    puzzle = pipeline.read_puzzle("examples/killer.json")
    grid = pipeline.solve(puzzle).grid
    assert pipeline.verify(puzzle, grid) and pipeline.verify(puzzle, grid.tolist())
    swapped = grid.copy()
    swapped[0, [0, 1]] = swapped[0, [1, 0]]
    verdict = pipeline.verify(puzzle, swapped)
    assert not verdict and verdict.message.startswith("column 1 has digit")
    text = "\n".join(" ".join(map(str, row)) for row in grid)
    (tmp_path / "answer.txt").write_text(text + "\n")
    assert pipeline.verify("examples/killer.json", text) and pipeline.verify(puzzle, tmp_path / "answer.txt")
    # in the puzzle's values, as solve prints a value-set puzzle's grid; its digit indices as result.grid
    zero_based = pipeline.read_puzzle({"size": 4, "values": "0-3", "givens": "0..............."})
    solved = pipeline.solve(zero_based).grid
    assert pipeline.verify(zero_based, solved) and pipeline.verify(zero_based, "".join(str(d - 1) for d in solved.ravel()))
    with pytest.raises(PuzzleError, match=r"^grid: an array of digit indices 1\.\.V, rows x columns"):
        pipeline.verify(puzzle, [["a", "b"], ["c", "d"]])


def test_auto_with_an_engine_option_picks_among_the_engines_that_take_it():
    """``--solver auto --presolve none`` picks among the engines taking ``--presolve``; the API
    refused the same option under ``auto`` ("count takes no option 'presolve'")."""
    pytest.importorskip("pysat", reason="python-sat (the SAT engine) is not installed")
    from pathlib import Path

    from pipeline import api
    killer = Path(__file__).resolve().parents[1] / "examples" / "killer.json"
    solved = api.solve(killer, solver="auto", presolve="none")
    assert (solved.status, solved.unique, solved.solver) == ("optimal", True, "sat")
    counted = api.count(killer, solver="auto", presolve="none")
    assert (counted.count, counted.status) == (1, "complete")
    for call in (api.solve, api.count):
        with pytest.raises(SolveError, match=r"^solver auto: no engine's (solve|count) takes 'bogus'$"):
            call(killer, solver="auto", bogus=1)


def test_results_compare_by_value_and_a_count_names_its_engine():
    # == raised "the truth value of an array is ambiguous"; CountResult.solver was '' from count()
    a, b = pipeline.count(DEFAULT_PUZZLE), pipeline.count(DEFAULT_PUZZLE)
    assert a == b and a == (1, a.grids, "complete") and not (a == (2, a.grids, "complete"))
    assert a.solver and pipeline.count(DEFAULT_PUZZLE, solver="sat").solver == "sat"
    s = pipeline.solve(DEFAULT_PUZZLE)
    assert s == dataclasses.replace(s) and not (s == dataclasses.replace(s, grid=s.grid * 0))


def test_write_model_refuses_a_name_ending_with_a_slash(tmp_path):
    # Path() dropped the slash: "a.lp/" was written as the file a.lp
    with pytest.raises(FormatError, match="ends with a slash"):
        formats.write_model(pipeline.build(DEFAULT_PUZZLE), str(tmp_path / "a.lp") + "/")
    assert list(tmp_path.iterdir()) == []


def test_read_puzzle_reads_a_table_of_one_row_as_batch_reads_it(tmp_path):
    """A CSV of one record (``generate --format csv``) is that puzzle; two rows stay batch's input."""
    import json

    one = tmp_path / "one.csv"
    cage = {"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}
    one.write_text("puzzle,variant,rules\n" + "." * 16 + ",latin," + '"' + json.dumps([cage]).replace('"', '""') + '"\n')
    puzzle = pipeline.read_puzzle(one)
    assert (puzzle.n, puzzle.variant) == (4, "latin") and puzzle.summary().endswith("1 killer cage")
    assert pipeline.count(str(one), limit=1000).count == pipeline.count(
        pipeline.read_puzzle("." * 16, variant="latin", rules=[cage]), limit=1000).count
    two = tmp_path / "two.csv"
    two.write_text("puzzle\n" + "." * 16 + "\n" + "." * 16 + "\n")
    with pytest.raises(PuzzleError, match="a table with a 'puzzle' column"):
        pipeline.read_puzzle(two)


def test_read_puzzle_reads_a_one_row_table_from_standard_input(monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("puzzle\tvariant\n" + "1" + "." * 15 + "\tlatin\n"))
    puzzle = pipeline.read_puzzle("-")
    assert (puzzle.n, puzzle.variant, int((puzzle.grid > 0).sum())) == (4, "latin", 1)


def test_read_puzzle_refuses_regions_beside_a_table_as_the_command_line_does(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("puzzle\n" + "." * 16 + "\n")
    with pytest.raises(PuzzleError, match=r"one\.csv: a table's regions are its 'regions' column, not regions=$"):
        pipeline.read_puzzle(path, regions="0011001122332233")
