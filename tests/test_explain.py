"""explain(): Shapley values against the plain formula, efficiency, null players, pyAgrum."""

import functools
import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from pybnc import (AODE, BSEJ, ESKDB, FAN, FSSJ, KDB, MANB, SKDB, SSTBMATAN, TAN, TANHC, TANHCSP, TBMATAN, AnDE,
                   NaiveBayes)
from pybnc.datasets import load_dataset
from pybnc.inference.shapley import shapley_values, subset_weights
from pybnc.encode import Encoder


# -- the reference: the Shapley formula term by term, features masked in the raw row ----------
def _logit(p):
    return math.log(p) - math.log1p(-p)


def reference_shapley(model, X, targets, output="log_odds"):
    """Every subset of each row's observed features, left out as None in the raw row and
    classified by predict_proba; then sum_S |S|!(p-|S|-1)!/p! [v(S+j) - v(S)] term by term."""
    classes = list(model.classes_)
    values, base = np.zeros(X.shape), np.zeros(len(X))
    for r in range(len(X)):
        row = X.iloc[r].astype(object)
        observed = [j for j in range(X.shape[1]) if not pd.isna(row.iloc[j])]
        subsets = [frozenset(s) for k in range(len(observed) + 1) for s in itertools.combinations(observed, k)]
        masked = pd.DataFrame([[row.iloc[j] if j in s or j not in observed else None for j in range(X.shape[1])]
                               for s in subsets], columns=X.columns).astype(X.dtypes.to_dict(), errors="ignore")
        t = classes.index(targets[r])
        proba = model.predict_proba(masked)[:, t]
        v = {s: (_logit(p) if output == "log_odds" else p) for s, p in zip(subsets, proba)}
        p = len(observed)
        for j in observed:
            others = [k for k in observed if k != j]
            for size in range(p):
                weight = math.factorial(size) * math.factorial(p - size - 1) / math.factorial(p)
                for s in itertools.combinations(others, size):
                    values[r, j] += weight * (v[frozenset(s) | {j}] - v[frozenset(s)])
        base[r] = v[frozenset()]
    return values, base


@functools.lru_cache(maxsize=None)
def table(name):
    if name == "votes7":  # two classes, missing values, 7 features
        X, y = load_dataset("votes")
        return X.iloc[:, :7], y
    if name == "iris":  # numeric columns (discretised inside the model), three classes
        X, y = load_dataset("iris")
        return X, y
    return load_dataset(name)


ROWS = {"car": [0, 300, 900, 1500], "votes7": [0, 1, 5, 60, 200], "iris": [0, 60, 120]}
FEWER = {"car": [0, 900], "votes7": [1, 60]}  # TBMATAN's exact sums over completions are slow

MODELS = {
    "NaiveBayes": NaiveBayes, "TAN": TAN, "KDB": lambda: KDB(k=2), "AODE": lambda: AODE(min_count=1),
    "TBMATAN": TBMATAN, "ESKDB": lambda: ESKDB(n_estimators=3, k=2, hdp_iterations=20, random_state=0, verbose=0),
    "FAN": FAN, "AnDE": lambda: AnDE(n=2, min_count=1), "SSTBMATAN": SSTBMATAN, "MANB": MANB,
    "SKDB": lambda: SKDB(k=2, verbose=0), "TANHC": lambda: TANHC(random_state=0, verbose=0),
    "TANHCSP": lambda: TANHCSP(random_state=0, verbose=0), "FSSJ": lambda: FSSJ(random_state=0, verbose=0),
    "BSEJ": lambda: BSEJ(random_state=0, verbose=0), "AWNB": lambda: NaiveBayes(weighting="awnb", random_state=0),
    "WANBIA": lambda: NaiveBayes(weighting="wanbia"), "TAN-bic": lambda: TAN(criterion="bic"),
}


@functools.lru_cache(maxsize=None)
def fitted(name, data):
    X, y = table(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MODELS[name]().fit(X, y)


def _check_against_reference(name, data, output="log_odds", target=None):
    model = fitted(name, data)
    X = table(data)[0].iloc[(FEWER if "TBMATAN" in name else ROWS)[data]]
    explanation = model.explain(X, target=target, output=output)
    assert explanation.method == "exact"
    values, base = reference_shapley(model, X, list(explanation.target), output)
    np.testing.assert_allclose(explanation.iloc[:, :-1].to_numpy(), values, atol=1e-6, rtol=0)
    np.testing.assert_allclose(explanation["base_value"].to_numpy(), base, atol=1e-6, rtol=0)
    return model, X, explanation


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "KDB", "AODE", "TBMATAN", "ESKDB"])
@pytest.mark.parametrize("data", ["car", "votes7"])
def test_equals_the_shapley_formula(name, data):
    _check_against_reference(name, data)


@pytest.mark.parametrize("name", ["FAN", "AnDE", "SSTBMATAN", "MANB", "SKDB", "TANHC", "TANHCSP", "FSSJ", "BSEJ",
                                  "AWNB", "WANBIA", "TAN-bic"])
def test_equals_the_shapley_formula_for_every_other_classifier(name):
    _check_against_reference(name, "votes7")


@pytest.mark.parametrize("name", ["TAN", "ESKDB", "AODE"])
def test_numeric_columns_are_explained_as_the_input_column(name):
    model, X, explanation = _check_against_reference(name, "iris")
    assert list(explanation.columns) == [*X.columns, "base_value"]
    if name == "ESKDB":  # the members cut the numeric columns each their own way
        assert any(c is not None for cuts in model.member_cut_points_ for c in cuts)


def test_probability_output_and_a_chosen_class():
    _check_against_reference("TAN", "car", output="probability", target="acc")
    _check_against_reference("AODE", "votes7", output="probability", target="republican")


def _log_odds(model, X, targets):
    log_proba = model.predict_log_proba(X)
    at = np.arange(len(X))
    t = pd.Index(model.classes_).get_indexer(targets)
    own = log_proba[at, t]
    log_proba[at, t] = -np.inf
    others = np.log(np.exp(log_proba).sum(axis=1))
    return own - others


@pytest.mark.parametrize("name", list(MODELS))
def test_efficiency_base_plus_values_is_the_models_logit(name):
    for data in ("car", "votes7"):
        model = fitted(name, data)
        # TBMATAN sums every completion of the features left out: a few rows suffice
        X = table(data)[0].iloc[::40].iloc[: 4 if "TBMATAN" in name else None]
        explanation = model.explain(X, max_evals=64, random_state=0)  # sampled rows too
        total = explanation.sum(axis=1).to_numpy()
        np.testing.assert_allclose(total, _log_odds(model, X, explanation.target), atol=1e-6, rtol=0)
        few = X.iloc[:4]
        probability = model.explain(few, output="probability", max_evals=16, random_state=0)
        k = pd.Index(model.classes_).get_indexer(probability.target)
        np.testing.assert_allclose(probability.sum(axis=1), model.predict_proba(few)[np.arange(4), k], atol=1e-9)


def test_a_feature_missing_in_the_row_gets_zero_and_the_output_is_shaped_like_x():
    X, _ = table("votes7")
    model = fitted("TAN", "votes7")
    rows = X[X.isna().any(axis=1)].head(6)
    explanation = model.explain(rows)
    assert explanation.index.equals(rows.index)
    assert (explanation.iloc[:, :-1].to_numpy()[rows.isna().to_numpy()] == 0).all()
    assert (explanation.standard_error.to_numpy() == 0).all()
    on_array = model.explain(rows.to_numpy())
    assert list(on_array.columns) == [*X.columns, "base_value"]  # fitted on a frame: its names
    np.testing.assert_allclose(on_array.to_numpy(), explanation.to_numpy())


def test_two_class_naive_bayes_is_the_weight_of_evidence():
    X, y = table("votes7")
    model = fitted("NaiveBayes", "votes7")
    rows = X.iloc[:20]
    explanation = model.explain(rows, target="democrat")
    codes = model.encoder_.transform(rows)
    d, r = list(model.classes_).index("democrat"), list(model.classes_).index("republican")
    for i in range(X.shape[1]):
        table_i = model.log_cpts_[i][:, 0, :]
        woe = np.where(codes[:, i] >= 0, table_i[d, np.maximum(codes[:, i], 0)] - table_i[r, np.maximum(codes[:, i], 0)], 0)
        np.testing.assert_allclose(explanation.iloc[:, i], woe, atol=1e-9)
    prior = model.class_log_prior_
    np.testing.assert_allclose(explanation["base_value"], prior[d] - prior[r], atol=1e-12)


def test_many_features_with_two_classes_stay_exact_through_the_components():
    X, y = load_dataset("chess")
    explanation = NaiveBayes().fit(X, y).explain(X.head(30))  # 36 features: one group each
    assert explanation.method == "exact" and (explanation.standard_error.to_numpy() == 0).all()
    forest = FAN().fit(X, y)  # the MDL forest: exact when every tree has at most 12 features
    sizes = [len(g) for g in forest._independent_groups()]
    explanation = forest.explain(X.head(5), random_state=0)
    assert explanation.method == ("exact" if max(sizes) <= 12 else "exact+sampling")
    np.testing.assert_allclose(explanation.sum(axis=1), _log_odds(forest, X.head(5), explanation.target), atol=1e-6)


def test_independent_feature_is_a_null_player_and_a_copy_shares_the_credit():
    rng = np.random.default_rng(0)
    n = 4000
    y = np.tile([0, 1], n // 2)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    X = pd.DataFrame({"a": a, "copy": a, "b": np.where(rng.random(n) < 0.6, y, 1 - y),
                      # each level once with each class in every pair of rows: P(noise | c) = P(noise)
                      "noise": np.repeat(np.arange(n // 2) % 3, 2)}).astype(str)
    model = NaiveBayes().fit(X[["a", "b", "noise"]], y)
    explanation = model.explain(X[["a", "b", "noise"]].head(12))
    np.testing.assert_allclose(explanation["noise"], 0, atol=1e-12)  # independent of the class and the rest
    assert (explanation["a"].abs() > 0.5).all()
    # "copy" is independent of the class given "a", yet v({copy}) = v({a}) = v({a, copy}): in the
    # conditional game the two are symmetric players and share a's credit (an interventional game,
    # which sets a feature without moving its copy, would not).
    tan = TAN(smoothing="mle").fit(X[["a", "copy", "b"]], y)
    assert {("a", "copy"), ("copy", "a")} & set(tan.arcs_)
    explanation = tan.explain(X[["a", "copy", "b"]].head(12))
    np.testing.assert_allclose(explanation["copy"], explanation["a"], atol=1e-9)
    assert (explanation["a"].abs() > 0.2).all()


def test_missing_as_a_category_is_a_feature_with_a_value():
    """With missing="category" the missing level is a value: leaving a feature out sums over
    every level, the missing level included (checked by enumerating the completions)."""
    X, y = load_dataset("votes")
    X = X.iloc[:, :5]
    model = TAN(encoder=Encoder(missing="category")).fit(X, y)
    rows = X[X.isna().any(axis=1)].head(2)
    explanation = model.explain(rows)
    levels = [list(c) for c in model.encoder_.categories_]
    classes = list(model.classes_)
    for r in range(len(rows)):
        t = classes.index(explanation.target.iloc[r])
        row = rows.iloc[r]

        @functools.lru_cache(maxsize=None)
        def v(subset):
            free = [j for j in range(X.shape[1]) if j not in subset]
            completions = list(itertools.product(*[levels[j] for j in free]))
            frame = pd.DataFrame([row.to_numpy(object)] * len(completions), columns=X.columns)
            for k, j in enumerate(free):
                frame.iloc[:, j] = [None if c[k] == "(missing)" else c[k] for c in completions]
            jll = model._joint_log_likelihood(frame)
            total = np.logaddexp.reduce(jll, axis=0)  # the sum over completions, per class
            return total[t] - np.logaddexp.reduce(np.delete(total, t))

        p = X.shape[1]
        for j in range(p):
            others = [k for k in range(p) if k != j]
            phi = sum(math.factorial(s) * math.factorial(p - s - 1) / math.factorial(p)
                      * (v(frozenset(S) | {j}) - v(frozenset(S))) for s in range(p)
                      for S in itertools.combinations(others, s))
            assert abs(explanation.iloc[r, j] - phi) < 1e-6
        missing_cells = rows.iloc[r].isna().to_numpy()
        assert (explanation.iloc[r, :-1].to_numpy()[missing_cells] != 0).any()  # missingness is evidence here


def test_sampling_is_efficient_and_its_standard_error_is_honest():
    X, y = load_dataset("car")
    model = fitted("TAN", "car")
    rows = X.iloc[::97]
    exact = model.explain(rows)
    runs = [model.explain(rows, method="sampling", max_evals=200, random_state=seed) for seed in range(30)]
    for run in runs:
        np.testing.assert_allclose(run.sum(axis=1), exact.sum(axis=1), atol=1e-9)
        assert run.method == "sampling"
    errors = np.stack([r.iloc[:, :-1].to_numpy() - exact.iloc[:, :-1].to_numpy() for r in runs])
    reported = np.stack([r.standard_error.iloc[:, :-1].to_numpy() for r in runs])
    # the reported standard error is the spread of the estimates across seeds (within 35%)
    ratio = errors.std(axis=0).mean() / reported.mean(axis=0).mean()
    assert 0.65 < ratio < 1.35, ratio
    again = model.explain(rows, method="sampling", max_evals=200, random_state=3)
    pd.testing.assert_frame_equal(pd.DataFrame(again), pd.DataFrame(runs[3]))


def test_solver_weights_and_a_wrong_additivity_claim_is_caught():
    rng = np.random.default_rng(1)
    d = 5
    table_values = rng.normal(size=(3, 1 << d))

    def value(rows, keep):
        return table_values[rows, (keep * (1 << np.arange(d))).sum(axis=1)]

    players = np.ones((3, d), dtype=bool)
    truth = table_values @ subset_weights(d)
    wrong_groups = [np.array([0, 1]), np.array([2, 3, 4])]  # this game is not additive over them
    result = shapley_values(value, players, wrong_groups)
    np.testing.assert_allclose(result.values, truth, atol=1e-12)
    with pytest.raises(ValueError, match="max_evals"):
        shapley_values(value, players, max_evals=2)


def test_explain_errors_name_the_fix():
    model = fitted("TAN", "car")
    X = table("car")[0].head(2)
    with pytest.raises(ValueError, match="not one of the classes"):
        model.explain(X, target="nonsense")
    with pytest.raises(ValueError, match="output="):
        model.explain(X, output="odds")
    with pytest.raises(ValueError, match="method="):
        model.explain(X, method="kernel")
    with pytest.raises(ValueError, match="max_evals"):
        model.explain(X, max_evals=0)
    X, y = load_dataset("chess")
    with pytest.raises(ValueError, match="2\\^36 subsets"):
        TAN().fit(X, y).explain(X.head(1), method="exact")


def test_tbmatan_says_once_when_its_own_answer_is_approximate():
    X, y = load_dataset("votes")
    model = TBMATAN(max_missing_combinations=64).fit(X.iloc[:, :8], y)
    with pytest.warns(UserWarning, match="explain\\(\\).*max_missing_combinations") as record:
        explanation = model.explain(X.iloc[:3, :8])
    assert sum("explain()" in str(w.message) for w in record) == 1
    np.testing.assert_allclose(explanation.sum(axis=1), _log_odds(model, X.iloc[:3, :8], explanation.target),
                               atol=1e-6)


def test_global_importance_pictures_and_notebook_display(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from pybnc.plotting import plot_importance, plot_waterfall

    X, y = load_dataset("car")
    explanation = fitted("TAN", "car").explain(X.iloc[::50])
    importance = explanation.importance()
    assert sorted(importance.index) == sorted(X.columns) and importance.is_monotonic_decreasing
    np.testing.assert_allclose(importance["safety"], explanation["safety"].abs().mean())
    ax = plot_waterfall(explanation, row=1, path=tmp_path / "row.png")
    assert ax.get_xlabel().startswith("logit P(")
    plot_importance(explanation, kind="beeswarm", path=tmp_path / "swarm.png")
    plot_importance(explanation, path=tmp_path / "bar.png")
    assert all((tmp_path / f).stat().st_size > 5000 for f in ("row.png", "swarm.png", "bar.png"))
    html = explanation._repr_html_()
    assert html.startswith("<svg") and "<table" in html
    assert type(explanation.head()) is pd.DataFrame  # slices are plain frames


PYAGRUM_CASES = [("car", [0, 300, 900, 1500, 1700]), ("votes7", [0, 2, 30, 100])]


@pytest.mark.parametrize("data,rows", PYAGRUM_CASES)
def test_agrees_with_pyagrum_conditional_shap_values_on_complete_rows(tmp_path, data, rows):
    """pyAgrum's ConditionalShapValues plays the same game, v(S) = logit P(y | x_S) by exact
    inference in the network, so on the same network and a complete row the values agree.
    They differ elsewhere: pyAgrum drops a column with a missing value from every row's game
    (here it is left out of that row only), maps a probability of exactly 0 or 1 to a logit
    of 0 (here probabilities are floored at 1e-300), reorders and deduplicates the rows, and
    explains one fixed class (here each row's predicted class, or one chosen)."""
    import pyagrum as gum
    from pyagrum.explain import ConditionalShapValues  # imports IPython (the test extra has both)

    from pybnc.io.bif import bif_names, to_bif

    X, y = table(data)
    model = fitted("TAN", data)
    path = tmp_path / "model.bif"
    to_bif(model, path)
    bn = gum.loadBN(str(path))
    names = bif_names(model)
    complete = X.iloc[rows].dropna()
    assert len(complete) >= 3
    explainer = ConditionalShapValues(bn, names["class"], logit=True)
    for k, label in enumerate(model.classes_):
        ours = model.explain(complete, target=label)
        at = bn.variable(names["class"]).index(names["class_states"][k])
        for r in range(len(complete)):
            row = {names["variables"][j]: names["states"][j][list(model.encoder_.categories_[j]).index(value)]
                   for j, value in enumerate(complete.iloc[r])}
            theirs = explainer.compute((pd.DataFrame([row]), True))
            got = [theirs[at][v] for v in names["variables"]]
            np.testing.assert_allclose(ours.iloc[r, :-1].to_numpy(float), got, atol=1e-6)
            np.testing.assert_allclose(ours["base_value"].iloc[r], theirs.baseline[at], atol=1e-6)


def test_explain_counts_its_model_evaluations_on_a_bar_that_can_be_silenced(capsys, monkeypatch):
    from pybnc._utils.progress import report_progress

    # CI silences every bar through the environment; this test is about verbose alone
    monkeypatch.delenv("PYBNC_PROGRESS", raising=False)

    X, y = load_dataset("car")
    model = TAN().fit(X, y)
    seen = []
    with report_progress(lambda desc, n, total, postfix: seen.append((desc, n))):
        quiet = model.explain(X.iloc[:3], verbose=0)
    counted = [n for desc, n in seen if desc == "explain: model evaluations"]
    # base and full value of each row, then every subset of its 6 features (exact)
    assert counted and counted[-1] == 3 * 2 + 3 * 2 ** 6
    assert "explain" not in capsys.readouterr().err
    shown = model.explain(X.iloc[:3], verbose=2)
    assert "explain: model evaluations" in capsys.readouterr().err
    pd.testing.assert_frame_equal(quiet, shown)


def test_independent_groups_are_solved_in_a_few_model_calls_and_equal_the_whole_game():
    # naive Bayes's game has one group per feature: solved group by group, a 2,000-column
    # row made 2,000 calls of the model (8 minutes); pooled, a handful of calls

    rng = np.random.default_rng(3)
    groups = [np.array([0]), np.array([1, 2]), np.array([3, 4, 5]), np.array([6]), np.array([7])]
    terms = [rng.normal(size=1 << g.size) for g in groups]  # any game on each group's subsets
    calls = []

    def value(rows, keep):
        calls.append(rows.size)
        total = np.zeros(rows.size)
        for g, t in zip(groups, terms):
            total += t[(keep[:, g] * (1 << np.arange(g.size))).sum(axis=1)]
        return total

    players = rng.random((40, 8)) < 0.8
    grouped = shapley_values(value, players, groups)
    n_grouped_calls = len(calls)
    whole = shapley_values(value, players)  # every subset of the 8 features, no groups
    np.testing.assert_allclose(grouped.values, whole.values, atol=1e-12)
    assert n_grouped_calls == 3  # base, full, then every group's subsets in one batch

    wide_groups = [np.array([j]) for j in range(2000)]
    calls.clear()
    result = shapley_values(lambda rows, keep: (calls.append(rows.size) or keep) @ np.arange(2000.0),
                            np.ones((1, 2000), dtype=bool), wide_groups)
    assert len(calls) <= 4
    np.testing.assert_allclose(result.values[0], np.arange(2000.0))


def test_efficiency_holds_to_rounding_in_log_space_on_sampled_rows_of_near_certain_predictions():
    # chess' 36 features are sampled; a TAN there is often within 1e-9 of certain, where a logit
    # recomputed from predict_proba, log(p) - log(1 - p), has lost ~1e-6 to the subtraction 1 - p
    X, y = load_dataset("chess")
    model = TAN().fit(X, y)
    log_proba = model.predict_log_proba(X)
    rows = np.argsort(-log_proba.max(axis=1), kind="stable")[:24]
    why = model.explain(X.iloc[rows], max_evals=256, random_state=0, verbose=0)
    assert why.method == "sampling"
    k = pd.Index(model.classes_).get_indexer(why.target)
    at = np.arange(rows.size)
    logit = log_proba[rows][at, k] - log_proba[rows][at, 1 - k]
    assert np.abs(logit).max() > 20  # the rows the probability-space logit gets wrong
    np.testing.assert_allclose(why.sum(axis=1).to_numpy(), logit, rtol=1e-12, atol=1e-12)
