"""Inference: the joint log-likelihood ``log P(x_observed, c)`` of a network, exact when
values are missing.

:mod:`pybnc.inference.forest` answers one-dependence models by sum-product messages on
the forest the features form given the class; :mod:`pybnc.inference.elimination` any
augmented naive Bayes (kDB) by variable elimination.
"""

from .elimination import eliminate_rows_jll
from .forest import complete_rows_jll, joint_log_likelihood

__all__ = ["joint_log_likelihood", "complete_rows_jll", "eliminate_rows_jll"]
