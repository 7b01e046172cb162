"""Online random forests: kernels against naive references, partial_fit semantics, reliability."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1

from forestzoo import OnlineRandomForestClassifier, OnlineRandomForestRegressor
from forestzoo._engine.tree import TREE_LEAF
from forestzoo.online._kernels import ENTROPY, GINI, VARIANCE, _add, _gain


def test_eq_5_to_9_running_triplet_equals_batch_mean_and_variance():
    y = np.random.RandomState(0).normal(3.0, 2.0, size=500)
    st = np.zeros(3)
    for i, v in enumerate(y):
        _add(st, 0, v, VARIANCE)
        assert st[0] == i + 1
        assert st[1] == pytest.approx(y[: i + 1].mean(), rel=1e-12)
        assert st[2] == pytest.approx(y[: i + 1].var(), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("criterion", [ENTROPY, GINI])
@pytest.mark.parametrize("high", [20, 10_000])  # 10,000: counts beyond the x log2 x table
def test_classification_gain_equals_naive(criterion, high):
    rng = np.random.RandomState(1)
    for _ in range(20):
        left, right = rng.randint(0, high, 4).astype(float), rng.randint(0, high, 4).astype(float)

        def imp(c):
            p = c[c > 0] / c.sum()
            return -np.sum(p * np.log2(p)) if criterion == ENTROPY else 1 - np.sum(p**2)

        n = left.sum() + right.sum()
        expected = imp(left + right) - left.sum() / n * imp(left) - right.sum() / n * imp(right)
        assert _gain(left, right, criterion) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("criterion", [ENTROPY, GINI])
def test_gain_of_a_one_class_split_is_exactly_zero(criterion):
    # min_gain=0 splits on any gain > 0: a rounding residue must not split a pure leaf
    for nl, nr in [(1, 2), (3, 7), (4095, 1), (5000, 123)]:
        left, right = np.array([0.0, nl, 0.0]), np.array([0.0, nr, 0.0])
        assert _gain(left, right, criterion) == 0.0


def test_regression_gain_equals_naive_delta_e():
    rng = np.random.RandomState(2)
    a, b = rng.normal(0, 1, 40), rng.normal(1, 2, 60)
    sa, sb = np.zeros(3), np.zeros(3)
    for v in a:
        _add(sa, 0, v, VARIANCE)
    for v in b:
        _add(sb, 0, v, VARIANCE)
    both = np.concatenate((a, b))
    expected = both.var() - 0.4 * a.var() - 0.6 * b.var()  # lecture's Delta E
    assert _gain(sa, sb, VARIANCE) == pytest.approx(expected, rel=1e-9)


def _stream(n=4000, seed=0):
    return make_classification(n_samples=n, n_features=8, n_informative=5, random_state=seed)


def _feed(model, X, y, batch, **kw):
    for s in range(0, X.shape[0], batch):
        model.partial_fit(X[s:s + batch], y[s:s + batch], **kw)
    return model


def test_batch_size_does_not_change_the_model():
    X, y = _stream(1500)
    models = [_feed(OnlineRandomForestClassifier(n_estimators=3, min_samples_split=20, random_state=0), X, y, b,
                    classes=[0, 1]) for b in (1500, 64, 1)]
    for m in models[1:]:
        for a, b in zip(models[0].estimators_, m.estimators_):
            assert a.node_count == b.node_count > 3
            np.testing.assert_array_equal(a.nodes, b.nodes)
            np.testing.assert_array_equal(a.values, b.values)


def test_tree_arrays_follow_the_engine_layout_and_leaf_values_are_their_counts():
    X, y = _stream(3000)
    m = OnlineRandomForestClassifier(n_estimators=2, min_samples_split=30, random_state=0).fit(X, y)
    f = m.forest_
    for t, tree in enumerate(m.estimators_):
        nodes = tree.nodes
        internal = np.flatnonzero(nodes["left"] != TREE_LEAF)
        assert np.all(nodes["left"][internal] > internal) and np.all(nodes["right"][internal] > internal)
        leaves = np.flatnonzero(nodes["left"] == TREE_LEAF)
        st = f.stats[t, f.slot[t, leaves]]
        np.testing.assert_allclose(tree.values[leaves], st / st.sum(axis=1, keepdims=True))
    # prediction is the engine's predictor over those arrays
    manual = np.mean([tree.predict(X.astype(np.float32)) for tree in m.estimators_], axis=0)
    np.testing.assert_allclose(m.predict_proba(X), manual)


def test_same_model_for_any_n_jobs():
    X, y = _stream(2000)
    # batches large enough to be shared between threads (small ones are learned in the calling thread)
    a = _feed(OnlineRandomForestClassifier(n_estimators=4, n_jobs=1, random_state=3), X, y, 1000, classes=[0, 1])
    b = _feed(OnlineRandomForestClassifier(n_estimators=4, n_jobs=2, random_state=3), X, y, 1000, classes=[0, 1])
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_pickle_and_resume_equals_one_uninterrupted_stream():
    X, y = make_friedman1(n_samples=3000, random_state=0)
    straight = _feed(OnlineRandomForestRegressor(n_estimators=3, random_state=0), X, y, 250)
    half = _feed(OnlineRandomForestRegressor(n_estimators=3, random_state=0), X[:1500], y[:1500], 250)
    resumed = _feed(pickle.loads(pickle.dumps(half)), X[1500:], y[1500:], 250)
    np.testing.assert_array_equal(straight.predict(X), resumed.predict(X))


def test_memory_bounds():
    X, y = _stream(4000)
    m = OnlineRandomForestClassifier(n_estimators=3, min_samples_split=5, max_nodes=31, random_state=0).fit(X, y)
    assert np.all(m.get_n_nodes() <= 31) and np.all(m.get_n_nodes() >= 25)
    m = OnlineRandomForestClassifier(n_estimators=3, min_samples_split=5, max_depth=3, random_state=0).fit(X, y)
    assert max(t.max_depth for t in m.estimators_) == 3


def test_prequential_accuracy_floors():
    X, y = _stream(6000, seed=4)
    m = OnlineRandomForestClassifier(n_estimators=10, random_state=0)
    correct = 0
    m.partial_fit(X[:100], y[:100], classes=[0, 1])
    for s in range(100, 6000, 100):
        correct += np.sum(m.predict(X[s:s + 100]) == y[s:s + 100])
        m.partial_fit(X[s:s + 100], y[s:s + 100])
    assert correct / 5900 > 0.85
    Xr, yr = make_friedman1(n_samples=6000, random_state=1)
    r = OnlineRandomForestRegressor(n_estimators=10, random_state=0).partial_fit(Xr[:5000], yr[:5000])
    assert r.score(Xr[5000:], yr[5000:]) > 0.7


def _state(model):
    return pickle.dumps(model)


def test_a_bad_batch_leaves_the_model_exactly_as_before():
    X, y = _stream(600)
    m = OnlineRandomForestClassifier(n_estimators=3, min_samples_split=10, random_state=0)
    m.partial_fit(X[:300], y[:300], classes=[0, 1])
    before = _state(m)
    X_nan = X[300:310].copy()
    X_nan[3, 2] = np.nan
    bad_batches = [
        ((X[300:310, :5], y[300:310]), "X has 5 features, but OnlineRandomForestClassifier is expecting 8"),
        ((X_nan, y[300:310]), "NaN"),
        ((X[300:310], np.full(10, 7)), r"not in classes_"),
        ((X[300:310], y[300:309]), "inconsistent numbers of samples"),
        ((X[300:310], y[300:310], [0, 1, 2]), "differs from the classes of the first call"),
    ]
    for args, msg in bad_batches:
        kw = {"classes": args[2]} if len(args) == 3 else {}
        with pytest.raises(ValueError, match=msg):
            m.partial_fit(args[0], args[1], **kw)
        assert _state(m) == before
    m.partial_fit(X[300:], y[300:])  # still usable


def test_first_partial_fit_needs_classes_and_regressor_rejects_bad_targets():
    X, y = _stream(50)
    with pytest.raises(ValueError, match="classes must be given on the first call"):
        OnlineRandomForestClassifier().partial_fit(X, y)
    r = OnlineRandomForestRegressor(n_estimators=2).partial_fit(X, y.astype(float))
    before = _state(r)
    with pytest.raises(ValueError, match="finite"):
        r.partial_fit(X, np.full(50, np.inf))
    assert _state(r) == before


@pytest.mark.parametrize("y", [np.array(["a", 1] * 10, dtype=object), ["a", 1] * 10])
def test_mixed_string_and_number_labels_get_the_shared_message(y):
    # found by the 1,000-input fuzz run: fit sorted the labels (np.unique) before the shared
    # check, and raised TypeError "'<' not supported between 'int' and 'str'"
    X = np.random.RandomState(0).rand(20, 3)
    with pytest.raises(ValueError, match="mixes string and non-string labels"):
        OnlineRandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)


def test_a_small_batch_is_learned_in_place_and_growth_does_not_change_the_model():
    # min_samples_split=2 lets one row split several times: the tightest case of the capacity reserved per batch
    X, y = make_friedman1(n_samples=1200, random_state=1)
    rng = np.random.RandomState(0)
    model = OnlineRandomForestRegressor(n_estimators=3, min_samples_split=2, random_state=0)
    start, in_place = 0, 0
    while start < X.shape[0]:
        stop = start + int(rng.randint(1, 40))
        before = getattr(model, "forest_", None)
        model.partial_fit(X[start:stop], y[start:stop])
        in_place += model.forest_ is before
        start = stop
    assert in_place > 0 and model.n_samples_seen_ == X.shape[0]
    whole = OnlineRandomForestRegressor(n_estimators=3, min_samples_split=2, random_state=0).fit(X, y)
    assert whole.get_n_nodes().min() > 100
    for a, b in zip(whole.estimators_, model.estimators_):
        np.testing.assert_array_equal(a.nodes, b.nodes)
        np.testing.assert_array_equal(a.values, b.values)
