"""
Learning curves on shared folds
===============================

:func:`pybnc.evaluation.learning_curve` scores several classifiers on the same
stratified folds while the training fraction grows, as the papers do: naive Bayes
learns fast and plateaus early; TAN and kDB need more rows and then pass it.
"""

from pybnc import KDB, TAN, NaiveBayes
from pybnc.datasets import load_dataset
from pybnc.evaluation import learning_curve
from pybnc.plotting import plot_learning_curve

X, y = load_dataset("chess")
models = {"naive Bayes": NaiveBayes(), "TAN": TAN(), "kDB (k=2)": KDB(k=2)}
results = learning_curve(models, X, y, train_fractions=(0.05, 0.1, 0.25, 0.5, 1.0), cv=5,
                         dataset="chess (kr-vs-kp), 5-fold CV", verbose=0)
results.head()

# %%
# Mean accuracy over the folds at each training fraction, one standard error shaded:

ax = plot_learning_curve(results, metric="accuracy")
