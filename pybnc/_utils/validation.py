"""Parameter checks and the fit context of the classifiers.

A small copy of scikit-learn's parameter constraints (its ``utils._param_validation``
is private and changes without notice): the same vocabulary, the same messages.
"""

from __future__ import annotations

import functools
import operator
from numbers import Integral, Real

import numpy as np
from sklearn import config_context, get_config


class InvalidParameterError(ValueError, TypeError):
    """A parameter's value or type is not among those allowed (a ``ValueError`` and a
    ``TypeError``, as scikit-learn's)."""


class _Constraint:
    def is_satisfied_by(self, value) -> bool:  # pragma: no cover - every constraint defines it
        raise NotImplementedError


class Interval(_Constraint):
    """Numbers of ``type`` (``Integral`` or ``Real``) between ``left`` and ``right`` (None:
    unbounded), ``closed`` on the ``"left"``, ``"right"``, ``"both"`` or ``"neither"`` side."""

    def __init__(self, type, left, right, *, closed):
        if type not in (Integral, Real) or closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"Interval({type}, closed={closed!r}): type must be Integral or Real, closed one of "
                             "'left', 'right', 'both', 'neither'.")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, value) -> bool:
        if not isinstance(value, self.type) or (not isinstance(value, Integral) and np.isnan(value)):
            return False
        below = operator.lt if self.closed in ("left", "both") else operator.le
        above = operator.gt if self.closed in ("right", "both") else operator.ge
        # an open end is infinite: inf is outside [0, None) and inside [0, None]
        left = -np.inf if self.left is None else self.left
        right = np.inf if self.right is None else self.right
        return not below(value, left) and not above(value, right)

    def __str__(self):
        integral = self.type is Integral
        left = "-inf" if self.left is None else (self.left if integral else float(self.left))
        right = "inf" if self.right is None else (self.right if integral else float(self.right))
        return (f"{'an int' if integral else 'a float'} in the range "
                f"{'[' if self.closed in ('left', 'both') else '('}{left}, {right}"
                f"{']' if self.closed in ('right', 'both') else ')'}")


class StrOptions(_Constraint):
    """One of a set of strings."""

    def __init__(self, options):
        self.options = options

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, str) and value in self.options

    def __str__(self):
        return f"a str among {{{', '.join(repr(o) for o in self.options)}}}"


class HasMethods(_Constraint):
    """An object with the given methods."""

    def __init__(self, methods):
        self.methods = [methods] if isinstance(methods, str) else list(methods)

    def is_satisfied_by(self, value) -> bool:
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self):
        names = [repr(m) for m in self.methods]
        return f"an object implementing {names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' and ' + names[-1]}"


class _Check(_Constraint):
    def __init__(self, test, text):
        self.test, self.text = test, text

    def is_satisfied_by(self, value) -> bool:
        return self.test(value)

    def __str__(self):
        return self.text


def _type_name(t) -> str:
    return {Real: "float", Integral: "int"}.get(t, t.__qualname__ if t.__module__ == "builtins"
                                                else f"{t.__module__}.{t.__qualname__}")


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


_NAMED = {
    "array-like": _Check(lambda v: (hasattr(v, "__len__") or hasattr(v, "shape") or hasattr(v, "__array__"))
                         and not np.isscalar(v) and not isinstance(v, (str, bytes)), "an array-like"),
    "random_state": _Check(lambda v: v is None or isinstance(v, np.random.RandomState) or
                           (isinstance(v, Integral) and 0 <= v <= 2**32 - 1),
                           "an int in the range [0, 4294967295], an instance of 'numpy.random.mtrand.RandomState' "
                           "or None"),
    "verbose": _Check(lambda v: _is_bool(v) or (isinstance(v, Integral) and v >= 0),
                      "an int in the range [0, inf), an instance of 'bool' or an instance of 'numpy.bool'"),
    "boolean": _Check(_is_bool, "an instance of 'bool' or an instance of 'numpy.bool'"),
    "nan": _Check(lambda v: isinstance(v, Real) and not isinstance(v, Integral) and np.isnan(v), "nan"),
}


def _constraint(spec) -> _Constraint:
    if isinstance(spec, _Constraint):
        return spec
    if spec is None:
        return _Check(lambda v: v is None, "None")
    if spec is callable:
        return _Check(callable, "a callable")
    if isinstance(spec, type):
        return _Check(lambda v: isinstance(v, spec), f"an instance of {_type_name(spec)!r}")
    if isinstance(spec, str) and spec in _NAMED:
        return _NAMED[spec]
    raise ValueError(f"Unknown constraint type: {spec!r}")


def validate_parameter_constraints(constraints: dict, params: dict, caller_name: str) -> None:
    """Raise :class:`InvalidParameterError` for the first of ``params`` that satisfies none
    of its ``constraints`` (a parameter without constraints is not checked)."""
    for name, value in params.items():
        if name not in constraints or constraints[name] == "no_validation":
            continue
        allowed = [_constraint(c) for c in constraints[name]]
        if not any(c.is_satisfied_by(value) for c in allowed):
            text = [str(c) for c in allowed]
            text = text[0] if len(text) == 1 else f"{', '.join(text[:-1])} or {text[-1]}"
            raise InvalidParameterError(f"The {name!r} parameter of {caller_name} must be {text}. "
                                        f"Got {value!r} instead.")


def _is_fitted(estimator) -> bool:
    return any(n.endswith("_") and not n.startswith("_") for n in vars(estimator))


def fit_context(*, skip_nested_validation: bool = True):
    """Decorate a ``fit`` or ``partial_fit``: the parameters checked first
    (``estimator._validate_params()``; a ``partial_fit`` that continues a fit checks them
    no more) and, for ``fit``, the former fit forgotten (``estimator._forget_fit()``), so
    that each fit replaces the whole fitted state. ``skip_nested_validation``: inner
    estimators' parameters are not checked again (False for meta-estimators, whose members
    come from the user)."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(estimator, *args, **kwargs):
            skip = get_config()["skip_parameter_validation"]
            if not skip and not (method.__name__ == "partial_fit" and _is_fitted(estimator)):
                estimator._validate_params()
            if method.__name__ == "fit":
                estimator._forget_fit()
            with config_context(skip_parameter_validation=skip_nested_validation or skip):
                return method(estimator, *args, **kwargs)

        return wrapper

    return decorate


def feature_names(X):
    """The column names of a table when they are all strings (an object array), else None
    (scikit-learn's rule for ``feature_names_in_``)."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(list(columns), dtype=object)
    kinds = sorted({type(n).__name__ for n in names})
    strings = [isinstance(n, str) for n in names]
    if names.size and all(strings):
        return names
    if any(strings):
        raise TypeError(
            "Feature names are only supported if all input features have string names, but your input has "
            f"{kinds} as feature name / column name types. If you want feature names to be stored and validated, "
            "you must convert them all to strings, by using X.columns = X.columns.astype(str) for example. "
            "Otherwise you can remove feature / column names from your input data, or convert them all to a "
            "non-string data type.")
    return None


__all__ = ["InvalidParameterError", "Interval", "StrOptions", "HasMethods", "validate_parameter_constraints",
           "fit_context", "feature_names"]
