"""Structure learning: pure functions from counts to a :class:`Structure`."""

from .chow_liu import chow_liu, maximum_spanning_forest, orient_forest
from .dag import Structure

__all__ = ["Structure", "chow_liu", "maximum_spanning_forest", "orient_forest"]
