"""examples/tour.ipynb runs in a real kernel (nbclient), so the README tour in Python cannot rot;
it is committed without outputs, and what it shows is checked: puzzles and solved grids as SVG,
the model as HTML with its families (issue 19 item 5)."""
from __future__ import annotations

import ast
import xml.etree.ElementTree as ET

import pytest

from oracles import PROJECT

from pipeline.solvers import SOLVERS

nbformat = pytest.importorskip("nbformat", reason="nbformat is in the test extra")
nbclient = pytest.importorskip("nbclient", reason="nbclient is in the test extra")
pytest.importorskip("ipykernel", reason="ipykernel (the notebook's kernel) is in the test extra")

NOTEBOOK = PROJECT / "examples" / "tour.ipynb"
SVG = "{http://www.w3.org/2000/svg}"


def _outputs(nb) -> dict[str, list]:
    return {cell.metadata["tags"][0]: cell.outputs for cell in nb.cells
            if cell.cell_type == "code" and cell.metadata.get("tags")}


def test_notebook_is_committed_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(cell.outputs == [] and cell.execution_count is None for cell in code)


def test_tour_notebook_runs_and_shows_pictures(tmp_path, monkeypatch):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the tour keeps its files in a new temporary directory for the reader to look at, and removes
    # it in its last cell: here under tmp_path, so that a cell that fails leaves nothing in /tmp
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    # run from a directory outside the repository, as a user's notebook server would
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    out = _outputs(nb)
    for cell in nb.cells:
        assert all(o.output_type != "error" for o in cell.get("outputs", []))

    def shown(tag, mime):
        [data] = [o.data[mime] for o in out[tag] if mime in o.get("data", {})]
        return data

    for tag, clues in (("parse", 23), ("jigsaw", 4), ("solution", 23), ("imported", 23)):
        root = ET.fromstring(shown(tag, "image/svg+xml"))
        assert len(root.findall(f".//{SVG}g[@class='clues']/{SVG}text")) == clues, tag
    for tag in ("solution", "imported", "generated"):
        root = ET.fromstring(shown(tag, "image/svg+xml"))
        clues = len(root.findall(f".//{SVG}g[@class='clues']/{SVG}text"))
        filled = len(root.findall(f".//{SVG}g[@class='solution']/{SVG}text"))
        assert clues + filled == 81 and filled > 0, tag
    model = ET.fromstring(shown("model", "text/html"))
    families = [tr[0].text for tr in model.find(".//table").findall("tr")[1:-1]]
    assert families == ["cell", "row", "col", "box", "clue"]
    assert model.find(f".//{SVG}svg") is not None
    assert shown("count", "text/plain") == "(288, 'complete')"
    assert shown("solve", "text/plain") == "('optimal', True)"
    assert shown("import", "text/plain").startswith("('highs_")
    assert shown("import", "text/plain").endswith(", True, 0.0)")
    # it wrote into a temporary directory only, and its last cell removes that (it was left behind)
    assert shown("cleanup", "text/plain") == "(True, False)"
    assert not list(PROJECT.glob("sudoku-tour-*")) and list(scratch.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmp"]
    # the rule puzzle: its picture draws the cages with their sums and names them in the title
    rules = ET.fromstring(shown("rules", "image/svg+xml"))
    assert rules.find(f"{SVG}title").text == "9x9 classic, 0 clues; 29 killer cages"
    cages = [e for e in rules.iter(f"{SVG}path") if "cage" in (e.get("class") or "").split()]
    sums = [e for e in rules.iter(f"{SVG}text") if "cage-sum" in (e.get("class") or "").split()]
    assert len(cages) == len(sums) == 29
    status, unique, engine = ast.literal_eval(shown("rules_solve", "text/plain"))
    assert (status, unique) == ("optimal", True) and engine in SOLVERS
    assert shown("rules_count", "text/plain") == "1"
    assert shown("rules_export", "text/plain").replace("\n", "").startswith("(['killer.mps', 'killer.mps.manifest.json'], ['.cnf',")
    assert shown("rules_decode", "text/plain") == "True"
