"""
===============================
Haar tree on small digit images
===============================

The Haar tree ("Stochastic induction of decision trees with application to
learning Haar tree") splits on Haar features -- differences of the mean
intensities of two to four rectangles at any position and scale -- computed on
demand from integral images. The bank of features is far too large for an
exact search; the stochastic (SDT) search makes it tractable.

On the 8 x 8 handwritten digits (bundled), a Haar tree and a CART tree on the
raw pixels, both of depth 8, are trained on 600 images. The figure shows the
test accuracy and a test image with the Haar tree's answer.
"""

import matplotlib.pyplot as plt
from sklearn.model_selection import train_test_split

from forestzoo import DecisionTreeClassifier, HaarTreeClassifier
from forestzoo.datasets import load_dataset

X, y = load_dataset("optdigits_test_sklearn")
X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=600, stratify=y, random_state=0)

haar = HaarTreeClassifier(image_shape=(8, 8), max_depth=8, max_scale=2, random_state=0).fit(X_train, y_train)
cart = DecisionTreeClassifier(max_depth=8, random_state=0).fit(X_train, y_train)
scores = {"Haar tree (SDT)": haar.score(X_test, y_test), "CART on pixels": cart.score(X_test, y_test)}
for name, score in scores.items():
    print(f"{name}: test accuracy {score:.3f}")
print(f"Haar tree: {haar.n_split_evaluations_:,d} (row, feature) evaluations, "
      f"{haar.tree_.node_count} nodes")

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(8, 3.2), gridspec_kw={"width_ratios": [1.6, 1]})
ax0.barh(list(scores), list(scores.values()), color=["C0", "C1"])
ax0.set_xlabel("test accuracy")
ax0.set_xlim(0, 1)
ax1.imshow(X_test[0].reshape(8, 8), cmap="gray_r")
ax1.set_title(f"a test image, Haar tree says {haar.predict(X_test[:1])[0]}", fontsize=9)
ax1.set_xticks([])
ax1.set_yticks([])
fig.tight_layout()
plt.show()
