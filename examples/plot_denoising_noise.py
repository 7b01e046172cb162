"""
=======================================================
Denoising random forest: test error against input noise
=======================================================

The denoising random forest (Hibino et al., "Denoising random forests",
2017) is trained on clean rows but expects noisy test rows. A denoising
autoencoder over the trees' leaf-indicator vectors detects the nodes where a
noisy row probably took the wrong branch, and the prediction sums every path
through those nodes, weighted by ``2^-k`` (Section 3.4).

Test rows of the ``concrete`` dataset (bundled) are corrupted by the paper's
noise -- a fraction of every row's features replaced by their training mean
(:func:`forestzoo.denoising.corrupt`) -- and the mean absolute error of the
denoising forest is compared with that of a Random Forest of the same depth
(4, as in the paper).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split

from forestzoo import DenoisingRandomForestRegressor, RandomForestRegressor
from forestzoo.datasets import load_dataset
from forestzoo.denoising import corrupt

X, y = load_dataset("concrete")
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

drf = DenoisingRandomForestRegressor(n_estimators=12, max_depth=4, n_noisy_copies=3, random_state=0).fit(X_train, y_train)
rf = RandomForestRegressor(n_estimators=12, max_depth=4, random_state=0).fit(X_train, y_train)

fractions = [0.0, 0.125, 0.25, 0.375, 0.5]
mean = X_train.mean(axis=0)
errors = {"denoising forest": [], "Random Forest (depth 4)": []}
for fraction in fractions:
    X_noisy, _ = corrupt(X_test, fraction, kind="mean", mean=mean, random_state=0)
    for name, model in zip(errors, [drf, rf]):
        errors[name].append(np.mean(np.abs(model.predict(X_noisy) - y_test)))
    print(f"noise {fraction:.3f}: " + ", ".join(f"{k} MAE {v[-1]:.2f}" for k, v in errors.items()))

fig, ax = plt.subplots(figsize=(6, 3.5))
for name, values in errors.items():
    ax.plot(np.array(fractions) * 100, values, "o-", label=name)
ax.set_xlabel("features replaced per test row (%)")
ax.set_ylabel("mean absolute error")
ax.set_title("concrete compressive strength")
ax.legend()
fig.tight_layout()
plt.show()
