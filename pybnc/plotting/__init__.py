"""Pictures: the network of a classifier, learning curves, model comparisons and
explanations (:func:`plot_waterfall`, :func:`plot_importance`).

matplotlib is imported only when a function draws (``pip install pybnc[plot]``), so
``import pybnc`` stays light and works headless.

Results tables
--------------
:func:`plot_learning_curve` and :func:`plot_comparison` read the long table of
:func:`pybnc.evaluation.cross_validate`: one row per (dataset, model, fold,
train_fraction) with the columns

``dataset``, ``model``, ``fold``, ``train_fraction``
    Keys. ``train_fraction`` is the share of each training fold used (1.0 = all).
``accuracy``, ``log_loss``, ``log_score``, ``brier``, ``fit_time``
    Metrics; any numeric column can be plotted by name.
"""

from .explanations import explanation_svg, plot_importance, plot_waterfall
from .network import ARC_COLOUR, CLASS_ARC_COLOUR, CLASS_COLOUR, FEATURE_COLOUR, network_layout, network_svg, plot_network, to_dot
from .results import plot_comparison, plot_learning_curve

__all__ = ["plot_network", "network_layout", "network_svg", "to_dot", "plot_learning_curve", "plot_comparison",
           "plot_waterfall", "plot_importance", "explanation_svg"]
