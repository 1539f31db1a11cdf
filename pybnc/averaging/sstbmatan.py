"""SSTBMATAN: the structure-stubborn approximation of TBMATAN (Cerquides & López de Màntaras 2003, §4).

The paper computed TBMATAN's determinants in arbitrary precision and, to avoid
that, proposed to squeeze the edge Bayes factors ``W_uv`` into ``[10^-K, 1]`` by an
increasing affine map of ``log10 W`` (eqs. 25-29) before forming ``beta*``. pybnc
does not need it for accuracy (TBMATAN is exact in float64 here); SSTBMATAN is
kept exactly as the paper defines it, as a different, more conservative
classifier (its posterior over trees is flatter), for comparison.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._utils.validation import Interval
from ..estimators.base import keep_arguments
from .tbmatan import TBMATAN

_LN10 = np.log(10.0)


def stubborn_log_weights(log_w: np.ndarray, decades: float = 5.0) -> np.ndarray:
    """Eqs. 25-29: map the natural-log edge weights into ``[-decades, 0]`` decades.

    Parameters
    ----------
    log_w : ndarray of shape (n, n)
        Natural log of the Bayes factors ``W_uv``; the diagonal is ignored.
    decades : float, default=5
        The paper's ``K``.

    Returns
    -------
    ndarray of shape (n, n)
        ``ln W~_uv`` with ``log10 W~ = a log10 W + b``; ``-inf`` on the diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.log(10.0) * np.array([[0, -300, 0], [-300, 0, -100], [0, -100, 0]], float)
    >>> (stubborn_log_weights(w) / np.log(10)).round(6).tolist()[0]
    [-inf, -5.0, 0.0]
    """
    n = log_w.shape[0]
    off = ~np.eye(n, dtype=bool)
    log10_w = log_w / _LN10
    out = np.full((n, n), -np.inf)
    if n < 2:
        return out
    lmax, lmin = log10_w[off].max(), log10_w[off].min()  # eqs. 25, 26
    a = decades / (lmax - lmin) if lmax - lmin > decades else 1.0  # eq. 27
    b = -decades - a * lmin  # eq. 28
    out[off] = (a * log10_w[off] + b) * _LN10  # eq. 29
    return out


class SSTBMATAN(TBMATAN):
    """Structure-stubborn TBMATAN (Cerquides & López de Màntaras 2003, eqs. 25-29).

    TBMATAN with the edge Bayes factors squeezed into ``[10^-K, 1]`` (order kept,
    ratios never exaggerated) before they weight the trees. Everything else,
    including the exact treatment of missing values, is TBMATAN's.

    Parameters
    ----------
    decades : float, default=5
        The paper's ``K``: the weights span at most this many orders of magnitude.
    alpha : float, default=10
        Equivalent sample size ``lambda`` of the prior (eq. 24), as :class:`TBMATAN`.
    max_missing_combinations : int, default=4096
        See :class:`TBMATAN`.
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.

    Attributes
    ----------
    Those of :class:`TBMATAN`; ``log_edge_weights_`` holds ``ln W~``.

    Examples
    --------
    >>> from pybnc import SSTBMATAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = SSTBMATAN().fit(X, y)
    >>> float(model.log_edge_weights_.max().round(9)), float((model.log_edge_weights_.min() / 2.302585093))
    (0.0, -inf)
    """

    _parameter_constraints = {**TBMATAN._parameter_constraints, "decades": [Interval(Real, 0, None, closed="neither")]}

    def __init__(self, decades=5.0, alpha=10.0, max_missing_combinations=4096, encoder=None):
        keep_arguments(self, locals())

    def _posterior_edge_weights(self, log_w):
        return stubborn_log_weights(log_w, float(self.decades))
