"""Export a Model to a directory: each chosen format's files plus ``manifest.json``."""
from __future__ import annotations

from pathlib import Path

from formats import FORMATS, format_for
from formats.base import Format

from .build import Model
from .manifest import write_manifest


def exporting_formats() -> list[str]:
    """Names of the registered formats that contribute files to an export (``all``)."""
    return [name for name, fmt in FORMATS.items() if fmt.export is not None]


def resolve_formats(spec: str | list[str] | None) -> list[Format]:
    """``"all"``, ``None``, ``"csv,mps"`` or a list -> formats (``mat`` is an alias of matlab)."""
    if spec is None or spec == "all":
        names = exporting_formats()
    else:
        names = spec.split(",") if isinstance(spec, str) else list(spec)
    aliases = {"mat": "matlab", "m": "matlab", "pq": "parquet"}
    return [format_for(aliases.get(n.strip().lower(), n.strip().lower()), need="export") for n in names if n.strip()]


def export_model(model: Model, directory, formats=None, **options) -> dict[str, list[Path]]:
    """Write ``model`` in each format into ``directory`` (created), then its manifest.

    Every file is written atomically, so an interrupted export never leaves a half file.
    Returns ``{format name: [paths]}`` including ``{"manifest": [path]}``.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[Path]] = {}
    described: dict[str, dict] = {}
    for fmt in resolve_formats(formats):
        written[fmt.name] = [Path(p) for p in fmt.export(model, directory, **options)]
        if fmt.describe is not None:
            described[fmt.name] = fmt.describe(model, **options)
    manifest = write_manifest(directory, model, {k: [p.name for p in v] for k, v in written.items()},
                              described)
    written["manifest"] = [manifest]
    return written
