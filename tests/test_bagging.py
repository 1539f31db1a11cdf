"""BaggedBNC: bootstrap copies of a learner, averaged."""

import numpy as np
import pytest
from sklearn.base import clone

from pybnc import TAN, NaiveBayes
from pybnc.averaging import BaggedBNC
from pybnc.averaging.ensembles import stratified_bootstrap
from pybnc.datasets import load_dataset
from pybnc.encode import Encoder


def test_stratified_bootstrap_keeps_each_classs_rows_and_draws_with_replacement():
    y = np.repeat([0, 1, 2], [50, 30, 5])
    draws = np.array([stratified_bootstrap(y, np.random.RandomState(s)) for s in range(200)])
    for c, n in zip(range(3), (50, 30, 5)):
        assert (draws[:, y == c].sum(axis=1) == n).all()
    assert (draws == 0).any() and (draws > 1).any()
    np.testing.assert_allclose(draws.mean(axis=0), 1.0, atol=0.25)  # every row drawn once on average


def test_members_are_fitted_on_their_own_samples_and_the_posterior_is_their_mean():
    X, y = load_dataset("glass")
    model = BaggedBNC(TAN(encoder=Encoder(discretizer="quantile")), n_estimators=5, random_state=0).fit(X, y)
    rng = np.random.RandomState(0)
    from pybnc.encode.labels import class_codes
    _, codes = class_codes(np.asarray(y))
    for member in model.estimators_:  # the same draws, member by member
        draws = stratified_bootstrap(codes, rng)
        seed = int(rng.randint(2**31 - 1))  # TAN has a random_state: each member gets its own
        expected = TAN(encoder=Encoder(discretizer="quantile"), random_state=seed).fit(X, y, sample_weight=draws)
        np.testing.assert_allclose(member.predict_proba(X), expected.predict_proba(X), rtol=1e-12)
    cuts = [tuple(m.encoder_.cardinalities_) + tuple(np.round(m.encoder_.cut_points_[0], 6)) for m in model.estimators_
            if hasattr(m.encoder_, "cut_points_")]
    assert len(set(cuts)) > 1 or not cuts  # each member cuts its own numbers
    mean = np.mean([m.predict_proba(X) for m in model.estimators_], axis=0)
    np.testing.assert_allclose(model.predict_proba(X), mean, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), model.classes_[mean.argmax(axis=1)])


def test_bagging_lowers_the_log_loss_of_tan_on_a_small_table():
    from sklearn.model_selection import StratifiedKFold
    X, y = load_dataset("hepatitis")
    y = np.asarray(y)
    losses = {"tan": [], "bagged": []}
    for train, test in StratifiedKFold(5, shuffle=True, random_state=1).split(X, y):
        for name, est in (("tan", TAN()), ("bagged", BaggedBNC(TAN(), n_estimators=10, random_state=0))):
            proba = est.fit(X.iloc[train], y[train]).predict_proba(X.iloc[test])
            k = np.searchsorted(est.classes_, y[test])
            losses[name].append(-np.log(proba[np.arange(len(test)), k]).mean())
    assert np.mean(losses["bagged"]) < np.mean(losses["tan"]) - 0.05


def test_integer_weights_are_repeated_rows_and_bad_members_are_refused():
    X, y = load_dataset("car")
    X, y = X.iloc[:300], np.asarray(y)[:300]
    w = np.random.RandomState(0).randint(0, 3, 300)
    rows = np.repeat(np.arange(300), w)
    weighted = BaggedBNC(NaiveBayes(), n_estimators=3, random_state=0).fit(X, y, sample_weight=w)
    repeated = BaggedBNC(NaiveBayes(), n_estimators=3, random_state=0).fit(X.iloc[rows], y[rows])
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)
    from sklearn.linear_model import LogisticRegression
    with pytest.raises(ValueError, match="pybnc classifier"):
        BaggedBNC(LogisticRegression()).fit(X, y)


def test_autobnc_offers_bagged_candidates_on_small_tables_only():
    from pybnc.selection.candidates import TableFacts, round_two

    def bagged(n_rows, n_columns):
        facts = TableFacts(n_rows=n_rows, n_classes=2, cardinalities=(3,) * n_columns, has_numeric=False,
                           has_missing=False)
        names = [c.name for c in round_two(facts, {"discretizer": "mdl", "n_bins": 5, "missing": "sum"}, None, 0)]
        return [n for n in names if "bagged" in n]

    assert bagged(500, 20) == ["TAN bagged", "AODE bagged"]
    assert bagged(5000, 20) == [] and bagged(500, 2000) == []
