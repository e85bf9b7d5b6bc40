"""Is an export directory one whole set? Every listed file's SHA-256, the models read back, and
the files that do not belong (``python -m pipeline check DIR``). A single file exported with its
``NAME.manifest.json`` (:mod:`formats.single`) is checked the same way, alone.
"""
from __future__ import annotations

import json

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path


from pipeline.core.build import build_model
from pipeline.core.errors import FormatError, PipelineError, clip
from pipeline.core.manifest import MANIFEST_NAME, manifest_from_dict, model_metadata
from pipeline.core.limits import release_freed_memory

from formats.agree import model_difference, sharing_model
from formats.base import FORMATS, ModelData, format_for
from formats.files import file_sha256
from formats.directory import MANIFEST_SUFFIX
from formats.single import manifest_path, single_file_format
from formats.staging import (export_suffixes, is_export_manifest, listed_export_files, read_manifest_json,
                             staging_dirs)

#: Files a user makes in an export directory by following the export's own instructions:
#: ``solve_sudoku.m`` writes ``sudoku.csv``, the printed MATLAB lines ``x.csv``. They are not
#: files of another export.
ANSWER_NAMES = ("sudoku.csv", "x.csv")
#: What a manifest records of its model beside the puzzle, each held against the model built from
#: the puzzle it records (a user reads them there: a hand-edited shape or row count was passed).
MODEL_FACTS = ("format_version", "shape", "rows", "columns", "nonzeros", "inequalities", "inequality_nonzeros",
               "families", "objective", "index_base", "aux_columns", "kept_columns")


@dataclass
class SetCheck:
    """What :func:`check_export` found: one line per problem (empty: the set is whole)."""

    directory: Path
    problems: list[str] = field(default_factory=list)
    files: int = 0        # listed files whose SHA-256 matched
    models: int = 0       # model files read back equal to the manifest's model
    #: the manifest read: ``DIR/manifest.json``, or a single file's ``NAME.manifest.json``
    manifest: Path | None = None
    #: the single file checked (None: an export directory)
    single: Path | None = None
    #: unlisted files no export writes (a user's notes, an answer saved under another name): left alone
    others: list[str] = field(default_factory=list)
    #: one-file exports found in the directory (``NAME.lp`` beside its ``NAME.lp.manifest.json``),
    #: each checked against its own manifest: their checks, whole or not
    singles: list["SetCheck"] = field(default_factory=list)

    def __bool__(self) -> bool:
        return not self.problems


def check_export(directory: str | os.PathLike) -> SetCheck:
    """Check that ``directory`` holds one whole export set, as its ``manifest.json`` describes it
    (or, given a single exported file or its ``NAME.manifest.json``, that one file:
    :func:`check_single`).

    Every file the manifest lists must be there with the SHA-256 it records; every model file
    (one per format that has a reader: ``Aeq*.csv``, the MPS files, ``model.lp``, the Parquet
    COO file, ``model.mat``, ``model.cnf``, ``model.opb``) must read back
    (:func:`formats.read_model`) as the model the manifest describes; and no other file of an
    export may lie beside them (an unlisted file with an export file's ending, other than the
    answers ``sudoku.csv`` and ``x.csv`` the MATLAB instructions write; a staging directory an
    interrupted export left). A user's other files (``notes.txt``) are not the set's business.
    A one-file export in the directory (``export --to DIR/NAME.lp``: ``NAME.lp`` beside
    ``NAME.lp.manifest.json``) is checked against its own manifest (:func:`check_single`; its
    problems are the directory's), and so is a directory holding such exports alone.

    Parameters
    ----------
    directory : str or Path
        An export directory, its ``manifest.json``, a single exported file or its
        ``NAME.manifest.json``.

    Returns
    -------
    SetCheck
        ``problems``: one line each, naming the file; empty when the set is whole.

    Raises
    ------
    FormatError
        ``directory`` does not exist, or is a file that is neither a manifest nor a file with
        its ``NAME.manifest.json`` beside it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from pipeline import build_model, parse_puzzle
    >>> from formats.directory import export_model
    >>> with tempfile.TemporaryDirectory() as out:
    ...     _ = export_model(build_model(parse_puzzle("1......2........")), out, "csv,lp")
    ...     whole = bool(check_export(out))
    ...     _ = pathlib.Path(out, "beq.csv").write_text("2\\n")
    ...     problems = check_export(out).problems
    >>> whole, [p.split(": ", 1)[1] for p in problems]
    (True, ['changed since the export (its SHA-256 is not the one manifest.json records)'])
    """
    directory = Path(directory)
    if directory.is_file() and directory.name == MANIFEST_NAME:
        directory = directory.parent
    if not directory.is_dir():
        single = _single_manifest(directory)
        if single is None:
            raise _not_a_directory(directory)
        return check_single(single)
    manifest = directory / MANIFEST_NAME
    result = SetCheck(directory, manifest=manifest)
    problems = result.problems
    result.singles = [check_single(m) for m in _single_manifests(directory)]
    singles = {name for one in result.singles for name in _single_names(one)}
    for one in result.singles:
        problems += one.problems
    meta = read_manifest_json(manifest)
    if not is_export_manifest(meta):
        if manifest.exists() or not result.singles:   # a directory of one-file exports alone is theirs
            why = "missing" if not manifest.exists() else "not an export's manifest"
            problems.append(f"{manifest}: {why}: {directory} holds no whole export set")
        else:
            result.manifest = None
            result.others = _unlisted_files(directory, singles)[1]
        problems += _leftovers(directory)
        return result
    listed = [name for names in meta["files"].values() if isinstance(names, list) for name in names]
    for name in listed:   # a hand-edited manifest: [[]] or {} where a name goes (unhashable)
        if not isinstance(name, str):
            problems.append(f"{manifest}: lists {json.dumps(name)[:80]}, which is not a file name")
    listed = [name for name in listed if isinstance(name, str)]
    plain = listed_export_files(meta)
    digests = meta.get("sha256")
    if not isinstance(digests, dict):
        problems.append(f"{manifest}: records no SHA-256 of its files (written by an older version); "
                        f"export again to record them")
        digests = None
    matched = set()
    for name in listed:
        if name not in plain:
            problems.append(f"{manifest}: lists {str(name)!r:.80}, which is not a file of an export")
            continue
        if digests is not None and name not in digests:   # a hand-edited manifest: nothing to hold it to
            problems.append(f"{manifest}: records no SHA-256 of {str(name)!r:.80}; export again to record it")
            continue
        problem = _file_problem(directory / name, None if digests is None else digests[name])
        if problem:
            problems.append(f"{directory / name}: {problem}")
        else:
            matched.add(name)
    result.files = len(matched) if digests is not None else 0
    for name in sorted(set(digests or ()) - set(listed)):
        problems.append(f"{manifest}: records a SHA-256 of {str(name)!r:.80}, which it does not list")
    extra, result.others = _unlisted_files(directory, set(listed) | singles)
    problems += extra
    problems += _leftovers(directory)
    problems += _model_problems(directory, meta, plain if digests is None else matched, result)
    return result


def _single_manifests(directory: Path) -> list[Path]:
    """The ``NAME.manifest.json`` of one-file exports in ``directory`` (an export's by its JSON)."""
    return [entry for entry in sorted(directory.iterdir())
            if entry.name.endswith(MANIFEST_SUFFIX) and not entry.name.startswith(".") and entry.is_file()
            and is_export_manifest(read_manifest_json(entry))]


def _single_names(single: SetCheck) -> set[str]:
    """The names a one-file export's check covers: its manifest, and the file it lists."""
    names = {single.manifest.name} if single.manifest is not None else set()
    return names | ({single.single.name} if single.single is not None else set())


def _not_a_directory(directory: Path) -> FormatError:
    if not directory.exists():
        return FormatError(f"{directory}: no such export directory or exported file")
    return FormatError(f"{directory}: is not a directory, nor an exported file with {directory.name}{MANIFEST_SUFFIX} "
                       f"beside it")


def _single_manifest(path: Path) -> Path | None:
    """The manifest of a single exported file: ``path`` itself when it is a ``NAME.manifest.json``,
    else ``path + ".manifest.json"`` when that exists, also when ``path`` itself is gone (the
    check then says it is missing); None: neither."""
    if path.is_file() and path.name.endswith(MANIFEST_SUFFIX):
        return path
    if path.exists() and not path.is_file():
        return None
    beside = manifest_path(path)
    return beside if beside.is_file() else None


def check_single(manifest: str | os.PathLike) -> SetCheck:
    """Check the one file a ``NAME.manifest.json`` describes (``export --to NAME.lp``): there,
    with the SHA-256 the manifest records, and read back as the manifest's model. What else lies
    in its directory is not its business.

    Parameters
    ----------
    manifest : str or Path
        The ``NAME.manifest.json``.

    Returns
    -------
    SetCheck
        ``single``: the file; ``problems``: one line each, empty when the file is whole.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from pipeline import build_model, parse_puzzle
    >>> from formats.single import export_file
    >>> with tempfile.TemporaryDirectory() as out:
    ...     written = export_file(build_model(parse_puzzle("1......2........")), pathlib.Path(out, "m.opb"))
    ...     whole = bool(check_single(written["manifest"][0]))
    ...     _ = written["opb"][0].write_text("* nothing\\n")
    ...     problems = check_single(written["manifest"][0]).problems
    >>> whole, [p.split(": ", 1)[1] for p in problems]
    (True, ['changed since the export (its SHA-256 is not the one m.opb.manifest.json records)'])
    """
    manifest = Path(manifest)
    directory = manifest.parent
    result = SetCheck(directory, manifest=manifest)
    meta = read_manifest_json(manifest)
    if not is_export_manifest(meta):
        why = "missing" if not manifest.exists() else "not an export's manifest"
        result.problems.append(f"{manifest}: {why}")
        return result
    listed = [(fmt, name) for fmt, names in meta["files"].items() if isinstance(names, list) for name in names]
    if len(listed) != 1:
        result.problems.append(f"{manifest}: lists {len(listed)} files; a single file's manifest lists one "
                               f"(an export directory's is {MANIFEST_NAME})")
        return result
    fmt_name, name = listed[0]
    found = single_file_format(name) if isinstance(name, str) else None
    plain = (found is not None and found.name == fmt_name and name == Path(name).name and "\\" not in name
             and not name.startswith("."))
    if not plain:
        result.problems.append(f"{manifest}: lists {str(name)!r:.80} as {str(fmt_name)!r:.20}, which is not "
                               f"one exported file of that format")
        return result
    path = result.single = directory / name
    digests = meta.get("sha256")
    if not isinstance(digests, dict) or name not in digests:
        result.problems.append(f"{manifest}: records no SHA-256 of {name}; export again to record it")
        return result
    problem = _file_problem(path, digests[name], manifest.name)
    if problem:
        result.problems.append(f"{path}: {problem}")
        return result
    result.files = 1
    result.problems += _model_problems(directory, meta, {name}, result, manifest)
    return result


def _file_problem(path: Path, digest, manifest: str = MANIFEST_NAME) -> str | None:
    """Why a listed file does not belong as it is (None: it is there with its recorded digest)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return f"missing ({manifest} lists it)"
    if not stat.S_ISREG(st.st_mode):
        return f"is not a regular file ({manifest} lists a file)"
    if digest is None:
        return None
    try:
        if file_sha256(path) != digest:
            return f"changed since the export (its SHA-256 is not the one {manifest} records)"
    except OSError as e:
        return f"cannot be read: {e.strerror or e}"
    return None


def _unlisted_files(directory: Path, listed: set[str]) -> tuple[list[str], list[str]]:
    """Unlisted files with an export file's ending: a problem line for each with a name an export
    writes (another export's), and the names of the others (the user's own, left alone)."""
    export_names = {name for fmt in FORMATS.values() for name in fmt.file_names}
    endings = export_suffixes()
    found, others = [], []
    for entry in sorted(directory.iterdir()):
        name = entry.name
        plain = name[:-3] if name.lower().endswith(".gz") else name   # model.mps.gz: an export's too
        if (name in listed or name == MANIFEST_NAME or name.startswith(".") or name in ANSWER_NAMES
                or not plain.lower().endswith(endings)):
            continue
        if name in export_names:
            found.append(f"{entry}: not part of this export (manifest.json does not list it): a file of another export")
        else:
            others.append(name)
    return found, others


def _leftovers(directory: Path) -> list[str]:
    """Staging directories of exports into ``directory``: running, or left by a killed one."""
    found = []
    for entry, fd, free in staging_dirs(directory):
        os.close(fd)   # only looked at: closing drops the lock a free one gave us
        found.append(f"{entry}: left by an interrupted export; export again to finish the clean-up" if free
                     else f"{entry}: an export into {directory} is running now")
    return found


def _model_files(meta: dict, readable: set[str]) -> list[tuple[str, str]]:
    """``(format, file name)`` of the model files to read back: per format with a reader whose
    files are all intact (``readable``), those that carry a whole model (for CSV the ``Aeq``
    files; one Parquet file of three)."""
    picked = []
    for fmt_name, names in meta["files"].items():
        fmt = FORMATS.get(fmt_name)
        if fmt is None or fmt.read is None or not isinstance(names, list):
            continue
        if not all(isinstance(n, str) and n in readable for n in names):   # a changed or missing file, or
            continue                                                      # a name that is none, is its own problem
        mine = [n for n in names if _format_name(n) == fmt.name]
        if fmt.name == "csv":
            mine = [n for n in mine if n.startswith("Aeq")]
        elif fmt.name == "parquet":
            mine = mine[:1]
        picked += [(fmt.name, n) for n in mine]
    return picked


def _format_name(name: str) -> str | None:
    try:
        return format_for(name).name
    except PipelineError:
        return None


def _model_problems(directory: Path, meta: dict, readable: set[str], result: SetCheck,
                    manifest: Path | None = None) -> list[str]:
    """The manifest's model against each model file read back."""
    try:
        man = manifest_from_dict(meta, where=str(manifest or directory / MANIFEST_NAME))
        model = build_model(man.puzzle, man.convention.scheme, man.convention.order, man.clue_encoding)
    except PipelineError as e:
        return [f"{e}"]
    found = _recorded_facts(meta, model, manifest or directory / MANIFEST_NAME)
    want = ModelData.from_model(model)
    with sharing_model(man, model, want):   # the readers' own agreement checks take this one
        return found + _read_back(directory, meta, readable, result, model, want)


def _read_back(directory: Path, meta: dict, readable: set[str], result: SetCheck, model, want: ModelData) -> list[str]:
    """The problems of the export's files against ``model`` (``want`` its ModelData): each
    format's own file comparison, then each model file read back."""
    found = []
    custom_cost = meta.get("objective") == "custom"
    blamed = _file_differences(directory, meta, readable, model, custom_cost)
    found += [f"{directory / name}: {why}" if why.startswith("cannot be read") else
              f"{directory / name}: not what an export of its model writes: {why}" for name, why in blamed.items()]
    for fmt_name, name in _model_files(meta, readable):
        if fmt_name in {_format_name(n) for n in blamed}:   # its read-back would blame the file it started from
            continue
        path = directory / name
        reader = FORMATS[fmt_name].read
        if reader is None:   # a format that cannot be read back is not listed as a model file
            continue
        try:
            got = reader(path)
        except PipelineError as e:
            found.append(f"{path}: cannot be read back as a model: {e}")
            continue
        # the names x_i_j_k read alike in every order: the convention the file itself records
        # must be the manifest's (an edited "order" passed, and every answer then failed import)
        said = [f"{key} {got.metadata[key]!r} where {MANIFEST_NAME} says {meta[key]!r}"
                for key in ("scheme", "order", "clue_encoding")
                if key in got.metadata and key in meta and got.metadata[key] != meta[key]]
        if said:
            found.append(f"{path}: written with {', '.join(said)}: was {MANIFEST_NAME} edited?")
            continue
        # the long CSV form lists columns in order of first appearance while the vectors it is
        # read with (beq.csv, lb.csv, ...) are in the solver's order: its matrix and names count
        vectors = not name.startswith("Aeq_long")
        difference = model_difference(got, want, cost=not custom_cost, vectors=vectors)
        del got   # freed before the next file is read, not held beside it (0.5 GB at 100x100)
        release_freed_memory()   # and its pages handed back: the next reader starts where this one did
        if difference:
            found.append(f"{path}: the model read back is not the manifest's: {difference}")
        else:
            result.models += 1
    return found


def _file_differences(directory: Path, meta: dict, readable: set[str], model, custom_cost: bool) -> dict[str, str]:
    """Each intact file of a format that compares its files one by one (``Format.file_differences``)
    against the model: file name -> what differs (a custom objective's costs are not recorded, so
    not compared)."""
    blamed: dict[str, str] = {}
    for fmt_name, names in meta["files"].items():
        fmt = FORMATS.get(fmt_name)
        if fmt is None or fmt.file_differences is None or not isinstance(names, list):
            continue
        mine = [n for n in names if isinstance(n, str) and n in readable and not (custom_cost and n == "f.csv")]
        blamed.update(fmt.file_differences(directory, model, mine))
    return blamed


def _recorded_facts(meta: dict, model, manifest: Path) -> list[str]:
    """A line for each fact of :data:`MODEL_FACTS` the manifest records otherwise than its
    puzzle's model has it (a custom objective's costs are not recorded: only its name is)."""
    expected = json.loads(json.dumps(model_metadata(model)))
    found = []
    for key in MODEL_FACTS:
        if key == "objective" and meta.get(key) == "custom":
            continue
        if key not in meta and key in expected:
            found.append(f"{manifest}: records no {key!r} (its model's: {clip(json.dumps(expected[key]), 60)})")
        elif meta.get(key) != expected.get(key):
            found.append(f"{manifest}: records {key!r} as {clip(json.dumps(meta.get(key)), 60)}, but the model of the "
                         f"puzzle it records has {clip(json.dumps(expected.get(key)), 60)}")
    version = meta.get("pipeline_version")
    if version is not None and not isinstance(version, str):
        found.append(f"{manifest}: records 'pipeline_version' as {clip(json.dumps(version), 60)}, not a version")
    if "formats" in meta and not isinstance(meta["formats"], dict):
        found.append(f"{manifest}: records 'formats' as {clip(json.dumps(meta['formats']), 60)}, not each format's "
                     f"facts")
    return found
