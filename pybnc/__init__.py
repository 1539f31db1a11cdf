"""pybnc: discrete Bayesian network classifiers, scikit-learn native.

The pipeline, one module per stage: :mod:`pybnc.encode` (table to codes),
:mod:`pybnc.counts.tables` (sufficient statistics), :mod:`pybnc.scores.information` (information and
scores), :mod:`pybnc.structure` (DAGs), :mod:`pybnc.parameters.learn` (log tables),
:mod:`pybnc.inference.forest` (joint log-likelihood), then the estimators.
"""

import importlib

from ._version import __version__
from .averaging import AODE, ESKDB, MANB, AnDE, SSTBMATAN, TBMATAN
from .encode import Encoder
from .estimators import FAN, TAN, NaiveBayes
from .estimators.capabilities import Capabilities, capabilities
from .search import BSEJ, FSSJ, KDB, SKDB, TANHC, TANHCSP
from .selection import AutoBNC

#: Subpackages loaded on first use (PEP 562): ``import pybnc`` stays as fast as the
#: classifiers alone, and ``pybnc.datasets.load_dataset`` works without an import of its own.
LAZY_SUBPACKAGES = ("datasets", "io", "plotting", "streaming", "evaluation", "registry")
#: Names of :mod:`pybnc.io` that the package itself offers.
_FROM_IO = ("save", "load")


def __getattr__(name: str):
    if name in LAZY_SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")  # also binds it as an attribute of the package
    if name in _FROM_IO:
        return getattr(importlib.import_module(f"{__name__}.io"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *LAZY_SUBPACKAGES, *_FROM_IO})


__all__ = ["NaiveBayes", "TAN", "FAN", "MANB", "AODE", "AnDE", "ESKDB", "TBMATAN", "SSTBMATAN", "TANHC", "TANHCSP",
           "FSSJ", "BSEJ", "KDB", "SKDB", "AutoBNC", "Encoder", "capabilities", "Capabilities", "save", "load", "__version__"]
