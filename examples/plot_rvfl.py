"""
==============================
RVFL networks and RVFL forests
==============================

A random vector functional link network (Pao, Park & Sobajic 1994) has a
random hidden layer, direct input-output links and output weights solved in
closed form by ridge regression. Katuwal, Suganthan & Zhang ("An ensemble of
decision trees with random vector functional link networks for
multi-class classification", 2018) put such a network at the nodes of the
trees of a forest.

The RVFL network, a Random Forest and the RVFL forest with axis-parallel
trees (RFL) are compared on the bundled ``sonar`` data with 5-fold
cross-validation.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from forestzoo import RandomForestClassifier, RVFLClassifier, RVFLForestClassifier
from forestzoo.datasets import load_dataset

X, y = load_dataset("sonar")
cv = StratifiedKFold(5, shuffle=True, random_state=0)
models = {
    "RVFL": make_pipeline(StandardScaler(), RVFLClassifier(n_hidden=100, C=1.0, random_state=0)),
    "Random Forest": RandomForestClassifier(n_estimators=50, random_state=0),
    "RVFL forest (RFL)": RVFLForestClassifier(n_estimators=20, tree="axis", random_state=0),
}
scores = {name: cross_val_score(model, X, y, cv=cv) for name, model in models.items()}
for name, values in scores.items():
    print(f"{name:18s} {values.mean():.3f} +- {values.std():.3f}")

fig, ax = plt.subplots(figsize=(6, 3))
names = list(scores)
ax.barh(names, [scores[n].mean() for n in names], xerr=[scores[n].std() for n in names], capsize=3,
        color=["C0", "C1", "C2"])
ax.set_xlim(0.5, 1.0)
ax.invert_yaxis()
ax.set_xlabel("5-fold CV accuracy (sonar), mean and standard deviation")
fig.tight_layout()
plt.show()
