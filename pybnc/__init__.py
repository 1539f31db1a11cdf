"""pybnc: discrete Bayesian network classifiers, scikit-learn native.

The pipeline, one module per stage: :mod:`pybnc.encode` (table to codes),
:mod:`pybnc.counts.tables` (sufficient statistics), :mod:`pybnc.scores.information` (information and
scores), :mod:`pybnc.structure` (DAGs), :mod:`pybnc.parameters.learn` (log tables),
:mod:`pybnc.inference.forest` (joint log-likelihood), then the estimators.
"""

from ._version import __version__
from .averaging import AODE, ESKDB, MANB, AnDE, SSTBMATAN, TBMATAN
from .estimators import FAN, TAN, NaiveBayes
from .estimators.capabilities import Capabilities, capabilities
from .io import load, save
from .search import BSEJ, FSSJ, KDB, SKDB, TANHC, TANHCSP
from .selection import AutoBNC

__all__ = ["NaiveBayes", "TAN", "FAN", "MANB", "AODE", "AnDE", "ESKDB", "TBMATAN", "SSTBMATAN", "TANHC", "TANHCSP", "FSSJ", "BSEJ", "KDB", "SKDB", "AutoBNC",
           "capabilities", "Capabilities", "save", "load", "__version__"]
