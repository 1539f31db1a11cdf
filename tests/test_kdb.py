"""KDB: a network whose tables would not fit is refused before they are allocated."""

import numpy as np
import pandas as pd
import pytest

import pybnc.parameters.learn as parameters
from pybnc import KDB


def test_tables_past_the_bound_are_refused_before_they_are_allocated(monkeypatch):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({name: rng.integers(0, 6, 200).astype(str) for name in ["a", "b", "c"]})
    y = rng.integers(0, 2, 200)
    cells = 2 * 6 * 6 * 6  # the k=2 family's table
    monkeypatch.setattr(parameters, "MAX_TABLE_CELLS", cells)
    with pytest.raises(MemoryError, match=r"that of '\w' \(6 levels\) with parents '\w', '\w'.*Lower k"):
        KDB(k=2).fit(X, y)
    KDB(k=1).fit(X, y)  # within the bound
