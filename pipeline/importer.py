"""Import a solver's answer (any supported solution file) back to a grid and verify it.

The work is done in the formats layer (:mod:`formats.directory`); this module keeps the
public names of the application's ``import`` stage.
"""
from formats.directory import ImportResult, find_manifest, import_solution

__all__ = ["ImportResult", "find_manifest", "import_solution"]
