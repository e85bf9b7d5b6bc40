"""CPLEX XML ``.sol`` (``<CPLEXSolution>``).

Registered on import (see :mod:`formats.solutions` for the detection order).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from pipeline.core.errors import FormatError

from formats.solutions.base import RawSolution, SolutionFormat, register_solution_format
from formats.solutions.common import infeasible, parse_float, parse_floats, truncated


def _detect_cplex(head: str) -> bool:
    return "<CPLEXSolution" in head


def _parse_cplex(text: str, where: str) -> RawSolution:
    """``<CPLEXSolution><header objectiveValue=.. solutionStatusString=.. writeLevel=../>
    <variables><variable name=.. index=.. value=../>...``; writeLevel 1/2 (the default for SOL)
    lists every variable, 3/4 only nonzeros (CPLEX parameter WriteLevel)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        msg = str(e)
        if "no element found" in msg or "unclosed token" in msg:
            raise truncated(where, f"XML ends early ({msg})") from None
        raise FormatError(f"{where}: not well-formed XML ({msg})") from None
    if root.tag == "CPLEXSolutions":
        sols = root.findall("CPLEXSolution")
        if len(sols) != 1:
            raise FormatError(f"{where}: holds {len(sols)} solutions (a solution pool); write one with CPXsolwrite")
        root = sols[0]
    header = root.find("header")
    attrs = header.attrib if header is not None else {}
    status = attrs.get("solutionStatusString")
    if status and "infeasible" in status.lower() and "feasible solution" not in status.lower():
        raise infeasible(where)
    objective = parse_float(attrs["objectiveValue"], where, "objectiveValue") if "objectiveValue" in attrs else None
    level = attrs.get("writeLevel", "1")
    variables = root.find("variables")
    if variables is None:
        raise truncated(where, "no <variables> section")
    names, values = [], []
    for v in variables.findall("variable"):
        if "name" not in v.attrib or "value" not in v.attrib:
            raise FormatError(f"{where}: <variable> without name or value: {v.attrib}")
        names.append(v.attrib["name"])
        values.append(v.attrib["value"])
    return RawSolution("names", parse_floats(values, where, "value"), names=np.array(names, dtype=str),
                       dense=level not in ("3", "4"), status=status, objective=objective)


register_solution_format(SolutionFormat("cplex_xml", "CPLEX XML .sol (<CPLEXSolution>)",
                                        _detect_cplex, _parse_cplex))
