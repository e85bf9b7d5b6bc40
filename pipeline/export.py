"""Export a Model to a directory: each chosen format's files plus ``manifest.json``.

The work is done in the formats layer (:mod:`formats.directory`); this module keeps the
public names of the application's ``export`` stage.
"""
from formats.directory import export_model, exporting_formats, resolve_formats, write_manifest

__all__ = ["export_model", "exporting_formats", "resolve_formats", "write_manifest"]
