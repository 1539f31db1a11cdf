"""Scoring: information-theoretic quantities and decomposable scores, all from counts.

:mod:`pybnc.scores.information` holds entropy and (conditional) mutual information for
all feature pairs at once; :mod:`pybnc.scores.penalties` the arc weights and the
loglik / AIC / BIC (MDL) penalties.
"""

from .information import class_mutual_information, entropy, mutual_information, pairwise_cmi
from .penalties import arc_parameters, ode_arc_weights, penalised, penalty_per_parameter

__all__ = ["entropy", "mutual_information", "class_mutual_information", "pairwise_cmi", "arc_parameters",
           "penalty_per_parameter", "ode_arc_weights", "penalised"]
