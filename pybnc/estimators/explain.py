"""``explain()``: every prediction's Shapley values, from the classifier's own marginalisation.

For a row ``x`` and a class ``t`` (the predicted one unless chosen), the value of a set
``S`` of features is the classifier's answer with the features outside ``S`` missing:

* ``output="log_odds"``: ``v(S) = logit P(t | x_S) = log P(t | x_S) - log(1 - P(t | x_S))``;
* ``output="probability"``: ``v(S) = P(t | x_S)``.

A classifier that sums missing values out exactly (every single network, TBMATAN within
``max_missing_combinations``, MANB, ESKDB's members) makes ``v(S)`` the exact marginal of its
own distribution: no background sample, no imputation. ``base_value = v(empty)`` is the
class prior's logit (or probability), and a row's ``base_value`` plus its values equals
``v(all)``, the logit of ``predict_log_proba`` (efficiency, to rounding). The game of a classifier whose
missing values follow a rule rather than a sum is that rule's answer:

* AODE and AnDE leave a missing super-parent out of the average (and fall back on naive
  Bayes when none is left), so ``v(S)`` is their prediction from ``x_S`` by that rule;
* WANBIA's weighted tables are not distributions; a missing feature's table is
  renormalised and sums to one, so the feature drops out of the product;
* with ``missing="category"`` a missing value is a level like any other: the row's
  missing cells are features with a value (the model learned what missingness says), and
  leaving a feature out sums over every level, the missing level included;
* ESKDB averages its members' posteriors; each member sums the left-out features out of
  its own coding (numeric columns cut by its own bins), so a numeric column is one feature
  whatever the bins.

A feature missing in the row (``missing="sum"``), an unseen category (coded missing) or an
identifier column the encoder left out is a null player and gets 0. Probabilities are
floored at ``1e-300`` as in :func:`~pybnc.estimators.base.log_posterior`, so every value is
finite.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._utils.warn import warn
from .._utils.logsumexp import logsumexp
from .._utils.progress import progress
from ..inference.posterior import log_posterior
from ..inference.shapley import shapley_values

OUTPUTS = ("log_odds", "probability")
#: Model evaluations per row (and independent group) unless ``max_evals`` is given: up to
#: 12 features are enumerated exactly.
DEFAULT_MAX_EVALS = 4096
BASE_COLUMN = "base_value"


class Explanation(pd.DataFrame):
    """Shapley values of each row (one column per input feature) and ``base_value``.

    A DataFrame with a few attributes of its own; anything derived from it (a slice, a
    sum) is a plain DataFrame. In a notebook it shows a picture above the table: the
    waterfall of a single row, the mean ``|value|`` of each feature for several.

    Attributes
    ----------
    target : Series
        The class each row is explained for.
    output : {"log_odds", "probability"}
    method : {"exact", "sampling", "exact+sampling"}
        How the values were found (rows of ``2^p <= max_evals`` observed features, or
        of additive groups that small, are exact).
    standard_error : DataFrame
        Standard error of each sampled value (0 where exact), same columns.
    data : DataFrame
        The explained rows, as given (for labels in the pictures).
    """

    _metadata = ["target", "output", "method", "standard_error", "data"]

    @property
    def _constructor(self):
        return pd.DataFrame  # a slice may lose rows or columns the metadata describes

    @property
    def feature_values(self) -> pd.DataFrame:
        """The Shapley values alone (without ``base_value``), as a plain DataFrame."""
        return pd.DataFrame(self.drop(columns=BASE_COLUMN))

    def importance(self) -> pd.Series:
        """Global importance: each feature's mean ``|value|`` over the rows, largest first."""
        return global_importance(self)

    def plot(self, kind=None, row=None, **kw):
        """Draw the explanation; see :mod:`pybnc.plotting`.

        Parameters
        ----------
        kind : {"waterfall", "bar", "beeswarm"}, optional
            ``"waterfall"``: one row, from ``base_value`` to the model's output (the default
            when ``row`` is given or the table has one row); ``"bar"`` (the default for
            several rows) or ``"beeswarm"``: the whole table.
        row : int, optional
            Position of the row a waterfall draws (0 unless given).
        **kw
            Passed to :func:`~pybnc.plotting.plot_waterfall` or
            :func:`~pybnc.plotting.plot_importance` (``ax``, ``path``, ``max_display``).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from pybnc import TAN
        >>> from pybnc.datasets import load_dataset
        >>> X, y = load_dataset("car")
        >>> why = TAN().fit(X, y).explain(X.head(5), verbose=0)
        >>> why.plot(row=3).get_title().startswith("row 3:")
        True
        """
        from ..plotting import plot_importance, plot_waterfall

        if kind is None:
            kind = "waterfall" if row is not None or len(self) == 1 else "bar"
        if kind == "waterfall":
            return plot_waterfall(self, row=0 if row is None else row, **kw)
        if row is not None:
            raise ValueError(f"row={row!r} draws one row's waterfall; kind={kind!r} draws every row "
                             "(leave row out, or use kind='waterfall').")
        return plot_importance(self, kind=kind, **kw)

    def _repr_html_(self):
        table = super()._repr_html_()
        try:
            from ..plotting import explanation_svg
        except ImportError:  # pragma: no cover - pictures need matplotlib
            return table
        picture = explanation_svg(self)
        return table if picture is None else picture + (table or "")


def global_importance(explanation: pd.DataFrame) -> pd.Series:
    """Mean absolute Shapley value of each feature over the rows, largest first.

    Parameters
    ----------
    explanation : DataFrame
        What :meth:`~pybnc.estimators.base.BaseBNC.explain` returns (``base_value`` is left out).

    Returns
    -------
    Series
        Indexed by feature name, named ``"mean |value|"``.

    Examples
    --------
    >>> from pybnc import NaiveBayes
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> importance = global_importance(NaiveBayes().fit(X, y).explain(X.head(50)))
    >>> importance.index[0], bool(importance.iloc[0] > importance.iloc[-1])
    ('persons', True)
    """
    values = explanation.drop(columns=BASE_COLUMN, errors="ignore").abs().mean(axis=0)
    return values.sort_values(ascending=False, kind="stable").rename("mean |value|")


def _input_names(model) -> list:
    """Names of all input columns in order (those the encoder left out included)."""
    if hasattr(model, "feature_names_in_"):
        return [str(c) for c in model.feature_names_in_]
    positions, n_inputs, _ = model.encoder_._layout()
    names = [f"x{p}" for p in range(n_inputs)]
    for j, p in enumerate(positions):
        names[p] = str(model.encoder_.columns_[j])
    return names


def _target_codes(model, target, log_proba: np.ndarray) -> np.ndarray:
    if target is None:  # predict()'s rule: argmax of the very probabilities predict_proba returns
        return np.argmax(np.exp(log_proba), axis=1)
    classes = list(model.classes_)
    try:
        k = classes.index(target)
    except (ValueError, TypeError):
        k = -1
    if k < 0 or np.ndim(target) != 0:
        raise ValueError(f"target={target!r} is not one of the classes {classes}; pass one class label, or "
                         "None to explain each row's predicted class.")
    return np.full(log_proba.shape[0], k)


def _value_function(model, coded, targets: np.ndarray, output: str, caught: list):
    """``value(rows, keep)``: the game of :mod:`pybnc.inference.shapley` for this model."""
    def value(rows, keep):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            jll = model._masked_jll(coded, rows, keep)
        caught.extend(seen)
        log_proba = log_posterior(jll)
        at = np.arange(rows.size)
        own = log_proba[at, targets[rows]]
        if output == "probability":
            return np.exp(own)
        log_proba[at, targets[rows]] = -np.inf
        return own - logsumexp(log_proba, axis=1)

    return value


def _check_options(output, method, max_evals):
    if output not in OUTPUTS:
        raise ValueError(f"output={output!r} is not one of {OUTPUTS}.")
    if method not in ("auto", "exact", "sampling"):
        raise ValueError(f"method={method!r} is not one of 'auto', 'exact', 'sampling'.")
    if max_evals is None:
        return DEFAULT_MAX_EVALS
    if isinstance(max_evals, bool) or not isinstance(max_evals, (int, np.integer)) or max_evals < 4:
        raise ValueError(f"max_evals must be an integer >= 4 (model evaluations per row), got {max_evals!r}.")
    return int(max_evals)


def explain(model, X, target=None, output="log_odds", method="auto", max_evals=None,
            random_state=None, verbose=1) -> Explanation:
    """The body of :meth:`pybnc.estimators.base.BaseBNC.explain` (see there)."""
    check_is_fitted(model)
    max_evals = _check_options(output, method, max_evals)
    names = _input_names(model)
    if BASE_COLUMN in names:
        raise ValueError(f"An input column is named {BASE_COLUMN!r}, the name of the explanation's own last "
                         "column; rename it before explaining (X.rename(columns=...), then refit).")
    coded, observed = model._explain_rows(X)
    n = observed.shape[0]
    caught = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        full = log_posterior(model._masked_jll(coded, np.arange(n), np.ones_like(observed)))
    caught.extend(seen)
    targets = _target_codes(model, target, full)
    groups = model._independent_groups() if len(model.classes_) == 2 and output == "log_odds" else None
    value = _value_function(model, coded, targets, output, caught)
    with progress(desc="explain: model evaluations", verbose=verbose) as bar:
        def counted(rows, keep):
            out = value(rows, keep)
            bar.update(len(rows))
            return out

        result = shapley_values(counted, observed, groups, max_evals=max_evals, method=method,
                                random_state=random_state)
    _warn_once(model, caught)
    # one column per feature the model reads: a column the encoder left out plays no part
    values = np.column_stack([result.values, result.base])
    errors = np.column_stack([result.standard_error, np.zeros(n)])
    index = X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(n)
    columns = [*model.feature_names_, BASE_COLUMN]
    out = Explanation(values, index=index, columns=columns)
    out.target = pd.Series(model.classes_[targets], index=index, name="target")
    out.output = output
    sampled = result.sampled[observed]
    out.method = ("sampling" if sampled.all() else "exact+sampling") if sampled.any() else "exact"
    out.standard_error = pd.DataFrame(errors, index=index, columns=columns)
    if isinstance(X, pd.DataFrame):
        out.data = X
    else:  # an array, or an Arrow or polars table
        out.data = X.to_pandas() if hasattr(X, "to_pandas") else pd.DataFrame(np.asarray(X), columns=names)
        out.data.index = index
    return out


def _warn_once(model, caught) -> None:
    """The model's own warnings (TBMATAN's approximation of many missing values), each once."""
    said = set()
    for w in caught:
        text = str(w.message)
        key = (w.category, re.sub(r"\d+", "#", text))  # one per kind, whatever the batch's row count
        if key not in said:
            said.add(key)
            warn(f"explain(): while leaving features out, {type(model).__name__} warned: {text} "
                 "The values are those of the game the model answered.", w.category)
