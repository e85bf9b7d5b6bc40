"""ISS's published entries against the project, one entry at a time, in the same run (issue 34's
published-killer target: ISS's 14 MATHEMAGIC killers, each within ISS's time)::

    ISS_DIR=../iss python bench/iss_side_by_side.py                      # the MATHEMAGIC killers
    ISS_DIR=../iss python bench/iss_side_by_side.py --only 'Hailstone|LITTLE_KILLER_SNIPES'
    python bench/iss_side_by_side.py --rounds 3 --time-limit 30          # without ISS: ours alone

For each entry of ``../shared/data/iss/collections.jsonl`` (else the clone's vendored copy,
``tests/data/iss/collections.jsonl``) whose name matches ``--only``:

* **ISS**: its ``SimpleSolver`` counts the entry to 2 in one node process (after one unmeasured
  call), the solver call alone: no process start, no reading; with its guesses and values tried;
* **the project**: a whole ``python -m pipeline solve ENTRY.iss --format json`` process (the
  default ``auto`` and its uniqueness proof; start-up, reading, the model and the check all
  included), its wall seconds, the engine that answered and its own ``seconds`` (the proof included; its
  ``proof_seconds`` in the JSON); the answer must
  be verified against the rules, proved unique, and the published solution where there is one.

``--rounds`` alternates the two passes (ISS, ours, ISS, ours, ...) and keeps each side's median,
so a slower minute of the shared machine falls on both. An entry is **within** when the
project's whole process took no longer than ISS's solver call. Without ``ISS_DIR`` (or node)
the project's side runs alone and the table says why ISS was skipped. Prints a table and writes
``<results-dir>/iss_side_by_side.json``. ISS is never a dependency.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.iss_collection import collection_file  # noqa: E402
from bench.measure import installed_env, results_dir, write_result  # noqa: E402

#: ISS's published puzzles: ``../shared``'s beside the project, else the copy vendored in tests/data
ISS_COLLECTION = collection_file(ROOT)
#: issue 34: "ISS's Mathemagic killer collection ... Target: all 14, each within ISS's time"
DEFAULT_ONLY = r"^MATHEMAGIC_KILLERS#"

#: Counts every input line to 2 (one unmeasured call on the first line first), one JSON line each.
ISS_RUNNER = r"""
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [dir, inputsFile] = process.argv.slice(2);
const env = await import(pathToFileURL(`${dir}/tests/helpers/test_env.js`).href);
env.ensureGlobalEnvironment();
const { SimpleSolver } = await import(pathToFileURL(`${dir}/js/sandbox/simple_solver.js`).href);
const solver = new SimpleSolver();
const inputs = readFileSync(inputsFile, 'utf8').split('\n').filter(Boolean);
[...solver.solutions(inputs[0], 2)];
for (const input of inputs) {
  const started = performance.now();
  const count = [...solver.solutions(input, 2)].length;
  const ms = performance.now() - started;
  const stats = solver.latestStats();
  console.log(JSON.stringify({ count, ms, guesses: stats.guesses, values: stats.valuesTried }));
}
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_entries(only: str) -> list[dict]:
    """The collection's entries whose name matches ``only`` (a regular expression), in file order."""
    pattern = re.compile(only)
    entries = [json.loads(line) for line in ISS_COLLECTION.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [entry for entry in entries if pattern.search(entry["name"])]


def iss_problem() -> str | None:
    """Why ISS cannot run here (None: it can)."""
    where = os.environ.get("ISS_DIR")
    if not where:
        return "ISS_DIR is not set"
    if not (Path(where) / "js" / "sandbox" / "simple_solver.js").is_file():
        return f"ISS_DIR={where} has no js/sandbox/simple_solver.js"
    return "node is not on PATH" if shutil.which("node") is None else None


def iss_pass(entries: list[dict]) -> list[dict]:
    """ISS on every entry in one node process: per entry its count (to 2), milliseconds, guesses."""
    with tempfile.TemporaryDirectory() as tmp:
        inputs, runner = Path(tmp) / "inputs.txt", Path(tmp) / "runner.mjs"
        inputs.write_text("".join(entry["input"] + "\n" for entry in entries), encoding="utf-8")
        runner.write_text(ISS_RUNNER)
        proc = subprocess.run([shutil.which("node") or "node", str(runner), os.environ["ISS_DIR"], str(inputs)],
                              capture_output=True, text=True)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or len(lines) != len(entries):
        raise SystemExit(f"ISS failed: {proc.stderr.strip()[-300:]}")
    return lines


def _as_iss(line: str, solution: str) -> str:
    """Our answer's ``line`` as ISS writes ``solution``: where a value has two digits (a 16x16's
    1..16, written ``1-9A-G`` by the project) ISS writes every cell as a letter, ``A`` for 1."""
    if not solution or solution.isdigit() or not line.isalnum():
        return line
    return "".join(chr(64 + (int(ch) if ch.isdigit() else ord(ch.upper()) - 55)) for ch in line)


def our_pass(entries: list[dict], time_limit: float) -> list[dict]:
    """``python -m pipeline solve ENTRY.iss --format json`` per entry: wall seconds, the engine, its
    seconds, and whether the grid is the published solution and proved unique."""
    env = installed_env()
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, entry in enumerate(entries):
            path = Path(tmp) / f"entry{k}.iss"
            path.write_text(entry["input"] + "\n", encoding="utf-8")
            args = [sys.executable, "-m", "pipeline", "solve", str(path), "--format", "json",
                    "--time-limit", f"{time_limit:g}"]
            started = time.perf_counter()
            proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env)
            wall = time.perf_counter() - started
            answer = json.loads(proc.stdout) if proc.stdout.startswith("{") else {}
            line = answer.get("line")
            found.append({"wall_s": wall, "exit": proc.returncode, "solver": answer.get("solver"),
                          "engine_s": answer.get("seconds"),
                          "proof_s": answer.get("proof_seconds"), "status": answer.get("status"),
                          "unique": answer.get("unique"),
                          # ISS's entries without a published solution are judged by the rules alone
                          "right": bool(line) and answer.get("verified") is True and answer.get("unique") is True
                          and _as_iss(line, entry.get("solution") or "") == (entry.get("solution") or line)})
            log(f"  {entry['name']}: {wall:.2f} s ({answer.get('solver')}, {answer.get('status')})")
    return found


def run(entries: list[dict], rounds: int, time_limit: float) -> dict:
    """Both sides ``rounds`` times, alternated; per entry each side's median (module docstring).

    Parameters
    ----------
    entries : list of dict
        The collection's entries (``name``, ``input``, ``solution``).
    rounds : int
        Passes of each side.
    time_limit : float
        ``--time-limit`` of each ``solve`` process.

    Returns
    -------
    dict
    """
    problem = iss_problem()
    iss_runs: list[list[dict]] = []
    our_runs: list[list[dict]] = []
    for round_ in range(rounds):
        if problem is None:
            log(f"ISS side by side: ISS, round {round_ + 1} of {rounds} ...")
            iss_runs.append(iss_pass(entries))
        log(f"ISS side by side: the project, round {round_ + 1} of {rounds} ...")
        our_runs.append(our_pass(entries, time_limit))
    rows = []
    for k, entry in enumerate(entries):
        ours = [run_[k] for run_ in our_runs]
        row = {"name": entry["name"], "ours_s": statistics.median(r["wall_s"] for r in ours),
               "ours_runs_s": [r["wall_s"] for r in ours], "solver": ours[-1]["solver"],
               "engine_s": ours[-1]["engine_s"], "right": all(r["right"] for r in ours)}
        if iss_runs:
            iss = [run_[k] for run_ in iss_runs]
            row.update(iss_s=statistics.median(r["ms"] for r in iss) / 1e3, iss_runs_s=[r["ms"] / 1e3 for r in iss],
                       iss_guesses=iss[-1]["guesses"], iss_values=iss[-1]["values"],
                       iss_unique=all(r["count"] == 1 for r in iss))
            row["within"] = row["right"] and row["ours_s"] <= row["iss_s"]
        rows.append(row)
    return {"machine": platform.platform(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "rounds": rounds, "time_limit_s": time_limit, "iss": "ran" if problem is None else f"skipped: {problem}",
            "entries": rows}


def print_table(results: dict) -> None:
    """One line per entry, then how many are within ISS's time."""
    rows = results["entries"]
    ran = results["iss"] == "ran"
    print(f"\nISS's entries side by side ({results['when']}, {results['rounds']} round(s), medians; "
          f"ISS {results['iss']})")
    print(f"{'entry':28s} {'ISS s':>7s} {'guesses':>8s} {'ours s':>7s} {'engine':>9s} {'engine s':>9s} "
          f"{'ratio':>6s}  right  within")
    for row in rows:
        iss = f"{row['iss_s']:7.2f} {row['iss_guesses']:8d}" if ran else f"{'-':>7s} {'-':>8s}"
        ratio = f"{row['ours_s'] / row['iss_s']:5.2f}x" if ran else f"{'-':>6s}"
        engine_s = f"{row['engine_s']:9.2f}" if isinstance(row["engine_s"], (int, float)) else f"{'-':>9s}"
        print(f"{row['name'][:28]:28s} {iss} {row['ours_s']:7.2f} {str(row['solver']):>9s} {engine_s} {ratio}  "
              f"{'yes' if row['right'] else 'NO':5s}  {('yes' if row['within'] else 'no') if ran else '-'}")
    right = sum(row["right"] for row in rows)
    print(f"right and proved unique: {right} of {len(rows)}"
          + (f"; within ISS's time (whole process against its solver call): "
             f"{sum(row['within'] for row in rows)} of {len(rows)}; ours {sum(r['ours_s'] for r in rows):.1f} s "
             f"in all, ISS {sum(r['iss_s'] for r in rows):.1f} s" if ran else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=DEFAULT_ONLY, help=f"entries whose name matches (default {DEFAULT_ONLY!r})")
    parser.add_argument("--rounds", type=int, default=1, help="passes of each side, alternated (medians kept)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="each solve process's --time-limit")
    parser.add_argument("--results-dir", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    results_dir(parser, args.results_dir)
    if not ISS_COLLECTION.is_file():
        log(f"ISS side by side: {ISS_COLLECTION} is absent")
        return 2
    entries = load_entries(args.only)
    if not entries:
        log(f"ISS side by side: no entry's name matches {args.only!r}")
        return 2
    results = run(entries, max(1, args.rounds), args.time_limit)
    print_table(results)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    write_result(args.results_dir / "iss_side_by_side.json", json.dumps(results, indent=1) + "\n")
    return 0 if all(row["right"] for row in results["entries"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
