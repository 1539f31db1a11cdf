"""AutoBNC: the choice on the training rows, the one-standard-error rule, failures, budget, files."""

import io
import itertools
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state

import pybnc
from pybnc import AODE, TAN, AutoBNC, NaiveBayes
from pybnc.datasets import load_dataset
from pybnc.evaluation import cross_validate
from pybnc.selection import choose
from pybnc.selection.auto import _cost, inner_folds
from pybnc.selection.blend import AveragedBNC, ensemble_selection, log_pool_selection
from pybnc.encode.labels import class_codes
from pybnc.selection.candidates import Candidate
from pybnc.selection.race import Evaluation, _share_out, evaluate, race_head, race_survivors
from pybnc.selection.temperature import fit_temperature

SMALL = {"nb": NaiveBayes(), "tan": TAN(), "nb-mle": NaiveBayes(smoothing="mle")}


# -- the rule ------------------------------------------------------------------------------------
def _brute_force(scores, complexity, lower_is_better, rule):
    """The rule written out candidate by candidate, for comparison."""
    scores = np.asarray(scores, float)
    loss = scores if lower_is_better else -scores
    valid = [i for i in range(len(loss)) if np.isfinite(loss[i]).all()]
    best = min(valid, key=lambda i: (loss[i].mean(), complexity[i], i))
    if rule == "best":
        return best
    eligible = []
    for i in valid:
        d = loss[i] - loss[best]
        if d.mean() <= d.std(ddof=1) / np.sqrt(len(d)):
            eligible.append(i)
    return min(eligible, key=lambda i: (complexity[i], loss[i].mean(), i))


def test_choose_matches_the_rule_written_out():
    rng = np.random.default_rng(0)
    for trial, rule, lower in itertools.product(range(200), ("one_se", "best"), (True, False)):
        n, folds = rng.integers(1, 7), rng.integers(2, 6)
        scores = rng.normal(0.5, 0.1, size=(n, folds)) + rng.normal(0, 0.05, size=(n, 1))
        if trial % 5 == 0 and n > 1:
            scores[rng.integers(n), rng.integers(folds)] = np.nan
        complexity = rng.integers(0, 3, size=n).astype(float)
        if not np.isfinite(scores).all(axis=1).any():
            continue
        chosen, best, eligible = choose(scores, complexity, lower_is_better=lower, rule=rule)
        assert chosen == _brute_force(scores, complexity, lower, rule)
        assert eligible[chosen] and eligible[best]


def test_choose_refuses_when_every_candidate_failed_and_bad_arguments():
    with pytest.raises(ValueError, match="every candidate failed"):
        choose([[np.nan, 0.1]], [0])
    with pytest.raises(ValueError, match="rule must be one of"):
        choose([[0.1, 0.2]], [0], rule="two_se")
    with pytest.raises(ValueError, match="complexity"):
        choose([[0.1, 0.2]], [0, 1])


def test_one_standard_error_keeps_the_simpler_model_when_the_gain_is_noise():
    # the complex model wins on three folds of four by a little and loses by more on the other
    scores = [[0.40, 0.50, 0.45, 0.55], [0.39, 0.49, 0.48, 0.54]]
    assert choose(scores, [0, 1])[0] == 0
    assert choose(scores, [0, 1], rule="best")[0] == 1
    # a clear, consistent gain is taken
    assert choose([[0.40, 0.50, 0.45, 0.55], [0.30, 0.41, 0.34, 0.46]], [0, 1])[0] == 1


# -- the choice, on the training rows alone -----------------------------------------------------------
def _inner_folds(random_state, y_codes, n_splits=5):
    """The folds AutoBNC draws (its first seed from random_state)."""
    seed = int(check_random_state(random_state).randint(2**31 - 1, size=2)[0])
    return inner_folds(y_codes, n_splits, seed)


def test_inner_folds_are_stratified_and_keep_a_single_row_class_in_training():
    y = np.array([0] * 10 + [1] * 7 + [2])
    folds = inner_folds(y, 3, seed=0)
    tests = np.concatenate([test for _, test in folds])
    assert sorted(tests.tolist()) == list(range(17))  # every row but the single one tested once
    for train, test in folds:
        assert 17 in train and not set(train) & set(test)
        assert sorted(np.concatenate([train, test]).tolist()) == list(range(18))
        assert np.bincount(y[test], minlength=3)[:2].tolist() in ([4, 3], [3, 2], [3, 3], [4, 2])


def test_a_class_of_one_row_is_learned_not_tested():
    X, y = load_dataset("car")
    y = np.asarray(y).copy()
    y[0] = "only-once"
    model = AutoBNC(candidates=SMALL, random_state=0, verbose=0).fit(X, y)
    assert "only-once" in model.classes_ and (pd.DataFrame(model.cv_results_)["status"] == "ok").all()


class _Folds:
    def __init__(self, folds):
        self.folds = folds

    def split(self, X=None, y=None, groups=None):
        return iter(self.folds)


def test_scores_are_cross_validation_of_the_training_rows_and_the_choice_is_refitted():
    X, y = load_dataset("car")
    model = AutoBNC(candidates=SMALL, ensemble=0, calibrate=False, random_state=3, verbose=0).fit(X, y)
    folds = _inner_folds(3, np.unique(y, return_inverse=True)[1])
    expected = cross_validate(SMALL, X, y, cv=_Folds(folds), verbose=0)
    table = pd.DataFrame(model.cv_results_).set_index("candidate")
    for name in SMALL:
        rows = expected[expected["model"] == name].sort_values("fold")
        for f in range(5):
            assert table.loc[name, f"split{f}_test_log_loss"] == rows["log_loss"].iloc[f]
            assert table.loc[name, f"split{f}_test_accuracy"] == rows["accuracy"].iloc[f]
    assert model.best_candidate_ == "tan" and table["chosen"].sum() == 1 and table.loc["tan", "chosen"]
    refit = clone(SMALL["tan"]).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), refit.predict_proba(X))
    np.testing.assert_array_equal(model.predict(X), refit.predict(X))
    np.testing.assert_array_equal(model.predict_log_proba(X), refit.predict_log_proba(X))
    assert model.best_params_ == refit.get_params(deep=False)
    assert model.best_score_ == pytest.approx(table.loc["tan", "mean_test_log_loss"])
    assert model.n_splits_ == 5 and model.classes_.tolist() == sorted(set(y))


def test_scoring_and_rule_change_the_choice_as_documented():
    X, y = load_dataset("car")
    by_accuracy = AutoBNC(candidates=SMALL, scoring="accuracy", rule="best", ensemble=0, random_state=0,
                          verbose=0).fit(X, y)
    table = pd.DataFrame(by_accuracy.cv_results_)
    assert by_accuracy.best_candidate_ == table.loc[table["mean_test_accuracy"].idxmax(), "candidate"]
    assert table.loc[table["rank_test_score"] == 1, "candidate"].item() == by_accuracy.best_candidate_


def test_missing_values_that_carry_the_class_are_made_a_level():
    # "not applicable" gaps: the feature is missing for most rows of class b
    rng = np.random.default_rng(0)
    n = 400
    y = rng.choice(["a", "b"], size=n)
    X = pd.DataFrame({f"x{j}": rng.choice(["p", "q", "r"], size=n).astype(object) for j in range(4)})
    X.loc[(y == "b") & (rng.random(n) < 0.9), "x0"] = np.nan
    model = AutoBNC(ensemble=0, random_state=0, verbose=0).fit(X, y)
    table = pd.DataFrame(model.cv_results_)
    assert set(table["missing"]) == {"sum", "category"}
    assert model.best_estimator_.encoder.missing == "category"
    assert table.loc[table["chosen"], "mean_test_accuracy"].item() > 0.9
    summed = table[(table["missing"] == "sum") & (table["round"] == 1)]["mean_test_accuracy"].max()
    assert summed < 0.7


def test_default_candidates_without_missing_values_or_numbers_keep_one_encoding():
    X, y = load_dataset("car")
    table = pd.DataFrame(AutoBNC(ensemble=0, random_state=0, verbose=0).fit(X, y).cv_results_)
    assert set(table["missing"]) == {"sum"} and set(table["discretizer"]) == {"mdl"}
    assert {"NB", "TAN", "AODE", "KDB(k=1) backoff", "KDB(k=2)", "KDB(k=3) backoff", "SKDB(k=5)"} <= set(table["candidate"])
    status = table["status"].astype(str)
    assert (status.str.startswith("ok") | status.str.startswith("stopped after 2 folds")).all()
    assert (status == "ok").sum() >= 3


def test_parallel_folds_give_the_same_results():
    X, y = load_dataset("iris")
    one = AutoBNC(candidates=SMALL, random_state=0, verbose=0).fit(X, y)
    two = AutoBNC(candidates=SMALL, n_jobs=2, random_state=0, verbose=0).fit(X, y)
    a, b = pd.DataFrame(one.cv_results_), pd.DataFrame(two.cv_results_)
    scores = [c for c in a.columns if "_test_" in c]
    pd.testing.assert_frame_equal(a[scores], b[scores])
    assert one.best_candidate_ == two.best_candidate_


class _Breaks(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        raise RuntimeError("this learner always breaks")

    def predict_proba(self, X):  # pragma: no cover
        raise RuntimeError


def test_a_failing_candidate_is_reported_and_never_chosen():
    X, y = load_dataset("car")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the inner failures are not shown to the user
        model = AutoBNC(candidates={"broken": _Breaks(), "nb": NaiveBayes()}, random_state=0, verbose=0).fit(X, y)
    table = pd.DataFrame(model.cv_results_).set_index("candidate")
    assert table.loc["broken", "status"].startswith("failed: RuntimeError: this learner always breaks")
    assert np.isnan(table.loc["broken", "mean_test_log_loss"])
    assert model.best_candidate_ == "nb"
    with pytest.raises(ValueError, match="every candidate failed.*always breaks"):
        AutoBNC(candidates=[_Breaks()], verbose=0).fit(X, y)


def test_a_small_time_budget_skips_the_later_round():
    X, y = load_dataset("car")
    model = AutoBNC(time_budget=1e-6, ensemble=0, random_state=0, verbose=0).fit(X, y)
    table = pd.DataFrame(model.cv_results_)
    assert (table.loc[table["round"] == 1, "status"] == "ok").all()
    assert (table.loc[table["round"] == 2, "status"] == "skipped: time budget").all()
    assert model.best_candidate_ in set(table.loc[table["round"] == 1, "candidate"])


def test_too_few_rows_to_cross_validate_fit_the_simplest_candidate():
    X = pd.DataFrame({"a": ["x", "y", "z"], "b": [1, 2, 3]})
    model = AutoBNC(candidates=SMALL, verbose=0).fit(X, ["p", "q", "r"])
    assert model.n_splits_ == 0 and model.best_candidate_ == "nb"
    assert model.predict(X).tolist() == ["p", "q", "r"]
    assert pd.DataFrame(model.cv_results_)["status"].str.startswith("not cross-validated").all()


@pytest.mark.parametrize("params, match", [
    ({"scoring": "auc"}, "'scoring' parameter of AutoBNC must be a str among"),
    ({"rule": "two_se"}, "'rule' parameter of AutoBNC must be a str among"),
    ({"cv": 1}, "'cv' parameter of AutoBNC must be an int in the range"),
    ({"time_budget": 0}, "'time_budget' parameter of AutoBNC must be a float in the range"),
    ({"candidates": "nb"}, "'candidates' parameter of AutoBNC must be"),
    ({"candidates": {}}, "candidates is empty"),
    ({"candidates": {"x": object()}}, r"candidates\['x'\]"),
])
def test_bad_parameters_are_named(params, match):
    X, y = load_dataset("car")
    with pytest.raises((ValueError, TypeError), match=match):
        AutoBNC(verbose=0, **params).fit(X, y)


def test_a_list_of_candidates_is_named_by_class():
    X, y = load_dataset("car")
    model = AutoBNC(candidates=[NaiveBayes(), NaiveBayes(smoothing="mle"), TAN()], random_state=0, verbose=0).fit(X, y)
    assert model.cv_results_["candidate"].tolist() == ["NaiveBayes-1", "NaiveBayes-2", "TAN"]


def test_saves_and_loads_like_every_model():
    X, y = load_dataset("votes")
    model = AutoBNC(candidates=SMALL, random_state=0, verbose=0).fit(X, y)
    buffer = io.BytesIO()
    pybnc.save(model, buffer)
    again = pybnc.load(io.BytesIO(buffer.getvalue()))
    assert type(again) is AutoBNC and again.best_candidate_ == model.best_candidate_
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    pd.testing.assert_frame_equal(pd.DataFrame(again.cv_results_), pd.DataFrame(model.cv_results_))


def test_a_forged_file_with_another_class_set_is_refused():
    X, y = load_dataset("votes")
    model = AutoBNC(candidates=SMALL, random_state=0, verbose=0).fit(X, y)
    model.classes_ = np.array(["x", "y"], dtype=object)
    buffer = io.BytesIO()
    pybnc.save(model, buffer)
    with pytest.raises(ValueError, match="classes_.*best_estimator_"):
        pybnc.load(io.BytesIO(buffer.getvalue()))


def test_unfitted_and_partial_fit():
    with pytest.raises(Exception, match="not fitted"):
        AutoBNC().predict(pd.DataFrame({"a": ["x"]}))
    assert not hasattr(AutoBNC(), "partial_fit")


# -- the ensemble ----------------------------------------------------------------------------------
def test_ensemble_selection_is_greedy_on_the_out_of_fold_log_loss():
    rng = np.random.default_rng(1)
    for _ in range(50):
        p = rng.uniform(0.05, 1.0, size=(rng.integers(1, 6), 40))
        w = ensemble_selection(p, n_steps=8)
        assert (w >= 0).all() and w.sum() == pytest.approx(1.0)
        single = -np.log(p).mean(axis=1)
        assert w[np.argmin(single)] > 0  # starts from the best single model
        assert -np.log(w @ p).mean() <= single.min() + 1e-12  # never worse than it
        assert any(np.allclose(w * k, np.round(w * k)) for k in range(1, 9))  # shares of at most 8 steps
    identical = np.tile(rng.uniform(0.1, 1, 30), (3, 1))
    assert ensemble_selection(identical, 10).tolist() == [1.0, 0.0, 0.0]


def test_an_ensemble_is_chosen_only_when_it_beats_every_single_candidate_and_predicts_as_its_members():
    X, y = load_dataset("car")
    candidates = {"nb": NaiveBayes(), "kdb2": pybnc.KDB(k=2, smoothing="backoff", verbose=0),
                  "kdb3": pybnc.KDB(k=3, smoothing="backoff", verbose=0)}
    model = AutoBNC(candidates=candidates, rule="best", random_state=0, verbose=0).fit(X, y)
    table = pd.DataFrame(model.cv_results_)
    blends = table[table["round"] == 3]
    # one ensemble per pooling at most, each named by it
    assert 1 <= len(blends) <= 2
    assert sorted(name.split(":")[0] for name in blends["candidate"]) in (
        ["ensemble"], ["log-pooled ensemble"], ["ensemble", "log-pooled ensemble"])
    singles = table[table["round"] == 1]
    assert blends["mean_test_log_loss"].min() < singles["mean_test_log_loss"].min()
    assert blends["chosen"].any() == (model.best_candidate_ in set(blends["candidate"]))
    if blends["chosen"].any():
        best = model.best_estimator_
        assert isinstance(best, AveragedBNC) and best.weights_.sum() == pytest.approx(1)
        assert best.pooling == ("log" if model.best_candidate_.startswith("log-pooled") else "linear")
        members = [clone(m).fit(X, y) for m in best.estimators]
        if best.pooling == "log":
            expected = np.exp(sum(w * np.log(m.predict_proba(X)) for w, m in zip(best.weights_, members)))
        else:
            expected = sum(w * m.predict_proba(X) for w, m in zip(best.weights_, members))
        tempered = expected ** (1 / model.temperature_)
        np.testing.assert_allclose(model.predict_proba(X), tempered / tempered.sum(axis=1, keepdims=True),
                                   rtol=1e-9)
        buffer = io.BytesIO()
        pybnc.save(model, buffer)
        np.testing.assert_array_equal(pybnc.load(io.BytesIO(buffer.getvalue())).predict_proba(X),
                                      model.predict_proba(X))


def test_log_pool_selection_is_greedy_on_the_pooled_log_loss():
    """Against a plain greedy loop over the log-loss of the normalised weighted geometric
    mean, computed by hand (the averaging ensemble's weights differ on these rows)."""
    rng = np.random.RandomState(0)
    for trial in range(5):
        proba = rng.dirichlet(np.ones(3) * 0.7, size=(4, 40))
        y_codes = rng.randint(3, size=40)

        def loss(counts):
            pooled = np.exp(np.tensordot(counts / counts.sum(), np.log(proba), axes=1))
            pooled /= pooled.sum(axis=1, keepdims=True)
            return -np.log(pooled[np.arange(40), y_codes]).mean()

        counts = np.eye(4)[np.argmin([loss(np.eye(4)[m]) for m in range(4)])]
        for _ in range(29):
            trials = [loss(counts + np.eye(4)[m]) for m in range(4)]
            if not min(trials) < loss(counts):
                break
            counts = counts + np.eye(4)[int(np.argmin(trials))]
        np.testing.assert_allclose(log_pool_selection(proba, y_codes, n_steps=30), counts / counts.sum())
    # identical models: the first takes all
    same = np.repeat(proba[:1], 3, axis=0)
    assert log_pool_selection(same, y_codes, 10).tolist() == [1.0, 0.0, 0.0]


def test_log_pooled_average_is_the_normalised_weighted_geometric_mean_and_explains_exactly():
    X, y = load_dataset("votes")
    members = [NaiveBayes(), TAN()]
    blend = AveragedBNC(members, weights=[0.4, 0.6], pooling="log").fit(X, y)
    fitted = [clone(m).fit(X, y) for m in members]
    expected = fitted[0].predict_proba(X) ** 0.4 * fitted[1].predict_proba(X) ** 0.6
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(blend.predict_proba(X), expected, rtol=1e-10)
    np.testing.assert_allclose(np.exp(blend.predict_log_proba(X)), blend.predict_proba(X), rtol=1e-12)
    values = blend.explain(X.head(3), output="probability", random_state=0)
    targets = np.searchsorted(blend.classes_, values.target)
    np.testing.assert_allclose(values.sum(axis=1), blend.predict_proba(X.head(3))[np.arange(3), targets],
                               rtol=1e-9)
    buffer = io.BytesIO()
    pybnc.save(blend, buffer)
    np.testing.assert_array_equal(pybnc.load(io.BytesIO(buffer.getvalue())).predict_proba(X),
                                  blend.predict_proba(X))
    with pytest.raises(ValueError, match="pooling"):
        AveragedBNC(members, pooling="mean").fit(X, y)


def test_averaged_bnc_checks_its_weights():
    X, y = load_dataset("car")
    with pytest.raises(ValueError, match="weights must be 2 non-negative numbers"):
        AveragedBNC([NaiveBayes(), TAN()], weights=[1, -1]).fit(X, y)
    with pytest.raises(ValueError, match="weights must be 2"):
        AveragedBNC([NaiveBayes(), TAN()], weights=[1]).fit(X, y)
    with pytest.raises(ValueError, match="non-empty list of pybnc classifiers"):
        AveragedBNC([]).fit(X, y)


def test_averaged_bnc_fits_its_members_in_a_pool_to_the_same_model():
    X, y = load_dataset("car")
    members = [NaiveBayes(), TAN(), pybnc.KDB(k=2, verbose=0)]
    alone = AveragedBNC(members, weights=[1, 2, 3]).fit(X, y)
    pooled = AveragedBNC(members, weights=[1, 2, 3], n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(pooled.predict_proba(X), alone.predict_proba(X))


@pytest.mark.slow  # a large table in worker processes
def test_a_large_table_races_one_fold_and_its_candidates_share_out_the_workers():
    X, y = load_dataset("nursery")  # 12,960 rows: inner folds of 2,592
    folds = inner_folds(class_codes(y)[1], 5, 0)
    assert race_head(folds) == 1
    assert race_head(inner_folds(class_codes(load_dataset("car")[1])[1], 5, 0)) == 2  # folds of 346 rows
    assert race_head(folds[:2]) == 2  # two folds in all: both run
    cost = {"nb": 1.0, "tan": 5.0, "nb-mle": 1.0}
    candidates = [Candidate(name, estimator, 0.0) for name, estimator in SMALL.items()]
    assert [[c.name for c in share] for share in _share_out(candidates, 2, lambda c: cost[c.name])] == \
        [["tan"], ["nb", "nb-mle"]]
    alone = evaluate(candidates, X, y, folds[:1], [0], 1)
    shared = evaluate(candidates, X, y, folds[:1], [0], 2, cost=lambda c: cost[c.name])
    for name in SMALL:
        np.testing.assert_array_equal(shared.proba[name], alone.proba[name])
    assert sorted(shared.long["model"]) == sorted(alone.long["model"]) and set(shared.long["fold"]) == {0}


def test_explain_is_the_chosen_learners_and_an_ensembles_is_its_mean_posterior():
    X, y = load_dataset("votes")
    single = AutoBNC(candidates=SMALL, ensemble=0, calibrate=False, random_state=0, verbose=0).fit(X, y)
    expected = clone(single.best_estimator_).fit(X, y).explain(X.head(3), random_state=0)
    pd.testing.assert_frame_equal(single.explain(X.head(3), random_state=0), expected)
    blend = AveragedBNC([NaiveBayes(), TAN()], weights=[0.4, 0.6]).fit(X, y)
    values = blend.explain(X.head(3), output="probability", random_state=0)
    # efficiency: the values add up to the prediction's probability of the explained class
    proba = blend.predict_proba(X.head(3))
    targets = np.searchsorted(blend.classes_, values.target)
    np.testing.assert_allclose(values.sum(axis=1), proba[np.arange(3), targets], rtol=1e-9)


def test_discriminative_candidates_carry_fixed_penalties():
    """Round 2's discriminative variants: NB, TAN, AODE and KDB(k=2) only, each with a fixed
    penalty (AutoBNC's folds choose it, not an inner search in every fit), ranked above
    their generative selves. Skipped where no learner has discriminative weights yet."""
    from pybnc.selection.candidates import (DISCRIMINATIVE_LEARNERS, DISCRIMINATIVE_PENALTIES, TableFacts,
                                            discriminative, round_two)

    if discriminative(NaiveBayes()) is None:
        pytest.skip("this installation has no weighting='discriminative'")
    facts = TableFacts(n_rows=100, n_classes=2, cardinalities=(3, 3), has_numeric=False, has_missing=False)
    candidates = round_two(facts, {"discretizer": "mdl", "n_bins": 5, "missing": "sum"}, None, random_state=0)
    weighted = [c for c in candidates if getattr(c.estimator, "weighting", None) == "discriminative"]
    plain = {c.name: c.complexity for c in candidates if c not in weighted}
    names = {c.name for c in weighted}
    expected = {f"{learner} discriminative({p:g})" for learner in DISCRIMINATIVE_LEARNERS
                for p in (DISCRIMINATIVE_PENALTIES[-1:] if learner == "AODE" else DISCRIMINATIVE_PENALTIES)}
    assert names == expected
    for c in weighted:
        learner, penalty = c.name.split(" discriminative(")
        assert c.estimator.discriminative_penalty == float(penalty[:-1])
        assert c.complexity > plain.get(learner, c.complexity - 1)


def test_the_discriminative_aode_is_offered_while_its_design_is_small():
    """Its design holds rows x columns^2 entries: offered on soybean's shape (683 x 35) and
    on adult's (48,842 x 14), not on a 300 x 2,000 table (where one fit took minutes)."""
    from pybnc.selection.candidates import DISCRIMINATIVE_AODE_MAX_ENTRIES, TableFacts, discriminative, round_two

    if discriminative(NaiveBayes()) is None:
        pytest.skip("this installation has no weighting='discriminative'")

    def offered(n_rows, n_columns):
        facts = TableFacts(n_rows=n_rows, n_classes=2, cardinalities=(5,) * n_columns, has_numeric=True,
                           has_missing=False)
        names = [c.name for c in round_two(facts, {"discretizer": "mdl", "n_bins": 5, "missing": "sum"}, None,
                                           random_state=0)]
        assert "KDB(k=2) discriminative(1)" in names
        return "AODE discriminative(0.01)" in names

    assert offered(683, 35) and offered(48842, 14)
    assert not offered(300, 2000)
    assert 300 * 236**2 <= DISCRIMINATIVE_AODE_MAX_ENTRIES < 300 * 237**2  # the edge, in columns


def test_fit_temperature_recovers_the_overconfidence_of_a_model():
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 1.5, size=(4000, 3))
    truth = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = (truth.cumsum(axis=1) > rng.uniform(size=(4000, 1))).argmax(axis=1)
    for power in (2.0, 0.5):  # over- then underconfident by this power of the true posterior
        proba = truth ** power / (truth ** power).sum(axis=1, keepdims=True)
        assert fit_temperature(proba, y) == pytest.approx(power, rel=0.1)
    assert fit_temperature(truth, y) == pytest.approx(1.0, abs=0.1)
    assert fit_temperature(np.zeros((3, 2)), np.array([0, 1, 0])) == 1.0  # no row held out


def test_the_temperature_tempers_probabilities_explanations_and_never_the_class():
    X, y = load_dataset("car")
    model = AutoBNC(candidates={"nb": NaiveBayes()}, random_state=0, verbose=0).fit(X, y)
    assert model.temperature_ != 1.0  # naive Bayes on car is overconfident out of fold
    raw = model.best_estimator_.predict_proba(X)
    tempered = raw ** (1 / model.temperature_)
    np.testing.assert_allclose(model.predict_proba(X), tempered / tempered.sum(axis=1, keepdims=True), rtol=1e-9)
    np.testing.assert_array_equal(model.predict(X), model.best_estimator_.predict(X))
    # the explanation is the tempered model's: base value plus values = its log-odds of the explained class
    rows = X.head(3)
    explanation = model.explain(rows, random_state=0)
    log_proba = model.predict_log_proba(rows)
    k = pd.Index(model.classes_).get_indexer(explanation.target)
    own = log_proba[np.arange(3), k]
    log_proba[np.arange(3), k] = -np.inf
    np.testing.assert_allclose(explanation.sum(axis=1), own - np.log(np.exp(log_proba).sum(axis=1)), atol=1e-6)
    plain = AutoBNC(candidates={"nb": NaiveBayes()}, calibrate=False, random_state=0, verbose=0).fit(X, y)
    assert plain.temperature_ == 1.0
    np.testing.assert_array_equal(plain.predict_proba(X), raw)


def test_the_race_stops_clear_losers_and_keeps_what_the_rows_cannot_tell_apart():
    from pybnc.selection.candidates import Candidate
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    rows = np.arange(400)

    def proba(p_right):
        p = np.where(y == 1, p_right, 1 - p_right)
        return np.column_stack([1 - p, p])

    good, close, bad = proba(np.full(400, 0.8)), proba(rng.uniform(0.75, 0.85, 400)), proba(rng.uniform(0.45, 0.95, 400))
    cands = [Candidate(n, None, 0.0) for n in ("good", "close", "bad")]
    evaluation = Evaluation(proba={"good": good, "close": close, "bad": bad})
    survivors, stopped = race_survivors(evaluation, cands, y, rows, "log_loss")
    assert [c.name for c in survivors] == ["good", "close"] and list(stopped) == ["bad"]
    assert "stopped after 2 folds" in stopped["bad"]
    # on 8 rows the same gap is within the noise: nothing stops
    survivors, stopped = race_survivors(evaluation, cands, y, rows[:4], "log_loss")
    assert len(survivors) == 3 and not stopped


def test_a_stopped_candidate_is_never_chosen_nor_in_the_ensemble():
    X, y = load_dataset("car")
    model = AutoBNC(random_state=0, verbose=0).fit(X, y)
    table = pd.DataFrame(model.cv_results_)
    stopped = table[table["status"].str.startswith("stopped after")]
    assert len(stopped) > 0 and not stopped["chosen"].any()
    assert stopped[[f"split{f}_test_log_loss" for f in (2, 3, 4)]].isna().all().all()
    assert stopped[[f"split{f}_test_log_loss" for f in (0, 1)]].notna().all().all()
    chosen = model.best_candidate_
    # an ensemble's name: "<pooling> ensemble: <weight> <member> + <weight> <member> ..."
    members = [part.split(" ", 1)[1] for part in chosen.split(": ", 1)[1].split(" + ")] if ": " in chosen \
        else [chosen]
    assert not set(stopped["candidate"]) & set(members)


@pytest.mark.slow  # waits out a time budget
def test_a_time_budget_is_kept_by_running_only_what_its_corrected_estimate_fits():
    X, y = load_dataset("chess")
    free = AutoBNC(ensemble=0, random_state=0, verbose=0).fit(X, y)
    budget = free.choice_time_ / 3
    model = AutoBNC(time_budget=budget, ensemble=0, random_state=0, verbose=0).fit(X, y)
    table = pd.DataFrame(model.cv_results_)
    ran = table[(table["round"] == 2) & ~table["status"].str.startswith("skipped")]
    assert 0 < len(ran) < (pd.DataFrame(free.cv_results_)["round"] == 2).sum()
    assert table["status"].str.startswith("skipped: time budget").any()
    # one candidate's first folds may overrun its estimate: at most about one more third
    assert model.choice_time_ < 1.6 * budget


@pytest.mark.slow  # worker processes
def test_folds_that_do_not_split_evenly_share_out_each_folds_candidates():
    """3 folds on 2 workers: a task per fold and share of candidates, the same scores as
    in this process, and the progress told once per fold."""
    X, y = load_dataset("car")
    folds = inner_folds(class_codes(y)[1], 3, 0)
    candidates = [Candidate(name, estimator, 0.0) for name, estimator in SMALL.items()]
    alone = evaluate(candidates, X, y, folds, [2, 3, 4], 1)
    told = []
    shared = evaluate(candidates, X, y, folds, [2, 3, 4], 2, told.append)
    assert told == [1, 1, 1]
    for name in SMALL:
        np.testing.assert_array_equal(shared.proba[name], alone.proba[name])
    key = ["model", "fold"]
    pd.testing.assert_frame_equal(shared.long.sort_values(key)[key].reset_index(drop=True),
                                  alone.long.sort_values(key)[key].reset_index(drop=True))


def test_a_discriminative_aodes_cost_grows_with_the_pairs_of_columns():
    """Its design reads a cell per pair of columns: on chess (36 columns) a fold of it cost
    13 times one of the discriminative naive Bayes, and the time budget's estimate must
    know it (with the networks' factor it overran the budget by half)."""
    def cost_of(estimator, n_features):
        return _cost(Candidate("c", estimator, 0.0, 2, {}, 2, n_features))

    aode, nb = AODE(weighting="discriminative", discriminative_penalty=0.01), \
        NaiveBayes(weighting="discriminative", discriminative_penalty=0.01)
    assert cost_of(aode, 36) >= 10 * cost_of(nb, 36)
    assert cost_of(aode, 4) == 2 * cost_of(nb, 4)  # few columns: the networks' factor
    assert cost_of(nb, 36) == cost_of(nb, 4)


def test_aode_on_proportional_bins_is_offered_where_the_rows_allow_and_the_tables_fit():
    """About sqrt(n) bins (Yang & Webb's proportional discretisation): offered on numeric
    tables from 381 rows (20 bins), with the round's missing-value encoding; not on tables
    without numeric columns, with fewer rows, or whose AODE pair tables would be too large."""
    from pybnc.selection.candidates import PROPORTIONAL_MAX_CELLS, TableFacts, proportional_bins, round_two

    def facts(n_rows, n_numeric, n_classes=7, categorical=()):
        return TableFacts(n_rows=n_rows, n_classes=n_classes, cardinalities=(5,) * n_numeric + tuple(categorical),
                          has_numeric=n_numeric > 0, has_missing=False, n_numeric=n_numeric,
                          categorical_levels=sum(categorical))

    wine = facts(3918, 11)  # wine quality (white), an outer training fold
    assert proportional_bins(wine) == 63
    encoding = {"discretizer": "mdl", "n_bins": 5, "missing": "category"}
    fine = [c for c in round_two(wine, encoding, None, random_state=0) if c.name.startswith("AODE quantile(")]
    assert [c.name for c in fine] == ["AODE quantile(63) missing=category"]
    params = fine[0].estimator.get_params()
    assert (params["encoder__discretizer"], params["encoder__n_bins"], params["encoder__missing"]) == ("quantile", 63,
                                                                                          "category")
    assert fine[0].encoding == {"discretizer": "quantile", "n_bins": 63, "missing": "category"}

    assert proportional_bins(facts(381, 3)) == 20 and proportional_bins(facts(380, 3)) == 0  # sqrt 19.52, 19.49
    assert proportional_bins(facts(5000, 0, categorical=(3, 4))) == 0  # nothing to cut
    # the pair tables of satellite's shape (5,148 rows, 36 numeric columns, 6 classes) are too large
    assert (36 * 72) ** 2 * 6 > PROPORTIONAL_MAX_CELLS and proportional_bins(facts(5148, 36, 6)) == 0
    assert proportional_bins(facts(3918, 11, categorical=(2500, 2500))) == 0  # wine beside 5,000 levels
    names = [c.name for c in round_two(facts(5148, 36, 6), encoding, None, random_state=0)]
    assert not any(name.startswith("AODE quantile(") for name in names)


def test_only_discriminative_fits_of_many_reads_take_a_thread_of_their_own():
    """A small table's discriminative fits hold the GIL between their short evaluations:
    they run in one task; a large table's run on threads."""
    from pybnc.selection.auto import GIL_FREE_READS, _releases_gil
    from pybnc.selection.candidates import TableFacts, round_two

    encoding = {"discretizer": "mdl", "n_bins": 5, "missing": "sum"}

    def released(n_rows):
        facts = TableFacts(n_rows=n_rows, n_classes=4, cardinalities=(4,) * 6, has_numeric=False,
                           has_missing=False)
        return {c.name: _releases_gil(c) for c in round_two(facts, encoding, None, random_state=0)}

    small, large = released(1728), released(100_000)  # car's shape, and fifty-eight times its rows
    assert not any(small.values())
    discriminative = {name for name in large if "discriminative" in name}
    assert discriminative and all(large[name] for name in discriminative)
    assert not any(large[name] for name in large if name not in discriminative)
    assert 1728 * 7 * 6 * 4 < GIL_FREE_READS <= 100_000 * 7 * 4  # AODE on car, naive Bayes on the large one
