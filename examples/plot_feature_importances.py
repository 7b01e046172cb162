"""
=======================================================
Feature importances on the Wisconsin breast cancer data
=======================================================

Impurity-based importances (mean decrease of the Gini impurity, Breiman 2001)
of a forestzoo Random Forest and of Extra Trees (Geurts, Ernst & Wehenkel
2006) on the diagnostic Wisconsin breast cancer data, which ships with
forestzoo. ``feature_importances_`` is computed from the fitted trees' arrays,
as in scikit-learn. The ten most important features of the Random Forest are
shown, with the Extra Trees' importance of the same features beside them.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer

from forestzoo import ExtraTreesClassifier, RandomForestClassifier
from forestzoo.datasets import get_dataset_info, load_dataset

X, y = load_dataset("breast_cancer_wisconsin_diag")
print(get_dataset_info("breast_cancer_wisconsin_diag").source, X.shape)
# the bundled file is scikit-learn's copy of the data, in the same column order
names = load_breast_cancer().feature_names

rf = RandomForestClassifier(n_estimators=100, random_state=0).fit(X, y)
et = ExtraTreesClassifier(n_estimators=100, random_state=0).fit(X, y)

top = np.argsort(rf.feature_importances_)[::-1][:10]
pos = np.arange(len(top))
fig, ax = plt.subplots(figsize=(7, 4))
ax.barh(pos - 0.2, rf.feature_importances_[top], height=0.4, label="Random Forest")
ax.barh(pos + 0.2, et.feature_importances_[top], height=0.4, label="Extra Trees")
ax.set_yticks(pos, names[top])
ax.invert_yaxis()
ax.set_xlabel("mean decrease in impurity")
ax.legend()
fig.tight_layout()
plt.show()
