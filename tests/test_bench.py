"""``bench/run.py --quick``: the JSON it writes has the expected structure, and every file its
writers wrote is a correct model, checked here with independent readers (HiGHS for MPS/LP,
NumPy/pyarrow for the triplets) against the oracle matrix of ``conftest.py``. No timing
assertions.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import highspy
import numpy as np
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from oracles import DATA_DIR, PROJECT, oracle_matrix

from pipeline.solvers.highs import new_highs
import pipeline.batch  # noqa: F401,E402  (attaches the batch kernels that pick_solver("batch") reads)
from pipeline.solvers.auto import pick_solver  # noqa: E402

OURS = ["mps", "lp", "parquet", "parquet-coo", "csv", "matlab"]
OTHERS = ["highspy-mps", "highspy-lp", "pyarrow-csv", "pyarrow-parquet"]
SIZES = [3, 4]


def _bench(*args: str, cwd: Path = PROJECT) -> subprocess.CompletedProcess:
    # --batch reads the data sets the tests use: ../shared/data, or the sample tests/data/dev
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               SUDOKU_BENCH_DATA=str(DATA_DIR))
    return subprocess.run([sys.executable, str(PROJECT / "bench" / "run.py"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    base = tmp_path_factory.mktemp("bench")
    proc = _bench("--quick", "--quiet", "--results-dir", str(base / "results"), "--keep-files", str(base / "files"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    latest = json.loads((base / "results" / "latest.json").read_text())
    return base, latest, proc.stdout


@pytest.fixture(scope="module")
def oracle_models():
    """Dense [A; B] of the empty grids (ijk/F, the writers' default convention) and row labels."""
    return {n: oracle_matrix(n * n, n, n, "classic", "ijk", "F") for n in SIZES}


def test_json_structure(quick):
    base, result, stdout = quick
    stamped = [p for p in (base / "results").glob("bench-*-quick.json")]
    assert len(stamped) == 1 and json.loads(stamped[0].read_text()) == result
    assert result["quick"] is True and result["sizes"] == SIZES
    assert {"created", "host", "models", "notes", "writers", "build", "batch", "seconds"} <= set(result)
    export = result["export_all"]   # issue 34: every format alone and all of them, on the n = 3 grid here
    assert export["n"] == 3 and export["target_seconds"] == 6.0 and isinstance(export["within_target"], bool)
    assert {"cnf", "csv", "mps", "matlab", "all"} <= set(export["formats"])
    assert all(r["seconds"] > 0 and r["mb"] > 0 for r in export["formats"].values())
    assert "All formats of an empty 9x9" in stdout
    assert [m["nonzeros"] for m in result["models"]] == [4 * (n * n) ** 3 for n in SIZES]
    skipped = {note.split()[1] for note in result["notes"] if "skipped" in note}
    expected = [w for w in OURS if w not in skipped] + OTHERS
    got = {(r["writer"], r["n"]) for r in result["writers"]}
    assert got == {(w, n) for w in expected for n in SIZES}
    for r in result["writers"]:
        assert "error" not in r, r
        n_big = r["n"] * r["n"]
        assert (r["rows"], r["columns"], r["nnz"]) == (4 * n_big ** 2, n_big ** 3, 4 * n_big ** 3)
        assert r["seconds"] > 0 and r["bytes"] > 0 and r["peak_rss_mb"] > 0 and r["mb_per_s"] > 0
        assert r["check"] == "ok"
        assert r["reference"] in ("highspy-mps", "highspy-lp") and r["x_highspy"] > 0
        if r["writer"] in ("parquet", "parquet-coo", "csv"):
            assert r["x_pyarrow"] > 0
        if r["writer"] == "matlab":   # set against our MPS writer of the same run (issue 21)
            assert r["x_mps"] > 0 and isinstance(r["within_2x_mps"], bool)
    for row in result["build"]:
        assert row["build"]["nnz"] == row["bare"]["nnz"] == 4 * row["N"] ** 3
        assert row["ratio"] > 0 and isinstance(row["within_2x"], bool)
    assert "Writers" in stdout and "Build A" in stdout and "MATLAB .mat vs our MPS writer" in stdout


def _dense(rows, cols, values, shape) -> np.ndarray:
    out = np.zeros(shape)
    np.add.at(out, (np.asarray(rows, int), np.asarray(cols, int)), values)
    return out


def _highs_matrix(path: Path, labels: list[str], n: int) -> np.ndarray:
    """Read MPS/LP with HiGHS; rows/columns placed by their names (ours) or r<k>/c<k> (HiGHS)."""
    h = new_highs()
    assert h.readModel(str(path)) != highspy.HighsStatus.kError, path
    lp = h.getLp()
    a = lp.a_matrix_
    big = n * n
    col_names, row_names = list(lp.col_names_), list(lp.row_names_)

    def col_of(name: str) -> int:
        if name.startswith("x_"):
            i, j, k = (int(v) - 1 for v in name.split("_")[1:])
            return i + big * j + big * big * k  # ijk/F from docs/conventions.md
        return int(name[1:])

    row_index = {label: k for k, label in enumerate(labels)}
    row_of = [row_index[name] if name in row_index else int(name[1:]) for name in row_names]
    cols = [col_of(name) for name in col_names]
    start, index, value = np.asarray(a.start_), np.asarray(a.index_), np.asarray(a.value_)
    col_per_entry = np.repeat(cols, np.diff(start))
    assert np.array_equal(np.asarray(lp.row_lower_), np.ones(lp.num_row_))
    return _dense(np.asarray(row_of)[index], col_per_entry, value, (lp.num_row_, lp.num_col_))


@pytest.mark.parametrize("n", SIZES)
def test_written_files_are_the_model(quick, oracle_models, n):
    base, result, _ = quick
    want, labels = oracle_models[n]
    shape = want.shape
    files = base / "files"
    written = {r["writer"] for r in result["writers"] if r["n"] == n}
    checked = set()
    if "mps" in written:
        assert np.array_equal(_highs_matrix(files / f"mps-n{n}" / "model.mps", labels, n), want)
        checked.add("mps")
    if "lp" in written:
        assert np.array_equal(_highs_matrix(files / f"lp-n{n}" / "model.lp", labels, n), want)
        checked.add("lp")
    for writer, name in (("highspy-mps", "highs.mps"), ("highspy-lp", "highs.lp")):
        assert np.array_equal(_highs_matrix(files / f"{writer}-n{n}" / name, labels, n), want)
        checked.add(writer)
    if "csv" in written:
        ijv = np.loadtxt(files / f"csv-n{n}" / "model_ijv.csv", delimiter=",")
        assert tuple(ijv[-1]) == (shape[0], shape[1], 0)  # spconvert size row
        assert np.array_equal(_dense(ijv[:-1, 0] - 1, ijv[:-1, 1] - 1, ijv[:-1, 2], shape), want)
        checked.add("csv")
    if "parquet" in written:
        t = pq.read_table(files / f"parquet-n{n}" / "model.parquet")
        assert np.array_equal(_dense(t["row"].to_numpy(), t["col"].to_numpy(), t["value"].to_numpy(), shape), want)
        assert b"sudoku_pipeline" in t.schema.metadata
        checked.add("parquet")
    if "parquet-coo" in written:  # the triplet file alone, as the like-for-like rival of bare pyarrow
        t = pq.read_table(files / f"parquet-coo-n{n}" / "model_coo.parquet")
        assert np.array_equal(_dense(t["row"].to_numpy(), t["col"].to_numpy(), t["value"].to_numpy(), shape), want)
        assert b"sudoku_pipeline" in t.schema.metadata
        checked.add("parquet-coo")
    if "matlab" in written:   # an independent reader: scipy's loadmat, at the top level and in problem
        import scipy.io as sio
        mat = sio.loadmat(files / f"matlab-n{n}" / "model.mat", simplify_cells=True)
        assert np.array_equal(mat["Aeq"].toarray(), want) and np.array_equal(mat["problem"]["Aeq"].toarray(), want)
        assert list(mat["problem"]["constraintNames"]["eqlin"]) == list(labels)
        checked.add("matlab")
    t = pcsv.read_csv(files / f"pyarrow-csv-n{n}" / "triplets.csv")
    assert np.array_equal(_dense(t["row"].to_numpy() - 1, t["col"].to_numpy() - 1, t["value"].to_numpy(), shape), want)
    t = pq.read_table(files / f"pyarrow-parquet-n{n}" / "triplets.parquet")
    assert np.array_equal(_dense(t["row"].to_numpy(), t["col"].to_numpy(), t["value"].to_numpy(), shape), want)
    checked |= {"pyarrow-csv", "pyarrow-parquet"}
    assert checked == written


def test_fresh_process_measurement(tmp_path):
    """The default mode: each measurement in its own interpreter, reporting its own peak RSS."""
    proc = _bench("--sizes", "3", "--writers", "csv,highspy-mps", "--fresh-process", "--check", "--quiet", "--no-sat", "--no-auto",
                  "--no-dfsrules", "--export-all", "0",
                  "--results-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "latest.json").read_text())
    assert result["fresh_process"] is True
    assert [(r["writer"], r["check"]) for r in result["writers"]] == [("csv", "ok"), ("highspy-mps", "ok")]
    assert all(r["rss_scope"] in ("step", "process") for r in result["writers"])


def test_unregistered_writer_is_skipped_with_a_note(tmp_path, monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("sudoku_bench_run", PROJECT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)
    monkeypatch.setattr(bench_run, "registered_writers", lambda: {"mps": "not registered yet", "lp": None,
                                                                  "parquet": None, "parquet-coo": None,
                                                                  "csv": None})
    code = bench_run.main(["--quick", "--quiet", "--no-sat", "--no-auto", "--no-dfsrules", "--export-all", "0",
                           "--sizes", "3", "--writers", "mps,highspy-mps", "--results-dir", str(tmp_path)])
    assert code == 0
    result = json.loads((tmp_path / "latest.json").read_text())
    assert result["notes"] == ["writer mps skipped: not registered yet"]
    assert [r["writer"] for r in result["writers"]] == ["highspy-mps"]
    assert "note: writer mps skipped" in capsys.readouterr().out


def test_batch_section(tmp_path):
    proc = _bench("--quick", "--quiet", "--no-sat", "--no-auto", "--no-dfsrules", "--export-all", "0", "--sizes", "3",
                  "--writers", "csv", "--batch", "--results-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "latest.json").read_text())
    sets = {r["set"]: r for r in result["batch"]}
    assert set(sets) == {"sudoku17", "hardest"}
    skipped = [f"{name}: {r['skipped']}" for name, r in sets.items() if "skipped" in r]
    if skipped:  # a pass with zero checks would hide this
        pytest.skip("bench --batch measured nothing: " + "; ".join(skipped))
    for r in sets.values():
        assert r["puzzles"] > 0
        assert [run["workers"] for run in r["runs"]] == [1, 2]
        for run in r["runs"]:
            assert run["puzzles"] == r["puzzles"] and run["status_counts"] == {"optimal": r["puzzles"]}
            assert 0 <= run["overhead_fraction"] < 1 and run["cpu_workers"] > 0
        assert r["speedup"] > 0 and r["cpu_normalised_speedup"] > 0
    assert "Batch throughput" in proc.stdout


def test_sat_section(quick):
    """The SAT section of ``--quick`` (bench/sat_bench.py): every measurement ran, every answer was
    right (batch rows verified by batch, counts equal to the known numbers, every puzzle solved
    and verified), every writer wrote a file of the model's size. No timing assertions."""
    _, result, stdout = quick
    sat = result["sat"]
    batch = [r for r in sat["batch"] if "skipped" not in r]
    if not batch:
        pytest.skip("bench SAT section measured no batch: " + "; ".join(r["skipped"] for r in sat["batch"]))
    for r in batch:
        assert "error" not in r, r
        assert r["status_counts"] == {"optimal": r["puzzles"]} and r["all_verified"], r
        assert r["puzzles_per_s"] > 0 and r["puzzles_per_cpu_s"] > 0
    engines = {(r["set"], r["solver"], r["workers"], r["count"]) for r in batch}
    for name in {r["set"] for r in batch}:
        assert {(name, "sat", 1, 0), (name, "sat", 1, 2), (name, "sat", 2, 0), (name, "highs", 1, 0)} <= engines
    assert [(r["count"], r["expected"], r["exit"]) for r in sat["count"]["rows"]] == [(288, 288, 0), (10_000, 10_000, 0)]
    configs = sat["gecode"]["configs"]
    assert configs and all("error" not in c and c["solved"] == len(c["rows"]) > 0 for c in configs)
    writers = {(r["format"], r.get("amo")): r for r in sat["writers"]}
    assert set(writers) >= {("mps", None), ("opb", None), ("cnf", "pairwise"), ("cnf", "seqcounter")}
    for (fmt, _), r in writers.items():
        assert "error" not in r and r["bytes"] > 0 and r["peak_rss_mb"] > 0, r
        if fmt == "cnf":  # N^3 cell variables plus the encoding's auxiliaries
            assert int(r["header"].split()[2]) >= r["variables"] == r["N"] ** 3
        if fmt == "opb":
            assert r["header"].startswith(f"* #variable= {r['variables']} ")
    assert "SAT batch" in stdout and "Writers, empty grid" in stdout


def test_auto_section(quick):
    """The default-engine section of ``--quick`` (bench/auto_bench.py): auto, highs and sat on the
    same puzzles, every answer verified and auto's engine named; the batch per engine verified;
    the start-up pair measured. No timing assertions."""
    _, result, stdout = quick
    auto = result["auto"]
    configs = {r["config"]: r for r in auto["gecode"]}
    assert {"auto", "highs", "sat"} <= set(configs)
    for r in configs.values():
        assert "error" not in r and r["puzzles"] and not r["unverified"], r
        assert r["slowest"] >= r["median"] > 0
    assert configs["auto"]["engines"] and "auto" not in configs["auto"]["engines"]
    assert configs["highs"]["engines"] == ["highs"]
    batch = auto["batch"]
    if batch:
        for r in batch:
            assert "error" not in r and r["optimal"] == r["puzzles"] > 0, r
        assert {r["solver"] for r in batch if not r.get("scaling")} == {"dfs", "sat", "highs", "cpsat"}
        assert {r["solver_used"] for r in batch} >= {"dfs", "sat", "highs", "cpsat"}
        scaling = [r for r in batch if r.get("scaling")]   # batch's default, resolved as the CLI does
        assert sorted(r["workers"] for r in scaling) == [1, 2] and {r["solver"] for r in scaling} == {"auto"}
        assert {r["solver_used"] for r in scaling} == {pick_solver("batch").name}
    seconds = auto["startup"]["seconds"]
    assert seconds["pipeline solve 9x9"] > seconds["python -c pass"] > 0
    assert seconds["pipeline solve killer, sat"] > seconds["python -c pass"]
    counts = {r["case"]: r["engines"] for r in auto["count"]}
    assert set(counts) == {"hardest 9x9, to 2", "minimal 16x16, to 2"}   # the quick cases
    for engines in counts.values():
        assert {name: (e["count"], e["status"]) for name, e in engines.items()} == {
            "dfs": (1, "complete"), "sat": (1, "complete")}
    assert "issue 18:" in stdout and "issue 18: count, one process" in stdout


def test_the_rule_section_sets_iss_beside_dfsrules_or_says_why_not(monkeypatch, tmp_path, capsys):
    """Without an ISS checkout the section reports the anchor figures and the reason; a family
    over 10x ISS's median is a missed target in words (bench/dfsrules_bench.py)."""
    sys.path.insert(0, str(PROJECT))
    from bench import dfsrules_bench

    rows = [{"family": "thermo", "document": {"size": 4, "givens": "1..." + "." * 12}}]
    monkeypatch.delenv("ISS_DIR", raising=False)
    assert dfsrules_bench.iss_side_by_side(rows)["why"] == "ISS_DIR is not set"
    monkeypatch.setenv("ISS_DIR", str(tmp_path))
    found = dfsrules_bench.iss_side_by_side(rows)
    assert not found["ran"] and found["why"].endswith("has no js/sandbox/simple_solver.js")
    assert found["ms"] == dfsrules_bench.ISS_ANCHOR["ms"]
    engines = {"dfsrules": {"record": {"median_s": 0.001, "max_s": 0.002, "wrong": 0,
                                       "by_family": {"thermo": 0.0005, "non-consecutive": 0.9}},
                            "batch": {"per_second": 500.0}, "process": {"median_s": 0.1}}}
    results = {"engines": engines, "iss": {**found, "ms": {"thermo": 1.0, "non-consecutive": 10.0}}}
    assert dfsrules_bench.failures(results) == ["non-consecutive: median 900.00 ms, over 10x ISS's 10.00 ms"]
    dfsrules_bench.print_family_table(results)
    table = capsys.readouterr().out
    assert "ISS skipped: ISS_DIR=" in table and "thermo" in table and "0.50x" in table


def test_every_generator_family_is_in_the_rule_set_and_one_dfsrules_refuses_goes_through_auto(capsys, monkeypatch):
    """Issue 34: every family the generator samples joins the rule bench's set (cage, even and odd
    are its killer and even/odd families), ten of each shipped; a family dfsrules refuses (a stand-in
    now that it takes them all: sum lines with their handler off) is measured with the engine auto answers it with, named per family
    in the table and in a missed 10x-ISS target, not dropped (bench/dfsrules_bench.py)."""
    sys.path.insert(0, str(PROJECT))
    from bench import dfsrules_bench
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.solvers import dfsrules, get_solver
    from pipeline.tools.generate.samplers import SAMPLERS

    assert set(SAMPLERS) - {"cage", "even", "odd"} <= set(dfsrules_bench.FAMILIES)
    shipped = dfsrules_bench.load_set()
    assert {family: sum(row["family"] == family for row in shipped) for family in dfsrules_bench.FAMILIES} == {
        family: 10 for family in dfsrules_bench.FAMILIES}
    rows = [next(row for row in shipped if row["family"] == family) for family in ("thermo", "sumline")]
    # dfsrules takes every family now: sum lines stand in for a refused one with their handler off
    monkeypatch.setattr(dfsrules, "HANDLED_KINDS", dfsrules.HANDLED_KINDS - {"sumline"})
    assert get_solver("dfsrules").problem_with(build_model(parse_puzzle(rows[1]["document"])))
    record = dfsrules_bench.per_record(rows, "dfsrules", dfsrules_bench.FALLBACK)
    assert record["wrong"] == 0 and record["n"] == 2 and set(record["by_family"]) == {"thermo", "sumline"}
    assert record["engines"]["thermo"] == "dfsrules" and record["engines"]["sumline"] not in ("", "dfsrules")
    engines = {"dfsrules": {"record": {**record, "median_s": 0.001, "max_s": 0.02,
                                       "by_family": {"thermo": 0.0005, "sumline": 0.02}},
                            "batch": {"per_second": 500.0}, "process": {"median_s": 0.1}}}
    results = {"engines": engines, "iss": {"ran": False, "why": "test", "measured": "test",
                                           "ms": {"thermo": 1.0, "sumline": 1.0}}}
    assert dfsrules_bench.failures(results) == [
        f"sumline: median 20.00 ms, over 10x ISS's 1.00 ms (answered by {record['engines']['sumline']})"]
    dfsrules_bench.print_family_table(results)
    table = capsys.readouterr().out
    assert any(line.split()[0] == "sumline" and line.split()[-1] == record["engines"]["sumline"]
               for line in table.splitlines() if line.strip())


def test_iss_side_by_side_reads_the_vendored_collection_without_shared():
    """A clone alone (no ../shared beside it) still has the 14 MATHEMAGIC killers to run: the side
    by side bench takes the same collection file as bench/iss_collection.py."""
    sys.path.insert(0, str(PROJECT))
    from bench import iss_collection, iss_side_by_side

    assert iss_side_by_side.ISS_COLLECTION == iss_collection.collection_file(PROJECT)
    assert iss_side_by_side.ISS_COLLECTION.is_file()
    assert len(iss_side_by_side.load_entries(iss_side_by_side.DEFAULT_ONLY)) == 14


def test_iss_entries_side_by_side_run_ours_alone_without_iss_and_judge_the_answers(monkeypatch, tmp_path, capsys):
    """bench/iss_side_by_side.py without ISS_DIR: the project's whole ``solve`` processes alone, each
    answer judged (verified, unique, and the published solution where there is one), the table
    saying ISS was skipped; an entry name that matches nothing is exit 2."""
    sys.path.insert(0, str(PROJECT))
    from bench import iss_side_by_side

    entry = {"name": "tiny thermo", "input": ".Thermo~R1C1~R1C2~R1C3", "solution": None}
    collection = tmp_path / "collections.jsonl"
    collection.write_text(json.dumps(entry) + "\n" + json.dumps({**entry, "name": "other"}) + "\n")
    monkeypatch.setattr(iss_side_by_side, "ISS_COLLECTION", collection)
    monkeypatch.delenv("ISS_DIR", raising=False)
    assert iss_side_by_side.load_entries("^tiny") == [entry]
    found = iss_side_by_side.run([entry], rounds=1, time_limit=30)
    assert found["iss"] == "skipped: ISS_DIR is not set"
    (row,) = found["entries"]
    assert row["name"] == "tiny thermo" and row["ours_s"] > 0 and "within" not in row
    assert row["right"] is False     # a thermometer alone on an empty grid has many solutions: not unique
    iss_side_by_side.print_table(found)
    assert "ISS skipped: ISS_DIR is not set" in capsys.readouterr().out
    published = next(json.loads(line) for line in (PROJECT / "tests" / "data" / "iss" / "collections.jsonl").open()
                     if '"Sudoku X"' in line)
    assert iss_side_by_side.run([published], 1, 30)["entries"][0]["right"] is True
    wrong = {**published, "solution": published["solution"][::-1]}     # not what the engine answers
    assert iss_side_by_side.run([wrong], 1, 30)["entries"][0]["right"] is False
    assert iss_side_by_side.main(["--only", "^nothing$", "--results-dir", str(tmp_path)]) == 2


def test_the_two_worker_batch_lasts_whatever_the_engines_pace():
    """bench/dfsrules_bench.py sizes the two-worker batch from one worker's measured rate, so that it
    lasts WORKERS_SECONDS however fast the engine became (worker start-up must not decide the ratio)."""
    sys.path.insert(0, str(PROJECT))
    from bench import dfsrules_bench

    seconds = dfsrules_bench.WORKERS_SECONDS
    for rate in (100.0, 350.0, 5_000.0):
        repeat = dfsrules_bench.lasting_repeat({"per_second": rate}, 240, 10)
        assert repeat >= 10 and repeat * 240 / rate >= seconds or repeat == 10
        assert (repeat - 1) * 240 / rate < seconds or repeat == 10   # no more than needed
    assert dfsrules_bench.lasting_repeat({"per_second": 350.0}, 240, 10) > 10


def test_held_out_sets_are_made_afresh_and_their_misses_said(capsys):
    """bench/dfsrules_bench.py makes its held-out sets with the generator as it made the shipped set
    (the shipped thermometers come back from SEED), measures dfsrules on them, and says a held-out
    record max over the target as a miss, with the family of the slowest record."""
    sys.path.insert(0, str(PROJECT))
    from bench import dfsrules_bench

    others = frozenset(dfsrules_bench.FAMILIES) - {"thermo"}
    shipped = [row for row in dfsrules_bench.load_set() if row["family"] == "thermo"]
    assert dfsrules_bench.make_set(dfsrules_bench.SEED, skip=others) == shipped
    fresh = dfsrules_bench.make_set(dfsrules_bench.HELD_OUT_SEEDS[0], per_family=2, skip=others)
    assert len(fresh) == 2 and not any(row in shipped for row in fresh)
    record = dfsrules_bench.per_record(fresh, "dfsrules")
    assert record["wrong"] == 0 and record["max_family"] == "thermo" and record["n"] == 2
    slow = {"median_s": 0.0005, "max_s": 0.09, "wrong": 0, "max_family": "non-consecutive"}
    engines = {"dfsrules": {"record": {"median_s": 0.0005, "max_s": 0.01, "wrong": 0, "by_family": {}},
                            "batch": {"per_second": 500.0}, "process": {"median_s": 0.1}}}
    results = {"engines": engines, "held_out": [{"seed": 5100, "puzzles": 240, "record": slow}]}
    assert dfsrules_bench.failures(results) == ["held-out seed 5100: record max s 0.09 (target <= 0.05)"]
    dfsrules_bench.print_held_out(results)
    assert "seed 5100 (240 puzzles made in this run)" in capsys.readouterr().out


def test_the_iss_collection_bench_runs_from_a_clone_alone(tmp_path):
    # docs/iss-collection.md's `python bench/iss_collection.py` skipped everything in a clone without
    # ../shared beside it, though tests/data/iss holds the whole collection
    from bench import iss_collection
    project = tmp_path / "project"
    vendored = project / "tests" / "data" / "iss" / "collections.jsonl"
    vendored.parent.mkdir(parents=True)
    vendored.write_text("")
    assert iss_collection.collection_file(project) == vendored
    shared = tmp_path / "shared" / "data" / "iss" / "collections.jsonl"
    shared.parent.mkdir(parents=True)
    shared.write_text("")
    assert iss_collection.collection_file(project) == shared
    assert iss_collection.collection_file(PROJECT).is_file()


@pytest.mark.parametrize("script", ["run.py", "sat_bench.py", "sat_rules_bench.py", "dfsrules_bench.py",
                                    "iss_side_by_side.py", "generate_bench.py", "rules_bench.py"])
def test_a_results_dir_that_is_a_file_is_a_usage_error_before_any_measurement(tmp_path, script):
    """It was a FileExistsError traceback (exit 1) at the very end, after the whole run's measurements."""
    taken = tmp_path / "results.json"
    taken.write_text("{}")
    proc = subprocess.run([sys.executable, str(PROJECT / "bench" / script), "--results-dir", str(taken)],
                          capture_output=True, text=True, timeout=120, cwd=PROJECT)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].endswith(f"--results-dir {taken}: not a directory")
    assert taken.read_text() == "{}"


def test_sizes_that_are_not_numbers_are_a_usage_error(tmp_path):
    proc = _bench("--sizes", "8,x", "--results-dir", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--sizes '8,x'" in proc.stderr.strip().splitlines()[-1]


def test_the_auto_section_says_why_its_batch_and_count_tables_are_empty(monkeypatch, tmp_path, capsys):
    """Without the data sets the batch table was printed as a bare header with no reason."""
    from bench import auto_bench

    monkeypatch.setattr(auto_bench, "warm_dfs_kernel", lambda: "machine code")
    monkeypatch.setattr(auto_bench, "startup", lambda rounds: {
        "seconds": {"python -c pass": 0.02, "pipeline solve 9x9": 0.2}, "over_python": 0.18})
    messages = []
    result = auto_bench.run(tmp_path, tmp_path, True, messages.append)
    assert result["batch"] == [] and result["count"] == []
    assert str(tmp_path / auto_bench.HARDEST) in result["skipped"]["batch"]
    assert any("skipped the batch rows" in m for m in messages)
    auto_bench.print_tables(result, out=sys.stdout)   # its default is the stdout bound at import
    out = capsys.readouterr().out
    assert f"hardest 9x9 batch (puzzles/s, wall; verified)\n  skipped: {tmp_path / auto_bench.HARDEST} not found" in out
    assert f"count, one process: skipped: {tmp_path / auto_bench.GECODE25} not found" in out


def test_a_result_write_that_fails_midway_leaves_the_earlier_file_and_no_temporary_file(tmp_path):
    """The benches wrote their JSON (and latest.json) in place: a run stopped or failing midway left
    a truncated file where the last good one was."""
    from bench.measure import write_result

    path = tmp_path / "latest.json"
    path.write_text('{"earlier": 1}')
    with pytest.raises(TypeError):   # json.dump has streamed the rows when it meets the object
        write_result(path, {"rows": list(range(20000)), "last": object()}, indent=1)
    assert path.read_text() == '{"earlier": 1}'
    assert [p.name for p in tmp_path.iterdir()] == ["latest.json"]
    assert write_result(tmp_path / "new" / "r.json", {"a": [1]}) == tmp_path / "new" / "r.json"
    assert json.loads((tmp_path / "new" / "r.json").read_text()) == {"a": [1]}
    write_result(path, "text\n")
    assert path.read_text() == "text\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.json", "new"]


def test_every_bench_writes_its_results_through_the_atomic_writer():
    """run.py, generate_bench.py, rules_bench.py, ... each wrote their results with write_text: in
    place, not through bench/measure.py's write_result (a temporary file renamed at the end)."""
    import re

    direct = []
    for script in sorted((PROJECT / "bench").glob("*.py")):
        for number, line in enumerate(script.read_text().splitlines(), 1):
            # a result: a dump of the run's result, a latest file, a file of RESULTS, DOC, SET or the
            # results folder (a puzzle written into a temporary work folder is no result)
            if ".write_text(" in line and re.search(r"json\.dumps\((result|found|\{)|latest|RESULTS|DOC\.|SET\."
                                                     r"|results_dir|out_dir|\(results /|\(out /", line):
                direct.append(f"{script.name}:{number}: {line.strip()}")
    assert direct == []


#: A stand-in for ISS's node runner (bench/iss_side_by_side.py's ISS_RUNNER): the first input line is
#: the warm-up (logged), then one record per line; "slow" never finishes, "boom" throws, "die" exits.
FAKE_ISS_RUNNER = """
import json, sys, time
log, inputs = sys.argv[1], open(sys.argv[2]).read().split()
open(log, "a").write(inputs[0] + "\\n")
if inputs[0] == "slow":
    time.sleep(60)
print(json.dumps({"ready": True}), flush=True)
for line in inputs[1:]:
    if line == "slow":
        time.sleep(60)
    if line == "die":
        sys.exit("died on " + line)
    record = {"error": "thrown"} if line == "boom" else {"count": 1, "ms": 1.0, "guesses": 0, "values": 9}
    print(json.dumps(record), flush=True)
"""


def test_iss_side_by_side_stops_an_entry_past_the_iss_time_limit_and_goes_on(tmp_path):
    """An ISS entry past --iss-time-limit is killed with its process and recorded as past; the rest
    go on in a fresh process warmed up on the last entry that finished (the entry itself when none
    has); an entry ISS throws on or dies on is that entry's error, not the end of the run."""
    sys.path.insert(0, str(PROJECT))
    from bench import iss_side_by_side

    runner, log = tmp_path / "fake_iss.py", tmp_path / "warm.log"
    runner.write_text(FAKE_ISS_RUNNER)
    names = ["slow", "a", "slow", "b", "boom", "die", "c"]
    entries = [{"name": f"{k}{name}", "input": name} for k, name in enumerate(names)]
    # a fresh process's start gets the grace (3 s: a loaded machine's interpreter start is no "past")
    found = iss_side_by_side.iss_pass(entries, time_limit=0.5, command=[sys.executable, str(runner), str(log)],
                                      grace=3.0)
    assert [next(iter(record)) for record in found] == ["past", "count", "past", "count", "error", "error", "count"]
    assert found[0] == found[2] == {"past": 0.5} and found[4] == {"error": "thrown"} and "died" in found[5]["error"]
    # nothing has finished: the first two processes warm up on their first entry (the slow one, then
    # a); after that, on the last entry that finished (a, then b before the one that dies)
    assert log.read_text().split() == ["slow", "a", "a", "b"]


def test_iss_side_by_side_summarises_by_rule_kind_with_iss_past_its_limit_as_the_limit(capsys):
    """The by-kind summary: an entry counts under each of its kinds, the median of the engine's
    seconds over ISS's (ISS past its limit takes the limit), entries within ISS's time; worst first."""
    sys.path.insert(0, str(PROJECT))
    from bench import iss_side_by_side

    def row(name, kinds, iss_s, engine_s, ours_s, right=True):
        past = {"iss_past_s": 20.0} if iss_s is None else {}
        return {"name": name, "kinds": kinds, "iss_s": iss_s, "engine_s": engine_s, "ours_s": ours_s,
                "right": right, "solver": "sat", "iss_guesses": 0 if iss_s else None, **past,
                "within": bool(right and ours_s <= (iss_s or 20.0))}

    rows = [row("k1", ["cage"], 0.1, 0.4, 0.5),                # 4x, neither within
            row("k2", ["cage", "thermo"], 1.0, 0.5, 0.9),      # 0.5x, both within
            row("k3", ["cage"], None, 2.0, 2.5),               # ISS past 20 s: 0.1x at most, both within
            row("t1", ["thermo"], 2.0, None, 30.0, False),     # ours timed out: no engine seconds
            row("c1", ["(none)"], 0.01, 0.001, 0.3)]           # 0.1x; the whole process is not within
    summary = {k["kind"]: k for k in iss_side_by_side.by_kind(rows)}
    assert [k["kind"] for k in iss_side_by_side.by_kind(rows)] == ["thermo", "cage", "(none)"]
    assert summary["cage"] == {"kind": "cage", "entries": 3, "iss_past": 1, "median_ratio": 0.5,
                               "engine_within": 2, "within": 2}
    assert summary["thermo"]["median_ratio"] == float("inf") and summary["thermo"]["engine_within"] == 1
    assert (summary["(none)"]["engine_within"], summary["(none)"]["within"]) == (1, 0)
    iss_side_by_side.print_table({"when": "now", "rounds": 1, "iss": "ran", "iss_time_limit_s": 20.0,
                                  "entries": rows})
    table = capsys.readouterr().out
    assert "past 20" in table and "1 past its 20 s" in table and "By rule kind" in table


def test_iss_side_by_side_compares_a_16x16_answer_in_isss_letters():
    """ISS writes a solution whose values have two digits as letters, A for 1 (a 16x16's 1..16):
    the project's line (1-9, then A for 10) is compared in that notation, so a right 16x16 answer
    is not counted wrong; digit solutions are compared as they are."""
    sys.path.insert(0, str(PROJECT))
    from bench import iss_side_by_side

    assert iss_side_by_side._as_iss("19AG", "AIJP") == "AIJP"
    assert iss_side_by_side._as_iss("123", "123") == "123"
    assert iss_side_by_side._as_iss("123", "") == "123"
