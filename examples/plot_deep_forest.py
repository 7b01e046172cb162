"""
==============================================
Deep forest: cascade forest and gcForest vs RF
==============================================

gcForest (Zhou & Feng, "Deep forest: towards an alternative to deep neural
networks", 2017) stacks levels of forests: each level reads the original
features and the class vectors of the level before, and levels are added
while the out-of-fold accuracy improves. Multi-grained scanning first slides
windows over an image and turns every window into class vectors of two
forests.

On the 8 x 8 handwritten digits (bundled), a Random Forest, a cascade forest
on the raw pixels and a gcForest (scanning plus cascade) are trained on 600
images with small forests, and the test accuracy and the number of cascade
levels kept are shown.
"""

import matplotlib.pyplot as plt
from sklearn.model_selection import train_test_split

from forestzoo import CascadeForestClassifier, GCForestClassifier, RandomForestClassifier
from forestzoo.datasets import load_dataset

X, y = load_dataset("optdigits_test_sklearn")
X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=600, test_size=600, stratify=y,
                                                    random_state=0)

models = {
    "Random Forest": RandomForestClassifier(n_estimators=100, random_state=0),
    "cascade forest": CascadeForestClassifier(n_estimators=25, max_levels=4, random_state=0),
    "gcForest": GCForestClassifier(window_sizes=(0.25,), image_shape=(8, 8), scan_n_estimators=20,
                                   n_estimators=25, max_levels=3, random_state=0),
}
scores = {}
for name, model in models.items():
    model.fit(X_train, y_train)
    scores[name] = model.score(X_test, y_test)
    levels = getattr(model, "n_levels_", None)
    print(f"{name}: test accuracy {scores[name]:.3f}" + (f", {levels} cascade level(s)" if levels else ""))

fig, ax = plt.subplots(figsize=(6, 3))
ax.barh(list(scores), list(scores.values()), color=["C0", "C1", "C2"])
ax.set_xlim(min(scores.values()) - 0.05, 1.0)
ax.set_xlabel("test accuracy (600 digits)")
ax.invert_yaxis()
fig.tight_layout()
plt.show()
