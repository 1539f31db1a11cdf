"""Model averaging: classifiers that average over many structures instead of picking one.

TBMATAN averages over every tree-augmented naive Bayes exactly (Cerquides & López
de Màntaras 2003); SSTBMATAN is the paper's structure-stubborn approximation.
AveragedBNC and BaggedBNC average the posteriors of fitted classifiers (given
members; bootstrap copies of one learner).
One import line per module below; add yours.
"""

from .ande import AnDE
from .aode import AODE
from .ensembles import AveragedBNC, BaggedBNC
from .eskdb import ESKDB
from .manb import MANB
from .sstbmatan import SSTBMATAN
from .tbmatan import TBMATAN

__all__ = ["TBMATAN", "SSTBMATAN", "MANB", "AODE", "AnDE", "ESKDB", "AveragedBNC", "BaggedBNC"]
