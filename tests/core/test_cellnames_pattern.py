"""Cell names are spelled in one place: :mod:`pipeline.core.rules.cellnames` builds the pattern
that givens (``r3c5=7``), outside clues, layout corners and ``--highlight`` read."""
from __future__ import annotations

from pathlib import Path

import pipeline
from pipeline.core.rules.cellnames import cell_pattern, cell_position, given_pattern

_ROOT = Path(pipeline.__file__).parent


def test_no_other_module_spells_the_cell_pattern():
    spelled = [str(p.relative_to(_ROOT.parent)) for p in sorted(_ROOT.rglob("*.py"))
               if "[rR](" in p.read_text(encoding="utf-8") and p.name != "cellnames.py"]
    assert spelled == []


def test_a_given_reads_row_column_and_value_as_a_name_does():
    pattern = given_pattern(4)
    for text, groups in [(" R3 c5 = -7 ", ("3", "5", "-7")), ("r0c1=5", ("0", "1", "5")), ("r1c1=", None),
                         ("r1c1=12345", None), ("r12345c1=5", None), ("r1c1", None)]:
        m = pattern.match(text)
        assert (m and m.groups()) == groups
        if groups is not None:
            assert cell_position(text.split("=")[0]) == (int(groups[0]), int(groups[1]))
    assert cell_pattern("+", "") == "[rR]([0-9]+)[cC]([0-9]+)"
