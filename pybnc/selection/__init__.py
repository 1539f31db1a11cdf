"""Selection: a learner chosen among pybnc's on the training rows (:class:`AutoBNC`).

The stage after evaluation: it cross-validates candidate learners
(:mod:`pybnc.evaluation`) and refits the choice.
"""

from ..estimators.registry import RegisteredModel, register
from .auto import AutoBNC
from .blend import AveragedBNC, ensemble_selection
from .rules import choose

register(RegisteredModel("auto", "AutoBNC", "the learner chosen on the training rows by inner cross-validation",
                         AutoBNC))

__all__ = ["AutoBNC", "AveragedBNC", "choose", "ensemble_selection"]
