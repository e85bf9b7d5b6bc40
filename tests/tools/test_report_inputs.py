"""What report reads of a batch output besides its numbers (the rules and regions it draws), and
the outputs it is given (each once, a readable name, a directory that holds parts)."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from pipeline.cli.main import main
from pipeline.core.errors import PipelineError

pytest.importorskip("matplotlib", reason="report needs matplotlib (extra 'plot')")

from pipeline.tools import report  # noqa: E402

JIGSAW = "0001011122332233"
THERMO = [{"rule": "thermo", "cells": ["r1c1", "r1c2", "r2c2"]}]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("report_inputs")
    rules = root / "rules.csv"
    rules.write_text("puzzle,rules\n" + "\n".join(
        f"{p},\"{json.dumps(THERMO).replace(chr(34), chr(34) * 2)}\"" for p in ("1...........3...", "....2.......4...")) + "\n")
    documents = root / "documents.jsonl"   # puzzle documents, their rules inside them
    documents.write_text("".join(json.dumps({"size": 4, "givens": g, "rules": [{"rule": "antiknight"}, *THERMO]}) + "\n"
                                 for g in ("1...............", "....2...........")))
    jigsaw = root / "jigsaw.csv"
    jigsaw.write_text(f"puzzle,regions,variant\n..43...1.2......,{JIGSAW},jigsaw\n")
    outs = {}
    for name, src in (("rules", rules), ("jigsaw", jigsaw), ("documents", documents)):
        outs[name] = root / f"out_{name}"
        assert main(["batch", str(src), str(outs[name]), "--workers", "1"]) == 0
    return outs


def _drawn(monkeypatch) -> list:
    seen = []
    real = report.draw_grid

    def spy(puzzle, *args, **kwargs):
        seen.append(puzzle)
        return real(puzzle, *args, **kwargs)

    monkeypatch.setattr(report, "draw_grid", spy)
    return seen


def test_the_slowest_rule_puzzles_are_drawn_with_their_rules(runs, monkeypatch):
    seen = _drawn(monkeypatch)
    page = report.build_report([runs["rules"]])
    assert "not drawn" not in page and len(seen) == 2
    assert all([r.kind for r in p.rules] == ["thermo"] for p in seen)


def test_a_jigsaw_is_drawn_with_the_regions_its_row_keeps(runs, monkeypatch):
    import pandas as pd

    assert pd.read_parquet(runs["jigsaw"])["regions"].tolist() == [JIGSAW]
    seen = _drawn(monkeypatch)
    page = report.build_report([runs["jigsaw"]])
    assert "not drawn" not in page and len(seen) == 1 and seen[0].variant == "jigsaw"
    assert "".join(map(str, seen[0].regions.ravel())) == JIGSAW


def test_an_output_given_twice_is_refused(runs):
    with pytest.raises(PipelineError, match=r"^report: '.*out_rules' is given twice: each output once$"):
        report.build_report([runs["rules"], runs["rules"]])
    with pytest.raises(PipelineError, match=r"is given twice \(again as '.*out_rules/'\)"):
        report.build_report([runs["rules"], f"{runs['rules']}/"])


def test_no_output_is_refused_and_one_path_is_a_list_of_one(runs):
    with pytest.raises(PipelineError, match=r"^report: no batch output given$"):
        report.build_report([])
    assert "Slowest puzzles: out_rules" in report.build_report(str(runs["rules"]))


def test_an_empty_directory_is_named_as_holding_no_parts(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "--to", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: report: {tmp_path / 'empty'} is not a batch output (no Parquet files in it)\n"


def test_a_part_that_cannot_be_read_is_reports_own_error(runs, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(runs["jigsaw"], copy)
    (copy / "part-0000000010.parquet").write_text("junk")
    assert main(["report", str(copy), "--to", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err.startswith("error: report: cannot read part part-0000000010.parquet (")
    assert not (tmp_path / "r.html").exists()


def test_a_directory_name_that_is_not_utf8_is_shown_with_a_replacement(runs, tmp_path):
    odd = os.fsdecode(bytes(tmp_path) + b"/bad\xff")
    try:
        shutil.copytree(runs["jigsaw"], odd)
    except (OSError, UnicodeEncodeError):
        pytest.skip("this filesystem takes no such name")
    target = tmp_path / "r.html"
    assert main(["report", odd, "--to", str(target)]) == 0
    assert "Slowest puzzles: bad\N{REPLACEMENT CHARACTER}" in target.read_text(encoding="utf-8")


def test_a_document_in_the_puzzle_column_is_drawn_with_its_rules_once(runs, monkeypatch):
    # the rules column repeats a document's rules: "rules[0]: antiknight is given twice"
    seen = _drawn(monkeypatch)
    page = report.build_report([runs["documents"]])
    assert "not drawn" not in page and len(seen) == 2
    assert all(sorted(r.kind for r in p.rules) == ["antiknight", "thermo"] for p in seen)


def test_dollar_signs_in_an_output_name_are_shown_as_written_not_parsed_as_mathtext(runs, tmp_path):
    # a directory 'r$\frac{$' ended report in matplotlib's mathtext ParseException (the legend)
    odd = tmp_path / "r$\\frac{$"
    shutil.copytree(runs["jigsaw"], odd)
    target = tmp_path / "r.html"
    assert main(["report", str(runs["jigsaw"]), str(odd), "--to", str(target)]) == 0
    assert "r$\\frac{$ against out_jigsaw" in target.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["r.png", "r.SVG", "r.pdf"])
def test_a_target_named_for_another_format_is_refused_before_any_work(runs, tmp_path, capsys, name):
    # 'report OUT --to r.png' wrote the HTML page into r.png without a word
    target = tmp_path / name
    assert main(["report", str(runs["jigsaw"]), "--to", str(target)]) == 2
    assert f"the report is one HTML page, not '{target.suffix}'" in capsys.readouterr().err
    assert not target.exists()


def test_a_page_sent_to_a_device_is_not_followed_by_the_wrote_line(runs, tmp_path):
    # 'report OUT --to /dev/stdout' ended the page on standard output with 'wrote /dev/stdout'
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "pipeline", "report", str(runs["jigsaw"]), "--to", "/dev/stdout"],
                          capture_output=True, text=True, check=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert done.stdout.endswith("</body></html>\n")
    assert done.stderr.strip().endswith("wrote /dev/stdout")
