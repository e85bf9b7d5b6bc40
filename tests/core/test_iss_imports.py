"""Each ``pipeline.core.iss*`` module imports on its own (none half-loaded through a cycle), and
whichever comes first, the ISS table ends up the same: every module of further mappings is merged
into :data:`pipeline.core.iss_table.READERS` / ``WRITERS`` in the table's one order (a module
imported first once merged itself last, undoing the chaos reader's region cells on ``SameValues``).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pipeline

_CORE = Path(pipeline.__file__).parent / "core"
MODULES = sorted(f"pipeline.core.{p.stem}" for p in _CORE.glob("iss*.py"))

# one interpreter: for each module, forget every project module, import that one first, then the
# table, and note which function reads and writes each type (numpy stays loaded: fast; ``anyof``,
# which pipeline.core.iss_composite adds, left out)
_SCRIPT = """
import importlib, json, sys
out = {}
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "pipeline" or m.startswith("pipeline.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as e:
        out[name] = f"{type(e).__name__}: {e}"
        continue
    table = importlib.import_module("pipeline.core.iss_table")
    out[name] = [[k, f"{f.__module__}.{f.__qualname__}"] for d in (table.READERS, table.WRITERS)
                 for k, f in sorted(d.items()) if k != "anyof"]
print(json.dumps(out))
"""


def test_every_iss_module_imports_first_and_leaves_the_same_table():
    assert len(MODULES) > 10
    done = subprocess.run([sys.executable, "-c", _SCRIPT, *MODULES], capture_output=True, text=True, timeout=120,
                          cwd=_CORE.parent.parent)
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout)
    failed = {m: t for m, t in tables.items() if isinstance(t, str)}
    assert not failed
    reference = tables["pipeline.core.iss_table"]
    assert {m for m, t in tables.items() if t != reference} == set()
