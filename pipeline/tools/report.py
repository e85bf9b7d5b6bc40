"""One self-contained HTML page for batch outputs (``python -m pipeline report``): status
counts, a log-scale histogram of solve seconds, seconds against nodes, the slowest puzzles with
their drawings and, for several outputs of the same input, a per-puzzle comparison.

Plots are inline SVG: no network, no external JavaScript or CSS.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import html
import io
import os
import re
from pathlib import Path

import numpy as np

if TYPE_CHECKING:  # annotations only: the modules are imported where they are used
    import pandas as pd


from formats.files import arrow_target
from pipeline.tools.draw import draw_grid, load_matplotlib
from pipeline.core.errors import PipelineError
from pipeline.core.document import rule_entries_text
from pipeline.core.parse import looks_like_document
from pipeline.core.claimed import read_claimed_grid
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.variants import VARIANT_TABLE

SLOWEST = 5
#: The columns of batch's output the page reads.
OUTPUT_COLUMNS = ("index", "puzzle", "variant", "status", "seconds", "nodes", "solution")
#: the run record batch writes in OUT (``pipeline.batch.MANIFEST``; a test holds them equal): a
#: directory with one and no parts is a run stopped before its first chunk, its page empty
RUN_RECORD = "_batch.json"



def _read_output(folder: Path) -> pd.DataFrame:
    """A batch output (its parts as one table) or one Parquet file; read part by part through open
    files when the name is not UTF-8, which pyarrow cannot take as a path."""
    import pandas as pd
    try:
        os.fspath(folder).encode("utf-8")
        return pd.read_parquet(folder)
    except UnicodeEncodeError:
        pass
    files = ([folder] if not folder.is_dir() else
             sorted(p for p in folder.glob("*.parquet") if not p.name.startswith(("_", "."))))
    if not files:
        raise ValueError("no Parquet files in it")
    frames = []
    for path in files:
        with arrow_target(path) as source:
            frames.append(pd.read_parquet(source))
    return pd.concat(frames, ignore_index=True)

def read_output(out: str | os.PathLike) -> pd.DataFrame:
    """Read a batch output directory.

    Raises
    ------
    PipelineError
        When ``out`` is not a readable batch output.
    """
    import pandas as pd  # lazily: the CLI imports report to build its parser
    if not os.path.exists(out):
        raise PipelineError(f"report: no such batch output directory {str(out)!r}")
    folder = Path(out)
    if folder.is_dir() and (folder / RUN_RECORD).is_file() and not any(folder.glob("*.parquet")):
        return pd.DataFrame({column: pd.Series([], dtype=float if column in ("seconds", "nodes") else object)
                             for column in OUTPUT_COLUMNS})
    if folder.is_dir() and not any(p for p in folder.glob("*.parquet") if not p.name.startswith(("_", "."))):
        raise PipelineError(f"report: {out} is not a batch output (no Parquet files in it)")
    try:
        frame = _read_output(folder)
    except (OSError, ValueError) as e:
        raise PipelineError(f"report: {out} is not a batch output ({str(e).splitlines()[0]})") from None
    missing = [column for column in OUTPUT_COLUMNS if column not in frame.columns]
    if missing:   # an empty directory, batch's input file, another program's Parquet
        raise PipelineError(f"report: {out} is not a batch output (it has no {', '.join(map(repr, missing))} "
                            f"column{'s' if len(missing) > 1 else ''})")
    for column in ("seconds", "nodes"):
        if not pd.api.types.is_numeric_dtype(frame[column]):
            raise PipelineError(f"report: {out} is not a batch output (its {column!r} column is "
                                f"{frame[column].dtype}, not numbers)")
    return frame.sort_values("index").reset_index(drop=True)


def _svg(fig) -> str:
    plt = load_matplotlib()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    # matplotlib's RDF metadata only names namespaces; dropping it keeps the page free of URLs
    return re.sub(r"<metadata>.*?</metadata>", "", text[text.index("<svg"):], flags=re.DOTALL)


def _seconds_plots(frames: dict[str, pd.DataFrame]) -> str:
    every = np.concatenate([df["seconds"].to_numpy(dtype=float) for df in frames.values()])
    every = every[np.isfinite(every) & (every > 0)]
    if not every.size:   # no rows, or none solved: nothing to put on a log scale
        return "<p>No solve times to plot.</p>"
    plt = load_matplotlib()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    # one set of log-spaced bins for every output, so that their bars line up
    bins = np.logspace(np.log10(every.min()), np.log10(every.max()) + 1e-9, 30)
    for name, df in frames.items():
        seconds = df["seconds"].to_numpy(dtype=float)
        seconds = seconds[np.isfinite(seconds) & (seconds > 0)]
        if seconds.size:
            left.hist(seconds, bins=bins, alpha=0.6, label=name)
        right.scatter(df["nodes"].clip(lower=0) + 1, df["seconds"], s=10, alpha=0.7, label=name)
    left.set_xscale("log")
    left.set_xlabel("solve seconds (log scale)")
    left.set_ylabel("puzzles")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("nodes + 1")
    right.set_ylabel("seconds")
    for text in left.legend(fontsize=7).get_texts():   # an output's name as written: '$' is no mathtext
        text.set_parse_math(False)
    fig.tight_layout()
    return _svg(fig)


def _comparison(frames: dict[str, pd.DataFrame]) -> str:
    """Each further output against the first, puzzle by puzzle (same input, matched by index)."""
    import pandas as pd
    (name_a, a), *others = list(frames.items())
    parts = []
    plt = load_matplotlib()
    for name_b, b in others:
        both = a.merge(b, on="index", suffixes=("_a", "_b"))
        title = f"<h3>{html.escape(name_b)} against {html.escape(name_a)}</h3>"
        if len(both) == 0 or (both["puzzle_a"] != both["puzzle_b"]).any():
            parts.append(title + "<p>The outputs are not of the same input: no per-puzzle comparison.</p>")
            continue
        same_status = both["status_a"] == both["status_b"]
        solved = (both["status_a"] == "optimal") & (both["status_b"] == "optimal")
        same_grid = solved & (both["solution_a"] == both["solution_b"])
        ratio = both["seconds_b"] / both["seconds_a"]
        faster = int((both["seconds_b"] < both["seconds_a"]).sum())
        summary = (f"<p>{len(both)} puzzles in both; status agrees on {int(same_status.sum())}, the grid on "
                   f"{int(same_grid.sum())} of {int(solved.sum())} solved by both; {html.escape(name_b)} is faster "
                   f"on {faster}; median time ratio {html.escape(name_b)}/{html.escape(name_a)} "
                   f"{float(np.nanmedian(ratio.replace(np.inf, np.nan))):.3g}.</p>")
        fig, ax = plt.subplots(figsize=(4.5, 4.5))
        ax.scatter(both["seconds_a"], both["seconds_b"], s=10)
        values = both[["seconds_a", "seconds_b"]].to_numpy(dtype=float)
        values = values[np.isfinite(values) & (values > 0)]
        if values.size:
            ax.plot([values.min(), values.max()], [values.min(), values.max()], color="#999999", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"seconds: {name_a}", parse_math=False)
        ax.set_ylabel(f"seconds: {name_b}", parse_math=False)
        table = pd.DataFrame({"index": both["index"], f"status {name_a}": both["status_a"],
                              f"status {name_b}": both["status_b"], f"seconds {name_a}": both["seconds_a"],
                              f"seconds {name_b}": both["seconds_b"], "ratio": ratio})
        # disagreements first, then the largest slow-downs
        table = table.assign(_key=~same_status).sort_values(["_key", "ratio"], ascending=False).drop(columns="_key")
        parts.append(title + summary + _svg(fig) + table.head(20).to_html(index=False, float_format="%.4g", border=0))
    return "".join(parts)


def _shown(name: str) -> str:
    """An output's name as the page shows it: bytes that are not UTF-8 (kept as surrogates) as U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _slowest(df: pd.DataFrame) -> str:
    parts = []
    plt = load_matplotlib()
    for _, row in df.nlargest(SLOWEST, "seconds").iterrows():
        try:
            regions = row.get("regions") if isinstance(row.get("regions"), str) and row.get("regions") else None
            spec = VARIANT_TABLE.get(row["variant"])
            if regions is None and (spec is None or spec.regions):
                raise PipelineError(f"the output has no regions for this {row['variant']} puzzle")
            rules = row.get("rules") if isinstance(row.get("rules"), str) and row.get("rules") else None
            if looks_like_document(str(row["puzzle"])):   # its rules are in it (the column repeats them)
                rules = None
            puzzle = parse_puzzle(row["puzzle"], variant=row["variant"], regions=regions,
                                  rules=rule_entries_text(rules), rules_where="rules")
            # batch writes the answer as solve prints it, in the puzzle's values (a 0-F record's in
            # 0-F, a "values": "0-8" document's 0..8): read it so, as verify and draw do, not as 1..N
            solution = row["solution"] if isinstance(row["solution"], str) and row["solution"] else None
            grid = None if solution is None else read_claimed_grid(solution, puzzle)[0]
            fig = draw_grid(puzzle, grid, inches=2.6)
            picture = _svg(fig)
        except PipelineError as e:
            picture = f"<p>(not drawn: {html.escape(str(e))})</p>"
            plt.close("all")
        parts.append(f"<figure><figcaption>#{row['index']}: {row['seconds']:.4g} s, {row['nodes']} nodes, "
                     f"{html.escape(str(row['status']))}</figcaption>{picture}</figure>")
    return "<div class='grids'>" + "".join(parts) + "</div>"


def build_report(outs: list, notes: list[str] | None = None) -> str:
    """The HTML text of the report for one or more batch output directories.

    Parameters
    ----------
    outs : list of str or Path, or one of them
        The batch output directories (the first is the one the others are compared with), each once.
    notes : list of str, optional
        Lines that head the page (an output that holds part of its input).

    Returns
    -------
    str
    """
    import pandas as pd
    if isinstance(outs, (str, os.PathLike)):
        outs = [outs]
    if not outs:
        raise PipelineError("report: no batch output given")
    seen: dict[str, object] = {}
    for out in outs:
        where = os.path.realpath(out)
        if where in seen:   # the frames are keyed by name: one would replace the other unseen
            again = "" if seen[where] == repr(str(out)) else f" (again as {str(out)!r})"
            raise PipelineError(f"report: {seen[where]} is given twice{again}: each output once")
        seen[where] = repr(str(out))
    frames = {_shown(Path(out).name or str(out)): read_output(out) for out in outs}
    if len(frames) < len(outs):
        frames = {_shown(str(out)): read_output(out) for out in outs}
    sections = ["".join(f"<p><strong>Note:</strong> {html.escape(note)}</p>" for note in notes or [])]
    counts = pd.DataFrame({name: df["status"].value_counts() for name, df in frames.items()}).fillna(0).astype(int)
    sections.append("<h2>Status counts</h2>" + counts.to_html(border=0))
    sections.append("<h2>Solve seconds</h2>" + _seconds_plots(frames))
    for name, df in frames.items():
        sections.append(f"<h2>Slowest puzzles: {html.escape(name)}</h2>" + _slowest(df))
    if len(frames) >= 2:
        sections.append("<h2>Per-puzzle comparison</h2>" + _comparison(frames))
    style = ("body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}"
             "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
             ".grids{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}figcaption{font-size:80%}")
    page = ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>Batch report</title>"
            f"<style>{style}</style></head><body><h1>Batch report</h1>"
            f"<p>{html.escape(', '.join(str(o) for o in outs))}</p>" + "".join(sections) + "</body></html>\n")
    # a directory name that is not UTF-8 (its bytes kept as surrogates) is shown with U+FFFD
    return page.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
