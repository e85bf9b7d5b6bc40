"""Run tests/solvers/test_external.py and print the interop matrix as a markdown table.

    python tests/solvers/interop_matrix.py [extra pytest arguments, e.g. -k default]

Rows are file formats (MPS free, MPS fixed, LP, .mat, CSV), columns solvers (HiGHS, SCIP, CBC,
GLPK, Octave); a cell counts the solution files imported back and verified, over every puzzle
and convention the run covered: ``ok (N/N)``, or the passed count with each failure's reason,
``n/a`` where the solver does not read that format, ``skipped: reason`` where it is not
installed. CBC cells split Debian's binary and PuLP's; GLPK cells split ``-w`` (raw) and ``-o``
(report). A cell also says whether the CLI import of that path was tested and passed. The last
rows give ``python -m pipeline solve --solver S``: solved puzzles, then infeasible puzzles and a
``--time-limit`` too short (exit 1 'no solution', or a right grid in time, is ok). Notes under the table give the reasons in
full, the per-puzzle counts and the run time. The exit code is pytest's.
"""
from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from interop_helpers import CELLS, FORMAT_ROWS, SOLVER_COLS  # noqa: E402

CLI_SOLVE_ROW = "`solve --solver` (CLI)"
CLI_NOSOL_ROW = "`solve`: infeasible, `--time-limit` (CLI)"
FLAVOUR_LABEL = {"debian": "Debian", "pulp": "PuLP", "raw": "-w", "report": "-o", "": "",
                 "style0": "style 0", "positional": "styles -1/2", "infeasible": "infeasible", "time": "time limit"}


class MatrixPlugin:
    def __init__(self):
        # (row, column) -> list of (flavour, outcome, reason, test id)
        self.cells: dict[tuple[str, str], list] = defaultdict(list)
        self.cli_import: dict[tuple[str, str], list] = defaultdict(list)
        self.by_puzzle: dict[str, list] = defaultdict(list)
        self._seen: set[str] = set()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        rep = outcome.get_result()
        if item.nodeid in self._seen:
            return
        final = rep.when == "call" or (rep.when == "setup" and not rep.passed)
        if not final:
            return
        self._seen.add(item.nodeid)
        if hasattr(rep, "wasxfail"):
            result, reason = "xfail", rep.wasxfail
        elif rep.skipped:
            result = "skipped"
            reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
            reason = reason.removeprefix("Skipped: ")
        elif rep.passed:
            result, reason = "passed", ""
        else:
            result = "failed"
            crash = getattr(rep.longrepr, "reprcrash", None)
            reason = (crash.message if crash else str(rep.longrepr)).strip().splitlines()[0][:160]
        params = getattr(getattr(item, "callspec", None), "params", {})
        name = item.originalname
        if name in ("test_solver_file_imports", "test_octave_script"):
            path = params["path"]
            flavour = "style0" if path.solver == "HiGHS" else path.flavour
            self.cells[(path.fmt, path.solver)].append((flavour, result, reason, item.nodeid))
            case = item.callspec.id.split("-")[0]
            self.by_puzzle[case].append(result)
        elif name == "test_highs_positional_styles":
            self.cells[(params["fmt"], "HiGHS")].append(("positional", result, reason, item.nodeid))
        elif name == "test_cli_import":
            path = params["path"]
            self.cli_import[(path.fmt, path.solver)].append((path.flavour, result, reason, item.nodeid))
        elif name in ("test_cli_solve", "test_cli_solve_infeasible", "test_cli_solve_time_limit"):
            col = {"highs": "HiGHS", "scip": "SCIP", "cbc": "CBC", "glpk": "GLPK", "octave": "Octave"}.get(params["solver"])
            if col is None:  # the SAT/PB and CP-SAT entries: tests/solvers/test_sat_external.py's table
                return
            row = CLI_SOLVE_ROW if name == "test_cli_solve" else CLI_NOSOL_ROW
            flavour = {"test_cli_solve": "", "test_cli_solve_infeasible": "infeasible",
                       "test_cli_solve_time_limit": "time"}[name]
            self.cells[(row, col)].append((flavour, result, reason, item.nodeid))


def _counts(entries, notes: dict) -> str:
    """One flavour's entries -> 'ok (N/N)' or '3/5 ok, 2 known bug [1]'; reasons go to ``notes``."""
    total = len(entries)
    ran = [e for e in entries if e[1] != "skipped"]
    passed = sum(e[1] == "passed" for e in ran)
    if not ran:
        return f"skipped: {entries[0][2]}" if entries else "not run"
    if passed == len(ran):
        return f"ok ({passed}/{len(ran)})" + (f", {total - len(ran)} skipped" if total > len(ran) else "")
    parts = [f"{passed}/{len(ran)} ok"]
    for kind, word in (("xfail", "known bug"), ("failed", "FAIL")):
        bad = [e for e in ran if e[1] == kind]
        if bad:
            marks = []
            for reason in sorted({e[2] for e in bad}):
                notes.setdefault(reason, len(notes) + 1)
                marks.append(f"[{notes[reason]}]")
            parts.append(f"{len(bad)} {word} " + "".join(marks))
    return ", ".join(parts)


def cell_text(entries, cli, notes: dict) -> str:
    flavours = list(dict.fromkeys(e[0] for e in entries))
    if len(flavours) == 1 and flavours[0] in ("", "style0"):
        text = _counts(entries, notes)
    else:
        text = "; ".join(f"{FLAVOUR_LABEL[f]}: {_counts([e for e in entries if e[0] == f], notes)}"
                         for f in flavours)
    if cli:
        ok = all(e[1] == "passed" for e in cli)
        which = ", ".join(sorted({FLAVOUR_LABEL[e[0]] or "" for e in cli} - {""}))
        text += "; CLI import " + ("ok" if ok else _counts(cli, notes)) + (f" ({which})" if which else "")
    return text.replace("|", "\\|")


def render(plugin: MatrixPlugin, seconds: float) -> str:
    notes: dict[str, int] = {}
    lines = ["| file format | " + " | ".join(SOLVER_COLS) + " |",
             "|---|" + "---|" * len(SOLVER_COLS)]
    for row in (*FORMAT_ROWS, CLI_SOLVE_ROW, CLI_NOSOL_ROW):
        cells = []
        for col in SOLVER_COLS:
            entries = plugin.cells.get((row, col), [])
            if row in FORMAT_ROWS and (row, col) not in CELLS:
                cells.append("n/a")
            elif not entries:
                cells.append("not run")
            else:
                cells.append(cell_text(entries, plugin.cli_import.get((row, col), []), notes))
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    lines.append("")
    for reason, k in notes.items():
        lines.append(f"[{k}] {reason}")
    lines.append("")
    per = "; ".join(f"{p}: {sum(r == 'passed' for r in rs)} passed, {sum(r == 'xfail' for r in rs)} xfail, "
                    f"{sum(r == 'failed' for r in rs)} failed, {sum(r == 'skipped' for r in rs)} skipped"
                    for p, rs in plugin.by_puzzle.items())
    lines.append(f"Per puzzle (solver file imports): {per}.")
    lines.append(f"Run time: {seconds:.0f} s (pytest tests/solvers/test_external.py).")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    plugin = MatrixPlugin()
    start = time.perf_counter()
    code = pytest.main([str(HERE / "test_external.py"), "-q", "-p", "no:cacheprovider", *argv], plugins=[plugin])
    seconds = time.perf_counter() - start
    print()
    print(render(plugin, seconds))
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
