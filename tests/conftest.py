"""Shared test fixtures: small random problems with known structure."""

import numpy as np
import pytest


def random_codes(rng, n_rows, cardinalities, n_classes, missing_rate=0.0):
    """Random coded table whose features depend on the class and on each other."""
    d = len(cardinalities)
    y = rng.integers(0, n_classes, n_rows)
    codes = np.empty((n_rows, d), dtype=np.int32)
    for i, r in enumerate(cardinalities):
        noise = rng.integers(0, r, n_rows)
        signal = (y + (codes[:, i - 1] if i else 0)) % r
        codes[:, i] = np.where(rng.random(n_rows) < 0.6, signal, noise)
    if missing_rate:
        codes[rng.random(codes.shape) < missing_rate] = -1
    return codes, y


def pytest_report_header(config):
    from pybnc._utils.native import built

    missing = [name for name, ok in built().items() if not ok]
    if not missing:
        return "pybnc C kernels: built"
    return (f"pybnc C kernels NOT built ({', '.join(missing)}): the numpy versions run and the tests that "
            "check the kernels fail; run `python setup.py build_ext --inplace` (or `pip install -e .`)")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def registry_classifiers() -> dict:
    """``{key: unfitted estimator}``: every classifier of the command line's registry
    (:mod:`pybnc.registry`; wrappers seeded and silent) plus the
    feature-weighted variants AWNB and WANBIA."""
    from pybnc.registry import MODELS, model as registered

    models = {}
    for entry in MODELS:
        key, model = entry.short_name, entry.cls()
        params = model.get_params()
        if "random_state" in params:
            model.set_params(random_state=0)
        if "verbose" in params:
            model.set_params(verbose=0)
        models[key] = model
    # ESKDB's defaults are the paper's, 20 members of 1000 Gibbs iterations each: seconds
    # per fit even on 100 rows. Here 3 members of 100; the full tables with the defaults are
    # in the earlier accuracy table (git show 01750ec:benchmarks/accuracy_vs_forest.md).
    models["eskdb"].set_params(n_estimators=3, hdp_iterations=100)
    # AutoBNC's default rounds cross-validate some twenty candidates; two on three folds
    # exercise the same machinery (tests/test_autobnc.py runs the defaults)
    models["auto"].set_params(candidates=[registered("nb").cls(), registered("tan").cls()], cv=3)
    models["awnb"] = registered("nb").cls(weighting="awnb", random_state=0)
    models["wanbia"] = registered("tan").cls(weighting="wanbia")
    return models
