"""Multi-output y (a 2-D target) for DecisionTree*, RandomForest* and ExtraTrees*, against scikit-learn."""

import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import ensemble as sk_ensemble
from sklearn import tree as sk_tree
from sklearn.exceptions import DataConversionWarning

import forestzoo.io as fzio
from forestzoo import (
    DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
    RandomForestRegressor,
)
from forestzoo._engine.multioutput import weighted_impurity_multi

SPLITTERS = ["exact", "random", "hist"]


def _regression(n=600, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 5)
    Y = np.c_[X[:, 0] + 0.3 * rng.rand(n), np.sin(3 * X[:, 1]) * X[:, 2] + 0.1 * rng.rand(n), rng.rand(n)]
    return X, Y


def _classification(n=600, seed=0):
    """Three outputs with 3, 2 and 4 classes (labels of different types in the second)."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 5)
    y0 = (X[:, 0] > 0.4).astype(int) + (X[:, 1] + 0.2 * rng.rand(n) > 0.7)
    y1 = np.array(["no", "yes"])[(X[:, 2] + 0.3 * rng.rand(n) > 0.6).astype(int)]
    y2 = rng.randint(0, 4, n) * 10
    return X, np.c_[y0, y1, y2].astype(object), (y0, y1, y2)


def _preorder(tree, k=0):
    """The tree below node ``k`` as nested tuples (independent of the node numbering)."""
    if tree.children_left[k] < 0:
        return ("leaf", np.round(tree.value[k], 9).tolist(), round(float(tree.impurity[k]), 9))
    return (int(tree.feature[k]), round(float(tree.threshold[k]), 6), round(float(tree.impurity[k]), 9),
            np.round(tree.value[k], 9).tolist(), _preorder(tree, tree.children_left[k]),
            _preorder(tree, tree.children_right[k]))


# -- the criterion against a naive twin -------------------------------------------------------
def _naive_impurity(Y, w, criterion, n_classes=None):
    """Mean over outputs of each output's weighted impurity, computed from its definition."""
    W = w.sum()
    out = []
    for o in range(Y.shape[1]):
        if criterion == "squared_error":
            mean = (w * Y[:, o]).sum() / W
            out.append((w * (Y[:, o] - mean) ** 2).sum() / W)
        else:
            p = np.array([w[Y[:, o] == k].sum() / W for k in range(n_classes[o])])
            if criterion == "gini":
                out.append(1.0 - (p ** 2).sum())
            else:
                nz = p[p > 0]
                out.append(-(nz * np.log2(nz)).sum())
    return float(np.mean(out))


def _stats(Y, w, criterion, n_classes):
    n_out = Y.shape[1]
    if criterion == "squared_error":
        s = np.zeros(2 + 2 * n_out)
        s[2:2 + n_out] = w @ Y
        s[2 + n_out:] = w @ (Y ** 2)
        K = 1
    else:
        K = max(n_classes)
        s = np.zeros(2 + n_out * K)
        for o in range(n_out):
            for k in range(n_classes[o]):
                s[2 + o * K + k] = w[Y[:, o] == k].sum()
    s[0] = Y.shape[0]
    s[1] = w.sum()
    return s, K


@pytest.mark.parametrize("criterion,code", [("gini", 0), ("entropy", 1), ("squared_error", 2)])
def test_impurity_matches_naive_twin(criterion, code):
    rng = np.random.RandomState(3)
    n_classes = (3, 2, 5)
    if criterion == "squared_error":
        Y = rng.randn(50, 3)
    else:
        Y = np.column_stack([rng.randint(0, k, 50) for k in n_classes]).astype(float)
    w = rng.rand(50) + 0.1
    s, K = _stats(Y, w, criterion, n_classes)
    got = weighted_impurity_multi(s, code, 3, K) / w.sum()
    assert_allclose(got, _naive_impurity(Y, w, criterion, n_classes), rtol=1e-10)


# -- single trees against scikit-learn ---------------------------------------------------------
@pytest.mark.parametrize("criterion", ["squared_error", "friedman_mse"])
def test_regression_tree_matches_sklearn(criterion):
    X, Y = _regression()
    kw = dict(max_depth=6, min_samples_leaf=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # friedman_mse is deprecated in both
        ours = DecisionTreeRegressor(criterion=criterion, splitter="exact", **kw).fit(X, Y)
        ref = sk_tree.DecisionTreeRegressor(criterion=criterion, **kw).fit(X, Y)
    assert ours.n_outputs_ == ref.n_outputs_ == 3
    assert ours.tree_.value.shape == (ours.tree_.node_count, 3, 1)
    assert_array_equal(ours.tree_.n_classes, ref.tree_.n_classes)
    assert ours.tree_.max_n_classes == ref.tree_.max_n_classes
    assert _preorder(ours.tree_) == _preorder(ref.tree_)
    Xt = np.random.RandomState(1).rand(200, 5)
    assert ours.predict(Xt).shape == (200, 3)
    assert_allclose(ours.predict(Xt), ref.predict(Xt), atol=1e-12)
    assert_allclose(ours.feature_importances_, ref.feature_importances_, atol=1e-10)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss"])
def test_classification_tree_matches_sklearn(criterion):
    X, Y, _ = _classification()
    kw = dict(criterion=criterion, max_depth=5, min_samples_leaf=4, random_state=0)
    ours = DecisionTreeClassifier(splitter="exact", **kw).fit(X, Y)
    ref = sk_tree.DecisionTreeClassifier(**kw).fit(X, Y)
    assert ours.n_outputs_ == 3
    assert isinstance(ours.classes_, list) and len(ours.classes_) == 3
    for a, b in zip(ours.classes_, ref.classes_):
        assert_array_equal(a, b)
    assert isinstance(ours.n_classes_, np.ndarray)
    assert_array_equal(ours.n_classes_, ref.n_classes_)
    assert ours.tree_.value.shape == ref.tree_.value.shape == (ours.tree_.node_count, 3, 4)
    assert_array_equal(ours.tree_.n_classes, ref.tree_.n_classes)
    assert _preorder(ours.tree_) == _preorder(ref.tree_)
    Xt = np.random.RandomState(1).rand(200, 5)
    assert_array_equal(ours.predict(Xt), ref.predict(Xt))
    proba, ref_proba = ours.predict_proba(Xt), ref.predict_proba(Xt)
    assert isinstance(proba, list) and [p.shape for p in proba] == [(200, 3), (200, 2), (200, 4)]
    for a, b in zip(proba, ref_proba):
        assert_allclose(a, b, atol=1e-12)
    with np.errstate(divide="ignore"):
        for a, b in zip(ours.predict_log_proba(Xt), ref.predict_log_proba(Xt)):
            assert_allclose(a, b, atol=1e-12)


def test_fully_grown_trees_fit_the_training_data_as_sklearn():
    X, Y = _regression(n=300)
    ours = DecisionTreeRegressor(splitter="exact", random_state=0).fit(X, Y)
    ref = sk_tree.DecisionTreeRegressor(random_state=0).fit(X, Y)
    assert ours.tree_.node_count == ref.tree_.node_count
    assert_allclose(ours.predict(X), Y)
    Xc, Yc, _ = _classification(n=300)
    ours = DecisionTreeClassifier(splitter="exact", random_state=0).fit(Xc, Yc)
    ref = sk_tree.DecisionTreeClassifier(random_state=0).fit(Xc, Yc)
    assert_array_equal(ours.predict(Xc), ref.predict(Xc))
    assert_allclose(ours.tree_.impurity[0], ref.tree_.impurity[0], rtol=1e-12)


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_node_impurity_and_value_are_the_outputs_means(splitter):
    """Every node's impurity and value agree with the naive twin over the training rows that reach it."""
    X, Y = _regression(n=300)
    w = np.random.RandomState(5).randint(0, 3, 300).astype(float)
    reg = DecisionTreeRegressor(splitter=splitter, max_depth=4, random_state=0).fit(X, Y, sample_weight=w)
    paths = reg.decision_path(X).toarray().astype(bool) & (w > 0)[:, None]
    for k in range(reg.tree_.node_count):
        rows = paths[:, k]
        assert_allclose(reg.tree_.impurity[k], _naive_impurity(Y[rows], w[rows], "squared_error"), atol=1e-10)
        assert_allclose(reg.tree_.value[k, :, 0], np.average(Y[rows], axis=0, weights=w[rows]), atol=1e-12)
    Xc, Yc, cols = _classification(n=300)
    clf = DecisionTreeClassifier(splitter=splitter, max_depth=4, criterion="entropy", random_state=0).fit(Xc, Yc)
    codes = np.column_stack([np.unique(c, return_inverse=True)[1] for c in cols])
    paths = clf.decision_path(Xc).toarray().astype(bool)
    for k in range(clf.tree_.node_count):
        rows = paths[:, k]
        assert_allclose(clf.tree_.impurity[k], _naive_impurity(codes[rows], np.ones(rows.sum()), "entropy",
                                                               (3, 2, 4)), atol=1e-10)
        for o, n_k in enumerate((3, 2, 4)):
            expected = np.bincount(codes[rows, o], minlength=4) / rows.sum()
            assert_allclose(clf.tree_.value[k, o], expected, atol=1e-12)
            assert np.all(clf.tree_.value[k, o, n_k:] == 0.0)


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_splitters_learn(splitter):
    X, Y = _regression(n=1000)
    Xt, Yt = _regression(n=500, seed=1)
    reg = DecisionTreeRegressor(splitter=splitter, min_samples_leaf=10, random_state=0).fit(X, Y)
    r2 = 1 - ((reg.predict(Xt) - Yt) ** 2).sum(0) / ((Yt - Yt.mean(0)) ** 2).sum(0)
    assert r2[0] > 0.6 and r2[1] > 0.6  # the third output is noise
    Xc, Yc, _ = _classification(n=1000)
    clf = DecisionTreeClassifier(splitter=splitter, max_depth=6, random_state=0).fit(Xc, Yc)
    acc = (clf.predict(Xc) == Yc).mean(axis=0)
    assert acc[0] > 0.8 and acc[1] > 0.8


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_missing_values(splitter):
    X, Y = _regression(n=400)
    X[::7, 0] = np.nan
    reg = DecisionTreeRegressor(splitter=splitter, random_state=0).fit(X, Y)
    assert_allclose(reg.predict(X), Y)
    assert np.isfinite(reg.predict(np.full((2, 5), np.nan))).all()


def test_max_leaf_nodes_and_limits():
    X, Y = _regression()
    kw = dict(max_leaf_nodes=12, random_state=0)
    ours = DecisionTreeRegressor(splitter="exact", **kw).fit(X, Y)
    ref = sk_tree.DecisionTreeRegressor(**kw).fit(X, Y)
    assert ours.get_n_leaves() == 12
    assert _preorder(ours.tree_) == _preorder(ref.tree_)
    kw = dict(min_impurity_decrease=0.002, random_state=0)
    assert _preorder(DecisionTreeRegressor(**kw).fit(X, Y).tree_) == _preorder(
        sk_tree.DecisionTreeRegressor(**kw).fit(X, Y).tree_)


def test_ccp_alpha_prunes_as_sklearn():
    X, Y = _regression(n=300)
    ours = DecisionTreeRegressor(ccp_alpha=0.002, min_samples_leaf=3, random_state=0).fit(X, Y)
    ref = sk_tree.DecisionTreeRegressor(ccp_alpha=0.002, min_samples_leaf=3, random_state=0).fit(X, Y)
    assert ours.tree_.n_outputs == 3
    assert _preorder(ours.tree_) == _preorder(ref.tree_)


def test_class_weight():
    X, Y, _ = _classification()
    cw = [{0: 1.0, 1: 3.0, 2: 0.5}, {"no": 2.0, "yes": 1.0}, {0: 1.0, 10: 1.0, 20: 4.0, 30: 1.0}]
    for weights in (cw, "balanced"):
        kw = dict(class_weight=weights, max_depth=4, min_samples_leaf=5, random_state=0)
        ours = DecisionTreeClassifier(**kw).fit(X, Y)
        ref = sk_tree.DecisionTreeClassifier(**kw).fit(X, Y)
        assert _preorder(ours.tree_) == _preorder(ref.tree_)
    with pytest.raises(ValueError, match="list of dicts"):
        DecisionTreeClassifier(class_weight={0: 1.0}).fit(X, Y)
    with pytest.raises(ValueError, match="number of outputs"):
        RandomForestClassifier(class_weight=cw[:2]).fit(X, Y)


def test_one_column_y_is_single_output():
    X, Y = _regression()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataConversionWarning)
        tree = DecisionTreeRegressor(random_state=0).fit(X, Y[:, :1])
    assert tree.n_outputs_ == 1 and tree.predict(X).shape == (600,) and tree.tree_.output_classes is None
    with pytest.warns(DataConversionWarning):
        forest = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, Y[:, :1])
    assert forest.n_outputs_ == 1 and forest.predict(X).shape == (600,)


# -- forests ----------------------------------------------------------------------------------
@pytest.mark.parametrize("ours_cls,ref_cls", [(RandomForestRegressor, sk_ensemble.RandomForestRegressor),
                                              (ExtraTreesRegressor, sk_ensemble.ExtraTreesRegressor)])
def test_forest_regression_matches_sklearn_without_randomness(ours_cls, ref_cls):
    """With the exact search over every feature and no bootstrap, every tree is scikit-learn's tree."""
    X, Y = _regression()
    kw = dict(n_estimators=3, max_features=None, bootstrap=False, min_samples_leaf=5, random_state=0)
    ours = ours_cls(splitter="exact", **kw).fit(X, Y)
    ref = sk_ensemble.RandomForestRegressor(**kw).fit(X, Y)
    Xt = np.random.RandomState(1).rand(100, 5)
    assert ours.predict(Xt).shape == (100, 3)
    assert_allclose(ours.predict(Xt), ref.predict(Xt), atol=1e-12)
    assert_allclose(ours.score(Xt, Xt[:, :3]), ref.score(Xt, Xt[:, :3]), atol=1e-12)


def test_forest_classification_matches_sklearn_without_randomness():
    X, Y, _ = _classification()
    kw = dict(n_estimators=3, max_features=None, bootstrap=False, max_depth=5, min_samples_leaf=4, random_state=0)
    ours = RandomForestClassifier(splitter="exact", **kw).fit(X, Y)
    ref = sk_ensemble.RandomForestClassifier(**kw).fit(X, Y)
    assert isinstance(ours.n_classes_, list) and ours.n_classes_ == ref.n_classes_
    assert ours.n_outputs_ == 3 and all(e.n_outputs_ == 3 for e in ours.estimators_)
    Xt = np.random.RandomState(1).rand(100, 5)
    assert_array_equal(ours.predict(Xt), ref.predict(Xt))
    for a, b in zip(ours.predict_proba(Xt), ref.predict_proba(Xt)):
        assert_allclose(a, b, atol=1e-12)
    # scikit-learn's score refuses multiclass-multioutput, and so does ours (the same ClassifierMixin.score)
    with pytest.raises(ValueError, match="multiclass-multioutput"):
        ours.score(X, Y)


@pytest.mark.parametrize("cls", [RandomForestClassifier, ExtraTreesClassifier, RandomForestRegressor,
                                 ExtraTreesRegressor])
@pytest.mark.parametrize("splitter", SPLITTERS)
def test_forest_shapes_every_splitter(cls, splitter):
    if cls in (RandomForestClassifier, ExtraTreesClassifier):
        X, Y, _ = _classification(n=300)
        model = cls(n_estimators=4, splitter=splitter, random_state=0, n_jobs=2).fit(X, Y)
        proba = model.predict_proba(X[:7])
        assert [p.shape for p in proba] == [(7, 3), (7, 2), (7, 4)]
        for p in proba:
            assert_allclose(p.sum(axis=1), 1.0)
        assert model.predict(X[:7]).shape == (7, 3)
        assert (model.predict(X) == Y).mean() > 0.6
    else:
        X, Y = _regression(n=300)
        model = cls(n_estimators=4, splitter=splitter, random_state=0, n_jobs=2).fit(X, Y)
        assert model.predict(X[:7]).shape == (7, 3)
    assert model.feature_importances_.shape == (5,)
    assert model.apply(X[:7]).shape == (7, 4)
    # the same forest whatever n_jobs
    again = cls(n_estimators=4, splitter=splitter, random_state=0, n_jobs=1).fit(X, Y)
    assert_array_equal(again.predict(X), model.predict(X))


def test_oob_regression():
    X, Y = _regression()
    ours = RandomForestRegressor(n_estimators=30, oob_score=True, random_state=0).fit(X, Y)
    ref = sk_ensemble.RandomForestRegressor(n_estimators=30, oob_score=True, random_state=0).fit(X, Y)
    assert ours.oob_prediction_.shape == ref.oob_prediction_.shape == (600, 3)
    assert abs(ours.oob_score_ - ref.oob_score_) < 0.05
    from sklearn.metrics import r2_score

    assert_allclose(ours.oob_score_, r2_score(Y, ours.oob_prediction_))


def test_oob_classification():
    rng = np.random.RandomState(0)
    X = rng.rand(500, 4)
    Y = np.c_[X[:, 0] > 0.5, X[:, 1] + 0.2 * rng.rand(500) > 0.6].astype(int)  # multilabel-indicator
    kw = dict(n_estimators=30, oob_score=True, random_state=0)
    ours = RandomForestClassifier(**kw).fit(X, Y)
    ref = sk_ensemble.RandomForestClassifier(**kw).fit(X, Y)
    assert ours.oob_decision_function_.shape == ref.oob_decision_function_.shape == (500, 2, 2)
    assert abs(ours.oob_score_ - ref.oob_score_) < 0.05
    subset = (np.argmax(ours.oob_decision_function_, axis=1) == Y).all(axis=1).mean()
    assert_allclose(ours.oob_score_, subset)
    ours = RandomForestClassifier(class_weight="balanced_subsample", **kw).fit(X, Y)
    assert 0.7 < ours.oob_score_ <= 1.0
    X3, Y3, _ = _classification()
    with pytest.raises(ValueError, match="multiclass-multioutput"):
        RandomForestClassifier(oob_score=True).fit(X3, Y3)


def test_balanced_subsample_is_the_product_over_outputs():
    from forestzoo.ensemble._forest import _balanced, balanced_weights
    from forestzoo._engine.api import MultiOutputTarget

    rng = np.random.RandomState(0)
    codes = np.c_[rng.randint(0, 3, 50), rng.randint(0, 2, 50)]
    counts = rng.randint(0, 3, 50).astype(float)
    target = MultiOutputTarget(codes.astype(float), (3, 2))
    expected = balanced_weights(codes[:, 0], counts, 3) * balanced_weights(codes[:, 1], counts, 2)
    assert_allclose(_balanced(codes, counts, target), expected)


def test_warm_start():
    X, Y = _regression()
    full = RandomForestRegressor(n_estimators=6, random_state=0).fit(X, Y)
    warm = RandomForestRegressor(n_estimators=3, random_state=0, warm_start=True).fit(X, Y)
    warm.set_params(n_estimators=6).fit(X, Y)
    assert_array_equal(full.predict(X), warm.predict(X))
    with pytest.raises(ValueError, match="same outputs"):
        warm.set_params(n_estimators=8).fit(X, Y[:, :2])


# -- persistence -------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: DecisionTreeClassifier(random_state=0).fit(*_classification(n=200)[:2]),
    lambda: DecisionTreeRegressor(random_state=0).fit(*_regression(n=200)),
    lambda: RandomForestClassifier(n_estimators=3, random_state=0).fit(*_classification(n=200)[:2]),
    lambda: ExtraTreesRegressor(n_estimators=3, random_state=0).fit(*_regression(n=200)),
])
def test_pickle_and_io_round_trip(make, tmp_path):
    model = make()
    X = _regression(n=50, seed=2)[0]
    for copy in (pickle.loads(pickle.dumps(model)), None):
        if copy is None:
            fzio.save(model, tmp_path / "m.fz")
            copy = fzio.load(tmp_path / "m.fz")
        assert_array_equal(np.asarray(copy.predict(X)), np.asarray(model.predict(X)))
        assert copy.n_outputs_ == model.n_outputs_
        assert copy.estimators_[0].tree_.n_outputs == model.n_outputs_ if hasattr(model, "estimators_") else (
            copy.tree_.value.shape == model.tree_.value.shape)


def test_io_refuses_inconsistent_outputs(tmp_path):
    from forestzoo.io import ModelFormatError

    model = DecisionTreeRegressor(random_state=0).fit(*_regression(n=100))
    model.tree_.output_classes = np.array([1, 1], dtype=np.intp)  # 3 value columns, 2 outputs
    fzio.save(model, tmp_path / "m.fz")
    with pytest.raises(ModelFormatError, match="output_classes"):
        fzio.load(tmp_path / "m.fz")


# -- refused combinations ----------------------------------------------------------------------
@pytest.mark.parametrize("cls,kw,match", [
    (DecisionTreeRegressor, dict(splitter="stochastic"), 'splitter="stochastic" does not support multi-output'),
    (ExtraTreesRegressor, dict(monotonic_cst=[1, 0, 0, 0, 0]), "not supported with multiple outputs"),
    (DecisionTreeClassifier, dict(monotonic_cst=[1, 0, 0, 0, 0]), "not supported with multiple outputs"),
])
def test_refused(cls, kw, match):
    if issubclass(cls, (DecisionTreeClassifier, RandomForestClassifier)):
        X, Y, _ = _classification(n=50)
    else:
        X, Y = _regression(n=50)
        Y = np.abs(Y)
    with pytest.raises(ValueError, match=match):
        cls(**kw).fit(X, Y)


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_sparse_X_grows_the_dense_tree(splitter):
    import scipy.sparse as sp

    X, Y = _regression(n=300)
    X[X < 0.4] = 0.0
    dense = DecisionTreeRegressor(splitter=splitter, random_state=0).fit(X, Y)
    sparse = DecisionTreeRegressor(splitter=splitter, random_state=0).fit(sp.csr_matrix(X), Y)
    assert _preorder(sparse.tree_) == _preorder(dense.tree_)
    assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))


def test_poisson_matches_sklearn():
    rng = np.random.RandomState(0)
    X = rng.rand(600, 5)
    Y = np.c_[rng.poisson(1 + 3 * X[:, 0]), rng.poisson(0.5 + 2 * X[:, 1] * X[:, 2]), rng.poisson(2.0, 600)]
    kw = dict(criterion="poisson", max_depth=5, min_samples_leaf=10, random_state=0)
    ours = DecisionTreeRegressor(**kw).fit(X, Y)
    ref = sk_tree.DecisionTreeRegressor(**kw).fit(X, Y)
    assert _preorder(ours.tree_) == _preorder(ref.tree_)
    paths = ours.decision_path(X).toarray().astype(bool)
    for k in range(ours.tree_.node_count):  # the naive twin: mean over outputs of the half Poisson deviance
        Yk = Y[paths[:, k]]
        mu = Yk.mean(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            dev = np.where(Yk > 0, Yk * np.log(Yk / mu), 0.0) - Yk + mu
        assert_allclose(ours.tree_.impurity[k], dev.mean(axis=0).mean(), atol=1e-10)
    for splitter in ("random", "hist"):
        forest = RandomForestRegressor(n_estimators=3, criterion="poisson", splitter=splitter, random_state=0)
        assert forest.fit(X, Y).predict(X).shape == (600, 3)


# -- absolute error: per-output weighted medians ---------------------------------------------------
def _ae_data(seed, n=80, n_outputs=3):
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, 4))
    Y = np.c_[X[:, 0] - 2 * X[:, 3] + rng.standard_normal(n), np.sin(3 * X[:, 1]) + 0.5 * rng.standard_normal(n),
              rng.standard_normal(n)][:, :n_outputs]
    return X, Y, 0.5 + rng.uniform(size=n)


def _weighted_median(y, w):
    """First target where the cumulative weight reaches half the total; the midpoint with the next one where it
    equals half exactly (scikit-learn's definition)."""
    order = np.argsort(y, kind="mergesort")
    ys, cum = y[order], np.cumsum(w[order])
    half = cum[-1] / 2
    k = int(np.argmax(cum >= half))
    if cum[k] == half and k + 1 < len(ys):
        return 0.5 * (ys[k] + ys[k + 1])
    return ys[k]


def _summed_abs_error(Y, w):
    """Sum over the outputs of each output's weighted absolute deviation from its weighted median."""
    if len(w) == 0:
        return 0.0
    return sum(float((w * np.abs(Y[:, o] - _weighted_median(Y[:, o], w))).sum()) for o in range(Y.shape[1]))


# The absolute error is piecewise linear in the targets, so two splits of a small node often cost exactly the
# same; which one a search keeps then depends on its candidate order and rounding.  These datasets and
# parameters were checked to have no such tie at any split of scikit-learn's tree (continuous targets, leaves
# of at least 3 rows: a node of 2 rows is split the same way by every feature that separates them), so the
# tree is unique.
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_outputs", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("params", [{"min_samples_leaf": 5}, {"max_depth": 3, "min_samples_leaf": 3},
                                    {"max_leaf_nodes": 10, "min_samples_leaf": 3}])
def test_absolute_error_matches_sklearn(seed, n_outputs, weighted, params):
    X, Y, w = _ae_data(seed, n_outputs=n_outputs)
    kw = {"sample_weight": w} if weighted else {}
    ours = DecisionTreeRegressor(criterion="absolute_error", splitter="best", random_state=0, **params).fit(X, Y, **kw)
    ref = sk_tree.DecisionTreeRegressor(criterion="absolute_error", random_state=0, **params).fit(X, Y, **kw)
    assert _preorder(ours.tree_) == _preorder(ref.tree_)
    X_test = np.random.RandomState(seed + 100).uniform(size=(200, 4))
    assert_allclose(ours.predict(X_test), ref.predict(X_test))
    assert_allclose(ours.feature_importances_, ref.feature_importances_, atol=1e-12)


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_absolute_error_values_and_impurities(splitter):
    X, Y, w = _ae_data(3, n=120)
    model = DecisionTreeRegressor(criterion="absolute_error", splitter=splitter, max_depth=4,
                                  random_state=0).fit(X, Y, sample_weight=w)
    tree = model.tree_
    assert tree.value.shape == (tree.node_count, 3, 1)
    paths = model.decision_path(X).toarray().astype(bool)
    for k in range(tree.node_count):
        rows = paths[:, k]
        medians = [_weighted_median(Y[rows, o], w[rows]) for o in range(3)]
        assert_allclose(tree.value[k, :, 0], medians)
        assert_allclose(tree.impurity[k], _summed_abs_error(Y[rows], w[rows]) / (3 * w[rows].sum()), atol=1e-12)
    assert_allclose(model.predict(X), tree.value[model.apply(X), :, 0])


@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_absolute_error_splits_are_the_best(splitter):
    # fewer distinct values than bins (hist's candidates are the exact search's); NaN tried on both sides
    X, Y, w = _ae_data(4, n=70, n_outputs=2)
    X = np.round(X, 1)
    X[::6, 1] = np.nan
    model = DecisionTreeRegressor(criterion="absolute_error", splitter=splitter, max_depth=3,
                                  random_state=0).fit(X, Y, sample_weight=w)
    tree = model.tree_
    paths = model.decision_path(X).toarray().astype(bool)

    def cost(rows, left):
        return _summed_abs_error(Y[rows & left], w[rows & left]) + _summed_abs_error(Y[rows & ~left], w[rows & ~left])

    for k in np.flatnonzero(tree.children_left >= 0):
        rows = paths[:, k]
        best = np.inf
        for f in range(X.shape[1]):
            nan = np.isnan(X[:, f])
            values = np.unique(X[rows & ~nan, f])
            for thr in np.append(0.5 * (values[:-1] + values[1:]), np.inf):
                left = ~nan & (X[:, f] <= thr)
                for side in (left, left | nan):
                    if 0 < (rows & side).sum() < rows.sum():
                        best = min(best, cost(rows, side))
        f = tree.feature[k]
        nan = np.isnan(X[:, f])
        left = (~nan & (X[:, f] <= tree.threshold[k])) | (nan & bool(tree.missing_go_to_left[k]))
        chosen = cost(rows, left)
        assert chosen <= best + 1e-9
        # the children's W * impurity is the mean over the (two) outputs of their absolute errors
        children = (tree.impurity[tree.children_left[k]] * w[rows & left].sum()
                    + tree.impurity[tree.children_right[k]] * w[rows & ~left].sum())
        assert_allclose(children, chosen / 2, atol=1e-9)


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_absolute_error_repeated_output_is_the_single_output_tree(splitter):
    # the same target twice: every split costs twice the single-output cost, the features and thresholds are
    # drawn from the same random stream, so the tree is the single-output absolute-error tree
    X, Y, w = _ae_data(5, n=150, n_outputs=1)
    y = Y[:, 0]
    X[::9, 2] = np.nan
    kw = dict(criterion="absolute_error", splitter=splitter, max_features=2, min_samples_leaf=3, random_state=7)
    single = DecisionTreeRegressor(**kw).fit(X, y, sample_weight=w)
    double = DecisionTreeRegressor(**kw).fit(X, np.c_[y, y], sample_weight=w)
    assert_array_equal(double.tree_.feature, single.tree_.feature)
    assert_array_equal(double.tree_.threshold, single.tree_.threshold)
    assert_array_equal(double.tree_.missing_go_to_left, single.tree_.missing_go_to_left)
    assert_allclose(double.tree_.value[:, 0], single.tree_.value[:, 0])
    assert_allclose(double.tree_.value[:, 1], single.tree_.value[:, 0])
    assert_allclose(double.tree_.impurity, single.tree_.impurity, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("Forest", [RandomForestRegressor, ExtraTreesRegressor])
@pytest.mark.parametrize("splitter", SPLITTERS)
def test_absolute_error_forests(Forest, splitter):
    rng = np.random.RandomState(6)
    X, X_test = rng.uniform(size=(200, 4)), rng.uniform(size=(200, 4))
    w = 0.5 + rng.uniform(size=200)

    def targets(X):
        signal = np.c_[X[:, 0] - 2 * X[:, 3], np.sin(3 * X[:, 1]), np.zeros(len(X))]
        return signal + 0.2 * rng.standard_normal((len(X), 3))

    Y, Y_test = targets(X), targets(X_test)
    kw = dict(n_estimators=5, criterion="absolute_error", splitter=splitter, min_samples_leaf=3, random_state=0)
    a = Forest(**kw).fit(X, Y, sample_weight=w)
    pred = a.predict(X_test)
    assert pred.shape == (200, 3)
    assert_array_equal(pred, Forest(**kw).fit(X, Y, sample_weight=w).predict(X_test))
    # better than each output's median on held-out data, for the two outputs that depend on X
    for o in (0, 1):
        assert np.mean(np.abs(pred[:, o] - Y_test[:, o])) < np.mean(np.abs(Y_test[:, o] - np.median(Y[:, o])))
    assert_array_equal(pickle.loads(pickle.dumps(a)).predict(X_test), pred)
    assert_allclose(a.feature_importances_.sum(), 1.0)
