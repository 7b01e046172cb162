"""Multi-grained scanning: windows against a naive loop, output layout, chunked memory, sklearn checks."""

import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks

from forestzoo.deep import MultiGrainedScanner
from forestzoo.deep._windows import resolve_windows, sample_windows, windows_of


def _naive_windows(X, image, window, stride):
    """Every window of every row, by explicit loops (sample-major, window rows then columns)."""
    (H, W), (h, w) = image, window
    out = []
    for row in X:
        img = row.reshape(H, W)
        for r in range(0, H - h + 1, stride):
            for c in range(0, W - w + 1, stride):
                out.append(img[r:r + h, c:c + w].ravel())
    return np.asarray(out, dtype=np.float32)


@pytest.mark.parametrize("image, window, stride", [
    ((6, 7), (3, 2), 1), ((6, 7), (3, 2), 2), ((5, 5), (5, 5), 3), ((1, 12), (1, 5), 1), ((1, 12), (1, 5), 3),
])
def test_windows_match_naive_loop(image, window, stride):
    X = np.random.RandomState(0).rand(4, image[0] * image[1]).astype(np.float32)
    assert_array_equal(windows_of(X, image, window, stride), _naive_windows(X, image, window, stride))


def test_sampled_windows_are_distinct_windows_of_their_sample():
    image, window, stride = (6, 7), (3, 2), 1
    X = np.random.RandomState(0).rand(10, 42).astype(np.float32)
    rows = np.array([1, 4, 5, 8])
    wins, owner = sample_windows(X, image, window, stride, rows, 25, seed=0)
    assert wins.shape == (25, 6) and owner.shape == (25,)
    for win, o in zip(wins, owner):
        assert (win == _naive_windows(X[rows[o]][None], image, window, stride)).all(axis=1).any()
    assert len({w.tobytes() for w in wins}) == 25  # drawn without replacement (values are continuous)
    every, owner_all = sample_windows(X, image, window, stride, rows, None, seed=0)
    assert_array_equal(every, _naive_windows(X[rows], image, window, stride))
    assert_array_equal(owner_all, np.repeat(np.arange(4), 4 * 6))


def test_window_size_forms():
    assert resolve_windows([1 / 16, 1 / 9, 1 / 4], (28, 28), True) == [(7, 7), (9, 9), (14, 14)]
    assert resolve_windows([0.25, 5, 0.01], (1, 400), False) == [(1, 100), (1, 5), (1, 4)]
    assert resolve_windows([3, (2, 5), 1.0], (4, 6), True) == [(3, 3), (2, 5), (4, 4)]
    assert resolve_windows([0.001], (1, 10), False) == [(1, 1)]


@pytest.mark.parametrize("sizes, image, is_image, match", [
    ([30], (28, 28), True, r"gives a 30x30 window, larger than the image \(28x28\)"),
    ([(3, 29)], (28, 28), True, "larger than the image"),
    ([11], (1, 10), False, r"window_sizes\[0\]=11 is larger than the sequence \(10 features\)"),
    ([(2, 2)], (1, 10), False, "not a positive int or a fraction"),
    ([0], (1, 10), False, "not a positive int"),
    ([1.5], (1, 10), False, r"fraction in \(0, 1\]"),
    ([], (1, 10), False, "non-empty"),
])
def test_bad_window_sizes(sizes, image, is_image, match):
    with pytest.raises(ValueError, match=match):
        resolve_windows(sizes, image, is_image)


_STROKES = np.array([[[1, 1], [0, 0]], [[1, 0], [1, 0]], [[1, 0], [0, 1]]], dtype=float)


def _images(n=90, seed=0):
    """Noise images with one bright stroke anywhere; the class is its shape (-, |, \\)."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 6, 9) * 0.5
    y = np.arange(n) % 3
    for i, label in enumerate(y):
        r, c = rng.randint(0, 5), rng.randint(0, 8)
        X[i, r:r + 2, c:c + 2] += _STROKES[label]
    return X.reshape(n, -1), y


def test_output_layout_is_forest_window_class():
    X, y = _images()
    scan = MultiGrainedScanner(window_sizes=[(2, 3), 4], image_shape=(6, 9), stride=2, n_estimators=4,
                               random_state=0).fit(X, y)
    assert scan.window_shapes_ == [(2, 3), (4, 4)]
    n_windows = [3 * 4, 2 * 3]
    assert [g.n_windows for g in scan.grains_] == n_windows
    out = scan.transform(X[:5])
    assert out.shape == (5, scan.n_features_out_) and out.dtype == np.float32
    assert scan.n_features_out_ == sum(2 * n * 3 for n in n_windows)
    start = 0
    for grain, n_win in zip(scan.grains_, n_windows):
        wins = _naive_windows(X[:5].astype(np.float32), (6, 9), grain.window, 2)
        for f, forest in enumerate(grain.forests):
            expected = np.mean([est.predict_proba(wins) for est in forest.estimators_], axis=0)
            block = out[:, start + f * n_win * 3:start + (f + 1) * n_win * 3]
            assert_allclose(block.reshape(5 * n_win, 3), expected, rtol=1e-6)
        start += 2 * n_win * 3


def test_chunked_transform_is_identical_and_memory_bounded():
    rng = np.random.RandomState(0)
    X = rng.rand(300, 28 * 28).astype(np.float32)
    y = np.arange(300) % 2
    scan = MultiGrainedScanner(window_sizes=[7], image_shape=(28, 28), n_estimators=2, max_window_samples=2000,
                               min_samples_leaf=20, random_state=0, working_memory=1)
    scan.fit(X[:60], y[:60])
    out_size = X.shape[0] * scan.n_features_out_ * 4
    all_windows = X.shape[0] * 22 * 22 * 49 * 4  # 28 MB if the windows were cut at once
    tracemalloc.start()
    chunked = scan.transform(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < out_size + 8 * 2**20 < all_windows / 2
    unchunked = scan.set_params(working_memory=1024).transform(X)
    assert_array_equal(chunked, unchunked)


def test_max_window_samples_bounds_the_training_instances():
    X, y = _images()
    scan = MultiGrainedScanner(window_sizes=[2], image_shape=(6, 9), n_estimators=2, max_window_samples=150,
                               random_state=0).fit(X, y)
    completely_random = scan.grains_[0].forests[1]
    # each fold forest was fitted on 150 windows (its trees keep no sample counts: prediction trees)
    assert [e._n_samples_fit for e in completely_random.estimators_] == [150] * 3


def test_fit_transform_is_out_of_fold():
    # labels are noise: windows of a training image must not be scored by forests that saw the image
    rng = np.random.RandomState(0)
    X, y = rng.rand(150, 16), np.arange(150) % 3
    scan = MultiGrainedScanner(window_sizes=[4], n_estimators=5, min_samples_leaf=1, random_state=0)
    oof = scan.fit_transform(X, y)
    def vote(features):
        return np.argmax(features.reshape(len(X), -1, 3).mean(axis=1), axis=1)
    assert np.mean(vote(oof) == y) < 0.45
    assert np.mean(vote(scan.transform(X)) == y) > 0.6  # each fold forest saw 2/3 of the images


def test_scanned_features_carry_the_digits():
    from sklearn.datasets import load_digits

    from forestzoo import RandomForestClassifier

    X, y = load_digits(return_X_y=True)
    scan = MultiGrainedScanner(window_sizes=[4], image_shape=(8, 8), stride=2, n_estimators=8, random_state=0)
    oof = scan.fit_transform(X[:600], y[:600])
    assert oof.shape == (600, 2 * 9 * 10)
    clf = RandomForestClassifier(n_estimators=30, random_state=0).fit(oof, y[:600])
    assert clf.score(scan.transform(X[600:1000]), y[600:1000]) > 0.85


def test_scanner_errors_and_failed_fit_keeps_state():
    X, y = _images()
    scan = MultiGrainedScanner(window_sizes=[2], image_shape=(6, 9), n_estimators=2, random_state=0).fit(X, y)
    before = scan.transform(X[:4])
    with pytest.raises(ValueError, match=r"X has 54 features but image_shape=\(6, 8\) needs 48"):
        scan.set_params(image_shape=(6, 8)).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes; got 1 class"):
        scan.set_params(image_shape=(6, 9)).fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="features"):
        scan.transform(X[:, :50])
    assert_array_equal(scan.transform(X[:4]), before)


def test_reproducible_for_any_n_jobs():
    X, y = _images()
    params = dict(window_sizes=[2, 3], image_shape=(6, 9), n_estimators=3, max_window_samples=500, random_state=1)
    a = MultiGrainedScanner(**params, n_jobs=1).fit_transform(X, y)
    b = MultiGrainedScanner(**params, n_jobs=2).fit_transform(X, y)
    assert_array_equal(a, b)


# scikit-learn's checks; the scanner is not in forestzoo.all_estimators() (see forestzoo/deep/__init__.py)
@parametrize_with_checks(
    [MultiGrainedScanner(n_estimators=3, n_folds=2, random_state=0)],
    expected_failed_checks=lambda est: type(est)._xfail_checks,
)
def test_sklearn_compatible_scanner(estimator, check):
    check(estimator)
