"""Helpers the solution-reader tests share: exports, real HiGHS answers and the layouts of
solvers not installable here, written from each solver's documentation."""
from __future__ import annotations

import subprocess
from pathlib import Path

import highspy
import numpy as np
import pytest

from formats.solutions import read_solution
from pipeline.core.errors import FormatError
from pipeline.core.manifest import manifest_from_dict, model_metadata
from pipeline.core.verify import verify_grid
from pipeline.solvers.highs import new_highs


def manifest_of(model):
    return manifest_from_dict(model_metadata(model))


def write_mps(model, path: Path, style: str = "free") -> Path:
    """Our MPS writer (formats.mps) when present, else highspy's with the same names."""
    try:
        from formats import mps as ours
    except ImportError:
        ours = None
    if ours is not None:
        ours.write(model, path, style=style)
        return path
    from pipeline.solvers.highs import highs_for

    h = highs_for(model)
    names = [f"C{j:07d}" for j in range(model.n_cols)] if style == "fixed" else model.col_names
    for j, name in enumerate(names):
        h.passColName(j, str(name))
    for i, name in enumerate(model.row_labels):
        h.passRowName(i, f"R{i:07d}" if style == "fixed" else str(name))
    h.writeModel(str(path))
    return path



def assert_verifies(path, puzzle, manifest, fmt: str):
    sol = read_solution(path, manifest)
    assert sol.format == fmt
    assert set(np.unique(sol.values)) <= {0.0, 1.0}
    verdict = verify_grid(sol.grid(), puzzle)
    assert verdict.ok, verdict.message
    return sol


def need(binary: str | None, what: str):
    if not binary:
        print(f"skip: {what} not available")
        pytest.skip(f"{what} not available")
    return binary


def run(cmd, cwd):
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done



def highs_solve(mps: Path) -> highspy.Highs:
    h = new_highs()
    h.setOptionValue("threads", 1)
    assert h.readModel(str(mps)) != highspy.HighsStatus.kError
    h.run()
    return h



def gurobi_text(model, x, order, objective=0):
    # Gurobi reference manual, "SOL format": comment lines start with '#', then one
    # `name value` line for EVERY variable; files Gurobi writes begin with these two comments.
    lines = ["# Solution for model sudoku", f"# Objective value = {objective}"]
    lines += [f"{model.col_names[j]} {x[j]:g}" for j in order]
    return "\n".join(lines) + "\n"


def cplex_text(model, x, order, write_level=1, status="integer optimal solution", value=101):
    # IBM CPLEX File Formats, "SOL file format" (XML, schema solution.xsd) and the WriteLevel
    # parameter (1 = all variables, the SOL default; 3 = nonzero variables only); header
    # attributes as in files CPLEX 12.x writes.
    keep = [j for j in order if write_level in (1, 2) or x[j] != 0]
    var = "\n".join(f'  <variable name="{model.col_names[j]}" index="{j}" value="{x[j]:g}"/>' for j in keep)
    return f"""<?xml version = "1.0" encoding="UTF-8" standalone="yes"?>
<CPLEXSolution version="1.2">
 <header
   problemName="model.mps"
   solutionName="incumbent"
   solutionIndex="-1"
   objectiveValue="0"
   solutionTypeValue="3"
   solutionTypeString="primal"
   solutionStatusValue="{value}"
   solutionStatusString="{status}"
   solutionMethodString="mip"
   primalFeasible="1"
   dualFeasible="1"
   MIPNodes="0"
   MIPIterations="0"
   writeLevel="{write_level}"/>
 <quality
   epInt="1.0000000000000001e-05"
   epRHS="9.9999999999999995e-07"
   maxIntInfeas="0"
   maxPrimalInfeas="0"
   maxX="1"
   maxSlack="0"/>
 <linearConstraints>
  <constraint name="{model.row_labels[0]}" index="0" slack="0"/>
 </linearConstraints>
 <variables>
{var}
 </variables>
</CPLEXSolution>
"""


def miplib_text(model, x, order):
    # MIPLIB solution checker (SCIP check/solchecker/README): one `variable value` pair per line,
    # the variable name =obj= carries the objective; variables not listed are 0; =infeas= alone
    # for infeasible instances.
    return "=obj= 0\n" + "".join(f"{model.col_names[j]} {x[j]:g}\n" for j in order if x[j] != 0)


def slx_text(model, x, order):
    # Xpress ASCII solution (.slx), written by XPRSwriteslxsol "using a similar format to MPS
    # files" (FICO Xpress Optimizer reference; readslxsol: "the NAME field in the .slx file"):
    # a NAME line, one ` C  name  value` line per column, ENDATA. The full appendix was not in
    # the reference corpus; this layout is the MPS-like one those pages describe.
    body = "".join(f" C      {model.col_names[j]:<20} {x[j]:g}\n" for j in order)
    return f"NAME          sudoku solution\n{body}ENDATA\n"

def expect_error(path, manifest, message):
    with pytest.raises(FormatError) as e:
        read_solution(path, manifest)
    assert str(e.value) == message
