"""Parameter learning: from a structure and counts to log-probability tables.

:mod:`pybnc.parameters.learn` (maximum likelihood, Dirichlet, Friedman's smoothing,
multinomial sampling), :mod:`pybnc.parameters.hdp` (hierarchical Dirichlet process
smoothing), :mod:`pybnc.parameters.weighting` (AWNB and WANBIA feature weights) with the
trees AWNB reads its weights from (:mod:`pybnc.parameters.c45_tree`,
:mod:`pybnc.parameters.rpart_tree`).
"""

from .learn import ParameterTables, class_log_prior, conditional_log_table, learn_parameters, n_free_parameters

__all__ = ["ParameterTables", "learn_parameters", "class_log_prior", "conditional_log_table", "n_free_parameters"]
