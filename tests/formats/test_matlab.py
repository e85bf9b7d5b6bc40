"""MATLAB format: .mat round trips, loadmat types, the generated solve_sudoku.m (under real Octave)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp

import formats.csv as csv_format
import formats.mat5 as mat5
import formats.mat5_guard as mat5_guard
import formats.matlab as mat
from formats.base import ModelData, format_for, read_model, write_model
from in_a_child import outcome_in_a_child
from oracles import SETS_DIR, assert_same_model_data, pattern_grid, round_trip_cases, round_trip_puzzles
from pipeline.core.build import build_model
from pipeline.core.decode import vector_from_grid
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

DATA = SETS_DIR
PUZZLES = round_trip_puzzles()
CASES = round_trip_cases(PUZZLES)
assert_same = assert_same_model_data



@pytest.mark.parametrize("name,scheme,order,enc", CASES)
def test_round_trip(tmp_path, name, scheme, order, enc):
    model = build_model(PUZZLES[name], scheme, order, enc)
    path = write_model(model, tmp_path / "m.mat")
    assert_same(read_model(path), ModelData.from_model(model))


def test_registered_and_export_files(tmp_path):
    assert format_for("x.mat").name == "matlab"
    model = build_model(PUZZLES["default"], clues="reduce")
    files = mat.export(model, tmp_path)
    assert sorted(p.name for p in files) == ["kept_columns.csv", "model.mat", "solve_sudoku.m"]
    kept = np.loadtxt(tmp_path / "kept_columns.csv", dtype=np.int64)
    np.testing.assert_array_equal(kept, model.columns + 1)
    assert [p.name for p in mat.export(build_model(PUZZLES["default"]), tmp_path / "rows")] == \
        ["model.mat", "solve_sudoku.m"]
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temporaries


def test_custom_objective_round_trip(tmp_path):
    p = PUZZLES["default"]
    cost = np.arange(p.n ** 3, dtype=float)
    model = build_model(p, "block", "C", "reduce", objective=cost)
    assert_same(mat.read(mat.write(model, tmp_path / "c.mat")), ModelData.from_model(model))


@pytest.mark.parametrize("enc", ["rows", "bounds", "reduce"])
def test_loadmat_types_and_shapes(tmp_path, enc):
    model = build_model(PUZZLES["default"], "ijk", "C", enc)
    raw = sio.loadmat(mat.write(model, tmp_path / "m.mat"))
    m, n = model.n_rows, model.n_cols
    a = raw["Aeq"]
    assert sp.issparse(a) and a.dtype == np.float64 and a.shape == (m, n)
    assert (a != model.Aeq).nnz == 0
    for name, size in (("beq", m), ("f", n), ("lb", n), ("ub", n), ("intcon", n)):
        assert raw[name].shape == (size, 1), name  # column vectors
        assert raw[name].dtype == np.float64, name
    np.testing.assert_array_equal(raw["intcon"].ravel(), np.arange(1, n + 1))
    np.testing.assert_array_equal(raw["lb"].ravel(), model.lb)
    meta = sio.loadmat(tmp_path / "m.mat", simplify_cells=True)["meta"]
    for key in ("h", "w", "N", "variant", "scheme", "order", "clue_encoding", "puzzle", "shape",
                "rows", "columns", "nonzeros"):
        assert key in meta, key
    assert (meta["N"], meta["scheme"], meta["order"], meta["clue_encoding"]) == (9, "ijk", "C", enc)
    assert (meta["rows"], meta["columns"], meta["nonzeros"]) == (m, n, model.nnz)
    assert meta["puzzle"] == model.puzzle.to_string()
    np.testing.assert_array_equal(meta["shape"], [9, 9, 9])
    r, c, d = model.puzzle.clues()
    np.testing.assert_array_equal(meta["clues"], np.column_stack([r, c, d]) + 1)
    np.testing.assert_array_equal(meta["clue_positions"], model.convention.position(r, c, d) + 1)
    if enc == "reduce":
        np.testing.assert_array_equal(meta["kept_columns"], model.columns + 1)  # 1-based for MATLAB
    else:
        assert "kept_columns" not in meta


def test_read_errors(tmp_path):
    with pytest.raises(FormatError, match="no such file"):
        mat.read(tmp_path / "missing.mat")
    (tmp_path / "junk.mat").write_bytes(b"not a mat file at all" * 20)
    with pytest.raises(FormatError):
        mat.read(tmp_path / "junk.mat")
    sio.savemat(tmp_path / "partial.mat", {"Aeq": sp.eye(3, format="csc")})
    with pytest.raises(FormatError, match="missing variable"):
        mat.read(tmp_path / "partial.mat")


def test_read_refuses_inconsistent_meta(tmp_path):
    model = build_model(PUZZLES["default"])
    path = mat.write(model, tmp_path / "m.mat")
    raw = sio.loadmat(path)
    raw["beq"] = raw["beq"][:-1]
    sio.savemat(path, {k: v for k, v in raw.items() if not k.startswith("__")})
    with pytest.raises(FormatError, match="beq"):
        mat.read(path)


# ---------------------------------------------------------------------------------------------
# the decode lines of solve_sudoku.m, emulated with NumPy's Fortran-order reshape (no Octave)
# ---------------------------------------------------------------------------------------------
def _emulate_decode(script: str, x_full: np.ndarray, n: int, h: int, w: int) -> np.ndarray:
    env = {"N": n, "h": h, "w": w}
    dims = lambda text: [int(eval(t.replace("/", "//"), {}, env)) for t in text.split(",")]  # noqa: E731
    X = None
    block = script.split("% -- decode", 1)[1].split("\n", 1)[1].split("if any(any(", 1)[0]
    for line in block.splitlines():
        code = line.split("%", 1)[0].strip()
        if not code:
            continue
        m = re.fullmatch(r"X = reshape\((x_full|X), (.*)\);", code)
        if m:
            src = x_full if m.group(1) == "x_full" else X
            X = np.reshape(src, dims(m.group(2)), order="F")  # MATLAB reshape: first index fastest
            continue
        m = re.fullmatch(r"X = permute\(X, \[(.*)\]\);", code)
        assert m, f"unexpected decode line {code!r}"
        X = np.transpose(X, [int(k) - 1 for k in m.group(1).split()])
    return X


@pytest.mark.parametrize("name", ["default", "6x6"])
@pytest.mark.parametrize("scheme", ["ijk", "block"])
@pytest.mark.parametrize("order", ["F", "C"])
def test_script_decode_lines_match_convention(name, scheme, order):
    p = PUZZLES[name]
    model = build_model(p, scheme, order)
    n = p.n
    # any grid works for the index check: a Latin-like filling r + c
    grid = (np.add.outer(np.arange(n), np.arange(n)) % n) + 1
    x = vector_from_grid(grid, model.convention)
    X = _emulate_decode(mat.render_script(model), x, n, p.h, p.w)
    assert X.shape == (n, n, n)
    np.testing.assert_array_equal((X * np.arange(1, n + 1)).sum(axis=2), grid)


def test_script_mentions_convention_and_paths():
    model = build_model(PUZZLES["default"], "block", "C", "reduce")
    text = mat.render_script(model)
    assert "fileparts(mfilename('fullpath'))" in text
    assert "exist('OCTAVE_VERSION', 'builtin')" in text
    assert "intlinprog(problem)" in text and "'solver', 'intlinprog', 'options', opts" in text
    assert "glpk(f, Aeq, beq, lb, ub, repmat('S', m, 1), repmat('I', n, 1), 1" in text
    assert "Aeq = ijv(load(fullfile(model_dir, 'Aeq_ijv.csv')));" in text
    assert "x_full(kept) = x;" in text and "kept_columns.csv" in text
    assert "scheme block, order C" in text
    assert "kept" not in mat.render_script(build_model(PUZZLES["default"]))
    # optional time limit, in seconds: glpk's tmlim is in milliseconds
    assert "if exist('sudoku_time_limit', 'var') && ~isempty(sudoku_time_limit)" in text
    assert "glpk_param.tmlim = max(1, round(1000 * time_limit));" in text
    assert "opts = optimoptions(opts, 'MaxTime', time_limit);" in text


# ---------------------------------------------------------------------------------------------
# real GNU Octave: one session runs every case (Octave takes a while to start)
# ---------------------------------------------------------------------------------------------
def _octave_cases():
    """(case id, puzzle, scheme, order, encoding, source) for the Octave session."""
    cases = []
    for scheme in ("ijk", "block"):
        for order in "FC":
            for enc in ("rows", "bounds", "reduce"):
                for source in ("mat", "csv"):
                    cases.append((f"default-{scheme}-{order}-{enc}-{source}", "default", scheme, order, enc, source))
    if (DATA / "16x16_classic.txt").exists():
        for scheme, order, enc in (("ijk", "F", "rows"), ("block", "C", "reduce")):
            for source in ("mat", "csv"):
                cases.append((f"16x16-{scheme}-{order}-{enc}-{source}", "16x16", scheme, order, enc, source))
    if "jigsaw" in PUZZLES:
        for order, enc in (("F", "reduce"), ("C", "bounds")):
            for source in ("mat", "csv"):
                cases.append((f"jigsaw-ijk-{order}-{enc}-{source}", "jigsaw", "ijk", order, enc, source))
    # one export of every other variant and size (classic 4x4 and 6x6, X, jigsaw_x, Latin)
    others = [("4x4", "block", "F", "rows"), ("6x6", "block", "C", "bounds"), ("latin5", "ijk", "C", "reduce")]
    if "x" in PUZZLES:
        others += [("x", "ijk", "F", "rows"), ("x", "block", "C", "reduce")]
    if (DATA / "jigsaw.csv").exists():
        others.append(("jigsaw_x", "ijk", "F", "bounds"))
    if (DATA / "16x16_x.txt").exists():
        others.append(("16x16_x", "ijk", "F", "reduce"))
    cases += [(f"{name}-{scheme}-{order}-{enc}-mat", name, scheme, order, enc, "mat")
              for name, scheme, order, enc in others]
    # every cell given, the clues reduced: a model of no rows and no columns, which glpk refuses
    cases += [(f"full-ijk-F-reduce-{source}", "full", "ijk", "F", "reduce", source) for source in ("mat", "csv")]
    return cases


OCTAVE_CASES = _octave_cases()


def _octave_puzzle(name):
    if name == "full":
        return parse_puzzle("".join(map(str, pattern_grid(3, 3).ravel())))
    if name == "16x16":
        # letters A.. are 10.. in the compact alphabet of pipeline.core.puzzle
        return parse_puzzle((DATA / "16x16_classic.txt").read_text().splitlines()[0])
    if name == "16x16_x":
        return parse_puzzle((DATA / "16x16_x.txt").read_text().splitlines()[0], variant="x")
    if name == "jigsaw_x":
        import pandas as pd

        table = pd.read_csv(DATA / "jigsaw.csv")
        row = table[table.variant == "jigsaw_x"].iloc[0]
        return parse_puzzle(row.puzzle, regions=row.regions, variant="jigsaw_x")
    return PUZZLES[name]


def _printed_grid(section: str, n: int) -> np.ndarray:
    """The grid solve_sudoku.m printed (its box separators dropped) from one case's output."""
    rows = [line for line in section.splitlines()
            if re.fullmatch(r"[\d |]+", line.strip() or "x") and len(line.replace("|", " ").split()) == n]
    return np.array([[int(v) for v in line.replace("|", " ").split()] for line in rows[-n:]], dtype=np.int64)


# cases that also save the figure (sudoku_figure) headless: one per variant, both routes
FIGURE_CASES = {case for case, name, scheme, order, enc, source in OCTAVE_CASES
                if name != "default" or (scheme, order, enc) == ("ijk", "F", "rows")}


def _octave_string(s: str) -> str:
    return "'" + str(s).replace("'", "''") + "'"


FIGURE_PROBE = Path(__file__).with_name("octave_figure_probe.m")   # `make solvers` runs it too


def octave_figure_missing(exe: str, folder: Path, env: dict | None = None) -> str | None:
    """None when this Octave prints a figure headless (a real PNG), else why not, e.g. "no graphics
    toolkits are available!" on a machine where Octave came without gnuplot (its recommends), or
    "... ft_text_renderer: invalid bounding box, cannot render ... (ft_manager: unable to load font:
    .../FreeSans.otf)" where it came without fonts-freefont-otf (issue 32)."""
    png = folder / "figure_probe.png"
    proc = subprocess.run([exe, "--no-gui", "--quiet", "--no-window-system", "--eval",
                           f"probe_png = {_octave_string(png)}; run({_octave_string(FIGURE_PROBE)})"],
                          capture_output=True, text=True, timeout=120, cwd=folder, env=env)
    said = re.search(r"^figure probe: (.*)$", proc.stdout, re.M)
    if said is None:
        return f"the figure probe said nothing (exit {proc.returncode}): {(proc.stdout + proc.stderr)[-300:]!r}"
    if not said.group(1).startswith("printed with "):
        return said.group(1).removeprefix("cannot print: ")
    if not (png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"):
        return f"{said.group(1)}, but no PNG was written"
    return None


def _octave_error(reason: str) -> str:
    """The probe's reason without the font warning it adds in brackets: Octave's error alone, the
    one solve_sudoku.m prints after "No figure drawn: "."""
    return re.sub(r" \([^()]*font[^()]*\)$", "", reason)


def _without_gnuplot(folder: Path) -> dict:
    """An environment in which Octave finds no gnuplot (as where it was installed without its
    recommends): it looks for programs on its EXEC_PATH (OCTAVE_EXEC_PATH) and PATH, both an
    empty folder here; Octave itself is started by its full path."""
    empty = folder / "empty-bin"
    empty.mkdir(exist_ok=True)
    return {**{k: v for k, v in os.environ.items() if k != "DISPLAY"}, "PATH": str(empty),
            "OCTAVE_EXEC_PATH": str(empty)}


@pytest.fixture(scope="module")
def octave_run(tmp_path_factory):
    """Export every case, run all solve_sudoku.m in one Octave session, return (dir, log)."""
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        pytest.skip("GNU Octave not found (octave-cli/octave not on PATH): solve_sudoku.m not run")
    probe = subprocess.run([exe, "--no-gui", "--quiet", "--eval", "disp(exist('glpk'))"],
                           capture_output=True, text=True, timeout=60)
    if probe.stdout.strip() not in ("2", "3", "5"):
        pytest.skip(f"GNU Octave has no glpk (exist('glpk') = {probe.stdout.strip()!r})")
    root = tmp_path_factory.mktemp("octave")
    lines = ["more off;"]
    for case, name, scheme, order, enc, source in OCTAVE_CASES:
        d = root / case
        model = build_model(_octave_puzzle(name), scheme, order, enc)
        mat.export(model, d)
        csv_format.export(model, d)
        # the CSV route gets the switch variable; the .mat route the defaults
        use_csv = "true" if source == "csv" else "false"
        figure = f" sudoku_figure = {_octave_string(d / 'grid.png')};" if case in FIGURE_CASES else ""
        lines += [
            "clear sudoku_dir sudoku_use_csv sudoku_out sudoku_figure;",
            f"sudoku_use_csv = {use_csv}; sudoku_out = {_octave_string(d / 'sudoku_out.csv')};{figure}",
            f"try, run({_octave_string(d / 'solve_sudoku.m')}); printf('RESULT {case} OK\\n');",
            f"catch err, printf('RESULT {case} FAIL %s\\n', err.message); end",
        ]
    # no overrides at all, from another working directory, with model.mat deleted: the script
    # must find its CSV files beside itself and write sudoku.csv there
    plain = root / "plain-csv-only"
    shutil.copytree(root / "default-block-C-reduce-csv", plain)
    (plain / "model.mat").unlink()
    (plain / "sudoku_out.csv").unlink(missing_ok=True)
    lines += [
        "clear sudoku_dir sudoku_use_csv sudoku_out;",
        f"try, run({_octave_string(plain / 'solve_sudoku.m')}); printf('RESULT plain OK\\n');",
        "catch err, printf('RESULT plain FAIL %s\\n', err.message); end",
        "printf('ALL DONE\\n');",
    ]
    driver = root / "driver.m"
    driver.write_text("\n".join(lines) + "\n")
    elsewhere = root / "cwd"
    elsewhere.mkdir()
    # headless as on a server: no DISPLAY, so the figure is skipped unless sudoku_figure asks for a file
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    figure_missing = octave_figure_missing(exe, elsewhere, env)
    proc = subprocess.run([exe, "--no-gui", "--quiet", "--no-window-system", str(driver)], cwd=elsewhere,
                          capture_output=True, text=True, timeout=400, env=env)
    log = proc.stdout + proc.stderr
    assert "ALL DONE" in proc.stdout, log[-3000:]
    return root, proc.stdout, figure_missing


def _section(out: str, case: str) -> str:
    """What solve_sudoku.m printed for one case of the driver."""
    return out.split(f"RESULT {case} ")[0].rsplit("RESULT ", 1)[-1]


@pytest.mark.interop
@pytest.mark.parametrize("case,name,scheme,order,enc,source", OCTAVE_CASES, ids=[c[0] for c in OCTAVE_CASES])
def test_octave_solves(octave_run, case, name, scheme, order, enc, source):
    root, out, figure_missing = octave_run
    status = re.search(rf"^RESULT {re.escape(case)} (.*)$", out, re.M)
    assert status and status.group(1) == "OK", (status.group(1) if status else out[-2000:])
    reader = "Read the CSV files" if source == "csv" else "Read " + str(root / case / "model.mat")
    section = _section(out, case)
    assert reader in section
    grid = np.loadtxt(root / case / "sudoku_out.csv", delimiter=",", dtype=np.int64, ndmin=2)
    puzzle = _octave_puzzle(name)
    verdict = verify_grid(grid, puzzle)
    assert verdict, verdict.message
    # the grid printed on screen is the same verified grid
    np.testing.assert_array_equal(_printed_grid(section, puzzle.n), grid)
    assert "error" not in section.lower(), section[-2000:]
    drawn = re.findall(r"^No figure drawn: (.*)$", section, re.M)
    if case in FIGURE_CASES and figure_missing is not None:
        # no toolkit can print here: the script says so in one line and still solves (above)
        assert drawn == [_octave_error(figure_missing)], section[-2000:]
    else:
        assert drawn == [], section[-2000:]
    if case not in FIGURE_CASES:
        picture = root / case / "grid.png"
        assert not picture.exists() and ".png" not in section  # headless: skipped silently


@pytest.mark.interop
@pytest.mark.parametrize("case", sorted(FIGURE_CASES))
def test_octave_saves_the_figure(octave_run, case):
    """sudoku_figure saves the drawn grid headless: the drawing code ran (invisible figure printed
    through Octave's toolkit) and left a real PNG."""
    root, out, figure_missing = octave_run
    if figure_missing is not None:
        pytest.skip(f"GNU Octave cannot print a figure headless here: {figure_missing} "
                    "(`make solvers` installs gnuplot-nox and fonts-freefont-otf, Octave's default font)")
    section = _section(out, case)
    picture = root / case / "grid.png"
    assert f"Wrote {picture}" in section, section[-2000:]
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.interop
def test_octave_without_a_graphics_toolkit(tmp_path):
    """The machine of issue 19 for real: Octave without gnuplot (hidden from its EXEC_PATH and PATH)
    has no graphics toolkit. The probe says so (the figure tests then skip with that reason), and
    solve_sudoku.m asked for a figure still solves, printing one "No figure drawn" line."""
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        pytest.skip("GNU Octave not found (octave-cli/octave not on PATH): solve_sudoku.m not run")
    env = _without_gnuplot(tmp_path)
    assert octave_figure_missing(exe, tmp_path, env) == "no graphics toolkits are available!"
    d = tmp_path / "export"
    mat.export(build_model(PUZZLES["default"]), d)
    driver = tmp_path / "driver.m"
    driver.write_text(f"more off; sudoku_out = {_octave_string(d / 'out.csv')}; "
                      f"sudoku_figure = {_octave_string(d / 'grid.png')};\n"
                      f"run({_octave_string(d / 'solve_sudoku.m')}); printf('ALL DONE\\n');\n")
    proc = subprocess.run([exe, "--no-gui", "--quiet", "--no-window-system", str(driver)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=env)
    assert "ALL DONE" in proc.stdout, (proc.stdout + proc.stderr)[-3000:]
    assert re.findall(r"^No figure drawn: .*$", proc.stdout, re.M) == \
        ["No figure drawn: no graphics toolkits are available!"]
    assert not (d / "grid.png").exists()
    grid = np.loadtxt(d / "out.csv", delimiter=",", dtype=np.int64)
    assert verify_grid(grid, PUZZLES["default"])


@pytest.mark.interop
def test_octave_without_its_default_font(tmp_path):
    """The machine of issue 32 for real: Octave without its default font (Debian: FreeSans.otf of
    fonts-freefont-otf, loaded by path from OCTAVE_FONTS_DIR, not through fontconfig; here an empty
    folder) cannot create axes. The probe names the font file it missed (the figure tests then skip
    with that reason), and solve_sudoku.m asked for a figure still solves, with one line."""
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        pytest.skip("GNU Octave not found (octave-cli/octave not on PATH): solve_sudoku.m not run")
    no_fonts = tmp_path / "no-fonts"
    no_fonts.mkdir()
    env = {**{k: v for k, v in os.environ.items() if k != "DISPLAY"}, "OCTAVE_FONTS_DIR": str(no_fonts)}
    reason = octave_figure_missing(exe, tmp_path, env)
    if reason is None:
        pytest.skip("this Octave prints without its default font file (it does not load it from "
                    "OCTAVE_FONTS_DIR)")
    assert reason.endswith(f" (ft_manager: unable to load font: {no_fonts / 'FreeSans.otf'})"), reason
    assert "ft_text_renderer" in reason and not list(tmp_path.glob("figure_probe.png*"))
    d = tmp_path / "export"
    mat.export(build_model(PUZZLES["default"]), d)
    driver = tmp_path / "driver.m"
    driver.write_text(f"more off; sudoku_out = {_octave_string(d / 'out.csv')}; "
                      f"sudoku_figure = {_octave_string(d / 'grid.png')};\n"
                      f"run({_octave_string(d / 'solve_sudoku.m')}); printf('ALL DONE\\n');\n")
    proc = subprocess.run([exe, "--no-gui", "--quiet", "--no-window-system", str(driver)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=env)
    assert "ALL DONE" in proc.stdout, (proc.stdout + proc.stderr)[-3000:]
    assert re.findall(r"^No figure drawn: (.*)$", proc.stdout, re.M) == [_octave_error(reason)]
    assert not (d / "grid.png").exists()
    grid = np.loadtxt(d / "out.csv", delimiter=",", dtype=np.int64)
    assert verify_grid(grid, PUZZLES["default"])


@pytest.mark.interop
def test_octave_defaults_csv_fallback(octave_run):
    root, out, _ = octave_run
    assert "RESULT plain OK" in out, out[-2000:]
    grid = np.loadtxt(root / "plain-csv-only" / "sudoku.csv", delimiter=",", dtype=np.int64)
    assert verify_grid(grid, PUZZLES["default"])


@pytest.mark.interop
def test_octave_time_limit(tmp_path):
    """sudoku_time_limit (seconds) reaches glpk as tmlim: a 25x25 that glpk takes minutes over stops
    within seconds with glpk's time-limit error (9); the default puzzle solves under a limit."""
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        pytest.skip("GNU Octave not found (octave-cli/octave not on PATH): solve_sudoku.m not run")
    if not (DATA / "25x25_gecode.txt").exists():
        pytest.skip(f"data set {DATA / '25x25_gecode.txt'} not found")
    hard = parse_puzzle((DATA / "25x25_gecode.txt").read_text().splitlines()[0])
    lines = ["more off;"]
    for case, puzzle, limit in (("hard", hard, 1), ("easy", PUZZLES["default"], 60)):
        d = tmp_path / case
        mat.export(build_model(puzzle), d)
        lines += [
            f"clear sudoku_time_limit; sudoku_time_limit = {limit}; tic;",
            f"try, run({_octave_string(d / 'solve_sudoku.m')}); printf('RESULT {case} OK %.1f\\n', toc);",
            f"catch err, printf('RESULT {case} FAIL %.1f %s\\n', toc, err.message); end",
        ]
    driver = tmp_path / "driver.m"
    driver.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([exe, "--no-gui", "--quiet", "--no-window-system", str(driver)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    hard_result = re.search(r"^RESULT hard FAIL (\S+) (.*)$", proc.stdout, re.M)
    assert hard_result, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert float(hard_result.group(1)) < 30
    # GLP_ETMLIM; Octave's glpk fills status only when errnum is 0 (7.3 leaves -1)
    assert re.fullmatch(r"glpk found no solution \(error 9, status -?\d+\): it stopped on the time limit of [\d.]+ s",
                        hard_result.group(2))
    assert re.search(r"^RESULT easy OK ", proc.stdout, re.M), proc.stdout[-2000:]
    grid = np.loadtxt(tmp_path / "easy" / "sudoku.csv", delimiter=",", dtype=np.int64)
    assert verify_grid(grid, PUZZLES["default"])


MPSREAD_FIELDS = ["f", "Aineq", "bineq", "Aeq", "beq", "lb", "ub", "intcon", "solver",
                  "variableNames", "constraintNames"]  # mpsread(file, 'ReturnNames', true), options aside


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_problem_struct_is_what_mpsread_returns(tmp_path, clues):
    model = build_model(parse_puzzle("1" + "0" * 15), clues=clues)
    m, n = model.n_rows, model.n_cols
    raw = sio.loadmat(mat.write(model, tmp_path / "model.mat"))
    assert "names" not in raw  # one place for the names: problem.variableNames / constraintNames
    problem = raw["problem"][0, 0]
    assert list(problem.dtype.names) == MPSREAD_FIELDS
    assert str(problem["solver"][0]) == "intlinprog"
    for key, shape in (("Aeq", (m, n)), ("Aineq", (0, n))):
        assert sp.issparse(problem[key]) and problem[key].dtype == np.float64 and problem[key].shape == shape, key
    assert (problem["Aeq"] != model.Aeq).nnz == 0
    for key, values in (("f", model.cost), ("beq", model.beq), ("lb", model.lb), ("ub", model.ub),
                        ("intcon", np.arange(1, n + 1)), ("bineq", np.zeros(0))):
        assert problem[key].dtype == np.float64 and problem[key].shape == (values.size, 1), key  # double columns
        np.testing.assert_array_equal(problem[key].ravel(), values, err_msg=key)
    variables = problem["variableNames"]
    assert variables.dtype == object and variables.shape == (n, 1)  # a cell array, one name per column
    assert [str(v[0]) for v in variables[:, 0]] == [str(v) for v in model.col_names]
    assert all(v.dtype.kind == "U" and v.shape == (1,) for v in variables[:, 0])  # char row vectors
    names = problem["constraintNames"][0, 0]
    assert list(names.dtype.names) == ["ineqlin", "eqlin"]
    assert names["ineqlin"].shape == (0, 1) and names["eqlin"].shape == (m, 1)
    assert [str(v[0]) for v in names["eqlin"][:, 0]] == [str(v) for v in model.row_labels]


def _octave_exe():
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        pytest.skip("GNU Octave not found (octave-cli/octave not on PATH)")
    return exe


@pytest.mark.interop
def test_octave_loads_problem_as_mpsread_gives_it(tmp_path):
    """Octave's own load sees sparse double matrices, double column vectors and cellstr names."""
    model = build_model(PUZZLES["default"], "block", "C", "reduce")
    mat.write(model, tmp_path / "model.mat")
    script = tmp_path / "check.m"
    script.write_text("\n".join([
        "S = load('model.mat'); p = S.problem;",
        "printf('FIELDS %s\\n', strjoin(fieldnames(p)', ','));",
        "for k = {'f', 'Aineq', 'bineq', 'Aeq', 'beq', 'lb', 'ub', 'intcon'}",
        "  v = p.(k{1}); printf('%s %s sparse=%d %dx%d\\n', k{1}, class(v), issparse(v), rows(v), columns(v));",
        "end",
        "printf('solver %s %s\\n', class(p.solver), p.solver);",
        "printf('variableNames cellstr=%d %dx%d first=%s\\n', iscellstr(p.variableNames), size(p.variableNames), p.variableNames{1});",
        "c = p.constraintNames; printf('constraintNames %s\\n', strjoin(fieldnames(c)', ','));",
        "printf('eqlin cellstr=%d %dx%d first=%s\\n', iscellstr(c.eqlin), size(c.eqlin), c.eqlin{1});",
        "printf('ineqlin cellstr=%d %dx%d\\n', iscellstr(c.ineqlin), size(c.ineqlin));",
        "x = glpk(p.f, p.Aeq, p.beq, p.lb, p.ub, repmat('S', rows(p.Aeq), 1), repmat('I', columns(p.Aeq), 1), 1);",
        "printf('residual %g\\n', norm(p.Aeq * x - p.beq, 1));",
    ]) + "\n")
    proc = subprocess.run([_octave_exe(), "--no-gui", "--quiet", "--no-window-system", str(script)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    out = proc.stdout
    m, n = model.n_rows, model.n_cols
    assert f"FIELDS {','.join(MPSREAD_FIELDS)}" in out, out + proc.stderr[-2000:]
    for key, shape, sparse in (("Aeq", (m, n), 1), ("Aineq", (0, n), 1), ("f", (n, 1), 0), ("lb", (n, 1), 0),
                               ("ub", (n, 1), 0), ("intcon", (n, 1), 0), ("beq", (m, 1), 0), ("bineq", (0, 1), 0)):
        assert f"{key} double sparse={sparse} {shape[0]}x{shape[1]}" in out, (key, out)
    assert "solver char intlinprog" in out
    assert f"variableNames cellstr=1 {n}x1 first={model.col_names[0]}" in out
    assert "constraintNames ineqlin,eqlin" in out
    assert f"eqlin cellstr=1 {m}x1 first={model.row_labels[0]}" in out
    assert "ineqlin cellstr=1 0x1" in out
    assert "residual 0" in out


@pytest.mark.interop
def test_octave_dead_display_skips_figure_silently(tmp_path):
    """DISPLAY set but nothing to show on (ssh without X, a stale variable) and only Octave's
    gnuplot toolkit: the script solves, prints no text-art plot and no figure note."""
    model = build_model(PUZZLES["default"])
    mat.export(model, tmp_path)
    env = dict(os.environ, DISPLAY=":97")
    proc = subprocess.run([_octave_exe(), "--no-gui", "--quiet", "--eval", "run('solve_sudoku.m')"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=env)
    assert verify_grid(np.loadtxt(tmp_path / "sudoku.csv", delimiter=",", dtype=np.int64), PUZZLES["default"])
    assert "No figure drawn" not in proc.stdout and "gnuplot" not in proc.stdout + proc.stderr
    assert not re.search(r"\*\*|\+-+\+", proc.stdout), proc.stdout[-2000:]  # gnuplot's dumb-terminal art


def test_script_draws_only_with_a_display_and_never_fails():
    text = mat.render_script(build_model(PUZZLES["default"]))
    figure = text.split("% -- draw the grid", 1)[1]
    assert "feature('ShowFigureWindows')" in figure and "usejava('desktop')" in figure
    assert "isempty(getenv('DISPLAY'))" in figure
    assert figure.count("try") >= 2 and "catch err" in figure  # the whole drawing is guarded
    assert "'FontWeight', 'bold'" in figure and "'LineWidth', 2.5" in figure
    assert "units = floor(unit_r / h) * (N / w) + floor(unit_c / w);" in figure
    assert "diagonals = false;" in figure
    if "jigsaw" in PUZZLES:
        jig = mat.render_script(build_model(PUZZLES["jigsaw"]))
        regions = PUZZLES["jigsaw"].regions
        assert "units = [ ...\n      " + " ".join(map(str, regions[0])) + "; ..." in jig
    if "x" in PUZZLES:
        assert "diagonals = true;" in mat.render_script(build_model(PUZZLES["x"]))


@pytest.mark.parametrize("name,scheme,order,enc", list({(c[0], c[3]): c for c in CASES if c[3] != "bounds"}.values()))
def test_problem_bytes_are_what_savemat_writes(name, scheme, order, enc):
    """problem is laid out with NumPy (savemat writes cells one by one in Python); the bytes are
    exactly savemat's, so MATLAB, Octave and scipy read what they read from savemat."""
    import io
    struct = mat.problem_struct(build_model(PUZZLES[name], scheme, order, enc))
    reference = io.BytesIO()
    sio.savemat(reference, {"problem": struct}, format="5", do_compression=False, oned_as="column")
    assert mat._mat5_element(struct, "problem") == reference.getvalue()[128:]


@pytest.mark.parametrize("names", [[], ["x"], ["ab", "abcd", "abcde", "abcdefgh", "abcdefghi", "q" * 40]])
def test_cell_of_names_bytes_are_what_savemat_writes(names):
    import io
    cells = mat._cellstr(names)
    reference = io.BytesIO()
    sio.savemat(reference, {"v": cells}, format="5", do_compression=False, oned_as="column")
    assert mat._mat5_element(cells, "v") == reference.getvalue()[128:]


def test_segmented_shared_deflate_reads_as_savemat_writes_it(tmp_path, monkeypatch):
    """Issue 21 section 6: each variable is a zlib stream of full-flushed deflate segments, the
    large arrays deflated once and shared by the top level and problem. With segments made tiny
    (many of them, every array shared), scipy and GNU Octave read exactly what savemat's own
    file holds, and the names are the cell arrays of mpsread."""
    import io

    monkeypatch.setattr(mat5, "SEGMENT_BYTES", 256)
    model = build_model(PUZZLES["default"], "block", "C", "rows")
    path = mat.write(model, tmp_path / "model.mat")
    reference = io.BytesIO()
    arrays = mat.solver_arrays(model)
    sio.savemat(reference, {**arrays, "meta": mat._matlab_meta(model), "problem": mat.problem_struct(model, arrays)},
                format="5", do_compression=True, oned_as="column")
    reference.seek(0)
    got = sio.loadmat(path, simplify_cells=True)
    want = sio.loadmat(reference, simplify_cells=True)
    assert sorted(k for k in got if not k.startswith("__")) == sorted(k for k in want if not k.startswith("__"))
    assert (got["Aeq"] != want["Aeq"]).nnz == 0 and (got["problem"]["Aeq"] != want["problem"]["Aeq"]).nnz == 0
    for key in ("beq", "f", "lb", "ub", "intcon"):
        assert np.array_equal(got[key], want[key]) and np.array_equal(got["problem"][key], want["problem"][key])
    assert list(got["problem"]["variableNames"]) == list(model.col_names)
    assert list(got["problem"]["constraintNames"]["eqlin"]) == list(model.row_labels)
    assert mat._plain(got["meta"]) == mat._plain(want["meta"])
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        pytest.skip("GNU Octave not found: the segmented file was read by scipy only")
    script = (f"S = load({_octave_string(path)}); p = S.problem; "
              "printf('%d %d %d %d %s %s %s\\n', nnz(S.Aeq), nnz(p.Aeq), numel(p.variableNames), "
              "numel(p.constraintNames.eqlin), class(p.variableNames), p.variableNames{end}, "
              "p.constraintNames.eqlin{1});")
    done = subprocess.run([exe, "--no-gui", "--quiet", "--eval", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(model.nnz), str(model.nnz), str(model.n_cols), str(model.n_rows), "cell",
                                   str(model.col_names[-1]), str(model.row_labels[0])]


def _rewrite_variable(data: bytes, name: str, change) -> bytes:
    """``data`` (a level 5 .mat) with compressed variable ``name`` inflated, changed in place by
    ``change(bytearray)`` and compressed again."""
    import struct
    import zlib

    pos = 128
    while pos + 8 <= len(data):
        kind, nbytes = struct.unpack_from("<II", data, pos)
        body = bytearray(zlib.decompress(data[pos + 8:pos + 8 + nbytes]))
        if kind == 15 and mat5_guard._array_header(bytes(body), "<")[0] == name:
            change(body)
            packed = zlib.compress(bytes(body))
            return data[:pos] + struct.pack("<II", 15, len(packed)) + packed + data[pos + 8 + nbytes:]
        pos += 8 + nbytes
    raise AssertionError(f"no variable {name}")


def _read_in_a_child(path) -> str:
    """``read_model(path)`` in a child process (a crash there is a failed test, not a dead suite)."""
    return outcome_in_a_child("from formats import read_model; read_model(sys.argv[1])", path)


def test_a_damaged_array_in_model_mat_is_one_line_not_a_crash(tmp_path):
    """read() gave model.mat to scipy.io unchecked: one changed byte of Aeq's row indices or of an
    element's type (meta's fields too: loadmat reads the struct whole) was a segmentation fault of
    read_model and of ``check`` (exit -11), not an error line."""
    import struct

    path = mat.write(build_model(PUZZLES["default"]), tmp_path / "model.mat")
    data = path.read_bytes()

    def first_field_type(body):   # meta's first field's data element: after the field names
        names = struct.unpack_from("<I", body, 60)[0]
        struct.pack_into("<I", body, 64 + (names + 7) // 8 * 8 + 48, 77)

    for name, change, said in [
        ("Aeq", lambda body: struct.pack_into("<I", body, 56, 10 ** 6), "'Aeq' is a damaged array (a row index "
                                                                       "outside its 347 rows)"),
        ("Aeq", lambda body: struct.pack_into("<I", body, 48, 77), "'Aeq' is a damaged array (a data element of "
                                                                  "no numeric type)"),
        ("meta", first_field_type, "'meta' is a damaged array (a data element of no numeric type)"),
    ]:
        bad = tmp_path / "bad.mat"
        bad.write_bytes(_rewrite_variable(data, name, change))
        assert _read_in_a_child(bad) == f"{bad}: variable {said}: not a MAT-file saved by MATLAB or Octave?"
    assert _read_in_a_child(path) == "read"


def test_a_zlib_bomb_in_model_mat_is_refused_before_it_is_inflated(tmp_path):
    """A struct of 256 MB of zeros (256 KB compressed) beside a 9x9's model: refused while inflated
    a slice at a time (its bound: 4 times the numeric arrays before it, 64 MiB at least)."""
    import struct
    import zlib

    path = mat.write(build_model(PUZZLES["default"]), tmp_path / "model.mat")
    header = struct.pack("<IIIIIIii", 14, (256 << 20) + 40, 6, 8, 2, 0, 5, 8) + struct.pack("<ii", 1, 1) + \
        struct.pack("<HH4s", 1, 4, b"junk")
    packed = zlib.compress(header + bytes(256 << 20), 1)
    path.write_bytes(path.read_bytes() + struct.pack("<II", 15, len(packed)) + packed)
    with pytest.raises(FormatError, match=r"^.*model\.mat: variable 'junk' inflates to more than 67,108,864 "
                                          r"bytes, more than its header says it holds"):
        read_model(path)


def test_the_guard_inflates_each_variable_of_model_mat_once(tmp_path, monkeypatch):
    """The size check inflated every variable a slice at a time, then the array check inflated
    those read (Aeq, the vectors, meta) whole again: 332 MB inflated of a 100x100's 247 MB. Now
    one pass does both: no more than each variable's size and the headers peeked at."""
    import struct
    import types
    import zlib

    path = mat.write(build_model(PUZZLES["default"]), tmp_path / "model.mat")
    data, sizes, pos = path.read_bytes(), [], 128
    while pos + 8 <= len(data):
        kind, nbytes = struct.unpack_from("<II", data, pos)
        sizes.append(len(zlib.decompress(data[pos + 8:pos + 8 + nbytes])) if kind == 15 else 0)
        pos += 8 + nbytes + (0 if kind == 15 else -nbytes % 8)
    inflated = []

    class Counting:   # zlib.decompressobj whose every output is counted
        def __init__(self):
            self._inflate = zlib.decompressobj()

        def decompress(self, chunk, most=0):
            out = self._inflate.decompress(chunk, most)
            inflated.append(len(out))
            return out

        @property
        def unconsumed_tail(self):
            return self._inflate.unconsumed_tail

    monkeypatch.setattr(mat5_guard, "zlib", types.SimpleNamespace(decompressobj=Counting, error=zlib.error))
    read_model(path)
    assert sum(sizes) < sum(inflated) <= sum(sizes) + 1024 * len(sizes)


def test_a_bomb_after_a_damaged_array_is_refused_for_its_size(tmp_path):
    """Sizes come first, as when the two checks walked the file one after the other: a damaged
    Aeq and a zlib bomb after it are refused for the bomb."""
    import struct
    import zlib

    path = mat.write(build_model(PUZZLES["default"]), tmp_path / "model.mat")
    bad = _rewrite_variable(path.read_bytes(), "Aeq", lambda body: struct.pack_into("<I", body, 56, 10 ** 6))
    header = struct.pack("<IIIIIIii", 14, (256 << 20) + 40, 6, 8, 2, 0, 5, 8) + struct.pack("<ii", 1, 1) + \
        struct.pack("<HH4s", 1, 4, b"junk")
    packed = zlib.compress(header + bytes(256 << 20), 1)
    path.write_bytes(bad + struct.pack("<II", 15, len(packed)) + packed)
    with pytest.raises(FormatError, match=r"variable 'junk' inflates to more than 67,108,864 bytes"):
        read_model(path)


@pytest.mark.parametrize("value", [0, -1, 65, 1e19, 1e308, -1e308, 2.0**63])
def test_an_intcon_index_outside_the_columns_is_named_without_a_warning(tmp_path, value):
    # 1e308 or 2**63 was cast to int64 before the range check: 'invalid value encountered in
    # cast' on stderr beside the error; now held against 1..n as read, and the element named
    path = write_model(build_model(parse_puzzle("1...........3...", box="2x2")), tmp_path / "m.mat")
    raw = {k: v for k, v in sio.loadmat(path).items() if not k.startswith("__")}
    raw["intcon"] = raw["intcon"].astype(float)
    raw["intcon"][2, 0] = value
    sio.savemat(path, raw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FormatError) as caught:
            read_model(path)
    assert str(caught.value) == f"{path}: intcon(3) is {value:.15g}: an index outside 1..64"


@pytest.mark.parametrize("puzzle, box", [("12........3...4.", "2x2"),   # cell (1,3) can hold neither 3 nor 4
                                         ("050079200000000500092000060080000407020600010070250080000040000008020000730001000",
                                          None)])
@pytest.mark.interop
def test_octave_says_an_infeasible_puzzle_has_no_solution(tmp_path, puzzle, box):
    """The script said only 'glpk found no solution (error 10, status -1)' of a puzzle without a
    solution: a MATLAB/Octave user reads that line, so it says infeasible in words too (the prefix
    that ``solve --solver octave`` parses is kept)."""
    exe = _octave_exe()
    mat.export(build_model(parse_puzzle(puzzle, box=box)), tmp_path)
    proc = subprocess.run([exe, "--no-gui", "--quiet", "--no-window-system", "--eval", "run('solve_sudoku.m')"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert re.search(r"glpk found no solution \(error -?\d+, status -?\d+\): the puzzle has no solution "
                     r"\(infeasible\)", proc.stderr), proc.stderr[-2000:]
    assert not (tmp_path / "sudoku.csv").exists()
