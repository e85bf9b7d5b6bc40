"""The clauses of a model's rules beyond its unit rows, one encoding for every SAT consumer: the
in-process engine (:mod:`pipeline.solvers.sat_rules`) and the DIMACS CNF writer
(:mod:`formats.cnf`, which external SAT solvers read) take them from :func:`rule_clauses`.

In order: the killer cages' digit combinations (:mod:`pipeline.core.clauses_cage`), the little
killers' and arrows' running sums and the region-sum lines' and zippers' shared totals
(:mod:`pipeline.core.clauses_running`), the sandwiches', X-sums' and lunchboxes' gated sums
(:mod:`pipeline.core.clauses_outside`), the full-rank clues' comparisons
(:mod:`pipeline.core.clauses_fullrank`), the skyscraper clues' running maxima
(:mod:`pipeline.core.clauses_skyscraper`), the hidden skyscraper clues' taller and rise conditions
(:mod:`pipeline.core.clauses_hidden_skyscraper`) -- each in place of its rows --, the chaos
construction's region clauses (:mod:`pipeline.core.clauses_chaos`, beside its rows), the remaining rule rows
through their cardinality and pseudo-Boolean encodings (:mod:`pipeline.core.clauses_pb`), then
the little killers' combined sums (:mod:`pipeline.core.clauses_combined`). Their auxiliary
variables follow ``top`` in that order. Each part has a switch (:data:`CAGE_COMBINATIONS`,
:data:`pipeline.core.clauses_running.RUNNING_SUMS`, ``EQUAL_SUMS``, ``EQUALSUM_SEGMENTS``, ``PREFIX_SUMS`` and
``WEIGHTED_SUMS``, :data:`OUTSIDE_SUMS`,
:data:`pipeline.core.clauses_outside.LUNCHBOX_ENDS`, :data:`pipeline.core.clauses_fullrank.FULL_RANK`,
:data:`pipeline.core.clauses_skyscraper.SKYSCRAPERS`,
:data:`pipeline.core.clauses_hidden_skyscraper.HIDDEN_SKYSCRAPERS`, :data:`pipeline.core.clauses_chaos.CHAOS_REGIONS`,
:data:`COMBINED_SUMS`); a CNF file records
the settings it was written with (:func:`current_encodings`), and with all of them off the rule
clauses are the rows' own encoding (:func:`pipeline.core.clauses_pb.encode_rule_rows`), as CNF
files were written before.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from pipeline.core import (clauses_chaos, clauses_fullrank, clauses_hidden_skyscraper, clauses_outside,
                           clauses_running, clauses_skyscraper)
from pipeline.core.build import Model
from pipeline.core.clauses_chaos import region_clauses
from pipeline.core.clauses_cage import cage_combination_clauses, rule_row_labels
from pipeline.core.clauses_combined import combined_sum_clauses
from pipeline.core.clauses_fullrank import full_rank_clauses
from pipeline.core.clauses_hidden_skyscraper import hidden_skyscraper_clauses
from pipeline.core.clauses_outside import outside_sum_clauses
from pipeline.core.clauses_pb import (DEFAULT_CARD, DEFAULT_PB, ENCODE_BYTES_PER_TOKEN, EncodingOutlasts,
                                      EncodingTooLarge, RuleClauses, encode_rows, rule_rows_csr)
from pipeline.core.clauses_running import running_sum_clauses
from pipeline.core.clauses_skyscraper import skyscraper_clauses
from pipeline.core.errors import PipelineError

__all__ = ["CAGE_COMBINATIONS", "COMBINED_SUMS", "ENCODING_KEYS", "OUTSIDE_SUMS", "RowsUnencodable", "RuleEncoding",
           "current_encodings", "list_tokens", "rule_clauses"]

#: Killer cages get their digit-combination clauses (:mod:`pipeline.core.clauses_cage`) in place
#: of their PB sum row. ISS's seven MATHEMAGIC_KILLERS entries that ran past 60 s with the PB row
#: alone are solved with the proof in docs/benchmarks.md's times ("Killer cages' combinations").
CAGE_COMBINATIONS = True
#: Encode the sandwich, X-sum and lunchbox clues by gated running sums (:mod:`pipeline.core.clauses_outside`)
#: in place of their big-M rows (False: by those rows, as before).
OUTSIDE_SUMS = True
#: Add the little killers' combined sums (:mod:`pipeline.core.clauses_combined`).
COMBINED_SUMS = True
#: The switches :func:`rule_clauses` takes, as a CNF file's facts name them.
ENCODING_KEYS = ("cage_combinations", "running_sums", "equal_sums", "equalsum_segments", "outside_sums", "lunchbox_ends",
                 "combined_sums", "prefix_sums", "weighted_sums", "full_rank", "skyscrapers",
                 "hidden_skyscrapers", "chaos_regions")


class RowsUnencodable(PipelineError):
    """The remaining rule rows' encoding failed (an unknown encoding, python-sat or pindakaas
    missing): the message is :func:`pipeline.core.clauses_pb.encode_rows`' own."""


def current_encodings() -> dict[str, bool]:
    """The switches' settings now, by :data:`ENCODING_KEYS` (what :func:`rule_clauses` uses by default).

    Examples
    --------
    >>> sorted(current_encodings()) == sorted(ENCODING_KEYS)
    True
    """
    return {"cage_combinations": bool(CAGE_COMBINATIONS), "running_sums": bool(clauses_running.RUNNING_SUMS),
            "equal_sums": bool(clauses_running.EQUAL_SUMS),
            "equalsum_segments": bool(clauses_running.EQUALSUM_SEGMENTS), "outside_sums": bool(OUTSIDE_SUMS),
            "lunchbox_ends": bool(clauses_outside.LUNCHBOX_ENDS), "combined_sums": bool(COMBINED_SUMS),
            "prefix_sums": bool(clauses_running.PREFIX_SUMS), "weighted_sums": bool(clauses_running.WEIGHTED_SUMS),
            "full_rank": bool(clauses_fullrank.FULL_RANK), "skyscrapers": bool(clauses_skyscraper.SKYSCRAPERS),
            "hidden_skyscrapers": bool(clauses_hidden_skyscraper.HIDDEN_SKYSCRAPERS),
            "chaos_regions": bool(clauses_chaos.CHAOS_REGIONS)}


def list_tokens(clauses: list[list[int]]) -> np.ndarray:
    """Clauses as int64 literals, each clause ended by 0 (as :class:`RuleClauses`' ``tokens``).

    Examples
    --------
    >>> list_tokens([[1, -2], [3]]).tolist()
    [1, -2, 0, 3, 0]
    """
    if not clauses:
        return np.zeros(0, np.int64)
    length = np.fromiter(map(len, clauses), dtype=np.int64, count=len(clauses))
    out = np.zeros(int(length.sum()) + length.size, np.int64)
    ends = np.cumsum(length + 1) - 1
    literal = np.ones(out.size, dtype=bool)
    literal[ends] = False
    out[literal] = np.fromiter(chain.from_iterable(clauses), dtype=np.int64, count=int(length.sum()))
    return out


@dataclass
class RuleEncoding:
    """:func:`rule_clauses`' answer: ``head`` the dedicated encodings' clauses (cages, running and
    gated sums), ``rows`` the remaining rule rows' encoding (None when none were encoded),
    ``tail`` the combined sums' clauses; ``n_aux`` auxiliary variables from ``first_aux`` on;
    ``n_rows`` the rule rows; ``encodings`` the switches used (:func:`current_encodings`)."""

    head: list[list[int]]
    rows: RuleClauses | None
    tail: list[list[int]]
    n_aux: int
    first_aux: int
    n_rows: int
    card: str
    pb: str
    amo: str
    encodings: dict

    @property
    def n_clauses(self) -> int:
        """Every clause, in all three parts."""
        return len(self.head) + (0 if self.rows is None else self.rows.n_clauses) + len(self.tail)

    @property
    def tokens(self) -> np.ndarray:
        """Every clause's literals, each clause ended by 0, in order (head, rows, tail)."""
        parts = [list_tokens(self.head), *(() if self.rows is None else (self.rows.tokens,)), list_tokens(self.tail)]
        return np.concatenate(parts)

    def clauses(self, deadline: float | None = None) -> list[list[int]]:
        """Every clause as a list, in order (``deadline``: :meth:`RuleClauses.clauses`' listing limit).

        Parameters
        ----------
        deadline : float, optional
            A ``time.perf_counter()`` value (:class:`pipeline.core.clauses_pb.EncodingOutlasts`
            once it passed while the rows' clauses are listed).

        Returns
        -------
        list of list of int
        """
        out = list(self.head)
        if self.rows is not None:
            out += self.rows.clauses(deadline)
        return out + self.tail

    def facts(self) -> dict:
        """What a CNF export records of them (``c sudoku-pipeline-cnf:`` line, manifest)."""
        return {"rows": self.n_rows, "clauses": self.n_clauses, "card": self.card, "pb": self.pb, "amo": self.amo,
                "aux_variables": [self.first_aux, self.first_aux + self.n_aux - 1] if self.n_aux else [],
                "encodings": dict(self.encodings),
                "aux_rule": "the cages', running and gated sums' clauses, each rule row left in order (the "
                            "rules' = rows of Aeq, then Aineq), then the combined sums, each a contiguous block"}


def rule_clauses(model: Model, top: int, amo: str, *, view: bool, card: str = DEFAULT_CARD, pb: str = DEFAULT_PB,
                 encodings: dict | None = None, deadline: float | None = None,
                 bytes_per_token: int = ENCODE_BYTES_PER_TOKEN, reserved_bytes: int = 0,
                 seconds_per_clause: float = 0.0) -> RuleEncoding:
    """The clauses of ``model``'s rules beyond its unit rows (module docstring), auxiliary
    variables numbered ``top + 1 ..``.

    A shared engine (``view`` False) encodes ``model.R`` over all positions (variable = position
    + 1, clues left out so one engine serves every puzzle of the shape); a one-puzzle engine and
    the CNF writer (``view`` True) encode the solver view's rule rows
    (:func:`pipeline.core.clauses_pb.rule_rows_csr`: a ``reduce`` model's rows over its kept
    columns, the fixed values moved to the right-hand side).

    Parameters
    ----------
    model : Model
        Any model of the shape (``view``: the puzzle's own).
    top : int
        The largest variable of the unit rows' encoding.
    amo : str
        The unit rows' at-most-one encoding (used for the bound-1 rule rows too).
    view : bool
        Encode the solver view's rule rows instead of ``R``.
    card, pb : str
        Encodings of the remaining rows (:func:`pipeline.core.clauses_pb.encode_rows`).
    encodings : dict, optional
        The switches by :data:`ENCODING_KEYS` (a key left out is off); None: :func:`current_encodings`.
    deadline, bytes_per_token, reserved_bytes, seconds_per_clause
        As in :func:`pipeline.core.clauses_pb.encode_rows` (the SAT engine's set-up limits).

    Returns
    -------
    RuleEncoding

    Raises
    ------
    RowsUnencodable
        python-sat (with pindakaas for weighted rows) missing, or an unknown encoding.
    EncodingTooLarge, EncodingOutlasts
        The encoding's limits (:mod:`pipeline.core.clauses_pb`).

    Examples
    --------
    >>> from pipeline import build_model, parse_puzzle
    >>> model = build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "thermo", "cells": ["r1c1", "r1c2"]}]}'))
    >>> enc = rule_clauses(model, 64, "pairwise", view=True)
    >>> enc.n_rows, enc.first_aux, enc.n_clauses > 0
    (1, 65, True)
    """
    on = current_encodings() if encodings is None else {key: bool(encodings.get(key)) for key in ENCODING_KEYS}
    rows = model.R
    if not rows.rhs.size:
        return RuleEncoding([], None, [], 0, top + 1, 0, card, pb, amo, on)
    matrix, rhs, sense = rule_rows_csr(model) if view else (rows.csr, rows.rhs, rows.sense)
    n_rows = int(rhs.size)
    # the killer cages' combinations first (selectors top + 1 ..): their sum rows are left out
    cages = cage_combination_clauses(model, top, view=view) if on["cage_combinations"] else None
    at = top + (0 if cages is None else cages.n_aux)
    # the little killers' and arrows' sums as running sums next (their rows are left out too)
    running = running_sum_clauses(model, at, view=view, equal=on["equal_sums"], linear=on["running_sums"],
                                  segments=on["equalsum_segments"], prefixes=on["prefix_sums"],
                                  weighted=on["weighted_sums"]) \
        if on["running_sums"] or on["equal_sums"] or on["equalsum_segments"] else None
    at += 0 if running is None else running.n_aux
    # the sandwiches', X-sums' and lunchboxes' gated sums (their sum rows are left out too)
    outside = outside_sum_clauses(model, at, view=view, lunchbox_ends=on["lunchbox_ends"]) \
        if on["outside_sums"] else None
    at += 0 if outside is None else outside.n_aux
    # the full-rank clues' comparisons (over the rule's own auxiliary columns: no variables of their own)
    ranks = full_rank_clauses(model, view=view) if on["full_rank"] else None
    # the skyscraper clues' seen and hidden conditions over running maxima (their count rows stay)
    towers = skyscraper_clauses(model, at, view=view) if on["skyscrapers"] else None
    at += 0 if towers is None else towers.n_aux
    # the hidden skyscraper clues' taller and rise conditions over a suffix "or" (their one-place rows stay)
    hidden = hidden_skyscraper_clauses(model, at, view=view) if on["hidden_skyscrapers"] else None
    # the chaos construction's region clauses (beside its rows: none replaced)
    regions = region_clauses(model, view=view) if on["chaos_regions"] else None
    made = [part for part in (cages, running, outside, ranks, towers, hidden, regions) if part is not None]
    var_of_col = model.columns.astype(np.int64) + 1 if view else np.arange(1, matrix.shape[1] + 1)
    if (cages is not None and cages.labels) or (running is not None and running.clauses) \
            or (outside is not None and outside.clauses) or (ranks is not None and ranks.clauses) \
            or (towers is not None and towers.clauses) or (hidden is not None and hidden.clauses):
        labels = rule_row_labels(model, view)
        keep = np.ones(len(labels), dtype=bool)
        for part in made:
            keep &= part.keep_rows(labels)
        matrix, rhs, sense = matrix.take_rows(keep), rhs[keep], sense[keep]
    before = sum(part.n_aux for part in made)
    try:
        enc = encode_rows(matrix, rhs, sense, var_of_col, top=top + before, card=card, pb=pb, amo=amo,
                          deadline=deadline, bytes_per_token=bytes_per_token, reserved_bytes=reserved_bytes,
                          seconds_per_clause=seconds_per_clause)
    except (EncodingOutlasts, EncodingTooLarge):
        raise
    except PipelineError as e:
        raise RowsUnencodable(str(e)) from None
    head = [clause for part in made for clause in part.clauses]
    n_aux = before + enc.n_aux
    # the little killers' combined sums by their exclusion groups (their own rows cannot see them)
    tail, n_combined = combined_sum_clauses(model, top + n_aux, view=view) if on["combined_sums"] else ([], 0)
    return RuleEncoding(head, enc, tail, n_aux + n_combined, top + 1, n_rows, enc.card, enc.pb, enc.amo, on)
