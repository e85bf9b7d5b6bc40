"""The ``batch`` subcommand."""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import fields

from pipeline.cli.args import add_solver_args, resolve_solver
from pipeline.core import stops
from pipeline.core.clauses import AMO_ENCODINGS
from pipeline.batch import (DEFAULT_HIGHS_OPTIONS, ENGINES, INPUT_FORMATS, PROGRESS_MODES, BatchConfig,
                            run_config)
from pipeline.batch.text import needs_project_installed, run_failure
from pipeline.core.errors import PipelineError, escaped_controls
from pipeline.core.options import float_option
from pipeline.core.version import DISTRIBUTION, __version__
from pipeline.core.progress import LOG_SECONDS
from pipeline.solvers import SOLVERS, batch_solver_names
from pipeline.solvers.auto import AUTO
from pipeline.core.clauses import DEFAULT_BACKEND


#: BatchConfig's keywords as typed here: its errors name the keyword (``chunk_size must be ...``),
#: the command line the option (``--chunk-size: must be ...``)
OPTION_NAMES = {**{f.name: "--" + f.name.replace("_", "-") for f in fields(BatchConfig)},
                "input_path": "INPUT", "output": "OUTPUT", "highs_options": "--highs-option",
                "propagate": "--no-propagate", "rules_by_auto": "--solver"}


def _highs_option(text: str):
    """``KEY=VALUE`` for a HiGHS option: VALUE as bool, int, float or string."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, found {text!r}")
    low = value.lower()
    if low in ("true", "false", "on", "off") and key != "presolve" and key != "parallel":
        return key, low in ("true", "on")
    for cast in (int, float):
        try:
            return key, cast(value)
        except ValueError:
            pass
    return key, value


def _status_list(text: str) -> tuple[str, ...]:
    """``time_limit,error`` -> ``("time_limit", "error")`` (checked by BatchConfig)."""
    return tuple(s.strip() for s in text.split(",") if s.strip())


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """The ``batch`` subcommand: its arguments and :func:`run_batch_command`."""
    p = subparsers.add_parser("batch", help="solve a collection of puzzles into Parquet (resumable, parallel)")
    p.add_argument("input", help="puzzles: a text file (one per line), a CSV/TSV or a Parquet file "
                                 "(column 'puzzle', optional 'regions', 'variant' and 'rules', a JSON list of rule entries)")
    p.add_argument("output", help="output directory of Parquet parts (read it with pandas.read_parquet(OUT)); "
                                  "rerun with the same OUT to resume")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes, 1 to 256 (default: all cores; 1 solves in this process)")
    p.add_argument("--engine", choices=ENGINES, default="processes",
                   help="processes (this machine) or dask (a cluster; LocalCluster without --scheduler) "
                        "(default processes)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler address, e.g. tcp://host:8786 (implies --engine dask)")
    p.add_argument("--chunk-size", type=int, default=None, metavar="N",
                   help="puzzles per task and per part file (default: adaptive, about 1 s of work per chunk)")
    p.add_argument("--count", type=int, default=0, metavar="K",
                   help="also count solutions up to K (column n_solutions; K means K or more; default 0: no count)")
    p.add_argument("--time-limit", type=float_option, default=None, metavar="SECONDS",
                   help="solver time limit per puzzle (default: none)")
    add_solver_args(p, batch_solver_names(), "batch engine: dfs (a compiled search, many puzzles a call), highs "
                    "(one instance per shape, bounds per puzzle), sat (one incremental SAT solver per shape up to "
                    "16x16, clues as assumptions) or cpsat")
    p.add_argument("--sat-backend", metavar="NAME", help=f"python-sat solver for --solver sat "
                                                         f"(default {DEFAULT_BACKEND})")
    p.add_argument("--amo", choices=("auto", *AMO_ENCODINGS), default=None,
                   help="at-most-one encoding for --solver sat (default auto)")
    p.add_argument("--box", metavar="HxW", help="box shape of the records (default: the squarest for N)")
    p.add_argument("--variant", help="variant of records without a 'variant' column (default classic)")
    p.add_argument("--input-format", choices=INPUT_FORMATS, default="auto",
                   help="how to read INPUT (default auto: by file name)")
    p.add_argument("--no-propagate", dest="propagate", action="store_false",
                   help="hand the solver the clues only (no naked/hidden singles first)")
    p.add_argument("--highs-option", action="append", type=_highs_option, default=[], metavar="KEY=VALUE",
                   help="a HiGHS option for every solve (repeatable); defaults: "
                        + ", ".join(f"{k}={v}" for k, v in DEFAULT_HIGHS_OPTIONS.items()))
    p.add_argument("--limit", type=int, default=None, metavar="N", help="stop after N new puzzles (resume later)")
    p.add_argument("--overwrite", action="store_true", help="delete OUT's previous batch results first (only files batch wrote; "
                        "an OUT holding others is refused)")
    p.add_argument("--retry", type=_status_list, default=(), metavar="STATUSES",
                   help="solve again the rows of an existing OUT with these statuses, e.g. time_limit,error "
                        "(other options, such as a longer --time-limit, may differ from the first run; default: none)")
    p.add_argument("--progress", choices=PROGRESS_MODES, default="auto",
                   help="progress bar (terminal, needs tqdm), log lines, or nothing (default: auto)")
    p.add_argument("--log-interval", type=float_option, default=LOG_SECONDS, metavar="SECONDS",
                   help=f"seconds between progress log lines (default {LOG_SECONDS:g})")
    p.set_defaults(func=run_batch_command, option_names=OPTION_NAMES)


#: OUT suffixes of a single-file format: a user who names OUT so expects that file, and batch
#: writes a directory of Parquet parts there instead (``.parquet``: a directory, as Spark writes it).
_FILE_SUFFIXES = (".csv", ".tsv", ".txt", ".json", ".jsonl", ".ndjson", ".gz", ".bz2", ".xz")


def _file_like_output(output: str) -> list[str]:
    """A note when OUT is named like a single file (``results.csv``): batch makes it a directory
    of Parquet parts, and ``pandas.read_csv`` on it fails with IsADirectoryError. None when OUT ends
    in a path separator (``results.csv/``): the user asked for a directory."""
    if str(output).endswith(tuple(sep for sep in ("/", os.sep, os.altsep) if sep)):
        return []
    name = os.path.basename(os.path.normpath(str(output)))
    if not name.lower().endswith(_FILE_SUFFIXES):
        return []
    return [f"note: batch: OUT {name!r} is written as a directory of Parquet parts, not a single file "
            f"(read it with pandas.read_parquet)"]


def run_batch_command(args: argparse.Namespace) -> int:
    """Run ``batch``. Exit codes: 0 done (or stopped by --limit), 2 unusable input, output or
    options (naming the path or option), 1 a worker failed, 130 interrupted (rerun to resume)."""
    said: list[str] = []   # auto's note, said when the run starts (an error is then the only line)
    solver = resolve_solver(args, "batch", among=tuple(batch_solver_names()), later=said).name
    config = BatchConfig(args.input, args.output, workers=args.workers, engine=args.engine,
                         scheduler=args.scheduler, chunk_size=args.chunk_size, count=args.count,
                         time_limit=args.time_limit, propagate=args.propagate, box=args.box,
                         variant=args.variant, input_format=args.input_format, limit=args.limit,
                         overwrite=args.overwrite, progress=args.progress, log_interval=args.log_interval,
                         highs_options=dict(args.highs_option), solver=solver,
                         sat_backend=args.sat_backend, amo=args.amo, retry=args.retry,
                         rules_by_auto=args.solver == AUTO)
    if args.verbose and config.rules_by_auto and not SOLVERS[solver].rule_rows:
        # the pick above is for records of units alone; a record with rules or a layout, or a grid
        # beyond the engine's size, gets auto's pick for its own model, once per group that shares them
        said.append(f"solver: records with rules or a layout, or a grid larger than {solver} takes, go to auto's "
                    f"pick for their own model")
    said.extend(_file_like_output(args.output))
    def say_notes() -> None:   # once the input, OUT and the engine are checked: an error is the only line
        for line in said:
            print(line, file=sys.stderr)

    try:
        summary = run_config(config, on_start=say_notes)
    except (PipelineError, OSError, KeyboardInterrupt):
        raise   # main(): one line, exit 2 (130 for a Ctrl-C before the run's own handler)
    except Exception as e:  # a crashed worker (BrokenProcessPool, lost Dask worker): parts so far are kept
        stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: main's 130, as above
        # a Dask scheduler that went away cancels every future: no worker of ours failed
        dask = type(e).__module__.split(".")[0] in ("distributed", "tornado") or "Cancelled" in type(e).__name__
        who = "the Dask cluster failed (its scheduler or a worker went away)" if dask else "a worker failed"
        then = (f"install {DISTRIBUTION} {__version__} where the scheduler and every worker run, then rerun the "
                f"same command to resume" if needs_project_installed(e) else "rerun the same command to resume")
        # the exception's text may quote the input (a record, a path): escaped as main() escapes an error line
        print(f"error: batch: {who} ({escaped_controls(run_failure(e))}); {then}", file=sys.stderr)
        return 1
    counts = ", ".join(f"{k} {v:,}" for k, v in summary.status_counts.items()) or "nothing new"
    state = ("complete" if summary.complete and not summary.interrupted else
             "interrupted; rerun the same command to resume" if summary.interrupted else
             "partial; rerun the same command to continue")
    retried = f" ({summary.retried:,} retried)" if summary.retried else ""
    print(f"batch: {summary.solved_now:,} processed{retried} in {summary.elapsed:.1f}s "
          f"({summary.puzzles_per_second:,.1f} puzzles/s; {100 * summary.overhead_fraction:.1f}% of worker time "
          f"outside {summary.solver_call}); {summary.already_done:,} already done; {counts}; {state}: "
          f"{summary.output}", file=sys.stderr)
    return 130 if summary.interrupted else 0
