"""Fuzz every registered solution reader (issue 11, item 7): damaged copies of real solution files
and random text must give a one-line FormatError or a valid 0/1 answer -- never another exception
(IndexError, ValueError, RecursionError, XML errors ...) and never a numpy warning.

Seeds are real files of one small export (HiGHS in-process in all its styles, glpsol and CBC when
installed, SCIP through pyscipopt when installed) plus the documented layouts of solvers that are
not installable here. The budget is fixed (``MAX_EXAMPLES`` per reader, derandomised), so the
suite runs the same cases every time.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.mps import write as write_mps
from formats.solutions import SOLUTION_FORMATS, SolutionVector, read_solution
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import manifest_from_dict, model_metadata
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers.highs import new_highs

MAX_EXAMPLES = 100
FUZZ = settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# tokens that broke readers before (issue 11 item 7) or sit at the edge of number parsing
NASTY = ["", "abc", "inf", "-inf", "nan", "1e400", "9" * 30, "-1", "0.5", "2", "x_0_0_0", "x_9_9_9", "C99999999",
         "\ufeff", "objectiveValue=\"abc\"", "Columns:", "# Columns", "s", "j", "=obj=", "<", "&", "\x00", "-"]


# the seed files' directory, made on first use and removed when the module's tests end on this
# worker (removal at the process's exit did not happen under xdist: a fuzz_solutions_* directory
# was left in the temporary directory by each suite run)
_SCRATCH: list[tempfile.TemporaryDirectory] = []


def _scratch() -> Path:
    if not _SCRATCH:
        _SCRATCH.append(tempfile.TemporaryDirectory(prefix="fuzz_solutions_"))
    return Path(_SCRATCH[0].name)


@pytest.fixture(scope="module", autouse=True)
def _remove_scratch():
    yield
    fixture_files.cache_clear()
    while _SCRATCH:
        _SCRATCH.pop().cleanup()


@lru_cache(maxsize=1)
def fixture_files() -> tuple[Path, object, dict[str, str]]:
    """(work directory, manifest, {format name: seed text}) for a 4x4 reduce export."""
    work = _scratch()
    puzzle = parse_puzzle("1...........3...", box="2x2")
    model = build_model(puzzle, "block", "C", "reduce")
    manifest = manifest_from_dict(model_metadata(model))
    mps = work / "model.mps"
    write_mps(model, mps, style="free")
    seeds: dict[str, str] = {}
    h = new_highs()
    h.setOptionValue("threads", 1)
    h.readModel(str(mps))
    h.run()
    for style, name in [(0, "highs_raw"), (4, "highs_sparse"), (1, "highs_pretty"), (-1, "highs_old_raw"),
                        (2, "glpk_raw"), (3, "glpk_report")]:
        out = work / f"highs_{style}.sol"
        h.writeSolution(str(out), style)
        seeds[f"{name}:highs"] = out.read_text()
    x = np.rint(h.getSolution().col_value)
    names = [str(n) for n in model.col_names]
    glpsol, cbc = shutil.which("glpsol"), shutil.which("cbc")
    if glpsol:
        subprocess.run([glpsol, "--freemps", mps, "-w", "g.raw", "-o", "g.rep"], cwd=work, capture_output=True,
                       timeout=60)
        seeds["glpk_raw"] = (work / "g.raw").read_text()
        seeds["glpk_report"] = (work / "g.rep").read_text()
    if cbc:
        subprocess.run([cbc, mps, "solve", "solu", "c.txt"], cwd=work, capture_output=True, timeout=60)
        seeds["cbc"] = (work / "c.txt").read_text()
        subprocess.run([cbc, mps, "solve", "printingOptions", "csv", "solu", "c.csv"], cwd=work,
                       capture_output=True, timeout=60)
        seeds["cbc_csv"] = (work / "c.csv").read_text()
    else:
        seeds["cbc"] = "Optimal - objective value 0.00000000\n" + "".join(
            f"{j:7d} {n:<20} {x[j]:g} 0\n" for j, n in enumerate(names))
        seeds["cbc_csv"] = "name,solution\n" + "".join(f"{n},{x[j]:g}\n" for j, n in enumerate(names))
    seeds["scip"] = "solution status: optimal solution found\nobjective value: 0\n" + "".join(
        f"{n} {x[j]:g} \t(obj:0)\n" for j, n in enumerate(names) if x[j])
    seeds["miplib"] = "=obj= 0\n" + "".join(f"{n} {x[j]:g}\n" for j, n in enumerate(names) if x[j])
    seeds["gurobi"] = "# Solution for model m\n# Objective value = 0\n" + "".join(
        f"{n} {x[j]:g}\n" for j, n in enumerate(names))
    variables = "".join(f'  <variable name="{n}" index="{j}" value="{x[j]:g}"/>\n' for j, n in enumerate(names))
    seeds["cplex_xml"] = ('<?xml version="1.0"?>\n<CPLEXSolution version="1.2">\n <header objectiveValue="0" '
                          'solutionStatusValue="101" solutionStatusString="integer optimal solution" '
                          f'writeLevel="1"/>\n <variables>\n{variables} </variables>\n</CPLEXSolution>\n')
    seeds["xpress_slx"] = "NAME sol\n" + "".join(f" C      {n:<20} {x[j]:g}\n" for j, n in enumerate(names)) + "ENDATA\n"
    grid = "\n".join(",".join(str(d) for d in row) for row in np.arange(16).reshape(4, 4) % 4 + 1) + "\n"
    seeds["matlab_grid"] = grid
    seeds["matlab_text"] = "[" + ";".join(" ".join(str(d) for d in row) for row in np.arange(16).reshape(4, 4) % 4 + 1) + "]\n"
    seeds["matlab_text:x"] = "x = [" + "; ".join(f"{v:g}" for v in x) + "];\n"
    seeds["matlab_text:display"] = "S =\n\n" + "".join(
        "".join(f"{d:4d}" for d in row) + "\n" for row in np.arange(16).reshape(4, 4) % 4 + 1) + "\n"
    seeds["vector"] = "\n".join(f"{v:g}" for v in x) + "\n"
    seeds["octave_text"] = (f"# Created by Octave 7.3.0\n# name: x\n# type: matrix\n# rows: {x.size}\n# columns: 1\n"
                            + "".join(f" {v:g}\n" for v in x) + "\n\n")
    full = np.zeros(manifest.convention.n_vars)
    full[manifest.columns] = x
    literals = " ".join(str((k + 1) * (1 if full[k] else -1)) for k in range(full.size))
    seeds["sat_competition"] = f"c cadical\ns SATISFIABLE\nv {literals} 0\n"
    seeds["minisat"] = f"SAT\n{literals} 0\n"
    seeds["scip_numbered"] = "solution status: optimal solution found\nobjective value: 0\n" + "".join(
        f"x{k + 1} 1 \t(obj:0)\n" for k in np.flatnonzero(full))
    missing = set(SOLUTION_FORMATS) - {name.split(":")[0] for name in seeds}
    assert not missing, f"fuzz seeds missing for registered readers: {sorted(missing)}"
    return work, manifest, seeds


def check(text: str, fmt: str | None, name: str) -> None:
    """Read ``text`` as a solution file: a FormatError or a 0/1 vector, nothing else."""
    work, manifest, _ = fixture_files()
    path = work / f"case_{name.replace(':', '_')}.sol"
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning before the error is a defect too
        try:
            sol = read_solution(path, manifest, format=fmt)
        except FormatError as e:
            message = str(e)
            assert message and "\n" not in message.strip(), repr(message)
            return
    assert isinstance(sol, SolutionVector)
    assert set(np.unique(sol.values)) <= {0.0, 1.0}
    assert sol.values.shape == (manifest.convention.n_vars,)


@st.composite
def damaged(draw, seed: str) -> str:
    lines = seed.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["drop", "cut", "token", "insert", "dup", "head", "truncate"]))
        if not lines:
            lines = [draw(st.text(max_size=40))]
        i = draw(st.integers(0, len(lines) - 1))
        if op == "drop":
            del lines[i]
        elif op == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif op == "token":
            tokens = lines[i].split(" ")
            k = draw(st.integers(0, len(tokens) - 1))
            tokens[k] = draw(st.sampled_from(NASTY) | st.text(max_size=8))
            lines[i] = " ".join(tokens)
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(NASTY) | st.text(max_size=30)) + "\n")
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "head":
            lines.insert(0, draw(st.sampled_from(["\ufeff", "\n", "\r\n", " \n"])))
        else:
            lines = lines[: i + 1]
    return "".join(lines)


SEED_NAMES = sorted(fixture_files()[2])


@pytest.mark.parametrize("seed_name", SEED_NAMES)
def test_undamaged_seed_reads(seed_name):
    """The seeds themselves are valid files (else the fuzz below would test only error paths)."""
    work, manifest, seeds = fixture_files()
    path = work / f"seed_{seed_name.replace(':', '_')}.sol"
    path.write_text(seeds[seed_name])
    sol = read_solution(path, manifest)
    assert sol.format == seed_name.split(":")[0]


@pytest.mark.parametrize("seed_name", SEED_NAMES)
def test_damaged_files_give_format_error_or_answer(seed_name):
    seed = fixture_files()[2][seed_name]

    @FUZZ
    @given(text=damaged(seed), forced=st.booleans())
    def run(text, forced):
        check(text, seed_name.split(":")[0] if forced else None, seed_name)

    run()


@pytest.mark.parametrize("fmt", sorted(SOLUTION_FORMATS))
def test_random_text_gives_format_error_or_answer(fmt):
    @FUZZ
    @given(text=st.text(max_size=300) | st.lists(st.sampled_from(NASTY), max_size=30).map(" \n".join))
    def run(text):
        check(text, fmt, f"random_{fmt}")

    run()


# -- issue 21: a repeated or extra line is refused, never read as another answer -----------------
def _same_answer_or_refused(text: str, seed_name: str) -> None:
    """``text`` (a seed with one line repeated or added) reads as the seed's own answer or is
    refused with one line naming the file and the line; anything else (a CBC file whose repeated
    index made the reader drop the real columns: an empty grid) is a defect."""
    work, manifest, seeds = fixture_files()
    fmt = seed_name.split(":")[0]
    want = work / f"want_{seed_name.replace(':', '_')}.sol"
    want.write_text(seeds[seed_name])
    expected = read_solution(want, manifest, format=fmt).values
    path = work / f"again_{seed_name.replace(':', '_')}.sol"
    path.write_text(text)
    try:
        got = read_solution(path, manifest, format=fmt)
    except FormatError as e:
        message = str(e)
        assert message.startswith(str(path)) and "\n" not in message.strip(), repr(message)
        return
    np.testing.assert_array_equal(got.values, expected, err_msg=f"{seed_name}: a changed answer was accepted")


def _data_lines(seed: str) -> list[int]:
    return [i for i, line in enumerate(seed.splitlines(keepends=True)) if any(ch.isdigit() for ch in line)]


@pytest.mark.parametrize("seed_name", SEED_NAMES)
def test_repeated_line_is_refused_or_harmless(seed_name):
    seed = fixture_files()[2][seed_name]
    lines = seed.splitlines(keepends=True)
    data = _data_lines(seed)

    @FUZZ
    @given(src=st.sampled_from(data), dst=st.integers(0, len(lines)), value=st.sampled_from(["", "0", "1"]))
    def run(src, dst, value):
        line = lines[src]
        if value:                       # the repeated entry may carry another value
            parts = line.rstrip("\n").split(" ")
            numeric = [k for k, p in enumerate(parts) if p.strip().lstrip("-").replace(".", "", 1).isdigit()]
            if numeric:
                parts[numeric[-1] if len(numeric) < 3 else numeric[1]] = value
            line = " ".join(parts) + "\n"
        text = "".join(lines[:dst] + [line if line.endswith("\n") else line + "\n"] + lines[dst:])
        _same_answer_or_refused(text, seed_name)

    run()


def test_cbc_repeated_index_at_the_end_names_the_line():
    """The issue's case: ``2 x_3_1_1 0`` after the real entries was taken for a columns section."""
    work, manifest, seeds = fixture_files()
    lines = seeds["cbc"].splitlines(keepends=True)
    entry = next(line for line in lines[2:] if line.split() and line.split()[0].isdigit())
    text = "".join(lines) + entry
    path = work / "cbc_repeated.txt"
    path.write_text(text)
    with pytest.raises(FormatError, match=rf"^{path}: line {len(lines) + 1}: "):
        read_solution(path, manifest)


def test_highs_extra_column_line_names_the_line():
    work, manifest, seeds = fixture_files()
    lines = seeds["highs_raw:highs"].splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith("# Columns"))
    count = int(lines[k].split()[2])
    text = "".join(lines[:k + 1 + count] + [lines[k + 1]] + lines[k + 1 + count:])
    path = work / "highs_extra.sol"
    path.write_text(text)
    with pytest.raises(FormatError, match=rf"^{path}: line {k + count + 2}: a column line after the {count} "):
        read_solution(path, manifest)


# -- MAT-files: binary, so damaged as bytes ------------------------------------------------------
@lru_cache(maxsize=1)
def mat_seeds() -> dict[str, bytes]:
    """The fixture's answer saved as MATLAB does (v5, compressed as v7 or not), as x and as a grid."""
    import io

    from scipy.io import savemat

    work, manifest, seeds = fixture_files()
    x = np.array([float(v) for v in seeds["vector"].split()])
    grid = np.array([[int(v) for v in row.split(",")] for row in seeds["matlab_grid"].split()])
    files = {}
    for name, variables in (("x", {"x": x.reshape(-1, 1)}), ("grid", {"grid": grid, "note": "a string"})):
        for level, compressed in (("4", False), ("5", False), ("5", True)):
            if level == "4" and name == "grid":
                continue   # level 4 holds no text variable
            out = io.BytesIO()
            savemat(out, variables, do_compression=compressed, format=level)
            files[f"{name}:{'v7' if compressed else 'v' + level}"] = out.getvalue()
    return files


@pytest.mark.parametrize("seed_name", sorted(mat_seeds()))
def test_damaged_mat_files_give_format_error_or_answer(seed_name):
    work, manifest, _ = fixture_files()
    seed = mat_seeds()[seed_name]
    path = work / f"seed_{seed_name.replace(':', '_')}.mat"
    path.write_bytes(seed)
    assert read_solution(path, manifest).format == "mat"   # the seed itself reads

    @FUZZ
    @given(at=st.integers(0, len(seed) - 1), patch=st.binary(min_size=1, max_size=8), cut=st.booleans())
    def run(at, patch, cut):
        data = seed[:at] if cut else seed[:at] + patch + seed[at + len(patch):]
        case = work / f"case_{seed_name.replace(':', '_')}.mat"
        case.write_bytes(data)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                sol = read_solution(case, manifest)
            except FormatError as e:
                assert str(e) and "\n" not in str(e).strip(), repr(str(e))
                return
        assert set(np.unique(sol.values)) <= {0.0, 1.0}

    run()
