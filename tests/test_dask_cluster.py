"""fit_dask and prediction over Dask partitions on a real cluster: a LocalCluster with two
worker processes (not the synchronous scheduler), so counts and models cross process
boundaries by pickling, as they do on a cluster. One cluster for the module."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

import dask.dataframe as dd
from distributed import Client, LocalCluster

from pybnc import KDB, TAN, NaiveBayes
from pybnc.streaming import fit_dask, predict_proba_dask

# Worker processes of a local cluster: the edit loop (-m 'not slow') leaves them out.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        yield client


def _table(n=600, seed=11):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"f{j}": rng.choice(["a", "b", "c"], n).astype(object) for j in range(6)})
    X["f6"] = pd.Series([None] * n, dtype=object)  # never observed
    X.loc[::9, "f1"] = None
    y = np.where(X["f0"].eq("a") ^ (rng.random(n) < 0.2), "yes", "no")
    return X, y


@pytest.mark.parametrize("model", [NaiveBayes(), TAN(), KDB(k=2)], ids=lambda m: type(m).__name__)
def test_fit_dask_on_worker_processes_equals_fit(client, model):
    X, y = _table()
    ddf = dd.from_pandas(X.assign(target=y), npartitions=5)
    assert client.scheduler_info()["workers"] and len(client.scheduler_info()["workers"]) == 2
    got = fit_dask(type(model)(**model.get_params()), ddf, "target")
    want = type(model)(**model.get_params()).fit(X, y)
    assert got.structure_ == want.structure_
    if isinstance(model, KDB):  # the families of two parents came from the second pass
        assert max(len(p) for p in got.structure_.parents) == 2 and got.family_counts_.families
    assert_array_equal(got.counts_.levels, want.counts_.levels)
    assert_array_equal(got.predict_proba(X), want.predict_proba(X))


def test_predict_proba_over_partitions_on_worker_processes(client):
    X, y = _table()
    model = KDB(k=2).fit(X, y)
    proba = predict_proba_dask(model, dd.from_pandas(X, npartitions=4)).compute()
    assert list(proba.columns) == list(model.classes_)
    assert_array_equal(proba.loc[X.index].to_numpy(), model.predict_proba(X))


def test_eskdb_members_run_on_worker_processes_through_joblib(client):
    """ESKDB's members through joblib's Dask backend: the members run on the worker
    processes (each smoothing its own families, without the threads' shared cache) and
    the model equals the one fitted in this process."""
    import joblib
    from distributed import get_task_stream

    from pybnc import ESKDB

    X, y = _table(300)
    kw = dict(n_estimators=4, k=2, hdp_iterations=30, random_state=3, verbose=0)
    with get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        got = ESKDB(**kw, n_jobs=2).fit(X, y)
    ran = [task["key"] for task in stream.data]
    assert any("_fit_member" in str(key) for key in ran), ran
    want = ESKDB(**kw, n_jobs=1).fit(X, y)
    assert got.structures_ == want.structures_
    assert_array_equal(got.predict_proba(X), want.predict_proba(X))
