"""``min_frequency``: the levels of a categorical column seen fewer than ``m`` times at
fit grouped into one level, ``"(rare)"`` (pybnc.encode), for every classifier."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

import pybnc
from pybnc import capabilities
from pybnc.encode import EncodingWarning, Encoder, grow_encoder
from pybnc.encode.table import RARE_LABEL, group_rare_levels
from pybnc.evaluation import cross_validate
from pybnc.io import load, save
from pybnc.selection.candidates import RARE_MIN_FREQUENCY, TableFacts, encodings, groups_rare_levels
from pybnc.streaming import fit_blocks

from test_encode_policies import CLASSIFIERS, quiet


def _table(n=240, seed=0):
    """A column of many rare levels (a job number), one of a few common ones, a number."""
    rng = np.random.default_rng(seed)
    common = rng.choice(["a", "b", "c"], n)
    job = np.where(rng.random(n) < 0.5, rng.choice(["j1", "j2", "j3"], n), [f"r{i}" for i in rng.integers(0, 150, n)])
    y = np.where((common == "a") ^ (rng.random(n) < 0.15), "yes", "no")
    y = np.where(job == "j1", "yes", y)
    return pd.DataFrame({"job": job, "common": common, "x": rng.normal(size=n)}), y


def _grouped_by_hand(X_fit, X, m):
    """``X`` with the levels of ``X_fit`` seen fewer than ``m`` times, and the levels
    ``X_fit`` never holds, written ``"(rare)"``, declared after the others: what the
    encoder should read."""
    out = X.copy()
    for name in ("job", "common"):
        seen = X_fit[name].value_counts()
        keep = sorted(seen.index[seen >= m])
        if (seen < m).sum() >= 2:
            grouped = out[name].where(out[name].isna() | out[name].isin(keep), RARE_LABEL)
            out[name] = pd.Categorical(grouped, categories=[*keep, RARE_LABEL])
    return out


def test_rare_levels_become_one_level_after_the_others_and_before_missing():
    X = pd.DataFrame({"a": ["x"] * 5 + ["y"] * 3 + ["p", "q", None]})
    enc = Encoder(min_frequency=3, missing="category").fit(X)
    assert enc.categories_[0].tolist() == ["x", "y", "(rare)", "(missing)"]
    assert enc.rare_levels_[0].tolist() == ["p", "q"]
    codes = enc.transform(pd.DataFrame({"a": ["x", "y", "p", "q", "never", None]}))[:, 0]
    assert codes.tolist() == [0, 1, 2, 2, 2, 3]  # unseen is rarer still; missing keeps its level


def test_one_rare_level_is_left_as_it_is():
    X = pd.DataFrame({"a": ["x"] * 5 + ["y"] * 3 + ["p"]})
    enc = Encoder(min_frequency=3).fit(X)
    assert enc.categories_[0].tolist() == ["p", "x", "y"] and enc.rare_levels_ == [None]
    assert enc.transform(pd.DataFrame({"a": ["never"]}))[0, 0] == -1  # unseen: missing, as without grouping


def test_values_of_another_kind_stay_missing_with_a_warning():
    enc = Encoder(min_frequency=2).fit(pd.DataFrame({"a": ["x", "x", "p", "q"]}))
    with pytest.warns(EncodingWarning, match="'a' got 5"):
        codes = enc.transform(pd.DataFrame({"a": ["x", 5, "zz", None]}, dtype=object))[:, 0]
    assert codes.tolist() == [0, -1, 1, -1]


def test_declared_categories_never_seen_are_rare():
    col = pd.Categorical(["x"] * 4 + ["y"] * 4, categories=["x", "y", "u", "v"])
    enc = Encoder(min_frequency=2).fit(pd.DataFrame({"a": col}))
    assert enc.categories_[0].tolist() == ["x", "y", "(rare)"]
    assert enc.rare_levels_[0].tolist() == ["u", "v"]


def test_a_level_literally_named_rare_keeps_its_own_label():
    _, levels, _ = group_rare_levels(np.array([0, 0, 0, 1, 2]), np.array(["(rare)", "p", "q"], dtype=object), 2)
    assert levels.tolist() == ["(rare)", "(rare)_"]


def test_weights_count_like_repeated_rows():
    X = pd.DataFrame({"a": ["x", "x", "x", "p", "q", "r"]})
    weights = np.array([1, 1, 1, 3, 1, 1.0])
    weighted = Encoder(min_frequency=3).fit_transform(X, sample_weight=weights)
    enc = Encoder(min_frequency=3)
    repeated = enc.fit_transform(X.loc[X.index.repeat(weights.astype(int))])
    assert enc.categories_[0].tolist() == ["p", "x", "(rare)"]
    assert weighted.ravel().tolist() == [1, 1, 1, 0, 2, 2]
    assert repeated[[0, 1, 2, 3, 6, 7], 0].tolist() == [1, 1, 1, 0, 2, 2]


def test_the_level_limit_applies_to_the_grouped_levels():
    X = pd.DataFrame({"a": [f"v{i}" for i in range(50)] + ["x"] * 50})
    with pytest.raises(ValueError, match="max_levels"):
        Encoder(max_levels=10, id_columns="keep").fit(X)
    enc = Encoder(max_levels=10, min_frequency=2, id_columns="keep").fit(X)
    assert enc.categories_[0].tolist() == ["x", "(rare)"]


@pytest.mark.parametrize("Model", [m for m in CLASSIFIERS if m is not pybnc.AutoBNC],  # it chooses on each table
                         ids=lambda m: m.__name__)
def test_every_classifier_learns_what_it_learns_from_the_table_grouped_by_hand(Model):
    X, y = _table()
    query = X.copy()
    query.loc[:9, "job"] = "never seen"
    query.loc[10:14, "common"] = None
    params = {"random_state": 0} if "random_state" in Model().get_params() else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grouped = quiet(Model, min_frequency=RARE_MIN_FREQUENCY, **params).fit(X, y)
        by_hand = quiet(Model, **params).fit(_grouped_by_hand(X, X, RARE_MIN_FREQUENCY), y)
        proba = grouped.predict_proba(query)
        expected = by_hand.predict_proba(_grouped_by_hand(X, query, RARE_MIN_FREQUENCY))
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(proba, expected, rtol=1e-12, atol=1e-15)


def test_cross_validation_groups_each_folds_own_rare_levels():
    X, y = _table()
    models = {"TAN": pybnc.TAN(encoder=Encoder(min_frequency=3)), "KDB": pybnc.KDB(k=2, encoder=Encoder(min_frequency=3), verbose=0)}
    splitter = StratifiedKFold(3, shuffle=True, random_state=0)
    _, proba = cross_validate(models, X, y, cv=splitter, verbose=0, return_proba=True)
    for name, model in models.items():
        for train, test in splitter.split(X, y):
            refit = clone(model).fit(X.iloc[train], y[train])
            np.testing.assert_allclose(proba[name][test], refit.predict_proba(X.iloc[test]), rtol=1e-12, atol=1e-15)


def test_grouping_refuses_to_learn_block_by_block_and_says_why():
    X, y = _table()
    model = pybnc.TAN(encoder=Encoder(min_frequency=3))
    assert not hasattr(model, "partial_fit")
    assert capabilities(model).passes == 0 and capabilities(pybnc.TAN()).passes == 1
    with pytest.raises(TypeError, match="min_frequency=1"):
        fit_blocks(model, [(X[:100], y[:100]), (X[100:], y[100:])], classes=np.unique(y))
    with pytest.raises(ValueError, match="min_frequency=3 groups the levels"):
        grow_encoder(Encoder(min_frequency=3).fit(X, y), X)


def test_a_grouping_model_saves_and_loads(tmp_path):
    X, y = _table()
    model = pybnc.TAN(encoder=Encoder(min_frequency=3)).fit(X, y)
    save(model, tmp_path / "m.pybnc")
    again = load(tmp_path / "m.pybnc")
    query = X.assign(job=["never"] * len(X))
    np.testing.assert_array_equal(again.predict_proba(query), model.predict_proba(query))
    assert again.encoder_.rare_levels_[0].tolist() == model.encoder_.rare_levels_[0].tolist()


def test_autobnc_groups_rare_levels_where_a_third_of_the_levels_are_rare():
    facts = dict(n_rows=100, n_classes=2, cardinalities=(3, 300), has_numeric=False, has_missing=False)
    assert not groups_rare_levels(TableFacts(**facts, rare_levels=90, categorical_levels=303))
    grouped = TableFacts(**facts, rare_levels=200, categorical_levels=303)
    offered = encodings(grouped)
    assert [e.get("min_frequency", 1) for e in offered] == [RARE_MIN_FREQUENCY]
    assert [e.get("min_frequency", 1) for e in encodings(TableFacts(**facts))] == [1]
    X, y = _table()
    auto = pybnc.AutoBNC(random_state=0, verbose=0, ensemble=0)
    read = auto._table_facts(X, pd.factorize(y)[0], 2)
    assert read.rare_levels == int((X["job"].value_counts() < RARE_MIN_FREQUENCY).sum())


def test_autobnc_fits_every_candidate_on_the_grouped_levels():
    X, y = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = pybnc.AutoBNC(random_state=0, verbose=0, ensemble=0, cv=3).fit(X, y)
    names = [str(n) for n in auto.cv_results_["candidate"]]
    assert names and all(n.endswith(f"min_frequency={RARE_MIN_FREQUENCY}") for n in names), names
    assert auto.best_estimator_.encoder_.rare_levels_[0] is not None


def test_a_model_file_whose_rare_levels_disagree_with_the_levels_is_refused(tmp_path):
    X, y = _table()
    model = pybnc.TAN(encoder=Encoder(min_frequency=3)).fit(X, y)
    kept = model.encoder_.categories_[0][0]
    model.encoder_.rare_levels_[0] = np.append(model.encoder_.rare_levels_[0], kept)  # a level twice
    save(model, tmp_path / "m.pybnc")
    with pytest.raises(ValueError, match=r"rare_levels_\[0\].*also a level of its own"):
        load(tmp_path / "m.pybnc")
