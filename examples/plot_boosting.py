"""
=======================================
Boosting: test error against the rounds
=======================================

AdaBoost with stumps (SAMME, Zhu et al. 2009; AdaBoost.M1, Freund & Schapire
1997) and gradient tree boosting (Friedman 2001; Hastie, Tibshirani &
Friedman, *The Elements of Statistical Learning*, Algorithm 10.3) on the
problem of ESL's Figure 10.2: ten standard normal features, class 1 when
their squared norm exceeds the median of a chi-squared with 10 degrees of
freedom (9.34). A single stump and a 244-node tree give the reference lines,
as in the book. Each boosting model is refitted at growing numbers of rounds.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_hastie_10_2

from forestzoo import AdaBoostClassifier, DecisionTreeClassifier, GradientBoostingClassifier

X, y = make_hastie_10_2(n_samples=6000, random_state=0)
X_train, y_train, X_test, y_test = X[:2000], y[:2000], X[2000:], y[2000:]

rounds = [10, 25, 50, 100, 200]
curves = {"AdaBoost (SAMME, stumps)": [], "gradient boosting (depth 3)": []}
for n in rounds:
    ada = AdaBoostClassifier(n_estimators=n, algorithm="SAMME", random_state=0).fit(X_train, y_train)
    gbt = GradientBoostingClassifier(n_estimators=n, max_depth=3, random_state=0).fit(X_train, y_train)
    curves["AdaBoost (SAMME, stumps)"].append(1 - ada.score(X_test, y_test))
    curves["gradient boosting (depth 3)"].append(1 - gbt.score(X_test, y_test))
    print(f"{n:4d} rounds: " + ", ".join(f"{k} {v[-1]:.3f}" for k, v in curves.items()))

stump = DecisionTreeClassifier(max_depth=1).fit(X_train, y_train)
big = DecisionTreeClassifier(max_leaf_nodes=122, random_state=0).fit(X_train, y_train)

fig, ax = plt.subplots(figsize=(6, 3.5))
for name, errors in curves.items():
    ax.plot(rounds, errors, "o-", label=name)
ax.axhline(1 - stump.score(X_test, y_test), color="grey", linestyle=":", label="single stump")
ax.axhline(1 - big.score(X_test, y_test), color="grey", linestyle="--", label="244-node tree")
ax.set_xlabel("boosting rounds")
ax.set_ylabel("test error")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
