"""scikit-learn estimators: thin shells that validate, call the stages and keep the results."""

from .augmented import FAN, TAN, AugmentedNaiveBayes, NaiveBayes
from .base import BaseBNC

__all__ = ["BaseBNC", "AugmentedNaiveBayes", "NaiveBayes", "TAN", "FAN"]
