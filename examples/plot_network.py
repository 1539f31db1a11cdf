"""
The network a classifier learned
================================

Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997) on the *car* table:
the class is a parent of every feature, and the Chow-Liu tree gives every feature but
the root one feature parent.
"""

from pybnc import FAN, TAN
from pybnc.datasets import load_dataset

X, y = load_dataset("car")
tan = TAN().fit(X, y)
ax = tan.plot()

# %%
# The arcs by name, and the table of one feature given the class and its parent:

print(tan.arcs_)
tan.conditional_table(tan.arcs_[0][1]).round(3).head(8)

# %%
# The MDL-optimal forest (Hamine & Helman 2004) keeps an augmenting arc only when it
# pays for its parameters: on the 435 rows of *votes* it drops one of TAN's arcs.

X, y = load_dataset("votes")
ax = FAN().fit(X, y).plot()
