"""One fitted state per model, one protocol between classes, scikit-learn's public API only.

Static checks read pybnc's source with ``ast``; the others fit models and compare their
fitted state with a fresh fit's.
"""

import ast
import pathlib

import numpy as np
import pandas as pd
import pytest

import pybnc
from pybnc import AnDE, NaiveBayes, TAN
from pybnc.datasets import load_dataset
from pybnc.estimators.base import BaseBNC
from pybnc.estimators.protocol import HOOKS, OTHER_HOOKS, BlockLearner, Explainable
from pybnc.streaming import fit_blocks

SOURCE = pathlib.Path(pybnc.__file__).parent
FILES = sorted(SOURCE.rglob("*.py"))


def _trees():
    for path in FILES:
        yield path.relative_to(SOURCE.parent).as_posix(), ast.parse(path.read_text(), str(path))


def _fitted(model) -> set:
    return {n for n in vars(model) if n.endswith("_") and not n.startswith("_")}


def test_no_module_reads_or_writes_an_objects_dict():
    found = [f"{name}:{node.lineno}" for name, tree in _trees() for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr == "__dict__"]
    assert found == []


def test_no_private_name_of_scikit_learn():
    found = []
    for name, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                if any(part.startswith("_") for part in node.module.split(".")) or private:
                    found.append(f"{name}:{node.lineno} {node.module} {private}")
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "sklearn" \
                    and node.attr.startswith("_"):
                found.append(f"{name}:{node.lineno} sklearn.{node.attr}")
    assert found == []


def _classifier_methods() -> set:
    """Every private method defined by a class of pybnc (the names one class could call on another)."""
    names = set()
    for _, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names |= {f.name for f in node.body if isinstance(f, ast.FunctionDef)
                          and f.name.startswith("_") and not f.name.startswith("__")}
    return names


def test_classes_call_each_other_through_the_protocols_hooks_only():
    methods = {m for m in _classifier_methods() if hasattr(BaseBNC, m) or m in OTHER_HOOKS}
    found = []
    for name, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in methods and node.attr not in HOOKS:
                owner = node.value
                own = isinstance(owner, ast.Name) and owner.id in ("self", "cls") or (
                    isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super")
                if not own:
                    found.append(f"{name}:{node.lineno} .{node.attr}")
    assert found == []


def test_the_protocols_hooks_are_implemented_once_by_the_base_class():
    for hook in HOOKS:
        if hook not in ("_fit_ranked", "_weighted_features", "_generative_jll"):  # the classes that have them
            assert callable(getattr(BaseBNC, hook)), hook
    assert isinstance(TAN(), BlockLearner) and isinstance(TAN(), Explainable)
    assert not isinstance(object(), BlockLearner)


@pytest.fixture(scope="module")
def car():
    return load_dataset("car")


def test_each_fit_replaces_the_whole_fitted_state(car):
    X, y = car
    fresh = _fitted(TAN().fit(X, y))
    model = TAN(weighting="discriminative", discriminative_penalty=1.0).fit(X, y)
    assert {"discriminative_fit_", "n_iter_"} <= _fitted(model)
    model.set_params(weighting=None).fit(X, y)
    assert _fitted(model) == fresh  # nothing of the discriminative fit is left
    model.fit(X.to_numpy(), y)
    assert "feature_names_in_" not in _fitted(model) and _fitted(model) == fresh - {"feature_names_in_"}


def test_a_stream_starts_afresh_and_partial_fit_keeps_the_running_state(car):
    X, y = car
    blocks = [(X[i:i + 500], y[i:i + 500]) for i in range(0, len(X), 500)]
    fresh = fit_blocks(AnDE(), blocks, classes=np.unique(y))
    again = fit_blocks(AnDE().fit(X.iloc[:, :3], y), blocks, classes=np.unique(y))
    assert _fitted(again) == _fitted(fresh)
    np.testing.assert_array_equal(again.predict_proba(X), fresh.predict_proba(X))
    model = AnDE().partial_fit(*blocks[0], classes=np.unique(y))
    for block in blocks[1:]:
        model.partial_fit(*block)
    np.testing.assert_array_equal(model.triple_counts_, fresh.triple_counts_)
    np.testing.assert_allclose(model.predict_proba(X), fresh.predict_proba(X), rtol=0, atol=1e-12)


def test_a_failing_fit_leaves_no_former_state(car):
    X, y = car
    model = NaiveBayes().fit(X, y)
    with pytest.raises(ValueError):
        model.fit(X, np.zeros(len(y)))  # one class
    assert _fitted(model) <= {"classes_", "encoder_", "n_features_in_", "feature_names_in_"} or not _fitted(model)
    assert not hasattr(model, "counts_")


def test_the_vendored_parameter_checks_speak_as_scikit_learns():
    with pytest.raises(ValueError, match=r"The 'alpha' parameter of TAN must be a float in the range \[0.0, inf\) "
                                         r"or None. Got -1 instead."):
        TAN(alpha=-1).fit(pd.DataFrame({"a": ["x", "y"]}), [0, 1])


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_the_model_files_types_are_an_explicit_list():
    import inspect

    from pybnc.io import estimator_classes

    concrete = {c for c in _subclasses(BaseBNC) if c.__module__.startswith("pybnc.") and not inspect.isabstract(c)
                and not c.__name__.startswith("_") and c.__name__ != "AugmentedNaiveBayes"}
    assert concrete == set(estimator_classes().values())
    assert "sys.modules" not in (SOURCE / "io" / "_nodes.py").read_text()


def test_the_vendored_intervals_are_scikit_learns():
    from numbers import Integral, Real

    from sklearn.utils import _param_validation as theirs  # the reference, in a test only

    from pybnc._utils import validation as ours

    values = [-np.inf, -1, -0.5, 0, 0.0, 0.5, 1, 2, 2.0, np.inf, np.nan, True, "1", None]
    for kind in (Integral, Real):
        for left, right in ((0, None), (None, 2), (0, 2), (None, None), (1, 1 if kind is Real else 2)):
            for closed in ("left", "right", "both", "neither"):
                try:
                    reference = theirs.Interval(kind, left, right, closed=closed)
                except (ValueError, TypeError):
                    continue
                mine = ours.Interval(kind, left, right, closed=closed)
                assert str(mine) == str(reference)
                assert [mine.is_satisfied_by(v) for v in values] == [reference.is_satisfied_by(v) for v in values], \
                    (kind, left, right, closed)
    for spec in ("random_state", "verbose", "boolean", "array-like", None, str, ours.StrOptions({"a"})):
        ref = theirs.StrOptions({"a"}) if isinstance(spec, ours.StrOptions) else theirs.make_constraint(spec)
        mine = ours._constraint(spec)
        for v in values + [np.random.RandomState(0), [1, 2], np.arange(2), "a", np.bool_(True)]:
            assert mine.is_satisfied_by(v) == ref.is_satisfied_by(v), (spec, v)
        assert str(mine) == str(ref), spec
