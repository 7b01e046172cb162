"""
=========================================================
Stochastic decision trees: split evaluations against CART
=========================================================

The stochastic split search ("Stochastic induction of decision trees with
application to learning Haar tree", SDT) ranks a node's candidate features on
growing random subsets of its rows, discards the worse half of them in every
round, and runs the exact search on the survivors only. CART's exact search
evaluates every (row, feature) pair at every node.

``tree_.n_split_evaluations`` counts the (row, feature) pairs that a tree's
split search evaluated. Here both trees are grown on the ``waveform``
generator with 40 noise features (61 in all) at growing sizes; the left
panel shows the evaluations, the right one the test accuracy.
"""

import matplotlib.pyplot as plt
import numpy as np

from forestzoo import DecisionTreeClassifier
from forestzoo.datasets import make_waveform

X_test, y_test = make_waveform(2000, n_noise_features=40, random_state=1)
sizes = [500, 1000, 2000, 4000]
evaluations = {"exact": [], "stochastic": []}
accuracy = {"exact": [], "stochastic": []}
for n in sizes:
    X, y = make_waveform(n, n_noise_features=40, random_state=0)
    for splitter in evaluations:
        tree = DecisionTreeClassifier(splitter=splitter, max_depth=8, random_state=0).fit(X, y)
        evaluations[splitter].append(tree.tree_.n_split_evaluations)
        accuracy[splitter].append(tree.score(X_test, y_test))
        print(f"n={n:5d} {splitter:10s} evaluations={tree.tree_.n_split_evaluations:>10,d} "
              f"test accuracy={accuracy[splitter][-1]:.3f}")

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9, 3.5))
labels = {"exact": "CART (exact)", "stochastic": "SDT (stochastic)"}
for splitter in evaluations:
    ax0.loglog(sizes, evaluations[splitter], "o-", label=labels[splitter])
    ax1.semilogx(sizes, accuracy[splitter], "o-", label=labels[splitter])
for ax in (ax0, ax1):
    ax.set_xticks(sizes, [str(n) for n in sizes])
    ax.minorticks_off()
ax0.set_xlabel("training rows")
ax0.set_ylabel("(row, feature) evaluations")
ax1.set_xlabel("training rows")
ax1.set_ylabel("test accuracy")
ax0.legend()
fig.tight_layout()
plt.show()
