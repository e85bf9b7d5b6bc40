"""Solution readers: every error a solver's file can hold, with its exact message, and answers
with auxiliary columns (split from test_read_solution.py, which kept the real solvers)."""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from oracles import pattern_grid
from solution_files import (assert_verifies, cplex_text, expect_error, gurobi_text, highs_solve,
                            manifest_of, run, slx_text, write_mps)
from formats.solutions import SOLUTION_FORMATS, read_solution
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import manifest_from_dict, model_metadata
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers.highs import solve


# ----------------------------------------------------------------------------------------------
# every error, with its exact message
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def nine(tmp_path_factory):
    """A classic 9x9 rows export, its HiGHS raw solution file and a Gurobi file of it."""
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(puzzle)
    work = tmp_path_factory.mktemp("errors")
    h = highs_solve(write_mps(model, work / "m.mps"))
    h.writeSolution(str(work / "raw.sol"), 0)
    x = np.abs(np.rint(np.asarray(h.getSolution().col_value)))  # HiGHS 1.16 may give -0
    (work / "g.sol").write_text(gurobi_text(model, x, np.arange(model.n_cols)))
    return puzzle, model, manifest_of(model), work


#: what a value strictly between 0 and 1 is told to be
FRACTIONAL = (" (fractional: an LP relaxation's value, as solvers write them when they stop, or find the model "
              "infeasible, before an integer solution)")


def test_error_truncated_highs_raw(nine, tmp_path):
    text = (nine[3] / "raw.sol").read_text()
    path = tmp_path / "cut.sol"
    path.write_text(text[:text.index("x_1_2_1")])  # ends after 9 of the 729 column lines
    expect_error(path, nine[2], f"{path}: truncated: 9 of the 729 column lines announced by '# Columns'")
    path.write_text(text[:text.index("x_1_2_1") + 4])  # ends inside a line
    expect_error(path, nine[2], f"{path}: truncated: 10 of the 729 column lines announced by '# Columns'")


def test_cbc_stopped_statuses(nine, tmp_path):
    """CBC's first line after a limit: an incumbent is a solution; "(no integer solution -
    continuous used)" lists the LP relaxation's values, never a solution even when they look
    integral, and a stop on time says "time limit" (``solve --solver cbc --time-limit``: exit 1)."""
    puzzle, model, man, work = nine
    text = (work / "g.sol").read_text()  # "name value" lines of the solution (Gurobi layout)
    pairs = [ln.split() for ln in text.splitlines() if ln and not ln.startswith("#")]
    body = "".join(f"{k:7d} {name:<22} {float(v):15.8g} {0:23.8g}\n" for k, (name, v) in enumerate(pairs)
                   if float(v) != 0)

    def cbc_file(first: str):
        path = tmp_path / f"cbc_{len(list(tmp_path.iterdir()))}.txt"
        path.write_text(f"{first} - objective value 0.00000000\n" + body)
        return path

    for first in ("Optimal", "Stopped on time", "Stopped on iterations"):
        assert_verifies(cbc_file(first), puzzle, man, "cbc")
    status = "Stopped on time (no integer solution - continuous used)"
    path = cbc_file(status)
    expect_error(path, man, f"{path}: solver reports no solution: time limit reached (status: {status})")
    status = "Stopped on nodes (no integer solution - continuous used)"
    path = cbc_file(status)
    expect_error(path, man, f"{path}: solver reports no solution (status: {status})")
    path = tmp_path / "empty_stop.txt"
    path.write_text("Stopped on time - objective value 1e+50\n")
    expect_error(path, man, f"{path}: solver reports no solution: time limit reached "
                            "(status: Stopped on time, no integer solution)")


def test_glpk_undefined_mip_status_says_what_it_usually_means(nine, tmp_path):
    """glpsol -w after --tmlim with no integer solution writes status 'u'; "undefined" alone left
    the user guessing."""
    puzzle, model, man, work = nine
    path = tmp_path / "tmlim.sol"
    path.write_text(f"c written by glpsol\ns mip {model.n_rows} {model.n_cols} u 0\ne o f\n")
    expect_error(path, man, f"{path}: solver reports no solution (status: GLPK mip status 'u', undefined: no "
                            "integer solution found, as when --tmlim or --memlim ends the search first)")


def test_error_truncated_other_formats(nine, reference, tmp_path):
    puzzle, model, man, x, order, work = reference
    xml = tmp_path / "cut.xml"
    xml.write_text(cplex_text(model, x, order)[:2000])
    with pytest.raises(FormatError, match=rf"^{xml}: truncated: XML ends early \("):
        read_solution(xml, man)
    slx = tmp_path / "cut.slx"
    slx.write_text(slx_text(model, x, order).replace("ENDATA\n", ""))
    expect_error(slx, man, f"{slx}: truncated: no final 'ENDATA' line")
    cbc = tmp_path / "cut_cbc.txt"   # cut after the value: the reduced cost is missing (a probe: read as whole)
    cbc.write_text("Optimal - objective value 0.00000000\n      0 x_1_1_1   1   0\n      5 x_2_1_2   1")
    expect_error(cbc, man, f"{cbc}: truncated: line 3 is incomplete ('5 x_2_1_2   1')")
    scip = tmp_path / "cut_scip.sol"
    scip.write_text("objective value:                                    0\nx_1_1_1_1_3    1 \t(obj:0)\nx_1_1_")
    expect_error(scip, man, f"{scip}: truncated: line 3 is incomplete ('x_1_1_')")
    if shutil.which("glpsol"):
        run(["glpsol", "--freemps", "m.mps", "-w", "g_raw.txt"], nine[3])
        lines = (nine[3] / "g_raw.txt").read_text().splitlines()
        cut = tmp_path / "g_cut.txt"
        cut.write_text("\n".join(lines[:-100]) + "\n")
        expect_error(cut, nine[2], f"{cut}: truncated: no final 'e o f' line")


@pytest.mark.interop
def test_a_glpk_column_line_repeated_is_not_called_truncated(nine, tmp_path):
    glpsol = shutil.which("glpsol")
    if glpsol is None:
        pytest.skip("glpsol is not on PATH")
    run([glpsol, "--freemps", "m.mps", "-w", "g_raw.txt"], nine[3])
    lines = (nine[3] / "g_raw.txt").read_text().splitlines(keepends=True)
    first_j = next(k for k, line in enumerate(lines) if line.startswith("j "))
    path = tmp_path / "g_twice.txt"
    path.write_text("".join(lines[:first_j + 1] + lines[first_j:]))
    expect_error(path, nine[2], f"{path}: 730 column ('j') lines, more than the 729 the 's' line announces: a "
                                f"repeated or extra line")


def _damaged(lines: list[str], prefix: str, change) -> tuple[str, int]:
    """``lines`` (glpsol -w) with the first line starting ``prefix`` changed, and that line's number."""
    k = next(k for k, line in enumerate(lines) if line.startswith(prefix))
    return "".join(lines[:k] + change(lines[k]) + lines[k + 1:]), k + 1


@pytest.mark.interop
@pytest.mark.parametrize("prefix, change, message", [
    ("i 5 ", lambda line: ["i 5 garbage\n"], "line {at}: 'garbage' is not a number"),
    ("i 5 ", lambda line: ["i 5\n"], "line {at}: a row ('i') line of 2 fields, mip needs 3"),
    ("i 5 ", lambda line: ["i 6 1\n"], "line {at}: row ('i') lines are not numbered 1..{m} in order"),
    ("i 5 ", lambda line: [], "truncated: {less} of the {m} row ('i') lines announced by the 's' line"),
    ("i 5 ", lambda line: [line, line], "{more} row ('i') lines, more than the {m} the 's' line announces: a repeated or extra line"),
    ("j 7 ", lambda line: ["j 7 x\n"], "line {at}: 'x' is not a number"),
    ("j 7 ", lambda line: ["j 7\n"], "line {at}: a column ('j') line of 2 fields, mip needs 3"),
    ("j 7 ", lambda line: ["j 8 1\n"], "line {at}: column ('j') lines are not numbered 1..729 in order"),
])
def test_a_damaged_glpk_raw_line_is_named_by_its_number(nine, tmp_path, prefix, change, message):
    """A bad value in glpsol -w's file was named without its line, and damaged row lines passed."""
    glpsol = shutil.which("glpsol")
    if glpsol is None:
        pytest.skip("glpsol is not on PATH")
    run([glpsol, "--freemps", "m.mps", "-w", "g_raw.txt"], nine[3])
    lines = (nine[3] / "g_raw.txt").read_text().splitlines(keepends=True)
    text, at = _damaged(lines, prefix, change)
    path = tmp_path / "g_damaged.txt"
    path.write_text(text)
    m = nine[1].n_rows
    expect_error(path, nine[2], f"{path}: " + message.format(at=at, m=m, less=m - 1, more=m + 1))


def test_error_fractional(nine, tmp_path):
    path = tmp_path / "sol.txt"
    path.write_text((nine[3] / "g.sol").read_text().replace("x_1_2_3 0\n", "x_1_2_3 0.5\n"))
    expect_error(path, nine[2], f"{path}: x_1_2_3 = 0.5 is not 0 or 1" + FRACTIONAL)
    vec = tmp_path / "x.csv"
    x = np.zeros(729)
    x[5] = 0.25
    vec.write_text("".join(f"{v:g}\n" for v in x))
    expect_error(vec, nine[2], f"{vec}: x_6_1_1 = 0.25 is not 0 or 1" + FRACTIONAL)


def test_values_within_the_commercial_solvers_integrality_tolerance_are_read(nine, tmp_path):
    """Gurobi's IntFeasTol and CPLEX's epInt default to 1e-5: an answer of theirs holding 0.99999
    and 1e-5 is valid and was refused ('x_1_1_1 = 0.99999 is not 0 or 1'); 0.9999 still is."""
    text = (nine[3] / "g.sol").read_text()
    one = next(line.split()[0] for line in text.splitlines() if line.endswith(" 1"))
    path = tmp_path / "near.sol"
    path.write_text(text.replace(f"{one} 1\n", f"{one} 0.99999\n").replace("x_1_2_3 0\n", "x_1_2_3 1e-05\n"))
    assert np.array_equal(read_solution(path, nine[2]).values, read_solution(nine[3] / "g.sol", nine[2]).values)
    path.write_text(text.replace(f"{one} 1\n", f"{one} 0.9999\n"))
    expect_error(path, nine[2], f"{path}: {one} = 0.9999 is not 0 or 1" + FRACTIONAL)


@pytest.mark.parametrize("indices", [9, 30_000])
def test_a_name_of_more_indices_than_any_scheme_is_one_line(nine, tmp_path, indices):
    """30,000 indices in one name made the name parser build a regex with a group per index, which
    pyarrow failed to compile: a traceback and exit 1 from a 60 KB file."""
    name = "x" + "_1" * indices
    path = tmp_path / "long.sol"
    path.write_text(f"{name} 1\n")
    shown = name if len(name) <= 40 else f"{name[:40]}...({len(name)} characters)"
    expect_error(path, nine[2], f"{path}: names have {indices} indices ({shown}); x_i_j_k names have 3 "
                                f"and x_I_J_p_q_n names 5")


@pytest.mark.parametrize("word", ["nan", "NaN", "inf", "-inf", "Infinity"])
@pytest.mark.parametrize("header", ["", "x\n"])
def test_a_vector_starting_with_a_number_word_keeps_it_as_a_value(nine, tmp_path, word, header):
    """``nan`` on a vector's first line is a value, not a header: it was dropped and the vector
    was one value short ('expected 729 values, found 728')."""
    vec = tmp_path / "x.csv"
    vec.write_text(header + word + "\n" + "0\n" * 728)
    expect_error(vec, nine[2], f"{vec}: x_1_1_1 = {float(word)} is not 0 or 1")


def test_error_other_puzzle_size(nine, tmp_path):
    four = build_model(parse_puzzle("1...........3...", box="2x2"))
    # the first name past the grid, as the file has it (x_9_9_9, the largest index of each, was
    # quoted for a file naming x_5_1_1 only)
    with pytest.raises(FormatError) as e:
        read_solution(nine[3] / "raw.sol", manifest_of(four))
    named = re.fullmatch(rf"{re.escape(str(nine[3] / 'raw.sol'))}: the file names (x_\d_\d_\d), but the manifest's "
                         r"4x4 puzzle ends at x_4_4_4: the file is for another puzzle size", str(e.value))
    assert named and named[1] in (nine[3] / "raw.sol").read_text() and max(map(int, named[1][2:].split("_"))) > 4
    six = tmp_path / "six.sol"
    six.write_text("Optimal - objective value 0\n      0 x_3_1_1_1_1   1   0\n")
    blocks = build_model(parse_puzzle("." * 36, box="3x2"), "block")
    expect_error(six, manifest_of(blocks), f"{six}: the file names x_3_1_1_1_1, but the manifest's 6x6 puzzle of 3x2 "
                                           "boxes ends at x_2_3_3_2_6: the file is for another puzzle size or box shape")
    vec = tmp_path / "x.csv"
    vec.write_text("0\n" * 729)
    expect_error(vec, manifest_of(four),
                 f"{vec}: expected 64 values (the export's columns, 4x4 grid), found 729")
    reduced = build_model(parse_puzzle(DEFAULT_PUZZLE), clues="reduce")
    short = tmp_path / "y.csv"
    short.write_text("1\n" * 64)
    expect_error(short, manifest_of(reduced), f"{short}: expected {reduced.n_cols} values (the export's columns) "
                                              f"or 729 (all variables of a 9x9 grid), found 64")
    grid = tmp_path / "sudoku.csv"
    grid.write_text("1,2,3,4\n3,4,1,2\n2,1,4,3\n4,3,2,1\n")
    expect_error(grid, nine[2], f"{grid}: grid is 4x4, the manifest's puzzle is 9x9")


@pytest.mark.parametrize("where", [1, 700])   # the line reader and the vectorised one
def test_error_gurobi_line_with_an_extra_field(nine, tmp_path, where):
    # "name value" and nothing else: a third field was taken and dropped without a word
    path = tmp_path / "g.sol"
    lines = (nine[3] / "g.sol").read_text().splitlines(keepends=True)
    name, value = lines[where + 1].split()
    lines[where + 1] = f"{name} {value} 7\n"
    path.write_text("".join(lines))
    expect_error(path, nine[2], f"{path}: line {where + 2}: expected 2 fields (name value), found 3: "
                                f"'{name} {value} 7'")


def test_error_missing_variables(nine, tmp_path):
    path = tmp_path / "g.sol"
    lines = (nine[3] / "g.sol").read_text().splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith(("x_1_1_1 ", "x_2_1_1 ", "x_5_5_5 "))))
    expect_error(path, nine[2], f"{path}: 3 of 729 variables missing (gurobi lists every variable): "
                                f"x_1_1_1, x_2_1_1, x_5_5_5")


def test_error_unknown_and_duplicate_names(nine, tmp_path):
    text = (nine[3] / "g.sol").read_text()
    path = tmp_path / "g.sol"
    path.write_text(text.replace("x_1_1_1 ", "foo "))
    expect_error(path, nine[2], f"{path}: unknown variable name 'foo'; expected x_i_j_k / x_I_J_p_q_n names, a "
                                f"rule's aux_... columns or C<column> short names")
    path.write_text(text.replace("x_1_1_1 ", "x_1_1_2 "))
    expect_error(path, nine[2], f"{path}: variable x_1_1_2 listed twice")
    block = build_model(parse_puzzle(DEFAULT_PUZZLE), "block", "F")
    expect_error(nine[3] / "raw.sol", manifest_of(block),
                 f"{nine[3] / 'raw.sol'}: names have 3 indices (x_1_1_1) but the manifest's scheme block names "
                 f"variables x_I_J_p_q_n")


def test_error_variable_removed_by_reduce(nine):
    """The full model's dense file names variables the reduced export dropped: refused by name."""
    reduced = build_model(parse_puzzle(DEFAULT_PUZZLE), "ijk", "F", "reduce")
    kept = np.zeros(729, dtype=bool)
    kept[reduced.columns] = True
    first = reduced.convention.names([int(np.argmax(~kept))])[0]  # raw.sol lists columns in order F
    path = nine[3] / "raw.sol"
    expect_error(path, manifest_of(reduced),
                 f"{path}: variable {first} is not a column of this export (clue encoding reduce removed it)")


def test_error_unrecognised_and_empty(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello world\nthis is no solution\n")
    expect_error(path, None, f"{path}: unrecognised solution format; tried " + ", ".join(SOLUTION_FORMATS))
    empty = tmp_path / "empty.sol"
    empty.write_text("")
    expect_error(empty, None, f"{empty}: empty file")
    expect_error(tmp_path / "absent.sol", None, f"{tmp_path / 'absent.sol'}: no such file")


def test_error_incomplete_grid(tmp_path):
    path = tmp_path / "sudoku.csv"
    path.write_text("1,2,3,4\n3,4,1,2\n2,1,0,3\n4,3,2,1\n")
    expect_error(path, None, f"{path}: 1 empty cell (first at (3, 3)); a solution grid must be complete")


@pytest.mark.parametrize("text, first", [
    (",2,3,4\n3,4,1,2\n2,1,4,3\n4,3,2,1\n", (1, 1)),         # MATLAB writematrix: NaN is an empty field
    ("1,2,3,4\n3,,1,2\n2,1,4,3\n4,3,2,1\n", (2, 2)),
    ("1;2;3;4\n3;4;1;2\n2;1;4;3\n4;3;2;\n", (4, 4)),
    ("c1,c2,c3,c4\n1,2,3,4\n3,4,1,2\n,1,4,3\n4,3,2,1\n", (3, 1)),   # writetable's names over it
])
def test_an_empty_field_of_a_grid_is_an_empty_cell(tmp_path, text, first):
    """A grid with an empty field was an "unrecognised solution format" listing every format;
    read as an empty cell, it is said as one."""
    path = tmp_path / "sudoku.csv"
    path.write_text(text)
    expect_error(path, None, f"{path}: 1 empty cell (first at {first}); a solution grid must be complete")


def test_a_separator_ending_every_row_is_no_empty_field(tmp_path):
    path = tmp_path / "sudoku.csv"
    path.write_text("1,2,3,4,\n3,4,1,2,\n2,1,4,3,\n4,3,2,1,\n")
    assert read_solution(path).grid().tolist() == [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]


BIG = "9" * 5000  # int() refuses more than 4300 digits with a ValueError


@pytest.mark.parametrize("text, fmt, match", [
    (f"s mip 3 {BIG} o 0\nj 1 1\ne o f\n", "glpk_raw", r"column count: '9{24}\.\.\.\(5000 characters\)'"),
    ("Problem: p\nRows: 3\nColumns: " + BIG + "\nNon-zeros: 1\nStatus: INTEGER OPTIMAL\nObjective: 0\n",
     "glpk_report", r"'Columns:' line: '9{24}\.\.\.\(5000"),
    (f"{BIG} 3 : Number of columns and rows for primal or dual solution or basis\nT\nColumns\n1\n",
     "highs_old_raw", r"line 1: column count: '9{24}\.\.\.\(5000"),
    ("Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective 0\n# Columns " + BIG + "\n",
     "highs_raw", "without a column count"),
    ("Optimal - objective value 0\n" + BIG + " x_1_1_1 1 0\n      1 x_1_1_2 0 0\n", "cbc",
     r"line 2: index '9{24}\.\.\.\(5000 characters\)' is too large"),
    ("Optimal - objective value 0\n\u00b2 x_1_1_1 1 0\n      1 x_1_1_2 0 0\n", "cbc", "expected 'index name"),
])
def test_counts_and_indices_are_checked_before_int(tmp_path, text, fmt, match):
    # '9' * 5000 and '²' pass str.isdigit but not int(): once a ValueError traceback
    path = tmp_path / "s.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=match) as err:
        read_solution(path, build_model(parse_puzzle(DEFAULT_PUZZLE)), format=fmt)
    assert "\n" not in str(err.value) and len(str(err.value)) < len(str(path)) + 150


def test_a_file_far_larger_than_the_models_solutions_is_refused_before_it_is_parsed(tmp_path):
    """A 600 MB column of zeros passed the 1 GiB read cap and ran out of memory in the parse
    (about a hundred bytes of Python a line): with a manifest, the model's size bounds the file's
    bytes and its lines, each refused in one line."""
    from formats.solutions import MIN_SOLUTION_BYTES, SOLUTION_LINES_PER_POSITION, SOLUTION_SLACK_LINES

    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    manifest = manifest_from_dict(model_metadata(model))
    # a line per column and per row at most (GLPK's -o report lists both)
    positions = 729 + manifest.data["rows"] + manifest.data.get("inequalities", 0)
    lines = SOLUTION_LINES_PER_POSITION * positions + SOLUTION_SLACK_LINES + 1
    many = tmp_path / "many.csv"
    many.write_text("0\n" * lines)
    with pytest.raises(FormatError, match=rf"many.csv: {lines:,} lines, more than the model has: at most "
                                          rf"{lines - 1:,}; not a solution file of it$"):
        read_solution(many, manifest)
    big = tmp_path / "big.csv"
    big.write_text("0" * (MIN_SOLUTION_BYTES + 1) + "\n")
    with pytest.raises(FormatError, match=r"big.csv: larger than \d+ bytes"):
        read_solution(big, manifest)
    # a real answer of the same model still reads
    result = solve(model)
    path = tmp_path / "x.csv"
    path.write_text("\n".join(str(int(v)) for v in result.x) + "\n")
    assert read_solution(path, manifest).values.sum() == 81


# ----------------------------------------------------------------------------------------------
# rules with auxiliary columns (aux_<family>_...): named and short-named answers
# ----------------------------------------------------------------------------------------------
SKYSCRAPER_4 = {"size": 4, "box": "2x2", "givens": "..2.............",
                "rules": [{"rule": "skyscraper", "clue": "r5c4", "count": 4}, {"rule": "skyscraper", "clue": "r5c1", "count": 2},
                          {"rule": "skyscraper", "clue": "r2c0", "count": 2}, {"rule": "skyscraper", "clue": "r2c5", "count": 2}]}


@pytest.fixture(scope="module", params=[("ijk", "F", "rows"), ("block", "C", "reduce")], ids=["ijkF", "blockC"])
def skyscraper(request):
    # a differential check: every external MIP answer of a model with auxiliary columns was
    # refused ("unknown variable name 'aux_skyscraper_1_2'"), and fixed-MPS short names raised IndexError
    puzzle = parse_puzzle(SKYSCRAPER_4)
    model = build_model(puzzle, *request.param)
    assert model.n_aux > 0
    result = solve(model, threads=1)
    assert result.status == "optimal"
    return puzzle, model, manifest_of(model), np.rint(result.x)


@pytest.mark.parametrize("short", [False, True], ids=["names", "short_names"])
def test_answers_with_auxiliary_columns_are_read(skyscraper, tmp_path, short):
    puzzle, model, man, x = skyscraper
    names = [f"C{j}" for j in range(model.n_cols)] if short else list(man.col_names())
    assert any(str(name).startswith("aux_skyscraper_") for name in man.col_names())
    path = tmp_path / "answer.sol"
    path.write_text("# Objective value = 0\n" + "".join(f"{name} {v:g}\n" for name, v in zip(names, x)))
    sol = assert_verifies(path, puzzle, man, "gurobi")
    assert np.array_equal(sol.grid(), model.decode(x))


def test_auxiliary_columns_are_checked_by_name(skyscraper, tmp_path):
    puzzle, model, man, x = skyscraper
    names = list(man.col_names())
    aux = next(k for k, name in enumerate(names) if str(name).startswith("aux_"))
    path = tmp_path / "answer.sol"
    wrong = names.copy()
    wrong[aux] = "aux_skyscraper_9_9"
    path.write_text("".join(f"{name} {v:g}\n" for name, v in zip(wrong, x)))
    expect_error(path, man, f"{path}: column 'aux_skyscraper_9_9' is not an auxiliary column of the puzzle's rules")
    plain = tmp_path / "plain.sol"
    plain.write_text("".join(f"{name} {v:g}\n" for name, v in zip(names, x)))
    with pytest.raises(FormatError, match=r": auxiliary columns \(aux_skyscraper_.*\) need the export's manifest"):
        read_solution(plain)
    missing = tmp_path / "missing.sol"
    missing.write_text("".join(f"{name} {v:g}\n" for k, (name, v) in enumerate(zip(names, x)) if k != aux))
    expect_error(missing, man, f"{missing}: 1 of {model.n_cols} variables missing (gurobi lists every variable): "
                               f"{names[aux]}")


@pytest.mark.interop
def test_highs_answers_to_a_model_of_no_columns(tmp_path):
    """Every cell given, reduced: no rows, no columns. HiGHS's raw answer says model status
    "Empty" and primal "None" (an outside probe found it read as "no solution"); raw and pretty
    answers read as the empty vector, the grid is the clues, and another model's manifest refuses
    it by the variables it lacks."""
    puzzle = parse_puzzle("".join(map(str, pattern_grid(3, 3).ravel())))
    model = build_model(puzzle, "ijk", "F", "reduce")
    assert model.n_cols == 0 and model.n_rows == 0
    h = highs_solve(write_mps(model, tmp_path / "model.mps"))
    for style, fmt in ((0, "highs_raw"), (1, "highs_pretty")):
        out = tmp_path / f"highs_{style}.sol"
        h.writeSolution(str(out), style)
        sol = assert_verifies(out, puzzle, manifest_of(model), fmt)
        assert sol.status == "Empty" and np.array_equal(sol.grid(), puzzle.grid)
    other = manifest_of(build_model(parse_puzzle(DEFAULT_PUZZLE)))
    with pytest.raises(FormatError, match="729 of 729 variables missing"):
        read_solution(tmp_path / "highs_0.sol", other)
