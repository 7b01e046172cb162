"""feature_importances_ of the estimators whose trees are not plain engine forests.

For every such estimator: the shape, signs and sum of scikit-learn's forests
(all zeros for a model without a split), an informative feature above the
noise, and the figure recomputed by a naive Python loop over one model's
nodes (DNDT and DNRF: the tree or forest they were built from).  Estimators for which no impurity-based importance is defined raise
AttributeError, so that ``hasattr`` is False.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

import forestzoo
from forestzoo import (
    CascadeForestClassifier,
    CascadeForestRegressor,
    DenoisingRandomForestClassifier,
    DenoisingRandomForestRegressor,
    DNDTClassifier,
    DNRFClassifier,
    GCForestClassifier,
    HaarTreeClassifier,
    OnlineRandomForestClassifier,
    OnlineRandomForestRegressor,
)
from forestzoo.rvfl import RVFLForestClassifier
from forestzoo._engine.api import TREE_LEAF

N_INFORMATIVE = 2


def _data(task, n=400, d=8):
    """Features 0..N_INFORMATIVE-1 carry the signal, the others are noise; rows in random
    order (online learners see them as a stream)."""
    if task == "classification":
        X, y = make_classification(n, d, n_informative=N_INFORMATIVE, n_redundant=0, n_repeated=0,
                                   shuffle=False, random_state=0)
    else:
        X, y = make_regression(n, d, n_informative=N_INFORMATIVE, shuffle=False, random_state=0)
    order = np.random.RandomState(1).permutation(n)
    return X[order], y[order]


def _fit(make, task):
    X, y = _data(task)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few epochs / iterations: convergence warnings
        return make().fit(X, y)


ESTIMATORS = {
    "CascadeForestClassifier": (lambda: CascadeForestClassifier(n_estimators=8, max_levels=2, random_state=0),
                                "classification"),
    "CascadeForestRegressor": (lambda: CascadeForestRegressor(n_estimators=8, max_levels=2, random_state=0),
                               "regression"),
    "DenoisingRandomForestClassifier": (lambda: DenoisingRandomForestClassifier(
        n_estimators=8, dae_max_iter=30, n_noisy_copies=1, random_state=0), "classification"),
    "DenoisingRandomForestRegressor": (lambda: DenoisingRandomForestRegressor(
        n_estimators=8, dae_max_iter=30, n_noisy_copies=1, random_state=0), "regression"),
    "DNRFClassifier": (lambda: DNRFClassifier(n_estimators=6, n_epochs=2, random_state=0), "classification"),
    "OnlineRandomForestClassifier": (lambda: OnlineRandomForestClassifier(n_estimators=6, random_state=0),
                                     "classification"),
    "OnlineRandomForestRegressor": (lambda: OnlineRandomForestRegressor(n_estimators=6, random_state=0),
                                    "regression"),
    "RVFLForestClassifier": (lambda: RVFLForestClassifier(n_estimators=6, n_hidden=10, random_state=0),
                             "classification"),
    "RVFLForestClassifier-oblique": (lambda: RVFLForestClassifier(
        n_estimators=6, n_hidden=10, tree="oblique", node_model="lda", random_state=0), "classification"),
}


@pytest.fixture(scope="module")
def fitted():
    return {name: _fit(make, task) for name, (make, task) in ESTIMATORS.items()}


def _check(imp, n_features):
    assert imp.shape == (n_features,) and imp.dtype == np.float64
    assert np.all(imp >= 0) and np.isfinite(imp).all()
    assert imp.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_importances_are_a_distribution_that_finds_the_signal(fitted, name):
    est = fitted[name]
    assert hasattr(est, "feature_importances_")
    imp = est.feature_importances_
    _check(imp, est.n_features_in_)
    assert imp[:N_INFORMATIVE].max() > imp[N_INFORMATIVE:].max()
    np.testing.assert_array_equal(imp, est.feature_importances_)  # a pure function of the model


def test_every_tree_based_estimator_defines_feature_importances():
    # RVFL networks are no trees (a ridge solve has no impurity decrease); every other estimator has the
    # attribute (it may say why not)
    missing = {n for n, c in forestzoo.all_estimators() if not hasattr(c, "feature_importances_")}
    assert missing == {"RVFLClassifier", "RVFLClassifierCV"}


# --- naive twins: importances recomputed node by node --------------------------------

def _naive_tree(tree, n_features):
    """MDI of one tree from the impurities and weights of its nodes, normalised; an oblique node's
    decrease shared among its features in proportion to ``|weight|``."""
    nodes = tree.nodes
    imp = np.zeros(n_features)
    for k in range(tree.node_count):
        left, right = nodes["left"][k], nodes["right"][k]
        if left == TREE_LEAF:
            continue
        w, wl, wr = (nodes["weighted_n_samples"][i] for i in (k, left, right))
        i, il, ir = (nodes["impurity"][i] for i in (k, left, right))
        gain = w * i - wl * il - wr * ir
        j = nodes["oblique"][k]
        if j < 0:
            imp[nodes["feature"][k]] += gain
            continue
        part = slice(tree.obl_ptr[j], tree.obl_ptr[j + 1])
        aw = np.abs(tree.obl_weight[part])
        for f, a in zip(tree.obl_feature[part], aw):
            imp[f] += gain * a / aw.sum()
    return imp / imp.sum() if imp.sum() > 0 else imp


def _naive_forest(trees, n_features):
    per_tree = [_naive_tree(t, n_features) for t in trees]
    mean = np.mean(per_tree, axis=0)
    return mean / mean.sum()


@pytest.mark.parametrize("name", ["DenoisingRandomForestClassifier", "DenoisingRandomForestRegressor"])
def test_denoising_forest_matches_a_naive_twin_over_the_selected_trees(fitted, name):
    est = fitted[name]
    trees = [est.forest_.estimators_[j].tree_ for j in est.selected_trees_]
    assert len(trees) < len(est.forest_.estimators_)  # selection dropped trees: they must not count
    np.testing.assert_allclose(est.feature_importances_, _naive_forest(trees, est.n_features_in_),
                               rtol=1e-6, atol=1e-12)


def test_rvfl_forest_matches_a_naive_twin_over_every_bag_tree(fitted):
    est = fitted["RVFLForestClassifier"]
    trees = [t for _, bag in est.bags_ for t in bag if t is not None]
    assert len(trees) == len(est.bags_) * est.n_classes_  # two classes: each bag holds two whole-bag trees
    np.testing.assert_allclose(est.feature_importances_, _naive_forest(trees, est.n_features_in_),
                               rtol=1e-6, atol=1e-12)


def test_rvfl_forest_oblique_nodes_share_their_decrease_by_weight(fitted):
    est = fitted["RVFLForestClassifier-oblique"]
    trees = [t for _, bag in est.bags_ for t in bag if t is not None]
    assert any(t.obl_ptr.shape[0] > 1 for t in trees)  # oblique nodes were grown
    np.testing.assert_allclose(est.feature_importances_, _naive_forest(trees, est.n_features_in_),
                               rtol=1e-6, atol=1e-12)


def test_dndt_gives_the_importances_of_its_initial_tree():
    X, y = _data("classification", n=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DNDTClassifier(n_epochs=2, random_state=0).fit(X, y)
    imp = est.feature_importances_
    _check(imp, X.shape[1])
    np.testing.assert_allclose(imp, _naive_tree(est.initial_tree_.tree_, X.shape[1]), rtol=1e-12, atol=1e-15)
    assert imp[:N_INFORMATIVE].max() > imp[N_INFORMATIVE:].max()  # the informative features (see _data)


def test_dnrf_matches_a_naive_twin_over_the_kept_initial_trees():
    X, y = _data("classification")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DNRFClassifier(n_estimators=8, n_epochs=2, select_n_estimators=True, random_state=0).fit(X, y)
    trees = [e.tree_ for e in est.forest_.estimators_[: est.n_estimators_]]
    np.testing.assert_allclose(est.feature_importances_, _naive_forest(trees, X.shape[1]), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("cls, task", [(CascadeForestClassifier, "classification"),
                                       (CascadeForestRegressor, "regression")])
def test_cascade_matches_a_naive_twin_over_levels_and_original_features(monkeypatch, cls, task):
    from forestzoo.ensemble._forest import BaseForest

    X, y = _data(task, n=200)
    d = X.shape[1]
    params = dict(n_estimators=4, n_random_forests=1, n_completely_random_forests=1, max_levels=3,
                  n_tolerant_rounds=3, random_state=0)
    est = cls(**params).fit(X, y)
    # the same fit, with the fold forests keeping their full trees
    monkeypatch.setattr(BaseForest, "_keep_prediction_only", lambda self: self)
    full = cls(**params).fit(X, y)
    np.testing.assert_array_equal(full.predict(X), est.predict(X))
    assert est.n_levels_ >= 2  # later levels read class vectors beside the features
    total = np.zeros(d)
    widths = set()
    for level in full.levels_:
        for forest in level.forests:
            for fold_forest in forest.estimators_:
                n_in = fold_forest.n_features_in_
                widths.add(n_in)
                for e in fold_forest.estimators_:
                    total += _naive_tree(e.tree_, n_in)[:d]  # the original features come first
    assert min(widths) == d and max(widths) > d
    np.testing.assert_allclose(est.feature_importances_, total / total.sum(), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(full.feature_importances_, est.feature_importances_, rtol=1e-12)


@pytest.mark.parametrize("name", ["OnlineRandomForestClassifier", "OnlineRandomForestRegressor"])
def test_online_forest_matches_a_naive_twin_over_the_voting_trees(fitted, name):
    est = fitted[name]
    forest = est.forest_
    d = est.n_features_in_
    per_tree = []
    for t in forest.voters:
        imp = np.zeros(d)
        for k in range(forest.counts[t, 0]):
            node = forest.nodes[t, k]
            if node["left"] != TREE_LEAF:
                imp[node["feature"]] += node["improvement"]  # gain x samples seen at the split
        if imp.sum() > 0:
            per_tree.append(imp / imp.sum())
    assert per_tree
    mean = np.mean(per_tree, axis=0)
    np.testing.assert_allclose(est.feature_importances_, mean / mean.sum(), rtol=1e-12)


def test_online_forest_before_any_split_has_zero_importances():
    X, y = _data("classification")
    est = OnlineRandomForestClassifier(n_estimators=3, min_samples_split=50, random_state=0)
    est.partial_fit(X[:10], y[:10], classes=[0, 1])
    imp = est.feature_importances_
    assert imp.shape == (X.shape[1],) and not imp.any()


def test_online_forest_importances_follow_a_drift():
    # the signal moves from feature 0 to feature 1; replaced trees forget the old splits
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, (6000, 4))
    y = np.where(np.arange(6000) < 3000, X[:, 0] > 0, X[:, 1] > 0).astype(int)
    est = OnlineRandomForestClassifier(n_estimators=6, drift="adwin", random_state=0)
    est.partial_fit(X[:3000], y[:3000], classes=[0, 1])
    before = est.feature_importances_
    est.partial_fit(X[3000:], y[3000:])
    after = est.feature_importances_
    assert np.argmax(before) == 0 and np.argmax(after) == 1


def test_not_fitted_raises_not_fitted_error():
    from sklearn.exceptions import NotFittedError

    for make, _ in ESTIMATORS.values():
        with pytest.raises(NotFittedError):
            make().feature_importances_
    with pytest.raises(NotFittedError):
        HaarTreeClassifier().feature_importances_


# --- the Haar tree: split decreases spread over the pixels of the filters ----------------

def _images(n=300, side=8):
    """Noise images; class 1 has a brighter 3 x 3 block at rows / columns 1-3."""
    rng = np.random.RandomState(0)
    X = rng.uniform(0, 1, (n, side, side))
    y = np.arange(n) % 2
    X[y == 1, 1:4, 1:4] += 0.6
    return X.reshape(n, -1), y


def _naive_pixel_importances(est):
    """Each split's improvement shared among pixels in proportion to |pixel weight|, the weights
    read off the tree's own projection on the integral image of every one-pixel image."""
    from forestzoo.tree._haar_bank import integral_images

    tree = est.tree_
    h, w = est.image_shape_
    unit = integral_images(np.eye(h * w), (h, w)).astype(np.float64)  # row p: the image of pixel p
    imp = np.zeros(h * w)
    for k in range(tree.node_count):
        node = tree.nodes[k]
        if node["left"] == TREE_LEAF:
            continue
        j = node["oblique"]
        sl = slice(tree.obl_ptr[j], tree.obl_ptr[j + 1])
        pixel_weight = unit[:, tree.obl_feature[sl]] @ tree.obl_weight[sl]  # the feature's value on pixel p
        a = np.abs(pixel_weight)
        a[a < 1e-9 * a.max()] = 0.0  # shared corners cancel up to rounding
        imp += node["improvement"] * a / a.sum()
    return imp / imp.sum()


def test_haar_tree_pixel_importances():
    X, y = _images()
    est = HaarTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    imp = est.feature_importances_
    _check(imp, 64)
    np.testing.assert_allclose(imp, _naive_pixel_importances(est), rtol=1e-6, atol=1e-9)
    grid = imp.reshape(8, 8)
    # the bright block ranks first; the columns right of it, which no split needs, get nothing
    assert grid[1:4, 1:4].max() == grid.max() and grid[1:4, 1:4].min() > grid[:, 5:].max()
    # a filter's rectangles share the decrease: the root's filter covers pixels with equal shares
    shape, top, left, height, width = est.node_filters_[0]
    root = grid[top:top + height, left:left + width]
    assert shape != "" and root.min() > 0


def test_haar_tree_padded_images_and_constant_images():
    rng = np.random.RandomState(0)
    X = rng.uniform(0, 1, (200, 10))  # one row of 10 pixels, padded to 3 rows by the bank
    y = (X[:, 2] > 0.5).astype(int)
    est = HaarTreeClassifier(image_shape=(1, 10), max_depth=3, random_state=0).fit(X, y)
    imp = est.feature_importances_
    _check(imp, 10)
    np.testing.assert_allclose(imp, _naive_pixel_importances(est), rtol=1e-6, atol=1e-9)
    assert np.argmax(imp) in (1, 2, 3)
    flat = HaarTreeClassifier(max_depth=3, random_state=0).fit(np.ones((20, 16)), np.arange(20) % 2)
    assert flat.tree_.node_count == 1 and not flat.feature_importances_.any()


# --- not applicable: AttributeError, hasattr False -----------------------------------------

def test_gcforest_has_no_feature_importances():
    X, y = _images(n=120)
    est = GCForestClassifier(window_sizes=[3], image_shape=(8, 8), stride=2, scan_n_estimators=3,
                             n_estimators=3, n_random_forests=1, n_completely_random_forests=1,
                             max_levels=1, n_folds=2, random_state=0).fit(X, y)
    assert not hasattr(est, "feature_importances_")
    with pytest.raises(AttributeError, match="scanning windows.*CascadeForestClassifier"):
        est.feature_importances_
    # no fold forest of its cascade spent time recording importances it cannot use
    assert not any(hasattr(f, "importance_sum_") for grades in est.levels_ for g in grades for f in g.forests)


def test_cascade_without_a_split_on_the_features_has_zero_importances():
    X = np.ones((60, 3))
    y = np.arange(60) % 2
    est = CascadeForestClassifier(n_estimators=3, max_levels=1, random_state=0).fit(X, y)
    imp = est.feature_importances_
    assert imp.shape == (3,) and not imp.any()


def test_cascade_fitted_without_recorded_importances_says_to_refit(fitted):
    import copy

    est = copy.deepcopy(fitted["CascadeForestClassifier"])
    del est.levels_[0].forests[0].importance_sum_
    with pytest.raises(AttributeError, match="refit"):
        est.feature_importances_


def test_cascade_fold_forest_sums_equal_the_engine_importances():
    from forestzoo._base import importance_sum
    from forestzoo.deep._level import forest_importance_sum
    from forestzoo.ensemble import ExtraTreesClassifier, RandomForestClassifier, RandomForestRegressor

    X, y = _data("classification")
    trees = [e.tree_ for e in ExtraTreesClassifier(n_estimators=5, max_features=1, random_state=0)
             .fit(X, y).estimators_]
    trees += [e.tree_ for e in RandomForestRegressor(n_estimators=3, max_depth=1, random_state=0)
              .fit(X, y.astype(float)).estimators_]
    trees += [RandomForestClassifier(n_estimators=1, random_state=0)
              .fit(np.ones((10, X.shape[1])), np.arange(10) % 2).estimators_[0].tree_]
    assert trees[-1].node_count == 1  # a tree without a split adds zeros
    np.testing.assert_allclose(forest_importance_sum(trees, X.shape[1]), importance_sum(trees, X.shape[1]),
                               rtol=1e-12, atol=1e-15)
    images, labels = _images(n=100)
    haar = HaarTreeClassifier(max_depth=2, random_state=0).fit(images, labels).tree_  # oblique nodes
    np.testing.assert_allclose(forest_importance_sum([haar, haar], haar.n_features),
                               importance_sum([haar, haar], haar.n_features), rtol=1e-12)
