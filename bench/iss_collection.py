"""ISS's published collections through the project (issue 33): how many of the 359 entries read, and
how many are solved right within ``--time-limit``, by ISS constraint type. Runnable alone::

    python bench/iss_collection.py                   # every entry, --time-limit 60, 2 processes
    python bench/iss_collection.py --limit 20 --time-limit 10

Each entry is read and solved as ``python -m pipeline solve INPUT --time-limit T`` does (auto's
engine, the uniqueness check, verify), each in a child forked from one process that imported the
package (start-up is paid once; a child that crashes or runs out of memory is a ``crash`` row);
a slow entry costs at most its limit. An entry counts as **right** when

* it has a published solution and the answer equals it (the puzzle is unique, or the answer is
  the published one), or
* it has none (or the answer differs and the puzzle has several solutions, which some ISS test
  entries have on purpose): the answer verifies against every rule (``solve`` verifies before it
  prints) and the independent CP-SAT oracle (tests/core/cpsat_oracle.py, each rule written from
  its meaning) accepts it and counts the same to 2 (tests/core/iss_check.py, shared with the
  suite).

Writes ``bench/results/iss-collection-latest.json`` and the Markdown report
``docs/iss-collection.md`` (the per-type table the issue asks for), unless ``--no-doc``.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import write_result  # noqa: E402


def collection_file(root: Path = ROOT) -> Path:
    """The collection to run: ``../shared/data``'s beside the project, else the clone's own copy.

    Parameters
    ----------
    root : Path
        The project's root directory.

    Returns
    -------
    Path
        ``root/../shared/data/iss/collections.jsonl`` when that file exists, else
        ``root/tests/data/iss/collections.jsonl`` (the same 359 entries, vendored so that a clone
        alone runs the collection, as tests/data/README.md says).
    """
    shared = root.parent / "shared" / "data" / "iss" / "collections.jsonl"
    return shared if shared.is_file() else root / "tests" / "data" / "iss" / "collections.jsonl"


COLLECTION = collection_file()
RESULTS = ROOT / "bench" / "results"
DOC = ROOT / "docs" / "iss-collection.md"
TYPE = re.compile(r"\.([A-Za-z][A-Za-z0-9]*)")


def iss_types(text: str) -> list[str]:
    """The ISS constraint types a string uses (``.Cage~...`` -> ``Cage``; givens are ``Givens``)."""
    found = sorted(set(TYPE.findall(text)) - {"End"})
    return found + (["Givens"] if re.search(r"\.~R\d", text) else [])


def run_entry(entry: dict, time_limit: float) -> dict:
    """One entry solved as ``solve`` does (read, auto's engine, uniqueness, verify), in this
    process: status, seconds, and why when not right."""
    import numpy as np

    import pipeline
    from pipeline.core.errors import PipelineError
    from pipeline.core.verify import verify_grid

    out = {"name": entry["name"], "types": iss_types(entry["input"])}
    started = time.perf_counter()
    try:
        puzzle = pipeline.read_puzzle(entry["input"])
    except PipelineError as e:
        return {**out, "seconds": 0.0, "status": "unreadable", "why": str(e)[:300]}
    try:
        result = pipeline.solve(puzzle, time_limit=time_limit)
    except PipelineError as e:
        return {**out, "seconds": round(time.perf_counter() - started, 3), "status": "no_answer", "why": str(e)[:300]}
    out["seconds"], out["solver"] = round(time.perf_counter() - started, 3), result.solver
    if result.status == "infeasible" and not entry.get("solution"):
        # ISS keeps puzzles without a solution on purpose ("Zero solution: ..."): right when the
        # independent oracle finds none either
        return {**out, **_oracle_infeasible(puzzle, time_limit)}
    if result.grid is None:
        return {**out, "status": "time_limit" if result.status == "time_limit" else "no_answer",
                "why": f"{result.solver}: {result.status} {result.message}"[:300]}
    if not verify_grid(result.grid, puzzle):
        return {**out, "status": "wrong", "why": "the answer does not verify"}
    line = _iss_check().solution_line(np.asarray(result.grid), puzzle)
    solution = entry.get("solution")
    if solution and line == solution:
        return {**out, "status": "right", "unique": result.unique}
    if solution and result.unique is True:
        return {**out, "status": "wrong", "why": "unique, and not the published solution"}
    # no published solution, or several: the answer verified; the independent CP-SAT oracle
    # (tests/core/cpsat_oracle.py, each rule written from its meaning) accepts the grid and counts
    # the same to 2, as tests/core/test_iss_collection.py asks
    return {**out, **_oracle_verdict(puzzle, np.asarray(result.grid), result.unique, time_limit)}


def _iss_check():
    """tests/core/iss_check.py: how the suite judges an answer (one place for both)."""
    here = str(ROOT / "tests" / "core")
    if here not in sys.path:
        sys.path.insert(0, here)
    import iss_check

    return iss_check


def _oracle_infeasible(puzzle, time_limit: float) -> dict:
    """``right`` when the CP-SAT oracle finds no solution either, ``disputed`` when it finds one;
    ``no_answer`` (with why) when it cannot tell or is not here."""
    verdict = _iss_check().oracle_infeasible(puzzle, time_limit)
    status = {"unconfirmed": "no_answer"}.get(verdict["status"], verdict["status"])
    return {"status": status, "why": verdict["why"], **({"unique": None} if status == "right" else {})}


def _oracle_verdict(puzzle, grid, unique: bool | None, time_limit: float) -> dict:
    """``right`` when the CP-SAT oracle accepts ``grid`` and counts as ``unique`` says (or cannot
    count within ``time_limit``: then ``why`` says so), ``disputed`` when it disagrees; without
    ortools, or for a document the oracle does not model, ``right`` on verify alone (``why``)."""
    verdict = _iss_check().oracle_verdict(puzzle, grid, unique, time_limit)
    status = {"unconfirmed": "right"}.get(verdict["status"], verdict["status"])
    return {"status": status, "unique": unique, "why": verdict["why"]}


def _child(entry: dict, time_limit: float, conn) -> None:
    """One entry in a forked child: its result sent back, whatever happens."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))   # one entry never takes the machine
    try:
        conn.send(run_entry(entry, time_limit))
    except BaseException as e:   # a crash is a result to report, never a lost entry
        conn.send({"name": entry["name"], "types": iss_types(entry["input"]), "seconds": 0.0, "status": "crash",
                   "why": f"{type(e).__name__}: {e}"[:300]})
    finally:
        conn.close()


#: Address space a child may take (bytes): a model that needs more is a crash row, not an OOM kill.
CHILD_MEMORY = 6 << 30


def run_all(entries: list[dict], time_limit: float, workers: int) -> list[dict]:
    """Each entry in its own child forked from this process (the imports are paid once), at most
    ``workers`` at a time; a child that dies (a signal, memory) is a ``crash`` row."""
    import multiprocessing

    import pipeline.api  # noqa: F401  (loaded before the forks: the children share it)
    import pipeline.solvers  # noqa: F401

    context = multiprocessing.get_context("fork")
    results: list[dict | None] = [None] * len(entries)
    running: dict[int, tuple] = {}
    todo = list(range(len(entries)))
    while todo or running:
        while todo and len(running) < workers:
            k = todo.pop(0)
            receive, send = context.Pipe(duplex=False)
            child = context.Process(target=_child, args=(entries[k], time_limit, send), daemon=True)
            child.start()
            send.close()
            running[k] = (child, receive, time.perf_counter())
        for k, (child, receive, started) in list(running.items()):
            if receive.poll(0.05):
                try:
                    results[k] = receive.recv()
                except EOFError:
                    results[k] = None
            elif child.is_alive() and time.perf_counter() - started < time_limit * 3 + 120:
                continue
            child.join(timeout=5)
            if child.is_alive():
                child.kill()
            if results[k] is None:
                results[k] = {"name": entries[k]["name"], "types": iss_types(entries[k]["input"]), "seconds":
                              round(time.perf_counter() - started, 3), "status": "crash",
                              "why": f"the child ended with exit code {child.exitcode}"}
            del running[k]
            done = sum(r is not None for r in results)
            row = results[k] or {}
            # progress on stderr (a full run takes most of an hour): the tables come at the end
            print(f"[{done}/{len(entries)}] {row.get('status')} {row.get('seconds')} s  {entries[k]['name']}",
                  file=sys.stderr, flush=True)
    return [r for r in results if r is not None]


def read_all(entries: list[dict]) -> list[dict]:
    """Every entry read, none solved: ``unreadable`` with the reason, or ``read``."""
    import pipeline
    from pipeline.core.errors import PipelineError

    results = []
    for entry in entries:
        out = {"name": entry["name"], "types": iss_types(entry["input"]), "seconds": 0.0}
        try:
            pipeline.read_puzzle(entry["input"])
            results.append({**out, "status": "read"})
        except PipelineError as e:
            results.append({**out, "status": "unreadable", "why": str(e)[:300]})
    return results


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
    read_only = set(counts) <= {"read", "unreadable"}
    lines = [
        "# ISS's published collections through the project",
        "",
        (f"Read by `python bench/iss_collection.py --read-only` on {time.strftime('%Y-%m-%d')}: which entries the "
         "project reads (`make bench-iss` also solves each and fills the right column). " if read_only else "") +
        f"Measured by `python bench/iss_collection.py --time-limit {time_limit:g}` on {time.strftime('%Y-%m-%d')} "
        f"({platform.node() or 'this machine'}, {os.cpu_count()} cores): each of the {n} entries of "
        "`../shared/data/iss/collections.jsonl` read and solved as `python -m pipeline solve` does (default "
        "engine, uniqueness check included). **Right** means equal to the published solution, or, without one (or with several "
        "solutions on purpose), verified and confirmed by CP-SAT.",
        "",
        f"- read: {n - counts['unreadable']} of {n}",
        ("- solved: not in this run (`--read-only`)" if read_only else
         f"- solved right within {time_limit:g} s: **{counts['right']} of {n} ({100 * counts['right'] / max(n, 1):.0f}%)**"),
        f"- time limit: {counts['time_limit']}; no answer: {counts['no_answer']}; wrong: {counts['wrong']}; "
        f"disputed: {counts['disputed']}; crash: {counts['crash']}",
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
    parser.add_argument("--read-only", action="store_true",
                        help="only read every entry (no solving): which types are refused, in seconds")
    parser.add_argument("--only", default=None, metavar="REGEX",
                        help="run only the entries whose name matches; with --previous the others keep the rows "
                             "of that earlier run (the page says how many were measured in this run)")
    parser.add_argument("--previous", default=None, metavar="JSON",
                        help="an earlier run's results (bench/results/iss-collection-latest.json) for --only")
    args = parser.parse_args(argv)
    if not COLLECTION.is_file():
        print(f"iss collection: {COLLECTION} is absent: skipped")
        return 0
    entries = [json.loads(line) for line in COLLECTION.read_text().splitlines() if line.strip()][:args.limit]
    chosen = entries if args.only is None else [e for e in entries if re.search(args.only, e["name"])]
    results = read_all(chosen) if args.read_only else run_all(chosen, args.time_limit, args.workers)
    if args.previous is not None:   # the entries not rerun keep their earlier rows, in collection order
        earlier = {r["name"]: r for r in json.loads(Path(args.previous).read_text())}
        now = {r["name"]: r for r in results}
        print(f"iss collection: {len(now)} entries measured in this run, {len(entries) - len(now)} from "
              f"{args.previous}", file=sys.stderr)
        results = [now.get(e["name"]) or earlier[e["name"]] for e in entries if e["name"] in now or e["name"] in earlier]
    RESULTS.mkdir(parents=True, exist_ok=True)
    write_result(RESULTS / "iss-collection-latest.json", json.dumps(results, indent=1))
    page = report(results, args.time_limit)
    if not args.no_doc:
        write_result(DOC, page)
    print("\n".join(page.splitlines()[:12]))
    right = sum(r["status"] == "right" for r in results)
    return 0 if right >= args.target * len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
