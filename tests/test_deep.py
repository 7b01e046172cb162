"""Cascade forest and gcForest (forestzoo.deep): out-of-fold honesty, level growth, reproducibility."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_digits, load_iris, make_blobs, make_regression

from forestzoo.deep import CascadeForestClassifier, CascadeForestRegressor, GCForestClassifier
from forestzoo.deep._level import KFoldEstimator, make_folds, mean_vector

SMALL = dict(n_estimators=8, n_folds=3, max_levels=3, random_state=0)


class Memoriser(ClassifierMixin, BaseEstimator):
    """Knows the label of every row it was trained on exactly, and nothing else (uniform elsewhere)."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        self.seen_ = {row.tobytes(): label for row, label in zip(np.asarray(X), y)}
        return self

    def predict_proba(self, X):
        out = np.full((len(X), len(self.classes_)), 1.0 / len(self.classes_))
        for i, row in enumerate(np.asarray(X)):
            if row.tobytes() in self.seen_:
                out[i] = self.classes_ == self.seen_[row.tobytes()]
        return out


def _random_labels(n=240, n_features=5, n_classes=4, seed=0):
    rng = np.random.RandomState(seed)
    return rng.normal(size=(n, n_features)).astype(np.float32), np.arange(n) % n_classes


# ---------------------------------------------------------------------------------------------
# out-of-fold class vectors


def test_out_of_fold_vectors_never_see_their_own_sample():
    X, y = _random_labels()
    folds = make_folds(y, 3, True, seed=0)
    forest = KFoldEstimator(Memoriser(), n_outputs=4)
    oof = forest.fit(X, y, None, folds, np.random.RandomState(0))
    # a memoriser that had seen a row would return its one-hot label: every OOF vector is uniform
    assert_allclose(oof, 0.25)
    # and each fold model knows exactly the rows outside its fold
    for est, test in zip(forest.estimators_, folds):
        assert len(est.seen_) == len(X) - len(test)
        assert not any(X[i].tobytes() in est.seen_ for i in test)
    # at prediction, the fold models are averaged: a training row is known by n_folds - 1 of them
    assert_allclose(forest.predict(X).max(axis=1), (2 * 1.0 + 0.25) / 3)


@pytest.mark.parametrize("Cascade", [CascadeForestClassifier, GCForestClassifier])
def test_cascade_oof_accuracy_is_chance_on_random_labels(Cascade):
    # fully grown trees memorise; labels are noise: a leak would show as OOF accuracy far above 1/4
    X, y = _random_labels()
    params = dict(SMALL, max_levels=1)  # one level: its in-sample fit is plain memorisation
    if Cascade is GCForestClassifier:
        params.update(window_sizes=[2, 4], scan_n_estimators=5, scan_min_samples_leaf=1)
    clf = Cascade(**params).fit(X, y)
    oof_accuracy = np.mean(np.argmax(clf.oof_decision_function_, axis=1) == y)
    assert oof_accuracy == pytest.approx(clf.oof_score_)
    assert oof_accuracy < 0.4
    # the fold forests did see (n_folds - 1) / n_folds of the rows: they know them better than unseen ones.
    # On raw features that is plain memorisation; gcForest's cascade sees the scanning forests' class
    # vectors instead, which for noise labels collide between rows, so its in-sample fit is partial and
    # varies with the seed (0.23-0.65 over seeds 0-5, measured), always above its OOF accuracy
    if Cascade is GCForestClassifier:
        assert clf.score(X, y) > oof_accuracy + 0.1
    else:
        assert clf.score(X, y) > 0.6


def test_regressor_oof_on_noise_targets_has_no_skill():
    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(200, 4)), rng.normal(size=200)
    reg = CascadeForestRegressor(**dict(SMALL, max_levels=1)).fit(X, y)
    assert reg.oof_score_ < 0.15
    assert reg.score(X, y) > 0.4


# ---------------------------------------------------------------------------------------------
# level growth


def _assert_stopping_rule(model, n_tolerant_rounds, max_levels):
    scores = model.level_scores_
    best = int(np.argmax(scores))  # the first best level
    assert model.n_levels_ == best + 1
    assert model.oof_score_ == scores[best]
    # growth stops n_tolerant_rounds levels after the best one, or at max_levels
    assert len(scores) == min(best + 1 + n_tolerant_rounds, max_levels)
    assert np.all(scores[best + 1:] <= scores[best])


def test_levels_stop_when_accuracy_stops_improving():
    # separable blobs: level 1 is already perfect, nothing can improve on it
    X, y = make_blobs(n_samples=150, centers=3, cluster_std=0.5, random_state=0)
    for rounds in (1, 2):
        clf = CascadeForestClassifier(**dict(SMALL, max_levels=10), n_tolerant_rounds=rounds).fit(X, y)
        assert clf.level_scores_[0] == 1.0
        assert len(clf.level_scores_) == 1 + rounds
        assert clf.n_levels_ == 1 and len(clf.levels_) == 1
    # a noisy problem: the same rule, whatever the scores turn out to be
    X, y = load_digits(return_X_y=True)
    for rounds in (1, 2):
        clf = CascadeForestClassifier(n_estimators=5, max_levels=6, n_tolerant_rounds=rounds,
                                      random_state=1).fit(X[:400], y[:400])
        _assert_stopping_rule(clf, rounds, 6)


def test_max_levels_caps_growth():
    X, y = load_digits(return_X_y=True)
    clf = CascadeForestClassifier(n_estimators=4, max_levels=1, random_state=0).fit(X[:200], y[:200])
    assert len(clf.level_scores_) == 1 and clf.n_levels_ == 1


def test_level_input_is_features_plus_previous_class_vectors():
    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    clf = CascadeForestClassifier(n_estimators=4, n_random_forests=1, n_completely_random_forests=2,
                                  max_levels=3, n_tolerant_rounds=3, random_state=0).fit(X, y)
    assert clf.n_levels_ >= 1 and len(clf.levels_[0].forests) == 3
    widths = [lvl.forests[0].estimators_[0].n_features_in_ for lvl in clf.levels_]
    assert widths == [64] + [64 + 3 * 10] * (len(widths) - 1)
    # completely-random forests draw one feature per node; random forests sqrt(d)
    assert clf.levels_[0].forests[0].template.max_features == "sqrt"
    assert clf.levels_[0].forests[2].template.max_features == 1
    assert len(clf.levels_[0].forests[0].estimators_) == clf.n_folds


def _reference_cascade_proba(clf, X):
    """The prediction rebuilt from the fitted fold forests, level by level."""
    X = np.asarray(X, dtype=np.float32)
    inputs = X
    for level in clf.levels_:
        vectors = []
        for forest in level.forests:
            vectors.append(np.mean([est.predict_proba(inputs) for est in forest.estimators_], axis=0))
        inputs = np.hstack([X] + [v.astype(np.float32) for v in vectors])
    return np.mean(vectors, axis=0)


def test_prediction_averages_the_last_levels_class_vectors():
    X, y = load_digits(return_X_y=True)
    clf = CascadeForestClassifier(n_estimators=4, max_levels=3, n_tolerant_rounds=3, random_state=0)
    clf.fit(X[:300], y[:300])
    assert clf.n_levels_ >= 2 or len(clf.level_scores_) == 3
    assert_allclose(clf.predict_proba(X[300:400]), _reference_cascade_proba(clf, X[300:400]), rtol=1e-6)
    assert_allclose(clf.predict_proba(X[300:400]).sum(axis=1), 1.0)


def test_gcforest_grades_form_a_cascade_of_cascades():
    X, y = load_digits(return_X_y=True)
    clf = GCForestClassifier(window_sizes=[3, (4, 6)], image_shape=(8, 8), stride=2, scan_n_estimators=4,
                             n_estimators=4, max_levels=2, n_tolerant_rounds=2, random_state=0)
    clf.fit(X[:300], y[:300])
    assert clf.window_shapes_ == [(3, 3), (4, 6)]
    n_win = [3 * 3, 3 * 2]  # (8-3)//2+1 = 3 ; (8-4)//2+1 = 3, (8-6)//2+1 = 2
    assert [g.n_windows for g in clf.grains_] == n_win
    grain_width = [2 * n * 10 for n in n_win]
    cv = 4 * 10  # class vectors of one grade: 4 forests x 10 classes
    widths = [[grade.forests[0].estimators_[0].n_features_in_ for grade in grades] for grades in clf.levels_]
    expected = [[grain_width[0], grain_width[1] + cv]] + [[grain_width[0] + cv, grain_width[1] + cv]] * (
        len(widths) - 1)
    assert widths == expected
    # scanning forests are trained on windows: h * w features
    assert [g.forests[0].estimators_[0].n_features_in_ for g in clf.grains_] == [9, 24]
    assert clf.predict(X[300:310]).shape == (10,)


# ---------------------------------------------------------------------------------------------
# accuracy floors on real data


def test_cascade_accuracy_on_digits():
    X, y = load_digits(return_X_y=True)
    clf = CascadeForestClassifier(n_estimators=10, max_levels=2, random_state=0, n_jobs=2).fit(X[::2], y[::2])
    assert clf.score(X[1::2], y[1::2]) > 0.93


def test_gcforest_accuracy_on_digits_images():
    X, y = load_digits(return_X_y=True)
    clf = GCForestClassifier(window_sizes=[4, 6], image_shape=(8, 8), stride=2, scan_n_estimators=8,
                             n_estimators=8, max_levels=2, random_state=0, n_jobs=2).fit(X[:600], y[:600])
    assert clf.score(X[600:1000], y[600:1000]) > 0.88


def test_regressor_accuracy():
    X, y = make_regression(n_samples=300, n_features=6, noise=5.0, random_state=0)
    reg = CascadeForestRegressor(n_estimators=10, max_levels=2, random_state=0).fit(X[:200], y[:200])
    assert reg.score(X[200:], y[200:]) > 0.7
    assert reg.oof_prediction_.shape == (200,)


# ---------------------------------------------------------------------------------------------
# reproducibility


@pytest.mark.parametrize("Estimator, extra", [
    (CascadeForestClassifier, {}),
    (CascadeForestRegressor, {}),
    (GCForestClassifier, dict(window_sizes=[2, 3], scan_n_estimators=4)),
])
def test_reproducible_with_random_state_and_any_n_jobs(Estimator, extra):
    X, y = load_digits(return_X_y=True)
    X, y = X[:240, ::4], y[:240]
    params = dict(n_estimators=4, max_levels=2, **extra)
    a = Estimator(**params, random_state=3, n_jobs=1).fit(X, y)
    b = Estimator(**params, random_state=3, n_jobs=2).fit(X, y)
    c = Estimator(**params, random_state=4, n_jobs=1).fit(X, y)
    method = "predict_proba" if hasattr(a, "predict_proba") else "predict"
    assert_array_equal(getattr(a, method)(X), getattr(b, method)(X))
    assert_array_equal(a.level_scores_, b.level_scores_)
    assert not np.array_equal(getattr(a, method)(X), getattr(c, method)(X))


# ---------------------------------------------------------------------------------------------
# bad input


def test_fewer_samples_per_class_than_folds_warns_and_keeps_full_width_vectors():
    X, y = make_blobs(n_samples=62, centers=2, random_state=0)
    y = np.r_[y[:60], 2, 2]  # class 2 has 2 samples, n_folds=3: one fold misses it
    X[60:] += 10
    with pytest.warns(UserWarning, match="fewer than n_folds=3"):
        clf = CascadeForestClassifier(**SMALL).fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.shape == (62, 3)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_allclose(clf.oof_decision_function_.sum(axis=1), 1.0)


def test_one_class_fold_raises():
    X, y = make_blobs(n_samples=31, centers=1, random_state=0)
    y = np.r_[np.zeros(30, int), 1]  # the fold holding the lone 1 trains on class 0 only
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match="fold .* holds a single class"):
            CascadeForestClassifier(**SMALL).fit(X, y)


@pytest.mark.parametrize("Estimator", [CascadeForestClassifier, GCForestClassifier])
def test_single_class_raises(Estimator):
    X = np.random.RandomState(0).normal(size=(20, 4))
    with pytest.raises(ValueError, match="at least 2 classes; got 1 class"):
        Estimator(n_estimators=2).fit(X, np.zeros(20))


def test_fewer_samples_than_folds_raises():
    with pytest.raises(ValueError, match="n_samples=3 is fewer than n_folds=5"):
        CascadeForestRegressor(n_estimators=2, n_folds=5).fit(np.eye(3), [1.0, 2.0, 3.0])


def test_a_level_without_forests_raises():
    X, y = make_blobs(n_samples=30, random_state=0)
    with pytest.raises(ValueError, match="at least 1"):
        CascadeForestClassifier(n_random_forests=0, n_completely_random_forests=0).fit(X, y)


def test_gcforest_window_and_image_errors():
    X, y = load_digits(return_X_y=True)
    X, y = X[:60], y[:60]
    with pytest.raises(ValueError, match=r"window_sizes\[1\]=9 gives a 9x9 window, larger than the image \(8x8\)"):
        GCForestClassifier(window_sizes=[3, 9], image_shape=(8, 8)).fit(X, y)
    with pytest.raises(ValueError, match=r"X has 64 features but image_shape=\(7, 9\) needs 63"):
        GCForestClassifier(window_sizes=[3], image_shape=(7, 9)).fit(X, y)
    with pytest.raises(ValueError, match=r"window_sizes\[0\]=65 is larger than the sequence \(64 features\)"):
        GCForestClassifier(window_sizes=[65]).fit(X, y)


def test_failed_gcforest_fit_leaves_model_intact():
    X, y = load_digits(return_X_y=True)
    clf = GCForestClassifier(window_sizes=[4], image_shape=(8, 8), scan_n_estimators=3, n_estimators=3,
                             max_levels=1, random_state=0).fit(X[:90], y[:90])
    before = clf.predict_proba(X[90:100])
    clf.set_params(window_sizes=[12])
    with pytest.raises(ValueError, match="larger than the image"):
        clf.fit(X[:90], y[:90])
    assert clf.window_shapes_ == [(4, 4)]
    assert_array_equal(clf.predict_proba(X[90:100]), before)


def test_mean_vector_averages_forests():
    v = np.array([[0.2, 0.8, 0.6, 0.4, 1.0, 0.0]])
    assert_allclose(mean_vector(v, 2), [[0.6, 0.4]])


def test_fold_forests_keep_only_what_prediction_reads():
    # a cascade only predicts with its fold forests: their trees keep the compact table and leaf codes
    from forestzoo._engine.tree import PredictionTree

    X, y = load_iris(return_X_y=True)
    clf = CascadeForestClassifier(n_estimators=4, max_levels=2, random_state=0).fit(X, y)
    trees = [e.tree_ for level in clf.levels_ for f in level.forests for fold in f.estimators_ for e in fold.estimators_]
    assert trees and all(isinstance(t, PredictionTree) for t in trees)
    # one row per impure leaf; the pure ones keep only their class in leaf_row
    assert all(t.leaf_values.shape[1] == 3 and (t.leaf_row != -1).sum() == t.n_leaves for t in trees)
    assert sum(t.leaf_values.shape[0] for t in trees) < sum(t.n_leaves for t in trees) / 2
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
