"""A CSV input separated by ';' (as spreadsheets write CSV in locales whose decimal mark is a
comma) or by tabs is read as one separated by ',' is: batch refused it ("no 'puzzle' column
(columns: puzzle;solution)"), and so did ``solve`` of its one row, which reads it through batch
(pipeline.batch.separator, the one place the separator is told)."""
from __future__ import annotations

import csv
import gzip
import io

import pandas as pd
import pytest
from batch_helpers import MIXED
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.batch import separator
from pipeline.batch.records import bad_row_parts, read_records
from pipeline.batch.separator import SEPARATORS, header_separator
from pipeline.cli.main import main
from pipeline.core.errors import PipelineError

G, H = MIXED[0], MIXED[1]


def _write(path, text: str) -> None:
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("name", ["in.csv", "in.csv.gz", "in.txt.csv"])
def test_a_semicolon_table_with_quoted_fields_is_read(tmp_path, name):
    path = tmp_path / name
    _write(path, f'\ufeffId;Puzzle;variant;solution\n"a;1";{G};classic;\nb;"{H}";"x";"1,2"\n\n')
    records = read_records(path)
    assert records["id"] == ["a;1", "b"]
    assert records["puzzle"] == [G, H] and records["variant"] == ["classic", "x"]


def test_a_semicolon_row_of_another_width_is_its_error_row(tmp_path, capsys):
    path = tmp_path / "in.csv"
    path.write_text(f"puzzle;variant\n{G};classic\n{H};classic;extra\n{G};nonesuch\n")
    records = read_records(path)
    assert records["puzzle"][0] == G
    reason, shown = bad_row_parts(records["puzzle"][1])
    assert reason.startswith("csv: a row of 3 fields where the header has 2") and shown == f"{H};classic;extra"
    assert main(["batch", str(path), str(tmp_path / "out"), "--workers", "1", "--progress", "none"]) == 0
    capsys.readouterr()
    frame = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert frame["status"].tolist() == ["optimal", "error", "error"]
    assert frame["error"].iloc[2].startswith("variant: unknown variant 'nonesuch'")


def test_a_tab_separated_table_named_csv_is_read(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(f"puzzle\tnote\n{G}\ta, b; c\n")
    assert read_records(path)["puzzle"] == [G]


def test_a_header_that_reads_two_ways_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "in.csv"
    path.write_text(f"puzzle;a,puzzle\n{G};x,{G}\n")
    message = (f"batch: {str(path)!r}: cannot tell its separator: its header 'puzzle;a,puzzle' names a 'puzzle' "
               "column split at ',' and ';'; quote the names that hold the other")
    with pytest.raises(PipelineError) as caught:
        read_records(path)
    assert str(caught.value) == message
    assert main(["batch", str(path), str(tmp_path / "out"), "--workers", "1"]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"


def test_a_semicolon_header_of_no_puzzle_column_lists_its_columns(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(f"puzzles;variant\n{G};classic\n")
    with pytest.raises(PipelineError) as caught:
        read_records(path)
    assert str(caught.value) == f"batch: {str(path)!r} has no 'puzzle' column (columns: puzzles, variant)"


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_solve_reads_a_one_row_semicolon_table(tmp_path, capsys, monkeypatch, source):
    path = tmp_path / "one.csv"
    path.write_text(f"puzzle;solution\n{G};\n")
    if source == "stdin":
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes()), encoding="utf-8"))
    assert main(["solve", str(path) if source == "file" else "-", "--format", "line"]) == 0
    out = capsys.readouterr().out.strip()
    assert len(out) == 81 and all(a in ".0" or a == b for a, b in zip(G, out))


_FIELD = st.text(alphabet='ab1 ,;\t"', min_size=1, max_size=8).filter(lambda s: s.strip())


@settings(max_examples=60, deadline=None)
@given(sep=st.sampled_from(SEPARATORS), ids=st.lists(_FIELD, min_size=1, max_size=5), gz=st.booleans())
def test_any_separator_reads_back_what_was_written(tmp_path_factory, sep, ids, gz):
    """Fields holding every separator and quotes, written by the csv module with each separator,
    read back as written (spaces around a field aside, as for any CSV)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=sep, quotechar='"', doublequote=True, lineterminator="\n")
    writer.writerow(["id", "puzzle", "variant"])
    for k, name in enumerate(ids):
        writer.writerow([name, MIXED[k % 2], "classic"])
    assert header_separator(buffer.getvalue().split("\n", 1)[0]) == sep
    path = tmp_path_factory.mktemp("sep") / ("in.csv.gz" if gz else "in.csv")
    _write(path, buffer.getvalue())
    records = read_records(path)
    assert records["id"] == [name.strip() for name in ids]
    assert records["puzzle"] == [MIXED[k % 2] for k in range(len(ids))]
    assert records["variant"] == ["classic"] * len(ids)


@pytest.mark.parametrize(
    ("name", "header", "row", "sep", "other"),
    [
        ("in.csv", "puzzle;id", "{p},{k}", ";", ","),
        ("in.csv", "id,puzzle", "{k};{p}", ",", ";"),
        ("in.csv.gz", "puzzle,id,variant", "{p}\t{k}\tclassic", ",", "\t"),
        ("in.tsv", "puzzle\tid", "{p};{k}", "\t", ";"),
    ],
)
@pytest.mark.parametrize("n_rows", [5, 1])
def test_a_header_and_rows_of_two_separators_are_refused_in_one_line(tmp_path, capsys, name, header, row, sep, other,
                                                                      n_rows):
    """Each record was an error row (its id read into the puzzle, or the puzzle into the id)."""
    path = tmp_path / name
    rows = [row.format(p=MIXED[k % 2], k=k) for k in range(n_rows)]
    _write(path, "\n".join([header, *rows]) + "\n")
    width = len(header.split(sep))
    sample = (f"its first 5 rows: none has the header's {width} fields at {sep!r}, 5 have" if n_rows == 5
              else f"its only row: it has not the header's {width} fields at {sep!r}, it has")
    message = (
        f"batch: {str(path)!r}: its header {header!r} is split at {sep!r} but its rows at {other!r} ({sample} "
        f"them at {other!r}); write the header and the rows with one separator"
    )
    with pytest.raises(PipelineError) as caught:
        read_records(path)
    assert str(caught.value) == message
    assert main(["batch", str(path), str(tmp_path / "out"), "--workers", "1", "--progress", "none"]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.parquet"))


def test_rows_of_another_separator_among_rows_that_fit_stay_error_rows(tmp_path):
    """One row that fits the header's separator: the others are bad rows, each its own error."""
    path = tmp_path / "in.csv"
    path.write_text(f"puzzle;id\n{G};1\n{H},2\n{G},3\n")
    records = read_records(path)
    assert records["puzzle"][0] == G and records["id"] == ["1", None, None]
    assert records["puzzle"][1:] == [f"{H},2", f"{G},3"]   # each an error row of its worker


def test_only_the_first_rows_decide_the_separator(tmp_path):
    """Rows past the sample that use another separator are those rows' errors, not a refusal:
    the check reads the table's first rows only."""
    path = tmp_path / "in.csv"
    good = [f"{MIXED[k % 2]};{k}" for k in range(separator._SAMPLE_ROWS)]
    bad = [f"{MIXED[k % 2]},{k}" for k in range(3 * separator._SAMPLE_ROWS)]
    path.write_text("\n".join(["puzzle;id", *good, *bad]) + "\n")
    records = read_records(path)
    assert len(records["puzzle"]) == 4 * separator._SAMPLE_ROWS
    assert records["id"][: separator._SAMPLE_ROWS] == [str(k) for k in range(separator._SAMPLE_ROWS)]
    assert set(records["id"][separator._SAMPLE_ROWS :]) == {None}
