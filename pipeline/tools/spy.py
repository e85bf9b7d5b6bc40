"""Sparsity picture of the solver matrix ``Aeq`` (``[A; B]``) with each row family as a
labelled band (``python -m pipeline spy``): MATLAB's ``spy`` plus the labels it lacks.

A model with rules beyond units has ``=`` rule rows in ``Aeq`` (``cagesum``, between the units
and the clues) and ``<=`` rows in ``Aineq`` (``cage``, ``thermo``, ``kropki``, ``antiknight``, ...):
``Aineq`` is drawn below ``Aeq`` in the same panel, after a heavy line, with one labelled band
per family, and negative coefficients (the order rules' ``-v(c)``) are marked in red. A plain
model's picture is what it always was.

Small models draw one marker per nonzero; big ones (N >= 16, or many nonzeros) a binned
density image, so a 100x100 grid (10^6 columns, 4*10^6 nonzeros) draws in seconds.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import CLUE_ENCODINGS, Model
from pipeline.core.conventions import ORDERS, SCHEMES
from pipeline.tools.draw import load_matplotlib
from pipeline.core.errors import PipelineError
from pipeline.core.svg import BAND_COLOURS, SPY_INK, sparsity_bins  # shared with the notebook spy picture

if TYPE_CHECKING:  # annotations only: matplotlib is imported lazily
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

MARKER_LIMIT = 200_000  # nonzeros above which the picture is a density image
PIXELS = 800            # density image: at most this many bins per axis
LABEL_GAP = 0.045       # smallest distance between two band labels, as a fraction of the rows
MARKER = SPY_INK
NEGATIVE_MARKER = "#c0392b"   # negative coefficients (rows with rules only)


def row_bands(model: Model) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The row families of the solver view, in row order: ``Aeq``'s and ``Aineq``'s
    (:meth:`pipeline.core.build.Model.row_bands`).

    ``Aeq`` holds the units (``cell``, ``row``, ... and the units rules add: ``window``, ...),
    then the ``=`` rows of the rules (``cagesum``), then the clues; ``Aineq`` the ``<=`` rows of
    the rules, family by family.

    Returns
    -------
    tuple of lists
        ``([(family, rows), ...] of Aeq, [(family, rows), ...] of Aineq)``; the rows add up to
        ``model.n_rows`` and ``model.n_ineq``.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> from pipeline.core.build import build_model
    >>> cage = {"rule": "cage", "cells": ["r1c2", "r2c1"], "sum": 5}
    >>> row_bands(build_model(parse_puzzle("1" + "." * 15, rules=[cage])))
    ([('cell', 16), ('row', 16), ('col', 16), ('box', 16), ('cagesum', 1), ('clue', 1)], [])
    """
    return model.row_bands()


def solver_matrix(model: Model) -> sp.csr_matrix:
    """What ``spy`` draws: ``Aeq``, with ``Aineq`` below it when the model has rules (the
    model's ``constraint_matrix``, of which both are views: no stacked copy)."""
    return model.constraint_matrix


def density(model: Model, pixels: int = PIXELS) -> np.ndarray:
    """Nonzeros of ``model.Aeq`` (and ``Aineq`` below it) counted into an at most ``pixels`` x
    ``pixels`` image.

    Parameters
    ----------
    model : Model
        Its ``Aeq``.
    pixels : int
        Picture side in pixels (at most).

    Returns
    -------
    ndarray
        (rows_bins, col_bins) int64 counts.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> from pipeline.core.build import build_model
    >>> m = build_model(parse_puzzle("0" * 16))
    >>> int(density(m, 8).sum()) == m.nnz
    True
    """
    return sparsity_bins(solver_matrix(model), pixels, pixels)


def label_positions(centres: np.ndarray, n_rows: int, gap: float | None = None) -> np.ndarray:
    """Label heights for the bands: at the band centres, pushed apart to at least ``gap`` rows.

    Parameters
    ----------
    centres : ndarray
        Band centres, increasing (rows, top = 0).
    n_rows : int
        Rows of the matrix.
    gap : float, optional
        Smallest distance between labels (default ``LABEL_GAP * n_rows``).

    Returns
    -------
    ndarray
        One height per band, increasing, kept inside ``[0, n_rows]`` where the labels fit.

    Examples
    --------
    >>> label_positions(np.array([10.0, 50.0, 51.0, 52.0]), 100, gap=5).tolist()
    [10.0, 50.0, 55.0, 60.0]
    """
    gap = LABEL_GAP * n_rows if gap is None else gap
    ys = np.asarray(centres, dtype=float).copy()
    for i in range(1, ys.size):  # one pass per band family (at most ~8): not a hot path
        ys[i] = max(ys[i], ys[i - 1] + gap)
    overflow = ys[-1] - n_rows if ys.size else 0.0
    if overflow > 0:  # pushed below the matrix: pull the crowded tail back up
        for i in range(ys.size - 1, -1, -1):
            limit = n_rows if i == ys.size - 1 else ys[i + 1] - gap
            ys[i] = min(ys[i], limit)
    return ys


def spy_axes(ax: Axes, model: Model, title: str | None = None) -> None:
    """Draw ``model.Aeq`` (and ``Aineq`` below it) on ``ax`` with labelled row-family bands.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    model : Model
        Its ``Aeq``, ``Aineq`` and row families.
    title : str, optional
        Panel title.
    """
    matrix = solver_matrix(model)
    n_rows, n_cols = matrix.shape
    equal, below = row_bands(model)
    bands = equal + below
    bounds = np.cumsum([0] + [rows for _, rows in bands])
    centres = (bounds[:-1] + bounds[1:]) / 2
    labels = label_positions(centres, n_rows)
    for (family, _), top, bottom, centre, y in zip(bands, bounds[:-1], bounds[1:], centres, labels):
        ax.axhspan(top, bottom, color=BAND_COLOURS.get(family, "#eeeeee"), zorder=0, lw=0)
        ax.axhline(bottom, color="#999999", lw=0.5, zorder=1)
        thin = (bottom - top) < LABEL_GAP * n_rows
        # a thin band (diag, anti, a few clues) gets a one-line label, moved apart and pointing at it
        ax.annotate(f"{family}: {bottom - top} rows" if thin else f"{family}\n{bottom - top} rows",
                    xy=(0, centre), xycoords="data", xytext=(-0.01 * n_cols, y), textcoords="data",
                    ha="right", va="center", fontsize=8, annotation_clip=False,
                    arrowprops=dict(arrowstyle="-", color="#999999", lw=0.5) if abs(y - centre) > 1e-9 else None)
    if below:
        # Aineq under Aeq: a heavy line between them and each matrix named on the right
        ax.axhline(model.n_rows, color="#333333", lw=1.4, zorder=3)
        for name, top, bottom in (("Aeq (=)", 0, model.n_rows), ("Aineq (<=)", model.n_rows, n_rows)):
            ax.annotate(name, xy=(n_cols, (top + bottom) / 2), xytext=(0.01 * n_cols, 0), textcoords="offset points",
                        ha="left", va="center", rotation=90, fontsize=8, annotation_clip=False)
    if matrix.nnz <= MARKER_LIMIT and model.convention.n < 16:
        coo = matrix.tocoo()
        size = max(0.3, min(4.0, 300.0 / np.sqrt(max(n_rows, n_cols))))
        colour = np.where(coo.data < 0, NEGATIVE_MARKER, MARKER) if (coo.data < 0).any() else MARKER
        ax.scatter(coo.col + 0.5, coo.row + 0.5, s=size * size, marker="s", c=colour, lw=0, zorder=2)
    else:
        img = sparsity_bins(matrix, PIXELS, PIXELS)   # density() of the matrix already stacked
        # log scale: dense bins (cell rows) and sparse ones (clue rows) both stay visible
        shown = np.ma.masked_equal(np.log1p(img), 0)
        ax.imshow(shown, cmap="Blues", aspect="auto", interpolation="nearest", zorder=2,
                  extent=(0, n_cols, n_rows, 0), vmin=0, vmax=max(float(np.log1p(img.max())), 1.0))
    ax.set_xlim(0, n_cols)
    ax.set_ylim(n_rows, 0)
    ax.ticklabel_format(axis="x", style="plain", useOffset=False)
    nonzeros = f"nonzeros {model.nnz}" + (f" + {model.ineq_nnz}" if below else "")
    ax.set_xlabel(f"columns (variables): {n_cols}, {nonzeros}")
    ax.tick_params(labelsize=7)
    ax.set_yticks([])
    conv = model.convention
    shape = f"{model.n_rows} x {n_cols}" + (f" and {model.n_ineq} x {n_cols} (<=)" if below else "")
    ax.set_title(title or f"{conv.scheme} order {conv.order}, clues {model.clue_encoding}: {shape}", fontsize=10,
                 parse_math=False)   # a title as written: "$5 or $6^$" is no formula


def spy_figure(models: "list[Model] | Model") -> Figure:
    """One panel per model, side by side (one model: one panel); returns the matplotlib Figure."""
    if isinstance(models, Model):
        models = [models]
    if not isinstance(models, (list, tuple)) or not models or not all(isinstance(m, Model) for m in models):
        raise PipelineError(f"spy_figure: takes a Model or a list of them (build one with build_model), found "
                            f"{type(models).__name__}")
    plt = load_matplotlib()
    fig, axes = plt.subplots(1, len(models), figsize=(6.5 * len(models), 6), squeeze=False)
    for ax, model in zip(axes[0], models):
        spy_axes(ax, model)
    fig.tight_layout()
    return fig


def compare_convention(spec: str, scheme: str, order: str, clues: str) -> tuple[str, str, str]:
    """The second convention of ``--compare``: the first one with the parts ``spec`` names changed.

    Parameters
    ----------
    spec : str
        Scheme, order and/or clue encoding, in any order, separated by ``/`` (``C``, ``block``,
        ``block/C``, ``reduce``).
    scheme, order, clues : str
        The first convention.

    Returns
    -------
    tuple of str
        ``(scheme, order, clues)``.

    Raises
    ------
    PipelineError
        On a part that is no scheme, order or clue encoding, two of a kind, or a spec that changes
        nothing (two panels alike).

    Examples
    --------
    >>> compare_convention("C", "ijk", "F", "rows")
    ('ijk', 'C', 'rows')
    >>> compare_convention("block/C", "ijk", "F", "rows")
    ('block', 'C', 'rows')
    """
    chosen = {"scheme": scheme, "order": order, "clues": clues}
    named: dict[str, str] = {}
    parts = [part for part in spec.split("/") if part]
    if not parts:   # "" compared the convention with itself
        raise PipelineError(f"--compare {spec!r}: names no scheme ({', '.join(SCHEMES)}), order "
                            f"({', '.join(ORDERS)}) or clue encoding ({', '.join(CLUE_ENCODINGS)})")
    for part in parts:
        kind = ("scheme" if part in SCHEMES else "order" if part in ORDERS
                else "clues" if part in CLUE_ENCODINGS else None)
        if kind is None:
            raise PipelineError(f"--compare {spec!r}: {part!r} is no scheme ({', '.join(SCHEMES)}), order "
                                f"({', '.join(ORDERS)}) or clue encoding ({', '.join(CLUE_ENCODINGS)})")
        if kind in named and named[kind] != part:   # C/F: the last one won without a word
            raise PipelineError(f"--compare {spec!r}: names two {'clue encodings' if kind == 'clues' else kind + 's'}, "
                                f"{named[kind]!r} and {part!r}")
        named[kind] = chosen[kind] = part
    if (chosen["scheme"], chosen["order"], chosen["clues"]) == (scheme, order, clues):   # two panels alike
        raise PipelineError(f"--compare {spec!r}: names the convention drawn already ({scheme}/{order}, clues as "
                            f"{clues}): name a part that differs")
    return chosen["scheme"], chosen["order"], chosen["clues"]
