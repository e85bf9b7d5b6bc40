"""MATLAB/Octave saved answers (formats/solutions/matfile.py): ``save answer.mat x`` and Octave's
text ``save answer.txt x`` read as the export's x (or a grid), written by a real Octave when one
is installed and by scipy's ``savemat`` (what MATLAB's v5/v7 writer writes) otherwise. A file
that was "unrecognised solution format" (the MATLAB round trip's finding) now reads, or is refused
naming the ``save`` option that writes a readable one."""
from __future__ import annotations

import io
import shutil
import subprocess

import numpy as np
import pytest
from scipy.io import savemat
from scipy.sparse import csc_matrix

from in_a_child import outcome_in_a_child
from solution_files import manifest_of
from formats.solutions import read_solution
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers.highs import solve
from pipeline.core.verify import verify_grid

SAVE_READABLE = ("save it with -v7 (save('answer.mat', 'x', '-v7')), as Octave text (save answer.txt x), or write "
                 "x with writematrix(x, 'x.csv')")


@pytest.fixture(scope="module", params=[("ijk", "F", "rows"), ("block", "C", "reduce")], ids=["ijk-F", "block-C-reduce"])
def answer(request):
    """(model, manifest, x over the export's columns) of the default puzzle."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), *request.param)
    x = np.rint(solve(model, threads=1).x)
    return model, manifest_of(model), x


def assert_verifies(sol, model) -> None:
    """The answer read is 0/1 and its grid solves the model's puzzle."""
    assert set(np.unique(sol.values)) <= {0.0, 1.0}
    verdict = verify_grid(sol.grid(), model.puzzle)
    assert verdict.ok, verdict.message


def _octave() -> str:
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:
        print("SKIP: GNU Octave not found (octave-cli/octave not on PATH)")
        pytest.skip("GNU Octave not found (octave-cli/octave not on PATH)")
    return exe


@pytest.mark.parametrize("option, name", [("-v7", "x.mat"), ("-v6", "x.mat"), ("-v4", "x.mat"), ("-zip", "x.mat"),
                                          ("-text", "x.txt"), ("", "x.txt")])
def test_what_octave_saves_reads_as_the_exported_x(answer, tmp_path, option, name):
    model, manifest, x = answer
    (tmp_path / "x.csv").write_text("\n".join(f"{v:g}" for v in x) + "\n")
    save = f"save({option!r}, {name!r}, 'x', 'note')" if option else f"save({name!r}, 'x', 'note')"
    done = subprocess.run([_octave(), "--no-gui", "--quiet", "--eval",
                           f"x = csvread('x.csv'); note = 'from intlinprog'; {save}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (tmp_path / name).exists(), done.stdout + done.stderr
    sol = read_solution(tmp_path / name, manifest)
    assert sol.format == ("octave_text" if name.endswith(".txt") or option == "-zip" else "mat")   # -zip: gzip'ed text
    assert_verifies(sol, model)


@pytest.mark.parametrize("option, said", [("-binary", "an Octave binary file (save -binary), which only Octave reads"),
                                          ("-hdf5", "an HDF5 file (a MATLAB 7.3 MAT-file, or Octave save -hdf5)")])
def test_a_save_only_octave_or_hdf5_reads_is_refused_naming_the_option_to_use(answer, tmp_path, option, said):
    model, manifest, x = answer
    (tmp_path / "x.csv").write_text("\n".join(f"{v:g}" for v in x) + "\n")
    subprocess.run([_octave(), "--no-gui", "--quiet", "--eval", f"x = csvread('x.csv'); save('{option}', 'x.mat', 'x')"],
                   cwd=tmp_path, capture_output=True, text=True, timeout=120)
    if not (tmp_path / "x.mat").exists():
        pytest.skip(f"this Octave wrote no {option} file")
    with pytest.raises(FormatError) as caught:
        read_solution(tmp_path / "x.mat", manifest)
    assert str(caught.value) == f"{tmp_path / 'x.mat'}: {said}: {SAVE_READABLE}"


def _mat(path, variables, compressed=True, level="5"):
    out = io.BytesIO()
    savemat(out, variables, do_compression=compressed, format=level)
    path.write_bytes(out.getvalue())
    return path


@pytest.mark.parametrize("level", ["4", "5"])
@pytest.mark.parametrize("shape", ["column", "row", "sparse"])
def test_x_as_a_column_a_row_or_sparse_reads(answer, tmp_path, shape, level):
    model, manifest, x = answer
    value = {"column": x.reshape(-1, 1), "row": x.reshape(1, -1), "sparse": csc_matrix(x.reshape(-1, 1))}[shape]
    path = _mat(tmp_path / "a.mat", {"x": value, "exitflag": 1.0}, compressed=level == "5", level=level)
    assert_verifies(read_solution(path, manifest), model)


def test_a_grid_variable_reads_as_the_grid(answer, tmp_path):
    model, manifest, x = answer
    grid = solve(model, threads=1).grid
    sol = read_solution(_mat(tmp_path / "g.mat", {"sudoku": grid, "title": "solved"}, compressed=False), manifest)
    assert_verifies(sol, model)


@pytest.mark.parametrize("variables, message", [
    ({"a": np.ones(3), "b": np.ones(3)}, "holds 2 numeric variables (a, b) and none named 'x': save only the answer "
                                         "(save answer.mat x)"),
    ({"title": "no numbers"}, "no numeric variable to read as the answer (it holds title: none numeric)"),
    ({"x": np.array([0.0, np.nan])}, "value nan at position 2 of 'x' is not a number"),
    ({"x": np.array([0.0, 1.0 + 1.0j])}, "variable 'x' holds complex values; an answer is real"),
])
def test_a_mat_file_without_one_answer_is_refused_in_one_line(answer, tmp_path, variables, message):
    _, manifest, _ = answer
    path = _mat(tmp_path / "bad.mat", variables)
    with pytest.raises(FormatError) as caught:
        read_solution(path, manifest)
    assert str(caught.value) == f"{path}: {message}"


def test_an_array_of_more_dimensions_reads_as_its_column_major_values(answer, tmp_path):
    """X = reshape(x, N, N, N) (as the export's script decodes x) is x(:); so is any other shape."""
    model, manifest, x = answer
    for shape in [(9, 9, 9), (81, 9)]:
        if x.size == 729:
            sol = read_solution(_mat(tmp_path / "X.mat", {"X": x.reshape(shape, order="F")}), manifest)
            assert_verifies(sol, model)
    path = _mat(tmp_path / "bad.mat", {"x": np.ones((2, 3, 4))})
    with pytest.raises(FormatError, match=r"^.*bad\.mat: expected .*, found 24$"):
        read_solution(path, manifest)


def test_a_variable_larger_than_any_answer_is_refused_before_it_is_inflated(answer, tmp_path):
    """A compressed v7 variable of 10^8 zeros takes about 100 KB on disk and 800 MB read."""
    _, manifest, _ = answer
    path = _mat(tmp_path / "huge.mat", {"x": np.zeros((10 ** 8 // 1000, 1000), dtype=np.uint8)})
    assert path.stat().st_size < 1_000_000
    with pytest.raises(FormatError, match=r"variable 'x' holds 100,000,000 values, more than an answer of the model "
                                          r"has: at most [\d,]+$"):
        read_solution(path, manifest)


def test_octave_text_of_other_types_reads_its_numbers(answer, tmp_path):
    """Octave writes an integer matrix as its dims and the values by column, a sparse one as
    (row, column, value) triples: both read as the same x."""
    model, manifest, x = answer
    ints = (f"# name: x\n# type: int32 matrix\n# ndims: 2\n {x.size} 1\n" + "".join(f" {int(v)}\n" for v in x))
    rows = np.flatnonzero(x) + 1
    sparse = (f"# name: x\n# type: sparse matrix\n# nnz: {rows.size}\n# rows: {x.size}\n# columns: 1\n"
              + "".join(f"{r} 1 1\n" for r in rows))
    for text in (ints, sparse):
        path = tmp_path / "x.txt"
        path.write_text("# Created by Octave 7.3.0\n" + text + "\n\n# name: s\n# type: string\n# elements: 1\n"
                        "# length: 2\nok\n")
        assert_verifies(read_solution(path, manifest), model)


def test_a_whole_octave_workspace_reads_its_top_level_x(answer, tmp_path):
    """Octave's plain `save` of a workspace (text, whatever the file's name): a struct's field
    named x (written as a block of its own) was read in place of the real x, a 3-D array failed
    the whole file ("'# rows:' is ''"), single, complex, global and sparse logical variables were
    "none numeric", and the file's many lines were refused as "not a solution file"."""
    model, manifest, x = answer
    (tmp_path / "x.csv").write_text("\n".join(f"{v:g}" for v in x) + "\n")
    script = ("x = csvread('x.csv'); opts.x = zeros(size(x)); opts.note = 'solver options'; "
              "X = reshape(x, 1, 1, []); c = {zeros(size(x)), 'x'}; xs = single(x); xc = complex(x, 0); "
              "xsb = sparse(logical(x)); global gx; gx = x; r = 1:3; A = speye(2000); save answer.mat")
    done = subprocess.run([_octave(), "--no-gui", "--quiet", "--eval", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert (tmp_path / "answer.mat").exists(), done.stdout + done.stderr
    assert (tmp_path / "answer.mat").read_bytes().startswith(b"# Created by Octave")   # text, despite its name
    sol = read_solution(tmp_path / "answer.mat", manifest)
    assert sol.format == "octave_text"
    assert np.array_equal(sol.values, read_solution(_mat(tmp_path / "x.mat", {"x": x}), manifest).values)
    assert_verifies(sol, model)
    for name in ("X", "xs", "xc", "xsb", "gx"):   # each alone, as the file's one numeric variable
        subprocess.run([_octave(), "--no-gui", "--quiet", "--eval",
                        f"load answer.mat; global gx; save('-text', 'one.txt', '{name}')"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert_verifies(read_solution(tmp_path / "one.txt", manifest), model)


@pytest.mark.parametrize("header", ["# type: sparse matrix\n# nnz: 1\n# rows: 729\n# columns: 400000\n1 1 1\n",
                                    "# type: matrix\n# ndims: 2\n 99999999 999999\n 1\n",
                                    "# type: bool sparse matrix\n# nnz: 1\n# rows: 1000000000\n# columns: 1000000000\n"
                                    "1 1 1\n"])
def test_an_octave_text_size_no_answer_has_is_refused_before_anything_is_allocated(answer, tmp_path, header):
    """A 70-byte sparse header of 729 x 400,000 took 2.6 GB and 7 s before "out of memory"."""
    _, manifest, _ = answer
    path = tmp_path / "bomb.txt"
    path.write_text("# name: x\n" + header)
    with pytest.raises(FormatError, match=r"bomb\.txt: variable 'x' is \d+x\d+: [\d,]+ values, more than an answer "
                                          r"has \(at most 131,072 for a file of this size\)$"):
        read_solution(path, manifest)


@pytest.mark.parametrize("statement, name, expected", [
    ("save -text S.txt S", "S.txt", "octave_text"),                       # a matrix: a row a line
    ("fid = fopen('S.txt', 'w'); fprintf(fid, '%s\\n', mat2str(S)); fclose(fid);", "S.txt", "matlab_text"),
    ("fid = fopen('x.txt', 'w'); fprintf(fid, 'x = %s;\\n', mat2str(x)); fclose(fid);", "x.txt", "matlab_text"),
    ("S", None, "matlab_text"),                                            # Octave's display: S = and the rows
])
def test_a_grid_or_x_octave_writes_as_text_reads_the_right_way_round(answer, tmp_path, statement, name, expected):
    """A text save of a grid read its rows as columns for a while (an N-d array's order); a grid or
    x in MATLAB's matrix syntax or Octave's display was an unrecognised format."""
    model, manifest, x = answer
    grid = solve(model, threads=1).grid
    (tmp_path / "x.csv").write_text("\n".join(f"{v:g}" for v in x) + "\n")
    (tmp_path / "S.csv").write_text("\n".join(",".join(map(str, row)) for row in grid) + "\n")
    done = subprocess.run([_octave(), "--no-gui", "--quiet", "--eval",
                           f"x = csvread('x.csv'); S = csvread('S.csv'); {statement}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    path = tmp_path / (name or "shown.txt")
    if name is None:
        path.write_text(done.stdout)
    assert path.exists(), done.stdout + done.stderr
    sol = read_solution(path, manifest)
    assert sol.format == expected
    if name != "x.txt":
        assert np.array_equal(sol.grid(), grid)
    assert_verifies(sol, model)


def test_a_sparse_logical_x_and_a_cut_mat_file_say_what_to_do(answer, tmp_path):
    """scipy.io cannot read a sparse logical array ("cannot reshape array of size 81 into shape
    (1,729)"), and a file cut short was scipy's advice to list its matrices with whosmat."""
    model, manifest, x = answer
    (tmp_path / "x.csv").write_text("\n".join(f"{v:g}" for v in x) + "\n")
    subprocess.run([_octave(), "--no-gui", "--quiet", "--eval",
                    "x = csvread('x.csv'); xsb = sparse(logical(x)); save('-v7', 'xsb.mat', 'xsb'); "
                    "save('-v6', 'x6.mat', 'x')"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    with pytest.raises(FormatError) as caught:
        read_solution(tmp_path / "xsb.mat", manifest)
    assert str(caught.value) == (f"{tmp_path / 'xsb.mat'}: variable 'xsb' is a sparse array scipy.io cannot read "
                                 "(a sparse logical one): save full(double(xsb)) instead")
    data = (tmp_path / "x6.mat").read_bytes()
    for cut in (10, 127, 200, len(data) - 8):
        (tmp_path / "cut.mat").write_bytes(data[:cut])
        with pytest.raises(FormatError, match=r"cut\.mat: (not a readable MAT-file|variable 'x' is not readable|"
                                              r"unrecognised solution format).*") as caught:
            read_solution(tmp_path / "cut.mat", manifest)
        assert "whosmat" not in str(caught.value)


def _declared_bomb(path, values: int, data_bytes: int, mi_class: int = 6):
    """A level 5 MAT-file of one compressed array ``x`` whose header says ``1 x values`` (of
    class ``mi_class``) over ``data_bytes`` zeros: small on disk, large once inflated."""
    import struct
    import zlib

    def tag(kind, n):
        return struct.pack("<II", kind, n)
    head = (tag(6, 8) + struct.pack("<II", mi_class, 0) + tag(5, 8) + struct.pack("<ii", 1, values)
            + struct.pack("<I", 1 | (1 << 16)) + b"x\0\0\0" + tag(9, data_bytes))
    squeeze = zlib.compressobj(9)
    body = squeeze.compress(tag(14, len(head) + data_bytes) + head)
    for _ in range(data_bytes // (1 << 20)):
        body += squeeze.compress(b"\0" * (1 << 20))
    body += squeeze.compress(b"\0" * (data_bytes % (1 << 20))) + squeeze.flush()
    header = b"MATLAB 5.0 MAT-file".ljust(116, b" ") + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM"
    path.write_bytes(header + tag(15, len(body)) + body)
    return path


def test_a_compressed_array_over_more_data_than_its_header_says_is_refused_before_scipy(answer, tmp_path):
    """A 1x729 double over 64 MB of zeros (64 KB on disk): scipy's whosmat and loadmat inflate
    it whole (a 4 MB file took 4.5 GB); it is refused while counted, a slice at a time."""
    _, manifest, _ = answer
    path = _declared_bomb(tmp_path / "bomb.mat", 729, 64 << 20)
    assert path.stat().st_size < 200_000
    with pytest.raises(FormatError, match=r"^.*bomb\.mat: variable 'x' inflates to more than 77,200 bytes, more than "
                                          r"its header says it holds"):
        read_solution(path, manifest)
    # a struct's size is its fields': bounded by the model's size instead (64 MiB at least)
    struct_bomb = _declared_bomb(tmp_path / "struct.mat", 1, 80 << 20, mi_class=2)
    with pytest.raises(FormatError, match="variable 'x' inflates to more than 67,108,864 bytes"):
        read_solution(struct_bomb, manifest)


@pytest.mark.parametrize("dims", ["-1 -1", "NaN 1", "1.5 2", "inf 1"])
def test_octave_text_dimensions_that_are_no_counts_are_one_line(answer, tmp_path, dims):
    """Negative or NaN dimensions passed the size check and reached numpy (a traceback, exit 1)."""
    _, manifest, _ = answer
    path = tmp_path / "o.txt"
    path.write_text(f"# name: x\n# type: matrix\n# ndims: 2\n {dims}\n 1\n")
    with pytest.raises(FormatError, match=r"\(x\): the dimensions .* are not 2 counts$"):
        read_solution(path, manifest)


def _parse_in_a_child(path) -> str:
    """``_parse_mat`` of ``path`` in a child process (a crash there is a failed test, not a dead suite)."""
    return outcome_in_a_child("from formats.solutions.matfile import _parse_mat; "
                              "_parse_mat(open(sys.argv[1], 'rb').read(), 'f.mat', 10**6)", path)


def test_a_damaged_array_in_a_mat_file_is_one_line_not_a_crash(answer, tmp_path):
    """scipy.io takes a level 5 array's element types and a sparse array's row indices on trust:
    one changed byte of a saved x or grid was a segmentation fault or bus error of the whole
    command (exit 139 or 135), not an error line."""
    import struct

    _, _, x = answer
    savemat(tmp_path / "sparse.mat", {"x": csc_matrix(x.reshape(-1, 1))})
    savemat(tmp_path / "dense.mat", {"x": x.reshape(-1, 1)})
    for name, offset, word, said in [
        ("sparse", 184, 10 ** 6, f"a row index outside its {x.size} rows"),   # the first row index
        ("sparse", 176, 77, "a data element of no numeric type"),   # ir's type
        ("dense", 176, 0x3A09, "a data element of no numeric type"),   # x's type
    ]:
        data = bytearray((tmp_path / f"{name}.mat").read_bytes())
        assert _parse_in_a_child(tmp_path / f"{name}.mat") == "read"
        struct.pack_into("<I", data, offset, word)
        (tmp_path / "bad.mat").write_bytes(bytes(data))
        assert _parse_in_a_child(tmp_path / "bad.mat") == (f"f.mat: variable 'x' is a damaged array ({said}): not a "
                                                           "MAT-file saved by MATLAB or Octave?")


def test_a_level_5_file_is_checked_whatever_its_header_text_says(answer, tmp_path):
    """scipy.io reads a level 5 file by its endian mark, not its text: with 'MATLAB 5' altered, a
    compressed array over 64 MB of zeros went past the inflation check to scipy."""
    _, manifest, _ = answer
    path = _declared_bomb(tmp_path / "bomb.mat", 729, 64 << 20)
    data = bytearray(path.read_bytes())
    data[7] = 0xDD
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"variable 'x' inflates to more than 77,200 bytes"):
        read_solution(path, manifest)
