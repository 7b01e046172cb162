"""Fingerprints of fitted models: the SHA-256 of the bytes a model answers with.

Shared by ``tests/test_fingerprints.py`` (the grower's paths, against
fingerprints stored in ``engine_fingerprints.json``) and
``benchmarks/model_hashes.py`` (every registered estimator, to compare two
checkouts).  A change of the engine that keeps every model must keep these
bytes for a fixed ``random_state``.
"""

import hashlib

import numpy as np


def digest(*arrays):
    """SHA-256 over the dtype, shape and bytes of each array, in order."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def outputs(model, X):
    """The arrays a fitted model answers with on ``X``: probabilities or predictions, and leaves.

    A multi-class :class:`~forestzoo.GradientBoostingClassifier` answers with
    its scores (``decision_function``) instead of its probabilities: those are
    a softmax with numpy's ``exp``, as scikit-learn's are, and numpy's ``exp``
    rounds some results differently on CPUs with AVX-512
    (docs/portability.md), while the scores, which hold the whole model, do
    not depend on the CPU.
    """
    from forestzoo import GradientBoostingClassifier

    if isinstance(model, GradientBoostingClassifier) and len(model.classes_) > 2:
        out = [model.decision_function(X)]
    else:
        out = [model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)]
    out.append(np.asarray(model.predict(X)))
    if hasattr(model, "apply"):
        try:
            out.append(np.asarray(model.apply(X)))
        except (AttributeError, NotImplementedError, TypeError):
            pass
    return out


def engine_cases():
    """``name -> (estimator, X, y, fit kwargs)`` over the grower's paths (trees, forests, boosting; no BLAS)."""
    from forestzoo import (
        AdaBoostClassifier, AdaBoostRegressor, DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier,
        ExtraTreesRegressor, GradientBoostingClassifier, GradientBoostingRegressor, RandomForestClassifier,
        RandomForestRegressor,
    )

    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 8))
    y_clf = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int) + (X[:, 3] > 1)
    y_reg = X[:, 0] + np.sin(2 * X[:, 1]) + 0.3 * rng.normal(size=600)
    X_nan = X.copy()
    X_nan[rng.uniform(size=X.shape) < 0.1] = np.nan
    sw = rng.uniform(0.2, 2.0, size=600)
    y_bin = (y_clf > 0).astype(int)
    cases = {}
    for splitter in ("hist", "exact", "random", "stochastic"):
        for criterion in ("gini", "entropy"):
            cases[f"DT-{splitter}-{criterion}"] = (
                DecisionTreeClassifier(splitter=splitter, criterion=criterion, random_state=0), X, y_clf, {})
        cases[f"DTR-{splitter}"] = (DecisionTreeRegressor(splitter=splitter, random_state=0), X, y_reg, {})
        cases[f"RF-{splitter}"] = (
            RandomForestClassifier(n_estimators=8, splitter=splitter, random_state=0), X, y_clf, {})
        cases[f"RFR-{splitter}"] = (
            RandomForestRegressor(n_estimators=8, splitter=splitter, random_state=0), X, y_reg, {})
        if splitter != "stochastic":
            cases[f"RF-{splitter}-nan"] = (
                RandomForestClassifier(n_estimators=5, splitter=splitter, random_state=1), X_nan, y_clf, {})
            cases[f"RFR-{splitter}-weights"] = (
                RandomForestRegressor(n_estimators=5, splitter=splitter, random_state=2), X, y_reg,
                {"sample_weight": sw})
            cases[f"DT-{splitter}-best-first"] = (
                DecisionTreeClassifier(splitter=splitter, max_leaf_nodes=17, random_state=0), X, y_clf, {})
            cases[f"DTR-{splitter}-monotonic"] = (
                DecisionTreeRegressor(splitter=splitter, monotonic_cst=[1, 0, 0, 0, 0, 0, 0, -1],
                                      random_state=0), X, y_reg, {})
            cases[f"RF-{splitter}-binary-monotonic"] = (
                RandomForestClassifier(n_estimators=5, splitter=splitter, monotonic_cst=[1] + [0] * 7,
                                       random_state=0), X, y_bin, {})
    cases["ET"] = (ExtraTreesClassifier(n_estimators=8, random_state=0), X, y_clf, {})
    cases["ETR"] = (ExtraTreesRegressor(n_estimators=8, random_state=0), X, y_reg, {})
    cases["RF-limits"] = (RandomForestClassifier(n_estimators=6, max_depth=4, min_samples_leaf=5,
                                                 min_impurity_decrease=1e-3, max_features=0.5, random_state=3),
                          X, y_clf, {})
    cases["RF-ccp"] = (RandomForestClassifier(n_estimators=4, ccp_alpha=0.01, random_state=0), X, y_clf, {})
    cases["GBT"] = (GradientBoostingClassifier(n_estimators=20, random_state=0), X, y_clf, {})
    cases["GBR"] = (GradientBoostingRegressor(n_estimators=20, random_state=0), X, y_reg, {})
    # SAMME's and AdaBoost.R2's weights and estimator weights take exp and log from the C library
    cases["ADA"] = (AdaBoostClassifier(n_estimators=15, random_state=0), X, y_clf, {})
    cases["ADAR"] = (AdaBoostRegressor(n_estimators=15, random_state=0), X, y_reg, {})
    return cases
