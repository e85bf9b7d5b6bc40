"""Pluggable model writers/readers and solution readers, registered by name and extension.

``write_model(model, path)`` / ``read_model(path)`` pick the format from the extension
(``.gz`` transparently); ``FORMATS`` lists what is registered. Import order is registration
order: it is the order of ``export --formats all`` and of solution-format detection.
"""
# isort: skip_file
from formats.base import FORMATS, Format, ModelData, atomic_open, format_for, read_model, register, write_model
from formats import csv  # noqa: F401  (registers)
from formats import mps  # noqa: F401
from formats import lp  # noqa: F401
from formats import solutions  # noqa: F401
from formats import matlab, parquet  # noqa: F401
from formats import cnf, opb  # noqa: F401  (SAT/PB formats; their solution readers are in formats.solutions.sat)
from formats import iss  # noqa: F401  (the puzzle's ISS string: written only when named, not in 'all')
from formats.directory import export_model, import_solution
from formats.single import export_file

__all__ = ["FORMATS", "Format", "ModelData", "atomic_open", "export_file", "export_model", "format_for",
           "import_solution", "read_model", "register", "write_model"]
