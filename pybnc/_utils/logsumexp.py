"""``log(sum(exp(a), axis))`` for inference and search: scipy's, with pybnc's conventions.

An all ``-inf`` slice gives ``-inf`` without a warning. An empty axis (the levels of a
feature never observed in training) sums to ``log 1 = 0``: such a feature contributes
nothing.
"""

from __future__ import annotations

import numpy as np
import scipy.special


def logsumexp(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """``log(sum(exp(a), axis=axis))``, the axis removed.

    Examples
    --------
    >>> import numpy as np
    >>> logsumexp(np.log([[1.0, 3.0], [0.0, 0.0]])).round(6).tolist()
    [1.386294, -inf]
    """
    if a.shape[axis] == 0:
        # Only a feature that was never observed has no level; it is missing in every row
        # and summing it out must leave the row's probability unchanged (a factor of 1).
        return np.zeros(np.delete(a.shape, axis))
    with np.errstate(divide="ignore"):
        return scipy.special.logsumexp(a, axis=axis)
