"""solve_sudoku.m on the models issue 33 added (GNU Octave's glpk, skipped without it): rules with
auxiliary columns after the N^3 cell block (the script reshaped every column into the grid and
failed), a 6x6 of the values 0..8 (6 x 6 x 9 variables) and a 6x9 rectangle. The CSV it writes is
imported with the export's manifest and verified against the puzzle."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle

from formats.directory import export_model

SKYSCRAPER = {"size": 4, "box": "2x2", "givens": "1...............",
              "rules": [{"rule": "skyscraper", "clue": "r0c1", "count": 2},
                        {"rule": "skyscraper", "clue": "r1c0", "count": 3}]}
MORE_VALUES = ".Shape~6x6~0-8.~R1C1_0~R1C2_8~R2C1_3~R3C3_5"
CASES = {"aux": (SKYSCRAPER, "rows", "ijk", "F"), "aux-reduce": (SKYSCRAPER, "reduce", "ijk", "F"),
         "more-values": (MORE_VALUES, "rows", "ijk", "F"),
         # the block tuples run over (N/h, N/w, h, w, V): the script once reshaped them as ijk and
         # wrote a grid that broke the rules (or stopped on a clue it contradicted)
         "more-values-block-F": (MORE_VALUES, "rows", "block", "F"),
         "more-values-block-C-reduce": (MORE_VALUES, "reduce", "block", "C"),
         "more-values-block-4x4": ({"size": 4, "values": "0-4", "givens": "0" + "." * 15}, "bounds", "block", "F"),
         "rectangle": (".Shape~6x9.~R1C1_1~R2C5_3", "rows", "ijk", "F")}


@pytest.fixture(scope="module")
def octave_answers(tmp_path_factory):
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        pytest.skip("GNU Octave not found (octave-cli/octave not on PATH): solve_sudoku.m not run")
    root = tmp_path_factory.mktemp("octave-wide")
    lines = ["more off; sudoku_draw = false;"]
    for case, (source, clues, scheme, order) in CASES.items():
        model = build_model(parse_puzzle(source), scheme, order, clues)
        export_model(model, root / case, ["matlab", "csv"])
        lines += [f"try, run('{root / case / 'solve_sudoku.m'}'); printf('RESULT {case} OK\\n');",
                  f"catch err, printf('RESULT {case} FAIL %s\\n', err.message); end"]
    (root / "driver.m").write_text("\n".join(lines + ["printf('ALL DONE\\n');"]) + "\n")
    done = subprocess.run([exe, "--no-gui", "--quiet", "--no-window-system", str(root / "driver.m")], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert "ALL DONE" in done.stdout, (done.stdout + done.stderr)[-3000:]
    return root, done.stdout


@pytest.mark.interop
@pytest.mark.parametrize("case", list(CASES))
def test_the_script_solves_and_its_csv_imports_as_a_verified_grid(octave_answers, case):
    import sys

    root, out = octave_answers
    assert f"RESULT {case} OK" in out, out[-2000:]
    imported = subprocess.run([sys.executable, "-m", "pipeline", "import", str(root / case / "sudoku.csv"),
                               "--manifest", str(root / case / "manifest.json")], capture_output=True, text=True,
                              timeout=120)
    assert imported.returncode == 0, imported.stderr
    assert "ok: valid" in imported.stdout + imported.stderr
