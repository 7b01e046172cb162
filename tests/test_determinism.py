"""Determinism for every estimator: same random_state, same model -- across n_jobs, joblib backends
(threads and Dask), refits and save/load.

Estimators come from ``forestzoo.all_estimators()``; those with a ``random_state`` parameter are
checked for refits and save/load, those with ``n_jobs`` too for n_jobs in {1, 2} and for the
threading against the Dask backend (a ``dask.distributed.LocalCluster`` on loopback: in-process
workers for every estimator, worker processes for RandomForestClassifier).  Outputs are compared
bit for bit on the training rows and on unseen rows.
"""

import logging
import threading

import joblib
import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone

import forestzoo
from _estimators import fast_instance, toy_data
from forestzoo.io import load, save

ESTIMATORS = forestzoo.all_estimators()
SEEDED = [(n, c) for n, c in ESTIMATORS if "random_state" in c().get_params()]
THREADED = [(n, c) for n, c in SEEDED if "n_jobs" in c().get_params()]
OUTPUT_METHODS = ("predict", "predict_proba", "decision_function", "apply", "transform")


def _ids(pairs):
    return [name for name, _ in pairs]


def _params(pairs):
    return [cls for _, cls in pairs]


def data(estimator, n_samples=80, n_features=5, seed=0):
    """The shared toy data, and rows to evaluate on: the training rows and 40 wider unseen ones."""
    X, y = toy_data(estimator, n_samples, n_features, seed)
    X_new = np.random.RandomState(seed + 1).normal(size=(40, n_features)) * 1.5
    return X, y, np.vstack([X, X_new])


def outputs(model, X):
    out = {}
    for method in OUTPUT_METHODS:
        if hasattr(model, method):
            value = getattr(model, method)(X)
            out[method] = value.toarray() if hasattr(value, "toarray") else np.asarray(value)
    return out


def assert_same_outputs(a, b, X):
    out_a, out_b = outputs(a, X), outputs(b, X)
    assert out_a.keys() == out_b.keys()
    for method in out_a:
        assert_array_equal(out_a[method], out_b[method], err_msg=method)


# ---------------------------------------------------------------------------------------------
# every seeded estimator


@pytest.mark.parametrize("Estimator", _params(SEEDED), ids=_ids(SEEDED))
def test_refit_and_fresh_instance_give_the_same_model(Estimator):
    est = fast_instance(Estimator)
    X, y, X_eval = data(est)
    first = outputs(est.fit(X, y), X_eval)
    est.fit(X, y)  # refit of the same instance
    for method, value in outputs(est, X_eval).items():
        assert_array_equal(value, first[method], err_msg=method)
    assert_same_outputs(est, clone(est).fit(X, y), X_eval)


@pytest.mark.parametrize("Estimator", _params(SEEDED), ids=_ids(SEEDED))
def test_save_load_keeps_predictions_and_the_seed(Estimator, tmp_path):
    est = fast_instance(Estimator)
    X, y, X_eval = data(est)
    save(est, tmp_path / "unfitted.fzm")
    save(est.fit(X, y), tmp_path / "fitted.fzm")
    assert_same_outputs(load(tmp_path / "fitted.fzm"), est, X_eval)
    # an unfitted estimator saved and loaded fits the same model
    assert_same_outputs(load(tmp_path / "unfitted.fzm").fit(X, y), est, X_eval)


# ---------------------------------------------------------------------------------------------
# estimators with n_jobs


@pytest.mark.parametrize("Estimator", _params(THREADED), ids=_ids(THREADED))
def test_n_jobs_does_not_change_the_model(Estimator):
    est = fast_instance(Estimator, n_jobs=1)
    X, y, X_eval = data(est)
    serial = est.fit(X, y)
    threaded = fast_instance(Estimator, n_jobs=2).fit(X, y)
    assert_same_outputs(serial, threaded, X_eval)
    threaded.set_params(n_jobs=1)  # prediction on one thread too
    assert_same_outputs(serial, threaded, X_eval)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


# Estimators whose fit cannot run on the Dask backend, each reported to the family's owner:
# {estimator name: reason}.  The test is an xfail for them only while the failure is still seen.
KNOWN_DASK_FAILURES = {
    "GradientBoostingClassifier": (
        "boosting: _boost's fit_column closure captures an object holding a threading.local, which "
        "cannot be pickled for Dask; joblib's Dask backend then never returns (the fit hangs). Fix: "
        "Parallel(..., require='sharedmem') in forestzoo/boosting/_gradient.py, or capture picklable state only"
    ),
}
DASK_TIMEOUT = 120  # seconds; a fit of these sizes takes well under one


def _fit_in_thread(fit, timeout):
    """Run ``fit()`` on a daemon thread; ``(finished, result or exception)``.  A hang cannot block the suite."""
    box = {}

    def target():
        try:
            box["result"] = fit()
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return False, None
    if "error" in box:
        raise box["error"]
    return True, box["result"]


@pytest.mark.parametrize("Estimator", _params(THREADED), ids=_ids(THREADED))
def test_dask_backend_gives_the_threaded_model(Estimator, dask_client):
    est = fast_instance(Estimator, n_jobs=2)
    X, y, X_eval = data(est)
    threaded = est.fit(X, y)

    def fit_on_dask():
        with dask_client.as_current(), joblib.parallel_config(backend="dask"):
            return fast_instance(Estimator, n_jobs=2).fit(X, y)

    known = KNOWN_DASK_FAILURES.get(Estimator.__name__)
    finished, on_dask = _fit_in_thread(fit_on_dask, 20 if known else DASK_TIMEOUT)
    if not finished:
        if known:
            pytest.xfail(known)
        pytest.fail(f"fit on the Dask backend did not return within {DASK_TIMEOUT} s")
    assert_same_outputs(threaded, on_dask, X_eval)


def test_dask_worker_processes_give_the_threaded_forest():
    """Trees shipped to separate worker processes (pickled closures, arrays over TCP) come back the same."""
    distributed = pytest.importorskip("distributed")
    X, y, X_eval = data(forestzoo.RandomForestClassifier())
    threaded = forestzoo.RandomForestClassifier(n_estimators=8, n_jobs=2, random_state=3).fit(X, y)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        with client.as_current(), joblib.parallel_config(backend="dask"):
            on_dask = forestzoo.RandomForestClassifier(n_estimators=8, n_jobs=2, random_state=3).fit(X, y)
    assert_same_outputs(threaded, on_dask, X_eval)
