"""report: a self-contained HTML page from real batch outputs, checked in headless Chromium."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipeline.batch.output import part_path
from pipeline.cli.main import main
from pipeline.core.errors import PipelineError
from pipeline.tools.report import read_output

pytest.importorskip("matplotlib", reason="report needs matplotlib (extra 'plot')")
SETS = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "sets"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    src = root / "puzzles.txt"
    lines = [
        "050079000000000500092000060080000407020600010070250080000040000008020000730001000",
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
        "52...6.........7.13...........4..8..6......5...........418.........3..2...87.....",
    ]
    src.write_text("\n".join(lines) + "\n")
    outs = []
    # HiGHS against the SAT engine (the example), and HiGHS again
    for name, solver in (("highs", "highs"), ("sat", "sat"), ("highs2", "highs")):
        out = root / name
        assert main(["batch", str(src), str(out), "--workers", "1", "--solver", solver]) == 0
        outs.append(out)
    return root, outs


def test_report_is_self_contained(outputs):
    root, outs = outputs
    page = root / "report.html"
    assert main(["report", *map(str, outs), "--to", str(page)]) == 0
    text = page.read_text()
    for needle in ("Status counts", "Solve seconds", "Slowest puzzles", "Per-puzzle comparison", "<svg"):
        assert needle in text
    # only XML namespace names may look like addresses: nothing is fetched
    assert "<script" not in text and "<link" not in text and "<img" not in text
    assert "https://" not in text and "http://" not in text.replace("http://www.w3.org/", "")


def test_every_further_output_is_compared_with_the_first(outputs):
    import pandas as pd
    root, outs = outputs
    page = root / "report3.html"
    assert main(["report", *map(str, outs), "--to", str(page)]) == 0
    text = page.read_text()
    assert "<h3>sat against highs</h3>" in text and "<h3>highs2 against highs</h3>" in text
    a, b = (pd.read_parquet(out).sort_values("index") for out in outs[:2])
    agree = int((a["status"].to_numpy() == b["status"].to_numpy()).sum())
    faster = int((b["seconds"].to_numpy() < a["seconds"].to_numpy()).sum())
    assert f"{len(a)} puzzles in both; status agrees on {agree}," in text
    assert f"sat is faster on {faster};" in text
    # a histogram whose bins are shared and one slowest-puzzle drawing per output and puzzle shown
    assert text.count("<figure>") == 3 * min(3, len(a))


def test_to_dash_writes_the_page_to_standard_output(outputs, capsys, monkeypatch):
    # as export's and convert's --to -: it wrote a file named "-" in the working directory
    root, outs = outputs
    monkeypatch.chdir(root)
    assert main(["report", str(outs[0]), "--to", "-"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!DOCTYPE html>") and "Status counts" in page and not (root / "-").exists()


def test_not_a_batch_output(tmp_path, capsys):
    assert main(["report", str(tmp_path / "missing"), "--to", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err.startswith("error:")


def test_report_in_headless_chromium(outputs, tmp_path):
    if CHROMIUM is None:
        pytest.skip("chromium not installed: browser test skipped")
    root, outs = outputs
    page = root / "report2.html"
    assert main(["report", *map(str, outs), "--to", str(page)]) == 0
    shot = tmp_path / "shot.png"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
             f"--screenshot={shot}", "--window-size=1200,2000", page.as_uri()]
    run = subprocess.run([CHROMIUM, *flags], check=False, capture_output=True, text=True, timeout=120)
    print(f"chromium exit {run.returncode}", file=sys.stderr)
    assert run.returncode == 0
    assert "CONSOLE" not in run.stderr and "Uncaught" not in run.stderr
    import matplotlib.image as mpimg
    pixels = mpimg.imread(str(shot))[..., :3]
    assert pixels.shape[0] >= 1000 and float(np.var(pixels)) > 1e-3
    # the plots are there: bars of the first output (matplotlib's blue at alpha 0.6 over white)
    # and of the second (orange), not only text
    for rgb in ((0x79, 0xad, 0xd2), (0xff, 0xb2, 0x6e)):
        close = np.abs(pixels * 255 - np.array(rgb)).max(axis=2) < 12
        assert int(close.sum()) > 200, (rgb, int(close.sum()))


def test_a_missing_or_foreign_output_is_one_line(tmp_path):
    with pytest.raises(PipelineError, match=r"^report: no such batch output directory '.*nowhere'$"):
        read_output(tmp_path / "nowhere")
    (tmp_path / "p.txt").write_text("." * 81 + "\n")
    with pytest.raises(PipelineError, match=r"^report: .*p.txt is not a batch output \("):
        read_output(tmp_path / "p.txt")


@pytest.mark.parametrize("records", ["# only a comment\n", "xx\nyy\n{\n"], ids=["no records", "only errors"])
def test_a_batch_without_solve_times_is_reported_without_plots(tmp_path, records, recwarn):
    """A run of no records (a log-scale ValueError) or of error rows alone (matplotlib's legend
    warning on stderr) still makes its page: the counts, and a line where the plots would be."""
    src = tmp_path / "in.txt"
    src.write_text(records)
    assert main(["batch", str(src), str(tmp_path / "out"), "--workers", "1"]) == 0
    page = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "out"), "--to", str(page)]) == 0
    assert "No solve times to plot." in page.read_text()
    assert not [w for w in recwarn if "legend" in str(w.message)]


def test_a_seconds_column_of_text_is_one_line(tmp_path):
    pd.DataFrame({"index": [0], "puzzle": ["." * 81], "variant": ["classic"], "status": ["optimal"],
                  "seconds": ["fast"], "nodes": [0], "solution": [None]}).to_parquet(tmp_path / "part.parquet")
    with pytest.raises(PipelineError, match=r"^report: .* is not a batch output \(its 'seconds' column is \w+, "
                                            r"not numbers\)$"):
        read_output(tmp_path / "part.parquet")


@pytest.mark.parametrize("kind", ["empty directory", "batch input"])
def test_a_parquet_that_is_not_a_batch_output_is_one_line(tmp_path, kind):
    """An empty directory holds no parts, and batch's own input file (puzzles in Parquet) has none
    of the output's columns: each is one line naming what it lacks."""
    target = tmp_path / "out"
    lacks = "no Parquet files in it" if kind == "empty directory" else "it has no 'index'"
    if kind == "empty directory":
        target.mkdir()
    else:
        target = tmp_path / "puzzles.parquet"
        pd.DataFrame({"puzzle": ["." * 81]}).to_parquet(target)
    with pytest.raises(PipelineError, match=rf"^report: .* is not a batch output \({lacks}") as e:
        read_output(target)
    assert "\n" not in str(e.value)


def test_a_partial_output_is_said_and_a_doubled_one_refused(outputs, capsys):
    """An output stopped before its input's end is reported with how much it holds (its counts
    looked like a whole run's); rows of one record in two parts (a part copied from another run)
    are refused, as batch's resume refuses them; a complete run says nothing more."""
    import json

    root, outs = outputs
    src = root / "puzzles.txt"
    partial = root / "partial"
    assert main(["batch", str(src), str(partial), "--workers", "1", "--limit", "2", "--chunk-size", "1"]) == 0
    page = root / "partial.html"
    capsys.readouterr()
    assert main(["report", str(partial), "--to", str(page)]) == 0
    err = capsys.readouterr().err
    status = json.loads((partial / "_batch.json").read_text())["status"]
    assert err == (f"note: {partial}: 2 of 3 records ({status}): the counts are of the rows written; "
                   "rerun the batch command to finish it\n")
    assert "2 of 3 records" in page.read_text()
    assert main(["report", str(outs[0]), "--to", str(root / "whole.html")]) == 0
    assert capsys.readouterr().err == ""
    # a complete run that lost a part since is not called complete beside its count
    lost = root / "lost"
    assert main(["batch", str(src), str(lost), "--workers", "1", "--chunk-size", "1"]) == 0
    sorted(lost.glob("part-*.parquet"))[-1].unlink()
    capsys.readouterr()
    assert main(["report", str(lost), "--to", str(root / "lost.html")]) == 0
    assert "2 of 3 records (parts missing: the run said complete)" in capsys.readouterr().err
    doubled = root / "doubled"
    shutil.copytree(outs[0], doubled)
    import pyarrow.parquet as pq

    part = sorted(doubled.glob("part-*.parquet"))[0]
    # a part holding record 1 onwards again, as another run's part of that name would
    pq.write_table(pq.read_table(part).slice(1), part_path(doubled, 1))
    capsys.readouterr()
    assert main(["report", str(doubled), "--to", str(root / "doubled.html")]) == 2
    assert capsys.readouterr().err == (f"error: report: {doubled} holds rows of record 1 in two parts (a part of "
                                       "another run?); batch refuses to resume it too\n")
    assert not (root / "doubled.html").exists()


def test_a_run_stopped_before_its_first_chunk_gets_a_page_with_its_note(tmp_path, capsys, monkeypatch):
    """An outside probe: a batch interrupted before any row was written left ``_batch.json`` and
    no part; report then said "is not a batch output" under its own note that the run was
    interrupted. Such an OUT is a run with no rows yet: an empty page, headed by the note."""
    import pipeline.batch.run as run_module
    from pipeline.batch import MANIFEST, run_batch
    from pipeline.tools.report import RUN_RECORD

    assert RUN_RECORD == MANIFEST   # the one file name, known to report without importing batch
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 3)
    out = tmp_path / "out"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(run_module, "make_engine", interrupted)
    assert run_batch(src, out, workers=1, progress="none").interrupted
    assert not out.exists()   # a run that wrote nothing leaves no OUT (as a refused start)
    # a run killed before its first part never cleans up: its run record stays, and no part
    monkeypatch.setattr(run_module, "_undo_refused_start", lambda *args: False)
    assert run_batch(src, out, workers=1, progress="none").interrupted
    assert not list(out.glob("*.parquet"))
    page = tmp_path / "r.html"
    assert main(["report", str(out), "--to", str(page)]) == 0
    err = capsys.readouterr().err
    assert f"note: {out}: 0 of 3 records (interrupted)" in err and "error" not in err
    assert "0 of 3 records (interrupted)" in page.read_text() and "No solve times to plot." in page.read_text()
    assert len(read_output(out)) == 0
    (tmp_path / "empty").mkdir()   # without a run record an empty directory is still no output
    with pytest.raises(PipelineError, match="is not a batch output"):
        read_output(tmp_path / "empty")


def test_the_slowest_drawings_read_each_answer_in_its_puzzle_values(tmp_path, data_dir, monkeypatch):
    """batch writes an answer in its puzzle's values (a 0-F record's in 0-F, a ``"values": "0-3"``
    document's 0..3); the page's drawings read it so, as verify and draw do. It read each as 1..N:
    a 0-F answer's '0' cells empty and every other cell one digit too high, the 0..3 grid likewise."""
    import csv
    import json

    import pipeline.tools.report as report
    with open(data_dir / "sets" / "16x16_classic.ref.csv", newline="") as f:
        ref = next(r for r in csv.DictReader(f) if r["n_solutions_capped"] == "1")
    hexadoku = ref["puzzle"].translate(str.maketrans("123456789ABCDEFG", "0123456789ABCDEF"))
    values = json.dumps({"size": 4, "values": "0-3", "givens": "0..............."})
    classic = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    src = tmp_path / "in.txt"
    src.write_text("\n".join((hexadoku, values, classic)) + "\n")
    assert main(["batch", str(src), str(tmp_path / "out"), "--workers", "1"]) == 0
    answer = dict(pd.read_parquet(tmp_path / "out")[["puzzle", "solution"]].to_numpy())
    assert "0" in answer[hexadoku] and "G" not in answer[hexadoku]   # written in 0-F
    expected = {16: [int(c, 36) for c in ref["solution"]],          # the reference, 1-G: digits 1..16
                4: [int(c) + 1 for c in answer[values]],            # values 0..3: digits 1..4
                9: [int(c) for c in answer[classic]]}               # 1..9 as ever
    drawn = []
    draw = report.draw_grid
    monkeypatch.setattr(report, "draw_grid", lambda puzzle, grid, **kw: drawn.append(grid) or draw(puzzle, grid, **kw))
    page = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "out"), "--to", str(page)]) == 0
    assert "not drawn" not in page.read_text()
    assert sorted(grid.shape[0] for grid in drawn) == [4, 9, 16]
    for grid in drawn:
        assert grid.ravel().tolist() == expected[grid.shape[0]], grid.shape
