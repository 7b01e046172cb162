"""Determinism across n_jobs and joblib backends, warm start, OOB, importances, missing values.

Results are identical for any ``n_jobs`` with the same ``random_state`` (README.md, "Guarantees"),
and the same call works under a Dask joblib backend.
"""

import joblib
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import datasets
from sklearn.base import is_classifier
from sklearn.model_selection import train_test_split

import forestzoo

FOREST_NAMES = [
    "RandomForestClassifier",
    "RandomForestRegressor",
    "ExtraTreesClassifier",
    "ExtraTreesRegressor",
]
parametrize_forests = pytest.mark.parametrize("name", FOREST_NAMES)


def _data(name, n_samples=300, n_features=8, seed=0):
    if name.endswith("Classifier"):
        return datasets.make_classification(n_samples=n_samples, n_features=n_features,
                                            n_informative=4, n_classes=3, random_state=seed)
    return datasets.make_regression(n_samples=n_samples, n_features=n_features,
                                    n_informative=4, noise=5.0, random_state=seed)


def _forest(name, **params):
    return getattr(forestzoo, name)(**{"n_estimators": 10, "random_state": 0, **params})


def _outputs(model, X):
    out = {"predict": model.predict(X), "apply": model.apply(X)}
    if is_classifier(model):
        out["predict_proba"] = model.predict_proba(X)
    return out


def assert_same_outputs(a, b, X):
    out_a, out_b = _outputs(a, X), _outputs(b, X)
    for key in out_a:
        assert_array_equal(out_a[key], out_b[key], err_msg=key)


def assert_same_trees(a, b):
    assert len(a.estimators_) == len(b.estimators_)
    for i, (tree_a, tree_b) in enumerate(zip(a.estimators_, b.estimators_)):
        nodes_a, nodes_b = tree_a.tree_.nodes, tree_b.tree_.nodes
        assert nodes_a.dtype == nodes_b.dtype
        assert nodes_a.shape == nodes_b.shape, f"tree {i}: node counts differ"
        for field in nodes_a.dtype.names:  # per field: NaN == NaN, padding bytes ignored
            assert_array_equal(nodes_a[field], nodes_b[field], err_msg=f"tree {i}, {field}")
        assert_array_equal(tree_a.tree_.values, tree_b.tree_.values, err_msg=f"tree {i}")


def _trees_differ(a, b):
    for tree_a, tree_b in zip(a.estimators_, b.estimators_):
        nodes_a, nodes_b = tree_a.tree_.nodes, tree_b.tree_.nodes
        if nodes_a.shape != nodes_b.shape:
            return True
        for field in nodes_a.dtype.names:
            if not np.array_equal(nodes_a[field], nodes_b[field], equal_nan=True):
                return True
    return False


# ---------------------------------------------------------------------------------------------
# determinism


@parametrize_forests
def test_n_jobs_does_not_change_the_model(name):
    X, y = _data(name)
    serial = _forest(name, n_jobs=1).fit(X, y)
    threaded = _forest(name, n_jobs=2).fit(X, y)
    assert_same_trees(serial, threaded)
    assert_same_outputs(serial, threaded, X)
    # Prediction itself may run on threads too.
    threaded.set_params(n_jobs=1)
    assert_same_outputs(serial, threaded, X)


@parametrize_forests
def test_refit_with_same_seed_is_identical(name):
    X, y = _data(name)
    model = _forest(name, n_jobs=2).fit(X, y)
    first = _outputs(model, X)
    first_trees = [(t.tree_.nodes.copy(), t.tree_.values.copy()) for t in model.estimators_]
    model.fit(X, y)
    for key, value in _outputs(model, X).items():
        assert_array_equal(value, first[key], err_msg=key)
    again = _forest(name, n_jobs=2).fit(X, y)
    assert_same_trees(model, again)
    for (nodes, values), tree in zip(first_trees, model.estimators_):
        for field in nodes.dtype.names:
            assert_array_equal(tree.tree_.nodes[field], nodes[field])
        assert_array_equal(tree.tree_.values, values)


@parametrize_forests
def test_different_seeds_give_different_forests(name):
    X, y = _data(name)
    X_new, _ = _data(name, seed=1)  # unseen points: fully grown trees all agree on X itself
    a = _forest(name, random_state=0).fit(X, y)
    b = _forest(name, random_state=1).fit(X, y)
    assert _trees_differ(a, b)
    if is_classifier(a):
        assert not np.array_equal(a.predict_proba(X_new), b.predict_proba(X_new))
    else:
        assert not np.array_equal(a.predict(X_new), b.predict(X_new))


@parametrize_forests
def test_random_state_instance_is_not_reused_across_fits(name):
    # sklearn semantics: a RandomState instance advances, so two fits differ.
    X, y = _data(name)
    model = _forest(name, random_state=np.random.RandomState(0))
    first = model.fit(X, y).predict(X)
    first_trees = [t.tree_.nodes.copy() for t in model.estimators_]
    model.fit(X, y)
    changed = any(
        t.tree_.nodes.shape != nodes.shape
        or not all(np.array_equal(t.tree_.nodes[f], nodes[f], equal_nan=True)
                   for f in nodes.dtype.names)
        for t, nodes in zip(model.estimators_, first_trees)
    )
    assert changed or not np.array_equal(first, model.predict(X))


@parametrize_forests
def test_dask_backend_matches_serial_fit(name):
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    X, y = _data(name)
    serial = _forest(name, n_jobs=1).fit(X, y)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as ts:
            on_dask = _forest(name, n_jobs=-1).fit(X, y)
            dask_outputs = _outputs(on_dask, X)
    assert len(ts.data) > 0, "the fit did not run on the Dask cluster"
    for key, value in _outputs(serial, X).items():
        assert_array_equal(dask_outputs[key], value, err_msg=key)
    assert_same_trees(serial, on_dask)


# ---------------------------------------------------------------------------------------------
# warm start


@parametrize_forests
def test_warm_start_equals_fitting_all_at_once(name):
    X, y = _data(name)
    at_once = _forest(name, n_estimators=12).fit(X, y)
    grown = _forest(name, n_estimators=5, warm_start=True).fit(X, y)
    grown.set_params(n_estimators=12).fit(X, y)
    assert len(grown.estimators_) == 12
    assert_same_trees(at_once, grown)
    assert_same_outputs(at_once, grown, X)


@parametrize_forests
def test_warm_start_without_new_trees_changes_nothing(name):
    X, y = _data(name)
    model = _forest(name, n_estimators=5, warm_start=True).fit(X, y)
    before = _outputs(model, X)
    with pytest.warns(UserWarning):
        model.fit(X, y)
    assert len(model.estimators_) == 5
    for key, value in _outputs(model, X).items():
        assert_array_equal(value, before[key], err_msg=key)


# ---------------------------------------------------------------------------------------------
# out-of-bag estimates


@pytest.mark.parametrize("name", ["RandomForestClassifier", "ExtraTreesClassifier"])
def test_oob_score_estimates_held_out_accuracy(name):
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                        random_state=0)
    model = _forest(name, n_estimators=100, oob_score=True, bootstrap=True, n_jobs=2)
    model.fit(X_train, y_train)
    held_out = model.score(X_test, y_test)
    assert abs(model.oob_score_ - held_out) <= 0.05, (model.oob_score_, held_out)

    oob = model.oob_decision_function_
    assert oob.shape == (len(y_train), 2)
    assert np.all(np.isfinite(oob)), "with 100 trees every sample is out of bag at least once"
    assert_allclose(oob.sum(axis=1), 1.0)
    assert model.oob_score_ == pytest.approx(np.mean(model.classes_[oob.argmax(axis=1)] == y_train))


@pytest.mark.parametrize("name", ["RandomForestRegressor", "ExtraTreesRegressor"])
def test_oob_prediction_estimates_held_out_r2(name):
    X, y = datasets.make_regression(n_samples=1000, n_features=10, noise=10, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    model = _forest(name, n_estimators=100, oob_score=True, bootstrap=True, n_jobs=2)
    model.fit(X_train, y_train)
    held_out = model.score(X_test, y_test)
    assert abs(model.oob_score_ - held_out) <= 0.05, (model.oob_score_, held_out)
    assert model.oob_prediction_.shape == (len(y_train),)
    residual = np.sum((y_train - model.oob_prediction_) ** 2)
    total = np.sum((y_train - y_train.mean()) ** 2)
    assert model.oob_score_ == pytest.approx(1 - residual / total)


# ---------------------------------------------------------------------------------------------
# feature importances


@pytest.mark.parametrize("name", FOREST_NAMES + ["DecisionTreeClassifier",
                                                 "DecisionTreeRegressor"])
def test_feature_importances_are_a_distribution_favouring_informative_features(name):
    # shuffle=False puts the informative features first; the rest are pure noise.
    n_informative = 3
    if name.endswith("Classifier"):
        X, y = datasets.make_classification(n_samples=500, n_features=10,
                                            n_informative=n_informative, n_redundant=0,
                                            shuffle=False, random_state=0)
    else:
        X, y = datasets.make_regression(n_samples=500, n_features=10,
                                        n_informative=n_informative, shuffle=False,
                                        noise=1.0, random_state=0)
    params = {"random_state": 0}
    if "Tree" not in name or "Trees" in name:
        params["n_estimators"] = 50
    model = getattr(forestzoo, name)(**params).fit(X, y)
    importances = model.feature_importances_
    assert importances.shape == (X.shape[1],)
    assert np.all(importances >= 0)
    assert importances.sum() == pytest.approx(1.0)
    assert importances[:n_informative].min() > importances[n_informative:].max()


# ---------------------------------------------------------------------------------------------
# missing values


def _missing_means_class_one(n_samples=600, seed=0):
    """Feature 0 is NaN exactly for class 1; every observed value is noise."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_samples, 5))
    y = rng.randint(0, 2, size=n_samples)
    X[y == 1, 0] = np.nan
    return X, y


@pytest.mark.parametrize("name, params", [
    ("DecisionTreeClassifier", {"splitter": "hist"}),
    ("DecisionTreeClassifier", {"splitter": "exact"}),
    ("DecisionTreeClassifier", {"splitter": "random"}),
    ("RandomForestClassifier", {"splitter": "hist"}),
    ("RandomForestClassifier", {"splitter": "exact"}),
    ("ExtraTreesClassifier", {}),
], ids=lambda p: p if isinstance(p, str) else ",".join(f"{k}={v}" for k, v in p.items()))
def test_missingness_is_learned_as_a_signal(name, params):
    X, y = _missing_means_class_one()
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                        random_state=0)
    if name != "DecisionTreeClassifier":
        params = {**params, "n_estimators": 20}
    model = getattr(forestzoo, name)(random_state=0, **params).fit(X_train, y_train)
    assert model.score(X_test, y_test) > 0.95

    # Rows with NaN predict (as class 1), also when every feature is missing.
    nan_rows = np.full((3, X.shape[1]), np.nan)
    nan_rows[0, 1:] = 0.0
    proba = model.predict_proba(nan_rows)
    assert np.all(np.isfinite(proba))
    assert_array_equal(model.predict(nan_rows[:1]), [1])


@pytest.mark.parametrize("name", ["RandomForestRegressor", "ExtraTreesRegressor",
                                  "DecisionTreeRegressor"])
def test_missingness_is_learned_in_regression(name):
    X, y_class = _missing_means_class_one()
    y = 10.0 * y_class
    params = {"random_state": 0}
    if "Trees" in name or "Forest" in name:
        params["n_estimators"] = 20
    model = getattr(forestzoo, name)(**params).fit(X, y)
    row = np.zeros((1, X.shape[1]))
    assert model.predict(row)[0] == pytest.approx(0.0, abs=1.0)
    row[0, 0] = np.nan
    assert model.predict(row)[0] == pytest.approx(10.0, abs=1.0)


@pytest.mark.parametrize("name", FOREST_NAMES + ["DecisionTreeClassifier",
                                                 "DecisionTreeRegressor"])
def test_nan_at_predict_in_a_feature_never_missing_in_training(name):
    X, y = _data(name)
    params = {"random_state": 0}
    if "Trees" in name or "Forest" in name:
        params["n_estimators"] = 10
    model = getattr(forestzoo, name)(**params).fit(X, y)
    X_nan = X[:20].copy()
    X_nan[:, ::2] = np.nan
    prediction = model.predict(X_nan)
    assert prediction.shape == (20,)
    if is_classifier(model):
        assert set(prediction) <= set(model.classes_)
    else:
        assert np.all(np.isfinite(prediction))


# ---------------------------------------------------------------------------------------------
# apply / decision_path agree


@parametrize_forests
def test_apply_and_decision_path_agree(name):
    X, y = _data(name, n_samples=100)
    model = _forest(name, n_estimators=4).fit(X, y)
    leaves = model.apply(X)
    assert leaves.shape == (len(X), 4)
    indicator, n_nodes_ptr = model.decision_path(X)
    assert indicator.format == "csr"
    assert n_nodes_ptr.shape == (5,)
    assert indicator.shape == (len(X), n_nodes_ptr[-1])
    for t, tree in enumerate(model.estimators_):
        assert n_nodes_ptr[t + 1] - n_nodes_ptr[t] == len(tree.tree_.nodes)
        block = indicator[:, n_nodes_ptr[t]:n_nodes_ptr[t + 1]].toarray()
        # every path starts at the root and ends at the leaf apply() names
        assert np.all(block[:, 0] == 1)
        assert np.all(block[np.arange(len(X)), leaves[:, t]] == 1)
        assert_array_equal(tree.decision_path(X).toarray(), block)
        assert_array_equal(tree.apply(X), leaves[:, t])


def test_bootstrap_of_only_zero_weight_rows_falls_back_to_the_weighted_rows():
    X, y = datasets.make_classification(n_samples=50, n_features=4, random_state=0)
    sample_weight = np.zeros(50)
    sample_weight[:2] = 1.0  # a bootstrap of 50 draws misses both rows with probability ~13 %
    forest = forestzoo.RandomForestClassifier(n_estimators=30, random_state=0)
    forest.fit(X, y, sample_weight=sample_weight)
    assert all(e.tree_.nodes["weighted_n_samples"][0] > 0 for e in forest.estimators_)


def test_thread_batches_keep_order_raise_and_run_inline_with_one_job():
    import threading

    import pytest

    from forestzoo._threads import ThreadBatches

    with ThreadBatches(2) as threads:
        assert threads.map(lambda a, b: a * b, range(5), range(5)) == [0, 1, 4, 9, 16]
        names = set(threads.map(lambda _: threading.current_thread().name, range(8)))
        assert all(n.startswith("forestzoo") for n in names)

        def boom(i):
            if i == 3:
                raise ValueError("call 3 failed")
            return i

        with pytest.raises(ValueError, match="call 3 failed"):
            threads.map(boom, range(6))
    with ThreadBatches(1) as threads:
        assert threads.map(lambda _: threading.current_thread().name, range(3)) == [threading.current_thread().name] * 3


def test_run_blocks_covers_every_item_once_and_raises_a_block_error():
    from forestzoo._threads import run_blocks

    seen = []

    def kernel(out, lo, hi):
        seen.append((lo, hi))
        out[lo:hi] += 1

    out = np.zeros(11)
    run_blocks(kernel, 11, 4, out)
    assert_array_equal(out, np.ones(11))
    assert sorted(seen)[0][0] == 0 and sorted(seen)[-1][1] == 11

    def failing(lo, hi):
        if lo > 0:
            raise RuntimeError("block failed")

    with pytest.raises(RuntimeError, match="block failed"):
        run_blocks(failing, 10, 2)


def test_gradient_boosting_threads_survive_a_fork():
    # the process-wide pool of forestzoo._threads is created by the first threaded fit; a child
    # forked afterwards has none of its threads and must build its own instead of waiting forever
    import multiprocessing
    import os

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork start method on this platform")
    X, y = datasets.make_classification(n_samples=6000, n_features=40, random_state=0)
    params = dict(n_estimators=3, max_depth=2, n_jobs=2, random_state=0)
    expected = forestzoo.GradientBoostingClassifier(**params).fit(X, y).predict_proba(X)
    queue = multiprocessing.get_context("fork").SimpleQueue()

    def child():
        proba = forestzoo.GradientBoostingClassifier(**params).fit(X, y).predict_proba(X)
        queue.put(bool(np.array_equal(proba, expected)))
        os._exit(0)

    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    process.join(120)
    assert process.exitcode == 0, "the forked child did not finish its fit"
    assert queue.get() is True


def test_atomics_hand_work_between_compiled_threads():
    import threading

    from forestzoo._atomics import atomic_cas, atomic_load, atomic_store
    from forestzoo._jit import njit

    @njit
    def take_turns(turn, log, n, me):
        # thread `me` waits for its turn (turn % 2 == me), writes the turn number, passes it on
        for _ in range(n):
            t = atomic_load(turn, 0)
            while t % 2 != me:
                t = atomic_load(turn, 0)
            log[t] = me
            atomic_store(turn, 0, t + 1)

    @njit
    def cas(a, expected, new):
        return atomic_cas(a, 0, expected, new)

    a = np.array([5], np.int64)
    assert not cas(a, 4, 9) and a[0] == 5
    assert cas(a, 5, 9) and a[0] == 9
    turn, log = np.zeros(1, np.int64), np.full(2000, -1, np.int64)
    threads = [threading.Thread(target=take_turns, args=(turn, log, 1000, me), daemon=True) for me in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert turn[0] == 2000
    assert_array_equal(log, np.arange(2000) % 2)


# -- one BLAS thread per worker thread (forestzoo._parallel.single_threaded_blas) --------------------------------
def _blas_threads():
    from threadpoolctl import threadpool_info

    return {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}


@pytest.fixture
def two_blas_threads():
    """The user's BLAS setting for the test: 2 threads (so that a limit to 1 is visible)."""
    from threadpoolctl import threadpool_limits

    if not _blas_threads():
        pytest.skip("no BLAS library that threadpoolctl can control")
    with threadpool_limits(limits=2, user_api="blas"):
        yield


def test_single_threaded_blas_limits_within_and_restores(two_blas_threads):
    from forestzoo._parallel import single_threaded_blas

    with single_threaded_blas():
        assert _blas_threads() == {1}
        with single_threaded_blas():  # nested: still limited, and not restored by the inner exit
            assert _blas_threads() == {1}
        assert _blas_threads() == {1}
    assert _blas_threads() == {2}


def test_overlapping_fits_in_two_threads_restore_the_user_blas_setting(monkeypatch):
    # threadpoolctl restores what it found on entry: A enters (finds 2), B enters (finds 1), A leaves
    # (would restore 2 under B), B leaves (would restore 1 for good); the shared guard limits once, first
    # in, and restores once, last out.  A fake controller records the calls (OpenBLAS's own answer to a
    # limit set from a second thread is not what is tested here).
    import threading

    from forestzoo import _parallel

    calls = []

    class Limiter:
        def restore_original_limits(self):
            calls.append("restore")

    class Controller:
        def limit(self, limits, user_api):
            calls.append(("limit", limits, user_api))
            return Limiter()

    monkeypatch.setattr(_parallel, "_controller", Controller)
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def fit_a():
        with _parallel.single_threaded_blas():
            a_in.set()
            b_in.wait(10)
        a_out.set()

    thread = threading.Thread(target=fit_a)
    thread.start()
    assert a_in.wait(10)
    with _parallel.single_threaded_blas():
        b_in.set()
        assert a_out.wait(10)
        assert calls == [("limit", 1, "blas")]  # A has left; B's limit is still in force
    thread.join(10)
    assert calls == [("limit", 1, "blas"), "restore"]


@pytest.mark.parametrize("rotation", [False, True])
def test_oblique_trees_grow_with_one_blas_thread_each(two_blas_threads, monkeypatch, rotation):
    # rotations and large MPSVM / ridge nodes call LAPACK at every node; with n_jobs tree threads, OpenBLAS's threads
    # oversubscribed the cores (an MPRoF-T fit on ozone_8hr: 41 s with n_jobs=2, 24 s with n_jobs=1, 13 s limited)
    from forestzoo.ensemble import _rotation
    from forestzoo.oblique import MPSVMForestClassifier

    seen = []
    grow = _rotation.grow

    def recording_grow(*args, **kwargs):
        seen.append(_blas_threads())
        return grow(*args, **kwargs)

    monkeypatch.setattr(_rotation, "grow", recording_grow)
    X, y = datasets.make_classification(n_samples=120, n_features=6, n_informative=4, n_classes=3, random_state=0)
    for n_jobs in (1, 2):  # with one job as well: a tree's sums must not depend on n_jobs
        seen.clear()
        MPSVMForestClassifier(n_estimators=4, rotation=rotation, bootstrap=not rotation, n_jobs=n_jobs,
                              random_state=0).fit(X, y)
        assert seen == [{1}] * 4
        assert _blas_threads() == {2}
