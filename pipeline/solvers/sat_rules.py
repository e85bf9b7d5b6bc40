"""The clauses the SAT engine (:mod:`pipeline.solvers.sat`) adds to a shape's unit rows: the rule
clauses of :func:`pipeline.core.clauses_rules.rule_clauses` (the killer cages' combinations,
running and gated sums, the remaining rows' cardinality and pseudo-Boolean encodings, the little
killers' combined sums: the same clauses the CNF writer gives external solvers), loaded within the
engine's memory and time limits, and a layout's absent cells fixed false (:func:`rules_beyond_units`)."""
from __future__ import annotations

import numpy as np

from pipeline.core import clauses_rules
from pipeline.core.build import Model
from pipeline.core.clauses import encoding_bytes
from pipeline.core.clauses_pb import ENGINE_BYTES_PER_TOKEN, EncodingOutlasts, EncodingTooLarge
from pipeline.core.clauses_rules import RowsUnencodable, rule_clauses
from pipeline.core.errors import SolveError

__all__ = ["SETUP_SECONDS_PER_CLAUSE", "SetupOutlasts", "rules_beyond_units"]

#: Seconds per clause of the rule rows' encoding to turn into lists and load into the solver, on a
#: quiet machine: ISS's "Circus Maximus" 9x9, 6.8 million clauses, took 10.3 s to encode, list
#: and load (1.5 us each; 5.5 us at load 6). Weighted rows can encode to far more clauses than
#: their nonzeros say, so a set-up that cannot end within the time left is refused before it
#: starts; one that runs slower than this (a loaded machine) is stopped at the deadline, which
#: the listing and the loading look at every slice.
SETUP_SECONDS_PER_CLAUSE = 1.5e-6


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
    the solver view's rule rows (a ``reduce`` model's rows over its kept columns, the fixed values
    moved to the right-hand side), as the CNF writer does
    (:func:`pipeline.core.clauses_rules.rule_clauses`, the switches of its module).

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
        Encode the killer cages' sums by their combinations (None:
        :data:`pipeline.core.clauses_rules.CAGE_COMBINATIONS`;
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
    if model.R.rhs.size:
        encodings = clauses_rules.current_encodings()
        if cage_combinations is not None:
            encodings["cage_combinations"] = cage_combinations
        # the clauses as lists in a solver, beside the unit rows' encoding: within the memory allowed
        units_need = encoding_bytes(model.unit_positions.size, model.convention.n, amo)
        try:
            made = rule_clauses(model, top, amo, view=view, encodings=encodings, deadline=deadline,
                                bytes_per_token=ENGINE_BYTES_PER_TOKEN, reserved_bytes=units_need,
                                seconds_per_clause=SETUP_SECONDS_PER_CLAUSE)
        except EncodingOutlasts as e:
            raise SetupOutlasts(str(e)) from None
        except EncodingTooLarge as e:
            raise EncodingTooLarge(f"solver sat: {str(e).removesuffix(')')}, or another --solver)") from None
        except RowsUnencodable as e:
            raise SolveError(f"solver sat: {e}") from None
        try:
            clauses = made.clauses(deadline)
        except EncodingOutlasts as e:
            raise SetupOutlasts(str(e)) from None
        n_aux = made.n_aux
    if model.puzzle.layout is not None:
        absent = np.ones(model.convention.n_vars, dtype=bool)
        present = model.present_columns
        absent[present[present < absent.size]] = False    # (the auxiliary columns come after the canvas)
        clauses += (-(np.flatnonzero(absent) + 1))[:, None].tolist()
    return clauses, n_aux
