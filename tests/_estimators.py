"""Helpers shared by the tests that run over every registered estimator
(test_io, test_determinism, test_faults): a fast instance and a small dataset."""

import numpy as np
from sklearn.base import is_classifier


def fast_instance(Estimator, only_known=False, **params):
    """``Estimator`` with few trees, seed 0, its ``_fast_check_params`` and ``params``.

    ``only_known=True`` drops the ``params`` the estimator does not take
    (for tests that pass, e.g., ``n_jobs`` to every estimator).
    """
    estimator = Estimator()
    names = estimator.get_params()
    fast = {k: v for k, v in {"n_estimators": 5, "random_state": 0}.items() if k in names}
    fast.update(getattr(Estimator, "_fast_check_params", {}))
    fast.update({k: v for k, v in params.items() if k in names} if only_known else params)
    return estimator.set_params(**fast)


def toy_data(estimator, n_samples, n_features=4, seed=0):
    """Gaussian rows; three classes shifted along feature 0, or a noisy linear target."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_samples, n_features))
    if is_classifier(estimator):
        y = np.arange(n_samples) % 3
        X[:, 0] += y
    else:
        y = X[:, 0] + 0.1 * rng.normal(size=n_samples)
    return X, y
