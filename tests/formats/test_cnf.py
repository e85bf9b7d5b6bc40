"""DIMACS CNF: at-most-one patterns against pysat.card, exact clause sets, round trips to
ModelData, solving the written file, gzip, metadata and the reader's errors."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from oracles import assert_same_model_data, round_trip_cases, round_trip_puzzles

from formats import cnf
from pipeline.core import clauses
from formats.base import FORMATS, ModelData, format_for, read_model, write_model
from pipeline.core.build import build_model
from pipeline.core.decode import grid_from_vector
from pipeline.core.errors import FormatError
from formats.directory import export_model, exporting_formats
from pipeline.core.manifest import model_metadata
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.core.verify import verify_grid

card = pytest.importorskip("pysat.card", reason="python-sat (the 'sat' extra) is not installed")
solvers = pytest.importorskip("pysat.solvers")

PUZZLES = round_trip_puzzles()
CASES = round_trip_cases(PUZZLES)
ENCODINGS = clauses.AMO_ENCODINGS


def model_for(case):
    name, scheme, order, enc = case
    return build_model(PUZZLES[name], scheme=scheme, order=order, clues=enc)


def assert_same(got, want):
    """CNF carries no row names: everything else must match exactly."""
    assert got.row_labels is None
    want = ModelData(want.Aeq, want.row_lower, want.row_upper, want.lb, want.ub, want.cost, want.integrality,
                     None, want.col_names, want.metadata)
    assert_same_model_data(got, want)


# ---------------------------------------------------------------------------------------------
# round trips
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("amo", ["pairwise", "seqcounter"])
@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_round_trip_is_exact(tmp_path, case, amo):
    model = model_for(case)
    path = tmp_path / "m.cnf"
    cnf.write(model, path, amo=amo)
    got = cnf.read(path)
    assert_same(got, ModelData.from_model(model))
    assert got.metadata == model_metadata(model)
    raw = cnf.read_cnf(path)
    enc = clauses.encode(model, amo)
    assert raw.clauses() == clauses.clause_list(enc)
    assert (raw.n_vars, raw.n_clauses) == (enc.n_vars, enc.n_clauses)
    assert raw.facts == enc.facts()


@pytest.mark.parametrize("amo", ENCODINGS)
@pytest.mark.parametrize("enc", ["rows", "bounds", "reduce"])
def test_solving_the_written_file_gives_the_puzzle_solution(tmp_path, amo, enc):
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(puzzle, scheme="ijk", order="F", clues=enc)
    path = tmp_path / "m.cnf.gz"
    write_model(model, path, amo=amo)
    with gzip.open(path) as f:
        assert f.read(2) == b"c "
    raw = cnf.read_cnf(path)
    with solvers.Solver(name="cadical153", bootstrap_with=raw.clauses()) as s:
        assert s.solve()
        lits = np.array(s.get_model()[:model.convention.n_vars])
    full = np.zeros(model.convention.n_vars)
    kept = model.columns[lits[model.columns] > 0]  # only the file's own columns count
    full[kept] = 1
    full[model.B.indices] = 1
    assert verify_grid(grid_from_vector(full, model.convention), puzzle)


@pytest.mark.parametrize("amo", ENCODINGS)
def test_empty_4x4_file_has_288_models(tmp_path, amo):
    model = build_model(parse_puzzle("." * 16, box="2x2"))
    path = tmp_path / "e.cnf"
    cnf.write(model, path, amo=amo)
    raw = cnf.read_cnf(path)
    seen = set()
    with solvers.Solver(name="minisat22", bootstrap_with=raw.clauses()) as s:
        while s.solve():
            cells = [lit for lit in s.get_model()[:64] if lit > 0]
            seen.add(tuple(cells))
            s.add_clause([-lit for lit in cells])
    assert len(seen) == 288


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mask=st.lists(st.booleans(), min_size=16, max_size=16), amo=st.sampled_from(ENCODINGS),
       enc=st.sampled_from(["rows", "bounds", "reduce"]), scheme=st.sampled_from(["ijk", "block"]),
       order=st.sampled_from("FC"))
# every cell clued and reduced: a CNF of no clauses (its reader once indexed a first clause)
@example(mask=[True] * 16, amo="pairwise", enc="reduce", scheme="ijk", order="F")
def test_random_4x4_round_trips(tmp_path, mask, amo, enc, scheme, order):
    solved = "1234341221434321"
    text = "".join(ch if keep else "." for ch, keep in zip(solved, mask))
    model = build_model(parse_puzzle(text, box="2x2"), scheme=scheme, order=order, clues=enc)
    path = tmp_path / "h.cnf"
    cnf.write(model, path, amo=amo)
    assert_same(cnf.read(path), ModelData.from_model(model))
    assert cnf.read_cnf(path).clauses() == clauses.clause_list(clauses.encode(model, amo))


# ---------------------------------------------------------------------------------------------
# registry, metadata, errors
# ---------------------------------------------------------------------------------------------
def test_registered_and_exported_by_all():
    assert format_for("x.cnf").name == "cnf" and format_for("cnf").read is cnf.read
    assert "cnf" in FORMATS and "cnf" in exporting_formats() and "opb" in exporting_formats()


def test_export_writes_model_cnf_and_describes_auxiliaries(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    written = export_model(model, tmp_path, "cnf", amo="seqcounter")
    assert [p.name for p in written["cnf"]] == ["model.cnf"]
    facts = json.loads((tmp_path / "manifest.json").read_text())["formats"]["cnf"]
    assert facts["amo"] == "seqcounter"
    assert facts["aux_variables"] == [730, 729 + 324 * 8]  # 8 counter variables per 9-literal row
    assert facts["aux_per_row_length"] == {"9": 8}
    assert read_model(tmp_path / "model.cnf").Aeq.shape == model.Aeq.shape


def test_objective_is_refused(tmp_path):
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(puzzle, objective=np.arange(729.0))
    message = (r"^cnf: a CNF file cannot hold an objective, and this model has one: write it as mps, lp or opb, "
               r"which carry it, or build the model without the objective$")
    with pytest.raises(FormatError, match=message):
        cnf.write(model, tmp_path / "o.cnf")
    assert not (tmp_path / "o.cnf").exists()
    with pytest.raises(FormatError, match=message):   # named, in a directory
        export_model(model, tmp_path / "named", "mps,cnf")
    assert not (tmp_path / "named").exists()


def test_all_formats_of_a_model_with_an_objective_leave_cnf_out(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), objective=np.arange(729.0))
    written = export_model(model, tmp_path)
    assert "cnf" not in written and "mps" in written and "opb" in written
    assert not (tmp_path / "model.cnf").exists()
    assert "cnf" not in json.loads((tmp_path / "manifest.json").read_text())["formats"]
    # a costless objective is none: the CNF stays in
    assert "cnf" in export_model(build_model(parse_puzzle(DEFAULT_PUZZLE), objective=np.zeros(729)), tmp_path / "z")


@pytest.mark.parametrize("text, match", [
    ("1 2 0\n", "expected 'p cnf' before the clauses"),
    ("c only comments\n", "no 'p cnf"),
    ("p cnf 2\n1 2 0\n", "bad header"),
    ("p cnf 2 1\n1 2\n", "truncated"),
    ("p cnf 2 1\n1 x 0\n", "'x' is not an integer"),
    ("p cnf 2 1\n1 3 0\n", "literal 3 exceeds the header's 2 variables"),
    # past int32, which the literals are kept in: refused before it could wrap to 1
    ("p cnf 2 1\n1 -4294967297 0\n", "literal 4294967297 exceeds the header's 2 variables"),
    ("p cnf 2 2\n1 2 0\n", "header says 2 clauses, found 1"),
])
def test_reader_errors_are_one_line(tmp_path, text, match):
    path = tmp_path / "bad.cnf"
    path.write_text(text)
    with pytest.raises(FormatError, match=match) as err:
        cnf.read_cnf(path)
    assert "\n" not in str(err.value) and "bad.cnf" in str(err.value)


def test_literals_are_held_in_int32_when_the_header_allows_and_int64_beyond(tmp_path):
    small, huge = tmp_path / "small.cnf", tmp_path / "huge.cnf"
    small.write_text("p cnf 3 2\n1 -2 3 0\n-3 0\n")
    huge.write_text(f"p cnf {2**40} 1\n1 -{2**35} 0\n")
    assert cnf.read_cnf(small).tokens.dtype == np.int32
    assert cnf.read_cnf(small).clauses() == [[1, -2, 3], [-3]]
    assert cnf.read_cnf(huge).tokens.dtype == np.int64
    assert cnf.read_cnf(huge).clauses() == [[1, -2**35]]


def test_foreign_cnf_reads_as_clauses_but_not_as_model(tmp_path):
    path = tmp_path / "f.cnf"
    path.write_text("c a foreign file\np cnf 3 2\n1 -2\n 3 0\n-1 0\n")
    assert cnf.read_cnf(path).clauses() == [[1, -2, 3], [-1]]
    with pytest.raises(FormatError, match="not a pipeline CNF"):
        cnf.read(path)


def test_render_tokens_matches_python_formatting():
    rng = np.random.default_rng(0)
    values = rng.integers(-10**9, 10**9, size=2000)
    values[::7] = 0
    text = cnf.render_tokens(values, ends_line=values == 0).decode()
    expected = "".join(f"{v}\n" if v == 0 else f"{v} " for v in values.tolist())
    assert text == expected


def tampered_export(tmp_path, old: str, new: str):
    """A CNF export with one line changed and its digest updated, so check reaches the reader."""
    import hashlib
    import re
    out = tmp_path / "out"
    export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), out, "cnf")
    path = out / "model.cnf"
    text, count = re.subn(rf"(?m)^{re.escape(old)}$", new, path.read_text(), count=1)
    assert count == 1
    path.write_text(text)
    meta = json.loads((out / "manifest.json").read_text())
    meta["sha256"]["model.cnf"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (out / "manifest.json").write_text(json.dumps(meta))
    return out


@pytest.mark.parametrize("old, new, message", [
    # an at-most-one clause decodes to no row: only the whole clause set tells
    ("-1 -82 0", "1 -82 0", "the clauses are not the model's own encoding (amo pairwise): clause '-82 1 0' is not one "
                            "of them; their clause '-82 -1 0' is missing"),
    ("-1 -82 0", "-1 -83 0", "clause '-83 -1 0' is not one of them; their clause '-82 -1 0' is missing"),
    ("p cnf 729 12011", "p cnf 999999999999 12011", "header says 999999999999 variables, the model's CNF (amo "
                                                    "pairwise) has 729"),
    ("p cnf 729 12011", "p cnf 7" + "2" * 5000 + " 12011", "bad header 'p cnf 7222"),
    ("p cnf 729 12011", "p cnf \u00b2 12011", "bad header 'p cnf \u00b2 12011'"),
])
def test_check_compares_the_whole_clause_set_and_the_header(tmp_path, old, new, message):
    from formats.check import check_export
    problems = check_export(tampered_export(tmp_path, old, new)).problems
    assert len(problems) == 1 and "\n" not in problems[0] and len(problems[0]) < 500
    assert "model.cnf" in problems[0] and message in problems[0]


def test_clauses_in_another_order_are_the_same_set(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    path = tmp_path / "m.cnf"
    cnf.write(model, path)
    head, body = [], []
    for line in path.read_text().splitlines():
        (head if line[:1] in "cp" else body).append(line)
    shuffled = [" ".join(line.split()[::-1][1:] + ["0"]) for line in body]   # literals reversed
    np.random.default_rng(3).shuffle(shuffled)                              # clauses reordered
    path.write_text("\n".join(head + shuffled) + "\n")
    assert cnf.clause_set_difference(cnf.read_cnf(path).tokens,
                                     np.concatenate(list(clauses.iter_clause_tokens(clauses.encode(model))))) is None


@pytest.mark.parametrize("clauses", [[[1, -2], [3]], [[], [4, 5]], [[7], []], [[-1000000, 5040000, 3]], []])
def test_dimacs_text_is_python_formatting(clauses):
    # issue 34: the terminating 0 is written as the last literal's line end; an empty clause
    # (a lone 0) takes the token-by-token path
    tokens = np.array([v for c in clauses for v in [*c, 0]], dtype=np.int64)
    expected = "".join(" ".join(map(str, [*c, 0])) + "\n" for c in clauses).encode()
    assert cnf._dimacs_text(tokens) == expected


@pytest.mark.parametrize("facts", ["[" * 100000 + "]" * 100000, '{"x": ' + "9" * 5000 + "}"])
def test_hostile_facts_in_the_tag_comment_are_one_line(tmp_path, facts):
    """JSON nested 100,000 deep or an integer of 5,000 digits after the tag was a traceback
    (RecursionError, ValueError) from read_cnf and so from check."""
    from formats.cnf import CNF_TAG, read_cnf
    path = tmp_path / "model.cnf"
    path.write_text(f"c {CNF_TAG} {facts}\np cnf 1 1\n1 0\n")
    with pytest.raises(FormatError, match=f"unreadable {CNF_TAG} comment$"):
        read_cnf(path)


@pytest.mark.parametrize("separator", ["\u2028", "\u0085"])
@pytest.mark.parametrize("comment", ["", "c a comment\n"])
def test_a_unicode_line_separator_is_no_blank_with_or_without_a_comment(tmp_path, separator, comment):
    # splitlines() broke lines there only when the body held a comment: the same file read two ways
    path = tmp_path / "u.cnf"
    path.write_text(f"p cnf 2 2\n{comment}1 -2 0{separator}2 0\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"is not an integer literal of at most 18 digits$"):
        cnf.read_cnf(path)


def test_a_literal_past_18_digits_is_named_as_such(tmp_path):
    path = tmp_path / "long.cnf"
    path.write_text("p cnf 1 1\n0000000000000000001 0\n")
    with pytest.raises(FormatError, match=r"'0000000000000000001' is not an integer literal of at most 18 digits$"):
        cnf.read_cnf(path)
