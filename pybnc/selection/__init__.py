"""Selection: a learner chosen among pybnc's on the training rows (:class:`AutoBNC`).

The stage after evaluation: it cross-validates candidate learners
(:mod:`pybnc.evaluation`) and refits the choice.
"""

from .auto import AutoBNC
from ..averaging import AveragedBNC
from .blend import ensemble_selection, log_pool_selection
from .rules import choose

__all__ = ["AutoBNC", "AveragedBNC", "choose", "ensemble_selection", "log_pool_selection"]
