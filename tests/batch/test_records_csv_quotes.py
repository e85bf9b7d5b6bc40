"""CSV input read row by row (a row of another width than the header's): every record read, or
the file refused naming the line (pipeline.batch.records._refuse_what_the_row_reader_drops)."""
from __future__ import annotations

import csv
import io

import pytest
from batch_helpers import MIXED
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.batch.records import bad_row_parts, read_records
from pipeline.cli.main import main
from pipeline.core.errors import PipelineError

G, H = MIXED[0], MIXED[1]


@pytest.mark.parametrize("body, line", [
    # the report: 6 records, 2 rows written, "complete", exit 0
    ([G, G + ",extra", '"abc', H, G, H], 4),
    # the least of it: the last record's quote (4 rows for 5 records)
    ([G, G + ",extra", H, G, '"' + H], 6),
])
def test_a_quote_that_never_closes_after_a_wide_row_refuses_the_file(tmp_path, capsys, body, line):
    """A row wider than the header sends reading to pandas' row-by-row reader, which dropped the
    unclosed quote's row and every one after it without a word."""
    path = tmp_path / "q.csv"
    path.write_text("puzzle\n" + "\n".join(body) + "\n")
    message = (f"batch: cannot read {str(path)!r} as csv: line {line}: a quoted field opens there and never "
               f"closes, so every row after it would be part of it; close the quote or remove it")
    with pytest.raises(PipelineError) as caught:
        read_records(path)
    assert str(caught.value) == message
    assert main(["batch", str(path), str(tmp_path / "out"), "--workers", "1"]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("part-*"))


def test_text_after_a_closing_quote_after_a_wide_row_refuses_the_file(tmp_path):
    """'"ab"c' is a row the strict csv module cannot read: the row reader dropped it (3 of 4 read)."""
    path = tmp_path / "after.csv"
    path.write_text(f'puzzle\n{G}\n{G},x\n"{G}"z\n{G}\n')
    with pytest.raises(PipelineError, match=r"after.csv' as csv: line 4: text follows the closing quote of a "
                                            r"quoted field; a quote inside a quoted field is written twice"):
        read_records(path)


def test_a_cell_past_the_csv_modules_limit_is_read_after_a_wide_row(tmp_path):
    """The csv module's 128 KiB field limit dropped the row of a larger cell (3 of 4 read)."""
    path = tmp_path / "big.csv"
    path.write_text(f"puzzle\n{G}\n{G},x\n{'1' * 200_000}\n{H}\n")
    before = csv.field_size_limit()
    puzzles = read_records(path)["puzzle"]
    assert len(puzzles) == 4 and puzzles[0] == G and puzzles[2] == "1" * 200_000 and puzzles[3] == H
    assert bad_row_parts(puzzles[1]) is not None
    assert csv.field_size_limit() == before   # raised only while reading


# fields of a CSV body: separators, quotes and newlines written as csv.writer quotes them
_BODY_FIELD = st.text(alphabet='ab .,"\n', max_size=6)
_PLAIN_FIELD = st.text(alphabet="ab .", max_size=6)


@settings(max_examples=150, deadline=None)
@given(body=st.lists(st.tuples(_BODY_FIELD, st.lists(_BODY_FIELD, max_size=3)), max_size=6),
       tail=st.lists(st.tuples(_PLAIN_FIELD, st.lists(_PLAIN_FIELD, max_size=2)), min_size=1, max_size=4),
       stray=st.one_of(st.none(), st.integers(0, 3)))
def test_every_record_is_read_or_the_file_refused_naming_the_quotes_line(tmp_path_factory, body, tail, stray):
    """Rows of 1 to 4 fields under a header of 2 (wider ones send reading to the row-by-row
    reader), optionally a quote opened at the start of a later row that no quote after it closes:
    the file is refused naming that line, or each row is exactly one record in order."""
    rows = [["p0"]] + [["p" + first, *rest] for first, rest in body]
    plain = [["p" + first, *rest] for first, rest in tail]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["puzzle", "note"])
    writer.writerows(rows)
    text = out.getvalue()
    stray = None if stray is None else stray % len(plain)
    for k, row in enumerate(plain):
        if k == stray:
            line = text.count("\n") + 1
            text += '"'
        text += ",".join(row) + "\n"
    path = tmp_path_factory.mktemp("csv") / "in.csv"
    path.write_text(text)
    if stray is not None:
        with pytest.raises(PipelineError, match=rf"in.csv' as csv: line {line}: a quoted field opens there and never closes"):
            read_records(path)
        return
    puzzles = read_records(path)["puzzle"]
    assert len(puzzles) == len(rows) + len(plain)
    for row, read in zip(rows + plain, puzzles):
        if len(row) > 2:
            assert bad_row_parts(read) is not None and bad_row_parts(read)[1].strip() == ",".join(row).strip()
        else:
            assert read == row[0].strip()


def test_an_empty_quoted_line_is_a_record_beside_a_wide_row(tmp_path):
    """A line that is only ``""`` is an empty record (its error row), as the fast reader reads it;
    the row-by-row reader dropped it whenever a wider row sent reading there (2 records of 3)."""
    path = tmp_path / "wide.csv"
    path.write_text(f'puzzle\n{G}\n""\n\n   \n{H},extra\n')
    puzzles = read_records(path)["puzzle"]
    assert len(puzzles) == 3 and puzzles[0] == G and not puzzles[1] and bad_row_parts(puzzles[2]) is not None


_LINE = st.one_of(st.just('""'), st.just(""), st.just("  "), st.just(","), st.just('"",x'),
                  st.text(alphabet="ab", min_size=1, max_size=3).map(lambda t: "p" + t),
                  st.text(alphabet="ab", min_size=1, max_size=3).map(lambda t: "p" + t + ",n"))


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(_LINE, max_size=8), at=st.integers(0, 8))
def test_a_wide_row_changes_no_other_record(tmp_path_factory, lines, at):
    """With one row wider than the header anywhere, every other line gives the record pandas'
    fast reader gives it without that row (blank and whitespace lines none, ``""`` an empty one).
    A record comes first: a wide first row is refused (it would shift every column)."""
    import pandas as pd

    folder = tmp_path_factory.mktemp("wide")
    lines = ["p0", *lines]
    at = min(at + 1, len(lines))
    plain, wide = folder / "plain.csv", folder / "wide.csv"
    plain.write_text("puzzle,note\n" + "".join(f"{line}\n" for line in lines))
    wide.write_text("puzzle,note\n" + "".join(f"{line}\n" for line in [*lines[:at], "w,x,y", *lines[at:]]))
    expected = pd.read_csv(plain, dtype=str, keep_default_na=False, index_col=False)["puzzle"].tolist()
    got = read_records(wide)["puzzle"]
    bad = [k for k, p in enumerate(got) if bad_row_parts(p) is not None]
    assert len(bad) == 1
    assert [p or "" for k, p in enumerate(got) if k != bad[0]] == expected
