"""ISS's published entries against the project, one entry at a time, in the same run (issue 34's
published-killer target: ISS's 14 MATHEMAGIC killers, each within ISS's time)::

    ISS_DIR=../iss python bench/iss_side_by_side.py                      # the MATHEMAGIC killers
    ISS_DIR=../iss python bench/iss_side_by_side.py --only 'Hailstone|LITTLE_KILLER_SNIPES'
    python bench/iss_side_by_side.py --rounds 3 --time-limit 30          # without ISS: ours alone

For each entry of ``../shared/data/iss/collections.jsonl`` (else the clone's vendored copy,
``tests/data/iss/collections.jsonl``) whose name matches ``--only``:

* **ISS**: its ``SimpleSolver`` counts the entry to 2 in a node process (after one unmeasured
  call), the solver call alone: no process start, no reading; with its guesses and values tried.
  An entry past ``--iss-time-limit`` seconds is stopped (its node process killed, the next entries
  go on in a fresh one, warmed up again) and reported as ISS "past N s", not a failure of the run;
* **the project**: a whole ``python -m pipeline solve ENTRY.iss --format json`` process (the
  default ``auto`` and its uniqueness proof; start-up, reading, the model and the check all
  included), its wall seconds, the engine that answered and its own ``seconds`` (the proof included; its
  ``proof_seconds`` in the JSON); the answer must
  be verified against the rules, proved unique, and the published solution where there is one.

``--rounds`` alternates the two passes (ISS, ours, ISS, ours, ...) and keeps each side's median,
so a slower minute of the shared machine falls on both. An entry is **within** when the
project's whole process took no longer than ISS's solver call (an entry ISS is past its limit on
is within when ours took no longer than that limit). After the table, a summary by rule kind (the
kinds of ``pipeline.read_puzzle(input).rules``; an entry counts under each of its kinds): entries,
the median ratio of the engine's own ``seconds`` to ISS's (an entry ISS is past its limit on takes
the limit, so its ratio is an upper bound), and how many are within ISS's time. Without ``ISS_DIR`` (or node)
the project's side runs alone and the table says why ISS was skipped. Prints a table and writes
``<results-dir>/iss_side_by_side.json``. ISS is never a dependency.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.iss_collection import collection_file  # noqa: E402
from bench.measure import installed_env, results_dir, write_result  # noqa: E402
from pipeline import read_puzzle  # noqa: E402

#: ISS's published puzzles: ``../shared``'s beside the project, else the copy vendored in tests/data
ISS_COLLECTION = collection_file(ROOT)
#: issue 34: "ISS's Mathemagic killer collection ... Target: all 14, each within ISS's time"
DEFAULT_ONLY = r"^MATHEMAGIC_KILLERS#"

#: ISS's seconds per entry unless ``--iss-time-limit`` says otherwise
ISS_TIME_LIMIT = 20.0
#: seconds a node process gets beyond the limit before it is killed: its start and imports, the output
ISS_GRACE = 5.0
#: the kind an entry without rules (a classic sudoku) is summarised under
NO_RULES = "(none)"

#: Counts the first input line to 2 unmeasured (the warm-up) and says ``ready``, then every further
#: line, one JSON line each (ISS throwing on an entry is that entry's ``error``).
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
console.log(JSON.stringify({ ready: true }));
for (const input of inputs.slice(1)) {
  try {
    const started = performance.now();
    const count = [...solver.solutions(input, 2)].length;
    const ms = performance.now() - started;
    const stats = solver.latestStats();
    console.log(JSON.stringify({ count, ms, guesses: stats.guesses, values: stats.valuesTried }));
  } catch (error) {
    console.log(JSON.stringify({ error: String(error).slice(0, 200) }));
  }
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


def _lines(stream, found: queue.Queue) -> None:
    """Every line of ``stream`` into ``found``, then None (the stream ended)."""
    for line in stream:
        found.put(line)
    found.put(None)


#: What :func:`_next_record` returns once the stream ended (the process is exiting: it died).
_ENDED: dict = {"ended": True}


def _next_record(found: queue.Queue, deadline: float) -> dict | None:
    """The next JSON line before ``deadline`` (``time.monotonic``); None: none came in time;
    :data:`_ENDED`: the stream ended."""
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = found.get(timeout=left)
        except queue.Empty:
            return None
        if line is None:
            return _ENDED
        if line.startswith("{"):
            return json.loads(line)
    return None


def iss_pass(entries: list[dict], time_limit: float = ISS_TIME_LIMIT, command: list[str] | None = None,
             grace: float = ISS_GRACE) -> list[dict]:
    """ISS on every entry: per entry its count (to 2), milliseconds, guesses and values tried.

    The entries run in one node process, warmed up by one unmeasured call, until one is past
    ``time_limit``: that process is killed, the entry's record says ``past`` (the limit), and the
    rest go on in a fresh process, warmed up on the last entry that finished (the next one if none
    has).

    Parameters
    ----------
    entries : list of dict
        The collection's entries (``input``).
    time_limit : float
        Seconds ISS gets per entry.
    command : list of str, optional
        The runner's command line before the inputs file (default: node, ISS_RUNNER, ``ISS_DIR``);
        it prints ``{"ready": true}`` after the first input, then one JSON record per further input.
    grace : float
        Seconds beyond ``time_limit`` before a process is killed (its start, imports and output).

    Returns
    -------
    list of dict
        One record per entry: ``count``, ``ms``, ``guesses``, ``values``; or ``past`` (seconds); or
        ``error`` (ISS threw).
    """
    found: list[dict] = []
    warm: int | None = None         # the last entry that finished: the warm-up of a fresh process
    with tempfile.TemporaryDirectory() as tmp:
        runner, inputs = Path(tmp) / "runner.mjs", Path(tmp) / "inputs.txt"
        runner.write_text(ISS_RUNNER)
        if command is None:
            command = [shutil.which("node") or "node", str(runner), os.environ["ISS_DIR"]]
        while len(found) < len(entries):
            start = len(found)
            first = entries[start if warm is None else warm]
            inputs.write_text("".join(entry["input"] + "\n" for entry in [first, *entries[start:]]),
                              encoding="utf-8")
            proc = subprocess.Popen([*command, str(inputs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            lines: queue.Queue = queue.Queue()
            threading.Thread(target=_lines, args=(proc.stdout, lines), daemon=True).start()
            ready = _next_record(lines, time.monotonic() + time_limit + grace)
            # ready, or its output ended before it was (it died warming up); else stuck warming up
            record = ready if ready is _ENDED or (ready is not None and ready.get("ready")) else None
            while record is not None and record is not _ENDED and len(found) < len(entries):
                record = _next_record(lines, time.monotonic() + time_limit + grace)
                if record is None or record is _ENDED:
                    break
                if "ms" in record and record["ms"] > time_limit * 1e3:
                    record = {"past": time_limit}
                found.append(record)
                if "ms" in record:
                    warm = len(found) - 1
            if record is _ENDED:   # its output ended: the process is exiting, not stuck on an entry
                try:
                    proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    pass
            alive = proc.poll() is None
            proc.kill()
            proc.wait()
            stderr = proc.stderr.read().strip()[-300:]
            proc.stderr.close()
            if len(found) == len(entries):
                break
            if alive:       # stopped on the entry: the rest go on in a fresh process
                found.append({"past": time_limit})
                log(f"  ISS past {time_limit:g} s: {entries[len(found) - 1]['name']}")
            elif warm is None and len(found) == start:
                raise SystemExit(f"ISS failed: {stderr}")
            else:           # the process died on the entry (no record of it)
                found.append({"error": stderr or f"exit {proc.returncode}"})
    return found


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


def rule_kinds(entry: dict) -> list[str]:
    """The kinds of the entry's rules, sorted (``[NO_RULES]``: none; ``["(unread)"]``: the project
    cannot read it)."""
    try:
        kinds = sorted({rule.kind for rule in read_puzzle(entry["input"]).rules})
    except Exception:       # a bench: an entry the reader refuses is summarised apart, not a crash
        return ["(unread)"]
    return kinds or [NO_RULES]


def _iss_fields(iss: list[dict], time_limit: float) -> dict:
    """A row's ISS fields from its records of each round: the median (a round past the limit or
    failed counts as endless; a median past the limit makes ``iss_s`` None and ``iss_past_s`` the
    limit)."""
    ms = [r["ms"] if "ms" in r else math.inf for r in iss]
    median = statistics.median(ms)
    done = [r for r in iss if "ms" in r]
    fields = {"iss_s": median / 1e3 if math.isfinite(median) else None,
              "iss_runs_s": [m / 1e3 if math.isfinite(m) else None for m in ms],
              "iss_guesses": done[-1]["guesses"] if done else None, "iss_values": done[-1]["values"] if done else None,
              "iss_unique": bool(done) and all(r["count"] == 1 for r in done)}
    if fields["iss_s"] is None:
        errors = [r["error"] for r in iss if "error" in r]
        fields.update({"iss_error": errors[-1]} if errors else {"iss_past_s": time_limit})
    return fields


def engine_ratio(row: dict) -> float:
    """The engine's own seconds over ISS's (an entry ISS is past its limit on takes the limit: an
    upper bound); infinite when the engine gave no seconds or ISS neither finished nor stopped."""
    iss = row.get("iss_s") or row.get("iss_past_s")
    engine = row.get("engine_s")
    return engine / iss if isinstance(engine, (int, float)) and iss else math.inf


def by_kind(rows: list[dict]) -> list[dict]:
    """Per rule kind (an entry counts under each of its ``kinds``): entries, ISS past its limit, the
    median engine ratio (:func:`engine_ratio`), and how many are right with the engine's seconds,
    and the whole process's, within ISS's time; the worst median first.

    Parameters
    ----------
    rows : list of dict
        The table's rows with ISS's fields and ``kinds``.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> rows = [{"kinds": ["cage"], "iss_s": 0.01, "engine_s": 0.02, "ours_s": 0.5, "right": True},
    ...         {"kinds": ["cage", "thermo"], "iss_s": None, "iss_past_s": 20.0, "engine_s": 1.0,
    ...          "ours_s": 2.0, "right": True}]
    >>> [(k["kind"], k["entries"], k["median_ratio"], k["engine_within"]) for k in by_kind(rows)]
    [('cage', 2, 1.025, 1), ('thermo', 1, 0.05, 1)]
    """
    kinds: dict[str, list[dict]] = {}
    for row in rows:
        for kind in row["kinds"]:
            kinds.setdefault(kind, []).append(row)
    summary = []
    for kind, group in kinds.items():
        limit = [r.get("iss_s") or r.get("iss_past_s") or 0.0 for r in group]
        summary.append({"kind": kind, "entries": len(group),
                        "iss_past": sum(r.get("iss_s") is None for r in group),
                        "median_ratio": statistics.median(engine_ratio(r) for r in group),
                        "engine_within": sum(bool(r["right"]) and isinstance(r["engine_s"], (int, float))
                                             and r["engine_s"] <= t for r, t in zip(group, limit)),
                        "within": sum(bool(r["right"]) and r["ours_s"] <= t for r, t in zip(group, limit))})
    return sorted(summary, key=lambda k: (-k["median_ratio"], k["kind"]))


def run(entries: list[dict], rounds: int, time_limit: float, iss_time_limit: float = ISS_TIME_LIMIT) -> dict:
    """Both sides ``rounds`` times, alternated; per entry each side's median (module docstring).

    Parameters
    ----------
    entries : list of dict
        The collection's entries (``name``, ``input``, ``solution``).
    rounds : int
        Passes of each side.
    time_limit : float
        ``--time-limit`` of each ``solve`` process.
    iss_time_limit : float
        Seconds ISS gets per entry (past them: ``iss_past_s``).

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
            iss_runs.append(iss_pass(entries, iss_time_limit))
        log(f"ISS side by side: the project, round {round_ + 1} of {rounds} ...")
        our_runs.append(our_pass(entries, time_limit))
    rows = []
    for k, entry in enumerate(entries):
        ours = [run_[k] for run_ in our_runs]
        row = {"name": entry["name"], "ours_s": statistics.median(r["wall_s"] for r in ours),
               "ours_runs_s": [r["wall_s"] for r in ours], "solver": ours[-1]["solver"],
               "engine_s": ours[-1]["engine_s"], "right": all(r["right"] for r in ours),
               "status": ours[-1]["status"], "exit": ours[-1]["exit"], "kinds": rule_kinds(entry)}
        if iss_runs:
            row.update(_iss_fields([run_[k] for run_ in iss_runs], iss_time_limit))
            iss_s = row["iss_s"] or row.get("iss_past_s")     # past the limit: ISS took longer than it
            row["within"] = bool(row["right"] and iss_s and row["ours_s"] <= iss_s)
        rows.append(row)
    return {"machine": platform.platform(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "rounds": rounds, "time_limit_s": time_limit, "iss_time_limit_s": iss_time_limit,
            "iss": "ran" if problem is None else f"skipped: {problem}", "entries": rows,
            # JSON has no infinity: a kind whose median entry has no engine ratio says None
            "by_kind": [{**kind, "median_ratio": kind["median_ratio"] if math.isfinite(kind["median_ratio"]) else None}
                        for kind in by_kind(rows)] if iss_runs else []}


def print_table(results: dict) -> None:
    """One line per entry, then how many are within ISS's time, then the summary by rule kind."""
    rows = results["entries"]
    ran = results["iss"] == "ran"
    print(f"\nISS's entries side by side ({results['when']}, {results['rounds']} round(s), medians; "
          f"ISS {results['iss']})")
    print(f"{'entry':28s} {'ISS s':>7s} {'guesses':>8s} {'ours s':>7s} {'engine':>9s} {'engine s':>9s} "
          f"{'ratio':>6s}  right  within")
    for row in rows:
        if not ran:
            iss, ratio = f"{'-':>7s} {'-':>8s}", f"{'-':>6s}"
        elif row["iss_s"] is None:
            iss = f"{'past ' + format(row['iss_past_s'], 'g') if 'iss_past_s' in row else 'error':>7s} {'-':>8s}"
            ratio = f"{'-':>6s}"
        else:
            iss, ratio = f"{row['iss_s']:7.2f} {row['iss_guesses']:8d}", f"{row['ours_s'] / row['iss_s']:5.2f}x"
        engine_s = f"{row['engine_s']:9.2f}" if isinstance(row["engine_s"], (int, float)) else f"{'-':>9s}"
        print(f"{row['name'][:28]:28s} {iss} {row['ours_s']:7.2f} {str(row['solver']):>9s} {engine_s} {ratio}  "
              f"{'yes' if row['right'] else 'NO':5s}  {('yes' if row['within'] else 'no') if ran else '-'}")
    right = sum(row["right"] for row in rows)
    engine = sum(r["engine_s"] for r in rows if isinstance(r["engine_s"], (int, float)))
    past = sum(r["iss_s"] is None for r in rows) if ran else 0
    print(f"right and proved unique: {right} of {len(rows)}"
          + (f"; within ISS's time (whole process against its solver call): "
             f"{sum(row['within'] for row in rows)} of {len(rows)}; ours {sum(r['ours_s'] for r in rows):.1f} s "
             f"in all (engine {engine:.1f} s), ISS {sum(r['iss_s'] or 0.0 for r in rows):.1f} s"
             + (f" and {past} past its {results.get('iss_time_limit_s', ISS_TIME_LIMIT):g} s" if past else "")
             if ran else ""))
    if not ran:
        return
    print("\nBy rule kind (engine seconds over ISS's; ISS past its limit counts as the limit), worst first")
    print(f"{'kind':18s} {'entries':>7s} {'ISS past':>8s} {'median ratio':>12s} {'engine within':>13s} {'within':>6s}")
    for kind in by_kind(rows):
        print(f"{kind['kind'][:18]:18s} {kind['entries']:7d} {kind['iss_past']:8d} {kind['median_ratio']:11.2f}x "
              f"{kind['engine_within']:13d} {kind['within']:6d}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=DEFAULT_ONLY, help=f"entries whose name matches (default {DEFAULT_ONLY!r})")
    parser.add_argument("--rounds", type=int, default=1, help="passes of each side, alternated (medians kept)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="each solve process's --time-limit")
    parser.add_argument("--iss-time-limit", type=float, default=ISS_TIME_LIMIT,
                        help=f"ISS's seconds per entry, past them reported as past (default {ISS_TIME_LIMIT:g})")
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
    results = run(entries, max(1, args.rounds), args.time_limit, args.iss_time_limit)
    print_table(results)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    write_result(args.results_dir / "iss_side_by_side.json", json.dumps(results, indent=1) + "\n")
    return 0 if all(row["right"] for row in results["entries"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
