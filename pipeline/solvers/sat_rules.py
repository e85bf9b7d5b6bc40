"""The clauses the SAT engine (:mod:`pipeline.solvers.sat`) adds to a shape's unit rows: the
killer cages' digit combinations, the other rules' rows through their cardinality and
pseudo-Boolean encodings (the little killers' and arrows' as running sums, the region-sum
lines' and zippers' as running sums onto a shared total, :mod:`pipeline.solvers.sat_running`),
the sandwiches', X-sums' and lunchboxes' gated sums (:mod:`pipeline.solvers.sat_outside`), the little killers' combined sums (:mod:`pipeline.solvers.sat_combined`),
and a layout's absent cells fixed false (:func:`rules_beyond_units`)."""
from __future__ import annotations

import numpy as np

from pipeline.core.build import Model
from pipeline.core.clauses import encoding_bytes
from pipeline.core.clauses_cage import cage_combination_clauses, rule_row_labels
from pipeline.core.clauses_pb import ENGINE_BYTES_PER_TOKEN, EncodingOutlasts, EncodingTooLarge, encode_rows, rule_rows_csr
from pipeline.core.errors import PipelineError, SolveError
from pipeline.solvers.sat_combined import combined_sum_clauses
from pipeline.solvers.sat_outside import outside_sum_clauses
from pipeline.solvers.sat_running import EQUAL_SUMS, RUNNING_SUMS, running_sum_clauses

__all__ = ["CAGE_COMBINATIONS", "OUTSIDE_SUMS", "SETUP_SECONDS_PER_CLAUSE", "SetupOutlasts", "rules_beyond_units"]

#: Killer cages get their digit-combination clauses (:mod:`pipeline.core.clauses_cage`) in place
#: of their PB sum row. ISS's seven MATHEMAGIC_KILLERS entries that ran past 60 s with the PB row
#: alone are solved with the proof in docs/benchmarks.md's times ("Killer cages' combinations").
CAGE_COMBINATIONS = True
#: Seconds per clause of the rule rows' encoding to turn into lists and load into the solver, on a
#: quiet machine: ISS's "Circus Maximus" 9x9, 6.8 million clauses, took 10.3 s to encode, list
#: and load (1.5 us each; 5.5 us at load 6). Weighted rows can encode to far more clauses than
#: their nonzeros say, so a set-up that cannot end within the time left is refused before it
#: starts; one that runs slower than this (a loaded machine) is stopped at the deadline, which
#: the listing and the loading look at every slice.
SETUP_SECONDS_PER_CLAUSE = 1.5e-6
#: Encode the sandwich, X-sum and lunchbox clues by gated running sums (:mod:`pipeline.solvers.sat_outside`)
#: in place of their big-M rows (False: by those rows, as before).
OUTSIDE_SUMS = True


class SetupOutlasts(SolveError):
    """The engine's set-up alone would outlast the time limit (its message says why); ``solve``
    and ``count`` answer ``time_limit`` at once instead of overrunning the limit."""


def rules_beyond_units(model: Model, top: int, amo: str, *, view: bool = False,
                       cage_combinations: bool | None = None,
                       deadline: float | None = None) -> tuple[list[list[int]], int]:
    """The clauses the engine adds to the unit rows, and how many auxiliary variables they use
    (numbered ``top + 1 ..``): with ``cage_combinations``, the digit-combination clauses of the
    killer cages (:mod:`pipeline.core.clauses_cage`: exact with their distinctness, in place of
    their sum rows), the rows of the rules beyond units, then a unit clause ``-v`` for each
    position of a gattai layout's absent cells (no row holds them; fixed false, they never appear
    in a solution or a blocking clause).

    A shared engine (``view`` False) encodes ``model.R`` over all positions (variable = position
    + 1, clues left out so one engine serves every puzzle of the shape;
    :func:`pipeline.core.clauses_pb.encode_rows`); a one-puzzle engine (``view`` True) encodes
    the solver view's rule rows (:func:`pipeline.core.clauses_pb.encode_rule_rows`: a ``reduce``
    model's rows over its kept columns, the fixed values moved to the right-hand side), as the
    CNF writer does.

    Parameters
    ----------
    model : Model
        Any model of the shape.
    top : int
        The largest variable of the unit rows' encoding.
    amo : str
        The unit rows' at-most-one encoding (used for the bound-1 rule rows too).
    view : bool
        Encode the solver view's rule rows (a one-puzzle engine) instead of ``R``.
    cage_combinations : bool, optional
        Encode the killer cages' sums by their combinations (None: :data:`CAGE_COMBINATIONS`;
        False: every row by its own encoding, as before the combinations).
    deadline : float, optional
        ``time.perf_counter()`` value by which the engine must be ready: :class:`SetupOutlasts`
        when the encoding's clauses would take longer to list and load.

    Returns
    -------
    (list of list of int, int)

    Raises
    ------
    SolveError
        python-sat (with pindakaas for weighted rows) missing.
    """
    clauses: list[list[int]] = []
    n_aux = 0
    rows = model.R
    if rows.rhs.size:
        # the killer cages' combinations first (selectors top + 1 ..): their sum rows are left out
        cages = cage_combination_clauses(model, top, view=view) \
            if (CAGE_COMBINATIONS if cage_combinations is None else cage_combinations) else None
        # the clauses as lists in a solver, beside the unit rows' encoding: within the memory allowed
        units_need = encoding_bytes(model.unit_positions.size, model.convention.n, amo)
        # numpy CSR rows: encoding them never imports scipy (0.13-0.18 s of a killer's process)
        matrix, rhs, sense = rule_rows_csr(model) if view else (rows.csr, rows.rhs, rows.sense)
        var_of_col = model.columns.astype(np.int64) + 1 if view else np.arange(1, matrix.shape[1] + 1)
        # the little killers' and arrows' sums as running sums next (their rows are left out too)
        running = running_sum_clauses(model, top + (0 if cages is None else cages.n_aux), view=view,
                                      equal=EQUAL_SUMS, linear=RUNNING_SUMS) \
            if RUNNING_SUMS or EQUAL_SUMS else None
        # the sandwiches', X-sums' and lunchboxes' gated sums (their sum rows are left out too)
        outside = outside_sum_clauses(model, top + (0 if cages is None else cages.n_aux)
                                      + (0 if running is None else running.n_aux), view=view) if OUTSIDE_SUMS else None
        if (cages is not None and cages.labels) or (running is not None and running.clauses) \
                or (outside is not None and outside.clauses):
            labels = rule_row_labels(model, view)
            keep = np.ones(len(labels), dtype=bool)
            for made in (cages, running, outside):
                if made is not None:
                    keep &= made.keep_rows(labels)
            matrix, rhs, sense = matrix.take_rows(keep), rhs[keep], sense[keep]
        before = sum(0 if made is None else made.n_aux for made in (cages, running, outside))
        try:
            enc = encode_rows(matrix, rhs, sense, var_of_col, top=top + before,
                              amo=amo, deadline=deadline, bytes_per_token=ENGINE_BYTES_PER_TOKEN,
                              reserved_bytes=units_need, seconds_per_clause=SETUP_SECONDS_PER_CLAUSE)
        except EncodingOutlasts as e:
            raise SetupOutlasts(str(e)) from None
        except EncodingTooLarge as e:
            raise EncodingTooLarge(f"solver sat: {str(e).removesuffix(')')}, or another --solver)") from None
        except PipelineError as e:
            raise SolveError(f"solver sat: {e}") from None
        clauses = [clause for made in (cages, running, outside) if made is not None for clause in made.clauses]
        try:
            clauses += enc.clauses(deadline)
        except EncodingOutlasts as e:
            raise SetupOutlasts(str(e)) from None
        n_aux = enc.n_aux + before
        # the little killers' combined sums by their exclusion groups (their own rows cannot see them)
        combined, n_combined = combined_sum_clauses(model, top + n_aux, view=view)
        clauses += combined
        n_aux += n_combined
    if model.puzzle.layout is not None:
        absent = np.ones(model.convention.n_vars, dtype=bool)
        present = model.present_columns
        absent[present[present < absent.size]] = False    # (the auxiliary columns come after the canvas)
        clauses += (-(np.flatnonzero(absent) + 1))[:, None].tolist()
    return clauses, n_aux
