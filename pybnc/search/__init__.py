"""Greedy wrapper learners scored by cross-validated accuracy (bnclassify's tan_hc,
tan_hcsp, fssj, bsej and kdb), with a cached incremental scorer."""

from ._greedy import StartModelWarning
from .kdb import KDB, sahami_structure
from .semi_naive import BSEJ, FSSJ
from .skdb import SKDB
from .tan_hc import TANHC, TANHCSP

__all__ = ["TANHC", "TANHCSP", "FSSJ", "BSEJ", "KDB", "SKDB", "sahami_structure", "StartModelWarning"]
