"""The contract every pybnc classifier fulfils.

As in scikit-learn's ``naive_bayes.py``: a subclass provides ``_fit_encoded`` (learn
from integer codes and counts) and ``_jll_encoded`` (``log P(x, c)`` per row and
class); validation, encoding, ``predict``, ``predict_proba`` and
``predict_log_proba`` are written once here.

The protected hooks, the only doors between classes (composite models, streaming and
cross-validation use them, never another class's fields), are listed by the protocols of
:mod:`pybnc.estimators.protocol`; the main ones:

``_fit_coded(encoding, codes, y, counts)``
    The one path from a coded table to a fitted model: ``fit`` takes it after
    encoding, cross-validation's fast path with a fold's codes and counts.
``_fit_from_counts(counts, families=None)``
    The one path from counts: ``partial_fit`` and one-pass streaming.
``_absorb_block(codes, y, moves, first, weights)``
    A block's statistics beyond the counts (AnDE's three-way counts), weighted.
``_learn_in_passes(counts)``
    Out of core, the passes after the first (:func:`run_passes` drives them).
``_refine_capabilities(declared)``
    What a parameter changes in the class's :class:`Capabilities`.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._utils.warn import warn
from .._utils.validation import feature_names, fit_context, validate_parameter_constraints
from .._utils.passes import PASS_MAKER
from ..counts.tables import Counts, count, remap_counts
from .._utils.sample_weight import check_sample_weight, repeat_rows, take_rows
from ..encode import Encoder, EncodingWarning, grow_encoder
from ..encode.labels import check_labels as _check_labels
from ..encode.table import check_table as _check_table
from ..encode.labels import class_codes as _class_codes
from ..inference.posterior import LOG_PROBA_FLOOR, log_posterior  # noqa: F401 - the estimators' own
from ._fitted_state import check_fitted_state
from .capabilities import Capabilities, block_refusal, capabilities
from .explain import explain as _explain




@dataclass(frozen=True)
class Encoding:
    """What the encode stage learned from a table: the classes, the fitted encoder and
    the table's columns (their names when it had string names, else None)."""

    classes: np.ndarray
    encoder: Encoder
    n_features_in: int
    feature_names_in: np.ndarray | None = None

    @classmethod
    def of(cls, X, classes, encoder) -> "Encoding":
        """The encoding ``encoder`` learned from table ``X`` (the names of its columns)."""
        return cls(classes, encoder, X.shape[1], feature_names(X))

    @classmethod
    def of_model(cls, model, encoder=None) -> "Encoding":
        """A fitted model's encoding (with another fitted ``encoder`` of the same columns)."""
        return cls(model.classes_, model.encoder_ if encoder is None else encoder, model.n_features_in_,
                   getattr(model, "feature_names_in_", None))


def keep_arguments(estimator, arguments: dict) -> None:
    """Keep an ``__init__``'s arguments (its ``locals()``, taken first thing) as the
    estimator's parameters, unchanged: scikit-learn's convention (they are checked at fit)."""
    for name, value in arguments.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


def run_passes(passes, read=None, total=None) -> None:
    """Drive a model's passes over its rows (:meth:`BaseBNC._learn_in_passes`).

    ``passes`` yields one function of a coded block ``(codes, y)`` per pass; its results
    over the blocks are summed in the blocks' order and sent back, until the model is
    fitted. The blocks are those ``read()`` gives (afresh at every call), ``(codes, y)``
    or ``(codes, y, weights)`` (the function is called with the weights then), or
    ``total`` sums a pass's function over them its own way (Dask: every partition in parallel).
    A generator that yields :data:`~pybnc._utils.passes.PASS_MAKER` is sent the function
    that makes one pass (an optimiser calling its objective makes its passes itself).
    """
    if total is None:
        def total(per_block):
            out = None
            for block in read():
                part = per_block(*block)
                out = part if out is None else out + part
            return out
    try:
        per_block = next(passes)
        while True:
            per_block = passes.send(total if per_block is PASS_MAKER else total(per_block))
    except StopIteration:
        pass


class BaseBNC(ClassifierMixin, BaseEstimator):
    """Base class of the pybnc classifiers. Not for direct use."""

    #: What the class can do at its default parameters (:mod:`pybnc.estimators.capabilities`).
    _capabilities = Capabilities()
    #: Every parameter's scikit-learn constraints, checked at fit (:mod:`pybnc.estimators._constraints`).
    _parameter_constraints: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "fit" in vars(cls) and "_capabilities" not in vars(cls):
            # a fit of its own may read more than the coded table: cross-validation refits it
            cls._capabilities = cls._capabilities.replace(learns_from_codes=False)

    def _validate_params(self) -> None:
        """Check every parameter against :attr:`_parameter_constraints` (a wrong one raises
        :class:`~pybnc._utils.validation.InvalidParameterError` naming it and what it may be)."""
        validate_parameter_constraints(self._parameter_constraints, self.get_params(deep=False),
                                       caller_name=type(self).__name__)

    def _refine_capabilities(self, declared: Capabilities) -> Capabilities:
        """The class's capabilities as this instance's parameters change them (a
        subclass whose parameters change them overrides this, the one place that says so)."""
        return declared

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags

    # -- encoding ---------------------------------------------------------------------
    def _encoder(self) -> Encoder:
        """An unfitted copy of the ``encoder`` parameter (None: ``Encoder()``), validated by
        its fit. It codes into arrays whatever output its original was set to: the model
        reads codes, never a DataFrame of them."""
        given = getattr(self, "encoder", None)
        return (Encoder() if given is None else clone(given)).set_output(transform="default")

    def set_params(self, **params):
        """Set parameters, as scikit-learn's ``set_params``; ``encoder__<option>`` while
        ``encoder`` is None sets it on a default :class:`~pybnc.Encoder` (so that
        ``GridSearchCV(TAN(), {"encoder__n_bins": [3, 5]})`` works)."""
        if getattr(self, "encoder", False) is None and "encoder" not in params \
                and any(key.startswith("encoder__") for key in params):
            self.encoder = Encoder()
        return super().set_params(**params)

    def _encode_fit(self, X, y, weights=None):
        """Validate ``X``/``y`` and learn the encoding (from rows of positive ``weights``,
        :meth:`_weighted_rows`); returns codes, class codes, counts."""
        X = _check_table(X)
        y = _check_labels(y, X.shape[0])
        names = feature_names(X)
        classes, y_codes = _class_codes(y)
        if classes.shape[0] < 2:
            raise ValueError(f"y has one class only ({classes[0]!r}); a classifier needs at least 2 classes.")
        encoder = self._encoder()
        codes = encoder.fit_transform(X, y_codes, weights)
        self._take_encoding(Encoding(classes, encoder, X.shape[1], names))
        return codes, y_codes, self._count(codes, y_codes, weights)

    def _count(self, codes, y_codes, weights=None) -> Counts:
        """The counts of coded rows (each counting its weight) that this model learns from (pairs or not)."""
        return count(codes, y_codes, self.encoder_.cardinalities_, len(self.classes_),
                     pairs=capabilities(self).pair_counts, weights=weights)

    def _weighted_rows(self, X, y, sample_weight):
        """``(X, y, weights)`` as this model learns from ``sample_weight``
        (:attr:`Capabilities.sample_weight`): rows of weight 0 left out; the weights
        (None when all are 1) for a model that weighs its counts, or the rows repeated
        by their (integer) weights and no weights for one that reads its rows."""
        X = _check_table(X)
        if sample_weight is None:
            return X, y, None
        y = _check_labels(y, X.shape[0])
        weights = check_sample_weight(sample_weight, X.shape[0])
        if (weights == 1).all():
            return X, y, None
        if capabilities(self).sample_weight == "repeats":
            rows = repeat_rows(weights, type(self).__name__)
            return take_rows(X, rows), y[rows], None
        kept = np.flatnonzero(weights > 0)
        if kept.size < weights.size:
            X, y, weights = take_rows(X, kept), y[kept], weights[kept]
        return X, y, (None if (weights == 1).all() else weights)

    def _take_encoding(self, encoding: Encoding) -> None:
        """Adopt a learned encoding: classes, encoder and the input columns (on a state
        that :meth:`_forget_fit` cleared, so no former fit's column names remain)."""
        self.classes_, self.encoder_, self.n_features_in_ = encoding.classes, encoding.encoder, encoding.n_features_in
        if encoding.feature_names_in is not None:
            self.feature_names_in_ = encoding.feature_names_in

    # -- the fitted state ---------------------------------------------------------------
    #: The fitted attributes that blocks add to (``partial_fit``, the passes out of core): a
    #: learning step keeps them and re-learns every other fitted attribute.
    _running_state = ("classes_", "encoder_", "n_features_in_", "feature_names_in_", "counts_")

    def _forget_fit(self, keep=()) -> None:
        """Remove every fitted attribute (public names ending in ``_``) but those in ``keep``.

        The fitted state is what one fit wrote: each fit starts here, so it replaces the
        whole state and no attribute of a former fit (another weighting, other columns)
        survives it. The one place that removes fitted attributes.
        """
        params = self.get_params(deep=False)
        for name in [n for n in vars(self) if n.endswith("_") and not n.startswith("_")]:
            if name not in keep and name not in params:
                delattr(self, name)

    def _begin_fit(self) -> None:
        """Check the parameters and forget the former fit: the start of every fit that does
        not go through :meth:`fit` (:func:`pybnc.streaming.fit_blocks`, ``fit_dask``)."""
        self._validate_params()
        self._forget_fit()

    def _start_fit(self, encoding: Encoding, counts: Counts | None = None) -> None:
        """Start a fit from a learned ``encoding`` (and the ``counts`` of a first pass over
        the rows, out of core): the former fit forgotten."""
        self._forget_fit()
        self._take_encoding(encoding)
        if counts is not None:
            self.counts_ = counts

    def _code_block(self, X, y) -> tuple:
        """A block's codes and class codes under the fitted encoding (the passes after the first)."""
        codes = self.encoder_.transform(self._align(X))
        return codes, self._encode_labels(y, codes.shape[0])

    def _encode(self, X) -> np.ndarray:
        X = self._align(X)  # first: it raises NotFittedError before encoder_ is looked up
        return self.encoder_.transform(X)

    def _align(self, X):
        """Validate a table against the fitted columns: a DataFrame's matched by name (in
        any order, extra ones ignored with a warning; the columns the encoder left out may
        be absent), other tables by position."""
        check_is_fitted(self)
        X = _check_table(X)
        names = getattr(self, "feature_names_in_", None)
        if isinstance(X, pd.DataFrame) and names is not None:
            return self._align_by_name(X, list(names))
        if names is None and isinstance(X, pd.DataFrame) and len(X.columns) \
                and all(isinstance(c, str) for c in X.columns):
            warn(f"X has feature names, but {type(self).__name__} was fitted without feature names", UserWarning)
        elif names is not None and not hasattr(X, "columns"):
            warn(f"X does not have valid feature names, but {type(self).__name__} was fitted with feature names",
                 UserWarning)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        return X

    def _align_by_name(self, X: pd.DataFrame, names: list) -> pd.DataFrame:
        """``X``'s columns in the fitted order; columns left out by the encoder may be
        absent (read as missing values: the model never reads them)."""
        if list(X.columns) == names:
            return X
        have = set(X.columns)
        dropped = set(getattr(self.encoder_, "dropped_columns_", ()))
        absent = [c for c in names if c not in have]
        needed = [c for c in absent if c not in dropped]
        extra = [c for c in X.columns if c not in set(names)]
        if needed:
            unseen = f" X has columns it was not fitted on: {extra[:10]}." if extra else ""
            raise ValueError(f"X lacks the column(s) {needed[:10]}{' ...' if len(needed) > 10 else ''} that "
                             f"{type(self).__name__} was fitted on (it matches the {len(names) - len(dropped)} "
                             f"columns it reads by name).{unseen} Pass a table with them; their values may be "
                             "missing.")
        if extra:
            warn(f"X has columns the model was not fitted on: {extra[:10]}"
                 f"{f' and {len(extra) - 10} more' if len(extra) > 10 else ''}; they are ignored.", EncodingWarning)
        # a column left out by the encoder and absent here is never read: any value will do
        return X.reindex(columns=names) if absent else X[names]

    def _encode_labels(self, y, n_rows: int) -> np.ndarray:
        y = _check_labels(y, n_rows)
        idx = pd.Index(self.classes_).get_indexer(y)
        if (idx < 0).any():
            raise ValueError(f"y holds the label {y[idx < 0][0]!r}, not seen at fit ({list(self.classes_)}).")
        return idx

    def _check_fitted_state(self) -> None:
        """Raise ``ValueError`` naming the attribute if the fitted state is incomplete,
        malformed or inconsistent (``pybnc.load`` calls it on every loaded model).

        The generic part checks ``classes_`` against the class prior and the tables'
        leading axis, the encoding against the tables' other axes, ``counts_``,
        ``structure_`` with ``log_cpts_`` and finiteness. A classifier with fitted state
        of its own overrides this, calls ``super()._check_fitted_state()`` first and
        checks the rest with :func:`pybnc.estimators._fitted_state.fitted_array`.
        """
        check_fitted_state(self)

    @property
    def feature_names_(self) -> list:
        """Feature names (the DataFrame's columns, else ``x0, x1, ...``)."""
        return [str(c) for c in self.encoder_.columns_]

    # -- the contract -------------------------------------------------------------------
    @fit_context(skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Learn the classifier from a table ``X`` and labels ``y``; returns ``self``.

        ``sample_weight`` (optional, one non-negative number per row): a row of
        weight 0 is the row absent, integer weights equal repeated rows; how other
        weights are learned is :attr:`Capabilities.sample_weight
        <pybnc.estimators.capabilities.Capabilities>` (``docs/sample-weights.md``).
        """
        self._forget_fit()
        X, y, weights = self._weighted_rows(X, y, sample_weight)
        codes, y_codes, counts = self._encode_fit(X, y, weights)
        return self._fit_coded(None, codes, y_codes, counts, weights)

    def _fit_coded(self, encoding: Encoding | None, codes, y_codes, counts: Counts, weights=None):
        """Learn from a table coded by a fitted encoder, its class codes and its counts:
        the one path from coded data to a fitted model. ``encoding`` (None: the one this
        model holds already) is what the encoder learned; ``weights`` (positive, or None)
        those the counts were counted with; returns ``self``."""
        if encoding is not None:
            self._start_fit(encoding)
        if weights is not None:
            return self._fit_weighted(codes, y_codes, counts, weights)
        self.counts_ = counts.to_keep()  # kept so that partial_fit can continue from here
        self._fit_encoded(codes, y_codes, counts)
        return self

    def _fit_weighted(self, codes, y_codes, counts: Counts, weights):
        """Weighted rows, for a model that weighs its counts (``sample_weight="counts"``):
        what it reads of its rows is read as blocks are (:meth:`_absorb_block`, then
        :meth:`_fit_from_counts` or the passes of :meth:`_learn_in_passes`), each row
        with its weight, so that nothing reads the rows unweighted."""
        if capabilities(self).sample_weight != "counts":
            raise TypeError(f"{type(self).__name__} reads its rows, not only their weighted counts: it learns "
                            "sample weights as repeated rows (fit(X, y, sample_weight=w) does so).")
        self._absorb_block(codes, y_codes, None, first=True, weights=weights)
        if capabilities(self).learns_from_counts:
            self._fit_from_counts(counts)
        else:
            run_passes(self._learn_in_passes(counts), read=lambda: [(codes, y_codes, weights)])
        return self

    def _has_partial_fit(self) -> bool:
        # partial_fit exists only where it works, so scikit-learn (and hasattr) see the truth.
        refusal = block_refusal(self, one_pass=True)
        if refusal:
            raise AttributeError(refusal)
        return True

    @available_if(_has_partial_fit)
    @fit_context(skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a block of rows to the running counts and re-learn the model from them.

        For estimators that learn from counts alone (naive Bayes, TAN, FAN, MANB,
        AODE, TBMATAN, SSTBMATAN; not with ``weighting``). After every call the
        model is fully usable: structure and parameters are re-learned from the
        summed counts, which costs no pass over the rows seen before. Calls after
        :meth:`fit` continue from its counts.

        Parameters
        ----------
        X : table of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, optional
            Every class label of the whole stream; required on the first call.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each row of the block, as in :meth:`fit`: blocks fitted with
            their weights equal one fit of all rows with theirs.

        Returns
        -------
        self

        Notes
        -----
        The encoding is learned on the first block. A categorical level first seen
        in a later block is added, the running counts padded to the new width, and
        levels stay in the order :meth:`fit` would give them on all the rows
        (sorted), so that block-wise and in-memory fits are identical. Discretised
        float columns keep the first block's cut points, and each column keeps the
        kind (categorical or discretised) it got on the first block.
        See ``docs/large-data.md``.

        Examples
        --------
        >>> import pandas as pd
        >>> from pybnc import TAN
        >>> X = pd.DataFrame({"a": ["x", "y", "x", "z"], "b": [0, 1, 1, 0]})
        >>> y = [0, 1, 1, 0]
        >>> model = TAN().partial_fit(X[:2], y[:2], classes=[0, 1]).partial_fit(X[2:], y[2:])
        >>> model.encoder_.categories_[0].tolist(), model.predict(X).tolist()
        (['x', 'y', 'z'], [0, 1, 1, 0])
        """
        if sample_weight is not None and hasattr(self, "counts_"):
            weights = check_sample_weight(sample_weight, _check_table(X).shape[0], allow_all_zero=True)
            if not (weights > 0).any():  # every row absent: the model stays as it is
                _check_labels(y, weights.size)
                return self
        self._fit_from_counts(self._add_block(X, y, classes, sample_weight))
        return self

    def _add_block(self, X, y, classes, sample_weight=None) -> Counts:
        """The running counts with block ``X``/``y`` (weighted by ``sample_weight``)
        added (the encoder grown if need be)."""
        X, y, weights = self._weighted_rows(X, y, sample_weight)
        if not hasattr(self, "counts_"):
            self._forget_fit()  # the first block starts a fit
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: every class "
                    "label of the whole stream (as in scikit-learn)."
                )
            self.classes_ = np.unique(np.asarray(classes))
            if self.classes_.shape[0] < 2:
                raise ValueError(f"classes holds {list(self.classes_)}; a classifier needs at least 2 classes.")
            y_codes = self._encode_labels(y, X.shape[0])
            names = feature_names(X)
            self._take_encoding(Encoding(self.classes_, self._encoder().fit(X, y_codes, weights), X.shape[1], names))
            running, moves = None, None
        else:
            if classes is not None and not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
                raise ValueError(f"classes={list(classes)} differs from the classes of the first call, "
                                 f"{list(self.classes_)}.")
            y_codes = self._encode_labels(y, X.shape[0])
            X = self._align(X)
            self.encoder_, moves = grow_encoder(self.encoder_, X)
            running = self.counts_
            if moves is not None:  # new levels: pad the counts to the grown encoding
                running = remap_counts(running, moves, self.encoder_.cardinalities_)
        codes = self.encoder_.transform(X)
        block = self._count(codes, y_codes, weights)
        self.counts_ = block if running is None else running + block
        self._absorb_block(codes, y_codes, moves, first=running is None, weights=weights)
        return self.counts_

    def _absorb_block(self, codes, y_codes, moves, first: bool, weights=None) -> None:
        """Add a coded block to statistics of this model's own beyond the counts (none
        here; AnDE's three-way counts). ``moves`` (from :func:`pybnc.encode.grow_encoder`)
        says where the levels of a grown encoding went; ``first``: the first block;
        ``weights``: the rows' weights (None: 1 each)."""

    def _fit_from_counts(self, counts: Counts, families=None) -> None:
        """Learn from the counts alone: no coded rows are passed, so nothing can read them.
        ``families`` (:class:`~pybnc.counts.families.FamilyCounts`) holds what a second pass counted.
        Every fitted attribute but the running state (:attr:`_running_state`) is learned afresh."""
        self._forget_fit(keep=self._running_state)
        self.counts_ = counts
        if families is not None:
            self.family_counts_ = families
        no_rows = np.empty((0, counts.n_features), dtype=np.int32)
        self._fit_encoded(no_rows, np.empty(0, dtype=np.int64), counts)

    def _learn_in_passes(self, counts: Counts):
        """Out of core: learn from the counts of a first pass over the rows, reading them
        again as the model needs (:func:`run_passes` drives it; a generator).

        Each ``yield`` gives a function of one coded block ``(codes, y)``; what it returns
        for every block, summed, comes back from the ``yield``. A model that learns from
        the counts alone reads nothing more (this default); Sahami's kDB counts its
        families in a second pass, SKDB also its leave-one-out losses in a third.
        """
        self._fit_from_counts(counts)
        yield from ()

    @abstractmethod
    def _fit_encoded(self, codes: np.ndarray, y: np.ndarray, counts: Counts) -> None:
        """Learn from coded rows (``-1`` = missing), class codes and their counts."""

    @abstractmethod
    def _jll_encoded(self, codes: np.ndarray) -> np.ndarray:
        """``log P(x_observed, c)`` (up to a per-row constant), shape ``(n, K)``."""

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self._jll_encoded(self._encode(X))

    def predict_log_proba(self, X) -> np.ndarray:
        """Log of the class posterior, shape ``(n_samples, n_classes)``, columns as ``classes_``."""
        return log_posterior(self._joint_log_likelihood(X))

    def predict_proba(self, X) -> np.ndarray:
        """Class posterior, shape ``(n_samples, n_classes)``; rows sum to one."""
        return np.exp(self.predict_log_proba(X))

    def explain(self, X, target=None, output="log_odds", method="auto", max_evals=None, random_state=None,
                verbose=1):
        """Shapley values of each row's prediction, from the model's own marginalisation.

        The value of a set ``S`` of features is ``logit P(target | x_S)`` (or ``P``), the
        other features missing and summed out by the model itself: no background sample.
        See :mod:`pybnc.estimators.explain` for the game of each kind of classifier.

        Parameters
        ----------
        X : table of shape (n_samples, n_features)
        target : class label, default=None
            The class explained for every row; None: each row's predicted class.
        output : {"log_odds", "probability"}, default="log_odds"
        method : {"auto", "exact", "sampling"}, default="auto"
            ``auto`` enumerates every subset when ``2^p <= max_evals`` (``p`` the row's
            observed features, or those of one independent group: with two classes and
            log-odds the components of a network are solved apart, naive Bayes' features
            one by one) and samples paired permutations beyond.
        max_evals : int, default=None
            Model evaluations per row (and group); None is 4096 (exact up to 12 features).
        random_state : int, Generator or None
            Seeds the sampled permutations.
        verbose : int, default=1
            A bar counting the model's evaluations (each a masked row): 0 silent, 1 on
            a terminal only, 2 always (:mod:`pybnc._utils.progress`). A wide row costs up
            to ``max_evals`` evaluations of the whole model.

        Returns
        -------
        Explanation
            A DataFrame indexed like ``X``: one column per input feature, in order, then
            ``base_value``; ``base_value`` plus a row's values is the logit (or
            probability) of ``target`` given the whole row. A feature missing in the row
            gets 0. Attributes ``target``, ``standard_error`` (0 where exact) and ``method``.

        Examples
        --------
        >>> from pybnc import TAN
        >>> from pybnc.datasets import load_dataset
        >>> X, y = load_dataset("car")
        >>> model = TAN().fit(X, y)
        >>> values = model.explain(X.iloc[[0]])
        >>> list(values.columns)
        ['buying', 'maint', 'doors', 'persons', 'lug_boot', 'safety', 'base_value']
        >>> p = model.predict_proba(X.iloc[[0]])[0, list(model.classes_).index(values.target.iloc[0])]
        >>> bool(abs(values.sum(axis=1).iloc[0] - np.log(p / (1 - p))) < 1e-9), values.method
        (True, 'exact')
        """
        return _explain(self, X, target, output, method, max_evals, random_state, verbose)

    def _explain_rows(self, X):
        """``(coded, observed)``: the rows of ``X`` as :meth:`_masked_jll` reads them, and
        which coded columns each row observes (the players of its game)."""
        codes = self._encode(X)
        return codes, codes >= 0

    def _masked_jll(self, coded, rows, keep) -> np.ndarray:
        """``log P(x_kept, c)`` of rows ``rows`` of ``coded`` with the columns outside
        ``keep`` (bool ``(m, d)``) left out as missing values, shape ``(m, K)``."""
        return self._jll_encoded(np.where(keep, coded[rows], -1))

    def _independent_groups(self):
        """Groups of coded columns over which ``log P(x_observed, c)`` is a sum of one term
        per group, each reading only its group's values (a column in no group is never
        read), or None when no such split is known. :meth:`explain` solves the groups of a
        two-class model apart."""
        return None

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy of :meth:`predict` on ``X`` against ``y`` (weighted by ``sample_weight``),
        scikit-learn's score of a classifier (``GridSearchCV`` maximises it unless told
        another ``scoring``, such as ``"neg_log_loss"``)."""
        return super().score(X, y, sample_weight=sample_weight)

    def predict(self, X) -> np.ndarray:
        """Most probable class of each row (ties go to the first class in ``classes_``).

        Taken from the very array :meth:`predict_proba` returns, so that ``predict(X)``
        equals ``classes_[argmax(predict_proba(X))]`` exactly: two classes whose joint
        log-likelihoods differ by rounding alone (an ulp) but normalise to the same
        probability are a tie, and the tie goes to the first class.
        """
        proba = self.predict_proba(X)  # first: it raises NotFittedError before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]
