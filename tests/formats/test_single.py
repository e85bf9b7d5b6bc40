"""One-file exports (:func:`formats.single.export_file`): what a failure leaves behind."""
from __future__ import annotations

import numpy as np
import pytest

import formats.single as single_module
from formats.directory import export_model
from formats.single import export_file
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import Puzzle, parse_puzzle


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failed_one_file_export_removes_the_directories_it_made_and_no_other(tmp_path, monkeypatch, failure):
    """``export --to new/deeper/m.lp`` that fails at its manifest (a full disk, Ctrl-C) left
    ``new/deeper`` behind, empty; a directory that was there before stays, with its files."""
    def failing(*args, **kwargs):   # the model's file is written by then: it fails part-way
        raise failure
    monkeypatch.setattr(single_module, "write_manifest", failing)
    model = build_model(Puzzle(np.zeros((4, 4), dtype=int), 2, 2))
    with pytest.raises((type(failure), OSError)):
        export_file(model, tmp_path / "new" / "deeper" / "m.lp", "lp")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("mine")
    with pytest.raises((type(failure), OSError)):
        export_file(model, tmp_path / "kept" / "m.lp", "lp")
    assert [p.name for p in (tmp_path / "kept").iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("name", ["model.txt", "model.json", "m.TXT.gz", "deep/er/out.xlsx"])
def test_a_directory_named_like_a_file_of_no_one_file_format_gets_a_note(tmp_path, name):
    """``export --to model.txt`` made a directory named model.txt without a word."""
    note = single_module.file_like_directory_note(tmp_path / name)
    assert note is not None and note.startswith("note: ") and "no one-file format has the extension ." in note


@pytest.mark.parametrize("name", ["out", "run.2026", "out.v2", "model.txt/", "existing.txt", "t.parquet", "d.CSV"])
def test_a_directory_name_without_a_letters_extension_a_slash_or_an_existing_one_gets_none(tmp_path, name):
    (tmp_path / "existing.txt").mkdir()
    assert single_module.file_like_directory_note(str(tmp_path / name) + ("/" if name.endswith("/") else "")) is None


def test_the_command_line_says_it_once_and_still_writes_the_directory(tmp_path, capsys):
    """Scripts name directories after their inputs (out-killer.json): a note, not a refusal."""
    from pipeline.cli.main import main

    assert main(["export", "1..." "..3." ".4.." "...2", "--to", str(tmp_path / "model.txt"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "model.txt: no one-file format has the extension .txt" in err
    assert (tmp_path / "model.txt" / "manifest.json").is_file()


def test_a_long_file_name_is_written_through_a_short_hidden_one(tmp_path):
    """The hidden file was the name twice over: a 200-character name went past NAME_MAX."""
    model = build_model(Puzzle.from_dict({"h": 2, "w": 2, "puzzle": "1" + "." * 15, "variant": "classic"}))
    path = tmp_path / ("a" * 200 + ".lp.gz")
    written = export_file(model, path)
    assert written["lp"] == [path] and path.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, path.name + ".manifest.json"])


@pytest.mark.parametrize("name, fmt, refused", [
    ("k.lp", "mps", True),           # MPS text in a .lp file: read back as LP, it failed
    ("k.mps.gz", "lp", True),
    ("k.cnf", "opb", True),
    ("k.txt", "mps", False),         # no known extension: the caller's choice
    ("k.mps.gz", "mps", False),
    ("k.lp", "lp", False),
])
def test_write_model_refuses_a_format_the_extension_contradicts(tmp_path, name, fmt, refused):
    """An outside probe: ``formats.write_model(m, "k.lp", format="mps")`` wrote MPS into k.lp
    silently, where ``export`` refuses the same in one line."""
    from formats import read_model, write_model
    from pipeline.core.errors import FormatError

    model = build_model(Puzzle(np.zeros((4, 4), dtype=int), 2, 2))
    if refused:
        with pytest.raises(FormatError, match=rf"^.*{name}: the extension says \w+ but format says {fmt}: name "
                                              rf"the file NAME\.{fmt}$"):
            write_model(model, tmp_path / name, format=fmt)
        assert not (tmp_path / name).exists()
    else:
        write_model(model, tmp_path / name, format=fmt)
        assert read_model(tmp_path / name, format=fmt).Aeq.shape[1] == 64


def test_a_file_an_export_directory_lists_is_not_replaced_by_one_file(tmp_path):
    """An outside probe: export --to d/model.lp into an export directory replaced its model.lp,
    which check then called changed and import read against the directory's other convention."""
    from formats.directory import export_model
    from pipeline.core.errors import FormatError
    model = build_model(Puzzle(np.zeros((4, 4), dtype=np.int64), 2, 2))
    export_model(model, tmp_path, "lp,csv")
    before = (tmp_path / "model.lp").read_bytes()
    other = build_model(Puzzle(np.zeros((4, 4), dtype=np.int64), 2, 2), order="C")
    with pytest.raises(FormatError, match=r"model\.lp: a file of the export in .* \(its manifest\.json lists it\)"):
        export_file(other, tmp_path / "model.lp")
    assert (tmp_path / "model.lp").read_bytes() == before and not (tmp_path / "model.lp.manifest.json").exists()
    assert export_file(other, tmp_path / "mine.lp")["lp"] == [tmp_path / "mine.lp"]   # a name of its own is fine


@pytest.mark.parametrize("call, message", [
    (lambda m, tmp: export_file(m, b"p.lp"), "export_file: the path must be text or a path, found bytes"),
    (lambda m, tmp: export_file(m, "q\0.lp"), "export_file: the path 'q\\x00.lp' holds a NUL character"),
    (lambda m, tmp: export_model(m, None), "export_model: the directory must be text or a path, found NoneType"),
    (lambda m, tmp: export_file(m, tmp / "h.lp", ""), "formats: '' names no format; one file takes one of "),
    (lambda m, tmp: export_file(m, tmp / "y.lp", []), "formats: [] names no format; one file takes one of "),
    (lambda m, tmp: export_file(m, f"{tmp}/k.lp/"), "names a directory (it ends in a separator); export_file writes"),
])
def test_the_one_file_and_directory_exports_check_their_arguments_alike(tmp_path, call, message):
    """An outside probe: export_file and export_model raised bare TypeError/ValueError on a bytes,
    None or NUL path (pipeline.export checked them), export_file took formats "" and [] that
    export_model refuses, and wrote a file k.lp for "k.lp/"."""
    model = build_model(parse_puzzle("." * 81))
    with pytest.raises(FormatError) as caught:
        call(model, tmp_path)
    assert message in str(caught.value)
    assert not list(tmp_path.iterdir())
