"""Haar trees: the feature bank (Appendix A.2 of the stochastic decision-tree induction paper), integral images, the SDT search over
the bank, O(D + depth) prediction through the engine's predictor, and bad input."""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_digits

from forestzoo import DecisionTreeClassifier, HaarTreeClassifier
from forestzoo._engine.tree import TREE_LEAF
from forestzoo.tree._haar_bank import SHAPES, build_bank, integral_images


def _naive_feature(images, shape, top, left, h, w):
    """A Haar feature straight from the pixels (difference of mean intensities)."""
    sub = images[:, top:top + h, left:left + w].astype(np.float64)
    n, m = h // 3, w // 3
    mean = lambda a: a.mean(axis=(1, 2))  # noqa: E731
    if shape == "edge_h":
        return mean(sub[:, : h // 2]) - mean(sub[:, h // 2:])
    if shape == "edge_v":
        return mean(sub[:, :, : w // 2]) - mean(sub[:, :, w // 2:])
    if shape == "line_h":
        return mean(sub[:, n:2 * n]) - mean(np.concatenate([sub[:, :n], sub[:, 2 * n:]], axis=1))
    if shape == "line_v":
        return mean(sub[:, :, m:2 * m]) - mean(np.concatenate([sub[:, :, :m], sub[:, :, 2 * m:]], axis=2))
    if shape == "gap_h":
        return mean(sub[:, :n]) - mean(sub[:, 2 * n:])
    if shape == "gap_v":
        return mean(sub[:, :, :m]) - mean(sub[:, :, 2 * m:])
    if shape == "four":
        a, b = h // 2, w // 2
        return 0.5 * (mean(sub[:, :a, :b]) + mean(sub[:, a:, b:]) - mean(sub[:, :a, b:]) - mean(sub[:, a:, :b]))
    center = sub[:, n:2 * n, m:2 * m]
    return mean(center) - (sub.sum(axis=(1, 2)) - center.sum(axis=(1, 2))) / (h * w - n * m)


def test_bank_size_on_28x28_images():
    bank = build_bank((28, 28))
    per_shape = sum((29 - 3 * n) * (29 - 3 * m) for n in range(1, 9) for m in range(1, 9))
    assert per_shape == 15376
    assert bank.n_features == len(SHAPES) * per_shape == 123008  # the paper: about 121,000
    assert_array_equal(np.bincount(bank.shape_id), [per_shape] * len(SHAPES))
    assert (bank.top + bank.height <= 28).all() and (bank.left + bank.width <= 28).all()
    assert set(np.unique(bank.height)) == {3 * n for n in range(1, 9)}
    nnz = np.diff(bank.ptr)
    assert nnz.min() >= 6 and nnz.max() <= 9  # a handful of integral-image reads per feature


def test_features_from_integral_images_match_the_pixels():
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, size=(6, 13, 11)).astype(np.float64)
    bank = build_bank((13, 11), max_scale=4)
    II = integral_images(images.reshape(6, -1).astype(np.float32), (13, 11))
    assert_allclose(II.reshape(6, 14, 12)[:, 1:, 1:], images.cumsum(1).cumsum(2))
    for f in range(bank.n_features):
        index, coef = bank.feature(f)
        got = II[:, index].astype(np.float64) @ coef
        assert_allclose(got, _naive_feature(images, *bank.describe(f)), atol=1e-9, err_msg=str(bank.describe(f)))


def test_tiny_images_are_padded_to_the_smallest_region():
    X = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    II = integral_images(X, (1, 2))
    assert II.shape == (2, 16)  # padded to 3 x 3
    assert_allclose(II.reshape(2, 4, 4)[:, -1, -1], [3.0, 7.0])
    assert build_bank((1, 2)).n_features == len(SHAPES)  # one 3 x 3 region


def _small_images(n=240, seed=0):
    """Two classes of 7 x 7 images: a bright vertical bar left or right of center, plus noise."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, n)
    img = rng.uniform(0, 60, size=(n, 7, 7))
    cols = np.where(y == 0, 1, 5) + rng.randint(-1, 2, n)
    img[np.arange(n), :, cols] += 150
    return img.reshape(n, -1), y


def test_exact_fallback_finds_the_best_feature_of_the_whole_bank():
    X, y = _small_images()
    bank = build_bank((7, 7))
    # n0 above the node size: the search is exact over the whole bank
    haar = HaarTreeClassifier(max_depth=1, sdt_n0=10_000, random_state=0).fit(X, y)
    II = integral_images(X.astype(np.float32), (7, 7))
    F = np.stack([II[:, bank.feature(f)[0]].astype(np.float64) @ bank.feature(f)[1]
                  for f in range(bank.n_features)], axis=1)
    cart = DecisionTreeClassifier(max_depth=1, random_state=0).fit(F, y)
    assert_allclose(haar.tree_.nodes["improvement"][0], cart.tree_.nodes["improvement"][0], rtol=1e-9)
    assert haar.n_split_evaluations_ == bank.n_features * len(y)


def test_prediction_reads_only_the_path_and_routes_training_rows_as_grown():
    X, y = load_digits(return_X_y=True)
    clf = HaarTreeClassifier(max_depth=5, random_state=0).fit(X[:600], y[:600])
    nodes = clf.tree_.nodes
    # a naive walk down the tree with each node's filter computed from the pixels
    images = X[600:700].reshape(-1, 8, 8)
    for i, leaf in enumerate(clf.apply(X[600:700])):
        k = 0
        while nodes["left"][k] != TREE_LEAF:
            flt = clf.node_filters_[k]
            v = _naive_feature(images[i:i + 1], flt["shape"], flt["top"], flt["left"], flt["height"], flt["width"])[0]
            k = nodes["left"][k] if v <= nodes["threshold"][k] + 1e-9 else nodes["right"][k]
        assert k == leaf
    # training rows land where the grower sent them
    leaves = clf.apply(X[:600])
    for leaf in np.unique(leaves):
        assert nodes["n_samples"][leaf] == (leaves == leaf).sum()
    internal = nodes["left"] != TREE_LEAF
    assert (clf.node_filters_["shape"][internal] != "").all() and (clf.node_filters_["shape"][~internal] == "").all()
    cost = clf.inference_cost(X[600:700])
    assert 64 < cost <= 64 + 9 * 5


def test_haar_tree_beats_the_pixel_tree_on_digits():
    X, y = load_digits(return_X_y=True)
    haar = HaarTreeClassifier(max_depth=6, random_state=0).fit(X[:1200], y[:1200])
    cart = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X[:1200], y[:1200])
    assert haar.score(X[1200:], y[1200:]) > cart.score(X[1200:], y[1200:]) + 0.03
    assert haar.score(X[1200:], y[1200:]) > 0.75  # chance is 0.1
    assert haar.n_haar_features_ == 648


def test_mnist_subset():
    from forestzoo.datasets import load_dataset

    try:
        X, y = load_dataset("mnist_test_only")
    except FileNotFoundError:
        pytest.skip("mnist_test_only is not in FORESTZOO_DATA")
    clf = HaarTreeClassifier(max_depth=3, random_state=0).fit(X[:800], y[:800])
    assert clf.image_shape_ == (28, 28) and clf.n_haar_features_ == 123008
    assert clf.score(X[8000:9000], y[8000:9000]) > 0.25  # 8 leaves, 10 classes: chance is 0.1


def test_same_seed_same_tree_and_pickle():
    X, y = _small_images(seed=1)
    a = HaarTreeClassifier(max_depth=4, random_state=3).fit(X, y)
    b = HaarTreeClassifier(max_depth=4, random_state=3).fit(X, y)
    assert_array_equal(a.tree_.nodes, b.tree_.nodes)
    c = pickle.loads(pickle.dumps(a))
    assert_array_equal(c.predict_proba(X), a.predict_proba(X))
    assert a.score(X, y) > 0.95


def test_bad_images_give_clear_errors():
    X, y = _small_images()
    with pytest.raises(ValueError, match="needs 64 pixels per image"):
        HaarTreeClassifier(image_shape=(8, 8)).fit(X, y)
    with pytest.raises(ValueError, match="two positive integers"):
        HaarTreeClassifier(image_shape=(7, 7, 1)).fit(X, y)
    with pytest.raises(ValueError, match="two positive integers"):
        HaarTreeClassifier(image_shape=(0, 49)).fit(X, y)
    bad = X.copy()
    bad[3, 5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        HaarTreeClassifier().fit(bad, y)
    clf = HaarTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    before = clf.predict(X)
    with pytest.raises(ValueError, match="49 features"):
        clf.predict(X[:, :40])
    with pytest.raises(ValueError, match="NaN"):
        clf.predict(bad)
    # a failed fit leaves the previous model intact
    with pytest.raises(ValueError):
        clf.set_params(image_shape=(5, 5)).fit(X, y)
    assert_array_equal(clf.predict(X), before)
    with pytest.raises(ValueError, match="sdt_C"):
        HaarTreeClassifier(sdt_C=0).fit(X, y)


def test_threads_give_the_same_tree():
    X, y = load_digits(return_X_y=True)
    one = HaarTreeClassifier(max_depth=5, random_state=0, n_jobs=1).fit(X[:500], y[:500])
    two = HaarTreeClassifier(max_depth=5, random_state=0, n_jobs=2).fit(X[:500], y[:500])
    assert_array_equal(one.tree_.nodes, two.tree_.nodes)
    assert_array_equal(one.tree_.obl_weight, two.tree_.obl_weight)
    assert one.n_split_evaluations_ == two.n_split_evaluations_
