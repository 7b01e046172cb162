"""SDT, the stochastic split search (the stochastic decision-tree induction paper, Section 3, Steps 1-5): kernel vs a naive twin,
evaluation counts, fallbacks, parameters of trees and forests."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification

from forestzoo import (
    DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier, RandomForestClassifier,
    RandomForestRegressor,
)
from forestzoo._engine.splitters.stochastic import sdt_plan, sort_pairs
from forestzoo._engine.builder import TreeParams, TreeTarget, grow, prepare_data

_MASK = (1 << 64) - 1


class _SplitMix:
    """Python twin of forestzoo._engine.rng (SplitMix64), to replay the kernel's draws."""

    def __init__(self, seed):
        self.state = seed & _MASK

    def randint(self, high):
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        r = int(float(z >> 11) * (1.0 / 9007199254740992.0) * high)
        return min(r, high - 1)


def _gini_cost(values, y, n_classes):
    """Best ``W_l gini_l + W_r gini_r`` over thresholds between distinct values (unit weights), naively."""
    order = np.argsort(values, kind="stable")
    v, c = values[order], y[order]
    best, best_thr = np.inf, None
    for p in range(len(v) - 1):
        if v[p] == v[p + 1]:
            continue
        cost = 0.0
        for part in (c[: p + 1], c[p + 1:]):
            counts = np.bincount(part, minlength=n_classes)
            cost += len(part) - (counts ** 2).sum() / len(part)
        if cost < best - 1e-12:
            best, best_thr = cost, 0.5 * (v[p] + v[p + 1])
    return best, best_thr


def _naive_sdt_root(X, y, seed, C, alpha, fraction, n0):
    """Steps 1-5 at the root, written plainly: ``(survivors, best feature, cost, evaluations)``."""
    n, D = X.shape
    k = int(y.max()) + 1
    rng = _SplitMix(seed)
    feats = list(range(D))
    for j in range(D):  # the candidate order (all features)
        r = j + rng.randint(D - j)
        feats[j], feats[r] = feats[r], feats[j]
    batch = max(n0, n >> C)
    min_keep = max(1, int(np.ceil(fraction * D)))
    perm = list(range(n))
    alive, ws, evals = D, 0, 0
    for _ in range(alpha):  # Step 4
        if alive <= min_keep or ws + batch >= n:
            break
        for q in range(ws, ws + batch):  # Step 1
            r = q + rng.randint(n - q)
            perm[q], perm[r] = perm[r], perm[q]
        ws += batch
        rows = np.array(perm[:ws])
        scores = [_gini_cost(X[rows, f], y[rows], k)[0] for f in feats[:alive]]  # Step 2, Eq. (3)
        order = np.argsort(scores, kind="stable")  # Step 3
        feats[:alive] = [feats[a] for a in order]
        evals += alive * ws
        alive = max(min_keep, (alive + 1) // 2)
    evals += alive * n
    exact = [_gini_cost(X[:, f], y, k) for f in feats[:alive]]  # Step 5, Eq. (2)
    a = int(np.argmin([c for c, _ in exact]))
    return set(feats[:alive]), feats[a], exact[a][0], evals


def _root(X, y, seed, params):
    data = prepare_data(np.ascontiguousarray(X, dtype=np.float32), "stochastic", 255)
    return grow(data, TreeTarget(y.astype(np.int32), np.zeros(len(y)), int(y.max()) + 1), np.ones(len(y)),
                TreeParams("gini", max_depth=1, sdt=tuple(params)), seed)


@pytest.mark.parametrize("seed", [3, 11])
def test_kernel_matches_a_naive_twin_at_the_root(seed):
    X, y = make_classification(700, 16, n_informative=6, n_classes=3, flip_y=0.15, random_state=seed)
    X = X.astype(np.float32).astype(np.float64)  # the kernel reads float32
    params = (10, 3, 0.01, 40)
    survivors, feature, cost, evals = _naive_sdt_root(X, y, seed, *params)
    assert 1 < len(survivors) < X.shape[1], "the test must exercise both the rounds and the exact search"
    tree = _root(X, y, seed, params)
    root = tree.nodes[0]
    assert root["feature"] in survivors
    assert root["feature"] == feature
    total_w = len(y)
    gini_root = total_w - (np.bincount(y) ** 2).sum() / total_w
    assert_allclose(root["improvement"], gini_root - cost, rtol=1e-9)
    assert tree.n_split_evaluations == evals


def test_plan_never_reads_more_than_the_exact_search():
    rng = np.random.RandomState(0)
    for _ in range(300):
        n, d = int(rng.randint(2, 200000)), int(rng.randint(1, 3000))
        params = np.array([rng.randint(1, 12), rng.randint(1, 12), rng.choice([0.005, 0.1, 0.5]), rng.randint(1, 80)],
                          dtype=float)
        batch, rounds, min_keep, evals, cap = sdt_plan(n, d, params)
        assert evals <= n * d
        if rounds == 0:
            assert evals == n * d
        else:
            assert batch >= params[3] and rounds <= params[1] and cap <= d * batch * 2


def test_small_nodes_and_no_halving_fall_back_to_the_exact_tree():
    X, y = make_classification(400, 10, n_informative=5, random_state=0)
    exact = DecisionTreeClassifier(splitter="exact", random_state=0).fit(X, y)
    # fraction 1.0: no feature may be discarded, so every node is searched exactly
    sdt = DecisionTreeClassifier(splitter="stochastic", sdt_min_features_fraction=1.0, random_state=0).fit(X, y)
    for field in ("feature", "threshold", "left"):
        assert_array_equal(sdt.tree_.nodes[field], exact.tree_.nodes[field])
    assert sdt.tree_.n_split_evaluations == exact.tree_.n_split_evaluations
    # n0 larger than the data: every node is smaller than one round
    big_n0 = DecisionTreeClassifier(splitter="stochastic", sdt_n0=400, random_state=0).fit(X, y)
    assert_array_equal(big_n0.tree_.nodes["threshold"], exact.tree_.nodes["threshold"])


def test_evaluation_counts_of_every_splitter():
    X, y = make_classification(1000, 12, random_state=1)
    for splitter in ("exact", "random"):
        tree = DecisionTreeClassifier(splitter=splitter, max_depth=1, random_state=0).fit(X, y).tree_
        assert tree.n_split_evaluations == X.shape[0] * X.shape[1], splitter
    # hist: the root's histograms only, since children at max_depth cannot split ...
    hist = DecisionTreeClassifier(splitter="hist", max_depth=1, random_state=0).fit(X, y).tree_
    assert hist.n_split_evaluations == X.shape[0] * X.shape[1]
    # ... and with one more level, plus the smaller child's built for the subtraction trick
    hist = DecisionTreeClassifier(splitter="hist", max_depth=2, random_state=0).fit(X, y).tree_
    n_small = hist.nodes["n_samples"][[hist.nodes["left"][0], hist.nodes["right"][0]]].min()
    assert hist.n_split_evaluations == (X.shape[0] + n_small) * X.shape[1]
    deep = DecisionTreeClassifier(splitter="exact", max_depth=3, random_state=0).fit(X, y).tree_
    internal = deep.nodes["left"] >= 0
    assert deep.n_split_evaluations == (deep.nodes["n_samples"][internal] * X.shape[1]).sum()


def test_fewer_evaluations_similar_accuracy_on_a_larger_set():
    X, y = make_classification(30000, 50, n_informative=8, n_classes=3, random_state=2)
    tr, te = slice(0, 24000), slice(24000, None)
    exact = DecisionTreeClassifier(splitter="exact", max_depth=6, random_state=0).fit(X[tr], y[tr])
    sdt = DecisionTreeClassifier(splitter="stochastic", max_depth=6, random_state=0).fit(X[tr], y[tr])
    assert sdt.tree_.n_split_evaluations * 8 < exact.tree_.n_split_evaluations
    # eight equally informative features: SDT may pick a different one of them (chance is 1/3)
    assert sdt.score(X[te], y[te]) > exact.score(X[te], y[te]) - 0.05


def test_regression_with_the_stochastic_splitter():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(5000, 30))
    y = 3 * X[:, 4] + np.sin(2 * X[:, 7]) + 0.1 * rng.normal(size=5000)
    reg = DecisionTreeRegressor(splitter="stochastic", max_depth=6, random_state=0).fit(X[:4000], y[:4000])
    assert reg.score(X[4000:], y[4000:]) > 0.8
    assert reg.tree_.nodes["feature"][0] == 4


def test_sort_pairs_matches_numpy():
    rng = np.random.RandomState(0)
    for n in (0, 1, 2, 15, 16, 17, 100, 3000):
        for keys in (rng.rand(n), rng.randint(0, 3, n).astype(float), np.arange(n, 0, -1, dtype=float)):
            k, pos = keys.copy(), np.arange(n, dtype=np.int64)
            sort_pairs(k, pos, n)
            assert_array_equal(k, np.sort(keys))
            assert_array_equal(keys[pos], k)


@pytest.mark.parametrize("bad, message", [
    ({"sdt_C": 0}, "sdt_C"), ({"sdt_C": 40}, "sdt_C"), ({"sdt_alpha": 0}, "sdt_alpha"),
    ({"sdt_min_features_fraction": 0.0}, "sdt_min_features_fraction"),
    ({"sdt_min_features_fraction": 1.5}, "sdt_min_features_fraction"), ({"sdt_n0": 0}, "sdt_n0"),
])
@pytest.mark.parametrize("cls", [DecisionTreeClassifier, RandomForestClassifier, RandomForestRegressor])
def test_out_of_range_parameters_are_rejected(cls, bad, message):
    X, y = make_classification(50, 4, random_state=0)
    with pytest.raises(ValueError, match=message):
        cls(splitter="stochastic", **bad).fit(X, y)


def test_failed_fit_keeps_the_previous_model():
    X, y = make_classification(300, 6, random_state=0)
    clf = DecisionTreeClassifier(splitter="stochastic", random_state=0).fit(X, y)
    before = clf.predict(X)
    clf.set_params(sdt_alpha=-1)
    with pytest.raises(ValueError, match="sdt_alpha"):
        clf.fit(X[:, :3], y)
    assert_array_equal(clf.predict(X), before)


def test_forests_pass_the_parameters_and_do_not_depend_on_n_jobs():
    X, y = make_classification(3000, 40, n_informative=6, random_state=4)
    kw = dict(n_estimators=6, splitter="stochastic", sdt_C=6, sdt_alpha=5, sdt_n0=10, random_state=0)
    one = RandomForestClassifier(n_jobs=1, **kw).fit(X, y)
    two = RandomForestClassifier(n_jobs=2, **kw).fit(X, y)
    assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    est = one.estimators_[0]
    assert (est.splitter, est.sdt_C, est.sdt_alpha, est.sdt_n0) == ("stochastic", 6, 5, 10)
    # the parameters reach the engine: another C gives other trees
    other = RandomForestClassifier(n_jobs=1, **{**kw, "sdt_C": 2}).fit(X, y)
    assert not np.array_equal(one.predict_proba(X), other.predict_proba(X))
    et = ExtraTreesClassifier(n_estimators=3, splitter="stochastic", random_state=0).fit(X, y)
    assert et.score(X, y) > 0.9


def test_accuracy_on_satimage():
    from forestzoo.datasets import load_dataset

    try:
        Xtr, ytr = load_dataset("satimage_landsat", split="train")
        Xte, yte = load_dataset("satimage_landsat", split="test")
    except FileNotFoundError:
        pytest.skip("satimage_landsat is not in FORESTZOO_DATA")
    exact = DecisionTreeClassifier(max_depth=8, random_state=0).fit(Xtr, ytr)
    sdt = DecisionTreeClassifier(splitter="stochastic", max_depth=8, random_state=0).fit(Xtr, ytr)
    assert sdt.score(Xte, yte) > 0.78  # chance is ~0.24 (largest class)
    assert sdt.score(Xte, yte) > exact.score(Xte, yte) - 0.03
    assert sdt.tree_.n_split_evaluations < exact.tree_.n_split_evaluations
