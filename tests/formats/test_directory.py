"""formats.directory: the CSV files of seed 000, the manifest of docs/conventions.md, atomic writes."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

import formats.csv as csv_format
from formats.base import atomic_open
from oracles import is_valid_solution, oracle_matrix, oracle_position
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from formats.directory import export_model, exporting_formats, import_solution
from pipeline.solvers.highs import solve
from formats.files import load_manifest_file as load_manifest
from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, parse_puzzle

CSV_FILES = {"Aeq.csv", "Aeq_ijv.csv", "A_ijv.csv", "B_ijv.csv", "beq.csv", "lb.csv", "ub.csv", "f.csv",
             "Aeq_long.csv"}


def export(tmp_path, model, formats="csv", **kw):
    written = export_model(model, tmp_path, formats, **kw)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    return written


def read_lines(path):
    text = path.read_text()
    assert text.endswith("\n")
    return text[:-1].split("\n")


def read_triplets(path):
    """MATLAB spconvert: 1-based i,j,v rows, the last one m,n,0 giving the size."""
    t = np.loadtxt(path, delimiter=",", ndmin=2)
    m, n, zero = t[-1]
    assert zero == 0
    body = t[:-1]
    assert body.size == 0 or (body[:, :2].min() >= 1 and body[:, 0].max() <= m and body[:, 1].max() <= n)
    return sp.csr_matrix((body[:, 2], (body[:, 0].astype(int) - 1, body[:, 1].astype(int) - 1)),
                         shape=(int(m), int(n))), body


@pytest.fixture
def seed_export(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), "ijk", "F", "rows")
    written = export(tmp_path, model)
    return model, written, tmp_path


# ---------------------------------------------------------------------------------------------
# seed 000: dense CSV, triplets, vectors
# ---------------------------------------------------------------------------------------------
def test_files_written(seed_export):
    _, written, out = seed_export
    assert {p.name for p in written["csv"]} == CSV_FILES
    assert [p.name for p in written["manifest"]] == ["manifest.json"]
    assert {p.name for p in out.iterdir()} == CSV_FILES | {"manifest.json"}


def test_dense_csv_is_seed_000_matn(seed_export):
    model, _, out = seed_export
    lines = read_lines(out / "Aeq.csv")
    assert len(lines) == 347                               # no header
    rows = [line.split(",") for line in lines]
    assert {len(r) for r in rows} == {729}
    assert {v for r in rows for v in r} == {"0", "1"}
    dense = np.array(rows, dtype=int)
    p = model.puzzle
    want, _ = oracle_matrix(9, 3, 3, "classic", "ijk", "F", clues=p.grid)
    np.testing.assert_array_equal(dense, want)


def test_seed_matlab_workflow_on_the_dense_csv(seed_export):
    """SEEDS.md 1, done with SciPy instead of MATLAB: read matn.csv, beq = ones(347, 1),
    intlinprog over 729 binaries, deciders = reshape(sol, 9, 9, 9), sudoku = [1:9] * deciders(i,j,:)."""
    _, _, out = seed_export
    aeq = np.loadtxt(out / "Aeq.csv", delimiter=",")
    beq = np.ones(347)
    res = milp(np.zeros(729), constraints=LinearConstraint(aeq, beq, beq), integrality=np.ones(729),
               bounds=Bounds(np.zeros(729), np.ones(729)))
    assert res.success
    deciders = np.rint(res.x).reshape((9, 9, 9), order="F")
    sudoku = (deciders * np.arange(1, 10)).sum(axis=2).astype(int)
    assert is_valid_solution(sudoku, 3, 3, clues=parse_puzzle(DEFAULT_PUZZLE).grid)


def test_spconvert_triplets_rebuild_the_matrix(seed_export):
    model, _, out = seed_export
    aeq, body = read_triplets(out / "Aeq_ijv.csv")
    assert aeq.shape == (347, 729) and body.shape[0] == 2939
    assert (aeq != model.Aeq).nnz == 0
    np.testing.assert_array_equal(aeq.toarray(), np.loadtxt(out / "Aeq.csv", delimiter=","))
    keys = body[:, 0] * 1000 + body[:, 1]
    assert np.all(np.diff(keys) > 0)                        # sorted by row, then column
    assert read_lines(out / "Aeq_ijv.csv")[-1] == "347,729,0"
    assert read_lines(out / "Aeq_ijv.csv")[0] == "1,1,1"    # cell_1_1 has x_1_1_1 at position 1
    a, _ = read_triplets(out / "A_ijv.csv")
    b, _ = read_triplets(out / "B_ijv.csv")
    assert a.shape == (324, 729) and b.shape == (23, 729)
    assert (sp.vstack([a, b]) != aeq).nnz == 0


def test_vectors(seed_export):
    _, _, out = seed_export
    assert read_lines(out / "beq.csv") == ["1"] * 347
    assert read_lines(out / "lb.csv") == ["0"] * 729
    assert read_lines(out / "ub.csv") == ["1"] * 729
    assert read_lines(out / "f.csv") == ["0"] * 729


def test_long_form(seed_export):
    model, _, out = seed_export
    lines = read_lines(out / "Aeq_long.csv")
    assert lines[0] == "row_label,col_name,value"
    assert len(lines) == 1 + 2939
    assert lines[1] == "cell_1_1,x_1_1_1,1"
    assert lines[-1] == "clue_9_6_1,x_9_6_1,1"


def test_bounds_encoding_files(tmp_path):
    p = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(p, "ijk", "C", "bounds")
    export(tmp_path, model)
    lb = np.array(read_lines(tmp_path / "lb.csv"), dtype=float)
    r, c = np.nonzero(p.grid)
    want = np.zeros(729)
    want[oracle_position("ijk", "C", 3, 3, r, c, p.grid[r, c] - 1)] = 1
    np.testing.assert_array_equal(lb, want)
    assert len(read_lines(tmp_path / "Aeq.csv")) == 324
    b, _ = read_triplets(tmp_path / "B_ijv.csv")
    assert b.shape == (0, 729)
    assert read_lines(tmp_path / "B_ijv.csv") == ["0,729,0"]


# ---------------------------------------------------------------------------------------------
# manifest
# ---------------------------------------------------------------------------------------------
def test_manifest_fields(seed_export):
    model, _, out = seed_export
    meta = json.loads((out / "manifest.json").read_text())
    assert (meta["h"], meta["w"], meta["variant"]) == (3, 3, "classic")
    assert (meta["scheme"], meta["order"], meta["clue_encoding"]) == ("ijk", "F", "rows")
    assert parse_puzzle(meta["puzzle"]) == parse_puzzle(DEFAULT_PUZZLE)
    assert (meta["rows"], meta["columns"], meta["nonzeros"]) == (347, 729, 2939)
    assert "kept_columns" not in meta
    assert set(meta["files"]["csv"]) == CSV_FILES
    loaded = load_manifest(out)
    assert loaded.puzzle == model.puzzle
    assert loaded.convention == model.convention
    assert loaded.clue_encoding == "rows"
    np.testing.assert_array_equal(loaded.columns, np.arange(729))


@pytest.mark.parametrize("scheme,order", [("ijk", "F"), ("block", "C")])
def test_manifest_kept_column_map_for_reduce(tmp_path, scheme, order):
    p = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(p, scheme, order, "reduce")
    export(tmp_path, model)
    meta = json.loads((tmp_path / "manifest.json").read_text())
    assert (meta["scheme"], meta["order"], meta["clue_encoding"]) == (scheme, order, "reduce")
    kept = meta["kept_columns"]
    assert len(kept) == meta["columns"] == model.n_cols
    np.testing.assert_array_equal(kept, model.columns)
    # kept columns are exactly the candidates that no clue rules out (independent check)
    g = p.grid
    cand = []
    for r in range(9):
        for c in range(9):
            if g[r, c]:
                continue
            seen = set(g[r]) | set(g[:, c]) | set(g[r // 3 * 3:r // 3 * 3 + 3, c // 3 * 3:c // 3 * 3 + 3].ravel())
            cand += [(r, c, d - 1) for d in range(1, 10) if d not in seen]
    rr, cc, dd = np.array(cand).T
    assert sorted(kept) == sorted(oracle_position(scheme, order, 3, 3, rr, cc, dd).tolist())
    aeq, _ = read_triplets(tmp_path / "Aeq_ijv.csv")
    assert aeq.shape == (meta["rows"], len(kept))
    assert aeq.nnz == meta["nonzeros"]
    assert len(read_lines(tmp_path / "lb.csv")) == len(kept)
    np.testing.assert_array_equal(load_manifest(tmp_path / "manifest.json").columns, kept)


def test_manifest_for_jigsaw(tmp_path):
    p = parse_puzzle("..43...1.2......", regions="0001011122332233")
    export(tmp_path, build_model(p, "ijk", "C", "bounds"))
    meta = json.loads((tmp_path / "manifest.json").read_text())
    assert meta["variant"] == "jigsaw" and meta["regions"] == "0001011122332233"
    assert (meta["h"], meta["w"]) == (2, 2)
    assert load_manifest(tmp_path).puzzle == p


def test_export_all_formats_lists_every_file(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    written = export(tmp_path, model, formats=None)
    meta = json.loads((tmp_path / "manifest.json").read_text())
    assert set(meta["files"]) == set(exporting_formats()) and "csv" in meta["files"]
    for fmt, names in meta["files"].items():
        assert names == [p.name for p in written[fmt]]
        for name in names:
            assert (tmp_path / name).is_file(), (fmt, name)


# ---------------------------------------------------------------------------------------------
# atomic writes
# ---------------------------------------------------------------------------------------------
def test_atomic_open_keeps_old_file_on_failure(tmp_path):
    path = tmp_path / "beq.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_open(path) as f:
            f.write("new, partial")
            raise RuntimeError("disk full")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["beq.csv"]


def test_failing_export_leaves_previous_files_intact(tmp_path, monkeypatch):
    first = build_model(parse_puzzle(DEFAULT_PUZZLE))
    export(tmp_path, first)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    # the second export dies half-way through the dense matrix, after some rows were written
    monkeypatch.setattr(csv_format, "_CHUNK", 1 << 12)   # several chunks of rows
    real = csv_format.dense_01_rows
    calls = []

    def dying(matrix, start, stop):
        calls.append(start)
        if len(calls) == 2:
            raise OSError("No space left on device")
        return real(matrix, start, stop)

    monkeypatch.setattr(csv_format, "dense_01_rows", dying)
    second = build_model(parse_puzzle("." * 81), "block", "C", "bounds")
    with pytest.raises(OSError):
        export_model(second, tmp_path, "csv")
    assert len(calls) == 2
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert after == before                                  # nothing half-written, no temp files


def test_rerun_overwrites_cleanly(tmp_path):
    export(tmp_path, build_model(parse_puzzle(DEFAULT_PUZZLE)))
    names = {p.name for p in tmp_path.iterdir()}
    other = "..1...2....23....44........5.3....6..1......5..6..........78.......9.....7...1.9."  # 24 clues
    model = build_model(parse_puzzle(other))
    export(tmp_path, model)
    assert {p.name for p in tmp_path.iterdir()} == names
    assert len(read_lines(tmp_path / "Aeq.csv")) == 324 + model.puzzle.n_clues
    assert read_lines(tmp_path / "beq.csv") == ["1"] * (324 + model.puzzle.n_clues)
    aeq, _ = read_triplets(tmp_path / "Aeq_ijv.csv")
    assert (aeq != model.Aeq).nnz == 0
    meta = json.loads((tmp_path / "manifest.json").read_text())
    assert parse_puzzle(meta["puzzle"]) == model.puzzle and meta["rows"] == 324 + model.puzzle.n_clues
    # the same export twice gives byte-identical files
    snapshot = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    export(tmp_path, model)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == snapshot


def test_export_creates_the_directory(tmp_path):
    out = tmp_path / "a" / "b"
    export_model(build_model(Puzzle(np.zeros((4, 4), dtype=int), 2, 2)), out, "csv")
    assert (out / "manifest.json").is_file() and len(read_lines(out / "Aeq.csv")) == 64


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failed_export_removes_the_directories_it_made_and_no_other(tmp_path, monkeypatch, failure):
    """A failed ``export --to NEW`` (a full disk, Ctrl-C) left NEW (and its new parents) behind,
    empty; a directory that was there before stays, with its files."""
    import formats.directory as directory_module

    def failing(*args, **kwargs):   # every format's files are written by then: it fails part-way
        raise failure
    monkeypatch.setattr(directory_module, "write_manifest", failing)
    model = build_model(Puzzle(np.zeros((4, 4), dtype=int), 2, 2))
    with pytest.raises(type(failure)):
        export_model(model, tmp_path / "new" / "deeper", "csv,lp")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "empty").mkdir()
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("mine")
    for there in ("empty", "kept"):
        with pytest.raises(type(failure)):
            export_model(model, tmp_path / there, "csv")
    assert list((tmp_path / "empty").iterdir()) == []
    assert [p.name for p in (tmp_path / "kept").iterdir()] == ["notes.txt"]


def test_manifest_records_the_fixed_mps_name_rule(tmp_path):
    """The fixed-MPS short names are only decodable if the manifest says how they were made."""
    import json

    from pipeline.core.build import build_model
    from formats.directory import export_model
    from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle

    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    export_model(model, tmp_path / "free", "mps")
    assert json.loads((tmp_path / "free" / "manifest.json").read_text())["formats"]["mps"] == {"styles": ["free"]}
    export_model(model, tmp_path / "both", "mps", mps_style="both")
    entry = json.loads((tmp_path / "both" / "manifest.json").read_text())["formats"]["mps"]
    assert entry["styles"] == ["free", "fixed"]
    rule = entry["fixed_names"]
    names = (tmp_path / "both" / "model_fixed_names.csv").read_text().splitlines()
    # the rule reproduces the map file: column j of the solver view is C%07d % j
    assert f"{rule['columns'] % 5},{model.col_names[5]}" in names
    assert f"{rule['rows'] % 7},{model.row_labels[7]}" in names


def test_export_refuses_special_targets_before_writing(tmp_path):
    """Issue 11 item 11: the reason names the real problem, and nothing is written first."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), "ijk", "F", "rows")
    dangling = tmp_path / "link"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(FormatError, match="symbolic link to .*nowhere.*does not exist"):
        export_model(model, dangling)
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(FormatError, match="exists and is not a directory"):
        export_model(model, a_file)
    out = tmp_path / "out"
    (out / "manifest.json").mkdir(parents=True)
    with pytest.raises(FormatError, match=r"manifest\.json: is a directory"):
        export_model(model, out, formats="csv")
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json"]  # no CSV written before the refusal
    with pytest.raises(FormatError, match="no format named"):
        export_model(model, tmp_path / "bogus", formats="bogus")
    with pytest.raises(FormatError, match="names no format"):
        export_model(model, tmp_path / "empty", formats=",,")
    assert not (tmp_path / "bogus").exists() and not (tmp_path / "empty").exists()


def test_export_removes_temporary_files_of_a_killed_run(tmp_path):
    """Issue 11 item 12: '.NAME.XXXXXXXX.tmp' files left by a kill go; a user's own files stay."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), "ijk", "F", "rows")
    tmp_path.joinpath(".Aeq.csv.abcd1234.tmp").write_text("half")
    tmp_path.joinpath(".notes.tmp").write_text("mine")
    tmp_path.joinpath("keep.txt").write_text("mine")
    export_model(model, tmp_path, formats="csv")
    names = {p.name for p in tmp_path.iterdir()}
    assert ".Aeq.csv.abcd1234.tmp" not in names
    assert {".notes.tmp", "keep.txt", "manifest.json"} <= names
    assert not [n for n in names if n.endswith(".tmp") and n != ".notes.tmp"]


# ---------------------------------------------------------------------------------------------
# issue 11 item 4: one consistent set of files after exporting over an earlier export
# ---------------------------------------------------------------------------------------------
OTHER_PUZZLE = "..1...2....23....44........5.3....6..1......5..6..........78.......9.....7...1.9."


def listed_files(directory) -> set[str]:
    meta = json.loads((directory / "manifest.json").read_text())
    return {name for names in meta["files"].values() for name in names} | {"manifest.json"}


def test_export_over_an_earlier_export_removes_its_other_files(tmp_path):
    first = build_model(parse_puzzle(DEFAULT_PUZZLE))
    export_model(first, tmp_path, "all", mps_style="both")
    (tmp_path / "notes.txt").write_text("mine")             # a user's own files stay
    (tmp_path / "my_model.mps").write_text("mine too")
    earlier = listed_files(tmp_path)
    assert {"model.mat", "solve_sudoku.m", "model.lp", "model_coo.parquet", "model_fixed.mps"} <= earlier
    second = build_model(parse_puzzle(OTHER_PUZZLE))
    export_model(second, tmp_path, "csv")
    now = {p.name for p in tmp_path.iterdir()}
    assert now == listed_files(tmp_path) | {"notes.txt", "my_model.mps"}
    assert not now & (earlier - listed_files(tmp_path))       # nothing of the old puzzle's set is left
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert parse_puzzle(json.loads((tmp_path / "manifest.json").read_text())["puzzle"]) == second.puzzle


def test_export_killed_half_way_then_rerun_ends_consistent(tmp_path, monkeypatch):
    """The kill comes after the new CSVs are written and before the manifest: the old manifest
    still lists the old files, and the rerun removes them."""
    export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), tmp_path, "csv,mat,lp")
    import formats.directory as directory_module

    def killed(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(directory_module, "write_manifest", killed)
    second = build_model(parse_puzzle(OTHER_PUZZLE))
    with pytest.raises(KeyboardInterrupt):
        export_model(second, tmp_path, "csv")
    monkeypatch.undo()
    export_model(second, tmp_path, "csv")
    assert {p.name for p in tmp_path.iterdir()} == listed_files(tmp_path) == CSV_FILES | {"manifest.json"}


def test_a_tampered_manifest_cannot_remove_other_files(tmp_path):
    outside = tmp_path / "outside.csv"
    outside.write_text("keep")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("thesis.docx", ".hidden.csv", "link.csv"):
        (out / name).write_text("keep") if name != "link.csv" else (out / name).symlink_to(outside)
    (out / "manifest.json").write_text(json.dumps({"files": {"x": ["../outside.csv", "thesis.docx", ".hidden.csv",
                                                                   "link.csv", str(outside), None, 7]}}))
    export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), out, "mps")
    assert outside.read_text() == "keep"
    assert {"thesis.docx", ".hidden.csv", "link.csv", "model.mps", "manifest.json"} == {p.name for p in out.iterdir()}
    for broken in ("[1, 2", "null", '"text"', '{"files": "Aeq.csv"}', "[" * 100000):
        (out / "manifest.json").write_text(broken)
        before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
        # lists nothing: nothing removed; and since no manifest proves model.mps (or this
        # manifest.json) an export's, neither is replaced either (issue 21 section 2)
        with pytest.raises(FormatError, match=r"(model\.mps: exists and no export's manifest|"
                                              r"manifest\.json: is not an export's manifest)"):
            export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), out, "mps")
        assert {"thesis.docx", ".hidden.csv", "link.csv"} <= {p.name for p in out.iterdir()}
        assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_export_refuses_an_empty_directory_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FormatError, match="empty path"):
        export_model(build_model(parse_puzzle(DEFAULT_PUZZLE)), "", "csv")
    assert list(tmp_path.iterdir()) == []


def test_export_options_go_to_the_formats_that_declare_them(tmp_path):
    """export_model holds every format's options and passes each format its own; an option no
    format declares is refused with one line before the directory is touched."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    with pytest.raises(FormatError, match=r"^export: no format takes option 'mps_stlye' \(they take: .*mps_style.*\)$"):
        export_model(model, tmp_path / "x", "mps", mps_stlye="fixed")
    assert not (tmp_path / "x").exists()
    written = export_model(model, tmp_path / "y", "csv,mps,lp", mps_style="fixed", dense="never", amo="ladder")
    assert [p.name for p in written["mps"]] == ["model.mps", "model_fixed.mps", "model_fixed_names.csv"]
    assert "Aeq.csv" not in [p.name for p in written["csv"]]


def test_the_exports_own_files_are_not_taken_for_answers(tmp_path):
    """An outside check: ``import model.mps`` said "unrecognised solution format", ``import
    A_ijv.csv`` "grid is 2917x3", and ``lb.csv``'s zeros read as an empty grid. Every file of an
    export, and its manifest, is now refused in one line; an answer written under such a name
    (its digest differs from the manifest's) is still read."""
    model = build_model(parse_puzzle("1......2........"))
    export_model(model, tmp_path, "all")
    files = sorted(p for p in tmp_path.iterdir() if p.name != "manifest.json")
    assert len(files) >= 15
    for path in files:
        with pytest.raises(FormatError, match=rf"^{re.escape(str(path))}: the export's own \w+ file, not a solver's "
                                              rf"answer: give the model to a solver and import the answer it writes$"):
            import_solution(path)
    with pytest.raises(FormatError, match=r"manifest.json: the export's manifest, not a solver's answer$"):
        import_solution(tmp_path / "manifest.json")
    (tmp_path / "lb.csv").write_text(",".join("1" if v else "0" for v in np.rint(solve(model).x)) + "\n")
    assert import_solution(tmp_path / "lb.csv").verdict


def test_import_of_a_directory_names_it_not_a_manifest_elsewhere(tmp_path):
    """``import DIR`` (the export directory given for its answer) suggested another export's
    one-file manifest beside DIR; with or without a manifest it is one line saying what DIR is."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    export_model(model, tmp_path / "out", "cnf")
    export_model(model, tmp_path / "other.cnf", "cnf")   # a one-file export beside the directory
    with pytest.raises(FormatError) as e:
        import_solution(tmp_path / "out")
    assert str(e.value) == (f"{tmp_path / 'out'}: is a directory, not a regular file: give the solver's answer file "
                            f"(such as {tmp_path / 'out' / 'sudoku.csv'})")
    with pytest.raises(FormatError, match="is a directory, not a regular file"):
        import_solution(tmp_path / "out", tmp_path / "out")


def test_manifest_given_as_a_model_file_of_an_export_directory(tmp_path):
    """``--manifest out/model.cnf`` (the model file the solver read, of a directory export) used
    the file as JSON ("not a readable JSON manifest (Expecting value ...)"); the directory's
    ``manifest.json`` lists it, so that manifest is meant, as for a one-file export's file."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    export_model(model, tmp_path / "out", "cnf")
    x = np.zeros(model.n_cols, dtype=int)
    x[solve(model).x > 0.5] = 1
    lines = ["s SATISFIABLE", "v " + " ".join(str(p + 1 if v else -(p + 1)) for p, v in enumerate(x)) + " 0"]
    answer = tmp_path / "answer.txt"
    answer.write_text("\n".join(lines) + "\n")
    assert import_solution(answer, tmp_path / "out" / "model.cnf").verdict
    stray = tmp_path / "out" / "notes.txt"   # a file the manifest does not list is still refused
    stray.write_text("mine\n")
    with pytest.raises(FormatError, match="not a readable JSON manifest"):
        import_solution(answer, stray)
