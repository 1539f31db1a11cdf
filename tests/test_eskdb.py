"""ESKDB: sampled orders, seeded, parallel = serial, prediction = mean of members' posteriors."""

import numpy as np
import pytest

from pybnc import ESKDB, SKDB
from pybnc.averaging.eskdb import sampled_order
from pybnc.datasets import load_dataset
from pybnc.estimators.base import log_posterior


def test_sampled_order_is_a_permutation_with_zero_information_last():
    rng = np.random.RandomState(0)
    mi = np.array([0.0, 0.3, 0.1, 0.0, 0.6])
    orders = [sampled_order(mi, rng) for _ in range(200)]
    for order in orders:
        assert sorted(order.tolist()) == [0, 1, 2, 3, 4] and order[3:].tolist() == [0, 3]
    first = np.bincount([o[0] for o in orders], minlength=5) / 200
    assert first[4] > first[1] > first[2] > 0  # drawn in proportion to the information


@pytest.fixture(scope="module")
def votes():
    return load_dataset("house-votes-84")  # missing values


def test_seeded_parallel_and_the_mean_of_its_members(votes):
    X, y = votes
    kw = dict(n_estimators=3, k=2, hdp_iterations=30, random_state=4, verbose=0)
    model = ESKDB(**kw, n_jobs=1).fit(X, y)
    mi_order = SKDB(k=2, verbose=0).fit(X, y).order_
    assert model.orders_[0].tolist() == mi_order.tolist()
    assert len({tuple(o) for o in model.orders_}) > 1
    np.testing.assert_array_equal(ESKDB(**kw, n_jobs=2).fit(X, y).predict_proba(X), model.predict_proba(X))
    codes = model._encode(X)
    mean = np.mean([np.exp(log_posterior(jll)) for jll in model.member_log_joint(codes)], axis=0)
    np.testing.assert_allclose(model.predict_proba(X), mean / mean.sum(axis=1, keepdims=True), atol=1e-13)
