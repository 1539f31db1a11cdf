"""scikit-learn parameter constraints shared by several classifiers.

Every classifier lists each of its parameters in ``_parameter_constraints``
(scikit-learn's vocabulary, :mod:`pybnc._utils.validation`); ``fit``,
``partial_fit``, :mod:`pybnc.streaming` and cross-validation check them before
anything is read, so a wrong value raises ``InvalidParameterError``
(a ``ValueError`` and a ``TypeError``) naming the parameter and what it may be. The
encoding options are the nested :class:`~pybnc.Encoder`'s parameters
(``encoder``), validated by its own fit.
"""

from __future__ import annotations

from numbers import Integral, Real


from .._utils.validation import HasMethods, Interval, StrOptions
from ..encode import Encoder
from ..parameters.learn import METHODS

#: A smoothing strength: a pseudo-count, ``N0`` or ``lambda`` (None: the method's default).
ALPHA = [Interval(Real, 0, None, closed="left"), None]
#: A number of something that must be at least one.
POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]
#: ``cv``: a number of stratified folds, a scikit-learn splitter or a list of ``(train, test)`` folds.
CV = [Interval(Integral, 2, None, closed="left"), list, tuple, HasMethods(["split", "get_n_splits"])]
#: ``encoder``: the nested encoder (None: ``Encoder()``).
ENCODER = {"encoder": [Encoder, None]}


def smoothing_options(*methods: str) -> list:
    """The constraint of ``smoothing``: one of ``methods`` (default: every method of
    :mod:`pybnc.parameters.learn`)."""
    return [StrOptions(set(methods or METHODS))]


#: ``weighting="discriminative"``'s parameters (:mod:`pybnc.estimators._discriminative`).
DISCRIMINATIVE_CONSTRAINTS = {
    "discriminative_penalty": [Interval(Real, 0, None, closed="left"), None],
    "discriminative_max_iter": POSITIVE_INT,
}
#: The ``weighting`` of the classifiers whose only weighting is the discriminative one.
DISCRIMINATIVE_WEIGHTING = {"weighting": [StrOptions({"discriminative"}), None], **DISCRIMINATIVE_CONSTRAINTS}


#: The parameters of the greedy wrappers that bnclassify shares (TAN-HC, TAN-HCSP, FSSJ, BSEJ).
WRAPPER_CONSTRAINTS = {
    **ENCODER,
    "cv": CV,
    "epsilon": [Interval(Real, 0, None, closed="left")],
    # the search scores candidates with these estimates (pybnc.search._engine)
    "smoothing": smoothing_options("mle", "bayes", "friedman", "ms"),
    "alpha": ALPHA,
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    "n_jobs": [Integral, None],
}
