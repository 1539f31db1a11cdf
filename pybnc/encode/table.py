"""The encoder: learn each column's kind and levels, and code tables with them."""

from __future__ import annotations

from numbers import Integral

import numpy as np
import pandas as pd
import scipy.sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._utils.validation import Interval, StrOptions, validate_parameter_constraints
from .._utils.sample_weight import check_sample_weight, take_rows
from .labels import check_labels, class_codes
from .numeric_block import column_groups, numeric_columns
from ._columns import (
    INTEGER_AS_NUMBER_ABOVE,
    identifier_reason,
    is_float_column,
    is_integer_column,
    name_says_identifier,
    numbers_of_text,
    refuse_unsupported_dtype,
    refuse_unsupported_levels,
    text_as_numbers,
    too_many_levels,
    warn_columns,
    warn_text_numbers,
)
from ._levels import (
    MISSING,
    factorize_column,
    factorize_integer_matrix,
    is_text_column,
    lookup_column,
    lookup_grouped_column,
    lookup_integer_matrix,
    lookup_text_columns,
)

MISSING_LABEL = "(missing)"
RARE_LABEL = "(rare)"
#: Fewest categorical text columns that transform matches in one block rather than one by one.
TEXT_BLOCK_MIN_COLUMNS = 8
#: Most rows for the block match: past a few thousand rows one factorisation per column,
#: which hashes pandas' own string arrays, beats the block's object copy and binary search
#: (200,000 x 50 text columns: 0.27 s by column, 0.69 s in blocks; 1,000 x 2,000: 0.71 s
#: by column, 0.24 s in blocks; they cross near 5,000 rows).
TEXT_BLOCK_MAX_ROWS = 4096
ID_POLICIES = ("drop", "error", "keep")
MISSING_POLICIES = ("sum", "category")
DISCRETIZERS = ("quantile", "uniform", "mdl")
#: scikit-learn constraints of the encoding options (the parameters of :class:`Encoder`).
ENCODING_CONSTRAINTS = {
    "n_bins": [Interval(Integral, 2, None, closed="left")],
    "discretizer": [StrOptions(set(DISCRETIZERS))],
    "id_columns": [StrOptions(set(ID_POLICIES))],
    "missing": [StrOptions(set(MISSING_POLICIES))],
    "min_frequency": [Interval(Integral, 1, None, closed="left")],
    "categorical_features": ["array-like", None],
    "numeric_features": ["array-like", None],
    "max_levels": [Interval(Integral, 1, None, closed="left")],
}


def as_array(X) -> np.ndarray:
    """``np.asarray(X)``, but rows given as lists keep each value's type: numpy would turn
    ``[["red", 1, 0.5]]`` into text throughout, and a float column into text levels."""
    arr = np.asarray(X)
    if arr.dtype.kind == "U" and not isinstance(X, np.ndarray):
        arr = np.asarray(X, dtype=object)
    return arr


def as_frame(X, column_major: bool = True) -> pd.DataFrame:
    """``X`` as a DataFrame; a row-major numeric array is copied column-major
    (``column_major``) unless the caller reads it whole."""
    if isinstance(X, pd.DataFrame):
        return X
    if hasattr(X, "to_pandas"):  # pyarrow tables, polars frames
        return X.to_pandas()
    arr = as_array(X)
    if arr.ndim != 2:
        raise ValueError(
            f"Expected a 2-D table (n_samples, n_features), got an array of shape "
            f"{arr.shape}. Reshape a single feature with X.reshape(-1, 1) or a single "
            "sample with X.reshape(1, -1)."
        )
    if column_major and arr.dtype.kind in "biuf" and arr.shape[1] > 1 and arr.flags.c_contiguous:
        # One transposing copy, so that every column is contiguous: the per-column passes
        # run several times faster than over a row-major array's strided columns.
        arr = np.ascontiguousarray(arr.T).T
    frame = pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])], copy=False)
    if arr.dtype == object:
        # An object array (a mixed DataFrame's .to_numpy(), rows as lists) keeps each value's
        # type: give each column the dtype pandas infers, so that a float column is
        # discretised as it is from a DataFrame instead of being taken for text levels.
        frame = frame.infer_objects()
    return frame


def check_table(X):
    """Reject what cannot be a table (sparse, a Series, a dict, not 2-D, empty, columns
    named twice); return a DataFrame or a 2-D array."""
    if scipy.sparse.issparse(X):
        raise TypeError(
            "pybnc needs a dense table: sparse input is not supported. "
            "Convert it with X.toarray() (features are categorical codes, rarely sparse)."
        )
    if isinstance(X, pd.Series):
        raise ValueError(
            f"X is a pandas Series ({X.name!r}, {len(X)} values), not a table. Pass a DataFrame: one row of a "
            "table as X.iloc[[i]] (double brackets), a Series holding one row as row.to_frame().T, one column as "
            "X[[name]]."
        )
    if isinstance(X, dict):
        raise ValueError("X is a dict; pass pd.DataFrame(X) (columns by name, values as lists).")
    if not isinstance(X, pd.DataFrame) and not hasattr(X, "to_pandas"):
        X = as_array(X)
        if np.iscomplexobj(X):
            raise ValueError("Complex data not supported: pass real or categorical columns.")
        if X.ndim != 2:
            raise ValueError(
                f"Expected a 2-D table (n_samples, n_features), got an array of shape {X.shape}. "
                "Reshape your data either using array.reshape(-1, 1) if your data has a single "
                "feature or array.reshape(1, -1) if it contains a single sample."
            )
    columns = getattr(X, "columns", None)
    if isinstance(columns, pd.Index) and columns.has_duplicates:
        twice = list(dict.fromkeys(columns[columns.duplicated()]))
        raise ValueError(f"X has more than one column named {', '.join(map(repr, twice[:5]))}; a model matches "
                         "columns by name. Rename them, for example X.columns = [f'{c}_{i}' for i, c in "
                         "enumerate(X.columns)], or drop the copies with X.loc[:, ~X.columns.duplicated()].")
    shape = X.shape
    if shape[0] == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is required.")
    if shape[1] == 0:
        raise ValueError(f"0 feature(s) (shape={shape}) while a minimum of 1 is required.")
    return X


def interval_labels(cuts: np.ndarray) -> np.ndarray:
    """``"[lo, hi)"`` of each bin the cut points make (each edge formatted once)."""
    edges = ["-inf", *(f"{v:.6g}" for v in np.asarray(cuts, dtype=np.float64).tolist()), "inf"]
    return np.array([f"[{lo}, {hi})" for lo, hi in zip(edges[:-1], edges[1:])], dtype=object)


def float_values(col: pd.Series, name) -> np.ndarray:
    try:
        values = col.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        values = numbers_of_text(col)  # numbers written as text, "?" or "NA" for missing
    if values is None:
        example = next((v for v in col.dropna().to_numpy(dtype=object) if not _is_number(v)), None)
        raise ValueError(
            f"Column {name!r} is numeric in this model but holds the value {example!r}. Pass numbers "
            f"(pd.to_numeric(X[{name!r}], errors='coerce') turns text into NaN), or list the column "
            "in categorical_features."
        ) from None
    bad = np.isinf(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"Column {name!r} holds the infinite value {values[row]} (row {row}). "
            "Replace infinities with NaN to treat them as missing, or with a finite value."
        )
    return values


def _is_integer_matrix(X) -> bool:
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "iu" and X.size > 0


def _integer_levels(levels: np.ndarray) -> bool:
    """Sorted integer levels (what the integer-matrix lookup needs)."""
    return levels.size > 0 and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in levels) \
        and bool(np.all(np.diff(np.asarray(levels, dtype=np.int64)) > 0))


def _float_levels(levels: np.ndarray) -> bool:
    """Levels of a float column with few values (text at predict is read as numbers)."""
    return levels.size > 0 and isinstance(levels[0], (float, np.floating))


def _is_number(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def unused_label(levels: np.ndarray, label: str = MISSING_LABEL) -> str:
    """``label`` (the missing level's, ``"(missing)"``, unless given), made unique among ``levels``."""
    taken = {str(v) for v in levels}
    while label in taken:
        label += "_"
    return label


def rare_levels_mask(codes: np.ndarray, n_levels: int, min_frequency: int, weights=None) -> np.ndarray:
    """Which of a column's ``n_levels`` levels :func:`group_rare_levels` groups: those seen
    fewer than ``min_frequency`` times in ``codes`` (by the rows' ``weights``), when at
    least two are; none otherwise."""
    observed = codes >= 0
    seen = np.bincount(codes[observed], weights=None if weights is None else weights[observed], minlength=n_levels)
    rare = seen < min_frequency
    return rare if np.count_nonzero(rare) >= 2 else np.zeros(n_levels, dtype=bool)


def group_rare_levels(codes: np.ndarray, levels: np.ndarray, min_frequency: int, weights=None) -> tuple:
    """A categorical column's levels seen fewer than ``min_frequency`` times (counted by
    the rows' ``weights``; declared levels never seen are among them) made one level,
    labelled ``"(rare)"`` and placed after the others, when at least two are rare.

    Returns the new codes, the new levels and the grouped levels (None when nothing
    is grouped: the codes and levels as given).

    Examples
    --------
    >>> import numpy as np
    >>> codes, levels, rare = group_rare_levels(np.array([0, 0, 1, 2, -1]), np.array(["a", "b", "c"], object), 2)
    >>> codes.tolist(), levels.tolist(), rare.tolist()
    ([0, 0, 1, 1, -1], ['a', '(rare)'], ['b', 'c'])
    """
    observed = codes >= 0
    rare = rare_levels_mask(codes, levels.size, min_frequency, weights)
    if not rare.any():
        return codes, levels, None
    kept = levels[~rare]
    new = np.where(rare, kept.size, np.cumsum(~rare) - 1)
    codes = np.where(observed, new[np.maximum(codes, 0)], MISSING).astype(np.int32)
    return codes, np.append(kept, np.array([unused_label(kept, RARE_LABEL)], dtype=object)), levels[rare]


def _series_outside(frame: pd.DataFrame, block) -> list:
    """The Series of each column of ``frame`` whose position is not in ``block`` (None for
    those that are), taken out in one pass: on a table of thousands of float columns coded
    as one array, a Series per column costs more than their codes."""
    columns = [None] * frame.shape[1]
    others = [pos for pos in range(frame.shape[1]) if pos not in block]
    # frame.items() when every column is wanted: iloc's indexer checks cost more than the
    # column on wide tables
    for pos, (_, col) in zip(others, (frame if len(others) == frame.shape[1] else frame.iloc[:, others]).items()):
        columns[pos] = col
    return columns


def _float_positions(frame: pd.DataFrame, categorical: set) -> list:
    """Positions of the float columns not listed as categorical (the columns a fit may cut)."""
    # by the dtypes, not the columns: a Series per column costs more than a narrow fit
    return [pos for pos, (name, dtype) in enumerate(zip(frame.columns, frame.dtypes))
            if getattr(dtype, "kind", "") == "f" and name not in categorical]


def _feature_set(value, frame: pd.DataFrame, param: str) -> set:
    """Column names of ``categorical_features`` / ``numeric_features`` (names, or
    positions for columns that have no such name)."""
    if value is None:
        return set()
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{param} must be a list of column names, got {value!r}.")
    names, columns = set(), list(frame.columns)
    for item in value:
        if item in columns:
            names.add(item)
        elif isinstance(item, Integral) and not isinstance(item, bool) and 0 <= item < len(columns):
            names.add(columns[item])
        else:
            raise ValueError(f"{param} lists {item!r}, which is not a column of X "
                             f"({columns[:8]}{'...' if len(columns) > 8 else ''}).")
    return names


def _class_codes(y, n_rows: int) -> np.ndarray | None:
    """``y`` as class codes: codes (non-negative integers, what the classifiers pass) as
    they are, other labels (strings, booleans, categories) coded as a classifier codes
    them (:func:`pybnc.encode.labels.class_codes`)."""
    if y is None:
        return None
    values = np.asarray(y)
    if values.ndim == 1 and values.dtype.kind in "iu" and (values.size == 0 or values.min() >= 0):
        return values
    return class_codes(check_labels(y, n_rows))[1]


class Encoder(TransformerMixin, BaseEstimator):
    """Code a table into small integers, one column of ``int32`` codes per kept column.

    The first stage of every pybnc classifier, which takes it as ``encoder=`` (None:
    ``Encoder()``) and holds the fitted copy as ``encoder_``; set its options through the
    classifier as scikit-learn reaches nested estimators (``TAN().set_params(encoder__n_bins=3)``,
    ``GridSearchCV(TAN(), {"encoder__n_bins": [3, 5]})``). Codes run ``0 .. r - 1`` per
    column with ``-1`` for a missing value; the labels of the codes are kept
    (``categories_``). The column rules are in :mod:`pybnc.encode`.

    Parameters
    ----------
    n_bins : int, default=5
        Bins of a numeric column cut by ``"quantile"`` or ``"uniform"`` (floats, and
        integers with more than 20 distinct values); a numeric column with at most
        ``n_bins`` distinct values is taken as categories.
    discretizer : {"mdl", "quantile", "uniform"}, default="mdl"
        How numeric columns are cut: Fayyad-Irani MDL (supervised, the default, chosen
        by evidence in ``docs/discretisation.md``; ``fit`` then needs ``y`` and says so
        without it), equal frequency or equal width.
    id_columns : {"drop", "error", "keep"}, default="drop"
        A column that looks like a row identifier (distinct values in at least 90 % of
        its observed rows, 50 % if its name says id or name) is left out with an
        :class:`EncodingWarning` naming it, refused, or kept. A model never asks for a
        column it left out: rows without it are predicted.
    missing : {"sum", "category"}, default="sum"
        ``"sum"``: a missing value is unknown; learners count it by available-case
        analysis and prediction sums it out exactly. ``"category"``: missing is a
        level of its own (labelled ``"(missing)"``) in every column that has missing
        values at fit, for data where the absence itself is informative.
    min_frequency : int, default=1
        Levels of a categorical column seen fewer than ``min_frequency`` times at fit
        become one level, ``"(rare)"`` (when at least two are that rare), as
        scikit-learn's ``OneHotEncoder(min_frequency=...)`` groups its infrequent
        categories. At predict time a level never seen at fit is read as ``"(rare)"`` in
        such a column (it is rarer still); in the others it is missing. 1: no grouping.
    categorical_features, numeric_features : list of column names, default=None
        Columns to treat as categories (even floats or integers with many values)
        or as numbers to discretise (even integers with few values).
    max_levels : int, default=1000
        Largest number of levels a categorical column may have.

    Attributes
    ----------
    columns_ : list
        Names of the columns the model uses (``x0, x1, ...`` for arrays), without
        the ones left out.
    kinds_ : list of {"categorical", "discretised"}
    categories_ : list of ndarray
        Label of each code, per column.
    cut_points_ : list of ndarray or None
        Cut points of discretised columns (``None`` for categorical ones).
    cardinalities_ : ndarray of int
        Number of codes per column.
    missing_codes_ : ndarray of int
        Code of the missing level of each column, ``-1`` where missing is summed out.
    positions_ : ndarray of int
        Position of each used column in the input table.
    n_input_columns_ : int
        Columns of the input table (also ``n_features_in_``).
    dropped_columns_ : list
        Columns left out as identifiers.
    rare_levels_ : list of (ndarray or None)
        Per column, the levels grouped into ``"(rare)"`` (``min_frequency``), None where
        none are.

    Examples
    --------
    >>> import pandas as pd
    >>> enc = Encoder().fit(pd.DataFrame({"a": ["x", "y", None], "b": [1, 2, 1]}))
    >>> enc.transform(pd.DataFrame({"a": ["y", "z"], "b": [2, 1]})).tolist()
    [[1, 1], [-1, 0]]
    >>> enc.get_feature_names_out().tolist()
    ['a', 'b']
    >>> enc = Encoder(missing="category").fit(pd.DataFrame({"a": ["x", "y", None]}))
    >>> enc.categories_[0].tolist(), enc.transform(pd.DataFrame({"a": [None, "z"]})).tolist()
    (['x', 'y', '(missing)'], [[2], [-1]])

    A numeric column is cut by the class unless another ``discretizer`` is chosen:

    >>> X = pd.DataFrame({"t": [0.1, 0.5, 0.7, 0.2, 0.9, 0.4, 0.8]})
    >>> Encoder(discretizer="quantile", n_bins=2).fit_transform(X).ravel().tolist()
    [0, 1, 1, 0, 1, 0, 1]
    >>> Encoder().fit_transform(X, y=[0, 0, 1, 0, 1, 0, 1]).ravel().tolist()
    [0, 0, 1, 0, 1, 0, 1]
    """

    _parameter_constraints: dict = ENCODING_CONSTRAINTS

    def __init__(self, n_bins=5, discretizer="mdl", id_columns="drop", missing="sum", min_frequency=1,
                 categorical_features=None, numeric_features=None, max_levels=1000):
        self.n_bins = n_bins
        self.discretizer = discretizer
        self.id_columns = id_columns
        self.missing = missing
        self.min_frequency = min_frequency
        self.categorical_features = categorical_features
        self.numeric_features = numeric_features
        self.max_levels = max_levels

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.target_tags.required = False
        return tags

    @property
    def n_features_in_(self) -> int:
        """Columns of the table the encoder was fitted on (``n_input_columns_``)."""
        check_is_fitted(self, "columns_")
        return self._layout()[1]

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the coded columns: the input columns the encoder kept, in order.

        Parameters
        ----------
        input_features : array-like of str, optional
            Names of the input columns (as many as at fit); default: those seen at fit.

        Returns
        -------
        ndarray of str (object dtype)
        """
        check_is_fitted(self, "columns_")
        if input_features is None:
            return np.asarray([str(c) for c in self.columns_], dtype=object)
        names = np.asarray(input_features, dtype=object)
        positions, width, _ = self._layout()
        if names.ndim != 1 or names.size != width:
            raise ValueError(f"input_features has {names.size} names; the encoder was fitted on {width} columns.")
        return np.asarray([str(c) for c in names[positions]], dtype=object)

    # -- parameters ---------------------------------------------------------------------
    def _validate(self, frame: pd.DataFrame) -> tuple[set, set]:
        validate_parameter_constraints(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        categorical = _feature_set(self.categorical_features, frame, "categorical_features")
        numeric = _feature_set(self.numeric_features, frame, "numeric_features")
        if categorical & numeric:
            raise ValueError(f"Columns {sorted(map(str, categorical & numeric))} are listed both in "
                             "categorical_features and numeric_features; list each in one.")
        return categorical, numeric

    def surely_discretises(self, X) -> bool:
        """True when a fit on ``X`` would cut a float column into bins: one not listed in
        ``categorical_features`` holds more than ``n_bins`` distinct values. Its cut
        points then depend on the rows it is fitted on, so no encoding of the whole table
        is every part's. (False does not promise the opposite: a fit decides, and refuses
        infinite values.)"""
        frame = as_frame(X)
        categorical = _feature_set(self.categorical_features, frame, "categorical_features")
        positions = _float_positions(frame, categorical)
        if not positions:
            return False
        values = np.sort(frame.iloc[:, positions].to_numpy(dtype=np.float64, na_value=np.nan), axis=0)  # NaN last
        if np.isinf(values).any():
            return False  # a fit refuses the table, naming the value's row of the whole table
        distinct = np.count_nonzero(np.diff(values, axis=0) > 0, axis=0) + 1
        return bool((distinct > self.n_bins).any())

    # -- learning -----------------------------------------------------------------------
    def fit(self, X, y=None, sample_weight=None) -> "Encoder":
        """Learn the encoding (see :meth:`fit_transform`); returns ``self``."""
        self.fit_transform(X, y, sample_weight)
        return self

    def fit_transform(self, X, y=None, sample_weight=None) -> np.ndarray:
        """Learn the encoding and return the codes of ``X`` (one pass over each column).

        ``y``: the class of each row, as a classifier takes it (labels of any kind, or
        their codes ``0 .. K-1``); the MDL cut points read it. ``sample_weight``
        (positive, one per row; :mod:`pybnc._utils.sample_weight`): the cut points and the
        identifier rule read the rows' weights, as if each row were repeated its weight
        times."""
        X = check_table(X)
        weights = check_sample_weight(sample_weight, X.shape[0])
        if weights is not None and not (weights > 0).all():  # a row of weight 0 is a row absent
            kept = np.flatnonzero(weights > 0)
            self.fit_transform(take_rows(X, kept), None if y is None else np.asarray(y)[kept], weights[kept])
            return self.transform(X)
        integer = _is_integer_matrix(X)  # coded whole, row-major: no column-major copy
        frame = as_frame(X, column_major=not integer)
        y_codes = _class_codes(y, frame.shape[0])
        self._weights = weights
        try:
            codes = self._learn_integer_matrix(X, frame, y_codes) if integer else None
            if codes is None:
                codes = self._learn(as_frame(X) if integer else frame, y_codes)
        finally:
            del self._weights
        self._check_not_empty()
        return codes

    def _learn_integer_matrix(self, arr: np.ndarray, frame: pd.DataFrame, y_codes) -> np.ndarray | None:
        """:meth:`_learn` for a numpy integer array, every column factorised at once (no
        Python step per column but the rules'); None where the general path is needed."""
        if self.categorical_features is not None or self.numeric_features is not None or self.min_frequency > 1:
            return None
        found = factorize_integer_matrix(arr)
        if found is None:
            return None
        self._validate(frame)
        codes, all_levels = found
        n, numbered, unique_numbers, keep = len(frame), [], [], []
        self.columns_, self.kinds_, self.categories_, self.cut_points_, self.dropped_columns_ = [], [], [], [], []
        for pos, (name, levels) in enumerate(zip(frame.columns, all_levels)):
            cuts = None
            if levels.size > INTEGER_AS_NUMBER_ABOVE:
                if self._left_out(name, levels.size, self._observed_weight(None, n), 0, set(), by_name_only=True):
                    continue
                if identifier_reason(name, levels.size, self._observed_weight(None, n)) is not None:
                    unique_numbers.append(name)
                numbered.append(name)
                column, levels, cuts = self._numeric_column(frame.iloc[:, pos], name, y_codes)
                codes[:, pos] = column
            elif self._left_out(name, levels.size, self._observed_weight(None, n), levels.size, set()):
                continue
            keep.append(pos)
            self.columns_.append(name)
            self.kinds_.append("categorical" if cuts is None else "discretised")
            self.categories_.append(levels)
            self.cut_points_.append(cuts)
        self._store(np.full(len(keep), MISSING), keep, frame.shape[1], numbered, unique_numbers)
        return codes if len(keep) == codes.shape[1] else np.ascontiguousarray(codes[:, keep])

    def _learn(self, frame: pd.DataFrame, y_codes) -> np.ndarray:
        categorical, numeric = self._validate(frame)
        n = len(frame)
        self.columns_, self.kinds_, self.categories_, self.cut_points_ = [], [], [], []
        positions, missing_codes, coded, numbered, self.dropped_columns_ = [], [], [], [], []
        unique_numbers = []  # integer columns taken as numbers although nearly unique
        rare_levels, text_numbers = [], {}
        block = self._float_block(frame, categorical, numeric, y_codes)
        for pos, name, col in self._other_columns(frame, block):
            codes = levels = cuts = None
            if col is None:  # a float column coded with the others
                codes, levels, cuts = block[pos]
            elif isinstance(col.dtype, pd.CategoricalDtype) and name not in numeric:
                levels = np.asarray(col.dtype.categories, dtype=object)
                codes = col.array.codes.astype(np.int32)
            elif is_float_column(col) or name in numeric:
                if name not in numeric and self._whole_number_identifier(col, name, categorical):
                    continue
            else:
                codes, levels = factorize_column(col, name)
                found = None if name in categorical or not is_text_column(col) else text_as_numbers(levels)
                if found is not None:  # numbers written as text ("?" for missing): a float column
                    col, codes, levels = pd.Series(np.append(found[0], np.nan)[codes], index=col.index), None, None
                    text_numbers[name] = found[1]
                    if self._whole_number_identifier(col, name, categorical):
                        continue
                elif is_integer_column(col) and name not in categorical and levels.size > INTEGER_AS_NUMBER_ABOVE:
                    observed = self._observed_weight(codes >= 0, int((codes >= 0).sum()))
                    # A number named like an identifier (``id``, 1..n) is one; other numbers are not.
                    if self._left_out(name, levels.size, observed, 0, categorical, by_name_only=True):
                        continue
                    if observed and identifier_reason(name, len(levels), observed) is not None:
                        unique_numbers.append(name)
                    codes = levels = None
                    numbered.append(name)
            if codes is None:
                if name in categorical:  # floats asked to be categories
                    float_values(col, name)
                    codes, levels = factorize_column(col, name)
                else:
                    codes, levels, cuts = self._numeric_column(col, name, y_codes)
            n_missing = np.count_nonzero(codes < 0)
            rare = None
            if cuts is None:
                refuse_unsupported_levels(levels, name)
                n_observed = self._observed_weight(codes >= 0, n - n_missing)
                if col is not None and isinstance(col.dtype, pd.CategoricalDtype):  # declared levels need not occur
                    n_distinct = int(np.count_nonzero(np.bincount(codes[codes >= 0], minlength=1)))
                else:
                    n_distinct = len(levels)
                if self.min_frequency > 1:  # the level limit applies to the grouped levels
                    codes, levels, rare = group_rare_levels(codes, levels, self.min_frequency,
                                                            getattr(self, "_weights", None))
                if self._left_out(name, n_distinct, n_observed, len(levels), categorical):
                    continue
            if self.missing == "category" and n_missing:
                missing_codes.append(levels.size)
                codes = np.where(codes < 0, levels.size, codes).astype(np.int32)
                levels = np.append(levels, np.array([unused_label(levels)], dtype=object))
            else:
                missing_codes.append(MISSING)
            self.columns_.append(name)
            self.kinds_.append("categorical" if cuts is None else "discretised")
            self.categories_.append(levels)
            self.cut_points_.append(cuts)
            rare_levels.append(rare)
            positions.append(pos)
            coded.append(codes)
        warn_text_numbers(text_numbers)
        self._store(missing_codes, positions, frame.shape[1], numbered, unique_numbers, rare_levels)
        out = np.empty((n, len(coded)), dtype=np.int32)
        for j, codes in enumerate(coded):
            out[:, j] = codes
        return out

    def _whole_number_identifier(self, col: pd.Series, name, categorical: set) -> bool:
        """A float column of whole numbers named like an identifier is an integer ``id`` that a
        missing value made float (a blank row of a CSV file): left out as its integer form is."""
        if not name_says_identifier(name) or self.id_columns == "keep" or name in categorical:
            return False
        values = float_values(col, name)
        observed = values[~np.isnan(values)]
        if not np.array_equal(observed, np.round(observed)):
            return False
        return self._left_out(name, np.unique(observed).size, self._observed_weight(~np.isnan(values), observed.size),
                              0, categorical, by_name_only=True)

    def _observed_weight(self, observed, n_observed):
        """The rows observed (a mask, None: all), counted by their weights during a
        weighted fit (as many as the repeated rows), else ``n_observed``."""
        weights = getattr(self, "_weights", None)
        if weights is None:
            return n_observed
        return float(weights.sum() if observed is None else weights[observed].sum())

    def _check_not_empty(self) -> None:
        if not self.columns_:
            raise ValueError(f"Every column of X was left out as an identifier ({self.dropped_columns_[:5]}); "
                             "pass encoder=Encoder(id_columns='keep') to use them, or give the model real features.")

    def _store(self, missing_codes, positions, n_input_columns: int, numbered: list, unique_numbers=(),
               rare_levels=None) -> None:
        """Finish a fit (in memory or by Dask): the layout attributes and one warning per
        kind of decision."""
        warn_columns("Integer columns with more than " f"{INTEGER_AS_NUMBER_ABOVE} distinct values are taken as "
                     "numbers (discretised): {columns}. To keep one as categories, list it in "
                     "Encoder(categorical_features=[...]) or give it the pandas 'category' dtype.", numbered)
        warn_columns("Integer columns with a distinct value in nearly every row are taken as numbers, not as "
                     "row identifiers: {columns}. If one is an identifier (a sample or customer number), drop "
                     "it or name it 'id' so that id_columns applies.", unique_numbers)
        warn_columns("Left out of the model as row identifiers (nearly one distinct value per row): {columns}. "
                     "Pass encoder=Encoder(id_columns='keep') to use such columns, or 'error' to refuse such tables.",
                     self.dropped_columns_)
        self.cardinalities_ = np.array([len(c) for c in self.categories_], dtype=np.int64)
        self.missing_codes_ = np.array(missing_codes, dtype=np.int64)
        self.positions_ = np.array(positions, dtype=np.int64)
        self.n_input_columns_ = n_input_columns
        self.rare_levels_ = list(rare_levels) if rare_levels is not None else [None] * len(self.columns_)

    def _float_block(self, frame: pd.DataFrame, categorical: set, numeric: set, y_codes) -> dict:
        """``{position: (codes, levels, cuts)}`` of the float columns coded together
        (:mod:`pybnc.encode.numeric_block`: one conversion and one sort for all). Left to
        the one-column path: columns with infinite values (it refuses them, naming the
        column) and columns named like an identifier (its rule reads the column)."""
        names = list(frame.columns)  # once: indexing an Index of Arrow strings costs per call
        positions = [pos for pos in _float_positions(frame, categorical)
                     if self.id_columns == "keep" or names[pos] in numeric or not name_says_identifier(names[pos])]
        block = {}
        for group in column_groups(positions, len(frame)):
            values = frame.iloc[:, group].to_numpy(dtype=np.float64, na_value=np.nan)
            finite = ~np.isinf(values).any(axis=0)
            block.update(zip([pos for pos, ok in zip(group, finite) if ok], self._coded_floats(values[:, finite], y_codes)))
        return block

    @staticmethod
    def _other_columns(frame: pd.DataFrame, block: dict):
        """``(position, name, Series)`` of every column, the Series None for the columns of
        ``block``: only the others are taken out of the frame as a Series (on a table of
        thousands of float columns, making the Series costs more than coding them)."""
        series = _series_outside(frame, block)
        for pos, name in enumerate(list(frame.columns)):
            col = series[pos]
            if col is not None:
                refuse_unsupported_dtype(col, name)
            yield pos, name, col

    def _numeric_column(self, col, name, y_codes):
        """Codes, levels and cut points (None when few values) of a numeric column, alone
        (the float columns are coded together: :meth:`_float_block`)."""
        return self._coded_floats(float_values(col, name)[:, None], y_codes)[0]

    def _coded_floats(self, values: np.ndarray, y_codes) -> list:
        """``(codes, levels, cuts)`` of each column of ``values`` (finite or NaN):
        :func:`~pybnc.encode.numeric_block.numeric_columns`, a cut column's levels its
        intervals' labels."""
        if y_codes is None and self.discretizer == "mdl":
            self._refuse_mdl_without_y(values)
        found = numeric_columns(np.asfortranarray(values), self.discretizer, self.n_bins,
                                y_codes=None if y_codes is None else np.asarray(y_codes),
                                weights=getattr(self, "_weights", None))
        return [(codes, interval_labels(cuts) if cuts is not None else levels, cuts) for codes, levels, cuts in found]

    def _refuse_mdl_without_y(self, values: np.ndarray) -> None:
        """Raise if a column of ``values`` would be cut (more than ``n_bins`` distinct values):
        the MDL cuts read the class, which a fit without ``y`` does not have."""
        ordered = np.sort(values, axis=0)  # NaN last
        distinct = np.count_nonzero(np.diff(ordered, axis=0) > 0, axis=0) + 1
        if (distinct > self.n_bins).any():
            raise ValueError('Encoder(discretizer="mdl") cuts numeric columns by the class: pass y to fit '
                             '(encoder.fit(X, y)), or choose discretizer="quantile" or "uniform" to cut them '
                             'without it.')

    def _left_out(self, name, n_distinct: int, n_observed: int, n_levels: int, categorical: set,
                  by_name_only: bool = False) -> bool:
        """Apply the identifier rule and the level limit to a categorical column: True
        when it is left out (recorded in ``dropped_columns_``)."""
        if self.id_columns != "keep" and name not in categorical:
            reason = identifier_reason(name, n_distinct, n_observed, by_name_only)
            if reason and self.id_columns == "error":
                raise ValueError(f"Column {name!r} looks like a row identifier: {reason}. Drop it, pass "
                                 "id_columns='drop' to leave such columns out, or id_columns='keep' (or list "
                                 "it in categorical_features) to use it.")
            if reason:
                self.dropped_columns_.append(name)
                return True
        # Declared categories may outnumber the rows (12 months, 10 rows): only the limit applies.
        if n_levels > self.max_levels:
            raise too_many_levels(name, n_levels, self.max_levels, n_distinct)
        return False

    def drops_in_part(self, j: int, level_counts: np.ndarray) -> bool:
        """Would an encoder fitted on part of the rows (a cross-validation fold whose
        counts of column ``j``'s levels are ``level_counts``) leave column ``j`` out as
        an identifier?"""
        positions, _, missing_codes = self._layout()
        exempt = {self.columns_[j], int(positions[j])} & set(self.categorical_features or ())
        if self.id_columns == "keep" or self.kinds_[j] != "categorical" or exempt:
            return False
        observed = np.delete(level_counts, missing_codes[j]) if missing_codes[j] >= 0 else level_counts
        return identifier_reason(self.columns_[j], int(np.count_nonzero(observed)), int(observed.sum())) is not None

    # -- coding -------------------------------------------------------------------------
    def _layout(self):
        """Input positions, input width and missing codes (older fitted encoders lack them)."""
        k = len(self.columns_)
        return (getattr(self, "positions_", np.arange(k)), getattr(self, "n_input_columns_", k),
                getattr(self, "missing_codes_", np.full(k, MISSING)))

    def observed_levels(self, j: int) -> np.ndarray:
        """Levels of column ``j`` that values can take (without the missing level)."""
        levels = self.categories_[j]
        return levels[:-1] if self._layout()[2][j] >= 0 else levels

    def _lookup_text_block(self, columns: list, positions, n_rows: int) -> dict:
        """``{j: codes}`` of the categorical text columns, matched together when a wide table
        has many of them (:func:`lookup_text_columns`); columns holding a value that matches
        no level are left out (the column-by-column lookup names an example)."""
        rare = self._rare_levels()
        text = [j for j, (kind, pos) in enumerate(zip(self.kinds_, positions))
                if kind == "categorical" and rare[j] is None and is_text_column(columns[pos])]
        if len(text) < TEXT_BLOCK_MIN_COLUMNS or n_rows > TEXT_BLOCK_MAX_ROWS:
            return {}
        codes, unseen = lookup_text_columns([columns[positions[j]] for j in text],
                                            [self.observed_levels(j) for j in text])
        return {j: codes[:, i] for i, j in enumerate(text) if not unseen[i]}

    def _discretised_block(self, frame: pd.DataFrame, positions) -> dict:
        """``{input position: float values}`` of the discretised columns, converted together
        when they hold at most :data:`~pybnc.encode.numeric_block.BLOCK_CELLS` cells (on a
        wide, short table a Series per column costs more than its codes; a larger table's
        time is in its values, and it is read column by column, without a copy of them
        all). A column with an infinite value, and all of them when one holds text, are
        left to :func:`float_values`, which refuses them naming the column."""
        wanted = [int(pos) for kind, pos in zip(self.kinds_, positions) if kind == "discretised"]
        if len(wanted) < 2 or len(column_groups(wanted, len(frame))) > 1:
            return {}
        try:
            values = frame.iloc[:, wanted].to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            return {}
        finite = ~np.isinf(values).any(axis=0)
        values = np.asfortranarray(values)
        return {pos: values[:, i] for i, pos in enumerate(wanted) if finite[i]}

    def _rare_levels(self) -> list:
        """Per column, the levels grouped into ``"(rare)"`` or None (encoders fitted before
        ``min_frequency`` existed group none)."""
        return getattr(self, "rare_levels_", None) or [None] * len(self.columns_)

    def transform(self, X) -> np.ndarray:
        """The codes of table ``X`` (its columns as at fit), shape ``(n_rows, len(columns_))``,
        ``int32``, ``-1`` for a missing value (or one never seen at fit)."""
        check_is_fitted(self, "columns_")
        X = check_table(X)
        positions, width, missing_codes = self._layout()
        rare = self._rare_levels()
        if _is_integer_matrix(X) and X.shape[1] == width and all(k == "categorical" for k in self.kinds_) \
                and not (missing_codes >= 0).any() and all(r is None for r in rare) \
                and all(_integer_levels(c) for c in self.categories_):
            codes = lookup_integer_matrix(X[:, positions] if len(positions) < width else X, self.categories_)
            if codes is not None:
                return codes
        frame = as_frame(X)
        if frame.shape[1] != width:
            raise ValueError(
                f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting {width} features as "
                f"input (it codes {self.columns_[:5]}{'...' if len(self.columns_) > 5 else ''})."
            )
        codes = np.empty((len(frame), len(self.columns_)), dtype=np.int32)
        foreign, examples = [], []
        cut = self._discretised_block(frame, positions)
        columns = _series_outside(frame, cut)
        looked_up = self._lookup_text_block(columns, positions, len(frame))
        for j, (kind, cuts, pos) in enumerate(zip(self.kinds_, self.cut_points_, positions)):
            col, name = columns[pos], self.columns_[j]
            if j in looked_up:  # text column matched in a block; one with unseen values is looked at alone
                out = looked_up[j]
                missing = col.isna().to_numpy() if missing_codes[j] >= 0 else None
            elif kind == "discretised":
                values = cut[pos] if pos in cut else float_values(col, name)
                missing = np.isnan(values)
                out = np.where(missing, MISSING, np.searchsorted(cuts, values, side="right")).astype(np.int32)
            else:
                if is_float_column(col):
                    float_values(col, name)  # infinities are an error, not a level
                elif is_text_column(col) and _float_levels(self.categories_[j]):  # numbers written as text
                    numbers = numbers_of_text(col)
                    col = col if numbers is None else pd.Series(numbers, index=col.index)
                if rare[j] is None:
                    out, example = lookup_column(col, self.observed_levels(j), name)
                else:
                    out, example = lookup_grouped_column(col, self.observed_levels(j)[:-1], rare[j], name)
                if example is not None:
                    foreign.append(name)
                    examples.append(f"{name!r} got {example!r}")
                missing = col.isna().to_numpy() if missing_codes[j] >= 0 else None
            if missing_codes[j] >= 0:
                out[missing] = missing_codes[j]
            codes[:, j] = out
        if foreign:
            warn_columns("Values of another type than the levels fitted (numbers where text was fitted, or "
                         f"the reverse; {'; '.join(examples[:5])}) match no level and are treated as missing, "
                         "in columns {columns}. Convert them to the fitted type (for example "
                         "X[col].astype(str)).", foreign)
        return codes
