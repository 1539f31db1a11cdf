"""
Accuracy beside a random forest, chosen honestly
================================================

Five-fold stratified cross-validation, the same folds for every model, on three
bundled tables. Every setting below is fixed in advance (pybnc's defaults, and
scikit-learn's ``RandomForestClassifier(n_estimators=300)`` on ordinal codes): nothing
is chosen by looking at the test folds. The Benchmarks pages have the full
table on every UCI table.
"""

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from pybnc import AODE, KDB, TAN, NaiveBayes
from pybnc.datasets import load_dataset

models = {
    "naive Bayes": NaiveBayes(),
    "TAN": TAN(),
    "AODE": AODE(),
    "kDB (k=2)": KDB(k=2),
    "random forest": make_pipeline(
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-2),
        RandomForestClassifier(n_estimators=300, random_state=0, n_jobs=2),
    ),
}
rows = []
for name in ("car", "votes", "breast"):
    X, y = load_dataset(name)
    folds = StratifiedKFold(5, shuffle=True, random_state=1)
    for label, model in models.items():
        scores = cross_val_score(model, X.astype(str) if label == "random forest" else X, y, cv=folds)
        rows.append({"table": name, "model": label, "accuracy": 100 * scores.mean()})
table = pd.DataFrame(rows).pivot(index="model", columns="table", values="accuracy").round(2)
table

# %%
# The same numbers as bars:

import matplotlib.pyplot as plt

_, ax = plt.subplots(figsize=(8, 4.2), layout="constrained")
table.T.plot.bar(ax=ax, rot=0, ylim=(np.floor(table.values.min() / 5) * 5, 100), width=0.8)
ax.set_ylabel("accuracy (%), 5-fold CV")
ax.set_xlabel("")
# above the bars, so that no bar hides behind it
_ = ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=len(table), fontsize=8, frameon=False)
