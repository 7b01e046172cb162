"""
==========================================
Transfer forests: refining a source forest
==========================================

Segev et al. ("Learn on source, refine on target: a model transfer learning
framework with random forests", 2017) adapt a forest trained on a source
domain to a target domain from a few labelled target rows, without the source
data: SER expands the leaves that target rows reach and prunes back where the
target error says so (Algorithm 1), STRUT keeps the structure and re-selects
every threshold on the target rows (Algorithm 2), MIX averages both.

The source domain is the two-moons problem; the target is the same problem
rotated by 20 degrees and shifted, with only 20 labelled rows. The source
forest alone, a forest trained on the 20 target rows alone, and the three
transfer forests are scored on held-out target rows, averaged over 3 draws of
the target sample.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from forestzoo import RandomForestClassifier, TransferForestClassifier


def domain(n, angle, shift, seed):
    X, y = make_moons(n, noise=0.2, random_state=seed)
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    return X @ np.array([[c, -s], [s, c]]) + shift, y


X_source, y_source = domain(1000, 0, 0.0, seed=0)
source = RandomForestClassifier(n_estimators=30, random_state=0).fit(X_source, y_source)
X_eval, y_eval = domain(1000, 20, 0.3, seed=1)

scores = {"source only": [], "target only": [], "SER": [], "STRUT": [], "MIX": []}
for draw in range(3):
    X_target, y_target = domain(20, 20, 0.3, seed=100 + draw)
    scores["source only"].append(source.score(X_eval, y_eval))
    target = RandomForestClassifier(n_estimators=30, random_state=draw).fit(X_target, y_target)
    scores["target only"].append(target.score(X_eval, y_eval))
    for algorithm in ["ser", "strut", "mix"]:
        model = TransferForestClassifier(source, algorithm=algorithm, random_state=draw)
        scores[algorithm.upper()].append(model.fit(X_target, y_target).score(X_eval, y_eval))

for name, values in scores.items():
    print(f"{name:12s} {np.mean(values):.3f} +- {np.std(values):.3f}")

fig, ax = plt.subplots(figsize=(6, 3.2))
names = list(scores)
ax.bar(names, [np.mean(scores[n]) for n in names], yerr=[np.std(scores[n]) for n in names], capsize=3,
       color=["grey", "grey", "C0", "C1", "C2"])
ax.set_ylim(0.5, 1.0)
ax.set_ylabel("accuracy on the target domain")
fig.tight_layout()
plt.show()
