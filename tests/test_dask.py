"""forestzoo.dask: data-local forests on a LocalCluster on loopback (tiny data, few trees)."""

import gc
import io
import logging
import os
import pickle
import signal
import threading
import time

import numpy as np
import pytest
from sklearn.base import is_classifier

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
from distributed import futures_of  # noqa: E402

from forestzoo import (  # noqa: E402
    ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor,
)
from forestzoo.dask import (  # noqa: E402
    DaskExtraTreesClassifier, DaskExtraTreesRegressor, DaskRandomForestClassifier, DaskRandomForestRegressor,
)
from forestzoo.io import load, save  # noqa: E402

LOOPBACK = dict(host="127.0.0.1", protocol="tcp", dashboard_address=":0", silence_logs=logging.ERROR)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, **LOOPBACK) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster, set_as_default=False) as client:
        yield client


def _workers(client, n=2):
    """The addresses of the cluster's ``n`` workers, asked of the scheduler (``scheduler_info()`` may answer from a
    cache that lists none)."""
    client.wait_for_workers(n, timeout=60)
    return sorted(client.nthreads())


def _data(n=400, d=5, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    if n_classes == 3:
        y[X[:, 2] > 1] = 2
    return X, y


def _placed(client, arr, workers_of_blocks):
    """``arr`` split into row blocks, block ``i`` computed and kept on ``workers_of_blocks[i]``."""
    n = len(workers_of_blocks)
    bounds = np.linspace(0, arr.shape[0], n + 1).astype(int)
    futures = [client.scatter(arr[a:b], workers=[w]) for a, b, w in zip(bounds[:-1], bounds[1:], workers_of_blocks)]
    blocks = [da.from_delayed(f, shape=(b - a,) + arr.shape[1:], dtype=arr.dtype)
              for f, a, b in zip(futures, bounds[:-1], bounds[1:])]
    return da.concatenate(blocks)


def test_small_nodes_are_bounded_by_rows_and_by_bytes_of_codes():
    """A node is grown on one worker below 100000 distinct rows, or below the rows whose uint8 codes fill
    8 MiB on narrow data."""
    import forestzoo._dask_hist as dask_hist

    assert dask_hist.local_rows(20) == (8 << 20) // 20 == 419430
    assert dask_hist.local_rows(1000) == 100000  # wide rows: the row bound
    assert dask_hist.local_rows(0) == 8 << 20


@pytest.mark.parametrize("dask_cls, local_cls", [
    (DaskRandomForestClassifier, RandomForestClassifier), (DaskExtraTreesClassifier, ExtraTreesClassifier),
    (DaskRandomForestRegressor, RandomForestRegressor), (DaskExtraTreesRegressor, ExtraTreesRegressor),
])
def test_one_partition_is_the_in_memory_forest(client, dask_cls, local_cls):
    X, y = _data()
    X[::17, 1] = np.nan
    target = y if is_classifier(local_cls()) else X[:, 0] * 2.0 + y
    params = dict(n_estimators=4, max_depth=6, random_state=3)
    dask_est = dask_cls(**params, client=client).fit(da.from_array(X, chunks=X.shape), da.from_array(target))
    local = local_cls(**params).fit(X, target)
    method = "predict_proba" if hasattr(local, "predict_proba") else "predict"
    np.testing.assert_array_equal(getattr(dask_est, method)(X), getattr(local, method)(X))
    assert type(dask_est.to_local()) is local_cls


def test_one_worker_several_partitions_is_the_in_memory_forest(client):
    X, y = _data()
    worker = _workers(client)[0]
    dask_est = DaskRandomForestClassifier(n_estimators=3, random_state=1, client=client)
    dask_est.fit(_placed(client, X, [worker] * 3), _placed(client, y, [worker] * 3))
    local = RandomForestClassifier(n_estimators=3, random_state=1).fit(X, y)
    np.testing.assert_array_equal(dask_est.predict_proba(X), local.predict_proba(X))


def test_same_placement_same_forest_and_trees_split_by_rows(client):
    X, y = _data(n=600)
    a, b = _workers(client)
    Xd, yd = _placed(client, X, [a, b, b]), _placed(client, y, [a, b, b])
    first = DaskRandomForestClassifier(n_estimators=6, random_state=0, client=client).fit(Xd, yd)
    second = DaskRandomForestClassifier(n_estimators=6, random_state=0, client=client).fit(Xd, yd)
    np.testing.assert_array_equal(first.predict_proba(X), second.predict_proba(X))
    assert len(first.estimators_) == 6
    # worker a holds 200 rows, b 400: 2 and 4 trees, each tree's bins and bootstrap from its own worker's rows
    grown_on = [e._bootstrap_draws for e in first.estimators_]
    assert grown_on[:2] == [200, 200] and grown_on[2:] == [400] * 4
    other = DaskRandomForestClassifier(n_estimators=6, random_state=1, client=client).fit(Xd, yd)
    assert not np.array_equal(first.predict_proba(X), other.predict_proba(X))


def test_data_stays_on_the_workers(client, cluster, monkeypatch):
    X, y = _data(n=4000, d=8)
    a, b = _workers(client)
    Xd, yd = _placed(client, X, [a, b, a, b]), _placed(client, y, [a, b, a, b])
    gathered = []
    gather = client.gather

    def recording_gather(futures, *args, **kwargs):
        result = gather(futures, *args, **kwargs)
        gathered.append(pickle.dumps(result))
        return result

    monkeypatch.setattr(client, "gather", recording_gather)
    before = {w.address: sum(e["total"] for e in w.transfer_incoming_log) for w in cluster.workers.values()}
    est = DaskRandomForestClassifier(n_estimators=2, max_depth=3, random_state=0, client=client).fit(Xd, yd)
    after = {w.address: sum(e["total"] for e in w.transfer_incoming_log) for w in cluster.workers.values()}
    moved = sum(after.values()) - sum(before.values())
    partition = X[:1000].nbytes
    assert moved < partition / 4, f"{moved} bytes moved between workers; one partition of X is {partition}"
    assert gathered and sum(map(len, gathered)) < X.nbytes / 4
    assert len(est.estimators_) == 2


def test_labels_on_some_partitions_only(client):
    X, y = _data(n=300, n_classes=2)
    y = np.where(np.arange(300) < 150, y, y + 2)  # classes 0, 1 on the first half, 2, 3 on the second
    a, b = _workers(client)
    est = DaskRandomForestClassifier(n_estimators=4, random_state=0, client=client)
    est.fit(_placed(client, X, [a, b]), _placed(client, y, [a, b]))
    np.testing.assert_array_equal(est.classes_, [0, 1, 2, 3])
    assert all(e.tree_.values.shape[1] == 4 for e in est.estimators_)
    proba = est.predict_proba(X)
    assert proba.shape == (300, 4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(est.predict(X[150:])) <= {2, 3} or (est.predict(X) == y).mean() > 0.5


def test_string_labels_and_class_weight_from_global_counts(client):
    X, y = _data(n=300)
    labels = np.array(["no", "yes"])[y]
    chunks = ((300,),)
    params = dict(n_estimators=3, random_state=2, class_weight="balanced")
    est = DaskRandomForestClassifier(**params, client=client).fit(da.from_array(X, chunks=chunks + ((5,),)),
                                                                  da.from_array(labels, chunks=chunks))
    local = RandomForestClassifier(**params).fit(X, labels)
    np.testing.assert_array_equal(est.predict_proba(X), local.predict_proba(X))
    np.testing.assert_array_equal(est.classes_, ["no", "yes"])


def test_empty_and_unequal_partitions(client):
    X, y = _data(n=200)
    chunks = (0, 40, 0, 150, 10)
    est = DaskRandomForestRegressor(n_estimators=5, random_state=0, client=client)
    est.fit(da.from_array(X, chunks=(chunks, 5)), da.from_array(y.astype(float), chunks=(chunks,)))
    assert len(est.estimators_) == 5
    assert est.predict(X).shape == (200,)


def test_lazy_predict_one_task_per_block(client):
    X, y = _data()
    est = DaskRandomForestClassifier(n_estimators=3, random_state=0, client=client)
    est.fit(da.from_array(X, chunks=100), da.from_array(y, chunks=100))
    Xd = da.from_array(X, chunks=(50, 5))
    pred, proba = est.predict(Xd), est.predict_proba(Xd)
    assert isinstance(pred, da.Array) and pred.numblocks == (8,) and proba.numblocks == (8, 1)
    np.testing.assert_array_equal(client.compute(pred).result(), est.predict(X))
    np.testing.assert_array_equal(client.compute(proba).result(), est.predict_proba(X))


def test_dask_dataframe_input(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = _data()
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(5)])
    Xd = dd.from_pandas(frame, npartitions=1)
    yd = dd.from_pandas(pd.Series(y, name="y"), npartitions=1)
    est = DaskRandomForestClassifier(n_estimators=3, random_state=0, client=client).fit(Xd, yd)
    local = RandomForestClassifier(n_estimators=3, random_state=0).fit(frame, y)
    np.testing.assert_array_equal(est.feature_names_in_, local.feature_names_in_)
    np.testing.assert_array_equal(est.predict_proba(frame), local.predict_proba(frame))
    np.testing.assert_array_equal(client.compute(est.predict(Xd)).result(), local.predict(frame))


def _scheduler_transitions(client):
    return client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.transition_counter)


def _settled_transitions(client, settle=1.0, timeout=30.0):
    """The scheduler's transition count once it has stayed the same for ``settle`` seconds.

    The futures of the tests before are released as they are garbage collected, and the scheduler's
    transitions that release them may arrive late on a loaded machine: a test that asserts that a
    refused fit schedules nothing compares the counts after such a quiet spell.
    """
    gc.collect()
    before = _scheduler_transitions(client)
    quiet_since = time.monotonic()
    deadline = quiet_since + timeout
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = _scheduler_transitions(client)
        if now != before:
            before, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= settle:
            break
    return before


@pytest.mark.parametrize("params, X, y, error, match", [
    (dict(oob_score=True), None, None, ValueError, "oob_score"),
    (dict(warm_start=True), None, None, ValueError, "warm_start"),
    (dict(n_estimators=0), None, None, ValueError, "n_estimators"),
    (dict(bootstrap=False, max_samples=0.5), None, None, ValueError, "max_sample"),
    ({}, np.zeros((10, 3)), None, TypeError, "dask array or a dask data frame"),
    ({}, da.zeros((10, 3, 2), chunks=5), None, ValueError, "2D array"),
    ({}, da.from_array(np.array([["a"] * 3] * 10)), None, ValueError, "numeric"),
    ({}, None, da.zeros(9, chunks=5), ValueError, "inconsistent numbers of samples"),
    ({}, None, da.zeros((10, 2), chunks=5), ValueError, "multi-output"),
])
def test_bad_input_raises_before_scheduling(client, params, X, y, error, match):
    X = da.zeros((10, 3), chunks=5) if X is None else X
    y = da.zeros(10, chunks=5) if y is None else y
    before = _settled_transitions(client)
    with pytest.raises(error, match=match):
        DaskRandomForestClassifier(**params, client=client).fit(X, y)
    assert _scheduler_transitions(client) == before


def test_bad_values_raise_and_keep_the_previous_model(client):
    X, y = _data()
    est = DaskRandomForestClassifier(n_estimators=2, random_state=0, client=client)
    est.fit(da.from_array(X, chunks=100), da.from_array(y, chunks=100))
    trees, proba = est.estimators_, est.predict_proba(X)
    bad = X.copy()
    bad[250, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        est.fit(da.from_array(bad, chunks=100), da.from_array(y, chunks=100))
    with pytest.raises(ValueError, match="continuous"):
        est.fit(da.from_array(X, chunks=100), da.from_array(X[:, 0].astype(float), chunks=100))
    assert est.estimators_ is trees
    np.testing.assert_array_equal(est.predict_proba(X), proba)


def test_pickle_and_forestzoo_io(client):
    X, y = _data()
    est = DaskRandomForestClassifier(n_estimators=3, random_state=0, client=client)
    est.fit(da.from_array(X, chunks=100), da.from_array(y, chunks=100))
    expected = est.predict_proba(X)
    local = est.to_local()
    assert "client" not in local.get_params()
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(local)).predict_proba(X), expected)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict_proba(X), expected)
    buffer = io.BytesIO()
    save(local, buffer)
    np.testing.assert_array_equal(load(io.BytesIO(buffer.getvalue())).predict_proba(X), expected)
    with pytest.raises(AttributeError, match="local to the rows"):
        est.estimators_samples_


def test_killed_worker_trees_are_grown_again_elsewhere():
    """A worker process killed while it grows its trees: the group runs again elsewhere, and the forest is the same."""
    X, y = _data(n=2000, d=6)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, **LOOPBACK) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        Xd, yd = client.persist([da.from_array(X, chunks=500), da.from_array(y, chunks=500)])
        client.gather(futures_of([Xd, yd]))  # in memory: both fits pack the partitions where they are
        reference = DaskRandomForestClassifier(n_estimators=5, random_state=0, client=client).fit(Xd, yd)
        victim = client.who_has(futures_of(Xd)[:1]).popitem()[1][0]

        def stall_growing(dask_worker):
            import time

            import forestzoo.dask as module
            module._fit_group = lambda *args: time.sleep(30)  # killed long before

        client.run(stall_growing, workers=[victim])
        pid = client.run(os.getpid, workers=[victim])[victim]
        killed = []

        def kill_when_growing():
            deadline = time.monotonic() + 30
            while not killed and time.monotonic() < deadline:
                growing = client.run_on_scheduler(lambda dask_scheduler: [
                    ts.processing_on.address for ts in dask_scheduler.tasks.values()
                    if ts.state == "processing" and str(ts.key).startswith("_fit_group")])
                if victim in growing:
                    time.sleep(0.2)  # inside the stalled task
                    os.kill(pid, signal.SIGKILL)
                    killed.append(victim)
                time.sleep(0.05)

        killer = threading.Thread(target=kill_when_growing)
        killer.start()
        est = DaskRandomForestClassifier(n_estimators=5, random_state=0, client=client).fit(Xd, yd)
        killer.join()
        assert killed, "the group's task was never seen running"
        np.testing.assert_array_equal(est.predict_proba(X), reference.predict_proba(X))


# -- bagging="global": every tree a bootstrap of all rows, its upper levels chosen on summed histograms ---------------
def _xor_data(n, seed=0):
    """Two interacting features and noise features: a fine partition of the plane, which more rows learn better."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 6)).astype(np.float32)
    X[::13, 2] = np.nan
    y = (X[:, 0] * X[:, 1] + np.sin(2 * X[:, 3]) + 0.3 * rng.standard_normal(n) > 0).astype(np.int64)
    return X, y


def _same_trees(a, b):
    assert len(a.estimators_) == len(b.estimators_)
    for ea, eb in zip(a.estimators_, b.estimators_):
        np.testing.assert_array_equal(ea.tree_.nodes, eb.tree_.nodes)
        np.testing.assert_array_equal(ea.tree_.values, eb.tree_.values)


@pytest.mark.parametrize("dask_cls", [DaskRandomForestClassifier, DaskRandomForestRegressor])
def test_global_forest_does_not_depend_on_placement_and_is_deterministic(client, monkeypatch, dask_cls):
    import forestzoo._dask_hist as dask_hist

    monkeypatch.setattr(dask_hist, "LOCAL_ROWS", 150)  # levels on histograms, then subtrees on one worker
    monkeypatch.setattr(dask_hist, "LOCAL_CODE_BYTES", 0)
    X, y = _xor_data(1200)
    target = y if dask_cls is DaskRandomForestClassifier else X[:, 0] * 2.0 + y
    a, b = _workers(client)
    params = dict(n_estimators=4, random_state=5, bagging="global", client=client)
    on_a = _placed(client, X, [a] * 3), _placed(client, target, [a] * 3)
    on_both = _placed(client, X, [a, b, b]), _placed(client, target, [a, b, b])
    one = dask_cls(**params).fit(*on_a)
    spread = dask_cls(**params).fit(*on_both)
    again = dask_cls(**params).fit(*on_both)
    _same_trees(one, spread)
    _same_trees(spread, again)
    assert all(e.tree_.nodes["depth"].max() > 3 for e in one.estimators_)  # grafted subtrees below the levels
    local = one.to_local()
    assert type(local) is dask_cls._in_memory_class
    buffer = io.BytesIO()
    save(local, buffer)
    np.testing.assert_array_equal(load(io.BytesIO(buffer.getvalue())).predict(X), one.predict(X))
    other = dask_cls(**{**params, "random_state": 6}).fit(*on_a)
    assert not np.array_equal(other.predict(X), one.predict(X))


def _preorder(tree, at=0):
    """``(depth, feature, n_samples, weighted_n_samples, threshold)`` of every node, parents before children, left first."""
    nodes = tree.nodes
    rec = nodes[at]
    row = [(int(rec["depth"]), int(rec["feature"]), int(rec["n_samples"]), float(rec["weighted_n_samples"]),
            float(rec["threshold"]))]
    if rec["left"] == -1:
        return row
    return row + _preorder(tree, rec["left"]) + _preorder(tree, rec["right"])


def test_global_tree_is_the_in_memory_tree_on_the_same_bins(client, monkeypatch):
    """No bootstrap, every feature a candidate, few distinct values (the bins are the values in both): the
    levels on summed histograms choose the in-memory tree's splits."""
    import forestzoo._dask_hist as dask_hist

    monkeypatch.setattr(dask_hist, "LOCAL_ROWS", 100)
    monkeypatch.setattr(dask_hist, "LOCAL_CODE_BYTES", 0)
    X, y = _xor_data(900)
    X = np.round(X, 1)
    params = dict(n_estimators=1, bootstrap=False, max_features=None, random_state=0)
    dask_est = DaskRandomForestClassifier(**params, bagging="global", client=client)
    dask_est.fit(da.from_array(X, chunks=300), da.from_array(y, chunks=300))
    local = RandomForestClassifier(**params).fit(X, y)
    ours, theirs = _preorder(dask_est.estimators_[0].tree_), _preorder(local.estimators_[0].tree_)
    # the nodes of 100 rows or more (chosen on summed histograms) are the in-memory tree's, thresholds included;
    # below them the engine grows each subtree with its own random feature order, which breaks ties differently
    top = [r for r in ours if r[2] >= 100]
    assert len(top) >= 7 and top == [r for r in theirs if r[2] >= 100]
    assert abs(len(ours) - len(theirs)) <= len(theirs) // 10


def test_global_bagging_matches_the_in_memory_forest_where_local_bagging_falls_short(client, monkeypatch):
    """Each local tree sees a bootstrap of half the rows; a global tree, like an in-memory one, of all of them."""
    import forestzoo._dask_hist as dask_hist

    monkeypatch.setattr(dask_hist, "LOCAL_ROWS", 500)
    monkeypatch.setattr(dask_hist, "LOCAL_CODE_BYTES", 0)
    X, y = _xor_data(4000, seed=1)
    X_test, y_test = _xor_data(20000, seed=2)
    a, b = _workers(client)
    Xd, yd = _placed(client, X, [a, b, a, b]), _placed(client, y, [a, b, a, b])
    acc = {"local": [], "global": [], "memory": []}
    for seed in range(3):  # a gap of about one point, against a spread of about half a point between seeds
        params = dict(n_estimators=20, random_state=seed)
        for bagging in ("local", "global"):
            est = DaskRandomForestClassifier(**params, bagging=bagging, client=client).fit(Xd, yd)
            acc[bagging].append((est.predict(X_test) == y_test).mean())
        acc["memory"].append((RandomForestClassifier(**params).fit(X, y).predict(X_test) == y_test).mean())
    acc = {k: float(np.mean(v)) for k, v in acc.items()}
    assert acc["global"] >= acc["local"] + 0.01, acc
    assert abs(acc["global"] - acc["memory"]) <= 0.006, acc


def test_warm_up_for_global_bagging_compiles_the_partition_kernels_once(client, monkeypatch):
    import forestzoo.dask as fzd

    calls = []
    monkeypatch.setattr(fzd, "warm_kernels", lambda n_features, classification: calls.append((n_features,
                                                                                           classification)))
    monkeypatch.setattr(fzd, "_warm", set())  # this process has compiled nothing yet
    est = DaskRandomForestClassifier(n_estimators=2, bagging="global", client=client)
    first = fzd.warm_up(client, est, n_features=3)
    assert sorted(first.values()) == [False, True]  # the workers share this process: the second finds it done
    assert calls == [(3, True)]
    assert not any(fzd.warm_up(client, est, n_features=3).values())
    fzd.warm_up(client, est, n_features=3, bagging="local")
    assert calls == [(3, True)]
    with pytest.raises(ValueError, match="bagging"):
        fzd.warm_up(client, est, n_features=3, bagging="everywhere")


@pytest.mark.parametrize("classification", [True, False])
def test_partition_kernels_warm_up_runs(classification):
    import forestzoo._dask_hist as dask_hist

    dask_hist.warm_kernels(5, classification)


@pytest.mark.parametrize("dask_cls, params, match", [
    (DaskRandomForestRegressor, dict(criterion="absolute_error"), "criterion"),
    (DaskRandomForestRegressor, dict(criterion="poisson"), "criterion"),
    (DaskRandomForestClassifier, dict(splitter="exact"), "splitter"),
    (DaskExtraTreesClassifier, {}, "splitter"),
    (DaskRandomForestClassifier, dict(max_leaf_nodes=8), "max_leaf_nodes"),
    (DaskRandomForestClassifier, dict(class_weight="balanced_subsample"), "balanced_subsample"),
])
def test_global_bagging_refuses_what_it_does_not_grow_before_scheduling(client, dask_cls, params, match):
    X, y = da.zeros((10, 3), chunks=5), da.zeros(10, chunks=5)
    before = _settled_transitions(client)
    with pytest.raises(ValueError, match=match):
        dask_cls(**params, bagging="global", client=client).fit(X, y)
    with pytest.raises(ValueError, match="bagging"):
        dask_cls(bagging="everywhere", client=client).fit(X, y)
    assert _scheduler_transitions(client) == before


@pytest.fixture
def no_stealing_cluster_client():
    """A cluster without work stealing: the level tasks of global bagging prefer their partition's worker without
    being restricted to it (a partition recomputed after a fault runs anywhere), so the scheduler's stealing, when
    the machine is loaded, may move one; what the design itself moves is measured here."""
    import dask

    with dask.config.set({"distributed.scheduler.work-stealing": False}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, **LOOPBACK) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        yield cluster, client


def test_global_bagging_moves_histograms_not_rows(no_stealing_cluster_client, monkeypatch):
    import forestzoo._dask_hist as dask_hist

    cluster, client = no_stealing_cluster_client
    assert "stealing" not in cluster.scheduler.extensions

    monkeypatch.setattr(dask_hist, "SKETCH_POINTS", 64)  # quantile summaries, not the columns
    monkeypatch.setattr(dask_hist, "LOCAL_ROWS", 10)  # every node on histograms: no row leaves its worker
    monkeypatch.setattr(dask_hist, "LOCAL_CODE_BYTES", 0)
    X, y = _data(n=60000, d=8)
    a, b = _workers(client)
    Xd, yd = _placed(client, X, [a, b, a, b]), _placed(client, y, [a, b, a, b])
    gathered = []
    gather = client.gather

    def recording_gather(futures, *args, **kwargs):
        result = gather(futures, *args, **kwargs)
        gathered.append(pickle.dumps(result))
        return result

    monkeypatch.setattr(client, "gather", recording_gather)
    before = {w.address: sum(e["total"] for e in w.transfer_incoming_log) for w in cluster.workers.values()}
    est = DaskRandomForestClassifier(n_estimators=2, max_depth=2, random_state=0, bagging="global", client=client)
    est.fit(Xd, yd)
    after = {w.address: sum(e["total"] for e in w.transfer_incoming_log) for w in cluster.workers.values()}
    moved = sum(after.values()) - sum(before.values())
    partition = X[:15000].nbytes
    assert moved < partition, f"{moved} bytes moved between workers; one partition of X is {partition}"
    assert gathered and sum(map(len, gathered)) < X.nbytes / 4
    assert len(est.estimators_) == 2 and all(e.tree_.nodes["depth"].max() == 2 for e in est.estimators_)
    assert (est.predict(X) == y).mean() > 0.8


def _kill_at_first_route():
    """A function for ``client.run``: in that worker process, the first routing of rows to children SIGKILLs it."""

    def arm(dask_worker):
        import os
        import signal

        import forestzoo._dask_hist as module

        def killed(*args):
            os.kill(os.getpid(), signal.SIGKILL)

        module.route = killed  # a task names its function by module and name: the next route task runs this one

    return arm


@pytest.fixture(scope="module")
def process_cluster_client():
    """A client of two worker processes, each under a nanny that restarts it when it is killed."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, **LOOPBACK) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        yield client


@pytest.fixture
def process_client(process_cluster_client):
    process_cluster_client.wait_for_workers(2, timeout=60)  # a worker killed by an earlier test is back
    return process_cluster_client


def test_global_worker_killed_mid_fit_partitions_recomputed_same_forest(process_client, monkeypatch):
    """A worker process killed while it routes rows between two levels: its partitions are recomputed from their
    graph, the level's tasks run again, and the forest is the one fitted without the fault."""
    import forestzoo._dask_hist as dask_hist

    monkeypatch.setattr(dask_hist, "LOCAL_ROWS", 300)  # levels on histograms above the subtrees: routing happens
    monkeypatch.setattr(dask_hist, "LOCAL_CODE_BYTES", 0)
    client = process_client
    X, y = _xor_data(2000)
    Xd, yd = client.persist([da.from_array(X, chunks=500), da.from_array(y, chunks=500)])
    client.gather(futures_of([Xd, yd]))
    params = dict(n_estimators=4, max_depth=8, random_state=0, bagging="global", client=client)
    reference = DaskRandomForestClassifier(**params).fit(Xd, yd)
    victim = client.who_has(futures_of(Xd)[:1]).popitem()[1][0]
    client.run(_kill_at_first_route(), workers=[victim])
    est = DaskRandomForestClassifier(**params).fit(Xd, yd)
    assert victim not in client.nthreads(), "the worker was not killed during the fit"
    _same_trees(est, reference)


def test_global_worker_killed_with_data_that_cannot_be_recomputed_keeps_the_previous_model(process_client,
                                                                                           monkeypatch):
    """Scattered partitions lost with their worker cannot be recomputed: fit raises and names the remedy, and the
    estimator keeps its previous forest."""
    import forestzoo._dask_hist as dask_hist

    monkeypatch.setattr(dask_hist, "LOCAL_ROWS", 300)
    monkeypatch.setattr(dask_hist, "LOCAL_CODE_BYTES", 0)
    client = process_client
    X, y = _xor_data(2000)
    a, b = _workers(client)
    Xd, yd = _placed(client, X, [a, b, a, b]), _placed(client, y, [a, b, a, b])
    est = DaskRandomForestClassifier(n_estimators=3, max_depth=6, random_state=0, bagging="global", client=client)
    est.fit(Xd, yd)
    trees, proba = est.estimators_, est.predict_proba(X)
    client.run(_kill_at_first_route(), workers=[b])
    with pytest.raises(RuntimeError, match="cannot recompute") as raised:
        est.fit(Xd, yd)
    print(raised.value)
    assert b not in client.nthreads()
    assert est.estimators_ is trees
    np.testing.assert_array_equal(est.predict_proba(X), proba)
