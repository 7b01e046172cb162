"""Online forests under concept drift: the ADWIN kernel, drift modes, set_params between partial_fit calls."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1
from sklearn.utils._param_validation import InvalidParameterError

from forestzoo import OnlineRandomForestClassifier, OnlineRandomForestRegressor
from forestzoo.online._adwin import ADWIN_SIZE, adwin_feed, adwin_mean, adwin_width
from forestzoo.online._streams import REGRESSION_STREAMS, STREAMS, make_agrawal, make_friedman_drift, make_stream


def _feed(xs, delta):
    s, out = np.zeros(ADWIN_SIZE), np.zeros(len(xs), np.int64)
    adwin_feed(s, np.asarray(xs, float), delta, out)
    return s, out


@pytest.mark.parametrize("seed", range(5))
def test_adwin_finds_a_rise_within_a_bounded_delay(seed):
    rng = np.random.RandomState(seed)
    xs = np.concatenate((rng.rand(3000) < 0.1, rng.rand(2000) < 0.5))
    s, out = _feed(xs, 0.001)
    first = np.flatnonzero(out)[0]
    assert 3000 <= first <= 3000 + 200 and out[first] == 1
    assert adwin_width(s) < 2100 and adwin_mean(s) == pytest.approx(0.5, abs=0.05)


def test_adwin_reports_a_fall_as_a_fall():
    rng = np.random.RandomState(0)
    _, out = _feed(np.concatenate((rng.rand(3000) < 0.4, rng.rand(2000) < 0.05)), 0.001)
    assert out[np.flatnonzero(out)[0]] == -1 and not np.any(out == 1)


def test_adwin_no_false_change_on_a_stationary_stream_of_100k():
    rng = np.random.RandomState(1)
    for delta in (0.001, 0.01):  # the drift and warning levels of the forests' defaults
        s, out = _feed(rng.rand(100_000) < 0.2, delta)
        assert not out.any() and adwin_width(s) == 100_000


def test_adwin_window_statistics_equal_the_naive_ones():
    xs = np.random.RandomState(2).normal(0.3, 0.1, 1234)
    s, out = _feed(xs, 0.001)
    assert not out.any()
    assert adwin_width(s) == 1234 and adwin_mean(s) == pytest.approx(xs.mean(), rel=1e-12)
    assert s[2] == pytest.approx(xs.var() * len(xs), rel=1e-9)  # merged squared deviations of the buckets


def test_streams_are_generated_with_their_drift_points():
    for name in STREAMS:
        if name.startswith("sorted-"):
            continue
        X, y, positions = make_stream(name, 2000, random_state=0)
        assert X.shape[0] == y.shape[0] == 2000 and set(np.unique(y)) == {0, 1}
        assert all(0 < p < 2000 for p in positions)
    X, y, positions = make_stream("sorted-mushroom", 0)
    assert len(positions) == 1 and np.all(np.diff(y) >= 0)
    X1, y1, _ = make_agrawal(500, random_state=3)
    X2, y2, _ = make_agrawal(500, random_state=3)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)


def test_regression_streams_switch_the_relevant_features_of_friedman1():
    for name in REGRESSION_STREAMS:
        X, y, positions = make_stream(name, 3000, random_state=0)
        assert X.shape == (3000, 10) and y.shape == (3000,) and np.all(np.isfinite(y))
        assert len(positions) == len(REGRESSION_STREAMS[name][1]) and all(0 < p < 3000 for p in positions)
    X, y, (pos,) = make_friedman_drift(4000, noise=0.0, random_state=0)
    before = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]
    after = 10 * np.sin(np.pi * X[:, 3] * X[:, 4]) + 20 * (X[:, 1] - 0.5) ** 2 + 10 * X[:, 0] + 5 * X[:, 2]
    np.testing.assert_allclose(y[:pos], before[:pos])
    np.testing.assert_allclose(y[pos:], after[pos:])
    X2, y2, _ = make_friedman_drift(4000, noise=0.0, random_state=0)
    np.testing.assert_array_equal(y, y2)
    # recurring: the first concept comes back after the second change
    X, y, (p1, p2) = make_stream("friedman-recurring", 3000, random_state=1)
    y0 = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]
    resid = np.abs(y - y0)
    assert resid[:p1].mean() < 1.0 and resid[p1:p2].mean() > 2.0 and resid[p2:].mean() < 1.0


def test_adwin_regressor_recovers_from_an_abrupt_change_of_the_relevant_features():
    X, y, (pos,) = make_friedman_drift(6000, random_state=0)
    errors = {}
    for drift in (None, "adwin"):
        m = OnlineRandomForestRegressor(n_estimators=5, drift=drift, random_state=0)
        err = []
        m.partial_fit(X[:50], y[:50])
        for s in range(50, 6000, 50):
            err.append(np.abs(m.predict(X[s:s + 50]) - y[s:s + 50]))
            m.partial_fit(X[s:s + 50], y[s:s + 50])
        errors[drift] = (m, np.concatenate(err))
    late = slice(pos + 1000, None)
    assert errors["adwin"][1][late].mean() < 0.9 * errors[None][1][late].mean()
    m = errors["adwin"][0]
    assert m.n_drifts_.sum() >= 1 and m.last_drift_position_ >= pos


def _prequential(model, X, y, batch, classes):
    hits = []
    model.partial_fit(X[:batch], y[:batch], classes=classes)
    for s in range(batch, len(y), batch):
        hits.append(model.predict(X[s:s + batch]) == y[s:s + batch])
        model.partial_fit(X[s:s + batch], y[s:s + batch])
    return np.concatenate(hits)


def test_adwin_forest_recovers_from_an_abrupt_drift():
    X, y, (pos,) = make_agrawal(6000, functions=(1, 2), random_state=0)
    runs = {}
    for drift in (None, "adwin", "oob"):
        m = OnlineRandomForestClassifier(n_estimators=5, drift=drift, oob_period=300, random_state=0)
        runs[drift] = (m, _prequential(m, X, y, 50, [0, 1]))
    hits = {drift: run[1] for drift, run in runs.items()}
    soon, late = slice(pos - 50, pos + 950), slice(pos + 950, None)  # rows pos..pos+999, and the last 2,000
    assert hits["adwin"][late].mean() > hits[None][late].mean() + 0.03
    assert hits["oob"][soon].mean() > hits[None][soon].mean() + 0.05  # trees replaced soon after the change
    m = runs["adwin"][0]
    assert np.all(m.n_drifts_ >= 1) and np.all(runs[None][0].n_drifts_ == 0)
    assert np.all((m.last_drift_ >= pos) & (m.last_drift_ < pos + 1500)) and m.last_drift_position_ < pos + 1500
    assert runs["oob"][0].n_drifts_.sum() > 0


def test_drift_handling_is_atomic_deterministic_and_batch_size_free():
    X, y, _ = make_agrawal(3000, functions=(1, 3), random_state=1)
    kw = dict(n_estimators=4, drift="adwin", random_state=3)
    whole = OnlineRandomForestClassifier(n_jobs=1, **kw).partial_fit(X, y, classes=[0, 1])
    assert whole.n_drifts_.sum() > 0
    for n_jobs, batch in ((2, 1000), (1, 1), (2, 37)):
        other = OnlineRandomForestClassifier(n_jobs=n_jobs, **kw)
        for s in range(0, 3000, batch):
            other.partial_fit(X[s:s + batch], y[s:s + batch], classes=[0, 1])
        np.testing.assert_array_equal(whole.n_drifts_, other.n_drifts_)
        np.testing.assert_array_equal(whole.last_drift_, other.last_drift_)
        np.testing.assert_array_equal(whole.predict_proba(X), other.predict_proba(X))
    before = pickle.dumps(whole)
    with pytest.raises(ValueError):
        whole.partial_fit(X[:10, :3], y[:10])
    assert pickle.dumps(whole) == before and whole.n_samples_seen_ == 3000


def test_drift_off_keeps_the_forest_of_the_plain_algorithm():
    # drift="adwin" on a stationary stream without a drift: the voting trees are those of drift=None
    X, y = make_classification(n_samples=1500, n_features=8, random_state=0)
    a = OnlineRandomForestClassifier(n_estimators=3, drift=None, random_state=0).fit(X, y)
    b = OnlineRandomForestClassifier(n_estimators=3, drift="adwin", random_state=0).fit(X, y)
    assert b.n_drifts_.sum() == 0
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("drift", ["adwin", "oob"])
def test_regressor_with_drift_handling(drift):
    X, y = make_friedman1(n_samples=2000, random_state=0)
    y = np.where(np.arange(2000) < 1000, y, 30.0 - y)  # an abrupt change of the target function
    m = OnlineRandomForestRegressor(n_estimators=3, drift=drift, oob_period=300, random_state=0)
    for s in range(0, 2000, 100):
        m.partial_fit(X[s:s + 100], y[s:s + 100])
    assert m.n_samples_seen_ == 2000 and m.n_drifts_.sum() > 0
    assert m.score(X[1500:], y[1500:]) > 0.3


@pytest.mark.parametrize("cls, new", [(OnlineRandomForestClassifier, n) for n in (6, 8, 50, 200, 5000)]
                         + [(OnlineRandomForestRegressor, n) for n in (6, 8, 50, 200)])
def test_growing_n_estimators_between_calls_adds_empty_trees(cls, new):
    # a few more trees and many more: the kernels must reach only the trees the forest holds
    X, y = make_classification(n_samples=120, n_features=4, random_state=0)
    kw = {"classes": [0, 1]} if cls is OnlineRandomForestClassifier else {}
    m = cls(n_estimators=5, n_tests=2, min_samples_split=5, random_state=0).partial_fit(X[:60], y[:60], **kw)
    m.set_params(n_estimators=new)
    m.partial_fit(X[60:61], y[60:61])
    assert len(m.estimators_) == new and m.n_drifts_.shape == (new,) and m.n_samples_seen_ == 61
    assert np.all(m.get_n_nodes()[5:] == 1)  # new trees start as one leaf
    m.partial_fit(X[61:], y[61:])
    assert m.predict(X).shape == (120,)


def test_shrinking_n_estimators_removes_trees_from_the_vote():
    X, y = make_classification(n_samples=600, n_features=5, random_state=1)
    m = OnlineRandomForestClassifier(n_estimators=6, random_state=0).partial_fit(X[:300], y[:300], classes=[0, 1])
    kept = [t.predict(X.astype(np.float32)) for t in m.estimators_[:2]]
    m.set_params(n_estimators=2).partial_fit(X[:0 + 1], y[:1])
    assert len(m.estimators_) == 2
    fresh = [t.predict(X.astype(np.float32)) for t in m.estimators_]
    # the kept trees learned one more row at most; the vote is theirs alone
    np.testing.assert_allclose(m.predict_proba(X), np.mean(fresh, axis=0))
    assert np.abs(np.mean(fresh, axis=0) - np.mean(kept, axis=0)).max() < 0.5


def test_drift_mode_can_be_switched_between_calls():
    X, y, _ = make_agrawal(1500, random_state=2)
    m = OnlineRandomForestClassifier(n_estimators=3, drift=None, random_state=0).partial_fit(X[:500], y[:500],
                                                                                             classes=[0, 1])
    for drift in ("adwin", "oob", None, "adwin"):
        m.set_params(drift=drift).partial_fit(X[500:800], y[500:800])
        assert m.forest_.paired == (drift == "adwin") and len(m.estimators_) == 3
        if drift == "oob":  # out-of-bag sums of this batch only, not the ADWIN windows the detectors held before
            assert m.forest_.detect[:, 0, 0].max() <= 300
    assert m.n_samples_seen_ == 1700


@pytest.mark.parametrize("params, error, match", [
    ({"min_samples_split": -1}, InvalidParameterError, "min_samples_split"),
    ({"criterion": "bogus"}, InvalidParameterError, "criterion"),
    ({"drift": "page"}, InvalidParameterError, "drift"),
    ({"drift_delta": 0.0}, InvalidParameterError, "drift_delta"),
    ({"n_tests": 7}, ValueError, "n_tests=7 differs"),
])
def test_every_partial_fit_validates_the_parameters(params, error, match):
    X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    m = OnlineRandomForestClassifier(n_estimators=2, n_tests=5, random_state=0).partial_fit(X, y, classes=[0, 1])
    before = pickle.dumps(m.forest_)
    m.set_params(**params)
    with pytest.raises(error, match=match):
        m.partial_fit(X, y)
    assert pickle.dumps(m.forest_) == before
    m.set_params(**OnlineRandomForestClassifier(n_estimators=2, n_tests=5).get_params())
    m.partial_fit(X, y)  # valid again: learns
    assert m.n_samples_seen_ == 200
