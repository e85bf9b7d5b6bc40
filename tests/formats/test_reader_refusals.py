"""Issue 21, section 1: a model reader returns exactly the model a file means or refuses it with
one line naming the file and, where the file has lines, the line. Every case the issue lists
(non-finite numbers, duplicates, a truncated table, tracebacks) plus the rule-row paths.

Each case takes a file our writer wrote, changes one thing and checks the refusal; the line a
message names is found from the changed text, not hard-coded.
"""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.io as sio

from formats import csv as csv_format, lp, matlab, mps, parquet
from formats.base import read_model
from formats.directory import export_model
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import parse_puzzle
from rule_models import fixture_puzzle

PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


@pytest.fixture(scope="module")
def plain():
    return build_model(parse_puzzle(PUZZLE), clues="bounds")


@pytest.fixture(scope="module")
def rules():
    return build_model(fixture_puzzle("thermo9"))


def refused(path: Path, pattern: str, reader=read_model) -> str:
    """The one-line FormatError of reading ``path``; it starts with the file's name."""
    with pytest.raises(FormatError) as info:
        reader(path)
    message = str(info.value)
    assert "\n" not in message, message
    assert message.startswith(str(path)), message
    assert re.search(pattern, message), message
    return message


def edit(path: Path, pattern: str, replacement: str) -> int:
    """Replace the first match of ``pattern`` (a line regex); returns its 1-based line."""
    lines = path.read_text().split("\n")
    k = next(i for i, line in enumerate(lines) if re.search(pattern, line))
    lines[k] = re.sub(pattern, replacement, lines[k], count=1)
    path.write_text("\n".join(lines))
    return k + 1


def repeat(path: Path, pattern: str, where: str = "after") -> int:
    """Repeat the first line matching ``pattern`` right after it; returns the copy's line."""
    lines = path.read_text().split("\n")
    k = next(i for i, line in enumerate(lines) if re.search(pattern, line))
    lines.insert(k + 1, lines[k])
    path.write_text("\n".join(lines))
    return k + 2


# -- MPS ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("section, pattern, bad", [
    ("COLUMNS", r"^( x_1_1_1 cell_1_1) +1", "NaN"), ("COLUMNS", r"^( x_1_1_1 cell_1_1) +1", "inf"),
    ("COLUMNS", r"^( x_1_1_1 cell_1_1) +1", "1e400"), ("COLUMNS", r"^( x_1_1_1 cell_1_1) +1", "-Infinity"),
    ("RHS", r"^( RHS cell_1_1) +1", "NaN"), ("RHS", r"^( RHS cell_1_1) +1", "inf"), ("RHS", r"^( RHS cell_1_1) +1", "1e999"),
    ("bound", r"^( UP BND x_1_1_1) 1", "NaN"), ("bound", r"^( UP BND x_1_1_1) 1", "1e400"),
])
def test_mps_non_finite_numbers(plain, tmp_path, section, pattern, bad):
    path = tmp_path / "m.mps"
    mps.write(plain, path)
    line = edit(path, pattern, rf"\1 {bad}")
    refused(path, rf": line {line}: bad number '{re.escape(bad)}' \({section}")


def _foreign(path: Path, marker: str) -> None:
    """Drop our metadata comment: a file of another tool, whose model nothing else describes."""
    path.write_text("\n".join(line for line in path.read_text().split("\n")
                              if not line.startswith(marker) and "sudoku-pipeline" not in line))


def test_mps_bound_may_be_a_spelled_infinity(plain, tmp_path):
    path = tmp_path / "m.mps"
    mps.write(plain, path)
    edit(path, r"^( UP BND x_1_1_1) 1", r"\1 Infinity")
    refused(path, r": not the model its metadata describes .*: ub differs")   # read, then not ours
    _foreign(path, "*")
    assert read_model(path).ub[0] == np.inf


def test_mps_duplicates(plain, tmp_path):
    path = tmp_path / "m.mps"
    mps.write(plain, path)
    line = repeat(path, r"^ x_1_1_1 cell_1_1")
    refused(path, rf": line {line}: second entry for column 'x_1_1_1' in row 'cell_1_1'")
    mps.write(plain, path)       # the same pair twice on one line
    line = edit(path, r"^( x_1_1_1 cell_1_1 +1) row_1_1 +1", r"\1 cell_1_1 1")
    refused(path, rf": line {line}: second entry for column 'x_1_1_1' in row 'cell_1_1'")
    mps.write(plain, path)
    line = repeat(path, r"^ RHS cell_1_1 ")
    refused(path, rf": line {line}: second RHS entry for row 'cell_1_1'")
    mps.write(plain, path)       # a column split into two blocks
    lines = path.read_text().split("\n")
    k = next(i for i, t in enumerate(lines) if t.startswith(" x_1_1_1 col_1_1"))
    lines.insert(k + 2, lines.pop(k))
    path.write_text("\n".join(lines))
    refused(path, rf": line {k + 3}: column 'x_1_1_1' continues after other columns")


def test_mps_rule_rows(rules, tmp_path):
    path = tmp_path / "m.mps"
    mps.write(rules, path)
    line = edit(path, r"^ L ", " X ")
    refused(path, rf": line {line}: unknown row type 'X'")
    mps.write(rules, path)
    text = path.read_text()
    label = re.search(r"^ L (\S+)", text, re.M).group(1)
    line = repeat(path, rf"^ L {re.escape(label)}$")
    refused(path, rf": line {line}: row '{re.escape(label)}' declared twice")


def test_an_edited_number_is_named_by_its_row_and_column(plain, tmp_path):
    """A coefficient or right-hand side edited by hand: the refusal names where, and both values."""
    path = tmp_path / "m.mps"
    mps.write(plain, path)
    edit(path, r"^( x_1_1_1 cell_1_1 +)1( |$)", r"\g<1>2\2")
    refused(path, r": 1 entry of Aeq differs, the first at row cell_1_1, column x_1_1_1: 2 in the file, "
                  r"1 in the model \(edited by hand\?")
    path = tmp_path / "m.lp"
    lp.write(plain, path)
    edit(path, r"^( cell_2_3: .*)= 1$", r"\1= 2")
    edit(path, r"^( cell_5_5: .*)= 1$", r"\1= 0.5")
    refused(path, r": row_lower differs in 2 places, the first at row cell_2_3: 2 in the file, 1 in the model")


# -- LP -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pattern, replacement, shown", [
    (r"^( cell_1_1: x_1_1_1 \+) x_1_1_2", r"\1 inf x_1_1_2", "inf"),
    (r"^( cell_1_1: x_1_1_1 \+) x_1_1_2", r"\1 1e400 x_1_1_2", "1e400"),
    (r"obj: 0 x_1_1_1", "obj: inf x_1_1_1", "inf"),
    (r"^( cell_1_1: .*)= 1$", r"\1= inf", "inf"),
    (r"^( cell_1_1: .*)= 1$", r"\1= -1e400", "-1e400"),
])
def test_lp_non_finite_numbers(plain, tmp_path, pattern, replacement, shown):
    path = tmp_path / "m.lp"
    lp.write(plain, path)
    line = edit(path, pattern, replacement)
    refused(path, rf":{line}: bad (coefficient|number) '{re.escape(shown)}'")


def test_lp_bound_may_be_a_spelled_infinity_not_nan(plain, tmp_path):
    path = tmp_path / "m.lp"
    lp.write(plain, path)
    edit(path, r"^ x_2_4_1 = 1", " x_2_4_1 <= inf")
    refused(path, r": not the model its metadata describes .*: lb differs")   # read, then not ours
    _foreign(path, "\\")
    assert np.isinf(read_model(path).ub).any()
    lp.write(plain, path)
    line = edit(path, r"^ x_2_4_1 = 1", " x_2_4_1 <= 1e400")
    refused(path, rf":{line}: bad (number|coefficient) '1e400'")


def test_lp_duplicates(plain, rules, tmp_path):
    path = tmp_path / "m.lp"
    lp.write(plain, path)
    line = edit(path, r"^ cell_1_2:", " cell_1_1:")
    refused(path, rf":{line}: a second constraint named 'cell_1_1'")
    lp.write(plain, path)
    line = edit(path, r"^( cell_1_1: x_1_1_1 \+) x_1_1_2", r"\1 x_1_1_1 + x_1_1_2")
    refused(path, rf":{line}: 'x_1_1_1' appears twice in its row")
    lp.write(plain, path)
    line = edit(path, r"obj: 0 x_1_1_1 \+ 0 x_2_1_1", "obj: 0 x_1_1_1 + 0 x_1_1_1")
    refused(path, rf":{line}: 'x_1_1_1' appears twice in the objective")
    lp.write(rules, path)        # a rule row (<=) named as an equation
    text = path.read_text()
    first = re.search(r"^ (\S+): ", text.split("Subject To", 1)[1], re.M).group(1)
    line = edit(path, r"^ (\S+)(: .*<=)", rf" {first}\2")
    refused(path, rf":{line}: a second constraint named '{re.escape(first)}'")


# -- Parquet --------------------------------------------------------------------------------------
def _rewrite(path: Path, change) -> None:
    table = pq.read_table(path)
    meta = table.schema.metadata
    pq.write_table(change(table).replace_schema_metadata(meta), path)


def _set(name: str, k: int, value, type_=None):
    def change(table):
        values = table.column(name).to_pylist()
        values[k] = value
        i = table.column_names.index(name)
        return table.set_column(i, table.schema.field(name).with_nullable(True),
                                pa.array(values, type_ or table.column(name).type))
    return change


@pytest.mark.parametrize("siblings", [True, False])
def test_parquet_coo(plain, tmp_path, siblings):
    path = tmp_path / "m_coo.parquet"
    write = parquet.write if siblings else parquet.write_coo
    cases = [
        (_set("value", 7, float("nan")), r"column 'value', row 7 \(0-based\): nan is not a finite number"),
        (_set("value", 3, float("inf")), r"column 'value', row 3 \(0-based\): inf is not a finite number"),
        (_set("row", 3, None), r"column 'row', row 3 \(0-based\): null"),
        (_set("col", 5, None), r"column 'col', row 5 \(0-based\): null"),
        (lambda t: t.slice(0, 0), r": 0 nonzeros, the metadata says 2916"),
        (lambda t: t.slice(0, t.num_rows // 2), rf": {plain.nnz // 2} nonzeros, the metadata says 2916"),
        (lambda t: pa.concat_tables([t, t.slice(5, 1)]), r": 2917 nonzeros, the metadata says 2916"),
        # the count kept: entry 5 replaces entry 6
        (lambda t: pa.concat_tables([t.slice(0, 6), t.slice(5, 1), t.slice(7)]),
         r"row 6 \(0-based\): entry \(\d+, \d+\) listed twice"),
        (lambda t: t.set_column(1, "col", pa.array(t.column("col").to_numpy().astype(float))),
         r"column 'col' has type double, not integer"),
    ]
    for change, pattern in cases:
        write(plain, path)
        _rewrite(path, change)
        refused(path, pattern, parquet.read)


def test_parquet_sibling_tables(plain, rules, tmp_path):
    path = tmp_path / "m_coo.parquet"
    rows, cols = tmp_path / "m_rows.parquet", tmp_path / "m_cols.parquet"
    for model, target, change, pattern in [
        (plain, rows, _set("upper", 0, float("nan")), r"m_rows.parquet: column 'upper', row 0 \(0-based\): nan"),
        (plain, rows, _set("lower", 1, 2.0), r"m_rows.parquet: row 1 \(0-based\): lower 2 and upper 1 differ"),
        (plain, rows, _set("label", 2, "cell_1_1"), r"m_rows.parquet: row 2 \(0-based\): label 'cell_1_1' appears twice"),
        (plain, cols, _set("lb", 0, float("nan")), r"m_cols.parquet: column 'lb', row 0 \(0-based\): nan is not a number"),
        (plain, cols, _set("cost", 0, float("inf")), r"m_cols.parquet: column 'cost', row 0 \(0-based\): inf"),
        (plain, cols, _set("name", 1, None), r"m_cols.parquet: column 'name', row 1 \(0-based\): null"),
        (rules, rows, _set("sense", -1, "G"), r"m_rows.parquet: row \d+ \(0-based\): sense 'G'"),
        (rules, rows, _set("sense", -1, None), r"m_rows.parquet: column 'sense', row \d+ \(0-based\): null"),
    ]:
        parquet.write(model, path)
        _rewrite(target, change)
        with pytest.raises(FormatError) as info:
            parquet.read(path)
        message = str(info.value)
        assert "\n" not in message and message.startswith(str(target)), message
        assert re.search(pattern, message), message


# -- MATLAB .mat ----------------------------------------------------------------------------------
def _mat(model, path: Path, change) -> None:
    matlab.write(model, path)
    raw = {k: v for k, v in sio.loadmat(path).items() if not k.startswith("__")}
    change(raw)
    sio.savemat(path, raw)


def _set_entry(name, r, c, value):
    def change(raw):
        a = raw[name].tolil()
        a[r, c] = value
        raw[name] = a.tocsc()
    return change


@pytest.mark.parametrize("change, pattern", [
    (_set_entry("Aeq", 0, 0, np.inf), r"Aeq\(1,1\) is inf: not finite"),
    (_set_entry("Aeq", 4, 2, np.nan), r"Aeq\(5,3\) is nan: not finite"),
    (lambda raw: raw["beq"].__setitem__(0, np.nan), r"beq\(1\) is nan: not finite"),
    (lambda raw: raw["f"].__setitem__(2, np.inf), r"f\(3\) is inf: not finite"),
    (lambda raw: raw.__setitem__("lb", np.full_like(raw["lb"], np.nan)), r"lb\(1\) is nan: not a number"),
    (lambda raw: raw.__setitem__("Aeq", "hello"), r"Aeq is not a real numeric matrix \(it holds <U5\)"),
    (lambda raw: raw.__setitem__("beq", np.array(["a", "b"])), r"beq is not a real numeric array"),
    (lambda raw: raw.__setitem__("intcon", raw["intcon"] + 0.5), r"intcon holds a value that is not an integer"),
])
def test_mat(plain, tmp_path, change, pattern):
    path = tmp_path / "model.mat"
    _mat(plain, path, change)
    refused(path, pattern, matlab.read)


def test_mat_rule_rows(rules, tmp_path):
    path = tmp_path / "model.mat"
    for change, pattern in [
        (_set_entry("Aineq", 0, 0, np.inf), r"Aineq\(1,1\) is inf: not finite"),
        (lambda raw: raw["bineq"].__setitem__(0, np.nan), r"bineq\(1\) is nan: not finite"),
        (lambda raw: raw.__setitem__("bineq", raw["bineq"][:-1]), r"bineq has \d+ values, Aineq has \d+ rows"),
        (lambda raw: raw.__setitem__("Aineq", "x"), r"Aineq is not a real numeric matrix"),
    ]:
        _mat(rules, path, change)
        refused(path, pattern, matlab.read)


def test_mat_infinite_upper_bound_is_read_as_a_bound(plain, tmp_path):
    path = tmp_path / "model.mat"
    _mat(plain, path, lambda raw: raw["ub"].__setitem__(0, np.inf))
    # read as a bound (no number error), then refused: the metadata's model has ub 1 there
    refused(path, r": not the model its metadata describes .*: ub differs", matlab.read)


# -- CSV ------------------------------------------------------------------------------------------
def test_csv(plain, rules, tmp_path):
    for model, name, change, pattern in [
        (plain, "Aeq_ijv.csv", lambda t: t.replace("\n", "\n1,1,nan\n", 1), r": line 2: a value is not a finite number"),
        (plain, "Aeq_ijv.csv", lambda t: t.replace("\n", "\n1,1,1e400\n", 1), r": line 2: a value is not a finite number"),
        (plain, "Aeq_ijv.csv", lambda t: t.split("\n", 1)[0] + "\n" + t, r": line 2: entry \(\d+, \d+\) listed twice"),
        (plain, "Aeq_ijv.csv", lambda t: t.replace("\n", "\n1.5,1,1\n", 1), r": line 2: an index is not an integer"),
        (plain, "beq.csv", lambda t: t.replace("1\n", "inf\n", 1), r"beq.csv: line 1: 'inf' is not a finite number"),
        (plain, "beq.csv", lambda t: t.replace("1\n", "nan\n", 1), r"beq.csv: line 1: 'nan' is not a finite number"),
        (plain, "lb.csv", lambda t: t.replace("0\n", "nan\n", 1), r"lb.csv: line 1: 'nan' is not a number"),
        (plain, "ub.csv", lambda t: "1e400\n" + t.split("\n", 1)[1], r"ub.csv: line 1: '1e400' is not a number"),
        (plain, "f.csv", lambda t: "-inf\n" + t.split("\n", 1)[1], r"f.csv: line 1: '-inf' is not a finite number"),
        (rules, "bineq.csv", lambda t: "nan\n" + t.split("\n", 1)[1], r"bineq.csv: line 1: 'nan' is not a finite"),
        (rules, "Aineq_ijv.csv", lambda t: t.split("\n", 1)[0] + "\n" + t, r"Aineq_ijv.csv: line 2: entry .* listed twice"),
    ]:
        d = tmp_path / f"{name}_{abs(hash(pattern))}"
        export_model(model, d, "csv", dense="never")
        target = d / name
        target.write_text(change(target.read_text()))
        with pytest.raises(FormatError) as info:
            csv_format.read(d / "Aeq_ijv.csv")
        message = str(info.value)
        assert "\n" not in message and message.startswith(str(target)), message
        assert re.search(pattern, message), message


def test_csv_long_form(plain, tmp_path):
    export_model(plain, tmp_path, "csv", dense="never")
    target = tmp_path / "Aeq_long.csv"
    lines = target.read_text().split("\n")
    lines.insert(2, lines[1])
    target.write_text("\n".join(lines))
    refused(target, r": line 3: entry \(cell_1_1, x_1_1_1\) listed twice", csv_format.read)
    lines[2] = lines[1].rsplit(",", 1)[0] + ",inf"
    target.write_text("\n".join(lines))
    refused(target, r": line 3: the value is not a finite number", csv_format.read)


# -- a damaged gzip stream, any text reader -------------------------------------------------------
@pytest.mark.parametrize("name", ["Aeq_ijv.csv", "Aeq.csv", "Aeq_long.csv", "model.lp", "model.mps", "model.opb",
                                  "model.cnf", "model.mat"])
def test_a_truncated_gzip_file_is_refused_naming_it(plain, tmp_path, name):
    # the readers parse as they read, so the stream's end met them deep inside pandas or a
    # line loop: an EOFError traceback from the CSV triplets, dense CSV, LP and OPB readers
    export_model(plain, tmp_path, "all", dense="always")
    target = tmp_path / name
    target.write_bytes(gzip.compress(target.read_bytes())[:400])
    message = refused(target, r": cannot read: Compressed file ended before the end-of-stream marker")
    assert message.count(str(target)) == 1, message
