"""
===============================================================
Decision boundaries: random, oblique, rotation and DNRF forests
===============================================================

Four forests of the zoo on the two-spirals problem, a classic test of how a
forest bends its boundary: the Random Forest (Breiman 2001) cuts the plane
with axis-parallel splits only, the one-vs-all oblique forest (Katuwal,
Suganthan & Zhang 2020) splits on linear models fitted at every node, the
rotation forest (Rodriguez, Kuncheva & Alonso 2006) grows each tree on
PCA-rotated feature subsets, and the disjunctive normal random forest
(Seyedhosseini & Tasdizen 2015) fine-tunes every tree's splits jointly into
soft, sigmoid-smoothed boundaries.

Each panel shows the predicted class over the plane and the test accuracy.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split

from forestzoo import (
    DNRFClassifier,
    OneVsAllObliqueForestClassifier,
    RandomForestClassifier,
    RotationForestClassifier,
)
from forestzoo.datasets import make_two_spirals

X, y = make_two_spirals(600, noise=0.05, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

forests = {
    "Random Forest": RandomForestClassifier(n_estimators=30, random_state=0),
    "oblique (one-vs-all, LDA)": OneVsAllObliqueForestClassifier(n_estimators=30, random_state=0),
    "rotation forest": RotationForestClassifier(n_estimators=10, random_state=0),
    "DNRF": DNRFClassifier(n_estimators=10, random_state=0),
}

lo, hi = X.min(axis=0) - 0.2, X.max(axis=0) + 0.2
xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], 120), np.linspace(lo[1], hi[1], 120))
grid = np.column_stack([xx.ravel(), yy.ravel()])

fig, axes = plt.subplots(1, 4, figsize=(14, 3.8), sharex=True, sharey=True)
for ax, (name, forest) in zip(axes, forests.items()):
    forest.fit(X_train, y_train)
    zz = forest.predict(grid).reshape(xx.shape)
    ax.contourf(xx, yy, zz, alpha=0.35, cmap="coolwarm")
    ax.scatter(X_test[:, 0], X_test[:, 1], c=y_test, s=8, cmap="coolwarm", edgecolors="none")
    ax.set_title(f"{name}\ntest accuracy {forest.score(X_test, y_test):.2f}", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
