"""generate with rules beyond units (--rule, --killer, --cages-only): every puzzle has exactly one
solution by an independent HiGHS count, its solution obeys the rules (verify), seeds reproduce,
cages-only killers have no givens, and the output carries the rules in every format."""
import csv
import io
import json
import subprocess
import sys

import numpy as np
import pytest

from oracles import PROJECT
from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.core.verify import grid_violations, verify_grid
from pipeline.solvers.highs import count_solutions as highs_count
from pipeline.tools.generate import generate
from pipeline.tools.generate.engine import count_up_to, counting_engine, engine_for
from pipeline.tools.generate.killer import random_cages

RULE_SHAPES = [(4, ["antiknight"]), (6, ["antiknight"]), (6, ["nonconsecutive"]), (9, ["windoku"]),
               (9, ["antiknight"]), (9, ["windoku", "antiknight"]), (6, ["antiking"])]


def highs_unique(puzzle) -> int:
    return highs_count(build_model(puzzle, "ijk", "C", clues="bounds"), limit=2).count


@pytest.mark.parametrize("size,kinds", RULE_SHAPES)
def test_rule_puzzles_are_unique_obey_their_rules_and_reproduce(size, kinds):
    rules = [{"rule": k} for k in kinds]
    g = next(generate(size=size, seed=5, rules=rules))
    p = g.puzzle
    assert sorted(r.kind for r in p.rules) == sorted(kinds)
    assert highs_unique(p) == 1
    assert verify_grid(g.solution, p).ok, grid_violations(g.solution, p)
    assert 0 < p.n_clues < size * size
    again = next(generate(size=size, seed=5, rules=rules))
    assert again.puzzle == p and np.array_equal(again.solution, g.solution)


def test_windoku_solution_uses_its_windows():
    """The windows are units: a classic grid of the same seed would break one almost surely; the
    generated one never does (verify checks the windows)."""
    g = next(generate(size=9, seed=2, rules=[{"rule": "windoku"}]))
    windows = [u for name, u in g.puzzle.unit_families() if name == "window"][0]
    for unit in windows:
        assert sorted(g.solution.ravel()[unit]) == list(range(1, 10))


def test_rule_puzzle_is_minimal_when_every_check_decided():
    g = next(generate(size=6, seed=1, rules=[{"rule": "antiknight"}]))
    assert g.minimal is True
    p = g.puzzle
    for cell in np.flatnonzero(p.grid):
        grid = np.array(p.grid)
        grid.flat[cell] = 0
        fewer = parse_puzzle(p.to_document() | {"givens": "".join(map(str, grid.ravel())).replace("0", ".")})
        assert highs_unique(fewer) == 2


@pytest.mark.parametrize("size", [4, 6, 9])
def test_killer_with_givens_is_unique(size):
    g = next(generate(size=size, seed=3, killer=True))
    p = g.puzzle
    assert p.rules and all(r.kind == "cage" for r in p.rules)
    cells = np.concatenate([r.cells() for r in p.rules])
    assert sorted(cells.tolist()) == list(range(size * size))     # the cages partition the grid
    assert highs_unique(p) == 1
    assert verify_grid(g.solution, p).ok


@pytest.mark.parametrize("size,seed", [(4, 0), (4, 1), (6, 0), (6, 7)])
def test_cages_only_killer_has_no_givens_and_is_unique(size, seed):
    g = next(generate(size=size, seed=seed, cages_only=True))
    p = g.puzzle
    assert g.killer is not None and g.killer["givens"] == 0
    assert p.n_clues == 0
    assert highs_unique(p) == 1
    assert verify_grid(g.solution, p).ok
    for rule in p.rules:   # 2..5 cells drawn; a cell left alone joins a neighbouring cage (one more)
        assert 2 <= rule.cells().size <= min(5 + 1, size)
    again = next(generate(size=size, seed=seed, cages_only=True))
    assert again.puzzle == p


def test_random_cages_are_connected_with_distinct_digits():
    solution = next(generate(size=9, seed=4, full=True)).solution
    cages = random_cages(solution, np.random.default_rng(0))
    assert sorted(c for cage in cages for c in cage) == list(range(81))
    for cage in cages:
        digits = solution.ravel()[list(cage)]
        assert len(set(digits.tolist())) == len(cage)
        rows, cols = np.divmod(np.array(cage), 9)
        seen, todo = {cage[0]}, [cage[0]]
        while todo:
            r, c = divmod(todo.pop(), 9)
            for nb in ((r - 1) * 9 + c, (r + 1) * 9 + c, r * 9 + c - 1, r * 9 + c + 1):
                if nb in cage and nb not in seen and abs(nb // 9 - r) + abs(nb % 9 - c) == 1:
                    seen.add(nb)
                    todo.append(nb)
        assert len(seen) == len(cage)


@pytest.mark.parametrize("rules", [[{"rule": "antiknight"}, {"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}],
                                   [{"rule": "cage", "cells": ["r1c1", "r2c2"], "sum": 5}],
                                   [{"rule": "nonconsecutive"}, {"rule": "windoku"}]])
def test_counting_engines_agree_with_highs(rules):
    """The SAT engine (default for rule rows, which it encodes), the lazy engine, the HiGHS engine
    and HiGHS's own count agree (every solution of an empty 4x4, none of the counts at the cap)."""
    p = parse_puzzle("." * 16, rules=rules)
    assert counting_engine(p) == "sat"
    assert counting_engine(p, "lazy") == "lazy" and counting_engine(p, "highs") == "highs"
    grid = np.asarray(p.grid)
    expected = highs_count(build_model(p, "ijk", "C", clues="bounds"), limit=1000).count
    assert expected < 1000
    assert engine_for(p).count(grid, 1000) == expected == engine_for(p, "lazy").count(grid, 1000) \
        == engine_for(p, "highs").count(grid, 1000)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, cwd=PROJECT)


def test_cli_rule_line_is_a_document_that_reads_back():
    r = run_cli("generate", "--size", "6", "--rule", "antiknight", "--seed", "2", "-n", "2")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    for line in lines:
        doc = json.loads(line)
        assert doc["rules"] == [{"rule": "antiknight"}]
        assert highs_unique(parse_puzzle(line)) == 1
    count = subprocess.run([sys.executable, "-m", "pipeline", "count", "-"], input=lines[0], capture_output=True,
                           text=True, cwd=PROJECT)
    assert count.returncode == 0 and count.stdout.strip() == "1 (unique)", count.stderr


def test_cli_killer_csv_and_json_carry_the_cages():
    r = run_cli("generate", "--size", "6", "--cages-only", "--seed", "1", "--format", "csv")
    assert r.returncode == 0, r.stderr
    row = next(csv.DictReader(io.StringIO(r.stdout)))
    rules = json.loads(row["rules"])
    assert row["clues"] == "0" and rules and all(e["rule"] == "cage" and "sum" in e for e in rules)
    r = run_cli("generate", "--size", "6", "--cages-only", "--seed", "1", "--format", "json")
    d = json.loads(r.stdout)
    assert d["rules"] == rules and d["killer"]["givens"] == 0
    assert highs_unique(parse_puzzle(json.dumps(d["document"]))) == 1


def test_cli_refusals():
    r = run_cli("generate", "--size", "6", "--killer", "--format", "grid", "--seed", "1")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1] == \
        "error: format: a grid cannot carry rules; use --format line (puzzle documents), json or csv"
    r = run_cli("generate", "--rule", "nosuchrule")
    assert r.returncode == 2 and "unknown rule 'nosuchrule'" in r.stderr
    r = run_cli("generate", "--rule", "windoku", "--box", "2x3", "--seed", "1")   # named as solve names it
    assert r.returncode == 2 and r.stderr.startswith("error: --rule 1 (windoku): windoku windows do not fit"), r.stderr
    with pytest.raises(PuzzleError, match="no 4x4 classic grid obeys nonconsecutive"):
        next(generate(size=4, seed=1, rules=[{"rule": "nonconsecutive"}]))
    with pytest.raises(PuzzleError, match="draw their own cages"):
        next(generate(size=6, seed=1, killer=True, rules=[{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]))
    with pytest.raises(PuzzleError, match=r"^generate: minimal=True cannot be combined with rules: it proves "
                                          r"minimality for puzzles of units only \(without it, clues are still"):
        next(generate(size=6, seed=1, rules=[{"rule": "antiknight"}], minimal=True))
    with pytest.raises(PuzzleError, match=r"^generate: transform=True cannot be combined with killer=True: "):
        next(generate(size=6, seed=1, killer=True, transform=True))
    with pytest.raises(PuzzleError, match=r"^generate: cages_only=True cannot be combined with full=True: "):
        next(generate(size=6, seed=1, cages_only=True, full=True))


@pytest.mark.parametrize("options, words", [
    (dict(full=True, symmetry="rot90"), r"^generate: symmetry='rot90' cannot be combined with full=True: "),
    (dict(full=True, clues=30), r"^generate: clues=30 cannot be combined with full=True: a full grid keeps every clue$"),
    (dict(killer=True, cages_only=True), r"^generate: killer=True cannot be combined with cages_only=True: killer=True keeps "),
    (dict(cages_only=True, clues=5), r"^generate: clues=5 cannot be combined with cages_only=True: its puzzles have"),
    (dict(cages_only=True, symmetry="rot180"), r"^generate: symmetry='rot180' cannot be combined with cages_only=True: "
                                               r"the symmetry is the pattern of the givens, and its puzzles have none$"),
    (dict(rule_count=3), r"^generate: rule_count=3 needs rules: it is how many instances of each rules family "),
    (dict(rules=["chaos"]), r"^generate: rules\[0\] \(chaos\): the chaos rule alone changes no grid "),   # ran minutes
    # said 'needs the values 0-9 ("values": "0-9")', a key neither --rule nor generate takes
    (dict(rules=["doppelganger"]), r"^generate: rules\[0\] \(doppelganger\): its grid holds the values 0-9, and "
                                   r"generate makes grids of the values 1-9 only; write a Doppelganger puzzle in a "
                                   r"puzzle document with \"values\": \"0-9\"$"),
    (dict(rules=["thermo"], rule_count=10 ** 11), r"^rule_count: must be from 1 to 162 on a 9x9 grid \(no "
                                                  r"family has more instances there\), found 100000000000$"),
    (dict(rules=["thermo"], rule_count=0), r"^rule_count: must be from 1 to 162 on a 9x9 grid"),
])
def test_options_that_would_be_ignored_or_never_end_are_refused(options, words):
    """An outside probe: --full dropped --symmetry and --clues silently (or said 'reached 81 clues,
    not the 30 asked'), --killer with --cages-only and --rule-count without --rule were ignored, and
    --rule-count 10**11 drew instances for minutes past --time-limit."""
    rules = [{"rule": kind} for kind in options.pop("rules", [])] or None
    with pytest.raises(PuzzleError, match=words):
        generate(size=9, seed=1, rules=rules, **options)


def test_a_cages_only_16x16_stops_at_its_time_limit():
    """Each refinement round asks the learning engine for another solution; that search had no
    deadline, so ``--cages-only --size 16 --time-limit 5`` ran until killed (the API alike)."""
    import time

    started = time.perf_counter()
    assert list(generate(size=16, seed=1, cages_only=True, time_limit=1.5)) == []
    assert time.perf_counter() - started < 30


def test_sat_engine_cache_keys_shapes_by_their_rules():
    """A windoku's windows are units of A: the cached SAT engine of a classic 9x9 must not answer
    for it (it did before the rules were part of the cache key)."""
    g = next(generate(size=9, seed=2, rules=[{"rule": "windoku"}]))
    classic = Puzzle(g.puzzle.grid, 3, 3)
    assert count_up_to(classic, 2) == 2          # the classic engine of the size is now cached
    assert counting_engine(g.puzzle) == "sat" and count_up_to(g.puzzle, 2) == 1
    assert highs_unique(g.puzzle) == 1


@pytest.mark.parametrize("argv, words", [
    (["--full", "--symmetry", "rot90"], "error: generate: --symmetry rot90 cannot be combined with --full: "),
    (["--full", "--clues", "30"], "error: generate: --clues 30 cannot be combined with --full: a full grid keeps"),
    (["--killer", "--cages-only"], "error: generate: --killer cannot be combined with --cages-only: --killer keeps"),
    (["--rule-count", "3"], "error: generate: --rule-count 3 needs --rule: it is how many instances of each --rule "),
    (["--rule", "antiknight", "--minimal"], "error: generate: --minimal cannot be combined with --rule: it proves"),
    (["--rule", "thermo", "--rule-count", "0"], "error: --rule-count: must be from 1 to 162 on a 9x9 grid"),
    (["--full", "--difficulty", "easy"], "error: generate: --difficulty easy rates a puzzle's clues; a --full grid"),
    (["--killer", "--rule", '{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}'], "error: generate: --killer and --cages-only draw their own cages; "
                                                 "give no cage with --rule"),
])
def test_the_command_line_names_the_options_as_typed(argv, words, capsys):
    # the API says minimal=True, the command line --minimal: one message, two spellings
    assert main(["generate", "--seed", "1", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(words) and err.count("\n") == 1, err


def test_rule_errors_name_each_entry_where_it_was_given_in_python_and_on_the_command_line(capsys):
    """A helper's API round: ``generate(rules=["antiknight"])`` said "--rule 1: ...", the command
    line's spelling; and a fixed entry after a sampled one was named by its place among the fixed
    ones ("--rule 1" for the second --rule)."""
    bad_cage = {"rule": "cage", "cells": ["r1c1"], "sum": 99}
    with pytest.raises(PuzzleError, match=r"^rules\[0\]: a rule is an object like"):
        next(generate(rules=["antiknight"], size=4, seed=1))
    with pytest.raises(PuzzleError, match=r"^rules\[1\] \(cage\): cage r1c1 sum 99 cannot be made"):
        next(generate(rules=[{"rule": "thermo"}, bad_cage], size=4, seed=1))
    assert main(["generate", "--size", "4", "--seed", "1", "--rule", "thermo", "--rule", json.dumps(bad_cage)]) == 2
    assert capsys.readouterr().err.startswith("error: --rule 2 (cage): cage r1c1 sum 99 cannot be made")


@pytest.mark.parametrize("size,options", [(2, {"rules": [{"rule": "cage"}]}), (3, {"rules": [{"rule": "thermo"}]}),
                                          (3, {"killer": True}), (3, {"cages_only": True})])
def test_latin_squares_below_4x4_take_rules(size, options):
    # the rules were read on a classic board of the side: "a 3x3 grid is not a puzzle: classic
    # puzzles are 4x4 and larger (a Latin square from 2x2: --variant latin)", to --variant latin
    g = next(generate(size=size, variant="latin", seed=1, **options))
    p = g.puzzle
    assert p.variant == "latin" and p.n == size and p.rules
    assert highs_unique(p) == 1
    assert verify_grid(g.solution, p).ok
