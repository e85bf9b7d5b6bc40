"""pipeline.core.variants: the table every stage reads."""
from __future__ import annotations

import pytest

from pipeline import build_model, parse_puzzle
from pipeline.core.conventions import make_convention
from pipeline.core.errors import ConventionError, PuzzleError
from pipeline.core.puzzle import VARIANTS
from pipeline.core.variants import FAMILIES, VARIANT_TABLE, get_variant

EMPTY9 = "." * 81
REGIONS9 = "".join(str(g) for g in range(9) for _ in range(9))   # rows as regions: a valid jigsaw


def test_built_in_variants_and_their_families():
    assert list(VARIANTS) == ["classic", "x", "jigsaw", "jigsaw_x", "latin", "raw"]
    assert get_variant("classic").families() == ["row", "col", "box"]
    assert get_variant("x").families() == ["row", "col", "box", "diag", "anti"]
    assert get_variant("jigsaw").families() == ["row", "col", "region"]
    assert get_variant("jigsaw_x").families() == ["row", "col", "region", "diag", "anti"]
    assert get_variant("latin").families() == ["row", "col"]
    assert get_variant("raw").families() == []


@pytest.mark.parametrize("name", ["classic", "x", "jigsaw", "jigsaw_x", "latin", "raw"])
def test_puzzle_units_and_model_rows_follow_the_table(name):
    spec = VARIANT_TABLE[name]
    puzzle = parse_puzzle(EMPTY9, variant=name, regions=REGIONS9 if spec.regions else None)
    assert [f for f, _ in puzzle.unit_families()] == spec.families()
    counts = build_model(puzzle).family_counts()
    assert list(counts) == ["cell"] + spec.families()
    for family in spec.families():
        assert counts[family] == (9 if FAMILIES[family].single else 81)


def test_block_scheme_only_where_the_table_has_boxes():
    for name, spec in VARIANT_TABLE.items():
        if spec.boxes:
            assert make_convention("block", "F", 3, 3, name).scheme == "block"
        else:
            with pytest.raises(ConventionError, match="rectangular boxes"):
                make_convention("block", "F", 3, 3, name)


def test_unknown_variant_names_the_known_ones():
    with pytest.raises(PuzzleError, match=r"unknown variant 'hyper'; expected one of classic, x, jigsaw, jigsaw_x, latin"):
        parse_puzzle(EMPTY9, variant="hyper")


def test_regions_only_for_region_variants():
    with pytest.raises(PuzzleError, match="use jigsaw or jigsaw_x"):
        parse_puzzle(EMPTY9, variant="classic", regions=REGIONS9)
    with pytest.raises(PuzzleError, match="variant jigsaw needs regions"):
        parse_puzzle(EMPTY9, variant="jigsaw")


def test_unregistering_a_variant_keeps_the_built_in_families_it_declared():
    # a plug-in windoku variant declares the built-in "window" family (tests/test_recipes.py does);
    # removing it must leave the family to the windoku rule
    from pipeline.core.variants import Family, Variant, register_variant, unregister_variant
    register_variant(Variant("windoku_plugin", "test", boxes=True, extra_families={"window": Family("window", "window")}))
    unregister_variant("windoku_plugin")
    assert FAMILIES["window"] == Family("window", "window")
    labels = build_model(parse_puzzle("." * 81, rules=[{"rule": "windoku"}])).row_labels
    assert "window_4_9" in set(labels)
