"""
============================================
Competence-area forest: selective prediction
============================================

Donskoy ("On the smart trees and competence areas based decision forest",
2016) grows trees whose branches stop, by a minimum-description-length rule,
where they would learn too little from too few rows; such a branch ends in an
*incompetence* leaf and the next tree is grown on the rows that no tree is
competent for. With ``reject="label"`` the forest refuses to answer outside
every tree's competence area: it is a selective classifier.

On the Pima diabetes data (bundled), :meth:`CompetenceForestClassifier.selective_report`
gives the coverage and the accuracy on the covered rows. The risk-coverage
curve (:func:`forestzoo.competence.risk_coverage_curve`) of the forest's vote
confidence is drawn beside that of a Random Forest's highest class
probability: the accuracy obtained when only the most confident rows are
answered. The dot is the forest's own rule: answer inside the competence
areas, reject outside.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split

from forestzoo import CompetenceForestClassifier, RandomForestClassifier
from forestzoo.competence import risk_coverage_curve
from forestzoo.datasets import load_dataset

X, y = load_dataset("pima_diabetes")
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, stratify=y, random_state=0)

caf = CompetenceForestClassifier(gamma=1.0, random_state=0).fit(X_train, y_train)
report = caf.selective_report(X_test, y_test)
print(f"{caf.n_estimators_} smart trees; selective report on the test rows: {report}")

rf = RandomForestClassifier(n_estimators=100, random_state=0).fit(X_train, y_train)

fig, ax = plt.subplots(figsize=(6, 3.5))
for name, model in [("competence forest", caf), ("Random Forest", rf)]:
    proba = model.predict_proba(X_test)
    correct = model.classes_[np.argmax(proba, axis=1)] == y_test
    coverage, accuracy = risk_coverage_curve(proba.max(axis=1), correct)
    ax.plot(coverage, accuracy, label=name)
ax.plot(report["coverage"], report["selective_accuracy"], "o", color="C0",
        label="competence areas only (reject rule)")
ax.set_xlabel("coverage (fraction of test rows answered)")
ax.set_ylabel("accuracy on the answered rows")
ax.legend()
fig.tight_layout()
plt.show()
