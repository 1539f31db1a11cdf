"""Evaluation: metrics, significance tests and cross-validation on shared folds.

Examples
--------
>>> from pybnc import NaiveBayes, TAN
>>> from pybnc.datasets import load_dataset
>>> from pybnc.evaluation import cross_validate, summarize
>>> X, y = load_dataset("car")
>>> res = cross_validate({"nb": NaiveBayes(), "tan": TAN()}, X, y, cv=5, verbose=0)
>>> summarize(res)[("accuracy", "mean")].round(3).tolist()
[0.849, 0.942]
"""

from . import stats
from .cv import compare_to_baseline, cross_validate, learning_curve, summarize
from .metrics import accuracy, brier_score, error_rate, log_loss, log_score
from .stats import (
    HIGHER_IS_BETTER,
    TTestResult,
    corrected_resampled_t_test,
    paired_t_test,
    significant_wins,
    win_tie_loss,
)

__all__ = ["cross_validate", "learning_curve", "summarize", "compare_to_baseline", "accuracy", "error_rate",
           "log_loss", "log_score", "brier_score", *stats.__all__]
