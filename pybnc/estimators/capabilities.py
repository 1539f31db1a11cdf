"""What each classifier can do, declared once per class: the estimator protocol.

Streaming, cross-validation, the command line, the web page, the model file, the plots
and the documentation read these declarations instead of asking an instance what
attributes it happens to have. Each classifier class declares its
:class:`Capabilities` at its default parameters (the class attribute
``_capabilities``); where a parameter changes what the model can do (TAN with
``weighting="awnb"`` reads its rows, so it cannot learn block by block; KDB with
``search="hc"`` needs no pair counts), the class says so once, in its
``_refine_capabilities``. :func:`capabilities` gives the answer for a class or an
instance.

scikit-learn's own tags (``__sklearn_tags__``) say what they can: every pybnc
classifier takes missing values (``allow_nan``), string and categorical columns, and
``partial_fit`` exists only where :attr:`Capabilities.learns_from_counts` holds.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from dataclasses import dataclass

from sklearn.base import clone


@dataclass(frozen=True)
class Capabilities:
    """What a pybnc classifier can do (see :func:`capabilities`).

    Attributes
    ----------
    learns_from_counts : bool
        The model is a function of additive statistics of the rows (counts), so it
        learns block by block: ``partial_fit`` exists, and one pass of
        :func:`pybnc.streaming.fit_blocks` fits it.
    passes : int
        Passes over the rows that learning out of core takes
        (:func:`pybnc.streaming.fit_blocks`, :func:`pybnc.streaming.fit_dask`): 1 for
        the count learners, 2 for Sahami's kDB (its structure from the pair counts, then
        the families that structure asks for), 3 for SKDB (then its leave-one-out
        losses); 0 when the model cannot learn out of core at all. With
        :attr:`rereads_rows`, the passes before the optimiser's (one more per step).
    pair_counts : bool
        The counting stage gives the model every pair's class-conditional counts
        (False: the class and level counts only; the tables with feature parents are
        counted from the rows when needed).
    learns_from_codes : bool
        Learning needs nothing but the coded table and its counts, so
        cross-validation codes the table once for every fold
        (:mod:`pybnc.evaluation.cv`). False for ESKDB, whose members cut the numeric
        columns from the raw values.
    sums_missing_exactly : bool
        A missing value is summed out exactly at prediction (False for AODE and AnDE,
        which leave out a super-parent whose value is missing, the papers' policy).
    discretises_numeric : bool
        Numeric columns are cut into bins by the encoder (``discretizer``, ``n_bins``).
    one_network : bool
        The model is one Bayesian network: ``structure_``, ``arcs_``,
        ``conditional_table``, ``log_likelihood``, plots and BIF export.
    averages_structures : bool
        The prediction averages over several structures (AODE, AnDE, TBMATAN,
        SSTBMATAN, MANB, ESKDB).
    joins_features : bool
        Features are joined into compound nodes (FSSJ, BSEJ).
    searches_by_cv : bool
        The structure is searched by an inner cross-validation (the wrappers): slower
        than the learners that read their structure from the counts.
    smooths_by_hdp : bool
        ``smoothing="hdp"`` smooths the tables by hierarchical Dirichlet processes.
    tables_are_probabilities : bool
        The learned tables are conditional distributions (False when feature weights
        raise them to a power: AWNB, WANBIA), as a BIF file must hold.
    rereads_rows : bool
        Learning ends with an optimiser that reads every training row at each of its
        steps (``weighting="discriminative"``: L-BFGS on the conditional likelihood), so
        the counts alone never give the model: no ``partial_fit``; out of core,
        :func:`pybnc.streaming.fit_blocks` and :func:`~pybnc.streaming.fit_dask` read the
        blocks again once per step after their ``passes`` (the blocks must be readable
        again); cross-validation fits each fold from its coded rows.
    weightings : tuple of str
        The values of the ``weighting`` parameter besides None: ``"awnb"`` and
        ``"wanbia"`` (feature weights: NaiveBayes, TAN, FAN) and ``"discriminative"``
        (one weight per table cell and class, learned for the conditional likelihood:
        NaiveBayes, TAN, FAN, KDB, SKDB, AODE, AnDE; ``docs/discriminative.md``).
    sample_weight : {"counts", "repeats"}
        How ``fit(X, y, sample_weight=w)`` (and ``partial_fit``) learns from weighted
        rows (:mod:`pybnc._utils.sample_weight`; a row of weight 0 is always the row absent).
        ``"counts"``: every row counts its weight in the counts (and the encoder's cut
        points), so any non-negative weights are exact and integer weights equal
        repeated rows. ``"repeats"``: the model reads its training rows themselves (an
        inner cross-validation, weights fitted to the rows), so it learns from the rows
        repeated by their weights: integer weights only, fractional ones refused.
        A parameter that takes a count learner's passes away (``passes == 0``: weights
        fitted to the rows) makes it ``"repeats"``, whatever its class declares.
    explains : bool
        ``explain()`` gives the Shapley values of a prediction, from the model's own answers
        with features left out as missing (:mod:`pybnc.estimators.explain`): every
        classifier whose ``_jll_encoded`` reads ``-1`` as missing, which the base class
        assumes; exact by enumeration, by independent groups, or sampled with a standard error.

    Examples
    --------
    >>> from pybnc import KDB, TAN, capabilities
    >>> capabilities(TAN).learns_from_counts, capabilities(TAN(weighting="awnb")).learns_from_counts
    (True, False)
    >>> capabilities(KDB).passes, capabilities(KDB(search="hc")).passes
    (2, 0)
    >>> "discriminative" in capabilities(KDB).weightings, capabilities(KDB(weighting="discriminative")).rereads_rows
    (True, True)
    >>> capabilities(TAN).sample_weight, capabilities(TAN(weighting="awnb")).sample_weight
    ('counts', 'repeats')
    """

    learns_from_counts: bool = False
    passes: int = 0
    pair_counts: bool = True
    learns_from_codes: bool = True
    sums_missing_exactly: bool = True
    discretises_numeric: bool = True
    one_network: bool = False
    averages_structures: bool = False
    joins_features: bool = False
    searches_by_cv: bool = False
    smooths_by_hdp: bool = False
    tables_are_probabilities: bool = True
    rereads_rows: bool = False
    weightings: tuple = ()
    sample_weight: str = "repeats"
    explains: bool = True

    @property
    def discriminative_weights(self) -> bool:
        """``"discriminative" in weightings``: the class takes ``weighting="discriminative"``."""
        return "discriminative" in self.weightings

    def replace(self, **changes) -> "Capabilities":
        """A copy with ``changes`` (for a subclass's declaration or a parameter's refinement)."""
        return dataclasses.replace(self, **changes)


def capabilities(estimator) -> Capabilities:
    """What a pybnc classifier (a class, or an instance with its parameters) can do.

    A class answers for its default parameters; an instance for the parameters it
    has, whether fitted or not.

    Parameters
    ----------
    estimator : pybnc classifier class or instance

    Returns
    -------
    Capabilities

    Examples
    --------
    >>> from pybnc import AODE, SKDB, capabilities
    >>> capabilities(SKDB).passes, capabilities(AODE()).averages_structures
    (3, True)
    """
    declared = getattr(estimator, "_capabilities", None)
    if not isinstance(declared, Capabilities):
        raise TypeError(f"{estimator!r} is not a pybnc classifier: it declares no capabilities.")
    found = declared if inspect.isclass(estimator) else estimator._refine_capabilities(declared)
    if found.sample_weight == "counts" and declared.passes and not found.passes:
        # a parameter that takes the passes away (weights fitted to the rows) reads the rows: it repeats them
        found = found.replace(sample_weight="repeats")
    if groups_rare_levels(estimator):  # which levels are rare is known once every row is counted
        found = found.replace(learns_from_counts=False, passes=0)
    return found


def groups_rare_levels(estimator) -> bool:
    """Whether an instance's encoder groups rare levels (``min_frequency > 1``)."""
    return not inspect.isclass(estimator) and _min_frequency(estimator) > 1


def _min_frequency(estimator) -> int:
    return getattr(getattr(estimator, "encoder", None), "min_frequency", 1) or 1


def block_refusal(estimator, one_pass: bool) -> str | None:
    """Why ``estimator`` cannot learn block by block (``one_pass``: in a single pass, as
    ``partial_fit``; else in as many passes as it needs), or None if it can."""
    found = capabilities(estimator)
    name = type(estimator).__name__
    if groups_rare_levels(estimator):
        without = block_refusal(clone(estimator).set_params(encoder__min_frequency=1), one_pass)
        if without is not None:
            return without
        return (f"{_call(estimator)} groups the levels seen fewer than {_min_frequency(estimator)} times, which "
                "are known only once every row is counted, so it cannot learn block by block (partial_fit, "
                "fit_blocks, fit_dask). Pass an encoder with min_frequency=1, or group the rare levels of the table "
                "before (for example top = X[col].value_counts().index[:100]; "
                "X[col] = X[col].where(X[col].isin(top), 'other')).")
    if found.passes and (found.learns_from_counts or not one_pass):
        return None
    if found.passes and found.rereads_rows:
        return (f"{_call(estimator)} fits its parameters by an optimiser (L-BFGS) that reads all the rows again "
                "at every step, which partial_fit (one pass) cannot give. Use pybnc.streaming.fit_blocks with a "
                "list of blocks or a function returning a fresh iterable, or fit_dask.")
    if found.passes:
        return (f"{name} reads the rows {found.passes} times (what the first pass counts decides what the "
                "next ones count), which partial_fit (one pass) cannot give. Use pybnc.streaming.fit_blocks "
                "with a list of blocks or a function returning a fresh iterable, or fit_dask.")
    call = _call(estimator)
    remedy = _defaults_that_stream(estimator, one_pass)
    if remedy:
        return (f"{call} learns from the training rows themselves, not only their counts, so it cannot learn "
                f"block by block. Use {name}({remedy}), which {'does' if one_pass else 'learns out of core'}, "
                "or fit() on a sample that fits in memory.")
    learners = ", ".join(cls.__name__ for cls in _public_classifiers() if capabilities(cls).learns_from_counts)
    return (f"{call} reads the training rows themselves (not only their counts), so it cannot learn block by "
            f"block. Fit it with fit() on a sample that fits in memory, or use a classifier that learns from "
            f"counts: {learners}.")


def _public_classifiers() -> list:
    """The classifier classes ``pybnc`` exports (those that declare their capabilities),
    read from the loaded package: the registry, :mod:`pybnc.registry`, sits to the right
    of the estimators and is not imported here."""
    package = sys.modules.get("pybnc")
    names = getattr(package, "__all__", ())
    return [cls for cls in (getattr(package, n, None) for n in names)
            if isinstance(cls, type) and isinstance(getattr(cls, "_capabilities", None), Capabilities)]


def _changed(estimator) -> dict:
    """The parameters of ``estimator`` that differ from its class's defaults."""
    defaults = type(estimator)().get_params(deep=False)
    return {k: v for k, v in estimator.get_params(deep=False).items() if not _same(v, defaults.get(k))}


def _same(a, b) -> bool:
    try:
        return bool(a == b) if type(a) is type(b) else False
    except (TypeError, ValueError):  # arrays and other values without a plain truth value
        return a is b


def _call(estimator) -> str:
    """``Name(param=value, ...)`` with the parameters that differ from the defaults."""
    changed = _changed(estimator)
    return f"{type(estimator).__name__}({', '.join(f'{k}={v!r}' for k, v in changed.items())})" if changed \
        else type(estimator).__name__


def _defaults_that_stream(estimator, one_pass: bool) -> str:
    """``param=default`` for the changed parameters whose default would let the model
    learn block by block (in one pass, or out of core), or ``""``."""
    defaults = type(estimator)().get_params(deep=False)
    back = []
    for key in _changed(estimator):
        again = capabilities(type(estimator)(**{**estimator.get_params(deep=False), key: defaults[key]}))
        if again.learns_from_counts if one_pass else again.passes:
            back.append(f"{key}={defaults[key]!r}")
    return ", ".join(back)
