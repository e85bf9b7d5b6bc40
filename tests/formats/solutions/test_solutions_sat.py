"""SAT/PB solution readers: competition output (wrapped v lines), minisat's result file,
PB output, SCIP .sol of CNF/OPB models; statuses; auxiliaries ignored; reduce maps."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats import import_solution
from formats.directory import export_model
from formats.solutions import SOLUTION_FORMATS, read_solution
from pipeline.core.build import build_model
from pipeline.core.decode import vector_from_grid
from pipeline.core.errors import FormatError, NoSolutionReported
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers.highs import solve

SOLVED_GRID = solve(build_model(parse_puzzle(DEFAULT_PUZZLE))).grid  # HiGHS: an independent engine


def model_of(enc="rows", scheme="ijk", order="F", text=DEFAULT_PUZZLE):
    return build_model(parse_puzzle(text), scheme=scheme, order=order, clues=enc)


def solution_vector(model):
    return vector_from_grid(SOLVED_GRID, model.convention)


def literals(model, n_aux=5, free_value=None):
    """Signed literals 1..N^3 (+ auxiliaries) of the solved grid."""
    x = solution_vector(model)
    if free_value is not None:  # variables a reduce file does not use get this value
        unused = np.ones(x.size, dtype=bool)
        unused[model.columns] = False
        x[unused] = free_value
    v = np.arange(1, x.size + 1 + n_aux)
    sign = np.concatenate([np.where(x > 0, 1, -1), np.where(np.arange(n_aux) % 2, 1, -1)])
    return (v * sign).tolist()


def wrap(words, width):
    return "".join("v " + " ".join(words[i:i + width]) + "\n" for i in range(0, len(words), width))


@pytest.mark.parametrize("enc", ["rows", "bounds", "reduce"])
@pytest.mark.parametrize("width", [1, 7, 10_000])
def test_sat_competition_output_wrapped_any_width(tmp_path, enc, width):
    model = model_of(enc, "block", "C")
    lits = literals(model, free_value=1.0)  # cadical sets unused variables true
    path = tmp_path / "a.out"
    path.write_text("c banner\ns SATISFIABLE\n" + wrap([str(v) for v in lits] + ["0"], width) + "c stats\n")
    sol = read_solution(path, model)
    assert sol.format == "sat_competition"
    np.testing.assert_array_equal(sol.values, solution_vector(model))


def test_minisat_result_file(tmp_path):
    model = model_of("reduce")
    path = tmp_path / "r.txt"
    path.write_text("SAT\n" + " ".join(map(str, literals(model, free_value=0.0))) + " 0\n")
    sol = read_solution(path, model)
    assert sol.format == "minisat"
    assert sol.grid().tolist() == SOLVED_GRID.tolist()


@pytest.mark.parametrize("status", ["OPTIMUM FOUND", "SATISFIABLE"])
def test_pb_competition_output(tmp_path, status):
    model = model_of("bounds", "ijk", "C")
    words = [("" if v > 0 else "-") + f"x{abs(v)}" for v in literals(model, n_aux=0)]
    np.random.default_rng(1).shuffle(words)  # minisat+ lists variables in its own order
    path = tmp_path / "pb.out"
    path.write_text(f"c minisat+\no 0\ns {status}\n" + wrap(words, 17))
    sol = read_solution(path, model)
    assert sol.format == "pb_competition" and sol.objective == 0.0
    np.testing.assert_array_equal(sol.values, solution_vector(model))


def test_scip_sol_of_a_cnf_model_lists_nonzeros(tmp_path):
    model = model_of("rows")
    ones = np.flatnonzero(solution_vector(model)) + 1
    path = tmp_path / "s.sol"
    path.write_text("solution status: optimal solution found\nobjective value: 0\n"
                    + "".join(f"x{v}  1 \t(obj:0)\n" for v in ones) + "x800 1 \t(obj:0)\n")
    sol = read_solution(path, model)
    assert sol.format == "scip_numbered"
    np.testing.assert_array_equal(sol.values, solution_vector(model))


@pytest.mark.parametrize("text, status", [
    ("s UNSATISFIABLE\n", "infeasible"),
    ("c x\ns UNKNOWN\n", "time_limit"),
    ("c UNKNOWN\n", "time_limit"),   # CaDiCaL 1.x after -t, quiet: its only line ('unrecognised' before)
    ("c ---- [ result ] ----\nc\nc UNKNOWN\nc\nc total process time 2.01 seconds\n", "time_limit"),
    ("s INDETERMINATE\n", "time_limit"),
    ("UNSAT\n", "infeasible"),
    ("INDET\n", "time_limit"),
    ("solution status: infeasible\nno solution available\n", "infeasible"),
])
def test_no_solution_statuses(tmp_path, text, status):
    path = tmp_path / "n.out"
    path.write_text(text)
    with pytest.raises(NoSolutionReported) as err:
        read_solution(path, model_of())
    assert err.value.status == status


@pytest.mark.parametrize("text, match", [
    ("s SATISFIABLE\nv 1 -2 3\n", "truncated"),
    ("s SATISFIABLE\n", "no 'v' lines: the output holds no assignment"),
    ("SAT\n1 -2\n", "truncated"),
    ("s SATISFIABLE\nv 1 -1 0\n", "variable 1 is assigned twice"),
    ("s SATISFIABLE\nv 1 a 0\n", "'a' is not a variable number"),
    ("s SATISFIABLE\nv x1 -y2\n", "not x<v>"),
    ("s SATISFIABLE\nv 1 -2 0\n", "assigned no value to variable 3"),
    # both answers in one file were read as infeasible (an outside probe)
    ("s SATISFIABLE\ns UNSATISFIABLE\nv 1 0\n", "two status lines, 's SATISFIABLE' and 's UNSATISFIABLE'"),
    # literals past the answer's 0 were blamed on a 'variable 0' (an outside probe)
    ("s SATISFIABLE\nv 1 -2 0\nv 9 0\n", r"'v' literals after the terminating 0 \('9'\)"),
    # a damaged status word over a whole answer was "solver reports no solution", exit 1 (a helper)
    ("s SATISFIABL\nv 1 -2 0\n", r"unknown status 's SATISFIABL'; a SAT or PB solver's is one of SATISFIABLE, "),
    ("s HELLO WORLD\nv 1 -2 0\n", r"unknown status 's HELLO WORLD'"),
])
def test_bad_answers_are_one_line_errors(tmp_path, text, match):
    path = tmp_path / "b.out"
    path.write_text(text)
    with pytest.raises(FormatError, match=match) as err:
        read_solution(path, model_of())
    assert "\n" not in str(err.value)


def test_answer_short_of_the_model_is_named_as_another_models(tmp_path):
    # a smaller grid's complete answer read with this manifest: it stops before the model does
    n_vars = model_of().convention.n_vars
    path = tmp_path / "small.out"
    path.write_text("s SATISFIABLE\nv " + " ".join(f"-{k}" for k in range(1, 65)) + " 0\n")
    with pytest.raises(FormatError, match=f"stops at variable 64 of the model's {n_vars} cell variables: "
                                          "is it another model's answer") as err:
        read_solution(path, model_of())
    assert "\n" not in str(err.value)
    # a gap inside the answer is only named: the answer goes on past it
    path.write_text("s SATISFIABLE\nv 1 -3 0\n")
    with pytest.raises(FormatError, match="no value to variable 2 ") as err:
        read_solution(path, model_of())
    assert "another model" not in str(err.value)


def test_numbered_answer_needs_the_manifest(tmp_path):
    path = tmp_path / "m.out"
    path.write_text("SAT\n1 -2 0\n")
    with pytest.raises(FormatError, match="pass the export's manifest"):
        read_solution(path)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(width=st.integers(1, 50), n_aux=st.integers(0, 40), enc=st.sampled_from(["rows", "bounds", "reduce"]),
       scheme=st.sampled_from(["ijk", "block"]), order=st.sampled_from("FC"), seed=st.integers(0, 2**16),
       free=st.sampled_from([0.0, 1.0]))
def test_round_trip_any_wrapping_and_order(tmp_path, width, n_aux, enc, scheme, order, seed, free):
    model = model_of(enc, scheme, order)
    words = [str(v) for v in literals(model, n_aux, free)]
    np.random.default_rng(seed).shuffle(words)
    path = tmp_path / "h.out"
    path.write_text("s SATISFIABLE\n" + wrap(words + ["0"], width))
    np.testing.assert_array_equal(read_solution(path, model).values, solution_vector(model))


def test_status_line_after_many_v_lines_is_found(tmp_path):
    """clasp prints 's SATISFIABLE' after the v lines, beyond the 64 KiB detection head."""
    model = model_of()
    lits = literals(model, n_aux=30_000)
    path = tmp_path / "clasp.out"
    path.write_text("c clasp version 3.3.5\nc Answer: 1\n" + wrap([str(v) for v in lits] + ["0"], 10)
                    + "s SATISFIABLE\nc Models : 1+\n")
    assert path.stat().st_size > 1 << 16
    np.testing.assert_array_equal(read_solution(path, model).values, solution_vector(model))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """An export of the default puzzle (CNF + OPB): its manifest states the model's 729 variables."""
    from formats.directory import export_model
    out = tmp_path_factory.mktemp("export")
    export_model(model_of(), out, "cnf,opb")
    return out / "manifest.json"


@pytest.mark.parametrize("text, match", [
    ("SAT\n1 999999999 0\n", "variable 999999999 is beyond the model's 729 variables"),
    ("s SATISFIABLE\nv 999999999 0\n", "variable 999999999 is beyond the model's 729 variables"),
    ("s OPTIMUM FOUND\nv x999999999\n", "variable 999999999 is beyond the model's 729 variables"),
    ("objective value: 0\nx1 1\nx999999999 1\n", "variable 999999999 is beyond the model's 729 variables"),
    ("objective value: 0\nx1 1\nx730 1\n", "variable 730 is beyond the model's 729 variables"),
    ("objective value: 0\nx1 1\nx0 0\n", "variable x0 is not a variable"),
    ("s SATISFIABLE\nv 1 0 2 0\n", "literals after the terminating 0"),
    ("objective value: 0\nx1 1\nx" + "1" * 30 + " 1\n", r"\(30 characters\) is beyond any model's variables"),
    ("objective value: 0\nx1 1\nx" + "1" * 5000 + " 1\n", r"\(5000 characters\) is beyond any model's variables"),
    ("s OPTIMUM FOUND\nv -x" + "9" * 40 + "\n", r"\(40 characters\) is beyond any model's variables"),
    ("objective value: 0\nx1 1\nx\u00b2 1\n", "literal 'x\u00b2' is not a variable number"),
    ("s SATISFIABLE\nv \u00b2 0\n", "literal '\u00b2' is not a variable number"),
])
def test_variable_numbers_are_bounded_by_the_model_before_any_allocation(tmp_path, exported, text, match):
    # the numbers once sized a dense array (999999999: 8 GB, a MemoryError), overflowed int64
    # or int() (tracebacks), and x0 was written to the last variable
    path = tmp_path / "big.sol"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=match) as err:
        read_solution(path, exported)
    assert "\n" not in str(err.value) and len(str(err.value)) < len(str(path)) + 150


def test_a_valid_answer_with_a_far_variable_added_is_refused(tmp_path, exported):
    lits = literals(model_of(), n_aux=0)
    path = tmp_path / "r.txt"
    path.write_text("SAT\n" + " ".join(map(str, lits)) + " 0\n")
    assert read_solution(path, exported).grid().tolist() == SOLVED_GRID.tolist()
    path.write_text("SAT\n" + " ".join(map(str, lits)) + " 99999999 0\n")
    with pytest.raises(FormatError, match="variable 99999999 is beyond the model's 729 variables"):
        read_solution(path, exported)


@pytest.mark.parametrize("answer", ["c minisat+\ns SATISFIABLE\nv\n", "c sat4j\ns SATISFIABLE\nv 0\n"])
def test_a_bare_v_line_answers_a_model_without_columns(tmp_path, answer):
    # minisat+ and sat4j print 's SATISFIABLE' and a bare 'v' for an OPB without constraints (a
    # reduce export of a full grid); it was refused as "the 'v' lines do not end with 0". SAT4J
    # answers a CNF without clauses with 'v 0' (it lists the variables clauses hold): "truncated"
    full = "3214143221434321"
    model = build_model(parse_puzzle(full), clues="reduce")
    assert model.n_cols == 0
    path = tmp_path / "mp.txt"
    path.write_text(answer)
    sol = read_solution(path, model)
    assert "".join(map(str, sol.grid().ravel())) == full
    # the same answer to a model with columns is named as incomplete, not read as all zeros
    with pytest.raises(FormatError, match="the solver assigned no value to variable 1"):
        read_solution(path, build_model(parse_puzzle(full[:-1] + "."), clues="reduce"))


def test_an_answer_naming_many_auxiliary_variables_is_read_when_their_count_is_known(tmp_path):
    """An outside probe: a sandwich 9x9's CNF has 439,391 variables, and CaDiCaL's answer (3.2 MB)
    was refused as 'larger than 1048576 bytes' by import and by solve --solver cadical alike. The
    bound now counts the export's CNF/OPB variables (its manifest) or, for an external run, twice
    its model file's size."""
    from pipeline.core.manifest import manifest_from_dict, model_metadata

    model = model_of()
    n_aux = 300_000
    path = tmp_path / "a.out"
    path.write_text("s SATISFIABLE\n" + wrap([str(v) for v in literals(model, n_aux=n_aux)] + ["0"], 10))
    assert path.stat().st_size > 1 << 20
    with pytest.raises(FormatError, match=r"larger than 1048576 bytes; refusing to read it whole$"):
        read_solution(path, model)
    expected = solution_vector(model)
    np.testing.assert_array_equal(read_solution(path, model, size_limit=8 << 20).values, expected)
    manifest = manifest_from_dict({**model_metadata(model), "formats": {"cnf": {"variables": 729 + n_aux}}})
    np.testing.assert_array_equal(read_solution(path, manifest).values, expected)


def test_a_grid_answer_of_a_value_set_puzzle_reads_in_digits_or_in_values(tmp_path):
    """An outside probe: solve_sudoku.m writes digit indices (1..4 for the values 0-3) and import
    read only those; a sudoku.csv in the values (as solve and verify show it) was refused as
    '4 empty cells'. Both read to the same answer; the values hold a 0, so they are told apart."""
    model = build_model(parse_puzzle({"size": 4, "values": "0-3", "givens": "0..." + "." * 12}))
    digits = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    read = {}
    for name, grid in (("digits", digits), ("values", digits - 1)):
        path = tmp_path / f"{name}.csv"
        path.write_text("\n".join(",".join(map(str, row)) for row in grid) + "\n")
        read[name] = read_solution(path, model).values
    np.testing.assert_array_equal(read["digits"], read["values"])
    np.testing.assert_array_equal(read["digits"], vector_from_grid(digits, model.convention))


def test_a_grid_that_reads_both_as_digits_and_as_values_is_taken_the_way_that_solves(tmp_path):
    """An outside probe: a 6x6 of the nine values 0-8 whose grid uses only the values 1..6 reads
    as digits too. It was taken as digits and refused ('clue at (1, 1) is 2 but the grid has 1'),
    where verify took it as values; the reading that solves the puzzle wins, digits on a tie."""
    values = np.arange(9)
    shown = np.array([[1, 4, 3, 6, 2, 5], [2, 5, 6, 1, 4, 3], [3, 2, 4, 5, 6, 1],
                      [5, 6, 1, 2, 3, 4], [6, 3, 5, 4, 1, 2], [4, 1, 2, 3, 5, 6]])
    clued = build_model(parse_puzzle({"size": 6, "values": "0-8", "givens": "1" + "." * 35}))
    bare = build_model(parse_puzzle({"size": 6, "values": "0-8", "givens": "." * 36}))
    path = tmp_path / "sudoku.csv"
    path.write_text("\n".join(",".join(map(str, row)) for row in shown) + "\n")
    as_values = np.searchsorted(values, shown) + 1     # value v is digit v + 1
    np.testing.assert_array_equal(read_solution(path, clued).values, vector_from_grid(as_values, clued.convention))
    np.testing.assert_array_equal(read_solution(path, bare).values, vector_from_grid(shown, bare.convention))


def test_a_pb_answer_cut_inside_its_last_line_says_truncated():
    """An outside check: minisat+'s answer cut at 90% said "variable 41 is assigned twice" (its
    last literal cut from x41 to x4). OPB answers have no terminating literal, so a last 'v' line
    without its line end is what a cut leaves."""
    parse = SOLUTION_FORMATS["sat_competition"].parse
    whole = "s SATISFIABLE\nv x1 -x2 x3 -x41\nv -x4 x42\n"
    assert parse(whole, "whole").numbers.tolist() == [1, 2, 3, 41, 4, 42]
    for cut in (len(whole) - 2, len(whole) - 1):   # 'v -x4 x4', 'v -x4 x42' without its line end
        with pytest.raises(FormatError, match=r"^cut: truncated: the last 'v' line has no line end \(it ends "):
            parse(whole[:cut], "cut")


@pytest.mark.parametrize("kind", ["sat_competition", "minisat", "pb_competition"])
def test_cr_only_line_ends_read_as_lf(tmp_path, kind):
    """The MIP readers took CR-only files; these detectors' line anchors did not ("unrecognised")."""
    model = model_of("rows")
    lits = literals(model, n_aux=0)
    text = {"sat_competition": "c banner\ns SATISFIABLE\n" + wrap([str(v) for v in lits] + ["0"], 9),
            "minisat": "SAT\n" + " ".join(map(str, lits)) + " 0\n",
            "pb_competition": "s SATISFIABLE\n" + wrap([("" if v > 0 else "-") + f"x{abs(v)}" for v in lits], 9)}[kind]
    path = tmp_path / "cr.out"
    path.write_bytes(text.replace("\n", "\r").encode())
    sol = read_solution(path, model)
    assert sol.format == kind
    assert sol.grid().tolist() == SOLVED_GRID.tolist()


@pytest.mark.parametrize("comments", [2_500, 10_000])
def test_status_after_more_than_the_detection_head_of_comment_lines_is_found(tmp_path, comments):
    """minisat+ writes a 'c ---[k]---> BDD-cost' line per encoded row before its 's' line: on a
    published puzzle the 's' line was at byte 93,274, and detection looked at the first 64 KiB
    only ("unrecognised solution format"), so ``solve --solver minisat+`` failed too."""
    model = model_of("bounds", "ijk", "C")
    words = [("" if v > 0 else "-") + f"x{abs(v)}" for v in literals(model, n_aux=0)]
    head = "".join(f"c ---[{k:4d}]---> BDD-cost:{k % 97:5d}\n" + ("o 0\n" if k % 500 == 0 else "")
                   for k in range(comments))
    path = tmp_path / "pb.out"
    path.write_text(head + "s OPTIMUM FOUND\n" + wrap(words, 17))
    assert path.stat().st_size > 65_536
    sol = read_solution(path, model)
    assert sol.format == "pb_competition"
    np.testing.assert_array_equal(sol.values, solution_vector(model))
    path.write_text(head + "nothing a solver writes\n")
    with pytest.raises(FormatError, match="unrecognised solution format"):
        read_solution(path, model)


def test_a_status_without_v_lines_says_there_is_no_assignment(tmp_path):
    """'s SATISFIABLE' alone was "truncated: the 'v' lines do not end with 0"."""
    model = model_of()
    path = tmp_path / "out.txt"
    path.write_text("s SATISFIABLE\n")
    with pytest.raises(FormatError, match=r"'s SATISFIABLE' but no 'v' lines: the output holds no assignment"):
        read_solution(path, model)


def test_minisats_screen_output_is_named(tmp_path):
    """``minisat model.cnf > out.txt`` saves its screen, which holds no model: it was an
    "unrecognised solution format" listing every format."""
    import shutil
    import subprocess

    from formats.directory import export_model

    model = model_of()
    screen = tmp_path / "screen.txt"
    if shutil.which("minisat"):
        export_model(model, tmp_path, "cnf")
        with open(screen, "w") as out:
            subprocess.run(["minisat", str(tmp_path / "model.cnf")], stdout=out, timeout=120)
    else:   # the banner minisat 2.2 prints, as the file starts
        screen.write_text("WARNING: for repeatability, setting FPU to use double precision\n"
                          "============================[ Problem Statistics ]=============================\n"
                          "|  Number of variables:           729                                         |\n"
                          "\nSATISFIABLE\n")
    with pytest.raises(FormatError, match=r"minisat's screen output, which holds no assignment: give minisat a "
                                          r"result file \(minisat model.cnf answer.txt\)"):
        read_solution(screen, model)


def test_clasps_enumeration_of_several_models_reads_its_last_model(tmp_path):
    """``clasp -n 2 model.cnf`` (a user checking uniqueness) heads each model with ``c Answer: k``;
    every one is a whole answer, but the file was refused: "'v' literals after the terminating 0"."""
    if not shutil.which("clasp"):
        print("skipped: clasp is not installed")
        pytest.skip("clasp is not installed")
    model = model_of(text="1...........4...")   # a 4x4 of many solutions
    export_model(model, tmp_path, "cnf")
    answer = tmp_path / "clasp.txt"
    with open(answer, "w") as out:
        subprocess.run(["clasp", "-n", "2", str(tmp_path / "model.cnf")], stdout=out, timeout=120)
    text = answer.read_text()
    assert text.count("c Answer:") == 2 and "s SATISFIABLE" in text
    result = import_solution(answer, tmp_path / "manifest.json")
    assert result.ok and result.format == "sat_competition"
    last = text[text.rindex("c Answer:"):]
    literals = [int(w) for line in last.splitlines() if line.startswith("v") for w in line[1:].split()]
    x = np.zeros(64)
    x[[v - 1 for v in literals if v > 0]] = 1
    assert (model.decode(x) == result.grid).all()   # the last model, as clasp's OPB output shows it


def test_clasps_enumeration_is_read_by_its_last_model_and_says_so(tmp_path):
    """``clasp -n 2``'s file of two models was reduced to its last without a word: the answer's
    note (printed by ``import``) now names the model read; a file of one model has none."""
    model = model_of(text="1...........4...")
    grids = [np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]),
             np.array([[1, 4, 2, 3], [3, 2, 4, 1], [2, 1, 3, 4], [4, 3, 1, 2]])]

    def block(k, grid):
        x = vector_from_grid(grid, model.convention)
        lits = [str(v + 1) if x[v] else str(-(v + 1)) for v in range(x.size)]
        return f"c Answer: {k}\n" + wrap(lits + ["0"], 10)

    path = tmp_path / "clasp.txt"
    path.write_text("c clasp version 3.3.5\n" + block(1, grids[0]) + block(2, grids[1]) + "s SATISFIABLE\n")
    answer = read_solution(path, model)
    assert (answer.grid() == grids[1]).all()
    assert answer.note == (f"{path}: clasp's enumeration of 2 models (c Answer: 1..2): the last, Answer 2, read; "
                           f"the others are not")
    path.write_text("c clasp version 3.3.5\n" + block(1, grids[0]) + "s SATISFIABLE\n")
    assert read_solution(path, model).note == ""
