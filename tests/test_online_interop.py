"""Online forests continuing from a batch-fitted forest (``init_forest``)."""

import pickle

import numpy as np
import pytest
from sklearn import ensemble as ske
from sklearn.datasets import make_classification, make_friedman1

import forestzoo
from forestzoo import (ExtraTreesClassifier, ExtraTreesRegressor, OnlineRandomForestClassifier,
                       OnlineRandomForestRegressor, RandomForestClassifier, RandomForestRegressor)
from forestzoo._engine.tree import TREE_LEAF


def _cls_data(n=1500, seed=0):
    return make_classification(n_samples=n, n_features=6, n_informative=4, n_classes=3, random_state=seed)


def _reg_data(n=1500, seed=0):
    return make_friedman1(n_samples=n, n_features=6, random_state=seed)


# forests fitted without bootstrap and weights: the leaves' class counts (or mean targets) of the training rows
# are exactly what the batch forest stores
EXACT_CLASSIFIERS = {
    "forestzoo ExtraTrees": lambda: ExtraTreesClassifier(n_estimators=4, random_state=0),
    "forestzoo RandomForest": lambda: RandomForestClassifier(n_estimators=4, bootstrap=False, max_features=2,
                                                             random_state=0),
    "sklearn RandomForest": lambda: ske.RandomForestClassifier(n_estimators=4, bootstrap=False, max_features=2,
                                                               random_state=0),
    "sklearn ExtraTrees": lambda: ske.ExtraTreesClassifier(n_estimators=4, min_samples_leaf=3, random_state=0),
}
EXACT_REGRESSORS = {
    "forestzoo ExtraTrees": lambda: ExtraTreesRegressor(n_estimators=4, random_state=0),
    "forestzoo RandomForest": lambda: RandomForestRegressor(n_estimators=4, bootstrap=False, max_features=3,
                                                            random_state=0),
    "sklearn RandomForest": lambda: ske.RandomForestRegressor(n_estimators=4, bootstrap=False, max_features=3,
                                                              min_samples_leaf=4, random_state=0),
}


@pytest.mark.parametrize("drift", ["adwin", None])
@pytest.mark.parametrize("name", list(EXACT_CLASSIFIERS))
def test_classifier_from_a_batch_forest_predicts_as_it(name, drift):
    X, y = _cls_data()
    batch = EXACT_CLASSIFIERS[name]().fit(X[:1000], y[:1000])
    orf = OnlineRandomForestClassifier(n_estimators=4, drift=drift, random_state=0)
    orf.fit(X[:1000], y[:1000], init_forest=batch)
    np.testing.assert_array_equal(orf.predict_proba(X[1000:]), batch.predict_proba(X[1000:]))
    np.testing.assert_array_equal(orf.predict(X[1000:]), batch.predict(X[1000:]))
    assert orf.n_samples_seen_ == 1000
    # the same through the first partial_fit
    orf2 = OnlineRandomForestClassifier(n_estimators=4, drift=drift, random_state=0)
    orf2.partial_fit(X[:1000], y[:1000], classes=[0, 1, 2], init_forest=batch)
    np.testing.assert_array_equal(orf2.predict_proba(X[1000:]), batch.predict_proba(X[1000:]))


@pytest.mark.parametrize("name", list(EXACT_REGRESSORS))
def test_regressor_from_a_batch_forest_predicts_as_it(name):
    X, y = _reg_data()
    batch = EXACT_REGRESSORS[name]().fit(X[:1000], y[:1000])
    orf = OnlineRandomForestRegressor(n_estimators=4, random_state=0).partial_fit(X[:1000], y[:1000],
                                                                                  init_forest=batch)
    # a leaf's mean is the sum of its targets over their count: equal to rounding
    np.testing.assert_allclose(orf.predict(X[1000:]), batch.predict(X[1000:]), rtol=1e-12, atol=1e-12)


def test_bootstrap_forest_keeps_its_splits_and_leaves_count_every_training_row():
    # with bootstrap the batch leaves hold the counts of each tree's draw; the online leaves hold those of all rows
    X, y = _cls_data()
    X32 = X.astype(np.float32)
    batch = ske.RandomForestClassifier(n_estimators=3, max_depth=6, random_state=0).fit(X[:1000], y[:1000])
    orf = OnlineRandomForestClassifier(n_estimators=3, n_tests=7, drift=None, random_state=0)
    orf.fit(X[:1000], y[:1000], init_forest=batch)
    forest = orf.forest_
    for t, (est, tree) in enumerate(zip(batch.estimators_, orf.estimators_)):
        sk = est.tree_
        np.testing.assert_array_equal(tree.nodes["left"], sk.children_left)
        np.testing.assert_array_equal(tree.nodes["right"], sk.children_right)
        internal = sk.children_left != TREE_LEAF
        np.testing.assert_array_equal(tree.nodes["feature"][internal], sk.feature[internal])
        np.testing.assert_array_equal(tree.nodes["threshold"][internal], sk.threshold[internal])
        leaf_of = est.apply(X32[:1000])
        for leaf in np.flatnonzero(~internal):
            rows = leaf_of == leaf
            counts = np.bincount(y[:1000][rows], minlength=3).astype(float)
            s = forest.slot[t, leaf]
            np.testing.assert_array_equal(forest.stats[t, s], counts)
            assert forest.seen[t, s] == rows.sum()
            if rows.any():
                np.testing.assert_array_equal(tree.values[leaf], counts / counts.sum())
            else:  # no training row reaches it: the batch tree's value is kept
                np.testing.assert_array_equal(tree.values[leaf], sk.value[leaf, 0])
            # every candidate split lies in the leaf's region and its two sides count the leaf's rows
            for j in range(7):
                thr = forest.tthr[t, s, j]
                if thr == thr:
                    f = forest.tfeat[t, s, j]
                    left = rows & (X32[:1000, f] <= thr)
                    np.testing.assert_array_equal(forest.tstats[t, s, j, 0],
                                                  np.bincount(y[:1000][left], minlength=3))
                    np.testing.assert_array_equal(forest.tstats[t, s, j].sum(axis=0), counts)
        assert forest.counts[t, 2] == 1000
        np.testing.assert_array_equal(forest.fmin[t], X32[:1000].min(axis=0))
        np.testing.assert_array_equal(forest.fmax[t], X32[:1000].max(axis=0))


def test_regressor_leaves_hold_the_mean_and_mean_squared_deviation_of_their_rows():
    X, y = _reg_data()
    batch = RandomForestRegressor(n_estimators=2, max_depth=4, random_state=0).fit(X[:800], y[:800])
    orf = OnlineRandomForestRegressor(n_estimators=2, drift=None, random_state=0).fit(X[:800], y[:800],
                                                                                     init_forest=batch)
    X32 = X[:800].astype(np.float32)
    for t, tree in enumerate(orf.estimators_):
        leaf_of = batch.estimators_[t].apply(X32) if hasattr(batch.estimators_[t], "apply") else None
        if leaf_of is None:
            pytest.skip("no apply on the batch trees")
        for leaf in np.unique(leaf_of):
            rows = y[:800][leaf_of == leaf]
            s = orf.forest_.slot[t, leaf]
            n, mu, e = orf.forest_.stats[t, s]
            assert n == rows.shape[0]
            assert mu == pytest.approx(rows.mean(), rel=1e-12)
            assert e == pytest.approx(rows.var(), rel=1e-9, abs=1e-12)
            assert tree.values[leaf, 0] == mu


def test_continued_partial_fit_grows_the_given_trees_and_is_deterministic():
    X, y = _cls_data(4000)
    batch = ExtraTreesClassifier(n_estimators=4, max_depth=5, random_state=0).fit(X[:1000], y[:1000])
    base_nodes = [t.node_count for t in forestzoo.interop.forest_trees(batch)[0]]

    def run(batch_size):
        orf = OnlineRandomForestClassifier(n_estimators=4, random_state=3).fit(X[:1000], y[:1000], init_forest=batch)
        for s in range(1000, 3000, batch_size):
            e = min(s + batch_size, 3000)
            orf.partial_fit(X[s:e], y[s:e])
        return orf

    a, b = run(100), run(7)
    assert a.n_samples_seen_ == 3000
    grown = a.get_n_nodes()
    assert np.all(grown >= np.array(base_nodes)) and np.any(grown > np.array(base_nodes))
    for ta, tb in zip(a.estimators_, b.estimators_):  # batch size does not change the continued model
        np.testing.assert_array_equal(ta.nodes, tb.nodes)
        np.testing.assert_array_equal(ta.values, tb.values)
    # the continued forest learns: it scores better than the shallow batch forest it started from
    assert a.score(X[3000:], y[3000:]) > batch.score(X[3000:], y[3000:])
    # a fitted converted model pickles and resumes
    c = pickle.loads(pickle.dumps(a))
    a.partial_fit(X[3000:3100], y[3000:3100])
    c.partial_fit(X[3000:3100], y[3000:3100])
    np.testing.assert_array_equal(a.predict_proba(X[3100:]), c.predict_proba(X[3100:]))


def test_converted_model_saves_and_loads_with_forestzoo_io(tmp_path):
    from forestzoo.io import load, save

    X, y = _cls_data()
    batch = ske.RandomForestClassifier(n_estimators=3, max_depth=8, random_state=0).fit(X[:1000], y[:1000])
    orf = OnlineRandomForestClassifier(n_estimators=3, n_tests=10, random_state=0).fit(X[:1000], y[:1000],
                                                                                     init_forest=batch)
    save(orf, tmp_path / "orf.fz")
    back = load(tmp_path / "orf.fz")
    np.testing.assert_array_equal(back.predict_proba(X[1000:]), orf.predict_proba(X[1000:]))


def test_classes_of_the_stream_may_exceed_the_forests():
    X, y = _cls_data()
    keep = y < 2
    batch = ExtraTreesClassifier(n_estimators=2, random_state=0).fit(X[keep], y[keep])
    orf = OnlineRandomForestClassifier(n_estimators=2, random_state=0)
    orf.partial_fit(X[keep], y[keep], classes=[0, 1, 2], init_forest=batch)
    proba = orf.predict_proba(X)
    assert proba.shape == (X.shape[0], 3)
    np.testing.assert_array_equal(proba[:, :2], batch.predict_proba(X))
    assert np.all(proba[:, 2] == 0.0)
    orf.partial_fit(X[~keep], y[~keep])  # class 2 arrives later
    assert orf.predict_proba(X[~keep])[:, 2].mean() > 0.3


def _refused(model, X, y, error, match, **kw):
    with pytest.raises(error, match=match):
        model.fit(X, y, **kw)
    assert not hasattr(model, "forest_")


def test_bad_init_forests_are_refused_clearly():
    X, y = _cls_data(600)
    Xr, yr = _reg_data(600)
    et = ExtraTreesClassifier(n_estimators=3, random_state=0).fit(X, y)
    depth = max(int(t.nodes["depth"].max()) for t in forestzoo.interop.forest_trees(et)[0])
    most = max(t.node_count for t in forestzoo.interop.forest_trees(et)[0])
    orf = OnlineRandomForestClassifier(n_estimators=3, random_state=0)
    _refused(orf, X[:, :5], y, ValueError, "X has 5 features, but init_forest was fitted with 6", init_forest=et)
    _refused(OnlineRandomForestClassifier(n_estimators=4), X, y, ValueError, "has 3 trees but n_estimators=4",
             init_forest=et)
    _refused(OnlineRandomForestClassifier(n_estimators=3, max_depth=depth - 1), X, y, ValueError,
             f"depth {depth}, deeper than max_depth={depth - 1}", init_forest=et)
    _refused(OnlineRandomForestClassifier(n_estimators=3, max_nodes=most - 1), X, y, ValueError,
             f"a tree of {most} nodes, more than max_nodes={most - 1}", init_forest=et)
    # the limits themselves are accepted
    OnlineRandomForestClassifier(n_estimators=3, max_depth=depth, max_nodes=most).fit(X, y, init_forest=et)
    oblique = forestzoo.HeterogeneousObliqueForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    _refused(orf, X, y, TypeError, "oblique or rotated splits; an axis-aligned forest", init_forest=oblique)
    reg = ExtraTreesRegressor(n_estimators=3, random_state=0).fit(Xr, yr)
    _refused(orf, X, y, ValueError, "init_forest must be a classifier", init_forest=reg)
    _refused(OnlineRandomForestRegressor(n_estimators=3), Xr, yr, ValueError, "init_forest must be a regressor",
             init_forest=et)
    _refused(orf, X[y < 2], y[y < 2], ValueError, "knows classes", init_forest=et)
    multi = ExtraTreesRegressor(n_estimators=3, random_state=0).fit(Xr, np.column_stack((yr, yr)))
    _refused(OnlineRandomForestRegressor(n_estimators=3), Xr, yr, ValueError, "one output", init_forest=multi)
    _refused(orf, X, y, TypeError, "is not an estimator", init_forest=object())
    # only the first partial_fit takes a forest; a failed call leaves a fitted model as it was
    fitted = OnlineRandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    before = fitted.predict_proba(X)
    with pytest.raises(ValueError, match="already fitted"):
        fitted.partial_fit(X, y, init_forest=et)
    np.testing.assert_array_equal(fitted.predict_proba(X), before)
    assert not hasattr(fitted, "_init_forest")
