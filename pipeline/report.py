"""One self-contained HTML page for batch outputs (``python -m pipeline report``): status
counts, a log-scale histogram of solve seconds, seconds against nodes, the slowest puzzles with
their drawings and, for several outputs of the same input, a per-puzzle comparison.

Plots are inline SVG: no network, no external JavaScript or CSS.
"""
from __future__ import annotations

import html
import io
import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from .draw import draw_grid, load_matplotlib
from .errors import PipelineError
from .puzzle import parse_grid, parse_puzzle

SLOWEST = 5


def read_output(out) -> pd.DataFrame:
    """Read a batch output directory.

    Raises
    ------
    PipelineError
        When ``out`` is not a readable batch output.
    """
    try:
        return pd.read_parquet(out).sort_values("index").reset_index(drop=True)
    except (OSError, ValueError) as e:
        raise PipelineError(f"report: {out} is not a batch output ({str(e).splitlines()[0]})") from None


def _svg(fig) -> str:
    plt = load_matplotlib()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    # matplotlib's RDF metadata only names namespaces; dropping it keeps the page free of URLs
    return re.sub(r"<metadata>.*?</metadata>", "", text[text.index("<svg"):], flags=re.DOTALL)


def _seconds_plots(frames: dict[str, pd.DataFrame]) -> str:
    plt = load_matplotlib()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    for name, df in frames.items():
        seconds = df["seconds"].to_numpy(dtype=float)
        seconds = seconds[np.isfinite(seconds) & (seconds > 0)]
        if seconds.size:
            bins = np.logspace(np.log10(seconds.min()), np.log10(seconds.max()) + 1e-9, 30)
            left.hist(seconds, bins=bins, alpha=0.6, label=name)
        right.scatter(df["nodes"].clip(lower=0) + 1, df["seconds"], s=10, alpha=0.7, label=name)
    left.set_xscale("log")
    left.set_xlabel("solve seconds (log scale)")
    left.set_ylabel("puzzles")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("nodes + 1")
    right.set_ylabel("seconds")
    left.legend(fontsize=7)
    fig.tight_layout()
    return _svg(fig)


def _comparison(frames: dict[str, pd.DataFrame]) -> str:
    (name_a, a), (name_b, b) = list(frames.items())[:2]
    both = a.merge(b, on="index", suffixes=("_a", "_b"))
    if (both["puzzle_a"] != both["puzzle_b"]).any():
        return "<p>The outputs are not of the same input: no per-puzzle comparison.</p>"
    plt = load_matplotlib()
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.scatter(both["seconds_a"], both["seconds_b"], s=10)
    low = float(np.nanmin(both[["seconds_a", "seconds_b"]].to_numpy())) or 1e-6
    high = float(np.nanmax(both[["seconds_a", "seconds_b"]].to_numpy())) or 1.0
    ax.plot([low, high], [low, high], color="#999999", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"seconds: {name_a}")
    ax.set_ylabel(f"seconds: {name_b}")
    both["ratio"] = both["seconds_b"] / both["seconds_a"]
    table = both[["index", "status_a", "status_b", "seconds_a", "seconds_b", "ratio"]].sort_values(
        "ratio", ascending=False).head(20)
    return _svg(fig) + table.to_html(index=False, float_format="%.4g", border=0)


def _slowest(df: pd.DataFrame) -> str:
    parts = []
    plt = load_matplotlib()
    for _, row in df.nlargest(SLOWEST, "seconds").iterrows():
        try:
            puzzle = parse_puzzle(row["puzzle"], variant=row["variant"] if row["variant"] in ("classic", "x", "latin") else None)
            grid = parse_grid(row["solution"]) if isinstance(row["solution"], str) and row["solution"] else None
            fig = draw_grid(puzzle, grid, inches=2.6)
            picture = _svg(fig)
        except PipelineError as e:
            picture = f"<p>(not drawn: {html.escape(str(e))})</p>"
            plt.close("all")
        parts.append(f"<figure><figcaption>#{row['index']}: {row['seconds']:.4g} s, {row['nodes']} nodes, "
                     f"{html.escape(str(row['status']))}</figcaption>{picture}</figure>")
    return "<div class='grids'>" + "".join(parts) + "</div>"


def build_report(outs: list) -> str:
    """The HTML text of the report for one or more batch output directories."""
    frames = {Path(out).name or str(out): read_output(out) for out in outs}
    if len(frames) < len(outs):
        frames = {str(out): read_output(out) for out in outs}
    sections = []
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
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>Batch report</title>"
            f"<style>{style}</style></head><body><h1>Batch report</h1>"
            f"<p>{html.escape(', '.join(str(o) for o in outs))}</p>" + "".join(sections) + "</body></html>\n")


def cmd_report(args) -> int:
    text = build_report(args.outs)
    path = Path(args.to)
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix="." + path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    print(f"wrote {path}")
    return 0


def add_command(subparsers) -> None:
    """Register ``report``."""
    p = subparsers.add_parser("report", help="one self-contained HTML page for batch outputs")
    p.add_argument("outs", nargs="+", metavar="OUT", help="batch output directories")
    p.add_argument("--to", required=True, metavar="FILE", help="output .html")
    p.set_defaults(func=cmd_report)
