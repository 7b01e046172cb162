"""Engine kernels against naive NumPy references: every compiled kernel is checked against a plain twin."""

import numba
import numpy as np
import pytest

from forestzoo._engine.binning import MISSING_BIN, bin_data, compute_bin_edges
from forestzoo._engine.tree import TREE_LEAF
from forestzoo._jit import borrow, keep_alive
from forestzoo._engine.builder import TreeParams, TreeTarget, grow, prepare_data

CLASSIFICATION = ["gini", "entropy"]


def _impurity(y, w, criterion, n_classes):
    """W * impurity of one side, computed the textbook way."""
    W = w.sum()
    if W <= 0:
        return 0.0
    if criterion == "squared_error":
        mean = np.sum(w * y) / W
        return float(np.sum(w * (y - mean) ** 2))
    p = np.bincount(y, weights=w, minlength=n_classes) / W
    if criterion == "gini":
        return float(W * (1.0 - np.sum(p**2)))
    nz = p[p > 0]
    return float(-W * np.sum(nz * np.log2(nz)))


def _brute_force(X, y, w, criterion, n_classes, thresholds_of):
    """Best (cost, feature, threshold) over every candidate threshold."""
    best = (np.inf, -1, None)
    for f in range(X.shape[1]):
        for t in thresholds_of(f):
            left = X[:, f] <= t
            if left.all() or not left.any():
                continue
            cost = _impurity(y[left], w[left], criterion, n_classes) + _impurity(y[~left], w[~left], criterion, n_classes)
            if cost < best[0] - 1e-9:
                best = (cost, f, t)
    return best


def _data(seed, n=60, d=5, task="gini", n_classes=3):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    w = rng.randint(1, 4, size=n).astype(np.float64)
    if task == "squared_error":
        y = X[:, 0] * 2 + rng.normal(size=n)
        return X, y, np.zeros(n, np.int32), y.astype(np.float64), w, 1
    y = rng.randint(0, n_classes, size=n)
    return X, y, y.astype(np.int32), np.zeros(n), w, n_classes


def _stump(X, yk, yr, w, criterion, n_values, splitter, **kw):
    data = prepare_data(X, splitter, kw.pop("max_bins", 255))
    return grow(data, TreeTarget(yk, yr, n_values), w, TreeParams(criterion, max_depth=1, **kw), 0), data


@pytest.mark.parametrize("criterion", CLASSIFICATION + ["squared_error"])
@pytest.mark.parametrize("seed", range(5))
def test_exact_root_split_equals_brute_force(criterion, seed):
    X, y, yk, yr, w, n_values = _data(seed, task=criterion)
    tree, _ = _stump(X, yk, yr, w, criterion, n_values, "exact")
    root = tree.nodes[0]

    def midpoints(f):
        u = np.unique(X[:, f].astype(np.float64))
        return (u[:-1] + u[1:]) / 2

    cost, f, t = _brute_force(X.astype(np.float64), y, w, criterion, n_values, midpoints)
    assert root["feature"] == f
    assert root["threshold"] == pytest.approx(t, rel=1e-12)
    parent = _impurity(y, w, criterion, n_values)
    assert root["improvement"] == pytest.approx(parent - cost, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
@pytest.mark.parametrize("max_bins", [4, 255])
def test_hist_root_split_equals_brute_force_over_bin_edges(criterion, max_bins):
    X, y, yk, yr, w, n_values = _data(3, n=300, task=criterion)
    tree, data = _stump(X, yk, yr, w, criterion, n_values, "hist", max_bins=max_bins)
    root = tree.nodes[0]
    cost, f, t = _brute_force(
        X.astype(np.float64), y, w, criterion, n_values, lambda f: data.edges[f, : data.n_bins[f] - 1]
    )
    assert root["feature"] == f
    assert root["threshold"] == t
    assert root["improvement"] == pytest.approx(_impurity(y, w, criterion, n_values) - cost, rel=1e-9)


def test_hist_small_node_path_equals_histogram_path():
    # nodes under SMALL_NODE rows sort codes instead of building histograms:
    # both must choose the same split, so a tree on few rows equals a stump
    # search done with the histogram (brute force over edges).
    for seed in range(5):
        X, y, yk, yr, w, n_values = _data(seed, n=40, task="gini")
        tree, data = _stump(X, yk, yr, w, "gini", n_values, "hist")
        cost, f, t = _brute_force(
            X.astype(np.float64), y, w, "gini", n_values, lambda f: data.edges[f, : data.n_bins[f] - 1]
        )
        assert (tree.nodes[0]["feature"], tree.nodes[0]["threshold"]) == (f, t)


def test_binning_codes_agree_with_edges():
    rng = np.random.RandomState(0)
    X = rng.standard_t(3, size=(5000, 4)).astype(np.float32)
    X[:, 1] = rng.randint(0, 7, size=5000)  # few distinct values
    X[::17, 2] = np.nan
    edges, n_bins = compute_bin_edges(X, 32)
    codes = bin_data(X, edges, n_bins)
    assert n_bins[1] == 7 and n_bins.max() <= 32
    for f in range(X.shape[1]):
        e = edges[f, : n_bins[f] - 1]
        assert np.all(np.diff(e) > 0)
        col = X[:, f].astype(np.float64)
        nan = np.isnan(col)
        assert np.all(codes[f, nan] == MISSING_BIN)
        expected = np.searchsorted(e, col[~nan], side="left")
        np.testing.assert_array_equal(codes[f, ~nan], expected)
        # code <= b  <=>  x <= edge[b]
        for b in range(0, n_bins[f] - 1, 3):
            np.testing.assert_array_equal(codes[f, ~nan] <= b, col[~nan] <= e[b])
    # quantile bins are roughly balanced
    counts = np.bincount(codes[0], minlength=32)[: n_bins[0]]
    assert counts.max() < 4 * len(X) / n_bins[0]


def _naive_apply(tree, x):
    k = 0
    nodes = tree.nodes
    while nodes["left"][k] != TREE_LEAF:
        v = x[nodes["feature"][k]]
        left = bool(nodes["missing_left"][k]) if np.isnan(v) else v <= nodes["threshold"][k]
        k = nodes["left"][k] if left else nodes["right"][k]
    return k


@pytest.mark.parametrize("splitter", ["hist", "exact", "random"])
def test_apply_and_decision_path_match_naive_traversal(splitter):
    X, y, yk, yr, w, n_values = _data(1, n=400, task="gini")
    X[::7, 2] = np.nan
    data = prepare_data(X, splitter, 255)
    tree = grow(data, TreeTarget(yk, yr, n_values), w, TreeParams("gini", max_features=2), 1)
    leaves = tree.apply(X)
    assert np.array_equal(leaves, [_naive_apply(tree, x) for x in X])
    path = tree.decision_path(X).toarray()
    assert np.all(path[np.arange(len(X)), leaves] == 1)
    assert np.all(path[:, 0] == 1)
    assert np.array_equal(path.sum(axis=1), tree.nodes["depth"][leaves] + 1)
    # every training row reaches the leaf the grower put it in: leaf counts add up
    counts = np.bincount(leaves, minlength=tree.node_count)
    is_leaf = tree.nodes["left"] == TREE_LEAF
    assert np.array_equal(counts[is_leaf], tree.nodes["n_samples"][is_leaf])


def test_histogram_subtraction_gives_the_same_tree():
    X, y, yk, yr, w, n_values = _data(2, n=3000, d=6, task="gini")
    data = prepare_data(X, "hist", 255)
    import forestzoo._engine.builder as builder

    with_pool = grow(data, TreeTarget(yk, yr, n_values), w, TreeParams("gini"), 3)
    saved = builder._POOL_BYTES
    try:
        builder._POOL_BYTES = 0  # still 2 slots; force the min below
        few_slots = grow(data, TreeTarget(yk, yr, n_values), w, TreeParams("gini"), 3)
    finally:
        builder._POOL_BYTES = saved
    assert with_pool.node_count > 50
    assert np.array_equal(with_pool.nodes, few_slots.nodes)
    np.testing.assert_allclose(with_pool.values, few_slots.values)


def test_random_thresholds_lie_inside_the_node_range():
    X, y, yk, yr, w, n_values = _data(4, n=500, task="gini")
    data = prepare_data(X, "random", 255)
    tree = grow(data, TreeTarget(yk, yr, n_values), w, TreeParams("gini", max_features=1), 5)
    nodes = tree.nodes
    path = tree.decision_path(X).toarray().astype(bool)
    for k in np.flatnonzero(nodes["left"] != TREE_LEAF):
        vals = X[path[:, k], nodes["feature"][k]]
        assert vals.min() <= nodes["threshold"][k] < vals.max()


def test_missing_values_are_sent_to_the_better_side():
    rng = np.random.RandomState(0)
    n = 400
    y = rng.randint(0, 2, n)
    X = rng.normal(size=(n, 3)).astype(np.float32)
    X[y == 1, 0] = np.nan  # NaN itself is the signal
    for splitter in ["hist", "exact", "random"]:
        data = prepare_data(X, splitter, 255)
        tree = grow(data, TreeTarget(y.astype(np.int32), np.zeros(n), 2), np.ones(n), TreeParams("gini", max_depth=1),
                    0)
        assert tree.nodes[0]["feature"] == 0, splitter
        proba = tree.predict(X)
        # NaN rows (all of class 1) share one leaf that predicts class 1
        assert np.all(proba[y == 1].argmax(1) == 1), splitter
        if splitter != "random":  # a random threshold also cuts the class-0 values
            assert np.mean(proba.argmax(1) == y) == 1.0, splitter


def test_unseen_missing_value_goes_to_larger_child():
    X = np.arange(10, dtype=np.float32).reshape(-1, 1)
    y = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 1], dtype=np.int32)
    data = prepare_data(X, "exact", 255)
    tree = grow(data, TreeTarget(y, np.zeros(10), 2), np.ones(10), TreeParams("gini", max_depth=1), 0)
    assert tree.nodes[0]["missing_left"] == 1  # 7 rows left, 3 right
    assert tree.predict(np.array([[np.nan]], dtype=np.float32)).argmax() == 0


@pytest.mark.parametrize("splitter", ["hist", "exact"])
def test_max_leaf_nodes_grows_best_first(splitter):
    X, y, yk, yr, w, n_values = _data(6, n=500, task="gini")
    data = prepare_data(X, splitter, 255)
    tree = grow(data, TreeTarget(yk, yr, n_values), w, TreeParams("gini", max_leaf_nodes=7), 0)
    assert tree.n_leaves == 7
    # the first split is the best stump split
    stump = grow(data, TreeTarget(yk, yr, n_values), w, TreeParams("gini", max_depth=1), 0)
    assert tree.nodes[0]["feature"] == stump.nodes[0]["feature"]
    assert tree.nodes[0]["threshold"] == stump.nodes[0]["threshold"]


def test_min_samples_leaf_and_max_depth_are_respected():
    X, y, yk, yr, w, n_values = _data(7, n=800, task="squared_error")
    for splitter in ["hist", "exact", "random"]:
        data = prepare_data(X, splitter, 255)
        tree = grow(data, TreeTarget(yk, yr, 1), w, TreeParams("squared_error", max_depth=6, min_samples_leaf=9), 0)
        leaves = tree.nodes[tree.nodes["left"] == TREE_LEAF]
        assert leaves["n_samples"].min() >= 9
        assert tree.max_depth <= 6


def test_kernel_cache_stamp_tracks_every_kernel_source():
    """Numba keys a cache on one file; forestzoo keys all its caches on every kernel source."""
    from forestzoo import _jit

    digest = _jit._kernel_sources_digest()
    assert len(digest) == 64
    if _jit._STAMP.is_file():  # absent on a read-only install
        assert _jit._STAMP.read_text().strip() == digest


def _regression_with_nan(seed, n, d, n_values=None):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    if n_values is not None:  # few distinct values: hist and exact see the same candidates
        X = np.round(X * n_values / 4).astype(np.float32)
    X[rng.rand(n, d) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) * 2 + np.isnan(X[:, 1]) * 3 + rng.normal(size=n)
    w = rng.randint(1, 4, size=n).astype(np.float64)
    return X, np.zeros(n, np.int32), y.astype(np.float64), w


def test_hist_regression_splits_equal_exact_splits_with_missing_values():
    # squared error on histograms sums (rows, w, w y) per bin and takes sum w y**2 from the
    # node (hist._split_histogram_sq); with few distinct values its candidates are the exact
    # splitter's, so both must grow the same tree, NaN sides included
    X, yk, yr, w = _regression_with_nan(0, 4000, 6, n_values=30)
    trees = [grow(prepare_data(X, s, 255), TreeTarget(yk, yr, 1), w,
                  TreeParams("squared_error", max_depth=5, min_samples_split=400), 0) for s in ("hist", "exact")]
    a, b = (t.nodes for t in trees)
    assert trees[0].node_count > 20
    for field in ("left", "right", "feature", "threshold", "missing_left", "n_samples"):
        np.testing.assert_array_equal(a[field], b[field], err_msg=field)
    np.testing.assert_allclose(a["improvement"], b["improvement"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(trees[0].values, trees[1].values)


@pytest.mark.parametrize("criterion", ["squared_error", "gini"])
def test_histograms_built_on_threads_give_the_same_tree(criterion, monkeypatch):
    import forestzoo._engine.hist_threads as hist_threads

    calls = []
    original = hist_threads.run_blocks

    def counting(kernel, n_items, n_threads, *args):
        calls.append(n_threads)
        return original(kernel, n_items, n_threads, *args)

    monkeypatch.setattr(hist_threads, "run_blocks", counting)
    X, yk, yr, w = _regression_with_nan(1, 8000, 40)
    n_values = 1
    if criterion == "gini":
        yk = (yr > np.median(yr)).astype(np.int32) + (yr > np.percentile(yr, 80)).astype(np.int32)
        n_values = 3
    data = prepare_data(X, "hist", 255)
    one, two = (grow(data, TreeTarget(yk, yr, n_values), w, TreeParams(criterion, max_depth=6), 2, hist_threads=t,
                     return_leaves=True) for t in (1, 2))
    assert calls and all(t == 2 for t in calls)  # the threaded build ran (root and large children)
    assert np.array_equal(one[0].nodes, two[0].nodes)
    assert np.array_equal(one[0].values, two[0].values)
    assert np.array_equal(one[1], two[1])
    assert one[0].n_split_evaluations == two[0].n_split_evaluations


def test_binning_on_threads_gives_the_same_codes():
    X, _, _, _ = _regression_with_nan(2, 3000, 9)
    one = compute_bin_edges(X, 64, n_threads=1)
    two = compute_bin_edges(X, 64, n_threads=2)
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(one[1], two[1])
    np.testing.assert_array_equal(bin_data(X, *one, n_threads=1), bin_data(X, *one, n_threads=3))


@pytest.mark.parametrize("splitter", ["random", "hist", "exact", "stochastic"])
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
@pytest.mark.parametrize("weights", ["unit", "bootstrap"])
def test_node_local_copies_give_the_same_tree(splitter, criterion, weights, monkeypatch):
    import forestzoo._engine.grower as grower
    import forestzoo._engine.builder as builder

    X, yk, yr, w = _regression_with_nan(3, 6000, 12)
    n_values = 1
    if criterion == "gini":
        yk = (yr > np.median(yr)).astype(np.int32) + (yr > np.percentile(yr, 80)).astype(np.int32)
        n_values = 3
    if weights == "unit":
        w = np.ones_like(w)
    else:
        w = np.random.default_rng(0).poisson(1.0, w.shape[0]).astype(np.float64)
    data = prepare_data(X, splitter, 255)
    trees = []
    for local_bytes in (0, 4 * 12 * 1000):  # off; blocks of at most 1,000 rows (exact and random only)
        monkeypatch.setattr(builder, "_LOCAL_BYTES", local_bytes)
        trees.append(grow(data, TreeTarget(yk, yr, n_values), w, TreeParams(criterion, max_features=4), 4,
                          return_leaves=True))
    (off, off_leaves), (on, on_leaves) = trees
    assert on.node_count > 500
    assert off.nodes.tolist() == on.nodes.tolist()
    assert np.array_equal(off.values, on.values)
    assert np.array_equal(off_leaves, on_leaves)  # leaves are recorded by global row id
    assert off.n_split_evaluations == on.n_split_evaluations
    # copies happened: a fully grown tree of 6,000 rows splits nodes of 64..1,000 rows, which the rule takes
    assert grower._worth_copying(1000, 1000, 4, 12) and not grower._worth_copying(1001, 1000, 4, 12)
    assert not grower._worth_copying(63, 1000, 4, 12)


@pytest.mark.parametrize("splitter", ["random", "hist", "exact"])
def test_search_stops_at_a_split_with_two_pure_children(splitter):
    # every feature separates the two classes with a gap, so the first feature tried splits the root
    # into two pure children; the search must not read the other candidates (a full search reads 5 of 6).
    # Not all 6 features: the hist splitter then keeps every histogram of the node for its children
    rng = np.random.RandomState(0)
    n, d = 400, 6
    yk = (np.arange(n) % 2).astype(np.int32)
    X = (rng.uniform(0.0, 1.0, size=(n, d)) + 10.0 * yk[:, None]).astype(np.float32)
    w = np.ones(n)
    data = prepare_data(X, splitter, 255)
    tree = grow(data, TreeTarget(yk, np.zeros(n), 2), w, TreeParams("gini", max_features=d - 1), 0)
    assert tree.node_count == 3
    if splitter != "random":  # a random threshold in [min, max) of the node can miss the gap
        assert tree.n_split_evaluations == n
    # the random splitter still stops as soon as a threshold lands in the gap: fewer reads than all 6 features
    assert tree.n_split_evaluations < (d - 1) * n


def test_equal_trees_have_equal_bytes():
    # the node records' padding bytes are zeroed, so two equal fits pickle (and hash) to the same bytes
    X, y, yk, yr, w, n_values = _data(1, n=300)
    data = prepare_data(X, "exact", 255)
    a = grow(data, TreeTarget(yk, yr, n_values), w, TreeParams("gini", max_features=2), 3)
    b = grow(data, TreeTarget(yk, yr, n_values), w, TreeParams("gini", max_features=2), 3)
    assert a.nodes.dtype.itemsize > sum(a.nodes.dtype.fields[f][0].itemsize for f in a.nodes.dtype.names)
    assert a.nodes.tobytes() == b.nodes.tobytes()


@pytest.mark.parametrize("splitter", ["exact", "hist"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stopping_at_a_pure_split_keeps_the_full_search_tree(splitter, seed):
    # On 0/1 targets the two-class gini cost is twice the squared-error cost of the same split, so both
    # criteria grow the same tree; gini stops at pure splits, squared error never stops. With every
    # feature a candidate the stop makes the shuffle's remaining draws, so nothing downstream differs.
    from sklearn.datasets import make_classification

    X, y = make_classification(600, 6, n_informative=4, random_state=seed)
    data = prepare_data(X.astype(np.float32), splitter, 255)
    w = np.ones(len(y))
    gini = grow(data, TreeTarget(y.astype(np.int32), y.astype(np.float64), 2), w, TreeParams("gini"), 1)
    full = grow(data, TreeTarget(y.astype(np.int32), y.astype(np.float64), 1), w, TreeParams("squared_error"), 1)
    for field in ("left", "right", "feature", "threshold"):
        np.testing.assert_array_equal(gini.nodes[field], full.nodes[field])
    assert gini.n_split_evaluations < full.n_split_evaluations  # the stop did happen


@numba.njit
def _alias_roundtrip(a, b):
    from_a = borrow(a)
    from_b = borrow(b)
    total = 0.0
    for i in range(from_a.shape[0]):
        row = from_a[i]  # a view of an alias: uncounted too
        for j in range(row.shape[0]):
            total += row[j] * (j + 1)
    from_b[1:3] = from_a[0, :2]  # writes go to the owner's memory
    keep_alive((a, b))
    return total, from_a.shape[0], from_a.shape[1], from_a.strides[1]


def test_borrow_aliases_the_owner_array():
    """forestzoo._jit.borrow: same data, shape and strides; writes reach the owner."""
    a = np.arange(12.0).reshape(3, 4)
    b = np.zeros(5)
    total, n0, n1, stride = _alias_roundtrip(a, b)
    assert total == float((a * np.arange(1, 5)).sum())
    assert (n0, n1, stride) == (3, 4, 8)
    assert b.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]
    # a non-contiguous owner
    at = np.asfortranarray(a)[:, ::2]
    total, n0, n1, stride = _alias_roundtrip(at, b)
    assert total == float((at * np.arange(1, 3)).sum())
    assert (n0, n1, stride) == (3, 2, at.strides[1])


def test_table_to_nodes_matches_field_by_field_copy():
    """The compiled node-table conversion writes every field, and zero padding, as NumPy's field copies would."""
    from forestzoo._engine import grower
    from forestzoo._engine.tree import NODE_DTYPE
    from forestzoo._engine.builder import table_to_nodes

    rng = np.random.RandomState(0)
    n = 257
    cols = {
        "left": grower.COL_LEFT, "right": grower.COL_RIGHT, "feature": grower.COL_FEATURE,
        "oblique": grower.COL_OBLIQUE, "threshold": grower.COL_THRESHOLD, "depth": grower.COL_DEPTH,
        "n_samples": grower.COL_N_SAMPLES, "weighted_n_samples": grower.COL_WEIGHTED_N,
        "impurity": grower.COL_IMPURITY, "improvement": grower.COL_IMPROVEMENT,
        "missing_left": grower.COL_MISSING_LEFT,
    }
    table = np.empty((n, grower.N_COLS))
    for name, c in cols.items():
        if NODE_DTYPE[name].kind == "f":
            table[:, c] = rng.standard_normal(n) * 100
        else:
            table[:, c] = rng.randint(-1 if NODE_DTYPE[name].kind == "i" else 0, 2 if name == "missing_left" else 10**6, n)
    expected = np.zeros(n, dtype=NODE_DTYPE)
    for name, c in cols.items():
        expected[name] = table[:, c]
    got = table_to_nodes(table)
    assert got.dtype == NODE_DTYPE
    assert got.tobytes() == expected.tobytes()  # the padding bytes too: equal trees pickle equal
    assert table_to_nodes(table[:0]).shape == (0,)


def test_tree_params_resolve_the_estimator_parameters_once():
    from dataclasses import FrozenInstanceError

    from forestzoo import GradientBoostingRegressor, RandomForestClassifier
    from forestzoo._base import tree_params

    rf = RandomForestClassifier(max_features="sqrt", min_samples_split=3, min_samples_leaf=0.1, max_depth=4,
                                min_weight_fraction_leaf=0.05, monotonic_cst=[1] + [0] * 15, sdt_C=4, ccp_alpha=0.5)
    p = tree_params(rf, 100, 16, 2)
    assert (p.criterion, p.max_features, p.max_depth) == ("gini", 4, 4)
    assert (p.min_samples_split, p.min_samples_leaf) == (20, 10)  # a split leaves two leaves of 10 rows
    assert (p.min_weight_fraction_leaf, p.ccp_alpha) == (0.05, 0.5)
    assert p.monotonic_cst == (1.0,) + (0.0,) * 15 and p.sdt == (4.0, 8.0, 0.005, 20.0)
    assert p.min_weight_leaf(np.full(10, 2.0)) == 0.05 * 20.0
    with pytest.raises(FrozenInstanceError):
        p.max_depth = 5
    with pytest.raises(ValueError, match="multiclass"):
        tree_params(rf, 100, 16, 3)
    # an estimator without a parameter gets the engine's default; overrides win over the estimator's values
    gb = GradientBoostingRegressor(max_features=0.5)
    q = tree_params(gb, 50, 10, criterion="squared_error", min_samples_leaf=3)
    assert (q.max_features, q.min_samples_split, q.min_samples_leaf) == (5, 6, 3)
    assert (q.ccp_alpha, q.monotonic_cst, q.sdt) == (0.0, None, TreeParams("gini").sdt)
    with pytest.raises(ValueError, match="number of features"):
        TreeParams("gini", max_features="sqrt")
    with pytest.raises(ValueError, match="criterion"):
        TreeParams("mae")


def test_dominant_codes_are_the_codes_of_more_than_half_the_rows():
    from forestzoo._engine.binning import dominant_codes

    rng = np.random.RandomState(0)
    Xb = rng.randint(10, 40, size=(4, 301)).astype(np.uint8)
    Xb[1, :151] = 7  # 151 of 301 rows: more than half
    Xb[2, :150] = 3  # 150 of 301: not more than half
    Xb[3, :] = MISSING_BIN  # the missing bin is never a dominant code
    n_bins = np.full(4, 40, np.int32)
    expected = [-1, 7, -1, -1]
    for f in range(4):
        counts = np.bincount(Xb[f], minlength=256)[:40]
        assert expected[f] == (int(np.argmax(counts)) if 2 * counts.max() > Xb.shape[1] else -1)
    assert dominant_codes(Xb, n_bins).tolist() == expected


@pytest.mark.parametrize("max_bins", [255, 8])
def test_sparse_binning_equals_the_dense_one(max_bins):
    """Edges, codes, dominant codes and the row index of a CSC matrix are those of the same dense matrix."""
    import scipy.sparse as sp
    from forestzoo._engine.binning import dominant_codes, other_code_rows

    rng = np.random.RandomState(3)
    n = 400
    dense = np.zeros((n, 9))
    for f, share in enumerate([0.01, 0.2, 0.49, 0.5, 0.51, 0.9, 1.0, 0.0, 0.3]):
        rows = rng.uniform(size=n) < share
        dense[rows, f] = np.round(rng.normal(size=rows.sum()) * 4) / 4  # ties, negatives, and some zeros
    dense[rng.uniform(size=n) < 0.05, 1] = np.nan
    dense[:5, 8] = -0.0
    rows, cols = np.nonzero(dense != 0)
    zeros = [np.flatnonzero(dense[:, 0] == 0)[3], np.flatnonzero(dense[:, 2] == 0)[5]]
    rows, cols = np.append(rows, zeros), np.append(cols, [0, 2])  # two explicit zeros, stored
    X = sp.csc_matrix((dense[rows, cols], (rows, cols)), shape=dense.shape)
    X.sum_duplicates()
    assert X.nnz == np.count_nonzero(dense) + 2
    edges, n_bins = compute_bin_edges(X, max_bins)
    d_edges, d_bins = compute_bin_edges(dense, max_bins)
    np.testing.assert_array_equal(edges, d_edges)
    np.testing.assert_array_equal(n_bins, d_bins)
    Xb = bin_data(X, edges, n_bins)
    np.testing.assert_array_equal(Xb, bin_data(dense, edges, n_bins))
    dominant = dominant_codes(Xb, n_bins, edges, X)
    np.testing.assert_array_equal(dominant, dominant_codes(Xb, n_bins))
    assert (dominant >= 0).sum() >= 5
    for a, b in zip(other_code_rows(Xb, dominant, Xb.size, X), other_code_rows(Xb, dominant, Xb.size)):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    n_entries = other_code_rows(Xb, dominant, Xb.size)[0][-1]
    assert [a.size for a in other_code_rows(Xb, dominant, n_entries - 1, X)] == [0, 0]  # too many entries
    assert other_code_rows(Xb, dominant, n_entries, X)[1].size == n_entries


def _plain_quantile_edges(col, max_bins):
    """Reference: the edges of equal-row bins, cut at ranks round(i (n - 1) / max_bins) and snapped between values."""
    col = np.sort(col[~np.isnan(col)])
    uniq = np.unique(col)
    if uniq.size <= max_bins:
        pos = np.arange(1, uniq.size)
    else:
        ranks = np.round(np.linspace(0, col.size - 1, max_bins + 1)[1:-1]).astype(int)
        pos = np.unique(np.clip(np.searchsorted(uniq, col[ranks]), 1, uniq.size - 1))
    mid = 0.5 * (uniq[pos - 1] + uniq[pos])
    return np.where(mid >= uniq[pos], uniq[pos - 1], mid)


def _columns_with_heavy_values(rng):
    n = 20000
    cols = [np.zeros(n) for _ in range(5)]
    some = rng.choice(n, 800, replace=False)
    cols[0][some] = rng.uniform(size=800)  # 96 % zeros, 800 positives (a sparse column)
    cols[1][some] = rng.normal(size=800)  # zeros between negatives and positives
    cols[2] = np.where(rng.uniform(size=n) < 0.3, 1.5, rng.normal(size=n))  # a common level inside the range
    cols[2][rng.uniform(size=n) < 0.1] = -2.0  # and a second one
    cols[3] = rng.normal(size=n)  # no heavy value
    cols[3][rng.uniform(size=n) < 0.2] = np.nan
    cols[4] = np.round(rng.exponential(size=n), 2)  # ties, the smallest values heavy
    return np.column_stack(cols)


@pytest.mark.parametrize("max_bins", [255, 16])
def test_a_value_holding_many_rows_gets_a_bin_of_its_own(max_bins):
    """Quantile bins, except that a value holding more than 1 / max_bins of the rows is alone in its bin
    and the runs of values between such values share the other bins; the same edges from a CSC matrix."""
    import scipy.sparse as sp

    rng = np.random.RandomState(5)
    X = _columns_with_heavy_values(rng)
    edges, n_bins = compute_bin_edges(X, max_bins)
    for f in range(X.shape[1]):
        col = X[~np.isnan(X[:, f]), f]
        e = edges[f, :n_bins[f] - 1]
        assert np.all(np.diff(e) > 0) and n_bins[f] <= max_bins
        uniq, counts = np.unique(col, return_counts=True)
        heavy = uniq[counts * max_bins > col.size]
        if heavy.size == 0:
            np.testing.assert_array_equal(e, _plain_quantile_edges(col, max_bins))
            continue
        codes = np.searchsorted(e, col, side="left")
        for v in heavy:
            assert np.all(col[codes == codes[col == v][0]] == v)  # alone in its bin
        # the other values: about as many rows per bin in every run
        light = ~np.isin(col, heavy)
        per_bin = np.bincount(codes[light])
        per_bin = per_bin[per_bin > 0]
        assert per_bin.max() <= 3 * light.sum() / (max_bins - heavy.size) + counts[~np.isin(uniq, heavy)].max()
    assert np.unique(np.searchsorted(edges[0, :n_bins[0] - 1], X[X[:, 0] > 0, 0])).size == max_bins - 1
    # plain quantiles would have given the 800 positives of a 96 %-zero column a handful of bins
    assert _plain_quantile_edges(X[:, 0], max_bins).size < max_bins // 4
    for n_threads in (1, 2):
        s_edges, s_bins = compute_bin_edges(sp.csc_matrix(np.nan_to_num(X, nan=np.nan)), max_bins, n_threads=n_threads)
        np.testing.assert_array_equal(s_edges, edges)
        np.testing.assert_array_equal(s_bins, n_bins)


@pytest.mark.parametrize("max_bins", [255, 16, 3, 2])
def test_sparse_columns_binned_at_once_have_the_dense_columns_edges_and_bounds(max_bins):
    """Columns whose least value (0) is their one heavy value are binned for a whole block at once; their edges,
    bins and bin bounds are those of the same columns made dense (binned one by one), as are the other columns'."""
    import scipy.sparse as sp

    rng = np.random.RandomState(7)
    for trial, density in enumerate([0.2, 0.01, 0.6, 0.999]):
        X = sp.random(3000, 12, density=density, format="csc", random_state=trial)
        if trial == 1:
            X.data = np.round(X.data * 50) / 50  # ties
        if trial == 2:
            X.data[rng.uniform(size=X.data.size) < 0.05] = np.nan
            X.data[: X.data.size // 3] -= 0.5  # zeros inside the range in some columns
        edges, n_bins, bounds = compute_bin_edges(X, max_bins, bounds=True)
        d_edges, d_bins, d_bounds = compute_bin_edges(X.toarray(), max_bins, bounds=True)
        np.testing.assert_array_equal(edges, d_edges)
        np.testing.assert_array_equal(n_bins, d_bins)
        np.testing.assert_array_equal(bounds, d_bounds)
        if trial == 0:
            assert (n_bins == max_bins).all()  # ~600 distinct values a column, 0 the heavy least


@pytest.mark.parametrize("n_classes", [2, 5])
def test_skip_histogram_equals_the_full_build_for_integer_weights(n_classes):
    from forestzoo._engine.splitters.hist import build_histogram_cls, build_node_histogram_cls, integral_weights

    rng = np.random.RandomState(n_classes)
    n, n_bins = 3000, 60
    codes = np.where(rng.uniform(size=n) < 0.9, 5, rng.randint(0, n_bins, size=n)).astype(np.uint8)
    codes[rng.uniform(size=n) < 0.02] = MISSING_BIN
    idx = np.sort(rng.choice(n, 1700, replace=False)).astype(np.uint32)
    start, end = 100, 1600
    w = rng.poisson(1.0, size=idx.shape[0]).astype(np.float64) + 1.0  # node-ordered bootstrap counts
    yk = rng.randint(0, n_classes, size=idx.shape[0]).astype(np.int32)
    total = np.zeros(2 + n_classes)
    total[0] = end - start
    total[1] = w[start:end].sum()
    np.add.at(total, 2 + yk[start:end], w[start:end])
    full = np.full((256, 2 + n_classes), np.nan)
    skip = np.full((256, 2 + n_classes), np.nan)
    build_histogram_cls(codes, idx, start, end, w, yk, np.empty(0), n_bins, full)
    build_node_histogram_cls(codes, idx, start, end, w, yk, np.empty(0), n_bins, skip, 5, total)
    assert integral_weights(w)
    np.testing.assert_array_equal(skip[:n_bins], full[:n_bins])
    np.testing.assert_array_equal(skip[MISSING_BIN], full[MISSING_BIN])
    plain = np.full((256, 2 + n_classes), np.nan)
    build_node_histogram_cls(codes, idx, start, end, w, yk, np.empty(0), n_bins, plain, -1, total)
    np.testing.assert_array_equal(plain[:n_bins], full[:n_bins])
    np.testing.assert_array_equal(plain[MISSING_BIN], full[MISSING_BIN])
    assert not integral_weights(w * 0.5 + 0.25)
    assert not integral_weights(np.array([2.0**53, 1.0]))


@pytest.mark.parametrize("n_classes", [2, 4])
def test_column_search_equals_the_histogram_search(n_classes):
    """A large node's search of a feature from its stored codes gives the histogram search's record, bit for bit."""
    from forestzoo._engine.binning import other_code_rows
    from forestzoo._engine.builder import _NO_CODE_ROWS
    from forestzoo._engine.splitters._common import REC_COST, REC_FEATURE, REC_SIZE, reset_record
    from forestzoo._engine.splitters.hist import (
        build_node_histogram_cls, column_index, column_setup, split_column_cls, split_histogram_cls,
    )

    rng = np.random.RandomState(7 + n_classes)
    n_features, n_samples, n_bins = 6, 2500, 40
    Xb = np.where(rng.uniform(size=(n_features, n_samples)) < 0.93, 3,
                  rng.randint(0, n_bins, size=(n_features, n_samples))).astype(np.uint8)
    Xb[rng.uniform(size=Xb.shape) < 0.01] = MISSING_BIN
    Xb[4, 1000:] = 3  # a feature whose stored codes all lie in the first rows
    dominant = np.array([3, 3, -1, 3, 3, 3], np.int32)
    Xb[2] = rng.randint(0, n_bins, size=n_samples)  # no dominant code: not in the index
    row_ptr, row_feat = other_code_rows(Xb, dominant, Xb.size)
    columns = column_index(row_ptr, row_feat, Xb)
    col_ptr, col_rows, col_codes, row_code = columns
    rows_of_entries = np.repeat(np.arange(n_samples), np.diff(row_ptr))
    assert row_code.tolist() == Xb[row_feat, rows_of_entries].tolist()
    for f in range(n_features):
        rows = col_rows[col_ptr[f]:col_ptr[f + 1]]
        expected = np.flatnonzero(Xb[f] != dominant[f]) if dominant[f] >= 0 else np.zeros(0, int)
        assert rows.tolist() == expected.tolist()
        assert col_codes[col_ptr[f]:col_ptr[f + 1]].tolist() == Xb[f, expected].tolist()
    # nodes: sorted subsets of the rows at positions start .. end - 1 of idx, node-ordered weights
    idx = np.sort(rng.choice(n_samples, 1900, replace=False)).astype(np.uint32)
    n_stats = 2 + n_classes
    (col_ptr, col_rows, col_codes, row_pos, _, _, _, ent_pos, ent_code, sort_code, sort_pos, groups,
     group_code, _, _, _, _) = column_setup(True, columns + _NO_CODE_ROWS, row_ptr, idx, n_stats, False)
    assert row_pos[idx].tolist() == list(range(idx.size))
    w = rng.poisson(1.0, size=idx.size).astype(np.float64) + 1.0
    yk = rng.randint(0, n_classes, size=idx.size).astype(np.int32)
    edges = np.sort(rng.normal(size=(n_features, 256)), axis=1)
    counts = np.empty(MISSING_BIN + 1, np.int64)
    n_found = 0
    for start, end in [(150, 1700), (1200, 1900), (0, 300)]:
        total = np.zeros(n_stats)
        total[0] = end - start
        total[1] = w[start:end].sum()
        np.add.at(total, 2 + yk[start:end], w[start:end])
        for f in (0, 1, 3, 4, 5):
            for criterion, min_samples_leaf in [(0, 1), (1, 1), (0, 40)]:
                one, two = np.empty(REC_SIZE), np.empty(REC_SIZE)
                reset_record(one)
                reset_record(two)
                one[REC_COST] = two[REC_COST] = 1e300  # a record to beat
                hist = np.full((256, n_stats), np.nan)
                build_node_histogram_cls(Xb[f], idx, start, end, w, yk, np.empty(0), n_bins, hist, 3, total)
                a = split_histogram_cls(f, hist, n_bins, edges, total, min_samples_leaf, 0.0, criterion,
                                        np.empty(n_stats), np.empty(n_stats), one, 0.0, -np.inf, np.inf)
                b = split_column_cls(f, col_ptr, col_rows, col_codes, row_pos, start, end, 3, w, yk, edges, total,
                                     min_samples_leaf, 0.0, criterion, ent_pos, ent_code, sort_code, sort_pos, counts,
                                     groups, group_code, np.empty(n_stats), np.empty(n_stats), np.empty(n_stats), two,
                                     0.0, -np.inf, np.inf)
                assert a == b
                np.testing.assert_array_equal(one, two)
                n_found += one[REC_FEATURE] == f
    assert n_found > 20


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("criterion", [0, 1])  # gini, entropy
@pytest.mark.parametrize("min_samples_leaf", [1, 3])
@pytest.mark.parametrize("with_nan", [False, True])
def test_small_node_search_from_entries_equals_the_sorted_scan(n_classes, criterion, min_samples_leaf, with_nan):
    """A small node's search of a feature from its row-index entries gives split_small_cls's record, bit for bit."""
    from forestzoo._engine.binning import other_code_rows
    from forestzoo._engine.builder import _NO_CODE_ROWS
    from forestzoo._engine.splitters._common import REC_COST, REC_FEATURE, REC_SIZE, reset_record
    from forestzoo._engine.splitters.hist import (
        SMALL_NODE, clear_node_entries, column_index, column_setup, gather_drawn_entries, gather_node_entries,
        split_small_cls, split_sparse_small_cls,
    )

    rng = np.random.RandomState(11 * n_classes + 5 * criterion + min_samples_leaf + 2 * with_nan)
    n_features, n_samples, n_bins = 40, 3000, 30
    # per feature a share of rows off the dominant code, from very sparse to every row
    share = np.concatenate([[0.0, 0.002, 0.01, 0.03], rng.uniform(0.0, 0.45, n_features - 6), [0.49, 0.0]])
    dominant = rng.randint(0, n_bins, n_features).astype(np.int32)
    off = rng.uniform(size=(n_features, n_samples)) < share[:, None]
    other = (dominant[:, None] + 1 + rng.randint(0, 3, (n_features, n_samples))) % n_bins  # few distinct codes
    Xb = np.where(off, other, dominant[:, None]).astype(np.uint8)
    if with_nan:
        Xb[(rng.uniform(size=Xb.shape) < 0.02) & (np.arange(n_features) % 3 == 0)[:, None]] = MISSING_BIN
    dominant[-1] = -1  # a feature without a dominant code is not in the index
    Xb[-1] = rng.randint(0, n_bins, n_samples)
    row_ptr, row_feat = other_code_rows(Xb, dominant, Xb.size)
    idx = np.sort(rng.choice(n_samples, 2600, replace=False)).astype(np.uint32)
    n_stats = 2 + n_classes
    (col_ptr, col_rows, col_codes, row_pos, row_code, touched, ent_off, ent_pos, ent_code, sort_code, sort_pos,
     groups, group_code, hits, _, _, _) = column_setup(True, column_index(row_ptr, row_feat, Xb) + _NO_CODE_ROWS,
                                                       row_ptr, idx, n_stats, False)
    w = rng.poisson(1.0, size=idx.size).astype(np.float64) + 1.0
    yk = rng.randint(0, n_classes, size=idx.size).astype(np.int32)
    if n_classes == 2:
        yk[:1300] = 0  # long runs of one class: the boundary skipping of the scan is exercised
    edges = np.sort(rng.normal(size=(n_features, 256)), axis=1)
    marks = np.zeros(n_features, np.int32)
    keys, samples = np.empty(SMALL_NODE), np.empty(SMALL_NODE, np.uint32)
    counts = np.empty(MISSING_BIN + 1, np.int64)
    n_compared = n_found = 0
    for start, end in [(0, 255), (400, 420), (1000, 1003), (2000, 2130), (2500, 2600), (700, 701)]:
        total = np.zeros(n_stats)
        total[0] = end - start
        total[1] = w[start:end].sum()
        np.add.at(total, 2 + yk[start:end], w[start:end])
        # the entries of a few drawn features, gathered alone, are those of the full gather below
        feats = rng.permutation(n_features).astype(np.int32)
        n_drawn = 7
        gather_drawn_entries(idx, start, end, row_ptr, row_feat, row_code, feats, n_drawn, marks, ent_off, ent_pos,
                             ent_code, sort_pos, hits)
        drawn = {f: (ent_pos[ent_off[f] - marks[f]:ent_off[f]].tolist(),
                     ent_code[ent_off[f] - marks[f]:ent_off[f]].tolist()) for f in feats[:n_drawn]}
        assert marks[feats[n_drawn:]].sum() == 0
        marks[feats[:n_drawn]] = 0
        t = gather_node_entries(idx, start, end, row_ptr, row_feat, row_code, marks, touched, ent_off, ent_pos,
                                ent_code, True)
        for f, (pos, codes) in drawn.items():
            assert pos == ent_pos[ent_off[f] - marks[f]:ent_off[f]].tolist()
            assert codes == ent_code[ent_off[f] - marks[f]:ent_off[f]].tolist()
        for f in range(n_features - 1):
            k = marks[f]
            rows = idx[start:end]
            assert k == np.count_nonzero(Xb[f, rows] != dominant[f])
            if k == 0:
                continue
            assert ent_pos[ent_off[f] - k:ent_off[f]].tolist() == (start + np.flatnonzero(Xb[f, rows] !=
                                                                                      dominant[f])).tolist()
            # monotonic constraints (two classes): increasing within bounds, decreasing
            constraints = [(0.0, -np.inf, np.inf)] + [(1.0, 0.05, 0.95), (-1.0, -np.inf, np.inf)] * (n_classes == 2)
            for cst, lo, hi in constraints:
                one, two = np.empty(REC_SIZE), np.empty(REC_SIZE)
                reset_record(one)
                reset_record(two)
                one[REC_COST] = two[REC_COST] = 1e300  # a record to beat
                a = split_small_cls(f, Xb[f], idx, start, end, w, yk, np.empty(0), edges, total, min_samples_leaf,
                                    0.0, criterion, keys, samples, np.empty(n_stats), counts, np.empty(n_stats),
                                    np.empty(n_stats), one, cst, lo, hi)
                b = split_sparse_small_cls(f, ent_pos, ent_code, ent_off[f] - k, ent_off[f], dominant[f], w, yk,
                                           edges, total, min_samples_leaf, 0.0, criterion, sort_code, sort_pos, counts,
                                           groups, group_code, np.empty(n_stats), np.empty(n_stats),
                                           np.empty(n_stats), two, cst, lo, hi)
                assert a == b
                np.testing.assert_array_equal(one, two)
                n_compared += 1
                n_found += one[REC_FEATURE] == f
        clear_node_entries(marks, touched, t)
        assert not marks.any()
    assert n_compared > 100 and n_found > 50


def test_sort_codes_reports_a_constant_feature_as_no_candidate():
    from forestzoo._engine.splitters.hist import _sort_codes_cls

    rng = np.random.RandomState(0)
    idx = np.arange(40, dtype=np.uint32)
    w = np.ones(40)
    yk = rng.randint(0, 2, 40).astype(np.int32)
    bufs = (np.empty(40), np.empty(40, np.uint32), np.zeros(4), np.empty(256, np.int64))
    for n in (10, 40):  # insertion sort and counting sort
        for constant in (0, 17, MISSING_BIN):
            codes = np.full(40, constant, np.uint8)
            assert _sort_codes_cls(codes, idx, 0, n, w, yk, np.empty(0), 0, *bufs) == 0
        codes = np.full(40, 3, np.uint8)
        codes[n - 1] = 9
        keys, samples, miss, counts = bufs
        assert _sort_codes_cls(codes, idx, 0, n, w, yk, np.empty(0), 0, *bufs) == n
        assert keys[n - 1] == 9 and samples[n - 1] == n - 1 and miss[0] == 0.0


def test_candidates_drawn_ahead_can_be_given_back():
    """draw_features(k) then undraw_features(j, k) leaves the features and the random state of j single draws."""
    from numba import njit as plain_njit

    from forestzoo._engine.rng import make_state
    from forestzoo._engine.splitters._common import draw_feature, draw_features, undraw_features

    @plain_njit
    def ahead(feats, rng, partners, j, k):
        draw_features(feats, k, rng, partners)
        drawn = feats[:k].copy()
        undraw_features(feats, j, k, rng, partners)
        return drawn

    @plain_njit
    def one_by_one(feats, rng, k):
        for jj in range(k):
            draw_feature(feats, jj, rng)

    for n, j, k in ((50, 3, 10), (7, 0, 7), (7, 7, 7), (1000, 31, 32)):
        a, b = np.arange(n), np.arange(n)
        ra, rb = make_state(11), make_state(11)
        drawn = ahead(a, ra, np.empty(n, np.int32), j, k)
        one_by_one(b, rb, k)
        assert np.array_equal(drawn, b[:k])  # the k draws are the k single draws
        b, rb = np.arange(n), make_state(11)
        one_by_one(b, rb, j)
        assert np.array_equal(a, b) and ra[0] == rb[0]


def test_other_code_rows_lists_each_rows_non_dominant_codes():
    from forestzoo._engine.binning import other_code_rows

    rng = np.random.RandomState(1)
    Xb = np.where(rng.uniform(size=(5, 50)) < 0.8, 2, rng.randint(0, 9, size=(5, 50))).astype(np.uint8)
    dominant = np.array([2, -1, 2, 2, -1], np.int32)
    row_ptr, row_feat = other_code_rows(Xb, dominant, 10**6)
    for i in range(50):
        expected = [f for f in range(5) if dominant[f] >= 0 and Xb[f, i] != dominant[f]]
        assert row_feat[row_ptr[i]:row_ptr[i + 1]].tolist() == expected
    assert [a.size for a in other_code_rows(Xb, dominant, row_ptr[-1] - 1)] == [0, 0]  # too many entries


@pytest.mark.parametrize("criterion, weights", [("gini", "bootstrap"), ("entropy", "fractional"),
                                                ("squared_error", "bootstrap")])
def test_dominant_bins_and_row_index_leave_the_tree_unchanged(criterion, weights):
    """The skipped dominant bin and the small-node row index are shortcuts: the tree is the plain search's."""
    import dataclasses

    rng = np.random.RandomState(3)
    n, d = 3000, 40
    X = np.where(rng.uniform(size=(n, d)) < 0.95, 0.0, rng.normal(size=(n, d)))
    X[:, :3] = rng.normal(size=(n, 3))  # dense columns: no dominant code
    score = X[:, :6].sum(axis=1) + X[:, 10:20].sum(axis=1)
    yk = (score > 0).astype(np.int32) + (score > 1.5).astype(np.int32)
    yr = score + 0.1 * rng.normal(size=n)
    w = rng.poisson(1.0, size=n).astype(np.float64) if weights == "bootstrap" else rng.uniform(0.5, 2.0, size=n)
    data = prepare_data(X, "hist", 255)
    assert data.dominant is not None and (data.dominant >= 0).sum() >= d - 3
    assert data.row_ptr.size == n + 1  # the index is built for data this sparse
    plain = dataclasses.replace(data, dominant=None, row_ptr=None, row_feat=None)
    for max_features in (None, 6):
        params = TreeParams(criterion, max_features=max_features)
        target = TreeTarget(yk, yr, 3 if criterion != "squared_error" else 1)
        fast = grow(data, target, w, params, 5)
        slow = grow(plain, target, w, params, 5)
        assert fast.node_count > 100
        assert np.array_equal(fast.nodes, slow.nodes)
        assert np.array_equal(fast.values, slow.values)
