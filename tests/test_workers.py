"""joblib is the one parallel layer: the same models and probabilities for every n_jobs
and backend, no thread or process machinery of pybnc's own outside the web page."""

import pathlib
import re
import threading

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config

import pybnc
from pybnc import ESKDB, TAN, AutoBNC, Encoder, NaiveBayes
from pybnc._utils import blas
from pybnc.averaging import AveragedBNC, BaggedBNC
from pybnc.datasets import load_dataset


def test_no_thread_or_process_machinery_outside_the_web_page():
    pattern = re.compile(r"ThreadPoolExecutor|ProcessPoolExecutor|threading\.Thread|multiprocessing|os\.fork"
                         r"|gc\.freeze")
    root = pathlib.Path(pybnc.__file__).parent
    found = [f"{path.relative_to(root)}:{i}" for path in root.rglob("*.py") if "web" not in path.parts
             for i, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert not found, found


def test_autobnc_chooses_the_same_with_any_n_jobs_and_backend():
    X, y = load_dataset("glass")
    kwargs = dict(random_state=0, verbose=0, time_budget=None)  # a budget may leave out what a slow run cannot fit
    one = AutoBNC(n_jobs=1, **kwargs).fit(X, y)
    two = AutoBNC(n_jobs=2, **kwargs).fit(X, y)
    with parallel_config(backend="loky"):
        processes = AutoBNC(n_jobs=2, **kwargs).fit(X, y)
    for other in (two, processes):
        assert other.best_candidate_ == one.best_candidate_
        np.testing.assert_array_equal(other.predict_proba(X), one.predict_proba(X))
        columns = ["candidate", "status", "mean_test_log_loss"]
        pd.testing.assert_frame_equal(pd.DataFrame(other.cv_results_)[columns],
                                      pd.DataFrame(one.cv_results_)[columns])


@pytest.mark.parametrize("make", [
    lambda n_jobs: AveragedBNC([NaiveBayes(), TAN(), pybnc.KDB(k=2, verbose=0)], weights=[1, 2, 3], n_jobs=n_jobs),
    lambda n_jobs: BaggedBNC(TAN(encoder=Encoder(discretizer="quantile")), n_estimators=6, random_state=0,
                             n_jobs=n_jobs),
    lambda n_jobs: ESKDB(n_estimators=4, random_state=0, verbose=0, n_jobs=n_jobs),
], ids=["averaged", "bagged", "eskdb"])
def test_ensembles_fit_the_same_members_with_any_n_jobs(make):
    X, y = load_dataset("glass")
    one = make(1).fit(X, y)
    np.testing.assert_array_equal(make(2).fit(X, y).predict_proba(X), one.predict_proba(X))
    with parallel_config(backend="loky"):
        np.testing.assert_array_equal(make(2).fit(X, y).predict_proba(X), one.predict_proba(X))


class _Failing(NaiveBayes):
    def fit(self, X, y, sample_weight=None):
        raise RuntimeError("this candidate always fails")


def test_a_failing_candidate_is_reported_from_joblibs_threads():
    X, y = load_dataset("car")
    # "discriminative": a candidate that releases the GIL, so its folds run on joblib's threads
    candidates = {"nb": NaiveBayes(), "nb-d": NaiveBayes(weighting="discriminative"),
                  "broken": _Failing(weighting="discriminative")}
    model = AutoBNC(candidates=candidates, n_jobs=2, random_state=0, verbose=0).fit(X, y)
    status = dict(zip(model.cv_results_["candidate"], model.cv_results_["status"]))
    assert status["nb"] == "ok" and "this candidate always fails" in status["broken"]


def test_fits_on_threads_leave_the_blas_limit_of_the_thread_that_holds_it():
    def blas_threads():
        return [lib["num_threads"] for lib in blas._controller().info() if lib["user_api"] == "blas"]

    before = blas_threads()
    with blas.one_blas_thread():  # what evaluate holds around its threads
        thread = threading.Thread(target=lambda: blas.one_blas_thread().__enter__().__exit__(None, None, None))
        thread.start()
        thread.join(10)
        assert all(n == 1 for n in blas_threads())
    assert blas_threads() == before


def test_cross_validation_gives_the_same_results_with_any_n_jobs():
    from pybnc import KDB
    from pybnc.evaluation import cross_validate

    X, y = load_dataset("car")
    models = {"nb": NaiveBayes(), "tan": TAN(), "kdb": KDB(k=2, verbose=0)}
    kwargs = dict(cv=4, train_fractions=(0.5, 1.0), verbose=0, return_proba=True)
    one, proba_one = cross_validate(models, X, y, n_jobs=1, **kwargs)
    two, proba_two = cross_validate(models, X, y, n_jobs=2, **kwargs)
    scores = ["model", "fold", "train_fraction", "accuracy", "log_loss", "n_train"]
    pd.testing.assert_frame_equal(two[scores], one[scores])
    for name in models:
        np.testing.assert_array_equal(proba_two[name], proba_one[name])
