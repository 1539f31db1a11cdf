import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pybnc.evaluation.metrics import accuracy, brier_score, error_rate, log_loss, log_score
from pybnc.evaluation.stats import (
    corrected_resampled_t_test,
    paired_t_test,
    significant_wins,
    win_tie_loss,
)

P = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.25, 0.5, 0.25], [0.0, 0.0, 1.0]])
Y = np.array([0, 1, 1, 2])


# ------------------------------------------------------------------- metrics
def test_accuracy_and_error_rate():
    # argmax rows: 0, 2, 1, 2 -> right, wrong, right, right
    assert accuracy(Y, P) == 0.75
    assert error_rate(Y, P) == 0.25


def test_labels_via_classes():
    labels = np.array(["b", "c", "c", "a"])
    classes = ["b", "c", "a"]
    assert accuracy(labels, P, classes) == 0.75
    assert log_loss(labels, P, classes) == log_loss(Y, P)
    with pytest.raises(ValueError, match="not in classes"):
        accuracy(["b", "z", "c", "a"], P, classes)


def test_log_loss_hand_computed():
    expected = -(math.log(0.7) + math.log(0.3) + math.log(0.5) + math.log(1.0)) / 4
    assert log_loss(Y, P) == pytest.approx(expected)


def test_log_loss_clips_zero_probability():
    assert log_loss([2], [[0.5, 0.5, 0.0]]) == pytest.approx(-math.log(1e-15))


def test_log_score_is_sum_of_minus_logs():
    expected = -(math.log(0.7) + math.log(0.3) + math.log(0.5) + math.log(1.0))
    assert log_score(Y, P) == pytest.approx(expected)
    assert log_score(Y, P, base=2) == pytest.approx(expected / math.log(2))
    assert log_score([0, 0], [[0.5, 0.5], [0.25, 0.75]], base=2) == pytest.approx(3.0)
    assert log_score([2], [[0.5, 0.5, 0.0]]) == math.inf


def test_brier_hand_computed():
    rows = [
        0.3**2 + 0.2**2 + 0.1**2,
        0.1**2 + 0.7**2 + 0.6**2,
        0.25**2 + 0.5**2 + 0.25**2,
        0.0,
    ]
    assert brier_score(Y, P) == pytest.approx(sum(rows) / 4)
    assert brier_score([0], [[0.0, 1.0]]) == 2.0


@pytest.mark.parametrize(
    "y, proba, match",
    [
        ([0, 1], [[0.5, 0.5]], "entries"),
        ([0], [0.5, 0.5], "2-D"),
        ([0], [[0.9, 0.9]], "sum to 1"),
        ([0], [[-0.5, 1.5]], r"\[0, 1\]"),
        ([3], [[0.5, 0.5]], "codes"),
        ([0.0], [[0.5, 0.5]], "integer"),
    ],
)
def test_metric_input_errors(y, proba, match):
    with pytest.raises(ValueError, match=match):
        log_loss(y, proba)


# --------------------------------------------------------------------- tests
A = np.array([0.81, 0.84, 0.79, 0.86, 0.83, 0.80, 0.85, 0.82, 0.84, 0.81])
B = np.array([0.78, 0.80, 0.79, 0.81, 0.80, 0.79, 0.80, 0.80, 0.81, 0.78])


def test_paired_t_test_equals_scipy():
    r = paired_t_test(A, B)
    ref = stats.ttest_rel(A, B)
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.p_value == pytest.approx(ref.pvalue)
    assert r.mean_difference == pytest.approx(np.mean(A - B))
    assert r.verdict == "win"
    assert paired_t_test(B, A).verdict == "loss"
    assert paired_t_test(A, B, higher_is_better=False).verdict == "loss"


def test_paired_t_test_known_value():
    # d = 1, 2, 3, 4: mean 2.5, sd^2 = 5/3, t = 2.5 / sqrt(5/12)
    r = paired_t_test([1, 2, 3, 4], [0, 0, 0, 0])
    assert r.statistic == pytest.approx(2.5 / math.sqrt(5 / 12))
    assert r.statistic == pytest.approx(3.872983, abs=1e-6)
    assert r.p_value == pytest.approx(2 * stats.t.sf(3.872983346, 3))
    assert r.verdict == "win"


def test_paired_t_test_tie_and_degenerate():
    tie = paired_t_test([1, 2, 3, 4], [2, 1, 4, 3])  # d = -1, 1, -1, 1
    assert (tie.statistic, tie.p_value, tie.verdict) == (0.0, 1.0, "tie")
    a = np.random.default_rng(0).normal(size=10)
    same = paired_t_test(a, a)
    assert (same.statistic, same.p_value, same.verdict) == (0.0, 1.0, "tie")
    shifted = paired_t_test(np.full(5, 2.0), np.full(5, 1.0))
    assert shifted.statistic == math.inf and shifted.verdict == "win"
    with pytest.raises(ValueError):
        paired_t_test([1.0], [2.0])
    with pytest.raises(ValueError):
        paired_t_test([1.0, np.nan], [2.0, 1.0])


def test_corrected_t_test_known_value():
    # var = 5/3, factor 1/4 + 1/3 = 7/12 -> t = 2.5 / sqrt(35/36)
    r = corrected_resampled_t_test([1, 2, 3, 4], [0, 0, 0, 0], n_train=3, n_test=1)
    assert r.statistic == pytest.approx(2.5 / math.sqrt(35 / 36))
    assert r.p_value == pytest.approx(2 * stats.t.sf(r.statistic, 3))


def test_corrected_t_test_shrinks_scipy_statistic():
    k, n_train, n_test = 10, 900, 100
    ref = stats.ttest_rel(A, B)
    r = corrected_resampled_t_test(A, B, n_train, n_test)
    scale = math.sqrt((1 / k) / (1 / k + n_test / n_train))
    assert r.statistic == pytest.approx(ref.statistic * scale)
    assert r.p_value > ref.pvalue
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(r.statistic), k - 1))


# ------------------------------------------------------------- win/tie/loss
def _results():
    rng = np.random.default_rng(42)
    rows = []
    # d1: tan clearly better; d2: equal; d3: tan clearly worse; d4: no tan.
    shifts = {"d1": 0.10, "d2": 0.0, "d3": -0.10, "d4": None}
    for ds, shift in shifts.items():
        for fold in range(10):
            base = 0.7 + rng.normal(scale=0.01)
            rows.append((ds, "nb", fold, base))
            if shift is not None:
                noise = rng.normal(scale=0.01) if shift else 0.0
                rows.append((ds, "tan", fold, base + shift + noise))
            rows.append((ds, "kdb", fold, base + 0.2))
    df = pd.DataFrame(rows, columns=["dataset", "model", "fold", "accuracy"])
    df["error_rate"] = 1 - df["accuracy"]
    return df


def test_win_tie_loss_counts():
    df = _results()
    table = win_tie_loss(df, "nb", "accuracy")
    assert table.loc["tan"].tolist() == [1, 1, 1, 3]
    assert table.loc["kdb"].tolist() == [4, 0, 0, 4]
    assert list(table.columns) == ["wins", "ties", "losses", "datasets"]
    # A lower-is-better metric gives the same verdicts.
    pd.testing.assert_frame_equal(win_tie_loss(df, "nb", "error_rate"), table)
    # Against tan as baseline, nb's wins and losses swap.
    assert win_tie_loss(df, "tan", "accuracy").loc["nb"].tolist() == [1, 1, 1, 3]


def test_win_tie_loss_by_fraction():
    df = pd.concat([_results().assign(fraction=f) for f in (0.1, 1.0)])
    table = win_tie_loss(df, "nb", "accuracy", by="fraction")
    assert table.loc[(0.1, "tan")].tolist() == [1, 1, 1, 3]
    assert table.loc[(1.0, "kdb"), "wins"] == 4


def test_win_tie_loss_errors():
    df = _results()
    with pytest.raises(ValueError, match="higher_is_better"):
        win_tie_loss(df.rename(columns={"accuracy": "auc"}), "nb", "auc")
    with pytest.raises(ValueError, match="baseline"):
        win_tie_loss(df, "svm", "accuracy")
    with pytest.raises(ValueError, match="several rows"):
        win_tie_loss(pd.concat([df, df]), "nb", "accuracy")
    with pytest.raises(ValueError, match="n_train"):
        win_tie_loss(df, "nb", "accuracy", test="corrected")


def test_win_tie_loss_corrected_is_more_conservative():
    df = _results().assign(n_train=90, n_test=10)
    plain = win_tie_loss(df, "nb", "accuracy")
    corrected = win_tie_loss(df, "nb", "accuracy", test="corrected")
    assert (corrected["wins"] <= plain["wins"]).all()


def test_significant_wins_matrix():
    table = significant_wins(_results(), "accuracy")
    assert list(table.index) == ["nb", "tan", "kdb"]
    assert table.loc["tan", "nb"] == 1 and table.loc["nb", "tan"] == 1
    assert table.loc["kdb", "nb"] == 4 and table.loc["nb", "kdb"] == 0
    assert table.loc["kdb", "tan"] == 3
    assert np.all(np.diag(table.to_numpy()) == 0)
