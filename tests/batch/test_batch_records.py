"""Input records (pipeline.batch.records): text/CSV/TSV/Parquet, fingerprint and per-record hashes."""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import re

import pandas as pd
import pytest
from batch_helpers import MIXED
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.batch.records import (RECORD_BYTES, bad_row_parts, detect_input_format, read_records, record_hashes,
                                    records_fingerprint)
from pipeline.cli.main import main
from pipeline.core.errors import PipelineError


def test_a_header_without_a_puzzle_column_is_named_in_one_short_line(tmp_path, capsys):
    """A fuzzed CSV of binary junk: its header's names were quoted as they are, with a vertical tab
    or a terminal's escape (two lines, or recoloured text, on a terminal); and a header of 20,000
    names was an error line of about 150 KB. Now the first ten names (each cut to 40 characters), how
    many more, and every control character escaped."""
    junk = tmp_path / "junk.csv"
    junk.write_bytes(b'"a\x0bb\x1c\x1b[31mred",' + b"x" * 100 + b"\n1,2\n")
    with pytest.raises(PipelineError) as caught:
        read_records(junk)
    assert str(caught.value) == (f"batch: {str(junk)!r} has no 'puzzle' column "
                                 f"(columns: a\x0bb\x1c\x1b[31mred, {'x' * 40}...)")
    assert main(["batch", str(junk), str(tmp_path / "out1"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: batch: {str(junk)!r} has no 'puzzle' column (columns: a\\x0bb\\x1c\\x1b[31mred, {'x' * 40}...)\n"
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"c{k}" for k in range(20_000)) + "\n" + ",".join("1" * 20_000) + "\n")
    assert main(["batch", str(wide), str(tmp_path / "out2"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: batch: {str(wide)!r} has no 'puzzle' column "
                   f"(columns: {', '.join(f'c{k}' for k in range(10))} and 19990 more)\n")


@pytest.mark.parametrize("name", ["e.csv", "e.tsv", "e.csv.gz", "e.txt", "h.csv"])
def test_an_empty_file_of_any_form_has_no_records(tmp_path, name):
    """A 0-byte CSV was refused with pandas' "No columns to parse from file", where an empty text
    file and a CSV of its header alone give no records (outside check)."""
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wb"):
            pass
    else:
        path.write_text("puzzle\n" if name.startswith("h") else "")
    assert read_records(path)["puzzle"] == []


def test_every_input_form_gives_the_same_records(tmp_path):
    frame = pd.DataFrame({"puzzle": MIXED, "variant": ["classic", None, "", "latin"], "other": range(4)})
    (tmp_path / "a.txt").write_text("# a comment\n\n" + "\n".join(f"  {p}  " for p in MIXED) + "\n")
    with gzip.open(tmp_path / "a.txt.gz", "wt") as f:
        f.write("\n".join(MIXED) + "\n")
    frame.to_csv(tmp_path / "a.csv", index=False)
    frame.to_csv(tmp_path / "a.tsv", index=False, sep="\t")
    frame.to_parquet(tmp_path / "a.parquet")
    text = read_records(tmp_path / "a.txt")
    packed = read_records(tmp_path / "a.txt.gz")
    # each record's line in its file: the comment and the blank line are not records
    assert text.pop("line") == [3, 4, 5, 6] and packed.pop("line") == [1, 2, 3, 4]
    assert text == packed
    assert text["puzzle"] == MIXED and text["variant"] == [None] * 4 and text["regions"] == [None] * 4
    for name in ("a.csv", "a.tsv", "a.parquet"):
        table = read_records(tmp_path / name)
        assert table["puzzle"] == MIXED
        assert table["variant"] == ["classic", None, None, "latin"]   # empty text and NaN mean "not given"
        assert table["regions"] == [None] * 4
    assert [detect_input_format(tmp_path / n) for n in ("a.txt", "a.csv", "a.tsv", "a.parquet")] == \
        ["text", "csv", "csv", "parquet"]


def test_bad_inputs_are_one_line_errors(tmp_path):
    with pytest.raises(PipelineError, match="no such input file"):
        read_records(tmp_path / "missing.txt")
    with pytest.raises(PipelineError, match=r"is a directory, not an input file$"):
        read_records(tmp_path)
    # a probe: a device and a link loop were "no such input file"
    with pytest.raises(PipelineError, match=r"^batch: '/dev/null' is not a regular file \(a device, a FIFO or a socket\)"):
        read_records("/dev/null")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(PipelineError, match=r"is a symbolic link that leads nowhere \(a loop or a missing file\)$"):
        read_records(tmp_path / "a")
    (tmp_path / "x.csv").write_text("grid,id\n" + MIXED[0] + ",1\n")
    with pytest.raises(PipelineError, match=r"has no 'puzzle' column \(columns: grid, id\)"):
        read_records(tmp_path / "x.csv")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(PipelineError, match="cannot read .* as parquet"):
        read_records(tmp_path / "bad.parquet")


def test_a_csv_row_longer_than_the_header_is_refused_not_shifted(tmp_path):
    """pandas takes a first row with extra fields as an index: every column shifted, and the
    record's puzzle became its second field ('bad character' of the wrong text)."""
    path = tmp_path / "ragged.csv"
    path.write_text("puzzle,extra\n" + "\n".join([MIXED[0] + ",1,2,3", MIXED[0] + ",x"]) + "\n")
    with pytest.raises(PipelineError, match=r"^batch: cannot read .*ragged.csv' as csv: .*more fields than the header"):
        read_records(path)
    # a later row of another width is that record's error, the others as they are
    path.write_text("puzzle,extra\n" + "\n".join([MIXED[0] + ",x", MIXED[0] + ",1,2,3"]) + "\n")
    records = read_records(path)
    assert records["puzzle"][0] == MIXED[0]
    message, row = bad_row_parts(records["puzzle"][1])
    assert message.endswith("quote a field that holds the separator") and row == MIXED[0] + ",1,2,3"
    assert "a row of 4 fields where the header has 2" in message


@pytest.mark.parametrize("lines, line", [
    (["\"oops", MIXED[0]], 3),                                        # one column: the rest became one field
    ([MIXED[0] + ",1", "\"a\nb\",2", "\"never,3", MIXED[0] + ",4", "x,1,2"], 6),   # a closed multi-line field first
])
def test_a_quote_that_never_closes_refuses_the_file_naming_its_line(tmp_path, lines, line):
    """Every row after an unclosed quote would be part of its field: pandas' row-by-row reader
    dropped them all without a word (a batch of 4 solved 1 and said complete)."""
    path = tmp_path / "quote.csv"
    header = "puzzle" if "," not in lines[-1] else "puzzle,extra"
    path.write_text(header + "\n" + MIXED[0] + ("" if header == "puzzle" else ",0") + "\n" + "\n".join(lines) + "\n")
    with pytest.raises(PipelineError, match=rf"^batch: cannot read .*quote.csv' as csv: line {line}: a quoted "
                                            rf"field opens there and never closes"):
        read_records(path)


@pytest.mark.parametrize("ragged", [False, True])
def test_bytes_that_are_not_utf8_are_their_records_error_not_the_files(tmp_path, ragged):
    """The whole CSV was refused ('utf-8' codec can't decode byte 0xff), naming no line; a text
    batch made the same bytes that record's error."""
    path = tmp_path / "latin.csv"
    extra = "\n" + MIXED[0] + ",1,2" if ragged else ""   # a row of another width: the row-by-row reader
    path.write_bytes(("puzzle,note\n" + MIXED[0] + ",a\n").encode() + b"\xff\xfe bad,b\n"
                     + (MIXED[0] + ",c" + extra + "\n").encode())
    records = read_records(path)
    assert records["puzzle"][0] == records["puzzle"][2] == MIXED[0]
    message, shown = bad_row_parts(records["puzzle"][1])   # the record's error names the field
    assert message.startswith("csv: the puzzle field holds a byte that is not UTF-8 text") and shown == "\ufffd\ufffd bad"
    assert len(records["puzzle"]) == 4 if ragged else 3


def test_a_record_column_named_twice_in_the_header_is_refused(tmp_path):
    """pandas renames the second 'puzzle' to 'puzzle.1', and the first alone was read."""
    path = tmp_path / "twice.csv"
    path.write_text("puzzle,puzzle\n" + MIXED[0] + "," + MIXED[0] + "\n")
    with pytest.raises(PipelineError, match=r"twice.csv': column 'puzzle' appears twice in the header; name it once$"):
        read_records(path)


_FIELD = st.one_of(st.none(), st.text(max_size=12))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(_FIELD, _FIELD, _FIELD), min_size=1, max_size=6), k=st.integers(0, 5),
       new=st.text(min_size=1, max_size=12))
def test_hashes_and_fingerprint_tell_records_apart(rows, k, new):
    records = {"puzzle": [r[0] for r in rows], "regions": [r[1] for r in rows], "variant": [r[2] for r in rows]}
    hashes = record_hashes(records)
    assert hashes.shape == (len(rows),) and hashes.dtype.name == "uint64"
    assert record_hashes(records).tolist() == hashes.tolist() and records_fingerprint(records) == records_fingerprint(records)
    k %= len(rows)
    if records["puzzle"][k] == new:
        return
    changed = {**records, "puzzle": records["puzzle"][:k] + [new] + records["puzzle"][k + 1:]}
    assert records_fingerprint(changed) != records_fingerprint(records)
    other = record_hashes(changed)
    assert other[k] != hashes[k]
    assert [a == b for j, (a, b) in enumerate(zip(other, hashes)) if j != k] == [True] * (len(rows) - 1)



def test_a_bom_does_not_make_record_0_an_error(tmp_path):
    """Issue 21 section 5: a UTF-8 byte-order mark at the start of a text input is not part of
    record 0 (solve and the CSV reader already strip it)."""
    (tmp_path / "bom.txt").write_bytes("\ufeff".encode() + ("\n".join(MIXED) + "\n").encode())
    (tmp_path / "bom_comment.txt").write_bytes("\ufeff# comment\n".encode() + ("\n".join(MIXED) + "\n").encode())
    assert read_records(tmp_path / "bom.txt")["puzzle"] == MIXED
    assert read_records(tmp_path / "bom_comment.txt")["puzzle"] == MIXED


def test_a_hash_inside_a_record_is_the_records(tmp_path):
    (tmp_path / "a.txt").write_text("# comment\n  # indented comment\n1#>idED5\n" + MIXED[0] + "\n")
    assert read_records(tmp_path / "a.txt")["puzzle"] == ["1#>idED5", MIXED[0]]


@pytest.mark.parametrize("column, array, kind", [
    ("puzzle", lambda pa: pa.array([1, 2, 3, 4], pa.int64()), "int64"),
    ("puzzle", lambda pa: pa.array([p.encode() for p in MIXED], pa.binary()), "binary"),
    ("puzzle", lambda pa: pa.array([[1], [2, 3], [], [4]], pa.list_(pa.int64())), "list<element: int64>"),
    ("variant", lambda pa: pa.array([1.0, 2.0, None, 3.0]), "double"),
    ("rules", lambda pa: pa.array([1, 2, 3, 4], pa.int64()), "int64"),
])
def test_a_parquet_column_that_is_not_text_is_one_refusal(tmp_path, column, array, kind):
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {"puzzle": pa.array(MIXED), column: array(pa)}
    pq.write_table(pa.table(columns), tmp_path / "in.parquet")
    with pytest.raises(PipelineError) as caught:
        read_records(tmp_path / "in.parquet")
    assert str(caught.value) == (f"batch: {str(tmp_path / 'in.parquet')!r}: column {column!r} is {kind}, not text: "
                                 f"puzzles, regions, variants and rules are strings")


def test_a_parquet_column_named_twice_is_one_refusal(tmp_path):
    """pyarrow said "Column puzzle does not exist in schema" (an outside probe)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_arrays([pa.array(MIXED), pa.array(MIXED)], names=["puzzle", "puzzle"]),
                   tmp_path / "in.parquet")
    with pytest.raises(PipelineError) as caught:
        read_records(tmp_path / "in.parquet")
    assert str(caught.value) == (f"batch: {str(tmp_path / 'in.parquet')!r}: column 'puzzle' appears 2 times; "
                                 "a record has one of each")


def test_dictionary_and_null_text_columns_are_text(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"puzzle": pa.array(MIXED).dictionary_encode(), "regions": pa.nulls(4)}),
                   tmp_path / "in.parquet")
    assert read_records(tmp_path / "in.parquet")["puzzle"] == MIXED


def test_the_text_none_and_a_missing_field_hash_apart():
    """Found by the property above: ``str(None)`` made a missing puzzle and the text "None" one
    record; a missing field still hashes as it always did (older runs resume)."""
    missing = {"puzzle": [None], "regions": [None], "variant": [None]}
    text = {"puzzle": ["None"], "regions": [None], "variant": [None]}
    assert records_fingerprint(missing) != records_fingerprint(text)
    assert record_hashes(missing)[0] != record_hashes(text)[0]
    plain = {"puzzle": ["1."], "regions": [None], "variant": [None]}
    legacy = hashlib.blake2b("\x1f".join(["1.", "None", "None"]).encode(), digest_size=8).digest()
    assert record_hashes(plain).tobytes() == legacy


def test_a_csv_row_of_another_width_is_an_error_row_and_the_others_are_solved(tmp_path):
    # one malformed line aborted the whole batch ("Error tokenizing data"); text input already
    # made each bad line an error row
    from pipeline.batch import run_batch

    good = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    src = tmp_path / "in.csv"
    src.write_text(f"puzzle,variant\n{good},classic\n1.2,3,4,5\n{good},classic\n")
    summary = run_batch(src, tmp_path / "out", workers=1, progress="none", stream=open(os.devnull, "w"))
    assert summary.complete
    df = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert list(df["status"]) == ["optimal", "error", "optimal"]
    assert df["error"].iloc[1].startswith("csv: a row of 4 fields where the header has 2")
    assert df["error"].iloc[1].endswith("quote a field that holds the separator")
    assert df["puzzle"].iloc[1] == "1.2,3,4,5"   # the row as read (it showed the reader's own marker)
    again = run_batch(src, tmp_path / "out", workers=1, progress="none", stream=open(os.devnull, "w"))
    assert again.complete   # the rerun knows its own rows, the error row included


def test_a_line_past_the_bound_is_an_error_row_showing_its_start(tmp_path, monkeypatch):
    """A gzip bomb of one line (485 KB -> 500 MB) was read whole and stored in the puzzle cell; a
    line longer than a puzzle file may be is now read through and becomes an error row."""
    from pipeline.batch import records, run_batch

    monkeypatch.setattr(records, "MAX_TEXT_BYTES", 1000)
    good = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    src = tmp_path / "bomb.txt.gz"
    src.write_bytes(gzip.compress(f"{good}\n{'1' * 50_000}\n{good}\n".encode()))
    read = read_records(src)["puzzle"]
    assert read[0] == read[2] == good and len(read) == 3
    message, shown = bad_row_parts(read[1])
    assert message == "text: a line of 50,001 characters, more than a puzzle's 1,000 bytes"
    assert shown == "1" * records.LONG_LINE_SHOWN + "..."
    summary = run_batch(src, tmp_path / "out", workers=1, progress="none", stream=open(os.devnull, "w"))
    frame = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert frame["status"].tolist() == ["optimal", "error", "optimal"], summary
    assert frame["error"].iloc[1] == f"line 2: {message}" and frame["puzzle"].iloc[1] == shown


@pytest.mark.parametrize("encoding, name, message", [
    ("utf-16", "in.txt", "byte 0xff at offset 0: a UTF-16 byte-order mark); batch reads UTF-8: convert it first "
                         "(iconv -f UTF-16 -t UTF-8)"),
    ("utf-32", "in.txt", "byte 0xff at offset 0: a UTF-32 byte-order mark); batch reads UTF-8: convert it first "
                         "(iconv -f UTF-32 -t UTF-8)"),
    ("utf-16-le", "in.txt", "byte 0x00 at offset 1: a NUL byte, as UTF-16LE text without a byte-order mark has); "
                            "batch reads UTF-8: convert it first (iconv -f UTF-16LE -t UTF-8)"),
    ("utf-16-be", "in.txt", "byte 0x00 at offset 0: a NUL byte, as UTF-16BE text without a byte-order mark has); "
                            "batch reads UTF-8: convert it first (iconv -f UTF-16BE -t UTF-8)"),
    ("utf-16", "in.txt.gz", "byte 0xff at offset 0: a UTF-16 byte-order mark)"),
    ("utf-16", "in.csv", "byte 0xff at offset 0: a UTF-16 byte-order mark)"),
])
def test_utf16_or_utf32_input_is_one_refusal_naming_the_byte(tmp_path, encoding, name, message):
    """A UTF-16 text batch made each line an error row ("wrong length ... found 164") and one
    more for the last NUL; a UTF-16 CSV had "no 'puzzle' column" (of mangled names)."""
    data = (("puzzle\n" if name.endswith(".csv") else "") + "\n".join(MIXED) + "\n").encode(encoding)
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    with pytest.raises(PipelineError) as caught:
        read_records(path)
    assert str(caught.value).startswith(f"batch: {str(path)!r} is not UTF-8 text (")
    assert message in str(caught.value)


def _archive(kind: str, text: bytes, folder) -> bytes:
    import bz2
    import io
    import lzma
    import zipfile
    if kind == "zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as z:   # stored: the puzzles' text is in the file as it is
            z.writestr("in.txt", text)
        return buffer.getvalue()
    if kind == "parquet":
        pd.DataFrame({"puzzle": MIXED}).to_parquet(folder / "p.parquet")
        return (folder / "p.parquet").read_bytes()
    if kind == "tar":
        import tarfile
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as t:
            info = tarfile.TarInfo("in.txt")
            info.size = len(text)
            t.addfile(info, io.BytesIO(text))
        return buffer.getvalue()
    if kind == "zstd":   # its magic number and a frame's first bytes: what the reader looks at
        return b"\x28\xb5\x2f\xfd\x24\x00" + text
    return {"bz2": bz2.compress, "xz": lzma.compress, "gz-in-gz": lambda b: gzip.compress(gzip.compress(b))}[kind](text)


@pytest.mark.parametrize("kind, name, said", [
    ("zip", "in.txt", "a zip archive, not puzzle text or CSV: unpack it first"),
    ("zip", "in.csv.gz", "a zip archive, not puzzle text or CSV: unpack it first"),
    ("bz2", "in.txt", "bzip2-compressed, not puzzle text or CSV: unpack it first"),
    ("xz", "in.csv", "xz-compressed, not puzzle text or CSV: unpack it first"),
    ("gz-in-gz", "in.txt.gz", "gzip-compressed, not puzzle text or CSV: unpack it first"),
    ("parquet", "in.txt", "a Parquet file, not puzzle text or CSV: --input-format parquet reads it"),
    ("tar", "in.txt", "a tar archive, not puzzle text or CSV: unpack it first"),   # its text decodes as UTF-8
    ("zstd", "in.txt", "zstd-compressed, not puzzle text or CSV: unpack it first"),
])
def test_an_archive_or_parquet_read_as_text_is_one_refusal(tmp_path, kind, name, said):
    """An outside probe: a stored zip of 18 puzzles was a "complete" run of 19 rows (the header
    glued to the first puzzle, lost), exit 0; xz, bzip2 and a Parquet named .txt were error rows
    only. ``solve`` named each kind; ``batch`` now does too."""
    data = _archive(kind, ("\n".join(MIXED) + "\n").encode(), tmp_path)
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") and kind != "gz-in-gz" else data)
    with pytest.raises(PipelineError) as caught:
        read_records(path)
    assert str(caught.value) == f"batch: {str(path)!r} is {said}" + (" (gzip is read as it is)" if "unpack" in said else "")


def test_utf16_input_is_exit_2_before_anything_is_written(tmp_path, capsys):
    from pipeline.cli.main import main

    (tmp_path / "u16.txt").write_bytes(("\n".join(MIXED) + "\n").encode("utf-16"))
    assert main(["batch", str(tmp_path / "u16.txt"), str(tmp_path / "out"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "u16.txt' is not UTF-8 text (byte 0xff at offset 0" in err
    assert not list(tmp_path.glob("out/part-*"))


@pytest.mark.parametrize("newline, packed", [("\n", False), ("\r\n", False), ("\n", True)])
def test_a_line_that_is_not_utf8_is_its_records_error_naming_line_byte_and_offset(tmp_path, newline, packed):
    """It was "bad character '\\ufffd'", naming no byte; the offset is in the file (in a gzip
    file, in the text inside), line endings and a Latin-1 comment counted, and the comment
    is still a comment."""
    head = ("# a comment" + newline + MIXED[0] + newline).encode() + b"# caf\xe9" + newline.encode()
    bad = b"  " + MIXED[1][:5].encode() + b"\xe9" + MIXED[1][6:].encode()
    data = head + bad + newline.encode() + (MIXED[2] + newline).encode()
    path = tmp_path / ("latin.txt.gz" if packed else "latin.txt")
    path.write_bytes(gzip.compress(data) if packed else data)
    puzzles = read_records(path)["puzzle"]
    assert len(puzzles) == 3 and puzzles[0] == MIXED[0] and puzzles[2] == MIXED[2]
    message, shown = bad_row_parts(puzzles[1])
    offset = data.index(b"\xe9", len(head))
    assert message == f"text: not UTF-8 text (byte 0xe9 at offset {offset}: invalid continuation byte)"
    assert shown == MIXED[1][:5] + "\ufffd" + MIXED[1][6:]


def test_a_line_that_is_not_utf8_is_an_error_row_and_the_others_are_solved(tmp_path):
    from pipeline.batch import run_batch

    src = tmp_path / "in.txt"
    src.write_bytes((MIXED[0] + "\n").encode() + b"4.....8.5.3\xff" + MIXED[0][12:].encode() + b"\n"
                    + (MIXED[0] + "\n").encode())
    run_batch(src, tmp_path / "out", workers=1, progress="none", stream=open(os.devnull, "w"))
    frame = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert frame["status"].tolist() == ["optimal", "error", "optimal"]
    assert frame["error"].iloc[1] == f"line 2: text: not UTF-8 text (byte 0xff at offset {len(MIXED[0]) + 12}: invalid start byte)"
    assert frame["puzzle"].iloc[1] == "4.....8.5.3\ufffd" + MIXED[0][12:]


def test_a_line_past_the_bound_with_a_byte_that_is_not_utf8_shows_its_start(tmp_path, monkeypatch):
    from pipeline.batch import records

    monkeypatch.setattr(records, "MAX_TEXT_BYTES", 1000)
    (tmp_path / "long.txt").write_bytes(b"\xe9" + b"1" * 5000 + b"\n" + (MIXED[0] + "\n").encode() + b"1\xe9\n")
    puzzles = read_records(tmp_path / "long.txt")["puzzle"]
    message, shown = bad_row_parts(puzzles[0])
    assert message == "text: a line of 5,002 characters, more than a puzzle's 1,000 bytes"
    # the escaped byte shown as U+FFFD (an escape would not even write to Parquet)
    assert shown == "\ufffd" + "1" * (records.LONG_LINE_SHOWN - 1) + "..." and puzzles[1] == MIXED[0]
    # the long line's bytes counted, not the characters held
    assert bad_row_parts(puzzles[2])[0] == (f"text: not UTF-8 text (byte 0xe9 at offset {5002 + len(MIXED[0]) + 2}: "
                                            "invalid continuation byte)")


@pytest.mark.parametrize("packed", [False, True])
def test_a_csv_field_that_is_not_utf8_is_its_records_error_naming_the_field(tmp_path, packed):
    """A Latin-1 byte in a CSV record's field was read as U+FFFD without a word: an unknown variant
    'cl\\ufffdssic', a puzzle's 'bad character', or (in a column batch does not read) nothing. A
    U+FFFD written in a UTF-8 file stays what it is."""
    rows = [MIXED[0].encode() + b",cl\xe9ssic,x", MIXED[1].encode() + b",classic,caf\xe9",
            MIXED[2][:-1].encode() + b"\xe9,classic,x"]
    data = b"puzzle,variant,note\n" + b"\n".join(rows) + b"\n"
    path = tmp_path / ("latin.csv.gz" if packed else "latin.csv")
    path.write_bytes(gzip.compress(data) if packed else data)
    records = read_records(path)
    variant, puzzle = bad_row_parts(records["puzzle"][0]), bad_row_parts(records["puzzle"][2])
    assert variant[0] == "csv: the variant field holds a byte that is not UTF-8 text ('cl\ufffdssic', the byte shown " \
                         "as U+FFFD); save the file as UTF-8" and variant[1] == MIXED[0]
    assert puzzle[0].startswith("csv: the puzzle field holds a byte that is not UTF-8 text (")
    assert records["puzzle"][1] == MIXED[1]   # its unread note column is no matter
    utf8 = tmp_path / "u.csv"
    utf8.write_text(f"puzzle,variant\n{MIXED[0]},cl\ufffdssic\n", encoding="utf-8")
    assert read_records(utf8)["variant"] == ["cl\ufffdssic"]   # the variant's own error names it


@pytest.mark.parametrize("document", [{"size": 4, "givens": "1" + "." * 15}, [{"size": 4, "givens": "1" + "." * 15}] * 2])
def test_one_json_document_over_several_lines_is_refused_in_one_line(tmp_path, document):
    """A pretty-printed document was an error row per line ('bad cell "size": 4') and a complete run."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document, indent=1) + "\n")
    lines = path.read_text().count("\n")
    what = "a list of JSON documents" if isinstance(document, list) else "one JSON document"
    with pytest.raises(PipelineError, match=rf"^batch: '{re.escape(str(path))}' is {what} over {lines} lines; batch "
                                            r"reads a record per line: write each document on one line"):
        read_records(path)
    path.write_text("{\n" + MIXED[0] + "\n")   # a stray brace: records as before, each answered
    assert read_records(path)["puzzle"] == ["{", MIXED[0]]


def test_a_broken_json_record_is_placed_by_its_column_not_a_line_1_of_its_own(tmp_path):
    """The error said "line 1 column 53" of the file's line 2: the record's own line counted."""
    from pipeline.batch import run_batch

    broken = '{"size": 4, "givens": "..4.3...1.2.....", "rules": [}'
    src = tmp_path / "in.txt"
    src.write_text(MIXED[0] + "\n" + broken + "\n")
    run_batch(src, tmp_path / "out", workers=1, progress="none", stream=open(os.devnull, "w"))
    frame = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert frame["status"].tolist() == ["optimal", "error"]
    column = broken.index("}") + 1
    assert frame["error"].iloc[1] == f"line 2: puzzle: not a JSON puzzle document (Expecting value at column {column})"


def test_a_cut_off_json_record_is_placed_at_its_end_not_column_1(tmp_path):
    # json reports a document cut off at its end past the record's line end ("line 2 column 1"),
    # which the one-line reading said as "column 1"
    from pipeline.batch import run_batch

    cut = '{"size": 4, "givens": "..4.3...1.2....."'
    src = tmp_path / "in.txt"
    src.write_text(cut + "\n" + MIXED[0] + "\n")
    run_batch(src, tmp_path / "out", workers=1, progress="none", stream=open(os.devnull, "w"))
    frame = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert frame["status"].tolist() == ["error", "optimal"]
    assert frame["error"].iloc[0] == (f"line 1: puzzle: not a JSON puzzle document (Expecting ',' delimiter at column "
                                      f"{len(cut) + 1})")


def test_an_error_row_of_a_text_input_names_its_line(tmp_path):
    """``index`` counts records; comments and blank lines are not records, so an error row's text
    starts with the line of the file it came from (a CSV's index is its data row: no prefix)."""
    from pipeline.batch import run_batch

    good = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    src = tmp_path / "in.txt"
    src.write_text(f"# a comment\n\n{good}\nbadrecord\n\n# another\n{good}\n12345\n")
    run_batch(src, tmp_path / "out", workers=1, progress="none", stream=open(os.devnull, "w"))
    frame = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert frame["status"].tolist() == ["optimal", "error", "optimal", "error"]
    # 9 characters but letters: no 3x3 grid, its first bad character is named (not "a 3x3 grid is not a puzzle")
    assert frame["error"].iloc[1].startswith("line 4: puzzle: bad character 'b' at position 1")
    assert frame["error"].iloc[3].startswith("line 8: puzzle: ")
    pd.DataFrame({"puzzle": [good, "badrecord"]}).to_csv(tmp_path / "in.csv", index=False)
    run_batch(tmp_path / "in.csv", tmp_path / "out_csv", workers=1, progress="none", stream=open(os.devnull, "w"))
    table = pd.read_parquet(tmp_path / "out_csv").sort_values("index")
    assert table["error"].iloc[1].startswith("puzzle: bad character 'b' at position 1")


@pytest.mark.parametrize("name, packed", [("gz_bytes.csv", True), ("text.csv.gz", False), ("both.tsv.gz", True)])
def test_a_csv_is_read_by_its_bytes_gzip_or_not_whatever_its_name(tmp_path, name, packed):
    """pandas tells gzip by the name: gzip bytes named .csv were 'more fields than the header'."""
    sep = "\t" if ".tsv" in name else ","
    text = f"puzzle{sep}variant\n{'1' + '.' * 15}{sep}latin\n{'.' * 16}{sep}\n"
    path = tmp_path / name
    path.write_bytes(gzip.compress(text.encode()) if packed else text.encode())
    records = read_records(path)
    assert records["puzzle"] == ["1" + "." * 15, "." * 16] and records["variant"] == ["latin", None]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_column_names_are_read_whatever_their_case_and_spaces(tmp_path, suffix):
    """A spreadsheet's header ``Puzzle,Variant`` was "has no 'puzzle' column", where the
    one-puzzle reader took the same file."""
    frame = pd.DataFrame({"Puzzle": [MIXED[0], MIXED[1]], " VARIANT ": ["classic", None],
                          "Rules": ['[{"rule": "antiknight"}]', None], "Note": ["kept out", "x"]})
    path = tmp_path / f"in{suffix}"
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path)
    records = read_records(path)
    assert records["puzzle"] == [MIXED[0], MIXED[1]]
    assert records["variant"] == ["classic", None] and records["rules"] == ['[{"rule": "antiknight"}]', None]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_two_columns_that_name_one_field_are_refused(tmp_path, suffix):
    frame = pd.DataFrame({"puzzle": [MIXED[0]], "Puzzle": [MIXED[1]]})
    path = tmp_path / f"in{suffix}"
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path)
    with pytest.raises(PipelineError) as caught:
        read_records(path)
    assert str(caught.value) == (f"batch: {str(path)!r}: columns 'puzzle' and 'Puzzle' both name the 'puzzle' field; "
                                 "keep one")


@pytest.mark.parametrize("text, hint", [
    (",\n" + MIXED[0] + ",\n", "its first row is the header, and it names no column: name the puzzles' column "
                              "'puzzle'"),
])
def test_a_csv_of_no_puzzle_column_says_why_when_it_can(tmp_path, text, hint):
    path = tmp_path / "in.csv"
    path.write_text(text)
    with pytest.raises(PipelineError) as caught:
        read_records(path)
    assert str(caught.value).startswith(f"batch: {str(path)!r} has no 'puzzle' column (columns: ")
    assert str(caught.value).endswith(f"); {hint}")


def test_a_variant_in_another_case_is_the_variant(tmp_path):
    """A spreadsheet's ``Classic`` was an error row: "unknown variant 'Classic'"."""
    from pipeline.batch import run_batch

    path = tmp_path / "in.csv"
    pd.DataFrame({"puzzle": [MIXED[0]] * 3, "variant": ["Classic", " CLASSIC ", "sudoku-x"]}).to_csv(path, index=False)
    run_batch(path, tmp_path / "out", workers=1, progress="none", stream=open(os.devnull, "w"))
    frame = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert frame["status"].tolist() == ["optimal", "optimal", "error"]
    assert frame["error"].iloc[2].startswith("variant: unknown variant 'sudoku-x'; expected one of classic, ")


def test_an_error_row_keeps_the_rules_its_record_wrote(tmp_path):
    """A record whose thermometer or cage was bad had null rules in its error row: which rules
    failed was not to be seen in the output."""
    from pipeline.batch import run_batch

    bad = '[{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 99}]'
    path = tmp_path / "in.csv"
    pd.DataFrame({"puzzle": [MIXED[0], MIXED[0]], "rules": [bad, None]}).to_csv(path, index=False)
    run_batch(path, tmp_path / "out", workers=1, progress="none", stream=open(os.devnull, "w"))
    frame = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert frame["status"].tolist() == ["error", "optimal"]
    assert frame["rules"].iloc[0] == bad and pd.isna(frame["rules"].iloc[1])


@pytest.mark.parametrize("kind", ["text", "text latin-1", "csv", "parquet"])
def test_an_input_of_more_records_than_memory_allows_is_refused_before_it_is_held(tmp_path, monkeypatch, kind):
    # 5 million one-character lines in a 10 KB .gz took 1.1 GB before any work: a few MB of
    # gzip or Parquet held a hundred million records (about 22 GB)
    monkeypatch.setenv("SUDOKU_PIPELINE_MAX_BYTES", str(200_000 * RECORD_BYTES))
    n, extra = 400_000, int(kind == "text latin-1")
    if kind.startswith("text"):
        path = tmp_path / "in.txt.gz"
        tail = "\xe9".encode("latin-1") if kind.endswith("latin-1") else b""   # the line-located reader
        path.write_bytes(gzip.compress(b".\n" * n + tail))
    elif kind == "csv":
        path = tmp_path / "in.csv.gz"
        path.write_bytes(gzip.compress(b"puzzle\n" + b".\n" * n))
    else:
        path = tmp_path / "in.parquet"
        pd.DataFrame({"puzzle": ["."] * n}).to_parquet(path)
    with pytest.raises(PipelineError) as err:
        read_records(path)
    message = str(err.value)
    assert re.fullmatch(rf"batch: '{re.escape(str(path))}' holds at least [\d,]+ records, which need about .+ held "
                        r"at once, more than the .+ allowed \(\$SUDOKU_PIPELINE_MAX_BYTES\); split it into smaller inputs",
                        message), message
    monkeypatch.setenv("SUDOKU_PIPELINE_MAX_BYTES", str(2 * n * RECORD_BYTES))   # room: all read
    assert len(read_records(path)["puzzle"]) == n + extra   # the Latin-1 byte's line is one more (an error row)
