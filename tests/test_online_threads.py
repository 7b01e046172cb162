"""Prediction while another thread runs ``partial_fit`` on the same online forest."""

import threading

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1

from forestzoo import OnlineRandomForestClassifier, OnlineRandomForestRegressor


@pytest.mark.parametrize("cls", [OnlineRandomForestClassifier, OnlineRandomForestRegressor])
def test_predict_during_partial_fit_sees_the_model_before_or_after_a_batch(cls):
    classifier = cls is OnlineRandomForestClassifier
    if classifier:
        X, y = make_classification(n_samples=8000, n_features=8, n_informative=6, random_state=0)
    else:
        X, y = make_friedman1(n_samples=8000, n_features=8, random_state=0)
    X_test, batches = X[6000:], [(X[s:s + 300], y[s:s + 300]) for s in range(0, 6000, 300)]

    def make():
        return cls(n_estimators=8, n_tests=30, min_samples_split=5, drift=None, random_state=0)

    def answer(model):
        return model.predict_proba(X_test) if classifier else model.predict(X_test)

    # the model after each batch, learned alone (the model is deterministic for a fixed random_state)
    ref, expected = make(), []
    for xb, yb in batches:
        ref.partial_fit(xb, yb, **({"classes": [0, 1]} if classifier else {}))
        expected.append(answer(ref))
    model = make().partial_fit(*batches[0], **({"classes": [0, 1]} if classifier else {}))
    seen, done = [], threading.Event()

    def read():
        while not done.is_set():
            seen.append(answer(model))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for xb, yb in batches[1:]:
            model.partial_fit(xb, yb)
    finally:
        done.set()
        reader.join()
    assert len(seen) > 0
    torn = [k for k, out in enumerate(seen) if not any(np.array_equal(out, e) for e in expected)]
    assert not torn, f"{len(torn)} of {len(seen)} predictions match no model between two batches"
