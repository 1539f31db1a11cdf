"""
Why a classifier decided: Shapley values from exact marginalisation
===================================================================

A Bayesian network classifier sums a missing feature out exactly, so it can say what
it would answer without any set of features: ``model.explain(X)`` turns those answers
into each feature's Shapley value, with no background sample. A row's ``base_value``
(the class prior's logit) plus its values is the logit of its predicted class.
"""

from pybnc import TAN
from pybnc.datasets import load_dataset
from pybnc.plotting import plot_importance

X, y = load_dataset("car")
model = TAN().fit(X, y)
why = model.explain(X.sample(300, random_state=0), verbose=0)
why.head()

# %%
# One row: from the prior's log-odds to the model's, feature by feature
# (``why.plot(row=i)`` draws row ``i``).

ax = why.plot(row=0)

# %%
# The whole table: each feature's mean absolute contribution (the global importance),
# and every row's contribution as a dot.

print(why.importance().round(3))
ax = plot_importance(why, kind="beeswarm")
