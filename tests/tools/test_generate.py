"""generate: every puzzle has exactly one solution (proved by the SAT engine and checked here by
an independent count), --minimal puzzles lose uniqueness when any clue is removed, seeds
reproduce, regions are connected partitions, the CLI output feeds batch."""
import csv
import gzip
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from oracles import PROJECT, is_valid_solution
from pipeline.batch import read_records
from pipeline.core.errors import PuzzleError
from pipeline.core.propagate import propagate_puzzle, solved_by_singles
from pipeline.solvers import sat
from pipeline.tools.generate import puzzles
from pipeline.tools.generate import (DifficultyNotReached, count_up_to, engine_for, generate, iter_formatted, random_regions,
                                     removable_clues, symmetry_orbits, transform_grid)
from pipeline.tools.rate import rate
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.core.variants import VARIANT_TABLE
from pipeline.solvers.highs import count_solutions as highs_count
from pipeline.core.build import build_model

SHAPES = [(None, 4, "classic"), ("2x3", None, "classic"), ("3x2", None, "classic"), (None, 9, "classic"),
          (None, 9, "x"), (None, 9, "jigsaw"), (None, 6, "jigsaw_x"), (None, 5, "latin"), ("2x4", None, "classic")]


def without(p: Puzzle, cell: int) -> Puzzle:
    grid = np.array(p.grid)
    grid.flat[cell] = 0
    return Puzzle(grid, p.h, p.w, p.variant, p.regions)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), shape=st.sampled_from(SHAPES))
def test_generated_puzzles_are_unique_and_minimal(seed, shape):
    box, size, variant = shape
    g = next(generate(box=box, size=size, variant=variant, seed=seed, minimal=True))
    p = g.puzzle
    # independent of the SAT engine: HiGHS no-good cuts
    assert highs_count(build_model(p), 2).count == 1
    assert is_valid_solution(g.solution, p.h, p.w, variant, p.regions, clues=p.grid)
    assert g.minimal is True
    for cell in np.flatnonzero(p.grid):  # brute removal: every clue is needed
        assert count_up_to(without(p, cell), 2) == 2


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32), symmetry=st.sampled_from(["rot180", "rot90", "mirror", "diagonal"]))
def test_symmetric_minimal_is_reported_honestly(seed, symmetry):
    g = next(generate(size=9, seed=seed, symmetry=symmetry, minimal=True))
    assert count_up_to(g.puzzle, 2) == 1
    assert g.minimal is (not removable_clues(g.puzzle))


@pytest.mark.parametrize("symmetry", ["rot180", "rot90", "mirror", "diagonal"])
def test_symmetry_of_clue_pattern(symmetry):
    g = next(generate(size=9, seed=3, symmetry=symmetry))
    mask = np.asarray(g.puzzle.grid) > 0
    image = {"rot180": mask[::-1, ::-1], "rot90": np.rot90(mask), "mirror": mask[:, ::-1], "diagonal": mask.T}
    assert (mask == image[symmetry]).all()
    assert count_up_to(g.puzzle, 2) == 1


def test_same_seed_same_puzzles_in_any_order():
    a = [g.puzzle for g in generate(size=9, seed=11, count=3)]
    next(generate(size=6, seed=99, variant="jigsaw"))  # other work in between must not matter
    b = [g.puzzle for g in generate(size=9, seed=11, count=3)]
    assert a == b and len(set(map(hash, a))) == 3
    assert all(count_up_to(p, 2) == 1 for p in a)


def test_clue_target_is_reached_or_reported():
    for g in generate(size=9, seed=5, count=3, clues=32):
        assert g.puzzle.n_clues >= 32 and count_up_to(g.puzzle, 2) == 1
    low = next(generate(size=9, seed=5, clues=17))
    assert low.target == 17 and count_up_to(low.puzzle, 2) == 1
    assert low.puzzle.n_clues > 17 and low.minimal is True  # not reached: every clue needed


def test_full_grids_and_transform():
    g = next(generate(size=9, seed=2, full=True, transform=True))
    assert g.puzzle.n_clues == 81 and is_valid_solution(g.puzzle.grid, 3, 3)
    with pytest.raises(PuzzleError, match="transform"):
        next(generate(size=9, seed=2, variant="x", transform=True))
    with pytest.raises(PuzzleError, match=r"^generate: difficulty='easy' rates a puzzle's clues; a full=True grid"):
        next(generate(size=9, seed=2, full=True, difficulty="easy"))   # a full grid was rated easy, never hard


@pytest.mark.parametrize("symmetry", ["nope", "Rot180", ""])
def test_an_unknown_symmetry_is_refused_at_the_call(symmetry):
    """generate(symmetry="nope") was refused only when its first puzzle was asked for; the other
    bad options are refused at the call."""
    with pytest.raises(PuzzleError) as err:
        generate(size=4, seed=1, symmetry=symmetry)   # not iterated
    assert str(err.value) == (f"symmetry: unknown {symmetry!r}; expected one of none, rot180, rot90, mirror, "
                              "diagonal")


def test_transform_keeps_a_valid_grid():
    g = next(generate(box="2x3", seed=8, full=True)).solution
    t = transform_grid(g, 2, 3, np.random.default_rng(0))
    assert is_valid_solution(t, 2, 3) and not (t == g).all()


def test_larger_shapes_unique():
    g = next(generate(size=16, seed=2))
    assert count_up_to(g.puzzle, 2) == 1 and g.minimal is True


@pytest.mark.parametrize("n", [4, 5, 6, 7, 9, 12])
def test_random_regions_connected_partition(n):
    from scipy import ndimage
    for seed in range(3):
        regions = random_regions(n, np.random.default_rng(seed))
        assert sorted(np.bincount(regions.ravel()).tolist()) == [n] * n
        assert all(ndimage.label(regions == r)[1] == 1 for r in range(n))
    assert not (random_regions(n, np.random.default_rng(0)) == random_regions(n, np.random.default_rng(1))).all()


def test_singles_agree_with_the_rating_and_the_engine():
    """generate's fast uniqueness test for big grids is core's singles kernel: it says "solved"
    exactly when rate (an independent step-by-step ladder) needs nothing beyond singles, and then
    its grid is the engine's one solution."""
    seen = set()
    for seed in range(8):
        g = next(generate(size=9, seed=seed))
        singles = propagate_puzzle(g.puzzle)
        rating = rate(g.puzzle)
        beyond = [t for t, k in rating.counts.items() if k and t not in ("naked single", "hidden single")]
        assert singles.solved == (rating.solved and not beyond), (seed, rating.counts)
        if singles.solved:
            assert (singles.grid == g.solution).all()
        seen.add(singles.solved)
    assert seen == {True, False}   # both answers were checked (some puzzles need more than singles)
    assert solved_by_singles(Puzzle(g.solution, 3, 3))
    assert not solved_by_singles(Puzzle(np.zeros((9, 9), dtype=int), 3, 3))


def test_orbits_partition_cells():
    for sym in ("none", "rot180", "rot90", "mirror", "diagonal"):
        for n in (4, 9):
            cells = np.concatenate(symmetry_orbits(n, sym))
            assert sorted(cells.tolist()) == list(range(n * n))


def test_difficulty_uses_the_rating():
    g = next(generate(size=9, seed=1, difficulty="medium"))
    assert g.rating["label"] == "medium"


def test_easy_16x16_is_reached_by_removing_clues_while_singles_solve(monkeypatch):
    """A minimal 16x16 is almost never easy; after EXACT_EASY_TRIES exact tries, clues are removed
    only while singles still solve the puzzle, so easy is reached (it used to run out of tries)."""
    monkeypatch.setattr(puzzles, "EXACT_EASY_TRIES", 0)   # straight to the singles removal
    g = next(generate(size=16, seed=3, difficulty="easy", max_tries=1))
    assert g.rating["label"] == "easy" and solved_by_singles(g.puzzle)
    assert count_up_to(g.puzzle, 2) == 1 and g.minimal is None   # unique, minimality not claimed
    # the clues are a singles-minimal set: every one the removal tried to drop was needed
    for cell in np.flatnonzero(g.puzzle.grid)[:20]:
        assert not solved_by_singles(without(g.puzzle, int(cell)))


def test_easy_with_a_rule_is_reached_by_removing_clues_while_easy_steps_solve():
    # no minimal anti-knight 9x9 of seed 1 rated easy in 200 tries; the easy removal makes one
    g = next(generate(size=9, seed=1, difficulty="easy", rules=[{"rule": "antiknight"}], max_tries=6))
    assert g.rating["label"] == "easy" and g.minimal is None
    assert [rule.kind for rule in g.puzzle.rules] == ["antiknight"] and count_up_to(g.puzzle, 2) == 1


def test_easy_9x9_keeps_its_minimal_puzzles_from_the_exact_tries():
    g = next(generate(size=9, seed=5, difficulty="easy"))
    assert g.rating["label"] == "easy" and g.minimal is True


def test_a_difficulty_no_try_reaches_ends_the_stream_with_exit_1(tmp_path):
    # no 4x4 needs a triple: not bad input (exit 2) but a request the seed did not meet
    with pytest.raises(DifficultyNotReached, match=r"^difficulty: no hard puzzle in 5 tries \(seed 1\)$"):
        list(generate(size=4, seed=1, difficulty="hard", max_tries=5))
    r = run_cli("generate", "--size", "4", "--difficulty", "hard", "-n", "2", "--seed", "1")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == "generate: difficulty: no hard puzzle in 200 tries (seed 1): 0 of 2 puzzles finished\n"
    out = tmp_path / "p.txt"
    r = run_cli("generate", "--size", "4", "--difficulty", "easy", "-n", "1", "--seed", "1", "--to", str(out))
    assert r.returncode == 0 and len(out.read_text().split()) == 1


def run_cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True,
                          cwd=PROJECT, **kw)


def test_cli_json_out_file(tmp_path):
    out = tmp_path / "p.jsonl"
    r = run_cli("generate", "--box", "2x3", "-n", "2", "--seed", "4", "--format", "json", "--to", str(out))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 2 and all(r["seed"] == 4 and r["unique"] for r in rows)
    assert count_up_to(parse_puzzle(rows[0]["puzzle"], box="2x3"), 2) == 1


def test_cli_csv_feeds_batch_with_regions(tmp_path):
    out = tmp_path / "j.csv"
    r = run_cli("generate", "--variant", "jigsaw", "-n", "3", "--seed", "1", "--format", "csv", "--to", str(out))
    assert r.returncode == 0, r.stderr
    records = read_records(out)
    assert records["variant"] == ["jigsaw"] * 3 and all(records["regions"])
    for puzzle, regions in zip(records["puzzle"], records["regions"]):
        assert count_up_to(parse_puzzle(puzzle, regions=regions, variant="jigsaw"), 2) == 1
    with open(out) as f:
        assert next(csv.reader(f))[:3] == ["puzzle", "regions", "variant"]


@pytest.mark.parametrize("fmt", ["csv", "line"])
@pytest.mark.parametrize("box, rules", [("3x2", ()), ("1x4", ()), ("3x2", ("--rule", "antiknight"))])
def test_boxes_other_than_the_squarest_reach_batch(tmp_path, fmt, box, rules):
    # a probe: --format csv (and line) wrote a 3x2-box 6x6 as cells alone; batch read 2x3 boxes
    # and solved another puzzle (an error row, an infeasible one, a different grid)
    out = tmp_path / f"g.{fmt}"
    r = run_cli("generate", "--box", box, "-n", "3", "--seed", "7", *rules, "--format", fmt, "--to", str(out))
    assert r.returncode == 0, r.stderr
    made = run_cli("generate", "--box", box, "-n", "3", "--seed", "7", *rules, "--format", "json")
    solutions = [json.loads(line)["solution"] for line in made.stdout.splitlines()]
    records = read_records(out)
    for k, text in enumerate(records["puzzle"]):
        rule_entries = json.loads(records["rules"][k]) if records["rules"][k] else None
        puzzle = parse_puzzle(text, **({"rules": rule_entries} if rule_entries else {}))
        assert f"{puzzle.h}x{puzzle.w}" == box and [x.kind for x in puzzle.rules] == list(rules[1:])
        assert count_up_to(puzzle, 2) == 1
        solved = sat.solve(build_model(puzzle)).grid
        assert "".join(map(str, solved.ravel())) == solutions[k]


@pytest.mark.parametrize("variant", sorted(set(VARIANT_TABLE) - {"classic"}))
def test_a_line_keeps_the_variant_and_a_grid_refuses_to_drop_it(variant):
    """An outside check: ``generate --variant x`` wrote a bare line of cells, read back (by count,
    batch) as a classic puzzle of 5 solutions. Every variant's line now reads back as the same
    puzzle; a grid, which cannot say the variant, is refused in one line."""
    g = next(generate(size=max(4, VARIANT_TABLE[variant].min_n), variant=variant, seed=5))
    line = "".join(iter_formatted([g], "line"))
    back = parse_puzzle(line.strip())
    assert back.variant == variant and np.array_equal(back.grid, g.puzzle.grid)
    assert count_up_to(back, 2) == 1
    with pytest.raises(PuzzleError, match=rf"^format: a grid cannot carry the {variant} variant; use --format line"):
        "".join(iter_formatted([g], "grid"))


@pytest.mark.parametrize("rules", [(), ("--rule", "antiknight")])
def test_cli_jigsaw_lines_are_documents_carrying_the_regions(tmp_path, rules):
    """A line of cells cannot carry regions: each jigsaw puzzle is its document on one line, as a
    puzzle with rules is (it was refused: "use --format csv or json")."""
    out = tmp_path / "j.txt"
    r = run_cli("generate", "--variant", "jigsaw", "--size", "6", "-n", "2", "--seed", "3", *rules,
                "--format", "line", "--to", str(out))
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 2
    for line in lines:
        doc = json.loads(line)
        puzzle = parse_puzzle(line)   # the line alone is the whole puzzle
        assert puzzle.variant == "jigsaw" and puzzle.regions_string() == doc["regions"]
        assert len(set(doc["regions"])) == 6 and [x["rule"] for x in doc.get("rules", [])] == [w for w in rules[1:]]
        assert count_up_to(puzzle, 2) == 1


def test_cli_lines_feed_batch_and_seed_is_printed(tmp_path):
    out = tmp_path / "p.txt"
    r = run_cli("generate", "--size", "4", "-n", "3", "--out", str(out))
    assert r.returncode == 0 and r.stderr.startswith("seed: ")
    assert len(read_records(out)["puzzle"]) == 3
    seed = r.stderr.split()[1]
    again = run_cli("generate", "--size", "4", "-n", "3", "--seed", seed)
    assert again.stdout == out.read_text()


def test_cli_out_is_an_alias_of_to(tmp_path):
    """--to is the output option's name, as in export, draw, spy and report; --out (generate's
    older name) writes the same file and its help says it is an alias."""
    outputs = {}
    for option in ("--to", "--out"):
        out = tmp_path / f"p{option}.txt"
        r = run_cli("generate", "--size", "4", "-n", "2", "--seed", "3", option, str(out))
        assert r.returncode == 0, r.stderr
        assert f"wrote 2 puzzles (line) to {out}" in r.stderr
        outputs[option] = out.read_text()
    assert outputs["--to"] == outputs["--out"] and len(outputs["--to"].splitlines()) == 2
    usage = run_cli("generate", "--help").stdout
    assert "--to FILE, --out FILE" in usage and "alias of --to" in " ".join(usage.split())


@pytest.mark.parametrize("name, expected", [("p.csv", "csv"), ("p.JSON", "json"), ("p.jsonl", "json"),
                                            ("p.txt", "line"), ("p", "line")])
def test_cli_to_file_takes_its_format_from_the_extension(tmp_path, name, expected):
    """``--to g.csv`` wrote plain lines, which batch then refused ("no 'puzzle' column"); an
    explicit --format still wins."""
    out = tmp_path / name
    r = run_cli("generate", "--size", "4", "-n", "2", "--seed", "3", "--to", str(out))
    assert r.returncode == 0 and f"wrote 2 puzzles ({expected}) to {out}" in r.stderr, r.stderr
    text = out.read_text()
    if expected == "csv":
        rows = list(csv.DictReader(text.splitlines()))
        assert len(rows) == 2 and all(len(row["puzzle"]) == 16 for row in rows)
    elif expected == "json":
        assert [len(json.loads(line)["puzzle"]) for line in text.splitlines()] == [16, 16]
    else:
        assert [len(line) for line in text.splitlines()] == [16, 16]
    explicit = run_cli("generate", "--size", "4", "-n", "2", "--seed", "3", "--to", str(out), "--format", "line")
    assert "(line)" in explicit.stderr and [len(line) for line in out.read_text().splitlines()] == [16, 16]


@pytest.mark.parametrize("name, expected", [("p.csv.gz", "csv"), ("p.JSONL.GZ", "json"), ("p.txt.gz", "line"),
                                            ("p.gz", "line")])
def test_cli_to_a_gz_file_takes_its_format_from_the_extension_before_gz(tmp_path, name, expected):
    """``--to p.csv.gz`` wrote gzipped plain lines (the extension taken was ``.gz``), which batch,
    reading ``.csv.gz`` as CSV, then refused ("no 'puzzle' column")."""
    out = tmp_path / name
    r = run_cli("generate", "--size", "4", "-n", "2", "--seed", "3", "--to", str(out))
    assert r.returncode == 0 and f"wrote 2 puzzles ({expected}) to {out}" in r.stderr, r.stderr
    text = gzip.decompress(out.read_bytes()).decode()
    if expected == "csv":
        assert [len(row["puzzle"]) for row in csv.DictReader(text.splitlines())] == [16, 16]
        assert [len(puzzle) for puzzle in read_records(out)["puzzle"]] == [16, 16]   # as batch reads it
    elif expected == "json":
        assert [len(json.loads(line)["puzzle"]) for line in text.splitlines()] == [16, 16]
    else:
        assert [len(line) for line in text.splitlines()] == [16, 16]


def test_cli_bad_options_exit_2():
    r = run_cli("generate", "--rule", "antiknight", "--format", "grid", "--seed", "1")
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "a grid cannot carry rules" in r.stderr
    r = run_cli("generate", "--box", "2x5", "--size", "9")
    assert r.returncode == 2 and r.stderr.startswith("error: ")


def test_generate_uses_the_one_sat_engine_cache():
    """generate's engine is the SAT engine cache's (pipeline.solvers.sat.engine_for): one solver
    per shape, shared with batch and count, and reusable after a guarded exclusion."""
    empty = Puzzle(np.zeros((4, 4), dtype=int), 2, 2)
    eng = engine_for(empty)
    assert eng.sat is sat.engine_for(build_model(empty, "ijk", "C", "bounds"))
    assert engine_for(empty).sat is eng.sat
    solution = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    act = eng.exclude(solution)
    assert act > eng.sat.n_cells and eng.sat.new_var() == act + 1   # fresh variables, never reused
    assert not eng.determines(np.zeros((4, 4), dtype=int), act)     # 288 grids: others remain
    assert eng.determines(solution, act)                             # the full grid's only solution is excluded
    eng.retire(act)
    assert eng.count(np.zeros((4, 4), dtype=int), 1000) == 288


@pytest.mark.parametrize("seed", ["-1", str(2 ** 63), str(2 ** 200)])
def test_cli_seed_out_of_range_is_one_line(tmp_path, seed):
    """A seed numpy refuses (negative) or no int64 column holds: one line naming --seed and its
    range, exit 2, nothing written and no seed printed; the API refuses it the same way."""
    out = tmp_path / "p.txt"
    r = run_cli("generate", "--seed", seed, "--to", str(out))
    assert r.returncode == 2, r.stderr
    assert r.stderr == f"error: --seed: must be an integer from 0 to 9223372036854775807, found {seed if len(seed) <= 20 else '160...(61 digits)'}\n"
    assert not out.exists()
    with pytest.raises(PuzzleError, match="^seed: must be an integer from 0"):
        next(generate(box="2x2", seed=int(seed)))


def test_largest_seed_is_taken():
    assert next(generate(box="2x2", seed=2 ** 63 - 1)).seed == 2 ** 63 - 1


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), symmetry=st.sampled_from(["none", "rot180", "mirror"]),
       variant=st.sampled_from(["classic", "jigsaw", "x"]))
def test_minimal_after_a_singles_pass_is_minimal(seed, symmetry, variant):
    """Where --minimal first removes clues by singles (above 16x16; here forced on 9x9), the exact
    pass still leaves no removable clue, and the engine is asked only about grids singles thinned."""
    from pipeline.tools.generate.removal import PROOF_REMOVAL_STEP
    import pipeline.tools.generate.engine as engine_module
    checks = []
    real = engine_module.ShapeEngine.determines
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(puzzles, "SINGLES_FIRST_MIN_CELLS", 0)
        mp.setattr(engine_module.ShapeEngine, "determines",
                   lambda self, grid, *a, **k: checks.append(np.count_nonzero(grid)) or real(self, grid, *a, **k))
        seen = []
        g = next(generate(size=9, variant=variant, seed=seed, symmetry=symmetry, minimal=True,
                          progress=lambda *a: seen.append(a[1:])))
    p = g.puzzle
    proof_pass = [(done, total) for step, done, total in seen if step == PROOF_REMOVAL_STEP]
    assert proof_pass and proof_pass[0][0] == 0 and all(0 <= d < t < 81 for d, t in proof_pass)
    assert count_up_to(p, 2) == 1 and is_valid_solution(g.solution, p.h, p.w, variant, p.regions, clues=p.grid)
    assert g.minimal is (not removable_clues(p))
    if symmetry == "none":
        assert g.minimal is True
    # exact removal from the full grid would first ask about 80 or 79 clues; singles leave far fewer
    assert checks and max(checks) <= 60


def test_minimal_with_a_clue_target_names_the_target_and_tries_one_grid():
    """--minimal --clues K stops removal at K clues: stderr says so (it blamed a symmetric
    pattern that was never asked for), counts puzzles from 1 as the progress lines do, and no
    further grids are made for a minimality the target ruled out."""
    r = subprocess.run([sys.executable, "-m", "pipeline", "generate", "--size", "9", "--seed", "7", "--minimal",
                        "--clues", "40", "-n", "2", "--progress", "none"], capture_output=True, text=True, cwd=PROJECT)
    lines = r.stderr.splitlines()
    assert r.returncode == 0 and len(r.stdout.split()) == 2, r.stderr
    assert [s for s in lines if "not minimal" in s] == [
        f"puzzle {k}: not minimal: removal stopped at 40 clues (--clues 40)" for k in (1, 2)]
    assert all(len([c for c in line if c != "."]) == 40 for line in r.stdout.split())
    made = []
    real = puzzles.generate_one
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(puzzles, "generate_one", lambda *a, **k: made.append(1) or real(*a, **k))
        next(generate(size=9, seed=7, minimal=True, clues=40))
    assert len(made) == 1


def test_minimal_with_full_is_refused_in_one_line():
    r = subprocess.run([sys.executable, "-m", "pipeline", "generate", "--size", "9", "--minimal", "--full"],
                       capture_output=True, text=True, cwd=PROJECT)
    assert r.returncode == 2 and r.stderr == ("error: generate: --minimal cannot be combined with --full: a full grid "
                                              "keeps every clue\n") and r.stdout == ""


@pytest.mark.parametrize("box, side", [("9x9", 81), ("100x100", 10000), ("8x9", 72)])
def test_a_box_past_the_size_bound_is_refused_as_a_size_is(box, side):
    """--box 9x9 skipped the 1..64 check that --size 81 gets, and ran on without end."""
    with pytest.raises(PuzzleError, match=rf"^box: {box} boxes make a grid of side {side}; classic puzzles are 4x4 to 64x64$"):
        generate(box=box, full=True, seed=1)


@pytest.mark.parametrize("extra", [[], ["--rule", "thermo", "--rule-count", "2"]])
def test_a_json_report_generate_writes_is_read_back(tmp_path, extra):
    """``generate --format json --to g.json`` wrote a file every command refused ("unknown key
    'clues'"); its one report reads as the puzzle (its ``document`` with rules), and several,
    one a line, are one line each naming ``batch``, which reads them."""
    one, several = tmp_path / "g.json", tmp_path / "g3.json"
    assert run_cli("generate", "--box", "2x3", "--seed", "7", "--format", "json", "--to", str(one), *extra).returncode == 0
    report = json.loads(one.read_text())
    solved = run_cli("solve", str(one), "--format", "json")
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["line"] == report["solution"] and json.loads(solved.stdout)["unique"] is True
    assert run_cli("generate", "--box", "2x3", "--seed", "7", "--format", "json", "-n", "3", "--to", str(several),
                   *extra).returncode == 0
    refused = run_cli("solve", str(several))
    assert refused.returncode == 2 and refused.stderr == (f"error: {several}: several JSON objects, one a line (JSON Lines): "
                                                          "a command reads one puzzle; batch reads each line as one\n")
    out = tmp_path / "out"
    done = run_cli("batch", str(several), str(out), "--workers", "1")
    assert done.returncode == 0 and "optimal 3" in done.stdout + done.stderr, done.stderr


@pytest.mark.parametrize("options, message", [
    (dict(count=0), "count: must be at least 1, found 0"),
    (dict(size=9, clues=99), "clues: must be 0..81, found 99"),
    (dict(size=65), "size: classic puzzles are 4x4 to 64x64, found 65x65"),
    # a string or float was a TypeError from inside (a helper's report)
    (dict(size="49"), "size: must be an integer, found '49'"),
    (dict(size=9.5), "size: must be an integer, found 9.5"),
    (dict(size=True), "size: must be an integer, found True"),
    (dict(count="3"), "count: must be an integer, found '3'"),
    (dict(size=9, clues=30.0), "clues: must be an integer, found 30.0"),
])
def test_the_api_names_its_keyword_and_keeps_it_apart(options, message):
    """The Python API names the keyword (``-n`` was the command line's word for ``count``); the
    command line names its option instead (``e.option``: tests/cli/test_cli_option_values.py)."""
    with pytest.raises(PuzzleError) as err:
        next(generate(seed=1, **options))
    assert str(err.value) == message and err.value.option == next(iter(options.keys() - {"size"}), "size")


@pytest.mark.parametrize("box", ["3x2", "4x2", "2x4", "1x4", "4x1"])
def test_cli_grid_format_draws_boxes_a_grid_reads_back(box):
    """A 6x6 of 3x2 boxes as a grid read back with 2x3 boxes (12 solutions, none, or refused: an
    outside check), so it was refused; the grid's box lines now give the shape back."""
    r = run_cli("generate", "--box", box, "--seed", "1", "--format", "grid")
    assert r.returncode == 0, r.stderr
    back = parse_puzzle(r.stdout)
    assert f"{back.h}x{back.w}" == box
    assert count_up_to(back, 2) == 1


def test_cli_bad_input_found_by_the_first_puzzle_is_one_line_without_the_seed():
    r = run_cli("generate", "--rule", "entropic", "--size", "4")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("error: "), r.stderr


def test_the_help_offers_as_bare_kinds_only_those_a_name_makes():
    """--help listed fullrankties and doppelganger as kinds without cells, but neither works as
    a bare --rule (an outside check): every kind it lists makes a rule from its name alone."""
    from pipeline.core.rules import NEEDS_MORE_THAN_A_NAME, RULES

    bare = RULES.bare_kinds()
    assert not set(bare) & set(NEEDS_MORE_THAN_A_NAME) and "diagonal" in bare   # the main diagonal
    for kind in bare:
        parse_puzzle(json.dumps({"size": 9, "rules": [{"rule": kind}]}))      # no PuzzleError
    for kind in NEEDS_MORE_THAN_A_NAME:
        with pytest.raises(PuzzleError):
            parse_puzzle(json.dumps({"size": 9, "rules": [{"rule": kind}]}))
    help_text = run_cli("solve", "--help").stdout
    assert "fullrankties needs its 'ties' key" in " ".join(help_text.split())
    generate_help = " ".join(run_cli("generate", "--help").stdout.split())
    assert all(kind in generate_help for kind in bare)   # diagonal was left out, yet works


def test_a_difficulty_removal_by_singles_cannot_reach_is_refused_at_once():
    # above 16x16 without --minimal every puzzle rates easy: 200 tries took minutes before the answer
    for size, label in ((25, "medium"), (36, "hard"), (64, "expert")):
        with pytest.raises(PuzzleError, match=f"^generate: difficulty='{label}' above 16x16 needs minimal=True "):
            generate(size=size, difficulty=label)
    r = run_cli("generate", "--size", "36", "--difficulty", "hard")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "needs --minimal" in r.stderr
    generate(size=25, difficulty="hard", minimal=True)       # possible: only checked, not run
    generate(size=25, difficulty="easy")


def test_to_dash_is_standard_output(tmp_path, capsys, monkeypatch):
    # as export's and convert's --to -: generate wrote a file named "-" and said "wrote 1 puzzle to -"
    from pipeline.cli.main import main
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "--seed", "1", "--box", "2x2", "-n", "2", "--to", "-"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all(len(line) == 16 for line in out) and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("options, words", [
    ({"killer": "no"}, "killer: must be True or False, found 'no'"),
    ({"full": "no"}, "full: must be True or False, found 'no'"),
    ({"minimal": 1}, "minimal: must be True or False, found 1"),
    ({"max_tries": 0}, "max_tries: must be an integer of at least 1, found 0"),
    ({"max_tries": 1.5}, "max_tries: must be an integer of at least 1, found 1.5"),
])
def test_generate_flags_are_bools_and_max_tries_a_count(options, words):
    # killer="no" is truthy: it drew cages; max_tries=1.5 was a TypeError, 0 "no any puzzle in 0 tries"
    with pytest.raises(PuzzleError) as err:
        generate(size=4, seed=1, **options)
    assert str(err.value) == words


def test_a_box_given_as_two_sides():
    """``generate(box=(2, 3))`` takes the pair ``read_puzzle`` takes (it was refused)."""
    a, b = next(generate(box=(2, 3), seed=4)), next(generate(box="2x3", seed=4))
    assert (a.puzzle.h, a.puzzle.w) == (2, 3)
    assert (a.puzzle.grid == b.puzzle.grid).all()


@pytest.mark.parametrize("symmetry, box, target", [("rot180", "2x3", 11), ("rot90", "3x3", 30), ("rot180", "3x3", 27),
                                                    ("mirror", "2x2", 7), ("diagonal", "2x3", 13)])
def test_a_symmetric_clue_target_is_never_passed_below(symmetry, box, target):
    """An outside check: ``--symmetry rot180 --clues 11`` gave 10 clues and said nothing (a group
    of 2 removed from 11), and with ``--minimal`` said "stopped at the 27 clues" of a 26-clue
    puzzle. Removal now passes by a group that would go below the target."""
    for seed in range(3):
        g = next(generate(box=box, seed=seed, symmetry=symmetry, clues=target))
        p = g.puzzle
        assert p.n_clues >= target and count_up_to(p, 2) == 1
        orbit_sizes = {len(o) for o in symmetry_orbits(p.n, symmetry)}
        assert p.n_clues - target < max(orbit_sizes) or not g.stopped_at_target
        kept = np.flatnonzero(p.grid)
        assert all(bool(np.isin(o, kept).all()) or not np.isin(o, kept).any() for o in symmetry_orbits(p.n, symmetry))
    r = run_cli("generate", "--box", "2x3", "--symmetry", "rot180", "--clues", "11", "--seed", "3", "--minimal")
    assert r.returncode == 0 and len([c for c in r.stdout.strip() if c != "."]) == 12
    assert "puzzle 1: 12 clues, not the 11 asked: the rot180 pattern removes clues in groups" in r.stderr
    assert "puzzle 1: not minimal: removal stopped at 12 clues (--clues 11)" in r.stderr



@pytest.mark.parametrize("variant", ["x", "latin", "jigsaw"])
def test_cli_grid_of_a_variant_is_refused_before_the_seed_is_said(variant):
    """Without --seed, ``--format grid --variant latin`` printed ``seed: N`` and then the refusal,
    found only at the first puzzle: two lines for one error."""
    r = run_cli("generate", "--format", "grid", "--variant", variant, "--size", "6")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (f"error: format: a grid cannot carry the {variant} variant; use --format line "
                        "(puzzle documents), json or csv\n")


def test_cli_to_an_empty_path_is_refused():
    """``--to ""`` (an unset shell variable) printed the puzzle on stdout and exited 0."""
    r = run_cli("generate", "--seed", "1", "--to", "")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "error: --to: empty path; name a file ('-' for standard output)\n"
