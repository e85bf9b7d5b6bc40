"""Acceptance regressions from randomly generated ISS puzzles (issue 33), each checked by hand.

The answers here come from the rules as written, not from ISS: on a 0..8 grid ISS's own
Lunchbox/Sandwich handler rejects valid lines whose inner run is longer than its raw-sum
distance table allows, so the project is right where it differs from ISS.
"""
import pipeline


def test_sandwich_on_0_to_8_grid_counts_values_between_0_and_8():
    # Row 1: 0 1 2 3 8 -> 1 + 2 + 3 = 6 between the smallest and largest value.
    # ISS (SimpleSolver) reports no solution here; the rule is met.
    puzzle = pipeline.read_puzzle(
        ".Shape~9x9~0-8.Sandwich~6~R1.~R1C1_0~R1C2_1~R1C3_2~R1C4_3~R1C5_8")
    assert pipeline.count(puzzle, limit=1).count == 1


def test_lunchbox_on_0_to_8_grid_keeps_both_valid_grids():
    # Both grids were verified cell by cell against every Lunchbox clue and the units;
    # ISS reports the puzzle unique because it drops the second grid.
    text = (".Shape~9x9~0-8.Lunchbox~0~R9C4~R9C5~R9C6~R9C7.Lunchbox~2~R1C8~R2C8~R3C8~R4C8"
            ".Lunchbox~11~R1C2~R1C3~R1C4~R1C5~R1C6~R1C7~R1C8~R1C9"
            ".Lunchbox~10~R4C2~R4C3~R4C4~R4C5~R4C6~R4C7~R4C8"
            ".Lunchbox~6~R3C1~R4C1~R5C1~R6C1~R7C1~R8C1"
            ".~R9C7_8~R6C6_1~R5C1_5~R9C5_7~R6C2_3~R9C3_2~R9C2_5~R2C4_4~R2C7_0~R8C5_1~R2C3_6"
            "~R4C6_3~R1C5_3~R7C6_4~R9C4_3~R3C9_4~R7C7_2")
    assert pipeline.count(pipeline.read_puzzle(text), limit=3).count == 2


def test_pair_key_on_6x6_grid_of_nine_values_reads():
    # Key of |a-b| >= 3 over 9 values (ISS's Pair.fnToKey(f, 9, 0)); ISS accepts the puzzle.
    puzzle = pipeline.read_puzzle(".Shape~6x6~0-8.Pair~4H-gP4D-gP4D_~R1C1~R1C2")
    allowed = {tuple(p) for p in puzzle.to_document()["rules"][0]["allowed"]}
    assert allowed == {(a, b) for a in range(9) for b in range(9) if abs(a - b) >= 3}
    assert pipeline.count(puzzle, limit=1).count == 1
